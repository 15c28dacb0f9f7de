/*
 * kernel_tree/shim/kt_shim.h - what a kernel tree's arch/arm64/mm/contpte.c
 * gets from its #include lines when tools/hammer --kernel-tree builds it.
 *
 * Every header under kernel_tree/shim/include/ (linux/mm.h, asm/tlbflush.h,
 * ...) includes this one file: the kernel's headers include each other, so
 * whatever a contpte.c reaches through one of them it reaches here too. It
 * is core/kcompat.h (types, PTE helpers, READ_ONCE, cmpxchg, the TLB flush
 * functions, the per-entry primitives and arch wrappers of
 * core/kernel/pgtable.c, which plays asm/pgtable.h) and the asm/pgtable.h
 * helpers of core/kernel/pgtable_helpers.h, plus what real kernel files use
 * beyond those, split by why it is there, as the kernel's own
 * tools/testing/vma splits its stand-ins:
 *
 *   kernel_tree/shim/hooks.h  wired to the harness: the flush log, the
 *                             BBML2 switch, pages and folios on the
 *                             harness's folio model (first: it sets
 *                             kcompat.h's hook points)
 *   kernel_tree/shim/stubs.h  no-ops: debug checks, markers, the EFI mm
 *   kernel_tree/shim/dup.h    duplicated from the kernel, kept in step:
 *                             compiler attributes, pte_cont_addr_end, and
 *                             helpers older trees expected from a header
 *
 * Every name is defined once, in one of these or in kcompat.h; where the
 * shim needs other behaviour than kcompat.h's default, it sets kcompat.h's
 * hook point instead of redefining the name.
 *
 * The generated unit (kernel_tree/probe.sh) then renames every function the
 * file defines to kt_file_<name> (after this header, so kcompat.h's
 * prototypes keep the real names and current signatures) and appends
 * kernel_tree/glue.h.
 */
#ifndef KERNEL_TREE_SHIM_KT_SHIM_H
#define KERNEL_TREE_SHIM_KT_SHIM_H

#include "kernel_tree/shim/hooks.h"
#include "core/kernel/pgtable_helpers.h"
#include "kernel_tree/shim/stubs.h"
#include "kernel_tree/shim/dup.h"

#endif
