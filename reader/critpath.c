// SPDX-License-Identifier: MIT
/*
 * reader/critpath.c - a task's critical path, walked back from its end over
 * the task model (critpath.h has the rules, Documentation/analysis.rst the
 * why).  Each list is built backwards, as a tree of small vectors, then
 * laid out flat (critpath.h, "Layout").
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <ringtrace/ringtrace.h>
#include "reader/critpath.h"

#define STACK_MAX	64	/* tasks being explained at once (depth and becomes chains) */
#define SCAN_MAX	256	/* arrows looked back at for the waits in force at one time */
#define MATCH_MAX	4096	/* arrows looked forward at for the read that ends a wait */

struct node;

struct list {
	struct node *v;
	uint32_t n, cap;
};

struct node {
	struct rtr_cp_seg s;
	struct list kids;
};

struct ctx {
	const struct rtr_model *m;
	const struct rtr_cp_index *ix;
	uint32_t stack[STACK_MAX];
	uint32_t nstack;
	uint32_t nsegs;
	bool truncated;
	bool nomem;
};

const char *rtr_cp_what_str(uint32_t what)
{
	static const char *const s[] = {
		[RTR_CP_RUNNING] = "running",
		[RTR_CP_RUNNABLE] = "runnable",
		[RTR_CP_WAIT_TASK] = "waiting for task",
		[RTR_CP_WAIT_LOCK] = "waiting for lock",
		[RTR_CP_RESOLVER] = "waiting for resolver",
		[RTR_CP_CREATOR] = "not yet created",
		[RTR_CP_NOT_RUNNING] = "not running",
	};

	return what < sizeof(s) / sizeof(s[0]) ? s[what] : "?";
}

/*
 * Each task's becomes chain's end into @last, in time linear in the tasks:
 * one walk per chain, its tasks given the end found (@path holds the walk;
 * a cycle, which only a hostile trace makes, ends where it closes).
 */
static void chain_ends(const struct rtr_model *m, uint32_t *last, uint32_t *path)
{
	const uint32_t unknown = RTR_MODEL_NONE, visiting = RTR_MODEL_NONE - 1;

	for (uint32_t i = 0; i < m->ntasks; i++)
		last[i] = unknown;
	for (uint32_t i = 0; i < m->ntasks; i++) {
		uint32_t n = 0, t = i, end;

		while (last[t] == unknown) {
			uint32_t b = m->tasks[t].becomes;

			last[t] = visiting;
			path[n++] = t;
			if (b >= m->ntasks)
				break;
			t = b;
		}
		if (last[t] == visiting)
			end = t;	/* the walk's own end, or where a cycle closed */
		else
			end = last[t];
		while (n)
			last[path[--n]] = end;
	}
}

