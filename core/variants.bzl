"""Build every compiled variant of the project's kernel-dialect sources:
for each granule, the baseline tree, the early-exit patch's early-exit tree and one
variant per planted mutant (core/mutants.bzl). Each is core/variant_tu.c
compiled with its own configuration and renamed entry points, and
registers itself at start-up."""

load("//core:mutants.bzl", "MUTANTS")

GRANULES = [4, 16, 64]

def kernel_variant(name, variant_name, granule, early_exit = False, plant = None, bare = False, backend = None, deps = None):
    copts = [
        "-DKC_GRANULE_KB=%d" % granule,
        "-DKC_VARIANT_ID=%s" % name,
        "-DKC_VARIANT_NAME=\\\"%s\\\"" % variant_name,
        "-DCONTPTE_EARLY_EXIT=%d" % (1 if early_exit else 0),
    ]
    if plant:
        copts.append("-DKC_PLANT=%s" % plant)
    if bare:
        copts.append("-DACCESS_BARE")
    if backend:
        copts.append("-DACCESS_BACKEND_CUSTOM=\\\"%s\\\"" % backend)
    native.cc_library(
        name = name,
        srcs = ["//core:variant_tu.c"],
        copts = copts,
        deps = ["//core:kernel_dialect"] + (deps if deps != None else ["//core:runtime"]),
        alwayslink = True,
    )

def all_variants(name, backend = None, suffix = "", deps = None):
    """Every variant; with backend (an access-layer backend header) and a
    name suffix, the same set built on that backend, linked with deps."""
    libs = []
    for g in GRANULES:
        for tree, early in [("baseline", False), ("early_exit", True)]:
            lib = "%s_%dk%s" % (tree, g, suffix)
            kernel_variant(lib, tree, g, early, backend = backend, deps = deps)
            libs.append(":" + lib)
        for m in MUTANTS:
            lib = "m_%s_%dk%s" % (m.name, g, suffix)
            kernel_variant(lib, m.name, g, m.base == "early_exit", m.name, backend = backend, deps = deps)
            libs.append(":" + lib)
    native.cc_library(name = name, deps = libs)

def bare_variants(name):
    """baseline and early_exit without the access layer's instruments, named
    bare_baseline / bare_early_exit: the bench's reference loop."""
    libs = []
    for g in GRANULES:
        for tree, early in [("baseline", False), ("early_exit", True)]:
            lib = "bare_%s_%dk" % (tree, g)
            kernel_variant(lib, "bare_" + tree, g, early, bare = True)
            libs.append(":" + lib)
    native.cc_library(name = name, deps = libs)
