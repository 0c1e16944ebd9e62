// SPDX-License-Identifier: MIT
/*
 * tests/tools/test_model.c - the task model (tools/model.c) rebuilt from
 * traces this test writes with the public API: every task, arrow, run,
 * counter sample, note and pause exactly; `ringtrace stats` against
 * durations computed independently from `ringtrace dump`; `ringtrace
 * export` through a Trace Event checker (tests/tools/check_trace_events.py);
 * damaged traces keep what came before the damage; usage errors.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <ringtrace/ringtrace.h>
#include "consumer/convert.h"
#include "tests/helpers.h"
#include "tools/model.h"

TestSuite(tools_model, .timeout = 120);

struct session {
	char dir[64];
	char region[96];
	char trace[96];
};

static void session_start(struct session *s, uint32_t psize, uint32_t npk)
{
	struct rtr_config cfg = { .struct_size = sizeof(cfg), .packet_size = psize,
				  .packets_per_cpu = npk };

	t_pin0();	/* one stream holds every event: a known order */
	strcpy(s->dir, "/dev/shm/rtr-model-XXXXXX");
	cr_assert_not_null(mkdtemp(s->dir));
	snprintf(s->region, sizeof(s->region), "%s/region", s->dir);
	snprintf(s->trace, sizeof(s->trace), "%s/trace", s->dir);
	cfg.path = s->region;
	cr_assert_eq(rtr_start(&cfg), 0);
}

static void session_stop(struct session *s)
{
	struct rtr_convert_report rep;

	cr_assert_eq(rtr_stop(), 0);
	cr_assert_eq(rtr_convert(s->region, s->trace, &rep), 0, "%s", rep.err);
	cr_assert_eq(rep.events_lost, 0);
}

static void session_end(struct session *s)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", s->dir);
	cr_expect_eq(system(cmd), 0);
}

/* `ringtrace ARGS` (stderr to stdout when @merge): output and exit status. */
static char *rt(const char *args, bool merge, int *status)
{
	char cmd[PATH_MAX + 1024];

	snprintf(cmd, sizeof(cmd), "'%s/ringtrace' %s%s", t_bindir(), args,
		 merge ? " 2>&1" : " 2>/dev/null");
	return t_sh(cmd, status);
}

/* The ids of the known trace's tasks. */
struct known {
	uint64_t main, a, b, c, e, pre;
	uint32_t ctr;
};

/*
 * The known trace: main creates a (a named wait), b (should_resolve, never
 * resolved), c (a user kind, failed) and e (should_resolve, becomes a, which
 * is resolved); main reads a task it never created (preexisting).
 */
static void known_trace(struct session *s, struct known *k)
{
	session_start(s, 0, 0);
	cr_assert_eq(rtr_counter_register("queue#1", &k->ctr), 0);
	k->main = rtr_task_id();
	rtr_create(0, k->main, RTR_KIND_THREAD);
	rtr_label(k->main, "main");
	rtr_switch(k->main);
	k->a = rtr_named_wait(k->main, "A");
	k->b = rtr_task_id();
	rtr_create(k->main, k->b, RTR_KIND_TASK);
	rtr_should_resolve(k->b);
	k->c = rtr_task_id();
	rtr_create(k->main, k->c, RTR_KIND_USER + 6);
	k->e = rtr_task_id();
	rtr_create(k->main, k->e, RTR_KIND_TASK);
	rtr_should_resolve(k->e);
	rtr_becomes(k->e, k->a);
	rtr_try_read(k->main, k->a);
	rtr_try_read(k->main, k->c);
	rtr_counter_set(k->ctr, 5);
	rtr_switch(k->a);
	rtr_resolve(k->main, k->a);
	rtr_switch(k->main);
	rtr_read(k->main, k->a);
	rtr_signal(k->main, k->c);
	rtr_fail(k->main, k->c, "bad\xff\x01 \"thing\"");
	rtr_counter_add(k->ctr, -2);
	k->pre = 999999;
	rtr_read(k->main, k->pre);
	rtr_note("note %d", 7);
	rtr_pause(1000, "gc");
	rtr_switch(0);
	session_stop(s);
}

