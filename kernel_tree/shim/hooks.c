/*
 * kernel_tree/shim/hooks.c - the objects behind kernel_tree/shim/hooks.h:
 * init_mm (the kernel's own mm, never the harness's) and the window of page
 * structs the shim's folio model locates pages in.
 */
#include "kernel_tree/shim/hooks.h"

struct mm_struct init_mm;
struct page kt_mem_map[KT_MEM_MAP_PAGES];
