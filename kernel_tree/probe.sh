#!/usr/bin/env bash
# kernel_tree/probe.sh [--plugin] [--header HDR] [--map-dir DIR] CC NM SRC OUT [COMPILER FLAGS...]
#
# Build SRC on the kernel-tree shim as it is, find out what it defines with
# nm, and write OUT: the translation unit that kernel_file_library
# (build/subjects.bzl) compiles for real. SRC is a kernel tree's
# arch/arm64/mm/contpte.c (the unit is the file with its functions renamed
# kt_file_<name>, then kernel_tree/glue.h) or, with --plugin, a plug-in file
# (the unit is the file as it is: its functions replace the project's weak
# defaults by name).
#
# The functions the harness knows (kernel_tree/functions.def) are renamed
# kt_file_<name> after the shim, as in the final unit: the file's own
# definitions then never meet core/kcompat.h's prototypes of the current
# signatures (newer trees take const pte_t *, older ones other arguments).
# Helpers that older trees expected from a header (OPTIONAL below) are
# defined by the shim only for a file that uses them without defining them.
# A build that fails on exactly such names (a helper it lacks, or a known
# function it calls but does not define, so must not be renamed) is retried
# with that settled. Any other failure ends here (exit 1) with every name
# the shim lacks (the compiler's error limit is lifted, so the list is
# complete) and the compiler's own message.
#
# Kernel headers under another prefix: a file that includes <X/name.h>,
# which the shim lacks, where the shim has <linux/name.h> or <asm/name.h>
# (a vendor's <peenux/mm.h>, <asm/p3s/pgtable.h>), gets every shim header
# under X/ too, generated into DIR (--map-dir; the build adds it to the
# unit's include path): one rule, whatever the prefix. The start-up report
# names the headers read so.
#
# Capability probes the harness does not model: a call of an undeclared
# system_supports_*(), system_uses_*() or system_has_*(), or of
# kt_cpucap_<CAP>() (what the shim makes of cpus_have_*cap(CAP) and its
# kin for a CAP it does not answer), is defined as kt_cap_ask (false unless
# --cap CAP=1, counted; kernel_tree/report.c) and registered by name with
# core/cpu.h, so the start-up report names it. A probe never refuses the
# tree.
#
# With --header, HDR is the tree's arch/arm64/include/asm/pgtable.h: the
# definitions the harness drives or the file uses are cut out of it by
# kernel_tree/extract_header.py (libclang) and placed before the file, their
# functions renamed kt_hdr_<name>; kernel_tree/glue.h then defines the
# entry points they stand for (ptep_get, set_ptes, __ptep_get_and_clear,
# ...) over them. The header's calls into the file's functions are counted
# like the harness's.
set -uo pipefail
plugin=0 header="" mapdir=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --plugin) plugin=1; shift ;;
    --header) header=$2; shift 2 ;;
    --map-dir) mapdir=$2; shift 2 ;;
    *) break ;;
  esac
