#!/usr/bin/env bash
# tools/tests/readme_test.sh: README.md's commands, checked without running
# them (they build and run for minutes: tools/tests/test-readme runs each,
# in CI): every command of its ```sh blocks names a command that exists,
# and every flag it gives is one that command's --help names (which
# //tools/tests:flags_test holds to the flags it accepts; tools/hammer and
# tools/aging also hand flags on to //stress:hammer and //stress:aging). So
# a renamed tool or flag fails `bazel test //...` at once.
set -uo pipefail
export HOME=${HOME:-${TEST_TMPDIR:-/tmp}}
[[ -f README.md ]] || { echo "FAIL: no README.md in $PWD"; exit 1; }
fails=0 n=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
helps() {  # the --help texts the command's flags are looked up in (some
            # commands exit 2 after their help: the text is what counts)
  case "$1" in
    tools/hammer) tools/hammer --help; stress/hammer --help ;;
    tools/aging) tools/aging --help; stress/aging --help 2>&1 ;;
    tools/*) "$1" --help 2>&1 ;;
    //stress:hammer) stress/hammer --help ;;
    //stress:aging) stress/aging --help 2>&1 ;;
    //engine:engine) engine/engine --help 2>&1 ;;
    *) return 1 ;;
  esac
  return 0
}
while IFS=$'\t' read -r want cmd; do
  n=$((n + 1))
  read -ra w <<<"$cmd"
  case "${w[0]}" in
    sleep) continue ;;
    bazel)
      [[ "${w[1]}" == test ]] && continue      # bazel's own flags and target patterns
      [[ "${w[1]}" == run && "${w[3]:-}" == -- ]] || { fail "README: cannot read '$cmd'"; continue; }
      prog=${w[2]} args=("${w[@]:4}") ;;
    tools/*)
      prog=${w[0]} args=("${w[@]:1}")
      [[ -x "$prog" ]] || { fail "README: '$cmd': no command $prog"; continue; } ;;
    *) fail "README: '$cmd': not a command this test knows (tools/..., bazel run/test, sleep)"; continue ;;
  esac
  help=$(helps "$prog") || { fail "README: '$cmd': no --help known for $prog"; continue; }
  for a in "${args[@]}"; do
    [[ "$a" == --* ]] || continue
    f=${a%%=*}
    grep -qE -- "(^|[^a-z0-9-])$f([^a-z0-9-]|$)" <<<"$help" ||
      fail "README: '$cmd': $prog's --help does not name $f"
  done
  [[ "$want" =~ ^([0-9]+|ci)$ ]] || fail "README: '$cmd': exit status '$want'"
done < <(tools/tests/test-readme --list)
[[ $n -gt 0 ]] || fail "no commands found in README.md"
echo "readme_test: $n commands, $fails failure(s)"
[[ $fails -eq 0 ]]
