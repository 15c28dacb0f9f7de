#!/usr/bin/env bash
# tools/tests/help_test.sh COMMAND...: each COMMAND's --help prints its whole
# header (every line of the leading comment block after the shebang, "# "
# stripped) and nothing else, and exits 0 (or 2: the fuzzing tools have
# always exited 2 on --help); the header's first line starts with the
# command's own path, so a moved command cannot keep a stale one.
# //tools/tests:help_test runs it over every file in tools/ and the
# measurement scripts of stress/bench/ and fuzz/bench/.
set -uo pipefail
[[ $# -gt 0 ]] || { echo "usage: $0 COMMAND..." >&2; exit 2; }
# Bazel runs tests without HOME; the fuzzing tools default paths under it
export HOME=${HOME:-${TEST_TMPDIR:-/tmp}}

header() {  # the leading comment block of file $1, as the help prints it
  local line first=1
  while IFS= read -r line; do
    if ((first)); then
      first=0
      [[ $line == '#!'* ]] && continue
    fi
    [[ $line == '#'* ]] || break
    line=${line#'#'}
    printf '%s\n' "${line#' '}"
  done <"$1"
}

fails=0
for cmd in "$@"; do
  want=$(header "$cmd")
  # --help must not build anything: a few seconds at most
  got=$(timeout 30 "$cmd" --help 2>&1)
  rc=$?
  if [[ $(wc -l <<<"$want") -lt 2 ]]; then
    echo "FAIL: $cmd: no header comment to print"; fails=$((fails + 1))
  elif [[ $(head -1 <<<"$want") != "$cmd"* ]]; then
    echo "FAIL: $cmd: its header does not start with its path: $(head -1 <<<"$want")"; fails=$((fails + 1))
  elif [[ $rc != 0 && $rc != 2 ]]; then
    echo "FAIL: $cmd --help exits $rc"; echo "$got" | tail -5; fails=$((fails + 1))
  elif [[ "$got" != "$want" ]]; then
    echo "FAIL: $cmd --help is not its header:"
    diff <(echo "$want") <(echo "$got") | head -20
    fails=$((fails + 1))
  else
    echo "ok: $cmd --help ($(wc -l <<<"$want") lines, exit $rc)"
  fi
done
echo "$# commands, $fails failure(s)"
[[ $fails -eq 0 ]]
