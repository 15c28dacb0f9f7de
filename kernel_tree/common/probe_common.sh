# kernel_tree/common/probe_common.sh - sourced by the probes that build a
# kernel tree's file on a shim (kernel_tree/probe.sh for contpte.c,
# stage2/kernel_tree/probe.sh for the stage-2 pgtable.c): what decides
# whether a file can be built, and what a refusal says. The subject's probe
# keeps only what is its own (the unit it writes, its shim's quirks).

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

# refuse_conflicts WHAT FILE...: ends the probe (exit 1) when the files
# hold unresolved merge-conflict markers: such a tree is two versions of
# the code at once, so nothing is built from it.
refuse_conflicts() {
  local what=$1 conflicts
  shift
  conflicts=$(conflict_markers "$@")
  if [[ -n "$conflicts" ]]; then
    echo "$what: refused: the tree has unresolved merge-conflict markers at $conflicts (nothing was built: resolve them first)" >&2
    exit 1
  fi
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

# all_errors_flag CC: the flag that lifts the compiler's error limit
# (clang's default is 20; gcc has none), so that a refusal lists every
# missing name at once.
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

# unrename PREFIX... <TEXT: TEXT with the prefixes a probe renames the
# tree's functions with (kernel_tree/probe.sh: kt_file_, kt_hdr_) taken
# out, so that messages use the tree's own names; TEXT as it is without
# PREFIXes.
unrename() {
  local p undo=()
  for p in "$@"; do undo+=(-e "s/$p//g"); done
  if [[ ${#undo[@]} -gt 0 ]]; then sed "${undo[@]}"; else cat; fi
}

# report_not_built WHAT SRC SHIM UNIT LOG [PREFIX...]: what a probe says on
# standard error when SRC does not build on SHIM (the shim as a reader
# knows it, e.g. "the shim (kernel_tree/shim/)"): every name the shim lacks
# at once, then the compiler's own messages in LOG, the generated UNIT
# named as WHAT's unit and the rename PREFIXes taken out.
report_not_built() {
  local what=$1 src=$2 shim=$3 unit=$4 log=$5 names
  shift 5
  {
    echo "$what: $src does not build on $shim."
    names=$(missing "$log" | unrename "$@" | paste -sd ',' - | sed 's/,/, /g')
    [[ -n "$names" ]] && echo "$what: missing from the shim: $names"
    echo "$what: the compiler said:"
    sed -e "s|$unit|($what unit)|g" "$log" | unrename "$@"
  } >&2
}

# unit_warnings LOG [PREFIX...]: the warnings in LOG (what the kernel's
# policy only warns about builds, and the start-up report shows it) as the
# contents of one C string: each line once, rename PREFIXes taken out,
# escaped, ended by \n.
unit_warnings() {
  local log=$1
  shift
  grep -E ': warning: ' "$log" | sed -e 's|^\./||' | unrename "$@" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' |
    awk '!seen[$0]++' | sed 's/$/\\n/' | tr -d '\n'
}
