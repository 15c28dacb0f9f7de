/* core/where.c - a finding's location from the debug information (see core/where.h). */
#define _GNU_SOURCE
#include "core/where.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The first of names found on PATH, or NULL. */
static const char *find_tool(const char *const *names, char *buf, size_t len)
{
	const char *path = getenv("PATH");

	for (; *names; names++) {
		const char *p = path && *path ? path : "/usr/bin:/bin";

		while (*p) {
			size_t n = strcspn(p, ":");

			snprintf(buf, len, "%.*s/%s", (int)n, p, *names);
			if (n && !access(buf, X_OK))
				return buf;
			p += n + (p[n] == ':');
		}
	}
	return NULL;
}

/* A path as the report shows it: a kernel tree's files from arch/arm64/,
 * others without the build's working-directory prefix. */
static void short_path(const char *path, char *out, size_t len)
{
	char buf[512];
	const char *in = buf, *a;

	snprintf(buf, sizeof(buf), "%s", path);      /* path may be out */
	a = strstr(in, "/arch/arm64/");

	if (a)
		in = a + 1;
	else {
		if (!strncmp(in, "/proc/self/cwd/", 15))
			in += 15;
		while (!strncmp(in, "./", 2))
			in += 2;
	}
	snprintf(out, len, "%s", in);
}

/* The project's own sources (not the subject's). */
static bool project_file(const char *p)
{
	static const char *const dirs[] = { "core/", "kernel_tree/shim/", "kernel_tree/glue.h", "engine/",
					    "stress/", "fuzz/", NULL };

	for (const char *const *d = dirs; *d; d++)
		if (!strncmp(p, *d, strlen(*d)) || strstr(p, "/core/kcompat.h"))
			return true;
	return false;
}

static int main_base_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	*(uintptr_t *)data = info->dlpi_addr;
	return 1;             /* the first object is the program itself */
}

/* The object holding code address pc and pc's address in it, as the
 * symbolizer reads the object (the program as /proc/PID/exe). */
static bool object_of(const void *pc, char *obj, size_t len, uintptr_t *addr)
{
	Dl_info d;
	uintptr_t main_base = 0;
	const ElfW(Ehdr) *eh;

	if (!dladdr(pc, &d) || !d.dli_fbase)
		return false;
	eh = d.dli_fbase;
	*addr = (uintptr_t)pc - (eh->e_type == ET_DYN ? (uintptr_t)d.dli_fbase : 0);
	dl_iterate_phdr(main_base_cb, &main_base);
	if (main_base == (eh->e_type == ET_DYN ? (uintptr_t)d.dli_fbase : 0) || !d.dli_fname || !*d.dli_fname)
		snprintf(obj, len, "/proc/%d/exe", (int)getpid());
	else
		snprintf(obj, len, "%s", d.dli_fname);
	return true;
}

static void object_of_program(char *obj, size_t len)
{
	snprintf(obj, len, "/proc/%d/exe", (int)getpid());
}

/* A function as the debug information names it, without the probe's
 * renames (kernel_tree/probe.sh: kt_file_, kt_hdr_). */
static const char *bare_name(const char *fn)
{
	if (!strncmp(fn, "kt_file_", 8))
		return fn + 8;
	if (!strncmp(fn, "kt_hdr_", 7))
		return fn + 7;
	return fn;
}

struct frame {
	char fn[128], file[512];
	unsigned line;
};
#define MAX_FRAMES 16

/* The frames of the code at addr in obj, innermost first. */
static unsigned symbolize(const char *tool, const char *obj, uintptr_t addr, struct frame *f)
{
	char cmd[2048], line[1024];
	unsigned n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "'%s' --obj='%s' --inlining --verbose 0x%lx 2>/dev/null", tool, obj,
		 (unsigned long)addr);
	if (!(p = popen(cmd, "r")))
		return 0;
	while (fgets(line, sizeof(line), p)) {
		line[strcspn(line, "\n")] = 0;
		if (!line[0])
			continue;
		if (line[0] != ' ') {
			if (n == MAX_FRAMES)
				break;
			memset(&f[n], 0, sizeof(f[n]));
			snprintf(f[n].fn, sizeof(f[n].fn), "%s", line);
			n++;
		} else if (n && !strncmp(line, "  Filename: ", 12)) {
			snprintf(f[n - 1].file, sizeof(f[n - 1].file), "%s", line + 12);
		} else if (n && !strncmp(line, "  Line: ", 8)) {
			f[n - 1].line = (unsigned)strtoul(line + 8, NULL, 10);
		}
	}
	pclose(p);
	/* "??" frames: no debug information there */
	while (n && (!strcmp(f[n - 1].fn, "??") || !f[n - 1].line))
		n--;
	return n;
}

/* The definition of function (as the tree's file, the tree's header or by
 * its own name): its file and line. */
