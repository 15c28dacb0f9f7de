/*
 * core/violation.h - what the oracle reports. Kinds are the properties of
 * docs/contract.md; names are stable (tests and corpora refer to them).
 */
#ifndef CORE_VIOLATION_H
#define CORE_VIOLATION_H

#include <stdbool.h>

enum vkind {
	VK_NONE,
	VK_TORN,        /* torn_mapping: content the target never held in the window */
	VK_PHANTOM,     /* phantom_bit: young/dirty no matching entry had */
	VK_LOST,        /* lost_bit: young/dirty an entry kept throughout is missing */
	VK_LIVELOCK,    /* livelock: no return within the retry bound once writers stop */
	VK_DIRTY_LOST,  /* dirty_lost: a writer undid hardware's dirtying */
	VK_YOUNG_LOST,  /* young_lost: a writer undid hardware's access flag */
	VK_UAF,         /* use_after_free: table read after its grace period */
	VK_PLAIN_ACCESS,/* plain_access: a subject read or wrote an entry without the access layer */
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
	char summary[256];     /* one line */
	char detail[8192];     /* the entries involved, expected vs. observed */
};

#endif
