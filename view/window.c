// SPDX-License-Identifier: MIT
/*
 * view/window.c - the window query (view/scene.h): what to draw of a scene
 * in a time range, some rows, at a width in pixels.  Each lane is walked a
 * pixel at a time: a binary search finds the first item of the next pixel,
 * the segment tree of view/scene.c the most important of the pixel's items,
 * so a query costs O(pixels * log n), never O(events).  view/lod.h finds a
 * pixel's most important item.  Learnt from Tracy
 * (zones narrower than a few pixels folded into one that carries a count)
 * and Perfetto (the longest slice of each pixel bucket kept).
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "view/scene.h"
#include "view/scene_internal.h"

/* The window in integers: pixel boundaries are exact times. */
struct win {
	int64_t t0, t1, span;
	uint32_t width;
	double k;		/* pixels per ns */
	const int64_t *bound;	/* bound[px]: the first time of pixel column px (0 .. width) */
};

/* X of time @t: pixels from the left edge, unclamped. */
static double px_x(const struct win *w, int64_t t)
{
	return ((double)t - (double)w->t0) * w->k;
}

/* The pixel column @t falls in (-1 before the window, width after it). */
static int64_t px_of(const struct win *w, int64_t t)
{
	int64_t p;

	if (t < w->t0)
		return -1;
	if (t >= w->t1)
		return w->width;
	/* the estimate in doubles, set right against the exact bounds */
	p = (int64_t)(((double)t - (double)w->t0) * w->k);
	p = p < 0 ? 0 : p >= w->width ? w->width - 1 : p;
	while (p > 0 && w->bound[p] > t)
		p--;
	while (p + 1 < w->width && w->bound[p + 1] <= t)
		p++;
	return p;
}

/* The first time in pixel column @px (0 .. width): t0 + ceil(px * span / width). */
static int64_t px_time(const struct win *w, int64_t px)
{
	return w->bound[px <= 0 ? 0 : px >= w->width ? w->width : px];
}

/* The pixels' bounds, computed exactly once a query (128-bit where it must). */
static void bounds(int64_t *b, int64_t t0, int64_t span, uint32_t width)
{
	bool fits64 = span <= (INT64_MAX - (int64_t)width) / (int64_t)width;

	for (uint32_t px = 0; px <= width; px++)
		b[px] = t0 + (fits64 ? ((int64_t)px * span + width - 1) / width :
			      (int64_t)(((__int128)px * span + width - 1) / width));
}

static double clampx(const struct win *w, double x)
{
	return x < 0 ? 0 : x > w->width ? w->width : x;
}

/*
 * rtr_scene_first_at(), galloping from @lo: the next pixel's first item is usually a
 * few items on, found in O(log distance) rather than O(log n).
 */
static uint32_t gallop(const int64_t *a, uint32_t lo, uint32_t hi, int64_t v)
{
	uint32_t step = 1, prev = lo;

	while (lo < hi && a[lo] < v) {
		prev = lo + 1;
		lo = hi - lo > step ? lo + step : hi;
		step *= 2;
	}
	return rtr_scene_first_at(a, prev, lo, v);
}

/* Room for one more element in *@v (@n used, @cap allocated). */
static int grow(void **v, uint32_t n, uint32_t *cap, size_t size)
{
	uint32_t c = *cap ? *cap : 256;
	void *p;

	if (n < *cap)
		return 0;
	while (c <= n) {
		if (c > UINT32_MAX / 2)
			return -ENOMEM;
		c *= 2;
	}
	p = realloc(*v, (size_t)c * size);
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = c;
	return 0;
}

/* ---- tasks and runs, lane by lane ------------------------------------------------------ */

struct items {
	struct rtr_item **v;
	uint32_t *n, *cap;
};

static int put_item(struct items *out, struct rtr_item it)
{
	if (grow((void **)out->v, *out->n, out->cap, sizeof(**out->v)))
		return -ENOMEM;
	(*out->v)[(*out->n)++] = it;
	return 0;
}

