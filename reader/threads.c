// SPDX-License-Identifier: MIT
/*
 * reader/threads.c - where each thread's time went (threads.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <ringtrace/ringtrace.h>
#include "reader/threads.h"

/* What @tt was blocked on from @at: the latest try_read of it not read by then. */
static const char *blocked_on(const struct rtr_model *m, const uint32_t *arr, uint32_t na,
			      int64_t at)
{
	/*
	 * @arr: the task's try_read and read arrows (it is their @to), in time
	 * order: the last at or before @at, found by bisection (a thread of
	 * 100,000 waits has as many runs: a scan from the end made `stats`
	 * quadratic)
	 */
	uint32_t lo = 0, hi = na;
	const struct rtr_model_arrow *a;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (m->arrows[arr[mid]].ts <= at)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return "kernel";
	a = &m->arrows[arr[lo - 1]];
	if (a->kind != RTR_ARROW_TRY_READ)
		return "kernel";	/* its latest wait before @at had ended */
	return rtr_model_str(m, m->tasks[a->from].kind_name);
}

static void add_why(struct rtr_thread_time *t, const char *kind, int64_t ns)
{
	uint32_t k;

	for (k = 0; k < t->nwhy && strcmp(t->why[k].kind, kind); k++)
		;
	if (k == t->nwhy) {
		if (t->nwhy == RTR_BLOCKED_KINDS) {
			k = RTR_BLOCKED_KINDS - 1;
			t->why[k].kind = "other";
		} else {
			t->why[t->nwhy++] = (typeof(t->why[0])){ kind, 0 };
		}
	}
	t->why[k].ns += ns;
}

int rtr_thread_spans(const struct rtr_model *m,
		     int (*fn)(const struct rtr_thread_span *sp, void *arg), void *arg)
{
	uint32_t *first = calloc((size_t)m->ntasks + 2, sizeof(*first));
	uint32_t *arr = malloc(((size_t)m->narrows + 1) * sizeof(*arr));
	int ret = 0;

	if (!first || !arr) {
		ret = -ENOMEM;
		goto out;
	}
	/* each task's try_read and read arrows, in time order (the arrows are) */
	for (uint32_t i = 0; i < m->narrows; i++)
		if (m->arrows[i].kind == RTR_ARROW_TRY_READ || m->arrows[i].kind == RTR_ARROW_READ)
			first[m->arrows[i].to + 2]++;
	for (uint32_t k = 0; k < m->ntasks; k++)
		first[k + 2] += first[k + 1];
	for (uint32_t i = 0; i < m->narrows; i++)
		if (m->arrows[i].kind == RTR_ARROW_TRY_READ || m->arrows[i].kind == RTR_ARROW_READ)
			arr[first[m->arrows[i].to + 1]++] = i;
	/* first[k] .. first[k + 1]: task k's */
	for (uint32_t k = 0; k < m->ntasks && !ret; k++) {
		const struct rtr_model_task *task = &m->tasks[k];
		const struct rtr_model_run *r = m->runs + task->run_first;
		struct rtr_thread_span sp = { .task = k };
		bool kernel = false;

		for (uint32_t j = 0; j < task->nruns && !kernel; j++)
			kernel = r[j].why != RTR_RUN_SWITCH;
		if (!kernel || task->kind != RTR_KIND_THREAD)
			continue;
		sp.tid = (task->id & RTR_MODEL_KTHREAD) ? task->id & ~RTR_MODEL_KTHREAD :
			 r[0].thread != RTR_MODEL_NONE ? m->threads[r[0].thread].tid : 0;
		for (uint32_t j = 0; j < task->nruns && !ret; j++) {
			sp.run = task->run_first + j;
			sp.start = r[j].start;
			sp.end = r[j].end;
			sp.state = RTR_THREAD_RUNNING;
			sp.on = NULL;
			ret = fn(&sp, arg);
			if (ret || j + 1 == task->nruns || r[j + 1].start <= r[j].end)
				continue;
			sp.start = r[j].end;
			sp.end = r[j + 1].start;
			if (r[j].why == RTR_RUN_PREEMPTED) {
				sp.state = RTR_THREAD_RUNNABLE;
			} else {
				sp.state = RTR_THREAD_BLOCKED;
				sp.on = blocked_on(m, arr + first[k], first[k + 1] - first[k], r[j].end);
			}
			ret = fn(&sp, arg);
		}
	}
out:
	free(first);
	free(arr);
	return ret;
}

struct times {
	struct rtr_thread_time *tt;
	uint32_t n;
};

