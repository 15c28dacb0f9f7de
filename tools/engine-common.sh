# tools/engine-common.sh - sourced by tools/repro, tools/script and
# tools/explore: build the engine's command line (//engine:engine, or a
# plug-in build of it) and resolve the user's paths before changing to the
# workspace.
ws=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
die() { echo "$tool: $*" >&2; exit 2; }
abspath() { case "$1" in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }

# build_engine [PLUGIN_FILE GRANULE_KB]: sets $engine to the binary.
build_engine() {
  local target=//engine:engine
  if [[ $# -ge 1 && -n "$1" ]]; then
    local file=$1 kb=$2
    [[ -f "$file" && -r "$file" ]] || die "cannot read reader file '$file'"
    if grep -qE '^[[:space:]]*#[[:space:]]*include' "$file"; then
      die "$file has #include lines; kernel-dialect plug-in files get everything from core/kcompat.h"
    fi
    mkdir -p "$ws/tools/plugin/work"
    pkgdir=$(mktemp -d "$ws/tools/plugin/work/e.XXXXXX") || die "cannot create a scratch package"
    trap 'rm -rf "$pkgdir"' EXIT
    local pkg="tools/plugin/work/$(basename "$pkgdir")"
    cp "$file" "$pkgdir/plugin.c"
    cat > "$pkgdir/BUILD" <<BUILD
load("//engine:plugin.bzl", "plugin_engine")
plugin_engine(name = "engine", src = "plugin.c", granule_kb = $kb)
BUILD
    target=//$pkg:engine
    echo "$tool: building $file for granule ${kb}k on the engine ..." >&2
    plugin_src=$file plugin_pkg=$pkg
  fi
  local out
  if ! out=$(cd "$ws" && bazel build --color=no --noshow_progress "$target" 2>&1); then
    echo "$out" | grep -vE '^(INFO|Loading|Analyzing|Target|FAILED: Build did NOT)' |
      { if [[ -n "${plugin_pkg:-}" ]]; then sed "s|$plugin_pkg/plugin.c|$plugin_src|g"; else cat; fi; } >&2
    [[ -n "${plugin_src:-}" ]] && die "$plugin_src does not build against core/kcompat.h (compiler output above)"
    die "the engine does not build (output above)"
  fi
  engine="$ws/bazel-bin/${target#//}"
  engine=${engine/://}
}

granule_kb() {
  case "$1" in
    4k|4K|4) echo 4 ;; 16k|16K|16) echo 16 ;; 64k|64K|64) echo 64 ;;
    *) die "unknown granule '$1' (valid: 4k, 16k, 64k)" ;;
  esac
}
