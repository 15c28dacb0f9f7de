#!/usr/bin/env bash
# The planted race must be reported: run the baseline tree on plain
# (non-atomic) entry loads/stores under ThreadSanitizer and require a data
# race report naming the access layer's plain load or store.
set -uo pipefail
bin=$1
out=$(TSAN_OPTIONS="${TSAN_OPTIONS:-}:halt_on_error=1:exitcode=66" \
      "$bin" --variant=plain_access --seconds=10 --no-progress 2>&1)
rc=$?
if [[ $rc -ne 66 ]]; then
  echo "FAIL: expected ThreadSanitizer's exit code 66, got $rc"; echo "$out" | tail -20; exit 1
fi
if ! grep -q "WARNING: ThreadSanitizer: data race" <<<"$out"; then
  echo "FAIL: no data race report"; echo "$out" | tail -20; exit 1
fi
if ! grep -qE "accb_(load|store)" <<<"$out"; then
  echo "FAIL: the report does not point at the plain access"; echo "$out" | tail -40; exit 1
fi
echo "PASS: ThreadSanitizer reported the planted plain-memory race:"
grep -m1 -A4 "WARNING: ThreadSanitizer: data race" <<<"$out"
