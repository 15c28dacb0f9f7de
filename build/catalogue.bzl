"""What is tested: the one catalogue the build comes from. Data only (no
loads); build/subjects.bzl, build/drivers.bzl and the BUILD files read it.

GRANULES  the translation granules: name (as flags spell it) and size in kB
TREES     the project's correct kernel-dialect trees (core/kernel/): the
          baseline and the early-exit patch's (docs/glossary.md)
MUTANTS   the planted bugs (below)
READERS   the stress driver's readers (--reader=)
MIXES     the writer mixes the stress suite runs (--writers=)
"""

GRANULES = [
    struct(name = "4k", kb = 4),
    struct(name = "16k", kb = 16),
    struct(name = "64k", kb = 64),
]

TREES = ["baseline", "early_exit"]

# The catalogue of planted bugs: the one list the build, the variant
# registry (via the generated core/kernel/mutants.def), the stress tests,
# the fuzz harnesses and docs/mutants.md all come from. Each entry is a slip
# planted at a MUTANT(name) point of core/kernel/pgtable.c or
# core/kernel/contpte.c.
#
# name:   the mutant's name (also its variant name)
# base:   the tree it is planted in: "baseline" or "early_exit" (the early-exit patch, docs/glossary.md)
# expect: the violation kind the oracle must report (a|b: any of them, when
#         the slip has several symptoms; a stress run goes on past other
#         kinds until one of these, docs/mutants.md)
# memory: "arm" if only arm64's weaker ordering shows it (the engine's
#         --memory=arm; stress mode on x86 cannot); omitted: any model
# what:   one line: what the slip is
# args:   extra hammer flags its stress test needs (the TLB model's mutants:
#         --tlb, docs/tlb.md; each runs clean without it); omitted: none
# caller: True if the slip is in the caller's part (core-mm's TLB flush,
#         core/ops.c caller_flush) rather than at a MUTANT point
# tree_patch: the slip as a patch to kernel_tree/testdata/current
#         (kernel_tree/testdata/patches/<tree_patch>.patch), for mutants in
#         code a tree's contpte.c or asm/pgtable.h holds; omitted: none
# tree_expect: the kinds a kernel-tree run (tools/check: TLB model on, every
#         phase) may report first, where they differ from expect; omitted:
#         expect
#
# One entry per line: fuzz/bench/ttfd reads name, base and expect with sed.
MUTANTS = [
    struct(name = "no_consistency_check", base = "baseline", expect = "phantom_bit", tree_patch = "mut_no_consistency_check", what = "lockless scan ORs every entry's bits without checking valid/CONT/pfn/prot"),
    struct(name = "no_prot_check", base = "baseline", expect = "phantom_bit", tree_patch = "mut_no_prot_check", what = "lockless scan checks valid/CONT and pfn but not the prot"),
    struct(name = "no_pfn_check", base = "baseline", expect = "phantom_bit", tree_patch = "mut_no_pfn_check", what = "lockless scan checks valid/CONT and prot but not the pfn"),
    struct(name = "stale_target_on_retry", base = "baseline", expect = "livelock", tree_patch = "mut_stale_target_on_retry", what = "retry rescans without re-reading the target entry"),
    struct(name = "raw_prot_compare", base = "baseline", expect = "livelock", tree_patch = "mut_raw_prot_compare", what = "prot compared without mkold/mkclean normalisation"),
    struct(name = "returns_last_scanned", base = "baseline", expect = "torn_mapping|fault_loop", tree_patch = "mut_returns_last_scanned", what = "returns the last scanned entry (with gathered bits) instead of the target"),
    struct(name = "ee_unchecked_tail", base = "early_exit", expect = "phantom_bit", tree_patch = "mut_ee_unchecked_tail", what = "early exit: once a dirty or young bit is seen, the entries gathered after it are not checked"),
    struct(name = "ee_sticky_flags", base = "early_exit", expect = "phantom_bit", tree_patch = "mut_ee_sticky_flags", what = "early exit: gathered dirty/young flags are not reset on retry"),
    struct(name = "ee_check_after_gather", base = "early_exit", expect = "phantom_bit", tree_patch = "mut_ee_check_after_gather", what = "early exit: bits gathered and exit taken before the entry is checked"),
    struct(name = "ee_stop_on_first", base = "early_exit", expect = "lost_bit", tree_patch = "mut_ee_stop_on_first", what = "early exit: stops at the first dirty or young entry instead of both"),
    struct(name = "young_plain_rmw", base = "baseline", expect = "dirty_lost", tree_patch = "mut_young_plain_rmw", tree_expect = "dirty_lost|wrong_return", what = "__ptep_test_and_clear_young clears AF with a plain read-modify-write store"),
    struct(name = "wrprotect_plain_rmw", base = "baseline", expect = "dirty_lost|young_lost", tree_patch = "mut_wrprotect_plain_rmw", what = "__ptep_set_wrprotect with a plain read-modify-write store"),
    struct(name = "access_flags_rdonly", base = "baseline", expect = "dirty_lost|flags_not_set|fault_loop", what = "set_access_flags takes RDONLY from the request, re-setting it over hardware dirty"),
    struct(name = "fold_no_clear", base = "baseline", expect = "dirty_lost|young_lost|wrong_return", tree_patch = "mut_fold_no_clear", tree_expect = "dirty_lost|young_lost|wrong_return|bbm_violation|tlb_conflict", what = "fold reads entries and writes CONT without clearing them first"),
    struct(name = "convert_drops_bits", base = "baseline", expect = "dirty_lost|young_lost|wrong_return", tree_patch = "mut_convert_drops_bits", what = "fold/unfold keeps only the target's access/dirty bits, not the block's"),
    struct(name = "unmap_no_unfold", base = "baseline", expect = "mixed_block", tree_patch = "mut_unmap_no_unfold", what = "partial unmap of a CONT block without unfolding it first"),
    struct(name = "rcu_no_grace", base = "baseline", expect = "use_after_free", what = "retired page table freed (poisoned) without waiting for a grace period"),
    struct(name = "wrprotect_skips_block", base = "baseline", expect = "still_writable", tree_patch = "mut_wrprotect_skips_block", what = "wrprotect_ptes skips a fully covered block (its loop over whole blocks starts one block late)"),
    struct(name = "young_no_clear", base = "baseline", expect = "not_aged", tree_patch = "mut_young_no_clear", what = "block aging gathers and returns the young state but never clears AF"),
    struct(name = "young_last_only", base = "baseline", expect = "wrong_return", tree_patch = "mut_young_last_only", what = "block aging returns the last entry's young state, not the OR (young = instead of young |=)"),
    struct(name = "cyd_byte_span", base = "baseline", expect = "out_of_bounds", tree_patch = "mut_cyd_byte_span", what = "clear_young_dirty_ptes passes the range's span in bytes where a count of entries is due (the 2024-05 out-of-bounds bug)"),
    struct(name = "access_flags_gathered_noop", base = "baseline", expect = "flags_not_set|fault_loop", tree_patch = "mut_access_flags_gathered_noop", what = "set_access_flags: the no-op test compares the request with the gathered ptep_get value (the bug the 2026-03 fix removed)"),
    struct(name = "fold_leaves_last", base = "baseline", expect = "mixed_block", tree_patch = "mut_fold_leaves_last", what = "fold rewrites all but the last entry of the block (cleared, left none)"),
    struct(name = "unmap_drops_dirty", base = "baseline", expect = "wrong_return", tree_patch = "mut_unmap_drops_dirty", what = "get_and_clear_full_ptes returns without the dirty state of the entries after the first"),
    struct(name = "convert_no_flush", base = "baseline", expect = "bbm_violation|tlb_conflict", args = ["--tlb=8"], tree_patch = "mut_convert_no_flush", what = "contpte_convert skips its TLB flush between clearing the block and rewriting it, without BBML2_NOABORT"),
    struct(name = "convert_no_dsb", base = "baseline", expect = "bbm_violation|tlb_conflict|stale_tlb_access", args = ["--tlb=8"], tree_patch = "mut_convert_no_dsb", what = "contpte_convert issues its TLB flush as __flush_tlb_range_nosync and drops the DSB that completes it, then rewrites the block"),
    struct(name = "unmap_no_flush", base = "baseline", expect = "stale_tlb_access|bbm_violation|tlb_conflict", args = ["--tlb=8"], caller = True, what = "unmap: the caller frees the pages without the TLB flush (a CPU still translates to the freed page)"),
    struct(name = "wrprotect_no_flush", base = "baseline", expect = "stale_tlb_access", args = ["--tlb=8"], caller = True, what = "wrprotect: the caller drops its TLB flush (a write goes through a stale writable translation)"),
    struct(name = "teardown_fast_path", base = "baseline", expect = "mixed_block", tree_patch = "mut_teardown_fast_path", what = "ptep_get_and_clear_full with full set clears a CONT entry alone, without unfolding (the fast path for process exit the series had before its merge): a zap that stops at a VMA boundary inside the block leaves it half none, half CONT"),
    struct(name = "clear_full_no_unfold", base = "baseline", expect = "mixed_block", tree_patch = "mut_clear_full_no_unfold", what = "contpte_clear_full_ptes clears its range without unfolding the blocks it only partly covers"),
    struct(name = "teardown_no_gather", base = "baseline", expect = "wrong_return", tree_patch = "mut_teardown_no_gather", what = "get_and_clear_full_ptes with full set returns the first entry as cleared, without the access and dirty state of the others (a dirty folio freed unwritten at process exit)"),
    struct(name = "get_and_clear_stale", base = "baseline", expect = "wrong_return", tree_patch = "mut_get_and_clear_stale", what = "ptep_get_and_clear returns the entry as read before the unfold, without the block's gathered access and dirty state"),
    struct(name = "unfold_per_entry", base = "baseline", expect = "cont_mismatch|tlb_conflict|wrong_return", args = ["--tlb=8"], tree_patch = "mut_unfold_per_entry", what = "unfold breaks, flushes and rewrites one entry at a time: the block holds CONT and non-CONT entries while walkers may use it (no BBML2_NOABORT)"),
    struct(name = "publish_no_wmb", base = "baseline", expect = "use_after_free|torn_mapping", memory = "arm", what = "a new page table published without smp_wmb: a walker may find it before its clearing and entries are visible"),
]

READERS = ["lockless", "locked", "early-exit", "locked-early-exit"]

# Writer mixes: everything; and the block-shape churn alone (fold, unfold,
# remap, partial unmap, wrprotect, table moves) that stresses consistency.
MIXES = {
    "all": "all",
    "churn": "map,fold,unfold,unmap,wrprotect,retire,teardown,get_and_clear",
}
