#!/usr/bin/env bash
# sanitizers/reports_test.sh BIN REPORT FILE: BIN (the hammer over a plug-in
# file with a planted bug, built with the sanitizer's config) is stopped by
# the sanitizer: a non-zero exit, a REPORT (e.g. "AddressSanitizer:
# stack-buffer-overflow") and a frame in FILE, the plug-in file.
set -uo pipefail
bin=$1 report=$2 file=$3
out=$("$bin" --variant=plugin --granule=4k --seconds=5 --no-progress 2>&1)
rc=$?
fail() { echo "FAIL: $*"; echo "$out" | tail -30; exit 1; }
[[ $rc -ne 0 ]] || fail "the planted bug ran to the end (exit 0): the sanitizer did not stop it"
grep -qF -- "$report" <<<"$out" || fail "no '$report' report (exit $rc)"
grep -qF -- "$file" <<<"$out" || fail "the report does not point into $file"
echo "PASS: the sanitizer reported the planted bug:"
grep -m1 -A3 -F -- "$report" <<<"$out"
