/*
 * core/finding.h - which bug a violation is, and the bugs the caller
 * already knows about.
 *
 * A finding's signature is kind:op:function (docs/contract.md, "Which bug:
 * a finding's signature"):
 *   kind      the violation kind (core/violation.h)
 *   op        who detected it: a writer op's name (core/ops.c's op table),
 *             "read" (the lockless reader), "read_locked" (the locked
 *             reader), "fault" (the faulting device and its fix-ups), "hw"
 *             (a hardware agent's access through its TLB), "still" (the
 *             owed-bits check of a still phase), "end" (the end-of-run
 *             check); FINDING_ROLES lists the fixed ones
 *   function  the function of the subject's own files the op's last call
 *             into the subject entered first (a kernel tree's contpte.c
 *             function, else its asm/pgtable.h one: kernel_tree/glue.h
 *             records them), "-" when there is none (built-in variants,
 *             plug-in files, the project's own code)
 * and a location for display only (core/where.h): the file:line of the
 * access it was detected at, or of the function it was judged on.
 *
 * The drivers tell every violation they report to finding_note: a known
 * signature (--known, FUZZ_KNOWN) is counted and does not end the run; any
 * other is a finding, counted per signature. The stress driver calls it
 * under its report lock, the engine from its one thread.
 */
#ifndef CORE_FINDING_H
#define CORE_FINDING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/violation.h"

/* The ops that are no writer op (a writer op's op is its name in op_desc). */
#define FINDING_ROLES "read", "read_locked", "fault", "hw", "still", "end"

/* A driver's thread starts a writer op, a read or a fault: op is its name
 * (a string that lives as long as the program); what the thread's calls
 * into the subject record starts afresh. */
void finding_begin(const char *op);

/* Fill in v's op, function and access from the calling thread's record
 * (acc_self.subj), unless its kind is identified where it is detected
 * (bbm_violation, stale_tlb_access, tlb_conflict, hang: finding_set). */
void finding_identify(struct violation *v);
/* Detection sites: v's identity as given. */
void finding_set(struct violation *v, const char *op, const char *function, const void *pc);
/* v's function, or "-". */
const char *finding_function(const struct violation *v);
/* Do a and b have the same signature? */
bool finding_same(const struct violation *a, const struct violation *b);
/* "kind:op:function" into buf. */
const char *finding_signature(const struct violation *v, char *buf, size_t len);
/* Is v's kind detected at an access (its location is that access's line)? */
bool finding_at_access(enum vkind kind);

/* ---- the caller's known bugs -------------------------------------------- */
/* Add known signatures: "kind:op:function[,...]" (op or function "*": any).
 * 0, or -1 with the reason in err (an unknown kind or op, a malformed one). */
int finding_known_add(const char *list, char *err, size_t errlen);
/* ... one a line from a file: each line's first word ('#' starts a
 * comment; blank lines skipped), so a table whose first column is the
 * signature (kernel_tree/known_bugs.tsv) is such a file. */
int finding_known_file(const char *path, char *err, size_t errlen);
unsigned finding_known_count(void);

/* ---- what a run saw ------------------------------------------------------ */
struct finding {
	enum vkind kind;
	const char *op, *function;
	const void *pc;               /* the first one's access (its location) */
	char summary[256];            /* the first one's */
	uint64_t count;
	double first_s;               /* seconds from finding_reset (the run's start) */
};

/* Count v (identify it first). True if its signature is known; *first (may
 * be NULL) says whether it is the first of its signature. */
bool finding_note(const struct violation *v, bool *first);
/* Is v known (without counting it)? */
bool finding_is_known(const struct violation *v);
/* The distinct findings (not known), in the order first seen. */
unsigned finding_count(void);
const struct finding *finding_at(unsigned i);
/* Forget what was counted (the known list stays); the run's clock starts. */
void finding_reset(void);

/* JSON: the fields "findings": [...], "known": [...] (no braces around
 * them, no comma after): every distinct finding with its kind, op,
 * function, where, count, first_s and summary; every known signature with
 * its count and first_s (null if never seen). */
void finding_json(FILE *f);
/* s as a JSON string (quoted, escaped). */
void finding_json_str(FILE *f, const char *s);
/* v as a JSON object: kind, op, function, signature, where, summary, and
 * script when not NULL. */
void finding_json_violation(FILE *f, const struct violation *v, const char *script);
/* Violations of known signatures counted since finding_reset. */
uint64_t finding_known_total(void);
/* "finding: kind:op:function at WHERE" and, when the access lies in a
 * callee of the function, "  detected at: CHAIN" (core/where.h), each line
 * prefixed. */
void finding_print_one(FILE *f, const char *prefix, const struct violation *v);
/* One line per known signature seen: "known SIG: N times, first at S s
 * (counted, not reported)", prefixed. */
void finding_print_known(FILE *f, const char *prefix);
/* One line per distinct finding, each prefixed: "kind:op:function at
 * WHERE, N times, first at S s: SUMMARY"; then the known ones seen. */
void finding_print(FILE *f, const char *prefix);

#endif
