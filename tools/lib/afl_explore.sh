# tools/lib/afl_explore.sh: one AFL++ instance over interleaving scripts on
# the fuzz harness (fuzz/harness.c built with --config=afl), stopping at the
# first crash, which is rewritten as a text script for the target, shrunk,
# saved and reported. Sourced by tools/explore (--strategy=afl, which builds
# the binaries first) and tools/check (which builds them with the rest of
# its subject). Needs common.sh.
#
# afl_explore_check: the environment and the arguments (sets seconds, seed
# from pass[]: afl_explore_args; the mutator's settings)
# afl_explore_run: with asm, fuzztool (//fuzz tools), harness (the AFL++
# build), engine (the engine's command line for the same subject), variant,
# kb, save, reader/tree (a plug-in or tree subject), pass[] (--tlb,
# --tlb-evict, --bbml2, --memory), queue_out (optional): seeds, afl-fuzz for
# seconds, the verdict; exits 0 (no violation) or 1 (violation, script saved).
# afl-fuzz and the harness run pinned to one CPU (AFL_CPU=N|auto|off,
# common.sh's afl_cpu); FUZZ_QUEUE=weighted|sequential: afl-fuzz's queue
# selection (mutator_env); FUZZ_KNOWN=KIND:OP:FUNCTION,...: known bugs, never a
# crash (fuzz/harness.c) and kept out of the crash's shrinking.
#
# What both subjects' AFL++ runs share (tools/lib/stage2.sh's
# stage2_explore_afl is the other caller):
# afl_explore_args: seconds and seed from pass[] (default 60 and 1),
# checked with the environment and afl-fuzz being there.
# afl_explore_seeds FOUND CMD...: each $work/all/*.bin that CMD FILE runs
# without a crash goes to $work/in; one that crashes is handed to FOUND FILE
# WHEN (a finding at time 0: afl-fuzz would set it aside unreported).
# afl_explore_fuzz [VAR=VALUE...] -- AFL-FUZZ-ARGS... -- HARNESS: afl-fuzz
# from $work/in into $work/out for $seconds (bounded by AFL_DEADLINE),
# pinned, logged to $work/afl.log, stopping at the first crash; with none,
# prints "explore: no violation in ..." and exits 0; else sets afl_crash and
# afl_when.
# afl_explore_report TXT WHEN: the finding's lines (the script's "# finding:"
# line, kind, where it is saved, how to replay) and exit 1.
# afl_explore_not_replayed TXT WHEN: a crash the engine does not reproduce,
# kept in TXT and named, not a finding; exit 0.

afl_explore_check() {
  afl_explore_args
  if [[ ${mutator:-1} = 1 ]]; then mutator_lib; else no_mutator; fi
}

afl_explore_args() {
  local a
  seconds=60 seed=1
  for a in "${pass[@]}"; do
    case "$a" in --seconds=*) seconds=${a#*=} ;; --seed=*) seed=${a#*=} ;; esac
  done
  afl_env_check
  [[ "$seconds" =~ ^[0-9]+$ && "$seconds" -gt 0 ]] || die "--seconds must be a whole number of seconds for afl"
  [[ "$seed" =~ ^[0-9]+$ ]] || die "--seed must be a number"
  command -v afl-fuzz >/dev/null || die "afl-fuzz not found (tools/setup installs afl++)"
}

