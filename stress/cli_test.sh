#!/usr/bin/env bash
# hammer's command line: every bad input is refused with exit 2 and a
# reason naming the valid choices; --help/--list succeed; SIGINT and
# SIGTERM stop a long run cleanly with its summary, leaving nothing behind.
set -uo pipefail
hammer=$1
watch=$2
fails=0 passes=0

expect() {  # expect RC PATTERN -- ARGS...
  local want=$1 pat=$2; shift 3
  local out rc
  out=$("$hammer" "$@" --no-progress 2>&1); rc=$?
  # the pattern may span the summary's lines
  if [[ $rc -ne $want ]] || ! tr '\n' ' ' <<<"$out" | grep -qE -- "$pat"; then
    echo "FAIL: hammer $* -> rc=$rc (want $want), output lacks /$pat/:"; echo "$out" | head -5
    fails=$((fails + 1))
  else
    passes=$((passes + 1))
  fi
}

expect 2 "unknown flag '--bogus'.*valid: --reader" -- --bogus
expect 2 "unknown reader 'fast' \(valid: all, lockless, locked, early-exit, locked-early-exit\)" -- --reader=fast
expect 2 "unknown granule '8k' \(valid: 4k, 16k, 64k\)" -- --granule=8k
expect 2 "unknown writer op 'fold2' \(valid: all, map, fold" -- --writers=map,fold2
expect 2 "unknown writer op 'fold2' \(valid: all, map, fold" -- --writers=-fold2
expect 2 "empty writer op list" -- --writers=map,-map
# -OP leaves an op out: without access_flags (and the faulting device) the
# slip in set_access_flags is never reached; leaving another op out, it is
expect 0 '"result": "clean"' -- --mutant=access_flags_rdonly --writers=-access_flags --faulters=0 --seconds=2
expect 1 '"result": "violation"' -- --mutant=access_flags_rdonly --writers=all,-young --faulters=0 --seconds=20
expect 2 "unknown mutant 'nope'.*no_consistency_check" -- --mutant=nope
expect 2 "unknown variant 'nope' \(valid: .*baseline" -- --variant=nope
expect 2 "is a correct tree, not a mutant" -- --mutant=baseline
expect 2 "mutant .no_pfn_check. is planted in the baseline tree; --reader=early-exit asks for the other" -- --mutant=no_pfn_check --reader=early-exit
expect 2 "unknown violation kind 'boom' \(valid: clean, torn_mapping" -- --expect=boom
expect 2 "--expect stops at the first violation of an expected kind; --keep-going contradicts it" -- --expect=lost_bit --keep-going
expect 2 "--seconds wants a positive number" -- --seconds=0
expect 2 "--seconds wants a positive number" -- --seconds=abc
expect 2 "--threads wants an integer in 0..64, got '65'" -- --threads=65
expect 2 "--threads wants an integer in 0..64, got 'x'" -- --threads=2,x
expect 2 "--threads needs at least one thread" -- --threads=0,0,0
expect 2 "hardware alone cannot violate anything" -- --threads=0,0,2
expect 2 "--threads takes at most three numbers" -- --threads=1,1,1,1
expect 2 "--tables wants an integer in 1..64" -- --tables=99
expect 2 "--delay wants on or off" -- --delay=maybe
expect 2 "--delay-share wants a fraction between 0 and 1" -- --delay-share=1
expect 2 "--delay-max wants an integer in 1..1000000" -- --delay-max=0
expect 2 "--delay-steps wants an integer in 1..65536" -- --delay-steps=0
expect 2 "--pin takes no value" -- --pin=yes
expect 2 "--blocks wants an integer in 1..16" -- --blocks=17
expect 2 "--seed wants a non-negative integer" -- --seed=-3
expect 2 "--report-dir '/nonexistent' is not a writable directory" -- --report-dir=/nonexistent
expect 2 "--reader needs a value" -- --reader
expect 2 "--keep-going takes no value" -- --keep-going=yes
expect 2 "unexpected argument 'extra'" -- extra
expect 0 "usage: hammer" -- --help
expect 0 "no_consistency_check +mutant, expect phantom_bit" -- --list
# What the summary says about the run's shape: writer-contract runs
# without readers, tables per writer, one op count per writer, pinning,
# and the delays taken (off: none).
expect 0 '"readers": 0, "writers": 2, "hw": 1.*"tables": 4, .*"writer_ops_per_writer": \[[1-9][0-9]*, [1-9][0-9]*\]' -- --threads=0,2,1 --seconds=0.5
expect 0 '"pinned": true' -- --threads=1,1,1 --pin --seconds=0.5
expect 0 '"variant": "early_exit", "mutant": null, "reader": "early-exit"' -- --reader=early-exit --seconds=0.3
# by default every reader of the tree runs, and the summary says how often
expect 0 '"reader": "all".*"reads_by_reader": \{"lockless": [1-9][0-9]*, "locked": [1-9][0-9]*\}' -- --seconds=0.5
expect 0 '"reads_by_reader": \{"lockless": [1-9][0-9]*, "locked": 0\}' -- --reader=lockless --seconds=0.3
expect 0 '"delays": \{"on": false.*"readers": \{"points": 0, "taken": 0' -- --delay=off --seconds=0.5
expect 0 '"delays": \{"on": true.*"readers": \{"points": [1-9][0-9]*, "taken": [1-9]' -- --seconds=1
# --expect goes on past a bug's other symptoms: a missing unmap flush shows
# bbm_violation and stale_tlb_access, never a hang; the run lasts its bound
# and fails naming what it saw...
expect 1 'not of the expected kind \(hang\); going on.*expected a hang violation within [0-9.]+s; found only other kinds.*"kinds_seen": "[a-z_|]*(stale_tlb_access|bbm_violation)' -- --variant=unmap_no_flush --tlb=8 --seconds=2 --expect=hang
# ...and passes at the first of an expected kind, whichever came first
expect 0 '"kinds_seen": "[a-z_|]*tlb_conflict.*"result": "expected_violation_found"' -- --variant=unmap_no_flush --tlb=8 --seconds=20 --expect=tlb_conflict
# ...and names an earlier violation only when it was of another kind
out=$("$hammer" --variant=unmap_no_flush --tlb=8 --seconds=20 \
      --expect='stale_tlb_access|bbm_violation|tlb_conflict' --no-progress 2>&1); rc=$?
