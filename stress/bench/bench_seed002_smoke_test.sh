#!/usr/bin/env bash
# stress/bench/bench_seed002_smoke_test.sh PROJECT_BENCH TREE_BENCH...:
# //kernel_tree:bench_seed002_smoke_test. Seed 002's three scenarios in both
# modes on the project's uninstrumented readers (PROJECT_BENCH, every
# granule, baseline and early exit, and both alternating) and on each kernel
# tree's (TREE_BENCH: a //kernel_tree:bench_<tree>_<G>k binary, granule from
# its name), a few thousand reads each. Each run checks that the reader
# gathered what the scenario says (young, dirty, the target's pfn) and exits
# 1 otherwise; the figures are printed, never asserted.
set -uo pipefail
[[ $# -ge 1 ]] || { echo "usage: $0 PROJECT_BENCH [TREE_BENCH...]" >&2; exit 2; }
project=$1; shift
fails=0 runs=0
run() {
  local out
  runs=$((runs + 1))
  if out=$("$@" 2>&1); then
    echo "ok: ${*##*/}: $(grep -o '[0-9.]* ns/read\|ratio [a-z_/]* [0-9.]*' <<<"$out" | head -1)"
  else
    echo "FAIL: $*"; echo "$out" | tail -3; fails=$((fails + 1))
  fi
}
for sc in 1 2 3; do
  for mode in locked lockless; do
    for g in 4k 16k 64k; do
      for r in baseline early_exit; do
        run "$project" --scenario=$sc --reader=$r --granule=$g --mode=$mode --iters=4096
      done
      run "$project" --scenario=$sc --reader=both --granule=$g --mode=$mode --iters=8192
    done
    for b in "$@"; do
      g=${b##*_}
      run "$b" --scenario=$sc --reader=kernel_tree --granule="$g" --mode=$mode --iters=4096
    done
  done
done
# usage errors exit 2
for bad in --scenario=4 --reader=nope --granule=8k --mode=x --iters=-1 --bogus; do
  runs=$((runs + 1))
  "$project" --scenario=1 --reader=baseline --granule=4k --mode=locked --iters=1 "$bad" >/dev/null 2>&1
  rc=$?
  if [[ $rc == 2 ]]; then echo "ok: $bad exits 2"; else echo "FAIL: $bad exits $rc, not 2"; fails=$((fails + 1)); fi
done
echo "$runs runs, $fails failure(s)"
[[ $fails -eq 0 ]]
