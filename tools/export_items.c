// SPDX-License-Identifier: MIT
/* tools/export_items.c - what the exports share (export_items.h). */
#include <inttypes.h>
#include <stdio.h>
#include "tools/export_items.h"

int ex_item_cmp(const void *a, const void *b)
{
	const struct ex_item *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

void ex_items(const struct rtr_model *m, struct ex_item *it, size_t *k, const struct ex_types *ty)
{
	for (uint32_t i = 0; i < m->ntasks; i++) {
		it[(*k)++] = (struct ex_item){ m->tasks[i].created, ty->begin, i };
		it[(*k)++] = (struct ex_item){ m->tasks[i].end, ty->end, i };
	}
	for (uint32_t i = 0; i < m->narrows; i++) {
		if (m->arrows[i].flags & RTR_ARROW_HIDDEN)
			continue;
		it[(*k)++] = (struct ex_item){ m->arrows[i].t_from, ty->flow_out, i };
		it[(*k)++] = (struct ex_item){ m->arrows[i].ts, ty->flow_in, i };
	}
	for (uint32_t i = 0; i < m->nsamples; i++)
		it[(*k)++] = (struct ex_item){ m->samples[i].ts, ty->sample, i };
	for (uint32_t i = 0; i < m->nnotes; i++)
		it[(*k)++] = (struct ex_item){ m->notes[i].ts, ty->note, i };
	for (uint32_t i = 0; i < m->nlosses; i++)
		it[(*k)++] = (struct ex_item){ m->losses[i].ts, ty->loss, i };
	for (uint32_t i = 0; i < m->nmarkers; i++)
		it[(*k)++] = (struct ex_item){ m->markers[i].ts, ty->marker, i };
}

const char *ex_arrow_name(const struct rtr_model_arrow *a)
{
	static const char *const names[] = {
		[RTR_ARROW_READ] = "read", [RTR_ARROW_TRY_READ] = "try_read",
		[RTR_ARROW_RESOLVE] = "resolve", [RTR_ARROW_SIGNAL] = "signal",
	};

	if (a->kind == RTR_ARROW_RESOLVE && (a->flags & RTR_ARROW_FAILURE))
		return "fail";
	return names[a->kind & 3];
}

const char *ex_run_ended(const struct rtr_model_run *r)
{
	return r->why == RTR_RUN_BLOCKED ? "blocked" : r->why == RTR_RUN_PREEMPTED ? "preempted" :
									  NULL;
}

const char *ex_task_name(const struct rtr_model *m, const struct rtr_model_task *t, char *b,
			 size_t len)
{
	if (t->name)
		return rtr_model_str(m, t->name);
	snprintf(b, len, "%.280s %" PRIu64, rtr_model_str(m, t->kind_name), t->id);
	return b;
}

const char *ex_process_name(const struct rtr_model *m, uint32_t i, char *b, size_t len)
{
	const struct rtr_model_trace *t = &m->traces[i];
	const char *host = rtr_model_str(m, t->hostname);

	snprintf(b, len, "%s%spid %u: %s", host, *host ? " " : "", t->vpid,
		 rtr_model_str(m, t->dir));
	return b;
}

const char *ex_thread_name(const struct rtr_model *m, uint32_t i, char *b, size_t len)
{
	const struct rtr_model_thread *t = &m->threads[i];
	const char *name = rtr_model_str(m, t->name);

	snprintf(b, len, "%s%s%" PRIu64, name, *name ? " " : "tid ", t->tid);
	return b;
}
