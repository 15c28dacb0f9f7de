#!/usr/bin/env bash
# kernel_tree/apply_patch_test.sh APPLY_PATCH TREE_FILE PATCHED_FILE PATCH OTHER_PATCH SERIES
#
# kernel_tree/apply_patch.sh on the outcomes a reviewer meets: PATCH
# applies to TREE_FILE and gives PATCHED_FILE; on PATCHED_FILE, which
# already has it, it is refused (exit 1) with exactly that said (it applies
# in reverse), not git's context mismatch; OTHER_PATCH, which does not apply
# either way, is refused with git's message and no such claim; SERIES, two
# mails of `git format-patch --stdout` whose second changes the lines of the
# first and mm/rmap.c too, is applied in order, each patch listed with its
# whole (folded) subject, the rmap.c hunk named as skipped, and its lines
# once in the whole change; an empty file, a binary file and a text without
# a diff are refused as not a patch (exit 3).
set -uo pipefail
apply=$1 tree=$2 patched=$3 patch=$4 other=$5 series=$6
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

"$apply" --summary "$tmp/s.json" --diff "$tmp/d.diff" "$tree" "$series" "$tmp/series.c" 2>"$tmp/log"; rc=$?
[[ $rc -eq 0 ]] || fail "$series: exit $rc, want 0: $(cat "$tmp/log")"
grep -q "not applied: mm/rmap.c (1 hunk)" "$tmp/log" || fail "$series: the skipped rmap.c hunk is not named: $(cat "$tmp/log")"
/usr/bin/python3 - "$tmp/s.json" "$tmp/d.diff" <<'PY' || fail "$series: the summary or the whole change is wrong"
import json, sys
s = json.load(open(sys.argv[1]))["patches"]
assert [p["n"] for p in s] == [1, 2], s
assert s[0]["subject"] == "[PATCH v6 1/2] arm64/mm: contpte: name the gathered bits in contpte_ptep_get before folding them into the result", s[0]
assert s[1]["subject"].startswith("[PATCH v6 2/2] arm64/mm: contpte: fold the gathered bits with conditional expressions, and"), s[1]
assert s[1]["skipped"] == [{"path": "mm/rmap.c", "hunks": 1}], s[1]
assert s[0]["applied"] == [{"path": "arch/arm64/mm/contpte.c", "hunks": 1}], s[0]
d = open(sys.argv[2]).read().splitlines()
added = [l for l in d if l.startswith("+") and not l.startswith("+++")]
# patch 1's "bool dirty = ..., young = ...;" is gone: rewritten by patch 2
assert len(added) == 4 and not any("young = pte_young(pte);" in l and "dirty" in l for l in added), added
PY
grep -q "young ? pte_mkyoung" "$tmp/series.c" || fail "$series: the second patch is not in the result"

: >"$tmp/empty.patch"; head -c 4096 /bin/sh >"$tmp/binary.patch"; echo "Looks good to me." >"$tmp/text.patch"
for np in empty:empty binary:"a binary file" text:"no unified diff"; do
  f=$tmp/${np%%:*}.patch
  "$apply" "$tree" "$f" "$tmp/np.c" 2>"$tmp/log"; rc=$?
  [[ $rc -eq 3 ]] && grep -q "is not a patch: .*${np#*:}" "$tmp/log" || fail "${np%%:*} file: exit $rc, want 3 and 'not a patch': $(cat "$tmp/log")"
done

[[ $fails -eq 0 ]] && echo "apply_patch.sh: applies, refuses an applied patch as such, refuses a stale one with git's message, a series in order, not a patch said so"
[[ $fails -eq 0 ]]
