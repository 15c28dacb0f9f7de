#!/usr/bin/env bash
# stage2/engine/replay_test.sh ENGINE FILE... - every program replays to
# its expect line on ENGINE (a stage-2 engine binary over one tree).
set -uo pipefail
engine=$1
shift
out=$("$engine" replay --check-expect "$@" 2>&1)
rc=$?
echo "$out" | grep -E "as expected|NOT as expected|error"
exit $rc