static uint32_t mark_flags(uint8_t mark)
{
	return mark == 2 ? RTR_ITEM_NEVER : mark == 1 ? RTR_ITEM_FAILED : 0;
}

/*
 * One lane's items: a wide item (RTR_SCENE_NARROW_PX or more, or a
 * never-resolved task, which reaches the right edge) is drawn as itself;
 * the narrow ones starting in one pixel are counted together, their best
 * found in the index, and consecutive pixels merged into one span unless the
 * pixel holds a failed item, which stays an item of its own.
 */
static int lane_items(const struct rtr_scene_lod *l, uint32_t lane, const struct win *w,
		      struct items *out, uint64_t *in_view)
{
	uint32_t a = l->off[lane], b = l->off[lane + 1];
	uint32_t i = rtr_scene_first_at(l->end, a, b, w->t0);
	struct rtr_item sp = { 0 };
	uint32_t sp_best = 0;
	int64_t sp_end_px = 0;
	bool open = false;

#define FLUSH()										\
	do {										\
		if (open) {								\
			sp.index = l->item[sp_best];					\
			sp.flags = sp.count > 1 ? RTR_ITEM_SPAN : 0;			\
			if (put_item(out, sp))						\
				return -ENOMEM;						\
		}									\
		open = false;								\
	} while (0)

	while (i < b && l->start[i] < w->t1) {
		double x0 = px_x(w, l->start[i]);
		double x1 = l->mark[i] == 2 ? w->width : px_x(w, l->end[i]);
		int64_t px;
		uint32_t j, best, cnt;
		double right;

		if (x1 - x0 >= RTR_SCENE_NARROW_PX || l->mark[i] == 2) {
			FLUSH();
			if (put_item(out, (struct rtr_item){ .x0 = clampx(w, x0), .x1 = clampx(w, x1),
					.lane = lane, .index = l->item[i], .count = 1,
					.flags = mark_flags(l->mark[i]) }))
				return -ENOMEM;
			++*in_view;
			i++;
			continue;
		}
		px = px_of(w, l->start[i]);
		if (px < 0)
			px = 0;
		/* the items starting in this pixel; the last of them may be wide */
		j = gallop(l->start, i + 1, b, px_time(w, px + 1));
		if (j - 1 > i && (l->mark[j - 1] == 2 ||
				  px_x(w, l->end[j - 1]) - px_x(w, l->start[j - 1]) >= RTR_SCENE_NARROW_PX))
			j--;
		best = rtr_scene_lod_best(l, i, j);
		cnt = j - i;
		*in_view += cnt;
		right = px_x(w, l->end[j - 1]);
		if (right < (double)px + 1)
			right = (double)px + 1;
		right = clampx(w, right);
		if (l->mark[best]) {
			/* a failed item: its pixel stays its own, red */
			FLUSH();
			if (put_item(out, (struct rtr_item){ .x0 = clampx(w, x0), .x1 = right,
					.lane = lane, .index = l->item[best], .count = cnt,
					.flags = (cnt > 1 ? RTR_ITEM_SPAN : 0) | mark_flags(l->mark[best]) }))
				return -ENOMEM;
		} else if (open && px <= sp_end_px) {
			if (right > sp.x1)
				sp.x1 = right;
			sp.count += cnt;
			if (rtr_scene_lod_better(l, best, sp_best))
				sp_best = best;
		} else {
			FLUSH();
			open = true;
			sp = (struct rtr_item){ .x0 = clampx(w, x0), .x1 = right, .lane = lane, .count = cnt };
			sp_best = best;
		}
		if (open)
			sp_end_px = (int64_t)sp.x1 + ((double)(int64_t)sp.x1 < sp.x1);
		i = j;
	}
	FLUSH();
#undef FLUSH
	return 0;
}

