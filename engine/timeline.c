/* engine/timeline.c - timelines of a run (see engine/timeline.h). */
#include "engine/timeline.h"

#include <errno.h>
#include <string.h>

/* The table page (slot) and entry an event's offset falls in, if it is in
 * the table area. */
static bool slot_entry(const struct harness_mm *m, const struct eng_event *e, unsigned *slot,
		       unsigned *idx)
{
	if (e->off < 0 || !m || (uint64_t)e->off < m->hdr->off_entries ||
	    (uint64_t)e->off >= m->hdr->off_entries + m->nslots * m->hdr->slot_stride)
		return false;
	*slot = (unsigned)(hmm_slot_of(m, m->entries + ((uint64_t)e->off - m->hdr->off_entries), idx) -
			   m->slots);
	return true;
}

/* "b0[5]" for an entry of the table, "slot 2 e17" for an old table page,
 * "tables[0]" for the RCU pointer, "-" for no location. */
static void where(const struct run_result *r, const struct eng_event *e, char *buf, size_t len)
{
	const struct harness_mm *m = r->m;
	unsigned slot, idx;

	if (e->kind == EK_LOCK) {
		snprintf(buf, len, "PTL");
		return;
	}
	if (e->kind == EK_GP) {
		snprintf(buf, len, "grace period");
		return;
	}
	if (e->kind == EK_RCU_DEREF || e->kind == EK_RCU_ASSIGN) {
		snprintf(buf, len, "table pointer");
		return;
	}
	if (!slot_entry(m, e, &slot, &idx)) {
		snprintf(buf, len, "-");
		return;
	}
	bool live = m->tables[0] && m->tables[0]->index == slot;

	if (live)
		snprintf(buf, len, "b%u[%u]", idx / m->cont, idx % m->cont);
	else
		snprintf(buf, len, "page%u b%u[%u]", slot, idx / m->cont, idx % m->cont);
}

/* Short form of an entry value: pfn and the bits that matter here. */
static void value(const struct run_result *r, const struct eng_event *e, uint64_t v, char *buf,
		  size_t len)
{
	unsigned shift = r->m ? r->m->g->page_shift : 12;

	if (e->kind == EK_LOCK || e->kind == EK_GP) {
		snprintf(buf, len, "%llu", (unsigned long long)v);
		return;
	}
	if (e->kind == EK_RCU_DEREF || e->kind == EK_RCU_ASSIGN) {
		snprintf(buf, len, "@%llx", (unsigned long long)v);
		return;
	}
	if (!v) {
		snprintf(buf, len, "none");
		return;
	}
	if (r->m && pte_is_poison(v, shift)) {
		snprintf(buf, len, "POISON");
		return;
	}
	snprintf(buf, len, "pfn%llx%s%s%s%s%s", (unsigned long long)pm_pfn(v, shift),
		 pm_valid(v) ? "" : "!v", pm_cont(v) ? " C" : "", pm_young(v) ? " A" : "",
		 pm_dirty(v) ? " D" : "", pm_write(v) && !pm_dirty(v) ? " W" : "");
}

static const char *instr_text(const struct script *s, unsigned tid, unsigned i, char *buf,
			      size_t len)
{
	if (tid >= s->nthreads || i >= s->ninstr[tid]) {
		snprintf(buf, len, "(set-up)");
		return buf;
	}
	const struct instr *in = &s->prog[tid][i];
	snprintf(buf, len, "%s %u %u%s", instr_name(in->op), in->block, in->s,
		 in->n ? "+" : "");
	if (in->n)
		snprintf(buf + strlen(buf), len - strlen(buf), "%u", in->n);
	return buf;
}

