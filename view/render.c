// SPDX-License-Identifier: MIT
/*
 * view/render.c - the one renderer (view/render.h): a window query's answer
 * drawn with cairo, in the page's colours.  Rectangles of one colour are
 * gathered into one path and filled once: a frame makes one cairo fill per
 * colour, not one per task (a filled rectangle costs 1.4-2.4 us in cairo).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "view/render.h"

#define ARROW_MAX_PX	1500.0	/* arrows longer on screen vanish */
#define ARROW_HEAD_PX	12.0	/* shorter ones have no head */

struct rgb {
	double r, g, b;
};

#define HEX(v) { ((v) >> 16 & 0xff) / 255.0, ((v) >> 8 & 0xff) / 255.0, ((v) & 0xff) / 255.0 }

/* The page's colours (tools/viewer/viewer.js). */
static const struct rgb arrow_color[RTR_SCENE_ARROW_KINDS] = {
	HEX(0x0000ff), HEX(0xcccc66), HEX(0x008000), HEX(0xff9900), HEX(0x000000), HEX(0x000000),
};
static const struct rgb read_failed = HEX(0xff0000);
static const struct rgb remote_color = HEX(0x00a0a0);	/* a request between hosts */
static const struct rgb counter_color[] = { HEX(0xe6194b), HEX(0x3cb44b), HEX(0x4363d8), HEX(0x911eb4) };
static const struct rgb lane_color[] = {
	HEX(0x4e79a7), HEX(0xf28e2b), HEX(0x59a14f), HEX(0xb07aa1), HEX(0x76b7b2), HEX(0xedc948),
	HEX(0xff9da7), HEX(0x9c755f), HEX(0xbab0ac), HEX(0x8cd17d), HEX(0x86bcb6), HEX(0xd37295),
};

/*
 * @s as cairo's text functions take it: valid UTF-8.  A byte that does not
 * begin a valid sequence, and a control character, is drawn as '?'; a
 * string is cut at the buffer's size on a character's boundary.  A trace's
 * strings are its writer's bytes, and one invalid string leaves a cairo
 * context in an error state that draws nothing more.
 */
static const char *utf8(char *buf, size_t n, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t k = 0;

	while (*p && k + 1 < n) {
		unsigned c = *p, len = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 :
				    c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
		bool ok = len > 0;

		for (unsigned i = 1; ok && i < len; i++)
			ok = (p[i] & 0xc0) == 0x80;
		/* no overlong forms, no surrogates, nothing above U+10FFFF */
		if (ok && len == 3)
			ok = !(c == 0xe0 && p[1] < 0xa0) && !(c == 0xed && p[1] > 0x9f);
		if (ok && len == 4)
			ok = !(c == 0xf0 && p[1] < 0x90) && !(c == 0xf4 && p[1] > 0x8f);
		if (!ok || (len == 1 && (c < 0x20 || c == 0x7f))) {
			buf[k++] = '?';
			p++;
			continue;
		}
		if (k + len >= n)
			break;
		memcpy(buf + k, p, len);
		k += len;
		p += len;
	}
	buf[k] = 0;
	return buf;
}

/* cairo_show_text() of a string from a trace (utf8()). */
static void show(cairo_t *cr, const char *s)
{
	char buf[512];

	cairo_show_text(cr, utf8(buf, sizeof(buf), s));
}

/* cairo_text_extents() of the same. */
static void extents(cairo_t *cr, const char *s, cairo_text_extents_t *te)
{
	char buf[512];

	cairo_text_extents(cr, utf8(buf, sizeof(buf), s), te);
}

static void set(cairo_t *cr, struct rgb c, double a)
{
	cairo_set_source_rgba(cr, c.r, c.g, c.b, a);
}

static void hex(cairo_t *cr, uint32_t v)
{
	set(cr, (struct rgb)HEX(v), 1);
}

static uint32_t ngroups(const struct rtr_model *m)
{
	uint32_t n = 0;

	for (uint32_t c = 0; c < m->ncounters; c++)
		n += m->counters[c].group == c;
	return n;
}

uint32_t rtr_render_height(const struct rtr_scene *s, uint32_t max)
{
	double h = RTR_RENDER_RULER_H + (s->nrows ? s->nrows : 1) * RTR_RENDER_ROW_H +
		   ngroups(s->m) * RTR_RENDER_COUNTER_H + s->m->ncpus * RTR_RENDER_LANE_H + 4;

	return h > max ? max : (uint32_t)h;
}

void rtr_render_layout(const struct rtr_scene *s, const struct rtr_render_view *v,
		       struct rtr_render_layout *l)
{
	uint32_t row0 = v->row0 < s->nrows ? v->row0 : (s->nrows ? s->nrows - 1 : 0);
	uint32_t left = s->nrows - row0;
	double below;

	memset(l, 0, sizeof(*l));
	l->ngroups = ngroups(s->m);
	l->nlanes = s->m->ncpus;
	l->counters_h = l->ngroups * RTR_RENDER_COUNTER_H;
	below = l->counters_h + l->nlanes * RTR_RENDER_LANE_H + (l->nlanes ? 4 : 0);
	/* the rows keep at least half the window: the lanes go first */
	if (below > v->height / 2.0) {
		l->nlanes = 0;
		below = l->counters_h;
		if (below > v->height / 2.0)
			below = l->counters_h = l->ngroups = 0;
	}
	l->rows_y = RTR_RENDER_RULER_H;
	l->rows_h = v->height - l->rows_y - below;
	if (l->rows_h < 0)
		l->rows_h = 0;
	l->row_h = left ? l->rows_h / left : RTR_RENDER_ROW_H;
	if (l->row_h > RTR_RENDER_ROW_H)
		l->row_h = RTR_RENDER_ROW_H;
	if (l->row_h < 2)
		l->row_h = 2;
	l->row0 = row0;
	l->row1 = row0 + (uint32_t)(l->rows_h / l->row_h);
	if (l->row1 > s->nrows)
		l->row1 = s->nrows;
	l->counters_y = l->rows_y + l->rows_h;
	l->lanes_y = l->counters_y + l->counters_h + 4;
}

static double row_y(const struct rtr_render_layout *l, uint32_t row)
{
	return l->rows_y + ((double)row - l->row0 + 0.5) * l->row_h;
}

/* Time @ns as the ruler writes it, to the precision of @div. */
static void fmt_time(char *buf, size_t len, int64_t ns, int64_t div)
{
	static const struct {
		int64_t ns;
		const char *unit;
	} units[] = { { 1000000000, "s" }, { 1000000, "ms" }, { 1000, "us" }, { 1, "ns" } };
	size_t u = 0;

	while (u < 3 && div < units[u].ns)
		u++;
	if (div % units[u].ns == 0)
		snprintf(buf, len, "%" PRId64 " %s", ns / units[u].ns, units[u].unit);
	else
		snprintf(buf, len, "%.1f %s", (double)ns / units[u].ns, units[u].unit);
}

