"""Kernel-tree mode: build a kernel tree's arch/arm64/mm/contpte.c as it is
against the shim headers (kernel_tree/shim/), linked over the project's
kernel-dialect sources with weak entry points, so that the file's functions
run in place of core/kernel/contpte.c's under any harness binary.

    kernel_tree_library(name, src, granule_kb)   the cc_library to link
    kernel_tree_hammer(name, library, ...)       //stress:hammer over it
    patched_contpte(name, src, patch)            src with a patch applied

How (docs/kernel-tree.md): the probe rule compiles the file on the shim and
lists what it defines with nm (kernel_tree/probe.sh); from that it writes the
translation unit compiled here: the file with its functions renamed, then
kernel_tree/glue.h, whose strong definitions of the current entry points
(counting trampolines, or adapters for older names) override the project's
weak ones.
"""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain")
load("//stress:defs.bzl", "NATIVE_ONLY")
load("//tools/plugin:defs.bzl", "WARNINGS_AS_ERRORS", "hammer_binary")

# The shim's <linux/*.h> and <asm/*.h>, for the kernel file's unit only (not
# propagated to whatever links the library).
SHIM_COPTS = ["-I", "kernel_tree/shim/include"]

def _probe_impl(ctx):
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
    ctx.actions.run(
        executable = ctx.executable._probe,
        arguments = [cc.compiler_executable, cc.nm_executable or "nm", ctx.file.src.path, ctx.outputs.out.path] + flags,
        inputs = depset([ctx.file.src], transitive = [c.headers for c in contexts]),
        tools = cc.all_files,
        outputs = [ctx.outputs.out],
        mnemonic = "KernelTreeProbe",
        progress_message = "Building %s on the kernel-tree shim (probe)" % ctx.file.src.short_path,
    )

kernel_tree_probe = rule(
    implementation = _probe_impl,
    doc = "Compile a contpte.c on the shim, nm it, write the translation unit to build.",
    attrs = {
        "src": attr.label(allow_single_file = True, mandatory = True),
        "granule_kb": attr.int(mandatory = True, values = [4, 16, 64]),
        "out": attr.output(mandatory = True),
        "_probe": attr.label(default = "//kernel_tree:probe.sh", executable = True, cfg = "exec", allow_single_file = True),
        "_dialect": attr.label(default = "//core:kernel_dialect", providers = [CcInfo]),
        "_shim": attr.label(default = "//kernel_tree:shim", providers = [CcInfo]),
        "_cc_toolchain": attr.label(default = "@bazel_tools//tools/cpp:current_cc_toolchain"),
    },
    toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],
    fragments = ["cpp"],
)

def kernel_tree_library(name, src, granule_kb, copts = [], deps = [], project = None, tags = []):
    """A cc_library: the kernel file src (a contpte.c) built on the shim for
    granule_kb, its functions in place of core/kernel/contpte.c's, over the
    project's weak defaults (variant "kernel_tree"). Any binary can link it:
    the stress hammer (kernel_tree_hammer), or a program on another access
    backend, which passes that backend's copts and deps and its own build
    of the weak defaults as project (tools/plugin/defs.bzl's
    weak_defaults_library with the same copts). The probe only decides what
    the file defines, so it builds on the default backend."""
    kernel_tree_probe(
        name = name + "_probe",
        src = src,
        granule_kb = granule_kb,
        out = name + "_unit.c",
        tags = tags,
    )
    native.cc_library(
        name = name + "_file",
        srcs = [name + "_unit.c"],
        textual_hdrs = [src],
        copts = ["-DKC_GRANULE_KB=%d" % granule_kb] + SHIM_COPTS + copts + WARNINGS_AS_ERRORS,
        deps = ["//kernel_tree:shim", "//core:kernel_dialect"] + deps,
        alwayslink = True,
        tags = tags,
    )
    native.cc_library(
        name = name,
        deps = [name + "_file", project or "//kernel_tree:project_%dk" % granule_kb],
        tags = tags,
    )

def kernel_tree_hammer(name, library, test_args = None, expect_violation = False, tags = []):
    """//stress:hammer over a kernel_tree_library: a cc_binary, or with
    test_args a cc_test (--variant=kernel_tree added). Tests that expect a
    violation within a time bound run in native builds only, like the
    project's mutant tests."""
    if test_args != None:
        test_args = ["--variant=kernel_tree"] + test_args
    hammer_binary(
        name,
        [library],
        test_args,
        tags,
        target_compatible_with = NATIVE_ONLY if expect_violation else None,
    )

def patched_contpte(name, src, patch):
    """src (a tree's arch/arm64/mm/contpte.c) with patch applied by
    kernel_tree/apply_patch.sh, as <name>/arch/arm64/mm/contpte.c."""
    native.genrule(
        name = name,
        srcs = [src, patch],
        outs = [name + "/arch/arm64/mm/contpte.c"],
        tools = ["//kernel_tree:apply_patch.sh"],
        cmd = "$(location //kernel_tree:apply_patch.sh) $(location %s) $(location %s) $@" % (src, patch),
    )