int rtr_cp_index_build(const struct rtr_model *m, struct rtr_cp_index *ix)
{
	uint32_t *fill;

	ix->first = calloc((size_t)m->ntasks + 1, sizeof(*ix->first));
	ix->arrows = malloc(((size_t)m->narrows + 1) * sizeof(*ix->arrows));
	ix->last = malloc(((size_t)m->ntasks + 1) * sizeof(*ix->last));
	ix->tr_first = calloc((size_t)m->ntasks + 1, sizeof(*ix->tr_first));
	fill = calloc((size_t)m->ntasks + 1, sizeof(*fill));
	if (!ix->first || !ix->arrows || !ix->last || !ix->tr_first || !fill) {
		free(fill);
		rtr_cp_index_free(ix);
		return -ENOMEM;
	}
	/* (fill is the walk's path first, then the arrows' counters) */
	chain_ends(m, ix->last, fill);
	memset(fill, 0, ((size_t)m->ntasks + 1) * sizeof(*fill));
	for (uint32_t i = 0; i < m->narrows; i++)
		if (m->arrows[i].to < m->ntasks) {
			ix->first[m->arrows[i].to + 1]++;
			ix->tr_first[m->arrows[i].to + 1] += m->arrows[i].kind == RTR_ARROW_TRY_READ;
		}
	for (uint32_t t = 0; t < m->ntasks; t++) {
		ix->first[t + 1] += ix->first[t];
		ix->tr_first[t + 1] += ix->tr_first[t];
	}
	ix->tr = malloc(((size_t)ix->tr_first[m->ntasks] + 1) * sizeof(*ix->tr));
	if (!ix->tr) {
		free(fill);
		rtr_cp_index_free(ix);
		return -ENOMEM;
	}
	/* the arrows are sorted by time: each task's list is too */
	for (uint32_t i = 0; i < m->narrows; i++) {
		uint32_t to = m->arrows[i].to;

		if (to < m->ntasks)
			ix->arrows[ix->first[to] + fill[to]++] = i;
	}
	memset(fill, 0, ((size_t)m->ntasks + 1) * sizeof(*fill));
	for (uint32_t i = 0; i < m->narrows; i++) {
		uint32_t to = m->arrows[i].to;

		if (to < m->ntasks && m->arrows[i].kind == RTR_ARROW_TRY_READ)
			ix->tr[ix->tr_first[to] + fill[to]++] = i;
	}
	free(fill);
	return 0;
}

void rtr_cp_index_free(struct rtr_cp_index *ix)
{
	free(ix->first);
	free(ix->arrows);
	free(ix->last);
	free(ix->tr_first);
	free(ix->tr);
	ix->first = ix->arrows = ix->last = ix->tr_first = ix->tr = NULL;
}

int64_t rtr_cp_end(const struct rtr_model *m, const struct rtr_cp_index *ix, uint32_t task,
		   bool *resolved)
{
	const struct rtr_model_task *t = &m->tasks[task];
	const struct rtr_model_task *l = &m->tasks[ix->last[task]];
	bool r = true;
	int64_t end;

	if (t->flags & RTR_TASK_RESOLVED)
		end = t->resolved;
	else if ((t->flags & RTR_TASK_BECAME) && (l->flags & RTR_TASK_RESOLVED))
		end = l->resolved;
	else
		end = t->end, r = false;
	if (end < t->created)
		end = t->created;
	if (resolved)
		*resolved = r;
	return end;
}

/* ---- lookups ------------------------------------------------------------------------ */

/* Index in m->runs of @x's last run starting before @cur, or RTR_MODEL_NONE. */
static uint32_t run_before(const struct rtr_model *m, uint32_t x, int64_t cur)
{
	const struct rtr_model_task *t = &m->tasks[x];
	uint32_t lo = 0, hi = t->nruns;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (m->runs[t->run_first + mid].start < cur)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? t->run_first + lo - 1 : RTR_MODEL_NONE;
}

/* Index in m->runs of @x's first run starting at or after @ts, or RTR_MODEL_NONE. */
static uint32_t run_from(const struct rtr_model *m, uint32_t x, int64_t ts)
{
	uint32_t r = run_before(m, x, ts);
	const struct rtr_model_task *t = &m->tasks[x];
	uint32_t next = r == RTR_MODEL_NONE ? t->run_first : r + 1;

	return next < t->run_first + t->nruns ? next : RTR_MODEL_NONE;
}

