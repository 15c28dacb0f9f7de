#!/usr/bin/env bash
# engine/watchdog_test.sh ENGINE: ENGINE is built over a plug-in whose
# wrprotect spins for ever without an access (plugin/examples/
# spins_in_writer.c). explore must end within the watchdog's bound with
# exit 1, the reason, and a saved script; replaying that script must end
# the same way.
set -uo pipefail
engine=$1 fail=0
tmp=${TEST_TMPDIR:-$(mktemp -d)}
start=$SECONDS
out=$(timeout 60 "$engine" explore --variant=plugin --strategy=pct --seconds=30 --seed=1 --save="$tmp" 2>&1); rc=$?
took=$((SECONDS - start))
echo "$out" | tail -8
if [[ $rc -ne 1 ]] || ! grep -q "watchdog: thread .* without a scheduling point" <<<"$out"; then
  echo "FAIL: explore: rc=$rc (want 1) or no watchdog message"; fail=1
fi
[[ $took -le 20 ]] || { echo "FAIL: explore took $took s (the watchdog's bound is 3 s of no progress)"; fail=1; }
saved=$(ls "$tmp"/hang-plugin-4k.txt 2>/dev/null)
if [[ -z "$saved" ]] || ! grep -q '^expect hang' "$saved"; then
  echo "FAIL: no saved hang script"; fail=1
else
  out=$(timeout 60 "$engine" replay "$saved" 2>&1); rc=$?
  if [[ $rc -ne 1 ]] || ! grep -q "watchdog" <<<"$out"; then
    echo "FAIL: replay of $saved: rc=$rc, output:"; echo "$out" | tail -5; fail=1
  fi
fi
exit $fail
