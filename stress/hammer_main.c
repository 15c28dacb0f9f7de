/* stress/hammer_main.c - the main job: `bazel run //stress:hammer -- ...`. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "stress/driver.h"

/* Kernel-tree builds (kernel_tree/report.c) describe themselves: the file's
 * functions that run, the entry points the project fills in, and at exit
 * the calls and flushes the file made. Absent from other builds. */
extern int kernel_tree_describe(const struct variant *v) __attribute__((weak));

int main(int argc, char **argv)
{
	struct stress_cfg cfg;
	char cmdline[4096];
	size_t off = 0;
	int rc = stress_parse_args(argc, argv, &cfg);

	if (rc == 3)
		return 0;
	if (rc)
		return rc;
	off += snprintf(cmdline, sizeof(cmdline), "hammer");
	for (int i = 1; i < argc && off < sizeof(cmdline) - 1; i++)
		if (strncmp(argv[i], "--seed", 6))
			off += snprintf(cmdline + off, sizeof(cmdline) - off, " %s", argv[i]);
	cfg.cmdline = cmdline;
	if (kernel_tree_describe && !strcmp(cfg.variant->name, "kernel_tree")) {
		if (kernel_tree_describe(cfg.variant))
			return 2;
	} else if (cfg.variant->n_provided + cfg.variant->n_defaults) {
		/* a plug-in build: say what the file brought and what it must */
		bool lockless = false;

		fprintf(stderr, "hammer: the plug-in file defines:");
		for (unsigned i = 0; i < cfg.variant->n_provided; i++) {
			fprintf(stderr, " %s", cfg.variant->provided[i]);
			lockless |= !strcmp(cfg.variant->provided[i], "contpte_ptep_get_lockless");
		}
		fprintf(stderr, "\nhammer: the project provides the other %u entry points (core/kernel/)\n",
			cfg.variant->n_defaults);
		if (!lockless) {
			fprintf(stderr, "hammer: the plug-in file must define "
				"pte_t contpte_ptep_get_lockless(pte_t *orig_ptep)\n");
			return 2;
		}
	}
	fprintf(stderr, "hammer: variant %s, %s reader, granule %s, %u readers / %u writers / %u hw, %.1fs, seed %llu\n",
		cfg.variant->name, cfg.locked ? "locked" : "lockless", cfg.variant->granule->name,
		cfg.readers, cfg.writers, cfg.hw, cfg.seconds, (unsigned long long)cfg.seed);
	return stress_run(&cfg);
}
