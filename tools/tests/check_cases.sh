#!/usr/bin/env bash
# tools/tests/check_cases.sh: what tools/check must find on the test trees,
# one case a line (tab-separated): NAME TREE PATCH EXPECT. TREE is a
# folder under kernel_tree/testdata, PATCH one under
# kernel_tree/testdata/patches ("-": none), EXPECT the violation kinds
# (a|b) or "clean". Used by tools/tests/test-check (each case's verdict)
# and stress/bench/check-times (each case's time to its finding).
#
# The catalogue's mutants in code a tree holds, as patches to the current
# tree (build/catalogue.bzl's tree_patch, expected kinds as there); the
# wrapper-layer and flush-scope mutants of kernel_tree/BUILD; the two real
# bugs with Fixes: tags in the trees as they were before each fix, and
# those trees with the fix, clean.
set -euo pipefail
ws=$(cd "$(dirname "$0")/../.." && pwd)
# name = "...", ... expect = "...", ... tree_patch = "...", [tree_expect = "...",]
grep -E '^ *struct\(name = .*tree_patch = ' "$ws/build/catalogue.bzl" | while IFS= read -r line; do
  field() { sed -nE "s/.*[ (]$1 = \"([^\"]+)\".*/\1/p" <<<"$line"; }
  expect=$(field tree_expect)
  printf '%s\tcurrent\t%s\t%s\n' "$(field name)" "$(field tree_patch)" "${expect:-$(field expect)}"
done
cat <<'CASES'
hdr_access_flags_per_entry	current	hdr_access_flags_per_entry	mixed_block
hdr_wrprotect_no_unfold	current	hdr_wrprotect_no_unfold	mixed_block
hdr_young_skips_last	current	hdr_young_skips_last	not_aged
hdr_lockless_plain_read	current	hdr_lockless_plain_read	plain_access
early_exit_unchecked	current	early_exit_unchecked	phantom_bit
convert_no_clear	current	convert_no_clear	dirty_lost|young_lost|bbm_violation
convert_local_flush	current	convert_local_flush	bbm_violation
bug_2024_05_cyd_overrun	v6.10-rc1	-	out_of_bounds
bug_2026_03_access_flags_noop	v6.9	-	flags_not_set|fault_loop
fixed_2024_05_cyd_overrun	v6.10-rc1	fix_cyd_out_of_bounds	clean
fixed_2026_03_access_flags_noop	v6.9	fix_access_flags_noop	clean
CASES
