# tools/engine-common.sh - sourced by tools/repro, tools/script and
# tools/explore: build the engine's command line (//engine:engine, or one
# over a plug-in file or kernel tree) and resolve the user's paths before
# changing to the workspace.
ws=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$ws/tools/subject-common.sh"
die() { echo "$tool: $*" >&2; exit 2; }
abspath() { case "$1" in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }

# build_engine [GRANULE_KB]: sets $engine to the engine's command line: the
# built-in one, or (after subject_check, tools/subject-common.sh) one over
# the user's plug-in file or kernel tree.
build_engine() {
  if [[ -n "${subject_what:-}" ]]; then
    subject_build engine "$1"
    engine=$subject_bin
    return
  fi
  local out
  if ! out=$(cd "$ws" && bazel build --color=no --noshow_progress //engine:engine 2>&1); then
    echo "$out" | grep -vE '^(INFO|Loading|Analyzing|Target|FAILED: Build did NOT)' >&2
    die "the engine does not build (output above)"
  fi
  # resolved now: bazel-bin follows the last build's configuration
  engine="$(readlink -f "$ws/bazel-bin")/engine/engine"
}

granule_kb() {
  case "$1" in
    4k|4K|4) echo 4 ;; 16k|16K|16) echo 16 ;; 64k|64K|64) echo 64 ;;
    *) die "unknown granule '$1' (valid: 4k, 16k, 64k)" ;;
  esac
}
