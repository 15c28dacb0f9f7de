/*
 * core/violation.h - what the oracle reports. Kinds are the properties of
 * docs/contract.md; names are stable (tests and corpora refer to them).
 */
#ifndef CORE_VIOLATION_H
#define CORE_VIOLATION_H

#include <stdbool.h>
#include <stddef.h>

enum vkind {
	VK_NONE,
	VK_TORN,        /* torn_mapping: content the target never held in the window */
	VK_PHANTOM,     /* phantom_bit: young/dirty no matching entry had */
	VK_LOST,        /* lost_bit: young/dirty an entry kept throughout is missing */
	VK_LIVELOCK,    /* livelock: no return within the retry bound once writers stop */
	VK_DIRTY_LOST,  /* dirty_lost: a writer undid hardware's dirtying */
	VK_YOUNG_LOST,  /* young_lost: a writer undid hardware's access flag */
	VK_UAF,         /* use_after_free: table read after its grace period */
	/* what writers promise (docs/contract.md, "Writer postconditions") */
	VK_STILL_WRITABLE, /* still_writable: wrprotect left an entry hardware may write */
	VK_NOT_AGED,    /* not_aged: an aging op never cleared an entry's AF */
	VK_NOT_CLEANED, /* not_cleaned: MADV_FREE never cleared an entry's dirty state */
	VK_WRONG_RETURN, /* wrong_return: an op's return value contradicts the table */
	VK_FLAGS_NOT_SET, /* flags_not_set: set_access_flags left the target without them */
	VK_WRONG_MAPPING, /* wrong_mapping: an op left a mapping it does not promise */
	VK_MIXED_BLOCK, /* mixed_block: a block partly CONT when the PTL is released */
	VK_FAULT_LOOP,  /* fault_loop: a device faults on an unchanged entry for ever */
	VK_OOB,         /* out_of_bounds: an access outside the op's blocks or the table */
	VK_HANG,        /* hang: a subject's function did not return (watchdog) */
	VK_PLAIN_ACCESS,/* plain_access: a subject read or wrote an entry without the access layer */
	/* the TLB model (--tlb, core/tlb.h, docs/tlb.md) */
	VK_STALE_TLB,   /* stale_tlb_access: an access through a translation a completed change removed */
	VK_TLB_CONFLICT,/* tlb_conflict: two overlapping translations of one address in one TLB */
	VK_BBM,         /* bbm_violation: a valid entry's address or CONT changed without break-before-make */
	VK_CONT_MISMATCH, /* cont_mismatch: a walk of a CONT block whose valid entries disagree (docs/tlb.md) */
	VK_COUNT
};

const char *vkind_name(enum vkind k);
/* VK_NONE if unknown. */
enum vkind vkind_by_name(const char *name);
/* "a, b, c" list of every kind name, for usage messages. */
const char *vkind_names(void);

struct violation {
	enum vkind kind;
	/* a read's violation: the block read and its target entry, and the
	 * entries the verdict names (bit j of named: entry j), so pictures can
	 * highlight them; has_read false for every other kind */
	bool has_read;
	unsigned lt, block, target;
	unsigned long long named[2];
	/* which bug it is (core/finding.h, docs/contract.md "Which bug"):
	 * who detected it (a writer op's name, "read", "fault", "hw", ...),
	 * the subject's function it was detected in or at the return of
	 * (NULL: none of the subject's own files), and the subject's access
	 * it was detected at (NULL: judged on what a call returned or left) */
	const char *op;
	const char *function;
	const void *pc;
	char summary[256];     /* one line */
	char detail[8192];     /* the entries involved, expected vs. observed */
};

/* An empty report, without zeroing its 8 KB of text (probe_judge clears
 * one on every read; it is filled in on a violation only). */
static inline void violation_clear(struct violation *v)
{
	v->kind = VK_NONE;
	v->has_read = false;
	v->lt = v->block = v->target = 0;
	v->named[0] = v->named[1] = 0;
	v->op = v->function = NULL;
	v->pc = NULL;
	v->summary[0] = v->detail[0] = 0;
}

#endif
