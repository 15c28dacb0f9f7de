# kernel_tree/common/probe_common.sh - sourced by the probes that build a kernel
# tree's file on a shim (stage2/kernel_tree/probe.sh; kernel_tree/probe.sh
# has the same pieces): what decides whether a file can be built, and what
# a refusal says.

# conflict_markers FILE...: git's unresolved merge-conflict markers (seven
# '<' or '>' at the start of a line, then a space or the end of the line),
# each conflict named by the line its marker starts on: "FILE:L1, L2 and at
# FILE2:L3"; nothing if there are none.
conflict_markers() {
  local f
  for f in "$@"; do
    awk -v f="$f" '/^(<<<<<<<|>>>>>>>)( |$)/ {
        if (substr($0, 1, 1) == "<" || !open) lines = lines (lines == "" ? f ":" : ", ") FNR
        open = (substr($0, 1, 1) == "<")
      }
      END { if (lines != "") print lines }' "$f"
  done | paste -sd ';' - | sed 's/;/ and at /g'
}

# missing LOG: the names a compiler's messages say are missing, one a line
# ("function X", "identifier Y", "type Z", "header <h>", "member s.m",
# "complete type T"), first mention first (clang and gcc wordings).
missing() {
  sed -nE \
    -e "s/.*implicit declaration of function '([A-Za-z_0-9]+)'.*/function \1/p" \
    -e "s/.*call to undeclared function '([A-Za-z_0-9]+)'.*/function \1/p" \
    -e "s/.*use of undeclared identifier '([A-Za-z_0-9]+)'.*/identifier \1/p" \
    -e "s/.*error: '([A-Za-z_0-9]+)' undeclared.*/identifier \1/p" \
    -e "s/.*unknown type name '([A-Za-z_0-9]+)'.*/type \1/p" \
    -e "s/.*fatal error: '([^']+)' file not found.*/header <\1>/p" \
    -e "s/.*fatal error: ([^:]+): No such file or directory.*/header <\1>/p" \
    -e "s/.*no member named '([A-Za-z_0-9]+)' in '([^']+)'.*/member \2.\1/p" \
    -e "s/.*'([^']+)' has no member named '([A-Za-z_0-9]+)'.*/member \1.\2/p" \
    -e "s/.*incomplete type '([^']+)'.*/complete type \1/p" \
    "$1" | awk '!seen[$0]++'
}

# all_errors_flag CC: the flag that lifts the compiler's error limit, so
# that a refusal lists every missing name at once.
all_errors_flag() {
  if "$1" -ferror-limit=0 -x c -fsyntax-only /dev/null >/dev/null 2>&1; then
    echo -ferror-limit=0
  else
    echo -fmax-errors=0
  fi
}

# warning_policy CC: the kernel's warning policy as flags (on top of the
# -Werror= set of build/subjects.bzl's WARNINGS_AS_ERRORS): what its build
# stops at stops here (scripts/Makefile.extrawarn: implicit-int,
# strict-prototypes), a call that only drops a const qualifier warns (gcc's
# -Wdiscarded-qualifiers; clang counts it among incompatible pointers).
warning_policy() {
  local policy=(-Werror=implicit-int -Werror=strict-prototypes)
  if "$1" -Werror -Wno-error=incompatible-pointer-types-discards-qualifiers -x c -fsyntax-only /dev/null >/dev/null 2>&1; then
    policy+=(-Wno-error=incompatible-pointer-types-discards-qualifiers)
  fi
  echo "${policy[@]}"
}
