// SPDX-License-Identifier: MIT
/*
 * tools/view.c - `ringtrace view TRACE... [-o FILE.html] [--force]`: one
 * self-contained HTML page that draws the traces as mirage-trace-viewer did
 * (Documentation/viewer.rst).  The task model (reader/model.h) is laid out
 * by the scene (view/scene.h), then written into the page as columns: typed arrays packed into
 * one base64 blob, a string table (NUL-separated UTF-8) inside it, and a
 * small JSON header naming each column's place.  The page's own sources
 * (tools/viewer/) are compiled in by scripts/embed.sh.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "platform/platform.h"
#include "reader/model.h"
#include "reader/threads.h"
#include "tools/analysis.h"
#include "tools/cli.h"
#include "tools/commands.h"
#include "tools/render_out.h"
#include "tools/serve.h"
#include "tools/view.h"
#include "tools/xen_follow.h"
#include "view/columns.h"
#include "view/path.h"
#include "view/scene.h"

#define FORMAT_VERSION	1

struct buf {
	char *p;
	size_t len, cap;
	bool failed;
};

static void buf_reserve(struct buf *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 1 << 16;
	char *p;

	if (b->failed || b->len + n <= b->cap)
		return;
	while (cap < b->len + n)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p) {
		b->failed = true;
		return;
	}
	b->p = p;
	b->cap = cap;
}

static void buf_put(struct buf *b, const void *v, size_t n)
{
	buf_reserve(b, n);
	if (b->failed)
		return;
	memcpy(b->p + b->len, v, n);
	b->len += n;
}

static void __attribute__((format(printf, 2, 3))) buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->failed = true;
		return;
	}
	buf_reserve(b, (size_t)n + 1);
	if (b->failed)
		return;
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/* ---- the string table: each distinct string once, index 0 is "" ------------------- */

struct strtab {
	struct buf blob;	/* the strings, each followed by a NUL */
	uint32_t n;
	uint32_t *slot;		/* open addressing: index + 1, 0 = empty */
	uint32_t *off;		/* blob offset of each string */
	uint32_t cap;		/* slots, a power of two */
};

static uint32_t fnv1a(const char *s, size_t len)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)s[i]) * 16777619u;
	return h;
}

static int strtab_grow(struct strtab *st)
{
	uint32_t cap = st->cap ? st->cap * 2 : 4096;
	uint32_t *slot = calloc(cap, sizeof(*slot));
	uint32_t *off = realloc(st->off, (size_t)cap / 2 * sizeof(*off));

	if (!slot || !off) {
		free(slot);
		if (off)
			st->off = off;
		return -1;
	}
	st->off = off;
	for (uint32_t i = 0; i < st->n; i++) {
		const char *s = st->blob.p + off[i];
		uint32_t h = fnv1a(s, strlen(s)) & (cap - 1);

		while (slot[h])
			h = (h + 1) & (cap - 1);
		slot[h] = i + 1;
	}
	free(st->slot);
	st->slot = slot;
	st->cap = cap;
	return 0;
}

/* The index of @s in the table, added if new; UINT32_MAX when memory ran out. */
static uint32_t strtab_add(struct strtab *st, const char *s)
{
	size_t len = strlen(s);
	uint32_t h;

	if (st->n + 1 > st->cap / 2 && strtab_grow(st))
		return UINT32_MAX;
	h = fnv1a(s, len) & (st->cap - 1);
	while (st->slot[h]) {
		const char *t = st->blob.p + st->off[st->slot[h] - 1];

		if (!strcmp(s, t))
			return st->slot[h] - 1;
		h = (h + 1) & (st->cap - 1);
	}
	st->off[st->n] = (uint32_t)st->blob.len;
	buf_put(&st->blob, s, len + 1);
	if (st->blob.failed || st->blob.len > UINT32_MAX)
		return UINT32_MAX;
	st->slot[h] = ++st->n;
	return st->n - 1;
}

static void strtab_free(struct strtab *st)
{
	free(st->blob.p);
	free(st->slot);
	free(st->off);
}

/* ---- the blob: columns, 8-byte aligned, and the JSON that names them ---------- */

struct page {
	struct buf blob;
	struct buf cols;	/* JSON: "name":[offset,count,"type"], ... */
	bool written[RTR_PAGE_NCOLUMNS];
	bool failed;
};

/*
 * A new column of the page: @name must be in the table (view/columns.h),
 * with elements of @size bytes, and written once; its kind comes from there.
 */
static void *col(struct page *pg, const char *name, size_t size, size_t count)
{
	static const uint8_t zero[8];
	const struct rtr_page_column_def *def = rtr_page_column_find(name);
	size_t off;

	if (!def || def->size != size || pg->written[def - rtr_page_columns]) {
		fprintf(stderr, "ringtrace view: column %s: not as view/columns.h has it\n", name);
		pg->failed = true;
		return NULL;
	}
	pg->written[def - rtr_page_columns] = true;
	if (pg->blob.len % 8)
		buf_put(&pg->blob, zero, 8 - pg->blob.len % 8);
	off = pg->blob.len;
	buf_reserve(&pg->blob, size * count + 8);
	buf_printf(&pg->cols, "%s\"%s\":[%zu,%zu,\"%s\"]", pg->cols.len ? "," : "", name, off,
		   count, def->kind);
	if (pg->blob.failed || pg->cols.failed) {
		pg->failed = true;
		return NULL;
	}
	memset(pg->blob.p + off, 0, size * count);
	pg->blob.len += size * count;
	return pg->blob.p + off;
}

#define COL(pg, name, ctype, count) ((ctype *)col(pg, name, sizeof(ctype), count))

/* Column @name: element i is @expr (which may use i), for i below @n. */
#define FILL(pg, name, ctype, n, expr)						\
	do {									\
		ctype *v_ = COL(pg, name, ctype, n);				\
										\
		for (uint32_t i = 0; v_ && i < (n); i++)			\
			v_[i] = (expr);						\
	} while (0)

/* Intern a model string; on failure the page is marked failed and "" used. */
static uint32_t mstr(struct page *pg, struct strtab *st, const struct rtr_model *m, uint32_t off)
{
	uint32_t i = strtab_add(st, rtr_model_str(m, off));

	if (i == UINT32_MAX) {
		pg->failed = true;
		return 0;
	}
	return i;
}

static uint32_t cstr(struct page *pg, struct strtab *st, const char *s)
{
	uint32_t i = strtab_add(st, s);

	if (i == UINT32_MAX) {
		pg->failed = true;
		return 0;
	}
	return i;
}

/*
 * The critical paths the page carries (it has no server to ask): those of
 * the tasks one asks `why` about, the failed and never-resolved ones and
 * the PAGE_PATH_SLOWEST slowest of each kind, at most PAGE_PATHS paths and
 * PAGE_PATH_SEGS segments in all.  `p` on another task says where to look.
 */