static uint32_t find_task(const struct rtr_model *m, uint64_t id)
{
	for (uint32_t i = 0; i < m->ntasks; i++) {
		if (m->tasks[i].id == id)
			return i;
	}
	cr_assert_fail("no task %" PRIu64, id);
	return RTR_MODEL_NONE;
}

static void load(struct rtr_model *m, const char *dir, int want)
{
	char *dirs[1] = { (char *)dir }, err[512];

	cr_assert_eq(rtr_model_load(m, dirs, 1, err, sizeof(err)), want, "%s", err);
}

Test(tools_model, tasks_arrows_runs_counters_exactly)
{
	struct session s;
	struct known k;
	struct rtr_model m;
	uint32_t imain, ia, ib, ic, ie, ipre;
	const struct rtr_model_task *t;

	known_trace(&s, &k);
	load(&m, s.trace, 0);
	cr_assert_eq(m.ntraces, 1);
	cr_assert_eq(m.ntasks, 6);
	cr_expect_eq(m.ndamage, 0);
	imain = find_task(&m, k.main);
	ia = find_task(&m, k.a);
	ib = find_task(&m, k.b);
	ic = find_task(&m, k.c);
	ie = find_task(&m, k.e);
	ipre = find_task(&m, k.pre);
	cr_expect_eq(imain, 0, "tasks are in order of first mention");

	t = &m.tasks[imain];
	cr_expect_str_eq(rtr_model_str(&m, t->kind_name), "thread");
	cr_expect_str_eq(rtr_model_str(&m, t->name), "main");
	cr_expect_eq(t->parent, RTR_MODEL_NONE);
	cr_expect_eq(t->flags, RTR_TASK_CREATED);
	cr_expect_eq(t->nruns, 2);

	t = &m.tasks[ia];
	cr_expect_str_eq(rtr_model_str(&m, t->kind_name), "wait");
	cr_expect_str_eq(rtr_model_str(&m, t->name), "A");
	cr_expect_eq(t->parent, imain);
	cr_expect_eq(t->parent_id, k.main);
	cr_expect_eq(t->flags, RTR_TASK_CREATED | RTR_TASK_RESOLVED);
	cr_expect_eq(t->end, t->resolved);
	cr_expect_eq(t->became_from, ie);
	cr_expect_eq(t->nlabels, 1);
	cr_expect_eq(t->nruns, 1);

	t = &m.tasks[ib];
	cr_expect_str_eq(rtr_model_str(&m, t->kind_name), "task");
	cr_expect_eq(t->flags, RTR_TASK_CREATED | RTR_TASK_SHOULD_RESOLVE |
		     RTR_TASK_NEVER_RESOLVED);
	cr_expect_eq(t->end, m.traces[0].last, "a never resolved should_resolve runs to the end");

	t = &m.tasks[ic];
	cr_expect_str_eq(rtr_model_str(&m, t->kind_name), "kind 70");
	cr_expect_eq(t->kind, RTR_KIND_USER + 6);
	cr_expect_eq(t->flags, RTR_TASK_CREATED | RTR_TASK_RESOLVED | RTR_TASK_FAILED);
	cr_expect_str_eq(rtr_model_str(&m, t->reason), "bad\xff\x01 \"thing\"");

	t = &m.tasks[ie];
	cr_expect_eq(t->flags, RTR_TASK_CREATED | RTR_TASK_SHOULD_RESOLVE | RTR_TASK_BECAME,
		     "its becomes chain ends in a resolved task");
	cr_expect_eq(t->becomes, ia);
	cr_expect_eq(rtr_model_last_task(&m, ie), ia);

	t = &m.tasks[ipre];
	cr_expect_eq(t->flags, RTR_TASK_PREEXISTING);
	cr_expect_eq(t->kind, RTR_MODEL_KIND_UNKNOWN);
	cr_expect_str_eq(rtr_model_str(&m, t->kind_name), "preexisting");

	/* arrows, in time order: try_read a (hidden by the read), try_read c, resolve, read,
	 * signal, fail, read of the preexisting task */
	static const struct {
		int kind, flags;
	} want[] = {
		{ RTR_ARROW_TRY_READ, RTR_ARROW_HIDDEN }, { RTR_ARROW_TRY_READ, 0 },
		{ RTR_ARROW_RESOLVE, 0 }, { RTR_ARROW_READ, 0 }, { RTR_ARROW_SIGNAL, 0 },
		{ RTR_ARROW_RESOLVE, RTR_ARROW_FAILURE }, { RTR_ARROW_READ, 0 },
	};
	const uint32_t from[] = { ia, ic, imain, ia, imain, imain, ipre };
	const uint32_t to[] = { imain, imain, ia, imain, ic, ic, imain };

	cr_assert_eq(m.narrows, 7);
	for (uint32_t i = 0; i < 7; i++) {
		const struct rtr_model_arrow *a = &m.arrows[i];

		cr_expect_eq(a->kind, want[i].kind, "arrow %u", i);
		cr_expect_eq(a->flags, want[i].flags, "arrow %u", i);
		cr_expect_eq(a->from, from[i], "arrow %u", i);
		cr_expect_eq(a->to, to[i], "arrow %u", i);
		if (i)
			cr_expect_geq(a->ts, m.arrows[i - 1].ts);
	}
	cr_expect_eq(m.arrows[3].t_from, m.tasks[ia].resolved, "a read starts at the resolution");
	cr_expect_eq(m.arrows[2].ts, m.tasks[ia].resolved);

	/* runs on CPU 0: main, a, main */
	cr_assert_eq(m.nruns, 3);
	for (uint32_t c = 0; c < m.ncpus; c++) {
		if (m.cpus[c].cpu != 0)
			continue;
		cr_assert_eq(m.cpus[c].nruns, 3);
		const struct rtr_model_run *r0 = &m.runs[m.cpu_runs[m.cpus[c].run_first]];
		const struct rtr_model_run *r1 = &m.runs[m.cpu_runs[m.cpus[c].run_first + 1]];
		const struct rtr_model_run *r2 = &m.runs[m.cpu_runs[m.cpus[c].run_first + 2]];

		cr_expect_eq(r0->task, imain);
		cr_expect_eq(r1->task, ia);
		cr_expect_eq(r2->task, imain);
		cr_expect_eq(r0->end, r1->start);
		cr_expect_eq(r1->end, r2->start);
		cr_expect_leq(r1->start, m.tasks[ia].resolved);
	}

	/* the counter: 5, then 3 */
	cr_assert_eq(m.ncounters, 1);
	cr_expect_str_eq(rtr_model_str(&m, m.counters[0].name), "queue#1");
	cr_assert_eq(m.counters[0].nsamples, 2);
	cr_expect_eq(m.samples[m.counters[0].sample_first].value, 5);
	cr_expect_eq(m.samples[m.counters[0].sample_first + 1].value, 3);
	cr_expect_eq(m.counters[0].min, 3);
	cr_expect_eq(m.counters[0].max, 5);

	cr_assert_eq(m.nnotes, 1);
	cr_expect_str_eq(rtr_model_str(&m, m.notes[0].text), "note 7");
	cr_assert_eq(m.npauses, 1);
	cr_expect_str_eq(rtr_model_str(&m, m.pauses[0].reason), "gc");
	cr_expect_eq(m.pauses[0].end - m.pauses[0].start, 1000);
	cr_expect_eq(m.nlosses, 0);

	cr_expect_eq(m.start, 0);
	cr_expect_eq(m.end, m.traces[0].last);
	for (uint32_t i = 0; i < m.ntasks; i++) {
		cr_expect_geq(m.tasks[i].created, 0);
		cr_expect_leq(m.tasks[i].created, m.tasks[i].end);
		cr_expect_leq(m.tasks[i].end, m.end);
	}
	rtr_model_free(&m);
	session_end(&s);
}

