// SPDX-License-Identifier: MIT
/*
 * tests/consumer/test_trigger.c - record --mode overwrite --trigger
 * (tools/trigger.c): a program with a rare slow request, a counter spike,
 * an error status and a reply that never comes (tests/consumer/
 * trigger_prog.c) under a small ring that goes round many times; each
 * trigger's snapshot holds what met it, whole, and what came before it;
 * the limit a minute; the usage errors.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include "reader/model.h"
#include "tests/helpers.h"

TestSuite(consumer_trigger, .timeout = 180);

static char *rt(const char *args, int *status)
{
	char cmd[PATH_MAX + 2048];

	snprintf(cmd, sizeof(cmd), "cd /tmp && '%s/ringtrace' %s 2>&1", t_bindir(), args);
	return t_sh(cmd, status);
}

/* The task labelled @label in the trace @dir's model (loaded into @m), or RTR_MODEL_NONE. */
static uint32_t task_labelled(struct rtr_model *m, const char *dir, const char *label)
{
	char *dirs[] = { (char *)dir }, err[512];

	cr_assert_geq(rtr_model_load(m, dirs, 1, err, sizeof(err)), 0, "%s: %s", dir, err);
	for (uint32_t i = 0; i < m->ntasks; i++)
		if (!strcmp(rtr_model_str(m, m->tasks[i].name), label))
			return i;
	return RTR_MODEL_NONE;
}

/* Whether the trace @dir checks (`ringtrace check`). */
static void checks(const char *dir)
{
	char args[PATH_MAX + 64], *out;
	int st;

	snprintf(args, sizeof(args), "check '%s'", dir);
	out = rt(args, &st);
	cr_expect_eq(st, 0, "check %s: %s", dir, out);
	free(out);
}

/* The trace @dir checks, and its dump has the line that ends in @want. */
static void dumps(const char *dir, const char *want)
{
	char args[PATH_MAX + 64], *out;
	int st;

	checks(dir);
	snprintf(args, sizeof(args), "dump '%s'", dir);
	out = rt(args, &st);
	cr_expect_eq(st, 0, "dump %s: %s", dir, out);
	cr_expect_not_null(strstr(out, want), "%s: no '%s' in its dump", dir, want);
	free(out);
}

/*
 * One slow request among 2,000 at 200 us each, in a ring of 16 packets of
 * 4 KiB per CPU (about 1,200 requests on two CPUs): the trigger's snapshot
 * holds the slow request from its creation to its resolution, the
 * requests just before it whole, and not all those before it (the ring
 * went round); the end's snapshot is there too, and only the one trigger
 * met.
 */
Test(consumer_trigger, a_slow_request_takes_a_snapshot_that_holds_it_whole)
{
	char dir[PATH_MAX], args[PATH_MAX * 2], snap[PATH_MAX + 64], *out;
	struct rtr_model m;
	uint32_t slow, before;
	int st;

	t_mkdtemp(dir, sizeof(dir), "trigger");
	snprintf(args, sizeof(args), "record -o '%s/t' --mode overwrite --packet-size 4k --packets 16 "
		 "--trigger 'getslow=slow(GET /item/*) > 20ms' -- '%s/rtr-trigger-prog' "
		 "--requests 2000 --slow 1500", dir, t_bindir());
	out = rt(args, &st);
	cr_assert_eq(st, 0, "%s", out);
	cr_expect_not_null(strstr(out, "trigger getslow met: task "), "%s", out);
	cr_expect_not_null(strstr(out, "\"GET /item/1500\" resolved after 3"), "%s", out);
	cr_expect_not_null(strstr(out, "met 1 time, 1 snapshot"), "%s", out);
	cr_expect_not_null(strstr(out, "2 snapshots in"), "%s", out);
	snprintf(snap, sizeof(snap), "%s/t/snapshot-000000-getslow", dir);
	checks(snap);
	slow = task_labelled(&m, snap, "GET /item/1500");
	cr_assert_neq(slow, RTR_MODEL_NONE, "the slow request is not in its snapshot");
	cr_expect(m.tasks[slow].flags & RTR_TASK_CREATED, "its creation is not in the snapshot");
	cr_expect(m.tasks[slow].flags & RTR_TASK_RESOLVED, "its resolution is not in the snapshot");
	cr_expect_geq(m.tasks[slow].resolved - m.tasks[slow].created, 30000000,
		      "it took %lld ns", (long long)(m.tasks[slow].resolved - m.tasks[slow].created));
	rtr_model_free(&m);
	/* the pre-window: the requests before it, whole */
	before = task_labelled(&m, snap, "GET /item/1490");
	cr_assert_neq(before, RTR_MODEL_NONE, "the requests before it are not in the snapshot");
	cr_expect(m.tasks[before].flags & RTR_TASK_CREATED && m.tasks[before].flags & RTR_TASK_RESOLVED);
	rtr_model_free(&m);
	/*
	 * Not all of them: the ring went round (a CPU the program left early
	 * may keep its first requests: count, do not name).
	 */
	{
		uint32_t gets = 0;

		task_labelled(&m, snap, "");
		for (uint32_t i = 0; i < m.ntasks; i++)
			gets += !strncmp(rtr_model_str(&m, m.tasks[i].name), "GET /item/", 10);
		cr_expect_lt(gets, 1500, "%u requests in the snapshot, all those before the slow "
			     "one: the ring did not go round", gets);
	}
	rtr_model_free(&m);
	snprintf(snap, sizeof(snap), "%s/t/snapshot-000001", dir);
	checks(snap);
	free(out);
	t_rm_rf(dir);
}

