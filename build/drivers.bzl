"""Driver binaries over subjects: subject_binary, and the test matrices made
of it (stress_suite: //stress:all; single_variant_harnesses: the fuzz
campaigns' harnesses).

    subject_binary(name, subject, driver, src = None, granule_kb = None,
                   variant = None, main = None, deps = [], test_args = None,
                   data = [], expect_violation = False, native_code_only = False, tags = [])

subject, what is tested (build/subjects.bzl):
    "variants"     the built-in variants: all of them, or with variant and
                   granule_kb that one variant's library
    "plugin"       the kernel-dialect plug-in file src, for granule_kb
    "kernel_tree"  a tree's arch/arm64/mm/contpte.c src, for granule_kb
driver, what runs it (DRIVERS; it decides the subject's backend):
    "hammer"       the stress driver, //stress:hammer's main
    "engine"       the deterministic engine's command line, //engine:engine's
    "afl_harness"  the AFL++ / libFuzzer harness over scripts, fuzz/harness.c
    "on_engine"    any other main on the engine: main given, deps added
    "bench_seed002" seed 002's scenarios on the subject's uninstrumented
                   readers (stress/bench/bench_seed002.c, bare backend)
A cc_binary, or with test_args a cc_test run with them (after
--variant=plugin|kernel_tree for those subjects, and the driver's own test
arguments). native_code_only: a test that needs the native toolchain's
clang (not under the aarch64 configs: e.g. seeing a subject's plain
accesses). expect_violation: a test that must find a violation within a
time bound, so it runs in native builds only (NATIVE_ONLY).

Load order: catalogue.bzl <- subjects.bzl <- drivers.bzl.
"""

load(":catalogue.bzl", "GRANULES", "MIXES", "MUTANTS", "READERS", "TREES")
load(":subjects.bzl", "BACKENDS", "kernel_tree_library", "plugin_library", "variant_library")

# libFuzzer: the entry points instead of main (fuzz/entry.h), and libFuzzer
# linked into the fuzz targets only (every other binary keeps its main).
FUZZ_COPTS = select({
    "//build:fuzz_build_libfuzzer": ["-DFUZZ_LIBFUZZER"],
    "//conditions:default": [],
})

FUZZ_LINKOPTS = select({
    "//build:fuzz_build_libfuzzer": ["-fsanitize=fuzzer"],
    "//conditions:default": [],
})

# Tests that expect a violation within a time bound run in native builds
# only: the bounds are for native speed, and sanitizers change timing 3-15x.
# Under --config=tsan the job of //stress:all is that every correct variant
# runs with zero reports.
NATIVE_ONLY = select({
    "//build:sanitizer_build_tsan": ["//build:needs_native_build"],
    "//build:sanitizer_build_asan": ["//build:needs_native_build"],
    "//build:sanitizer_build_ubsan": ["//build:needs_native_build"],
    "//build:sanitizer_build_asan_ubsan": ["//build:needs_native_build"],
    "//conditions:default": [],
})

# Under --config=libfuzzer every object is compiled with
# -fsanitize=fuzzer-no-link, whose coverage callbacks only libFuzzer's
# runtime defines, and that runtime brings its own main: only the fuzz
# targets link. A program with a main of its own (a tool, a test, a driver
# other than the harness) is incompatible there, so that `bazel build
# --config=libfuzzer //fuzz:all` builds the targets and skips the rest
# instead of failing to link them.
NOT_UNDER_LIBFUZZER = select({
    "//build:fuzz_build_libfuzzer": ["@platforms//os:none"],
    "//conditions:default": [],
})

# Shell-script tests: under the aarch64 configs --run_under=qemu-aarch64
# cannot run a script (nor could the script run arm64 binaries: no binfmt),
# so those builds skip them.
# Needs the native toolchain's clang (not the aarch64 configs' cross gcc).
NEEDS_CLANG = select({
    "//build:aarch64_build": ["//build:needs_clang_build"],
    "//conditions:default": [],
})

NOT_UNDER_QEMU = select({
    "//build:aarch64_build": ["//build:needs_native_build"],
    "//conditions:default": [],
})

_VARIANTS_ALL = {"native": "//core:variants", "sched": "//core:variants_sched"}