Test(tools_model, two_traces_share_one_axis)
{
	struct session s;
	struct known k;
	struct rtr_model m;
	char err[512];
	char *dirs[2];

	known_trace(&s, &k);
	dirs[0] = dirs[1] = s.trace;
	cr_assert_eq(rtr_model_load(&m, dirs, 2, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(m.ntraces, 2);
	cr_expect_eq(m.ntasks, 12, "the same id in two traces is two tasks");
	cr_expect_eq(m.tasks[6].trace, 1);
	cr_expect_eq(m.tasks[6].id, k.main);
	cr_expect_eq(m.narrows, 14);
	for (uint32_t i = 1; i < m.narrows; i++)
		cr_expect_geq(m.arrows[i].ts, m.arrows[i - 1].ts, "arrows sorted by time");
	cr_expect_eq(m.traces[0].first, 0);
	cr_expect_eq(m.traces[1].first, 0);
	cr_expect_eq(m.traces[0].offset_ns, m.traces[1].offset_ns);
	cr_expect_eq(m.ncounters, 2);
	cr_expect_eq(m.counters[1].group, 0, "same name prefix, same scale");
	rtr_model_free(&m);
	session_end(&s);
}

/* ---- stats against durations computed from `ringtrace dump` ------------------------ */

static void spin_ns(uint64_t ns)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((uint64_t)(b.tv_sec - a.tv_sec) * 1000000000u + (uint64_t)b.tv_nsec -
		 (uint64_t)a.tv_nsec < ns);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* "[SECONDS.NNNNNNNNN]" at the start of a dump line, as nanoseconds. */
static int64_t line_ns(const char *l)
{
	long long sec;
	char frac[16];

	cr_assert_eq(sscanf(l, "[%lld.%9[0-9]]", &sec, frac), 2, "%.80s", l);
	cr_assert_eq(strlen(frac), 9);
	return sec * 1000000000ll + atoll(frac);
}

static int64_t json_i64(const char *json, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\": ", key);
	p = strstr(json, pat);
	cr_assert_not_null(p, "no %s in %s", key, json);
	return atoll(p + strlen(pat));
}

#define NREQ 100

Test(tools_model, stats_agree_with_the_dump)
{
	static int64_t created[NREQ], durs[NREQ];
	static uint64_t ids[NREQ];
	struct session s;
	uint64_t parent;
	char args[256], *out, *line, *next, *kind;
	int st, n = 0;

	session_start(&s, 0, 0);
	parent = rtr_task_id();
	rtr_create(0, parent, RTR_KIND_THREAD);
	for (int i = 0; i < NREQ; i++) {
		ids[i] = rtr_task_id();
		rtr_create(parent, ids[i], RTR_KIND_REQUEST);
		spin_ns(2000 * (uint64_t)(i + 1));	/* 2 us to 200 us */
		rtr_resolve(parent, ids[i]);
	}
	session_stop(&s);

	/* every request's duration, from the dump's text */
	snprintf(args, sizeof(args), "dump --clock-seconds --no-delta '%s'", s.trace);
	out = rt(args, false, &st);
	cr_assert_eq(st, 0);
	for (line = out; line && *line; line = next) {
		const char *c, *r;
		unsigned long long p, ch;
		int i;

		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		c = strstr(line, "create: { parent = ");
		r = strstr(line, "resolve: { resolver = ");
		if (c && sscanf(c, "create: { parent = %llu, child = %llu", &p, &ch) == 2) {
			for (i = 0; i < NREQ && ids[i] != ch; i++)
				;
			if (i < NREQ)
				created[i] = line_ns(line);
		} else if (r && sscanf(r, "resolve: { resolver = %llu, task = %llu", &p, &ch) == 2) {
			for (i = 0; i < NREQ && ids[i] != ch; i++)
				;
			cr_assert_lt(i, NREQ);
			durs[n++] = line_ns(line) - created[i];
		}
	}
	free(out);
	cr_assert_eq(n, NREQ);
	qsort(durs, NREQ, sizeof(durs[0]), cmp_i64);
	cr_expect_geq(durs[NREQ - 1], 200000, "the longest request spun 200 us");

	snprintf(args, sizeof(args), "stats --json '%s'", s.trace);
	out = rt(args, false, &st);
	cr_assert_eq(st, 0, "%s", out);
	kind = strstr(out, "{\"kind\": \"request\"");
	cr_assert_not_null(kind, "%s", out);
	cr_expect_eq(json_i64(kind, "tasks"), NREQ);
	cr_expect_eq(json_i64(kind, "resolved"), NREQ);
	cr_expect_eq(json_i64(kind, "unresolved"), 0);
	/* nearest rank: p50 is the 50th of 100, p90 the 90th, p99 the 99th */
	cr_expect_eq(json_i64(kind, "p50_ns"), durs[49]);
	cr_expect_eq(json_i64(kind, "p90_ns"), durs[89]);
	cr_expect_eq(json_i64(kind, "p99_ns"), durs[98]);
	cr_expect_eq(json_i64(kind, "max_ns"), durs[NREQ - 1]);
	kind = strstr(out, "{\"kind\": \"thread\"");
	cr_assert_not_null(kind, "%s", out);
	cr_expect_eq(json_i64(kind, "unresolved"), 1);
	/* events: the thread's create, then a create and a resolve per request */
	cr_expect_eq(json_i64(out, "events"), 1 + 2 * NREQ);
	free(out);

	snprintf(args, sizeof(args), "stats '%s'", s.trace);
	out = rt(args, true, &st);
	cr_assert_eq(st, 0, "%s", out);
	cr_expect_not_null(strstr(out, "request"), "%s", out);
	cr_expect_not_null(strstr(out, "events/s"), "%s", out);
	free(out);
	session_end(&s);
}

/* ---- export ------------------------------------------------------------------------ */

static char *checker(const char *file, int *st)
{
	const char *src = getenv("RTR_SRCDIR");
	char cmd[PATH_MAX + 256];

	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 '%s/tests/tools/check_trace_events.py' "
		 "'%s' --summary 2>&1", src ? src : ".", file);
	return t_sh(cmd, st);
}

