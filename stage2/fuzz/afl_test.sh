#!/usr/bin/env bash
# stage2/fuzz/afl_test.sh find|clean SECONDS KIND_REGEX HARNESS ENGINE AFL_LOG SEED.txt...
#
# Real AFL++ (afl-fuzz, installed by tools/setup) on the stage-2 harness
# built with --config=afl over one tree, through the steps tools/explore
# --subject=stage2 --strategy=afl runs (tools/lib/afl_explore.sh's
# afl_explore_seeds and afl_explore_fuzz: pinned, logged, bounded by -V):
#   find:  the seeds (encoded by ENGINE) that already violate are dropped,
#          at least one is left, and afl-fuzz finds a crash within SECONDS;
#          run alone, the crash's script (S2_FUZZ_SCRIPT_OUT) has a kind
#          matching KIND_REGEX, and ENGINE (the same tree) replays it to
#          that kind;
#   clean: afl-fuzz runs SECONDS with no crash, and ran inputs; and the
#          engine's reads-from pairs reach AFL's map (afl-showmap on the
#          first seed: more slots with FUZZ_FEATURES=1, the default, than 0).
set -u
mode=$1 seconds=$2 want=$3 harness=$4 engine=$5 AFL_LOG_BIN=$6
shift 6
tool=stage2/fuzz/afl_test
source tools/lib/common.sh
source tools/lib/afl_explore.sh
work=${TEST_TMPDIR:-$(mktemp -d)}/work
mkdir -p "$work/all"
seed=1 pass=() slots=()
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

command -v afl-fuzz >/dev/null || { echo "FAIL: afl-fuzz not found (tools/setup installs afl++)"; exit 1; }
for s in "$@"; do "$engine" encode "$s" "$work/all/$(basename "${s%.txt}").bin" || fail "encode $s"; done
dropped=0
drop_seed() { rm -f "$1"; dropped=$((dropped + 1)); }
afl_explore_seeds drop_seed "$harness"
left=$(ls "$work"/in/*.bin 2>/dev/null | wc -l)
[ "$left" -gt 0 ] && ok "$left seeds to start from ($dropped violate already, dropped)" || { fail "every seed violates already"; exit 1; }

# afl_explore_fuzz exits 0 itself when afl-fuzz found nothing
out=$(afl_explore_fuzz -- -t 1000 -- "$harness"; echo "crash: $afl_crash ($afl_when)"; exit 3)
rc=$?
echo "$out"
case $mode in
  clean)
    execs=$(afl_stat "$work/out/default/fuzzer_stats" execs_done)
    [ $rc = 0 ] && [ "${execs:-0}" -gt 0 ] && ok "clean for ${seconds}s ($execs execs)" \
      || { tail -5 "$work/afl.log"; fail "clean run: exit $rc, ${execs:-no} execs: $(grep -m1 '^crash: ' <<<"$out")"; }
    first=$(ls "$work"/in/*.bin | head -1)
    for f in 0 1; do
      FUZZ_FEATURES=$f afl-showmap -q -o "$work/map$f" -- "$harness" <"$first"
      slots[f]=$(wc -l <"$work/map$f")
    done
    [ "${slots[1]}" -gt "${slots[0]}" ] && ok "reads-from pairs in AFL's map (${slots[0]} slots without, ${slots[1]} with)" \
      || fail "the features add no map slots (${slots[0]} / ${slots[1]})" ;;
  find)
    crash=$(sed -n 's/^crash: \([^ ]*\) .*/\1/p' <<<"$out")
    if [ $rc = 3 ] && [ -f "$crash" ]; then
      ok "afl-fuzz found a crash: $(grep '^crash: ' <<<"$out")"
      (S2_FUZZ_SCRIPT_OUT=$work/found.txt "$harness" "$crash"; exit $?) >"$work/report" 2>&1
      kind=$(sed -n 's/^expect //p' "$work/found.txt" 2>/dev/null)
      grep -qxE "$want" <<<"$kind" && ok "its script's kind: $kind" || fail "its script's kind '$kind' is not /$want/"
      r=$("$engine" replay --check-expect "$work/found.txt" 2>&1) && ok "the engine replays it: ${r%%$'\n'*}" \
        || fail "the engine does not replay it: $r"
    else
      tail -5 "$work/afl.log"; fail "no crash within ${seconds}s (exit $rc)"
    fi ;;
  *) fail "mode '$mode': find or clean" ;;
esac
echo "afl_test: $fails failure(s)"
[ $fails -eq 0 ]
