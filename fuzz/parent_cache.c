/* fuzz/parent_cache.c - see fuzz/parent_cache.h. */
#include "fuzz/parent_cache.h"

#include <stdlib.h>
#include <string.h>

struct parent_cache_entry {
	uint64_t hash;
	size_t klen, vlen;
	uint8_t data[];         /* the key, then the value */
};

static size_t entry_size(size_t klen, size_t vlen)
{
	return sizeof(struct parent_cache_entry) + klen + vlen;
}

const void *parent_cache_get(struct parent_cache *c, uint64_t hash, const uint8_t *key, size_t klen,
			     size_t *vlen)
{
	struct parent_cache_entry *e = c->slot[hash % PARENT_CACHE_SLOTS];

	if (!e || e->hash != hash || e->klen != klen || memcmp(e->data, key, klen))
		return NULL;
	c->hits++;
	*vlen = e->vlen;
	return e->data + klen;
}

void *parent_cache_put(struct parent_cache *c, uint64_t hash, const uint8_t *key, size_t klen,
		       size_t vlen)
{
	struct parent_cache_entry **slot = &c->slot[hash % PARENT_CACHE_SLOTS], *e;
	size_t old = *slot ? entry_size((*slot)->klen, (*slot)->vlen) : 0;

	if (c->bytes - old + entry_size(klen, vlen) > PARENT_CACHE_BYTES)
		return NULL;
	if (!(e = malloc(entry_size(klen, vlen))))
		return NULL;
	free(*slot);
	c->bytes = c->bytes - old + entry_size(klen, vlen);
	*slot = e;
	e->hash = hash;
	e->klen = klen;
	e->vlen = vlen;
	memcpy(e->data, key, klen);
	return e->data + klen;
}

void parent_cache_clear(struct parent_cache *c)
{
	for (size_t i = 0; i < PARENT_CACHE_SLOTS; i++) {
		free(c->slot[i]);
		c->slot[i] = NULL;
	}
	c->bytes = 0;
}
