/* <mikux/mm_types.h>: a vendor tree's name for <linux/mm_types.h> (its kernel headers renamed
 * wholesale); the same shim: kernel_tree/shim/kt_shim.h. */
#include "kernel_tree/shim/kt_shim.h"
