#!/usr/bin/env bash
# tools/tests/flags_test_fixture_test.sh FLAGS_TEST PROGRAMS TOOL: that
# FLAGS_TEST (tools/tests/flags_test.sh) fails, naming the command and the
# flag, in both directions and on both kinds of command:
#   - a copy of the script TOOL (tools/repro) with one more case pattern,
#     --secret-flag), that its help does not name: "accepts --secret-flag";
#   - a copy whose header names --ghost-flag, which nothing parses;
#   - the C program of PROGRAMS (tools/tests/testdata/flags/fixture.c, built
#     as //tools/tests:flags_fixture), which accepts --secret=N without
#     naming it and names --missing without accepting it;
# and that TOOL copied as it is passes. //tools/tests:flags_test_fixture_test.
set -uo pipefail
[[ $# -eq 3 ]] || { echo "usage: $0 FLAGS_TEST PROGRAMS TOOL" >&2; exit 2; }
export HOME=${HOME:-${TEST_TMPDIR:-/tmp}}
ws=$PWD
flags_test=$ws/$1 programs=$ws/$2 tool=$3
tmp=$(mktemp -d "${TEST_TMPDIR:-/tmp}/flags.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tools"
ln -s "$ws/tools/lib" "$tmp/tools/lib"
: >"$tmp/no-programs"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# the copies, in a tools/ of their own (they source tools/lib/common.sh)
cp "$tool" "$tmp/tools/repro"
sed 's/^\(  *\)--quiet)/\1--secret-flag) shift ;;\n&/' "$tool" >"$tmp/tools/repro-undocumented"
sed '2a # --ghost-flag: a flag nothing parses.' "$tool" >"$tmp/tools/repro-unaccepted"
chmod +x "$tmp"/tools/repro*
grep -q -- '--secret-flag)' "$tmp/tools/repro-undocumented" || fail "no --secret-flag) pattern made in the copy of $tool"
grep -q -- '^# --ghost-flag' "$tmp/tools/repro-unaccepted" || fail "no --ghost-flag line made in the copy of $tool"

# expect NAME RC WANTED_FAIL_LINES COMMAND...: COMMAND exits RC and prints
# exactly these FAIL lines (none: "")
expect() {
  local name=$1 rc_want=$2 want=$3 out rc got
  shift 3
  out=$("$@" 2>&1); rc=$?
  got=$(grep '^FAIL: ' <<<"$out")
  if [[ $rc != "$rc_want" || "$got" != "$want" ]]; then
    fail "$name: exit $rc (wanted $rc_want); its FAIL lines:"
    diff <(echo "$want") <(echo "$got") | sed 's/^/    /'
    echo "$out" | tail -5 | sed 's/^/    | /'
  else
    echo "ok: $name: exit $rc, $(grep -c . <<<"$got") FAIL line(s), as wanted"
  fi
}

expect "scripts, both directions" 1 \
"FAIL: tools/repro-undocumented: accepts --secret-flag, but its --help does not name it
FAIL: tools/repro-unaccepted: its --help names --ghost-flag, which it does not accept" \
  bash -c 'cd "$1" && shift && exec "$@"' _ "$tmp" \
  "$flags_test" --programs "$tmp/no-programs" tools/repro tools/repro-undocumented tools/repro-unaccepted

expect "C program, both directions" 1 \
"FAIL: //tools/tests:flags_fixture: accepts --secret, but its --help does not name it
FAIL: //tools/tests:flags_fixture: its --help names --missing, which it does not accept" \
  "$flags_test" --programs "$programs"

expect "the unmodified copy passes" 0 "" \
  bash -c 'cd "$1" && shift && exec "$@"' _ "$tmp" \
  "$flags_test" --programs "$tmp/no-programs" tools/repro

echo "$fails failure(s)"
[[ $fails -eq 0 ]]
