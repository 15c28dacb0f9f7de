# shellcheck shell=bash
# tools/lib/stage2.sh - the stage-2 subject (KVM arm64 stage-2 page tables,
# docs/stage2.md) in tools/hammer, tools/explore and tools/repro. Sourced
# after tools/lib/common.sh; each tool calls stage2_dispatch first.
#
#   stage2_dispatch ARGS...
#       Which subject the command line asks for: --subject=stage2 or
#       --subject=contpte; without one, stage 2 when a --patch touches
#       arch/arm64/kvm/ or asm/kvm_pgtable.h / asm/stage2_pgtable.h, or
#       (tools/repro) the script begins "stage2 script". For stage 2 it runs
#       the tool's stage-2 path and exits with its code; otherwise it sets
#       stage2_rest to ARGS without --subject=contpte and returns.
#
# The stage-2 path of each tool:
#   tools/hammer --subject=stage2 [--kernel-tree PATH [--patch FILE]] [--granule G] [FLAGS...]
#       the real-thread driver (stage2/stress/hammer.c: its flags pass
#       through; `bazel run //stage2/kernel_tree:hammer_current_4k -- --help`
#       lists them) over the tree's
#       arch/arm64/kvm/hyp/pgtable.c with its asm/kvm_pgtable.h (and
#       asm/stage2_pgtable.h where it has one); without --kernel-tree the
#       project's newest test tree (stage2/kernel_tree/testdata/current).
#   tools/explore --subject=stage2 [tree as above] [--save=DIR] [FLAGS...]
#       the deterministic engine (stage2/engine/main.c explore: its flags
#       pass through, `bazel run //stage2/kernel_tree:engine_current_4k --
#       --help`; --strategy=random|pct|burst); a violation is saved as
#       a script in DIR (default explore-findings/) naming the tree it ran on.
#   tools/explore --subject=stage2 --strategy=afl [tree as above] --seconds=N --seed=N [--save=DIR]
#                 [--seeds=DIR] [configuration flags: --age-lock=, --fwb=, ...]
#       AFL++ over the tree's programs in the byte form (stage2/fuzz/:
#       stage2_explore_afl below); a crash is saved as a script the engine
#       replays, and reported as the first subject's AFL++ runs report.
#   --coverage[=DIR] (tools/hammer, tools/explore): the build is the
#       coverage build (--config=subjcov) and the run's coverage of the
#       tree's pgtable.c is written to DIR (default stage2-coverage/):
#       coverage.json (line counts, functions) and a summary on stderr.
#   tools/repro FILE [--kernel-tree PATH [--patch FILE]]
#       replays a stage-2 script on the tree it names (its "tree" line:
#       "PATH" or "PATCH on PATH", as tools/explore writes; a test tree's
#       name "stage2/kernel_tree/testdata/NAME" and the corpus's
#       "PATCH on the NAME test tree"), or on the tree given.
#
# Output and exit codes are the drivers': a summary on standard error, one
# JSON line on standard output ({"subject": "stage2", ..., "kind": K,
# "result": "clean" | "violation" | ...}); exit 0 clean (or, with
# --expect=KIND, that kind found), 1 a violation, 2 a usage error, a tree
# that does not build on the shim (every missing name listed) or a patch
# that does not apply.

S2_REL_SRC=arch/arm64/kvm/hyp/pgtable.c
S2_REL_HDR=arch/arm64/include/asm/kvm_pgtable.h
S2_REL_S2HDR=arch/arm64/include/asm/stage2_pgtable.h
S2_REL_MMU=arch/arm64/kvm/mmu.c

