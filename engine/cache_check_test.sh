#!/usr/bin/env bash
# engine/cache_check_test.sh ENGINE - the engine's cached scheduling state
# (the runnable mask, the count of stores due: engine/sched.h,
# check_caches) equals a fresh computation at every use, over random
# programs: ENGINE_CHECK_CACHES=1 makes the engine abort with what went
# stale. Both correct trees, both memory models (the arm model's stores
# and the grace periods' waits are where the caches change most), both
# strategies, 4K and 16K, 20,000 runs each (about 8 s). Planted, each
# omission fails it: the mask not invalidated when a thread ends (8 cells
# fail; the corpus of //corpora:determinism, which checks the same, does
# not show it), when a lock is taken (16 cells) or when a grace period's
# wait begins (2 cells: 10,000 runs showed none), the count of stores due
# not decremented (8 cells).
set -uo pipefail
engine=$1
save=${TEST_TMPDIR:-$(mktemp -d)}
fails=0
for v in baseline early_exit; do
  for m in sc arm; do
    for g in 4k 16k; do
      for s in random pct; do
        out=$(ENGINE_CHECK_CACHES=1 "$engine" explore --strategy=$s --variant=$v --granule=$g --memory=$m \
              --runs=20000 --seed=3 --save="$save" 2>&1); rc=$?
        if [ $rc -eq 0 ] && grep -q '^explore: no violation in 20000 runs' <<<"$out"; then
          echo "ok: $v $m $g $s: caches as computed afresh over 20000 runs"
        else
          echo "FAIL: $v $m $g $s (exit $rc):"; grep -m3 -E '^engine: the|^explore:' <<<"$out"
          fails=$((fails + 1))
        fi
      done
    done
  done
done
echo "$fails failure(s)"
[ $fails -eq 0 ]
