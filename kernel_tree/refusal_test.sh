#!/usr/bin/env bash
# kernel_tree/refusal_test.sh LOG PATTERN...
#
# LOG is what the probe said about a tree the harness must refuse (a
# kernel_file_probe_log): the probe refused it (exit status 1, which
# tools/hammer turns into its exit 2), and its messages match every
# PATTERN (grep -E), e.g. the refusal naming the conflict markers' lines,
# or the page-size names of a tree that changes the model.
set -uo pipefail
log=$1
shift
fails=0
grep -q "^probe exit status: 1$" "$log" || { echo "FAIL: the probe did not refuse the tree"; fails=1; }
for pat in "$@"; do
  grep -qE -- "$pat" "$log" || { echo "FAIL: the probe's messages lack /$pat/"; fails=1; }
done
if [[ $fails -ne 0 ]]; then echo "--- the probe said:"; cat "$log"; exit 1; fi
echo "refused as expected:"
grep -E "refused|missing from the shim" "$log"
