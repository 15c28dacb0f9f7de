/* <linux/mmdebug.h> for a kernel tree's contpte.c built by tools/hammer --kernel-tree:
 * everything the shim offers is in kernel_tree/shim/kt_shim.h. */
#include "kernel_tree/shim/kt_shim.h"
