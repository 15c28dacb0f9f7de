# shellcheck shell=bash
# tools/lib/check_stage2.sh - the stage-2 subject in tools/check (KVM arm64
# stage-2 page tables, docs/stage2.md). Sourced by tools/check after
# tools/lib/stage2.sh; tools/check keeps the budget, the live lines, the
# verdict of each phase (settle, record), the base-and-patched sort and
# the report, and calls these for what is the subject's own:
#
#   s2c_prepare_role ROLE   the tree's three files (patched or not) in a
#                           scratch package with the phases' binaries'
#                           rules; sets R_*[ROLE] as prepare_role does
#   s2c_build               every role's binaries in one coverage build
#   s2c_plan                the phases (plan, share)
#   s2c_phase ROLE NAME PLANNED   runs one phase
#   s2c_confirm_script SIG SCRIPT LOG KNOWN  an engine script replayed on
#                           the tree without the patch: 0 if it shows SIG there
#   s2c_confirm_stress G FLAGS SECS PREFIX LOG KNOWN  stress runs on the
#                           tree without the patch, for the findings to
#                           look for there
#   s2c_cov_objects         the binaries whose coverage counts
#
# The phases (the budget shared by weight, as for contpte):
#   stress-4k        real threads: vCPUs with hardware AF, faulters, an
#                    exclusive thread, the ager (mmu_lock as --age-lock)
#   engine-pct-4k    the deterministic engine, PCT schedules, the corpus's
#                    seeds among the generated programs; memory
#                    sequentially consistent (the stage-2 subject's checks
#                    are validated there: docs/stage2.md, "What is not
#                    modelled")
#   stress-16k, stress-64k  as the first (--granules)
#   engine-burst-4k  burst schedules: one thread stopped mid-walk while
#                    another completes whole ops (use-after-free and lost
#                    updates)
#   stress-4k-hw-af-off  vCPUs without hardware AF: every access-flag
#                    update is a fault into the shared mkyoung
# A phase goes on past each finding: the next search (stress and engine
# alike) knows the signatures found so far (--known), unless --fail-fast.

S2C_SEEDS=corpora/stage2/seeds
# s2c_aging: how the ager takes mmu_lock, in words
s2c_aging() { [[ $age_lock = none ]] && echo "aging without mmu_lock" || echo "aging with mmu_lock for $age_lock"; }

# s2c_prepare_role ROLE
s2c_prepare_role() {
  local role=$1 p="" g args
  [[ $role != base ]] && p=$patch
  stage2_prepare "$tree" "$p"
  {
    for g in 4 "${extra_g[@]%k}"; do
      printf 'stage2_binary(name = "hammer_%sk", tree = "t", granule_kb = %d, driver = "hammer")\n' "$g" "$g"
    done
    printf 'stage2_binary(name = "engine_4k", tree = "t", granule_kb = 4, driver = "engine")\n'
  } >>"$s2_pkgdir/BUILD"
  args=(--subject=stage2 --kernel-tree "$tree")
  [[ -n "$p" ]] && args+=(--patch "$patch")
  R_Q[$role]=$(printf ' %q' "${args[@]}")
  R_DESC[$role]=$s2_label R_VARIANT[$role]=stage2 R_PKG[$role]=$s2_pkg R_LABEL[$role]=$s2_label
  R_PKGDIR[$role]=$s2_pkgdir R_COPY[$role]="" R_PATCH[$role]=$p R_HDR[$role]=""
  if [[ $role != base ]]; then
    main_pkgdir=$s2_pkgdir main_pkg=$s2_pkg main_copy="" main_label=$s2_label main_summary=""
  fi
}

