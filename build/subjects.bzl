"""Subject libraries: what a driver binary (build/drivers.bzl) runs as its
variants. Three kinds of subject, each built for one backend:

  built-in variants  core/variant_tu.c compiled once per (tree or planted
                     mutant, granule) with renamed entry points; each
                     registers itself at start-up (all_variants, in core/)
  plug-in file       a user's kernel-dialect file (plugin_library)
  kernel tree        a tree's arch/arm64/mm/contpte.c (kernel_tree_library)

Plug-in files and kernel trees are both built on the kernel-tree shim of
kernel_tree/ through its probe (kernel_file_library), so a plug-in file
sees what a tree's contpte.c sees.

A plug-in file and a kernel tree are linked over the project's own
kernel-dialect sources built with weak entry points (weak_defaults_library):
every function the file defines replaces the project's, and the project
fills in the rest.

Backends (BACKENDS): "native" is the build's own access layer (C11 or
AArch64 assembly) with real liburcu: stress mode. "sched" is the
deterministic engine's scheduler (engine/). "plain" is a deliberately racy
one (plain loads and stores) for the ThreadSanitizer test. "bare" is
"native" without the harness's instruments, for the bench.
"""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain")
load(":catalogue.bzl", "GRANULES", "MUTANTS", "TREES")

# What every translation unit on the engine's backend is compiled with
# (struct eng_thread embeds the access layer's per-thread state, which
# depends on the backend).
SCHED_COPTS = [
    "-DACCESS_BACKEND_CUSTOM=\\\"engine/access_sched.h\\\"",
    "-DRCU_BACKEND_CUSTOM=\\\"engine/rcu_sched.h\\\"",
]

# copts: what a subject's code is compiled with; deps: what it links with;
# suffix: the built-in variant libraries' name suffix (core/BUILD).
BACKENDS = {
    "native": struct(copts = [], deps = ["//core:runtime"], suffix = ""),
    "sched": struct(copts = SCHED_COPTS, deps = ["//engine:backend", "//engine:runtime_sched"], suffix = "_sched"),
    "plain": struct(copts = ["-DACCESS_BACKEND_CUSTOM=\\\"core/access_plain.h\\\""], deps = ["//core:runtime"], suffix = ""),
    # the build's own access layer without the harness's instruments
    # (ACCESS_BARE: no load counter, no scan counter, no call counts):
    # what the kernel would run, for the seed 002 bench (stress/bench/)
    "bare": struct(copts = ["-DACCESS_BARE"], deps = ["//core:runtime"], suffix = "_bare"),
}

# A subject's own unit calls the access layer out of line and has its loads
# and stores traced, so a plain access to an entry is seen
# (core/plain_access.h). clang's tracing; the cross gcc of the aarch64
# builds has none (there the subject's plain accesses go unseen).
SEE_PLAIN_ACCESSES = select({
    "//build:aarch64_build": [],
    "//conditions:default": ["-DACC_OUTLINE", "-fsanitize-coverage=func,trace-loads,trace-stores"],
})

WARNINGS_AS_ERRORS = [
    # a wrong-arity or undeclared call must not compile silently
    "-Werror=implicit-function-declaration",
    "-Werror=int-conversion",
    "-Werror=incompatible-pointer-types",
    "-Werror=return-type",
]

# A kernel file's own unit keeps the kernel's policy beyond those: a call
# that only drops a const qualifier is a warning in the kernel's build, not
# an error (clang counts it among -Wincompatible-pointer-types; gcc, which
# the aarch64 builds use, does not).
KERNEL_WARNING_POLICY = select({
    "//build:aarch64_build": [],
    "//conditions:default": ["-Wno-error=incompatible-pointer-types-discards-qualifiers"],
})

