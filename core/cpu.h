/*
 * core/cpu.h - the CPU the harness models, as the code under test asks
 * about it: its BBML2 kind, and the answer of every capability probe the
 * harness does not model (docs/tlb.md, docs/kernel-tree.md).
 *
 * BBML2 comes in two kinds. A BBML2_NOABORT CPU never raises a TLB
 * conflict abort: system_supports_bbml2_noabort() (and its newer name
 * system_supports_bbml3(): FEAT_BBML3 is BBML2_NOABORT made architectural)
 * and system_supports_bbml2() are all true, and a TLB keeps one
 * translation of an address. A plain BBML2 CPU may raise one: system_supports_bbml2()
 * is true, system_supports_bbml2_noabort() false, and a TLB may hold two
 * translations of one address of different sizes, a lookup that matches
 * both being a tlb_conflict (core/tlb.c). Either kind allows a change of
 * the contiguous bit without break-before-make (core/bbm.c).
 *
 * A capability probe the harness does not model (a system_supports_*(),
 * system_uses_*() or system_has_*() the shim has no answer for, a
 * cpus_have_*cap(ARM64_*)) is answered false unless --cap NAME=1 says
 * otherwise; the subject names the probes it asks (kc_caps_asked) and the
 * start-up report lists them, so the answer is never a silent one.
 */
#ifndef CORE_CPU_H
#define CORE_CPU_H

#include <stdbool.h>
#include <stddef.h>

enum cpu_bbml2 {
	CPU_BBML2_NONE,      /* a change of size needs break-before-make */
	CPU_BBML2_NOABORT,   /* BBML2_NOABORT: never a TLB conflict abort */
	CPU_BBML2_ABORT,     /* BBML2 that may raise a TLB conflict abort */
};
/* The run's kind (enum cpu_bbml2): --bbml2[=noabort|abort], a script's
 * bbml2 line. */
extern int kc_bbml2;
/* "off", "noabort", "abort" by kind. */
extern const char *const cpu_bbml2_names[3];
/* The kind a --bbml2=VALUE names, or -1. */
int cpu_bbml2_by_name(const char *name);

/* ---- capability probes the harness does not model ---------------------- */
#define CPU_CAPS_MAX 16
#define CPU_CAP_NAME_MAX 64

/* --cap NAME=0|1: the answer of the probe NAME (a system_supports_*() by
 * its function's name, a cpus_have_*cap() by its ARM64_* capability). 0,
 * or -1 with the reason in err. */
int cpu_cap_option(const char *arg, char *err, size_t errlen);
/* Whether arg is a valid NAME=0|1 (0), without setting it. */
int cpu_cap_valid(const char *arg, char *err, size_t errlen);
/* A script's settings ("NAME=0 NAME=1", its cap lines): each unless a
 * --cap set the same name. 0, or -1 with the reason in err. */
int cpu_caps_apply(const char *caps, char *err, size_t errlen);
/* The --cap settings, "NAME=0 NAME=1" (what a saved script records). */
size_t cpu_caps_given(char *buf, size_t len);
/* What the probe NAME answers: its --cap, else false. */
bool cpu_cap_value(const char *name);
/* The subject's probes (space-separated names), from its describe hook;
 * each call adds to the list. */
void cpu_caps_asked(const char *names);
/* After the subject described itself: every --cap names a probe it asks,
 * else one line on stderr (prog: ...) and 1. */
int cpu_caps_check(const char *prog);
/* The subject's probes with their answers, "NAME=0 NAME=1" ("" if none). */
size_t cpu_caps_format(char *buf, size_t len);
/* The start-up report's line, on stderr, if the subject asks any:
 *   PREFIX: capability probes the harness does not model (false unless --cap NAME=1): NAME=0 NAME=1
 */
void cpu_caps_report(const char *prefix);
/* The same for a JSON summary: "bbml2": "...", "caps": {"NAME": 0, ...}
 * (members of an object: no braces around them, no comma after). */
size_t cpu_json_format(char *buf, size_t len);
/* Forget every --cap and every asked name (tests). */
void cpu_caps_reset(void);

#endif
