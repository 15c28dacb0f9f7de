#!/usr/bin/env bash
# engine/teardown_exit_test.sh ENGINE SEED: process teardown's context on
# the engine (docs/contract.md, "Process teardown"). In SEED
# (corpora/seeds/teardown_exit_4k.txt) thread 0 reads entry 5 locklessly
# and is overtaken by thread 1's teardown of the table, then would read
# entry 12 while the teardown goes on: the first read runs but is not
# judged (no lockless walk of an exiting mm exists in the kernel), the
# second does not begin. And every part of it does matter: the same
# script with the teardowns made unmaps judges both reads.
set -uo pipefail
engine=$1 seed=$2
tmp=${TEST_TMPDIR:-$(mktemp -d)}
fail=0
out=$("$engine" replay --timeline "$seed") || { echo "FAIL: replay: $out"; exit 1; }
judged() { sed -n 's/^  reads judged: \([0-9]*\) bits exact (hardware quiet), \([0-9]*\) bits exact (software quiet), \([0-9]*\) content only.*/\1 \2 \3/p' <<<"$1" | awk '{print $1 + $2 + $3}'; }
grep -q 'clean (.*, 1 reads,' <<<"$out" || { echo "FAIL: expected exactly one read to run:"; head -2 <<<"$out"; fail=1; }
grep -q -- '-- read 0 5 --' <<<"$out" && ! grep -q -- '-- read 0 12 --' <<<"$out" ||
  { echo "FAIL: the read of entry 5 should run and the read of entry 12 should not"; fail=1; }
[[ $(judged "$out") == 0 ]] || { echo "FAIL: the read that overlapped the teardown was judged"; fail=1; }
# the control: unmaps in place of the teardowns (full=0, no exit)
sed -E 's/^  teardown ([0-9]+ [0-9]+\+[0-9]+).*/  unmap \1/' "$seed" > "$tmp/unmaps.txt"
out=$("$engine" replay "$tmp/unmaps.txt") || { echo "FAIL: replay of the control: $out"; exit 1; }
grep -q 'clean (.*, 2 reads,' <<<"$out" && [[ $(judged "$out") == 2 ]] ||
  { echo "FAIL: the control (unmaps) should run and judge both reads:"; head -2 <<<"$out"; fail=1; }
[[ $fail == 0 ]] && echo "teardown_exit: the overlapping read is not judged, the later one does not begin; with unmaps both are judged"
exit $fail
