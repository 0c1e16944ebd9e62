// SPDX-License-Identifier: MIT
/*
 * tools/serve.c - `ringtrace view --serve`: the scene (view/scene.h) behind
 * a local HTTP server (libmicrohttpd), whose page asks the window query for
 * what it draws (Documentation/viewer.rst, "The server").
 *
 * Security model: the server binds the loopback address unless --bind says
 * otherwise; every path starts with a random 128-bit token (getrandom(),
 * compared in constant time), printed in the URL on the first line of
 * standard output once the server answers; only GET and HEAD of the server's
 * own paths are answered (no file is ever served from disk); on loopback a
 * request whose Host is not a loopback name is refused (DNS rebinding); every
 * query parameter is parsed strictly and bounded, so that no request costs
 * more than a screenful.  One thread answers, one request at a time.
 *
 * Following a recording (--follow, view/live.h): the main thread makes a new
 * scene whenever the recording grew and swaps it in under the server's lock,
 * which every answer holds while it reads the scene; api/meta says the turn,
 * so the page knows to ask again.
 *
 * A trace too large for a model (view/slices.h): the scene served is the
 * slice loaded last; api/window answers the overview (each stream's events
 * a pixel column) where that slice does not hold the window, and asks for
 * the slice around a window of few enough events; once loaded, the loader's
 * thread swaps it in under the lock as a new turn, the page's cue to ask
 * again.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>
#include "reader/model.h"
#include "tools/analysis.h"
#include "tools/json.h"
#include "tools/render_out.h"
#include "tools/serve.h"
#include "tools/view.h"
#include "view/links.h"
#include "view/live.h"
#include "view/path.h"
#include "view/scene.h"
#include "view/slices.h"

#define TOKEN_BYTES	16
/* What one request may ask: a screen, not more (the answer is ~50 bytes an item). */
#define MAX_WIDTH	8192
#define MAX_CELLS	(1u << 22)	/* rows x width */
#define MAX_PICTURE_H	16384
#define MAX_PICTURE_PX	(1u << 24)	/* a picture's width x height: 64 MB as an image */
#define MAX_ARROWS	20000
#define MAX_TIME	(INT64_C(1) << 53)	/* exact in the page's doubles */

struct server {
	struct rtr_scene *scene;
	pthread_mutex_t lock;	/* held by each answer; by the swap of a followed recording's scene */
	struct rtr_live *live;	/* --follow, or NULL */
	struct rtr_live_scene *cur;	/* the followed recording's scene now served */
	const char *title;
	char token[2 * TOKEN_BYTES + 1];
	bool loopback;
	uint16_t port;
	struct rtr_frame frame;	/* one thread answers: one frame, reused */
	struct rtr_slices *sl;	/* a trace too large: its overview and slices, or NULL */
	double *density;	/* the overview's columns, reused */
};

/* What to add to the scene's times to get the overview's (view/slices.h). */
static int64_t sv_off(const struct server *sv)
{
	return sv->sl ? rtr_slices_off(sv->sl, sv->scene->m) : 0;
}

/* ---- answers ------------------------------------------------------------------------- */