# s2c_build: the rules of every role, one coverage build; a tree that does
# not build ends the run with the probe's message at the tree's paths
s2c_build() {
  local labels=() role r
  for role in "${roles[@]}"; do
    for r in hammer_4k engine_4k "${extra_g[@]/#/hammer_}"; do labels+=("//${R_PKG[$role]}:$r"); done
  done
  echo "$tool: building the stage-2 subject: $tree's $S2_REL_SRC$([[ -n "$patch" ]] && echo ", with $patch applied and without it,") for granules 4k${extra_g[*]:+ ${extra_g[*]}} ..." >&2
  if ! bazel_build --config=subjcov "${labels[@]}"; then
    for role in "${roles[@]}"; do
      grep -vE '^ERROR: .*(error executing command|failed to build)|^Use --sandbox_debug' <<<"$bazel_errors" |
        sed -e "s|\(\./\)\?${R_PKG[$role]}/testdata/t/|${tree%/}/|g"
    done | awk '!s[$0]++' >&2
    die "the stage-2 subject does not build on the shim (stage2/kernel_tree/shim/; the probe's message above)"
  fi
}

# s2c_plan: plan and share for the stage-2 phases
s2c_plan() {
  plan=(stress-4k engine-pct-4k)
  for g in "${extra_g[@]}"; do plan+=("stress-$g"); done
  plan+=(engine-burst-4k stress-4k-hw-af-off)
  share=([stress-4k]=20 [engine-pct-4k]=20 [stress-16k]=10 [stress-64k]=10 [engine-burst-4k]=20 [stress-4k-hw-af-off]=20)
}

# s2c_phase ROLE NAME PLANNED
s2c_phase() {
  case $2 in
    stress-4k) s2c_stress "$1" "$2" 4k "$3" ;;
    stress-16k) s2c_stress "$1" "$2" 16k "$3" ;;
    stress-64k) s2c_stress "$1" "$2" 64k "$3" ;;
    stress-4k-hw-af-off) s2c_stress "$1" "$2" 4k "$3" --hw-af=off ;;
    engine-pct-4k) s2c_engine "$1" "$2" "$3" pct ;;
    engine-burst-4k) s2c_engine "$1" "$2" "$3" burst ;;
  esac
}

