#!/usr/bin/env bash
# kernel_tree/probe_lists_all_test.sh LOG
#
# LOG is what the probe said about testdata/needs_many_names (a contpte.c
# calling shim_lacks_01 .. shim_lacks_24, more errors than a compiler
# reports by default): the build is refused and the list of names missing
# from the shim has every one of the 24, not only those before the
# compiler's error limit.
set -uo pipefail
log=$1
fails=0
grep -q "^probe exit status: 1$" "$log" || { echo "FAIL: the probe did not refuse the file"; fails=1; }
list=$(grep "missing from the shim:" "$log")
for i in $(seq -w 1 24); do
  grep -q "function shim_lacks_$i\b" <<<"$list" || { echo "FAIL: shim_lacks_$i is not listed"; fails=1; }
done
if [[ $fails -ne 0 ]]; then echo "--- the probe said:"; cat "$log"; exit 1; fi
echo "all 24 missing names listed: $list"
