/*
 * stress/driver.h - a stress run: reader, writer and hardware threads on
 * one harness_mm for a bounded time, the oracle judging every read, phases
 * that stop writers and hardware to check progress, a live progress line
 * and a JSON summary. Used by the hammer binary, the stress tests and the
 * plug-in binaries that tools/hammer builds.
 */
#ifndef STRESS_DRIVER_H
#define STRESS_DRIVER_H

#include <stdbool.h>
#include <stdint.h>

#include "core/pte.h"
#include "core/variant.h"
#include "core/violation.h"
#include "stress/delay.h"

struct stress_cfg {
	const struct variant *variant;
	bool locked;                 /* readers take the PTL and use ptep_get */
	bool both_readers;           /* --reader=all (the default): lockless reads
					and, one in four, the locked gather */
	const char *reader_name;     /* --reader as given (lockless, early-exit, ...) */
	unsigned readers, writers, hw;
	unsigned faulters;           /* devices without hardware AF/DBM (core/fault.h) */
	unsigned tables, blocks;
	double seconds;
	uint64_t seed;
	uint32_t ops;                /* mask of enum op */
	unsigned chaos;              /* writers yield 1-in-N accesses (0 = never) */
	struct delay_params delay;   /* timed delays (stress/delay.h) */
	bool pin;                    /* one thread per CPU of the allowed set */
	unsigned expect;             /* mask of 1 << enum vkind; 0: expect a clean run */
	const char *expect_text;     /* as given, e.g. "dirty_lost|young_lost" */
	bool keep_going;
	int bbml2;                  /* enum cpu_bbml2 (core/cpu.h) */
	unsigned tlb;                /* TLB entries per hardware agent (0: no TLB model) */
	int tlb_evict;               /* enum tlb_evict */
	int progress;                /* 1 on, 0 off, -1 = if stderr is a tty */
	char *report_dir;            /* where to write the reproducer, or NULL */
	bool report_dir_create;      /* the default folder: made on first use */
	char *json_path;             /* summary JSON file, or NULL for stdout */
	const char *cmdline;         /* the reproducer's command, less --seed */
};

/* Exit codes: 0 clean (or the expected violation found), 1 violation (or
 * the expected one missing), 2 set-up failure. */
int stress_run(const struct stress_cfg *cfg);

/* Parse argv into cfg (hammer's flags); returns 0, or 2 with a message on
 * stderr for bad usage, or 3 for --help/--list (printed, exit 0). */
int stress_parse_args(int argc, char **argv, struct stress_cfg *cfg);
/* What stress_parse_args allocated in cfg (its paths), freed. */
void stress_cfg_release(struct stress_cfg *cfg);
const char *stress_caller_dir(void);
char *stress_caller_path(const char *p);

#endif