Test(tools_model, export_is_valid_trace_event_json)
{
	struct session s;
	struct known k;
	char args[512], file[160], *out, *json;
	size_t len;
	FILE *f;
	int st;

	known_trace(&s, &k);
	snprintf(file, sizeof(file), "%s/out.json", s.dir);
	snprintf(args, sizeof(args), "export --format chrome -o '%s' '%s'", file, s.trace);
	out = rt(args, true, &st);
	cr_assert_eq(st, 0, "%s", out);
	free(out);
	out = checker(file, &st);
	cr_assert_eq(st, 0, "the checker: %s", out);
	/* 6 tasks; 6 visible arrows; runs 3 + pause 1; 2 samples; note 1 */
	cr_expect_not_null(strstr(out, "\"b\": 6,"), "%s", out);
	cr_expect_not_null(strstr(out, "\"e\": 6,"), "%s", out);
	cr_expect_not_null(strstr(out, "\"flows\": 6,"), "%s", out);
	cr_expect_not_null(strstr(out, "\"n\": 12,"), "%s", out);
	cr_expect_not_null(strstr(out, "\"X\": 4,"), "%s", out);
	cr_expect_not_null(strstr(out, "\"C\": 2,"), "%s", out);
	cr_expect_not_null(strstr(out, "\"cpu 0\""), "%s", out);
	free(out);

	/* the failure reason: invalid UTF-8 replaced, control character and quotes escaped */
	f = fopen(file, "rb");
	cr_assert_not_null(f);
	json = malloc(1 << 20);
	len = fread(json, 1, (1 << 20) - 1, f);
	json[len] = 0;
	fclose(f);
	cr_expect_not_null(strstr(json, "\"reason\":\"bad\xef\xbf\xbd\\u0001 \\\"thing\\\"\""),
			   "%s", json);
	free(json);

	/* the same to standard output */
	snprintf(args, sizeof(args), "export --format=chrome '%s' > '%s'", s.trace, file);
	out = rt(args, true, &st);
	cr_assert_eq(st, 0, "%s", out);
	free(out);
	out = checker(file, &st);
	cr_expect_eq(st, 0, "%s", out);
	free(out);
	session_end(&s);
}