if [[ $rc -ne 0 ]] || grep -qE "not of the expected kind|first violation was of another kind" <<<"$out"; then
  echo "FAIL: --expect with every symptom listed: rc=$rc, or it named another kind:"; echo "$out" | head -5
  fails=$((fails + 1))
else
  passes=$((passes + 1))
fi
if "$watch" /etc/passwd >/dev/null 2>&1; then echo "FAIL: segment_watch accepted /etc/passwd"; fails=$((fails + 1)); fi

# A long run stopped by a signal: exits promptly with its summary and code 0
# (clean so far), and its threads and segment are gone with the process.
for sig in INT TERM; do
  "$hammer" --seconds=600 --no-progress > out.json 2> err.txt &
  pid=$!
  sleep 1.5
  fds=$(ls -l /proc/$pid/fd 2>/dev/null | grep -c 'memfd:contpte-harness')
  # another process attaches to the live segment
  seg=$(ls -l /proc/$pid/fd 2>/dev/null | awk '/memfd:contpte-harness/ {print $9}')
  if ! "$watch" "/proc/$pid/fd/$seg" | grep -qE "^segment of pid $pid: .* 16 entries per block"; then
    echo "FAIL: segment_watch could not attach to /proc/$pid/fd/$seg"; fails=$((fails + 1))
  fi
  kill -$sig $pid
  start=$SECONDS
  wait $pid; rc=$?
  if [[ $rc -ne 0 || $((SECONDS - start)) -gt 10 || $fds -ne 1 ]] ||
     ! grep -q '"result": "clean"' out.json || ! grep -q "stopped by signal" err.txt; then
    echo "FAIL: SIG$sig: rc=$rc, memfd fds while running=$fds"; cat err.txt | tail -3; fails=$((fails + 1))
  elif [[ -e /proc/$pid ]]; then
    echo "FAIL: SIG$sig: process $pid still exists"; fails=$((fails + 1))
  else
    passes=$((passes + 1))
  fi
done
# No segment was ever given a file-system name.
if ls /dev/shm 2>/dev/null | grep -q contpte; then
  echo "FAIL: a segment was left in /dev/shm"; fails=$((fails + 1))
else
  passes=$((passes + 1))
fi

echo "$passes passed, $fails failed"
[[ $fails -eq 0 ]]
