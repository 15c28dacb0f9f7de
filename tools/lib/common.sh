# shellcheck shell=bash
# tools/lib/common.sh - the one shell library of the commands in tools/, the
# measurement scripts (stress/bench/, fuzz/bench/) and the CI self-tests
# (tools/tests/). Sourced, not run. The caller sets $tool, the name its
# messages start with, before calling anything here.
#
#   die MESSAGE                 message on stderr, exit 2
#   usage                       the calling script's header comment (its help)
#   abspath PATH                PATH made absolute (before changing directory)
#   parse_granule G             4k|16k|64k (4K, 4, ...) -> $kb, or die
#   bazel_build [--config=C] TARGET...    build quietly; on failure return 1,
#                               bazel's messages in $bazel_errors
#   bazel_bin [--config=C]      the bazel-bin directory of that configuration
#   subject_check / subject_build         a plug-in file or kernel tree built
#                               in a scratch package under scratch/
#   build_engine [GRANULE_KB]   $engine: the engine's command line
#   parse_target, fuzz_bins, target_harness, check_target, find_conf,
#   seeds_for, mutator_lib      the fuzzing tools' targets, binaries, seeds,
#                               the custom mutator and afl-fuzz's environment for it
#   afl_cpu                     $AFL_PIN: the CPU an afl-fuzz and its target run on
#   afl_log_bin, afl_log FILE   afl-fuzz's output appended to FILE, without
#                               its line per queue pick

# The workspace: this file is tools/lib/common.sh.
ws=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

die() { echo "$tool: $*" >&2; exit 2; }

# The help of every command is its header: every line of the leading
# comment block after the shebang, without the "# ".
usage() { awk 'NR == 1 && /^#!/ { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"; }

abspath() { case "$1" in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }

parse_granule() {
  case "$1" in
    4k|4K|4) kb=4 ;; 16k|16K|16) kb=16 ;; 64k|64K|64) kb=64 ;;
    *) die "unknown granule '$1' (valid: 4k, 16k, 64k)" ;;
  esac
}

# ---- Bazel -------------------------------------------------------------------

bazel_errors=""
bazel_build() {
  local out log pid rc start=$SECONDS said_wait=0 next=15
  log=$(mktemp) || die "cannot make a temporary file"
  (cd "$ws" && exec bazel build --color=no --noshow_progress "$@" $(sanitizer_config "$@")) >"$log" 2>&1 &
  pid=$!
  trap 'kill "$pid" 2>/dev/null; on_signal INT' INT
  trap 'kill "$pid" 2>/dev/null; on_signal TERM' TERM
  # Bazel is quiet with --noshow_progress: say what is being waited for.
  while kill -0 "$pid" 2>/dev/null; do
    sleep 0.2
    if [[ $said_wait = 0 ]] && grep -q "Another command" "$log"; then
      echo "$tool: waiting for another Bazel command in $ws to finish ($(grep -o 'Another command[^.]*' "$log" | head -1))" >&2
      said_wait=1
    elif [[ $((SECONDS - start)) -ge $next ]]; then
      echo "$tool: still building ($((SECONDS - start)) s) ..." >&2
      next=$((next + 30))
    fi
  done
  wait "$pid"; rc=$?
  trap 'on_signal INT' INT
  trap 'on_signal TERM' TERM
  out=$(cat "$log"); rm -f "$log"
  [[ $rc = 0 ]] && return 0
  bazel_errors=$(grep -vE '^(INFO|Loading|Analyzing|Target|FAILED: Build did NOT|Use --(sandbox_debug|verbose_failures))' <<<"$out" |
    grep -v '^$')
  return 1
}

