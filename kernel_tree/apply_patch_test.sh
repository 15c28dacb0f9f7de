#!/usr/bin/env bash
# kernel_tree/apply_patch_test.sh APPLY_PATCH TREE_FILE PATCHED_FILE PATCH OTHER_PATCH
#
# kernel_tree/apply_patch.sh on the three outcomes a reviewer meets: PATCH
# applies to TREE_FILE and gives PATCHED_FILE; on PATCHED_FILE, which
# already has it, it is refused (exit 1) with exactly that said (it applies
# in reverse), not git's context mismatch; OTHER_PATCH, which does not apply
# either way, is refused with git's message and no such claim.
set -uo pipefail
apply=$1 tree=$2 patched=$3 patch=$4 other=$5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

"$apply" "$tree" "$patch" "$tmp/out.c" 2>"$tmp/log"; rc=$?
[[ $rc -eq 0 ]] || fail "applying $patch to the tree: exit $rc"
cmp -s "$tmp/out.c" "$patched" || fail "applying $patch to the tree does not give $patched"

"$apply" "$patched" "$patch" "$tmp/again.c" 2>"$tmp/log"; rc=$?
[[ $rc -eq 1 ]] || fail "applying $patch a second time: exit $rc, want 1"
grep -q "is already applied to $patched: it applies in reverse" "$tmp/log" ||
  fail "applying $patch a second time does not say it is already applied:"$'\n'"$(cat "$tmp/log")"
grep -q "patch failed" "$tmp/log" && fail "applying $patch a second time shows git's context mismatch"
[[ -e "$tmp/again.c" ]] && fail "a refused patch wrote its output"

"$apply" "$tree" "$other" "$tmp/other.c" 2>"$tmp/log"; rc=$?
[[ $rc -eq 1 ]] || fail "$other: exit $rc, want 1"
grep -q "does not apply to $tree (git apply)" "$tmp/log" || fail "$other: no git apply message"
grep -q "already applied" "$tmp/log" && fail "$other is called already applied"

[[ $fails -eq 0 ]] && echo "apply_patch.sh: applies, refuses an applied patch as such, refuses a stale one with git's message"
[[ $fails -eq 0 ]]
