#!/usr/bin/env bash
# engine/subject_test.sh VARIANT CLEAN BROKEN KIND [FLAG...]: a plug-in file or a
# kernel tree on the engine (build/drivers.bzl). The correct build CLEAN
# replays every 4k corpus seed clean and survives 20000 random-schedule
# runs; the broken build BROKEN is caught by PCT exploration with a KIND
# violation (KIND may list several, a|b), and the saved script replays to
# the same violation. FLAGs (e.g. --tlb=8) go to both explorations (a saved
# script records them for its replay).
set -uo pipefail
variant=$1 clean=$2 broken=$3 kind=$4 fail=0
shift 4
flags=("$@")
tmp=${TEST_TMPDIR:-$(mktemp -d)}
for f in corpora/seeds/*_4k.txt; do
  "$clean" replay --quiet --variant="$variant" "$f" >/dev/null ||
    { echo "FAIL: clean $variant on $f"; "$clean" replay --variant="$variant" "$f"; fail=1; }
done
"$clean" explore --variant="$variant" "${flags[@]}" --strategy=random --runs=20000 --save="$tmp/clean" ||
  { echo "FAIL: clean $variant violated under random exploration"; fail=1; }
out=$("$broken" explore --variant="$variant" "${flags[@]}" --strategy=pct --depth=3 --seconds=20 --save="$tmp/broken")
rc=$?
echo "$out"
if [[ $rc != 1 ]] || ! grep -qE "($kind) violation" <<<"$out"; then
  echo "FAIL: the broken $variant was not caught with $kind (exit $rc)"; fail=1
else
  saved=$(sed -n 's/.*script saved to //p' <<<"$out")
  "$broken" replay --quiet --variant="$variant" --check-expect "$saved" || { echo "FAIL: saved script does not replay"; fail=1; }
fi
exit $fail