static bool marked(const struct rtr_render_view *v, uint32_t task)
{
	uint32_t lo = 0, hi = v->nmarks;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (v->marks[mid] < task)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < v->nmarks && v->marks[lo] == task;
}

/* The ruler: times from @start, with a line down [@grid_y, @grid_y + @grid_h) at each division. */
static void ruler(cairo_t *cr, int64_t start, const struct rtr_render_view *v, double grid_y,
		  double grid_h)
{
	double ppn = v->width / (double)(v->t1 - v->t0);	/* pixels a ns */
	int64_t div = 1;
	char buf[48];

	/* a division of 1, 2 or 5 times a power of ten, at least 100 px */
	while (div < INT64_MAX / 10) {
		if (div * ppn >= 100)
			break;
		if (div * 2 * ppn >= 100) {
			div *= 2;
			break;
		}
		if (div * 5 * ppn >= 100) {
			div *= 5;
			break;
		}
		div *= 10;
	}
	hex(cr, 0xf6f6f6);
	cairo_rectangle(cr, 0, 0, v->width, RTR_RENDER_RULER_H);
	cairo_fill(cr);
	cairo_set_font_size(cr, 11);
	for (int64_t t = (v->t0 - start) / div * div; t + start <= v->t1; t += div) {
		double x = floor((t + start - v->t0) * ppn) + 0.5;

		if (x < 0)
			continue;
		hex(cr, 0xd0d0d0);
		cairo_rectangle(cr, floor(x), grid_y, 1, grid_h);
		cairo_fill(cr);
		hex(cr, 0x555555);
		cairo_rectangle(cr, floor(x), RTR_RENDER_RULER_H - 5, 1, 5);
		cairo_fill(cr);
		fmt_time(buf, sizeof(buf), t, div);
		hex(cr, 0x444444);
		cairo_move_to(cr, x + 3, 13);
		show(cr, buf);
	}
}