# stage2_check_mmu TREE PATCH: where the tree has its mmu.c, the harness's
# ops (stage2/runtime/ops.c) compared with it (stage2/kernel_tree/check_mmu.py):
# a line per op on standard error, and a warning for each that differs
# (the run goes on: the harness drives the ops as mainline's mmu.c does)
stage2_check_mmu() {
  local tree=$1 patch=$2 out rc kconfig=() age=() a
  [[ -f "$tree/$S2_REL_MMU" ]] || return 0
  [[ -f "$tree/arch/arm64/kvm/Kconfig" ]] && kconfig=("$tree/arch/arm64/kvm/Kconfig")
  # the run's --age-lock (stage2_main's pass-through flags), for the aging ops
  for a in "${pass[@]}"; do [[ $a == --age-lock=* ]] && age=("$a"); done
  out=$("$ws/stage2/kernel_tree/check_mmu.py" "${age[@]}" "$ws/stage2/runtime/ops.c" "$tree/$S2_REL_MMU" "${kconfig[@]}" 2>&1); rc=$?
  if [[ $rc = 2 ]]; then
    echo "$tool: $S2_REL_MMU could not be compared with the harness's ops: $out" >&2
    return 0
  fi
  echo "$tool: the harness's ops against the tree's $S2_REL_MMU (stage2/kernel_tree/check_mmu.py):" >&2
  sed 's/^/  /' <<<"$out" >&2
  [[ $rc = 1 ]] && echo "$tool: WARNING: the ops marked DIFFERS run as the harness's table (stage2/runtime/ops.c) and --age-lock say, not as this tree's mmu.c calls them" >&2
  if [[ -n "$patch" ]] && grep -q "^+++ [^ ]*/$S2_REL_MMU" "$patch"; then
    echo "$tool: (the patch's $S2_REL_MMU hunks are not in this comparison: it reads the tree's file)" >&2
  fi
  return 0
}

# stage2_patch_chooses PATCH: true (and says so) when PATCH changes KVM's
# stage-2 code (arch/arm64/kvm/, asm/kvm_pgtable.h, asm/stage2_pgtable.h):
# the subject a command without --subject takes
stage2_patch_chooses() {
  [[ -n "$1" && -f "$1" ]] &&
    grep -qE '^\+\+\+ ([^/ ]*/)?arch/arm64/(kvm/|include/asm/(kvm_pgtable|stage2_pgtable)\.h)' "$1" || return 1
  echo "$tool: the patch changes KVM's stage-2 code: the stage-2 subject (--subject=contpte for the other)" >&2
}

stage2_dispatch() {
  local a prev="" subject="" patch=""
  stage2_rest=()
  for a in "$@"; do
    case "$a" in
      --subject=stage2) subject=stage2 ;;
      --subject=contpte) subject=contpte ;;
      --subject=*) die "unknown subject '${a#*=}' (valid: contpte, stage2)" ;;
      --subject) die "--subject wants a value: --subject=contpte or --subject=stage2" ;;
      --patch=*) patch=${a#*=}; stage2_rest+=("$a") ;;
      *) [[ $prev = --patch ]] && patch=$a; stage2_rest+=("$a") ;;
    esac
    prev=$a
  done
  if [[ -z "$subject" ]]; then
    if stage2_patch_chooses "$patch"; then
      subject=stage2
    elif [[ $tool = tools/repro ]]; then
      for a in "$@"; do
        [[ $a != -* && -f "$a" ]] && [[ $(head -c 13 "$a") = "stage2 script" ]] && subject=stage2
      done
    fi
  fi
  [[ $subject = stage2 ]] || return 0
  stage2_main "${stage2_rest[@]}"
  exit $?
}

# stage2_prepare TREE PATCH: a scratch package (removed at exit) holding the
# tree's three files, the patch applied to the copies; sets s2_pkgdir,
# s2_pkg, s2_label.
stage2_prepare() {
  local tree=${1%/} patch=$2 rels=("$S2_REL_SRC" "$S2_REL_HDR" "$S2_REL_S2HDR") rel msg
  [[ -d "$tree" ]] || die "kernel-tree: no such directory '$tree'"
  [[ -f "$tree/$S2_REL_SRC" ]] || die "kernel-tree: $tree has no $S2_REL_SRC (the top of a Linux tree is wanted)"
  [[ -f "$tree/$S2_REL_HDR" ]] || die "kernel-tree: $tree has no $S2_REL_HDR"
  scratch_package s2
  s2_pkgdir=$scratch_pkgdir s2_pkg=$scratch_pkg
  if [[ -n "$patch" ]]; then
    if ! msg=$("$ws/kernel_tree/common/apply_patch_files.sh" "$patch" "$tree" "$s2_pkgdir/testdata/t" "${rels[@]}" 2>&1); then
      echo "$msg" >&2
      die "patch '$patch' does not apply to $tree (the tree is untouched)"
    fi
    [[ -n "$msg" ]] && echo "$msg" >&2
    s2_label="$patch on $tree"
  else
    for rel in "${rels[@]}"; do
      [[ -f "$tree/$rel" ]] || continue
      mkdir -p "$s2_pkgdir/testdata/t/$(dirname "$rel")"
      cp "$tree/$rel" "$s2_pkgdir/testdata/t/$rel"
    done
    s2_label=$tree
  fi
  printf 'load("//build:stage2.bzl", "stage2_binary")\n' >"$s2_pkgdir/BUILD"
  stage2_check_mmu "$tree" "$patch"
}

