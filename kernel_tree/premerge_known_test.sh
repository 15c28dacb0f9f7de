#!/usr/bin/env bash
# kernel_tree/premerge_known_test.sh HAMMER ENGINE SRC KNOWN_FILE
# The pre-merge process-exit fast path (testdata/premerge_fast_exit) as a
# known bug (kernel_tree/known_bugs.tsv, KNOWN_FILE):
#  - found, it is named by the table: its signature, at the definition of
#    contpte_ptep_get_and_clear_full in SRC, with the table's condition met
#    (tools/lib/known_bugs.py names the posting's design it has);
#  - known, it is counted and the run goes on clean, in stress and under
#    PCT: the block it leaves mixed is zapped to the end as exit_mmap goes
#    on (core/ops.h, op_finish_exit), so no later op meets a block only the
#    finding made.
set -uo pipefail
hammer=$1 engine=$2 src=$3 table=$4 fail=0
tmp=${TEST_TMPDIR:-$(mktemp -d)}
fail() { echo "FAIL: $*"; fail=1; }
json() {  # FILE EXPR: a python expression over the summary d
  python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}
sig=mixed_block:teardown:contpte_ptep_get_and_clear_full
def=arch/arm64/mm/contpte.c:$(grep -n -m1 -F "pte_t contpte_ptep_get_and_clear_full(" "$src" | cut -d: -f1)

# ---- found: the table names it ----
"$hammer" --variant=kernel_tree --seconds=20 --tlb=8 --no-progress --report-dir="$tmp" --expect=mixed_block \
  --json="$tmp/found.json" >"$tmp/found.log" 2>&1
got=$(json "$tmp/found.json" 'd["first_violation"]["signature"] + " at " + d["first_violation"]["where"]')
[[ "$got" == "$sig at $def" ]] && echo "ok: stress: $got" || fail "in stress: '$got', not '$sig at $def'"
fix=$(python3 tools/lib/known_bugs.py fix "$sig" "$tmp/found.log")
[[ "$fix" == *"pre-merge fast path for process exit"* ]] && echo "ok: named: $fix" ||
  fail "known_bugs.py does not name it from the run's output: '$fix'"

# ---- known: counted, the run clean ----
"$hammer" --variant=kernel_tree --seconds=4 --tlb=8 --no-progress --report-dir="$tmp" --known-file="$table" \
  --json="$tmp/known.json" 2>"$tmp/known.log"
rc=$?
count=$(json "$tmp/known.json" 'sum(k["count"] for k in d["known"] if k["signature"] == "'$sig'")')
if [[ $rc != 0 || $(json "$tmp/known.json" 'd["result"]') != clean ]]; then
  fail "in stress with the fast path known: exit $rc"; grep -A3 '^finding' "$tmp/known.log" | head -20
elif [[ $count -lt 1 ]]; then
  fail "in stress: the known signature never counted"
else
  echo "ok: stress with the fast path known: clean, counted $count"
fi
out=$("$engine" explore --variant=kernel_tree --strategy=pct --seconds=4 --tlb=8 --known-file="$table" \
  --save="$tmp/pct" --json="$tmp/pct.json" 2>/dev/null)
rc=$?
count=$(json "$tmp/pct.json" 'sum(k["count"] for k in d["known"] if k["signature"] == "'$sig'")')
if [[ $rc != 0 ]]; then
  fail "under PCT with the fast path known: exit $rc"; grep '^explore' <<<"$out"
elif [[ $count -lt 1 ]]; then
  fail "under PCT: the known signature never counted"
else
  echo "ok: PCT with the fast path known: clean in $(json "$tmp/pct.json" 'd["runs"]') runs, counted $count"
fi
exit $fail
