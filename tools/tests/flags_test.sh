#!/usr/bin/env bash
# tools/tests/flags_test.sh [--programs FILE] SCRIPT...: every long flag a
# command accepts is named in its --help, and every long flag its --help
# names is one it accepts; each mismatch is a FAIL line naming the command
# and the flag (exit 1).
#
# Accepted, for a SCRIPT: the long options of its argument-parsing `case`
# patterns (a line starting with `--name)`, `--name=*)`, `--a|--b)`); a
# pattern whose action starts with `die` refuses the flag (refused, not
# accepted). For a C program (the table PROGRAMS below, or FILE's rows,
# "NAME | HELP COMMAND | USAGE SECTION | FILE:FUNCTION..."): the "--name"
# strings the functions compare an argument with (strcmp, strncmp, the
# engine's opt()), "--name=value" counting as --name.
# Documented: every --name in the output of `SCRIPT --help` (or of the
# program's help command; for a program with subcommands, the lines of its
# usage for that subcommand: SECTION "PROG SUB").
# --help itself is left out (//tools/tests:help_test checks it).
#
# Flags a command hands to another (PASSTHROUGH) are accepted when that
# other command accepts them, and its help need not name them one by one;
# a --help naming another command's flag needs a line in EXCEPTIONS (a
# line no longer needed is a failure too).
# //tools/tests:flags_test runs it over every file in tools/, the
# measurement scripts of stress/bench/ and fuzz/bench/, and the programs
# below; //tools/tests:flags_test_fixture_test shows it failing on the
# fixtures of tools/tests/testdata/flags/.
set -uo pipefail
export LC_ALL=C   # one collation for sort and comm
# Bazel runs tests without HOME; the fuzzing tools default paths under it
export HOME=${HOME:-${TEST_TMPDIR:-/tmp}}

# The binaries README.md and docs/ tell users to run (bazel run, bazel-bin/),
# one row per subcommand. Paths are workspace-relative (the test's runfiles;
# //stress:bench as its copy tools/tests/stress_bench: in the runfiles, a
# file stress/bench would hide the folder stress/bench/).
# NAME                         | HELP COMMAND                       | SECTION           | SOURCES
PROGRAMS=$(cat <<'END'
//stress:hammer                | stress/hammer --help               | -                 | stress/args.c:stress_parse_args
//stress:aging                 | stress/aging --help                | -                 | stress/bench/aging.c:main
//stress:bench                 | tools/tests/stress_bench --help    | -                 | stress/bench/bench.c:parse stress/bench/bench.c:main
//stress:bench --scaling       | tools/tests/stress_bench --scaling --help | -          | stress/bench/scaling.c:scaling_main
//stress:bench_seed002         | stress/bench_seed002 --help        | -                 | stress/bench/bench_seed002.c:main
//stress:segment_watch         | stress/segment_watch --help        | -                 | stress/segment_watch.c:main
//engine:engine replay         | engine/engine --help               | engine replay     | engine/main.c:cmd_replay
//engine:engine explore        | engine/engine --help               | engine explore    | engine/main.c:cmd_explore
//engine:engine shrink         | engine/engine --help               | engine shrink     | engine/main.c:cmd_shrink
//engine:engine gen            | engine/engine --help               | engine gen        | engine/main.c:cmd_gen
//engine:engine asm            | engine/engine --help               | engine asm        | engine/main.c:cmd_asm engine/main.c:cmd_hash engine/main.c:main
//engine:engine bench          | engine/engine --help               | engine bench      | engine/main.c:cmd_bench
//engine/litmus:litmus_check   | engine/litmus/litmus_check --help  | -                 | engine/litmus/run.c:main
//fuzz:fuzztool info           | fuzz/fuzztool --help               | fuzztool info     | fuzz/fuzztool.c:cmd_info
//fuzz:fuzztool retarget       | fuzz/fuzztool --help               | fuzztool retarget | fuzz/fuzztool.c:cmd_retarget
//fuzz:fuzztool stable         | fuzz/fuzztool --help               | fuzztool stable   | fuzz/fuzztool.c:cmd_stable
//fuzz:fuzztool gen            | fuzz/fuzztool --help               | fuzztool gen      | fuzz/fuzztool.c:cmd_gen fuzz/fuzztool.c:main
//fuzz:script_asm              | fuzz/script_asm --help             | -                 | fuzz/script_asm.c:main
//fuzz:mutator_probe           | fuzz/mutator_probe --help          | -                 | fuzz/mutator_probe.c:main
END
)
# engine asm's row is its usage line "asm ... | disasm ... | hash ... | list".
# Not here: //fuzz:harness and its per-variant builds, run by afl-fuzz or
# libFuzzer (its settings are environment variables; libFuzzer's -flags are
# libFuzzer's; the plain build's arguments are files, --repeat=N first), the
# libraries and the test binaries.