#define PAGE_PATH_SLOWEST	8
#define PAGE_PATHS		512
#define PAGE_PATH_SEGS		200000

struct path_cand {
	uint32_t kind;
	int64_t dur;	/* INT64_MAX: failed or never resolved, first */
	uint32_t task;
};

static int cmp_cand(const void *a, const void *b)
{
	const struct path_cand *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->dur != y->dur)
		return x->dur > y->dur ? -1 : 1;
	return x->task < y->task ? -1 : x->task > y->task;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int page_paths(const struct rtr_scene *sc, struct page *pg)
{
	const struct rtr_model *m = sc->m;
	struct path_cand *c = malloc(((size_t)m->ntasks + 1) * sizeof(*c));
	uint32_t *tasks = malloc(PAGE_PATHS * sizeof(*tasks)), *first = NULL, nt = 0, nc = 0;
	struct rtr_path_seg *segs = NULL;
	uint32_t nsegs = 0, done = 0;
	int ret = -1;

	if (!c || !tasks)
		goto out;
	for (uint32_t t = 0; t < m->ntasks; t++) {
		int64_t d;

		if (m->tasks[t].flags & (RTR_TASK_FAILED | RTR_TASK_NEVER_RESOLVED))
			d = INT64_MAX;
		else if (!an_task_duration(m, t, &d))
			continue;
		c[nc++] = (struct path_cand){ .kind = m->tasks[t].kind_name, .dur = d, .task = t };
	}
	qsort(c, nc, sizeof(*c), cmp_cand);
	for (uint32_t i = 0, k = 0; i < nc && nt < PAGE_PATHS; i++) {
		k = i && c[i].kind == c[i - 1].kind ? k + 1 : 0;
		if (c[i].dur == INT64_MAX || k < PAGE_PATH_SLOWEST)
			tasks[nt++] = c[i].task;
	}
	qsort(tasks, nt, sizeof(*tasks), cmp_u32);
	if (!(first = malloc(((size_t)nt + 1) * sizeof(*first))))
		goto out;
	for (; done < nt; done++) {
		struct rtr_path p = { 0 };
		void *grown;

		if (rtr_path_build(sc, tasks[done], &p))
			goto out;
		if (nsegs + p.n > PAGE_PATH_SEGS ||
		    !(grown = realloc(segs, ((size_t)nsegs + p.n + 1) * sizeof(*segs)))) {
			bool full = nsegs + p.n > PAGE_PATH_SEGS;

			rtr_path_free(&p);
			if (full)
				break;	/* enough: the others are not carried */
			goto out;
		}
		segs = grown;
		memcpy(segs + nsegs, p.segs, (size_t)p.n * sizeof(*segs));
		first[done] = nsegs;
		nsegs += p.n;
		rtr_path_free(&p);
	}
	first[done] = nsegs;
	FILL(pg, "path_task", uint32_t, done, tasks[i]);
	FILL(pg, "path_first", uint32_t, done + 1, first[i]);
	FILL(pg, "path_t0", double, nsegs, (double)segs[i].t0);
	FILL(pg, "path_t1", double, nsegs, (double)segs[i].t1);
	FILL(pg, "path_seg_task", uint32_t, nsegs, segs[i].task);
	FILL(pg, "path_what", uint8_t, nsegs, (uint8_t)segs[i].what);
	ret = 0;
out:
	free(c);
	free(tasks);
	free(first);
	free(segs);
	return ret;
}

/*
 * build() - the blob and the JSON header (@meta) of the page for @m.
 * Pointers into the blob are taken only after each column is allocated:
 * col() may move the blob, so every column is filled before the next one
 * is made.
 */
