"""The catalogue's mutants as patches to the v6.9 test tree, which carries a
known bug (the 2026-03 set_access_flags no-op test): each must be reported
as a finding of its own beside it (docs/contract.md, "Which bug")."""

load("//build:catalogue.bzl", "MUTANTS")
load("//build:drivers.bzl", "host_sh_test", "subject_binary")
load("//build:subjects.bzl", "patched_contpte", "tree_files")

# Mutants whose code v6.9 does not hold: cyd_byte_span (v6.9 has no MADV_FREE
# function; the project fills it in), access_flags_gathered_noop (v6.9's own
# bug: the known one).
V69_NOT_HELD = ["cyd_byte_span", "access_flags_gathered_noop"]

# Mutants stress mode does not catch in a kernel tree today, on the current
# tree either (tools/hammer --kernel-tree kernel_tree/testdata/current
# --patch kernel_tree/testdata/patches/mut_<name>.patch --seconds 30: clean
# at 4K with and without the TLB model, and at 16K): only the engine's
# schedules reach their window there. ee_check_after_gather: the entry that starts the early exit
# is gathered before it is checked, and the built-in tree's reader loses
# that race far more often than a tree's.
STRESS_MISSES = ["ee_check_after_gather"]

# Slips in asm/pgtable.h code v6.9 has as the current tree has it: the
# current tree's patch applies as it is.
V69_PATCHES_AS_IS = ["mut_young_plain_rmw", "mut_wrprotect_plain_rmw", "mut_unmap_drops_dirty"]

def v69_mutants():
    """Every catalogue mutant with a tree patch: its v6.9 patch (under
    testdata/patches/: v6.9_<tree_patch>.patch, the slip written in v6.9's
    own code, or the tree patch itself), the kinds a tree run may report,
    and the granules the catalogue catches it at (the stress suite's: the
    early-exit ones at 4K and 16K). A new mutant without a v6.9 patch stops
    the build, naming it."""
    rebased = native.glob(["testdata/patches/v6.9_mut_*.patch"])
    out = []
    for m in MUTANTS:
        if not getattr(m, "tree_patch", None) or m.name in V69_NOT_HELD:
            continue
        if m.tree_patch in V69_PATCHES_AS_IS:
            patch = m.tree_patch
        elif "testdata/patches/v6.9_%s.patch" % m.tree_patch in rebased:
            patch = "v6.9_" + m.tree_patch
        else:
            fail("catalogue mutant %s has a tree patch but none for v6.9: write " % m.name +
                 "kernel_tree/testdata/patches/v6.9_%s.patch, or say why v6.9 " % m.tree_patch +
                 "does not hold it (V69_NOT_HELD in kernel_tree/known.bzl)")
        out.append(struct(
            name = m.name,
            patch = patch,
            kind = getattr(m, "tree_expect", m.expect),
            args = getattr(m, "args", []),
            granules = [4, 16] if m.base == "early_exit" else [4],
        ))
    return out

def v69_mutant_tests(known):
    """v6.9_<mutant>: the patched tree; v6.9_<mutant>_<G>k_{hammer,engine}:
    its stress and engine builds (no stress build for STRESS_MISSES);
    v6.9_<mutant>_<G>k_introduced_test: kernel_tree/introduced_test.sh with
    known the tree's own signatures."""
    for m in v69_mutants():
        patched_contpte(
            name = "v6.9_" + m.name,
            src = tree_files("v6.9")[0],
            header = tree_files("v6.9")[1],
            patch = "testdata/patches/%s.patch" % m.patch,
        )
        for g in m.granules:
            drivers = ["engine"] if m.name in STRESS_MISSES else ["hammer", "engine"]
            for driver in drivers:
                subject_binary(
                    name = "v6.9_%s_%dk_%s" % (m.name, g, driver),
                    subject = "kernel_tree",
                    src = tree_files(":v6.9_" + m.name)[0],
                    header = tree_files(":v6.9_" + m.name)[1],
                    granule_kb = g,
                    driver = driver,
                )
            host_sh_test(
                name = "v6.9_%s_%dk_introduced_test" % (m.name, g),
                srcs = ["introduced_test.sh"],
                args = [
                    "-" if m.name in STRESS_MISSES else "$(location :v6.9_%s_%dk_hammer)" % (m.name, g),
                    "$(location :v6.9_%s_%dk_engine)" % (m.name, g),
                    "%dk" % g,
                    "'%s'" % m.kind,
                    known,
                ] + m.args,
            )