static bool definition(const char *tool, const char *obj, const char *function, char *file,
		       size_t flen, unsigned *lineno)
{
	char cmd[2048], line[1024], name[160] = "";
	const char *prefixes[3] = { "kt_file_", "kt_hdr_", "" };
	int best = 3, rank = -1;
	bool decl = false;
	char cur_file[512] = "";
	unsigned cur_line = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "'%s' --name=kt_file_%s --name=kt_hdr_%s --name=%s '%s' 2>/dev/null", tool,
		 function, function, function, obj);
	if (!(p = popen(cmd, "r")))
		return false;
	/* one DIE after another: judge each when the next starts */
	for (bool more = true; more;) {
		more = fgets(line, sizeof(line), p) != NULL;
		if (!more || strstr(line, ": DW_TAG_")) {
			if (rank >= 0 && rank < best && !decl && cur_line && cur_file[0]) {
				best = rank;
				snprintf(file, flen, "%s", cur_file);
				*lineno = cur_line;
			}
			rank = -1;
			decl = false;
			cur_file[0] = 0;
			cur_line = 0;
			if (!more || !strstr(line, "DW_TAG_subprogram"))
				continue;
			rank = 3;          /* a subprogram: its name says which */
		} else if (rank >= 0 && sscanf(line, " DW_AT_name (\"%159[^\"]\")", name) == 1) {
			for (int i = 0; i < 3; i++) {
				size_t k = strlen(prefixes[i]);

				if (!strncmp(name, prefixes[i], k) && !strcmp(name + k, function)) {
					rank = i;
					break;
				}
			}
		} else if (rank >= 0 && strstr(line, "DW_AT_declaration")) {
			decl = true;
		} else if (rank >= 0) {
			char *q = strstr(line, "DW_AT_decl_file\t(\"");

			if (q)
				snprintf(cur_file, sizeof(cur_file), "%.*s", (int)strcspn(q + 18, "\""), q + 18);
			else if ((q = strstr(line, "DW_AT_decl_line\t(")))
				cur_line = (unsigned)strtoul(q + 17, NULL, 10);
		}
	}
	pclose(p);
	return best < 3;
}

/* Results already worked out (each finding is located once, but a report
 * may show it twice). */
#define CACHE 32
static struct {
	const char *function;
	const void *pc;
	char where[160], chain[600];
	bool ok;
} cache[CACHE];
static unsigned ncache;
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

static bool locate(const char *function, const void *pc, char *where, size_t wlen, char *chain,
		   size_t clen)
{
	static const char *const symbolizers[] = { "llvm-symbolizer-14", "llvm-symbolizer", NULL };
	static const char *const dwarfdumps[] = { "llvm-dwarfdump-14", "llvm-dwarfdump", NULL };
	char tool[1024], obj[1024], file[512];
	uintptr_t addr;

	if (pc) {
		struct frame f[MAX_FRAMES];
		unsigned n, pick = 0;
		bool picked = false;

		if (!find_tool(symbolizers, tool, sizeof(tool)) || !object_of(pc, obj, sizeof(obj), &addr))
			return false;
		/* a return address: the call is the byte before it */
		if (!(n = symbolize(tool, obj, addr - 1, f)))
			return false;
		for (unsigned i = 0; i < n; i++)
			short_path(f[i].file, f[i].file, sizeof(f[i].file));
		for (unsigned i = 0; function && i < n && !picked; i++)
			if (!strcmp(bare_name(f[i].fn), function))
				pick = i, picked = true;
		for (unsigned i = 0; i < n && !picked; i++)
			if (!project_file(f[i].file))
				pick = i, picked = true;
		snprintf(where, wlen, "%s:%u", f[pick].file, f[pick].line);
		if (chain) {
			size_t off = 0;
			unsigned inner = 0;    /* the access layer's own frames left out */

			while (inner < pick && project_file(f[inner].file))
				inner++;
			chain[0] = 0;
			for (int i = (int)pick; i >= (int)inner && off < clen; i--)
				off += snprintf(chain + off, clen - off, "%s%s %s:%u", i == (int)pick ? "" : " > ",
						bare_name(f[i].fn), f[i].file, f[i].line);
		}
		return true;
	}
	unsigned lineno = 0;

	if (!function || !strcmp(function, "-") || !find_tool(dwarfdumps, tool, sizeof(tool)))
		return false;
	object_of_program(obj, sizeof(obj));
	if (!definition(tool, obj, function, file, sizeof(file), &lineno))
		return false;
	short_path(file, file, sizeof(file));
	snprintf(where, wlen, "%s:%u", file, lineno);
	if (chain)
		snprintf(chain, clen, "%s %s:%u (its definition)", function, file, lineno);
	return true;
}

bool where_of(const char *function, const void *pc, char *where, size_t wlen, char *chain,
	      size_t clen)
{
	const char *off = getenv("CONTPTE_NO_WHERE");
	bool ok;

	where[0] = 0;
	if (chain && clen)
		chain[0] = 0;
	if ((off && *off == '1') || getenv("__AFL_SHM_ID"))
		return false;
	pthread_mutex_lock(&cache_lock);
	for (unsigned i = 0; i < ncache; i++)
		if (cache[i].pc == pc && cache[i].function == function) {
			snprintf(where, wlen, "%s", cache[i].where);
			if (chain)
				snprintf(chain, clen, "%s", cache[i].chain);
			pthread_mutex_unlock(&cache_lock);
			return cache[i].ok;
		}
	pthread_mutex_unlock(&cache_lock);
	{
		char w[160] = "", c[600] = "";

		ok = locate(function, pc, w, sizeof(w), c, sizeof(c));
		snprintf(where, wlen, "%s", w);
		if (chain)
			snprintf(chain, clen, "%s", c);
		pthread_mutex_lock(&cache_lock);
		if (ncache < CACHE) {
			cache[ncache].function = function;
			cache[ncache].pc = pc;
			snprintf(cache[ncache].where, sizeof(cache[ncache].where), "%s", w);
			snprintf(cache[ncache].chain, sizeof(cache[ncache].chain), "%s", c);
			cache[ncache].ok = ok;
			ncache++;
		}
		pthread_mutex_unlock(&cache_lock);
	}
	return ok;
}
