#!/usr/bin/env bash
# stage2/kernel_tree/probe.sh CC SRC HDR S2HDR OUT [COMPILER FLAGS...]
#
# Build a tree's arch/arm64/kvm/hyp/pgtable.c (SRC) with its
# arch/arm64/include/asm/kvm_pgtable.h (HDR) and asm/stage2_pgtable.h
# (S2HDR, or "-" if the tree has none) on the stage-2 shim as they are, and
# write OUT: the translation unit stage2_tree_library (build/stage2.bzl)
# compiles. Like kernel_tree/probe.sh for contpte.c, and with its helpers
# (kernel_tree/common/probe_common.sh):
#   - a tree left mid-merge is refused first, naming every conflict's line;
#   - the files are cut down to what the harness drives with libclang
#     (stage2/kernel_tree/cut.py: the hyp stage-1 half, pKVM's ownership
#     code and the rest are blanked out, line numbers kept), and a tree
#     older than RCU-protected shared walks is refused;
#   - the unit (shim, headers, file, then stage2/kernel_tree/glue.h, which
#     adapts the tree's API generation) is compiled with the kernel's
#     warning policy and no error limit: a failure names every name the
#     shim lacks at once, then the compiler's own messages at the tree's
#     paths;
#   - what the policy only warns about builds, and is shown at start-up.
# Exit: 0 written; 1 refused (the reason on standard error).
set -uo pipefail
[[ $# -ge 5 ]] || { echo "usage: $0 CC SRC HDR S2HDR OUT [FLAGS...]" >&2; exit 2; }
cc=$1 src=$2 hdr=$3 s2hdr=$4 out=$5
shift 5
source kernel_tree/common/probe_common.sh
what=kernel-tree

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

files=("$src" "$hdr")
[[ "$s2hdr" != "-" ]] && files+=("$s2hdr")
refuse_conflicts "$what" "${files[@]}"

"${S2_PYTHON:-/usr/bin/python3}" stage2/kernel_tree/cut.py "$src" "$hdr" "$s2hdr" "$tmp/unit" -- "$@" \
  2> "$tmp/cut.log"
rc=$?
if [[ $rc -ne 0 ]]; then
  if [[ $rc -eq 3 ]]; then
    cat "$tmp/cut.log" >&2
  else
    echo "$what: could not read $src with libclang (stage2/kernel_tree/cut.py):" >&2
    cat "$tmp/cut.log" >&2
  fi
  exit 1
fi

unit() {
  cat "$tmp/unit.facts"
  echo "#define S2_SOURCE \"$src\""
  echo "#define S2_HEADER \"$hdr\""
  [[ -n "${1:-}" ]] && echo "#define S2_WARNINGS \"$1\""
  cat "$tmp/unit.c"
  echo '#include "stage2/kernel_tree/glue.h"'
}

unit > "$tmp/probe.c"
read -r -a policy <<< "$(warning_policy "$cc")"
if ! "$cc" "$@" "${policy[@]}" "$(all_errors_flag "$cc")" -c "$tmp/probe.c" -o "$tmp/probe.o" \
     > "$tmp/log" 2>&1; then
  report_not_built "$what" "$src" "the stage-2 shim (stage2/kernel_tree/shim/)" "$tmp/probe.c" "$tmp/log"
  exit 1
fi

# What the kernel's policy only warns about builds, and is shown.
unit "$(unit_warnings "$tmp/log")" > "$out"