static enum MHD_Result answer(struct MHD_Connection *c, unsigned status, const char *type,
			      char *body, size_t len, bool owned)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(len, body, owned ? MHD_RESPMEM_MUST_FREE :
					    MHD_RESPMEM_PERSISTENT);
	if (!r) {
		if (owned)
			free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
	MHD_add_response_header(r, "Content-Security-Policy",
				"default-src 'self'; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

/* A refusal: the status and a line saying why, as text. */
static enum MHD_Result refuse(struct MHD_Connection *c, unsigned status, const char *why)
{
	char *b;
	int n = asprintf(&b, "%u %s\n", status, why);

	if (n < 0)
		return MHD_NO;
	return answer(c, status, "text/plain; charset=utf-8", b, (size_t)n, true);
}

/* JSON written by @fill into memory, then sent. */
static enum MHD_Result answer_json(struct MHD_Connection *c, void (*fill)(struct jw *, void *),
				   void *arg)
{
	char *body = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&body, &len);
	struct jw w;
	bool failed;

	if (!f)
		return refuse(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
	if (jw_init(&w, f)) {
		fclose(f);
		free(body);
		return refuse(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
	}
	fill(&w, arg);
	failed = jw_close(&w) != 0;
	if (fclose(f) || failed) {
		free(body);
		return refuse(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
	}
	return answer(c, MHD_HTTP_OK, "application/json", body, len, true);
}

/* ---- /TOKEN/api/meta: what does not change with the window -------------------------- */

static void key(struct jw *w, bool comma, const char *k)
{
	if (comma)
		jw_lit(w, ",");
	jw_cstr(w, k);
	jw_lit(w, ":");
}

static void fill_meta(struct jw *w, void *arg)
{
	const struct server *sv = arg;
	const struct rtr_scene *s = sv->scene;
	const struct rtr_model *m = s->m;

	jw_lit(w, "{");
	key(w, false, "title");
	jw_cstr(w, sv->title);
	key(w, true, "origin_ns");
	jw_i64(w, m->origin_ns);
	/* with an overview: the whole trace's span in the slice's times */
	key(w, true, "start");
	jw_i64(w, sv->sl ? -sv_off(sv) : m->start);
	key(w, true, "end");
	jw_i64(w, sv->sl ? sv->sl->ov.end - sv_off(sv) : m->end);
	key(w, true, "events");
	jw_u64(w, m->events);
	/*
	 * following: the scene's turn (a new one: ask again), and whether the
	 * recording ended; an overview's slices are turns too, never done
	 */
	key(w, true, "live");
	jw_lit(w, sv->live || sv->sl ? "true" : "false");
	key(w, true, "turn");
	jw_u64(w, sv->cur ? sv->cur->turn : 0);
	/* a slice of the trace: an overview's, or a long recording's tail */
	key(w, true, "sliced");
	jw_lit(w, m->sliced ? "true" : "false");
	key(w, true, "done");
	jw_lit(w, sv->sl ? "false" : !sv->cur || sv->cur->done ? "true" : "false");
	key(w, true, "overview");
	if (sv->sl) {
		const struct rtr_overview *ov = &sv->sl->ov;

		jw_lit(w, "{");
		key(w, false, "events");
		jw_u64(w, ov->events);
		key(w, true, "slice_max");
		jw_u64(w, sv->sl->slice_max);
		key(w, true, "slice_events");
		jw_u64(w, m->events);
		key(w, true, "lanes");
		jw_lit(w, "[");
		for (uint32_t i = 0; i < ov->nlanes; i++) {
			jw_lit(w, i ? ",{" : "{");
			key(w, false, "name");
			jw_cstr(w, ov->lanes[i].name);
			key(w, true, "cpu");
			jw_i64(w, ov->lanes[i].cpu == UINT64_MAX ? -1 : (int64_t)ov->lanes[i].cpu);
			key(w, true, "events");
			jw_u64(w, ov->lanes[i].events);
			jw_lit(w, "}");
		}
		jw_lit(w, "]}");
	} else {
		jw_lit(w, "null");
	}
	key(w, true, "ntasks");
	jw_u64(w, m->ntasks);
	key(w, true, "nrows");
	jw_u64(w, s->nrows);
	key(w, true, "aligned");
	jw_lit(w, s->aligned ? "true" : "false");
	key(w, true, "binds_simplified");
	jw_u64(w, s->simplified);
	key(w, true, "limits");
	jw_lit(w, "{");
	key(w, false, "width");
	jw_u64(w, MAX_WIDTH);
	key(w, true, "cells");
	jw_u64(w, MAX_CELLS);
	key(w, true, "arrows");
	jw_u64(w, MAX_ARROWS);
	jw_lit(w, "}");
	key(w, true, "arrow_kinds");
	jw_lit(w, "[");
	for (unsigned k = 0; k < RTR_SCENE_ARROW_KINDS; k++) {
		if (k)
			jw_lit(w, ",");
		jw_cstr(w, rtr_scene_arrow_kind_name(k));
	}
	jw_lit(w, "]");
	key(w, true, "task_flags");
	jw_lit(w, "{");
	key(w, false, "resolved");
	jw_u64(w, RTR_TASK_RESOLVED);
	key(w, true, "failed");
	jw_u64(w, RTR_TASK_FAILED);
	key(w, true, "never_resolved");
	jw_u64(w, RTR_TASK_NEVER_RESOLVED);
	jw_lit(w, "}");
	key(w, true, "item_flags");
	jw_lit(w, "{");
	key(w, false, "span");
	jw_u64(w, RTR_ITEM_SPAN);
	key(w, true, "failed");
	jw_u64(w, RTR_ITEM_FAILED);
	key(w, true, "never");
	jw_u64(w, RTR_ITEM_NEVER);
	jw_lit(w, "}");
	key(w, true, "traces");
	jw_lit(w, "[");
	for (uint32_t i = 0; i < m->ntraces; i++) {
		const struct rtr_model_trace *t = &m->traces[i];

		jw_lit(w, i ? ",{" : "{");
		key(w, false, "dir");
		jw_cstr(w, rtr_model_str(m, t->dir));
		key(w, true, "host");
		jw_cstr(w, rtr_model_str(m, t->hostname));
		key(w, true, "first");
		jw_i64(w, t->first);
		key(w, true, "last");
		jw_i64(w, t->last);
		key(w, true, "events");
		jw_u64(w, t->events);
		key(w, true, "row");
		jw_u64(w, s->trace_row[i]);
		key(w, true, "rows");
		jw_u64(w, s->trace_row[i + 1] - s->trace_row[i]);
		key(w, true, "damaged");
		jw_lit(w, t->damaged ? "true}" : "false}");
	}
	jw_lit(w, "]");
	key(w, true, "counters");
	jw_lit(w, "[");
	for (uint32_t i = 0; i < m->ncounters; i++) {
		const struct rtr_model_counter *k = &m->counters[i];

		jw_lit(w, i ? ",{" : "{");
		key(w, false, "name");
		jw_cstr(w, rtr_model_str(m, k->name));
		key(w, true, "trace");
		jw_u64(w, k->trace);
		key(w, true, "group");
		jw_u64(w, k->group);
		key(w, true, "min");
		jw_i64(w, k->min);
		key(w, true, "max");
		jw_i64(w, k->max);
		jw_lit(w, "}");
	}
	jw_lit(w, "]");
	/* the threads that wrote markers: a lane each, after the CPUs' */
	key(w, true, "marked_threads");
	jw_lit(w, "[");
	for (uint32_t i = 0, n = 0; i < m->nthreads && i < s->thread_marks.nlanes; i++) {
		if (s->thread_marks.off[i + 1] == s->thread_marks.off[i])
			continue;
		jw_lit(w, n++ ? ",{" : "{");
		key(w, false, "thread");
		jw_u64(w, i);
		key(w, true, "tid");
		jw_u64(w, m->threads[i].tid);
		key(w, true, "name");
		jw_cstr(w, rtr_model_str(m, m->threads[i].name));
		jw_lit(w, "}");
	}
	jw_lit(w, "]");
	key(w, true, "cpus");
	jw_lit(w, "[");
	for (uint32_t i = 0; i < m->ncpus; i++) {
		jw_lit(w, i ? ",{" : "{");
		key(w, false, "trace");
		jw_u64(w, m->cpus[i].trace);
		key(w, true, "cpu");
		jw_i64(w, m->cpus[i].cpu == RTR_MODEL_NONE ? -1 : (int64_t)m->cpus[i].cpu);
		key(w, true, "events_lost");
		jw_u64(w, m->cpus[i].events_lost);
		key(w, true, "packets_lost");
		jw_u64(w, m->cpus[i].packets_lost);
		jw_lit(w, "}");
	}
	jw_lit(w, "]");
	/* where a stream's lane stops being known: the rest of it is unknown */
	key(w, true, "damage");
	jw_lit(w, "[");
	for (uint32_t i = 0; i < m->ndamage; i++) {
		const struct rtr_model_damage *d = &m->damage[i];

		jw_lit(w, i ? ",{" : "{");
		key(w, false, "trace");
		jw_u64(w, d->trace);
		key(w, true, "cpu");
		jw_i64(w, d->cpu == RTR_MODEL_NONE ? -1 : (int64_t)d->cpu);
		key(w, true, "ts");
		jw_i64(w, d->ts);
		key(w, true, "message");
		jw_cstr(w, rtr_model_str(m, d->message));
		jw_lit(w, "}");
	}
	jw_lit(w, "]}");
}

/* ---- /TOKEN/api/task?i=N: one task's details ------------------------------------------- */

/* The tasks a task's details link to by each kind of arrow, at most. */
#define TASK_LINKS_MAX 50

struct task_arg {
	const struct server *sv;
	uint32_t task;
	struct rtr_task_link *links;	/* rtr_task_links() */
	uint32_t nlinks, more[RTR_LINK_KINDS];
	struct rtr_task_where *where[2];	/* rtr_task_where(): by CPU, by thread */
	uint32_t nwhere[2];
	struct rtr_task_counter *changes;	/* rtr_task_counters() */
	uint32_t nchanges;
	uint64_t all_changes;
};

/* One of a task's links: what, the other task's index, name and kind. */
static void put_link(struct jw *w, const struct rtr_scene *s, const char *what, uint32_t task, size_t i)
{
	const struct rtr_model *m = s->m;
	char buf[32];

	jw_lit(w, i ? ",{" : "{");
	key(w, false, "what");
	jw_cstr(w, what);
	key(w, true, "task");
	jw_u64(w, task);
	key(w, true, "name");
	jw_cstr(w, rtr_scene_task_name(s, task, buf, sizeof(buf)));
	key(w, true, "kind");
	jw_cstr(w, rtr_model_str(m, m->tasks[task].kind_name));
	jw_lit(w, "}");
}

static void fill_task(struct jw *w, void *arg)
{
	const struct task_arg *a = arg;
	const struct rtr_scene *s = a->sv->scene;
	const struct rtr_model *m = s->m;
	const struct rtr_model_task *t = &m->tasks[a->task];

	jw_lit(w, "{");
	key(w, false, "task");
	jw_u64(w, a->task);
	key(w, true, "id");
	jw_u64(w, t->id);
	key(w, true, "trace");
	jw_u64(w, t->trace);
	key(w, true, "row");
	jw_u64(w, s->task_row[a->task]);
	key(w, true, "kind");
	jw_cstr(w, rtr_model_str(m, t->kind_name));
	key(w, true, "name");
	jw_cstr(w, rtr_model_str(m, t->name));
	key(w, true, "flags");
	jw_u64(w, t->flags);
	key(w, true, "created");
	jw_i64(w, t->created);
	key(w, true, "end");
	jw_i64(w, t->end);
	key(w, true, "reason");
	jw_cstr(w, rtr_model_str(m, t->reason));
	key(w, true, "parent");
	jw_i64(w, t->parent == RTR_MODEL_NONE ? -1 : (int64_t)t->parent);
	key(w, true, "resolved");
	if (t->flags & RTR_TASK_RESOLVED)
		jw_i64(w, t->resolved);
	else
		jw_lit(w, "null");
	key(w, true, "runs");
	jw_u64(w, t->nruns);
	/* its labels (50 at most), and the tasks the panel links to */
	key(w, true, "labels");
	jw_lit(w, "[");
	for (uint32_t i = 0; i < t->nlabels && i < 50; i++) {
		jw_lit(w, i ? "," : "");
		jw_cstr(w, rtr_model_str(m, m->labels[t->label_first + i].text));
	}
	jw_lit(w, "]");
	key(w, true, "links");
	jw_lit(w, "[");
	const struct { const char *what; uint32_t task; } links[] = {
		{ "created by", t->parent }, { "became", t->becomes }, { "became from", t->became_from },
	};
	size_t n = 0;

	for (size_t k = 0; k < sizeof(links) / sizeof(links[0]); k++)
		if (links[k].task < m->ntasks)
			put_link(w, s, links[k].what, links[k].task, n++);
	/* and by its arrows (view/links.h), TASK_LINKS_MAX a kind */
	for (uint32_t k = 0; k < a->nlinks; k++)
		put_link(w, s, rtr_link_kind_str(a->links[k].kind), a->links[k].task, n++);
	jw_lit(w, "]");
	/* where it ran: by CPU (the lane's cpu number), by thread (its tid) */
	for (int by_thread = 0; by_thread < 2; by_thread++) {
		const struct rtr_task_where *wh = a->where[by_thread];

		key(w, true, by_thread ? "threads" : "cpus");
		jw_lit(w, "[");
		for (uint32_t k = 0; k < a->nwhere[by_thread]; k++) {
			jw_lit(w, k ? ",{" : "{");
			key(w, false, by_thread ? "tid" : "cpu");
			if (by_thread)
				jw_u64(w, m->threads[wh[k].index].tid);
			else
				jw_i64(w, m->cpus[wh[k].index].cpu == RTR_MODEL_NONE ? -1 :
					  (int64_t)m->cpus[wh[k].index].cpu);
			key(w, true, "runs");
			jw_u64(w, wh[k].runs);
			key(w, true, "ns");
			jw_i64(w, wh[k].ns);
			jw_lit(w, "}");
		}
		jw_lit(w, "]");
	}
	key(w, true, "links_more");
	jw_lit(w, "{");
	n = 0;
	for (unsigned k = 0; k < RTR_LINK_KINDS; k++) {
		if (!a->more[k])
			continue;
		jw_lit(w, n++ ? "," : "");
		jw_cstr(w, rtr_link_kind_str(k));
		jw_lit(w, ":");
		jw_u64(w, a->more[k]);
	}
	jw_lit(w, "}");
	/* the counter changes it made, TASK_LINKS_MAX at most: name, when, value, change */
	key(w, true, "counters");
	jw_lit(w, "[");
	for (uint32_t k = 0; k < a->nchanges; k++) {
		const struct rtr_task_counter *ch = &a->changes[k];

		jw_lit(w, k ? ",{" : "{");
		key(w, false, "name");
		jw_cstr(w, rtr_model_str(m, m->counters[ch->counter].name));
		key(w, true, "at");
		jw_i64(w, ch->ts);
		key(w, true, "value");
		jw_i64(w, ch->value);
		key(w, true, "delta");
		jw_i64(w, ch->delta);
		jw_lit(w, "}");
	}
	jw_lit(w, "]");
	key(w, true, "counters_more");
	jw_u64(w, a->all_changes - a->nchanges);
	jw_lit(w, "}");
}

#define COLUMN(w, comma, name, n, expr)					\
	do {								\
		key(w, comma, name);					\
		jw_lit(w, "[");						\
		for (uint32_t i = 0; i < (n); i++) {			\
			if (i)						\
				jw_lit(w, ",");				\
			expr;						\
		}							\
		jw_lit(w, "]");						\
	} while (0)

/* ---- /TOKEN/api/path?i=N: a task's critical path, flattened (view/path.h) ------------- */

struct path_arg {
	const struct server *sv;
	const struct rtr_path *p;
};

static void fill_path(struct jw *w, void *arg)
{
	const struct path_arg *a = arg;
	const struct rtr_path *p = a->p;
	const struct rtr_scene *s = a->sv->scene;
	const struct rtr_critpath *cp = &p->cp;

	jw_lit(w, "{");
	key(w, false, "task");
	jw_u64(w, cp->task);
	key(w, true, "start");
	jw_i64(w, cp->start);
	key(w, true, "end");
	jw_i64(w, cp->end);
	key(w, true, "resolved");
	jw_lit(w, cp->resolved ? "true" : "false");
	key(w, true, "whats");
	jw_lit(w, "[");
	for (uint32_t k = RTR_CP_RUNNING; k <= RTR_CP_NOT_RUNNING; k++) {
		if (k)
			jw_lit(w, ",");
		jw_cstr(w, rtr_cp_what_str(k));
	}
	jw_lit(w, "]");
	/* the segments drawn, as columns */
	COLUMN(w, true, "t0", p->n, jw_i64(w, p->segs[i].t0));
	COLUMN(w, true, "t1", p->n, jw_i64(w, p->segs[i].t1));
	COLUMN(w, true, "row", p->n, jw_u64(w, s->task_row[p->segs[i].task]));
	COLUMN(w, true, "what", p->n, jw_u64(w, p->segs[i].what));
	/* the first level, as `ringtrace why` prints it: what, how long, whom */
	key(w, true, "top");
	jw_lit(w, "[");
	for (uint32_t i = 0; i < cp->ntop && i < 200; i++) {
		const struct rtr_cp_seg *sg = &cp->segs[i];
		uint32_t who = sg->other != RTR_MODEL_NONE ? sg->other : sg->by;

		jw_lit(w, i ? ",{" : "{");
		key(w, false, "what");
		jw_cstr(w, rtr_cp_what_str(sg->what));
		key(w, true, "ns");
		jw_i64(w, sg->end - sg->start);
		key(w, true, "task");
		jw_i64(w, who == RTR_MODEL_NONE ? -1 : (int64_t)who);
		key(w, true, "label");
		jw_cstr(w, who == RTR_MODEL_NONE ? "" : rtr_model_str(s->m, s->m->tasks[who].name));
		jw_lit(w, "}");
	}
	jw_lit(w, "]");
	key(w, true, "top_more");
	jw_u64(w, cp->ntop > 200 ? cp->ntop - 200 : 0);
	jw_lit(w, "}");
}

/* ---- /TOKEN/api/window?t0=&t1=&row0=&row1=&width=[&arrows=]: the window query ---------- */

/*
 * @v to the hundredth, without trailing zeros ("12", "12.5", "-0.25"): a
 * third of the answer's bytes are these, so not through printf, whose
 * exact decimal conversion took a quarter of a window's answer.
 */
static void num(struct jw *w, double v)
{
	char b[32], *p = b + sizeof(b);
	int64_t c;
	uint64_t a;
	unsigned frac;

	if (!(v > -1e15 && v < 1e15)) {	/* (never, for pixels and values here; NaN too) */
		int n = snprintf(b, sizeof(b), "%.0f", v != v ? 0.0 : v);

		jw_raw(w, b, (size_t)n);
		return;
	}
	c = llround(v * 100);
	a = c < 0 ? (uint64_t)0 - (uint64_t)c : (uint64_t)c;
	frac = (unsigned)(a % 100);
	a /= 100;
	if (frac % 10)
		*--p = (char)('0' + frac % 10);
	if (frac) {
		*--p = (char)('0' + frac / 10);
		*--p = '.';
	}
	do {
		*--p = (char)('0' + a % 10);
		a /= 10;
	} while (a);
	if (c < 0)
		*--p = '-';
	jw_raw(w, p, (size_t)(b + sizeof(b) - p));
}


static void fill_items(struct jw *w, const struct rtr_item *it, uint32_t n, const char *lane)
{
	jw_lit(w, "{");
	COLUMN(w, false, "x0", n, num(w, it[i].x0));
	COLUMN(w, true, "x1", n, num(w, it[i].x1));
	COLUMN(w, true, lane, n, jw_u64(w, it[i].lane));
	COLUMN(w, true, "index", n, jw_u64(w, it[i].index));
	COLUMN(w, true, "count", n, jw_u64(w, it[i].count));
	COLUMN(w, true, "flags", n, jw_u64(w, it[i].flags));
	jw_lit(w, "}");
}

/*
 * The labels the page draws over the lines wide enough (the window's rule,
 * view/render.c): "labels": "item" (into "tasks"), "text" (the task's
 * name, and a failed one's reason), at most RTR_SCENE_LABELS_MAX.
 */
static void fill_labels(struct jw *w, const struct rtr_scene *s, const struct rtr_frame *f)
{
	uint32_t n = 0;
	char buf[32];

	key(w, true, "labels");
	jw_lit(w, "{\"item\":[");
	for (uint32_t i = 0; i < f->ntasks && n < RTR_SCENE_LABELS_MAX; i++) {
		if (f->tasks[i].count != 1 || f->tasks[i].x1 - f->tasks[i].x0 < RTR_SCENE_LABEL_MIN_PX)
			continue;
		jw_lit(w, n++ ? "," : "");
		jw_u64(w, i);
	}
	jw_lit(w, "],\"text\":[");
	n = 0;
	for (uint32_t i = 0; i < f->ntasks && n < RTR_SCENE_LABELS_MAX; i++) {
		const struct rtr_model_task *t = &s->m->tasks[f->tasks[i].index];
		const char *why = rtr_model_str(s->m, t->reason);

		if (f->tasks[i].count != 1 || f->tasks[i].x1 - f->tasks[i].x0 < RTR_SCENE_LABEL_MIN_PX)
			continue;
		jw_lit(w, n++ ? "," : "");
		if (t->flags & RTR_TASK_FAILED && *why) {
			char *both = NULL;

			if (asprintf(&both, "%s: %s", rtr_scene_task_name(s, f->tasks[i].index, buf,
									sizeof(buf)), why) < 0) {
				jw_cstr(w, rtr_scene_task_name(s, f->tasks[i].index, buf, sizeof(buf)));
				continue;
			}
			jw_cstr(w, both);
			free(both);
		} else {
			jw_cstr(w, rtr_scene_task_name(s, f->tasks[i].index, buf, sizeof(buf)));
		}
	}
	jw_lit(w, "]}");
}

struct window_arg {
	const struct server *sv;
	const struct rtr_window *win;
	const struct rtr_frame *f;
	/* a trace too large: the overview drawn instead (@f then empty), or not */
	bool overview, loading;
	uint64_t in_view;
	const double *density;	/* lane by lane, @win->width columns each */
};

/*
 * The frame's holds (x0, x1, row, the holder's task) and CPU samples' ticks
 * (x, row, count), as view/scene.h gives them.
 */
static void fill_extras(struct jw *w, const struct rtr_scene *s, const struct rtr_frame *f)
{
	const struct rtr_item *h = f->holds, *t = f->ticks;

	key(w, true, "holds");
	jw_lit(w, "{");
	COLUMN(w, false, "x0", f->nholds, num(w, h[i].x0));
	COLUMN(w, true, "x1", f->nholds, num(w, h[i].x1));
	COLUMN(w, true, "row", f->nholds, jw_u64(w, h[i].lane));
	COLUMN(w, true, "holder", f->nholds, jw_u64(w, s->holds[h[i].index].holder));
	jw_lit(w, "}");
	key(w, true, "samples");
	jw_lit(w, "{");
	COLUMN(w, false, "x", f->nticks, jw_u64(w, (uint64_t)t[i].x0));
	COLUMN(w, true, "row", f->nticks, jw_u64(w, t[i].lane));
	COLUMN(w, true, "count", f->nticks, jw_u64(w, t[i].count));
	jw_lit(w, "}");
	key(w, true, "losses");
	jw_lit(w, "{");
	COLUMN(w, false, "x", f->nlosses, num(w, f->losses[i].x));
	COLUMN(w, true, "cpu", f->nlosses, jw_u64(w, f->losses[i].lane));
	COLUMN(w, true, "count", f->nlosses, jw_u64(w, f->losses[i].count));
	COLUMN(w, true, "events", f->nlosses, jw_u64(w, f->losses[i].events));
	COLUMN(w, true, "packets", f->nlosses, jw_u64(w, f->losses[i].packets));
	jw_lit(w, "}");
	/* notes (a pixel column's several: the first's text, and their count) and pauses */
	key(w, true, "notes");
	jw_lit(w, "{");
	COLUMN(w, false, "x", f->nnotes, num(w, f->notes[i].x0));
	COLUMN(w, true, "count", f->nnotes, jw_u64(w, f->notes[i].count));
	COLUMN(w, true, "text", f->nnotes,
	       jw_str(w, rtr_model_str(s->m, s->m->notes[f->notes[i].index].text),
		      s->m->notes[f->notes[i].index].len));
	jw_lit(w, "}");
	key(w, true, "pauses");
	jw_lit(w, "{");
	COLUMN(w, false, "x0", f->npauses, num(w, f->pauses[i].x0));
	COLUMN(w, true, "x1", f->npauses, num(w, f->pauses[i].x1));
	COLUMN(w, true, "count", f->npauses, jw_u64(w, f->pauses[i].count));
	COLUMN(w, true, "reason", f->npauses,
	       jw_str(w, rtr_model_str(s->m, s->m->pauses[f->pauses[i].index].reason),
		      s->m->pauses[f->pauses[i].index].len));
	jw_lit(w, "}");
}

static void fill_window(struct jw *w, void *arg)
{
	const struct window_arg *a = arg;
	const struct rtr_frame *f = a->f;
	const struct rtr_scene *s = a->sv->scene;
	static const char *const detail[] = { "exact", "merged", "summary" };

	jw_lit(w, "{");
	key(w, false, "t0");
	jw_i64(w, a->win->t0);
	key(w, true, "t1");
	jw_i64(w, a->win->t1);
	key(w, true, "width");
	jw_u64(w, a->win->width);
	key(w, true, "row0");
	jw_u64(w, a->win->row0);
	key(w, true, "row1");
	jw_u64(w, a->win->row1);
	key(w, true, "tasks_in_view");
	jw_u64(w, f->tasks_in_view);
	key(w, true, "arrows_in_view");
	jw_u64(w, f->arrows_in_view);
	key(w, true, "tasks");
	fill_items(w, f->tasks, f->ntasks, "row");
	fill_labels(w, s, f);
	key(w, true, "runs");
	fill_items(w, f->runs, f->nruns, "cpu");
	key(w, true, "cpu_marks");
	fill_items(w, f->cpu_marks, f->ncpu_marks, "cpu");
	key(w, true, "thread_marks");
	fill_items(w, f->thread_marks, f->nthread_marks, "thread");
	fill_extras(w, s, f);
	key(w, true, "arrows");
	jw_lit(w, "{");
	key(w, false, "detail");
	jw_cstr(w, detail[f->arrow_detail < 3 ? f->arrow_detail : 0]);
	COLUMN(w, true, "x0", f->narrows, num(w, f->arrows[i].x0));
	COLUMN(w, true, "x1", f->narrows, num(w, f->arrows[i].x1));
	COLUMN(w, true, "from_row", f->narrows, jw_u64(w, f->arrows[i].from_row));
	COLUMN(w, true, "to_row", f->narrows, jw_u64(w, f->arrows[i].to_row));
	COLUMN(w, true, "kind", f->narrows, jw_u64(w, s->arrows[f->arrows[i].arrow].kind));
	COLUMN(w, true, "failed", f->narrows,
	       jw_u64(w, rtr_scene_arrow_failed(s, &s->arrows[f->arrows[i].arrow])));
	COLUMN(w, true, "remote", f->narrows,
	       jw_u64(w, rtr_scene_arrow_remote(&s->arrows[f->arrows[i].arrow])));
	COLUMN(w, true, "count", f->narrows, jw_u64(w, f->arrows[i].count));
	key(w, true, "hist");
	if (f->arrow_detail == RTR_ARROWS_SUMMARY) {
		/* by kind: the arrows ending in each pixel column */
		const uint32_t wd = a->win->width;

		jw_lit(w, "[");
		for (unsigned k = 0; k < RTR_SCENE_ARROW_KINDS; k++) {
			jw_lit(w, k ? ",[" : "[");
			for (uint32_t px = 0; px < wd; px++) {
				if (px)
					jw_lit(w, ",");
				jw_u64(w, f->arrow_hist[k * wd + px]);
			}
			jw_lit(w, "]");
		}
		jw_lit(w, "]");
	} else {
		jw_lit(w, "null");
	}
	jw_lit(w, "}");
	key(w, true, "sleep");
	jw_lit(w, "{");
	COLUMN(w, false, "x0", f->nsleep, num(w, f->sleep[i].x0));
	COLUMN(w, true, "x1", f->nsleep, num(w, f->sleep[i].x1));
	COLUMN(w, true, "trace", f->nsleep, jw_u64(w, f->sleep[i].trace));
	jw_lit(w, "}");
	key(w, true, "counters");
	jw_lit(w, "{");
	COLUMN(w, false, "x0", f->ncounters, num(w, f->counters[i].x0));
	COLUMN(w, true, "x1", f->ncounters, num(w, f->counters[i].x1));
	COLUMN(w, true, "counter", f->ncounters, jw_u64(w, f->counters[i].counter));
	COLUMN(w, true, "count", f->ncounters, jw_u64(w, f->counters[i].count));
	COLUMN(w, true, "min", f->ncounters, jw_i64(w, f->counters[i].min));
	COLUMN(w, true, "max", f->ncounters, jw_i64(w, f->counters[i].max));
	COLUMN(w, true, "value", f->ncounters, jw_i64(w, f->counters[i].value));
	jw_lit(w, "}");
	if (a->sv->sl) {
		const struct rtr_overview *ov = &a->sv->sl->ov;

		key(w, true, "overview");
		if (!a->overview) {
			jw_lit(w, "null");
		} else {
			jw_lit(w, "{");
			key(w, false, "loading");
			jw_lit(w, a->loading ? "true" : "false");
			key(w, true, "events_in_view");
			jw_u64(w, a->in_view);
			key(w, true, "lanes");
			jw_lit(w, "[");
			for (uint32_t l = 0; l < ov->nlanes; l++) {
				jw_lit(w, l ? ",[" : "[");
				for (uint32_t px = 0; px < a->win->width; px++) {
					if (px)
						jw_lit(w, ",");
					num(w, a->density[(size_t)l * a->win->width + px]);
				}
				jw_lit(w, "]");
			}
			jw_lit(w, "]}");
		}
	}
	jw_lit(w, "}");
}

/*
 * A trace too large: the overview of @win when the slice served does not
 * hold it (the slice around it asked for), *@done then set and the answer
 * returned; else *@done false: the slice's scene answers.
 */
static enum MHD_Result overview_window(struct server *sv, struct MHD_Connection *c,
				       struct rtr_window *win, bool *done)
{
	static const struct rtr_frame none;
	const struct rtr_overview *ov = &sv->sl->ov;
	int64_t off = sv_off(sv);
	struct window_arg a = { .sv = sv, .win = win, .f = &none, .overview = true };
	enum rtr_slices_what what = rtr_slices_view(sv->sl, win->t0 + off, win->t1 + off, &a.in_view);
	double *d;

	*done = what != RTR_SLICES_DRAWN;
	if (!*done)
		return MHD_NO;
	a.loading = what == RTR_SLICES_LOADING;
	d = realloc(sv->density, ((size_t)ov->nlanes * win->width + 1) * sizeof(*d));
	if (!d)
		return refuse(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
	sv->density = d;
	for (uint32_t l = 0; l < ov->nlanes; l++)
		rtr_overview_density(ov, l, win->t0 + off, win->t1 + off, win->width,
				     d + (size_t)l * win->width);
	a.density = d;
	return answer_json(c, fill_window, &a);
}

/* A query parameter as an integer in [@lo, @hi]; *@v unchanged when absent. Return: 0, -1 bad. */
static int param(struct MHD_Connection *c, const char *name, int64_t lo, int64_t hi, int64_t *v)
{
	const char *s = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, name);
	char *end;
	long long x;

	if (!s)
		return 0;
	if (!*s || strlen(s) > 24)
		return -1;
	errno = 0;
	x = strtoll(s, &end, 10);
	if (errno || *end || x < lo || x > hi)
		return -1;
	*v = x;
	return 0;
}

static enum MHD_Result api_window(struct server *sv, struct MHD_Connection *c)
{
	struct rtr_scene *s = sv->scene;
	int64_t t0 = s->m->start, t1 = s->m->end + 1, row0 = 0, row1 = s->nrows, width = 1000;

	if (sv->sl) {
		/* the whole trace, not the slice */
		t0 = -sv_off(sv);
		t1 = sv->sl->ov.end - sv_off(sv) + 1;
	}
	int64_t arrows = RTR_SCENE_DEFAULT_ARROWS;
	struct rtr_window win;
	struct window_arg a;
	int ret;

	if (param(c, "t0", -MAX_TIME, MAX_TIME, &t0) || param(c, "t1", -MAX_TIME, MAX_TIME, &t1))
		return refuse(c, MHD_HTTP_BAD_REQUEST, "t0 and t1: integers (ns) within 2^53 of the origin");
	if (t1 <= t0)
		return refuse(c, MHD_HTTP_BAD_REQUEST, "t1 must be after t0");
	if (param(c, "width", 1, MAX_WIDTH, &width))
		return refuse(c, MHD_HTTP_BAD_REQUEST, "width: 1 to 8192 pixels");
	if (param(c, "row0", 0, UINT32_MAX, &row0) || param(c, "row1", 0, UINT32_MAX, &row1) ||
	    row1 < row0)
		return refuse(c, MHD_HTTP_BAD_REQUEST, "row0 <= row1, integers");
	if (row1 > s->nrows)
		row1 = s->nrows;
	if (row0 > row1)
		row0 = row1;
	if ((uint64_t)(row1 - row0) * (uint64_t)width > MAX_CELLS)
		return refuse(c, MHD_HTTP_BAD_REQUEST, "too many rows at this width (rows x width <= 4194304)");
	if (param(c, "arrows", 1, MAX_ARROWS, &arrows))
		return refuse(c, MHD_HTTP_BAD_REQUEST, "arrows: 1 to 20000");
	win = (struct rtr_window){ .t0 = t0, .t1 = t1, .row0 = (uint32_t)row0, .row1 = (uint32_t)row1,
				   .width = (uint32_t)width, .max_arrows = (uint32_t)arrows };
	if (sv->sl) {
		bool done;
		enum MHD_Result r = overview_window(sv, c, &win, &done);

		if (done)
			return r;
	}
	ret = rtr_scene_window(s, &win, &sv->frame);
	if (ret == -EINVAL)
		return refuse(c, MHD_HTTP_BAD_REQUEST, "not a window");
	if (ret)
		return refuse(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
	a = (struct window_arg){ .sv = sv, .win = &win, .f = &sv->frame };
	return answer_json(c, fill_window, &a);
}

/*
 * ---- /TOKEN/api/picture?format=svg|png|pdf&t0=&t1=&width=&height=[&row0=][&selected=] ----
 * The page's view drawn by the one renderer (view/render.h), as `view
 * --format` draws a file, sent as a download.  A view the overview draws
 * (its events not loaded: a trace too large) has no picture of its tasks.
 */
static enum MHD_Result api_picture(struct server *sv, struct MHD_Connection *c)
{
	static const char *const type[] = { [RTR_OUT_SVG] = "image/svg+xml",
					    [RTR_OUT_PDF] = "application/pdf",
					    [RTR_OUT_PNG] = "image/png" };
	static const char *const file[] = { [RTR_OUT_SVG] = "attachment; filename=\"ringtrace.svg\"",
					    [RTR_OUT_PDF] = "attachment; filename=\"ringtrace.pdf\"",
					    [RTR_OUT_PNG] = "attachment; filename=\"ringtrace.png\"" };
	const char *f = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "format");
	struct rtr_scene *s = sv->scene;
	int64_t t0 = s->m->start, t1 = s->m->end + 1, row0 = 0, width = 1600, height = 0;
	int64_t sel = -1;
	struct rtr_render_view v;
	struct MHD_Response *r;
	enum MHD_Result ret;
	int format = f ? rtr_out_format_parse(f) : RTR_OUT_NONE, fd;
	off_t size;

	if (format == RTR_OUT_NONE)
		return refuse(c, MHD_HTTP_BAD_REQUEST, "format: svg, png or pdf");
	if (param(c, "t0", -MAX_TIME, MAX_TIME, &t0) || param(c, "t1", -MAX_TIME, MAX_TIME, &t1) ||
	    t1 <= t0)
		return refuse(c, MHD_HTTP_BAD_REQUEST, "t0 < t1: integers (ns) within 2^53 of the origin");
	if (param(c, "width", 1, MAX_WIDTH, &width) || param(c, "height", 1, MAX_PICTURE_H, &height))
		return refuse(c, MHD_HTTP_BAD_REQUEST, "width: 1 to 8192 pixels; height: 1 to 16384");
	if (!height)
		height = rtr_render_height(s, MAX_PICTURE_H);
	if ((uint64_t)width * (uint64_t)height > MAX_PICTURE_PX)
		return refuse(c, MHD_HTTP_BAD_REQUEST, "too large a picture (width x height <= 16777216)");
	if (param(c, "row0", 0, UINT32_MAX, &row0) ||
	    param(c, "selected", -1, (int64_t)s->m->ntasks - 1, &sel))
		return refuse(c, MHD_HTTP_BAD_REQUEST, "row0: a row; selected: a task index");
	if (sv->sl) {
		uint64_t in_view;

		if (rtr_slices_view(sv->sl, t0 + sv_off(sv), t1 + sv_off(sv), &in_view) !=
		    RTR_SLICES_DRAWN)
			return refuse(c, MHD_HTTP_CONFLICT, "this window is the overview's, its events "
				      "not loaded: zoom in until its tasks are drawn, or draw it with "
				      "`ringtrace view --format svg --range`");
	}
	v = (struct rtr_render_view){ .t0 = t0, .t1 = t1, .row0 = (uint32_t)row0,
				      .width = (uint32_t)width, .height = (uint32_t)height,
				      .selected = sel < 0 ? RTR_MODEL_NONE : (uint32_t)sel,
				      .ruler_shift = sv->sl ? s->m->start + sv_off(sv) : 0 };
	fd = memfd_create("ringtrace-picture", MFD_CLOEXEC);
	if (fd < 0)
		return refuse(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "no memory file for the picture");
	if (rtr_out_write("view --serve", "a picture", fd, format, s, &v) ||
	    (size = lseek(fd, 0, SEEK_END)) <= 0) {
		close(fd);
		return refuse(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "the picture could not be drawn");
	}
	r = MHD_create_response_from_fd((uint64_t)size, fd);	/* fd is the response's now */
	if (!r) {
		close(fd);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type[format]);
	MHD_add_response_header(r, "Content-Disposition", file[format]);
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, "Content-Security-Policy", "default-src 'none'; sandbox");
	ret = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

/* ---- /TOKEN/api/search?q=...[&max=N]: the tasks a query matches ------------------------ */

struct search_arg {
	const struct server *sv;
	const uint32_t *found;
	uint32_t n;
	int64_t count;
};

static void fill_search(struct jw *w, void *arg)
{
	const struct search_arg *a = arg;
	const struct rtr_scene *s = a->sv->scene;
	const struct rtr_model_task *t = s->m->tasks;

	jw_lit(w, "{");
	key(w, false, "count");
	jw_i64(w, a->count);
	COLUMN(w, true, "task", a->n, jw_u64(w, a->found[i]));
	COLUMN(w, true, "row", a->n, jw_u64(w, s->task_row[a->found[i]]));
	COLUMN(w, true, "start", a->n, jw_i64(w, t[a->found[i]].created));
	COLUMN(w, true, "end", a->n, jw_i64(w, t[a->found[i]].end));
	jw_lit(w, "}");
}

static enum MHD_Result api_search(struct server *sv, struct MHD_Connection *c)
{
	const char *q = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "q");
	int64_t max = 1000;
	struct search_arg a = { .sv = sv };
	uint32_t *found;
	enum MHD_Result ret;

	if (!q || param(c, "max", 1, 100000, &max))
		return refuse(c, MHD_HTTP_BAD_REQUEST, "q: a query; max: 1 to 100000");
	found = malloc((size_t)max * sizeof(*found));
	if (!found)
		return refuse(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
	a.count = rtr_scene_search(sv->scene, q, found, (uint32_t)max);
	if (a.count < 0) {
		free(found);
		return refuse(c, a.count == -ENOMEM ? MHD_HTTP_INTERNAL_SERVER_ERROR : MHD_HTTP_BAD_REQUEST,
			      a.count == -ENOMEM ? "out of memory" :
			      "q: a substring, or /re/ or /re/i (POSIX extended), 1 to 256 bytes");
	}
	a.found = found;
	a.n = a.count < max ? (uint32_t)a.count : (uint32_t)max;
	ret = answer_json(c, fill_search, &a);
	free(found);
	return ret;
}

/*
 * ---- /TOKEN/api/hist?i=N: the durations of task N's kind ------------------------------
 * Creation to resolution, of the kind's resolved tasks, as `stats` takes them:
 * its percentiles (exact, from the sorted values) and its log buckets
 * (tools/analysis.h) from the first to the last.  With &lo=&hi= (ns), the
 * tasks of the kind whose duration is in [lo, hi) instead, as api/search
 * answers (at most &max=, 1000 by default), for the page to highlight.
 */

struct hist_arg {
	const struct server *sv;
	const char *kind;
	const int64_t *d;	/* sorted */
	uint64_t n;
};

static void fill_hist(struct jw *w, void *arg)
{
	const struct hist_arg *a = arg;
	uint32_t b0 = a->n ? an_hist_bucket(a->d[0]) : 0;
	uint32_t nb = a->n ? an_hist_bucket(a->d[a->n - 1]) - b0 + 1 : 0;
	uint64_t at = 0;

	jw_lit(w, "{");
	key(w, false, "kind");
	jw_cstr(w, a->kind);
	key(w, true, "n");
	jw_u64(w, a->n);
	key(w, true, "p50");
	jw_i64(w, a->n ? an_quantile(a->d, a->n, 0.5) : 0);
	key(w, true, "p90");
	jw_i64(w, a->n ? an_quantile(a->d, a->n, 0.9) : 0);
	key(w, true, "p99");
	jw_i64(w, a->n ? an_quantile(a->d, a->n, 0.99) : 0);
	key(w, true, "max");
	jw_i64(w, a->n ? a->d[a->n - 1] : 0);
	COLUMN(w, true, "lo", nb, jw_i64(w, an_hist_low(b0 + i)));
	COLUMN(w, true, "hi", nb, jw_i64(w, an_hist_low(b0 + i + 1)));
	key(w, true, "count");
	jw_lit(w, "[");
	for (uint32_t i = 0; i < nb; i++) {
		uint64_t c = 0;

		while (at < a->n && an_hist_bucket(a->d[at]) == b0 + i)
			at++, c++;
		if (i)
			jw_lit(w, ",");
		jw_u64(w, c);
	}
	jw_lit(w, "]}");
}

static enum MHD_Result api_hist(struct server *sv, struct MHD_Connection *c)
{
	const struct rtr_model *m = sv->scene->m;
	int64_t i = -1, lo = -1, hi = -1, max = 1000;
	const char *has_lo = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "lo");
	const char *has_hi = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "hi");
	enum MHD_Result ret;
	uint32_t kind;
	uint64_t n = 0;
	int64_t *d;

	if (param(c, "i", 0, (int64_t)m->ntasks - 1, &i) || i < 0)
		return refuse(c, MHD_HTTP_BAD_REQUEST, "i: a task index");
	if (param(c, "lo", 0, INT64_MAX, &lo) || param(c, "hi", 0, INT64_MAX, &hi) ||
	    !has_lo != !has_hi || (has_lo && hi <= lo) || param(c, "max", 1, 100000, &max))
		return refuse(c, MHD_HTTP_BAD_REQUEST, "lo, hi: ns, lo < hi, both or neither; "
			      "max: 1 to 100000");
	kind = m->tasks[i].kind_name;
	d = has_lo ? malloc(((size_t)m->ntasks + 1) * sizeof(*d)) : an_kind_durations(m, kind, &n);
	if (!d)
		return refuse(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
	if (has_lo) {
		/* the tasks of the kind in [lo, hi), in search's form */
		uint32_t *found = (uint32_t *)d;	/* room for ntasks indices */
		struct search_arg a = { .sv = sv, .found = found };

		for (uint32_t t = 0; t < m->ntasks; t++) {
			int64_t dur;

			if (m->tasks[t].kind_name != kind || !an_task_duration(m, t, &dur) ||
			    dur < lo || dur >= hi)
				continue;
			if (a.count++ < max)
				found[a.n++] = t;
		}
		ret = answer_json(c, fill_search, &a);
		free(d);
		return ret;
	}
	{
		struct hist_arg a = { .sv = sv, .kind = rtr_model_str(m, kind), .d = d, .n = n };

		ret = answer_json(c, fill_hist, &a);
	}
	free(d);
	return ret;
}

/* ---- the request: method, host, token, path ------------------------------------------ */

/* @a and @b (@n bytes) are equal, in a time that does not depend on where they differ. */
static bool same(const char *a, const char *b, size_t n)
{
	unsigned char d = 0;

	for (size_t i = 0; i < n; i++)
		d |= (unsigned char)a[i] ^ (unsigned char)b[i];
	return d == 0;
}

/* On loopback, the Host a browser sends for this server, and no other (DNS rebinding). */
static bool host_ok(const struct server *sv, struct MHD_Connection *c)
{
	const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
	static const char *const names[] = { "127.0.0.1", "localhost", "[::1]" };
	char port[8];

	if (!sv->loopback)
		return true;
	if (!h)
		return false;
	snprintf(port, sizeof(port), ":%u", sv->port);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t n = strlen(names[i]);

		if (!strncmp(h, names[i], n) && (!h[n] || !strcmp(h + n, port)))
			return true;
	}
	return false;
}

static enum MHD_Result dispatch(void *cls, struct MHD_Connection *c, const char *url,
				const char *method, const char *version, const char *upload,
				size_t *upload_size, void **req)
{
	struct server *sv = cls;
	const size_t tl = 2 * TOKEN_BYTES;
	const char *path;

	(void)version;
	(void)upload;
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return refuse(c, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD");
	if (*upload_size ||
	    MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH) ||
	    MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING))
		return refuse(c, MHD_HTTP_BAD_REQUEST, "a GET has no body");
	*req = NULL;
	if (!host_ok(sv, c))
		return refuse(c, MHD_HTTP_FORBIDDEN, "not a loopback Host");
	/* "/TOKEN/..." */
	if (url[0] != '/' || strnlen(url + 1, tl + 1) < tl + 1 || url[1 + tl] != '/' ||
	    !same(url + 1, sv->token, tl))
		return refuse(c, MHD_HTTP_FORBIDDEN, "bad or missing token: use the URL the server printed");
	path = url + 2 + tl;
	if (!strcmp(path, ""))
		return answer(c, MHD_HTTP_OK, "text/html; charset=utf-8", (char *)rtr_serve_html,
			      rtr_serve_html_len, false);
	if (!strcmp(path, "serve.js"))
		return answer(c, MHD_HTTP_OK, "text/javascript; charset=utf-8", (char *)rtr_serve_js,
			      rtr_serve_js_len, false);
	if (!strcmp(path, "favicon.ico"))	/* none: asked here, not at the root */
		return answer(c, MHD_HTTP_NO_CONTENT, "image/x-icon", (char *)"", 0, false);
	if (!strcmp(path, "api/meta"))
		return answer_json(c, fill_meta, sv);
	if (!strcmp(path, "api/window"))
		return api_window(sv, c);
	if (!strcmp(path, "api/search"))
		return api_search(sv, c);
	if (!strcmp(path, "api/hist"))
		return api_hist(sv, c);
	if (!strcmp(path, "api/picture"))
		return api_picture(sv, c);
	if (!strcmp(path, "api/path")) {
		int64_t i = -1;
		struct rtr_path p;
		struct path_arg a = { .sv = sv, .p = &p };
		enum MHD_Result r;

		if (param(c, "i", 0, (int64_t)sv->scene->m->ntasks - 1, &i) || i < 0)
			return refuse(c, MHD_HTTP_BAD_REQUEST, "i: a task index");
		if (rtr_path_build(sv->scene, (uint32_t)i, &p))
			return refuse(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
		r = answer_json(c, fill_path, &a);
		rtr_path_free(&p);
		return r;
	}
	if (!strcmp(path, "api/task")) {
		int64_t i = -1;
		struct task_arg a = { .sv = sv };

		enum MHD_Result r;

		if (param(c, "i", 0, (int64_t)sv->scene->m->ntasks - 1, &i) || i < 0)
			return refuse(c, MHD_HTTP_BAD_REQUEST, "i: a task index");
		a.task = (uint32_t)i;
		if (rtr_task_links(sv->scene, a.task, TASK_LINKS_MAX, &a.links, &a.nlinks, a.more) ||
		    rtr_task_where(sv->scene, a.task, false, &a.where[0], &a.nwhere[0]) ||
		    rtr_task_where(sv->scene, a.task, true, &a.where[1], &a.nwhere[1]) ||
		    rtr_task_counters(sv->scene, a.task, TASK_LINKS_MAX, &a.changes, &a.nchanges,
				      &a.all_changes))
			r = refuse(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
		else
			r = answer_json(c, fill_task, &a);
		free(a.changes);
		free(a.links);
		free(a.where[0]);
		free(a.where[1]);
		return r;
	}
	return refuse(c, MHD_HTTP_NOT_FOUND, "no such page");
}

/* The scene is read under the lock: a followed recording's next one may be swapped in. */
static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *upload,
			      size_t *upload_size, void **req)
{
	struct server *sv = cls;
	enum MHD_Result r;

	pthread_mutex_lock(&sv->lock);
	r = dispatch(cls, c, url, method, version, upload, upload_size, req);
	pthread_mutex_unlock(&sv->lock);
	return r;
}

/* ---- the server's life ------------------------------------------------------------------ */

/* A signal among @set within @ms, or 0. */
static int signal_within(const sigset_t *set, long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000 };
	int sig = sigtimedwait(set, NULL, &ts);

	return sig > 0 ? sig : 0;
}

/*
 * One turn of following: a new scene swapped in if the recording grew.
 * Return: 0, or -1 the recording can no longer be read (said on stderr; the
 * last scene stays served).
 */
static int follow_turn(struct server *sv)
{
	struct rtr_live_scene *ls, *old;
	char err[1024];
	int r = rtr_live_poll(sv->live, &ls, err, sizeof(err));

	if (r < 0) {
		if (err[0])
			fprintf(stderr, "ringtrace view: %s\n", err);
		return -1;
	}
	if (!r)
		return 0;
	for (uint32_t i = sv->cur ? sv->cur->m.ndamage : 0; i < ls->m.ndamage; i++)
		fprintf(stderr, "ringtrace view: damaged: %s (drawn up to there)\n",
			rtr_model_str(&ls->m, ls->m.damage[i].message));
	pthread_mutex_lock(&sv->lock);
	old = sv->cur;
	sv->cur = ls;
	sv->scene = &ls->s;
	pthread_mutex_unlock(&sv->lock);
	rtr_live_scene_free(old);
	if (ls->done)
		fprintf(stderr, "ringtrace view: the recording ended: %" PRIu64 " events, %u tasks\n",
			ls->m.events, ls->m.ntasks);
	return 0;
}

/* --follow: wait for the recording's first scene.  Return: 0, or the signal that came first, or -1. */
static int first_scene(struct server *sv, const sigset_t *set)
{
	for (;;) {
		int sig;

		if (follow_turn(sv))
			return -1;
		if (sv->cur)
			return 0;
		if ((sig = signal_within(set, 200)))
			return sig;
	}
}

static void log_mhd(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	fputs("ringtrace view: http: ", stderr);
	vfprintf(stderr, fmt, ap);
}

/* On the loader's thread (view/slices.h's @ready): the slice loaded, served from now on. */
static void slice_ready(void *arg)
{
	struct server *sv = arg;
	struct rtr_live_scene *ls, *old = NULL;
	char err[1024];

	pthread_mutex_lock(&sv->lock);
	ls = rtr_slices_take(sv->sl, err, sizeof(err));
	if (ls) {
		old = sv->cur;
		sv->cur = ls;
		sv->scene = &ls->s;
	}
	pthread_mutex_unlock(&sv->lock);
	rtr_live_scene_free(old);
	if (!ls && err[0])
		fprintf(stderr, "ringtrace view: %s: a slice could not be loaded: %s\n", sv->sl->dir,
			err);
}

static int serve(struct server *sv, const char *bind, unsigned port);

int rtr_view_serve(struct rtr_scene *scene, struct rtr_live *live, const char *title,
		   const char *bind, unsigned port)
{
	struct server sv = { .scene = scene, .title = title, .live = live };

	return serve(&sv, bind, port);
}

int rtr_view_serve_big(const char *dir, uint64_t cap, const char *bind, unsigned port)
{
	struct server sv = { .title = dir };
	struct rtr_slices sl;
	char err[1024];
	sigset_t set;
	int ret;

	/* the loader's thread as the server's: SIGINT and SIGTERM for the main thread alone */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	pthread_mutex_init(&sv.lock, NULL);
	sv.sl = &sl;
	if (rtr_slices_open(&sl, dir, cap, RTR_MODEL_MARKERS | RTR_MODEL_FIELDS,
			    RTR_SCENE_SIMPLIFY_BINDS, slice_ready, &sv, &sv.cur, err, sizeof(err))) {
		fprintf(stderr, "ringtrace view: %s\n", err);
		rtr_slices_close(&sl);
		pthread_mutex_destroy(&sv.lock);
		pthread_sigmask(SIG_UNBLOCK, &set, NULL);
		return 1;
	}
	sv.scene = &sv.cur->s;
	fprintf(stderr, "ringtrace view: %s: %" PRIu64 " events, more than %" PRIu64 " (%s): the "
		"page draws its overview, and the events of a window of at most %" PRIu64 " are "
		"loaded\n", dir, sl.ov.events, cap, getenv("RINGTRACE_VIEW_MAX_EVENTS") &&
		*getenv("RINGTRACE_VIEW_MAX_EVENTS") ? "RINGTRACE_VIEW_MAX_EVENTS" :
		"what this machine's memory holds in a model", sl.slice_max);
	ret = serve(&sv, bind, port);
	rtr_slices_close(&sl);
	rtr_live_scene_free(sv.cur);
	free(sv.density);
	pthread_mutex_destroy(&sv.lock);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	return ret;
}

static int serve(struct server *sv, const char *bind, unsigned port)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in *in4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
	unsigned char rnd[TOKEN_BYTES];
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG;
	const union MHD_DaemonInfo *info;
	struct MHD_Daemon *d;
	sigset_t set;
	int sig = 0;
	bool v6;

	if (!bind)
		bind = "127.0.0.1";
	v6 = strchr(bind, ':') != NULL;
	if (v6) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)port);
		if (inet_pton(AF_INET6, bind, &in6->sin6_addr) != 1)
			goto bad_addr;
		sv->loopback = IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr);
		flags |= MHD_USE_IPv6;
	} else {
		in4->sin_family = AF_INET;
		in4->sin_port = htons((uint16_t)port);
		if (inet_pton(AF_INET, bind, &in4->sin_addr) != 1)
			goto bad_addr;
		sv->loopback = (ntohl(in4->sin_addr.s_addr) >> 24) == 127;
	}
	if (getrandom(rnd, sizeof(rnd), 0) != sizeof(rnd)) {
		fprintf(stderr, "ringtrace view: getrandom: %s\n", strerror(errno));
		return 1;
	}
	for (int i = 0; i < TOKEN_BYTES; i++)
		snprintf(sv->token + 2 * i, 3, "%02x", rnd[i]);
	/* the signals wait for this thread alone: the server's thread inherits the mask */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (!sv->sl)
		pthread_mutex_init(&sv->lock, NULL);
	if (sv->live && (sig = first_scene(sv, &set))) {
		pthread_sigmask(SIG_UNBLOCK, &set, NULL);
		if (sig < 0)
			return 1;
		fprintf(stderr, "ringtrace view: stopped (%s) before the recording had a trace\n",
			sig == SIGINT ? "SIGINT" : "SIGTERM");
		return 0;
	}
	d = MHD_start_daemon(flags, (uint16_t)port, NULL, NULL, handle, sv,
			     MHD_OPTION_EXTERNAL_LOGGER, log_mhd, NULL,
			     MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
			     MHD_OPTION_CONNECTION_LIMIT, 64u,
			     MHD_OPTION_PER_IP_CONNECTION_LIMIT, 32u,
			     MHD_OPTION_CONNECTION_TIMEOUT, 30u,
			     MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)65536,
			     MHD_OPTION_END);
	if (!d) {
		fprintf(stderr, "ringtrace view: cannot serve on %s port %u: %s\n", bind, port,
			errno ? strerror(errno) : "libmicrohttpd failed to start");
		pthread_sigmask(SIG_UNBLOCK, &set, NULL);
		if (!sv->sl) {
			rtr_live_scene_free(sv->cur);
			sv->cur = NULL;
		}
		return 1;
	}
	info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	sv->port = info ? info->port : (uint16_t)port;
	printf(v6 ? "http://[%s]:%u/%s/\n" : "http://%s:%u/%s/\n", bind, sv->port, sv->token);
	fflush(stdout);
	if (sv->sl)
		fprintf(stderr, "ringtrace view: serving the overview of %" PRIu64 " events and "
			"its slices%s; Ctrl-C stops\n", sv->sl->ov.events,
			sv->loopback ? "" : " (not on loopback: anyone who has the URL can read the trace)");
	else
		fprintf(stderr, "ringtrace view: serving %" PRIu64 " events, %u tasks in %u rows%s%s; "
			"Ctrl-C stops\n", sv->scene->m->events, sv->scene->m->ntasks,
			sv->scene->nrows, sv->live && !sv->cur->done ? ", following the recording" : "",
			sv->loopback ? "" : " (not on loopback: anyone who has the URL can read the "
			"trace)");
	if (!sv->live) {
		while (sigwait(&set, &sig) == 0 && sig != SIGINT && sig != SIGTERM)
			;
	} else {
		/* a turn every 200 ms (rtr_live_pause_ms()) until the recording ends */
		bool following = !sv->cur->done;

		for (;;) {
			sig = signal_within(&set, following ? rtr_live_pause_ms(sv->live) : 1000);
			if (sig == SIGINT || sig == SIGTERM)
				break;
			if (following && (follow_turn(sv) || sv->cur->done))
				following = false;
		}
	}
	MHD_stop_daemon(d);
	rtr_frame_free(&sv->frame);
	if (sv->sl) {
		/* the loader stopped first: no slice swapped in after what follows; the rest the caller's */
		rtr_slices_close(sv->sl);
	} else {
		rtr_live_scene_free(sv->cur);
		sv->cur = NULL;
		pthread_mutex_destroy(&sv->lock);
	}
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	fprintf(stderr, "ringtrace view: stopped (%s)\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
	return 0;
bad_addr:
	fprintf(stderr, "ringtrace view: --bind %s: not an IPv4 or IPv6 address\n", bind);
	return 2;
}
