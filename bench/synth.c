// SPDX-License-Identifier: MIT
/*
 * bench/synth.c - task models made in memory (bench/synth.h): what a trace
 * would have loaded, without writing one.
 */
#include <stdlib.h>
#include <string.h>
#include "bench/synth.h"

/* The arrays of @m for @ntasks tasks, @narrows arrows, @nruns runs, @ncpus CPUs, one trace. */
static int alloc_model(struct rtr_model *m, uint32_t ntasks, uint32_t narrows, uint32_t nruns,
		       uint32_t ncpus)
{
	static const char strs[] = "\0task\0trace\0cpu";

	memset(m, 0, sizeof(*m));
	m->traces = calloc(1, sizeof(*m->traces));
	m->cpus = calloc(ncpus ? ncpus : 1, sizeof(*m->cpus));
	m->tasks = calloc((size_t)ntasks + 1, sizeof(*m->tasks));
	m->arrows = calloc((size_t)narrows + 1, sizeof(*m->arrows));
	m->runs = calloc((size_t)nruns + 1, sizeof(*m->runs));
	m->cpu_runs = calloc((size_t)nruns + 1, sizeof(*m->cpu_runs));
	m->strs = malloc(sizeof(strs));
	if (!m->traces || !m->cpus || !m->tasks || !m->arrows || !m->runs || !m->cpu_runs || !m->strs) {
		rtr_model_free(m);
		return -1;
	}
	memcpy(m->strs, strs, sizeof(strs));
	m->strs_len = m->strs_cap = sizeof(strs);
	m->ntraces = 1;
	m->ncpus = ncpus;
	m->ntasks = ntasks;
	m->traces[0] = (struct rtr_model_trace){ .dir = 6, .ncpus = ncpus, .nchunks = 1, .freq = 1000000000 };
	for (uint32_t c = 0; c < ncpus; c++)
		m->cpus[c] = (struct rtr_model_cpu){ .cpu = c, .stream = 12 };
	return 0;
}

static void set_task(struct rtr_model *m, uint32_t i, int64_t start, int64_t end, uint32_t parent,
		     uint32_t flags)
{
	m->tasks[i] = (struct rtr_model_task){
		.id = (uint64_t)i + 1, .kind = 1, .kind_name = 1, .flags = flags,
		.parent = parent, .parent_id = parent == RTR_MODEL_NONE ? 0 : (uint64_t)parent + 1,
		.created = start, .resolved = end, .end = end, .becomes = RTR_MODEL_NONE,
		.becomes_ts = 0, .became_from = RTR_MODEL_NONE,
	};
}

int synth_lane(struct rtr_model *m, uint32_t n, int64_t gap, int64_t dur)
{
	if (alloc_model(m, n, 0, 0, 1))
		return -1;
	for (uint32_t i = 0; i < n; i++)
		set_task(m, i, (int64_t)i * gap, (int64_t)i * gap + dur, RTR_MODEL_NONE,
			 RTR_TASK_CREATED | RTR_TASK_RESOLVED);
	m->end = n ? (int64_t)(n - 1) * gap + dur : 0;
	m->events = 2ull * n;
	m->traces[0].last = m->cpus[0].last = m->end;
	m->traces[0].events = m->cpus[0].events = m->events;
	return 0;
}

static uint64_t next(uint64_t *s)
{
	/* splitmix64 */
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int cmp_run(const void *a, const void *b, void *arg)
{
	const struct rtr_model_run *r = arg;
	const struct rtr_model_run *x = &r[*(const uint32_t *)a], *y = &r[*(const uint32_t *)b];

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static int cmp_arrow(const void *a, const void *b)
{
	const struct rtr_model_arrow *x = a, *y = b;

	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

int synth_server(struct rtr_model *m, uint32_t nreq, uint32_t ncpus, int64_t gap, uint64_t seed)
{
	uint32_t ntasks = nreq + ncpus, na = 0;
	int64_t *cpu_free, end = 0;

	if (!ncpus || alloc_model(m, ntasks, 2 * nreq, nreq, ncpus))
		return -1;
	cpu_free = calloc(ncpus, sizeof(*cpu_free));
	if (!cpu_free) {
		rtr_model_free(m);
		return -1;
	}
	for (uint32_t r = 0; r < nreq; r++) {
		uint32_t i = ncpus + r, c = r % ncpus;
		int64_t start = (int64_t)r * gap + (int64_t)(next(&seed) % (uint64_t)gap);
		int64_t dur = gap * (int64_t)(1 + next(&seed) % 64);
		uint32_t flags = RTR_TASK_CREATED | RTR_TASK_RESOLVED;
		int64_t run0, run1;

		if (r % 997 == 996)
			flags |= RTR_TASK_FAILED;
		if (r % 100003 == 100002)
			flags = RTR_TASK_CREATED | RTR_TASK_SHOULD_RESOLVE | RTR_TASK_NEVER_RESOLVED;
		set_task(m, i, start, start + dur, c, flags);
		if (start + dur > end)
			end = start + dur;
		if (!(flags & RTR_TASK_NEVER_RESOLVED)) {
			m->arrows[na++] = (struct rtr_model_arrow){ .ts = start + dur, .t_from = start + dur,
				.from = c, .to = i, .kind = RTR_ARROW_RESOLVE, .cpu = c,
				.flags = (flags & RTR_TASK_FAILED) ? RTR_ARROW_FAILURE : 0 };
			m->arrows[na++] = (struct rtr_model_arrow){ .ts = start + dur + gap / 2 + 1,
				.t_from = start + dur, .from = i, .to = c, .kind = RTR_ARROW_READ, .cpu = c };
		}
		/* the CPU runs it for a while, after whatever it ran before */
		run0 = start > cpu_free[c] ? start : cpu_free[c];
		run1 = run0 + 1 + (dur / 4);
		cpu_free[c] = run1 + 1;
		m->runs[r] = (struct rtr_model_run){ .start = run0, .end = run1, .task = i, .cpu = c,
			.thread = RTR_MODEL_NONE };
		m->tasks[i].nruns = 1;
		m->tasks[i].run_first = r;
	}
	for (uint32_t c = 0; c < ncpus; c++) {
		if (cpu_free[c] > end)
			end = cpu_free[c];
	}
	for (uint32_t c = 0; c < ncpus; c++)
		set_task(m, c, 0, end, RTR_MODEL_NONE, RTR_TASK_CREATED);
	for (uint32_t r = 0; r < nreq; r++)
		if (m->tasks[ncpus + r].flags & RTR_TASK_NEVER_RESOLVED)
			m->tasks[ncpus + r].end = end;
	m->narrows = na;
	m->nruns = nreq;
	for (uint32_t r = 0; r < nreq; r++)
		m->cpu_runs[r] = r;
	qsort_r(m->cpu_runs, nreq, sizeof(*m->cpu_runs), cmp_run, m->runs);
	for (uint32_t r = 0, c = 0; c < ncpus; c++) {
		m->cpus[c].run_first = r;
		while (r < nreq && m->runs[m->cpu_runs[r]].cpu == c)
			r++;
		m->cpus[c].nruns = r - m->cpus[c].run_first;
		m->cpus[c].last = end;
	}
	/* the model's arrows are sorted by time */
	qsort(m->arrows, na, sizeof(*m->arrows), cmp_arrow);
	m->end = end;
	m->events = 5ull * nreq;
	m->traces[0].last = end;
	m->traces[0].events = m->events;
	free(cpu_free);
	return 0;
}
