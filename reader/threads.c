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
	/* @arr: the task's try_read and read arrows (it is their @to), in time order */
	for (uint32_t j = na; j-- > 0;) {
		const struct rtr_model_arrow *a = &m->arrows[arr[j]];

		if (a->ts > at)
			continue;
		if (a->kind != RTR_ARROW_TRY_READ)
			return "kernel";	/* its latest wait before @at had ended */
		return rtr_model_str(m, m->tasks[a->from].kind_name);
	}
	return "kernel";
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

int rtr_thread_times(const struct rtr_model *m, struct rtr_thread_time **out, uint32_t *n)
{
	uint32_t *first = calloc((size_t)m->ntasks + 2, sizeof(*first));
	uint32_t *arr = malloc(((size_t)m->narrows + 1) * sizeof(*arr));
	struct rtr_thread_time *tt = NULL;
	uint32_t nt = 0;

	*out = NULL;
	*n = 0;
	if (!first || !arr)
		goto nomem;
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
	for (uint32_t k = 0; k < m->ntasks; k++) {
		const struct rtr_model_task *task = &m->tasks[k];
		const struct rtr_model_run *r = m->runs + task->run_first;
		struct rtr_thread_time *t;
		bool kernel = false;

		for (uint32_t j = 0; j < task->nruns && !kernel; j++)
			kernel = r[j].why != RTR_RUN_SWITCH;
		if (!kernel || task->kind != RTR_KIND_THREAD)
			continue;
		if (!(nt & (nt + 1)) || !tt) {
			struct rtr_thread_time *q = realloc(tt, 2 * ((size_t)nt + 1) * sizeof(*tt));

			if (!q)
				goto nomem;
			tt = q;
		}
		t = &tt[nt++];
		memset(t, 0, sizeof(*t));
		t->task = k;
		t->tid = (task->id & RTR_MODEL_KTHREAD) ? task->id & ~RTR_MODEL_KTHREAD :
			 r[0].thread != RTR_MODEL_NONE ? m->threads[r[0].thread].tid : 0;
		for (uint32_t j = 0; j < task->nruns; j++) {
			int64_t gap;

			t->on_cpu += r[j].end - r[j].start;
			t->runs++;
			if (j && m->cpus[r[j].cpu].cpu != m->cpus[r[j - 1].cpu].cpu)
				t->migrations++;
			if (j + 1 == task->nruns)
				break;
			gap = r[j + 1].start - r[j].end;
			if (gap < 0)
				gap = 0;
			if (r[j].why == RTR_RUN_PREEMPTED) {
				t->preempted++;
				t->runnable += gap;
			} else {
				t->blocked += gap;
				add_why(t, blocked_on(m, arr + first[k], first[k + 1] - first[k],
						      r[j].end), gap);
			}
		}
		if (task->nruns && r[task->nruns - 1].why == RTR_RUN_PREEMPTED)
			t->preempted++;
	}
	free(first);
	free(arr);
	*out = tt;
	*n = nt;
	return 0;
nomem:
	free(first);
	free(arr);
	free(tt);
	return -ENOMEM;
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
 * it; the latest signal to the object names who released it, and how long
 * it had held it where the trace says (each release's hold counted once).
 */
int rtr_lock_waits(const struct rtr_model *m, struct rtr_lock_wait **out, uint32_t *n)
{
	uint32_t *slot = malloc(((size_t)m->ntasks + 1) * sizeof(*slot));
	uint32_t *last_sig = malloc(((size_t)m->ntasks + 1) * sizeof(*last_sig));
	uint8_t *hold_used = calloc((size_t)m->narrows + 1, 1);
	struct rtr_lock_wait *w = NULL;
	uint32_t nw = 0, cap = 0;
	/* pending waits: (reader, object) -> try_read time, in a small open table */
	struct pend { uint32_t reader, obj; int64_t ts; } *pend = NULL;
	uint32_t pmask = 1023, npend = 0;

	*out = NULL;
	*n = 0;
	pend = calloc((size_t)pmask + 1, sizeof(*pend));
	if (!slot || !last_sig || !pend || !hold_used)
		goto nomem;
	for (uint32_t i = 0; i < m->ntasks; i++) {
		slot[i] = RTR_MODEL_NONE;
		last_sig[i] = RTR_MODEL_NONE;
	}
	for (uint32_t i = 0; i <= pmask; i++)
		pend[i].reader = RTR_MODEL_NONE;
	for (uint32_t i = 0; i < m->narrows; i++) {
		const struct rtr_model_arrow *a = &m->arrows[i];
		uint32_t obj = a->kind == RTR_ARROW_SIGNAL ? a->to : a->from, h;

		if (obj >= m->ntasks || !sync_kind(m->tasks[obj].kind))
			continue;
		if (a->kind == RTR_ARROW_SIGNAL) {
			last_sig[obj] = i;	/* the arrow: its sender, and its hold */
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
		if (slot[obj] == RTR_MODEL_NONE) {
			if (nw == cap) {
				struct rtr_lock_wait *q;

				cap = cap ? 2 * cap : 16;
				q = realloc(w, (size_t)cap * sizeof(*w));
				if (!q)
					goto nomem;
				w = q;
			}
			slot[obj] = nw;
			memset(&w[nw], 0, sizeof(w[nw]));
			w[nw++].task = obj;
		}
		{
			struct rtr_lock_wait *lw = &w[slot[obj]];
			int64_t d = a->ts - pend[h].ts;

			const struct rtr_model_arrow *sig = last_sig[obj] == RTR_MODEL_NONE ? NULL :
							    &m->arrows[last_sig[obj]];
			int64_t held;

			if (push_ns(&lw->ns, &lw->waits, d < 0 ? 0 : d))
				goto nomem;
			lw->total += d < 0 ? 0 : d;
			add_once(lw->waiter, &lw->waiters, a->to);
			if (sig && sig->from != a->to) {
				add_once(lw->releaser, &lw->releasers, sig->from);
				if (!hold_used[last_sig[obj]] && (held = hold_of(m, sig)) >= 0) {
					hold_used[last_sig[obj]] = 1;
					if (push_ns(&lw->hold_ns, &lw->holds, held))
						goto nomem;
				}
			}
		}
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
	}
	for (uint32_t i = 0; i < nw; i++) {
		qsort(w[i].ns, w[i].waits, sizeof(*w[i].ns), cmp_ns);
		if (w[i].holds)
			qsort(w[i].hold_ns, w[i].holds, sizeof(*w[i].hold_ns), cmp_ns);
	}
	qsort(w, nw, sizeof(*w), cmp_total);
	free(slot);
	free(last_sig);
	free(hold_used);
	free(pend);
	*out = w;
	*n = nw;
	return 0;
nomem:
	free(slot);
	free(last_sig);
	free(hold_used);
	free(pend);
	rtr_lock_waits_free(w, nw);
	return -ENOMEM;
}
