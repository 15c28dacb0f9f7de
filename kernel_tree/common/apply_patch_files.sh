#!/usr/bin/env bash
# kernel_tree/common/apply_patch_files.sh [--name NAME] [--lacks REL] [--summary JSON] [--diff DIFF] PATCH TREE OUTDIR REL...
#
# Apply PATCH to copies of the files REL... of the kernel tree at TREE
# (those it has), written to OUTDIR/REL; the tree is never touched. The one
# way a user's patch is applied, for both subjects: the stage-2 subject
# calls it with its pgtable.c and headers (build/stage2.bzl,
# tools/lib/stage2.sh), kernel_tree/apply_patch.sh with contpte.c and
# asm/pgtable.h.
#
# PATCH is what `git diff`, `git format-patch` or `diff -u` write at the
# top of a kernel tree (-p1), or a series of such mails in one mbox (`git
# format-patch --stdout`), applied one after the other in their order
# (kernel_tree/patch_series.py splits it). Every hunk to the files REL is
# applied with `git apply --include` (exact context, outside any
# repository); changes to other files are named and skipped. A file the
# patch does not change is copied as it is; a file the tree lacks is
# written only if the patch creates it.
#
# --name NAME: how messages name the files patched (default: TREE).
# --lacks REL: a file of the subject that this tree has not (so not among
#   REL...): the note on skipped changes says so when the patch changes it.
# --summary JSON: what was applied, patch by patch:
#   {"patches": [{"n", "subject", "applied": [{"path", "hunks"}],
#                 "skipped": [{"path", "hunks"}]}]}
# --diff DIFF: the files' whole change (-p1 unified diff of the copies
#   before and after the series): a series' lines once, in the numbering
#   of the final files (what kernel_tree/patch_lines.py reads).
#
# Exit: 0 applied; 1 the patch does not apply (git's own message is shown,
# or, when it applies in reverse, that the files already have it) or
# changes none of the files; 3 PATCH is not a patch (empty, binary, no
# unified diff: said so); 2 usage.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name="" lacks=() summary="" diff_out=""
usage() { echo "usage: $0 [--name NAME] [--lacks REL] [--summary JSON] [--diff DIFF] PATCH TREE OUTDIR REL..." >&2; exit 2; }
while [[ $# -gt 0 && $1 == --* ]]; do
  case $1 in
    --name) [[ $# -ge 2 ]] || usage; name=$2; shift 2 ;;
    --lacks) [[ $# -ge 2 ]] || usage; lacks+=("$2"); shift 2 ;;
    --summary) [[ $# -ge 2 ]] || usage; summary=$2; shift 2 ;;
    --diff) [[ $# -ge 2 ]] || usage; diff_out=$2; shift 2 ;;
    *) usage ;;
  esac
done
[[ $# -ge 4 ]] || usage
patch=$1 tree=$2 out=$3
shift 3
built=("$@")
# messages name the patch and the files as given; the work is done in a
# folder of its own
name=${name:-$tree}
[[ -f "$patch" && -r "$patch" ]] || { echo "kernel-tree: cannot read '$patch'" >&2; exit 2; }
[[ -d "$tree" ]] || { echo "kernel-tree: no such directory '$tree'" >&2; exit 2; }
command -v git >/dev/null 2>&1 || { echo "kernel-tree: git is needed to apply a patch" >&2; exit 2; }
abs() { [[ -z "$1" || $1 == /* ]] && echo "$1" || echo "$PWD/$1"; }
tree=$(abs "$tree") summary=$(abs "$summary") diff_out=$(abs "$diff_out")
out=$(mkdir -p "$out" && cd "$out" && pwd) || exit 2

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 "$here/../patch_series.py" "$patch" --split "$tmp/series" >"$tmp/series.json" 2>"$tmp/why"
case $? in
  0) ;;
  1) echo "kernel-tree: $(cat "$tmp/why")" >&2; exit 3 ;;
  *) echo "kernel-tree: $(cat "$tmp/why")" >&2; exit 2 ;;
esac
# copy_files FROM TO: FROM/REL to TO/REL for each of the files REL... that
# FROM has
copy_files() {
  local rel
  for rel in "${built[@]}"; do
    [[ -f "$1/$rel" ]] || continue
    mkdir -p "$2/$(dirname "$rel")"
    cp "$1/$rel" "$2/$rel"
  done
}
# before: the files as the tree has them (for --diff); tree: patched
for d in before tree; do
  mkdir -p "$tmp/$d"
  copy_files "$tree" "$tmp/$d"
done
export GIT_CEILING_DIRECTORIES=$tmp   # never pick up a repository around us

# The plan: a line per patch (P, N, its split file, its subject), then one
# per file it changes (F, N, built or skipped, hunks, path).
/usr/bin/python3 - "$tmp/series.json" "$tmp/plan" "${built[@]}" <<'PY'
import json, sys
out, built = sys.argv[2], set(sys.argv[3:])
s = json.load(open(sys.argv[1], encoding="utf-8"))
with open(out, "w") as f:
    for p in s["patches"]:
        f.write("P\t%d\t%s\t%s\n" % (p["n"], p["file"], p["subject"]))
        for x in p["files"]:
            f.write("F\t%d\t%s\t%d\t%s\n" % (p["n"], "built" if x["path"] in built else "skipped", x["hunks"], x["path"]))
PY
npatches=$(grep -c '^P' "$tmp/plan")
if ! grep -q $'^F\t[0-9]*\tbuilt\t' "$tmp/plan"; then
  echo "kernel-tree: $patch changes none of the files the harness builds (${built[*]})" >&2
  echo "kernel-tree: it changes: $(cut -f5 "$tmp/plan" | grep -v '^$' | awk '!s[$0]++' | paste -sd ' ' -)" >&2
  exit 1
fi
skipped=$(awk -F'\t' '$1 == "F" && $3 == "skipped" { h[$5] += $4; if (!($5 in o)) { o[$5] = n++ } }
  END { for (p in o) k[o[p]] = p; for (i = 0; i < n; i++) printf "%s%s (%d hunk%s)", (i ? ", " : ""), k[i], h[k[i]], (h[k[i]] == 1 ? "" : "s") }' "$tmp/plan")
if [[ -n "$skipped" ]]; then
  note="kernel-tree: note: only ${built[*]} are built; not applied: $skipped"
  for rel in "${lacks[@]}"; do
    grep -q $'\tskipped\t[0-9]*\t'"$rel"'$' "$tmp/plan" && note+=" (the tree has no $rel)"
  done
  echo "$note" >&2
fi

cd "$tmp/tree" || exit 1
while IFS=$'\t' read -r tag n file subject; do
  [[ $tag == P ]] || continue
  include=()
  while IFS=$'\t' read -r _ _ _ _ path; do include+=("--include=$path"); done \
    < <(awk -F'\t' -v n="$n" '$1 == "F" && $2 == n && $3 == "built"' "$tmp/plan")
  [[ ${#include[@]} -gt 0 ]] || continue
  which=$patch
  [[ $npatches -gt 1 ]] && which="patch $n/$npatches of $patch${subject:+ (\"$subject\")}"
  if ! msg=$(git apply -p1 "${include[@]}" --verbose "$file" 2>&1); then
    # A patch the files already have applies in reverse: say that, not
    # git's context mismatch.
    if git apply -p1 "${include[@]}" --reverse --check "$file" >/dev/null 2>&1; then
      echo "kernel-tree: $which is already applied to $name: it applies in reverse (the files already have its changes)" >&2
      exit 1
    fi
    echo "kernel-tree: $which does not apply to $name$([[ $n -gt 1 ]] && echo " after the patches before it") (git apply):" >&2
    echo "$msg" >&2
    exit 1
  fi
done <"$tmp/plan"
cd "$tmp" || exit 1
if [[ -n "$summary" ]]; then
  /usr/bin/python3 - "$tmp/plan" "$summary" <<'PY'
import json, sys
patches = []
for line in open(sys.argv[1], encoding="utf-8"):
    f = line.rstrip("\n").split("\t")
    if f[0] == "P":
        patches.append({"n": int(f[1]), "subject": f[3], "applied": [], "skipped": []})
    else:
        patches[int(f[1]) - 1]["applied" if f[2] == "built" else "skipped"].append({"path": f[4], "hunks": int(f[3])})
json.dump({"patches": patches}, open(sys.argv[2], "w"), indent=1)
PY
fi
if [[ -n "$diff_out" ]]; then
  # git diff --no-index names the sides by the folders given: made -p1
  git diff --no-index --no-color --no-prefix -- before tree 2>/dev/null |
    sed -E -e 's#^--- before/#--- a/#' -e 's#^\+\+\+ tree/#+++ b/#' >"$diff_out"
fi
copy_files "$tmp/tree" "$out"