/* A task's runs in view, white on its line: only for a task wide enough to show them. */
static void task_runs(cairo_t *cr, const struct rtr_scene *s, const struct rtr_render_view *v,
		      const struct rtr_item *it, double y, double h)
{
	const struct rtr_model *m = s->m;
	const struct rtr_model_task *t = &m->tasks[it->index];
	const struct rtr_model_run *r = m->runs + t->run_first;
	double ppn = v->width / (double)(v->t1 - v->t0);
	uint32_t lo = 0, hi = t->nruns;

	while (lo < hi) {	/* the first run ending at or after t0 */
		uint32_t mid = lo + (hi - lo) / 2;

		if (r[mid].end < v->t0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (uint32_t i = lo; i < t->nruns && r[i].start <= v->t1; i++) {
		double x0 = (r[i].start - v->t0) * ppn, x1 = (r[i].end - v->t0) * ppn;

		x0 = x0 < 0 ? 0 : x0;
		x1 = x1 > v->width ? v->width : x1;
		cairo_rectangle(cr, floor(x0), y - h / 2, fmax(1, floor(x1) - floor(x0)), h);
	}
}

/*
 * The kernel's records (record --sched): where a thread was runnable, from a
 * run that ended preempted to its next, a thinner amber band; blocked stays
 * the plain line.
 */
static void task_runnable(cairo_t *cr, const struct rtr_scene *s,
			  const struct rtr_render_view *v, const struct rtr_item *it, double y,
			  double h)
{
	const struct rtr_model *m = s->m;
	const struct rtr_model_task *t = &m->tasks[it->index];
	const struct rtr_model_run *r = m->runs + t->run_first;
	double ppn = v->width / (double)(v->t1 - v->t0);

	for (uint32_t i = 0, n = 0; i + 1 < t->nruns && r[i].end <= v->t1 && n < 4096; i++) {
		double x0, x1;

		if (r[i].why != RTR_RUN_PREEMPTED || r[i + 1].start < v->t0)
			continue;
		n++;
		x0 = fmax(0, (r[i].end - v->t0) * ppn);
		x1 = fmin(v->width, (r[i + 1].start - v->t0) * ppn);
		if (x1 - x0 >= 1)
			cairo_rectangle(cr, floor(x0), y - h / 2, floor(x1) - floor(x0), h);
	}
}

/* "held by NAME" under each band of a lock's row (rtr_frame.holds) wide enough for it. */
static void lock_holders(cairo_t *cr, const struct rtr_scene *s, const struct rtr_render_layout *l,
			 const struct rtr_frame *f, uint32_t *labels)
{
	const size_t ncol = sizeof(lane_color) / sizeof(lane_color[0]);
	char buf[32], text[320];

	for (uint32_t i = 0; i < f->nholds && *labels < RTR_SCENE_LABELS_MAX; i++) {
		const struct rtr_item *it = &f->holds[i];
		uint32_t holder = s->holds[it->index].holder;
		double x0 = it->x0 + 2, y = row_y(l, it->lane);

		if (it->x1 - x0 < 40)
			continue;
		snprintf(text, sizeof(text), "held by %s", rtr_scene_task_name(s, holder, buf,
										 sizeof(buf)));
		cairo_save(cr);
		cairo_rectangle(cr, x0, y + 2, it->x1 - x0, 12);
		cairo_clip(cr);
		set(cr, lane_color[holder % ncol], 1);
		cairo_move_to(cr, x0, y + 12);
		show(cr, text);
		cairo_restore(cr);
		(*labels)++;
	}
}

/* The task's trace has the kernel's records: its runs say how they ended. */
static bool m_trace_kernel(const struct rtr_scene *s, uint32_t task)
{
	return s->m->traces[s->m->tasks[task].trace].kernel;
}

static void rows(cairo_t *cr, const struct rtr_scene *s, const struct rtr_render_view *v,
		 const struct rtr_render_layout *l, const struct rtr_frame *f)
{
	double lw = l->row_h >= 6 ? 2 : 1, rh = fmin(7, l->row_h - 2);
	uint32_t labels = 0;
	char buf[32];

	/* search matches and the selection, under the lines */
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 0 && !v->nmarks)
			continue;
		for (uint32_t i = 0; i < f->ntasks; i++) {
			const struct rtr_item *it = &f->tasks[i];
			double y = row_y(l, it->lane);

			if (pass ? it->index == v->selected : marked(v, it->index))
				cairo_rectangle(cr, floor(it->x0) - 2, y - l->row_h / 2 + 1,
						floor(it->x1) - floor(it->x0) + 4, l->row_h - 2);
		}
		if (pass)
			cairo_set_source_rgba(cr, 40 / 255.0, 120 / 255.0, 1, 0.45);
		else
			cairo_set_source_rgba(cr, 1, 230 / 255.0, 0, 0.85);
		cairo_fill(cr);
	}
	/* white runs, then the lines: dark, merged dust, red */
	if (rh >= 2) {
		for (uint32_t i = 0; i < f->ntasks; i++)
			if (f->tasks[i].count == 1 && f->tasks[i].x1 - f->tasks[i].x0 >= 3)
				task_runs(cr, s, v, &f->tasks[i], row_y(l, f->tasks[i].lane), rh);
		hex(cr, 0xffffff);
		cairo_fill(cr);
		for (uint32_t i = 0; i < f->ntasks; i++)
			if (f->tasks[i].count == 1 && f->tasks[i].x1 - f->tasks[i].x0 >= 3 &&
			    m_trace_kernel(s, f->tasks[i].index))
				task_runnable(cr, s, v, &f->tasks[i], row_y(l, f->tasks[i].lane),
					      fmax(1, rh / 2));
		hex(cr, 0xe8a33c);
		cairo_fill(cr);
	}
	/* the locks' rows: who held each while others waited, a band in the holder's colour */
	for (size_t c = 0, ncol = sizeof(lane_color) / sizeof(lane_color[0]); f->nholds && c < ncol;
	     c++) {
		for (uint32_t i = 0; i < f->nholds; i++) {
			const struct rtr_item *it = &f->holds[i];

			if (s->holds[it->index].holder % ncol == c)
				cairo_rectangle(cr, floor(it->x0), row_y(l, it->lane) - 2.5,
						fmax(floor(it->x1) - floor(it->x0), 1), 5);
		}
		set(cr, lane_color[c], 1);	/* a path per colour */
		cairo_fill(cr);
	}
	/* the threads' CPU samples, a tick under their lines a pixel that has some */
	for (uint32_t i = 0; l->row_h >= 12 && i < f->nticks; i++)
		cairo_rectangle(cr, f->ticks[i].x0, row_y(l, f->ticks[i].lane) + 4, 1, 2);
	hex(cr, 0xc2185b);
	cairo_fill(cr);
	for (int pass = 0; pass < 3; pass++) {
		for (uint32_t i = 0; i < f->ntasks; i++) {
			const struct rtr_item *it = &f->tasks[i];
			int which = it->flags & (RTR_ITEM_FAILED | RTR_ITEM_NEVER) ? 2 :
				    it->flags & RTR_ITEM_SPAN ? 1 : 0;
			double x0 = floor(it->x0), x1 = fmax(floor(it->x1), x0 + 1);

			if (which != pass)
				continue;
			cairo_rectangle(cr, x0, floor(row_y(l, it->lane) - lw / 2), x1 - x0, lw);
			/* a failed task ends in a bar */
			if (pass == 2 && it->count == 1 && !(it->flags & RTR_ITEM_NEVER) &&
			    it->x1 < v->width && l->row_h >= 6)
				cairo_rectangle(cr, x1 - 2, row_y(l, it->lane) - 5, 2, 10);
		}
		hex(cr, pass == 0 ? 0x333333 : pass == 1 ? 0x777777 : 0xcc0000);
		cairo_fill(cr);
	}
	if (l->row_h < 12)
		return;
	/* each trace's name at the right of its first row, when several share the axis */
	cairo_set_font_size(cr, 10);
	for (uint32_t t = 0; s->m->ntraces > 1 && t < s->m->ntraces; t++) {
		const char *name = rtr_model_str(s->m, s->m->traces[t].dir);
		cairo_text_extents_t ext;

		if (s->trace_row[t] < l->row0 || s->trace_row[t] >= l->row1)
			continue;
		extents(cr, name, &ext);
		hex(cr, 0x555555);
		cairo_move_to(cr, v->width - ext.x_advance - 4, row_y(l, s->trace_row[t]) - l->row_h / 2 + 10);
		show(cr, name);
	}
	/* labels over lines wide enough, cut at the row's next item */
	cairo_set_font_size(cr, 10);
	for (uint32_t i = 0; i < f->ntasks && labels < RTR_SCENE_LABELS_MAX; i++) {
		const struct rtr_item *it = &f->tasks[i];
		const struct rtr_model_task *t = &s->m->tasks[it->index];
		double y = row_y(l, it->lane), x0 = fmax(it->x0, 0) + 1, end = v->width;

		if (it->count != 1 || it->x1 - it->x0 < RTR_SCENE_LABEL_MIN_PX)
			continue;
		if (i + 1 < f->ntasks && f->tasks[i + 1].lane == it->lane)
			end = f->tasks[i + 1].x0;
		cairo_save(cr);
		cairo_rectangle(cr, x0, y - l->row_h / 2, end - x0 - 2, l->row_h);
		cairo_clip(cr);
		if (t->flags & (RTR_TASK_FAILED | RTR_TASK_NEVER_RESOLVED))
			hex(cr, 0xaa0000);
		else
			hex(cr, 0x000000);
		cairo_move_to(cr, x0, y - 3);
		show(cr, rtr_scene_task_name(s, it->index, buf, sizeof(buf)));
		if (t->flags & RTR_TASK_FAILED && *rtr_model_str(s->m, t->reason)) {
			show(cr, ": ");
			show(cr, rtr_model_str(s->m, t->reason));
		}
		if (l->row_h >= 24 && s->hold_first[it->index] == s->hold_first[it->index + 1]) {
			hex(cr, 0x777777);
			cairo_move_to(cr, x0, y + 10);
			show(cr, rtr_model_str(s->m, t->kind_name));
		}
		cairo_restore(cr);
		labels++;
	}
	/* a lock's holders under their bands, where the row has room (its kind is not drawn) */
	if (l->row_h >= 24)
		lock_holders(cr, s, l, f, &labels);
}

#define ALPHA_LEVELS	6	/* arrows are batched by colour and one of these alphas */
#define SLOT_FAILED	RTR_SCENE_ARROW_KINDS		/* red */
#define SLOT_REMOTE	(RTR_SCENE_ARROW_KINDS + 1)	/* teal */

/* The colour slot of an arrow: its kind, a failure, or a request between traces. */
static unsigned arrow_slot(const struct rtr_scene *s, const struct rtr_scene_arrow *a)
{
	if (rtr_scene_arrow_failed(s, a))
		return SLOT_FAILED;
	return rtr_scene_arrow_remote(a) ? SLOT_REMOTE : a->kind % RTR_SCENE_ARROW_KINDS;
}

static struct rgb slot_color(unsigned slot)
{
	return slot == SLOT_FAILED ? read_failed : slot == SLOT_REMOTE ? remote_color :
									  arrow_color[slot];
}