/* The checker itself catches what it is there for. */
Test(tools_model, checker_rejects_broken_traces)
{
	static const char *const broken[] = {
		"{\"traceEvents\":[{\"ph\":\"b\",\"name\":\"x\",\"cat\":\"t\",\"id\":\"1\",\"pid\":1,"
		"\"ts\":1}]}",
		"{\"traceEvents\":[{\"ph\":\"n\",\"name\":\"x\",\"cat\":\"t\",\"id\":\"1\",\"pid\":1,"
		"\"ts\":1,\"bind_id\":3,\"flow_out\":true}]}",
		"{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"x\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":1},"
		"{\"ph\":\"X\",\"name\":\"y\",\"pid\":1,\"tid\":1,\"ts\":4,\"dur\":1}]}",
		"{\"traceEvents\":[{\"ph\":\"C\",\"name\":\"c\",\"pid\":1,\"ts\":1,"
		"\"args\":{\"v\":\"7\"}}]}",
		"{\"traceEvents\":[{\"ph\":\"i\",\"name\":\"a\x01\",\"pid\":1,\"tid\":1,\"ts\":1}]}",
		"{\"traceEvents\":[{\"ph\":\"i\",\"name\":\"\xff\",\"pid\":1,\"tid\":1,\"ts\":1}]}",
	};
	char dir[] = "/dev/shm/rtr-chk-XXXXXX", file[64], *out;
	int st;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/x.json", dir);
	for (size_t i = 0; i < sizeof(broken) / sizeof(broken[0]); i++) {
		FILE *f = fopen(file, "w");

		cr_assert_not_null(f);
		fputs(broken[i], f);
		fclose(f);
		out = checker(file, &st);
		cr_expect_eq(st, 1, "broken %zu passed: %s", i, out);
		free(out);
	}
	unlink(file);
	rmdir(dir);
}

