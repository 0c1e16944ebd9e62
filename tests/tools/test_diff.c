// SPDX-License-Identifier: MIT
/*
 * tests/tools/test_diff.c - `ringtrace diff A B`: two runs written with the
 * public API, the same requests, B's "GET /b/N" handler 2 ms slower: the
 * group named, slower, the delay found within 10 % in the percentiles and
 * in the critical path; the seeds' ARP race (ringtrace-arp recorded, the
 * usual order against the race): the lost wake-up named, and not against
 * the fix; usage errors.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <ringtrace/ringtrace.h>
#include "consumer/convert.h"
#include "tests/helpers.h"

TestSuite(tools_diff, .timeout = 180);

static char dir[PATH_MAX];

#define NREQ 40
#define DELAY_NS 2000000

static void setup(void)
{
	t_mkdtemp(dir, sizeof(dir), "diff");
}

static void teardown(void)
{
	if (!getenv("RTR_KEEP"))
		t_rm_rf(dir);
}

/* Spin @ns of wall time; return how long it took (more when preempted at its end). */
static int64_t spin_ns(int64_t ns)
{
	struct timespec a, b;
	int64_t d;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		clock_gettime(CLOCK_MONOTONIC, &b);
		d = (b.tv_sec - a.tv_sec) * 1000000000ll + (b.tv_nsec - a.tv_nsec);
	} while (d < ns);
	return d;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

/* The median of the /b/ handlers' spins of run @name, as the child measured them. */
static long long median_spin(const char *name)
{
	char path[PATH_MAX + 16];
	long long v[NREQ];
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.spins", dir, name);
	f = fopen(path, "r");
	cr_assert_not_null(f, "%s", path);
	while (n < NREQ && fscanf(f, "%lld", &v[n]) == 1)
		n++;
	fclose(f);
	cr_assert_eq(n, NREQ / 2);
	qsort(v, n, sizeof(v[0]), cmp_ll);
	return v[(n + 1) / 2 - 1];
}


/*
 * In a child process: @name, NREQ requests "GET /a/N" and "GET /b/N" in
 * turn, each waiting for its "work" task (100 us for /a/, 300 us for /b/,
 * plus @extra_b for /b/); how long each /b/ spin took into @name.spins.
 */
static void write_run(const char *name, int64_t extra_b)
{
	char region[PATH_MAX + 16], trace[PATH_MAX + 16];
	pid_t pid;
	int st;

	snprintf(region, sizeof(region), "%s/%s.region", dir, name);
	snprintf(trace, sizeof(trace), "%s/%s", dir, name);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (!pid) {
		struct rtr_config cfg = { .struct_size = sizeof(cfg), .path = region };
		struct rtr_convert_report rep;
		char spath[PATH_MAX + 16];
		FILE *spins;

		snprintf(spath, sizeof(spath), "%s/%s.spins", dir, name);
		spins = fopen(spath, "w");
		if (!spins)
			_exit(12);
		t_pin0();
		if (rtr_start(&cfg))
			_exit(10);
		uint64_t main_t = rtr_task_id();

		rtr_create(0, main_t, RTR_KIND_THREAD);
		rtr_label(main_t, "main");
		for (int i = 0; i < NREQ; i++) {
			uint64_t req = rtr_task_id(), work = rtr_task_id();
			bool b = i & 1;
			char label[32];

			rtr_switch(main_t);
			rtr_create(main_t, req, RTR_KIND_REQUEST);
			snprintf(label, sizeof(label), "GET /%c/%d", b ? 'b' : 'a', i);
			rtr_label(req, label);
			rtr_create(req, work, RTR_KIND_TASK);
			rtr_label(work, "work");
			rtr_try_read(req, work);
			rtr_switch(work);
			int64_t took = spin_ns((b ? 300000 : 100000) + (b ? extra_b : 0));

			if (b)
				fprintf(spins, "%lld\n", (long long)took);
			rtr_resolve(work, work);
			rtr_switch(req);
			rtr_read(req, work);
			rtr_resolve(req, req);
		}
		rtr_switch(0);
		if (rtr_stop() || rtr_convert(region, trace, &rep) || rep.events_lost || fclose(spins))
			_exit(11);
		unlink(region);
		_exit(0);
	}
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "writing %s: status %d", name, st);
}

static char *rt(const char *args, int *status)
{
	char cmd[4 * PATH_MAX];

	snprintf(cmd, sizeof(cmd), "cd '%s' && '%s/ringtrace' %s 2>&1", dir, t_bindir(), args);
	return t_sh(cmd, status);
}

/* The number after @key in @s from @from on (a JSON number). */
static long long num_after(const char *s, const char *key)
{
	const char *p = strstr(s, key);

	cr_assert_not_null(p, "no %s in %s", key, s);
	return atoll(p + strlen(key));
}

