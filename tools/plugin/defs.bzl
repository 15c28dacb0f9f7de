"""A hammer binary for one kernel-dialect plug-in file: the file is compiled
with core/kcompat.h force-included (no #include lines needed) and linked over
the project's kernel-dialect sources built with weak entry points, so every
function the file defines replaces the project's own, and the rest are
filled in by the project. tools/hammer generates a BUILD that calls this.

The two halves are shared with kernel-tree mode (//kernel_tree:defs.bzl):
weak_defaults_library (the project's side of the link) and hammer_binary
(the stress driver around any variant library)."""

WARNINGS_AS_ERRORS = [
    # a wrong-arity or undeclared call must not compile silently
    "-Werror=implicit-function-declaration",
    "-Werror=int-conversion",
    "-Werror=incompatible-pointer-types",
    "-Werror=return-type",
]

def weak_defaults_library(name, granule_kb, variant_name, copts = [], deps = [], tags = []):
    """The project's kernel-dialect sources (core/kernel/) with weak entry
    points, registered as variant_name: whatever another object linked with
    it defines replaces the project's own, and the variant reports which
    (variant->provided / defaults). copts/deps select another access
    backend."""
    native.cc_library(
        name = name,
        srcs = ["//core:variant_tu.c"],
        copts = [
            "-DKC_WEAK_DEFAULTS",
            "-DKC_VARIANT_NAME=\\\"%s\\\"" % variant_name,
            "-DKC_GRANULE_KB=%d" % granule_kb,
        ] + copts,
        deps = ["//core:kernel_dialect"] + deps,
        alwayslink = True,
        tags = tags,
    )

def hammer_binary(name, deps, test_args = None, tags = [], target_compatible_with = None):
    """//stress:hammer's main and driver over the variant libraries in deps:
    a cc_binary, or with test_args a cc_test running with those args."""
    common = dict(
        name = name,
        srcs = ["//stress:hammer_main.c"],
        linkstatic = True,
        deps = deps + ["//stress:driver"],
        tags = tags,
    )
    if test_args == None:
        native.cc_binary(**common)
    else:
        native.cc_test(
            args = test_args + ["--no-progress"],
            data = ["//stress:tsan.supp"],
            size = "medium",
            target_compatible_with = target_compatible_with,
            **common
        )

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
    weak_defaults_library(name + "_project", granule_kb, "plugin", tags = tags)
    hammer_binary(name, [name + "_file", name + "_project"], test_args, tags)
