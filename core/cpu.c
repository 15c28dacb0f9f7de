/* core/cpu.c - the modelled CPU's features (see core/cpu.h). */
#include "core/cpu.h"

#include <stdio.h>
#include <string.h>

int kc_bbml2;

const char *const cpu_bbml2_names[3] = { "off", "noabort", "abort" };

int cpu_bbml2_by_name(const char *name)
{
	for (int i = 0; i < 3; i++)
		if (!strcmp(name, cpu_bbml2_names[i]))
			return i;
	return -1;
}

/* --cap settings, and the names the subject asks. Written while the
 * arguments are read and the subject describes itself, before any thread
 * starts; only read afterwards. */
static struct cap {
	char name[CPU_CAP_NAME_MAX];
	bool value, set, asked;
} caps[CPU_CAPS_MAX];
static unsigned ncaps;

static struct cap *find(const char *name, size_t len)
{
	for (unsigned i = 0; i < ncaps; i++)
		if (strlen(caps[i].name) == len && !strncmp(caps[i].name, name, len))
			return &caps[i];
	return NULL;
}

static struct cap *add(const char *name, size_t len)
{
	struct cap *c = find(name, len);

	if (c || ncaps == CPU_CAPS_MAX || len >= CPU_CAP_NAME_MAX)
		return c;
	c = &caps[ncaps++];
	memcpy(c->name, name, len);
	c->name[len] = 0;
	return c;
}

/* The probes the harness itself answers: a --cap would be a second answer. */
static const char *modelled(const char *name, size_t len)
{
	static const char *const bbml2[] = { "system_supports_bbml2", "system_supports_bbml2_noabort",
					     "system_supports_bbml3", "ARM64_HAS_BBML2_NOABORT",
					     "ARM64_HAS_BBML3" };

	for (unsigned i = 0; i < sizeof(bbml2) / sizeof(*bbml2); i++)
		if (strlen(bbml2[i]) == len && !strncmp(bbml2[i], name, len))
			return "--bbml2=noabort|abort";
	return NULL;
}

int cpu_cap_valid(const char *arg, char *err, size_t errlen)
{
	const char *eq = strchr(arg, '=');
	size_t len = eq ? (size_t)(eq - arg) : 0;
	const char *how;

	if (!eq || !len || (strcmp(eq + 1, "0") && strcmp(eq + 1, "1"))) {
		snprintf(err, errlen, "--cap wants NAME=0 or NAME=1 (a capability probe the code asks, "
			 "as the start-up report names it), got '%s'", arg);
		return -1;
	}
	if (strspn(arg, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") != len) {
		snprintf(err, errlen, "--cap %s: '%.*s' is not a probe's name", arg, (int)len, arg);
		return -1;
	}
	if ((how = modelled(arg, len))) {
		snprintf(err, errlen, "--cap %s: the harness models %.*s itself (%s)", arg, (int)len, arg, how);
		return -1;
	}
	if (len >= CPU_CAP_NAME_MAX) {
		snprintf(err, errlen, "--cap %s: a name under %d characters", arg, CPU_CAP_NAME_MAX);
		return -1;
	}
	return 0;
}

/* Set NAME=V (valid); a weak setting (a script's) leaves a --cap alone. */
static int set(const char *arg, bool weak, char *err, size_t errlen)
{
	size_t len = strcspn(arg, "=");
	struct cap *c = add(arg, len);

	if (!c) {
		snprintf(err, errlen, "--cap %s: at most %d probes, names under %d characters", arg,
			 CPU_CAPS_MAX, CPU_CAP_NAME_MAX);
		return -1;
	}
	if (weak && c->set)
		return 0;
	c->set = !weak;
	c->value = arg[len + 1] == '1';
	return 0;
}

int cpu_cap_option(const char *arg, char *err, size_t errlen)
{
	return cpu_cap_valid(arg, err, errlen) ? -1 : set(arg, false, err, errlen);
}

int cpu_caps_apply(const char *caps, char *err, size_t errlen)
{
	char one[CPU_CAP_NAME_MAX + 4];

	for (const char *p = caps; *p; p += strspn(p, " ")) {
		size_t n = strcspn(p, " ");

		snprintf(one, sizeof(one), "%.*s", (int)n, p);
		if (cpu_cap_valid(one, err, errlen) || set(one, true, err, errlen))
			return -1;
		p += n;
	}
	return 0;
}

/* Into buf from off on: the probes a --cap set (given) or the subject
 * asks, each as fmt (separator, name, answer), the first without sep.
 * Returns the length, at most len - 1 (the text cut there). */
static size_t list(char *buf, size_t len, size_t off, bool given, const char *fmt, const char *sep)
{
	unsigned n = 0;

	for (unsigned i = 0; i < ncaps && off < len; i++)
		if (given ? caps[i].set : caps[i].asked)
			off += (size_t)snprintf(buf + off, len - off, fmt, n++ ? sep : "", caps[i].name,
						caps[i].value);
	return off < len ? off : len - 1;
}

size_t cpu_caps_given(char *buf, size_t len)
{
	buf[0] = 0;
	return list(buf, len, 0, true, "%s%s=%d", " ");
}

bool cpu_cap_value(const char *name)
{
	struct cap *c = find(name, strlen(name));

	return c && c->value;
}

void cpu_caps_asked(const char *names)
{
	for (const char *p = names; *p; p += strspn(p, " ")) {
		size_t n = strcspn(p, " ");
		struct cap *c = add(p, n);

		if (c)
			c->asked = true;
		p += n;
	}
}

int cpu_caps_check(const char *prog)
{
	char asked[CPU_CAPS_MAX * (CPU_CAP_NAME_MAX + 3)];

	for (unsigned i = 0; i < ncaps; i++) {
		if (!caps[i].set || caps[i].asked)
			continue;
		cpu_caps_format(asked, sizeof(asked));
		fprintf(stderr, "%s: --cap %s: the code under test asks no such capability probe (%s%s)\n",
			prog, caps[i].name, *asked ? "it asks: " : "it asks none the harness does not model",
			asked);
		return 1;
	}
	return 0;
}

size_t cpu_caps_format(char *buf, size_t len)
{
	buf[0] = 0;
	return list(buf, len, 0, false, "%s%s=%d", " ");
}

void cpu_caps_report(const char *prefix)
{
	char asked[CPU_CAPS_MAX * (CPU_CAP_NAME_MAX + 3)];

	if (cpu_caps_format(asked, sizeof(asked)))
		fprintf(stderr, "%s: capability probes the harness does not model (false unless --cap NAME=1): %s\n",
			prefix, asked);
}

size_t cpu_json_format(char *buf, size_t len)
{
	size_t off = (size_t)snprintf(buf, len, "\"bbml2\": \"%s\", \"caps\": {",
				      cpu_bbml2_names[kc_bbml2 >= 0 && kc_bbml2 <= 2 ? kc_bbml2 : 0]);

	off = list(buf, len, off < len ? off : len - 1, false, "%s\"%s\": %d", ", ");
	off += (size_t)snprintf(buf + off, len - off, "}");
	return off < len ? off : len - 1;
}

void cpu_caps_reset(void)
{
	memset(caps, 0, sizeof(caps));
	ncaps = 0;
}
