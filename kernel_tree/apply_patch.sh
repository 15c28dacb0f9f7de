#!/usr/bin/env bash
# kernel_tree/apply_patch.sh [--header HDR HDR_OUT] [--summary JSON] [--diff DIFF] SRC PATCH OUT
#
# Apply PATCH to copies of the files the harness builds from a kernel tree:
# SRC (its arch/arm64/mm/contpte.c), written to OUT, and with --header HDR
# (its arch/arm64/include/asm/pgtable.h), written to HDR_OUT. The tree is
# never touched. PATCH is what `git diff`, `git format-patch` or `diff -u`
# produce at the top of a kernel tree (-p1: a/arch/arm64/mm/contpte.c), or
# a series of such mails in one mbox (`git format-patch --stdout`), applied
# one after the other in their order (kernel_tree/patch_series.py splits
# it). Every hunk to the built files is applied; changes to other files are
# named and skipped, and so are changes to asm/pgtable.h when the tree has
# none. Applied with `git apply --include` (exact context, works outside
# any repository); a file the patch does not change is copied as it is.
# The work is kernel_tree/common/apply_patch_files.sh's (the stage-2
# subject's too): this names the contpte subject's files for it.
#
# --summary JSON: what was applied, patch by patch:
#   {"patches": [{"n", "subject", "applied": [{"path", "hunks"}],
#                 "skipped": [{"path", "hunks"}]}]}
# --diff DIFF: the built files' whole change (-p1 unified diff of the
#   copies before and after the series): a series' lines once, in the
#   numbering of the final file (what kernel_tree/patch_lines.py reads).
#
# Exit: 0 applied; 1 the patch does not apply (git's own message is shown,
# or, when it applies in reverse, that the files already have it) or
# changes none of the built files; 3 PATCH is not a patch (empty, binary,
# no unified diff: said so); 2 usage.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
hdr="" hdr_out="" opts=()
usage() { echo "usage: $0 [--header HDR HDR_OUT] [--summary JSON] [--diff DIFF] SRC PATCH OUT" >&2; exit 2; }
while [[ $# -gt 0 && $1 == --* ]]; do
  case $1 in
    --header) [[ $# -ge 3 ]] || usage; hdr=$2 hdr_out=$3; shift 3 ;;
    # apply_patch_files.sh's own options, passed on
    --summary|--diff) [[ $# -ge 2 ]] || usage; opts+=("$1" "$2"); shift 2 ;;
    *) usage ;;
  esac
done
[[ $# -eq 3 ]] || usage
src=$1 patch=$2 out=$3
abs() { [[ -z "$1" || $1 == /* ]] && echo "$1" || echo "$PWD/$1"; }
for f in "$src" "$patch" ${hdr:+"$hdr"}; do
  f=$(abs "$f")
  [[ -f "$f" && -r "$f" ]] || { echo "kernel-tree: cannot read '$f'" >&2; exit 2; }
done
F=arch/arm64/mm/contpte.c H=arch/arm64/include/asm/pgtable.h

# The two files, wherever they are, as a tree of their own for
# apply_patch_files.sh; without a header the patch's changes to one are
# skipped, the tree having none.
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/in/$(dirname "$F")" && cp "$src" "$tmp/in/$F" || exit 1
files=("$F") opts+=(--name "$src${hdr:+ and $hdr}")
if [[ -n "$hdr" ]]; then
  mkdir -p "$tmp/in/$(dirname "$H")" && cp "$hdr" "$tmp/in/$H" || exit 1
  files+=("$H")
else
  opts+=(--lacks "$H")
fi
"$here/common/apply_patch_files.sh" "${opts[@]}" "$patch" "$tmp/in" "$tmp/out" "${files[@]}" || exit
mkdir -p "$(dirname "$out")" && cp "$tmp/out/$F" "$out" || exit 1
if [[ -n "$hdr" ]]; then
  mkdir -p "$(dirname "$hdr_out")" && cp "$tmp/out/$H" "$hdr_out" || exit 1
fi
