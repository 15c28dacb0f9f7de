#!/usr/bin/env bash
# kernel_tree/introduced_test.sh HAMMER ENGINE GRANULE KIND KNOWN [FLAG...]: a
# patch's own bug on a tree that has a known one (docs/contract.md, "Which
# bug"). HAMMER and ENGINE are the patched tree's stress and engine builds,
# KNOWN the tree's own bugs (--known), FLAGs the catalogue's for the mutant
# (--tlb=8 for the TLB model's; the TLB model is off otherwise). Stress
# mode must report a KIND violation (KIND may list several, a|b) that is
# not one of KNOWN, going on past the known ones; PCT on the engine
# likewise, and its saved script, replayed with KNOWN, must show that
# violation again. HAMMER "-": a mutant stress mode does not catch in a tree
# (kernel_tree/known.bzl: STRESS_MISSES), the engine alone.
set -uo pipefail
hammer=$1 engine=$2 g=$3 kind=$4 known=$5 fail=0
shift 5
flags=(--tlb=0 "$@")     # a later --tlb=N wins
tmp=${TEST_TMPDIR:-$(mktemp -d)}

if [[ $hammer == - ]]; then
  echo "stress at $g: not run (stress mode does not catch this one in a tree: kernel_tree/known.bzl)"
else
  "$hammer" --variant=kernel_tree --granule="$g" --seconds=20 "${flags[@]}" --no-progress --report-dir="$tmp" \
    --expect="$kind" --known="$known" --json="$tmp/stress.json" 2>"$tmp/stress.log"
  rc=$?
  sig=$(python3 -c 'import json, sys; v = json.load(open(sys.argv[1]))["first_violation"]; print(v["signature"] if v else "")' \
    "$tmp/stress.json" 2>/dev/null)
  if [[ $rc != 0 ]]; then
    echo "FAIL: stress at $g: no $kind violation beside the known $known (exit $rc)"; tail -30 "$tmp/stress.log"; fail=1
  else
    echo "ok: stress at $g: $sig"
  fi
fi

out=$("$engine" explore --variant=kernel_tree --granule="$g" --strategy=pct --depth=3 --seconds=60 "${flags[@]}" \
  --known="$known" --save="$tmp/found" 2>/dev/null)
rc=$?
line=$(grep -E '^explore: [a-z_]+ violation .*script saved to ' <<<"$out")
if [[ $rc != 1 ]] || ! grep -qE "^explore: ($kind) violation" <<<"$line"; then
  echo "FAIL: engine at $g: PCT found no $kind violation beside the known $known (exit $rc)"; echo "$out" | tail -20; fail=1
else
  echo "ok: engine at $g: $(grep -m1 '^explore: finding: ' <<<"$out")"
  "$engine" replay --quiet --check-expect --variant=kernel_tree --known="$known" "${line##*script saved to }" ||
    { echo "FAIL: the saved script does not replay"; fail=1; }
fi
exit $fail