static int add_span(const struct rtr_thread_span *sp, void *arg)
{
	struct times *ts = arg;
	struct rtr_thread_time *t = ts->n ? &ts->tt[ts->n - 1] : NULL;
	int64_t ns = sp->end - sp->start;

	if (!t || t->task != sp->task) {
		if (!(ts->n & (ts->n + 1)) || !ts->tt) {
			struct rtr_thread_time *q = realloc(ts->tt, 2 * ((size_t)ts->n + 1) *
							    sizeof(*ts->tt));

			if (!q)
				return -ENOMEM;
			ts->tt = q;
		}
		t = &ts->tt[ts->n++];
		memset(t, 0, sizeof(*t));
		t->task = sp->task;
		t->tid = sp->tid;
	}
	switch (sp->state) {
	case RTR_THREAD_RUNNING:
		t->on_cpu += ns;
		t->runs++;
		break;
	case RTR_THREAD_RUNNABLE:
		t->runnable += ns;
		break;
	case RTR_THREAD_BLOCKED:
		t->blocked += ns;
		add_why(t, sp->on, ns);
		break;
	}
	return 0;
}

int rtr_thread_times(const struct rtr_model *m, struct rtr_thread_time **out, uint32_t *n)
{
	struct times ts = { 0 };

	*out = NULL;
	*n = 0;
	if (rtr_thread_spans(m, add_span, &ts)) {
		free(ts.tt);
		return -ENOMEM;
	}
	/* what the spans do not say: how each run ended, and where */
	for (uint32_t i = 0; i < ts.n; i++) {
		struct rtr_thread_time *t = &ts.tt[i];
		const struct rtr_model_task *task = &m->tasks[t->task];
		const struct rtr_model_run *r = m->runs + task->run_first;

		for (uint32_t j = 0; j < task->nruns; j++) {
			t->preempted += r[j].why == RTR_RUN_PREEMPTED;
			t->migrations += j && m->cpus[r[j].cpu].cpu != m->cpus[r[j - 1].cpu].cpu;
		}
	}
	*out = ts.tt;
	*n = ts.n;
	return 0;
}

static bool sync_kind(uint32_t kind)
{
	return kind == RTR_KIND_MUTEX || kind == RTR_KIND_CONDITION || kind == RTR_KIND_SEMAPHORE ||
	       kind == RTR_KIND_BARRIER || kind == RTR_KIND_RWLOCK;
}

static void add_once(uint32_t *set, uint32_t *n, uint32_t v)
{
	for (uint32_t i = 0; i < *n && i < 4; i++)
		if (set[i] == v)
			return;
	if (*n < 4)
		set[*n] = v;
	(*n)++;
}