# --config=subjcov: the subject's unit (only it: the project's code stays
# as it is) with clang's source-based coverage; the profile runtime comes
# with the link of whatever binary uses the unit (tools/check merges the
# profiles: llvm-profdata, llvm-cov). Its counters are updated atomically:
# stress runs the subject on many threads at once, and racy increments
# lose counts (a branch's "not taken" count, the difference of two of
# them, then wraps to nearly 2^64).
SUBJECT_COVERAGE_COPTS = select({
    "//build:subject_coverage_build": ["-fprofile-instr-generate", "-fcoverage-mapping", "-fprofile-update=atomic"],
    "//conditions:default": [],
})
SUBJECT_COVERAGE_LINKOPTS = select({
    "//build:subject_coverage_build": ["-fprofile-instr-generate"],
    "//conditions:default": [],
})

# ---- built-in variants -------------------------------------------------------

def kernel_variant(name, variant_name, granule_kb, early_exit = False, plant = None, bare = False, backend = "native"):
    """One built-in variant: core/variant_tu.c with its configuration
    (granule, tree, planted mutant; bare: without the access layer's
    instruments) and renamed entry points, registered as variant_name."""
    copts = [
        "-DKC_GRANULE_KB=%d" % granule_kb,
        "-DKC_VARIANT_ID=%s" % name,
        "-DKC_VARIANT_NAME=\\\"%s\\\"" % variant_name,
        "-DCONTPTE_EARLY_EXIT=%d" % (1 if early_exit else 0),
    ]
    if plant:
        copts.append("-DKC_PLANT=%s" % plant)
    if bare:
        copts.append("-DACCESS_BARE")
    native.cc_library(
        name = name,
        srcs = ["//core:variant_tu.c"],
        copts = copts + BACKENDS[backend].copts,
        deps = ["//core:kernel_dialect"] + BACKENDS[backend].deps,
        alwayslink = True,
    )

def variant_library(variant, granule_kb, backend = "native"):
    """The label of one built-in variant's library (all_variants names them
    so; a planted mutant's starts with m_)."""
    mutant = variant in [m.name for m in MUTANTS]
    return "//core:%s%s_%dk%s" % ("m_" if mutant else "", variant, granule_kb, BACKENDS[backend].suffix)

def all_variants(name, backend = "native"):
    """Every built-in variant (each tree and each planted mutant at every
    granule) on backend, and name: a library linking them all."""
    libs = []
    for g in GRANULES:
        for tree in TREES:
            lib = "%s_%dk%s" % (tree, g.kb, BACKENDS[backend].suffix)
            kernel_variant(lib, tree, g.kb, tree == "early_exit", backend = backend)
            libs.append(":" + lib)
        for m in MUTANTS:
            lib = "m_%s_%dk%s" % (m.name, g.kb, BACKENDS[backend].suffix)
            kernel_variant(lib, m.name, g.kb, m.base == "early_exit", m.name, backend = backend)
            libs.append(":" + lib)
    native.cc_library(name = name, deps = libs)

def bare_variants(name):
    """The trees without the access layer's instruments, named bare_baseline /
    bare_early_exit: the bench's reference loop."""
    libs = []
    for g in GRANULES:
        for tree in TREES:
            lib = "bare_%s_%dk" % (tree, g.kb)
            kernel_variant(lib, "bare_" + tree, g.kb, tree == "early_exit", bare = True)
            libs.append(":" + lib)
    native.cc_library(name = name, deps = libs)

# ---- the project's side of a plug-in's or kernel tree's link ---------------

def weak_defaults_library(name, granule_kb, variant_name, backend = "native", tags = []):
    """The project's kernel-dialect sources (core/kernel/) with weak entry
    points, registered as variant_name: whatever another object linked with
    it defines replaces the project's own, and the variant reports which
    (variant->provided / defaults)."""
    native.cc_library(
        name = name,
        srcs = ["//core:variant_tu.c"],
        copts = [
            "-DKC_WEAK_DEFAULTS",
            "-DKC_VARIANT_NAME=\\\"%s\\\"" % variant_name,
            "-DKC_GRANULE_KB=%d" % granule_kb,
        ] + BACKENDS[backend].copts,
        deps = ["//core:kernel_dialect"] + BACKENDS[backend].deps,
        alwayslink = True,
        tags = tags,
    )