# s2c_stress ROLE NAME G PLANNED [HAMMER FLAGS...]: the stage-2 hammer,
# run again past each finding (that signature known) until its time is up
s2c_stress() {
  local name=$2 g=$3 planned=$4 log jsons f work kinds summary verdict flags=""
  role_env "$1"; shift 4
  log=$(logname "$role" "$name")
  [[ $# -gt 0 ]] && flags=$(printf ' %q' "$@")
  rm -f "$out/logs/$log".*.json
  live "$log" "$planned" s2c_searches "$out/logs/$log" "$planned" 2 "$known" "$keep" \
    "cd $(printf '%q' "$ws") && tools/hammer$q --granule $g --age-lock=$age_lock$flags --seed=$seed" -- \
    "$bin/hammer_$g" --seed="$seed" --no-progress --age-lock="$age_lock" "$@"
  jsons=("$out/logs/$log".*.json)
  [[ -e "${jsons[0]}" ]] || jsons=()
  mapfile -t f < <(for j in "${jsons[@]}"; do json_get "$j" accesses ops aging.calls; done |
    awk '{ s[NR % 3] += $1 } END { print s[1] + 0; print s[2] + 0; print s[0] + 0 }')
  work="${f[0]} guest accesses, ${f[1]} ops, ${f[2]} aging calls"
  kinds=$(kinds_of "${jsons[@]}")
  settle "$log" s2stress "${f[0]}" "${f[1]}"
  record "$role" "$name" "granule $g, $(s2c_aging), seed $seed${*:+, $*}" "$planned" "$took" \
    "$work" "$verdict" "$summary" "" "${jsons[@]}"
}
# s2c_searches PREFIX SECONDS MIN KNOWN KEEP REPRO -- RUN...: RUN (a
# stage-2 driver) with --seconds the time left, its summary PREFIX.N.json
# and --known the signatures KNOWN and those found so far, again past each
# finding until fewer than MIN seconds are left, a run ends clean (its
# status), or (KEEP not 1) the first finding (1); REPRO, when given, is
# the command that reproduces a run's finding (its --known appended), kept
# in its summary
s2c_searches() {
  local prefix=$1 end=$((EPOCHSECONDS + $2)) min=$3 more=$4 keep_on=$5 repro=$6 n=0 sig rc
  shift 7
  while [[ $((end - EPOCHSECONDS)) -ge $min ]]; do
    "$@" --seconds=$((end - EPOCHSECONDS)) --json="$prefix.$n.json" ${more:+--known="$more"}
    rc=$?
    sig=$(sigs_of "$prefix.$n.json" | head -1)
    [[ -n "$sig" ]] || return "$rc"
    [[ -n "$repro" ]] && s2c_add_repro "$prefix.$n.json" "$repro${more:+ --known=$more}"
    [[ $keep_on = 1 ]] || return 1
    more+="${more:+,}$sig" n=$((n + 1))
  done
  return 0
}
# s2c_add_repro JSON CMD: the command that reproduces the summary's finding
s2c_add_repro() {
  /usr/bin/python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); d["reproduce"] = sys.argv[2]; json.dump(d, open(sys.argv[1], "w"))' "$1" "$2" 2>/dev/null
}

# s2c_engine ROLE NAME PLANNED STRATEGY: the engine's explore at 4k,
# searching again past each finding; each finding's script in findings/
s2c_engine() {
  local name=$2 planned=$3 strategy=$4 log jsons runs work kinds summary verdict
  role_env "$1"
  log=$(logname "$role" "$name")
  rm -f "$out/logs/$log".*.json
  live "$log" "$planned" s2c_searches "$out/logs/$log" "$planned" 2 "$known" "$keep" "" -- \
    env S2_TREE_DESC="$desc" "$bin/engine_4k" explore --strategy="$strategy" --memory=sc --age-lock="$age_lock" \
    --seed="$seed" --seeds="$ws/$S2C_SEEDS" --save="$out/findings"
  jsons=("$out/logs/$log".*.json)
  [[ -e "${jsons[0]}" ]] || jsons=()
  runs=$(for j in "${jsons[@]}"; do json_get "$j" runs; done | awk '{ s += $1 } END { print s + 0 }')
  work="$runs schedules"
  kinds=$(kinds_of "${jsons[@]}")
  settle "$log" s2engine "$runs"
  record "$role" "$name" "granule 4k, $([[ $strategy = pct ]] && echo "PCT" || echo "burst") schedules, sequentially consistent memory, the corpus's seeds, $(s2c_aging), seed $seed" \
    "$planned" "$took" "$work" "$verdict" "$summary" "" "${jsons[@]}"
}
# s2c_confirm_script SIG SCRIPT LOG KNOWN: the script replayed on the tree
# without the patch (the same schedule): 0 if SIG shows there
s2c_confirm_script() {
  env LLVM_PROFILE_FILE=/dev/null S2_TREE_DESC="${R_DESC[base]}" "${R_BIN[base]}/engine_4k" replay "$2" \
    ${4:+--known="$4"} >"$3" 2>&1
  grep -qE "^  finding: $1( |\$)" "$3"
}
# s2c_confirm_stress G FLAGS SECS PREFIX LOG KNOWN: stress runs on the tree
# without the patch (the same granule, flags and seed) for SECS in all,
# each past the last one's finding (made known), summaries PREFIX.N.json
s2c_confirm_stress() {
  # shellcheck disable=SC2086
  s2c_searches "$4" "$3" 1 "$6" 1 "" -- env LLVM_PROFILE_FILE=/dev/null S2_TREE_DESC="${R_DESC[base]}" \
    "${R_BIN[base]}/hammer_$1" --seed="$seed" --no-progress $2 >"$5" 2>&1
}

s2c_cov_objects() {
  local bin=$1 g
  objs=("$bin/hammer_4k" -object "$bin/engine_4k")
  for g in "${extra_g[@]}"; do objs+=(-object "$bin/hammer_$g"); done
}
