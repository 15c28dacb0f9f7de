/* engine/gen.c - random programs (see engine/gen.h). */
#include "engine/gen.h"

#include <string.h>

#include "core/rng.h"

/* A writer op, picked by the op table's weights, with random arguments. */
static void random_op(struct instr *in, unsigned cont, unsigned nblocks, uint64_t *rng)
{
	enum op op = ops_pick(OPS_ALL, rng);
	struct op_args a;

	memset(in, 0, sizeof(*in));
	in->op = (uint8_t)(SI_OP + op);
	if (op_desc[op].shape != OP_SHAPE_NONE)
		in->block = (uint8_t)rng_below(rng, nblocks);
	op_gen_args(op, cont, rng, &a);
	in->s = (uint8_t)a.s;
	in->n = (uint8_t)a.n;
	in->flags = (uint8_t)a.flags;
}

static void random_read(struct instr *in, unsigned cont, unsigned nblocks, uint64_t *rng,
			bool locked)
{
	memset(in, 0, sizeof(*in));
	in->op = locked ? SI_READ_LOCKED : SI_READ;
	in->block = (uint8_t)rng_below(rng, nblocks);
	in->s = (uint8_t)rng_below(rng, cont);
}

void gen_script(struct script *s, unsigned granule_kb, const char *variant, uint64_t *rng)
{
	unsigned cont = granule_cont(granule_kb);

	memset(s, 0, sizeof(*s));
	s->granule_kb = granule_kb;
	strncpy(s->variant, variant, SCRIPT_NAME_MAX);
	s->nblocks = 1 + rng_below(rng, 2);
	for (unsigned b = 0; b < s->nblocks; b++) {
		s->block[b].shape = (uint8_t)rng_below(rng, BS_COUNT);
		if (s->block[b].shape != BS_NONE)
			s->block[b].flags = (uint8_t)((rng_below(rng, 2) ? OPF_YOUNG : 0) |
						      (rng_below(rng, 3) == 0 ? OPF_DIRTY : 0) |
						      (rng_below(rng, 4) << OPF_PROT_SHIFT));
	}
	s->nthreads = 3 + rng_below(rng, 2);
	bool locked = rng_below(rng, 4) == 0;
	/* thread 0 reads */
	s->ninstr[0] = 1 + rng_below(rng, 3);
	for (unsigned i = 0; i < s->ninstr[0]; i++)
		random_read(&s->prog[0][i], cont, s->nblocks, rng, locked);
	/* thread 1 writes */
	s->ninstr[1] = 1 + rng_below(rng, 4);
	for (unsigned i = 0; i < s->ninstr[1]; i++)
		random_op(&s->prog[1][i], cont, s->nblocks, rng);
	/* thread 2: hardware (a HAFDBS access, or one in four a device
	 * without hardware AF/DBM that faults and is fixed up), and now and
	 * then a grace period */
	s->ninstr[2] = 1 + rng_below(rng, 6);
	for (unsigned i = 0; i < s->ninstr[2]; i++) {
		struct instr *in = &s->prog[2][i];

		memset(in, 0, sizeof(*in));
		if (rng_below(rng, 6) == 0) {
			in->op = SI_GP;
			continue;
		}
		in->op = rng_below(rng, 4) ? SI_TOUCH : SI_FAULT;
		in->block = (uint8_t)rng_below(rng, s->nblocks);
		in->s = (uint8_t)rng_below(rng, cont);
		in->flags = (uint8_t)rng_below(rng, 2);
	}
	/* thread 3: another writer or another reader */
	if (s->nthreads == 4) {
		bool reader = rng_below(rng, 2);

		s->ninstr[3] = 1 + rng_below(rng, 3);
		for (unsigned i = 0; i < s->ninstr[3]; i++) {
			if (reader)
				random_read(&s->prog[3][i], cont, s->nblocks, rng, false);
			else
				random_op(&s->prog[3][i], cont, s->nblocks, rng);
		}
	}
}
