/*
 * core/access_arm64.h - the AArch64 backend of the access layer, in GCC
 * inline assembly. Selected by core/access.h when compiling for __aarch64__
 * (unless ACCESS_BACKEND_CUSTOM names another backend).
 *
 * Two flavours, chosen at build time like the kernel's:
 *   - LL/SC (ARMv8.0, the default): every read-modify-write is a loop of a
 *     load-exclusive (LDXR) and a store-exclusive (STXR) that retries while
 *     the store-exclusive reports that the exclusive monitor was lost;
 *   - LSE (ARMv8.1 Large System Extensions, when the compiler defines
 *     __ARM_FEATURE_ATOMICS, e.g. -march=armv8.1-a): single far atomics
 *     CAS, SWP, LDSET (OR) and LDCLR (AND-NOT).
 *
 * Orderings are the kernel's for the primitives the harness models:
 *   accb_load/accb_store      READ_ONCE/WRITE_ONCE: one single-copy atomic
 *                             64-bit LDR/STR, no ordering;
 *   accb_cmpxchg/xchg/or/andnot   the *_relaxed RMWs: no acquire/release
 *                             (LDXR/STXR, CAS, SWP, LDSET, LDCLR without the
 *                             A/L forms) and no compiler barrier;
 *   accb_fence_full           DMB ISH (smp_mb);
 *   accb_fence_acquire        DMB ISHLD (orders earlier loads before later
 *                             loads and stores: smp_rmb and an acquire fence);
 *   accb_fence_release        DMB ISH. The kernel's smp_wmb is DMB ISHST,
 *                             which orders only stores against stores; the
 *                             backend contract asks for a release fence
 *                             (earlier loads too before later stores), which
 *                             ISHST does not give, so the full DMB ISH.
 *
 * Memory operands use the "Q" constraint: an address in a single base
 * register with no offset, which is what the exclusive and LSE instructions
 * accept, and which tells the compiler exactly which 8 bytes are touched.
 */
#ifndef CORE_ACCESS_ARM64_H
#define CORE_ACCESS_ARM64_H

#ifndef __aarch64__
#error "core/access_arm64.h is the AArch64 backend; build it for aarch64"
#endif

#include <stdint.h>

#ifdef __ARM_FEATURE_ATOMICS
#define ACCESS_BACKEND_NAME "arm64-lse"
#define ACCESS_ARM64_LSE 1
#else
#define ACCESS_BACKEND_NAME "arm64-llsc"
#define ACCESS_ARM64_LSE 0
#endif

static inline uint64_t accb_load(const uint64_t *p)
{
	uint64_t v;
	__asm__ volatile("ldr	%x[v], %[m]" : [v] "=r"(v) : [m] "Q"(*p));
	return v;
}

static inline void accb_store(uint64_t *p, uint64_t v)
{
	__asm__ volatile("str	%x[v], %[m]" : [m] "=Q"(*p) : [v] "r"(v));
}

#if ACCESS_ARM64_LSE

/* CAS Xs, Xt, [Xn]: compares [Xn] with Xs, stores Xt if equal; either way
 * Xs receives the value found. */
static inline uint64_t accb_cmpxchg(uint64_t *p, uint64_t old, uint64_t new)
{
	uint64_t found = old;
	__asm__ volatile("cas	%x[s], %x[t], %[m]"
			 : [s] "+r"(found), [m] "+Q"(*p)
			 : [t] "r"(new));
	return found;
}

/* SWP Xs, Xt, [Xn]: stores Xs, Xt receives the previous value. */
static inline uint64_t accb_xchg(uint64_t *p, uint64_t v)
{
	uint64_t prev;
	__asm__ volatile("swp	%x[s], %x[t], %[m]"
			 : [t] "=&r"(prev), [m] "+Q"(*p)
			 : [s] "r"(v));
	return prev;
}