/*
 * Arrows: one path per colour and alpha level, stroked once (a stroke per
 * arrow composited its bounding box each time: 100 ms for 4000 arrows);
 * their heads one path per colour.
 */
static void arrows(cairo_t *cr, const struct rtr_scene *s, const struct rtr_render_view *v,
		   const struct rtr_render_layout *l, const struct rtr_frame *f)
{
	cairo_save(cr);
	cairo_set_line_width(cr, 1);
	for (unsigned slot = 0; slot <= SLOT_REMOTE; slot++) {
		struct rgb c = slot_color(slot);
		bool heads = false;

		for (int level = 0; level < ALPHA_LEVELS; level++) {
			bool any = false;

			for (uint32_t i = 0; i < f->narrows; i++) {
				const struct rtr_arrow_item *ai = &f->arrows[i];
				const struct rtr_scene_arrow *a = &s->arrows[ai->arrow];
				double y0 = row_y(l, ai->from_row), y1 = row_y(l, ai->to_row);
				double len = hypot(ai->x1 - ai->x0, y1 - y0);
				int lv = len <= 100 ? 0 : 1 + (int)((len - 100) / (ARROW_MAX_PX - 100) * (ALPHA_LEVELS - 1));

				if (lv != level || arrow_slot(s, a) != slot || rtr_scene_arrow_hidden(a) ||
				    len > ARROW_MAX_PX)
					continue;
				if ((ai->x0 < 0 && ai->x1 < 0) || (ai->x0 > v->width && ai->x1 > v->width))
					continue;
				cairo_move_to(cr, ai->x0, y0);
				cairo_line_to(cr, ai->x1, y1);
				any = true;
				heads |= a->kind < RTR_SCENE_ARROW_CREATE && len >= ARROW_HEAD_PX;
			}
			if (!any)
				continue;
			set(cr, c, 1 - 0.85 * level / (ALPHA_LEVELS - 1));
			cairo_stroke(cr);
		}
		if (!heads)
			continue;
		for (uint32_t i = 0; i < f->narrows; i++) {
			const struct rtr_arrow_item *ai = &f->arrows[i];
			const struct rtr_scene_arrow *a = &s->arrows[ai->arrow];
			double y0 = row_y(l, ai->from_row), y1 = row_y(l, ai->to_row);
			double dx = ai->x1 - ai->x0, dy = y1 - y0, len = hypot(dx, dy), ux, uy;

			if (arrow_slot(s, a) != slot || rtr_scene_arrow_hidden(a) || len > ARROW_MAX_PX ||
			    a->kind >= RTR_SCENE_ARROW_CREATE || len < ARROW_HEAD_PX ||
			    ai->x1 < -6 || ai->x1 > v->width + 6)
				continue;
			ux = dx / len;
			uy = dy / len;
			cairo_move_to(cr, ai->x1, y1);
			cairo_line_to(cr, ai->x1 - 6 * ux + 3 * uy, y1 - 6 * uy - 3 * ux);
			cairo_line_to(cr, ai->x1 - 6 * ux - 3 * uy, y1 - 6 * uy + 3 * ux);
			cairo_close_path(cr);
		}
		set(cr, c, 1);
		cairo_fill(cr);
	}
	cairo_restore(cr);
}

/* Too many arrows to draw: a tick per kind and column, darker the more end there. */
static void arrow_summary(cairo_t *cr, const struct rtr_render_view *v, const struct rtr_render_layout *l,
			  const struct rtr_frame *f)
{
	if (f->arrow_detail != RTR_ARROWS_SUMMARY || !f->arrow_hist)
		return;
	for (unsigned k = 0; k < RTR_SCENE_ARROW_CREATE; k++) {
		for (int level = 1; level <= 8; level++) {	/* one fill per kind and shade */
			bool any = false;

			for (uint32_t x = 0; x < v->width; x++) {
				uint32_t n = f->arrow_hist[k * v->width + x];
				int lv = n ? (int)fmin(8, 1 + log2(n)) : 0;

				if (lv == level) {
					cairo_rectangle(cr, x, l->rows_y + k * 3, 1, 3);
					any = true;
				}
			}
			if (any) {
				set(cr, arrow_color[k], 0.2 + 0.1 * level);
				cairo_fill(cr);
			}
		}
	}
}

/* @cr draws into SVG or PDF: lines as lines, not pixels. */
static bool vector(cairo_t *cr)
{
	cairo_surface_type_t t = cairo_surface_get_type(cairo_get_target(cr));

	return t == CAIRO_SURFACE_TYPE_SVG || t == CAIRO_SURFACE_TYPE_PDF || t == CAIRO_SURFACE_TYPE_PS;
}

/* v / 255, rounded, for v <= 255 * 255 */
static inline uint32_t div255(uint32_t v)
{
	v += 128;
	return (v + (v >> 8)) >> 8;
}

/* Blend @c at @a into premultiplied pixel @p. */
static inline void blend(uint32_t *p, uint32_t c, uint32_t a)
{
	uint32_t d = *p, ia = 255 - a;
	uint32_t r = div255((c >> 16 & 0xff) * a + (d >> 16 & 0xff) * ia);
	uint32_t g = div255((c >> 8 & 0xff) * a + (d >> 8 & 0xff) * ia);
	uint32_t b = div255((c & 0xff) * a + (d & 0xff) * ia);
	uint32_t da = a + div255((d >> 24) * ia);

	*p = da << 24 | r << 16 | g << 8 | b;
}

/* A 1 px line from (x0, y0) to (x1, y1), clipped to the layer, a pixel a step. */
static void line_px(uint32_t *px, int stride, int w, int top, int h, double x0, double y0, double x1,
		    double y1, uint32_t c, uint32_t a)
{
	double dx = x1 - x0, dy = y1 - y0, n = fmax(fabs(dx), fabs(dy));
	double t0 = 0, t1 = 1;

	if (n < 1)
		n = 1;
	/* the part of the line inside [0, w) x [top, top + h) */
	if (dx) {
		double ta = (0 - x0) / dx, tb = (w - 1 - x0) / dx;

		t0 = fmax(t0, fmin(ta, tb));
		t1 = fmin(t1, fmax(ta, tb));
	} else if (x0 < 0 || x0 >= w) {
		return;
	}
	if (dy) {
		double ta = (top - y0) / dy, tb = (top + h - 1 - y0) / dy;

		t0 = fmax(t0, fmin(ta, tb));
		t1 = fmin(t1, fmax(ta, tb));
	} else if (y0 < top || y0 >= top + h) {
		return;
	}
	{
		double i0 = ceil(t0 * n), sx = dx / n, sy = dy / n;
		double x = x0 + sx * i0, y = y0 + sy * i0 - top;

		for (long i = (long)i0, i1 = (long)floor(t1 * n); i <= i1; i++, x += sx, y += sy) {
			int xi = (int)x, yi = (int)y;

			if (xi >= 0 && xi < w && yi >= 0 && yi < h)
				blend(&px[(size_t)yi * (size_t)stride + (size_t)xi], c, a);
		}
	}
}