afl_explore_seeds() {
  local found=$1 f
  shift
  mkdir -p "$work/in"
  for f in "$work"/all/*.bin; do
    [[ -e "$f" ]] || continue
    if ("$@" "$f"; exit $?) >/dev/null 2>&1; then
      mv "$f" "$work/in/"
    else
      "$found" "$f" "by the seed $(basename "${f%.bin}") itself (0 s)"
    fi
  done
}

afl_explore_fuzz() {
  local env=() args=() harness start end execs
  while [[ $# -gt 0 && $1 != -- ]]; do env+=("$1"); shift; done
  shift
  while [[ $# -gt 0 && $1 != -- ]]; do args+=("$1"); shift; done
  shift
  harness=$1
  # AFL_DEADLINE (epoch seconds): afl-fuzz ends by then, however long the
  # seeds took to make
  if [[ -n "${AFL_DEADLINE:-}" ]]; then
    local until=$(( AFL_DEADLINE - EPOCHSECONDS - 2 ))
    [[ $until -lt $seconds ]] && seconds=$until
    if [[ $seconds -lt 1 ]]; then
      echo "explore: no violation in 0s of AFL++ (0 execs): no time left after the seeds"
      exit 0
    fi
  fi
  afl_cpu
  start=$(date +%s.%N)
  env "${env[@]}" AFL_NO_UI=1 AFL_BENCH_UNTIL_CRASH=1 AFL_SKIP_CPUFREQ=1 \
    AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_AFFINITY=1 \
    "${AFL_PIN[@]}" afl-fuzz "${args[@]}" -i "$work/in" -o "$work/out" -V "$seconds" -s "$seed" \
    -- "$harness" 2>&1 | afl_log "$work/afl.log"
  end=$(date +%s.%N)
  if [[ -n "${queue_out:-}" ]]; then      # the inputs AFL++ kept (tools/check replays them for coverage)
    mkdir -p "$queue_out" && cp "$work"/out/default/queue/id:* "$queue_out/" 2>/dev/null
  fi
  afl_crash=$(ls "$work"/out/default/crashes/id:* 2>/dev/null | head -1)
  if [[ -z "$afl_crash" ]]; then
    if grep -qE "PROGRAM ABORT" "$work/afl.log"; then tail -20 "$work/afl.log" >&2; die "afl-fuzz failed (above)"; fi
    execs=$(afl_stat "$work/out/default/fuzzer_stats" execs_done)
    echo "explore: no violation in ${seconds}s of AFL++ (${execs:-?} execs)"
    exit 0
  fi
  afl_when=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "after %.1f s of AFL++", b - a }')
}

afl_explore_report() {
  local txt=$1 kind
  kind=$(sed -n 's/^expect //p' "$txt")
  sed -n 's/^# finding: /explore: finding: /p' "$txt"
  echo "explore: ${kind:-unknown} violation $2; script saved to $txt"
  echo "explore: replay with tools/repro $txt"
  exit 1
}

afl_explore_not_replayed() {
  local execs
  echo "explore: a crash that does not replay outside AFL++: $1 ($2; the engine replays it clean)"
  execs=$(afl_stat "$work/out/default/fuzzer_stats" execs_done)
  echo "explore: no violation in ${seconds:-0}s of AFL++ (${execs:-0} execs)"
  exit 0
}

afl_explore_run() {
  local a built f
  built=$(ENGINE_PROG=$tool "$engine" list)
  grep -qx "$variant ${kb}k" <<<"$built" ||
    die "variant '$variant' is not built for granule ${kb}k ($engine list)"

  work=$(mktemp -d "${TMPDIR:-/tmp}/explore-afl.XXXXXX") || die "cannot make a work directory"
  remove_at_exit "$work"      # also when a die below ends the run
  mkdir -p "$work/in" "$work/all"
  # The seeds: tools/campaign's (each as written and as an arm_ copy) and
  # 32 random programs (engine/gen.c, as the random and PCT strategies run
  # them: the tails of their scripts interleave them), all with the machine
  # asked for (--tlb, --tlb-evict, --bbml2 as script lines; mutants keep them).
  local lines="" tlbn="" evict="" bbml2=0 memory=""
  for a in "${pass[@]}"; do
    case "$a" in
      --tlb=*) tlbn=${a#*=} ;; --tlb-evict=*) evict=${a#*=} ;; --bbml2) bbml2=1 ;;
      --memory=*) memory=${a#*=}; [[ $memory = arm || $memory = sc ]] || die "--memory takes arm or sc, got '$memory'" ;;
    esac
  done
  [[ $tlbn = 0 ]] && tlbn=""      # --tlb=0: no TLB model
  if [[ -n "$tlbn" ]]; then
    check_tlb "$tlbn"
    [[ -z "$evict" || "$evict" = lru || "$evict" = random ]] || die "--tlb-evict takes lru or random, got '$evict'"
    lines="tlb $tlbn${evict:+ $evict}"
  elif [[ -n "$evict" ]]; then
    die "--tlb-evict needs --tlb=N"
  fi
  [[ $bbml2 = 1 ]] && lines+="${lines:+$'\n'}bbml2"
  ASM=$asm seeds_for "${kb}k" "$work/all" "$lines" >/dev/null
  # --memory: the seeds of that model only (the sc ones carry no memory
  # line, the arm ones are the arm_ copies); the generated programs get it
  case $memory in
    sc) rm -f "$work"/all/arm_*.bin ;;
    arm) find "$work/all" -name '*.bin' ! -name 'arm_*' -delete ;;
  esac
  ENGINE_PROG=$tool "$engine" gen 32 "$work/gen" --granule="${kb}k" --seed="$seed" || die "cannot generate seed programs"
  for f in "$work"/gen/*.txt; do
    add_lines "$lines${memory:+${lines:+$'\n'}memory $memory}" <"$f" >"$work/gen.txt"
    "$asm" "$work/gen.txt" "$work/all/gen-$(basename "${f%.txt}").bin" >/dev/null 2>&1
  done
  # A seed that already violates is a finding at time 0: it goes the way of a crash.
  afl_explore_seeds found_crash env FUZZ_VARIANT="$variant" FUZZ_GRANULE="${kb}k" "$harness"
  ls "$work"/in/*.bin >/dev/null 2>&1 || die "no ${kb}k seed scripts to start from"
  echo "$tool: afl-fuzz on $variant ${kb}k for up to ${seconds}s (seed $seed) ..." >&2
  afl_explore_fuzz FUZZ_VARIANT="$variant" FUZZ_GRANULE="${kb}k" "${MUTATOR_ENV[@]}" \
    -- "${MUTATOR_ARGS[@]}" -x "$ws/fuzz/script.dict" -t 1000 -- "$harness"
  found_crash "$afl_crash" "$afl_when"
}

# found_crash FILE WHEN: a harness input that violates, read leniently and
# run as the target by the harness: rewritten so (fuzztool retarget; a
# plug-in or tree is not built into fuzztool, so it rewrites for baseline
# and the variant line is set here), shrunk, saved, reported; exits 1.
found_crash() {
  local crash=$1 when=$2 builtin=$variant txt
  [[ -n "$reader$tree" ]] && builtin=baseline
  "$fuzztool" retarget "$crash" --target="$builtin:${kb}k" -o "$work/crash.txt" >/dev/null 2>&1 ||
    die "cannot read the crash $crash"
  sed -i -e "s/^variant .*/variant $variant/" -e '/^expect /d' "$work/crash.txt"
  mkdir -p "$save"
  txt="$save/afl-$variant-${kb}k-$(date +%s).txt"
  if ! ENGINE_PROG=$tool "$engine" shrink "$work/crash.txt" "$txt" ${FUZZ_KNOWN:+--known="$FUZZ_KNOWN"} >/dev/null; then
    # A finding is what replays: a crash the engine does not reproduce
    # outside AFL++ (or only as a known bug) is kept and named, not
    # reported as a violation.
    if ENGINE_PROG=$tool "$engine" replay "$work/crash.txt" ${FUZZ_KNOWN:+--known="$FUZZ_KNOWN"} >/dev/null 2>&1; then
      txt="$save/not-replayed-$variant-${kb}k-$(date +%s).txt"
      cp "$work/crash.txt" "$txt"
      afl_explore_not_replayed "$txt" "$when"
    fi
    cp "$work/crash.txt" "$txt"
    echo "$tool: the crash replays outside AFL++ but did not shrink; saved as found" >&2
  fi
  afl_explore_report "$txt" "$when"
}

