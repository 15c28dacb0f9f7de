/* core/signature.c - signatures as text (core/signature.h). */
#include "core/signature.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sig_split(const char *sig, char kind[SIG_PART_MAX], char op[SIG_PART_MAX], char fn[SIG_PART_MAX],
	      const char *example, char *err, size_t errlen)
{
	const char *c1 = strchr(sig, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

	if (!c1 || !c2 || strchr(c2 + 1, ':')) {
		snprintf(err, errlen, "known signature '%.80s' is not kind:op:function (e.g. %s)", sig, example);
		return -1;
	}
	if (c1 - sig >= SIG_PART_MAX || c2 - c1 - 1 >= SIG_PART_MAX || strlen(c2 + 1) >= SIG_PART_MAX) {
		snprintf(err, errlen, "known signature '%.60s...' is too long", sig);
		return -1;
	}
	snprintf(kind, SIG_PART_MAX, "%.*s", (int)(c1 - sig), sig);
	snprintf(op, SIG_PART_MAX, "%.*s", (int)(c2 - c1 - 1), c1 + 1);
	snprintf(fn, SIG_PART_MAX, "%s", c2 + 1);
	return 0;
}

static bool function_ok(const char *fn)
{
	if (!strcmp(fn, "-") || !strcmp(fn, "*"))
		return true;
	for (const char *c = fn; *c; c++)
		if (!(*c == '_' || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (c > fn && *c >= '0' && *c <= '9')))
			return false;
	return *fn != 0;
}

int sig_check_op_fn(const char *sig, const char *op, const char *fn, const char *const *ops, char *err,
		    size_t errlen)
{
	bool found = !strcmp(op, "*");

	for (const char *const *o = ops; *o && !found; o++)
		found = !strcmp(op, *o);
	if (!found) {
		size_t off = (size_t)snprintf(err, errlen, "known signature '%s': unknown op '%s' (valid: *", sig, op);

		for (const char *const *o = ops; *o && off < errlen; o++)
			off += (size_t)snprintf(err + off, errlen - off, ", %s", *o);
		if (off < errlen)
			snprintf(err + off, errlen - off, ")");
		return -1;
	}
	if (!function_ok(fn)) {
		snprintf(err, errlen, "known signature '%s': '%s' is not a function name (or - for none, * for any)",
			 sig, fn);
		return -1;
	}
	return 0;
}

bool sig_part_matches(const char *pattern, const char *s)
{
	return !strcmp(pattern, "*") || !strcmp(pattern, s);
}

int sig_list_each(const char *list, int (*add)(const char *sig, char *err, size_t errlen), char *err,
		  size_t errlen)
{
	char *buf = strdup(list), *save = NULL;
	int rc = 0;

	if (!buf) {
		snprintf(err, errlen, "out of memory reading known signatures");
		return -1;
	}
	for (char *tok = strtok_r(buf, ", \t\n", &save); tok && !rc; tok = strtok_r(NULL, ", \t\n", &save))
		rc = add(tok, err, errlen);
	free(buf);
	return rc;
}

int sig_file_each(const char *path, int (*add)(const char *sig, char *err, size_t errlen), char *err,
		  size_t errlen)
{
	FILE *f = fopen(path, "r");
	char line[512];
	unsigned n = 0;

	if (!f) {
		snprintf(err, errlen, "cannot read the known-signature file '%s': %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *hash = strchr(line, '#');

		n++;
		if (hash)
			*hash = 0;
		line[strcspn(line, " \t\n")] = 0;    /* the first word: a table's first column */
		if (line[0] && sig_list_each(line, add, err, errlen)) {
			size_t off = strlen(err);

			snprintf(err + off, errlen - off, " (%s line %u)", path, n);
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	return 0;
}
