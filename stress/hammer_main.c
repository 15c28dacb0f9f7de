/* stress/hammer_main.c - the main job: `bazel run //stress:hammer -- ...`. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stress/driver.h"

struct buf { char s[8192]; size_t n; };

static void __attribute__((format(printf, 2, 3))) put(struct buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (b->n < sizeof(b->s))
		b->n += vsnprintf(b->s + b->n, sizeof(b->s) - b->n, fmt, ap);
	va_end(ap);
}

/* one shell word, quoted only when it needs to be */
static void put_word(struct buf *b, const char *w)
{
	put(b, " ");
	if (*w && strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=,./:+@%") == strlen(w)) {
		put(b, "%s", w);
		return;
	}
	put(b, "'");
	for (const char *p = w; *p; p++)
		if (*p == '\'')
			put(b, "'\\''");
		else
			put(b, "%c", *p);
	put(b, "'");
}

/* How to run this binary again, as the user would: tools/hammer says its own
 * command (HAMMER_REPRO_CMD); a binary of bazel-out's is a `bazel run` of
 * its label from the checkout; anything else by its absolute path. */
static void put_program(struct buf *b, const char *argv0)
{
	const char *tool = getenv("HAMMER_REPRO_CMD"), *ws = getenv("BUILD_WORKSPACE_DIRECTORY");
	char *real = realpath(argv0, NULL);
	const char *bin = real ? strstr(real, "/bazel-out/") : NULL;

	if (tool && *tool) {
		put(b, "%s", tool);
	} else if (bin && (bin = strstr(bin, "/bin/"))) {
		const char *pkg = bin + 5, *name = strrchr(pkg, '/');

		if (ws && *ws) {
			put(b, "cd");
			put_word(b, ws);
			put(b, " && ");
		}
		if (name)
			put(b, "bazel run //%.*s:%s --", (int)(name - pkg), pkg, name + 1);
		else
			put(b, "bazel run //:%s --", pkg);
	} else {
		put(b, "%s", real ? real : argv0);
	}
	free(real);
}

int main(int argc, char **argv)
{
	struct stress_cfg cfg;
	static struct buf cmd;
	int rc = stress_parse_args(argc, argv, &cfg);

	if (rc) {
		stress_cfg_release(&cfg);
		return rc == 3 ? 0 : rc;
	}
	put_program(&cmd, argv[0]);
	if (!getenv("HAMMER_REPRO_CMD"))
		for (int i = 1; i < argc; i++) {
			/* the seed is the reproducer's own; paths made absolute */
			if (!strncmp(argv[i], "--seed=", 7))
				continue;
			if (!strncmp(argv[i], "--json=", 7) || !strncmp(argv[i], "--report-dir=", 13)) {
				char *eq = strchr(argv[i], '='), *w, *path = stress_caller_path(eq + 1);

				if (asprintf(&w, "%.*s=%s", (int)(eq - argv[i]), argv[i], path) >= 0) {
					put_word(&cmd, w);
					free(w);
				}
				free(path);
				continue;
			}
			put_word(&cmd, argv[i]);
		}
	cfg.cmdline = cmd.s;
	if (variant_describe(cfg.variant, "hammer")) {
		stress_cfg_release(&cfg);
		return 2;
	}
	fprintf(stderr, "hammer: variant %s, reader %s, granule %s, %u readers / %u writers / %u hw / %u faulting, %.1fs, seed %llu\n",
		cfg.variant->name, cfg.reader_name, cfg.variant->granule->name,
		cfg.readers, cfg.writers, cfg.hw, cfg.faulters, cfg.seconds, (unsigned long long)cfg.seed);
	rc = stress_run(&cfg);
	stress_cfg_release(&cfg);
	return rc;
}
