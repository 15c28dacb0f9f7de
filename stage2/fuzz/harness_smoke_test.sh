#!/usr/bin/env bash
# stage2/fuzz/harness_smoke_test.sh ENGINE HARNESS MUT_ENGINE MUT_HARNESS CRASH_TXT SEED.txt...
#
# The stage-2 AFL++ harness's standalone driver and the byte form (no AFL;
# ENGINE and HARNESS over the newest test tree, MUT_* over the
# mut_bbm_no_leaf_tlbi mutant, CRASH_TXT its corpus crash script):
#   1. every seed encodes (ENGINE encode), and its bytes decode (ENGINE
#      decode) to the seed's own program, line for line;
#   2. the harness runs every encoded seed without a crash on the newest
#      tree, and --check accepts the default environment;
#   3. any bytes are a program: 300 byte strings of 0-600 random bytes
#      each decode, the decoded script encodes again, and those bytes
#      decode to the same script; the harness runs them all on the newest
#      tree without a crash (it is clean there: a crash would be a finding
#      or a harness bug);
#   4. the crash script's bytes abort the mutant's harness (SIGABRT) with
#      the report: the kind, a finding line, the script with its expect
#      line; S2_FUZZ_SCRIPT_OUT gets the same script, which the mutant's
#      engine replays to its kind (replay --check-expect), and the newest
#      tree's harness runs the same bytes clean;
#   5. S2_FUZZ_FLAGS is the run's mode: decode with --fwb=off prints fwb
#      off; a flag that is not a configuration flag stops the harness with
#      exit 2, naming it.
set -u
ENGINE=$1 HARNESS=$2 MUT_ENGINE=$3 MUT_HARNESS=$4 CRASH=$5
shift 5
SEEDS=("$@")
TMP=${TEST_TMPDIR:-$(mktemp -d)}
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }
# the lines of a script that the bytes carry (not its tree, expectation or comments)
program() { grep -vE '^(tree|expect|#)' "$1"; }

[ ${#SEEDS[@]} -ge 3 ] || fail "expected at least 3 seeds, got ${#SEEDS[@]}"

# 1
mkdir -p "$TMP/bin"
n=0
for s in "${SEEDS[@]}"; do
  b=$TMP/bin/$(basename "${s%.txt}").bin
  if ! "$ENGINE" encode "$s" "$b" 2>"$TMP/err"; then fail "encode $s: $(cat "$TMP/err")"; continue; fi
  "$ENGINE" decode "$b" >"$TMP/dec.txt" || { fail "decode $b"; continue; }
  if diff <(program "$s") <(program "$TMP/dec.txt") >"$TMP/diff"; then n=$((n + 1)); else fail "$s: decoded differently: $(head -5 "$TMP/diff")"; fi
done
[ $n = ${#SEEDS[@]} ] && ok "$n seeds encode and decode to themselves"

# 2
"$HARNESS" --check && ok "--check with the default environment" || fail "--check"
if "$HARNESS" "$TMP"/bin/*.bin 2>"$TMP/err"; then ok "the seeds run clean on the newest tree"
else fail "the harness crashed on a seed: $(head -3 "$TMP/err")"; fi

# 3 (random bytes from a fixed seed: the same files every run)
mkdir -p "$TMP/rnd"
LC_ALL=C awk -v dir="$TMP/rnd" 'BEGIN { srand(7); for (i = 0; i < 300; i++) { f = sprintf("%s/r%03d.bin", dir, i); n = int(rand() * 601);
       printf "" > f; for (j = 0; j < n; j++) printf "%c", int(rand() * 256) > f; close(f) } }' </dev/null
: >"$TMP/rnd/empty.bin"   # (and the empty input)
[ "$(ls "$TMP"/rnd/*.bin | wc -l)" = 301 ] || fail "the random inputs were not written"
bad=0
for b in "$TMP"/rnd/*.bin; do
  if ! "$ENGINE" decode "$b" >"$TMP/d1.txt" || ! "$ENGINE" encode "$TMP/d1.txt" "$TMP/again.bin" ||
     ! "$ENGINE" decode "$TMP/again.bin" >"$TMP/d2.txt" || ! cmp -s "$TMP/d1.txt" "$TMP/d2.txt"; then
    bad=$((bad + 1)); [ $bad -le 3 ] && fail "$(basename "$b"): does not decode, or its script does not encode back to it"
  fi
done
[ $bad = 0 ] && ok "300 random byte strings and the empty one decode to programs that encode back to themselves"

if "$HARNESS" "$TMP"/rnd/*.bin 2>"$TMP/err"; then ok "the random programs run clean on the newest tree"
else fail "the harness crashed on random bytes: $(grep -m3 -E '====|finding' "$TMP/err")"; fi

# 4
"$ENGINE" encode "$CRASH" "$TMP/crash.bin" || fail "encode $CRASH"
(S2_FUZZ_SCRIPT_OUT=$TMP/found.txt "$MUT_HARNESS" "$TMP/crash.bin"; exit $?) 2>"$TMP/report"
rc=$?
[ $rc -eq 134 ] && ok "the mutant's violation aborts (rc 134)" || fail "mutant: rc $rc, expected 134 (SIGABRT)"
kind=$(sed -n 's/^expect //p' "$CRASH")
for want in "^==== stage2 violation: $kind\$" "^finding: $kind:[a-z_]+:[a-z0-9_-]+ at [a-z0-9.]+\$" '^stage2 script$' \
            "^# finding: $kind:" "^expect $kind\$" '^---- end of script$'; do
  grep -qE -- "$want" "$TMP/report" && ok "report has /$want/" || fail "report lacks /$want/"
done
if [ -s "$TMP/found.txt" ] && [ "$(head -1 "$TMP/found.txt")" = "stage2 script" ]; then
  out=$("$MUT_ENGINE" replay --check-expect "$TMP/found.txt" 2>&1) && ok "the reported script replays: ${out%%$'\n'*}" \
    || fail "the reported script does not replay on the mutant: $out"
else
  fail "S2_FUZZ_SCRIPT_OUT: no script written"
fi
"$HARNESS" "$TMP/crash.bin" 2>/dev/null && ok "the same bytes run clean on the newest tree" || fail "the crash's bytes crash the newest tree"

# 5
"$ENGINE" decode "$TMP/crash.bin" --fwb=off | grep -qx 'fwb off' && ok "decode with --fwb=off: fwb off" || fail "decode --fwb=off"
S2_FUZZ_FLAGS="--fwb=off --nonsense=1" "$HARNESS" --check 2>"$TMP/err"
rc=$?
[ $rc -eq 2 ] && grep -q -- "--nonsense=1" "$TMP/err" && ok "a bad S2_FUZZ_FLAGS: exit 2, named" \
  || fail "bad S2_FUZZ_FLAGS: rc $rc, '$(cat "$TMP/err")'"

echo "harness_smoke_test: $fails failure(s)"
[ $fails -eq 0 ]
