/*
 * core/pte.h - the arm64 page-table-entry model (docs: the domain description §2 (docs/glossary.md)).
 *
 * Plain functions on 64-bit descriptor values, parameterised by the granule's
 * PAGE_SHIFT so that the granule-agnostic runtime (oracle, hardware agents,
 * stress driver) and the kernel-dialect code (core/kcompat.h, which binds
 * PAGE_SHIFT at compile time) share one definition of every bit and helper.
 */
#ifndef CORE_PTE_H
#define CORE_PTE_H

#include <stdbool.h>
#include <stdint.h>

#define PTE_BIT_VALID    (1ULL << 0)
#define PTE_BIT_TABLE    (1ULL << 1)   /* with VALID: page descriptor (0b11) */
#define PTE_BIT_ATTRINDX (7ULL << 2)
#define PTE_BIT_USER     (1ULL << 6)   /* AP[1] */
#define PTE_BIT_RDONLY   (1ULL << 7)   /* AP[2]: read-only to hardware */
#define PTE_BIT_SHARED   (3ULL << 8)   /* SH: inner shareable */
#define PTE_BIT_AF       (1ULL << 10)  /* access flag = young */
#define PTE_BIT_NG       (1ULL << 11)
#define PTE_BIT_WRITE    (1ULL << 51)  /* DBM: the kernel's "writable" */
#define PTE_BIT_CONT     (1ULL << 52)
#define PTE_BIT_PXN      (1ULL << 53)
#define PTE_BIT_UXN      (1ULL << 54)
#define PTE_BIT_DIRTY    (1ULL << 55)  /* software dirty */
#define PTE_BIT_SPECIAL  (1ULL << 56)
#define PTE_BIT_UFFD_WP  (1ULL << 58)
#define PTE_ADDR_TOP     49            /* output address is bits 49:PAGE_SHIFT */

/* A page-table granule: 4K, 16K or 64K pages, and how many entries a
 * contiguous block has at that granule. */
struct granule {
	const char *name;     /* "4k", "16k", "64k" */
	unsigned kb;          /* 4, 16, 64: the page size in KiB */
	unsigned page_shift;  /* 12, 14, 16 */
	unsigned cont_ptes;   /* 16, 128, 32: a power of two (core/mm.c shifts by its log2) */
};

/* The one granule table: every other place looks granules up here. */
#define GRANULE_COUNT 3
extern const struct granule granules[GRANULE_COUNT];
/* NULL if name is not a granule; accepts "4k"/"4K"/"4". */
const struct granule *granule_by_name(const char *name);
const struct granule *granule_by_shift(unsigned page_shift);
/* NULL if kb is not 4, 16 or 64. */
const struct granule *granule_by_kb(unsigned kb);
/* Entries per block of the kb granule; 0 if kb is not a granule. */
static inline unsigned granule_cont(unsigned kb)
{
	const struct granule *g = granule_by_kb(kb);

	return g ? g->cont_ptes : 0;
}

static inline uint64_t pm_addr_mask(unsigned page_shift)
{
	return ((1ULL << (PTE_ADDR_TOP + 1)) - 1) & ~((1ULL << page_shift) - 1);
}

static inline uint64_t pm_pfn(uint64_t v, unsigned page_shift)
{
	return (v & pm_addr_mask(page_shift)) >> page_shift;
}

/* Every bit outside the address field, VALID and CONT included. */
static inline uint64_t pm_pgprot(uint64_t v, unsigned page_shift)
{
	return v & ~pm_addr_mask(page_shift);
}

static inline uint64_t pm_pfn_pte(uint64_t pfn, uint64_t prot, unsigned page_shift)
{
	return ((pfn << page_shift) & pm_addr_mask(page_shift)) |
	       (prot & ~pm_addr_mask(page_shift));
}

static inline bool pm_valid(uint64_t v) { return v & PTE_BIT_VALID; }
static inline bool pm_cont(uint64_t v) { return v & PTE_BIT_CONT; }
static inline bool pm_valid_cont(uint64_t v)
{
	return (v & (PTE_BIT_VALID | PTE_BIT_CONT)) == (PTE_BIT_VALID | PTE_BIT_CONT);
}
static inline bool pm_young(uint64_t v) { return v & PTE_BIT_AF; }
static inline bool pm_write(uint64_t v) { return v & PTE_BIT_WRITE; }
static inline bool pm_rdonly(uint64_t v) { return v & PTE_BIT_RDONLY; }
static inline bool pm_hw_dirty(uint64_t v) { return pm_write(v) && !pm_rdonly(v); }
static inline bool pm_sw_dirty(uint64_t v) { return v & PTE_BIT_DIRTY; }
static inline bool pm_dirty(uint64_t v) { return pm_sw_dirty(v) || pm_hw_dirty(v); }

static inline uint64_t pm_mkyoung(uint64_t v) { return v | PTE_BIT_AF; }
static inline uint64_t pm_mkold(uint64_t v) { return v & ~PTE_BIT_AF; }

/* Set DIRTY; a writable entry also becomes hardware-dirty (RDONLY clear). */
static inline uint64_t pm_mkdirty(uint64_t v)
{
	v |= PTE_BIT_DIRTY;
	if (pm_write(v))
		v &= ~PTE_BIT_RDONLY;
	return v;
}

static inline uint64_t pm_mkclean(uint64_t v)
{
	return (v & ~PTE_BIT_DIRTY) | PTE_BIT_RDONLY;
}

/* Hardware dirtiness moves into the software DIRTY bit before WRITE goes. */
static inline uint64_t pm_wrprotect(uint64_t v)
{
	if (pm_hw_dirty(v))
		v |= PTE_BIT_DIRTY;
	return (v & ~PTE_BIT_WRITE) | PTE_BIT_RDONLY;
}

static inline uint64_t pm_mkwrite(uint64_t v) { return v | PTE_BIT_WRITE; }
static inline uint64_t pm_mkcont(uint64_t v) { return v | PTE_BIT_CONT; }
static inline uint64_t pm_mknoncont(uint64_t v) { return v & ~PTE_BIT_CONT; }

/* pte_same: RDONLY is ignored for present entries (hardware may clear it). */
static inline bool pm_same(uint64_t a, uint64_t b)
{
	if (pm_valid(a) && pm_valid(b))
		return (a & ~PTE_BIT_RDONLY) == (b & ~PTE_BIT_RDONLY);
	return a == b;
}

/*
 * The mapping content of an entry: what it maps and with which permissions,
 * with the access/dirty state removed (mkold(mkclean(v))). Hardware never
 * changes it; only software writers do.
 */
static inline uint64_t pm_content(uint64_t v) { return pm_mkold(pm_mkclean(v)); }

/* The content entry j of a contiguous block must have if entry t has v. */
static inline uint64_t pm_content_at(uint64_t v, unsigned t, unsigned j,
				     unsigned page_shift)
{
	uint64_t pfn = pm_pfn(v, page_shift) - t + j;
	return pm_content(pm_pfn_pte(pfn, pm_pgprot(v, page_shift), page_shift));
}

/* Compact text form for reports: pfn and the flag letters. */
struct pm_str { char s[96]; };
struct pm_str pm_format(uint64_t v, unsigned page_shift);

#endif