def weak_defaults_libraries(variant_name):
    """project_<G>k, project_<G>k_sched and project_<G>k_bare:
    weak_defaults_library for every granule, on the native, the engine's
    and the bare (bench) backend. Tagged manual: built
    only when a subject links them, and shared by every subject (the
    scratch packages of tools/ included) so they compile once."""
    for g in GRANULES:
        for backend in ["native", "sched", "bare"]:
            weak_defaults_library(
                name = "project_%dk%s" % (g.kb, BACKENDS[backend].suffix),
                granule_kb = g.kb,
                variant_name = variant_name,
                backend = backend,
                tags = ["manual"],
            )

# ---- plug-in files and kernel trees: kernel files on the shim -----------------
# A kernel tree's arch/arm64/mm/contpte.c and a plug-in file are built alike
# (docs/kernel-tree.md): both see the kernel-tree shim (kernel_tree/shim/
# kt_shim.h: the same headers and helpers) and both go through the probe
# (kernel_tree/probe.sh), which compiles the file on the shim, settles the
# helpers older trees took from a header (defined by the shim only for a
# file that uses them without defining them), lists every name the shim
# lacks if the file does not build, and writes the translation unit compiled
# for real: for a kernel tree the file with its functions renamed, then
# kernel_tree/glue.h, whose strong definitions of the current entry points
# (counting trampolines, or adapters for older names) override the
# project's weak ones; for a plug-in file (probe.sh --plugin) the file as it
# is, its functions replacing the project's weak defaults by name. The probe
# only decides what the file needs and defines, so it builds on the default
# backend whatever the subject's.

# The shim's <linux/*.h> and <asm/*.h>, for the kernel file's unit only (not
# propagated to whatever links the library).
SHIM_COPTS = ["-I", "kernel_tree/shim/include"]

_PROBE_ATTRS = {
    "src": attr.label(allow_single_file = True, mandatory = True),
    # the tree's arch/arm64/include/asm/pgtable.h, if it has one
    "header": attr.label(allow_single_file = True),
    "granule_kb": attr.int(mandatory = True, values = [g.kb for g in GRANULES]),
    "plugin": attr.bool(default = False),
    "out": attr.output(mandatory = True),
    "_probe": attr.label(default = "//kernel_tree:probe.sh", executable = True, cfg = "exec", allow_single_file = True),
    "_extract": attr.label(default = "//kernel_tree:extract_header.py", allow_single_file = True),
    "_common": attr.label(default = "//kernel_tree/common:probe_common.sh", allow_single_file = True),
    "_dialect": attr.label(default = "//core:kernel_dialect", providers = [CcInfo]),
    "_shim": attr.label(default = "//kernel_tree:shim", providers = [CcInfo]),
    "_cc_toolchain": attr.label(default = "@bazel_tools//tools/cpp:current_cc_toolchain"),
}

def _probe_command(ctx, out, map_dir = None):
    """The probe's arguments, inputs and tools for ctx.file.src, writing out
    (and into map_dir, a directory, the kernel headers the file includes
    under another prefix: kernel_tree/probe.sh)."""
    cc = find_cpp_toolchain(ctx)
    contexts = [ctx.attr._dialect[CcInfo].compilation_context, ctx.attr._shim[CcInfo].compilation_context]
    flags = ["-DKC_GRANULE_KB=%d" % ctx.attr.granule_kb, "-Wall"] + SHIM_COPTS + WARNINGS_AS_ERRORS
    flags += ctx.fragments.cpp.copts + ctx.fragments.cpp.conlyopts
    for c in contexts:
        flags += ["-D" + d for d in c.defines.to_list()]
        for d in c.quote_includes.to_list():
            flags += ["-iquote", d]
        for d in c.includes.to_list():
            flags += ["-I", d]
        for d in c.system_includes.to_list():
            flags += ["-isystem", d]
    mode = ["--plugin"] if ctx.attr.plugin else []
    if map_dir:
        mode += ["--map-dir", map_dir.path]
    files = [ctx.file.src, ctx.file._extract, ctx.file._common]
    if ctx.file.header:
        mode += ["--header", ctx.file.header.path]
        files.append(ctx.file.header)
    args = mode + [cc.compiler_executable, cc.nm_executable or "nm", ctx.file.src.path, out.path] + flags
    inputs = depset(files, transitive = [c.headers for c in contexts])
    return args, inputs, cc.all_files

