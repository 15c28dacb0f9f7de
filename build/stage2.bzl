"""The stage-2 subject's build (docs/stage2.md): a tree's
arch/arm64/kvm/hyp/pgtable.c with its asm/kvm_pgtable.h (and
asm/stage2_pgtable.h where it has one) built on the stage-2 shim, and the
drivers over it.

    stage2_tree_files(tree)             the three files of a test tree
                                        (testdata/NAME of the calling
                                        package) or of a patched one (":NAME")
    stage2_patched_tree(name, tree, patch)
                                        a tree with a patch applied to copies
    stage2_tree_library(name, tree, granule_kb)
                                        the tree's unit (the probe's output:
                                        stage2/kernel_tree/probe.sh) as a
                                        cc_library; backend-independent: it
                                        calls only stage2/runtime/s2.h
    stage2_binary(name, tree, granule_kb, driver, test_args = None,
                  expect_violation = False)
                                        a driver over it: "hammer" (real
                                        threads, stage2/stress/hammer.c),
                                        "engine" (stage2/engine/main.c) or
                                        "afl_harness" (stage2/fuzz/harness.c:
                                        AFL++ under --config=afl, else its
                                        standalone driver); with test_args a
                                        cc_test
"""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain")
load(":drivers.bzl", "FUZZ_COPTS", "FUZZ_LINKOPTS", "NATIVE_ONLY")
load(":subjects.bzl", "KERNEL_WARNING_POLICY", "SCHED_COPTS", "SUBJECT_COVERAGE_COPTS", "SUBJECT_COVERAGE_LINKOPTS", "WARNINGS_AS_ERRORS")

S2_GRANULES = [4, 16, 64]

S2_SRC = "arch/arm64/kvm/hyp/pgtable.c"
S2_HDR = "arch/arm64/include/asm/kvm_pgtable.h"
S2_S2HDR = "arch/arm64/include/asm/stage2_pgtable.h"

S2_SHIM_COPTS = ["-I", "stage2/kernel_tree/shim/include"]

def _probe_impl(ctx):
    cc = find_cpp_toolchain(ctx)
    cinfo = ctx.attr._shim[CcInfo].compilation_context
    flags = ["-DS2_GRANULE_KB=%d" % ctx.attr.granule_kb, "-Wall"] + S2_SHIM_COPTS + WARNINGS_AS_ERRORS
    flags += ctx.fragments.cpp.copts + ctx.fragments.cpp.conlyopts
    flags += ["-D" + d for d in cinfo.defines.to_list()]
    for d in cinfo.quote_includes.to_list():
        flags += ["-iquote", d]
    for d in cinfo.includes.to_list():
        flags += ["-I", d]
    s2hdr = ctx.file.s2hdr.path if ctx.file.s2hdr else "-"
    files = [ctx.file.src, ctx.file.hdr, ctx.file._cut, ctx.file._common] + ([ctx.file.s2hdr] if ctx.file.s2hdr else [])
    ctx.actions.run(
        executable = ctx.executable._probe,
        arguments = [cc.compiler_executable, ctx.file.src.path, ctx.file.hdr.path, s2hdr, ctx.outputs.out.path] + flags,
        inputs = depset(files, transitive = [cinfo.headers]),
        tools = cc.all_files,
        outputs = [ctx.outputs.out],
        mnemonic = "Stage2Probe",
        progress_message = "Building %s on the stage-2 shim (probe)" % ctx.file.src.short_path,
    )

stage2_probe = rule(
    implementation = _probe_impl,
    doc = "Cut a tree's pgtable.c and headers with libclang, build them on the stage-2 shim, write the unit.",
    attrs = {
        "src": attr.label(allow_single_file = True, mandatory = True),
        "hdr": attr.label(allow_single_file = True, mandatory = True),
        "s2hdr": attr.label(allow_single_file = True),
        "granule_kb": attr.int(mandatory = True, values = S2_GRANULES),
        "out": attr.output(mandatory = True),
        "_probe": attr.label(default = "//stage2/kernel_tree:probe.sh", executable = True, cfg = "exec", allow_single_file = True),
        "_cut": attr.label(default = "//stage2/kernel_tree:cut.py", allow_single_file = True),
        "_common": attr.label(default = "//kernel_tree/common:probe_common.sh", allow_single_file = True),
        "_shim": attr.label(default = "//stage2/kernel_tree:shim", providers = [CcInfo]),
        "_cc_toolchain": attr.label(default = "@bazel_tools//tools/cpp:current_cc_toolchain"),
    },
    toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],
    fragments = ["cpp"],
)

