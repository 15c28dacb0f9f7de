/* core/oob.c - faults in a subject's code become reports (core/oob.h). */
#define _GNU_SOURCE
#include "core/oob.h"

#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>

#include "core/access.h"

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	struct acc_guard *g = acc_self.guard;
	sigjmp_buf *jb = g ? g->recover : NULL;

	(void)uc;
	if (jb) {
		g->recover = NULL;
		g->wlen = 0;
		g->fault_addr = si->si_addr;
		siglongjmp(*jb, sig == SIGBUS ? OOB_SIGBUS : OOB_SIGSEGV);
	}
	/* not a subject's access: the default action when the access repeats */
	signal(sig, SIG_DFL);
}

void oob_install(void)
{
	static bool done;
	struct sigaction sa;

	if (done)
		return;
	done = true;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	/* NODEFER: the thread leaves the handler by siglongjmp to a point
	 * saved without the signal mask; the signal must not stay blocked */
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
}
