/*
 * kernel_tree/shim/stubs.h - the part of the kernel-tree shim that is
 * stubbed: names a kernel file uses that mean nothing in the harness
 * (debug checks compiled out, section and config markers, the EFI mm).
 * Each one does nothing, or gives the answer a user process's mm gives.
 * Included by kernel_tree/shim/kt_shim.h after core/kcompat.h.
 */
#ifndef KERNEL_TREE_SHIM_STUBS_H
#define KERNEL_TREE_SHIM_STUBS_H

/* ---- linux/mmdebug.h: CONFIG_DEBUG_VM off --------------------------- */
#define VM_BUG_ON(cond) ((void)(cond))
#define VM_WARN_ON_ONCE_FOLIO(cond, folio) ((void)(folio), (void)(cond))

/* ---- linux/init.h, linux/kconfig.h ---------------------------------- */
#define __init
#define IS_ENABLED(opt) 0

/* ---- linux/efi.h: the EFI runtime mm is never the harness's ----------- */
static inline bool mm_is_efi(struct mm_struct *mm) { (void)mm; return false; }

#endif