void timeline_print(FILE *f, const struct script *s, const struct run_result *r)
{
	char loc[64], a[64], b[64], it[64];
	int last_instr[8] = { -1, -1, -1, -1, -1, -1, -1, -1 };

	fprintf(f, "timeline (%u accesses; thread columns, value before -> after):\n", r->nevents);
	for (unsigned t = 0; t < s->nthreads; t++)
		fprintf(f, "%-34s", (snprintf(a, sizeof(a), "  thread %u", t), a));
	fputc('\n', f);
	for (unsigned i = 0; i < r->nevents; i++) {
		const struct eng_event *e = &r->events[i];
		unsigned col = e->tid < s->nthreads ? e->tid : 0;

		if (e->tid < 8 && last_instr[e->tid] != e->instr) {
			last_instr[e->tid] = e->instr;
			fprintf(f, "%6s %*s-- %s --\n", "", (int)col * 34, "",
				instr_text(s, e->tid, e->instr, it, sizeof(it)));
		}
		where(r, e, loc, sizeof(loc));
		value(r, e, e->before, a, sizeof(a));
		value(r, e, e->after, b, sizeof(b));
		if (e->kind == EK_LOAD || e->kind == EK_RCU_DEREF)
			fprintf(f, "%6u %*s%s %s = %s\n", e->step, (int)col * 34, "",
				eng_kind_names[e->kind], loc, a);
		else
			fprintf(f, "%6u %*s%s %s: %s -> %s\n", e->step, (int)col * 34, "",
				eng_kind_names[e->kind], loc, a, b);
	}
	if (r->status == RS_VIOLATION)
		fprintf(f, "  ==> %s (thread %d, instruction %d)\n", r->vio.summary, r->vio_tid,
			r->vio_instr);
}

static void esc(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else
			fputc(*s, f);
	}
}

/* The live table's entry an event touches, if any. */
static bool entry_of(const struct run_result *r, const struct eng_event *e, unsigned *block,
		     unsigned *idx)
{
	const struct harness_mm *m = r->m;
	unsigned slot, i;

	if (e->kind == EK_LOCK || e->kind == EK_GP || e->kind == EK_RCU_DEREF ||
	    e->kind == EK_RCU_ASSIGN || !m || !m->tables[0] || !slot_entry(m, e, &slot, &i) ||
	    slot != m->tables[0]->index)
		return false;
	*block = i / m->cont;
	*idx = i % m->cont;
	return true;
}

/* 2: the violated read's target entry, 1: an entry its verdict names, 0. */
static int mark(const struct run_result *r, const struct eng_event *e)
{
	unsigned b, j;

	if (r->status != RS_VIOLATION || !r->vio.has_read || r->vio.lt != 0 ||
	    !entry_of(r, e, &b, &j) || b != r->vio.block)
		return 0;
	if (j == r->vio.target)
		return 2;
	return j < 128 && (r->vio.named[j / 64] >> (j % 64) & 1);
}

/* Pictures fold runs of at least FOLD_MIN accesses by one instruction
 * walking a block's entries in order (a 16K gather is 128 loads, a 16K
 * wrprotect 128 load/cmpxchg pairs), none of them highlighted: first row,
 * a "N more" row, last row. */
#define FOLD_MIN 5

static unsigned fold_run(const struct run_result *r, unsigned i)
{
	const struct eng_event *a = &r->events[i];
	unsigned b0, jp, n = 1;

	if (mark(r, a) || !entry_of(r, a, &b0, &jp))
		return 1;
	for (unsigned k = i + 1; k < r->nevents; k++, n++) {
		const struct eng_event *e = &r->events[k];
		unsigned b, j;

		if (e->tid != a->tid || e->instr != a->instr || mark(r, e) ||
		    !entry_of(r, e, &b, &j) || b != b0 || j < jp || j > jp + 1)
			break;
		jp = j;
	}
	return n >= FOLD_MIN ? n : 1;
}

/* One access as a row of the picture, highlighted if it touches the
 * violated read's target or an entry its verdict names. */
static void svg_event(FILE *f, const struct run_result *r, const struct eng_event *e, int x, int y,
		      const char *color)
{
	char loc[64], a[64], b[64], line[256];
	int hl = mark(r, e);

	where(r, e, loc, sizeof(loc));
	value(r, e, e->before, a, sizeof(a));
	value(r, e, e->after, b, sizeof(b));
	if (e->kind == EK_LOAD || e->kind == EK_RCU_DEREF)
		snprintf(line, sizeof(line), "%s %s = %s", eng_kind_names[e->kind], loc, a);
	else
		snprintf(line, sizeof(line), "%s %s: %s -> %s", eng_kind_names[e->kind], loc, a, b);
	if (hl)
		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"14\" fill=\"%s\"/>", x + 4,
			y - 11, 290, hl == 2 ? "#ffe066" : "#ffb3a7");
	fprintf(f, "<text x=\"4\" y=\"%d\" fill=\"#999\">%u</text>", y, e->step);
	fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"%s\"%s>", x + 8, y,
		e->kind == EK_LOAD ? "#333" : color, hl ? " font-weight=\"bold\"" : "");
	esc(f, line);
	fprintf(f, "</text>\n");
}

