"""The engine's command line for one kernel-dialect plug-in file (what
tools/explore --reader-file builds): the file on the scheduler backend,
linked over the project's weak defaults built on the same backend, the way
tools/plugin/defs.bzl builds it for stress mode."""

load("//tools/plugin:defs.bzl", "WARNINGS_AS_ERRORS")

SCHED_COPTS = [
    "-DACCESS_BACKEND_CUSTOM=\\\"engine/access_sched.h\\\"",
    "-DRCU_BACKEND_CUSTOM=\\\"engine/rcu_sched.h\\\"",
]

def plugin_engine(name, src, granule_kb, tags = [], main = "//engine:main.c", deps = ["//engine:tools_lib"], copts = [], linkopts = []):
    """The engine's command line (or, with main and deps, another program on
    the engine, e.g. the fuzz harness) with the plug-in file as variant
    "plugin"."""
    native.cc_library(
        name = name + "_file",
        srcs = [src],
        copts = ["-include", "core/kcompat.h", "-DKC_GRANULE_KB=%d" % granule_kb] + SCHED_COPTS + WARNINGS_AS_ERRORS,
        deps = ["//core:kernel_dialect", "//engine:backend"],
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
        ] + SCHED_COPTS,
        deps = ["//core:kernel_dialect", "//engine:backend", "//engine:runtime_sched"],
        alwayslink = True,
        tags = tags,
    )
    native.cc_binary(
        name = name,
        srcs = [main],
        copts = SCHED_COPTS + copts,
        linkopts = linkopts,
        linkstatic = True,
        deps = [name + "_file", name + "_project"] + deps,
        tags = tags,
    )
