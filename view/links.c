// SPDX-License-Identifier: MIT
/* view/links.c - the tasks a task is linked to by its arrows (view/links.h). */
#include <errno.h>
#include <stdlib.h>
#include "view/links.h"

const char *rtr_link_kind_str(unsigned kind)
{
	static const char *const s[RTR_LINK_KINDS] = {
		[RTR_LINK_READ] = "read", [RTR_LINK_WAITS_FOR] = "waits for",
		[RTR_LINK_READ_BY] = "read by", [RTR_LINK_RESOLVED_BY] = "resolved by",
		[RTR_LINK_RESOLVED] = "resolved", [RTR_LINK_WOKEN_BY] = "woken by",
		[RTR_LINK_WOKE] = "woke",
	};

	return kind < RTR_LINK_KINDS ? s[kind] : "?";
}

/* by kind, task, then time: a task's first arrow of a kind comes first */
static int cmp_task(const void *a, const void *b)
{
	const struct rtr_task_link *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->task != y->task)
		return x->task < y->task ? -1 : 1;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* by kind, then time */
static int cmp_time(const void *a, const void *b)
{
	const struct rtr_task_link *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->task < y->task ? -1 : x->task > y->task;
}

/* @x, or a task it became (64 steps at most), among the @n sorted reads of @r */
static bool read_of(const struct rtr_model *m, const struct rtr_task_link *r, uint32_t n, uint32_t x)
{
	for (uint32_t k = 0; x < m->ntasks && k < 64; x = m->tasks[x].becomes, k++)
		for (uint32_t i = 0; i < n && r[i].kind == RTR_LINK_READ; i++)
			if (r[i].task == x)
				return true;
	return false;
}

int rtr_task_links(const struct rtr_scene *s, uint32_t task, uint32_t max, struct rtr_task_link **out,
		   uint32_t *n, uint32_t more[RTR_LINK_KINDS])
{
	/* an arrow's kind (enum rtr_arrow_kind) as seen from each end */
	static const uint8_t as_to[4] = { RTR_LINK_READ, RTR_LINK_WAITS_FOR, RTR_LINK_RESOLVED_BY,
					  RTR_LINK_WOKEN_BY };
	static const uint8_t as_from[4] = { RTR_LINK_READ_BY, RTR_LINK_KINDS, RTR_LINK_RESOLVED,
					    RTR_LINK_WOKE };
	const struct rtr_model *m = s->m;
	struct rtr_task_link *v = NULL;
	uint32_t nv = 0, cap = 0, k = 0, per[RTR_LINK_KINDS] = { 0 };

	*out = NULL;
	*n = 0;
	for (unsigned i = 0; i < RTR_LINK_KINDS; i++)
		more[i] = 0;
	for (uint32_t i = 0; i < m->narrows; i++) {
		const struct rtr_model_arrow *a = &m->arrows[i];
		struct rtr_task_link l;

		if (a->kind > RTR_ARROW_SIGNAL || (a->to != task && a->from != task) || a->to == a->from)
			continue;
		/* a read's arrow points at the reader: @to read @from (model.h) */
		l = a->to == task ? (struct rtr_task_link){ a->ts, a->from, as_to[a->kind] } :
				    (struct rtr_task_link){ a->ts, a->to, as_from[a->kind] };
		if (l.kind == RTR_LINK_KINDS || l.task >= m->ntasks)
			continue;	/* (a try_read of it: not a link the panels list) */
		if (nv == cap) {
			struct rtr_task_link *p = realloc(v, (cap = cap ? 2 * cap : 64) * sizeof(*v));

			if (!p) {
				free(v);
				return -ENOMEM;
			}
			v = p;
		}
		v[nv++] = l;
	}
	if (!nv)
		return 0;
	/* each task once a kind, at its first arrow's time */
	qsort(v, nv, sizeof(*v), cmp_task);
	for (uint32_t i = 0; i < nv; i++)
		if (!k || v[k - 1].kind != v[i].kind || v[k - 1].task != v[i].task)
			v[k++] = v[i];
	nv = k;
	/* a wait that ended with a read of it, or of what it became, is no longer one */
	k = 0;
	for (uint32_t i = 0; i < nv; i++)
		if (v[i].kind != RTR_LINK_WAITS_FOR || !read_of(m, v, nv, v[i].task))
			v[k++] = v[i];
	nv = k;
	qsort(v, nv, sizeof(*v), cmp_time);
	k = 0;
	for (uint32_t i = 0; i < nv; i++) {
		if (per[v[i].kind]++ < max)
			v[k++] = v[i];
		else
			more[v[i].kind]++;
	}
	*out = v;
	*n = k;
	return 0;
}

