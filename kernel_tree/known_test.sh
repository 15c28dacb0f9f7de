#!/usr/bin/env bash
# kernel_tree/known_test.sh V69_HAMMER V69_ENGINE RC1_HAMMER RC1_ENGINE SECOND_HAMMER
#                           SECOND_ENGINE V69_SRC RC1_SRC KNOWN
# A finding's identity (docs/contract.md, "Which bug"):
#  - the v6.9 tree with its own bug's signatures known (KNOWN) runs clean in
#    stress and under PCT, each known signature counted;
#  - a finding's location: v6.10-rc1's store past the block at the line of
#    contpte.c where contpte_clear_young_dirty_ptes makes the call that
#    stores (RC1_SRC), through the header's helpers; v6.9's fix-up judged on
#    what it left, at contpte_ptep_set_access_flags's definition (V69_SRC);
#    in a build that does not inline the header's helpers (UBSan's checks
#    make them too big for clang's inliner), the store at the helper's own
#    line instead, the only frame its code address has (core/where.h);
#  - v6.9 with a second flags_not_set in another function (SECOND_*: the
#    header's ptep_set_access_flags) reports both signatures apart under
#    --keep-going, and with v6.9's own known, the second still, in stress
#    and on the engine.
set -uo pipefail
v69=$1 v69e=$2 rc1=$3 rc1e=$4 second=$5 seconde=$6 v69src=$7 rc1src=$8 known=$9 fail=0
inlining=inline
grep -qa __ubsan_handle_ "$rc1" && inlining=no-inline
tmp=${TEST_TMPDIR:-$(mktemp -d)}
fail() { echo "FAIL: $*"; fail=1; }
json() {  # FILE EXPR: a python expression over the summary d
  python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}
line_of() {  # FILE PATTERN: the first line that has it
  grep -n -m1 -F "$2" "$1" | cut -d: -f1
}

# ---- known: counted, the run clean ----
"$v69" --variant=kernel_tree --seconds=4 --tlb=8 --no-progress --report-dir="$tmp" --known="$known" \
  --json="$tmp/v69.json" 2>"$tmp/v69.log"
rc=$?
counts=$(json "$tmp/v69.json" '" ".join(str(k["count"]) for k in d["known"])')
if [[ $rc != 0 || $(json "$tmp/v69.json" 'd["result"]') != clean ]]; then
  fail "v6.9 in stress with its bug known: exit $rc"; tail -20 "$tmp/v69.log"
elif [[ $(json "$tmp/v69.json" 'min(k["count"] for k in d["known"])') -lt 1 ]]; then
  fail "v6.9 in stress: a known signature never counted ($counts)"
else
  echo "ok: v6.9 in stress with its bug known: clean, known counted $counts"
fi
out=$("$v69e" explore --variant=kernel_tree --strategy=pct --seconds=4 --tlb=8 --known="$known" \
  --save="$tmp/v69e" --json="$tmp/v69e.json" 2>/dev/null)
rc=$?
counts=$(json "$tmp/v69e.json" '" ".join(str(k["count"]) for k in d["known"])')
if [[ $rc != 0 ]]; then
  fail "v6.9 under PCT with its bug known: exit $rc"; echo "$out" | tail -20
elif [[ $(json "$tmp/v69e.json" 'min(k["count"] for k in d["known"])') -lt 1 ]]; then
  fail "v6.9 under PCT: a known signature never counted ($counts)"
else
  echo "ok: v6.9 under PCT with its bug known: clean in $(json "$tmp/v69e.json" 'd["runs"]') runs, known counted $counts"
fi

# ---- locations ----
store=arch/arm64/mm/contpte.c:$(line_of "$rc1src" "__clear_young_dirty_ptes(vma, start, ptep, end - start, flags);")
def=arch/arm64/mm/contpte.c:$(line_of "$v69src" "int contpte_ptep_set_access_flags(")
"$rc1" --variant=kernel_tree --seconds=20 --tlb=8 --no-progress --report-dir="$tmp" --expect=out_of_bounds \
  --json="$tmp/rc1.json" 2>"$tmp/rc1.log"
