#!/usr/bin/env bash
# engine/plugin_test.sh CLEAN BROKEN: plug-in files on the engine. The
# correct gather (tools/plugin/examples/lockless_gather.c) replays every 4k
# seed clean and survives 20000 random-schedule runs; the broken one
# (skips_unchecked.c) is caught by PCT exploration with a phantom bit, and
# the saved script replays to the same violation.
set -uo pipefail
clean=$1 broken=$2 fail=0
tmp=${TEST_TMPDIR:-$(mktemp -d)}
for f in corpora/seeds/*_4k.txt; do
  "$clean" replay --variant=plugin "$f" >/dev/null || { echo "FAIL: clean plug-in on $f"; "$clean" replay --variant=plugin "$f"; fail=1; }
done
"$clean" explore --variant=plugin --strategy=random --runs=20000 --save="$tmp/clean" ||
  { echo "FAIL: clean plug-in violated under random exploration"; fail=1; }
out=$("$broken" explore --variant=plugin --strategy=pct --depth=3 --seconds=20 --save="$tmp/broken")
rc=$?
echo "$out"
if [[ $rc != 1 ]] || ! grep -q "phantom_bit violation" <<<"$out"; then
  echo "FAIL: the broken plug-in was not caught (exit $rc)"; fail=1
else
  saved=$(sed -n 's/.*script saved to //p' <<<"$out")
  "$broken" replay --variant=plugin --check-expect "$saved" || { echo "FAIL: saved script does not replay"; fail=1; }
fi
exit $fail
