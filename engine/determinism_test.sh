#!/usr/bin/env bash
# engine/determinism_test.sh ENGINE HASHES SCRIPT...
# Same script, same trace: every script is run twice in one process... and
# once more in a fresh process, and the trace hashes (a hash over every
# access: thread, kind, location, value before and after) and step counts
# must equal the ones recorded in HASHES (corpora/trace_hashes.txt), which
# were produced on another machine: bit for bit, every run, every machine
# (the same file is checked by the AArch64 builds under qemu).
set -uo pipefail
engine=$1 hashes=$2; shift 2
fail=0 n=0
for f in "$@"; do
  name=$(basename "$f")
  want=$(awk -v n="$name" '$1 == n { print $2, $3 }' "$hashes")
  a=$("$engine" hash "$f" | awk '{print $1, $2}')
  b=$("$engine" hash "$f" | awk '{print $1, $2}')
  n=$((n + 1))
  if [[ -z "$want" ]]; then echo "FAIL $name: no recorded hash in $hashes"; fail=1; continue; fi
  if [[ "$a" != "$b" ]]; then echo "FAIL $name: two runs differ: $a vs $b"; fail=1; fi
  if [[ "$a" != "$want" ]]; then echo "FAIL $name: trace $a, recorded $want"; fail=1; fi
done
echo "determinism: $n scripts, $([[ $fail = 0 ]] && echo all traces as recorded || echo MISMATCHES)"
exit $fail
