/* core/fault.c - the faulting agent (see core/fault.h). */
#include "core/fault.h"

#include <stdio.h>

#include "core/access.h"
#include "core/finding.h"
#include "core/oracle/history.h"
#include "core/rcu.h"
#include "core/rcu_tsan.h"

enum walk { WALK_OK, WALK_NOT_OURS, WALK_FAULT };

/* What the device needs of the one descriptor it walked. */
static enum walk needs(uint64_t v, bool write)
{
	if (!pm_valid(v))
		return WALK_NOT_OURS;             /* not present: core-mm maps it */
	if (write && !pm_write(v))
		return WALK_NOT_OURS;             /* copy on write: another path */
	if (!pm_young(v) || (write && pm_rdonly(v)))
		return WALK_FAULT;                /* no hardware AF / DBM: a fault */
	return WALK_OK;
}

/* Inside its own RCU read-side section, through the table pointer. */
static uint64_t *entry_of(struct harness_mm *m, unsigned lt, unsigned b, unsigned j)
{
	struct slot_hdr *slot = rcu_dereference(m->tables[lt]);

	TSAN_RCU_CONSUME(slot);
	return hmm_slot_entries(m, slot) + b * m->cont + j;
}

struct fault_rec {
	uint64_t seen, orig;
	int fixed;                /* the fix-up ran ptep_set_access_flags */
	int ret;
};

static void report_loop(struct fault_env *e, unsigned lt, unsigned b, unsigned j, bool write,
			const struct fault_rec *log, unsigned nlog, const char *fixed_fn,
			struct violation *out)
{
	struct harness_mm *m = e->m;
	unsigned shift = m->g->page_shift;
	const struct block_hist *h = hmm_hist(m, lt, b);
	const uint64_t *blk = hmm_slot_entries(m, m->tables[lt]) + b * m->cont;
	size_t off = 0;

	out->kind = VK_FAULT_LOOP;
	/* its function: the one the fix-ups that asked ptep_set_access_flags
	 * entered (core/finding.h), not a last one that was skipped */
	finding_set(out, "fault", fixed_fn ? fixed_fn : acc_self.subj.fn, NULL);
	snprintf(out->summary, sizeof(out->summary),
		 "fault_loop: a device without hardware AF/DBM %s table %u block %u entry %u and faulted "
		 "%u times on it unchanged: each fix-up left the entry itself without %s",
		 write ? "wrote" : "read", lt, b, j, nlog, write ? "AF and write access" : "AF");
	off += snprintf(out->detail + off, sizeof(out->detail) - off,
			"  the device walks the one descriptor; core-mm's fix-up reads the entry with\n"
			"  ptep_get_lockless, then under the PTL calls ptep_set_access_flags(mkyoung(%sthat%s))\n"
			"  fault  the entry as the device read it                  the lockless read         fix-up\n",
			write ? "mkdirty(" : "", write ? ")" : "");
	for (unsigned i = 0; i < nlog && off < sizeof(out->detail) - 300; i++)
		off += snprintf(out->detail + off, sizeof(out->detail) - off, "  %4u   %-52s %-24s %s\n", i + 1,
				pm_format(log[i].seen, shift).s, i + 1 == nlog ? "" : pm_format(log[i].orig, shift).s,
				i + 1 == nlog ? "(past the bound: reported)"
				: !log[i].fixed ? "skipped (ptep_get had changed)"
				: log[i].ret ? "ptep_set_access_flags returned 1" : "ptep_set_access_flags returned 0");
	off += snprintf(out->detail + off, sizeof(out->detail) - off, "  the block now:\n");
	for (unsigned i = 0; i < m->cont && off < sizeof(out->detail) - 300; i++)
		off += snprintf(out->detail + off, sizeof(out->detail) - off, "  %3u%s %s\n", i,
				i == j ? "*" : " ", pm_format(acc_peek(&blk[i]), shift).s);
	off += snprintf(out->detail + off, sizeof(out->detail) - off,
			"  software history of entry %u, newest first:\n", j);
	history_print_entry(h, j, 0, 8, shift, out->detail, sizeof(out->detail), &off);
}

int fault_access(struct fault_env *e, unsigned lt, unsigned b, unsigned j, bool write,
		 struct violation *out)
{
	struct harness_mm *m = e->m;
	const struct block_hist *h = hmm_hist(m, lt, b);
	struct fault_rec log[FAULT_MAX_TRIES];
	uint64_t prev_seen = 0, prev_rec = 0;
	unsigned repeats = 0;
	const char *fixed_fn = NULL;    /* the last fix-up's function that ran set_access_flags */

	for (unsigned tries = 0; tries < FAULT_MAX_TRIES; tries++) {
		uint64_t rec, seen, orig, *p;
		struct op_args a = { .s = j, .flags = OPF_AF_FIXUP | (write ? OPF_AF_WRITE : OPF_AF_READ) };
		bool still;
		int touched, ok;

		if (e->stopping(e))
			return 0;
		/* the newest software store to the entry, before the walk: one
		 * that the walk sees but this misses shows at the next fault */
		rec = atomic_load_explicit(&h->last[j], memory_order_acquire);
		rcu_read_lock();
		p = entry_of(m, lt, b, j);
		seen = acc_load(p);
		still = needs(acc_peek(p), write) == WALK_FAULT;
		TSAN_RCU_READ_END();
		rcu_read_unlock();
		if (needs(seen, write) != WALK_FAULT)
			return 0;
		/* the same fault again: nothing changed the entry since the last
		 * fix-up, and it is no stale read (memory still faults) */
		if (tries && seen == prev_seen && rec == prev_rec && still)
			repeats++;
		else
			repeats = 0;
		log[tries].seen = seen;
		log[tries].orig = 0;
		log[tries].fixed = log[tries].ret = 0;
		if (repeats >= FAULT_LOOP_BOUND) {
			report_loop(e, lt, b, j, write, log, tries + 1, fixed_fn, out);
			return 1;
		}
		prev_seen = seen;
		prev_rec = rec;

		/* core-mm: vmf->orig_pte = ptep_get_lockless(), then the PTL */
		rcu_read_lock();
		if (hmm_exit_seq(m, lt) & 1) {
			/* the process is gone: its fault is not served */
			rcu_read_unlock();
			return 0;
		}
		if (e->reading)
			e->reading(e, lt, b, j, true);
		p = entry_of(m, lt, b, j);
		orig = m->v->ptep_get_lockless(p);
		TSAN_RCU_READ_END();
		rcu_read_unlock();
		if (e->reading)
			e->reading(e, lt, b, j, false);
		log[tries].orig = a.entry = orig;
		e->lock(e, lt);
		log[tries].fixed = op_run(m, e->w, e->plans, lt, b, OP_ACCESS_FLAGS, &a, &touched);
		if (log[tries].fixed)
			fixed_fn = acc_self.subj.fn;
		log[tries].ret = e->w->has_ret && e->w->ret;
		e->fixups++;
		ok = op_verdict(m, e->w, lt, touched, out);
		e->w->consumes = 0;
		e->unlock(e, lt);
		if (!ok)
			return 1;
	}
	return 0;
}
