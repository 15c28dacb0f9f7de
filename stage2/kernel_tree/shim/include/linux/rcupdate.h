#include "stage2/kernel_tree/shim/s2_shim.h"