DRIVERS = {
    "hammer": struct(
        backend = "native",
        main = "//stress:hammer_main.c",
        deps = ["//stress:driver"],
        copts = [],
        linkopts = [],
        # TSan reads its suppressions (.bazelrc) from the test's runfiles
        test_data = ["//stress:tsan.supp"],
        test_args = ["--no-progress"],
    ),
    "engine": struct(
        backend = "sched",
        main = "//engine:main.c",
        deps = ["//engine:tools_lib"],
        copts = [],
        linkopts = [],
        test_data = [],
        test_args = [],
    ),
    "afl_harness": struct(
        backend = "sched",
        main = "//fuzz:harness.c",
        deps = ["//fuzz:entry", "//engine:run"],
        copts = FUZZ_COPTS,
        linkopts = FUZZ_LINKOPTS,
        test_data = [],
        test_args = [],
    ),
    "bench_seed002": struct(
        backend = "bare",
        main = "//stress:bench/bench_seed002.c",
        deps = [],
        copts = [],
        linkopts = [],
        test_data = [],
        test_args = [],
    ),
    # the aging bench (//stress:aging) over a kernel tree (tools/aging)
    "aging": struct(
        backend = "native",
        main = "//stress:bench/aging.c",
        deps = ["//core:runtime"],
        copts = [],
        linkopts = [],
        test_data = [],
        test_args = [],
    ),
    "on_engine": struct(
        backend = "sched",
        main = None,
        deps = ["//engine:run"],
        copts = [],
        linkopts = [],
        test_data = [],
        test_args = [],
    ),
}

def _unique(labels):
    out = []
    for l in labels:
        if l not in out:
            out.append(l)
    return out

def _arg_labels(args):
    """The labels that args name with $(location X) or $(locations X)."""
    labels = []
    for a in args:
        rest = a
        for _ in range(len(a)):
            i = rest.find("$(location")
            if i < 0:
                break
            rest = rest[i + len("$(location"):]
            if rest.startswith("s "):
                rest = rest[2:]
            elif rest.startswith(" "):
                rest = rest[1:]
            else:
                continue
            j = rest.find(")")
            labels.append(rest[:j].strip())
            rest = rest[j + 1:]
    return labels

def host_sh_test(name, args = [], data = [], target_compatible_with = NOT_UNDER_QEMU, **kwargs):
    """A shell-script test: an sh_test whose data holds every label its args
    name ($(location X), $(locations X)) and, in data, what the script finds
    without an argument. Skipped under the AArch64 configs by default
    (NOT_UNDER_QEMU: --run_under=qemu-aarch64 cannot run a script)."""
    native.sh_test(
        name = name,
        args = args,
        data = _unique(_arg_labels(args) + data),
        target_compatible_with = target_compatible_with,
        **kwargs
    )

def subject_binary(
        name,
        subject,
        driver,
        src = None,
        granule_kb = None,
        variant = None,
        main = None,
        deps = [],
        test_args = None,
        data = [],
        expect_violation = False,
        native_code_only = False,
        tags = [],
        header = None):
    """A driver over a subject (see the file's doc). header: a kernel
    tree's arch/arm64/include/asm/pgtable.h (kernel_tree subjects only)."""
    if driver not in DRIVERS:
        fail("driver must be one of %s, got %r" % (DRIVERS.keys(), driver))
    d = DRIVERS[driver]
    if subject == "variants":
        if variant:
            subject_lib = variant_library(variant, granule_kb, d.backend)
        else:
            subject_lib = _VARIANTS_ALL[d.backend]
    elif subject in ["plugin", "kernel_tree"]:
        if not src or not granule_kb:
            fail("a %s subject needs src and granule_kb" % subject)
        if subject == "plugin":
            if header:
                fail("a plugin subject has no header")
            plugin_library(name = name + "_subject", src = src, granule_kb = granule_kb, backend = d.backend, tags = tags)
        else:
            kernel_tree_library(name = name + "_subject", src = src, granule_kb = granule_kb, backend = d.backend, tags = tags, header = header)
        subject_lib = ":" + name + "_subject"
    else:
        fail("subject must be variants, plugin or kernel_tree, got %r" % subject)
    main = main or d.main
    if not main:
        fail("driver %s needs main" % driver)
    attrs = dict(
        name = name,
        srcs = [main],
        copts = BACKENDS[d.backend].copts + d.copts,
        # a plug-in file's or kernel tree's functions by name in reports
        # (core/plain_access.c looks them up with dladdr)
        linkopts = d.linkopts + (["-rdynamic"] if subject in ["plugin", "kernel_tree"] else []),
        linkstatic = True,
        deps = _unique([subject_lib] + d.deps + deps),
        tags = tags,
    )
    # only the harness is a fuzz target (NOT_UNDER_LIBFUZZER)
    libfuzzer_compat = [] if driver == "afl_harness" else NOT_UNDER_LIBFUZZER
    if test_args == None:
        native.cc_binary(data = data, target_compatible_with = libfuzzer_compat, **attrs)
    else:
        variant_arg = [] if subject == "variants" else ["--variant=" + subject]
        native.cc_test(
            args = variant_arg + test_args + d.test_args,
            data = d.test_data + data,
            target_compatible_with = (NATIVE_ONLY if expect_violation else []) +
                                     (NEEDS_CLANG if native_code_only else []) +
                                     libfuzzer_compat,
            **attrs
        )

