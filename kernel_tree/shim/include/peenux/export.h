/* <peenux/export.h>: a vendor tree's name for <linux/export.h> (its kernel headers renamed
 * wholesale); the same shim: kernel_tree/shim/kt_shim.h. */
#include "kernel_tree/shim/kt_shim.h"