/*
 * Three triggers at once, each met once, 100 ms apart and more: a counter
 * crossing 500, a typed event's field, a should_resolve task unresolved
 * after 100 ms.  Each snapshot holds its cause.
 */
Test(consumer_trigger, counter_event_and_unresolved_triggers_each_take_their_snapshot)
{
	char dir[PATH_MAX], args[PATH_MAX * 2], snap[PATH_MAX + 64], *out;
	struct rtr_model m;
	uint32_t lost;
	int st;

	t_mkdtemp(dir, sizeof(dir), "trigger");
	snprintf(args, sizeof(args), "record -o '%s/t' --mode overwrite --packet-size 4k --packets 64 "
		 "--trigger 'qlen=counter(queue length) > 500' "
		 "--trigger 'err=event(app:*).status >= 500' "
		 "--trigger 'lost=unresolved(lost *) > 100ms' -- '%s/rtr-trigger-prog' "
		 "--requests 2500 --spike 300 --error 900 --lost 1500", dir, t_bindir());
	out = rt(args, &st);
	cr_assert_eq(st, 0, "%s", out);
	cr_expect_not_null(strstr(out, "trigger qlen met: counter queue length at 1000"), "%s", out);
	cr_expect_not_null(strstr(out, "trigger err met: event app:request with status 503"), "%s",
			   out);
	cr_expect_not_null(strstr(out, "\"lost reply\" unresolved after 1"), "%s", out);
	cr_expect_not_null(strstr(out, "trigger qlen (counter(queue length) > 500): met 1 time, "
				      "1 snapshot"), "%s", out);
	cr_expect_not_null(strstr(out, "(event(app:*).status >= 500): met 1 time, 1 snapshot"), "%s",
			   out);
	cr_expect_not_null(strstr(out, "(unresolved(lost *) > 100ms): met 1 time, 1 snapshot"), "%s",
			   out);
	cr_expect_not_null(strstr(out, "4 snapshots in"), "%s", out);

	snprintf(snap, sizeof(snap), "%s/t/snapshot-000000-qlen", dir);
	dumps(snap, "counter = queue length (0), value = 1000 }");
	snprintf(snap, sizeof(snap), "%s/t/snapshot-000001-err", dir);
	dumps(snap, "status = 503, path = \"GET /item/900\" }");

	snprintf(snap, sizeof(snap), "%s/t/snapshot-000002-lost", dir);
	checks(snap);
	lost = task_labelled(&m, snap, "lost reply");
	cr_assert_neq(lost, RTR_MODEL_NONE, "the lost reply is not in its snapshot");
	cr_expect(m.tasks[lost].flags & RTR_TASK_SHOULD_RESOLVE);
	cr_expect_not(m.tasks[lost].flags & RTR_TASK_RESOLVED);
	rtr_model_free(&m);
	free(out);
	t_rm_rf(dir);
}

/*
 * Met at every request: --trigger-limit 2 takes two snapshots in the
 * minute, counts the rest (a ring of about a second: every event tested).
 */
