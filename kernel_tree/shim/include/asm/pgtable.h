/* <asm/pgtable.h> for a kernel tree's contpte.c built by tools/hammer --kernel-tree:
 * everything the shim offers is in kernel_tree/shim/kt_shim.h. This header's own
 * part is the project's: core/kernel/pgtable.c (the arch wrappers and per-entry
 * primitives, prototypes in core/kcompat.h) and core/kernel/pgtable_helpers.h. */
#include "kernel_tree/shim/kt_shim.h"