static int build(const struct rtr_scene *sc, struct page *pg, struct buf *meta, const char *title)
{
	const struct rtr_model *m = sc->m;
	const struct rtr_scene_arrow *arr = sc->arrows;
	const uint32_t na = sc->narrows, nrows = sc->nrows;
	struct strtab st = { 0 };
	int ret = -1;

	cstr(pg, &st, "");

	/* tasks */
	FILL(pg, "task_start", double, m->ntasks, (double)m->tasks[i].created);
	FILL(pg, "task_end", double, m->ntasks, (double)m->tasks[i].end);
	FILL(pg, "task_id", double, m->ntasks, (double)m->tasks[i].id);
	{
		uint32_t *v = COL(pg, "task_row", uint32_t, m->ntasks);

		if (v && m->ntasks)
			memcpy(v, sc->task_row, (size_t)m->ntasks * sizeof(*v));
	}
	FILL(pg, "task_parent", uint32_t, m->ntasks, m->tasks[i].parent);
	FILL(pg, "task_becomes", uint32_t, m->ntasks, m->tasks[i].becomes);
	FILL(pg, "task_nlabels", uint32_t, m->ntasks, m->tasks[i].nlabels);
	FILL(pg, "task_nruns", uint32_t, m->ntasks, m->tasks[i].nruns);
	/* strings may grow the table but never move the blob: fill these in two steps */
	{
		uint32_t *k = malloc(((size_t)m->ntasks + 1) * 3 * sizeof(*k));

		if (!k)
			goto out;
		for (uint32_t i = 0; i < m->ntasks; i++) {
			k[3 * i] = mstr(pg, &st, m, m->tasks[i].kind_name);
			k[3 * i + 1] = mstr(pg, &st, m, m->tasks[i].name);
			k[3 * i + 2] = mstr(pg, &st, m, m->tasks[i].reason);
		}
		for (int f = 0; f < 3; f++) {
			static const char *const names[] = { "task_kind", "task_name", "task_reason" };
			uint32_t *v = COL(pg, names[f], uint32_t, m->ntasks);

			for (uint32_t i = 0; v && i < m->ntasks; i++)
				v[i] = k[3 * i + (uint32_t)f];
		}
		free(k);
	}
	FILL(pg, "task_flags", uint8_t, m->ntasks, (uint8_t)m->tasks[i].flags);
	FILL(pg, "task_trace", uint16_t, m->ntasks, (uint16_t)m->tasks[i].trace);
	{
		uint32_t *v = COL(pg, "row_task", uint32_t, m->ntasks);

		if (v && m->ntasks)
			memcpy(v, sc->row_task, (size_t)m->ntasks * sizeof(*v));
	}
	{
		uint32_t *v = COL(pg, "row_off", uint32_t, (size_t)nrows + 1);

		if (v)
			memcpy(v, sc->row_off, ((size_t)nrows + 1) * sizeof(*v));
	}

	/* labels, grouped by task as in the model */
	FILL(pg, "label_ts", double, m->nlabels, (double)m->labels[i].ts);
	{
		uint32_t *k = malloc(((size_t)m->nlabels + 1) * sizeof(*k)), *v;

		if (!k)
			goto out;
		for (uint32_t i = 0; i < m->nlabels; i++)
			k[i] = mstr(pg, &st, m, m->labels[i].text);
		v = COL(pg, "label_str", uint32_t, m->nlabels);
		if (v)
			memcpy(v, k, (size_t)m->nlabels * sizeof(*v));
		free(k);
	}

	/* runs, grouped by task; cpu_runs lists them by CPU */
	FILL(pg, "run_start", double, m->nruns, (double)m->runs[i].start);
	FILL(pg, "run_end", double, m->nruns, (double)m->runs[i].end);
	FILL(pg, "run_task", uint32_t, m->nruns, m->runs[i].task);
	/* the thread whose switch started each run (thread records), RTR_MODEL_NONE if unknown */
	FILL(pg, "run_thread", uint32_t, m->nruns, m->runs[i].thread);
	/* how each run ended (enum rtr_run_why): 2, preempted, is runnable until the next */
	FILL(pg, "run_why", uint8_t, m->nruns, m->runs[i].why);
	{
		uint32_t *v = COL(pg, "cpu_runs", uint32_t, m->nruns);

		if (v && m->nruns)
			memcpy(v, m->cpu_runs, (size_t)m->nruns * sizeof(*v));
	}

	/* arrows */
	FILL(pg, "arrow_tf", double, na, (double)arr[i].tf);
	FILL(pg, "arrow_ts", double, na, (double)arr[i].ts);
	FILL(pg, "arrow_from", uint32_t, na, arr[i].from);
	FILL(pg, "arrow_to", uint32_t, na, arr[i].to);
	FILL(pg, "arrow_kind", uint8_t, na, arr[i].kind);
	FILL(pg, "arrow_flags", uint8_t, na, arr[i].flags);
	{
		uint32_t *v = COL(pg, "arrow_bucket", uint32_t, RTR_SCENE_NCLASSES + 1);

		if (v)
			memcpy(v, sc->class_off, sizeof(sc->class_off));
	}

	/* critical paths, for `p` */
	if (page_paths(sc, pg))
		goto out;

	/* mirage's simplify_binds, the scene's (the page toggles it, b): what it changes */
	{
		struct rtr_scene_bind *b;
		uint32_t nb;

		if (rtr_scene_binds(sc, &b, &nb))
			goto out;
		FILL(pg, "bind_task", uint32_t, nb, b[i].task);
		FILL(pg, "bind_arrow", uint32_t, nb, b[i].arrow);
		FILL(pg, "bind_from", uint32_t, nb, b[i].from);
		FILL(pg, "bind_start", double, nb, (double)b[i].start);
		free(b);
	}

	/* the sleeping regions: the scene's, by trace */
	{
		uint32_t nsleep = sc->sleep_off ? sc->sleep_off[m->ntraces] : 0;
		uint32_t *v = COL(pg, "sleep_off", uint32_t, m->ntraces + 1);

		FILL(pg, "sleep_t0", double, nsleep, (double)sc->sleep[2 * i]);
		FILL(pg, "sleep_t1", double, nsleep, (double)sc->sleep[2 * i + 1]);
		for (uint32_t t = 0; v && t <= m->ntraces; t++)
			v[t] = sc->sleep_off ? sc->sleep_off[t] : 0;
	}

	/* locks held while others waited: the locks' lanes, the scene's (by lock, each by start) */
	FILL(pg, "hold_start", double, sc->nholds, (double)sc->holds[i].start);
	FILL(pg, "hold_end", double, sc->nholds, (double)sc->holds[i].end);
	FILL(pg, "hold_lock", uint32_t, sc->nholds, sc->holds[i].lock);
	FILL(pg, "hold_holder", uint32_t, sc->nholds, sc->holds[i].holder);
	FILL(pg, "hold_exact", uint8_t, sc->nholds, sc->holds[i].exact);

	/* CPU samples (record --sample) and their call tree */
	FILL(pg, "cpu_sample_ts", double, m->ncpu_samples, (double)m->cpu_samples[i].ts);
	FILL(pg, "cpu_sample_task", uint32_t, m->ncpu_samples, m->cpu_samples[i].task);
	FILL(pg, "cpu_sample_frame", uint32_t, m->ncpu_samples, m->cpu_samples[i].frame);
	FILL(pg, "frame_parent", uint32_t, m->nframes, m->frames[i].parent);
	{
		uint32_t *k = malloc(((size_t)m->nframes + 1) * sizeof(*k)), *v;

		if (!k)
			goto out;
		for (uint32_t i = 0; i < m->nframes; i++)
			k[i] = mstr(pg, &st, m, m->frames[i].name);
		v = COL(pg, "frame_name", uint32_t, m->nframes);
		if (v && m->nframes)
			memcpy(v, k, (size_t)m->nframes * sizeof(*v));
		free(k);
	}

	/* counters' samples */
	FILL(pg, "sample_ts", double, m->nsamples, (double)m->samples[i].ts);
	FILL(pg, "sample_value", double, m->nsamples, (double)m->samples[i].value);
	FILL(pg, "sample_task", uint32_t, m->nsamples, m->samples[i].task);

	/* notes and pauses */
	FILL(pg, "note_ts", double, m->nnotes, (double)m->notes[i].ts);
	{
		uint32_t *k = malloc(((size_t)m->nnotes + m->npauses + 1) * sizeof(*k)), *v;

		if (!k)
			goto out;
		for (uint32_t i = 0; i < m->nnotes; i++)
			k[i] = mstr(pg, &st, m, m->notes[i].text);
		for (uint32_t i = 0; i < m->npauses; i++)
			k[m->nnotes + i] = mstr(pg, &st, m, m->pauses[i].reason);
		v = COL(pg, "note_str", uint32_t, m->nnotes);
		if (v && m->nnotes)
			memcpy(v, k, (size_t)m->nnotes * sizeof(*v));
		v = COL(pg, "pause_str", uint32_t, m->npauses);
		if (v && m->npauses)
			memcpy(v, k + m->nnotes, (size_t)m->npauses * sizeof(*v));
		free(k);
	}
	FILL(pg, "note_cpu", uint32_t, m->nnotes, m->notes[i].cpu);

	/* markers: the events the task model does not read (typed events, LTTng's) */
	FILL(pg, "marker_ts", double, m->nmarkers, (double)m->markers[i].ts);
	FILL(pg, "marker_cpu", uint32_t, m->nmarkers, m->markers[i].cpu);
	FILL(pg, "marker_thread", uint32_t, m->nmarkers, m->markers[i].thread);
	{
		uint32_t *k = malloc(((size_t)m->nmarkers * 2 + 1) * sizeof(*k)), *v;

		if (!k)
			goto out;
		for (uint32_t i = 0; i < m->nmarkers; i++) {
			k[2 * i] = mstr(pg, &st, m, m->classes[m->markers[i].cls].name);
			k[2 * i + 1] = mstr(pg, &st, m, m->markers[i].fields);
		}
		for (int f = 0; f < 2; f++) {
			v = COL(pg, f ? "marker_fields" : "marker_name", uint32_t, m->nmarkers);
			for (uint32_t i = 0; v && i < m->nmarkers; i++)
				v[i] = k[2 * i + f];
		}
		free(k);
	}
	FILL(pg, "pause_start", double, m->npauses, (double)m->pauses[i].start);
	FILL(pg, "pause_end", double, m->npauses, (double)m->pauses[i].end);
	FILL(pg, "pause_cpu", uint32_t, m->npauses, m->pauses[i].cpu);

	/* the header: everything small, strings by index */
	buf_printf(meta, "{\"version\":%d,\"title\":%u,\"origin_ns\":\"%" PRId64 "\","
		   "\"start\":%" PRId64 ",\"end\":%" PRId64 ",\"events\":%" PRIu64
		   ",\"ntasks\":%u,\"nrows\":%u,\"aligned\":%s,", FORMAT_VERSION,
		   cstr(pg, &st, title), m->origin_ns, m->start, m->end, m->events, m->ntasks, nrows,
		   sc->aligned ? "true" : "false");
	/* the model's constants, which the page reads rather than retypes */
	buf_printf(meta, "\"task_flags\":{\"resolved\":%u,\"failed\":%u,\"never_resolved\":%u,"
		   "\"created\":%u},\"arrow_kinds\":[", RTR_TASK_RESOLVED, RTR_TASK_FAILED,
		   RTR_TASK_NEVER_RESOLVED, RTR_TASK_CREATED);
	for (unsigned k = 0; k < RTR_SCENE_ARROW_KINDS; k++)
		buf_printf(meta, "%s\"%s\"", k ? "," : "", rtr_scene_arrow_kind_name(k));
	buf_printf(meta, "],\"traces\":[");
	for (uint32_t i = 0; i < m->ntraces; i++) {
		const struct rtr_model_trace *t = &m->traces[i];

		buf_printf(meta, "%s{\"dir\":%u,\"host\":%u,\"vpid\":%u,\"offset_ns\":\"%" PRId64
			   "\",\"first\":%" PRId64 ",\"last\":%" PRId64 ",\"events\":%" PRIu64
			   ",\"cpu_first\":%u,\"ncpus\":%u,\"damaged\":%s,\"row\":%u,\"rows\":%u}",
			   i ? "," : "", mstr(pg, &st, m, t->dir), mstr(pg, &st, m, t->hostname),
			   t->vpid, t->offset_ns, t->first, t->last, t->events, t->cpu_first,
			   t->ncpus, t->damaged ? "true" : "false", sc->trace_row[i],
			   sc->trace_row[i + 1] - sc->trace_row[i]);
	}
	buf_printf(meta, "],\"cpus\":[");
	for (uint32_t i = 0; i < m->ncpus; i++) {
		const struct rtr_model_cpu *c = &m->cpus[i];

		buf_printf(meta, "%s{\"trace\":%u,\"cpu\":%u,\"first\":%" PRId64 ",\"last\":%" PRId64
			   ",\"events\":%" PRIu64 ",\"events_lost\":%" PRIu64 ",\"packets_lost\":%"
			   PRIu64 ",\"damaged\":%s,\"run_first\":%u,\"nruns\":%u,\"stream\":%u"
			   ",\"kernel\":%s}",
			   i ? "," : "", c->trace, c->cpu, c->first, c->last, c->events, c->events_lost,
			   c->packets_lost, c->damaged ? "true" : "false", c->run_first, c->nruns,
			   mstr(pg, &st, m, c->stream), c->kernel ? "true" : "false");
	}
	buf_printf(meta, "],\"threads\":[");
	for (uint32_t i = 0; i < m->nthreads; i++) {
		const struct rtr_model_thread *t = &m->threads[i];

		buf_printf(meta, "%s{\"trace\":%u,\"tid\":%" PRIu64 ",\"pid\":%" PRIu64
			   ",\"name\":%u,\"events\":%" PRIu64 "}", i ? "," : "", t->trace, t->tid,
			   t->pid, mstr(pg, &st, m, t->name), t->events);
	}
	buf_printf(meta, "],\"counters\":[");
	for (uint32_t i = 0; i < m->ncounters; i++) {
		const struct rtr_model_counter *c = &m->counters[i];

		buf_printf(meta, "%s{\"name\":%u,\"trace\":%u,\"group\":%u,\"first\":%u,\"n\":%u,"
			   "\"min\":%" PRId64 ",\"max\":%" PRId64 "}", i ? "," : "",
			   mstr(pg, &st, m, c->name), c->trace, c->group, c->sample_first,
			   c->nsamples, c->min, c->max);
	}
	buf_printf(meta, "],\"losses\":[");
	for (uint32_t i = 0; i < m->nlosses; i++) {
		const struct rtr_model_loss *l = &m->losses[i];

		buf_printf(meta, "%s{\"ts\":%" PRId64 ",\"count\":%" PRIu64 ",\"cpu\":%u,"
			   "\"packets\":%s}", i ? "," : "", l->ts, l->count, l->cpu,
			   l->kind == RTR_LOSS_PACKETS ? "true" : "false");
	}
	buf_printf(meta, "],\"damage\":[");
	for (uint32_t i = 0; i < m->ndamage; i++) {
		const struct rtr_model_damage *d = &m->damage[i];

		buf_printf(meta, "%s{\"trace\":%u,\"cpu\":%d,\"ts\":%" PRId64 ",\"message\":%u}",
			   i ? "," : "", d->trace, d->cpu == RTR_MODEL_NONE ? -1 : (int)d->cpu,
			   d->ts, mstr(pg, &st, m, d->message));
	}
	/* the string table goes last: every string is in it by now */
	{
		char *v = COL(pg, "strings", char, st.blob.len);

		if (v && st.blob.len)
			memcpy(v, st.blob.p, st.blob.len);
	}
	buf_printf(meta, "],\"nstrings\":%u,\"columns\":{%.*s}}", st.n, (int)pg->cols.len,
		   pg->cols.p ? pg->cols.p : "");
	for (int c = 0; c < RTR_PAGE_NCOLUMNS; c++)
		if (!pg->written[c]) {
			fprintf(stderr, "ringtrace view: column %s not written\n", rtr_page_columns[c].name);
			pg->failed = true;
		}
	ret = pg->failed || meta->failed || pg->blob.failed ? -1 : 0;
out:
	strtab_free(&st);
	return ret;
}

