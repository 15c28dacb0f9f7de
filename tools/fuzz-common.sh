# tools/fuzz-common.sh - sourced by the fuzzing tools (campaign, minimize,
# triage, ttfd, fuzz-bench, test-campaign). Not a command.
#
# Binaries: built with `bazel build --config=afl` (afl-clang-fast; the
# engine and fuzztool built the same way run fine outside afl-fuzz), or
# taken from $FUZZ_BIN_DIR (harness, fuzztool, script_asm, empty_target,
# decoder_fuzz, engine side by side: how the Bazel tests run the tools).
# What afl-fuzz runs is the one-variant harness of the target
# (//fuzz:harness_VARIANT_GRANULE, target_harness below); the all-variants
# //fuzz:harness checks target names.

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

die2() { echo "$PROG: $*" >&2; exit 2; }

# parse_target VARIANT[:GRANULE] -> T_VARIANT, T_GRANULE (syntax only; the
# harness's --check validates the names against what is built)
parse_target() {
  local t=$1
  [[ $t =~ ^[a-z0-9_]+(:[0-9]+[kK])?$ ]] || die2 "--target=VARIANT[:GRANULE] (e.g. baseline:16k), got '$t'"
  T_VARIANT=${t%%:*}
  if [[ $t == *:* ]]; then T_GRANULE=${t#*:}; T_GRANULE=${T_GRANULE,,}; else T_GRANULE=4k; fi
  case $T_GRANULE in 4k|16k|64k) ;; *) die2 "unknown granule '$T_GRANULE' (4k, 16k, 64k)";; esac
}

# fuzz_bins: set HARNESS (all variants) FUZZTOOL ASM EMPTY DECODER ENGINE
fuzz_bins() {
  if [ -n "${FUZZ_BIN_DIR:-}" ]; then
    local d=$FUZZ_BIN_DIR
    HARNESS=$d/harness FUZZTOOL=$d/fuzztool ASM=$d/script_asm EMPTY=$d/empty_target
    DECODER=$d/decoder_fuzz ENGINE=$d/engine
    return
  fi
  command -v afl-clang-fast >/dev/null || die2 "afl-clang-fast not found (tools/setup installs AFL++)"
  local log; log=$(mktemp)
  if ! (cd "$REPO" && bazel build --config=afl //fuzz:harness //fuzz:fuzztool //fuzz:script_asm \
          //fuzz:empty_target //fuzz:decoder_fuzz //engine:engine) >"$log" 2>&1; then
    tail -30 "$log" >&2; rm -f "$log"
    die2 "bazel build --config=afl failed"
  fi
  rm -f "$log"
  local bin; bin=$(cd "$REPO" && bazel info --config=afl bazel-bin 2>/dev/null)
  [ -x "$bin/fuzz/harness" ] || die2 "built harness not found under $bin"
  HARNESS=$bin/fuzz/harness FUZZTOOL=$bin/fuzz/fuzztool ASM=$bin/fuzz/script_asm
  EMPTY=$bin/fuzz/empty_target DECODER=$bin/fuzz/decoder_fuzz ENGINE=$bin/engine/engine
  AFL_BIN=$bin
}

# target_harness [VARIANT GRANULE]...: after check_target, build the
# one-variant harnesses (default: the target's) and set HARNESS to the
# (first) one; TARGET_HARNESS_DIR holds them all as harness_VARIANT_GRANULE
target_harness() {
  local labels=() v g
  [ $# -gt 0 ] || set -- "$T_VARIANT" "$T_GRANULE"
  if [ -n "${FUZZ_BIN_DIR:-}" ]; then
    TARGET_HARNESS_DIR=$FUZZ_BIN_DIR
    [ -x "$FUZZ_BIN_DIR/harness_$1_$2" ] && HARNESS=$FUZZ_BIN_DIR/harness_$1_$2
    return 0
  fi
  while [ $# -ge 2 ]; do labels+=("//fuzz:harness_$1_$2"); shift 2; done
  local log; log=$(mktemp)
  if ! (cd "$REPO" && bazel build --config=afl "${labels[@]}") >"$log" 2>&1; then
    tail -30 "$log" >&2; rm -f "$log"
    die2 "bazel build --config=afl ${labels[*]} failed"
  fi
  rm -f "$log"
  TARGET_HARNESS_DIR=$AFL_BIN/fuzz
  HARNESS=$AFL_BIN/fuzz/${labels[0]#//fuzz:}
}

# check_target: exit 2 with the harness's own message if the target is not built
check_target() {
  local msg
  msg=$(FUZZ_VARIANT=$T_VARIANT FUZZ_GRANULE=$T_GRANULE "$HARNESS" --check 2>&1) || die2 "${msg#harness: }"
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

# seeds_for GRANULE OUTDIR: the text seeds (corpora/seeds, fuzz/seeds) whose
# instructions fit GRANULE (their own granule, or 4k ones: entries 0-15 exist
# in every granule) as binary scripts in OUTDIR; prints how many
seeds_for() {
  local g=$1 out=$2 n=0 f sg
  mkdir -p "$out"
  for f in "$REPO"/corpora/seeds/*.txt "$REPO"/fuzz/seeds/*.txt; do
    [ -f "$f" ] || continue
    sg=$(sed -n 's/^granule[ \t]*\([0-9]*[kK]\).*/\1/p' "$f" | head -1); sg=${sg,,}
    [ "$sg" = "$g" ] || [ "$sg" = 4k ] || continue
    if "$ASM" "$f" "$out/$(basename "${f%.txt}").bin" 2>/dev/null; then n=$((n + 1)); fi
  done
  echo "$n"
}
