/*
 * arm/access_probe.c - one out-of-line function per access-layer backend
 * primitive, so the built AArch64 object can be disassembled function by
 * function (arm/BUILD: access_probe_disasm, checked by access_asm_test).
 */
#include "core/access.h"

uint64_t probe_load(const uint64_t *p) { return accb_load(p); }
void probe_store(uint64_t *p, uint64_t v) { accb_store(p, v); }
uint64_t probe_cmpxchg(uint64_t *p, uint64_t o, uint64_t n) { return accb_cmpxchg(p, o, n); }
uint64_t probe_xchg(uint64_t *p, uint64_t v) { return accb_xchg(p, v); }
uint64_t probe_fetch_or(uint64_t *p, uint64_t m) { return accb_fetch_or(p, m); }
uint64_t probe_fetch_andnot(uint64_t *p, uint64_t m) { return accb_fetch_andnot(p, m); }
void probe_fence_full(void) { accb_fence_full(); }
void probe_fence_acquire(void) { accb_fence_acquire(); }
void probe_fence_release(void) { accb_fence_release(); }