/* ---- arrows ------------------------------------------------------------------------------ */

/* The first start of class @c's arrows that may reach time @t0. */
static int64_t class_reach(int64_t t0, unsigned c)
{
	int64_t len = c == 0 ? 0 : c >= 63 ? INT64_MAX : (int64_t)1 << c;

	return t0 < INT64_MIN + len ? INT64_MIN : t0 - len;
}

static bool arrow_rows_in_view(const struct rtr_scene *s, const struct rtr_scene_arrow *a,
			       uint32_t row0, uint32_t row1)
{
	uint32_t rf = a->from < s->m->ntasks ? s->task_row[a->from] : 0;
	uint32_t rt = a->to < s->m->ntasks ? s->task_row[a->to] : 0;
	uint32_t lo = rf < rt ? rf : rt, hi = rf < rt ? rt : rf;

	return lo < row1 && hi >= row0;
}

static int put_arrow(const struct rtr_scene *s, const struct win *w, struct rtr_frame *f,
		     uint32_t i, uint32_t count)
{
	const struct rtr_scene_arrow *a = &s->arrows[i];

	if (grow((void **)&f->arrows, f->narrows, &f->cap_arrows, sizeof(*f->arrows)))
		return -ENOMEM;
	f->arrows[f->narrows++] = (struct rtr_arrow_item){
		.x0 = px_x(w, a->tf), .x1 = px_x(w, a->ts),
		.from_row = a->from < s->m->ntasks ? s->task_row[a->from] : 0,
		.to_row = a->to < s->m->ntasks ? s->task_row[a->to] : 0,
		.arrow = i, .count = count,
	};
	return 0;
}

/* Every arrow in view, one item each. */
static int arrows_exact(const struct rtr_scene *s, const struct win *w, const struct rtr_window *q,
			struct rtr_frame *f, const uint32_t *lo, const uint32_t *hi)
{
	for (unsigned c = 0; c < RTR_SCENE_NCLASSES; c++)
		for (uint32_t i = lo[c]; i < hi[c]; i++) {
			const struct rtr_scene_arrow *a = &s->arrows[i];

			if (a->ts < w->t0 || rtr_scene_arrow_hidden(a) ||
			    !arrow_rows_in_view(s, a, q->row0, q->row1))
				continue;
			if (put_arrow(s, w, f, i, 1))
				return -ENOMEM;
		}
	return 0;
}

/*
 * One item per class and starting pixel: the best of them (a failure first,
 * then the longest) stands for the others.  Return 1 when that is more than
 * @cap items.
 */
static int arrows_merged(const struct rtr_scene *s, const struct win *w, const struct rtr_window *q,
			 struct rtr_frame *f, const uint32_t *lo, const uint32_t *hi, uint32_t cap)
{
	for (unsigned c = 0; c < RTR_SCENE_NCLASSES; c++) {
		uint32_t i = lo[c];

		while (i < hi[c]) {
			int64_t px = px_of(w, s->arrows[i].tf);
			uint32_t j = gallop(s->arrow_tf, i + 1, hi[c], px_time(w, px + 1)), best;
			const struct rtr_scene_arrow *a;

			if (px < 0)	/* starting before the window: one pixel's worth */
				j = gallop(s->arrow_tf, i + 1, hi[c], w->t0);
			best = rtr_scene_arrow_best(s, i, j);
			a = &s->arrows[best];
			if (a->ts >= w->t0 && s->arrow_rank[best] &&
			    arrow_rows_in_view(s, a, q->row0, q->row1)) {
				if (f->narrows >= cap)
					return 1;
				if (put_arrow(s, w, f, best, j - i))
					return -ENOMEM;
			}
			i = j;
		}
	}
	return 0;
}

/*
 * Too many arrows even merged: a count per kind and pixel column of their
 * ends, and the failures one by one (up to @cap).
 */