/* ---- the HTML file ----------------------------------------------------------------- */

static void base64(struct buf *out, const uint8_t *p, size_t n)
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t i = 0;
	char *o;

	buf_reserve(out, (n + 2) / 3 * 4);
	if (out->failed)
		return;
	o = out->p + out->len;
	for (; i + 3 <= n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];

		*o++ = tab[v >> 18];
		*o++ = tab[(v >> 12) & 63];
		*o++ = tab[(v >> 6) & 63];
		*o++ = tab[v & 63];
	}
	if (i < n) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0);

		*o++ = tab[v >> 18];
		*o++ = tab[(v >> 12) & 63];
		*o++ = i + 1 < n ? tab[(v >> 6) & 63] : '=';
		*o++ = '=';
	}
	out->len = (size_t)(o - out->p);
}

/* One piece of the data deflated by its own thread (gzip()). */
struct zpiece {
	pthread_t thread;
	bool threaded;
	const uint8_t *in;
	size_t len;
	bool last; /* ends the deflate stream; the others end byte-aligned */
	struct buf out;
	uLong crc;
	int ret;
};

#define ZSTEP ((size_t)1 << 30) /* what zlib takes at once (its counts are 32 bits) */

static void *deflate_piece(void *arg)
{
	struct zpiece *z = arg;
	z_stream s = {0};
	size_t at = 0;
	bool done = false;
	int r, flush;

	z->ret = -ENOMEM;
	z->crc = crc32(0, Z_NULL, 0);
	for (size_t o = 0; o < z->len; o += ZSTEP)
		z->crc = crc32(z->crc, z->in + o, (uInt)(z->len - o < ZSTEP ? z->len - o : ZSTEP));
	if (deflateInit2(&s, 1, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return NULL;
	while (!done) {
		if (!s.avail_in && at < z->len) {
			size_t chunk = z->len - at < ZSTEP ? z->len - at : ZSTEP;

			s.next_in = (Bytef *)z->in + at;
			s.avail_in = (uInt)chunk;
			at += chunk;
		}
		flush = at < z->len ? Z_NO_FLUSH : z->last ? Z_FINISH : Z_SYNC_FLUSH;
		buf_reserve(&z->out, deflateBound(&s, s.avail_in) + 64);
		if (z->out.failed)
			break;
		s.next_out = (Bytef *)z->out.p + z->out.len;
		s.avail_out = (uInt)(z->out.cap - z->out.len > UINT32_MAX ? UINT32_MAX :
				     z->out.cap - z->out.len);
		r = deflate(&s, flush);
		z->out.len = (size_t)((char *)s.next_out - z->out.p);
		if (r == Z_STREAM_ERROR)
			break;
		/* a flush is complete when it left room in the output (zlib's manual) */
		done = flush == Z_FINISH ? r == Z_STREAM_END :
		       flush == Z_SYNC_FLUSH && !s.avail_in && s.avail_out;
	}
	if (done)
		z->ret = 0;
	deflateEnd(&s);
	return NULL;
}

/*
 * gzip() - the page's data compressed (gzip, zlib's fastest level: a quarter
 * of its size, so a browser parses a quarter of the text; the page inflates
 * it with DecompressionStream).  On several CPUs, in pieces deflated at once
 * and joined into one deflate stream, as pigz does (each piece but the last
 * ends with an empty stored block, byte-aligned and not final; the CRC-32s
 * combined).  Return: 0, or -ENOMEM.
 */
static int gzip(struct buf *z, const struct buf *in)
{
	static const uint8_t head[10] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3 };
	struct zpiece p[8] = { 0 };
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t n = cpus > 8 ? 8 : cpus < 1 ? 1 : (size_t)cpus, each;
	uLong crc = crc32(0, Z_NULL, 0);
	uint8_t tail[8];
	int ret = 0;

	/* pieces of at least 4 MB: smaller ones are not worth a thread */
	while (n > 1 && in->len / n < ((size_t)4 << 20))
		n--;
	each = in->len / n;
	for (size_t i = 0; i < n; i++) {
		p[i].in = (const uint8_t *)in->p + i * each;
		p[i].len = i + 1 < n ? each : in->len - i * each;
		p[i].last = i + 1 == n;
		if (i)
			p[i].threaded = !pthread_create(&p[i].thread, NULL, deflate_piece, &p[i]);
		if (i && !p[i].threaded)
			deflate_piece(&p[i]); /* no thread: here */
	}
	deflate_piece(&p[0]);
	buf_put(z, head, sizeof(head));
	for (size_t i = 0; i < n; i++) {
		if (p[i].threaded)
			pthread_join(p[i].thread, NULL);
		if (p[i].ret)
			ret = -ENOMEM;
		crc = i ? crc32_combine(crc, p[i].crc, (z_off_t)p[i].len) : p[i].crc;
		buf_put(z, p[i].out.p, p[i].out.len);
		free(p[i].out.p);
	}
	for (int i = 0; i < 4; i++) {
		tail[i] = (uint8_t)(crc >> (8 * i));
		tail[4 + i] = (uint8_t)((uint64_t)in->len >> (8 * i));
	}
	buf_put(z, tail, sizeof(tail));
	return ret || z->failed ? -ENOMEM : 0;
}

/*
 * The page: viewer.html with its three markers replaced by the style sheet,
 * the data and the script.  Whatever the marker names itself, in the order
 * the template has them.
 */
static int write_page(int fd, const struct buf *meta, const struct buf *data)
{
	static const char *const marks[] = { "<!--rtr:css-->", "<!--rtr:data-->", "<!--rtr:js-->" };
	const char *p = rtr_viewer_html, *end = rtr_viewer_html + rtr_viewer_html_len;
	struct buf out = { 0 };
	int ret;

	while (p < end) {
		const char *next = end;
		int which = -1;

		for (int i = 0; i < 3; i++) {
			const char *q = strstr(p, marks[i]);

			if (q && q < next) {
				next = q;
				which = i;
			}
		}
		buf_put(&out, p, (size_t)(next - p));
		if (which < 0)
			break;
		p = next + strlen(marks[which]);
		if (which == 0) {
			buf_printf(&out, "<style>\n%s</style>", rtr_viewer_css);
		} else if (which == 1) {
			buf_printf(&out, "<script type=\"application/json\" id=\"rtr-meta\">%.*s</script>\n"
				   "<script type=\"application/octet-stream\" id=\"rtr-data\" "
				   "data-encoding=\"gzip\">", (int)meta->len, meta->p);
			base64(&out, (const uint8_t *)data->p, data->len);
			buf_printf(&out, "</script>");
		} else {
			buf_printf(&out, "<script>\n%s</script>", rtr_viewer_js);
		}
	}
	if (out.failed) {
		free(out.p);
		errno = ENOMEM;
		return -1;
	}
	ret = rtr_write_all(fd, out.p, out.len);
	free(out.p);
	if (ret < 0)
		errno = -ret;
	return ret < 0 ? -1 : 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ringtrace view [-o FILE.html] [--force] [--align clock|start] TRACE...\n"
		"       ringtrace view --format svg|pdf|png [-o FILE] [--size WxH] [--range T0..T1]\n"
		"                      [--force] [--align clock|start] TRACE...\n"
		"       ringtrace view --serve [--port N] [--bind ADDR] [--align clock|start] TRACE...\n"
		"       ringtrace view --serve --follow [--port N] [--bind ADDR] TRACE\n"
		"       ringtrace view --serve --follow --xen-domain NAME|ID [--port N] [--bind ADDR]\n\n"
		"Write the CTF traces TRACE... as one self-contained HTML page that\n"
		"any current browser opens from disk: tasks as lines, arrows between them, runs\n"
		"on each CPU, counters, notes, pauses, losses, all traces on one time axis\n"
		"(Documentation/viewer.rst).  Prints the page's path.  Each TRACE is a trace\n"
		"directory, a directory of rotated chunks (one trace), or - for the stream of\n"
		"`ringtrace record -o -` on standard input (once).\n\n"
		"  -o FILE      the page (default: the first TRACE with .html added;\n"
		"               stdin.html for -)\n"
		"               (a new file, mode 0600; a symbolic link is not followed)\n"
		"  --force      replace FILE if it exists\n"
		"  --align clock  the traces on one time axis, their clocks' (the default:\n"
		"               hosts recording at once, a request's arrow between them)\n"
		"  --align start  each trace from its own start: runs recorded at different\n"
		"               times (a good one, a bad one) one above the other, compared\n"
		"  --format svg|pdf|png  no page: a picture of the traces drawn by the\n"
		"               renderer of `ringtrace gui`, without a display (default file:\n"
		"               the first TRACE with .svg, .pdf or .png added; a FILE ending\n"
		"               so implies its format)\n"
		"  --size WxH   the picture's size in pixels (default: 1600 wide, high enough\n"
		"               for every row; W alone keeps that height)\n"
		"  --range T0..T1  draw only that time range, from the start of the earliest\n"
		"               trace (20ms..35ms, 0..800us, 1.5s..2s; default: all of it)\n"
		"  --serve      do not write a page: serve the traces over HTTP, drawn at\n"
		"               each zoom from a window query (for traces too big for a\n"
		"               page).  The first line of standard output is the URL to open,\n"
		"               with its secret token; SIGINT or SIGTERM stops the server.\n"
		"               The page's SVG and PNG links download the view as --format\n"
		"               draws it\n"
		"  -f, --follow  with --serve: follow TRACE while a recorder writes it (a\n"
		"               directory `ringtrace record -o` is writing or will make, or -\n"
		"               for a stream on standard input, or net://HOST[:PORT]/host/\n"
		"               HOSTNAME/SESSION for a session live in an lttng-relayd): new\n"
		"               events appear as they come; the page can stay pinned to the end\n"
		"  --xen-domain D  with --serve --follow, in dom0: follow Xen guest D's trace\n"
		"               (a name, as xl list shows it, or an id) as `ringtrace consume\n"
		"               --xen-domain D -o -` streams it (run by the server)\n"
		"  --port N     the port to listen on (default: 0, one the system picks)\n"
		"  --bind ADDR  the address to listen on (default: 127.0.0.1, loopback only;\n"
		"               anyone who can reach another address and has the URL can\n"
		"               read the traces)\n"
		"  --slice T0..T1 read that time range of each trace only (T0.., ..T1:\n"
		"               from its start, to its end; times from its first event),\n"
		"               through the index beside it (built if missing)\n"
		"  -h, --help   this text\n\n"
		"A page holding over 320 MB of data (some 9 M events; RINGTRACE_VIEW_SLOW_MB\n"
		"sets it) is written with a warning (a browser is slow to open it); one a\n"
		"browser cannot load is refused: both point to --serve.  A trace of more\n"
		"events than a page holds (40 M) or, for --format, than memory holds in a\n"
		"model, is refused before loading, pointing to --slice\n"
		"(RINGTRACE_VIEW_MAX_EVENTS sets the cap; 0: none); --serve draws one such\n"
		"trace's overview (each stream's events over time, from the index) and loads\n"
		"the slice around a window of at most 400,000 events.\n\n"
		"exit status: 0 written, 1 a damaged trace (the page is written, drawn up to\n"
		"the damage, which is said on stderr), a stream on stdin cut short (what came\n"
		"is drawn), a trace that could not be read or the page not written, 2 usage;\n"
		"with --serve: 0 stopped by SIGINT or SIGTERM, 1 a trace that could not be read\n"
		"or a server that could not start, 2 usage\n");
}

