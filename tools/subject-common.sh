# tools/subject-common.sh - sourced by tools/hammer, tools/explore and
# tools/repro: build the harness around what the user wants tested, a
# kernel-dialect plug-in file (--reader-file) or a kernel tree's
# arch/arm64/mm/contpte.c (--kernel-tree, optionally --patch), in a scratch
# Bazel package (removed on exit), for stress mode (//stress:hammer's
# driver) or the deterministic engine (the engine's command line or another
# main on it). The caller sets $tool (for messages) and $ws.
#
#   subject_check FILE TREE PATCH     validate; sets subject_what
#   subject_build MODE GRANULE_KB     MODE: hammer | engine | afl-harness;
#                                     sets subject_bin, subject_variant, subject_label
#
# Exit 2 (via die) with the compiler's message mapped back to the user's
# path and the undefined names listed if the subject does not build.

subject_file="" subject_tree="" subject_patch="" subject_pkgdirs=()

subject_check() {
  subject_file=$1 subject_tree=$2 subject_patch=$3
  [[ -n "$subject_file" && -n "$subject_tree" ]] &&
    die "--reader-file and --kernel-tree both name what to test; give one"
  [[ -z "$subject_patch" || -n "$subject_tree" ]] || die "--patch applies to --kernel-tree only"
  if [[ -n "$subject_file" ]]; then
    [[ -f "$subject_file" && -r "$subject_file" ]] || die "cannot read reader file '$subject_file'"
    if grep -qE '^[[:space:]]*#[[:space:]]*include' "$subject_file"; then
      die "$subject_file has #include lines; kernel-dialect plug-in files get everything from core/kcompat.h"
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
}

subject_build() {
  local mode=$1 kb=$2 copy bazel_flags=() engine_mode=0 out shown undefined
  [[ $mode != hammer ]] && engine_mode=1
  [[ $mode = afl-harness ]] && bazel_flags=(--config=afl)
  mkdir -p "$ws/tools/plugin/work"
  subject_pkgdir=$(mktemp -d "$ws/tools/plugin/work/p.XXXXXX") || die "cannot create a scratch package"
  subject_pkgdirs+=("$subject_pkgdir")
  trap 'rm -rf "${subject_pkgdirs[@]}"' EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  local pkg="tools/plugin/work/$(basename "$subject_pkgdir")"
  echo 'load("//tools/plugin:defs.bzl", "plugin_hammer")' > "$subject_pkgdir/BUILD"
  echo 'load("//kernel_tree:defs.bzl", "kernel_tree_hammer", "kernel_tree_library")' >> "$subject_pkgdir/BUILD"
  echo 'load("//engine:plugin.bzl", "kernel_tree_engine", "plugin_engine")' >> "$subject_pkgdir/BUILD"
  local harness_args=""
  [[ $mode = afl-harness ]] && harness_args=', main = "//fuzz:harness.c", deps = ["//fuzz:entry", "//engine:run"]'
  if [[ -n "$subject_file" ]]; then
    copy=plugin.c
    cp "$subject_file" "$subject_pkgdir/$copy"
    subject_variant=plugin subject_label=$subject_file
    if [[ $engine_mode = 1 ]]; then
      echo "plugin_engine(name = \"bin\", src = \"$copy\", granule_kb = $kb$harness_args)" >> "$subject_pkgdir/BUILD"
    else
      echo "plugin_hammer(name = \"bin\", src = \"$copy\", granule_kb = $kb)" >> "$subject_pkgdir/BUILD"
    fi
  else
    copy=tree/arch/arm64/mm/contpte.c
    mkdir -p "$subject_pkgdir/$(dirname "$copy")"
    if [[ -n "$subject_patch" ]]; then
      if ! msg=$("$ws/kernel_tree/apply_patch.sh" "$subject_what" "$subject_patch" "$subject_pkgdir/$copy" 2>&1); then
        echo "$msg" >&2
        die "patch '$subject_patch' does not apply to $subject_what (the tree is untouched)"
      fi
      [[ -n "$msg" ]] && echo "$msg" >&2
      subject_label="$subject_what with $subject_patch applied"
    else
      cp "$subject_what" "$subject_pkgdir/$copy"
      subject_label=$subject_what
    fi
    subject_variant=kernel_tree
    if [[ $engine_mode = 1 ]]; then
      echo "kernel_tree_engine(name = \"bin\", src = \"$copy\", granule_kb = $kb$harness_args)" >> "$subject_pkgdir/BUILD"
    else
      cat >> "$subject_pkgdir/BUILD" <<BUILD
kernel_tree_library(name = "subject", src = "$copy", granule_kb = $kb)
kernel_tree_hammer(name = "bin", library = ":subject")
BUILD
    fi
  fi
  echo "$tool: building $subject_label for granule ${kb}k ..." >&2
  if ! out=$(cd "$ws" && bazel build "${bazel_flags[@]}" --color=no --noshow_progress "//$pkg:bin" 2>&1); then
    # The compiler's own message, with the scratch path mapped back to the file.
    shown=$(echo "$out" |
      grep -vE '^(INFO|Loading|Analyzing|Target|FAILED: Build did NOT|Use --(sandbox_debug|verbose_failures))' |
      grep -v '^$' |
      grep -vE '^ERROR: .*(error executing command|failed to build)' |
      sed -e "s|\./$pkg/$copy|$subject_what|g" -e "s|$pkg/$copy|$subject_what|g")
    echo "$shown" >&2
    undefined=$(sed -nE "s/.*undefined reference to [\`']([A-Za-z_0-9]+)'.*/\1/p" <<<"$shown" |
      sed 's/^kt_file_//' | awk '!seen[$0]++' | paste -sd ' ' -)
    [[ -z "$undefined" ]] || echo "$tool: called but defined nowhere (file or shim): $undefined" >&2
    if [[ -n "$subject_tree" ]]; then
      die "$subject_label does not build on the kernel-tree shim (compiler output above)"
    fi
    die "$subject_file does not build against core/kcompat.h (compiler output above)"
  fi
  # resolved now: bazel-bin follows the last build's configuration
  local bin_dir
  bin_dir=$(readlink -f "$ws/bazel-bin")
  [[ $mode = afl-harness ]] && bin_dir=$(cd "$ws" && bazel info --config=afl bazel-bin 2>/dev/null)
  subject_bin="$bin_dir/$pkg/bin"
}