static int arrows_summary(const struct rtr_scene *s, const struct win *w, struct rtr_frame *f,
			  const uint32_t *lo, const uint32_t *hi, uint32_t cap)
{
	size_t n = (size_t)RTR_SCENE_ARROW_KINDS * w->width;

	if (f->cap_hist < n) {
		uint32_t *p = realloc(f->arrow_hist, n * sizeof(*p));

		if (!p)
			return -ENOMEM;
		f->arrow_hist = p;
		f->cap_hist = (uint32_t)n;
	}
	for (unsigned k = 0; k < RTR_SCENE_ARROW_KINDS; k++) {
		uint32_t e = s->kind_off[k + 1];
		uint32_t at = rtr_scene_first_at(s->kind_ts, s->kind_off[k], e, w->t0);

		for (uint32_t px = 0; px < w->width; px++) {
			uint32_t next = rtr_scene_first_at(s->kind_ts, at, e, px_time(w, px + 1));

			f->arrow_hist[k * w->width + px] = next - at;
			at = next;
		}
	}
	f->narrows = 0;
	for (unsigned c = 0; c < RTR_SCENE_NCLASSES && f->narrows < cap; c++) {
		/* s->failed is in the arrows' order: class, then start */
		uint32_t a = 0, b = s->nfailed;

		while (a < b) {
			uint32_t mid = a + (b - a) / 2;

			if (s->failed[mid] < lo[c])
				a = mid + 1;
			else
				b = mid;
		}
		for (; a < s->nfailed && s->failed[a] < hi[c] && f->narrows < cap; a++)
			if (s->arrows[s->failed[a]].ts >= w->t0 && put_arrow(s, w, f, s->failed[a], 1))
				return -ENOMEM;
	}
	return 0;
}

static int arrows(const struct rtr_scene *s, const struct win *w, const struct rtr_window *q,
		  struct rtr_frame *f)
{
	uint32_t lo[RTR_SCENE_NCLASSES], hi[RTR_SCENE_NCLASSES];
	uint32_t cap = q->max_arrows ? q->max_arrows : RTR_SCENE_DEFAULT_ARROWS;
	int ret;

	f->arrows_in_view = 0;
	for (unsigned c = 0; c < RTR_SCENE_NCLASSES; c++) {
		lo[c] = rtr_scene_first_at(s->arrow_tf, s->class_off[c], s->class_off[c + 1],
					  class_reach(w->t0, c));
		hi[c] = rtr_scene_first_at(s->arrow_tf, lo[c], s->class_off[c + 1], w->t1);
		f->arrows_in_view += hi[c] - lo[c];
	}
	f->arrow_detail = RTR_ARROWS_EXACT;
	if (f->arrows_in_view <= cap)
		return arrows_exact(s, w, q, f, lo, hi);
	f->arrow_detail = RTR_ARROWS_MERGED;
	ret = arrows_merged(s, w, q, f, lo, hi, cap);
	if (ret <= 0)
		return ret;
	f->arrow_detail = RTR_ARROWS_SUMMARY;
	return arrows_summary(s, w, f, lo, hi, cap);
}

/* ---- sleeping regions ---------------------------------------------------------------------- */

static int put_span(struct rtr_frame *f, struct rtr_span sp)
{
	if (grow((void **)&f->sleep, f->nsleep, &f->cap_sleep, sizeof(*f->sleep)))
		return -ENOMEM;
	f->sleep[f->nsleep++] = sp;
	return 0;
}

/*
 * A trace's sleeping regions at least a pixel wide, those closer than a
 * pixel merged; a pixel's worth of narrow ones is skipped in one search.
 */