/*
 * A page a browser cannot load, or loads slowly.  Its data is one base64
 * string of the gzipped columns, and V8 holds no string longer than 2^29 - 24
 * characters; inflated, the columns are one ArrayBuffer (at most 2 GiB here,
 * as every current browser allows).  A browser takes about a second a
 * million events (Chromium, 1 M events, 35 MB of columns: 0.9-1.0 s; the
 * issue's 9.3 M-event, 372 MB page took three minutes before the data was
 * compressed).  Refused beyond the limits, said beyond RTR_VIEW_DATA_SLOW of
 * columns (RINGTRACE_VIEW_SLOW_MB sets it); both point to --serve.
 */
#define RTR_VIEW_PAGE_MAX	((size_t)1 << 29)
#define RTR_VIEW_DATA_MAX	((size_t)1 << 31)
#define RTR_VIEW_DATA_SLOW	((size_t)320 << 20)

static bool page_too_big(const struct buf *meta, const struct page *pg, const struct buf *z,
			 char *const *dirs, int ndirs)
{
	size_t data = (z->len + 2) / 3 * 4, slow = RTR_VIEW_DATA_SLOW;
	size_t page = data + meta->len + rtr_viewer_html_len + rtr_viewer_css_len + rtr_viewer_js_len;
	const char *env = getenv("RINGTRACE_VIEW_SLOW_MB");
	bool refused = data >= RTR_VIEW_PAGE_MAX - 24 || pg->blob.len >= RTR_VIEW_DATA_MAX;

	if (env && *env) {
		char *e;
		unsigned long long mb = strtoull(env, &e, 10);

		if (!*e && mb && mb < ((size_t)1 << 40))
			slow = (size_t)mb << 20;
	}
	if (!refused && pg->blob.len < slow)
		return false;
	fprintf(stderr,
		"ringtrace view: the page would be %zu MB, holding %zu MB of data: %s; "
		"`ringtrace view --serve",
		page >> 20, pg->blob.len >> 20,
		refused ? "more than a browser can load"
			: "a browser takes many seconds to open it, and as much memory");
	for (int i = 0; i < ndirs; i++)
		fprintf(stderr, " %s", dirs[i]);
	fprintf(stderr, "` draws it at each zoom without loading it whole\n");
	return refused;
}

