#!/usr/bin/env bash
# engine/litmus/model_mutant_test.sh IGNORE_DEPS NO_BUFFER TEST...: the
# litmus check (run.c) fails a memory model with a planted bug, naming the
# tests that show it: with dependencies ignored, Forbidden outcomes of
# address-dependency tests are reached; with stores visible at once, the
# store-reordering Allowed outcomes are not.
set -uo pipefail
ignore_deps=$1 no_buffer=$2
shift 2
fail=0
out=$("$ignore_deps" --runs=20000 --quiet "$@"); rc=$?
echo "$out" | tail -5
if [[ $rc != 1 ]] || ! grep -q 'MP+dmb.sy+addr .*FORBIDDEN OUTCOME REACHED' <<<"$out"; then
  echo "FAIL: the model that ignores dependencies was not caught (exit $rc)"; fail=1
fi
out=$("$no_buffer" --runs=20000 --quiet "$@"); rc=$?
echo "$out" | tail -5
if [[ $rc != 1 ]] || ! grep -q '^2+2W .*ALLOWED OUTCOME NOT REACHED' <<<"$out"; then
  echo "FAIL: the model without store buffers was not caught (exit $rc)"; fail=1
fi
[[ $fail = 0 ]] && echo "ok: both planted model bugs fail the litmus check"
exit $fail