# stage2_build DRIVER KB: after stage2_prepare, the driver (hammer | engine
# | afl_harness, the last with afl-clang-fast) over the copies for granule
# KB; sets s2_bin. A tree that does not build ends the tool (exit 2) with
# the probe's message at the tree's paths.
stage2_build() {
  local config=() name=bin
  [[ -n "$s2_cov" ]] && config=(--config=subjcov)
  [[ $1 = afl_harness ]] && config=(--config=afl) name=afl_harness
  printf 'stage2_binary(name = "%s", tree = "t", granule_kb = %d, driver = "%s")\n' "$name" "$2" "$1" >>"$s2_pkgdir/BUILD"
  echo "$tool: building $s2_label (stage 2, granule ${2}k${s2_cov:+, with coverage}${config:+, ${config[0]#--config=}}) ..." >&2
  if ! bazel_build "${config[@]}" "//$s2_pkg:$name"; then
    grep -vE '^ERROR: .*(error executing command|failed to build)|^Use --sandbox_debug' <<<"$bazel_errors" |
      sed -e "s|\(\./\)\?$s2_pkg/testdata/t/|$s2_tree/|g" >&2
    die "$s2_label does not build on the stage-2 shim (stage2/kernel_tree/shim/; the probe's message above)"
  fi
  s2_bin="$(bazel_bin "${config[@]}")/$s2_pkg/$name"
  if [[ -n "$s2_cov" ]]; then
    mkdir -p "$s2_cov/raw" || die "cannot make $s2_cov"
    rm -f "$s2_cov"/raw/*.profraw
    export LLVM_PROFILE_FILE="$s2_cov/raw/%p.profraw"
  fi
}

# stage2_coverage: after a --coverage run, the profiles merged and the
# coverage of the tree's pgtable.c (tools/lib/stage2_coverage.py).
stage2_coverage() {
  local raws=("$s2_cov"/raw/*.profraw)
  [[ -e "${raws[0]}" ]] || { echo "$tool: no coverage profile was written" >&2; return 0; }
  if llvm-profdata-14 merge -sparse "${raws[@]}" -o "$s2_cov/pgtable.profdata" &&
     (cd "$ws" && llvm-cov-14 export -format=lcov -instr-profile="$s2_cov/pgtable.profdata" "$s2_bin") >"$s2_cov/bin.lcov"; then
    /usr/bin/python3 "$ws/tools/lib/stage2_coverage.py" "$(dirname "$s2_bin")/bin_tree_unit.c" \
      "$s2_tree/$S2_REL_SRC" "$s2_cov/coverage.json" "$s2_cov/bin.lcov" >&2
  else
    echo "$tool: the coverage profile could not be read" >&2
  fi
  rm -rf "$s2_cov/raw"
}

# stage2_tree_of_script FILE: sets s2_tree and s2_patch from the script's
# "tree" line (see the header), relative paths taken from the workspace.
stage2_tree_of_script() {
  local line p t
  line=$(sed -n 's/^tree //p' "$1" | head -1)
  s2_tree="$ws/stage2/kernel_tree/testdata/current" s2_patch=""
  [[ -z "$line" ]] && return 0
  if [[ "$line" =~ ^(.+)\ on\ the\ ([A-Za-z0-9_.-]+)\ test\ tree$ ]]; then
    p=${BASH_REMATCH[1]} t="stage2/kernel_tree/testdata/${BASH_REMATCH[2]}"
  elif [[ "$line" =~ ^(.+)\ on\ (.+)$ ]]; then
    p=${BASH_REMATCH[1]} t=${BASH_REMATCH[2]}
  else
    p="" t=$line
    # a binary's own path to the source (the probe's): the tree's top
    t=${t%/"$S2_REL_SRC"}
  fi
  [[ $t = /* ]] || t="$ws/$t"
  [[ -z "$p" || $p = /* ]] || p="$ws/$p"
  s2_tree=$t s2_patch=$p
}

# stage2_explore_afl: tools/explore --subject=stage2 --strategy=afl, after
# stage2_prepare (with stage2_main's pass[], kb, save): AFL++
# (tools/lib/afl_explore.sh) for --seconds on the tree's AFL++ harness
# (stage2/fuzz/harness.c), from the seed programs (corpora/stage2/seeds, or
# --seeds=DIR) and 32 generated ones, in the byte form (stage2/fuzz/codec.h).
# The configuration flags given are the run's mode (S2_FUZZ_FLAGS: every
# program runs with them); what they leave open is fuzzed, except age-lock
# and age-rcu (write, on). Exit 0 clean, 1 a violation (replayed by the
# engine, saved), as afl_explore_report / afl_explore_not_replayed say.
stage2_explore_afl() {
  local a f flags=() seeds=$ws/corpora/stage2/seeds engine harness
  for a in "${pass[@]}"; do
    case "$a" in
      --strategy=afl|--seconds=*|--seed=*) ;;
      --seeds=*) seeds=${a#*=} ;;
      --memory=*|--age-lock=*|--age-rcu=*|--hw-af=*|--tlb=*|--fwb=*|--tlb-range=*|--tlb-hints=*|--reuse=*|--blocks=*|--age-pages=*) flags+=("$a") ;;
      *) die "$a does not apply to --strategy=afl (docs/stage2.md, \"AFL++\")" ;;
    esac
  done
  [[ -z "$s2_cov" ]] || die "--coverage does not apply to --strategy=afl"
  source "$ws/tools/lib/afl_explore.sh"
  afl_explore_args
  afl_log_bin
  stage2_build engine "$kb"; engine=$s2_bin
  stage2_build afl_harness "$kb"; harness=$s2_bin
  work=$(mktemp -d "${TMPDIR:-/tmp}/explore-afl.XXXXXX") || die "cannot make a work directory"
  remove_at_exit "$work"
  mkdir -p "$work/all" "$work/gen"
  export S2_TREE_DESC=$s2_label S2_FUZZ_FLAGS="${flags[*]}"
  "$engine" gen 32 "$work/gen" --seed="$seed" "${flags[@]}" || die "cannot generate seed programs"
  for f in "$seeds"/*.txt "$work"/gen/*.txt; do
    [[ -f "$f" ]] || continue
    "$engine" encode "$f" "$work/all/$(basename "$(dirname "$f")")-$(basename "${f%.txt}").bin" ||
      die "seed $f: not a program the byte form can say (above)"
  done
  afl_explore_seeds stage2_afl_found "$harness"
  ls "$work"/in/*.bin >/dev/null 2>&1 || die "no seed programs to start from"
  echo "$tool: afl-fuzz on $s2_label (stage 2, ${kb}k${flags:+, ${flags[*]}}) for up to ${seconds}s (seed $seed) ..." >&2
  afl_explore_fuzz -- -t 1000 -- "$harness"
  stage2_afl_found "$afl_crash" "$afl_when"
}

# stage2_afl_found CRASH WHEN: a crashing input, run alone by the harness,
# which writes the script of the run (with the schedule and choices it
# took); a finding if the engine replays that script to its kind, else
# named as not replayed.
stage2_afl_found() {
  local crash=$1 when=$2 txt kind
  mkdir -p "$save"
  rm -f "$work/crash.txt"
  (S2_FUZZ_SCRIPT_OUT=$work/crash.txt "$harness" "$crash"; exit $?) >/dev/null 2>&1
  if [[ ! -s "$work/crash.txt" ]]; then      # clean alone: the program it decodes to
    txt="$save/not-replayed-stage2-${kb}k-$(date +%s).txt"
    "$engine" decode "$crash" "${flags[@]}" >"$txt"
    afl_explore_not_replayed "$txt" "$when"
  fi
  if ! "$engine" replay --check-expect "$work/crash.txt" >"$work/replay.log" 2>&1; then
    txt="$save/not-replayed-stage2-${kb}k-$(date +%s).txt"
    cp "$work/crash.txt" "$txt"
    afl_explore_not_replayed "$txt" "$when"
  fi
  kind=$(sed -n 's/^expect //p' "$work/crash.txt")
  txt="$save/afl-$kind-${kb}k-$(date +%s).txt"
  cp "$work/crash.txt" "$txt"
  afl_explore_report "$txt" "$when"
}

stage2_main() {
  local granule=4k save="" file="" pass=() a kb repro rc
  s2_tree="" s2_patch="" s2_cov=""
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --kernel-tree) [[ $# -ge 2 ]] || die "--kernel-tree needs a path"; s2_tree=$(abspath "$2"); shift 2 ;;
      --kernel-tree=*) s2_tree=$(abspath "${1#*=}"); shift ;;
      --patch) [[ $# -ge 2 ]] || die "--patch needs a file"; s2_patch=$(abspath "$2"); shift 2 ;;
      --patch=*) s2_patch=$(abspath "${1#*=}"); shift ;;
      --granule) [[ $# -ge 2 ]] || die "--granule needs a value"; granule=$2; shift 2 ;;
      --granule=*) granule=${1#*=}; shift ;;
      --save) [[ $# -ge 2 ]] || die "--save needs a folder"; save=$(abspath "$2"); shift 2 ;;
      --save=*) save=$(abspath "${1#*=}"); shift ;;
      --coverage) s2_cov="$PWD/stage2-coverage"; shift ;;
      --coverage=*) s2_cov=$(abspath "${1#*=}"); shift ;;
      --reader-file*|--variant*)
        die "$1 does not apply to the stage-2 subject (docs/stage2.md)" ;;
      --strategy=afl) [[ $tool = tools/explore ]] || die "$1 does not apply to $tool"; pass+=("$1"); shift ;;
      --svg*|--quiet|--timeline) shift ;;   # tools/repro's picture: the contpte engine's only
      -h|--help) sed -n '/^# The stage-2 path of each tool:/,/^# that does not apply/p' "$ws/tools/lib/stage2.sh" | sed 's/^# \{0,1\}//'; exit 0 ;;
      -*)
        # the drivers take --flag=value; --flag value is joined (hammer and
        # explore take no other argument)
        if [[ $1 != *=* && $# -ge 2 && $2 != -* && $tool != tools/repro ]]; then
          pass+=("$1=$2"); shift 2
        else
          pass+=("$1"); shift
        fi ;;
      *) if [[ $tool = tools/repro && -z "$file" ]]; then file=$(abspath "$1"); shift
         else die "unexpected argument '$1'"; fi ;;
    esac
  done
  [[ -n "$s2_patch" && -z "$s2_tree" && $tool != tools/repro ]] && s2_tree="$ws/stage2/kernel_tree/testdata/current"
  case "$tool" in
    tools/repro)
      [[ -n "$file" ]] || die "a script FILE is required"
      [[ -f "$file" && -r "$file" ]] || die "cannot read '$file'"
      if [[ -z "$s2_tree" ]]; then
        stage2_tree_of_script "$file"
        [[ -n "$s2_patch" && ! -f "$s2_patch" ]] && die "the script's patch '$s2_patch' is not there (give --kernel-tree and --patch)"
      fi
      kb=$(sed -n 's/^granule \([0-9]*\)[kK].*/\1/p' "$file" | head -1)
      parse_granule "${kb:-4}"
      stage2_prepare "$s2_tree" "$s2_patch"
      stage2_build engine "$kb"
      S2_TREE_DESC=$s2_label "$s2_bin" replay "$file" "${pass[@]}"
      return $? ;;
    tools/explore)
      parse_granule "$granule"
      [[ -n "$s2_tree" ]] || s2_tree="$ws/stage2/kernel_tree/testdata/current"
      stage2_prepare "$s2_tree" "$s2_patch"
      [[ -n "$save" ]] || save="$PWD/explore-findings"
      [[ " ${pass[*]} " = *" --strategy=afl "* ]] && { stage2_explore_afl; return $?; }
      stage2_build engine "$kb"
      S2_TREE_DESC=$s2_label "$s2_bin" explore --save="$save" "${pass[@]}"
      rc=$?
      [[ -n "$s2_cov" ]] && stage2_coverage
      return $rc ;;
    tools/hammer)
      parse_granule "$granule"
      [[ -n "$s2_tree" ]] || s2_tree="$ws/stage2/kernel_tree/testdata/current"
      stage2_prepare "$s2_tree" "$s2_patch"
      stage2_build hammer "$kb"
      repro="cd $(printf '%q' "$PWD") && $(printf '%q' "$ws/tools/hammer") --subject=stage2 --kernel-tree $(printf '%q' "$s2_tree")"
      [[ -n "$s2_patch" ]] && repro+=" --patch $(printf '%q' "$s2_patch")"
      repro+=" --granule ${kb}k"
      for a in "${pass[@]}"; do [[ $a = --seed=* ]] || repro+=" $(printf '%q' "$a")"; done
      S2_TREE_DESC=$s2_label S2_REPRO_CMD=$repro "$s2_bin" "${pass[@]}"
      rc=$?
      [[ -n "$s2_cov" ]] && stage2_coverage
      return $rc ;;
    *) die "the stage-2 subject is not wired into $tool" ;;
  esac
}
