#!/usr/bin/env bash
# engine/shrink_test.sh ENGINE - a shrunk weak-memory finding replays its
# own run: the arm memory model's choices are spelled out with the
# schedule (engine/shrink.c, script_take_whole), not left to the choices'
# tail stream, which is seeded from the script's bytes and so draws
# differently once shrinking has changed them.
#
# For five PCT seeds, engine explore --memory=arm finds publish_no_wmb
# (a weak-memory-only mutant) and saves the shrunk script; replaying it
# must reproduce the expected violation (--check-expect) taking exactly
# as many choices as its choices line lists, no more (a tail drawn) and
# no fewer (choices it never takes). The shrinker before this check left
# the choices as they were: three of these five seeds replayed taking
# another number of choices than their line lists (58 of 59 listed, 47 of
# 46, 42 of 39).
set -uo pipefail
engine=$1
dir=${TEST_TMPDIR:-$(mktemp -d)}/shrink
fails=0
for seed in 1 2 3 4 5; do
  rm -rf "$dir"; mkdir -p "$dir"
  "$engine" explore --strategy=pct --variant=publish_no_wmb --memory=arm --runs=20000 --seed=$seed \
    --save="$dir" >"$dir.log" 2>&1
  f=$(ls "$dir"/*.txt 2>/dev/null | head -1)
  if [ -z "$f" ]; then echo "FAIL: seed $seed: no finding saved ($(tail -1 "$dir.log"))"; fails=$((fails + 1)); continue; fi
  listed=$(grep -E '^choices' "$f" | tr ' ' '\n' | grep -cE '^[0-9]+$')
  out=$("$engine" replay "$f" --check-expect 2>&1); rc=$?
  taken=$(sed -n 's/.*became visible out of order; \([0-9]*\) choices.*/\1/p' <<<"$out")
  if [ $rc -eq 0 ] && [ -n "$taken" ] && [ "$taken" = "$listed" ]; then
    echo "ok: seed $seed: $(basename "$f") replays its violation taking the $listed choices it lists"
  else
    echo "FAIL: seed $seed: replay rc $rc, $listed choices listed, ${taken:-?} taken"; echo "$out" | tail -3
    fails=$((fails + 1))
  fi
done
echo "$fails failure(s)"
[ $fails -eq 0 ]