# Asked of bazel, not read from the bazel-bin symlink, which follows
# whichever configuration built last.
bazel_bin() { (cd "$ws" && bazel info "$@" $(sanitizer_config "$@") bazel-bin 2>/dev/null); }
# sanitizer_config BAZEL-ARGS...: with HARNESS_SANITIZER=asan|ubsan|asan-ubsan|tsan, the
# flags that build the tools' binaries under that sanitizer (.bazelrc's
# configs), each configuration in an output folder of its own; nothing for
# AFL++'s build and the custom mutator, which afl-fuzz loads and which
# cannot carry a sanitizer's runtime
sanitizer_config() {
  local a base=""
  [[ -n "${HARNESS_SANITIZER:-}" ]] || return 0
  for a in "$@"; do [[ "$a" == --config=afl || "$a" == //fuzz:libscript_mutator.so ]] && return 0; done
  for a in "$@"; do [[ "$a" == --config=* ]] && base+="-${a#--config=}"; done
  echo "--config=$HARNESS_SANITIZER --platform_suffix=$base-$HARNESS_SANITIZER"
}

# ---- what is tested: a plug-in file or a kernel tree ------------------------
# tools/hammer, tools/explore and tools/repro build the harness around a
# kernel-dialect plug-in file (--reader-file) or a kernel tree's
# arch/arm64/mm/contpte.c (--kernel-tree, optionally --patch) in a scratch
# Bazel package under scratch/ (git-ignored; removed on exit) whose BUILD
# is one subject_binary call (build/drivers.bzl).
#
#   subject_check FILE TREE PATCH     validate; sets subject_what
#   subject_build DRIVER GRANULE_KB   DRIVER: hammer | engine | afl_harness;
#                                     sets subject_bin, subject_variant, subject_label
#
# Exit 2 (via die) with the compiler's message mapped back to the user's
# path and the undefined names listed if the subject does not build.

subject_file="" subject_tree="" subject_patch="" subject_what="" subject_patch_summary="" subject_patch_diff=""

# remove_at_exit PATH...: removed when the tool exits, however it exits
# (die, Ctrl-C, TERM). One EXIT trap for every such path: a second trap of
# its own would replace the first.
removed_at_exit=()
remove_at_exit() {
  removed_at_exit+=("$@")
  trap 'rm -rf "${removed_at_exit[@]}"' EXIT
  trap 'on_signal INT' INT
  trap 'on_signal TERM' TERM
}
# keep_at_exit PATH: no longer removed at exit (it became the user's)
keep_at_exit() {
  local p kept=()
  for p in "${removed_at_exit[@]}"; do [[ $p == "$1" ]] || kept+=("$p"); done
  removed_at_exit=("${kept[@]}")
}
# on_signal INT|TERM: a tool stopped by Ctrl-C or SIGTERM says so in one
# line (with $stopped_during, what it was doing, if set) and exits 130 or 143
stopped_during=""
on_signal() {
  if [[ $1 == INT ]]; then echo "$tool: interrupted (Ctrl-C)${stopped_during:+ $stopped_during}" >&2; exit 130; fi
  echo "$tool: terminated (SIGTERM)${stopped_during:+ $stopped_during}" >&2; exit 143
}

subject_check() {
  subject_file=$1 subject_tree=$2 subject_patch=$3
  [[ -n "$subject_file" && -n "$subject_tree" ]] &&
    die "--reader-file and --kernel-tree both name what to test; give one"
  [[ -z "$subject_patch" || -n "$subject_tree" ]] || die "--patch applies to --kernel-tree only"
  if [[ -n "$subject_file" ]]; then
    [[ -f "$subject_file" && -r "$subject_file" ]] || die "cannot read reader file '$subject_file'"
    if grep -qE '^[[:space:]]*#[[:space:]]*include' "$subject_file"; then
      die "$subject_file has #include lines; kernel-dialect plug-in files get everything from the kernel-tree shim (kernel_tree/shim/kt_shim.h)"
    fi
    subject_what=$subject_file
  elif [[ -n "$subject_tree" ]]; then
    [[ -d "$subject_tree" ]] || die "no such directory '$subject_tree' (--kernel-tree wants the top of a Linux tree)"
    subject_what=${subject_tree%/}/arch/arm64/mm/contpte.c
    [[ -f "$subject_what" && -r "$subject_what" ]] ||
      die "no arch/arm64/mm/contpte.c in '$subject_tree' (cannot read $subject_what); --kernel-tree wants the top of a Linux tree with arm64 contpte support"
    if [[ -n "$subject_patch" ]]; then
      [[ -f "$subject_patch" && -r "$subject_patch" ]] || die "cannot read patch '$subject_patch'"
    fi
  fi
  return 0
}

# subject_record: after subject_check, sets subject_desc, the one-line
# `subject` record tools/explore stores in saved scripts so that tools/repro
# FILE alone rebuilds the same variant (paths absolute, contents hashed):
#   plugin sha256=HASH FILE
#   kernel_tree sha256=HASH TREE [patch_sha256=HASH PATCH]
subject_record() {
  local p
  subject_desc=""
  for p in "$subject_file" "$subject_tree" "$subject_patch"; do
    [[ "$p" =~ [[:space:]] ]] && {
      echo "$tool: note: '$p' contains white space; saved scripts will not record it (give tools/repro the same option)" >&2
      return 0
    }
  done
  if [[ -n "$subject_file" ]]; then
    subject_desc="plugin sha256=$(sha256 "$subject_file") $subject_file"
  elif [[ -n "$subject_tree" ]]; then
    subject_desc="kernel_tree sha256=$(sha256 "$subject_what") ${subject_tree%/}"
    [[ -n "$subject_patch" ]] && subject_desc+=" patch_sha256=$(sha256 "$subject_patch") $subject_patch"
  fi
  return 0
}

sha256() { sha256sum <"$1" | cut -d' ' -f1; }

# subject_from_script FILE: sets reader / tree / patch from the script's
# `subject` line (none: nothing set), checking that each file still exists
# and still has the recorded content (a changed file is replayed with a
# warning: the interleaving may no longer mean the same thing).
subject_from_script() {
  local line kind h1 p1 h2 p2
  line=$(sed -n 's/^subject[[:space:]]\+//p' "$1" 2>/dev/null | head -1)
  [[ -n "$line" ]] || return 0
  read -r kind h1 p1 h2 p2 <<<"$line"
  h1=${h1#sha256=} h2=${h2#patch_sha256=}
  case "$kind" in
    plugin)
      [[ -f "$p1" ]] || die "$1 was found on the plug-in file $p1, which no longer exists; give tools/repro --reader-file PATH (a copy of that file, sha256 $h1)"
      reader=$p1 ;;
    kernel_tree)
      [[ -f "$p1/arch/arm64/mm/contpte.c" ]] ||
        die "$1 was found on the kernel tree $p1, which no longer has arch/arm64/mm/contpte.c; give tools/repro --kernel-tree PATH (contpte.c with sha256 $h1)${p2:+ --patch PATH (sha256 $h2)}"
      tree=$p1
      if [[ -n "$p2" ]]; then
        [[ -f "$p2" ]] || die "$1 was found on $p1 with the patch $p2, which no longer exists; give tools/repro --kernel-tree $p1 --patch PATH (a copy of that patch, sha256 $h2)"
        patch=$p2
      fi ;;
    *) die "$1: unknown subject '$kind' (plugin or kernel_tree); give --reader-file or --kernel-tree" ;;
  esac
  local f=${reader:-$p1/arch/arm64/mm/contpte.c}
  [[ "$(sha256 "$f")" == "$h1" ]] ||
    echo "$tool: warning: $f changed since the script was saved (sha256 $h1 then); replaying on the file as it is now" >&2
  if [[ -n "$p2" && "$(sha256 "$p2")" != "$h2" ]]; then
    echo "$tool: warning: $p2 changed since the script was saved (sha256 $h2 then); replaying with the patch as it is now" >&2
  fi
  echo "$tool: replaying on $kind ${reader:-$tree}${patch:+ with $patch} (from the script's subject line)" >&2
  return 0
}

