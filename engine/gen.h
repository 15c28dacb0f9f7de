/*
 * engine/gen.h - random programs for the baseline strategies (random, PCT):
 * a reader thread, a writer thread, a hardware thread and sometimes a
 * second writer or reader, over one or two blocks in random initial states.
 * Every generated script is valid (instr_valid) and has no schedule: the
 * strategy supplies it.
 */
#ifndef ENGINE_GEN_H
#define ENGINE_GEN_H

#include <stdint.h>

#include "engine/script.h"

void gen_script(struct script *s, unsigned granule_kb, const char *variant, uint64_t *rng);

#endif
