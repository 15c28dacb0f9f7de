"""A hammer binary for one kernel-dialect plug-in file: the file is compiled
with core/kcompat.h force-included (no #include lines needed) and linked over
the project's kernel-dialect sources built with weak entry points, so every
function the file defines replaces the project's own, and the rest are
filled in by the project. tools/hammer generates a BUILD that calls this."""

WARNINGS_AS_ERRORS = [
    # a wrong-arity or undeclared call must not compile silently
    "-Werror=implicit-function-declaration",
    "-Werror=int-conversion",
    "-Werror=incompatible-pointer-types",
    "-Werror=return-type",
]

def plugin_hammer(name, src, granule_kb, test_args = None, tags = []):
    """A cc_binary, or with test_args a cc_test running with those args."""
    native.cc_library(
        name = name + "_file",
        srcs = [src],
        copts = ["-include", "core/kcompat.h", "-DKC_GRANULE_KB=%d" % granule_kb] + WARNINGS_AS_ERRORS,
        deps = ["//core:kernel_dialect"],
        alwayslink = True,
        tags = tags,
    )
    native.cc_library(
        name = name + "_project",
        srcs = ["//core:variant_tu.c"],
        copts = [
            "-DKC_WEAK_DEFAULTS",
            "-DKC_VARIANT_NAME=\\\"plugin\\\"",
            "-DKC_GRANULE_KB=%d" % granule_kb,
        ],
        deps = ["//core:kernel_dialect"],
        alwayslink = True,
        tags = tags,
    )
    common = dict(
        name = name,
        srcs = ["//stress:hammer_main.c"],
        linkstatic = True,
        deps = [name + "_file", name + "_project", "//stress:driver"],
        tags = tags,
    )
    if test_args == None:
        native.cc_binary(**common)
    else:
        native.cc_test(
            args = test_args + ["--no-progress"],
            data = ["//stress:tsan.supp"],
            size = "medium",
            **common
        )