static uint32_t rgb_u32(struct rgb c)
{
	return (uint32_t)(c.r * 255) << 16 | (uint32_t)(c.g * 255) << 8 | (uint32_t)(c.b * 255);
}

/*
 * Arrows into pixels (an image, a window): each line a pixel a step into a
 * layer of the rows' area, painted once.  Stroked as paths, 4000 long arrows
 * took ~100 ms a frame in cairo (a composite per scanline of each).
 * Return: 0, or -1 (no memory for the layer: draw them as paths).
 */
static int arrows_pixels(cairo_t *cr, const struct rtr_scene *s, const struct rtr_render_view *v,
			 const struct rtr_render_layout *l, const struct rtr_frame *f)
{
	int w = (int)v->width, h = (int)ceil(l->rows_h), top = (int)l->rows_y, stride;
	cairo_surface_t *layer;
	uint32_t *px;

	if (h < 1)
		return 0;
	layer = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
	if (cairo_surface_status(layer)) {
		cairo_surface_destroy(layer);
		return -1;
	}
	cairo_surface_flush(layer);
	px = (uint32_t *)cairo_image_surface_get_data(layer);
	stride = cairo_image_surface_get_stride(layer) / 4;
	for (uint32_t i = 0; i < f->narrows; i++) {
		const struct rtr_arrow_item *ai = &f->arrows[i];
		const struct rtr_scene_arrow *a = &s->arrows[ai->arrow];
		double y0 = row_y(l, ai->from_row), y1 = row_y(l, ai->to_row);
		double dx = ai->x1 - ai->x0, dy = y1 - y0, len = hypot(dx, dy);
		uint32_t c, al;

		if (rtr_scene_arrow_hidden(a) || len > ARROW_MAX_PX)
			continue;
		c = rgb_u32(slot_color(arrow_slot(s, a)));
		al = (uint32_t)(255 * (len <= 100 ? 1 : 1 - 0.85 * (len - 100) / (ARROW_MAX_PX - 100)));
		line_px(px, stride, w, top, h, ai->x0, y0, ai->x1, y1, c, al);
		if (a->kind < RTR_SCENE_ARROW_CREATE && len >= ARROW_HEAD_PX) {
			double ux = dx / len, uy = dy / len;

			for (int k = 1; k <= 6; k++)	/* the head: two short strokes */
				line_px(px, stride, w, top, h, ai->x1, y1, ai->x1 - 6 * ux + 3 * uy * k / 6.0,
					y1 - 6 * uy - 3 * ux * k / 6.0, c, 255);
			for (int k = 1; k <= 6; k++)
				line_px(px, stride, w, top, h, ai->x1, y1, ai->x1 - 6 * ux - 3 * uy * k / 6.0,
					y1 - 6 * uy + 3 * ux * k / 6.0, c, 255);
		}
	}
	/* arrow_summary()'s ticks, as pixels */
	for (unsigned k = 0; f->arrow_detail == RTR_ARROWS_SUMMARY && f->arrow_hist &&
			     k < RTR_SCENE_ARROW_CREATE && (int)k * 3 + 3 <= h; k++)
		for (int x = 0; x < w; x++) {
			uint32_t n = f->arrow_hist[k * v->width + (uint32_t)x];
			uint32_t al = n ? (uint32_t)(255 * (0.2 + 0.1 * fmin(8, 1 + log2(n)))) : 0;

			for (int y = (int)k * 3; al && y < (int)k * 3 + 3; y++)
				blend(&px[(size_t)y * (size_t)stride + (size_t)x], rgb_u32(arrow_color[k]), al);
		}
	cairo_surface_mark_dirty(layer);
	cairo_set_source_surface(cr, layer, 0, top);
	cairo_paint(cr);
	cairo_surface_destroy(layer);
	return 0;
}

static void counters(cairo_t *cr, const struct rtr_scene *s, const struct rtr_render_view *v,
		     const struct rtr_render_layout *l, const struct rtr_frame *f)
{
	const struct rtr_model *m = s->m;
	uint32_t strip = 0;
	char buf[96];

	if (!l->counters_h)
		return;
	hex(cr, 0xfbfbfb);
	cairo_rectangle(cr, 0, l->counters_y, v->width, l->counters_h);
	cairo_fill(cr);
	cairo_set_font_size(cr, 10);
	cairo_set_line_width(cr, 1.5);
	for (uint32_t g = 0; g < m->ncounters; g++) {
		double y0, top;
		int64_t lo = INT64_MAX, hi = INT64_MIN;

		if (m->counters[g].group != g)
			continue;
		top = l->counters_y + strip++ * RTR_RENDER_COUNTER_H;
		y0 = top + RTR_RENDER_COUNTER_H - 6;
		for (uint32_t c = g; c < m->ncounters; c++)
			if (m->counters[c].group == g) {
				lo = m->counters[c].min < lo ? m->counters[c].min : lo;
				hi = m->counters[c].max > hi ? m->counters[c].max : hi;
			}
		if (lo > 0)
			lo = 0;
		if (hi <= lo)
			hi = lo + 1;
		hex(cr, 0xdddddd);
		cairo_rectangle(cr, 0, top, v->width, 1);
		cairo_fill(cr);
		/* a counter's items (they come by counter) one path, stroked once: a
		   stroke per item cost 5 ms a frame at a thousand columns */
		for (uint32_t i = 0; i < f->ncounters; i++) {
			const struct rtr_counter_item *ci = &f->counters[i];
			double sc = (RTR_RENDER_COUNTER_H - 14) / (double)(hi - lo);

			if (m->counters[ci->counter].group != g)
				continue;
			cairo_move_to(cr, ci->x0, y0 - (ci->min - lo) * sc);
			cairo_line_to(cr, ci->x0, y0 - (ci->max - lo) * sc);
			cairo_move_to(cr, ci->x0, y0 - (ci->value - lo) * sc);
			cairo_line_to(cr, ci->x1, y0 - (ci->value - lo) * sc);
			if (i + 1 == f->ncounters || f->counters[i + 1].counter != ci->counter) {
				set(cr, counter_color[ci->counter % 4], 1);
				cairo_stroke(cr);
			}
		}
		hex(cr, 0x555555);
		snprintf(buf, sizeof(buf), "%s  (%" PRId64 " .. %" PRId64 ")",
			 rtr_model_str(m, m->counters[g].name), lo, hi);
		cairo_move_to(cr, 4, top + 11);
		show(cr, buf);
	}
}

