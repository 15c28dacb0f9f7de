#!/usr/bin/env bash
# kernel_tree/cpu_features_test.sh PROBES PROBES_ENGINE PREFIX VENDOR BBML3
#
# PROBES (hammer) and PROBES_ENGINE (engine): the current test tree with
# testdata/patches/unmodelled_probes.patch, which asks two capability
# probes the harness does not model. PREFIX and VENDOR (hammer): the
# current tree with its kernel headers under prefixes the shim has no
# folder for (unknown_prefix.patch, vendor_headers.patch). BBML3 (hammer):
# the current tree asking system_supports_bbml3(), the newest name of
# BBML2_NOABORT (bbml3_name.patch).
#
# Asserts: each probe is answered false, named in the start-up report's
# line and in the JSON summary; --cap sets it (the line and the exit
# report say so); a --cap the tree does not ask, or one the harness
# models, is refused with exit 2; on the engine a violation found with
# --cap is saved with its cap line, replays from the script alone, and
# runs clean when a --cap answers otherwise; the mapped headers are named;
# system_supports_bbml3() is the BBML2_NOABORT question, not a probe.
set -uo pipefail
probes=$1 engine=$2 prefix=$3 vendor=$4 bbml3=$5
tmp=${TEST_TMPDIR:-$(mktemp -d)}
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
run() {  # run BIN ARGS...: stdout in $tmp/out, stderr in $tmp/err, exit in rc
  "$@" > "$tmp/out" 2> "$tmp/err"
  rc=$?
}
has() {  # has FILE TEXT: a line of FILE has TEXT (fixed string)
  grep -qF -- "$2" "$1" || { fail "no '$2' in $1:"; sed 's/^/  | /' "$1" | head -40; }
}
line="kernel-tree: capability probes the harness does not model (false unless --cap NAME=1):"
hammer=(--variant=kernel_tree --granule=4k --seconds=1 --tlb=8)

# 1. false by default, named at start-up and in the JSON summary
run "$probes" "${hammer[@]}"
[[ $rc = 0 ]] || fail "the tree asking unmodelled probes did not run clean (exit $rc)"
has "$tmp/err" "$line ARM64_WORKAROUND_CONTPTE_SPLIT=0 system_supports_tlb_repaint=0"
has "$tmp/out" '"cpu": {"bbml2": "off", "caps": {"ARM64_WORKAROUND_CONTPTE_SPLIT": 0, "system_supports_tlb_repaint": 0}}'
has "$tmp/err" "kernel-tree: system_supports_tlb_repaint asked "

# 2. settable; the answer shows where the question is counted
run "$probes" "${hammer[@]}" --cap=ARM64_WORKAROUND_CONTPTE_SPLIT=1 --bbml2=noabort
[[ $rc = 0 ]] || fail "--cap=ARM64_WORKAROUND_CONTPTE_SPLIT=1 did not run clean (exit $rc)"
has "$tmp/err" "$line ARM64_WORKAROUND_CONTPTE_SPLIT=1 system_supports_tlb_repaint=0"
has "$tmp/err" "(--cap=ARM64_WORKAROUND_CONTPTE_SPLIT=1)"
has "$tmp/out" '"cpu": {"bbml2": "noabort", "caps": {"ARM64_WORKAROUND_CONTPTE_SPLIT": 1, "system_supports_tlb_repaint": 0}}'

# 3. a --cap the tree does not ask, or one the harness models: refused
run "$probes" "${hammer[@]}" --cap=system_supports_bbml9=1
[[ $rc = 2 ]] || fail "--cap of a probe the tree does not ask: exit $rc, not 2"
has "$tmp/err" "hammer: --cap system_supports_bbml9: the code under test asks no such capability probe (it asks: ARM64_WORKAROUND_CONTPTE_SPLIT=0 system_supports_tlb_repaint=0)"
run "$probes" "${hammer[@]}" --cap=system_supports_bbml2=1
[[ $rc = 2 ]] || fail "--cap of a probe the harness models: exit $rc, not 2"
has "$tmp/err" "the harness models system_supports_bbml2 itself (--bbml2=noabort|abort)"
run "$probes" "${hammer[@]}" --cap=system_supports_tlb_repaint
[[ $rc = 2 ]] || fail "--cap without =0|1: exit $rc, not 2"
has "$tmp/err" "--cap wants NAME=0 or NAME=1"

# 4. the engine: clean by default; caught with the --cap, saved with its
# cap line; the script replays alone, and clean when a --cap says 0
"$engine" explore --variant=kernel_tree --strategy=random --tlb=8 --runs=3000 --save="$tmp/clean" \
  > "$tmp/out" 2>&1 || { fail "the engine found a violation without --cap"; cat "$tmp/out"; }
run "$engine" explore --variant=kernel_tree --strategy=pct --tlb=8 --cap=system_supports_tlb_repaint=1 \
  --seconds=20 --save="$tmp/found"
if [[ $rc != 1 ]]; then
  fail "the engine did not catch the skipped flush with --cap=system_supports_tlb_repaint=1 (exit $rc)"
  cat "$tmp/out" "$tmp/err"
else
  saved=$(sed -n 's/.*script saved to //p' "$tmp/out")
  has "$saved" "cap system_supports_tlb_repaint 1"
  "$engine" replay --quiet --variant=kernel_tree --check-expect "$saved" ||
    fail "the saved script does not replay its violation"
  "$engine" replay --quiet --variant=kernel_tree --cap=system_supports_tlb_repaint=0 "$saved" ||
    fail "the saved script with --cap=system_supports_tlb_repaint=0 is not clean"
fi

# 5. kernel headers under another prefix: mapped, and named
mapped="kernel-tree: kernel headers included under another prefix, read as the shim's <linux/...> and <asm/...>:"
run "$prefix" "${hammer[@]}"
[[ $rc = 0 ]] || fail "the tree with its headers under <qrux/...> did not run clean (exit $rc)"
has "$tmp/err" "$mapped <qrux/mm.h> <qrux/efi.h> <qrux/export.h> <asm-qrux/tlbflush.h>"
run "$vendor" "${hammer[@]}"
[[ $rc = 0 ]] || fail "the vendor tree did not run clean (exit $rc)"
has "$tmp/err" "$mapped <peenux/mm.h> <peenux/efi.h> <peenux/export.h> <asm/p3s/pgtable.h>"

# 6. system_supports_bbml3() is BBML2_NOABORT's newest name: modelled, so
# no probe line; with --bbml2 the fold and unfold flush nothing
run "$bbml3" "${hammer[@]}" --bbml2 --faulters=0 --writers=map,fold,unfold,unmap
[[ $rc = 0 ]] || fail "the tree asking system_supports_bbml3() did not run clean with --bbml2 (exit $rc)"
grep -q "capability probes the harness does not model" "$tmp/err" &&
  fail "system_supports_bbml3() was taken for a probe the harness does not model"
has "$tmp/err" "kernel-tree: flushes the file asked for: 0"
grep -qE "system_supports_bbml2_noabort\(\) asked [1-9][0-9]* times" "$tmp/err" ||
  fail "system_supports_bbml3() was not counted as the BBML2_NOABORT question"

if [[ $fails -ne 0 ]]; then
  echo "$fails check(s) failed"
  exit 1
fi
echo "cpu features: probes named, false by default, settable on both drivers; prefixes mapped; bbml3 modelled"
