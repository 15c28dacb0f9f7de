#!/usr/bin/env bash
# kernel_tree/apply_patch.sh SRC PATCH OUT
#
# Apply PATCH to a copy of SRC (a kernel tree's arch/arm64/mm/contpte.c) and
# write the result to OUT; SRC is never touched. PATCH is what `git diff`,
# `git format-patch` or `diff -u` produce at the top of a kernel tree (-p1:
# a/arch/arm64/mm/contpte.c). Only its changes to arch/arm64/mm/contpte.c
# are applied, since that is the one file the harness builds; changes to
# other files are named and skipped. Applied with `git apply --include`
# (exact context, works outside any repository).
#
# Exit: 0 applied; 1 the patch does not apply (git's own message is shown,
# or, when it applies in reverse, that the file already has it) or does not
# touch the file; 2 usage.
set -uo pipefail
[[ $# -eq 3 ]] || { echo "usage: $0 SRC PATCH OUT" >&2; exit 2; }
src=$1 patch=$2 out=$3
F=arch/arm64/mm/contpte.c
for f in "$src" "$patch"; do
  [[ -f "$f" && -r "$f" ]] || { echo "kernel-tree: cannot read '$f'" >&2; exit 2; }
done
patch_abs=$(cd "$(dirname "$patch")" && pwd)/$(basename "$patch")

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tree/arch/arm64/mm"
cp "$src" "$tmp/tree/$F"
cd "$tmp/tree" || exit 1
export GIT_CEILING_DIRECTORIES=$tmp   # never pick up a repository around us

# The files the patch changes (b/ side, -p1), from its own headers.
touched=$(sed -nE 's#^\+\+\+ [^/]*/([^[:space:]]+).*#\1#p' "$patch_abs" | awk '!seen[$0]++')
if ! grep -qxF "$F" <<<"$touched"; then
  echo "kernel-tree: $patch does not change $F" >&2
  [[ -n "$touched" ]] && echo "kernel-tree: it changes: $(echo $touched)" >&2
  exit 1
fi
others=$(grep -vxF "$F" <<<"$touched" || true)
if [[ -n "$others" ]]; then
  echo "kernel-tree: note: only $F is built; the patch's changes to $(echo $others) are not applied" >&2
fi

command -v git >/dev/null 2>&1 || { echo "kernel-tree: git is needed to apply a patch" >&2; exit 2; }
if ! msg=$(git apply -p1 --include="$F" --verbose "$patch_abs" 2>&1); then
  # A patch the file already has applies in reverse: say that, not git's
  # context mismatch.
  if git apply -p1 --include="$F" --reverse --check "$patch_abs" >/dev/null 2>&1; then
    echo "kernel-tree: $patch is already applied to $src: it applies in reverse (the file already has its changes)" >&2
    exit 1
  fi
  echo "kernel-tree: $patch does not apply to $src (git apply):" >&2
  echo "$msg" >&2
  exit 1
fi
cd - >/dev/null || exit 1
mkdir -p "$(dirname "$out")"
cp "$tmp/tree/$F" "$out"
