/* engine/coro.c - context switch in assembly (see engine/coro.h). */
#include "engine/coro.h"

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

struct coro *coro_current;

static void coro_start(void)
{
	struct coro *c = coro_current;

	c->fn(c->arg);
	__builtin_trap();       /* fn must switch away instead of returning */
}

#if defined(__x86_64__)
/* void coro_switch(struct coro *from [rdi], struct coro *to [rsi]);
 * sp is the first member of struct coro. */
__asm__(".text\n"
	".globl coro_switch\n"
	".type coro_switch,@function\n"
	"coro_switch:\n"
	"	pushq %rbp\n"
	"	pushq %rbx\n"
	"	pushq %r12\n"
	"	pushq %r13\n"
	"	pushq %r14\n"
	"	pushq %r15\n"
	"	movq %rsp, (%rdi)\n"
	"	movq (%rsi), %rsp\n"
	"	popq %r15\n"
	"	popq %r14\n"
	"	popq %r13\n"
	"	popq %r12\n"
	"	popq %rbx\n"
	"	popq %rbp\n"
	"	ret\n"
	".size coro_switch, .-coro_switch\n");
#define FRAME_WORDS 8           /* 6 registers, return address, padding */
#define FRAME_RET 6
#elif defined(__aarch64__)
/* x19-x28, x29 (fp), x30 (lr), d8-d15: 22 slots of 8 bytes, rounded to 176. */
__asm__(".text\n"
	".globl coro_switch\n"
	".type coro_switch,%function\n"
	"coro_switch:\n"
	"	sub sp, sp, #176\n"
	"	stp x19, x20, [sp, #0]\n"
	"	stp x21, x22, [sp, #16]\n"
	"	stp x23, x24, [sp, #32]\n"
	"	stp x25, x26, [sp, #48]\n"
	"	stp x27, x28, [sp, #64]\n"
	"	stp x29, x30, [sp, #80]\n"
	"	stp d8, d9, [sp, #96]\n"
	"	stp d10, d11, [sp, #112]\n"
	"	stp d12, d13, [sp, #128]\n"
	"	stp d14, d15, [sp, #144]\n"
	"	mov x2, sp\n"
	"	str x2, [x0]\n"
	"	ldr x2, [x1]\n"
	"	mov sp, x2\n"
	"	ldp x19, x20, [sp, #0]\n"
	"	ldp x21, x22, [sp, #16]\n"
	"	ldp x23, x24, [sp, #32]\n"
	"	ldp x25, x26, [sp, #48]\n"
	"	ldp x27, x28, [sp, #64]\n"
	"	ldp x29, x30, [sp, #80]\n"
	"	ldp d8, d9, [sp, #96]\n"
	"	ldp d10, d11, [sp, #112]\n"
	"	ldp d12, d13, [sp, #128]\n"
	"	ldp d14, d15, [sp, #144]\n"
	"	add sp, sp, #176\n"
	"	ret\n"
	".size coro_switch, .-coro_switch\n");
#define FRAME_WORDS 22
#define FRAME_RET 11            /* x30's slot */
#else
#error "engine/coro.c: no context switch for this architecture"
#endif

int coro_alloc(struct coro *c, size_t stack_size)
{
	memset(c, 0, sizeof(*c));
	c->stack = mmap(NULL, stack_size, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (c->stack == MAP_FAILED) {
		c->stack = NULL;
		return -1;
	}
	c->stack_size = stack_size;
	return 0;
}

void coro_free(struct coro *c)
{
	if (c->stack)
		munmap(c->stack, c->stack_size);
	c->stack = NULL;
}

void coro_prepare(struct coro *c, void (*fn)(void *), void *arg)
{
	uintptr_t top = ((uintptr_t)c->stack + c->stack_size) & ~(uintptr_t)15;
	uint64_t *frame = (uint64_t *)(top - FRAME_WORDS * 8);

	memset(frame, 0, FRAME_WORDS * 8);
	frame[FRAME_RET] = (uint64_t)(uintptr_t)coro_start;
	c->sp = frame;
	c->fn = fn;
	c->arg = arg;
}