/* LDSET Xs, Xt, [Xn]: [Xn] |= Xs, Xt receives the previous value. */
static inline uint64_t accb_fetch_or(uint64_t *p, uint64_t m)
{
	uint64_t prev;
	__asm__ volatile("ldset	%x[s], %x[t], %[m]"
			 : [t] "=&r"(prev), [m] "+Q"(*p)
			 : [s] "r"(m));
	return prev;
}

/* LDCLR Xs, Xt, [Xn]: [Xn] &= ~Xs, Xt receives the previous value. */
static inline uint64_t accb_fetch_andnot(uint64_t *p, uint64_t m)
{
	uint64_t prev;
	__asm__ volatile("ldclr	%x[s], %x[t], %[m]"
			 : [t] "=&r"(prev), [m] "+Q"(*p)
			 : [s] "r"(m));
	return prev;
}

#else /* LL/SC */

/*
 * All loops: LDXR loads and arms the exclusive monitor for the address;
 * STXR stores only if the monitor is still armed (no other observer wrote
 * the granule meanwhile) and writes 0 to its status register on success, 1
 * on failure, in which case the whole read-modify-write is redone. The
 * status register must differ from the data and address registers (else
 * CONSTRAINED UNPREDICTABLE), hence the early-clobber outputs.
 */
static inline uint64_t accb_cmpxchg(uint64_t *p, uint64_t old, uint64_t new)
{
	uint64_t found;
	uint32_t fail;
	__asm__ volatile(
		"1:	ldxr	%x[found], %[m]\n"
		"	cmp	%x[found], %x[old]\n"
		"	b.ne	2f\n"
		"	stxr	%w[fail], %x[new], %[m]\n"
		"	cbnz	%w[fail], 1b\n"
		"2:"
		: [found] "=&r"(found), [fail] "=&r"(fail), [m] "+Q"(*p)
		: [old] "r"(old), [new] "r"(new)
		: "cc");
	/* On a mismatch the monitor stays armed; harmless: the next LDXR of
	 * any loop re-arms it and a plain store does not need it. */
	return found;
}

static inline uint64_t accb_xchg(uint64_t *p, uint64_t v)
{
	uint64_t prev;
	uint32_t fail;
	__asm__ volatile(
		"1:	ldxr	%x[prev], %[m]\n"
		"	stxr	%w[fail], %x[v], %[m]\n"
		"	cbnz	%w[fail], 1b"
		: [prev] "=&r"(prev), [fail] "=&r"(fail), [m] "+Q"(*p)
		: [v] "r"(v));
	return prev;
}

static inline uint64_t accb_fetch_or(uint64_t *p, uint64_t mask)
{
	uint64_t prev, next;
	uint32_t fail;
	__asm__ volatile(
		"1:	ldxr	%x[prev], %[m]\n"
		"	orr	%x[next], %x[prev], %x[mask]\n"
		"	stxr	%w[fail], %x[next], %[m]\n"
		"	cbnz	%w[fail], 1b"
		: [prev] "=&r"(prev), [next] "=&r"(next), [fail] "=&r"(fail),
		  [m] "+Q"(*p)
		: [mask] "r"(mask));
	return prev;
}

static inline uint64_t accb_fetch_andnot(uint64_t *p, uint64_t mask)
{
	uint64_t prev, next;
	uint32_t fail;
	__asm__ volatile(
		"1:	ldxr	%x[prev], %[m]\n"
		"	bic	%x[next], %x[prev], %x[mask]\n"
		"	stxr	%w[fail], %x[next], %[m]\n"
		"	cbnz	%w[fail], 1b"
		: [prev] "=&r"(prev), [next] "=&r"(next), [fail] "=&r"(fail),
		  [m] "+Q"(*p)
		: [mask] "r"(mask));
	return prev;
}

#endif /* ACCESS_ARM64_LSE */

static inline void accb_fence_full(void) { __asm__ volatile("dmb	ish" ::: "memory"); }
static inline void accb_fence_acquire(void) { __asm__ volatile("dmb	ishld" ::: "memory"); }
static inline void accb_fence_release(void) { __asm__ volatile("dmb	ish" ::: "memory"); }

#endif