/* Position in @list[@lo .. @hi) (arrow indices, in time order) of the first arrow at or after @ts. */
static uint32_t pos_in(const struct ctx *c, const uint32_t *list, uint32_t lo, uint32_t hi,
		       int64_t ts)
{
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (c->m->arrows[list[mid]].ts < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* ... in @x's list of the arrows that point at it; in its list of try_reads. */
static uint32_t arrow_pos(const struct ctx *c, uint32_t x, int64_t ts)
{
	return pos_in(c, c->ix->arrows, c->ix->first[x], c->ix->first[x + 1], ts);
}

static uint32_t tr_pos(const struct ctx *c, uint32_t x, int64_t ts)
{
	return pos_in(c, c->ix->tr, c->ix->tr_first[x], c->ix->tr_first[x + 1], ts);
}

/* The latest arrow of @kind to @x with @lo <= ts <= @hi, or NULL. */
static const struct rtr_model_arrow *latest_to(const struct ctx *c, uint32_t x, uint8_t kind,
					      int64_t lo, int64_t hi)
{
	uint32_t p = arrow_pos(c, x, hi == INT64_MAX ? hi : hi + 1);

	for (uint32_t n = 0; p > c->ix->first[x] && n < SCAN_MAX; n++) {
		const struct rtr_model_arrow *a = &c->m->arrows[c->ix->arrows[--p]];

		if (a->ts < lo)
			break;
		if (a->kind == kind)
			return a;
	}
	return NULL;
}

static bool is_lock(const struct rtr_model_task *t)
{
	return t->kind == RTR_KIND_MUTEX || t->kind == RTR_KIND_RWLOCK ||
	       t->kind == RTR_KIND_SEMAPHORE;
}

/* A task that is signalled, not resolved: its own path says nothing of a wait for it. */
static bool is_signalled(const struct rtr_model_task *t)
{
	return is_lock(t) || t->kind == RTR_KIND_CONDITION || t->kind == RTR_KIND_BARRIER;
}

/*
 * When the wait that @a (a try_read by @x) began ends: the read of the same
 * input (or of its becomes chain's end), else the start of @x's next run
 * (it gave up), else @x's end (it never stopped waiting).
 */
static int64_t wait_end(const struct ctx *c, uint32_t x, const struct rtr_model_arrow *a)
{
	const struct rtr_model *m = c->m;
	uint32_t want = c->ix->last[a->from];
	uint32_t r = run_from(m, x, a->ts);
	/* the read follows the switch back in (the pthread wrapper): look to that run's end */
	int64_t limit = r == RTR_MODEL_NONE ? INT64_MAX : m->runs[r].end;
	uint32_t p = arrow_pos(c, x, a->ts);

	for (uint32_t n = 0; p < c->ix->first[x + 1] && n < MATCH_MAX; p++, n++) {
		const struct rtr_model_arrow *b = &m->arrows[c->ix->arrows[p]];

		if (b->ts > limit)
			break;
		if (b->kind == RTR_ARROW_READ && (b->from == a->from ||
						  (b->from < m->ntasks && c->ix->last[b->from] == want)))
			return b->ts;
	}
	return r != RTR_MODEL_NONE ? m->runs[r].start : INT64_MAX;
}

/*
 * A wait's wake-up, before @cur: the resolution of its input's chain end
 * (*@resolved), or the latest signal to the input, to that end, or to
 * the waiter @x since @w0.  Return: its time, or INT64_MIN if none.
 */
static int64_t wake_of(const struct ctx *c, uint32_t x, uint32_t y, int64_t w0, int64_t cur,
		       uint32_t *by, bool *resolved)
{
	const struct rtr_model *m = c->m;
	uint32_t l = c->ix->last[y];
	const struct rtr_model_task *lt = &m->tasks[l];
	const struct rtr_model_arrow *best = NULL;
	uint32_t cand[3] = { y, l, x };

	*by = RTR_MODEL_NONE;
	*resolved = false;
	if ((lt->flags & RTR_TASK_RESOLVED) && lt->resolved <= cur) {
		const struct rtr_model_arrow *r = latest_to(c, l, RTR_ARROW_RESOLVE, INT64_MIN,
							    lt->resolved);

		*by = r ? r->from : RTR_MODEL_NONE;
		*resolved = true;
		return lt->resolved > w0 ? lt->resolved : w0;
	}
	for (int i = 0; i < 3; i++) {
		const struct rtr_model_arrow *a = latest_to(c, cand[i], RTR_ARROW_SIGNAL, w0, cur);

		if (a && (!best || a->ts > best->ts))
			best = a;
	}
	if (!best)
		return INT64_MIN;
	*by = best->from;
	return best->ts;
}

/* ---- the walk ----------------------------------------------------------------------- */

static struct node *push(struct ctx *c, struct list *l, struct rtr_cp_seg s)
{
	/* a segment continuing the one after it (built backwards): one segment */
	if (l->n) {
		struct node *p = &l->v[l->n - 1];

		if (!p->kids.n && p->s.what == s.what && p->s.task == s.task &&
		    p->s.other == s.other && p->s.by == s.by && p->s.cpu == s.cpu &&
		    p->s.start == s.end && s.what != RTR_CP_WAIT_TASK &&
		    s.what != RTR_CP_WAIT_LOCK && s.what != RTR_CP_RESOLVER &&
		    s.what != RTR_CP_CREATOR) {
			p->s.start = s.start;
			return p;
		}
	}
	if (l->n == l->cap) {
		uint32_t cap = l->cap ? l->cap * 2 : 8;
		struct node *v = realloc(l->v, cap * sizeof(*v));

		if (!v) {
			c->nomem = true;
			return NULL;
		}
		l->v = v;
		l->cap = cap;
	}
	c->nsegs++;
	l->v[l->n] = (struct node){ .s = s };
	return &l->v[l->n++];
}

static bool on_stack(const struct ctx *c, uint32_t x)
{
	for (uint32_t i = 0; i < c->nstack; i++)
		if (c->stack[i] == x)
			return true;
	return false;
}

static void explain(struct ctx *c, uint32_t x, int64_t lo, int64_t hi, uint32_t depth,
		    struct list *out);

/* @s pushed, its children @who's path over it (when depth, cycles and the budget allow). */
static void push_explained(struct ctx *c, struct list *out, struct rtr_cp_seg s, uint32_t who,
			   uint32_t depth)
{
	struct list kids = { 0 };
	struct node *n;

	if (who < c->m->ntasks && depth + 1 < RTR_CP_DEPTH && !on_stack(c, who) &&
	    c->nstack < STACK_MAX) {
		if (c->nsegs >= RTR_CP_SEGS_MAX)
			c->truncated = true;
		else
			explain(c, who, s.start, s.end, depth + 1, &kids);
	}
	n = push(c, out, s);
	if (!n) {
		free(kids.v);
		return;
	}
	n->kids = kids;
}

static struct rtr_cp_seg seg(int64_t start, int64_t end, uint32_t what, uint32_t task)
{
	return (struct rtr_cp_seg){ .start = start, .end = end, .what = what, .task = task,
				    .other = RTR_MODEL_NONE, .by = RTR_MODEL_NONE,
				    .cpu = RTR_MODEL_NONE, .lost_by = RTR_MODEL_NONE };
}

/*
 * The wait of @x in force at @cur whose wake-up is latest (the one that held
 * it up), if any: its try_read arrow, and the wait's start in *@w0.
 */
static const struct rtr_model_arrow *wait_at(const struct ctx *c, uint32_t x, int64_t cur,
					     int64_t floor)
{
	const struct rtr_model *m = c->m;
	const struct rtr_model_arrow *best = NULL;
	int64_t best_wake = INT64_MIN;
	uint32_t p = tr_pos(c, x, cur);

	for (uint32_t n = 0; p > c->ix->tr_first[x] && n < SCAN_MAX; n++) {
		const struct rtr_model_arrow *a = &m->arrows[c->ix->tr[--p]];
		uint32_t by;
		bool res;
		int64_t wk;

		if (a->ts < floor)
			break;
		if (a->from >= m->ntasks)
			continue;
		if (wait_end(c, x, a) < cur)
			continue;
		wk = wake_of(c, x, a->from, a->ts, cur, &by, &res);
		if (!best || wk > best_wake) {
			best = a;
			best_wake = wk;
		}
	}
	return best;
}

/*
 * The end of @x's latest wait that ended before @cur: where a stretch of
 * "not running, waiting for nothing" begins.  A wait that began before the
 * interval explained (it began under another name, before a becomes) counts
 * too: the SCAN_MAX latest try_reads are looked at.  INT64_MIN if none.
 */
static int64_t last_wait_end(const struct ctx *c, uint32_t x, int64_t cur)
{
	const struct rtr_model *m = c->m;
	uint32_t p = tr_pos(c, x, cur);
	int64_t best = INT64_MIN;

	for (uint32_t n = 0; p > c->ix->tr_first[x] && n < SCAN_MAX; n++) {
		const struct rtr_model_arrow *a = &m->arrows[c->ix->tr[--p]];
		int64_t e;

		if (a->from >= m->ntasks)
			continue;
		e = wait_end(c, x, a);
		if (e < cur && e > best)
			best = e;
	}
	return best;
}

/* Appends (backwards) the segments of @x over [@lo, @hi] to @out. */
static void explain(struct ctx *c, uint32_t x, int64_t lo, int64_t hi, uint32_t depth,
		    struct list *out)
{
	const struct rtr_model *m = c->m;
	const struct rtr_model_task *t = &m->tasks[x];
	int64_t cur = hi;

	c->stack[c->nstack++] = x;
	while (cur > lo && !c->nomem) {
		uint32_t r;
		int64_t prev_start = INT64_MIN, pe = INT64_MIN, g;

		if (c->nsegs >= RTR_CP_SEGS_MAX) {
			/* the budget is spent: the rest in one segment, said to be truncated */
			c->truncated = true;
			push(c, out, seg(lo, cur, RTR_CP_NOT_RUNNING, x));
			break;
		}
		/* it had become another task: that task's path, inline */
		if (t->becomes != RTR_MODEL_NONE && t->becomes < m->ntasks && t->becomes_ts < cur) {
			int64_t b = t->becomes_ts > lo ? t->becomes_ts : lo;

			if (!on_stack(c, t->becomes) && c->nstack < STACK_MAX)
				explain(c, t->becomes, b, cur, depth, out);
			else
				push(c, out, seg(b, cur, RTR_CP_NOT_RUNNING, x));
			cur = b;
			continue;
		}
		/* not yet created: its creator's doing */
		if (cur <= t->created) {
			struct rtr_cp_seg s = seg(lo, cur, RTR_CP_CREATOR, x);

			s.other = t->parent;
			push_explained(c, out, s, t->parent, depth);
			break;
		}
		/* running */
		r = run_before(m, x, cur);
		if (r != RTR_MODEL_NONE) {
			const struct rtr_model_run *run = &m->runs[r];

			if (run->end >= cur) {
				struct rtr_cp_seg s = seg(run->start > lo ? run->start : lo, cur,
							  RTR_CP_RUNNING, x);

				s.cpu = run->cpu;
				push(c, out, s);
				cur = s.start;
				continue;
			}
			prev_start = run->start;
			pe = run->end;
		}
		/* waiting for an input */
		const struct rtr_model_arrow *w = wait_at(c, x, cur, prev_start);

		if (w) {
			uint32_t y = w->from, by;
			bool res;
			int64_t a = w->ts > lo ? w->ts : lo;
			int64_t wk = wake_of(c, x, y, w->ts, cur, &by, &res);

			if (wk != INT64_MIN && wk < cur) {
				struct rtr_cp_seg s = seg(wk > a ? wk : a, cur, RTR_CP_RUNNABLE, x);

				s.other = y;
				s.by = by;
				push(c, out, s);
				cur = s.start;
			}
			if (cur > a) {
				struct rtr_cp_seg s = seg(a, cur, is_lock(&m->tasks[y]) ?
							  RTR_CP_WAIT_LOCK : RTR_CP_WAIT_TASK, x);
				uint32_t who = RTR_MODEL_NONE;

				s.other = y;
				s.by = by;
				if (wk != INT64_MIN) {
					who = s.what == RTR_CP_WAIT_TASK && res ? y : by;
				} else {
					/* nothing woke it: the input's own path, or a wake-up sent too early */
					const struct rtr_model_arrow *e =
						latest_to(c, c->ix->last[y], RTR_ARROW_SIGNAL,
							  INT64_MIN, w->ts);

					if (!e)
						e = latest_to(c, y, RTR_ARROW_SIGNAL, INT64_MIN, w->ts);
					if (e) {
						s.lost_by = e->from;
						s.lost_ts = e->ts;
					}
					if (!is_signalled(&m->tasks[y]))
						who = y;
				}
				push_explained(c, out, s, who, depth);
				cur = a;
			}
			continue;
		}
		/* not running, waiting for nothing: since when */
		g = lo;
		if (t->created > g)
			g = t->created;
		if (pe > g)
			g = pe;
		int64_t we = last_wait_end(c, x, cur);

		if (we > g)
			g = we;
		/* resolved later by another task: the resolver's doing */
		if ((t->flags & RTR_TASK_RESOLVED) && t->resolved >= cur) {
			const struct rtr_model_arrow *ra = latest_to(c, x, RTR_ARROW_RESOLVE,
								     INT64_MIN, t->resolved);

			if (ra && ra->from != x && ra->from < m->ntasks) {
				struct rtr_cp_seg s = seg(g, cur, RTR_CP_RESOLVER, x);

				s.other = ra->from;
				push_explained(c, out, s, ra->from, depth);
				cur = g;
				continue;
			}
		}
		push(c, out, seg(g, cur, RTR_CP_NOT_RUNNING, x));
		cur = g;
	}
	c->nstack--;
}

/* ---- laying the tree out flat ------------------------------------------------------- */

static uint32_t count(const struct list *l)
{
	uint32_t n = l->n;

	for (uint32_t i = 0; i < l->n; i++)
		n += count(&l->v[i].kids);
	return n;
}

/* @l (backwards) into segs[at ..] in time order; its children after *@next. */
static void lay_out(struct list *l, struct rtr_cp_seg *segs, uint32_t at, uint32_t *next)
{
	for (uint32_t i = 0; i < l->n; i++) {
		struct node *n = &l->v[l->n - 1 - i];

		segs[at + i] = n->s;
	}
	for (uint32_t i = 0; i < l->n; i++) {
		struct node *n = &l->v[l->n - 1 - i];
		struct rtr_cp_seg *s = &segs[at + i];

		s->nchildren = n->kids.n;
		s->child_first = n->kids.n ? *next : 0;
		*next += n->kids.n;
		if (n->kids.n)
			lay_out(&n->kids, segs, s->child_first, next);
	}
}

static void list_free(struct list *l)
{
	for (uint32_t i = 0; i < l->n; i++)
		list_free(&l->v[i].kids);
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

int rtr_critpath(const struct rtr_model *m, const struct rtr_cp_index *ix, uint32_t task,
		 struct rtr_critpath *out)
{
	struct ctx c = { .m = m, .ix = ix };
	struct list top = { 0 };
	uint32_t n, next;

	memset(out, 0, sizeof(*out));
	if (task >= m->ntasks)
		return -EINVAL;
	out->task = task;
	out->start = m->tasks[task].created;
	out->end = rtr_cp_end(m, ix, task, &out->resolved);
	explain(&c, task, out->start, out->end, 0, &top);
	if (c.nomem) {
		list_free(&top);
		return -ENOMEM;
	}
	n = count(&top);
	out->segs = malloc(((size_t)n + 1) * sizeof(*out->segs));
	if (!out->segs) {
		list_free(&top);
		return -ENOMEM;
	}
	next = top.n;
	lay_out(&top, out->segs, 0, &next);
	out->nsegs = n;
	out->ntop = top.n;
	out->truncated = c.truncated;
	list_free(&top);
	return 0;
}

void rtr_critpath_free(struct rtr_critpath *cp)
{
	free(cp->segs);
	cp->segs = NULL;
	cp->nsegs = cp->ntop = 0;
}