static int cmp_ns(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_total(const void *a, const void *b)
{
	const struct rtr_lock_wait *x = a, *y = b;

	return x->total > y->total ? -1 : x->total < y->total;
}

void rtr_lock_waits_free(struct rtr_lock_wait *w, uint32_t n)
{
	for (uint32_t i = 0; w && i < n; i++) {
		free(w[i].ns);
		free(w[i].hold_ns);
	}
	free(w);
}

/* The hold time the signal arrow @a ended (rtr_model.holds), or -1 if the trace has none. */
static int64_t hold_of(const struct rtr_model *m, const struct rtr_model_arrow *a)
{
	uint32_t lo = 0, hi = m->nholds;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (m->holds[mid].ts < a->ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < m->nholds && m->holds[lo].ts == a->ts; lo++)
		if (m->holds[lo].holder == a->from && m->holds[lo].lock == a->to)
			return m->holds[lo].held_ns;
	return -1;
}

/* @v appended to the growing array *@p of *@n (capacity: the next power of two). */
static int push_ns(int64_t **p, uint32_t *n, int64_t v)
{
	if (!(*n & (*n + 1)) || !*p) {
		int64_t *q = realloc(*p, 2 * ((size_t)*n + 1) * sizeof(*q));

		if (!q)
			return -ENOMEM;
		*p = q;
	}
	(*p)[(*n)++] = v;
	return 0;
}

/*
 * One pass over the arrows in time order: a try_read of an object opens a
 * wait of its reader (the latest one counts), the reader's read of it ends
 * it, and @fn is called with the object, the reader, the wait's start and
 * end, and the latest signal to the object before that end (the arrow's
 * index, RTR_MODEL_NONE if none): who released it.  Return: 0, -ENOMEM,
 * or what @fn returned if not 0.
 */
static int each_wait(const struct rtr_model *m,
		     int (*fn)(void *ctx, uint32_t obj, uint32_t reader, int64_t t0, int64_t t1,
			       uint32_t sig),
		     void *ctx)
{
	uint32_t *last_sig = malloc(((size_t)m->ntasks + 1) * sizeof(*last_sig));
	/* pending waits: (reader, object) -> try_read time, in a small open table */
	struct pend { uint32_t reader, obj; int64_t ts; } *pend = NULL;
	uint32_t pmask = 1023, npend = 0;
	int ret = -ENOMEM;

	pend = calloc((size_t)pmask + 1, sizeof(*pend));
	if (!last_sig || !pend)
		goto out;
	for (uint32_t i = 0; i < m->ntasks; i++)
		last_sig[i] = RTR_MODEL_NONE;
	for (uint32_t i = 0; i <= pmask; i++)
		pend[i].reader = RTR_MODEL_NONE;
	for (uint32_t i = 0; i < m->narrows; i++) {
		const struct rtr_model_arrow *a = &m->arrows[i];
		uint32_t obj = a->kind == RTR_ARROW_SIGNAL ? a->to : a->from, h;
		int64_t t0;

		if (obj >= m->ntasks || !sync_kind(m->tasks[obj].kind))
			continue;
		if (a->kind == RTR_ARROW_SIGNAL) {
			last_sig[obj] = i;
			continue;
		}
		if (a->kind != RTR_ARROW_TRY_READ && a->kind != RTR_ARROW_READ)
			continue;
		h = (a->to * 2654435761u ^ obj * 40503u) & pmask;
		while (pend[h].reader != RTR_MODEL_NONE &&
		       (pend[h].reader != a->to || pend[h].obj != obj))
			h = (h + 1) & pmask;
		if (a->kind == RTR_ARROW_TRY_READ) {
			if (pend[h].reader == RTR_MODEL_NONE) {
				if (2 * (npend + 1) > pmask + 1)
					continue;	/* more pending waits than any program has: skip */
				npend++;
			}
			pend[h] = (struct pend){ a->to, obj, a->ts };
			continue;
		}
		if (pend[h].reader == RTR_MODEL_NONE)
			continue;	/* a read that never waited */
		t0 = pend[h].ts;
		/* the slot is free again: re-insert the rest of its cluster */
		pend[h].reader = RTR_MODEL_NONE;
		npend--;
		for (uint32_t j = (h + 1) & pmask; pend[j].reader != RTR_MODEL_NONE;
		     j = (j + 1) & pmask) {
			struct pend p = pend[j];
			uint32_t k = (p.reader * 2654435761u ^ p.obj * 40503u) & pmask;

			pend[j].reader = RTR_MODEL_NONE;
			while (pend[k].reader != RTR_MODEL_NONE)
				k = (k + 1) & pmask;
			pend[k] = p;
		}
		if ((ret = fn(ctx, obj, a->to, t0, a->ts, last_sig[obj])))
			goto out;
	}
	ret = 0;
out:
	free(last_sig);
	free(pend);
	return ret;
}

struct waits_ctx {
	const struct rtr_model *m;
	uint32_t *slot;		/* per object: its rtr_lock_wait, or NONE */
	uint8_t *hold_used;	/* per arrow: its hold counted */
	struct rtr_lock_wait *w;
	uint32_t nw, cap;
};

static int add_wait(void *ctx, uint32_t obj, uint32_t reader, int64_t t0, int64_t t1,
		    uint32_t sig)
{
	struct waits_ctx *c = ctx;
	const struct rtr_model *m = c->m;
	const struct rtr_model_arrow *s = sig == RTR_MODEL_NONE ? NULL : &m->arrows[sig];
	struct rtr_lock_wait *lw;
	int64_t d = t1 - t0, held;

	if (c->slot[obj] == RTR_MODEL_NONE) {
		if (c->nw == c->cap) {
			uint32_t cap = c->cap ? 2 * c->cap : 16;
			struct rtr_lock_wait *q = realloc(c->w, (size_t)cap * sizeof(*q));

			if (!q)
				return -ENOMEM;
			c->w = q;
			c->cap = cap;
		}
		c->slot[obj] = c->nw;
		memset(&c->w[c->nw], 0, sizeof(c->w[c->nw]));
		c->w[c->nw++].task = obj;
	}
	lw = &c->w[c->slot[obj]];
	if (push_ns(&lw->ns, &lw->waits, d < 0 ? 0 : d))
		return -ENOMEM;
	lw->total += d < 0 ? 0 : d;
	add_once(lw->waiter, &lw->waiters, reader);
	if (s && s->from != reader) {
		add_once(lw->releaser, &lw->releasers, s->from);
		if (!c->hold_used[sig] && (held = hold_of(m, s)) >= 0) {
			c->hold_used[sig] = 1;
			if (push_ns(&lw->hold_ns, &lw->holds, held))
				return -ENOMEM;
		}
	}
	return 0;
}

int rtr_lock_waits(const struct rtr_model *m, struct rtr_lock_wait **out, uint32_t *n)
{
	struct waits_ctx c = { .m = m };
	int ret = -ENOMEM;

	*out = NULL;
	*n = 0;
	c.slot = malloc(((size_t)m->ntasks + 1) * sizeof(*c.slot));
	c.hold_used = calloc((size_t)m->narrows + 1, 1);
	if (c.slot && c.hold_used) {
		for (uint32_t i = 0; i < m->ntasks; i++)
			c.slot[i] = RTR_MODEL_NONE;
		ret = each_wait(m, add_wait, &c);
	}
	free(c.slot);
	free(c.hold_used);
	if (ret) {
		rtr_lock_waits_free(c.w, c.nw);
		return ret;
	}
	for (uint32_t i = 0; i < c.nw; i++) {
		qsort(c.w[i].ns, c.w[i].waits, sizeof(*c.w[i].ns), cmp_ns);
		if (c.w[i].holds)
			qsort(c.w[i].hold_ns, c.w[i].holds, sizeof(*c.w[i].hold_ns), cmp_ns);
	}
	qsort(c.w, c.nw, sizeof(*c.w), cmp_total);
	*out = c.w;
	*n = c.nw;
	return 0;
}

struct holds_ctx {
	const struct rtr_model *m;
	uint32_t *out_of;	/* per arrow: its rtr_lock_hold + 1, 0 if none yet */
	int64_t *prev_release;	/* per object: the release before the latest one */
	uint32_t *latest;	/* per object: the latest release seen (an arrow), or NONE */
	struct rtr_lock_hold *h;
	uint32_t n, cap;
};

static int add_hold(void *ctx, uint32_t obj, uint32_t reader, int64_t t0, int64_t t1,
		    uint32_t sig)
{
	struct holds_ctx *c = ctx;
	const struct rtr_model *m = c->m;
	const struct rtr_model_arrow *s;
	struct rtr_lock_hold *h;
	int64_t held, from;

	(void)t1;
	if (sig == RTR_MODEL_NONE || (s = &m->arrows[sig])->from == reader)
		return 0;
	if (c->latest[obj] != sig) {
		/* a new release of @obj: the one before it bounds this hold's start */
		if (c->latest[obj] != RTR_MODEL_NONE)
			c->prev_release[obj] = m->arrows[c->latest[obj]].ts;
		c->latest[obj] = sig;
	}
	from = t0 > c->prev_release[obj] ? t0 : c->prev_release[obj];
	if (c->out_of[sig]) {
		h = &c->h[c->out_of[sig] - 1];
		if (!h->exact && from < h->start)
			h->start = from;	/* an earlier waiter saw it held sooner */
		h->waits++;
		return 0;
	}
	if (c->n == c->cap) {
		uint32_t cap = c->cap ? 2 * c->cap : 64;
		struct rtr_lock_hold *q = realloc(c->h, (size_t)cap * sizeof(*q));

		if (!q)
			return -ENOMEM;
		c->h = q;
		c->cap = cap;
	}
	h = &c->h[c->n++];
	held = hold_of(m, s);
	*h = (struct rtr_lock_hold){ .lock = obj, .holder = s->from, .end = s->ts,
				     .start = held >= 0 ? s->ts - held : from, .exact = held >= 0,
				     .waits = 1 };
	c->out_of[sig] = c->n;
	return 0;
}

static int cmp_hold_start(const void *a, const void *b)
{
	const struct rtr_lock_hold *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

int rtr_lock_holds(const struct rtr_model *m, struct rtr_lock_hold **out, uint32_t *n)
{
	struct holds_ctx c = { .m = m };
	int ret = -ENOMEM;

	*out = NULL;
	*n = 0;
	c.out_of = calloc((size_t)m->narrows + 1, sizeof(*c.out_of));
	c.prev_release = malloc(((size_t)m->ntasks + 1) * sizeof(*c.prev_release));
	c.latest = malloc(((size_t)m->ntasks + 1) * sizeof(*c.latest));
	if (c.out_of && c.prev_release && c.latest) {
		for (uint32_t i = 0; i < m->ntasks; i++) {
			c.prev_release[i] = INT64_MIN;
			c.latest[i] = RTR_MODEL_NONE;
		}
		ret = each_wait(m, add_hold, &c);
	}
	free(c.out_of);
	free(c.prev_release);
	free(c.latest);
	if (ret) {
		free(c.h);
		return ret;
	}
	if (c.n > 1)
		qsort(c.h, c.n, sizeof(*c.h), cmp_hold_start);
	*out = c.h;
	*n = c.n;
	return 0;
}
