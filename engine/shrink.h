/*
 * engine/shrink.h - make a violating script small while it still violates
 * the same property: greedy passes that drop threads, instructions,
 * schedule entries and block attributes, and shorten runs, each kept only
 * if the engine still reports a violation of the same signature (kind, op
 * and function: core/finding.h; so that a bug never turns into another,
 * a known one above all); at the end the
 * whole schedule up to the violation is spelled out, so the script does
 * not depend on its seeded tail. (tools/minimize
 * does the byte-level version with afl-tmin; this one works on the
 * script's structure and is what tools/explore applies to its finds.)
 */
#ifndef ENGINE_SHRINK_H
#define ENGINE_SHRINK_H

#include "core/violation.h"
#include "engine/run.h"
#include "engine/script.h"

/* Returns the number of successful reductions; s is replaced by the
 * smallest script found that still violates with v's signature. o's policy
 * is ignored (scripts replay). */
unsigned shrink_script(struct script *s, const struct run_opts *o, const struct violation *v);

#endif
