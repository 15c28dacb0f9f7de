#!/usr/bin/env bash
# A plug-in file that defines none of the entry points is refused: exit 2,
# naming the reason, before any thread starts.
set -uo pipefail
out=$("$1" --variant=plugin --seconds=1 --no-progress 2>&1); rc=$?
if [[ $rc -ne 2 ]] || ! grep -q "the plug-in file defines none of the entry points" <<<"$out"; then
  echo "FAIL: rc=$rc (want 2), output:"; echo "$out" | head -5; exit 1
fi
if grep -q '"result"' <<<"$out"; then echo "FAIL: it ran"; exit 1; fi
echo "ok: refused with exit 2"
