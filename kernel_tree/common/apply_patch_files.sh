#!/usr/bin/env bash
# kernel_tree/common/apply_patch_files.sh PATCH TREE OUTDIR REL...
#
# Apply PATCH (what `git diff`, `git format-patch` or `diff -u` write at the
# top of a kernel tree, -p1) to copies of the files REL... of the tree at
# TREE (those it has), written to OUTDIR/REL; the tree is never touched.
# The generic form of kernel_tree/apply_patch.sh, for any set of files (the
# stage-2 subject's pgtable.c and headers): hunks to the files named are
# applied with `git apply --include` (exact context, outside any
# repository), changes to other files are named and skipped; a file the
# patch does not change is copied as it is; a file the tree lacks is
# written empty only if the patch creates it.
#
# Exit: 0 applied; 1 the patch does not apply (git's message, or that the
# files already have it: it applies in reverse) or changes none of the
# files; 2 usage.
set -uo pipefail
[[ $# -ge 4 ]] || { echo "usage: $0 PATCH TREE OUTDIR REL..." >&2; exit 2; }
patch=$1 tree=$2 out=$3
shift 3
[[ -f "$patch" && -r "$patch" ]] || { echo "kernel-tree: cannot read '$patch'" >&2; exit 2; }
[[ -d "$tree" ]] || { echo "kernel-tree: no such directory '$tree'" >&2; exit 2; }
patch_abs=$(cd "$(dirname "$patch")" && pwd)/$(basename "$patch")
out_abs=$(mkdir -p "$out" && cd "$out" && pwd)

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
have=()
for rel in "$@"; do
  if [[ -f "$tree/$rel" ]]; then
    mkdir -p "$tmp/tree/$(dirname "$rel")"
    cp "$tree/$rel" "$tmp/tree/$rel"
    have+=("$rel")
  fi
done
cd "$tmp/tree" 2>/dev/null || { mkdir -p "$tmp/tree" && cd "$tmp/tree"; } || exit 1
export GIT_CEILING_DIRECTORIES=$tmp

touched=$(sed -nE 's#^\+\+\+ [^/]*/([^[:space:]]+).*#\1#p' "$patch_abs" | awk '!seen[$0]++')
applied=() skipped=()
while read -r t; do
  [[ -n "$t" ]] || continue
  if [[ " $* " == *" $t "* ]]; then applied+=("$t"); else skipped+=("$t"); fi
done <<<"$touched"
if [[ ${#applied[@]} -eq 0 ]]; then
  echo "kernel-tree: $patch changes none of the files the harness builds ($*)" >&2
  [[ -n "$touched" ]] && echo "kernel-tree: it changes: $(echo $touched)" >&2
  exit 1
fi
[[ ${#skipped[@]} -gt 0 ]] &&
  echo "kernel-tree: note: only the built files are patched; the changes to ${skipped[*]} are not applied" >&2

command -v git >/dev/null 2>&1 || { echo "kernel-tree: git is needed to apply a patch" >&2; exit 2; }
include=()
for t in "${applied[@]}"; do include+=("--include=$t"); done
if ! msg=$(git apply -p1 "${include[@]}" --verbose "$patch_abs" 2>&1); then
  if git apply -p1 "${include[@]}" --reverse --check "$patch_abs" >/dev/null 2>&1; then
    echo "kernel-tree: $patch is already applied to $tree: it applies in reverse (the files already have its changes)" >&2
    exit 1
  fi
  echo "kernel-tree: $patch does not apply to $tree (git apply):" >&2
  echo "$msg" >&2
  exit 1
fi
for rel in "$@"; do
  if [[ -f "$rel" ]]; then
    mkdir -p "$out_abs/$(dirname "$rel")"
    cp "$rel" "$out_abs/$rel"
  fi
done