/* ---- damage and usage -------------------------------------------------------------- */

#define NDMG 2000

Test(tools_model, damaged_stream_keeps_what_came_before)
{
	struct session s;
	struct rtr_model m;
	char path[160], args[512], file[160], *out;
	struct stat sb;
	uint64_t parent;
	uint32_t kept;
	int st;

	session_start(&s, 4096, 256);
	parent = rtr_task_id();
	rtr_create(0, parent, RTR_KIND_THREAD);
	for (int i = 0; i < NDMG; i++) {
		uint64_t t = rtr_task_id();

		rtr_create(parent, t, RTR_KIND_REQUEST);
		rtr_resolve(parent, t);
	}
	session_stop(&s);
	load(&m, s.trace, 0);
	cr_assert_eq(m.ntasks, NDMG + 1);
	rtr_model_free(&m);

	/* cut stream_0 in the middle of a packet */
	snprintf(path, sizeof(path), "%s/stream_0", s.trace);
	cr_assert_eq(stat(path, &sb), 0);
	cr_assert_gt(sb.st_size, 8 * 4096, "several packets");
	cr_assert_eq(truncate(path, sb.st_size / 2 + 100), 0);

	load(&m, s.trace, 1);
	cr_assert_eq(m.ndamage, 1);
	cr_expect_not_null(strstr(rtr_model_str(&m, m.damage[0].message), "stream_0: offset "),
			   "%s", rtr_model_str(&m, m.damage[0].message));
	kept = m.ntasks;
	cr_expect_gt(kept, NDMG / 4, "the packets before the damage are kept");
	cr_expect_lt(kept, NDMG, "those after it are not");
	cr_expect(m.cpus[m.damage[0].cpu].damaged);
	cr_expect(m.traces[0].damaged);
	for (uint32_t i = 1; i < m.ntasks; i++)
		cr_expect(m.tasks[i].flags & RTR_TASK_CREATED);
	rtr_model_free(&m);

	snprintf(args, sizeof(args), "stats '%s'", s.trace);
	out = rt(args, true, &st);
	cr_expect_eq(st, 1, "%s", out);
	cr_expect_not_null(strstr(out, "damaged: "), "%s", out);
	cr_expect_not_null(strstr(out, "stream_0: offset "), "%s", out);
	cr_expect_not_null(strstr(out, "request"), "the figures before the damage: %s", out);
	free(out);

	snprintf(file, sizeof(file), "%s/out.json", s.dir);
	snprintf(args, sizeof(args), "export --format chrome -o '%s' '%s'", file, s.trace);
	out = rt(args, true, &st);
	cr_expect_eq(st, 1, "%s", out);
	cr_expect_not_null(strstr(out, "stream_0: offset "), "%s", out);
	free(out);
	out = checker(file, &st);
	cr_expect_eq(st, 0, "what was kept is still a valid export: %s", out);
	free(out);
	session_end(&s);
}

