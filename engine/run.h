/*
 * engine/run.h - run one script on the deterministic engine: the variant's
 * own readers and writers, the hardware agent and RCU table lifetime of
 * core/, each thread a coroutine of engine/sched.h, every read judged by
 * core/oracle/ exactly as in stress mode.
 */
#ifndef ENGINE_RUN_H
#define ENGINE_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "core/mm.h"
#include "core/oracle/oracle.h"
#include "core/variant.h"
#include "core/violation.h"
#include "engine/sched.h"
#include "engine/script.h"

enum run_status { RS_CLEAN, RS_VIOLATION, RS_LIMIT, RS_ERROR };

struct run_opts {
	const struct variant *variant;   /* NULL: the script's variant, by name */
	struct eng_policy policy;        /* kind ES_SCRIPT: the script's schedule */
	bool record_events;              /* keep the full access trace (engine/sched.h) */
	void (*feature)(uint32_t f);     /* interleaving coverage, or NULL */
	bool bbml2;
	uint64_t step_limit;             /* 0: default */
};

struct run_result {
	enum run_status status;
	struct violation vio;
	int vio_tid, vio_instr;          /* where the violation showed (-1: end-of-run check) */
	uint64_t steps, hash;
	unsigned reads, ops, touches, gps, faults, fixups;
	unsigned known;                  /* violations of known signatures (core/finding.h) */
	struct judge_stats judged;
	char error[256];                 /* RS_ERROR: why */
	/* the schedule the engine actually took (run-length encoded like a
	 * script's; random and PCT runs save it to replay bit for bit) */
	const uint8_t *taken;
	unsigned ntaken;
	/* under arm: the memory model's choices taken (a script saves them) */
	const uint8_t *taken_choices;
	unsigned ntaken_choices;
	struct mem_stats mem;
	const struct eng_event *events;
	unsigned nevents;
	const struct harness_mm *m;      /* the segment the offsets refer to */
};

/* Run s. Returns r->status. The variant must be registered in this binary
 * (script variant "plugin" with a plug-in build). */
enum run_status run_script(const struct script *s, const struct run_opts *o,
			   struct run_result *r);

/* "baseline", ... for a script's granule; NULL with a message in err. */
const struct variant *run_find_variant(const char *name, unsigned granule_kb, char *err,
				       size_t errlen);

/* One line: "clean", "violation phantom_bit", "step limit", "error: ...". */
const char *run_status_text(const struct run_result *r, char *buf, size_t len);
/* Does r match the script's expect line? (true if it has none) */
bool run_meets_expect(const struct script *s, const struct run_result *r);

#endif