done
[[ $# -ge 4 ]] || { echo "usage: $0 [--plugin] [--header HDR] [--map-dir DIR] CC NM SRC OUT [FLAGS...]" >&2; exit 2; }
cc=$1 nm=$2 src=$3 out=$4
shift 4
# contpte_align_down, mm_is_user: static in the file since v6.9, from
# asm/pgtable.h before. __clear_ptes, __ptep_set_wrprotects,
# __mkold_clean_ptes: the asm/pgtable.h helpers of the pre-merge postings
# (kernel_tree/shim/dup.h).
OPTIONAL=(contpte_align_down mm_is_user __clear_ptes __ptep_set_wrprotects __mkold_clean_ptes)
# the helpers shared with the stage-2 probe (run from the workspace's top,
# as the paths below are)
source kernel_tree/common/probe_common.sh
what=kernel-tree
[[ $plugin -eq 1 ]] && what=plug-in

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
[[ -n "$mapdir" ]] || mapdir=$tmp/map
mkdir -p "$mapdir" || exit 1
shim_include=kernel_tree/shim/include

# Unresolved merge-conflict markers in the file or the header: the tree is
# not one version of the code but two, so nothing is built; every conflict
# is named by the line its marker starts on (probe_common.sh).
refuse_conflicts "$what" "$src" ${header:+"$header"}

# Every error, not the first 20, under the kernel's warning policy
# (probe_common.sh): what only warns is shown (the report prints the
# warnings, below), not fatal.
all_errors=$(all_errors_flag "$cc")
read -r -a policy <<< "$(warning_policy "$cc")"

known=$(sed -nE 's/^KT_FN\(([A-Za-z_0-9]+),.*/\1/p' kernel_tree/functions.def | paste -sd ' ' -)
[[ $plugin -eq 1 ]] && known=""

hdr=$tmp/hdr
if [[ -n "$header" ]]; then
  "${KT_PYTHON:-/usr/bin/python3}" kernel_tree/extract_header.py "$header" "$src" "$hdr" 2> "$tmp/extract.log" || {
    echo "$what: could not read $header with libclang (kernel_tree/extract_header.py):" >&2
    cat "$tmp/extract.log" >&2
    exit 1
  }
else
  for part in renames decls defs undefs names; do : > "$hdr.$part"; done
fi

# Kernel headers under another prefix (above): for a missing <X/REST>
# where the shim has linux/REST or asm/REST and X is neither of those
# folders, every header of those two folders under X/ in the map
# directory. Prints the prefixes it added.
map_prefixes() {  # LOG
  local h x rest f
  while read -r h; do
    x=$h
    while [[ "$x" == */* ]]; do
      rest=${h#"${x%/*}"/} x=${x%/*}
      [[ "$x" == linux || "$x" == asm || -e "$mapdir/$x" ]] && continue
      if [[ -f "$shim_include/linux/$rest" || -f "$shim_include/asm/$rest" ]]; then
        mkdir -p "$mapdir/$x"
        for f in "$shim_include"/linux/*.h "$shim_include"/asm/*.h; do
          printf '%s\n' "/* <$x/${f##*/}>: a kernel header under another prefix, read as the" \
            " * shim's (kernel_tree/probe.sh); generated, do not edit. */" \
            '#include "kernel_tree/shim/kt_shim.h"' > "$mapdir/$x/${f##*/}"
        done
        echo "$x"
        break
      fi
    done
  done < <(missing "$1" | sed -n 's/^header <\(.*\)>$/\1/p')
}

# Capability probes the harness does not model (above), in the order met:
# each an undeclared probe call in LOG not in caps yet. Prints them.
new_probes() {  # LOG
  missing "$1" | sed -nE 's/^function (system_(supports|uses|has)_[A-Za-z0-9_]+|kt_cpucap_[A-Za-z0-9_]+)$/\1/p' |
    while read -r p; do [[ " ${caps[*]} " == *" $p "* ]] || echo "$p"; done
}
caps=()

# The unit from the shim to the file, for the file's functions $1...:
# renamed kt_file_<name>, and as seen from the header's part counted too.
unit_head() {
  local i
  echo '#include "kernel_tree/shim/kt_shim.h"'
  for i in "${!caps[@]}"; do
    echo "#define ${caps[$i]}() kt_cap_ask($i, \"${caps[$i]#kt_cpucap_}\")"
  done
  for name in "$@"; do echo "#define $name kt_file_$name"; echo "#define KT_RENAMED_$name 1"; done
  cat "$hdr.renames" "$hdr.decls"
  for name in "$@"; do
    [[ " $known " == *" $name "* ]] || continue
    echo "#undef $name"; echo "#define $name (kt_count(KT_FN_$name), kt_file_$name)"
  done
  # a header's unused static inlines are not warned about in the kernel's build
  echo '#pragma GCC diagnostic push'
  echo '#pragma GCC diagnostic ignored "-Wunused-function"'
  cat "$hdr.defs"
  echo '#pragma GCC diagnostic pop'
  for name in "$@"; do echo "#undef $name"; echo "#define $name kt_file_$name"; done
  echo "#include \"$src\""
}

provide=() keep=()
for attempt in 0 1 2 3 4 5 6 7; do
  renamed=()
  for name in $known; do
    [[ " ${keep[*]} " == *" $name "* ]] || renamed+=("$name")
  done
  unit_head "${renamed[@]}" > "$tmp/probe.c"
  if "$cc" "$@" -I "$mapdir" "${policy[@]}" "$all_errors" "${provide[@]/#/-DKT_SHIM_PROVIDE_}" -MD -MF "$tmp/deps" \
       -c "$tmp/probe.c" -o "$tmp/probe.o" > "$tmp/log" 2>&1; then
    ok=1
    break
  fi
  ok=0
  added=0
  for name in "${OPTIONAL[@]}"; do
    if missing "$tmp/log" | grep -qxE "(function|identifier) $name" &&
       [[ " ${provide[*]} " != *" $name "* ]]; then
      provide+=("$name")
      added=1
    fi
  done
  for name in $(missing "$tmp/log" | sed -nE 's/^(function|identifier) kt_file_//p'); do
    if [[ " ${keep[*]} " != *" $name "* ]]; then
      keep+=("$name")
      added=1
    fi
  done
  [[ -n "$(map_prefixes "$tmp/log")" ]] && added=1
  for name in $(new_probes "$tmp/log"); do
    caps+=("$name")
    added=1
  done
  [[ $added -eq 1 ]] || break
done

# Names that stand for a page size other than the build's base granule.
# The shim defines the base granule's PAGE_SIZE, PAGE_SHIFT, PAGE_MASK,
# CONT_PTES, CONT_PTE_SIZE (core/kcompat.h); a name the file needs and the
# shim lacks that is one of those with a qualifier (MMUPAGE_SIZE,
# MM_PAGE_SIZE(mm), PAGE_SIZE_COMPAT, mm_page_shift(mm), cont_ptes_mm(mm),
# arm64_ptep_page_shift(ptep)) or names a second granule is another page
# size: a change of the model itself (one page size, the base granule, for
# every mm), which no shim definition can stand in for. Those with an "mm"
# among their words are the mm's own (a page size per mm or per process).
page_size_names() {  # LOG
  missing "$1" | sed -nE 's/^(function|identifier|type) (kt_file_|kt_hdr_)?//p' |
    grep -iE '(page|pmd|pud|cont_pte)_?(size|shift|mask)|cont_?ptes|granule' | awk '!seen[$0]++'
}
model_change() {  # LOG: the refusal, or nothing
  local names per_mm other
  names=$(page_size_names "$1")
  [[ -n "$names" ]] || return 0
  per_mm=$(grep -iE '(^|_)mm(_|$)' <<<"$names" | paste -sd ',' - | sed 's/,/, /g')
  other=$(grep -viE '(^|_)mm(_|$)' <<<"$names" | paste -sd ',' - | sed 's/,/, /g')
  local what_changes=()
  [[ -n "$per_mm" ]] && what_changes+=("a page size per mm (per process): $per_mm")
  [[ -n "$other" ]] && what_changes+=("a page size other than the base granule: $other")
  local joined
  joined=$(printf '%s; ' "${what_changes[@]}")
  echo "refused: the tree changes the model: ${joined%; } (the harness runs one page size, the build's granule, for every mm; no shim can stand in for these)"
}

if [[ $ok -ne 1 ]]; then
  change=$(model_change "$tmp/log")
  [[ -n "$change" ]] && echo "$what: $change" >&2
  report_not_built "$what" "$src" "the shim (kernel_tree/shim/)" "$tmp/probe.c" "$tmp/log" kt_file_ kt_hdr_
  exit 1
fi

# What the report names beside the functions (kernel_tree/report.h): the
# headers read through the map directory (the compiler's own list of the
# files it read), and the probes the harness does not model, registered
# with core/cpu.h before main so that --cap can name them.
unit_tail() {
  local mapped
  mapped=$(tr ' \\' '\n\n' < "$tmp/deps" | sed -n "s|^$mapdir/\(.*\)|<\1>|p" | awk '!seen[$0]++' | paste -sd ' ' -)
  echo "const char kt_mapped_headers[] = \"$mapped\";"
  echo "static void __attribute__((constructor)) kt_caps_register(void)"
  echo "{"
  echo "	cpu_caps_asked(\"$(printf '%s\n' "${caps[@]}" | sed 's/^kt_cpucap_//' | paste -sd ' ' -)\");"
  echo "}"
}

if [[ $plugin -eq 1 ]]; then
  # A plug-in replaces the project's functions by name: nothing to rename,
  # no glue; the report's record of what the probe settled is all it adds.
  {
    echo "/* Generated by kernel_tree/probe.sh --plugin from $src: the plug-in"
    echo " * file as built on the kernel-tree shim. Do not edit. */"
    for name in "${provide[@]}"; do echo "#define KT_SHIM_PROVIDE_$name 1"; done
    unit_head
    echo "const struct kt_tree_info kt_tree_info = {"
    echo "	.source = \"$src\", .defined = \"\", .shim_provided = \"${provide[*]}\", .header = \"\", .header_taken = \"\", .header_adapted = \"\","
    echo "};"
    unit_tail
  } > "$out"
  exit 0
fi

# The kernel's warning policy: what it only warns about builds, and is
# shown (the report prints these at start-up; tools/hammer keeps a
# successful build's output to itself).
warnings=$(unit_warnings "$tmp/log" kt_file_ kt_hdr_)
defined=$("$nm" -g --defined-only "$tmp/probe.o" |
  awk '$2 ~ /^[TW]$/ && $3 ~ /^[A-Za-z_][A-Za-z_0-9]*$/ { sub(/^kt_file_/, "", $3); print $3 }' |
  sort -u)
{
  echo "/* Generated by kernel_tree/probe.sh from $src: the file as built on"
  echo " * the shim, its functions renamed for kernel_tree/glue.h. Do not edit. */"
  echo "#define KT_SOURCE \"$src\""
  echo "#define KT_DEFINED \"$(echo $defined)\""
  echo "#define KT_SHIM_PROVIDED \"${provide[*]}\""
  echo "#define KT_HEADER \"$header\""
  echo "#define KT_HDR_TAKEN \"$(sed -n 's/^function //p' "$hdr.names" | paste -sd ' ' -)\""
  echo "#define KT_HDR_UNTAKEN \"$(sed -n 's/^untaken [a-z]* //p' "$hdr.names" | paste -sd ' ' -)\""
  echo "#define KT_HDR_OWNED \"$(sed -n 's/^owned [a-z]* //p' "$hdr.names" | paste -sd ' ' -)\""
  echo "#define KT_HDR_CALLS \"$(sed -n 's/^calls //p' "$hdr.names" | paste -sd ' ' -)\""
  echo "#define KT_WARNINGS \"$warnings\""
  for name in "${provide[@]}"; do echo "#define KT_SHIM_PROVIDE_$name 1"; done
  for name in $defined; do echo "#define KT_HAS_$name 1"; done
  unit_head $defined
  for name in $defined; do echo "#undef $name"; done
  cat "$hdr.undefs"
  echo '#include "kernel_tree/glue.h"'
  unit_tail
} > "$out"
