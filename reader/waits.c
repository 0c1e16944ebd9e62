// SPDX-License-Identifier: MIT
/*
 * reader/waits.c - the chains of waits behind the should_resolve tasks that
 * never resolved (waits.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include "reader/waits.h"

/* Did @t read @input, or a task @input became, at or after @ts? */
static bool read_after(const struct rtr_model *m, uint32_t t, uint32_t input, int64_t ts)
{
	for (uint32_t i = 0; i < m->narrows; i++) {
		const struct rtr_model_arrow *a = &m->arrows[i];
		uint32_t u = input;

		if (a->kind != RTR_ARROW_READ || a->to != t || a->ts < ts)
			continue;
		for (uint32_t n = 0; u != RTR_MODEL_NONE && u < m->ntasks && n < RTR_HANG_STEPS; n++) {
			if (a->from == u)
				return true;
			u = m->tasks[u].becomes;
		}
	}
	return false;
}

/*
 * The latest wait of @t still open at the end of the trace: a try_read by
 * @t that no read of the same input by @t followed (the model marks those
 * that were: RTR_ARROW_HIDDEN), nor a read of what that input became.
 * RTR_MODEL_NONE if none.
 */
static uint32_t open_wait(const struct rtr_model *m, uint32_t t)
{
	for (uint32_t i = m->narrows; i-- > 0;) {
		const struct rtr_model_arrow *a = &m->arrows[i];

		if (a->kind == RTR_ARROW_TRY_READ && a->to == t && !(a->flags & RTR_ARROW_HIDDEN) &&
		    !read_after(m, t, a->from, a->ts))
			return i;
	}
	return RTR_MODEL_NONE;
}

static bool in_chain(const struct rtr_hang *h, uint32_t t)
{
	for (uint32_t i = 0; i < h->nsteps; i++)
		if (h->steps[i].task == t)
			return true;
	return false;
}

static void explain(const struct rtr_model *m, uint32_t t, struct rtr_hang *h)
{
	const struct rtr_wait_step *last;

	h->steps[0] = (struct rtr_wait_step){ t, RTR_WAIT_STUCK, m->tasks[t].created };
	h->nsteps = 1;
	while (h->nsteps < RTR_HANG_STEPS) {
		const struct rtr_model_task *cur = &m->tasks[h->steps[h->nsteps - 1].task];
		struct rtr_wait_step next;

		if (cur->becomes != RTR_MODEL_NONE && cur->becomes < m->ntasks) {
			next = (struct rtr_wait_step){ cur->becomes, RTR_WAIT_BECAME, cur->becomes_ts };
		} else {
			uint32_t a = open_wait(m, h->steps[h->nsteps - 1].task);

			if (a == RTR_MODEL_NONE)
				break;
			next = (struct rtr_wait_step){ m->arrows[a].from, RTR_WAIT_FOR, m->arrows[a].ts };
		}
		if (in_chain(h, next.task))
			break;
		h->steps[h->nsteps++] = next;
	}
	last = &h->steps[h->nsteps - 1];
	h->last_signal = RTR_MODEL_NONE;
	for (uint32_t i = 0; i < m->narrows; i++) {
		const struct rtr_model_arrow *a = &m->arrows[i];

		if (a->kind != RTR_ARROW_SIGNAL || a->to != last->task)
			continue;
		if (a->ts < last->since)
			h->signals_before++;
		else
			h->signals_after++;
		h->last_signal = i;
	}
}

int rtr_model_hangs(const struct rtr_model *m, struct rtr_hang **out, uint32_t *n, uint32_t *total)
{
	struct rtr_hang *h = NULL;
	uint32_t k = 0, all = 0;

	for (uint32_t t = 0; t < m->ntasks; t++) {
		if (!(m->tasks[t].flags & RTR_TASK_NEVER_RESOLVED))
			continue;
		/* a task that became another is explained through the chain's start only */
		if (m->tasks[t].became_from != RTR_MODEL_NONE &&
		    (m->tasks[m->tasks[t].became_from].flags & RTR_TASK_NEVER_RESOLVED))
			continue;
		all++;
		if (k == RTR_HANGS_MAX)
			continue;
		if (!h) {
			h = calloc(RTR_HANGS_MAX, sizeof(*h));
			if (!h)
				return -ENOMEM;
		}
		explain(m, t, &h[k++]);
	}
	*out = h;
	*n = k;
	*total = all;
	return 0;
}
