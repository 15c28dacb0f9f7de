/* <asm/p3s/pgtable.h>: a vendor tree's header beside asm/pgtable.h (a per-mm
 * switch for contpte, contpte_is_enabled: kernel_tree/shim/stubs.h); the
 * same shim: kernel_tree/shim/kt_shim.h. */
#include "kernel_tree/shim/kt_shim.h"
