// SPDX-License-Identifier: MIT
/*
 * tests/tools/test_why.c - critical paths (reader/critpath.c) on task models
 * built in memory whose path is known by construction: a chain of waits,
 * a fan-in, a lock convoy, a lost wake-up, a becomes chain; every list of
 * segments contiguous and adding up exactly to its interval, on those and
 * on random (hostile) models; `ringtrace why` on a trace written with the
 * public API, text and JSON, and its usage errors.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include <ringtrace/ringtrace.h>
#include "consumer/convert.h"
#include "reader/critpath.h"
#include "reader/model.h"
#include "tests/helpers.h"

TestSuite(tools_why, .timeout = 120);

/* ---- a model built by hand --------------------------------------------------------- */

#define MAXT 64
#define MAXA 256
#define MAXR 256

struct mb {
	struct rtr_model m;
};

static const char pool[] = "\0task\0trace\0wait\0bind\0thread\0mutex\0condition\0T";
#define S_TASK 1
#define S_TRACE 6
#define S_WAIT 12
#define S_BIND 17
#define S_THREAD 22
#define S_MUTEX 29
#define S_COND 35

static void mb_init(struct mb *b, uint32_t ncpus)
{
	struct rtr_model *m = &b->m;

	memset(b, 0, sizeof(*b));
	m->traces = calloc(1, sizeof(*m->traces));
	m->cpus = calloc(ncpus, sizeof(*m->cpus));
	m->tasks = calloc(MAXT, sizeof(*m->tasks));
	m->arrows = calloc(MAXA, sizeof(*m->arrows));
	m->runs = calloc(MAXR, sizeof(*m->runs));
	m->cpu_runs = calloc(MAXR, sizeof(*m->cpu_runs));
	m->strs = malloc(sizeof(pool));
	cr_assert(m->traces && m->cpus && m->tasks && m->arrows && m->runs && m->cpu_runs && m->strs);
	memcpy(m->strs, pool, sizeof(pool));
	m->strs_len = m->strs_cap = sizeof(pool);
	m->ntraces = 1;
	m->ncpus = ncpus;
	m->traces[0] = (struct rtr_model_trace){ .dir = S_TRACE, .ncpus = ncpus, .nchunks = 1 };
	for (uint32_t c = 0; c < ncpus; c++)
		m->cpus[c] = (struct rtr_model_cpu){ .cpu = c };
}

/* A task created at @created by @parent; resolved at @resolved (>= 0) or never (-1). */
static uint32_t mb_task(struct mb *b, uint32_t kind, uint32_t kind_name, int64_t created,
			int64_t resolved, uint32_t parent)
{
	struct rtr_model *m = &b->m;
	uint32_t i = m->ntasks++;

	cr_assert_lt(i, MAXT);
	m->tasks[i] = (struct rtr_model_task){
		.id = i + 1, .kind = kind, .kind_name = kind_name,
		.flags = RTR_TASK_CREATED | (resolved >= 0 ? RTR_TASK_RESOLVED : 0),
		.parent = parent, .created = created, .resolved = resolved >= 0 ? resolved : 0,
		.end = resolved >= 0 ? resolved : created, .becomes = RTR_MODEL_NONE,
		.became_from = RTR_MODEL_NONE, .name = sizeof(pool) - 2,
	};
	return i;
}

static void mb_run(struct mb *b, uint32_t task, int64_t start, int64_t end, uint32_t cpu)
{
	struct rtr_model *m = &b->m;

	cr_assert_lt(m->nruns, MAXR);
	m->runs[m->nruns++] = (struct rtr_model_run){ .start = start, .end = end, .task = task,
						       .cpu = cpu, .thread = RTR_MODEL_NONE };
}

static void mb_arrow(struct mb *b, uint8_t kind, uint32_t from, uint32_t to, int64_t ts)
{
	struct rtr_model *m = &b->m;

	cr_assert_lt(m->narrows, MAXA);
	m->arrows[m->narrows++] = (struct rtr_model_arrow){ .ts = ts, .t_from = ts, .from = from,
							    .to = to, .kind = kind };
}