# Commands that hand flags on: COMMAND also accepts every flag OTHER
# accepts (its help says so), and need not list them one by one.
# COMMAND          | OTHER            | why
PASSTHROUGH=$(cat <<'END'
tools/hammer      | //stress:hammer | any other --flag goes to the hammer ("[any //stress:hammer flag]")
tools/aging       | //stress:aging  | any other --flag=VALUE goes to the bench ("[any //stress:aging flag]")
//stress:aging    | tools/aging     | with --kernel-tree it execs tools/aging with its whole command line (its --patch)
END
)

# Another command's flags a help names on purpose: as few as possible.
# COMMAND       | FLAG             | whose, and why the help names it
EXCEPTIONS=$(cat <<'END'
//stress:aging  | --tool           | valgrind's: the usage gives the callgrind command line for --only
//stress:aging  | --toggle-collect | valgrind's: the same line (collect inside the aging pass only)
END
)

flagnames() {  # stdin: text -> the long flags it names, one a line, sorted
  grep -oE '(^|[^A-Za-z0-9_-])--[A-Za-z0-9][A-Za-z0-9-]*' | sed -E 's/^[^-]//; s/-+$//' |
    grep -vx -- '--help' | sort -u
}

script_flags() {  # FILE -> "accepted NAME" / "refused NAME" from its case patterns
  local line pat action kind a
  grep -E '^[[:space:]]*-[-A-Za-z0-9=*|]*\)' "$1" | while IFS= read -r line; do
    pat=${line%%)*}
    pat=${pat//[[:space:]]/}
    action=${line#*)}
    kind=accepted
    [[ $action =~ ^[[:space:]]*die([[:space:]]|$) ]] && kind=refused
    IFS='|' read -ra alts <<<"$pat"
    for a in "${alts[@]}"; do
      a=${a%%[=*]*}
      [[ $a == --[A-Za-z0-9]* && $a != --help ]] && echo "$kind $a"
    done
  done | sort -u
}

c_flags() {  # FILE FUNCTION -> the "--name" strings FUNCTION compares an argument with
  local body
  body=$(sed -n "/^[a-z].*[ *]$2(/,/^}/p" "$1")
  [[ -n "$body" ]] || { echo "NOFUNCTION"; return; }
  grep -oE '(strn?cmp|opt)\([^,"()]*, *"--[A-Za-z0-9][A-Za-z0-9-]*' <<<"$body" |
    grep -oE '"--[A-Za-z0-9-]+' | tr -d '"' | grep -vx -- '--help' | sort -u
}

section() {  # "PROG SUB" -> stdin's usage lines of subcommand SUB
  local p=${1%% *} s=${1#* }
  awk -v p="$p" -v s="$s" '
    $0 ~ "^(usage:)? *" p " +[a-z]" { on = ($0 ~ "^(usage:)? *" p " +" s "( |$)") }
    on'
}

trim() { local x=$1; x=${x#"${x%%[![:space:]]*}"}; printf '%s' "${x%"${x##*[![:space:]]}"}"; }

rows() {  # TABLE -> its rows, fields trimmed and joined by |
  local line f out
  while IFS= read -r line; do
    [[ -z "${line//[[:space:]]/}" ]] && continue
    out=""
    IFS='|' read -ra fs <<<"$line"
    for f in "${fs[@]}"; do out+="$(trim "$f")|"; done
    echo "${out%|}"
  done <<<"$1"
}

fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

run_help() {  # COMMAND WORDS... -> its help on stdout; fails if it cannot run
  local out rc
  out=$(timeout 30 "$@" 2>&1); rc=$?
  if [[ $rc != 0 && $rc != 2 ]] || [[ -z "$out" ]]; then
    echo "FAIL: $* exits $rc: $(tail -2 <<<"$out")" >&2
    return 1
  fi
  printf '%s\n' "$out"
}

# The run. It counts the commands it checked: a loop that an error in bash
# cuts short cannot pass.
main() {
  if [[ ${1:-} == --programs ]]; then
    [[ $# -ge 2 && -f $2 ]] || { echo "usage: $0 [--programs FILE] SCRIPT..." >&2; exit 2; }
    PROGRAMS=$(grep -v '^#' "$2"); shift 2
  fi

  declare -A accepted refused documented
  names=()
  fails=0

  # ---- what each command accepts and documents --------------------------------
  for cmd in "$@"; do
    names+=("$cmd")
    [[ -f "$cmd" ]] || { fail "$cmd: no such file"; continue; }
    f=$(script_flags "$cmd")
    accepted[$cmd]=$(sed -n 's/^accepted //p' <<<"$f")
    refused[$cmd]=$(sed -n 's/^refused //p' <<<"$f")
    help=$(run_help "./$cmd" --help) || { fails=$((fails + 1)); continue; }
    documented[$cmd]=$(flagnames <<<"$help")
  done

  declare -A whole_help section_flags
  while IFS='|' read -r name helpcmd sect srcs; do
    [[ -z "$name" ]] && continue
    names+=("$name") refused[$name]=""
    acc=""
    for s in $srcs; do
      f=$(c_flags "${s%%:*}" "${s#*:}")
      if [[ $f == NOFUNCTION ]]; then fail "$name: no function ${s#*:} in ${s%%:*}"; continue; fi
      acc+=$'\n'$f
    done
    accepted[$name]=$(grep -v '^$' <<<"$acc" | sort -u)
    read -ra words <<<"$helpcmd"
    help=$(run_help "${words[@]}") || { fails=$((fails + 1)); continue; }
    if [[ $sect != - ]]; then
      whole_help[$helpcmd]=$(flagnames <<<"$help")
      help=$(section "$sect" <<<"$help")
      [[ -n "$help" ]] || fail "$name: no usage line for '$sect' in the output of $helpcmd"
      section_flags[$helpcmd]+=$'\n'$(flagnames <<<"$help")
    fi
    documented[$name]=$(flagnames <<<"$help")
  done < <(rows "$PROGRAMS")

  # a flag in a usage outside every subcommand's lines is checked by no row
  for h in "${!whole_help[@]}"; do
    for fl in $(comm -23 <(echo "${whole_help[$h]}") <(grep -v '^$' <<<"${section_flags[$h]}" | sort -u)); do
      fail "$h: $fl is in its usage outside every subcommand's lines"
    done
  done

  declare -A pass_to except
  while IFS='|' read -r c other why; do
    [[ -n "$c" ]] && pass_to[$c]=$other
  done < <(rows "$PASSTHROUGH")
  while IFS='|' read -r c fl why; do
    [[ -n "$c" ]] && except[$c|$fl]=1
  done < <(rows "$EXCEPTIONS")

  # ---- the check ----------------------------------------------------------------
  checked=0
  for c in "${names[@]}"; do
    checked=$((checked + 1))
    [[ -n "${documented[$c]+set}" ]] || continue
    own=$(grep -v '^$' <<<"${accepted[$c]}")
    takes=$own
    if [[ -n "${pass_to[$c]+set}" ]]; then
      o=${pass_to[$c]}
      if [[ -n "${accepted[$o]+set}" ]]; then
        takes=$(printf '%s\n%s\n' "$own" "${accepted[$o]}" | grep -v '^$' | sort -u)
        takes=$(comm -23 <(echo "$takes") <(grep -v '^$' <<<"${refused[$c]}" | sort -u))
      else
        fail "$c: passes flags to $o, which is not checked here"
      fi
    fi
    n=0
    for fl in $(comm -23 <(echo "$own") <(echo "${documented[$c]}")); do
      fail "$c: accepts $fl, but its --help does not name it"; n=$((n + 1))
    done
    for fl in $(comm -13 <(echo "$takes") <(echo "${documented[$c]}")); do
      [[ -n "${except[$c|$fl]+set}" ]] && { except[$c|$fl]=used; continue; }
      if grep -qx -- "$fl" <<<"${refused[$c]}"; then
        fail "$c: its --help names $fl, which it refuses"
      else
        fail "$c: its --help names $fl, which it does not accept"
      fi
      n=$((n + 1))
    done
    more=""
    [[ -n "${pass_to[$c]+set}" ]] && more=", and those of ${pass_to[$c]}"
    ((n)) || echo "ok: $c ($(grep -c . <<<"$own") flags accepted$more, $(grep -c . <<<"${documented[$c]}") named in its help)"
  done
  for k in "${!except[@]}"; do
    c=${k%|*}
    [[ -n "${documented[$c]+set}" && ${except[$k]} != used ]] && fail "$c: the exception for ${k##*|} is not needed any more"
  done

  [[ $checked == "${#names[@]}" && ${#names[@]} -gt 0 ]] || fail "checked $checked of ${#names[@]} commands"
  echo "${#names[@]} commands, $fails failure(s)"
  [[ $fails -eq 0 ]]
}

main "$@"
