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
  local mode=$1 kb=$2 copy bazel_flags=() out shown undefined
  [[ $mode = afl-harness ]] && bazel_flags=(--config=afl)
  mkdir -p "$ws/scratch"
  subject_pkgdir=$(mktemp -d "$ws/scratch/p.XXXXXX") || die "cannot create a scratch package"
  subject_pkgdirs+=("$subject_pkgdir")
  trap 'rm -rf "${subject_pkgdirs[@]}"' EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  local pkg="scratch/$(basename "$subject_pkgdir")" kind driver
  if [[ -n "$subject_file" ]]; then
    kind=plugin copy=plugin.c
    cp "$subject_file" "$subject_pkgdir/$copy"
    subject_label=$subject_file
  else
    kind=kernel_tree copy=tree/arch/arm64/mm/contpte.c
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
  fi
  subject_variant=$kind
  driver=${mode/-/_}
  cat > "$subject_pkgdir/BUILD" <<BUILD
load("//build:drivers.bzl", "subject_binary")

subject_binary(name = "bin", subject = "$kind", src = "$copy", granule_kb = $kb, driver = "$driver")
BUILD
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