int rtr_task_where(const struct rtr_scene *s, uint32_t task, bool by_thread, struct rtr_task_where **out,
		   uint32_t *n)
{
	const struct rtr_model *m = s->m;
	const struct rtr_model_task *t = &m->tasks[task];
	struct rtr_task_where *v = NULL;
	uint32_t nv = 0;

	*out = NULL;
	*n = 0;
	for (uint32_t i = t->run_first; i < t->run_first + t->nruns && i < m->nruns; i++) {
		const struct rtr_model_run *r = &m->runs[i];
		uint32_t at = by_thread ? r->thread : r->cpu, k;

		if (at == RTR_MODEL_NONE)
			continue;
		/* CPUs and threads a task ran on are few: a linear search, over RTR_WHERE_MAX at most */
		for (k = 0; k < nv && v[k].index != at; k++)
			;
		if (k == nv && nv == RTR_WHERE_MAX)
			continue;
		if (k == nv) {
			struct rtr_task_where *p = realloc(v, (nv + 1) * sizeof(*v));

			if (!p) {
				free(v);
				return -ENOMEM;
			}
			v = p;
			v[nv++] = (struct rtr_task_where){ .index = at };
		}
		v[k].runs++;
		v[k].ns += r->end - r->start;
	}
	*out = v;
	*n = nv;
	return 0;
}

static int cmp_change(const void *a, const void *b)
{
	const struct rtr_task_counter *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->counter < y->counter ? -1 : x->counter > y->counter;
}

int rtr_task_counters(const struct rtr_scene *s, uint32_t task, uint32_t max,
		      struct rtr_task_counter **out, uint32_t *n, uint64_t *total)
{
	const struct rtr_model *m = s->m;
	struct rtr_task_counter *v = NULL;
	uint32_t nv = 0, cap = 0;

	*out = NULL;
	*n = 0;
	*total = 0;
	for (uint32_t k = 0; k < m->ncounters; k++) {
		const struct rtr_model_counter *c = &m->counters[k];

		for (uint32_t i = c->sample_first;
		     i < c->sample_first + c->nsamples && i < m->nsamples; i++) {
			const struct rtr_model_sample *x = &m->samples[i];

			if (x->task != task)
				continue;
			++*total;
			/* the first @max in time: keep them all, sort, cut (a task's are few) */
			if (nv == cap) {
				uint32_t nc = cap ? 2 * cap : 16;
				struct rtr_task_counter *p;

				if (nc > RTR_COUNTERS_KEPT)
					continue;	/* a hostile trace's million changes of one task */
				p = realloc(v, nc * sizeof(*v));
				if (!p) {
					free(v);
					return -ENOMEM;
				}
				v = p;
				cap = nc;
			}
			v[nv++] = (struct rtr_task_counter){
				.counter = k, .ts = x->ts, .value = x->value,
				.delta = (int64_t)((uint64_t)x->value -
						   (i > c->sample_first ? (uint64_t)x[-1].value : 0)),
			};
		}
	}
	if (nv > 1)
		qsort(v, nv, sizeof(*v), cmp_change);
	*out = v;
	*n = nv < max ? nv : max;
	return 0;
}