static void lanes(cairo_t *cr, const struct rtr_scene *s, const struct rtr_render_view *v,
		  const struct rtr_render_layout *l, const struct rtr_frame *f)
{
	const struct rtr_model *m = s->m;
	const size_t ncol = sizeof(lane_color) / sizeof(lane_color[0]);
	char buf[48];

	if (!l->nlanes)
		return;
	hex(cr, 0xf3f3f3);
	cairo_rectangle(cr, 0, l->lanes_y - 4, v->width, l->nlanes * RTR_RENDER_LANE_H + 4);
	cairo_fill(cr);
	/* one fill per colour: the runs' tasks pick it */
	for (size_t c = 0; c <= ncol; c++) {
		bool any = false;

		for (uint32_t i = 0; i < f->nruns; i++) {
			const struct rtr_item *it = &f->runs[i];
			size_t col = it->flags & RTR_ITEM_SPAN ? ncol : m->runs[it->index].task % ncol;
			double x0 = floor(it->x0);

			if (col != c || it->lane >= l->nlanes)
				continue;
			cairo_rectangle(cr, x0, l->lanes_y + it->lane * RTR_RENDER_LANE_H,
					fmax(floor(it->x1) - x0, 1), RTR_RENDER_LANE_H - 3);
			any = true;
		}
		if (!any)
			continue;
		if (c == ncol)
			hex(cr, 0x888888);
		else
			set(cr, lane_color[c], 1);
		cairo_fill(cr);
	}
	for (uint32_t i = 0; i < f->ncpu_marks; i++) {
		const struct rtr_item *it = &f->cpu_marks[i];

		if (it->lane < l->nlanes)
			cairo_rectangle(cr, floor(it->x0), l->lanes_y + it->lane * RTR_RENDER_LANE_H,
					fmax(floor(it->x1) - floor(it->x0), 1), RTR_RENDER_LANE_H - 3);
	}
	cairo_set_source_rgba(cr, 123 / 255.0, 31 / 255.0, 162 / 255.0, 0.6);
	cairo_fill(cr);
	cairo_set_font_size(cr, 9);
	for (uint32_t c = 0; c < l->nlanes; c++) {
		if (m->cpus[c].cpu == UINT32_MAX)	/* a stream whose packets never said */
			snprintf(buf, sizeof(buf), "cpu ?");
		else
			snprintf(buf, sizeof(buf), "cpu %u%s", m->cpus[c].cpu,
				 m->cpus[c].kernel ? " kernel" : "");
		hex(cr, 0x666666);
		cairo_move_to(cr, 3, l->lanes_y + c * RTR_RENDER_LANE_H + 9);
		show(cr, buf);
	}
}

/*
 * The pauses (stalls the program reported, rtr_pause()): brown shading
 * behind everything, the reason at its top where the region is 30 px wide.
 */
static void pauses(cairo_t *cr, const struct rtr_scene *s, const struct rtr_render_view *v,
		   const struct rtr_render_layout *l, const struct rtr_frame *f)
{
	const struct rtr_model *m = s->m;

	for (uint32_t i = 0; i < f->npauses; i++) {
		const struct rtr_item *it = &f->pauses[i];

		cairo_rectangle(cr, floor(it->x0), l->rows_y, fmax(floor(it->x1) - floor(it->x0), 1),
				v->height - l->rows_y);
	}
	cairo_set_source_rgba(cr, 150 / 255.0, 110 / 255.0, 60 / 255.0, 0.22);
	cairo_fill(cr);
	cairo_set_font_size(cr, 11);
	hex(cr, 0x6b4a1e);
	for (uint32_t i = 0; i < f->npauses; i++) {
		const struct rtr_item *it = &f->pauses[i];
		const struct rtr_model_pause *p = &m->pauses[it->index];

		if (it->x1 - it->x0 <= 30)
			continue;
		cairo_move_to(cr, floor(it->x0) + 3, l->rows_y + 11);
		show(cr, rtr_model_str(m, p->reason));
		if (it->count > 1)
			show(cr, " ...");
	}
}

/* The notes' faint purple lines down through the rows: behind the tasks, whose colours stay. */
static void note_lines(cairo_t *cr, const struct rtr_render_view *v, const struct rtr_render_layout *l,
		       const struct rtr_frame *f)
{
	for (uint32_t i = 0; i < f->nnotes; i++)
		cairo_rectangle(cr, floor(f->notes[i].x0), l->rows_y, 1, v->height - l->rows_y);
	cairo_set_source_rgba(cr, 123 / 255.0, 31 / 255.0, 162 / 255.0, 0.35);
	cairo_fill(cr);
}

/*
 * The notes: a purple mark under the ruler at each (its line is drawn
 * behind the rows, note_lines()), its text where it fits (the page's,
 * viewer.js).
 */
static void notes(cairo_t *cr, const struct rtr_scene *s, const struct rtr_render_layout *l,
		  const struct rtr_frame *f)
{
	const struct rtr_model *m = s->m;
	double right = -1;
	char buf[128];

	for (uint32_t i = 0; i < f->nnotes; i++)
		cairo_rectangle(cr, floor(f->notes[i].x0) - 2.5, RTR_RENDER_RULER_H - 6, 6, 6);
	hex(cr, 0x7b1fa2);
	cairo_fill(cr);
	cairo_set_font_size(cr, 11);
	for (uint32_t i = 0; i < f->nnotes; i++) {
		const struct rtr_item *it = &f->notes[i];
		const struct rtr_model_note *n = &m->notes[it->index];
		cairo_text_extents_t te;
		double x = floor(it->x0) + 4;

		if (x <= right)
			continue;
		if (it->count > 1)
			snprintf(buf, sizeof(buf), "%u notes", it->count);
		else
			snprintf(buf, sizeof(buf), "%s", rtr_model_str(m, n->text));
		extents(cr, buf, &te);
		cairo_set_source_rgba(cr, 1, 1, 1, 0.85);
		cairo_rectangle(cr, x - 1, l->rows_y + 1, te.x_advance + 2, 13);
		cairo_fill(cr);
		hex(cr, 0x7b1fa2);
		cairo_move_to(cr, x, l->rows_y + 11);
		show(cr, buf);
		right = x + te.x_advance + 6;
	}
}

/*
 * What the trace lost, where: a red diamond on the CPU's lane where its
 * stream revealed the loss, a red line up through the rows, and how many
 * where the text fits; a damaged stream's lane shaded red from its last
 * good item on (unknown from there).  The page's marks (viewer.js).
 */
