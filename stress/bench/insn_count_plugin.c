/*
 * stress/bench/insn_count_plugin.c - a qemu-user TCG plugin that counts the
 * guest instructions a program executes, for stress/bench/bench-seed002's
 * arm64 instruction counts:
 *
 *   qemu-aarch64 -plugin PATH/libinsn_count.so,out=FILE ./prog ARGS
 *
 * writes "insns N" to FILE when the program exits (without out=, to qemu's
 * log, i.e. stderr). At translation, each translation block gets one inline
 * 64-bit add of its instruction count, executed whenever the block runs: no
 * helper call, so counting costs about one host instruction per block. The
 * count is exact for a single-threaded program whose blocks run to their
 * end (user mode: a block ends at a branch or SVC; nothing here faults
 * mid-block); with several threads the inline adds race (not used so).
 *
 * The plugin ABI is declared here, not included: Debian ships no
 * qemu-plugin.h. These are the few functions and types of QEMU's plugin API
 * version 1 (QEMU 7.x) this file uses, with their documented signatures;
 * qemu refuses a plugin whose qemu_plugin_version it does not support.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PLUGIN_EXPORT __attribute__((visibility("default")))

typedef uint64_t qemu_plugin_id_t;

typedef struct {
	const char *target_name;
	struct {
		int min;
		int cur;
	} version;
	bool system_emulation;
	union {
		struct {
			int smp_vcpus;
			int max_vcpus;
		} system;
	};
} qemu_info_t;

enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };

struct qemu_plugin_tb;

typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb, enum qemu_plugin_op op,
					      void *ptr, uint64_t imm);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void *userdata);
void qemu_plugin_outs(const char *string);

PLUGIN_EXPORT int qemu_plugin_version = 1;

static uint64_t insns;          /* added to by the translated code itself */
static char *out_path;

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	(void)id;
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &insns,
						 qemu_plugin_tb_n_insns(tb));
}

static void at_exit(qemu_plugin_id_t id, void *userdata)
{
	char line[64];

	(void)id;
	(void)userdata;
	snprintf(line, sizeof(line), "insns %llu\n", (unsigned long long)insns);
	if (out_path) {
		FILE *f = fopen(out_path, "w");

		if (f) {
			fputs(line, f);
			fclose(f);
			return;
		}
		qemu_plugin_outs("insn_count: cannot write out= file; count follows\n");
	}
	qemu_plugin_outs(line);
}

PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
				      char **argv)
{
	if (info->system_emulation) {
		qemu_plugin_outs("insn_count: for qemu-user only\n");
		return -1;
	}
	for (int i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4) && argv[i][4]) {
			out_path = strdup(argv[i] + 4);
		} else {
			qemu_plugin_outs("insn_count: unknown argument (only out=FILE)\n");
			return -1;
		}
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