/*
 * The delay is wall time on a shared machine: the delay injected is the
 * one the handlers' spins took (the child measures each; a spin preempted
 * at its end lasts longer), at least 2 ms; diff must find it within 10 %.
 * A run whose requests were preempted outside the spins long enough to
 * move a median by more is written again, up to 3 times; the exact
 * figures diff reports are checked on every run.
 */
Test(tools_diff, the_slower_handler_and_its_delay_are_found, .init = setup, .fini = teardown)
{
	char *out = NULL, *g, args[128];
	long long d = 0, pd = 0, inj = 0;
	int st;

	for (int attempt = 0; attempt < 3; attempt++) {
		char a[8], b[8];

		snprintf(a, sizeof(a), "a%d", attempt);
		snprintf(b, sizeof(b), "b%d", attempt);
		write_run(a, 0);
		write_run(b, DELAY_NS);
		free(out);
		snprintf(args, sizeof(args), "diff --json --group 'GET /b/*' %s %s", a, b);
		out = rt(args, &st);
		cr_assert_eq(st, 0, "%s", out);
		/* the /b/ group: named from the pattern, slower */
		g = strstr(out, "{\"name\": \"GET /b/*\"");
		cr_assert_not_null(g, "%s", out);
		cr_assert_not_null(strstr(g, "\"change\": \"slower\""), "%s", g);
		d = num_after(g, "\"p50_delta_ns\": ");
		/* the delta is B's median less A's, as the two groups report them */
		cr_assert_eq(d, num_after(strstr(g, "\"b\": {"), "\"p50_ns\": ") -
			     num_after(strstr(g, "\"a\": {"), "\"p50_ns\": "));
		/* the /a/ group, named by its label with the number made '*', 20 tasks a side */
		g = strstr(out, "{\"name\": \"GET /a/*\"");
		cr_assert_not_null(g, "%s", out);
		cr_assert_eq(num_after(g, "\"tasks\": "), NREQ / 2);
		/* the group that changed most, and its path: the wait for "work" grew */
		g = strstr(out, "\"changed_most\": {\"name\": \"GET /b/*\"");
		cr_assert_not_null(g, "%s", out);
		cr_assert_eq(num_after(g, "\"paths_b\": "), NREQ / 2);
		g = strstr(g, "{\"segment\": \"waiting for task \\\"work\\\" (task)\"");
		cr_assert_not_null(g, "%s", out);
		pd = num_after(g, "\"b_median_ns\": ") - num_after(g, "\"a_median_ns\": ");
		inj = median_spin(b) - median_spin(a);
		cr_assert_geq(inj, DELAY_NS - 300000 / 10, "the injected delay: %lld ns", inj);
		if (d > inj * 9 / 10 && d < inj * 11 / 10 && pd > inj * 9 / 10 && pd < inj * 11 / 10)
			break;
	}
	cr_assert(d > inj * 9 / 10 && d < inj * 11 / 10, "p50 delta %lld ns, injected %lld", d, inj);
	cr_assert(pd > inj * 9 / 10 && pd < inj * 11 / 10, "path delta %lld ns, injected %lld", pd,
		  inj);
	free(out);

	/* stats: the request kind's histogram holds its 40 durations, buckets in order */
	out = rt("stats --json a0", &st);
	cr_assert_eq(st, 0, "%s", out);
	g = strstr(out, "{\"kind\": \"request\"");
	cr_assert_not_null(g, "%s", out);
	cr_assert_eq(num_after(g, "\"durations\": "), NREQ);
	g = strstr(g, "\"histogram\": [");
	cr_assert_not_null(g, "%s", out);
	char *end = strchr(g, ']');
	long long sum = 0, prev_high = -1;

	cr_assert_not_null(end);
	for (char *b = strstr(g, "{\"low_ns\": "); b && b < end; b = strstr(b + 1, "{\"low_ns\": ")) {
		long long low = num_after(b, "\"low_ns\": "), high = num_after(b, "\"high_ns\": ");

		cr_assert_gt(high, low);
		cr_assert_geq(low, prev_high, "buckets in order");
		prev_high = high;
		sum += num_after(b, "\"count\": ");
	}
	cr_assert_eq(sum, NREQ, "%s", out);
	free(out);
	out = rt("stats a0", &st);
	cr_assert_eq(st, 0, "%s", out);
	cr_assert_not_null(strstr(out, "\nrequest: 40 durations, creation to resolution: p50 "), "%s", out);
	free(out);

	/* the text says the same */
	out = rt("diff a0 b0", &st);
	cr_assert_eq(st, 0, "%s", out);
	cr_assert_not_null(strstr(out, "the group that changed most: GET /b/* (request)"), "%s", out);
	g = strstr(out, "\nGET /b/*");
	cr_assert_not_null(g, "%s", out);
	cr_assert_not_null(strstr(g, "slower (x"), "%s", out);
	free(out);
}