def _kernel_file_probe_impl(ctx):
    map_dir = ctx.actions.declare_directory(ctx.label.name + "_include")
    args, inputs, tools = _probe_command(ctx, ctx.outputs.out, map_dir)
    ctx.actions.run(
        executable = ctx.executable._probe,
        arguments = args,
        inputs = inputs,
        tools = tools,
        outputs = [ctx.outputs.out, map_dir],
        mnemonic = "KernelFileProbe",
        progress_message = "Building %s on the kernel-tree shim (probe)" % ctx.file.src.short_path,
    )

    # The unit's compile finds the headers the probe mapped (<peenux/mm.h>,
    # <asm/p3s/pgtable.h>: one rule for any prefix) in map_dir.
    return [
        DefaultInfo(files = depset([ctx.outputs.out])),
        CcInfo(compilation_context = cc_common.create_compilation_context(
            headers = depset([map_dir]),
            includes = depset([map_dir.path]),
        )),
    ]

kernel_file_probe = rule(
    implementation = _kernel_file_probe_impl,
    doc = "Compile a kernel tree's contpte.c or a plug-in file on the shim, nm it, write the translation unit to build.",
    attrs = _PROBE_ATTRS,
    toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],
    fragments = ["cpp"],
)

def _kernel_file_probe_log_impl(ctx):
    unit = ctx.actions.declare_file(ctx.label.name + "_unit_if_built.c")
    args, inputs, tools = _probe_command(ctx, unit)

    # Never fails: the probe's messages and exit status are the output.
    ctx.actions.run_shell(
        command = 'log=$1 unit=$2; shift 2; "$@" 2> "$log"; echo "probe exit status: $?" >> "$log"; [ -e "$unit" ] || : > "$unit"',
        arguments = [ctx.outputs.out.path, unit.path, ctx.executable._probe.path] + args,
        inputs = inputs,
        tools = depset([ctx.executable._probe], transitive = [tools]),
        outputs = [ctx.outputs.out, unit],
        mnemonic = "KernelFileProbeLog",
        progress_message = "Probing %s on the kernel-tree shim (messages kept)" % ctx.file.src.short_path,
    )
    return [DefaultInfo(files = depset([ctx.outputs.out]), runfiles = ctx.runfiles(files = [ctx.outputs.out]))]

# The probe's messages and exit status as a file, for tests of a file that
# must not build (kernel_tree/BUILD's probe_lists_all_missing_names_test).
kernel_file_probe_log = rule(
    implementation = _kernel_file_probe_log_impl,
    doc = "Run the probe on a file and keep what it says (for tests of files that must not build).",
    attrs = _PROBE_ATTRS,
    toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],
    fragments = ["cpp"],
)

