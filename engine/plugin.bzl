"""Programs on the deterministic engine over a plug-in variant: the engine's
command line for one kernel-dialect plug-in file (what tools/explore
--reader-file builds), or any other main (the fuzz harness, for
tools/explore --strategy=afl). The file and the project's weak defaults are
built on the scheduler backend, as tools/plugin/defs.bzl builds them for
stress mode."""

load("//kernel_tree:defs.bzl", "kernel_tree_library")
load("//tools/plugin:defs.bzl", "WARNINGS_AS_ERRORS", "weak_defaults_library")

SCHED_COPTS = [
    "-DACCESS_BACKEND_CUSTOM=\\\"engine/access_sched.h\\\"",
    "-DRCU_BACKEND_CUSTOM=\\\"engine/rcu_sched.h\\\"",
]

# What a variant library on the engine links with.
SCHED_DEPS = ["//engine:backend", "//engine:runtime_sched"]

def engine_binary(name, variant_libs, main = "//engine:main.c", deps = ["//engine:tools_lib"], copts = [], linkopts = [], tags = []):
    """main (default: the engine's command line) over variant libraries
    built on the scheduler backend."""
    native.cc_binary(
        name = name,
        srcs = [main],
        copts = SCHED_COPTS + copts,
        linkopts = linkopts,
        linkstatic = True,
        deps = variant_libs + deps,
        tags = tags,
    )

def plugin_engine(name, src, granule_kb, tags = [], main = "//engine:main.c", deps = ["//engine:tools_lib"], copts = [], linkopts = []):
    """engine_binary over one plug-in file, variant "plugin"."""
    native.cc_library(
        name = name + "_file",
        srcs = [src],
        copts = ["-include", "core/kcompat.h", "-DKC_GRANULE_KB=%d" % granule_kb] + SCHED_COPTS + WARNINGS_AS_ERRORS,
        deps = ["//core:kernel_dialect"] + SCHED_DEPS,
        alwayslink = True,
        tags = tags,
    )
    weak_defaults_library(name + "_project", granule_kb, "plugin", copts = SCHED_COPTS, deps = SCHED_DEPS, tags = tags)
    engine_binary(name, [name + "_file", name + "_project"], main, deps, copts, linkopts, tags)

def kernel_tree_engine(name, src, granule_kb, tags = [], main = "//engine:main.c", deps = ["//engine:tools_lib"], copts = [], linkopts = []):
    """engine_binary over a kernel tree's contpte.c (kernel_tree/defs.bzl),
    variant "kernel_tree"."""
    weak_defaults_library(name + "_project", granule_kb, "kernel_tree", copts = SCHED_COPTS, deps = SCHED_DEPS, tags = tags)
    kernel_tree_library(
        name = name + "_tree",
        src = src,
        granule_kb = granule_kb,
        copts = SCHED_COPTS,
        deps = SCHED_DEPS,
        project = ":" + name + "_project",
        tags = tags,
    )
    engine_binary(name, [name + "_tree"], main, deps, copts, linkopts, tags)