/* ringtrace-arp @flags recorded into @dir/@name. */
static void arp(const char *name, const char *flags)
{
	char cmd[2 * PATH_MAX], *out;
	int st;

	snprintf(cmd, sizeof(cmd), "cd '%s' && '%s/ringtrace' record -q -o %s -- '%s/ringtrace-arp' %s "
		 ">/dev/null; echo $?", dir, t_bindir(), name, t_bindir(), flags);
	out = t_sh(cmd, &st);
	cr_assert_eq(st, 0, "%s", cmd);
	free(out);
}

Test(tools_diff, the_seeds_lost_wakeup_is_named, .init = setup, .fini = teardown)
{
	char *out, *p;
	int st;

	arp("good", "");
	arp("bad", "--race --timeout 100");
	arp("fixed", "--race --fixed");
	out = rt("diff good bad", &st);
	cr_assert_eq(st, 0, "%s", out);
	p = strstr(out, "\nTCP connect ");
	cr_assert_not_null(p, "%s", out);
	cr_assert_not_null(strstr(p, "HANGS in B, 1 never resolved in B"), "%s", out);
	cr_assert_not_null(strstr(out, "the group that changed most: TCP connect (bind)"), "%s", out);
	p = strstr(out, "the bug: in B, task ");
	cr_assert_not_null(p, "%s", out);
	cr_assert_not_null(strstr(p, "\"ARP response\" (wait) waits for task "), "%s", out);
	cr_assert_not_null(strstr(p, "\"ARP response\" (condition), which task "), "%s", out);
	cr_assert_not_null(strstr(p, "\"netif: rx ARP reply\" (task) signalled at "), "%s", out);
	cr_assert_not_null(strstr(p, "before the wait began, and nothing after: a lost wake-up"),
			   "%s", out);
	free(out);
	out = rt("diff --json good bad", &st);
	cr_assert_eq(st, 0, "%s", out);
	p = strstr(out, "\"lost_wakeup_b\": {\"waiter\": \"ARP response\", \"input\": \"ARP response\", "
		   "\"signalled_by\": \"netif: rx ARP reply\"");
	cr_assert_not_null(p, "%s", out);
	free(out);
	/* the fix loses nothing */
	out = rt("diff good fixed", &st);
	cr_assert_eq(st, 0, "%s", out);
	cr_assert_null(strstr(out, "lost wake-up"), "%s", out);
	cr_assert_null(strstr(out, "HANGS"), "%s", out);
	free(out);
}

Test(tools_diff, usage_errors, .init = setup, .fini = teardown)
{
	static const struct { const char *args; int status; const char *msg; } bad[] = {
		{ "diff", 2, "give two traces, A and B" },
		{ "diff --help", 0, "usage: ringtrace diff" },
		{ "diff x", 2, "give two traces" },
		{ "diff x y z", 2, "give two traces" },
		{ "diff --bogus x y", 2, "unknown option '--bogus'" },
		{ "diff --top 0 x y", 2, "not a count" },
		{ "diff --group", 2, "--group needs a value" },
		{ "diff /nonexistent/a /nonexistent/b", 2, "no such trace: /nonexistent/a" },
		{ "diff . .", 1, "ringtrace diff: " },
		{ "diff - -", 2, "A and B cannot both be standard input" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int st;
		char *out = rt(bad[i].args, &st);

		cr_expect_eq(st, bad[i].status, "%s: status %d: %s", bad[i].args, st, out);
		cr_expect_not_null(strstr(out, bad[i].msg), "%s: %s", bad[i].args, out);
		free(out);
	}
}

/* A and B load at once; each failure is told, A's first, and nothing is compared. */
Test(tools_diff, both_sides_failures_are_told_in_order, .init = setup, .fini = teardown)
{
	char e1[PATH_MAX + 8], e2[PATH_MAX + 8];
	int st;
	char *out;
	const char *a, *b;

	snprintf(e1, sizeof(e1), "%s/e1", dir);
	snprintf(e2, sizeof(e2), "%s/e2", dir);
	cr_assert(!mkdir(e1, 0755) && !mkdir(e2, 0755));
	out = rt("diff e1 e2", &st);
	a = strstr(out, "e1/metadata");
	b = strstr(out, "e2/metadata");

	cr_expect_eq(st, 1, "status %d: %s", st, out);
	cr_expect(a && b && a < b, "A's message, then B's: %s", out);
	cr_expect_null(strstr(out, "kind"), "nothing compared: %s", out);
	free(out);
}
