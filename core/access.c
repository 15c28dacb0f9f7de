/* core/access.c - per-thread state of the access layer's instruments. */
#include "core/access.h"

void acc_limit_ignore(struct acc_thread *t)
{
	acc_arm(t, INT64_MAX / 2);
}

__thread struct acc_thread acc_self = {
	.budget = INT64_MAX / 2,
	.armed = INT64_MAX / 2,
	.on_limit = acc_limit_ignore,
};