Test(consumer_trigger, the_limit_a_minute_holds_and_counts_the_rest)
{
	char dir[PATH_MAX], args[PATH_MAX * 2], snap[PATH_MAX + 64], *out, *p;
	unsigned long long met, over;
	int st;

	t_mkdtemp(dir, sizeof(dir), "trigger");
	snprintf(args, sizeof(args), "record -o '%s/t' --mode overwrite --packet-size 4k --packets 64 "
		 "--trigger-limit 2 --trigger 'every=event(app:request).path == \"GET *\"' -- "
		 "'%s/rtr-trigger-prog' --requests 1000", dir, t_bindir());
	out = rt(args, &st);
	cr_assert_eq(st, 0, "%s", out);
	p = strstr(out, "trigger every (");
	cr_assert_not_null(p, "%s", out);
	p = strstr(p, "): met ");
	cr_assert_not_null(p, "%s", out);
	cr_assert_eq(sscanf(p, "): met %llu times, 2 snapshots; %llu not taken", &met, &over), 2, "%s",
		     out);
	cr_expect_eq(met, 1000, "%s", out);
	cr_expect_eq(over, 998, "%s", out);
	cr_expect_not_null(strstr(out, "over the limit of 2 snapshots a minute"), "%s", out);
	for (int i = 0; i < 2; i++) {
		snprintf(snap, sizeof(snap), "%s/t/snapshot-%06d-every", dir, i);
		checks(snap);
	}
	snprintf(snap, sizeof(snap), "%s/t/snapshot-000002", dir);
	checks(snap);
	free(out);
	t_rm_rf(dir);
}

/*
 * The program writes random bytes over its own ring as it goes, under three
 * triggers: the recorder reads on, counts the packets it did not believe,
 * and ends with the program (under ASan in make check: no bad read).
 */
Test(consumer_trigger, a_program_that_scribbles_on_its_ring_does_not_stop_the_watch)
{
	char dir[PATH_MAX], args[PATH_MAX * 2], *out, *p;
	unsigned long long bad = 0;
	int st;

	t_mkdtemp(dir, sizeof(dir), "trigger");
	snprintf(args, sizeof(args), "record -o '%s/t' --mode overwrite --packet-size 4k --packets 16 "
		 "--trigger 'slow(GET *) > 20ms' --trigger 'event(app:request).path != \"GET *\"' "
		 "--trigger 'counter(queue length) < 0' --trigger-limit 600 -- "
		 "'%s/rtr-trigger-prog' --requests 2000 --scribble 200", dir, t_bindir());
	out = rt(args, &st);
	cr_assert_eq(st, 0, "%s", out);
	cr_expect_not_null(strstr(out, "exited with status 0"), "%s", out);
	p = strstr(out, "the triggers tested ");
	cr_assert_not_null(p, "%s", out);
	p = strstr(p, "; ");
	while (p && sscanf(p, "; %llu packets did not check", &bad) != 1)
		p = strstr(p + 1, "; ");
	cr_expect_gt(bad, 0, "no packet was found damaged: %s", out);
	free(out);
	t_rm_rf(dir);
}

Test(consumer_trigger, usage_errors_name_the_problem)
{
	static const struct {
		const char *args, *want;
	} cases[] = {
		{ "--trigger 'slow(x) > 1ms' -- true", "give --mode overwrite" },
		{ "--mode overwrite --trigger 'slow(x) < 1ms' -- true", "compares with > TIME" },
		{ "--mode overwrite --trigger 'fast(x) > 1ms' -- true",
		  "'fast' is none of slow, unresolved, counter, event" },
		{ "--mode overwrite --trigger 'slow(x) > soon' -- true", "not a time like 20ms" },
		{ "--mode overwrite --trigger 'counter(q) == 3' -- true", "crosses a value" },
		{ "--mode overwrite --trigger 'event(a:b).f > \"x\"' -- true",
		  "a string compares with == or !=" },
		{ "--mode overwrite --trigger 'event(a:b).f' -- true", "no comparison" },
		{ "--mode overwrite --trigger 'a=slow(x) > 1ms' --trigger 'a=slow(y) > 1ms' -- true",
		  "two are named a" },
		{ "--mode overwrite --trigger-limit 0 -- true", "1 to 600" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char args[512], *out;
		int st;

		snprintf(args, sizeof(args), "record -o /tmp/rtr-trigger-never %s", cases[i].args);
		out = rt(args, &st);
		cr_expect_eq(st, 2, "%s: exit %d: %s", cases[i].args, st, out);
		cr_expect_not_null(strstr(out, cases[i].want), "%s: %s", cases[i].args, out);
		free(out);
	}
}
