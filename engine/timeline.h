/*
 * engine/timeline.h - a run's interleaving as a picture: one column per
 * thread, one row per access (what was accessed, value before -> after),
 * the instruction each access belongs to, and the violation at the end.
 * As text (tools/repro's output) and as an SVG file.
 */
#ifndef ENGINE_TIMELINE_H
#define ENGINE_TIMELINE_H

#include <stdio.h>

#include "engine/run.h"

void timeline_print(FILE *f, const struct script *s, const struct run_result *r);
/* 0, or -1 with a message on stderr. */
int timeline_svg(const char *path, const struct script *s, const struct run_result *r);

#endif
