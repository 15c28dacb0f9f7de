#!/usr/bin/env bash
# kernel_tree/seed003_aging_test.sh TREE_AGING PATCHED_AGING
#
# The aging bench's --summary on a tree and on it with seed 003's patch (no
# flush in ptep_clear_flush_young): on the tree, the flushing policies
# (flush, batched) miss no young access on CONT blocks or single pages; on
# the patched tree each misses some on both layouts and makes no flush,
# while test_and_clear_young (noflush), which the patch leaves alone, gives
# the same figure on both.
set -uo pipefail
tree=$1 patched=$2
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
t=$("$tree" --variant=kernel_tree --summary --passes=50) || fail "the tree's bench failed"
p=$("$patched" --variant=kernel_tree --summary --passes=50) || fail "the patched tree's bench failed"
printf '%s\n\n%s\n' "$t" "$p"
field() {  # OUTPUT LAYOUT POLICY COLUMN (3 missed %, 4 flush calls)
  awk -v l="$2" -v p="$3" -v c="$4" '$1 == l && $2 == p { sub(/%$/, "", $c); print $c }' <<<"$1"
}
for l in cont pages; do
  for pol in flush batched; do
    [[ "$(field "$t" $l $pol 3)" == 0.0 ]] || fail "tree, $l $pol: missed $(field "$t" $l $pol 3)%, want 0.0"
    awk -v x="$(field "$t" $l $pol 4)" 'BEGIN { exit !(x > 0) }' || fail "tree, $l $pol: no flush calls"
    awk -v x="$(field "$p" $l $pol 3)" 'BEGIN { exit !(x > 5) }' ||
      fail "patched, $l $pol: missed $(field "$p" $l $pol 3)%, want more than 5%"
    [[ "$(field "$p" $l $pol 4)" == 0.0 ]] || fail "patched, $l $pol: $(field "$p" $l $pol 4) flush calls, want 0"
  done
  [[ "$(field "$t" $l noflush 3)" == "$(field "$p" $l noflush 3)" ]] ||
    fail "$l noflush: $(field "$t" $l noflush 3)% against $(field "$p" $l noflush 3)%: the patch does not touch it"
done
[[ $fails -eq 0 ]] && echo "PASS" || { echo "$fails failure(s)"; exit 1; }