/* --serve: the traces loaded, laid out, and served until a signal. */
static int serve_traces(char **dirs, int ndirs, bool align, const char *bind, unsigned port)
{
	struct rtr_model m = { 0 };
	struct rtr_scene sc = { 0 };
	char err[1024];
	uint64_t cap, events;
	int ret = 1, over;

	/* one trace too large for a model: its overview, and slices of it */
	if (ndirs == 1 && !align && strcmp(dirs[0], "-") &&
	    (over = cli_view_over("view", dirs, 1, false, &cap, &events)))
		return over < 0 ? 1 : rtr_view_serve_big(dirs[0], cap, bind, port);
	if (cli_view_fits("view", dirs, ndirs, false))
		return 1;
	if (cli_model_read(&m, dirs, ndirs, RTR_MODEL_MARKERS | RTR_MODEL_FIELDS, err,
			   sizeof(err)) < 0) {
		fprintf(stderr, "ringtrace view: %s\n", err);
		return 1;
	}
	for (uint32_t i = 0; i < m.ndamage; i++)
		fprintf(stderr, "ringtrace view: damaged: %s (drawn up to there)\n",
			rtr_model_str(&m, m.damage[i].message));
	/* mirage's simplify_binds, on as in the page (which toggles it with b) */
	if (rtr_scene_build(&sc, &m, RTR_SCENE_SIMPLIFY_BINDS | (align ? RTR_SCENE_ALIGN_START : 0)))
		fprintf(stderr, "ringtrace view: out of memory\n");
	else
		ret = rtr_view_serve(&sc, NULL, dirs[0], bind, port);
	rtr_scene_free(&sc);
	rtr_model_free(&m);
	return ret;
}

