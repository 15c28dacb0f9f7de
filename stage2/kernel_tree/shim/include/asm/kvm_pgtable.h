/* The tree's own asm/kvm_pgtable.h is placed in the unit before its pgtable.c
 * (stage2/kernel_tree/cut.py); this stands in for its #include line. */
#include "stage2/kernel_tree/shim/s2_shim.h"
