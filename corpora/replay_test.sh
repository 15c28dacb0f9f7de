#!/usr/bin/env bash
# corpora/replay_test.sh ENGINE: replay every script of corpora/ and check
# its recorded outcome.
#   seeds/*.txt    expect clean; also run clean with each correct reader
#                  variant of their granule (baseline, early_exit)
#   crashes/*.txt  expect the named violation of their planted mutant; a
#                  weak-memory one (memory arm) also runs clean under sc and
#                  on the correct tree; a TLB-model one (a tlb line) runs
#                  clean without it, and on the correct tree with it, and
#                  one with tlb_entry lines clean without them
# a read's report lists its target entry and ends with the legend, also
# when a 16K block's 128 histories outgrow the report's buffer (the others
# are then left out, counted);
# and the corpus keeps its coverage: every writer op, both read kinds, the
# hardware and grace-period steps and all three granules appear in the
# seeds, and every mutant of the catalogue has a crash script.
set -uo pipefail
engine=$1
here=$(dirname "$0")
fail=0

"$engine" replay --check-expect --quiet "$here"/seeds/*.txt "$here"/crashes/*.txt || fail=1
for f in "$here"/seeds/*.txt; do
  for v in baseline early_exit; do
    out=$("$engine" replay --variant=$v "$f") || { echo "FAIL: $f with variant $v: $out"; fail=1; }
  done
  grep -q '^expect clean' "$f" || { echo "FAIL: seed $f does not say 'expect clean'"; fail=1; }
done
for f in "$here"/crashes/*.txt; do
  grep -q '^expect [a-z_]*$' "$f" && ! grep -q '^expect clean' "$f" ||
    { echo "FAIL: crash script $f does not name its violation"; fail=1; }
  # a weak-memory crash needs arm64's ordering: the same program and
  # schedule under sequential consistency, and on the correct tree, are clean
  if grep -q '^memory arm' "$f"; then
    out=$("$engine" replay --memory=sc "$f") || { echo "FAIL: $f under --memory=sc: $out"; fail=1; }
    out=$("$engine" replay --variant=baseline "$f") || { echo "FAIL: $f on baseline: $out"; fail=1; }
  fi
  # a TLB-model crash (docs/tlb.md) is caught only with the TLB: without
  # its tlb line, and on the correct tree with it, the same run is clean
  if grep -q '^tlb ' "$f"; then
    notlb=$(mktemp); sed -E '/^tlb(_entry)? /d' "$f" > "$notlb"
    out=$("$engine" replay "$notlb") || { echo "FAIL: $f without its TLB: $out"; fail=1; }
    out=$("$engine" replay --variant=baseline "$f") || { echo "FAIL: $f on baseline: $out"; fail=1; }
    # tlb_entry lines that survived the shrinker are what the finding
    # needs: without them (the TLBs empty at the start) it is clean
    if grep -q '^tlb_entry ' "$f"; then
      sed '/^tlb_entry /d' "$f" > "$notlb"
      out=$("$engine" replay "$notlb") || { echo "FAIL: $f without its tlb_entry lines: $out"; fail=1; }
    fi
    rm -f "$notlb"
  fi
done

# the report of a read keeps its target entry and legend (a 16K one too)
for f in "$here"/crashes/*_16k.txt; do
  out=$("$engine" replay "$f")
  grep -q '^  reader: ' <<<"$out" || continue    # not a read's violation
  grep -q '^ *[0-9]*\* P ' <<<"$out" && grep -q '^  legend: ' <<<"$out" && ! grep -q 'report cut here' <<<"$out" \
    || { echo "FAIL: $f: the report lacks its target entry or legend, or was cut"; fail=1; }
done

# coverage of the seeds
for word in map fold unfold unmap young flush_young clear_young_dirty wrprotect access_flags \
            retire teardown get_and_clear young_ptes unmap_clear read read_locked touch gp fault; do
  grep -qE "^ +$word( |$)" "$here"/seeds/*.txt || { echo "FAIL: no seed uses '$word'"; fail=1; }
done
# and every flag word of the ops that take one
for words in "teardown .* single" "teardown .* clear" "teardown .* clear single" "get_and_clear .* zap"; do
  grep -qE "^ +$words( |$)" "$here"/seeds/*.txt || { echo "FAIL: no seed uses '$words'"; fail=1; }
done
for g in 4k 16k 64k; do
  grep -q "^granule $g" "$here"/seeds/*.txt || { echo "FAIL: no seed at granule $g"; fail=1; }
done
# every mutant has its crash script
for m in $("$engine" list | awk '$1 != "baseline" && $1 != "early_exit" {print $1}' | sort -u); do
  ls "$here"/crashes/${m}_*.txt >/dev/null 2>&1 || { echo "FAIL: no crash script for mutant $m"; fail=1; }
done
n=$(ls "$here"/seeds/*.txt "$here"/crashes/*.txt | wc -l)
echo "corpora: $n scripts replayed; $([[ $fail = 0 ]] && echo 'every outcome as recorded' || echo FAILURES)"
exit $fail