# subject_build DRIVER KB: after subject_check, builds the subject (the
# plug-in file, or the tree's contpte.c and asm/pgtable.h, patched) with
# DRIVER's main for granule KB in a scratch package; sets subject_bin.
subject_build() {
  local config=()
  [[ $1 = afl_harness ]] && config=(--config=afl)
  subject_prepare
  subject_rule bin "$1" "$2"
  subject_make "${config[@]}" -- bin
  subject_bin="$(bazel_bin "${config[@]}")/$subject_pkg/bin"
}

# scratch_package PREFIX: a new package scratch/PREFIX.XXXXXX (removed at
# exit) for a subject's copies and rules, the contpte subject's or the
# stage-2 one's (tools/lib/stage2.sh); sets scratch_pkgdir (its folder) and
# scratch_pkg (its package's name in labels).
scratch_package() {
  mkdir -p "$ws/scratch"
  scratch_pkgdir=$(mktemp -d "$ws/scratch/$1.XXXXXX") || die "cannot create a scratch package"
  remove_at_exit "$scratch_pkgdir"
  scratch_pkg=scratch/${scratch_pkgdir##*/}
}

# subject_prepare: a scratch package (subject_pkgdir, removed at exit; its
# label subject_pkg) holding the copies to build (the file, or the tree's
# contpte.c and asm/pgtable.h with the patch applied); sets subject_label,
# subject_variant, subject_copy (the copy's path in the package). Then
# subject_rule adds binaries to its BUILD and subject_make builds them.
subject_prepare() {
  local msg
  subject_header_copy=""
  scratch_package p
  subject_pkgdir=$scratch_pkgdir subject_pkg=$scratch_pkg
  if [[ -n "$subject_file" ]]; then
    subject_variant=plugin subject_copy=plugin.c
    cp "$subject_file" "$subject_pkgdir/$subject_copy"
    subject_label=$subject_file
  else
    subject_variant=kernel_tree subject_copy=tree/arch/arm64/mm/contpte.c
    mkdir -p "$subject_pkgdir/$(dirname "$subject_copy")"
    # The tree's own asm/pgtable.h, when it has one, is built too: its
    # wrappers and primitives run in place of the project's.
    local hdr=${subject_tree%/}/arch/arm64/include/asm/pgtable.h hdr_args=()
    if [[ -f "$hdr" ]]; then
      subject_header_copy=tree/arch/arm64/include/asm/pgtable.h
      mkdir -p "$subject_pkgdir/$(dirname "$subject_header_copy")"
      hdr_args=(--header "$hdr" "$subject_pkgdir/$subject_header_copy")
      export KERNEL_TREE_HEADER=$hdr
    fi
    if [[ -n "$subject_patch" ]]; then
      # what was applied, patch by patch (subject_patch_summary), and the
      # built files' whole change (subject_patch_diff: patch_lines reads it)
      subject_patch_summary=$subject_pkgdir/patch-summary.json subject_patch_diff=$subject_pkgdir/patch.diff
      local rc=0
      msg=$("$ws/kernel_tree/apply_patch.sh" "${hdr_args[@]}" --summary "$subject_patch_summary" --diff "$subject_patch_diff" \
            "$subject_what" "$subject_patch" "$subject_pkgdir/$subject_copy" 2>&1) || rc=$?
      if [[ $rc = 3 ]]; then
        die "${msg#kernel-tree: }"
      elif [[ $rc != 0 ]]; then
        echo "$msg" >&2
        die "patch '$subject_patch' does not apply to $subject_what${subject_header_copy:+ and $hdr} (the tree is untouched)"
      fi
      [[ -n "$msg" ]] && echo "$msg" >&2
      subject_label="$subject_what with $subject_patch applied"
      if [[ -n "$subject_header_copy" ]] && grep -q '^+++ [^/]*/arch/arm64/include/asm/pgtable.h' "$subject_patch"; then
        export KERNEL_TREE_HEADER="$hdr with $subject_patch applied"
      fi
    else
      cp "$subject_what" "$subject_pkgdir/$subject_copy"
      [[ -n "$subject_header_copy" ]] && cp "$hdr" "$subject_pkgdir/$subject_header_copy"
      subject_label=$subject_what
    fi
  fi
  cat >"$subject_pkgdir/BUILD" <<BUILD
load("//build:drivers.bzl", "subject_binary")
BUILD
}

# subject_rule NAME DRIVER KB: a binary NAME of the prepared subject with
# DRIVER's main (hammer, engine, afl_harness, aging, ...) for granule KB.
subject_rule() {
  local header_attr=""
  [[ -n "$subject_header_copy" ]] && header_attr=", header = \"$subject_header_copy\""
  cat >>"$subject_pkgdir/BUILD" <<BUILD

subject_binary(name = "$1", subject = "$subject_variant", src = "$subject_copy", granule_kb = $3, driver = "$2"$header_attr)
BUILD
}

# patch_lines PATCH: after subject_prepare, the lines PATCH changes in the
# copies built (a series' lines once, from the whole change of its
# patches) and the function or macro each lies in
# (kernel_tree/patch_lines.py: FILE LINE KIND FUNCTION START END)
patch_lines() { /usr/bin/python3 "$ws/kernel_tree/patch_lines.py" "${subject_patch_diff:-$1}" "$subject_pkgdir/tree"; }
# young_path <PATCH_LINES: the changed functions on the young path (their
# name has "young"), space-separated: a patch the aging figures concern
young_path() { awk -F'\t' '{ f = $4; sub(/^macro:/, "", f) } f ~ /young/ && !seen[f]++ { print f }' | paste -sd ' ' -; }

# subject_make [BAZEL FLAGS] -- NAME...: builds the prepared package's
# binaries; a build error is shown with the scratch paths mapped back to
# the user's files, and ends the tool (exit 2). SUBJECT_MAKE_SAYS, if set,
# is what it says it builds.
subject_make() {
  local flags=() names=() shown undefined pkg=$subject_pkg copy=$subject_copy
  while [[ $# -gt 0 && $1 != -- ]]; do flags+=("$1"); shift; done
  shift
  for n in "$@"; do names+=("//$pkg:$n"); done
  local gs
  gs=$(grep -o 'granule_kb = [0-9]*' "$subject_pkgdir/BUILD" | awk '{ print $3 "k" }' | awk '!s[$0]++' | paste -sd ' ' -)
  [[ "$gs" == *" "* ]] && gs="s $gs" || gs=" $gs"
  echo "$tool: building ${SUBJECT_MAKE_SAYS:-$subject_label for granule$gs} ..." >&2
  if ! bazel_build "${flags[@]}" "${names[@]}"; then
    # The compiler's own message, with the scratch path mapped back to the file.
    shown=$(grep -vE '^ERROR: .*(error executing command|failed to build)' <<<"$bazel_errors" |
      sed -e "s|\./$pkg/$copy|$subject_what|g" -e "s|$pkg/$copy|$subject_what|g" \
          -e "s|\./$pkg/tree/|${subject_tree%/}/|g" -e "s|$pkg/tree/|${subject_tree%/}/|g")
    echo "$shown" >&2
    undefined=$(sed -nE "s/.*undefined reference to [\`']([A-Za-z_0-9]+)'.*/\1/p" <<<"$shown" |
      sed -e 's/^kt_file_//' -e 's/^kt_hdr_//' | awk '!seen[$0]++' | paste -sd ' ' -)
    [[ -z "$undefined" ]] || echo "$tool: called but defined nowhere (file or shim): $undefined" >&2
    if [[ -n "$subject_tree" ]]; then
      die "$subject_label does not build on the kernel-tree shim (compiler output above)"
    fi
    die "$subject_file does not build on the kernel-tree shim (compiler output above)"
  fi
  # its binaries (a few MB) go with the scratch package
  local bindir
  bindir=$(bazel_bin "${flags[@]}") && [[ -n "$bindir" ]] && remove_at_exit "$bindir/$pkg"
  return 0
}

# ---- the deterministic engine ----------------------------------------------

# build_engine [GRANULE_KB]: sets $engine to the engine's command line: the
# built-in one, or (after subject_check) one over the user's plug-in file or
# kernel tree.
build_engine() {
  if [[ -n "$subject_what" ]]; then
    subject_build engine "$1"
    engine=$subject_bin
    return 0
  fi
  if ! bazel_build //engine:engine; then
    echo "$bazel_errors" >&2
    die "the engine does not build (output above)"
  fi
  engine="$(bazel_bin)/engine/engine"
}

# ---- fuzzing (docs/fuzzing.md) ---------------------------------------------
# Binaries: built with `bazel build --config=afl` (afl-clang-fast; the engine
# and fuzztool built the same way run fine outside afl-fuzz), or taken from
# $FUZZ_BIN_DIR (harness, fuzztool, script_asm, empty_target, decoder_fuzz,
# engine side by side: how the Bazel tests run the tools; and afl_log, the
# default build's, for campaigns: afl_log_bin). What afl-fuzz runs
# is the one-variant harness of the target (//fuzz:harness_VARIANT_GRANULE,
# target_harness below); the all-variants //fuzz:harness checks target names.

# parse_target VARIANT[:GRANULE] -> T_VARIANT, T_GRANULE (syntax only; the
# harness's --check validates the names against what is built)
parse_target() {
  local t=$1 kb
  [[ $t =~ ^[a-z0-9_]+(:[0-9]+[kK])?$ ]] || die "--target=VARIANT[:GRANULE] (e.g. baseline:16k), got '$t'"
  T_VARIANT=${t%%:*}
  if [[ $t == *:* ]]; then parse_granule "${t#*:}"; else parse_granule 4k; fi
  T_GRANULE=${kb}k
}

# fuzz_bins: set HARNESS (all variants) FUZZTOOL ASM EMPTY DECODER ENGINE
fuzz_bins() {
  if [ -n "${FUZZ_BIN_DIR:-}" ]; then
    local d=$FUZZ_BIN_DIR
    HARNESS=$d/harness FUZZTOOL=$d/fuzztool ASM=$d/script_asm EMPTY=$d/empty_target
    DECODER=$d/decoder_fuzz ENGINE=$d/engine
    return 0
  fi
  command -v afl-clang-fast >/dev/null || die "afl-clang-fast not found (tools/setup installs AFL++)"
  if ! bazel_build --config=afl //fuzz:harness //fuzz:fuzztool //fuzz:script_asm \
         //fuzz:empty_target //fuzz:decoder_fuzz //engine:engine; then
    echo "$bazel_errors" >&2
    die "bazel build --config=afl failed"
  fi
  AFL_BIN=$(bazel_bin --config=afl)
  [ -x "$AFL_BIN/fuzz/harness" ] || die "built harness not found under $AFL_BIN"
  HARNESS=$AFL_BIN/fuzz/harness FUZZTOOL=$AFL_BIN/fuzz/fuzztool ASM=$AFL_BIN/fuzz/script_asm
  EMPTY=$AFL_BIN/fuzz/empty_target DECODER=$AFL_BIN/fuzz/decoder_fuzz ENGINE=$AFL_BIN/engine/engine
}

# target_harness [VARIANT GRANULE]...: after check_target, build the
# one-variant harnesses (default: the target's) and set HARNESS to the
# (first) one; TARGET_HARNESS_DIR holds them all as harness_VARIANT_GRANULE
target_harness() {
  local labels=()
  [ $# -gt 0 ] || set -- "$T_VARIANT" "$T_GRANULE"
  if [ -n "${FUZZ_BIN_DIR:-}" ]; then
    TARGET_HARNESS_DIR=$FUZZ_BIN_DIR
    [ -x "$FUZZ_BIN_DIR/harness_$1_$2" ] && HARNESS=$FUZZ_BIN_DIR/harness_$1_$2
    return 0
  fi
  while [ $# -ge 2 ]; do labels+=("//fuzz:harness_$1_$2"); shift 2; done
  if ! bazel_build --config=afl "${labels[@]}"; then
    echo "$bazel_errors" >&2
    die "bazel build --config=afl ${labels[*]} failed"
  fi
  TARGET_HARNESS_DIR=$AFL_BIN/fuzz
  HARNESS=$AFL_BIN/fuzz/${labels[0]#//fuzz:}
}

# check_target: exit 2 with the harness's own message if the target is not built
check_target() {
  local msg
  msg=$(FUZZ_VARIANT=$T_VARIANT FUZZ_GRANULE=$T_GRANULE "$HARNESS" --check 2>&1) || die "${msg#harness: }"
}

# find_conf DIR: the campaign.conf of the campaign DIR belongs to (DIR itself,
# its sync dir, an instance or its crashes/), or nothing
find_conf() {
  local d; d=$(cd "$1" 2>/dev/null && pwd) || return 1
  for _ in 1 2 3 4; do
    [ -f "$d/campaign.conf" ] && { echo "$d/campaign.conf"; return 0; }
    d=$(dirname "$d")
  done
  return 1
}

# The harness settings that decide which runs a fuzz input stands for
# (fuzz/runs.h: FUZZ_RUNS, FUZZ_RUN_FLAGS), so that a crash file means the
# same thing whenever it is replayed. tools/campaign records them in
# campaign.conf at start (runs=, run_flags=); resume, status, triage and
# minimize take them from there.
RUN_SETTING_KEYS="runs run_flags"   # campaign.conf keys; each names FUZZ_<KEY>
# run_flags_name VALUE: FUZZ_RUN_FLAGS's generation by name: "1" (unset)
# means the newest, warm (fuzz/runs.h); a later generation gets a new name
run_flags_name() {
  case ${1:-1} in 1) echo warm ;; *) echo "$1" ;; esac
}
# run_settings_conf: the campaign.conf lines for this environment's settings
run_settings_conf() {
  echo "runs=${FUZZ_RUNS:-auto}"
  echo "run_flags=$(run_flags_name "${FUZZ_RUN_FLAGS:-}")"
}
# conf_run_settings CONF: export FUZZ_RUNS and FUZZ_RUN_FLAGS as CONF records
# them; dies if the environment sets one to another value (it would replay
# other runs than the campaign's). A campaign.conf from before they were
# recorded leaves the environment as it is. One that records run_flags=1
# (written before the runs' generations had names) ran the pair sites'
# runs (pairs), or single if it is older than the pair sites: pairs unless
# the environment says which, with a note.
conf_run_settings() {
  local conf=$1 key var v set
  for key in $RUN_SETTING_KEYS; do
    v=$(sed -n "s/^$key=//p" "$conf" | tail -1)
    [ -n "$v" ] || continue
    var=FUZZ_${key^^}
    set=${!var:-}
    if [ "$key" = run_flags ] && [ "$v" = 1 ]; then
      echo "$tool: $conf records run_flags=1, from before the runs' generations had names:" \
           "replaying with FUZZ_RUN_FLAGS=${set:-pairs} (single for a campaign older than the pair sites;" \
           "set FUZZ_RUN_FLAGS to choose)" >&2
      export "$var=${set:-pairs}"
      continue
    fi
    [ "$key" != run_flags ] || [ -z "$set" ] || set=$(run_flags_name "$set")
    if [ -n "$set" ] && [ "$set" != "$v" ]; then
      die "$var=${!var}: the campaign of $conf runs with $var=$v (its inputs and crash files are runs of that setting); unset $var"
    fi
    export "$var=$v"
  done
}

# campaign_defaults DIR: for a tool given a file or directory of a campaign
# (triage, minimize): TARGET from its campaign.conf unless set already, and
# the campaign's run settings (conf_run_settings); nothing outside one
campaign_defaults() {
  local conf
  conf=$(find_conf "$1") || return 0
  [ -n "$TARGET" ] || TARGET=$(sed -n 's/^target=//p' "$conf")
  conf_run_settings "$conf"
}

# mutator_lib: the custom mutator (//fuzz:libscript_mutator.so, built in the
# default configuration: it runs inside afl-fuzz) in $MUTATOR, and in
# MUTATOR_ENV the environment afl-fuzz runs with it: only its mutants
# (byte havoc is one of its operators), no byte trimming (a script's bytes
# are not its structure), fast calibration (runs are deterministic), and
# static TLS room for the library (the access layer's per-thread state is
# initial-exec TLS, which a library loaded with dlopen gets only from
# glibc's surplus). FUZZ_BIN_DIR: the library taken from there.
# Without the mutator (--no-mutator of the tools): no_mutator (below).
mutator_lib() {
  if [ -n "${FUZZ_BIN_DIR:-}" ]; then
    MUTATOR=$FUZZ_BIN_DIR/libscript_mutator.so
  else
    HARNESS_SANITIZER="" bazel_build //fuzz:libscript_mutator.so || { echo "$bazel_errors" >&2; die "the custom mutator does not build"; }
    MUTATOR=$(HARNESS_SANITIZER="" bazel_bin)/fuzz/libscript_mutator.so
  fi
  [ -f "$MUTATOR" ] || die "custom mutator $MUTATOR not found"
  mutator_env "$MUTATOR"
}
# mutator_env LIBRARY: MUTATOR_ENV for that library, and in MUTATOR_ARGS the
# afl-fuzz options that go with it: the queue selection (FUZZ_QUEUE:
# weighted, the default, is AFL++'s own weighted draw; sequential is
# afl-fuzz -Z). The mutator makes a fixed few mutants per pick, so which
# entry afl-fuzz picks next decides where the executions go; sequential
# was measured and traded cells (docs/fuzzing.md, "Queue selection").
MUTATOR_ARGS=()
mutator_env() {
  MUTATOR_ENV=(AFL_CUSTOM_MUTATOR_LIBRARY="$1" AFL_CUSTOM_MUTATOR_ONLY=1 AFL_DISABLE_TRIM=1
               AFL_FAST_CAL=1 GLIBC_TUNABLES=glibc.rtld.optional_static_tls=1048576)
  fuzz_queue_args
}
# no_mutator: afl-fuzz runs with AFL++'s own mutations (no environment or
# options for the custom mutator)
no_mutator() { MUTATOR_ENV=() MUTATOR_ARGS=(); }
# fuzz_queue_args: MUTATOR_ARGS for FUZZ_QUEUE; dies on any other value
fuzz_queue_args() {
  case ${FUZZ_QUEUE:-weighted} in
    weighted) MUTATOR_ARGS=() ;;
    sequential) MUTATOR_ARGS=(-Z) ;;
    *) die "FUZZ_QUEUE='$FUZZ_QUEUE': weighted (the default) or sequential" ;;
  esac
}

# afl_log FILE: reads afl-fuzz's output (stdout and stderr) and appends it
# to FILE, all but the line afl-fuzz prints for each queue entry it picks
# ("Fuzzing test case #N (...)": without a terminal AFL++ 4.04c prints one
# per pick, 650 MB an hour per campaign instance on baseline 4K), through
# fuzz/afl_log.c ($AFL_LOG_BIN, from afl_log_bin), which reads in batches
# so that afl-fuzz's writes wake no reader (docs/fuzzing.md, "Campaign
# logs"). Run it as `afl-fuzz ... 2>&1 | afl_log FILE` (the pipeline waits
# for it), or, to keep afl-fuzz's pid in $!, `afl-fuzz ... > >(afl_log
# FILE) 2>&1 &`. It outlives the terminal (SIGHUP, SIGINT ignored) as
# afl-fuzz does under setsid, holds none of the caller's output open (a
# campaign started as `tools/campaign start ... | tee` must end when start
# does), and reads to the end whatever happens (the filter or its log
# gone would fail afl-fuzz's writes).
afl_log() {
  trap '' HUP INT
  exec >/dev/null 2>&1
  "${AFL_LOG_BIN:-afl_log-was-not-built}" "$1" || true
  cat >/dev/null
}
# afl_log_bin: $AFL_LOG_BIN, the filter afl_log runs (//fuzz:afl_log, the
# default build; FUZZ_BIN_DIR: taken from there)
afl_log_bin() {
  if [ -n "${FUZZ_BIN_DIR:-}" ]; then
    AFL_LOG_BIN=$FUZZ_BIN_DIR/afl_log
  else
    bazel_build //fuzz:afl_log || { echo "$bazel_errors" >&2; die "//fuzz:afl_log does not build"; }
    AFL_LOG_BIN=$(bazel_bin)/fuzz/afl_log
  fi
  [ -x "$AFL_LOG_BIN" ] || die "the log filter $AFL_LOG_BIN is not there"
}

# cpu_list LIST: the CPUs of a taskset-style list ("0-3,6") one per line
cpu_list() {
  local part
  for part in ${1//,/ }; do
    if [[ $part =~ ^([0-9]+)-([0-9]+)$ ]]; then seq "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}"
    elif [[ $part =~ ^[0-9]+$ ]]; then echo "$part"; fi
  done
}

# afl_env_check: die on a bad AFL_CPU or FUZZ_QUEUE (the tools call it
# before they build or start anything)
afl_env_check() {
  local MUTATOR_ARGS     # only checked here; mutator_env sets the tool's
  afl_cpu_check
  fuzz_queue_args
}
# afl_stat FILE FIELD: one field of an afl-fuzz fuzzer_stats file (execs_done,
# start_time, ...), nothing if the file or the field is missing
afl_stat() {
  sed -n "s/^$2 *: *//p" "$1" 2>/dev/null
}

# afl_cpu_check: die unless AFL_CPU is unset, auto, off or one of the CPUs
# this process may run on.
AFL_CPUS_TAKEN=()
afl_cpu_check() {
  AFL_CPUS_ALLOWED=()
  mapfile -t AFL_CPUS_ALLOWED < <(cpu_list "$(taskset -pc $$ 2>/dev/null | sed 's/.*: *//')")
  case ${AFL_CPU:-auto} in
    auto|off) ;;
    *) [[ $AFL_CPU =~ ^[0-9]+$ ]] && printf '%s\n' "${AFL_CPUS_ALLOWED[@]}" | grep -qx "$AFL_CPU" \
         || die "AFL_CPU='$AFL_CPU': not one of this process's CPUs (${AFL_CPUS_ALLOWED[*]:-taskset found none}), nor auto or off" ;;
  esac
}
# afl_cpu: AFL_PIN, the command prefix that pins one afl-fuzz and its
# target to one CPU (taskset -c N), or nothing. afl-fuzz and its target
# take turns, never run at once: on one CPU each hand-over is a switch on
# that CPU; spread over two, each is the wake-up of an idle CPU, which on
# the 2-core VM this was measured on cost a third of the executions
# (docs/fuzzing.md, "Pinned to one CPU"). AFL++ pins by itself unless
# AFL_NO_AFFINITY is set, but aborts when it finds no free core; the tools
# set AFL_NO_AFFINITY and pin here instead. The CPU: AFL_CPU=N (one this
# process may run on), AFL_CPU=off (no pinning), or by default the CPU
# with the fewest afl-fuzz processes pinned to it: the running ones, and
# the CPUs in AFL_CPUS_TAKEN (a caller that starts several in a row, as
# tools/campaign does, adds each one's CPU there, since a process just
# started may not show yet). AFL_PIN_CPU: the CPU chosen.
afl_cpu() {
  local c best= best_n= n p l
  afl_cpu_check
  # off, or no taskset to pin with: unpinned
  AFL_PIN=() AFL_PIN_CPU=
  if [ "${AFL_CPU:-auto}" = off ] || [ ${#AFL_CPUS_ALLOWED[@]} -eq 0 ]; then return 0; fi
  if [ "${AFL_CPU:-auto}" != auto ]; then AFL_PIN_CPU=$AFL_CPU AFL_PIN=(taskset -c "$AFL_CPU"); return 0; fi
  declare -A load=()
  for p in $(pgrep -x afl-fuzz 2>/dev/null); do
    l=$(taskset -pc "$p" 2>/dev/null | sed 's/.*: *//')
    [[ $l =~ ^[0-9]+$ ]] && load[$l]=$(( ${load[$l]:-0} + 1 ))
  done
  for c in "${AFL_CPUS_TAKEN[@]}"; do load[$c]=$(( ${load[$c]:-0} + 1 )); done
  for c in "${AFL_CPUS_ALLOWED[@]}"; do
    n=${load[$c]:-0}
    if [ -z "$best" ] || [ "$n" -lt "$best_n" ]; then best=$c best_n=$n; fi
  done
  AFL_PIN_CPU=$best AFL_PIN=(taskset -c "$best")
}

# seed_asm SEED TEXT OUT (for seeds_for, whose asm, out, g and lines it
# reads): seeds_for's "${asm[@]}" TEXT OUT; 1 when script_asm
# refuses the move (exit 3: fewer entries per block; the seed is skipped),
# and a stop naming SEED for any other failure: a seed someone added with a
# mistake in it would otherwise be dropped from every campaign unnoticed.
seed_asm() {
  local rc=0 why extra=
  "${asm[@]}" "$2" "$3" 2>"$out/.err" || rc=$?
  [ $rc = 0 ] && return 0
  [ $rc = 3 ] && return 1
  why=$(sed -e 's/^script_asm: //' "$out/.err"); why=${why//"$2: "/}
  [ -n "$lines" ] && extra=" (with the tool's lines after its granule line: ${lines//$'\n'/; })"
  die "seed $1 does not assemble on $g$extra: $why"
}
# seeds_for GRANULE OUTDIR [LINES]: the text seeds (corpora/seeds, fuzz/seeds)
# as binary scripts on GRANULE in OUTDIR: those of GRANULE, and each seed
# of a granule with fewer entries per block moved to GRANULE with its
# meaning kept, as NAME@GRANULE (script_asm --granule: a whole-block remap
# written at 4K stays a whole-block remap at 16K). Not to fewer entries
# (script_asm refuses): there the move merges entries, and a scenario
# written for 16K's entries is not one of 4K's; nor 4K seeds as written
# (at 16K their whole-block ranges are an eighth of the block:
# docs/fuzzing.md, "Seeds on another granule"). Each file also as an arm_ copy under `memory arm` (a seed
# without a memory line is sc: from sc seeds alone a campaign reaches the
# arm model's bugs only through mutations); LINES (newline-separated script
# lines, e.g. "tlb 8": the TLB model, docs/tlb.md) go into every seed after
# its granule line, and the mutants keep them; a seed's own machine lines
# (tlb, bbml2) are dropped, so the machine is the one the tool was asked
# for; prints how many files
seeds_for() {
  local g=$1 out=$2 lines=${3:-} n=0 f sg base name asm
  mkdir -p "$out"
  for f in "$ws"/corpora/seeds/*.txt "$ws"/fuzz/seeds/*.txt; do
    [ -f "$f" ] || continue
    sg=$(sed -n 's/^granule[ \t]*\([0-9]*[kK]\).*/\1/p' "$f" | head -1); sg=${sg,,}
    base=$(basename "${f%.txt}")
    if [ "$sg" = "$g" ]; then name=$base asm=("$ASM"); else name=$base@$g asm=("$ASM" --granule="$g"); fi
    grep -vE '^(tlb|bbml2)([ \t]|$)' "$f" | add_lines "$lines" >"$out/.sc.txt"
    seed_asm "$f" "$out/.sc.txt" "$out/$name.bin" || continue
    n=$((n + 1))
    grep -q '^memory' "$f" && continue
    add_lines "memory arm" <"$out/.sc.txt" >"$out/.arm.txt"
    seed_asm "$f" "$out/.arm.txt" "$out/arm_$name.bin" || continue
    n=$((n + 1))
  done
  rm -f "$out/.sc.txt" "$out/.arm.txt" "$out/.err"
  echo "$n"
}
# The TLB model's size when a tool runs a tree's or a file's code and the
# user gave no --tlb: on, so that its break-before-make and stale-TLB checks
# run by default (--tlb=0 turns it off; docs/tlb.md gives the cost).
DEFAULT_TLB=8
# tlb_default ARRAY: adds --tlb=$DEFAULT_TLB to the flags in the named
# array unless they have a --tlb=, or ask (--threads=R,W,H) for more
# hardware agents than the model has TLBs for (16): then the run goes
# without, as it says.
tlb_default() {
  local -n flags=$1
  local a hw
  for a in "${flags[@]}"; do
    [[ "$a" == --tlb=* ]] && return 0
    if [[ "$a" == --threads=*,*,* ]]; then
      hw=${a##*,}
      if [[ "$hw" =~ ^[0-9]+$ && $hw -gt 16 ]]; then
        echo "$tool: note: $hw hardware agents, more than the TLB model's 16: the TLB model is off" >&2
        return 0
      fi
    fi
  done
  flags+=("--tlb=$DEFAULT_TLB")
}

# check_tlb N: N is a TLB size a script's `tlb` line takes (1-255), else die
check_tlb() {
  [[ $1 =~ ^[0-9]+$ ]] && [ "$1" -ge 1 ] && [ "$1" -le 255 ] \
    || die "--tlb must be TLB entries per thread, 1-255, got '$1'"
}
# add_lines LINES <SCRIPT >SCRIPT: a text script with LINES after its granule line
add_lines() {
  awk -v x="$1" '{ print } /^granule[ \t]/ && x != "" { print x }'
}
