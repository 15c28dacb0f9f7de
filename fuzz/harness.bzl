"""The fuzz harness built once per variant: harness_VARIANT_GRANULE links
fuzz/harness.c with that one variant of core/variants.bzl (the trees and
every planted mutant of core/mutants.bzl, at each granule)."""

load("//core:mutants.bzl", "MUTANTS")
load("//core:variants.bzl", "GRANULES")

def _variant_lib(variant, granule):
    if variant in ["baseline", "early_exit"]:
        return "//core:%s_%dk_sched" % (variant, granule)
    return "//core:m_%s_%dk_sched" % (variant, granule)

def single_variant_harnesses(name, srcs, copts, linkopts, deps):
    """name_VARIANT_GRANULEk for every built-in variant; tagged manual (build
    the ones you fuzz: tools/campaign does)."""
    for g in GRANULES:
        for v in ["baseline", "early_exit"] + [m.name for m in MUTANTS]:
            native.cc_binary(
                name = "%s_%s_%dk" % (name, v, g),
                srcs = srcs,
                copts = copts,
                linkopts = linkopts,
                linkstatic = True,
                deps = deps + [_variant_lib(v, g)],
                tags = ["manual"],
            )
