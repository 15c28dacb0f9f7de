/* engine/shrink.c - structural minimisation (see engine/shrink.h). */
#include "engine/shrink.h"

#include <string.h>

#include "core/finding.h"

static const struct run_opts *opts;
static struct violation want;     /* its signature: kind, op, function */

static bool still_fails(const struct script *s)
{
	static uint8_t bin[SCRIPT_MAX_BYTES];
	static struct script chk;
	struct script_error err;
	struct run_opts o = *opts;
	struct run_result r;

	/* only scripts that are valid in both forms */
	if (script_decode(bin, script_encode(s, bin), &chk, &err))
		return false;
	o.policy.kind = ES_SCRIPT;
	o.record_events = false;
	run_script(s, &o, &r);
	return r.status == RS_VIOLATION && finding_same(&r.vio, &want);
}

static bool drop_thread(struct script *s, unsigned t)
{
	struct script c = *s;
	unsigned n = 0;

	if (c.nthreads < 2)
		return false;
	for (unsigned u = t; u + 1 < c.nthreads; u++) {
		c.ninstr[u] = c.ninstr[u + 1];
		memcpy(c.prog[u], c.prog[u + 1], sizeof(c.prog[u]));
	}
	c.nthreads--;
	c.ninstr[c.nthreads] = 0;
	for (unsigned i = 0; i < s->nsched; i++) {
		unsigned tid = s->sched[i] & 7;

		if (tid == t)
			continue;
		c.sched[n++] = (uint8_t)((s->sched[i] & ~7u) | (tid > t ? tid - 1 : tid));
	}
	c.nsched = n;
	/* the thread's TLB goes with it */
	n = 0;
	for (unsigned i = 0; i < s->ntlb_init; i++) {
		unsigned tid = s->tlb_init[i].thread;

		if (tid == t)
			continue;
		c.tlb_init[n] = s->tlb_init[i];
		c.tlb_init[n++].thread = (uint8_t)(tid > t ? tid - 1 : tid);
	}
	c.ntlb_init = n;
	if (!still_fails(&c))
		return false;
	*s = c;
	return true;
}

/* One of the TLBs' initial translations (a tlb_entry line). */
static bool drop_tlb_init(struct script *s, unsigned i)
{
	struct script c = *s;

	memmove(&c.tlb_init[i], &c.tlb_init[i + 1], (c.ntlb_init - i - 1) * sizeof(c.tlb_init[0]));
	c.ntlb_init--;
	if (!still_fails(&c))
		return false;
	*s = c;
	return true;
}

static bool drop_instr(struct script *s, unsigned t, unsigned i)
{
	struct script c = *s;

	memmove(&c.prog[t][i], &c.prog[t][i + 1], (c.ninstr[t] - i - 1) * sizeof(struct instr));
	c.ninstr[t]--;
	if (!still_fails(&c))
		return false;
	*s = c;
	return true;
}

static bool drop_sched(struct script *s, unsigned i, unsigned k)
{
	struct script c = *s;

	if (i + k > c.nsched)
		return false;
	memmove(&c.sched[i], &c.sched[i + k], c.nsched - i - k);
	c.nsched -= k;
	if (!still_fails(&c))
		return false;
	*s = c;
	return true;
}

static bool try_variant(struct script *s, const struct script *c)
{
	if (!memcmp(s, c, sizeof(*s)) || !still_fails(c))
		return false;
	*s = *c;
	return true;
}

/* Merge neighbouring entries of one thread, or shorten a run. */
static bool tweak_sched(struct script *s, unsigned i)
{
	struct script c = *s;
	unsigned t = s->sched[i] & 7, r = (s->sched[i] >> 3) + 1;

	if (i + 1 < s->nsched && (s->sched[i + 1] & 7) == t) {
		unsigned r2 = (s->sched[i + 1] >> 3) + 1;

		if (r + r2 <= 32) {
			c.sched[i] = (uint8_t)(t | (r + r2 - 1) << 3);
			memmove(&c.sched[i + 1], &c.sched[i + 2], c.nsched - i - 2);
			c.nsched--;
			if (try_variant(s, &c))
				return true;
			c = *s;
		}
	}
	if (r > 1) {
		c.sched[i] = (uint8_t)(t | (r / 2 - 1) << 3);
		if (try_variant(s, &c))
			return true;
	}
	return false;
}

unsigned shrink_script(struct script *s, const struct run_opts *o, const struct violation *v)
{
	unsigned wins = 0;
	bool progress = true;

	opts = o;
	want.kind = v->kind;
	want.op = v->op;
	want.function = v->function;
	if (!still_fails(s))
		return 0;
	while (progress) {
		progress = false;
		for (unsigned t = s->nthreads; t-- > 0;)
			if (drop_thread(s, t))
				progress = true, wins++;
		for (unsigned t = 0; t < s->nthreads; t++)
			for (unsigned i = s->ninstr[t]; i-- > 0;)
				if (drop_instr(s, t, i))
					progress = true, wins++;
		for (unsigned i = s->ntlb_init; i-- > 0;)
			if (drop_tlb_init(s, i))
				progress = true, wins++;
		/* schedule: big chunks first, then single entries */
		for (unsigned k = s->nsched / 2; k >= 1; k /= 2)
			for (unsigned i = 0; i + k <= s->nsched;)
				if (drop_sched(s, i, k))
					progress = true, wins++;
				else
					i += k;
		for (unsigned i = 0; i < s->nsched; i++)
			while (tweak_sched(s, i))
				progress = true, wins++;
		/* simpler initial states and instruction flags */
		for (unsigned b = 0; b < s->nblocks; b++) {
			struct script c = *s;

			for (unsigned bit = 1; bit < 0x100; bit <<= 1) {
				c = *s;
				if (c.block[b].flags & bit) {
					c.block[b].flags &= (uint8_t)~bit;
					if (try_variant(s, &c))
						progress = true, wins++;
				}
			}
		}
		for (unsigned t = 0; t < s->nthreads; t++)
			for (unsigned i = 0; i < s->ninstr[t]; i++)
				for (unsigned bit = 1; bit < 0x100; bit <<= 1) {
					struct script c = *s;

					if (c.prog[t][i].flags & bit) {
						c.prog[t][i].flags &= (uint8_t)~bit;
						if (try_variant(s, &c))
							progress = true, wins++;
					}
				}
		if (s->nblocks > 1) {
			struct script c = *s;

			c.nblocks--;
			c.block[c.nblocks].shape = 0;
			c.block[c.nblocks].flags = 0;
			if (try_variant(s, &c))
				progress = true, wins++;
		}
	}
	/* Spell out the whole schedule the run takes up to the violation
	 * (under arm, and the memory model's choices), so the script does not
	 * depend on its seeded tails (docs/script-format.md: they are seeded
	 * from the script's bytes, which the new schedule changes) and its
	 * schedule and choices lines alone tell the interleaving. */
	{
		static struct script c;
		struct run_opts ro = *o;
		struct run_result r;

		ro.policy.kind = ES_SCRIPT;
		ro.record_events = false;
		run_script(s, &ro, &r);
		c = *s;
		if (r.status == RS_VIOLATION &&
		    script_take_whole(&c, r.taken, r.ntaken, r.taken_choices, r.ntaken_choices) &&
		    still_fails(&c))
			*s = c;
	}
	return wins;
}