/*
 * --serve --follow: the recording's scene, made again as it grows, served
 * until a signal; with @xen, the stream of consume --xen-domain @xen.
 */
static int serve_follow(const char *dir, const char *xen, bool align, const char *bind,
			unsigned port)
{
	struct xen_follow xf = { .err = -1 };
	struct rtr_live lv;
	char err[1024];
	int ret;

	if (xen) {
		if (xen_follow_start(&xf, "view", xen)) {
			xen_follow_free(&xf);
			return 1;
		}
		dir = "-";
	}
	ret = rtr_live_open(&lv, dir, RTR_MODEL_MARKERS | RTR_MODEL_FIELDS,
			    RTR_SCENE_SIMPLIFY_BINDS | (align ? RTR_SCENE_ALIGN_START : 0), err,
			    sizeof(err));
	if (ret) {
		fprintf(stderr, "ringtrace view: %s\n", err);
		rtr_live_close(&lv, NULL, 0);
		ret = 1;
	} else {
		ret = rtr_view_serve(NULL, &lv, xen ? "the guest" : dir, bind, port);
		if (rtr_live_close(&lv, err, sizeof(err))) {
			fprintf(stderr, "ringtrace view: %s\n", err);
			ret = ret ? ret : 1;
		}
	}
	if (xen) {
		/* consume stopped if we stop before the guest's trace ended */
		if (xen_follow_finish(&xf, err, sizeof(err)) && xf.status &&
		    xf.status != 128 + SIGINT)
			fprintf(stderr, "ringtrace view: %s\n", err);
		if (xf.status && xf.status != 128 + SIGINT)
			ret = ret ? ret : 1;
		xen_follow_free(&xf);
	}
	return ret;
}