def kernel_file_library(name, src, granule_kb, plugin = False, backend = "native", tags = [], header = None):
    """A cc_library (alwayslink) of src built on the shim for granule_kb and
    backend: the unit the probe writes (a kernel tree's contpte.c with its
    functions renamed and the glue, or with plugin a plug-in file as it
    is). header: the tree's asm/pgtable.h, whose wrappers and primitives
    then run in place of the project's."""
    kernel_file_probe(
        name = name + "_probe",
        src = src,
        header = header,
        granule_kb = granule_kb,
        plugin = plugin,
        out = name + "_unit.c",
        tags = tags,
    )
    native.cc_library(
        name = name,
        srcs = [name + "_unit.c"],
        textual_hdrs = [src] + ([header] if header else []),
        copts = ["-DKC_GRANULE_KB=%d" % granule_kb] + SHIM_COPTS + BACKENDS[backend].copts + WARNINGS_AS_ERRORS +
                KERNEL_WARNING_POLICY + (SEE_PLAIN_ACCESSES if backend in ["native", "sched"] else []) +
                SUBJECT_COVERAGE_COPTS,
        linkopts = SUBJECT_COVERAGE_LINKOPTS,
        deps = [name + "_probe", "//kernel_tree:shim", "//core:kernel_dialect"] + BACKENDS[backend].deps,
        alwayslink = True,
        tags = tags,
    )

def plugin_library(name, src, granule_kb, backend = "native", tags = []):
    """A user's kernel-dialect file src (no #include lines: it sees what a
    kernel tree's contpte.c sees, the kernel-tree shim) over
    //plugin:project_<G>k, as variant "plugin"."""
    kernel_file_library(name + "_file", src, granule_kb, plugin = True, backend = backend, tags = tags)
    native.cc_library(
        name = name,
        deps = [name + "_file", "//plugin:project_%dk%s" % (granule_kb, BACKENDS[backend].suffix)],
        tags = tags,
    )

def kernel_tree_library(name, src, granule_kb, backend = "native", tags = [], header = None):
    """The kernel file src (a tree's arch/arm64/mm/contpte.c) built on the
    shim for granule_kb, its functions in place of core/kernel/contpte.c's
    (and with header, the tree's asm/pgtable.h, its wrappers and primitives
    in place of core/kernel/pgtable.c's), over //kernel_tree:project_<G>k,
    as variant "kernel_tree"."""
    kernel_file_library(name + "_file", src, granule_kb, backend = backend, tags = tags, header = header)
    native.cc_library(
        name = name,
        deps = [name + "_file", "//kernel_tree:project_%dk%s" % (granule_kb, BACKENDS[backend].suffix)],
        tags = tags,
    )

def tree_files(tree):
    """(contpte.c, asm/pgtable.h or None) of a test tree: a directory under
    the calling package's testdata/, or ":NAME", a patched_contpte made
    earlier in the same package."""
    if tree.startswith(":"):
        outs = native.existing_rule(tree[1:])["outs"]
        hdr = [o for o in outs if o.endswith("include/asm/pgtable.h")]
        return ":%s/arch/arm64/mm/contpte.c" % tree[1:], (":" + hdr[0].split(":")[-1] if hdr else None)
    hdr = native.glob(["testdata/%s/arch/arm64/include/asm/pgtable.h" % tree])
    return "testdata/%s/arch/arm64/mm/contpte.c" % tree, (hdr[0] if hdr else None)

def patched_contpte(name, src, patch, header = None):
    """src (a tree's arch/arm64/mm/contpte.c) and header (its
    arch/arm64/include/asm/pgtable.h, if it has one) with patch applied by
    kernel_tree/apply_patch.sh, as <name>/arch/arm64/mm/contpte.c and
    <name>/arch/arm64/include/asm/pgtable.h. Returns what tree_files
    returns for the result."""
    outs = [name + "/arch/arm64/mm/contpte.c"]
    hdr_args = ""
    if header:
        outs.append(name + "/arch/arm64/include/asm/pgtable.h")
        hdr_args = "--header $(location %s) $(location %s) " % (header, outs[1])
    native.genrule(
        name = name,
        srcs = [src, patch] + ([header] if header else []),
        outs = outs,
        tools = ["//kernel_tree:apply_patch.sh", "//kernel_tree/common:apply_patch_files.sh", "//kernel_tree:patch_series.py"],
        cmd = "$(location //kernel_tree:apply_patch.sh) %s$(location %s) $(location %s) $(location %s)" % (hdr_args, src, patch, outs[0]),
    )
    return ":" + outs[0], (":" + outs[1] if header else None)
