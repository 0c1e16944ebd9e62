// SPDX-License-Identifier: MIT
/*
 * tests/examples/test_cpp.c - the C++ example (examples/cpp/pool.cc, a
 * std::thread pool) recorded with `ringtrace record`: every job's typed
 * event holds what the job computed and what the program printed, the
 * workers' and jobs' tasks are created, labelled and resolved, the queue's
 * counter goes up and back to 0; babeltrace2 reads the same trace.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include "tests/helpers.h"

TestSuite(examples_cpp, .timeout = 120);

#define WORKERS 4
#define JOBS 64

static char dir[64];

static void setup(void)
{
	t_mkdtemp(dir, sizeof(dir), "cpp");
}

static void teardown(void)
{
	t_rm_rf(dir);
}

/* What job @n computes (examples/cpp/pool.cc's churn()). */
static uint64_t churn(uint64_t n)
{
	uint64_t x = n;

	for (uint64_t k = 0; k < n; k++) {
		x = x * 6364136223846793005u + 1442695040888963407u;
		x ^= x >> 29;
	}
	return x;
}

static char *sh(const char *fmt, const char *a, const char *b)
{
	char cmd[1024], *out;
	int st;

	snprintf(cmd, sizeof(cmd), fmt, a, b);
	out = t_sh(cmd, &st);
	cr_assert_eq(st, 0, "%s:\n%s", cmd, out);
	return out;
}

/* How many times @needle is in @hay. */
static unsigned count(const char *hay, const char *needle)
{
	unsigned n = 0;

	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

Test(examples_cpp, the_thread_pool_is_recorded_with_its_tasks_counter_and_typed_events,
     .init = setup, .fini = teardown)
{
	char cmd[1024], want[256], *out, *dump, *bt, *p;
	unsigned seen[JOBS] = { 0 }, workers = 0;
	int64_t last_queue = -1, max_queue = 0;
	unsigned nqueue = 0;
	int st;

	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && '%s/ringtrace' record -q -o trace -- '%s/ringtrace-cpp-pool' "
		 "--workers %d --jobs %d", dir, t_bindir(), t_bindir(), WORKERS, JOBS);
	out = t_sh(cmd, &st);
	cr_assert_eq(st, 0, "%s:\n%s", cmd, out);
	snprintf(want, sizeof(want), "done: %d jobs\n", JOBS);
	cr_assert_not_null(strstr(out, want), "%s", out);
	dump = sh("'%s/ringtrace' dump '%s/trace' 2>/dev/null", t_bindir(), dir);

	/* Each job: one typed event, its fields as the program computed and printed them. */
	for (p = strstr(dump, "pool:job: "); p; p = strstr(p + 1, "pool:job: ")) {
		unsigned job, worker, parity;
		uint64_t n, result;
		char label[8], name[32];

		cr_assert_eq(sscanf(p, "pool:job: { job = %u, worker = %u, n = %" SCNu64
				    ", result = %" SCNu64 ", parity = %7s (%u), name = \"%31[^\"]\" }",
				    &job, &worker, &n, &result, label, &parity, name), 7,
			     "%.200s", p);
		cr_assert_lt(job, JOBS, "%.200s", p);
		cr_expect_eq(seen[job]++, 0, "job %u recorded twice", job);
		cr_expect_lt(worker, WORKERS, "%.200s", p);
		workers |= 1u << worker;
		cr_expect_eq(n, 100000 + 3701 * (uint64_t)job, "%.200s", p);
		cr_expect_eq(result, churn(n), "%.200s", p);
		cr_expect_eq(parity, n % 2, "%.200s", p);
		cr_expect_str_eq(label, n % 2 ? "odd" : "even", "%.200s", p);
		snprintf(want, sizeof(want), "job %u", job);
		cr_expect_str_eq(name, want, "%.200s", p);
		snprintf(want, sizeof(want), "job %u n %" PRIu64 " result %" PRIu64 " worker %u\n",
			 job, n, result, worker);
		cr_expect_not_null(strstr(out, want), "the program printed no \"%s\"", want);
	}
	for (unsigned i = 0; i < JOBS; i++)
		cr_expect_eq(seen[i], 1, "job %u: %u events", i, seen[i]);
	cr_expect_neq(workers, 0);

	/* Tasks: main, the workers (threads) and the jobs, labelled; each job resolved. */
	cr_expect_eq(count(dump, "label: { task = 1, text = \"main\" }"), 1, "%s", dump);
	for (unsigned w = 0; w < WORKERS; w++) {
		snprintf(want, sizeof(want), "text = \"worker %u\" }", w);
		cr_expect_eq(count(dump, want), 1, "%s", want);
	}
	for (unsigned i = 0; i < JOBS; i++) {
		snprintf(want, sizeof(want), "text = \"job %u\" }", i);
		cr_expect_eq(count(dump, want), 1, "%s", want);
	}
	cr_expect_eq(count(dump, "create: { parent = 1, child = "), WORKERS + JOBS);
	cr_expect_eq(count(dump, ", kind = thread (20) }"), WORKERS);
	cr_expect_eq(count(dump, "resolve: { "), JOBS);
	cr_expect_eq(count(dump, "read: { reader = "), JOBS);

	/* The queue's length: a value per push and per pop, never above JOBS, 0 at the end. */
	for (p = strstr(dump, "counter: { counter = pool.queue (0), value = "); p;
	     p = strstr(p + 1, "counter: { counter = pool.queue (0), value = ")) {
		last_queue = strtoll(p + strlen("counter: { counter = pool.queue (0), value = "),
				     NULL, 10);
		if (last_queue > max_queue)
			max_queue = last_queue;
		nqueue++;
	}
	cr_expect_eq(nqueue, 2 * JOBS);
	cr_expect_eq(last_queue, 0);
	cr_expect(max_queue >= 1 && max_queue <= JOBS, "max %" PRId64, max_queue);

	/* babeltrace2 reads the same events, the enumeration's labels with them. */
	bt = sh("babeltrace2 '%s/trace' 2>&1%s", dir, "");
	cr_expect_eq(count(bt, "pool:job: "), JOBS, "%s", bt);
	cr_expect_not_null(strstr(bt, "name = \"job 7\""), "%s", bt);
	cr_expect_not_null(strstr(bt, "parity = ( \"odd\" : container = 1 )"), "%s", bt);
	cr_expect_null(strstr(bt, "WARNING"), "%s", bt);
	free(bt);
	free(dump);
	free(out);
}
