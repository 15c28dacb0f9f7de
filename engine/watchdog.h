/*
 * engine/watchdog.h - a subject that spins without a scheduling point (a
 * loop with no access through the access layer: no READ_ONCE, WRITE_ONCE
 * or cmpxchg) never gives the scheduler control back, and the engine's
 * step limit cannot end it. The watchdog, a thread of its own, sees the
 * scheduler's heartbeat (engine/sched.c: eng_heartbeat, one store per step)
 * stand still for WATCHDOG_STALL_S while a harness thread runs, names the
 * thread and its instruction, calls the tool's on_stall (explore saves the
 * script that spins) and ends the process with exit 1.
 */
#ifndef ENGINE_WATCHDOG_H
#define ENGINE_WATCHDOG_H

#define WATCHDOG_STALL_S 3.0

/* Start it (once); on_stall, if not NULL, runs on the watchdog's thread
 * before the exit, while the stuck thread still spins. */
void watchdog_start(const char *prog, void (*on_stall)(void));

#endif
