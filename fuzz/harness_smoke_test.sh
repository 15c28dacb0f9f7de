#!/usr/bin/env bash
# fuzz/harness_smoke_test.sh HARNESS DECODER EMPTY CRASH_TXT SCRIPT_ASM FLAG_RUN_TXT PAIR_RUN_TXT WARM_RUN_TXT SEED.bin...
#
# The fuzz targets' standalone drivers (default config, no AFL):
#   1. the harness runs every binary seed on baseline 4k and 16k without
#      aborting, and --check accepts the default environment;
#   2. a known violation (no_consistency_check, phantom_bit) aborts
#      (SIGABRT) with the report on stderr: the kind, the variant/granule
#      and the script in text form with "expect phantom_bit";
#   3. FUZZ_ONLY_KIND of another kind lets the same input return normally,
#      lists containing its kind (',' or '|') abort, and the same input is
#      clean on baseline;
#   4. the harness overrides the script's variant: the crash file with its
#      variant line changed to baseline still aborts under
#      FUZZ_VARIANT=no_consistency_check;
#   5. rejects return quietly: a text script, garbage, an empty input;
#   6. bad FUZZ_VARIANT / FUZZ_GRANULE / FUZZ_ONLY_KIND / FUZZ_FEATURES /
#      FUZZ_READ_SHAPES: exit 2 with a message naming the variable;
#   7. decoder_fuzz runs clean over the seeds (binary and text) and garbage,
#      and the empty target runs;
#   8. runs per input (fuzz/runs.h, FUZZ_RUNS=auto): exactly 2 on 16K, more
#      than 2 on 4K (the step budget), and FUZZ_RUNS=N exactly N on both;
#   9. flag runs (fuzz/runs.h, FUZZ_RUN_FLAGS): FLAG_RUN_TXT is clean on
#      no_pfn_check with them off and reports phantom_bit with them on (the
#      default), the reported script differs from the input in its blocks'
#      or instructions' flags and replays alone (FUZZ_RUNS=1, flag runs
#      off), the correct readers stay clean on it, a bad value exits 2;
#      the same for PAIR_RUN_TXT on ee_sticky_flags, whose reported run
#      changed a pair site: its block line and its map line both, and
#      which stays clean with FUZZ_RUN_FLAGS=single (no pair sites), with
#      which FLAG_RUN_TXT's schedule of before pair sites still violates,
#      and which FUZZ_RUN_FLAGS=pairs (the harness before warm sites and
#      the new rotation) still catches; the same for WARM_RUN_TXT on
#      wrprotect_no_flush (stale_tlb_access), whose reported run gained a
#      tlb_entry line (a warm site) and which stays clean with
#      FUZZ_RUN_FLAGS=pairs.
set -u
HARNESS=$1 DECODER=$2 EMPTY=$3 CRASH=$4 ASM=$5 FLAGRUN=$6 PAIRRUN=$7 WARMRUN=$8
shift 8
SEEDS=("$@")
TMP=${TEST_TMPDIR:-$(mktemp -d)}
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

