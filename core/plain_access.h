/*
 * core/plain_access.h - seeing a subject's plain loads and stores of table
 * entries. A plug-in file's or kernel tree's own unit is compiled with
 * clang's load/store tracing (-fsanitize-coverage=func,trace-loads,
 * trace-stores) and calls the access layer out of line (ACC_OUTLINE), so
 * every load or store the compiler emits in it calls a hook here: one that
 * touches a live table page is an access that bypassed READ_ONCE /
 * WRITE_ONCE (a `*ptep` the compiler may tear, fuse or re-load), reported
 * as a plain_access violation through the driver's reporter.
 */
#ifndef CORE_PLAIN_ACCESS_H
#define CORE_PLAIN_ACCESS_H

#include <stddef.h>
#include <stdint.h>

#include "core/violation.h"

/* The table memory of a segment (core/mm.c registers each segment's entry
 * area; at most a few at a time). */
void plain_access_watch(const void *lo, size_t len);
void plain_access_unwatch(const void *lo);

/* Who hears of a plain access (the stress driver, the engine's runner);
 * without one, the report goes to stderr and the process exits 1. */
void plain_access_set_reporter(void (*report)(const struct violation *v));

#endif
