"""The stress test matrix of //stress:all: every correct reader on every
granule under two writer mixes runs clean; every planted mutant is caught
with its expected violation kind within its time bound."""

load("//core:mutants.bzl", "MUTANTS")

READERS = ["lockless", "locked", "early-exit", "locked-early-exit"]
GRANULES = ["4k", "16k", "64k"]

# Writer mixes: everything; and the block-shape churn alone (fold, unfold,
# remap, partial unmap, wrprotect, table moves) that stresses consistency.
MIXES = {
    "all": "all",
    "churn": "map,fold,unfold,unmap,wrprotect,retire",
}

CLEAN_SECONDS = "2"
MUTANT_BOUND_SECONDS = "30"

# Mutant tests run in native builds only: their time bounds are for native
# speed, and sanitizers change timing 3-15x. Under --config=tsan the job of
# //stress:all is that every correct variant runs with zero reports.
NATIVE_ONLY = select({
    "//stress:sanitizer_build_tsan": ["//stress:needs_native_build"],
    "//stress:sanitizer_build_asan": ["//stress:needs_native_build"],
    "//stress:sanitizer_build_ubsan": ["//stress:needs_native_build"],
    "//conditions:default": [],
})

def hammer_test(name, args, tags = [], native_only = False):
    native.cc_test(
        target_compatible_with = NATIVE_ONLY if native_only else [],
        name = name,
        srcs = ["hammer_main.c"],
        args = args + ["--no-progress"],
        data = ["tsan.supp"],
        linkstatic = True,
        size = "medium",
        tags = tags,
        deps = [":driver", "//core:variants"],
    )

def stress_suite():
    for r in READERS:
        for g in GRANULES:
            for mix, ops in MIXES.items():
                hammer_test(
                    name = "clean_%s_%s_%s" % (r.replace("-", "_"), g, mix),
                    args = [
                        "--reader=" + r,
                        "--granule=" + g,
                        "--writers=" + ops,
                        "--seconds=" + CLEAN_SECONDS,
                        "--threads=2,1,1",
                    ],
                )
    for m in MUTANTS:
        for g in (["4k", "16k"] if m.base == "early_exit" else ["4k"]):
            hammer_test(
                name = "mutant_%s_%s" % (m.name, g),
                args = [
                    "--mutant=" + m.name,
                    "--reader=" + ("early-exit" if m.base == "early_exit" else "lockless"),
                    "--granule=" + g,
                    "--expect=" + m.expect,
                    "--seconds=" + MUTANT_BOUND_SECONDS,
                ],
                native_only = True,
            )