static void losses(cairo_t *cr, const struct rtr_scene *s, const struct rtr_render_view *v,
		   const struct rtr_render_layout *l, const struct rtr_frame *f)
{
	const struct rtr_model *m = s->m;
	const double k = (double)v->width / (double)(v->t1 - v->t0), lh = RTR_RENDER_LANE_H;
	double right = -1;
	char buf[64];

	if (!l->nlanes)
		return;
	cairo_set_font_size(cr, 9);
	for (uint32_t i = 0; i < m->ndamage; i++) {
		const struct rtr_model_damage *d = &m->damage[i];
		double x, y;

		if (d->cpu >= l->nlanes || d->ts >= v->t1)
			continue;
		x = d->ts <= v->t0 ? 0 : (double)(d->ts - v->t0) * k;
		y = l->lanes_y + d->cpu * lh;
		cairo_set_source_rgba(cr, 0.8, 0, 0, 0.25);
		cairo_rectangle(cr, x, y, v->width - x, lh - 3);
		cairo_fill(cr);
		hex(cr, 0xa00000);
		cairo_move_to(cr, x + 3, y + 8);
		show(cr, "damaged");
	}
	for (uint32_t i = 0; i < f->nlosses; i++) {
		const struct rtr_loss_item *it = &f->losses[i];
		double x = floor(it->x) + 0.5, y = l->lanes_y + it->lane * lh, tx;
		cairo_text_extents_t te;

		if (it->lane >= l->nlanes)
			continue;
		hex(cr, 0xd00000);
		cairo_move_to(cr, x, y - 1);
		cairo_line_to(cr, x + 4, y + lh / 2 - 2);
		cairo_line_to(cr, x, y + lh - 3);
		cairo_line_to(cr, x - 4, y + lh / 2 - 2);
		cairo_close_path(cr);
		cairo_fill(cr);
		cairo_rectangle(cr, x - 0.5, l->rows_y, 1, l->lanes_y - 4 - l->rows_y);
		cairo_fill(cr);
		if (it->events && it->packets)
			snprintf(buf, sizeof(buf), "%" PRIu64 " events, %" PRIu64 " packets lost",
				 it->events, it->packets);
		else
			snprintf(buf, sizeof(buf), "%" PRIu64 " %s lost",
				 it->events ? it->events : it->packets, it->events ? "events" : "packets");
		extents(cr, buf, &te);
		/* right of the mark, or left of it at the right edge (a loss at the trace's end) */
		tx = x + 6 + te.x_advance <= v->width ? x + 6 : x - 6 - te.x_advance;
		if (tx <= right || tx < 0)
			continue;
		cairo_set_source_rgba(cr, 1, 1, 1, 0.85);
		cairo_rectangle(cr, tx - 1, y, te.x_advance + 2, lh - 3);
		cairo_fill(cr);
		hex(cr, 0xa00000);
		cairo_move_to(cr, tx, y + 8);
		show(cr, buf);
		right = tx + te.x_advance + 4;
	}
}

/* A critical path's colours, by enum rtr_cp_what (Documentation/viewer.rst). */
static const struct rgb path_color[] = {
	[RTR_CP_RUNNING] = HEX(0x2ca02c), [RTR_CP_RUNNABLE] = HEX(0xff7f0e),
	[RTR_CP_WAIT_TASK] = HEX(0x1f77b4), [RTR_CP_WAIT_LOCK] = HEX(0xd62728),
	[RTR_CP_RESOLVER] = HEX(0x9467bd), [RTR_CP_CREATOR] = HEX(0x8c564b),
	[RTR_CP_NOT_RUNNING] = HEX(0x7f7f7f),
};
static const struct rgb path_link = HEX(0xcc00cc);

/*
 * The critical path over the rows: a thick band on the row of each
 * segment's task, coloured by what it did, and where the path moves from
 * one task to another a magenta line between their rows.  One path per
 * colour, filled once.
 */
static void path(cairo_t *cr, const struct rtr_scene *s, const struct rtr_render_view *v,
		 const struct rtr_render_layout *l)
{
	double k = (double)v->width / (double)(v->t1 - v->t0);

	for (uint32_t c = 0; c < sizeof(path_color) / sizeof(path_color[0]); c++) {
		bool any = false;

		for (uint32_t i = 0; i < v->npath; i++) {
			const struct rtr_path_seg *sg = &v->path[i];
			uint32_t row = s->task_row[sg->task];
			double x0, x1;

			if (sg->what != c || sg->t1 < v->t0 || sg->t0 > v->t1 || row < l->row0 ||
			    row >= l->row1)
				continue;
			x0 = fmax((double)(sg->t0 - v->t0) * k, -1);
			x1 = fmin((double)(sg->t1 - v->t0) * k, v->width + 1);
			cairo_rectangle(cr, x0, row_y(l, row) - 3, fmax(x1 - x0, 1), 6);
			any = true;
		}
		if (any) {
			set(cr, path_color[c], 0.9);
			cairo_fill(cr);
		}
	}
	for (uint32_t i = 1; i < v->npath; i++) {
		const struct rtr_path_seg *a = &v->path[i - 1], *b = &v->path[i];
		double x = (double)(b->t0 - v->t0) * k;

		if (a->task == b->task || b->t0 < v->t0 || b->t0 > v->t1)
			continue;
		cairo_move_to(cr, x, row_y(l, s->task_row[a->task]));
		cairo_line_to(cr, x, row_y(l, s->task_row[b->task]));
	}
	set(cr, path_link, 0.9);
	cairo_set_line_width(cr, 2);
	cairo_stroke(cr);
}

/* A frame's start: @cr saved and clipped to @v, its font chosen, the background painted. */
static void begin(cairo_t *cr, const struct rtr_render_view *v)
{
	cairo_save(cr);
	cairo_rectangle(cr, 0, 0, v->width, v->height);
	cairo_clip(cr);
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
	hex(cr, 0xe6e6e6);
	cairo_paint(cr);
}

int rtr_render(cairo_t *cr, const struct rtr_scene *s, const struct rtr_render_view *v,
	       struct rtr_frame *f)
{
	struct rtr_render_layout l;
	struct rtr_window w;
	int ret;

