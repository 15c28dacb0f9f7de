/*
 * stage2/runtime/finding.h - which bug a stage-2 violation is, and the
 * bugs the caller already knows about (docs/stage2.md, "Which bug").
 *
 * A violation's signature is kind:op:function:
 *   kind      its kind (s2_vkind_name)
 *   op        who detected it: the harness's op the thread was running
 *             (s2_ops[].name: fault, unmap, age, ...), "hw" (a vCPU's
 *             hardware walk or access-flag update), "setup" and "teardown"
 *             (the VM's), "rcu_free" (an RCU callback freeing an unlinked
 *             table), "end" (the checks at quiescence and after teardown,
 *             and a hang)
 *   function  the tree's function that op calls (s2_ops[].tree_fn), "-"
 *             when there is none
 * A known signature (--known; "*" for any op or function) is counted when
 * it is reported and the run goes on; any other ends the run as before.
 */
#ifndef STAGE2_RUNTIME_FINDING_H
#define STAGE2_RUNTIME_FINDING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "stage2/runtime/s2.h"

/* The op and function of a violation detected by thread t now. */
const char *s2_finding_op(const struct s2_thread *t);
const char *s2_finding_fn(const struct s2_thread *t);
/* "kind:op:function" into buf. */
const char *s2_signature(const struct s2_violation *v, char *buf, size_t len);

/* Add known signatures, "SIG[,SIG...]", or one a line from a file (its
 * first word; '#' comments): 0, or -1 with the reason in err. */
int s2_known_add(const char *list, char *err, size_t errlen);
int s2_known_file(const char *path, char *err, size_t errlen);
unsigned s2_known_count(void);
/* Is this violation's signature known? If so it is counted (at_s: its time). */
bool s2_known_note(enum s2_vkind k, const char *op, const char *fn, double at_s);
/* Known violations counted (since the start, or s2_known_reset). */
uint64_t s2_known_total(void);
void s2_known_reset(void);

/* JSON fields "findings": [...], "known": [...] (no braces, no comma
 * after): the run's finding v (NULL: none) with its
 * signature, kind, op, function, where, count, first_s and summary; every
 * known signature with its count and first_s (null if never seen). */
void s2_findings_json(FILE *f, const struct s2_violation *v);
/* "PREFIXfinding: SIG at WHERE" (v NULL: none), and a line per known
 * signature seen. */
void s2_finding_print(FILE *f, const char *prefix, const struct s2_violation *v);

#endif