/* An overwrite-mode ring keeps the newest packets: the older ones are losses, placed and counted. */
Test(tools_model, losses_are_placed_and_counted)
{
	struct rtr_config cfg = { .struct_size = sizeof(cfg), .mode = RTR_MODE_OVERWRITE,
				  .packet_size = 4096, .packets_per_cpu = 4 };
	struct rtr_convert_report rep;
	struct session s;
	struct rtr_model m;
	uint64_t parent, lost = 0, pre = 0;
	char args[256], *out;
	int st;

	t_pin0();
	strcpy(s.dir, "/dev/shm/rtr-model-XXXXXX");
	cr_assert_not_null(mkdtemp(s.dir));
	snprintf(s.region, sizeof(s.region), "%s/region", s.dir);
	snprintf(s.trace, sizeof(s.trace), "%s/trace", s.dir);
	cfg.path = s.region;
	cr_assert_eq(rtr_start(&cfg), 0);
	parent = rtr_task_id();
	rtr_create(0, parent, RTR_KIND_THREAD);
	for (int i = 0; i < NDMG; i++) {
		uint64_t t = rtr_task_id();

		rtr_create(parent, t, RTR_KIND_REQUEST);
		rtr_resolve(parent, t);
	}
	cr_assert_eq(rtr_stop(), 0);
	cr_assert_eq(rtr_convert(s.region, s.trace, &rep), 0, "%s", rep.err);

	load(&m, s.trace, 0);
	cr_assert_gt(m.nlosses, 0);
	for (uint32_t i = 0; i < m.nlosses; i++) {
		const struct rtr_model_loss *l = &m.losses[i];

		cr_expect_eq(m.cpus[l->cpu].cpu, 0);
		cr_expect_leq(l->ts, m.cpus[l->cpu].first, "the loss comes before what was kept");
		if (l->kind == RTR_LOSS_PACKETS)
			lost += l->count;
	}
	for (uint32_t c = 0; c < m.ncpus; c++) {
		if (m.cpus[c].cpu == 0)
			cr_expect_eq(m.cpus[c].packets_lost, lost);
	}
	cr_expect_gt(lost, 0);
	/*
	 * the parent's create was overwritten: it is preexisting; so is at most one
	 * child, whose create was in the last packet lost and its resolve in the first kept
	 */
	for (uint32_t i = 0; i < m.ntasks; i++)
		pre += !!(m.tasks[i].flags & RTR_TASK_PREEXISTING);
	cr_expect(pre == 1 || pre == 2, "%" PRIu64 " preexisting tasks", pre);
	cr_expect(m.tasks[0].flags & RTR_TASK_PREEXISTING);
	cr_expect_lt(m.ntasks, NDMG);
	rtr_model_free(&m);

	snprintf(args, sizeof(args), "stats --json '%s'", s.trace);
	out = rt(args, false, &st);
	cr_assert_eq(st, 0, "%s", out);
	cr_expect_eq(json_i64(strstr(out, "\"cpus\""), "packets_lost"), (int64_t)lost, "%s", out);
	free(out);
	session_end(&s);
}

Test(tools_model, usage_and_bad_input)
{
	static const struct {
		const char *args;
		int status;
		const char *says;
	} cases[] = {
		{ "stats", 2, "usage: ringtrace stats" },
		{ "stats --bogus x", 2, "unknown option '--bogus'" },
		{ "stats --help", 0, "usage: ringtrace stats" },
		{ "stats /nonexistent/trace", 1, "/nonexistent/trace" },
		{ "export x", 2, "--format chrome is needed" },
		{ "export --format svg x", 2, "unknown format 'svg'" },
		{ "export --format chrome", 2, "usage: ringtrace export" },
		{ "export --format chrome -o", 2, "-o needs a value" },
		{ "export --help", 0, "usage: ringtrace export" },
		{ "export --format chrome /nonexistent/trace", 1, "/nonexistent/trace" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int st;
		char *out = rt(cases[i].args, true, &st);

		cr_expect_eq(st, cases[i].status, "%s: %s", cases[i].args, out);
		cr_expect_not_null(strstr(out, cases[i].says), "%s: %s", cases[i].args, out);
		free(out);
	}
}

/* Loading a directory without a trace fails with a message, and the model stays empty. */
Test(tools_model, unreadable_trace_is_an_error)
{
	char dir[] = "/dev/shm/rtr-empty-XXXXXX", err[512];
	char *dirs[1] = { dir };
	struct rtr_model m;

	cr_assert_not_null(mkdtemp(dir));
	cr_expect_eq(rtr_model_load(&m, dirs, 1, err, sizeof(err)), -1);
	cr_expect_not_null(strstr(err, dir), "%s", err);
	cr_expect_eq(m.ntasks, 0);
	rtr_model_free(&m);
	rmdir(dir);
}
