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