def stage2_tree_files(tree):
    """(pgtable.c, kvm_pgtable.h, stage2_pgtable.h or None) of a test tree
    under the calling package's testdata/, or of ":NAME", a
    stage2_patched_tree made earlier in the same package."""
    if tree.startswith(":"):
        outs = native.existing_rule(tree[1:])["outs"]
        s2 = [o for o in outs if o.endswith(S2_S2HDR)]
        return (":%s/%s" % (tree[1:], S2_SRC), ":%s/%s" % (tree[1:], S2_HDR),
                (":" + s2[0].split(":")[-1]) if s2 else None)
    s2 = native.glob(["testdata/%s/%s" % (tree, S2_S2HDR)])
    return ("testdata/%s/%s" % (tree, S2_SRC), "testdata/%s/%s" % (tree, S2_HDR), s2[0] if s2 else None)

def stage2_patched_tree(name, tree, patch):
    """The files of tree (as stage2_tree_files names them) with patch applied
    to copies (kernel_tree/common/apply_patch_files.sh), as name/<path>."""
    src, hdr, s2hdr = stage2_tree_files(tree)
    ins = [src, hdr] + ([s2hdr] if s2hdr else [])
    rels = [S2_SRC, S2_HDR] + ([S2_S2HDR] if s2hdr else [])
    outs = ["%s/%s" % (name, r) for r in rels]

    # the tree's top: the source's path less its relative path
    top = "$$(dirname $$(dirname $$(dirname $$(dirname $$(dirname $(location %s))))))" % src
    native.genrule(
        name = name,
        srcs = ins + [patch],
        outs = outs,
        tools = ["//kernel_tree/common:apply_patch_files.sh", "//kernel_tree:patch_series.py"],
        cmd = "$(location //kernel_tree/common:apply_patch_files.sh) $(location %s) %s $(@D)/%s %s" % (patch, top, name, " ".join(rels)),
    )

def stage2_tree_library(name, tree, granule_kb, tags = []):
    """The unit of tree (stage2_tree_files' argument) for granule_kb."""
    src, hdr, s2hdr = stage2_tree_files(tree)
    stage2_probe(
        name = name + "_probe",
        src = src,
        hdr = hdr,
        s2hdr = s2hdr,
        granule_kb = granule_kb,
        out = name + "_unit.c",
        tags = tags,
    )
    native.cc_library(
        name = name,
        srcs = [name + "_unit.c"],
        textual_hdrs = [src, hdr] + ([s2hdr] if s2hdr else []),
        copts = ["-DS2_GRANULE_KB=%d" % granule_kb] + S2_SHIM_COPTS + WARNINGS_AS_ERRORS + KERNEL_WARNING_POLICY +
                SUBJECT_COVERAGE_COPTS,
        linkopts = SUBJECT_COVERAGE_LINKOPTS,
        deps = ["//stage2/kernel_tree:shim"],
        alwayslink = True,
        tags = tags,
    )

S2_DRIVERS = {
    "hammer": struct(main = "//stage2/stress:hammer.c", deps = ["//stage2/runtime:runtime"], copts = [], linkopts = []),
    "engine": struct(
        main = "//stage2/engine:main.c",
        deps = ["//stage2/engine:engine_lib", "//stage2/fuzz:codec"],
        copts = SCHED_COPTS + ["-DS2_SCHED"],
        linkopts = [],
    ),
    "afl_harness": struct(
        main = "//stage2/fuzz:harness.c",
        deps = ["//stage2/engine:engine_lib", "//stage2/fuzz:codec", "//fuzz:entry"],
        copts = SCHED_COPTS + ["-DS2_SCHED"] + FUZZ_COPTS,
        linkopts = FUZZ_LINKOPTS,
    ),
}

def stage2_binary(name, tree, granule_kb, driver = "hammer", test_args = None, expect_violation = False, tags = [], data = []):
    """A driver (S2_DRIVERS) over tree at granule_kb: a cc_binary, or with
    test_args a cc_test run with them (expect_violation: native builds only,
    as build/drivers.bzl's)."""
    d = S2_DRIVERS[driver]
    stage2_tree_library(name + "_tree", tree, granule_kb, tags = tags)
    attrs = dict(
        name = name,
        srcs = [d.main],
        copts = d.copts,
        linkopts = d.linkopts,
        linkstatic = True,
        deps = [":" + name + "_tree"] + d.deps,
        tags = tags,
        data = data,
    )
    if test_args == None:
        native.cc_binary(**attrs)
    else:
        args = test_args + (["--no-progress"] if driver == "hammer" else [])
        native.cc_test(
            args = args,
            target_compatible_with = NATIVE_ONLY if expect_violation else [],
            **attrs
        )
