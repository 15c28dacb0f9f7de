#!/usr/bin/env bash
# engine/teardown_exit_test.sh ENGINE SEED: process teardown's context on
# the engine (docs/contract.md, "Process teardown"). In SEED
# (corpora/seeds/teardown_exit_4k.txt) thread 0 reads twice, locklessly,
# thread 1 tears the table down: the read that began first ends before the
# teardown's grace period, and so before its first store; the read that
# would begin during the teardown does not happen (the process is gone).
set -uo pipefail
engine=$1 seed=$2
out=$("$engine" replay --timeline "$seed") || { echo "FAIL: replay: $out"; exit 1; }
grep -q 'clean (.*, 1 reads,' <<<"$out" || { echo "FAIL: expected exactly one read to run:"; head -3 <<<"$out"; exit 1; }
# thread columns: where each header word starts
awk '
  /^  thread 0 / { c1 = index($0, "thread 1"); c2 = index($0, "thread 2"); next }
  c1 && $1 ~ /^[0-9]+$/ {
    col = match($0, /[^ 0-9]/) ; t = col >= c2 ? 2 : col >= c1 ? 1 : 0
    if (t == 0 && $2 == "load") last_read = $1
    if (t == 1 && $2 == "gp" && !gp) gp = $1
    if (t == 1 && ($2 == "store" || $2 == "xchg" || $2 == "cmpxchg") && !store) store = $1
  }
  END {
    if (!gp || !last_read || !store) { print "FAIL: timeline lacks the read, the grace period or a store"; exit 1 }
    if (!(last_read < gp && gp < store)) {
      printf "FAIL: the read (last load at step %d) overlaps the teardown (grace period %d, first store %d)\n", last_read, gp, store
      exit 1
    }
    printf "teardown_exit: the read ended at step %d, the grace period at %d, the first store at %d\n", last_read, gp, store
  }' <<<"$out"
