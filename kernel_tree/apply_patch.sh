#!/usr/bin/env bash
# kernel_tree/apply_patch.sh [--header HDR HDR_OUT] SRC PATCH OUT
#
# Apply PATCH to copies of the files the harness builds from a kernel tree:
# SRC (its arch/arm64/mm/contpte.c), written to OUT, and with --header HDR
# (its arch/arm64/include/asm/pgtable.h), written to HDR_OUT. The tree is
# never touched. PATCH is what `git diff`, `git format-patch` or `diff -u`
# produce at the top of a kernel tree (-p1: a/arch/arm64/mm/contpte.c).
# Every hunk to those files is applied; changes to other files are named
# and skipped, and so are changes to asm/pgtable.h when the tree has none.
# Applied with `git apply --include` (exact context, works outside any
# repository); a file the patch does not change is copied as it is.
#
# Exit: 0 applied; 1 the patch does not apply (git's own message is shown,
# or, when it applies in reverse, that the files already have it) or
# changes none of the built files; 2 usage.
set -uo pipefail
hdr="" hdr_out=""
if [[ ${1:-} == --header ]]; then
  [[ $# -ge 3 ]] || { echo "usage: $0 [--header HDR HDR_OUT] SRC PATCH OUT" >&2; exit 2; }
  hdr=$2 hdr_out=$3
  shift 3
fi
[[ $# -eq 3 ]] || { echo "usage: $0 [--header HDR HDR_OUT] SRC PATCH OUT" >&2; exit 2; }
src=$1 patch=$2 out=$3
F=arch/arm64/mm/contpte.c H=arch/arm64/include/asm/pgtable.h
for f in "$src" "$patch" ${hdr:+"$hdr"}; do
  [[ -f "$f" && -r "$f" ]] || { echo "kernel-tree: cannot read '$f'" >&2; exit 2; }
done
patch_abs=$(cd "$(dirname "$patch")" && pwd)/$(basename "$patch")
built=("$F")
[[ -n "$hdr" ]] && built+=("$H")
what=$src${hdr:+ and $hdr}

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tree/$(dirname "$F")" "$tmp/tree/$(dirname "$H")"
cp "$src" "$tmp/tree/$F"
[[ -n "$hdr" ]] && cp "$hdr" "$tmp/tree/$H"
cd "$tmp/tree" || exit 1
export GIT_CEILING_DIRECTORIES=$tmp   # never pick up a repository around us

# The files the patch changes (b/ side, -p1), from its own headers.
touched=$(sed -nE 's#^\+\+\+ [^/]*/([^[:space:]]+).*#\1#p' "$patch_abs" | awk '!seen[$0]++')
applied=() skipped=()
while read -r t; do
  [[ -n "$t" ]] || continue
  if [[ " ${built[*]} " == *" $t "* ]]; then applied+=("$t"); else skipped+=("$t"); fi
done <<<"$touched"
if [[ ${#applied[@]} -eq 0 ]]; then
  echo "kernel-tree: $patch changes none of the files the harness builds (${built[*]})" >&2
  [[ -n "$touched" ]] && echo "kernel-tree: it changes: $(echo $touched)" >&2
  exit 1
fi
if [[ ${#skipped[@]} -gt 0 ]]; then
  note="kernel-tree: note: only ${built[*]} are built; the patch's changes to ${skipped[*]} are not applied"
  [[ " ${skipped[*]} " == *" $H "* ]] && note+=" (the tree has no $H)"
  echo "$note" >&2
fi

command -v git >/dev/null 2>&1 || { echo "kernel-tree: git is needed to apply a patch" >&2; exit 2; }
include=()
for t in "${applied[@]}"; do include+=("--include=$t"); done
if ! msg=$(git apply -p1 "${include[@]}" --verbose "$patch_abs" 2>&1); then
  # A patch the files already have applies in reverse: say that, not git's
  # context mismatch.
  if git apply -p1 "${include[@]}" --reverse --check "$patch_abs" >/dev/null 2>&1; then
    echo "kernel-tree: $patch is already applied to $what: it applies in reverse (the files already have its changes)" >&2
    exit 1
  fi
  echo "kernel-tree: $patch does not apply to $what (git apply):" >&2
  echo "$msg" >&2
  exit 1
fi
cd - >/dev/null || exit 1
mkdir -p "$(dirname "$out")"
cp "$tmp/tree/$F" "$out"
if [[ -n "$hdr" ]]; then
  mkdir -p "$(dirname "$hdr_out")"
  cp "$tmp/tree/$H" "$hdr_out"
fi