# ---- the stress test matrix of //stress:all ----------------------------------

CLEAN_SECONDS = "2"
MUTANT_BOUND_SECONDS = "30"

def stress_suite():
    """Every correct reader on every granule under every writer mix runs
    clean; every planted mutant is caught with its expected violation kind
    within its time bound (the early-exit ones at 4k and 16k)."""
    for r in READERS:
        for g in GRANULES:
            for mix, ops in MIXES.items():
                subject_binary(
                    name = "clean_%s_%s_%s" % (r.replace("-", "_"), g.name, mix),
                    subject = "variants",
                    driver = "hammer",
                    test_args = [
                        "--reader=" + r,
                        "--granule=" + g.name,
                        "--writers=" + ops,
                        "--seconds=" + CLEAN_SECONDS,
                        "--threads=2,1,1",
                    ],
                )
    for m in MUTANTS:
        if getattr(m, "memory", "sc") == "arm":
            # needs arm64's weaker ordering: stress mode on x86 (and arm64
            # code under qemu-user, which runs with the host's ordering)
            # cannot show it; the engine's arm model does (//corpora:replay)
            continue
        for g in (["4k", "16k"] if m.base == "early_exit" else ["4k"]):
            subject_binary(
                name = "mutant_%s_%s" % (m.name, g),
                subject = "variants",
                driver = "hammer",
                test_args = [
                    "--mutant=" + m.name,
                    "--reader=" + ("early-exit" if m.base == "early_exit" else "lockless"),
                    "--granule=" + g,
                    "--expect=" + m.expect,
                    "--seconds=" + MUTANT_BOUND_SECONDS,
                ] + getattr(m, "args", []),
                expect_violation = True,
            )
    # The TLB model (--tlb, docs/tlb.md) on the correct trees: clean, with
    # and without BBML2 of either kind, LRU and random eviction.
    for tree, g, extra in TLB_CLEAN:
        subject_binary(
            name = "clean_tlb_%s_%s%s" % (tree, g, "".join([e.replace("--", "_").replace("=", "_").replace("-", "_") for e in extra])),
            subject = "variants",
            driver = "hammer",
            test_args = [
                "--variant=" + tree,
                "--granule=" + g,
                "--seconds=" + CLEAN_SECONDS,
                "--threads=2,1,2",
                "--tlb=8",
            ] + extra,
        )

TLB_CLEAN = [
    ("baseline", "4k", []),
    ("baseline", "4k", ["--bbml2"]),
    ("baseline", "16k", ["--tlb-evict=random"]),
    ("baseline", "16k", ["--bbml2=abort"]),
    ("baseline", "64k", []),
    ("early_exit", "4k", ["--bbml2", "--tlb-evict=random"]),
    ("early_exit", "16k", []),
]

# ---- the fuzz campaigns' harnesses -------------------------------------------

def single_variant_harnesses(name):
    """name_VARIANT_GRANULEk: the AFL harness over that one built-in variant,
    for every tree and planted mutant at every granule; tagged manual (build
    the ones you fuzz: tools/campaign does)."""
    for g in GRANULES:
        for v in TREES + [m.name for m in MUTANTS]:
            subject_binary(
                name = "%s_%s_%dk" % (name, v, g.kb),
                subject = "variants",
                variant = v,
                granule_kb = g.kb,
                driver = "afl_harness",
                tags = ["manual"],
            )
