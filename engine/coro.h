/*
 * engine/coro.h - coroutines for the deterministic engine: each harness
 * thread (reader, writer, hardware agent) runs on its own stack, and all of
 * them take turns on one OS thread. The switch saves only the callee-saved
 * registers (x86-64 SysV, AArch64 AAPCS64), so a switch costs a few
 * nanoseconds (swapcontext would make a signal-mask system call each time).
 */
#ifndef ENGINE_CORO_H
#define ENGINE_CORO_H

#include <stddef.h>

struct coro {
	void *sp;               /* saved stack pointer while switched out */
	void *stack;            /* mmap'd stack (NULL for the main context) */
	size_t stack_size;
	void (*fn)(void *);
	void *arg;
};

/* Allocate a stack; 0 or -1 (errno set). */
int coro_alloc(struct coro *c, size_t stack_size);
void coro_free(struct coro *c);
/* Prepare c to run fn(arg) from the top of its stack at the next switch to
 * it. fn must never return: it ends by switching away for good. */
void coro_prepare(struct coro *c, void (*fn)(void *), void *arg);
/* Save the current context in from and resume to (the assembly). */
void coro_switch(struct coro *from, struct coro *to);

/* The coroutine running now (a fresh one starts by reading it). */
extern struct coro *coro_current;

static inline void coro_resume(struct coro *from, struct coro *to)
{
	coro_current = to;
	coro_switch(from, to);
}

#endif