	if (!v->height || v->t1 <= v->t0)
		return -EINVAL;
	rtr_render_layout(s, v, &l);
	w = (struct rtr_window){ .t0 = v->t0, .t1 = v->t1, .row0 = l.row0, .row1 = l.row1,
				 .width = v->width };
	ret = rtr_scene_window(s, &w, f);
	if (ret)
		return ret;
	begin(cr, v);
	/* sleeping regions: behind their trace's rows */
	for (uint32_t i = 0; i < f->nsleep; i++) {
		const struct rtr_span *sp = &f->sleep[i];
		uint32_t r0 = s->trace_row[sp->trace], r1 = s->trace_row[sp->trace + 1];

		r0 = r0 < l.row0 ? l.row0 : r0;
		r1 = r1 > l.row1 ? l.row1 : r1;
		if (r0 < r1)
			cairo_rectangle(cr, floor(sp->x0), row_y(&l, r0) - l.row_h / 2,
					fmax(floor(sp->x1) - floor(sp->x0), 1), (r1 - r0) * l.row_h);
	}
	hex(cr, 0xd2d2d2);
	cairo_fill(cr);
	pauses(cr, s, v, &l, f);
	note_lines(cr, v, &l, f);
	ruler(cr, s->m->start - v->ruler_shift, v, l.rows_y, l.rows_h);
	cairo_save(cr);
	cairo_rectangle(cr, 0, l.rows_y, v->width, l.rows_h);
	cairo_clip(cr);
	rows(cr, s, v, &l, f);
	if (vector(cr) || arrows_pixels(cr, s, v, &l, f)) {
		arrows(cr, s, v, &l, f);
		arrow_summary(cr, v, &l, f);
	}
	if (v->path)
		path(cr, s, v, &l);
	cairo_restore(cr);
	counters(cr, s, v, &l, f);
	lanes(cr, s, v, &l, f);
	notes(cr, s, &l, f);
	losses(cr, s, v, &l, f);
	cairo_restore(cr);
	return cairo_status(cr) == CAIRO_STATUS_NO_MEMORY ? -ENOMEM : 0;
}

uint32_t rtr_render_hit(const struct rtr_scene *s, const struct rtr_render_view *v,
			const struct rtr_frame *f, double x, double y)
{
	struct rtr_render_layout l;
	uint32_t row, best = RTR_MODEL_NONE;
	double dist = 4;

	rtr_render_layout(s, v, &l);
	if (y < l.rows_y || y >= l.rows_y + (l.row1 - l.row0) * l.row_h)
		return RTR_MODEL_NONE;
	row = l.row0 + (uint32_t)((y - l.rows_y) / l.row_h);
	for (uint32_t i = 0; i < f->ntasks; i++) {
		const struct rtr_item *it = &f->tasks[i];
		double d = x < it->x0 ? it->x0 - x : x > it->x1 ? x - it->x1 : 0;

		if (it->lane == row && d < dist) {
			dist = d;
			best = it->index;
		}
	}
	return best;
}

/* The overview's lanes: a lane this tall when they fit, squeezed to 4 px when not. */
#define OVERVIEW_LANE_H	36.0

int rtr_render_overview(cairo_t *cr, const struct rtr_overview *ov, const struct rtr_render_view *v,
			const char *msg)
{
	double top = RTR_RENDER_RULER_H + 8, text_h = 54, lane_h, max = 0;
	uint32_t w = v->width, h;
	double *d;
	cairo_surface_t *img;
	char buf[96];

	if (!v->height || v->t1 <= v->t0 || !w || w > RTR_SCENE_MAX_WIDTH)
		return -EINVAL;
	lane_h = ov->nlanes ? (v->height - top - text_h) / ov->nlanes : 0;
	lane_h = lane_h > OVERVIEW_LANE_H ? OVERVIEW_LANE_H : lane_h < 4 ? 4 : floor(lane_h);
	h = (uint32_t)(lane_h * ov->nlanes);
	if (!(d = malloc(((size_t)w * ov->nlanes + 1) * sizeof(*d))))
		return -ENOMEM;
	for (uint32_t l = 0; l < ov->nlanes; l++)
		rtr_overview_density(ov, l, v->t0, v->t1, w, d + (size_t)l * w);
	for (size_t i = 0; i < (size_t)w * ov->nlanes; i++)
		max = d[i] > max ? d[i] : max;
	begin(cr, v);
	ruler(cr, 0, v, top, h);
	/*
	 * Each lane a bar chart of its events a pixel column, on a square-root
	 * scale (a column of one event still shows), drawn into an image: one
	 * paint a frame, not a rectangle a column.
	 */
	img = h ? cairo_image_surface_create(CAIRO_FORMAT_ARGB32, (int)w, (int)h) : NULL;
	if (img && cairo_surface_status(img) == CAIRO_STATUS_SUCCESS) {
		uint32_t *px = (uint32_t *)cairo_image_surface_get_data(img);
		int stride = cairo_image_surface_get_stride(img) / 4;
		double smax = sqrt(max);

		cairo_surface_flush(img);
		for (uint32_t l = 0; l < ov->nlanes; l++) {
			uint32_t y0 = (uint32_t)(l * lane_h), lh = (uint32_t)lane_h - 2;

			for (uint32_t x = 0; x < w; x++) {
				double v_ = d[(size_t)l * w + x];
				uint32_t bar = v_ > 0 && smax > 0 ? (uint32_t)ceil(sqrt(v_) / smax * lh) : 0;

				for (uint32_t y = 0; y < lh + 2; y++)
					px[(size_t)(y0 + y) * stride + x] =
						y >= lh + 1 ? 0xffe6e6e6u :
						y >= lh + 1 - bar ? 0xff1f4e9au :
						0xfff3f3f3u;
			}
		}
		cairo_surface_mark_dirty(img);
		cairo_set_source_surface(cr, img, 0, top);
		cairo_paint(cr);
	}
	if (img)
		cairo_surface_destroy(img);
	cairo_set_font_size(cr, 10);
	for (uint32_t l = 0; l < ov->nlanes && lane_h >= 12; l++) {
		const struct rtr_overview_lane *ln = &ov->lanes[l];

		if (ln->cpu == UINT64_MAX)
			snprintf(buf, sizeof(buf), "%.60s", ln->name);
		else
			snprintf(buf, sizeof(buf), "%.60s (cpu %" PRIu64 ")", ln->name, ln->cpu);
		cairo_text_extents_t te;

		extents(cr, buf, &te);
		cairo_set_source_rgba(cr, 1, 1, 1, 0.85);
		cairo_rectangle(cr, 2, top + l * lane_h + 1, te.x_advance + 4, 13);
		cairo_fill(cr);
		hex(cr, 0x333333);
		cairo_move_to(cr, 4, top + l * lane_h + 11);
		show(cr, buf);
	}
	/* what this is, and what to do: under the lanes */
	if (msg) {
		double y = top + h + 18;

		cairo_set_font_size(cr, 13);
		hex(cr, 0x222222);
		for (const char *p = msg; *p && y < v->height; y += 17) {
			const char *e = strchr(p, '\n');
			size_t n = e ? (size_t)(e - p) : strlen(p);
			char line[256];

			snprintf(line, sizeof(line), "%.*s", (int)(n < sizeof(line) - 1 ? n : sizeof(line) - 1), p);
			cairo_move_to(cr, 8, y);
			show(cr, line);
			p += n + (e != NULL);
		}
	}
	cairo_restore(cr);
	free(d);
	return cairo_status(cr) == CAIRO_STATUS_NO_MEMORY ? -ENOMEM : 0;
}