int rtr_cmd_view(int argc, char **argv)
{
	struct rtr_model m = { 0 };
	struct rtr_scene sc = { 0 };
	struct page pg = { 0 };
	struct buf meta = {0}, z = {0};
	const char *out = NULL, *bind = NULL;
	char **dirs, *def = NULL, err[1024];
	int ndirs = 0, ret = 1, loaded;
	bool force = false, align = false, opened = false, serve = false, follow = false;
	const char *xen = NULL;
	struct rtr_picture_opts pic = { 0 };
	bool sized = false;
	unsigned port = 0;
	struct cli_out o;

	dirs = calloc((size_t)argc + 1, sizeof(*dirs));
	if (!dirs)
		return 1;
	int sl;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			free(dirs);
			return 0;
		} else if (!strcmp(argv[i], "-o")) {
			if (i + 1 == argc) {
				fprintf(stderr, "ringtrace view: -o needs a value\n");
				usage(stderr);
				free(dirs);
				return 2;
			}
			out = argv[++i];
		} else if (!strcmp(argv[i], "--force")) {
			force = true;
		} else if (!strcmp(argv[i], "--format") || !strcmp(argv[i], "--size") ||
			   !strcmp(argv[i], "--range")) {
			const char *opt = argv[i], *val = i + 1 < argc ? argv[++i] : NULL;

			if (!val) {
				fprintf(stderr, "ringtrace view: %s needs a value\n", opt);
				usage(stderr);
				free(dirs);
				return 2;
			}
			if (opt[2] == 'f' && !(pic.format = rtr_out_format_parse(val))) {
				fprintf(stderr, "ringtrace view: --format takes svg, pdf or png, not '%s'\n",
					val);
				free(dirs);
				return 2;
			}
			if ((opt[2] == 's' && rtr_out_parse_size("view", val, &pic)) ||
			    (opt[2] == 'r' && rtr_out_parse_range("view", val, &pic))) {
				free(dirs);
				return 2;
			}
			sized |= opt[2] != 'f';
		} else if (!strcmp(argv[i], "--serve")) {
			serve = true;
		} else if (!strcmp(argv[i], "-f") || !strcmp(argv[i], "--follow")) {
			follow = true;
		} else if (!strcmp(argv[i], "--xen-domain")) {
			if (i + 1 == argc || !argv[i + 1][0] || argv[i + 1][0] == '-') {
				fprintf(stderr, "ringtrace view: --xen-domain needs a domain (a name, "
					"as xl list shows it, or an id)\n");
				free(dirs);
				return 2;
			}
			xen = argv[++i];
		} else if (!strcmp(argv[i], "--port") || !strcmp(argv[i], "--bind")) {
			char *end = NULL;
			unsigned long v = 0;

			if (i + 1 < argc && argv[i][2] == 'p') {
				errno = 0;
				v = strtoul(argv[i + 1], &end, 10);
			}
			if (i + 1 == argc || (argv[i][2] == 'p' && (errno || *end || !*argv[i + 1] ||
								   argv[i + 1][0] == '-' || v > 65535))) {
				fprintf(stderr, "ringtrace view: %s needs %s\n", argv[i],
					argv[i][2] == 'p' ? "a port number (0 to 65535)" : "an address");
				usage(stderr);
				free(dirs);
				return 2;
			}
			if (argv[i][2] == 'p')
				port = (unsigned)v;
			else
				bind = argv[i + 1];
			i++;
		} else if (!strcmp(argv[i], "--align")) {
			if (i + 1 == argc ||
			    (strcmp(argv[i + 1], "start") && strcmp(argv[i + 1], "clock"))) {
				fprintf(stderr, "ringtrace view: --align takes 'clock' (one time axis, the "
					"default) or 'start' (each trace from its own start)\n");
				usage(stderr);
				free(dirs);
				return 2;
			}
			align = !strcmp(argv[i + 1], "start");
			i++;
		} else if ((sl = cli_slice_arg("view", argc, argv, &i))) {
			if (sl < 0) {
				free(dirs);
				return 2;
			}
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "ringtrace view: unknown option '%s'\n", argv[i]);
			usage(stderr);
			free(dirs);
			return 2;
		} else {
			dirs[ndirs++] = argv[i];
		}
	}
	if (xen && (!serve || !follow || ndirs)) {
		fprintf(stderr, "ringtrace view: --xen-domain goes with --serve --follow and no TRACE "
			"(`ringtrace gui --xen-domain` opens it in a window)\n");
		free(dirs);
		return 2;
	}
	if (!ndirs && !xen) {
		usage(stderr);
		free(dirs);
		return 2;
	}
	if (cli_slice.on && (follow || xen)) {
		fprintf(stderr, "ringtrace view: --slice reads a trace directory, not a recording "
			"followed\n");
		free(dirs);
		return 2;
	}
	if (follow && !xen && (!serve || ndirs != 1)) {
		fprintf(stderr, "ringtrace view: --follow goes with --serve and one TRACE (the "
			"recording to follow; `ringtrace gui --follow` opens it in a window)\n");
		free(dirs);
		return 2;
	}
	if (!serve && (port || bind)) {
		fprintf(stderr, "ringtrace view: --port and --bind go with --serve\n");
		free(dirs);
		return 2;
	}
	if (serve && (out || force)) {
		fprintf(stderr, "ringtrace view: --serve writes no page: no -o, no --force\n");
		free(dirs);
		return 2;
	}
	if (!pic.format && out && rtr_out_format_of(out) && !serve)
		pic.format = rtr_out_format_of(out);
	if (pic.format && serve) {
		fprintf(stderr, "ringtrace view: --format writes a picture, --serve serves a page: "
			"one or the other\n");
		free(dirs);
		return 2;
	}
	if (sized && !pic.format) {
		fprintf(stderr, "ringtrace view: --size and --range go with --format svg|pdf|png "
			"(the page zooms and pans by itself)\n");
		free(dirs);
		return 2;
	}
	if (pic.format && out && rtr_out_format_of(out) && rtr_out_format_of(out) != pic.format) {
		fprintf(stderr, "ringtrace view: -o %s: its extension names another format than "
			"--format\n", out);
		free(dirs);
		return 2;
	}
	if (cli_traces_exist("view", dirs, ndirs)) {
		free(dirs);
		return 2;
	}
	if (pic.format) {
		static const char *const ext[] = { "", "svg", "pdf", "png" };

		if (!out && !strcmp(dirs[0], "-")) {
			snprintf(err, sizeof(err), "stdin.%s", ext[pic.format]);
			out = err;
		} else if (!out) {
			size_t n = strlen(dirs[0]);

			while (n > 1 && dirs[0][n - 1] == '/')
				n--;
			snprintf(err, sizeof(err), "%.*s.%s", (int)(n < 1000 ? n : 1000), dirs[0],
				 ext[pic.format]);
			out = err;
		}
		ret = rtr_view_picture(dirs, ndirs, align, out, force, &pic);
		free(dirs);
		return ret;
	}
	if (serve && follow) {
		ret = serve_follow(xen ? NULL : dirs[0], xen, align, bind, port);
		free(dirs);
		return ret;
	}
	if (serve) {
		ret = serve_traces(dirs, ndirs, align, bind, port);
		free(dirs);
		return ret;
	}
	if (!out && !strcmp(dirs[0], "-")) {
		out = "stdin.html";
	} else if (!out) {
		size_t n = strlen(dirs[0]);

		while (n > 1 && dirs[0][n - 1] == '/')
			n--;
		def = malloc(n + 6);
		if (!def)
			goto done;
		snprintf(def, n + 6, "%.*s.html", (int)n, dirs[0]);
		out = def;
	}
	/* the page first: one that is there (without --force) costs no work */
	if (cli_out_open(&o, "view", out, force))
		goto done;
	opened = true;
	if (cli_view_fits("view", dirs, ndirs, true))
		goto done;
	loaded = cli_model_read(&m, dirs, ndirs, RTR_MODEL_MARKERS | RTR_MODEL_FIELDS, err,
				sizeof(err));
	if (loaded < 0) {
		fprintf(stderr, "ringtrace view: %s\n", err);
		goto done;
	}
	if (cli_slice.on && !m.events && !m.nlosses)
		fprintf(stderr, "ringtrace view: warning: --slice: nothing in that time range of "
			"the trace%s\n",
			ndirs > 1 ? "s (times count from each one's first event)" :
				    " (times count from its first event)");
	for (uint32_t i = 0; i < m.ndamage; i++)
		fprintf(stderr, "ringtrace view: damaged: %s (drawn up to there)\n",
			rtr_model_str(&m, m.damage[i].message));
	if (rtr_scene_build(&sc, &m, align ? RTR_SCENE_ALIGN_START : 0) ||
	    build(&sc, &pg, &meta, out)) {
		fprintf(stderr, "ringtrace view: out of memory\n");
		goto done;
	}
	if (gzip(&z, &pg.blob)) {
		fprintf(stderr, "ringtrace view: out of memory\n");
		goto done;
	}
	if (page_too_big(&meta, &pg, &z, dirs, ndirs))
		goto done;
	if (write_page(o.fd, &meta, &z)) {
		fprintf(stderr, "ringtrace view: %s: %s\n", out, strerror(errno));
		goto done;
	}
	opened = false;
	if (cli_out_commit(&o))
		goto done;
	printf("%s\n", out);
	/* drawn, but the user (or the script) must know it is not all */
	ret = m.ndamage ? 1 : 0;
	for (uint32_t i = 0; i < m.ntraces; i++) {
		if (m.traces[i].incomplete)
			ret = 1;
	}
done:
	if (opened)
		cli_out_abort(&o);
	rtr_scene_free(&sc);
	rtr_model_free(&m);
	free(pg.blob.p);
	free(pg.cols.p);
	free(meta.p);
	free(z.p);
	free(def);
	free(dirs);
	return ret;
}