static int sleeping(const struct rtr_scene *s, const struct win *w, struct rtr_frame *f)
{
	for (uint32_t tr = 0; tr < s->m->ntraces; tr++) {
		uint32_t a = s->sleep_off[tr], b = s->sleep_off[tr + 1], lo = a, hi = b;
		const int64_t *g = s->sleep;
		struct rtr_span sp = { .trace = tr };
		bool open = false;

		while (lo < hi) {	/* the first region ending after t0 */
			uint32_t mid = lo + (hi - lo) / 2;

			if (g[2 * mid + 1] <= w->t0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (uint32_t p = lo; p < b && g[2 * p] < w->t1;) {
			double x0 = clampx(w, px_x(w, g[2 * p])), x1 = clampx(w, px_x(w, g[2 * p + 1]));

			if (open && x0 - sp.x1 < 1) {
				sp.x1 = x1 > sp.x1 ? x1 : sp.x1;
			} else {
				if (open && sp.x1 - sp.x0 >= 1 && put_span(f, sp))
					return -ENOMEM;
				open = true;
				sp.x0 = x0;
				sp.x1 = x1;
			}
			if (x1 - x0 < 1) {
				/* skip to the first region ending in a later pixel */
				int64_t t = px_time(w, px_of(w, g[2 * p + 1]) + 1);
				uint32_t l2 = p + 1, h2 = b;

				while (l2 < h2) {
					uint32_t mid = l2 + (h2 - l2) / 2;

					if (g[2 * mid + 1] < t)
						l2 = mid + 1;
					else
						h2 = mid;
				}
				p = l2;
			} else {
				p++;
			}
		}
		if (open && sp.x1 - sp.x0 >= 1 && put_span(f, sp))
			return -ENOMEM;
	}
	return 0;
}

/* ---- counters ---------------------------------------------------------------------------- */

static int put_counter(struct rtr_frame *f, struct rtr_counter_item it)
{
	if (grow((void **)&f->counters, f->ncounters, &f->cap_counters, sizeof(*f->counters)))
		return -ENOMEM;
	f->counters[f->ncounters++] = it;
	return 0;
}

/* The first sample of [@lo, @hi) at or after time @t. */
static uint32_t sample_at(const struct rtr_model_sample *sm, uint32_t lo, uint32_t hi, int64_t t)
{
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (sm[mid].ts < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * A counter's steps: the value it had when the window starts, then, a pixel
 * column at a time, its changes there: one item each, the range of a
 * column's changes from the segment trees, never more than a column's worth.
 */
static int counter_items(const struct rtr_scene *s, uint32_t k, const struct win *w,
			 struct rtr_frame *f)
{
	const struct rtr_model *m = s->m;
	const struct rtr_model_counter *c = &m->counters[k];
	const struct rtr_model_sample *sm = m->samples;
	uint32_t a = c->sample_first, b = c->sample_first + c->nsamples, i, first = f->ncounters;
	int64_t end = c->trace < m->ntraces ? m->traces[c->trace].last : m->end;
	double xend;

	if (b > m->nsamples || b < a)
		return 0;
	xend = clampx(w, end >= w->t1 ? w->width : px_x(w, end));
	i = sample_at(sm, a, b, w->t0);
	if (i > a && (i == b || sm[i].ts > w->t0) && end >= w->t0) {
		int64_t v = sm[i - 1].value;

		if (put_counter(f, (struct rtr_counter_item){ .x0 = 0, .x1 = xend, .counter = k,
				.count = 0, .min = v, .max = v, .value = v }))
			return -ENOMEM;
	}
	while (i < b && sm[i].ts < w->t1) {
		int64_t px = px_of(w, sm[i].ts);
		uint32_t j = sample_at(sm, i + 1, b, px_time(w, px + 1));
		int64_t lo = sm[j - 1].value, hi = lo;

		if (i > a)	/* the stroke starts at the value before */
			lo = hi = sm[i - 1].value;
		rtr_scene_sample_range(s, i, j, &lo, &hi);
		if (f->ncounters > first)	/* the previous item ends here */
			f->counters[f->ncounters - 1].x1 = clampx(w, px_x(w, sm[i].ts));
		if (put_counter(f, (struct rtr_counter_item){ .x0 = clampx(w, px_x(w, sm[i].ts)),
				.x1 = xend, .counter = k, .count = j - i, .min = lo, .max = hi,
				.value = sm[j - 1].value }))
			return -ENOMEM;
		i = j;
	}
	return 0;
}

/* ---- on the rows of the tasks drawn whole: locks' holds, threads' CPU samples ---------- */

/* The first of @h[@a .. @b) (a lock's holds: they never overlap) ending at or after @t. */
static uint32_t hold_at(const struct rtr_lock_hold *h, uint32_t a, uint32_t b, int64_t t)
{
	while (a < b) {
		uint32_t mid = a + (b - a) / 2;

		if (h[mid].end < t)
			a = mid + 1;
		else
			b = mid;
	}
	return a;
}

static int row_extras(const struct rtr_scene *s, const struct win *w, struct rtr_frame *f)
{
	struct items holds = { &f->holds, &f->nholds, &f->cap_holds };
	struct items ticks = { &f->ticks, &f->nticks, &f->cap_ticks };

	for (uint32_t i = 0; i < f->ntasks; i++) {
		const struct rtr_item *it = &f->tasks[i];
		uint32_t a, b, n = 0;

		if (it->count != 1)
			continue;
		/* its holds, if a lock: a band each */
		b = s->hold_first[it->index + 1];
		for (a = hold_at(s->holds, s->hold_first[it->index], b, w->t0);
		     a < b && s->holds[a].start < w->t1 && n < 4096; a++, n++) {
			double x0 = clampx(w, px_x(w, s->holds[a].start));
			double x1 = clampx(w, px_x(w, s->holds[a].end));

			if (x1 < x0 + 1)
				x1 = x0 + 1 <= w->width ? x0 + 1 : w->width;
			if (put_item(&holds, (struct rtr_item){ .x0 = x0, .x1 = x1, .lane = it->lane,
					.index = a, .count = 1 }))
				return -ENOMEM;
		}
		/* its CPU samples, if a thread: a tick a pixel column */
		b = s->cpu_sample_first[it->index + 1];
		a = rtr_scene_first_at(s->cpu_sample_ts, s->cpu_sample_first[it->index], b, w->t0);
		while (a < b && s->cpu_sample_ts[a] < w->t1) {
			int64_t px = px_of(w, s->cpu_sample_ts[a]);
			uint32_t next = gallop(s->cpu_sample_ts, a + 1, b, px_time(w, px + 1));

			if (put_item(&ticks, (struct rtr_item){ .x0 = (double)px, .x1 = (double)px + 1,
					.lane = it->lane, .index = it->index, .count = next - a }))
				return -ENOMEM;
			a = next;
		}
	}
	return 0;
}

/*
 * The first of @n elements of @size bytes at @v, sorted by the int64_t at
 * @off in each, whose time is at or after @t (@n if none).
 */
static uint32_t first_after(const void *v, size_t size, size_t off, uint32_t n, int64_t t)
{
	uint32_t a = 0;

	while (a < n) {
		uint32_t mid = a + (n - a) / 2;
		int64_t x;

		memcpy(&x, (const char *)v + (size_t)mid * size + off, sizeof(x));
		if (x < t)
			a = mid + 1;
		else
			n = mid;
	}
	return a;
}

/*
 * The losses in view (rtr_model.losses, sorted by time): one item a pixel
 * column of a lane, the losses in it summed.  A lane's last item is found
 * through @last (by lane), so the losses of several lanes may interleave.
 */
static int losses(const struct rtr_scene *s, const struct win *w, struct rtr_frame *f)
{
	const struct rtr_model *m = s->m;
	uint32_t i, n = first_after(m->losses, sizeof(*m->losses), offsetof(struct rtr_model_loss, ts),
				    m->nlosses, w->t0), *last;
	int64_t *col;

	/* at t1 too: a loss is seen at its packet's end, the trace's last time */
	if (n == m->nlosses || m->losses[n].ts > w->t1)
		return 0;
	last = malloc(((size_t)m->ncpus + 1) * sizeof(*last));
	col = malloc(((size_t)m->ncpus + 1) * sizeof(*col));
	if (!last || !col) {
		free(last);
		free(col);
		return -ENOMEM;
	}
	for (i = 0; i < m->ncpus; i++)
		last[i] = UINT32_MAX;
	for (i = n; i < m->nlosses && m->losses[i].ts <= w->t1; i++) {
		const struct rtr_model_loss *l = &m->losses[i];
		int64_t px = px_of(w, l->ts) < w->width ? px_of(w, l->ts) : w->width - 1;
		struct rtr_loss_item *it;

		if (l->cpu >= m->ncpus)
			continue;
		if (last[l->cpu] != UINT32_MAX && col[l->cpu] == px) {
			it = &f->losses[last[l->cpu]];
			it->x = (double)px;
			it->count++;
		} else {
			if (grow((void **)&f->losses, f->nlosses, &f->cap_losses, sizeof(*f->losses))) {
				free(last);
				free(col);
				return -ENOMEM;
			}
			last[l->cpu] = f->nlosses;
			col[l->cpu] = px;
			it = &f->losses[f->nlosses++];
			*it = (struct rtr_loss_item){ .x = fmin(px_x(w, l->ts), w->width - 1),
						      .lane = l->cpu, .index = i, .count = 1 };
		}
		if (l->kind == RTR_LOSS_PACKETS)
			it->packets += l->count;
		else
			it->events += l->count;
	}
	free(last);
	free(col);
	return 0;
}

/*
 * The notes in view (sorted by time): a mark a pixel column that has some,
 * counting them; the next column's first note found by a binary search,
 * so a frame costs O(pixels * log n) however many notes it covers.
 */
static int notes(const struct rtr_scene *s, const struct win *w, struct rtr_frame *f)
{
	const struct rtr_model *m = s->m;
	const size_t off = offsetof(struct rtr_model_note, ts);
	struct items out = { &f->notes, &f->nnotes, &f->cap_notes };

	for (uint32_t i = first_after(m->notes, sizeof(*m->notes), off, m->nnotes, w->t0), j;
	     i < m->nnotes && m->notes[i].ts < w->t1; i = j) {
		int64_t px = px_of(w, m->notes[i].ts);

		j = i + first_after(m->notes + i, sizeof(*m->notes), off, m->nnotes - i,
				    px_time(w, px + 1));
		if (put_item(&out, (struct rtr_item){ .x0 = px_x(w, m->notes[i].ts),
						      .x1 = px_x(w, m->notes[i].ts), .index = i,
						      .count = j - i }))
			return -ENOMEM;
	}
	return 0;
}

/*
 * The pauses in view (sorted by their end): shaded regions; one that
 * starts within a pixel of the last item's end is merged into it.
 */
static int pauses(const struct rtr_scene *s, const struct win *w, struct rtr_frame *f)
{
	const struct rtr_model *m = s->m;
	struct items out = { &f->pauses, &f->npauses, &f->cap_pauses };

	for (uint32_t i = first_after(m->pauses, sizeof(*m->pauses), offsetof(struct rtr_model_pause, end),
				      m->npauses, w->t0);
	     i < m->npauses; i++) {
		const struct rtr_model_pause *p = &m->pauses[i];
		double x0, x1;

		if (p->start > w->t1)
			continue;
		x0 = clampx(w, px_x(w, p->start));
		x1 = clampx(w, px_x(w, p->end));
		if (f->npauses && x0 < f->pauses[f->npauses - 1].x1 + 1) {
			struct rtr_item *it = &f->pauses[f->npauses - 1];

			it->x0 = fmin(it->x0, x0);
			it->x1 = fmax(it->x1, x1);
			it->count++;
			continue;
		}
		if (put_item(&out, (struct rtr_item){ .x0 = x0, .x1 = x1, .index = i, .count = 1 }))
			return -ENOMEM;
	}
	return 0;
}

int rtr_scene_window(const struct rtr_scene *s, const struct rtr_window *q, struct rtr_frame *f)
{
	struct win w;
	struct items out;
	uint32_t row1;
	int ret;

	if (q->width == 0 || q->width > RTR_SCENE_MAX_WIDTH || q->t1 <= q->t0 || q->row0 > q->row1 ||
	    __builtin_sub_overflow(q->t1, q->t0, &w.span))
		return -EINVAL;
	w.t0 = q->t0;
	w.t1 = q->t1;
	w.width = q->width;
	w.k = (double)q->width / (double)w.span;
	if (f->cap_bound < q->width + 1) {
		int64_t *b = realloc(f->bound, ((size_t)q->width + 1) * sizeof(*b));

		if (!b)
			return -ENOMEM;
		f->bound = b;
		f->cap_bound = q->width + 1;
	}
	bounds(f->bound, q->t0, w.span, q->width);
	w.bound = f->bound;
	f->ntasks = f->nruns = f->narrows = f->nsleep = f->ncounters = 0;
	f->ncpu_marks = f->nthread_marks = f->nholds = f->nticks = f->nlosses = 0;
	f->nnotes = f->npauses = 0;
	f->tasks_in_view = f->arrows_in_view = 0;
	f->arrow_detail = RTR_ARROWS_EXACT;
	row1 = q->row1 < s->nrows ? q->row1 : s->nrows;

	out = (struct items){ &f->tasks, &f->ntasks, &f->cap_tasks };
	for (uint32_t r = q->row0; r < row1; r++)
		if ((ret = lane_items(&s->rows, r, &w, &out, &f->tasks_in_view)))
			return ret;
	out = (struct items){ &f->runs, &f->nruns, &f->cap_runs };
	for (uint32_t c = 0; c < s->lanes.nlanes; c++) {
		uint64_t unused = 0;

		if ((ret = lane_items(&s->lanes, c, &w, &out, &unused)))
			return ret;
	}
	out = (struct items){ &f->cpu_marks, &f->ncpu_marks, &f->cap_cpu_marks };
	for (uint32_t c = 0; c < s->cpu_marks.nlanes; c++) {
		uint64_t unused = 0;

		if ((ret = lane_items(&s->cpu_marks, c, &w, &out, &unused)))
			return ret;
	}
	out = (struct items){ &f->thread_marks, &f->nthread_marks, &f->cap_thread_marks };
	for (uint32_t t = 0; t < s->thread_marks.nlanes; t++) {
		uint64_t unused = 0;

		if ((ret = lane_items(&s->thread_marks, t, &w, &out, &unused)))
			return ret;
	}
	if ((ret = row_extras(s, &w, f)) || (ret = arrows(s, &w, q, f)) || (ret = sleeping(s, &w, f)) ||
	    (ret = losses(s, &w, f)) || (ret = notes(s, &w, f)) || (ret = pauses(s, &w, f)))
		return ret;
	for (uint32_t k = 0; k < s->m->ncounters; k++)
		if ((ret = counter_items(s, k, &w, f)))
			return ret;
	return 0;
}

void rtr_frame_free(struct rtr_frame *f)
{
	free(f->tasks);
	free(f->runs);
	free(f->arrows);
	free(f->arrow_hist);
	free(f->sleep);
	free(f->counters);
	free(f->bound);
	free(f->cpu_marks);
	free(f->thread_marks);
	free(f->holds);
	free(f->ticks);
	free(f->losses);
	free(f->notes);
	free(f->pauses);
	memset(f, 0, sizeof(*f));
}