got=$(json "$tmp/rc1.json" 'd["first_violation"]["signature"] + " at " + d["first_violation"]["where"]')
want="out_of_bounds:clear_young_dirty:contpte_clear_young_dirty_ptes at $store"
if [[ $inlining == no-inline ]]; then
  store='arch/arm64/include/asm/pgtable.h:[0-9]+'
  [[ "$got" =~ ^out_of_bounds:clear_young_dirty:contpte_clear_young_dirty_ptes\ at\ $store$ ]] &&
    echo "ok: stress (helpers not inlined): $got" || fail "v6.10-rc1 in stress: '$got', not at $store"
else
  [[ "$got" == "$want" ]] && echo "ok: stress: $got" || fail "v6.10-rc1 in stress: '$got', not '$want'"
  grep -qE "^  detected at: contpte_clear_young_dirty_ptes $store > __clear_young_dirty_ptes arch/arm64/include/asm/pgtable.h:[0-9]+" \
    "$tmp/rc1.log" || { fail "v6.10-rc1 in stress: no chain of calls to the store"; grep -A1 '^finding' "$tmp/rc1.log"; }
fi
out=$("$rc1e" explore --variant=kernel_tree --strategy=pct --seconds=20 --tlb=8 --save="$tmp/rc1e" 2>/dev/null)
grep -qxE "explore: finding: out_of_bounds:clear_young_dirty:contpte_clear_young_dirty_ptes at $store" <<<"$out" &&
  echo "ok: engine: $(grep -m1 '^explore: finding' <<<"$out")" ||
  { fail "v6.10-rc1 under PCT: not at $store"; grep '^explore' <<<"$out"; }
"$v69" --variant=kernel_tree --seconds=20 --tlb=8 --no-progress --report-dir="$tmp" --json="$tmp/v69b.json" 2>/dev/null
got=$(json "$tmp/v69b.json" 'd["first_violation"]["function"] + " at " + d["first_violation"]["where"]')
[[ "$got" == "contpte_ptep_set_access_flags at $def" ]] && echo "ok: stress: $(json "$tmp/v69b.json" 'd["first_violation"]["signature"]') at $def" ||
  fail "v6.9 in stress: '$got', not 'contpte_ptep_set_access_flags at $def'"
out=$("$v69e" explore --variant=kernel_tree --strategy=pct --seconds=20 --tlb=8 --save="$tmp/v69f" 2>/dev/null)
grep -qE "^explore: finding: (fault_loop|flags_not_set):[a-z_]+:contpte_ptep_set_access_flags at $def\$" <<<"$out" &&
  echo "ok: engine: $(grep '^explore: finding' <<<"$out")" || { fail "v6.9 under PCT: not at $def"; grep '^explore' <<<"$out"; }

# ---- two bugs of one kind in two functions ----
a=flags_not_set:access_flags:contpte_ptep_set_access_flags b=flags_not_set:access_flags:ptep_set_access_flags
"$second" --variant=kernel_tree --seconds=5 --tlb=8 --no-progress --report-dir="$tmp" --keep-going \
  --json="$tmp/second.json" 2>/dev/null
sigs=$(json "$tmp/second.json" '" ".join(sorted(f["signature"] for f in d["findings"]))')
[[ " $sigs " == *" $a "* && " $sigs " == *" $b "* ]] && echo "ok: --keep-going: $sigs" ||
  fail "the second flags_not_set is not a finding of its own under --keep-going: $sigs"
"$second" --variant=kernel_tree --seconds=20 --tlb=8 --no-progress --report-dir="$tmp" --known="$known" \
  --json="$tmp/second2.json" 2>/dev/null
got=$(json "$tmp/second2.json" 'd["first_violation"]["signature"] if d["first_violation"] else "clean"')
[[ "$got" =~ ^(flags_not_set|fault_loop):[a-z_]+:ptep_set_access_flags$ ]] && echo "ok: with v6.9's own known: $got" ||
  fail "with v6.9's own bug known, the second is not found in stress: $got"
out=$("$seconde" explore --variant=kernel_tree --strategy=pct --seconds=20 --tlb=8 --known="$known" \
  --save="$tmp/seconde" 2>/dev/null)
grep -qE '^explore: finding: (flags_not_set|fault_loop):[a-z_]+:ptep_set_access_flags at arch/arm64/include/asm/pgtable.h:[0-9]+$' \
  <<<"$out" && echo "ok: engine, with v6.9's own known: $(grep '^explore: finding' <<<"$out")" ||
  { fail "with v6.9's own bug known, the second is not found under PCT"; grep '^explore' <<<"$out"; }
exit $fail