[ ${#SEEDS[@]} -ge 3 ] || fail "expected at least 3 binary seeds, got ${#SEEDS[@]}"

# 1
"$HARNESS" --check && ok "--check with the default environment" || fail "--check"
for g in 4k 16k; do
  if FUZZ_GRANULE=$g "$HARNESS" "${SEEDS[@]}" 2>"$TMP/err"; then
    ok "seeds clean on baseline $g"
  else
    fail "harness aborted on a seed on baseline $g: $(head -3 "$TMP/err")"
  fi
done

# 2
"$ASM" "$CRASH" "$TMP/crash.bin" || fail "script_asm on the crash file"
FUZZ_VARIANT=no_consistency_check "$HARNESS" "$TMP/crash.bin" 2>"$TMP/report"
rc=$?
if [ $rc -eq 134 ]; then ok "violation aborts (rc 134)"; else fail "violation: rc $rc, expected 134 (SIGABRT)"; fi
for want in '==== contpte violation: phantom_bit' 'variant no_consistency_check, granule 4k' \
            '^contpte-script 1' '^variant no_consistency_check' '^expect phantom_bit' '^schedule '; do
  grep -q -- "$want" "$TMP/report" && ok "report has: $want" || fail "report lacks '$want'"
done

# 3
FUZZ_VARIANT=no_consistency_check FUZZ_ONLY_KIND=dirty_lost "$HARNESS" "$TMP/crash.bin" \
  && ok "FUZZ_ONLY_KIND=dirty_lost: normal return" || fail "FUZZ_ONLY_KIND=dirty_lost still aborted"
for k in phantom_bit 'dirty_lost|phantom_bit' lost_bit,phantom_bit; do
  FUZZ_VARIANT=no_consistency_check FUZZ_ONLY_KIND=$k "$HARNESS" "$TMP/crash.bin" 2>/dev/null
  [ $? -eq 134 ] && ok "FUZZ_ONLY_KIND=$k: aborts" || fail "FUZZ_ONLY_KIND=$k did not abort"
done
"$HARNESS" "$TMP/crash.bin" && ok "clean on baseline" || fail "crash input not clean on baseline"

# 4
sed 's/^variant .*/variant baseline/' "$CRASH" > "$TMP/crash_baseline.txt"
"$ASM" "$TMP/crash_baseline.txt" "$TMP/crash_baseline.bin" || fail "script_asm"
FUZZ_VARIANT=no_consistency_check "$HARNESS" "$TMP/crash_baseline.bin" 2>/dev/null
[ $? -eq 134 ] && ok "target variant overrides the script's" || fail "variant not overridden"

# 5
printf 'garbage\x00\xff' > "$TMP/garbage"
: > "$TMP/empty"
printf 'CPTS\x01\x04' > "$TMP/truncated"
FUZZ_VARIANT=no_consistency_check "$HARNESS" "$CRASH" "$TMP/garbage" "$TMP/empty" "$TMP/truncated" 2>"$TMP/err"
rc=$?
[ $rc -eq 0 ] && [ ! -s "$TMP/err" ] && ok "text, garbage, empty, truncated: quiet returns" \
  || fail "rejects: rc $rc, stderr: $(head -3 "$TMP/err")"

# 6
bad() {  # bad VAR=VALUE WORD: exit 2 and a message containing WORD
  local out rc
  out=$(env "$1" "$HARNESS" --check 2>&1); rc=$?
  if [ $rc -eq 2 ] && grep -q -- "$2" <<<"$out"; then ok "$1: exit 2 ($out)"; else fail "$1: rc $rc, '$out'"; fi
}
bad FUZZ_VARIANT=nosuch FUZZ_VARIANT
bad FUZZ_GRANULE=8k FUZZ_GRANULE
bad FUZZ_ONLY_KIND=nosuch FUZZ_ONLY_KIND
bad 'FUZZ_ONLY_KIND=dirty_lost|nosuch' FUZZ_ONLY_KIND
bad FUZZ_ONLY_KIND=, FUZZ_ONLY_KIND
bad FUZZ_FEATURES=yes FUZZ_FEATURES
bad FUZZ_READ_SHAPES=3 FUZZ_READ_SHAPES
"$HARNESS" "$TMP/does-not-exist" 2>/dev/null
[ $? -eq 2 ] && ok "unreadable file: exit 2" || fail "unreadable file: not exit 2"

# 7
"$DECODER" "${SEEDS[@]}" "$CRASH" "$TMP/garbage" "$TMP/empty" "$TMP/truncated" \
  && ok "decoder_fuzz clean" || fail "decoder_fuzz"
"$EMPTY" "${SEEDS[@]}" && ok "empty target" || fail "empty target"

# 8
runs_per_call() { "$@" 2>&1 | sed -n 's/.* \([0-9.]*\) runs per call.*/\1/p'; }
r16=$(FUZZ_GRANULE=16k runs_per_call "$HARNESS" --repeat=2 "${SEEDS[@]}")
r4=$(FUZZ_GRANULE=4k runs_per_call "$HARNESS" --repeat=2 "${SEEDS[@]}")
awk -v r="$r16" 'BEGIN { exit !(r > 2 && r <= 12) }' && ok "auto on 16k: $r16 runs per input" \
  || fail "auto on 16k: '$r16' runs per input"
awk -v r="$r4" 'BEGIN { exit !(r > 2) }' && ok "auto on 4k: $r4 runs per input" || fail "auto on 4k: '$r4' runs per input"
for g in 4k 16k; do
  r=$(FUZZ_GRANULE=$g FUZZ_RUNS=5 runs_per_call "$HARNESS" --repeat=2 "${SEEDS[@]}")
  [ "$r" = 5.00 ] && ok "FUZZ_RUNS=5 on $g: 5 runs per input" || fail "FUZZ_RUNS=5 on $g: '$r'"
done

# 9
# flag_run FILE VARIANT [KIND]: clean with flag runs off, KIND (default
# phantom_bit) with them on; the reported run's changed lines in $changed;
# it replays alone; the correct readers stay clean
bin_of() { echo "$TMP/$(basename "$1" .txt).bin"; }   # where flag_run puts FILE's binary
flag_run() {
  local file=$1 v=$2 kind=${3:-phantom_bit} name rc
  name=$(basename "$file" .txt)
  "$ASM" "$file" "$(bin_of "$file")" || { fail "script_asm on $file"; return; }
  FUZZ_RUN_FLAGS=0 FUZZ_VARIANT=$v "$HARNESS" "$TMP/$name.bin" 2>/dev/null \
    && ok "$name: flag runs off: clean on $v" || fail "$name: flag runs off: not clean on $v"
  FUZZ_VARIANT=$v "$HARNESS" "$TMP/$name.bin" 2>"$TMP/$name.report"
  rc=$?
  [ $rc -eq 134 ] && grep -q "^==== contpte violation: $kind" "$TMP/$name.report" \
    && ok "$name: flag runs on (default): $kind on $v" || fail "$name: flag runs on: rc $rc, $(head -1 "$TMP/$name.report")"
  sed -n '/^---- script/,/^---- end of script/p' "$TMP/$name.report" | sed '1d;$d' > "$TMP/${name}_report.txt"
  changed=$(diff <(grep -E '^(block|tlb_entry|  )' "$file") <(grep -E '^(block|tlb_entry|  )' "$TMP/${name}_report.txt") | grep '^>')
  if "$ASM" "$TMP/${name}_report.txt" "$TMP/${name}_report.bin"; then
    FUZZ_RUNS=1 FUZZ_RUN_FLAGS=0 FUZZ_VARIANT=$v "$HARNESS" "$TMP/${name}_report.bin" 2>/dev/null
    [ $? -eq 134 ] && ok "$name: the reported flag run replays alone" || fail "$name: the reported flag run does not replay alone"
  else
    fail "$name: script_asm on the reported script"
  fi
  for v in baseline early_exit; do
    FUZZ_VARIANT=$v "$HARNESS" "$TMP/$name.bin" && ok "$name: flag runs: clean on $v" || fail "$name: flag runs: $v not clean"
  done
}
flag_run "$FLAGRUN" no_pfn_check
[ -n "$changed" ] && ok "the reported run's flags differ from the input's: $(tr '\n' ' ' <<<"$changed")" \
  || fail "the reported run has the input's blocks and instructions"
flag_run "$PAIRRUN" ee_sticky_flags
grep -q '^> block' <<<"$changed" && grep -q '^>   map' <<<"$changed" \
  && ok "a pair site: the block and its map both changed: $(tr '\n' ' ' <<<"$changed")" \
  || fail "not a pair site: changed '$(tr '\n' ' ' <<<"$changed")'"
FUZZ_RUN_FLAGS=single FUZZ_VARIANT=ee_sticky_flags "$HARNESS" "$(bin_of "$PAIRRUN")" 2>/dev/null \
  && ok "pair_run_ee_sticky_flags_4k: clean with single-word sites only (FUZZ_RUN_FLAGS=single)" \
  || fail "pair_run_ee_sticky_flags_4k: violates without pair sites"
# a crash file of the harness before pair sites (this file's schedule then)
# replays with FUZZ_RUN_FLAGS=single
sed 's/^schedule .*/schedule 0x3 1x2 0x3 1x3 0/' "$FLAGRUN" >"$TMP/before_pairs.txt"
if "$ASM" "$TMP/before_pairs.txt" "$TMP/before_pairs.bin"; then
  FUZZ_RUN_FLAGS=single FUZZ_VARIANT=no_pfn_check "$HARNESS" "$TMP/before_pairs.bin" 2>/dev/null
  [ $? -eq 134 ] && ok "a crash file from before pair sites replays with FUZZ_RUN_FLAGS=single" \
    || fail "FUZZ_RUN_FLAGS=single: the file from before pair sites does not replay"
else
  fail "script_asm on $TMP/before_pairs.txt"
fi
FUZZ_RUN_FLAGS=pairs FUZZ_VARIANT=ee_sticky_flags "$HARNESS" "$(bin_of "$PAIRRUN")" 2>/dev/null
[ $? -eq 134 ] && ok "pair_run_ee_sticky_flags_4k: caught by the runs before warm sites (FUZZ_RUN_FLAGS=pairs)" \
  || fail "FUZZ_RUN_FLAGS=pairs: pair_run_ee_sticky_flags_4k, found with those runs, is clean"
flag_run "$WARMRUN" wrprotect_no_flush stale_tlb_access
grep -q '^> tlb_entry 0 0 7 write' <<<"$changed" \
  && ok "a warm site: the reported run gained the touch's tlb_entry line" \
  || fail "not a warm site: changed '$(tr '\n' ' ' <<<"$changed")'"
FUZZ_RUN_FLAGS=pairs FUZZ_VARIANT=wrprotect_no_flush "$HARNESS" "$(bin_of "$WARMRUN")" 2>/dev/null \
  && ok "warm_run_wrprotect_no_flush_4k: clean without warm sites (FUZZ_RUN_FLAGS=pairs)" \
  || fail "warm_run_wrprotect_no_flush_4k: violates without warm sites"
bad FUZZ_RUN_FLAGS=yes FUZZ_RUN_FLAGS

echo "$fails failure(s)"
[ $fails -eq 0 ]