int timeline_svg(const char *path, const struct script *s, const struct run_result *r)
{
	FILE *f = fopen(path, "w");
	const bool legend = r->status == RS_VIOLATION && r->vio.has_read;
	const int colw = 300, rowh = 16, top = legend ? 88 : 60;
	static const char *const colors[4] = { "#1f77b4", "#d62728", "#2ca02c", "#9467bd" };
	char it[64], line[256];
	int last_instr[8] = { -1, -1, -1, -1, -1, -1, -1, -1 };
	unsigned rows = 0;

	if (!f) {
		fprintf(stderr, "timeline: cannot write %s: %s\n", path, strerror(errno));
		return -1;
	}
	for (unsigned i = 0, n; i < r->nevents; i += n) {
		n = fold_run(r, i);
		rows += n > 1 ? 3 : 1;
		if (r->events[i].tid < 8 && last_instr[r->events[i].tid] != r->events[i].instr) {
			last_instr[r->events[i].tid] = r->events[i].instr;
			rows++;
		}
	}
	memset(last_instr, -1, sizeof(last_instr));
	int width = 60 + colw * (int)s->nthreads, height = top + rowh * ((int)rows + 4);
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		   "font-family=\"monospace\" font-size=\"11\">\n", width, height);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	fprintf(f, "<text x=\"10\" y=\"18\" font-size=\"13\">variant %s, granule %uk: ", s->variant,
		s->granule_kb);
	run_status_text(r, line, sizeof(line));
	esc(f, line);
	fprintf(f, "</text>\n");
	for (unsigned t = 0; t < s->nthreads; t++) {
		int x = 60 + colw * (int)t;

		fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"%s\" font-weight=\"bold\">thread %u</text>\n",
			x, top - 14, colors[t % 4], t);
		fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ccc\"/>\n", x - 6,
			top - 8, x - 6, height - 20);
	}
	if (legend) {
		fprintf(f, "<rect x=\"10\" y=\"28\" width=\"12\" height=\"10\" fill=\"#ffe066\"/>"
			   "<text x=\"28\" y=\"37\">the violated read's target entry, b%u[%u]</text>\n",
			r->vio.block, r->vio.target);
		fprintf(f, "<rect x=\"10\" y=\"44\" width=\"12\" height=\"10\" fill=\"#ffb3a7\"/>"
			   "<text x=\"28\" y=\"53\">an entry the verdict names (whose bit is wrong)</text>\n");
	}
	int y = top;
	for (unsigned i = 0, n; i < r->nevents; i += n) {
		const struct eng_event *e = &r->events[i];
		unsigned col = e->tid < s->nthreads ? e->tid : 0;
		int x = 60 + colw * (int)col;

		n = fold_run(r, i);
		if (e->tid < 8 && last_instr[e->tid] != e->instr) {
			last_instr[e->tid] = e->instr;
			fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"%s\" font-weight=\"bold\">", x, y,
				colors[col % 4]);
			esc(f, instr_text(s, e->tid, e->instr, it, sizeof(it)));
			fprintf(f, "</text>\n");
			y += rowh;
		}
		svg_event(f, r, e, x, y, colors[col % 4]);
		y += rowh;
		if (n > 1) {
			unsigned b, j, bl, jl, kinds = 0;
			char what[96] = "";

			entry_of(r, &r->events[i + 1], &b, &j);
			entry_of(r, &r->events[i + n - 2], &bl, &jl);
			for (unsigned k = i + 1; k < i + n - 1; k++)
				kinds |= 1u << r->events[k].kind;
			for (unsigned k = 0; k < 32; k++)
				if (kinds >> k & 1)
					snprintf(what + strlen(what), sizeof(what) - strlen(what), "%s%s",
						 *what ? "/" : "", eng_kind_names[k]);
			fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"#999\">... %u more (%s) of b%u[%u..%u] "
				   "(folded)</text>\n", x + 8, y, n - 2,
				what, b, j, jl);
			y += rowh;
			svg_event(f, r, &r->events[i + n - 1], x, y, colors[col % 4]);
			y += rowh;
		}
	}
	if (r->status == RS_VIOLATION) {
		fprintf(f, "<text x=\"10\" y=\"%d\" fill=\"#d00\" font-weight=\"bold\">", y + rowh);
		esc(f, r->vio.summary);
		fprintf(f, "</text>\n");
	}
	fprintf(f, "</svg>\n");
	if (fclose(f)) {
		fprintf(stderr, "timeline: cannot write %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}