static int cmp_run(const void *a, const void *b)
{
	const struct rtr_model_run *x = a, *y = b;

	if (x->task != y->task)
		return x->task < y->task ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static int cmp_arrow(const void *a, const void *b)
{
	const struct rtr_model_arrow *x = a, *y = b;

	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* The model's arrays in the order model.h promises; the path of @task. */
static void mb_done(struct mb *b)
{
	struct rtr_model *m = &b->m;

	qsort(m->runs, m->nruns, sizeof(*m->runs), cmp_run);
	/* stable enough: equal times keep no promised order, the tests use distinct ones */
	qsort(m->arrows, m->narrows, sizeof(*m->arrows), cmp_arrow);
	for (uint32_t r = 0; r < m->nruns; r++) {
		struct rtr_model_task *t = &m->tasks[m->runs[r].task];

		if (!t->nruns)
			t->run_first = r;
		t->nruns++;
		if (m->runs[r].end > m->end)
			m->end = m->runs[r].end;
	}
	for (uint32_t i = 0; i < m->ntasks; i++)
		if (m->tasks[i].end > m->end)
			m->end = m->tasks[i].end;
	m->traces[0].last = m->end;
}

/* Every list contiguous from @lo to @hi; each child list the same over its segment. */
static void check_list(const struct rtr_critpath *cp, uint32_t first, uint32_t n, int64_t lo,
		       int64_t hi)
{
	int64_t at = lo;

	cr_assert_gt(n, 0);
	for (uint32_t i = 0; i < n; i++) {
		const struct rtr_cp_seg *s = &cp->segs[first + i];

		cr_assert_eq(s->start, at, "segment %u of %u starts at %ld, not %ld", i, n,
			     (long)s->start, (long)at);
		cr_assert_gt(s->end, s->start);
		cr_assert_leq(s->what, RTR_CP_NOT_RUNNING);
		if (s->nchildren) {
			cr_assert_leq(s->child_first + s->nchildren, cp->nsegs);
			check_list(cp, s->child_first, s->nchildren, s->start, s->end);
		}
		at = s->end;
	}
	cr_assert_eq(at, hi, "the segments end at %ld, not %ld", (long)at, (long)hi);
}

struct want {
	uint32_t what;
	int64_t start, end;
	uint32_t other;		/* RTR_MODEL_NONE: not checked */
	uint32_t by;		/* RTR_MODEL_NONE: not checked */
};

static void path_of(struct mb *b, uint32_t task, struct rtr_critpath *cp)
{
	struct rtr_cp_index ix;

	cr_assert_eq(rtr_cp_index_build(&b->m, &ix), 0);
	cr_assert_eq(rtr_critpath(&b->m, &ix, task, cp), 0);
	rtr_cp_index_free(&ix);
	check_list(cp, 0, cp->ntop, cp->start, cp->end);
}

static void expect(const struct rtr_critpath *cp, uint32_t first, uint32_t n,
		   const struct want *w, uint32_t nw)
{
	cr_assert_eq(n, nw, "%u segments, expected %u", n, nw);
	for (uint32_t i = 0; i < n; i++) {
		const struct rtr_cp_seg *s = &cp->segs[first + i];

		cr_assert_eq(s->what, w[i].what, "segment %u: %s, expected %s", i,
			     rtr_cp_what_str(s->what), rtr_cp_what_str(w[i].what));
		cr_assert_eq(s->start, w[i].start, "segment %u starts at %ld", i, (long)s->start);
		cr_assert_eq(s->end, w[i].end, "segment %u ends at %ld", i, (long)s->end);
		if (w[i].other != RTR_MODEL_NONE)
			cr_assert_eq(s->other, w[i].other, "segment %u: other %u", i, s->other);
		if (w[i].by != RTR_MODEL_NONE)
			cr_assert_eq(s->by, w[i].by, "segment %u: by %u", i, s->by);
	}
}

#define NONE RTR_MODEL_NONE

/*
 * A chain: T waits for W1 (resolved at 100 by R1, which L created at 90),
 * runs 120..130, waits for W2 (resolved at 300 by R2, created at 250), runs
 * 310..320 and resolves.
 */
Test(tools_why, chain_of_waits)
{
	struct mb b;
	struct rtr_critpath cp;

	mb_init(&b, 1);
	uint32_t l = mb_task(&b, RTR_KIND_THREAD, S_THREAD, 0, -1, NONE);
	uint32_t t = mb_task(&b, RTR_KIND_BIND, S_BIND, 0, 320, l);
	uint32_t w1 = mb_task(&b, RTR_KIND_WAIT, S_WAIT, 0, 100, l);
	uint32_t r1 = mb_task(&b, RTR_KIND_TASK, S_TASK, 90, 100, l);
	uint32_t w2 = mb_task(&b, RTR_KIND_WAIT, S_WAIT, 130, 300, t);
	uint32_t r2 = mb_task(&b, RTR_KIND_TASK, S_TASK, 250, 300, l);

	mb_run(&b, l, 0, 90, 0);
	mb_run(&b, r1, 90, 100, 0);
	mb_run(&b, t, 120, 130, 0);
	mb_run(&b, r2, 260, 300, 0);
	mb_run(&b, t, 310, 320, 0);
	mb_arrow(&b, RTR_ARROW_TRY_READ, w1, t, 0);
	mb_arrow(&b, RTR_ARROW_RESOLVE, r1, w1, 100);
	mb_arrow(&b, RTR_ARROW_READ, w1, t, 120);
	mb_arrow(&b, RTR_ARROW_TRY_READ, w2, t, 130);
	mb_arrow(&b, RTR_ARROW_RESOLVE, r2, w2, 300);
	mb_arrow(&b, RTR_ARROW_READ, w2, t, 310);
	mb_arrow(&b, RTR_ARROW_RESOLVE, t, t, 320);
	mb_done(&b);
	path_of(&b, t, &cp);
	cr_assert_eq(cp.end - cp.start, 320);
	cr_assert(cp.resolved);
	expect(&cp, 0, cp.ntop, (struct want[]){
		{ RTR_CP_WAIT_TASK, 0, 100, w1, r1 },
		{ RTR_CP_RUNNABLE, 100, 120, w1, NONE },
		{ RTR_CP_RUNNING, 120, 130, NONE, NONE },
		{ RTR_CP_WAIT_TASK, 130, 300, w2, r2 },
		{ RTR_CP_RUNNABLE, 300, 310, w2, NONE },
		{ RTR_CP_RUNNING, 310, 320, NONE, NONE },
	}, 6);
	/* why W1 was late: its resolver, not created before 90 (L ran), then running */
	const struct rtr_cp_seg *s = &cp.segs[0];

	expect(&cp, s->child_first, s->nchildren, (struct want[]){
		{ RTR_CP_RESOLVER, 0, 100, r1, NONE } }, 1);
	s = &cp.segs[s->child_first];
	expect(&cp, s->child_first, s->nchildren, (struct want[]){
		{ RTR_CP_CREATOR, 0, 90, l, NONE },
		{ RTR_CP_RUNNING, 90, 100, NONE, NONE } }, 2);
	/* why W2 was late: R2 created at 250, ran from 260 */
	s = &cp.segs[cp.segs[3].child_first];
	cr_assert_eq(s->what, RTR_CP_RESOLVER);
	expect(&cp, s->child_first, s->nchildren, (struct want[]){
		{ RTR_CP_CREATOR, 130, 250, l, NONE },
		{ RTR_CP_NOT_RUNNING, 250, 260, NONE, NONE },
		{ RTR_CP_RUNNING, 260, 300, NONE, NONE } }, 3);
	rtr_critpath_free(&cp);
	rtr_model_free(&b.m);
}

/* A fan-in: J waits for A, B and C at once; B, resolved last, is on the path. */
Test(tools_why, fan_in_follows_the_last_input)
{
	struct mb b;
	struct rtr_critpath cp;

	mb_init(&b, 1);
	uint32_t j = mb_task(&b, RTR_KIND_JOIN, S_TASK, 0, 220, NONE);
	uint32_t in[3];
	int64_t done[3] = { 50, 200, 120 };

	for (int i = 0; i < 3; i++) {
		in[i] = mb_task(&b, RTR_KIND_TASK, S_TASK, 0, done[i], NONE);
		mb_run(&b, in[i], done[i] - 10, done[i], 0);
		mb_arrow(&b, RTR_ARROW_TRY_READ, in[i], j, 0);
		mb_arrow(&b, RTR_ARROW_RESOLVE, in[i], in[i], done[i]);
		mb_arrow(&b, RTR_ARROW_READ, in[i], j, 210);
	}
	mb_run(&b, j, 210, 220, 0);
	mb_done(&b);
	path_of(&b, j, &cp);
	expect(&cp, 0, cp.ntop, (struct want[]){
		{ RTR_CP_WAIT_TASK, 0, 200, in[1], in[1] },
		{ RTR_CP_RUNNABLE, 200, 210, in[1], NONE },
		{ RTR_CP_RUNNING, 210, 220, NONE, NONE },
	}, 3);
	/* B's own path: not running until 190, then running */
	expect(&cp, cp.segs[0].child_first, cp.segs[0].nchildren, (struct want[]){
		{ RTR_CP_NOT_RUNNING, 0, 190, NONE, NONE },
		{ RTR_CP_RUNNING, 190, 200, NONE, NONE } }, 2);
	rtr_critpath_free(&cp);
	rtr_model_free(&b.m);
}

/*
 * A lock convoy: T1 holds M until 100; T2 waits for it from 10, runs
 * 105..200 and releases it; T3 waits from 20, runs 210..250.
 */
Test(tools_why, lock_convoy)
{
	struct mb b;
	struct rtr_critpath cp;

	mb_init(&b, 3);
	uint32_t mtx = mb_task(&b, RTR_KIND_MUTEX, S_MUTEX, 0, -1, NONE);
	uint32_t t1 = mb_task(&b, RTR_KIND_THREAD, S_THREAD, 0, 100, NONE);
	uint32_t t2 = mb_task(&b, RTR_KIND_THREAD, S_THREAD, 0, 200, NONE);
	uint32_t t3 = mb_task(&b, RTR_KIND_THREAD, S_THREAD, 0, 250, NONE);

	mb_run(&b, t1, 0, 100, 0);
	mb_run(&b, t2, 0, 10, 1);
	mb_run(&b, t3, 0, 20, 2);
	mb_arrow(&b, RTR_ARROW_TRY_READ, mtx, t2, 10);
	mb_arrow(&b, RTR_ARROW_TRY_READ, mtx, t3, 20);
	mb_arrow(&b, RTR_ARROW_SIGNAL, t1, mtx, 100);
	mb_arrow(&b, RTR_ARROW_RESOLVE, t1, t1, 100);
	mb_run(&b, t2, 105, 200, 1);
	mb_arrow(&b, RTR_ARROW_READ, mtx, t2, 106);
	mb_arrow(&b, RTR_ARROW_SIGNAL, t2, mtx, 199);
	mb_arrow(&b, RTR_ARROW_RESOLVE, t2, t2, 200);
	mb_run(&b, t3, 210, 250, 2);
	mb_arrow(&b, RTR_ARROW_READ, mtx, t3, 211);
	mb_arrow(&b, RTR_ARROW_RESOLVE, t3, t3, 250);
	mb_done(&b);
	path_of(&b, t3, &cp);
	expect(&cp, 0, cp.ntop, (struct want[]){
		{ RTR_CP_RUNNING, 0, 20, NONE, NONE },
		{ RTR_CP_WAIT_LOCK, 20, 199, mtx, t2 },
		{ RTR_CP_RUNNABLE, 199, 210, mtx, t2 },
		{ RTR_CP_RUNNING, 210, 250, NONE, NONE },
	}, 4);
	/* what the holder T2 did meanwhile: waited for T1's lock, then ran */
	const struct rtr_cp_seg *s = &cp.segs[1];

	expect(&cp, s->child_first, s->nchildren, (struct want[]){
		{ RTR_CP_WAIT_LOCK, 20, 100, mtx, t1 },
		{ RTR_CP_RUNNABLE, 100, 105, mtx, t1 },
		{ RTR_CP_RUNNING, 105, 199, NONE, NONE } }, 3);
	s = &cp.segs[s->child_first];
	expect(&cp, s->child_first, s->nchildren, (struct want[]){
		{ RTR_CP_RUNNING, 20, 100, NONE, NONE } }, 1);
	cr_assert_eq(cp.segs[s->child_first].task, t1);
	rtr_critpath_free(&cp);
	rtr_model_free(&b.m);
}

/* A lost wake-up: C signalled at 50 by S, T waits for it from 100 to the end (1000). */
Test(tools_why, lost_wakeup_named)
{
	struct mb b;
	struct rtr_critpath cp;

	mb_init(&b, 1);
	uint32_t c = mb_task(&b, RTR_KIND_CONDITION, S_COND, 0, -1, NONE);
	uint32_t s = mb_task(&b, RTR_KIND_TASK, S_TASK, 40, 60, NONE);
	uint32_t t = mb_task(&b, RTR_KIND_TASK, S_TASK, 0, -1, NONE);

	b.m.tasks[t].flags |= RTR_TASK_SHOULD_RESOLVE | RTR_TASK_NEVER_RESOLVED;
	b.m.tasks[t].end = 1000;
	mb_run(&b, s, 40, 60, 0);
	mb_run(&b, t, 0, 40, 0);
	mb_run(&b, t, 60, 100, 0);
	mb_arrow(&b, RTR_ARROW_SIGNAL, s, c, 50);
	mb_arrow(&b, RTR_ARROW_TRY_READ, c, t, 100);
	mb_done(&b);
	path_of(&b, t, &cp);
	cr_assert_not(cp.resolved);
	expect(&cp, 0, cp.ntop, (struct want[]){
		{ RTR_CP_RUNNING, 0, 40, NONE, NONE },
		{ RTR_CP_NOT_RUNNING, 40, 60, NONE, NONE },
		{ RTR_CP_RUNNING, 60, 100, NONE, NONE },
		{ RTR_CP_WAIT_TASK, 100, 1000, c, NONE },
	}, 4);
	cr_assert_eq(cp.segs[3].by, NONE);
	cr_assert_eq(cp.segs[3].lost_by, s);
	cr_assert_eq(cp.segs[3].lost_ts, 50);
	rtr_critpath_free(&cp);
	rtr_model_free(&b.m);
}

/* A becomes chain: T runs 0..10 and becomes U, which R (created at 60) resolves at 100. */
Test(tools_why, becomes_chain_is_followed)
{
	struct mb b;
	struct rtr_critpath cp;

	mb_init(&b, 1);
	uint32_t l = mb_task(&b, RTR_KIND_THREAD, S_THREAD, 0, -1, NONE);
	uint32_t t = mb_task(&b, RTR_KIND_BIND, S_BIND, 0, -1, l);
	uint32_t u = mb_task(&b, RTR_KIND_WAIT, S_WAIT, 10, 100, t);
	uint32_t r = mb_task(&b, RTR_KIND_TASK, S_TASK, 60, 100, l);

	b.m.tasks[t].flags |= RTR_TASK_BECAME;
	b.m.tasks[t].becomes = u;
	b.m.tasks[t].becomes_ts = 10;
	b.m.tasks[u].became_from = t;
	mb_run(&b, t, 0, 10, 0);
	mb_run(&b, l, 10, 60, 0);
	mb_run(&b, r, 60, 100, 0);
	mb_arrow(&b, RTR_ARROW_RESOLVE, r, u, 100);
	mb_done(&b);
	path_of(&b, t, &cp);
	cr_assert(cp.resolved);
	cr_assert_eq(cp.end, 100);
	expect(&cp, 0, cp.ntop, (struct want[]){
		{ RTR_CP_RUNNING, 0, 10, NONE, NONE },
		{ RTR_CP_RESOLVER, 10, 100, r, NONE },
	}, 2);
	cr_assert_eq(cp.segs[1].task, u);
	expect(&cp, cp.segs[1].child_first, cp.segs[1].nchildren, (struct want[]){
		{ RTR_CP_CREATOR, 10, 60, l, NONE },
		{ RTR_CP_RUNNING, 60, 100, NONE, NONE } }, 2);
	rtr_critpath_free(&cp);
	rtr_model_free(&b.m);
}

/*
 * A wait begun before a becomes: B runs 0..10 and becomes U, which had
 * begun waiting for condition C at 6; S signals C at 50, U reads it at 55,
 * R resolves U at 60.
 */
Test(tools_why, wait_begun_before_a_becomes)
{
	struct mb b;
	struct rtr_critpath cp;

	mb_init(&b, 1);
	uint32_t bt = mb_task(&b, RTR_KIND_BIND, S_BIND, 0, -1, NONE);
	uint32_t u = mb_task(&b, RTR_KIND_WAIT, S_WAIT, 5, 60, bt);
	uint32_t c = mb_task(&b, RTR_KIND_CONDITION, S_COND, 0, -1, NONE);
	uint32_t s = mb_task(&b, RTR_KIND_TASK, S_TASK, 40, 52, NONE);
	uint32_t r = mb_task(&b, RTR_KIND_TASK, S_TASK, 45, 60, NONE);

	b.m.tasks[bt].flags |= RTR_TASK_BECAME;
	b.m.tasks[bt].becomes = u;
	b.m.tasks[bt].becomes_ts = 10;
	mb_run(&b, bt, 0, 10, 0);
	mb_run(&b, s, 40, 45, 0);
	mb_run(&b, r, 55, 60, 0);
	mb_arrow(&b, RTR_ARROW_TRY_READ, c, u, 6);
	mb_arrow(&b, RTR_ARROW_SIGNAL, s, c, 50);
	mb_arrow(&b, RTR_ARROW_READ, c, u, 55);
	mb_arrow(&b, RTR_ARROW_RESOLVE, r, u, 60);
	mb_done(&b);
	path_of(&b, bt, &cp);
	expect(&cp, 0, cp.ntop, (struct want[]){
		{ RTR_CP_RUNNING, 0, 10, NONE, NONE },
		{ RTR_CP_WAIT_TASK, 10, 50, c, s },
		{ RTR_CP_RUNNABLE, 50, 55, c, s },
		{ RTR_CP_RESOLVER, 55, 60, r, NONE },
	}, 4);
	rtr_critpath_free(&cp);
	rtr_model_free(&b.m);
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * Random models (what a hostile trace could load: any arrows between any
 * tasks, overlapping runs, becomes cycles, resolutions before creations):
 * every task's path is built, and every list adds up to its interval.
 */
Test(tools_why, random_models_always_add_up)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull;

	for (int round = 0; round < 300; round++) {
		struct mb b;
		struct rtr_cp_index ix;
		uint32_t nt = 2 + rnd(&seed) % (MAXT - 2);

		mb_init(&b, 2);
		for (uint32_t i = 0; i < nt; i++) {
			int64_t c = (int64_t)(rnd(&seed) % 1000);
			int64_t r = rnd(&seed) % 3 ? c + (int64_t)(rnd(&seed) % 1000) - 50 : -1;
			uint32_t k = rnd(&seed) % 24;

			mb_task(&b, k, S_TASK, c, r, rnd(&seed) % 4 ? (uint32_t)(rnd(&seed) % nt) : NONE);
			if (rnd(&seed) % 5 == 0) {
				b.m.tasks[i].becomes = rnd(&seed) % nt;
				b.m.tasks[i].becomes_ts = (int64_t)(rnd(&seed) % 2000);
				b.m.tasks[i].flags |= RTR_TASK_BECAME;
			}
		}
		for (uint32_t i = rnd(&seed) % MAXR; i; i--) {
			int64_t s = (int64_t)(rnd(&seed) % 2000);

			mb_run(&b, rnd(&seed) % nt, s, s + (int64_t)(rnd(&seed) % 100), rnd(&seed) % 2);
		}
		for (uint32_t i = rnd(&seed) % MAXA; i; i--)
			mb_arrow(&b, rnd(&seed) % 4, rnd(&seed) % nt, rnd(&seed) % nt,
				 (int64_t)(rnd(&seed) % 2000));
		mb_done(&b);
		cr_assert_eq(rtr_cp_index_build(&b.m, &ix), 0);
		for (uint32_t i = 0; i < nt; i++) {
			struct rtr_critpath cp;

			cr_assert_eq(rtr_critpath(&b.m, &ix, i, &cp), 0);
			cr_assert_geq(cp.end, cp.start);
			if (cp.end > cp.start)
				check_list(&cp, 0, cp.ntop, cp.start, cp.end);
			else
				cr_assert_eq(cp.ntop, 0);
			rtr_critpath_free(&cp);
		}
		cr_assert_eq(rtr_critpath(&b.m, &ix, nt, &(struct rtr_critpath){ 0 }), -EINVAL);
		rtr_cp_index_free(&ix);
		rtr_model_free(&b.m);
	}
}

/* ---- the command, on a trace written with the API ----------------------------------- */

static char *rt(const char *args, int *status)
{
	char cmd[PATH_MAX + 1024];

	snprintf(cmd, sizeof(cmd), "'%s/ringtrace' %s 2>&1", t_bindir(), args);
	return t_sh(cmd, status);
}

/*
 * main creates "conn" (waits for "reply", a wait that "rx" resolves) and
 * runs; the path of conn: waiting for reply, runnable, running.
 */
Test(tools_why, command_text_and_json)
{
	char dir[] = "/dev/shm/rtr-why-XXXXXX", region[96], trace[96], args[PATH_MAX];
	struct rtr_convert_report rep;
	struct rtr_config cfg = { .struct_size = sizeof(cfg) };
	struct rtr_model m;
	char err[256], *out;
	int st;

	t_pin0();
	cr_assert_not_null(mkdtemp(dir));
	snprintf(region, sizeof(region), "%s/region", dir);
	snprintf(trace, sizeof(trace), "%s/trace", dir);
	cfg.path = region;
	cr_assert_eq(rtr_start(&cfg), 0);
	uint64_t main_t = rtr_task_id(), conn = rtr_task_id(), rx = rtr_task_id();

	rtr_create(0, main_t, RTR_KIND_THREAD);
	rtr_label(main_t, "main");
	rtr_switch(main_t);
	uint64_t reply = rtr_named_wait(main_t, "reply");

	rtr_create(main_t, conn, RTR_KIND_BIND);
	rtr_label(conn, "conn 1");
	rtr_try_read(conn, reply);
	rtr_switch(0);
	rtr_switch(main_t);
	rtr_create(main_t, rx, RTR_KIND_TASK);
	rtr_label(rx, "rx");
	rtr_switch(rx);
	rtr_resolve(rx, reply);
	rtr_resolve(rx, rx);
	rtr_switch(conn);
	rtr_read(conn, reply);
	rtr_resolve(conn, conn);
	rtr_switch(0);
	cr_assert_eq(rtr_stop(), 0);
	cr_assert_eq(rtr_convert(region, trace, &rep), 0, "%s", rep.err);

	/* the expected figures from the model */
	char *dirs[] = { trace };
	cr_assert_geq(rtr_model_load(&m, dirs, 1, err, sizeof(err)), 0, "%s", err);
	uint32_t ci = NONE;

	for (uint32_t i = 0; i < m.ntasks; i++)
		if (m.tasks[i].id == conn)
			ci = i;
	cr_assert_neq(ci, NONE);
	long long dur = m.tasks[ci].resolved - m.tasks[ci].created;

	snprintf(args, sizeof(args), "why --json '%s' 'conn *'", trace);
	out = rt(args, &st);
	cr_assert_eq(st, 0, "%s", out);
	char want[128];

	snprintf(want, sizeof(want), "\"duration_ns\": %lld", dur);
	cr_assert_not_null(strstr(out, want), "%s", out);
	cr_assert_not_null(strstr(out, "\"label\": \"conn 1\""), "%s", out);
	char *w = strstr(out, "\"what\": \"waiting for task\"");

	cr_assert_not_null(w, "%s", out);
	cr_assert_not_null(strstr(w, "\"label\": \"reply\""), "%s", out);
	cr_assert_not_null(strstr(out, "\"what\": \"runnable\""), "%s", out);
	cr_assert_not_null(strstr(out, "\"what\": \"running\""), "%s", out);
	free(out);

	/* the text, by id; and --slowest */
	snprintf(args, sizeof(args), "why '%s' %llu", trace, (unsigned long long)conn);
	out = rt(args, &st);
	cr_assert_eq(st, 0, "%s", out);
	cr_assert_not_null(strstr(out, "\"conn 1\" (bind)"), "%s", out);
	cr_assert_not_null(strstr(out, "waiting for task"), "%s", out);
	cr_assert_not_null(strstr(out, "\"reply\" (wait), woken by"), "%s", out);
	free(out);
	snprintf(args, sizeof(args), "why --slowest bind -n 5 '%s'", trace);
	out = rt(args, &st);
	cr_assert_eq(st, 0, "%s", out);
	cr_assert_not_null(strstr(out, "the 1 slowest of 1 resolved tasks of kind bind"), "%s", out);
	free(out);

	/* errors */
	static const struct { const char *args; int status; const char *msg; } bad[] = {
		{ "", 2, "usage: ringtrace why" },
		{ "--help", 0, "usage: ringtrace why" },
		{ "--bogus T x", 2, "unknown option '--bogus'" },
		{ "/nonexistent/trace x", 2, "no such trace: /nonexistent/trace" },
		{ "-n 0 --slowest bind TRACE", 2, "not a count" },
		{ "--slowest bind TRACE x", 2, "--slowest takes one TRACE" },
		{ "TRACE 'no such label'", 1, "no task with the id or a label 'no such label'" },
		{ "--slowest nokind TRACE", 1, "no resolved task of kind 'nokind'" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char a[PATH_MAX], *p;
		const char *src = bad[i].args;
		size_t n = 0;

		/* TRACE stands for the trace's path */
		while (*src && n < sizeof(a) - 100) {
			if (!strncmp(src, "TRACE", 5)) {
				n += (size_t)snprintf(a + n, sizeof(a) - n, "'%s'", trace);
				src += 5;
			} else {
				a[n++] = *src++;
			}
		}
		a[n] = 0;
		snprintf(args, sizeof(args), "why %s", a);
		p = rt(args, &st);
		cr_expect_eq(st, bad[i].status, "why %s: status %d: %s", a, st, p);
		cr_expect_not_null(strstr(p, bad[i].msg), "why %s: %s", a, p);
		free(p);
	}
	rtr_model_free(&m);
	snprintf(args, sizeof(args), "rm -rf '%s'", dir);
	cr_expect_eq(system(args), 0);
}
