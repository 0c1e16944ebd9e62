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
#include <ringtrace/event.h>
#include "consumer/convert.h"
#include "tests/helpers.h"
#include "reader/model.h"
#include "reader/threads.h"
#include "view/overview.h"

TestSuite(tools_model, .timeout = 120);

/*
 * A typed event: the model keeps it as a marker (its class and fields).
 * tests/events/test_typed.c defines it (the test binary's classes are
 * counted there).
 */
#define TEST_REPLY(F) F(u64, id) F(enum, status, test_status)
RTR_EVENT_DECLARE(test, reply, TEST_REPLY)

struct session {
	char dir[64];
	char region[96];
	char trace[96];
};

/* Tracing on into a region of a new directory, as @cfg says (its path set here). */
static void session_start_cfg(struct session *s, struct rtr_config *cfg)
{
	t_pin0();	/* one stream holds every event: a known order */
	strcpy(s->dir, "/dev/shm/rtr-model-XXXXXX");
	cr_assert_not_null(mkdtemp(s->dir));
	snprintf(s->region, sizeof(s->region), "%s/region", s->dir);
	snprintf(s->trace, sizeof(s->trace), "%s/trace", s->dir);
	cfg->path = s->region;
	cr_assert_eq(rtr_start(cfg), 0);
}

static void session_start(struct session *s, uint32_t psize, uint32_t npk)
{
	struct rtr_config cfg = { .struct_size = sizeof(cfg), .packet_size = psize,
				  .packets_per_cpu = npk };

	session_start_cfg(s, &cfg);
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

/*
 * A request from one trace to another (Documentation/network.rst): the
 * client's task labelled "xid send 0x2a", the server's "xid recv 0x2a" in a
 * trace of its own: one read arrow joins them, from the send to the receipt;
 * another id, a malformed label and a receipt with no send join nothing.
 * Ten sends of one id join their receipt 8 times at most.
 */
Test(tools_model, a_cross_trace_id_joins_sender_and_receiver)
{
	struct session c, sv;
	struct rtr_model m;
	uint64_t req, work, other, many;
	char err[512], *dirs[2];
	uint32_t n = 0, nmany = 0;

	session_start(&c, 0, 0);
	req = rtr_task_id();
	rtr_create(0, req, RTR_KIND_TASK);
	rtr_label(req, "xid send 0x2a");
	rtr_resolve(0, req);
	for (int i = 0; i < 10; i++) {
		uint64_t t = rtr_task_id();

		rtr_create(0, t, RTR_KIND_TASK);
		rtr_label(t, "xid send 0x2c");
	}
	session_stop(&c);
	session_start(&sv, 0, 0);
	work = rtr_task_id();
	rtr_create(0, work, RTR_KIND_TASK);
	rtr_label(work, "xid recv 0x2a");
	other = rtr_task_id();
	rtr_create(0, other, RTR_KIND_TASK);
	rtr_label(other, "xid recv 0x2b");
	rtr_label(other, "xid recv 0x2a junk");
	many = rtr_task_id();
	rtr_create(0, many, RTR_KIND_TASK);
	rtr_label(many, "xid recv 0x2c");
	rtr_resolve(0, work);
	session_stop(&sv);

	dirs[0] = c.trace;
	dirs[1] = sv.trace;
	cr_assert_eq(rtr_model_load(&m, dirs, 2, err, sizeof(err)), 0, "%s", err);
	for (uint32_t i = 0; i < m.narrows; i++) {
		const struct rtr_model_arrow *a = &m.arrows[i];

		/* a request between traces, and only those, in a class of its own */
		cr_expect_eq(!!(a->flags & RTR_ARROW_REMOTE),
			     m.tasks[a->from].trace != m.tasks[a->to].trace, "arrow %u", i);
		if (m.tasks[a->from].trace == m.tasks[a->to].trace)
			continue;
		cr_expect_eq(a->kind, RTR_ARROW_READ);
		cr_expect_eq(m.tasks[a->from].trace, 0);
		cr_expect_eq(m.tasks[a->to].trace, 1);
		cr_expect_eq(m.cpus[a->cpu].trace, 1, "the arrow is on the receiver's side");
		cr_expect_lt(a->t_from, a->ts, "from the send (the first trace, made first)");
		if (m.tasks[a->to].id == many) {
			nmany++;
			continue;
		}
		n++;
		cr_expect_eq(m.tasks[a->from].id, req);
		cr_expect_eq(m.tasks[a->to].id, work);
	}
	cr_expect_eq(n, 1, "one arrow for 0x2a, not %u", n);
	cr_expect_eq(nmany, 8, "ten sends of 0x2c join its receipt 8 times, not %u", nmany);
	rtr_model_free(&m);
	session_end(&c);
	session_end(&sv);
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

/*
 * `export --format FORMAT -o DIR/NAME` of @s's trace, exit 0, through the
 * format's checker (@check): its summary.
 */
static char *exported_checked(const struct session *s, const char *format, const char *name,
			      char *file, size_t len, char *(*check)(const char *, int *))
{
	char args[512], *out;
	int st;

	snprintf(file, len, "%s/%s", s->dir, name);
	snprintf(args, sizeof(args), "export --format %s -o '%s' '%s'", format, file, s->trace);
	out = rt(args, true, &st);
	cr_assert_eq(st, 0, "%s", out);
	free(out);
	out = check(file, &st);
	cr_assert_eq(st, 0, "the checker: %.2000s", out);
	return out;
}

/* The Trace Event JSON of @s's trace, checked: the checker's summary. */
static char *export_checked(const struct session *s, const char *name, char *file, size_t len)
{
	return exported_checked(s, "chrome", name, file, len, checker);
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
	out = export_checked(&s, "out.json", file, sizeof(file));
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

/*
 * Runs back to back on a CPU, thousands of them: as a viewer reads them
 * (ts + dur added in doubles), none ends after the next one begins, and
 * each lasts its time to the nanosecond, or 1 ns less.  Exported as they
 * were, ts + dur rounded past the next ts for about one in ten.
 */
Test(tools_model, back_to_back_runs_never_overlap_in_the_export)
{
	struct session s;
	struct rtr_model m;
	uint64_t t[2];
	char file[160], *json, *used;
	const char *p;
	size_t len;
	uint32_t nx = 0;
	FILE *f;

	session_start(&s, 0, 0);
	for (int i = 0; i < 2; i++) {
		t[i] = rtr_task_id();
		rtr_create(0, t[i], RTR_KIND_TASK);
	}
	for (int i = 0; i < 4000; i++)
		rtr_switch(t[i & 1]);
	rtr_switch(0);
	session_stop(&s);
	load(&m, s.trace, 0);
	cr_assert_eq(m.nruns, 4000);

	free(export_checked(&s, "runs.json", file, sizeof(file)));

	/* each "X" as printed: a run of its task, its ts exact, its dur the run's, or 1 ns less */
	used = calloc(m.nruns, 1);
	cr_assert_not_null(used);
	f = fopen(file, "rb");
	cr_assert_not_null(f);
	json = malloc(16 << 20);
	cr_assert_not_null(json);
	len = fread(json, 1, (16 << 20) - 1, f);
	json[len] = 0;
	fclose(f);
	for (p = json; (p = strstr(p, "{\"ph\":\"X\",\"cat\":\"run\"")); p++) {
		unsigned long long tu, tf, du, df, task;
		const char *q = strstr(p, "\"ts\":");
		int64_t ts, dur;
		uint32_t r;

		cr_assert_not_null(q);
		cr_assert_eq(sscanf(q, "\"ts\":%llu.%3llu,\"dur\":%llu.%3llu,\"args\":{\"task\":%llu",
				    &tu, &tf, &du, &df, &task), 5, "%.100s", q);
		ts = (int64_t)(tu * 1000 + tf);
		dur = (int64_t)(du * 1000 + df);
		for (r = 0; r < m.nruns; r++) {
			const struct rtr_model_run *x = &m.runs[r];

			if (!used[r] && x->start == ts && m.tasks[x->task].id == task &&
			    (dur == x->end - x->start || dur == x->end - x->start - 1))
				break;
		}
		cr_expect_lt(r, m.nruns, "no run of task %llu from %" PRId64 " for %" PRId64 " ns",
			     task, ts, dur);
		if (r < m.nruns)
			used[r] = 1;
		nx++;
	}
	free(used);
	cr_expect_eq(nx, m.nruns);
	free(json);
	rtr_model_free(&m);
	session_end(&s);
}

/* The checker itself catches what it is there for. */
/* The Perfetto checker (tests/tools/check_perfetto.py) on @file: its summary. */
static char *perfetto_checker(const char *file, int *st)
{
	const char *src = getenv("RTR_SRCDIR");
	char cmd[PATH_MAX + 512];

	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 '%s/tests/tools/check_perfetto.py' "
		 "'%s/tools/perfetto_trace.proto' '%s' --summary 2>&1", src ? src : ".",
		 src ? src : ".", file);
	return t_sh(cmd, st);
}

/* The whole file @path (*@len bytes). */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *b = malloc(1 << 20);

	cr_assert_not_null(f, "%s", path);
	cr_assert_not_null(b);
	*len = fread(b, 1, 1 << 20, f);
	cr_assert_lt(*len, 1u << 20);
	fclose(f);
	return b;
}

/* Perfetto's protobuf of @s's trace, checked: the checker's summary. */
static char *perfetto_checked(const struct session *s, const char *name, char *file, size_t len)
{
	return exported_checked(s, "perfetto", name, file, len, perfetto_checker);
}

/*
 * `export --format perfetto`: protoc decodes the whole file with the tree's
 * .proto, and the checker, replaying it as trace_processor does, finds each
 * task a slice on a tasks track (its kind the category), each visible arrow
 * a flow, each run a slice on its CPU, the pause, the two counter values,
 * every track described; the failure reason made valid UTF-8.  --gzip is
 * the same bytes compressed.
 */
Test(tools_model, export_perfetto_holds_every_task_arrow_run_and_sample)
{
	struct session s;
	struct known k;
	struct rtr_model m;
	char args[768], file[160], gz[160], *out, *bytes;
	uint32_t arrows = 0;
	size_t len;
	int st;

	known_trace(&s, &k);
	load(&m, s.trace, 0);
	for (uint32_t i = 0; i < m.narrows; i++)
		arrows += !(m.arrows[i].flags & RTR_ARROW_HIDDEN);
	out = perfetto_checked(&s, "out.pftrace", file, sizeof(file));
	cr_expect_eq(json_i64(out, "slices_tasks"), m.ntasks, "%s", out);
	cr_expect_eq(json_i64(out, "flows"), arrows, "%s", out);
	cr_expect_eq(json_i64(out, "slices_cpus"), m.nruns, "%s", out);
	cr_expect_eq(json_i64(out, "slices_pauses"), m.npauses, "%s", out);
	cr_expect_eq(json_i64(out, "TYPE_COUNTER"), m.nsamples, "%s", out);
	cr_assert_not_null(strstr(out, "\"counters\": "), "%s", out);
	cr_expect_eq(json_i64(strstr(out, "\"counters\": "), "queue#1"), 2, "%s", out);
	/* content: the counter's steps in order, task A's times as the model has them */
	cr_expect_not_null(strstr(out, "\"counter_values\": {\"queue#1\": [5, 3]}"), "%s", out);
	{
		const struct rtr_model_task *a = &m.tasks[find_task(&m, k.a)];
		const char *tt = strstr(out, "\"task_times\": ");
		long long b = -1, e = -1;

		cr_assert_not_null(tt, "%s", out);
		tt = strstr(tt, "\"A\": [");
		cr_assert_not_null(tt, "%s", out);
		cr_assert_eq(sscanf(tt, "\"A\": [%lld, %lld]", &b, &e), 2, "%s", tt);
		cr_expect_eq(b, a->created, "task A begins at %lld, the model says %" PRId64, b,
			     a->created);
		cr_expect_eq(e, a->end, "task A ends at %lld, the model says %" PRId64, e, a->end);
		cr_expect_gt(e, b);
	}
	/* the labelled tasks by their label; the user kind is a category of its own */
	cr_expect_eq(json_i64(out, "A"), 1, "%s", out);
	cr_expect_eq(json_i64(out, "main"), 1, "%s", out);
	cr_expect_eq(json_i64(out, "thread"), 1, "%s", out);
	cr_expect_eq(arrows, 6);
	cr_expect_eq(m.ntasks, 6);
	free(out);

	bytes = slurp(file, &len);
	cr_expect_not_null(memmem(bytes, len, "bad\xef\xbf\xbd\x01 \"thing\"", 13),
			   "the failure reason is not in the file as valid UTF-8");
	cr_expect_not_null(memmem(bytes, len, "note 7", 6));
	free(bytes);

	snprintf(gz, sizeof(gz), "%s/out.pftrace.gz", s.dir);
	snprintf(args, sizeof(args), "export --format perfetto --gzip -o '%s' '%s' && "
		 "gzip -dc '%s' | cmp - '%s'", gz, s.trace, gz, file);
	out = rt(args, true, &st);
	cr_expect_eq(st, 0, "--gzip is not the same bytes compressed: %s", out);
	free(out);
	/* a name ending in .gz is enough */
	snprintf(args, sizeof(args), "export --format perfetto --force -o '%s' '%s' && "
		 "gzip -dc '%s' | cmp - '%s'", gz, s.trace, gz, file);
	out = rt(args, true, &st);
	cr_expect_eq(st, 0, "-o FILE.gz is not compressed: %s", out);
	free(out);
	rtr_model_free(&m);
	session_end(&s);
}

/* The Perfetto checker fails a file cut short, and one without its process's descriptor. */
Test(tools_model, perfetto_checker_rejects_broken_traces)
{
	struct session s;
	struct known k;
	char file[160], cut[160], *out, *bytes;
	size_t len;
	FILE *f;
	int st;

	known_trace(&s, &k);
	free(perfetto_checked(&s, "out.pftrace", file, sizeof(file)));
	bytes = slurp(file, &len);
	/* the first packet: field 1, a length below 128 (a process's descriptor) */
	cr_assert_eq((unsigned char)bytes[0], 0x0a);
	cr_assert_lt((unsigned char)bytes[1], 0x80);
	snprintf(cut, sizeof(cut), "%s/broken.pftrace", s.dir);
	for (int i = 0; i < 2; i++) {
		size_t skip = i ? 2 + (unsigned char)bytes[1] : 0, n = i ? len - skip : len - 3;

		f = fopen(cut, "wb");
		cr_assert_not_null(f);
		cr_assert_eq(fwrite(bytes + skip, 1, n, f), n);
		fclose(f);
		out = perfetto_checker(cut, &st);
		cr_expect_eq(st, 1, "broken %d passed: %s", i, out);
		cr_expect_not_null(strstr(out, i ? "is not described" : "protoc --decode failed"),
				   "%s", out);
		free(out);
	}
	free(bytes);
	session_end(&s);
}

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
		/* back to back in decimal, but 0.002 + 0.007 > 0.009 in doubles: they overlap */
		"{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"x\",\"pid\":1,\"tid\":1,\"ts\":0.002,"
		"\"dur\":0.007},{\"ph\":\"X\",\"name\":\"y\",\"pid\":1,\"tid\":1,\"ts\":0.009,"
		"\"dur\":1}]}",
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
	char args[512], file[160], text[64], *out, *bytes;
	size_t len;
	int st;

	session_start_cfg(&s, &cfg);
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

	/* in Perfetto's format: an instant "lost N packets" on the CPU, the file checked */
	free(perfetto_checked(&s, "lossy.pftrace", file, sizeof(file)));
	bytes = slurp(file, &len);
	for (uint32_t i = 0; i < m.nlosses; i++) {
		snprintf(text, sizeof(text), "lost %" PRIu64 " %s", m.losses[i].count,
			 m.losses[i].kind == RTR_LOSS_PACKETS ? "packets" : "events");
		cr_expect_not_null(memmem(bytes, len, text, strlen(text)), "no '%s'", text);
	}
	free(bytes);
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
		{ "stats /nonexistent/trace", 2, "no such trace: /nonexistent/trace" },
		{ "export x", 2, "--format chrome, sqlite, perfetto or folded is needed" },
		{ "export --format chrome --gzip x", 2, "--gzip is for --format perfetto" },
		{ "export --format svg x", 2, "unknown format 'svg'" },
		{ "export --format chrome", 2, "usage: ringtrace export" },
		{ "export --format chrome -o", 2, "-o needs a value" },
		{ "export --help", 0, "usage: ringtrace export" },
		{ "export --format chrome /nonexistent/trace", 2, "no such trace: /nonexistent/trace" },
		{ "view -o", 2, "-o needs a value" },
		{ "view --bogus x", 2, "unknown option '--bogus'" },
		{ "convert x -o", 2, "-o needs a value" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int st;
		char *out = rt(cases[i].args, true, &st);

		cr_expect_eq(st, cases[i].status, "%s: %s", cases[i].args, out);
		cr_expect_not_null(strstr(out, cases[i].says), "%s: %s", cases[i].args, out);
		free(out);
	}
}

/*
 * A trace written to be slow to load: 400000 tasks whose ids all fall in one
 * slot of a hash with a known multiplier, each should_resolve and becoming
 * the next (one long chain, never resolved).  Loaded in linear time, the
 * model says every one of them never resolved; with the old hash and a walk
 * of the chain per task, this took hours.
 */
Test(tools_model, hostile_ids_and_chains_load_in_linear_time, .timeout = 60)
{
	const uint64_t k = 0x9e3779b97f4a7c15ull;
	const uint32_t n = 400000;
	struct rtr_config cfg = { .struct_size = sizeof(cfg), .packet_size = 1 << 20,
				  .packets_per_cpu = 64 };
	uint64_t inv = k;
	char args[PATH_MAX + 64], *out;
	struct session s;
	int st;

	for (int i = 0; i < 5; i++)
		inv *= 2 - k * inv;	/* k * inv == 1 (mod 2^64): (i * inv) * k == i */
	session_start_cfg(&s, &cfg);
	for (uint64_t i = 1; i <= n; i++) {
		rtr_create(0, i * inv, RTR_KIND_TASK);
		rtr_should_resolve(i * inv);
		if (i > 1)
			rtr_becomes((i - 1) * inv, i * inv);
	}
	session_stop(&s);
	snprintf(args, sizeof(args), "stats --json '%s'", s.trace);
	out = rt(args, false, &st);
	cr_expect_eq(st, 0, "%s", out);
	cr_expect_not_null(strstr(out, "\"tasks\": 400000"), "%.400s", out);
	cr_expect_not_null(strstr(out, "\"should_resolve_failures\": 400000"), "%.400s", out);
	free(out);
	session_end(&s);
}

/* A trace with no task at all (a note, a counter): every command does its job, exit 0. */
Test(tools_model, a_trace_without_tasks_is_not_an_error)
{
	static const char *const cmds[] = { "stats", "stats --json", "export --format chrome -o -",
					    "view --force -o" };
	struct session s;
	uint32_t q;

	session_start(&s, 0, 0);
	cr_assert_eq(rtr_counter_register("queue", &q), 0);
	rtr_counter_set(q, 3);
	rtr_note("no task here");
	session_stop(&s);
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		char args[PATH_MAX + 256], *out;
		int st;

		if (!strcmp(cmds[i], "view --force -o"))
			snprintf(args, sizeof(args), "%s '%s/page.html' '%s'", cmds[i], s.dir, s.trace);
		else
			snprintf(args, sizeof(args), "%s '%s'", cmds[i], s.trace);
		out = rt(args, true, &st);
		cr_expect_eq(st, 0, "ringtrace %s: %s", args, out);
		free(out);
	}
	/* And an output that cannot be written is a failure. */
	for (const char *const *c = (const char *const[]){ "check", "stats", "dump", NULL }; *c; c++) {
		char cmd[PATH_MAX + 256], *out;
		int st;

		snprintf(cmd, sizeof(cmd), "'%s/ringtrace' %s '%s' 2>&1 >/dev/full", t_bindir(), *c,
			 s.trace);
		out = t_sh(cmd, &st);
		cr_expect_eq(st, 1, "ringtrace %s >/dev/full: %s", *c, out);
		free(out);
	}
	session_end(&s);
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

/* ---- traces as a user names them: rotated chunks, '-' ----------------------------- */

/* ringtrace-threads, recorded: its events are known in number, and at this rate no buffer fills. */
#define THREADS "'%s/ringtrace-threads' --threads 2 --count 20000 --rate 100000"

static void sh_ok(const char *cmd)
{
	int st;
	char *out = t_sh(cmd, &st);

	cr_assert_eq(st, 0, "%s: %s", cmd, out);
	free(out);
}

/* `ringtrace record -q @opts -o @out -- ringtrace-threads ...` */
static void record_threads(const char *opts, const char *out)
{
	char cmd[PATH_MAX * 3 + 512];

	snprintf(cmd, sizeof(cmd), "'%s/ringtrace' record -q --packet-size 4k --packets 256 %s "
		 "-o %s -- " THREADS " >/dev/null 2>&1", t_bindir(), opts, out, t_bindir());
	sh_ok(cmd);
}

static void load_one(struct rtr_model *m, const char *dir, int want)
{
	char err[1024], *dirs[1] = { (char *)dir };

	cr_assert_eq(rtr_model_load(m, dirs, 1, err, sizeof(err)), want, "%s: %s", dir, err);
}

/* Everything but where the trace came from (its directory, its chunks). */
static void expect_same_model(const struct rtr_model *a, const struct rtr_model *b)
{
	cr_assert_eq(a->origin_ns, b->origin_ns);
	cr_expect_eq(a->end, b->end);
	cr_expect_eq(a->events, b->events);
	cr_assert_eq(a->ncpus, b->ncpus);
	for (uint32_t i = 0; i < a->ncpus; i++) {
		const struct rtr_model_cpu *x = &a->cpus[i], *y = &b->cpus[i];

		cr_expect_str_eq(rtr_model_str(a, x->stream), rtr_model_str(b, y->stream));
		cr_expect_eq(x->cpu, y->cpu);
		cr_expect_eq(x->events, y->events);
		cr_expect_eq(x->events_lost, y->events_lost);
		cr_expect_eq(x->packets_lost, y->packets_lost);
		cr_expect_eq(x->first, y->first);
		cr_expect_eq(x->last, y->last);
		cr_expect_eq(x->nruns, y->nruns);
	}
	cr_assert_eq(a->ntasks, b->ntasks);
	for (uint32_t i = 0; i < a->ntasks; i++) {
		const struct rtr_model_task *x = &a->tasks[i], *y = &b->tasks[i];

		cr_expect_eq(x->id, y->id);
		cr_expect_eq(x->flags, y->flags, "task %" PRIu64, x->id);
		cr_expect_eq(x->kind, y->kind);
		cr_expect_eq(x->parent, y->parent);
		cr_expect_eq(x->created, y->created);
		cr_expect_eq(x->resolved, y->resolved);
		cr_expect_eq(x->end, y->end);
		cr_expect_eq(x->becomes, y->becomes);
		cr_expect_eq(x->nlabels, y->nlabels);
		cr_expect_eq(x->nruns, y->nruns);
	}
	cr_assert_eq(a->narrows, b->narrows);
	for (uint32_t i = 0; i < a->narrows; i++) {
		const struct rtr_model_arrow *x = &a->arrows[i], *y = &b->arrows[i];

		cr_expect(x->ts == y->ts && x->t_from == y->t_from && x->from == y->from &&
			  x->to == y->to && x->kind == y->kind && x->flags == y->flags &&
			  x->cpu == y->cpu, "arrow %u", i);
	}
	cr_assert_eq(a->nruns, b->nruns);
	for (uint32_t i = 0; i < a->nruns; i++) {
		cr_expect(a->runs[i].start == b->runs[i].start && a->runs[i].end == b->runs[i].end &&
			  a->runs[i].task == b->runs[i].task && a->runs[i].cpu == b->runs[i].cpu,
			  "run %u", i);
	}
	cr_assert_eq(a->ncounters, b->ncounters);
	for (uint32_t i = 0; i < a->ncounters; i++) {
		cr_expect_str_eq(rtr_model_str(a, a->counters[i].name),
				 rtr_model_str(b, b->counters[i].name));
		cr_expect_eq(a->counters[i].nsamples, b->counters[i].nsamples);
	}
	cr_assert_eq(a->nsamples, b->nsamples);
	for (uint32_t i = 0; i < a->nsamples; i++) {
		cr_expect(a->samples[i].ts == b->samples[i].ts &&
			  a->samples[i].value == b->samples[i].value, "sample %u", i);
	}
	cr_assert_eq(a->nlosses, b->nlosses);
	for (uint32_t i = 0; i < a->nlosses; i++) {
		cr_expect(a->losses[i].ts == b->losses[i].ts &&
			  a->losses[i].count == b->losses[i].count &&
			  a->losses[i].kind == b->losses[i].kind, "loss %u", i);
	}
	cr_expect_eq(a->ndamage, b->ndamage);
}

/* `ringtrace ARGS`, its output with every @dir replaced by "TRACE". */
static char *rt_in(const char *args, const char *dir, int *st)
{
	char cmd[PATH_MAX * 3 + 512];

	snprintf(cmd, sizeof(cmd), "out=$('%s/ringtrace' %s 2>&1); st=$?; "
		 "printf '%%s\\n' \"$out\" | sed 's|%s|TRACE|g'; exit $st", t_bindir(), args, dir);
	return t_sh(cmd, st);
}

/*
 * A rotated recording is one trace: exactly the model (and the export) of
 * the same packets written unrotated, its stream files concatenated.  Its
 * tasks are created in the first chunk and resolved in the last.
 */
Test(tools_model, chunks_load_as_one_trace)
{
	char d[] = "/dev/shm/rtr-chunks-XXXXXX", cmd[PATH_MAX + 512], path[PATH_MAX];
	struct rtr_model rot, flat, first;
	char *a, *b;
	int st;

	cr_assert_not_null(mkdtemp(d));
	snprintf(path, sizeof(path), "'%s/rot'", d);
	record_threads("--rotate-size 64k", path);
	/* the same packets unrotated: chunk 0's metadata, each stream's chunks one after the other */
	snprintf(cmd, sizeof(cmd), "cd '%s' && mkdir flat && cp rot/chunk-000000/metadata flat/ && "
		 "for c in rot/chunk-*; do for f in $c/stream_*; do cat $f >> flat/${f##*/}; "
		 "done; done", d);
	sh_ok(cmd);

	snprintf(path, sizeof(path), "%s/rot", d);
	load_one(&rot, path, 0);
	snprintf(path, sizeof(path), "%s/flat", d);
	load_one(&flat, path, 0);
	cr_assert_geq(rot.traces[0].nchunks, 3, "%u chunks", rot.traces[0].nchunks);
	cr_expect_eq(flat.traces[0].nchunks, 1);
	cr_expect_eq(rot.ntraces, 1);
	/* main and one task per thread: created, switched to, resolved, in one trace */
	cr_expect_eq(rot.ntasks, 2);
	for (uint32_t i = 0; i < rot.ntasks; i++) {
		cr_expect_eq(rot.tasks[i].flags, RTR_TASK_CREATED | RTR_TASK_RESOLVED,
			     "task %" PRIu64 ": flags %#x", rot.tasks[i].id, rot.tasks[i].flags);
		cr_expect_gt(rot.tasks[i].resolved, rot.tasks[i].created);
	}
	cr_expect_eq(rot.events, 2 * 20000 + 10);
	for (uint32_t i = 0; i < rot.ncpus; i++)
		cr_expect_eq(rot.cpus[i].events_lost + rot.cpus[i].packets_lost, 0);
	expect_same_model(&rot, &flat);
	/* their overviews (view/overview.h): each stream's chunks one lane, the same buckets */
	{
		struct rtr_overview ro, fo;
		char err[512];

		snprintf(path, sizeof(path), "%s/rot", d);
		cr_assert_eq(rtr_overview_build(&ro, path, err, sizeof(err)), 0, "%s", err);
		snprintf(path, sizeof(path), "%s/flat", d);
		cr_assert_eq(rtr_overview_build(&fo, path, err, sizeof(err)), 0, "%s", err);
		cr_expect_eq(ro.events, rot.events);
		cr_expect_eq(ro.events, fo.events);
		cr_expect_eq(ro.origin_ns, fo.origin_ns);
		cr_expect_eq(ro.end, fo.end);
		cr_assert_eq(ro.nlanes, fo.nlanes);
		cr_assert_eq(ro.nb, fo.nb);
		for (uint32_t l = 0; l < ro.nlanes; l++) {
			cr_expect_str_eq(ro.lanes[l].name, fo.lanes[l].name);
			cr_expect_eq(ro.lanes[l].first, fo.lanes[l].first);
			cr_expect_eq(ro.lanes[l].n, fo.lanes[l].n);
		}
		for (uint32_t k = 0; k < ro.nb; k++)
			cr_expect(ro.b[k].t0 == fo.b[k].t0 && ro.b[k].t1 == fo.b[k].t1 &&
				  ro.b[k].events == fo.b[k].events, "bucket %u", k);
		rtr_overview_free(&ro);
		rtr_overview_free(&fo);
	}

	/* the first chunk alone holds the creations, not the resolutions */
	snprintf(path, sizeof(path), "%s/rot/chunk-000000", d);
	load_one(&first, path, 0);
	cr_expect_eq(first.ntasks, 2);
	for (uint32_t i = 0; i < first.ntasks; i++)
		cr_expect_eq(first.tasks[i].flags, RTR_TASK_CREATED);
	rtr_model_free(&first);

	/* stats and export say the same of both */
	snprintf(path, sizeof(path), "%s/rot", d);
	snprintf(cmd, sizeof(cmd), "export --format chrome '%s/rot'", d);
	a = rt_in(cmd, path, &st);
	cr_expect_eq(st, 0, "%s", a);
	snprintf(path, sizeof(path), "%s/flat", d);
	snprintf(cmd, sizeof(cmd), "export --format chrome '%s/flat'", d);
	b = rt_in(cmd, path, &st);
	cr_expect_eq(st, 0, "%s", b);
	cr_expect(strlen(a) > 1000 && !strcmp(a, b), "the exports differ");
	free(a);
	free(b);
	snprintf(cmd, sizeof(cmd), "stats --json '%s/rot'", d);
	snprintf(path, sizeof(path), "%s/rot", d);
	a = rt_in(cmd, path, &st);
	cr_expect_eq(st, 0, "%s", a);
	cr_expect_eq(json_i64(a, "chunks"), rot.traces[0].nchunks);
	cr_expect_eq(json_i64(a, "tasks"), 2);
	cr_expect_eq(json_i64(a, "resolved"), 2);
	cr_expect_eq(json_i64(a, "events"), 2 * 20000 + 10);
	free(a);

	rtr_model_free(&rot);
	rtr_model_free(&flat);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d);
	sh_ok(cmd);
}

/* Recorded twice, with and without rotation: the same tasks, arrows and samples. */
Test(tools_model, rotated_recording_counts_as_unrotated)
{
	char d[] = "/dev/shm/rtr-rot-XXXXXX", path[PATH_MAX], cmd[PATH_MAX + 64];
	struct rtr_model rot, one;

	cr_assert_not_null(mkdtemp(d));
	snprintf(path, sizeof(path), "'%s/rot'", d);
	record_threads("--rotate-size 64k", path);
	snprintf(path, sizeof(path), "'%s/one'", d);
	record_threads("", path);
	snprintf(path, sizeof(path), "%s/rot", d);
	load_one(&rot, path, 0);
	snprintf(path, sizeof(path), "%s/one", d);
	load_one(&one, path, 0);
	cr_assert_geq(rot.traces[0].nchunks, 3);
	cr_expect_eq(rot.events, one.events);
	cr_expect_eq(rot.ntasks, one.ntasks);
	for (uint32_t i = 0; i < rot.ntasks && i < one.ntasks; i++)
		cr_expect_eq(rot.tasks[i].flags, one.tasks[i].flags);
	cr_expect_eq(rot.narrows, one.narrows);
	cr_expect_eq(rot.nsamples, one.nsamples);
	for (uint32_t i = 0; i < rot.nsamples && i < one.nsamples; i++)
		cr_expect_eq(rot.samples[i].value, one.samples[i].value);
	cr_expect_eq(rot.nlosses, 0);
	cr_expect_eq(one.nlosses, 0);
	rtr_model_free(&rot);
	rtr_model_free(&one);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d);
	sh_ok(cmd);
}

/* `ringtrace record -o - | ringtrace stats|export|view -`; the spool is removed after. */
Test(tools_model, stdin_is_a_trace)
{
	char d[] = "/dev/shm/rtr-stdin-XXXXXX", cmd[PATH_MAX * 3 + 512], *out;
	struct rtr_model m;
	int st;

	cr_assert_not_null(mkdtemp(d));
	snprintf(cmd, sizeof(cmd), "cd '%s' && '%s/ringtrace' record -q --packet-size 4k "
		 "--packets 256 -o - -- " THREADS " 2>/dev/null | TMPDIR='%s' '%s/ringtrace' stats --json -",
		 d, t_bindir(), t_bindir(), d, t_bindir());
	out = t_sh(cmd, &st);
	cr_assert_eq(st, 0, "%s", out);
	cr_expect_not_null(strstr(out, "\"dir\": \"-\""), "%s", out);
	cr_expect_eq(json_i64(out, "tasks"), 2);
	cr_expect_eq(json_i64(out, "resolved"), 2);
	cr_expect_eq(json_i64(out, "events"), 2 * 20000 + 10);
	free(out);

	/* a recorded stream, read by each command */
	snprintf(cmd, sizeof(cmd), "cd '%s' && '%s/ringtrace' record -q --packet-size 4k "
		 "--packets 256 -o - -- " THREADS " 2>/dev/null > rec.stream", d, t_bindir(), t_bindir());
	sh_ok(cmd);
	snprintf(cmd, sizeof(cmd), "cd '%s' && TMPDIR='%s' '%s/ringtrace' export --format chrome "
		 "-o out.json - < rec.stream 2>&1", d, d, t_bindir());
	sh_ok(cmd);
	snprintf(cmd, sizeof(cmd), "%s/out.json", d);
	out = checker(cmd, &st);
	cr_expect_eq(st, 0, "the checker: %s", out);
	cr_expect_not_null(strstr(out, "\"b\": 2,"), "%s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), "cd '%s' && TMPDIR='%s' '%s/ringtrace' view - < rec.stream "
		 "2>&1 && test -s stdin.html", d, d, t_bindir());
	out = t_sh(cmd, &st);
	cr_expect_eq(st, 0, "%s", out);
	cr_expect_str_eq(out, "stdin.html\n");
	free(out);

	/* in the model: the same trace as spooled */
	snprintf(cmd, sizeof(cmd), "%s/rec.stream", d);
	cr_assert_not_null(freopen(cmd, "rb", stdin));
	setenv("TMPDIR", d, 1);
	load_one(&m, "-", 0);
	cr_expect_str_eq(rtr_model_str(&m, m.traces[0].dir), "-");
	cr_expect_eq(m.events, 2 * 20000 + 10);
	cr_expect_eq(m.ntasks, 2);
	cr_expect_not(m.traces[0].incomplete);
	rtr_model_free(&m);

	/* no spool directory left behind */
	snprintf(cmd, sizeof(cmd), "ls '%s' | grep -c ringtrace-stdin", d);
	out = t_sh(cmd, &st);
	cr_expect_str_eq(out, "0\n");
	free(out);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d);
	sh_ok(cmd);
}

/* A stream cut short: what came is read, with a clear message and exit status 1. */
Test(tools_model, cut_stream_is_an_error)
{
	static const struct {
		const char *args;
		const char *says;
	} cases[] = {
		{ "stats - < cut.stream", "the stream ended early" },
		{ "export --format chrome -o out.json - < cut.stream", "the stream ended early" },
		{ "view -o cut.html - < cut.stream", "the stream ended early" },
		{ "stats - < tiny.stream", "too short" },
		{ "stats - - < rec.stream", "'-' (standard input) given 2 times" },
		{ "view - - < rec.stream", "'-' (standard input) given 2 times" },
	};
	char d[] = "/dev/shm/rtr-cut-XXXXXX", cmd[PATH_MAX * 3 + 512], *out;
	int st;

	cr_assert_not_null(mkdtemp(d));
	snprintf(cmd, sizeof(cmd), "cd '%s' && '%s/ringtrace' record -q --packet-size 4k "
		 "--packets 256 -o - -- " THREADS " 2>/dev/null > rec.stream && "
		 "head -c $(($(stat -c %%s rec.stream) / 2)) rec.stream > cut.stream && "
		 "head -c 10 rec.stream > tiny.stream", d, t_bindir(), t_bindir());
	sh_ok(cmd);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(cmd, sizeof(cmd), "cd '%s' && TMPDIR='%s' '%s/ringtrace' %s 2>&1", d, d,
			 t_bindir(), cases[i].args);
		out = t_sh(cmd, &st);
		cr_expect_eq(st, 1, "%s: %s", cases[i].args, out);
		cr_expect_not_null(strstr(out, cases[i].says), "%s: %s", cases[i].args, out);
		free(out);
	}
	/* what came before the cut is there: the page, and the trace up to it */
	snprintf(cmd, sizeof(cmd), "cd '%s' && test -s cut.html && test -s out.json && "
		 "'%s/ringtrace' stats --json - < cut.stream 2>/dev/null", d, t_bindir());
	out = t_sh(cmd, &st);
	cr_expect_eq(st, 1, "%s", out);
	cr_expect_not_null(strstr(out, "\"damaged\": true"), "%s", out);
	cr_expect_gt(json_i64(out, "events"), 0, "%s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), "ls '%s' | grep -c ringtrace-stdin", d);
	out = t_sh(cmd, &st);
	cr_expect_str_eq(out, "0\n");
	free(out);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d);
	sh_ok(cmd);
}

/*
 * An LTTng trace in the model: every class counted, the threads its
 * contexts name (tid, pid, procname), every event the task model does not
 * read a marker with its fields, in time order; without RTR_MODEL_MARKERS,
 * the counts alone.  Its sched_switch and sched_process_fork are the task
 * model's (make-traces.py's sample values, not a story: thread tasks, no
 * markers; lttng_sched_events_are_thread_tasks_runs_and_signals checks a
 * trace that tells one).  A ringtrace trace of task events has classes
 * counted and no marker.
 */
Test(tools_model, lttng_events_are_classes_threads_and_markers)
{
	const char *src = getenv("RTR_SRCDIR");
	char dir[PATH_MAX], *dirs[1] = { dir }, err[512];
	struct rtr_model m;
	struct session s;
	struct known k;
	uint64_t creates = 0;

	snprintf(dir, sizeof(dir), "%s/tests/data/lttng-kernel/contexts", src && *src ? src : ".");
	cr_assert_eq(rtr_model_load(&m, dirs, 1, err, sizeof(err)), 0, "%s", err);
	cr_expect_gt(m.ntasks, 0);
	for (uint32_t i = 0; i < m.ntasks; i++)
		cr_expect_str_eq(rtr_model_str(&m, m.tasks[i].kind_name), "thread");
	/* sched_switch's context names the thread switched from: not the run's */
	cr_expect_gt(m.nruns, 0);
	for (uint32_t i = 0; i < m.nruns; i++)
		cr_expect_eq(m.runs[i].thread, RTR_MODEL_NONE);
	cr_expect_eq(m.nclasses, 9);
	for (uint32_t i = 0; i < m.nclasses; i++)
		cr_expect_eq(m.classes[i].count, 24, "%s", rtr_model_str(&m, m.classes[i].name));
	cr_expect_eq(m.nthreads, 21);
	for (uint32_t i = 0; i < m.nthreads; i++) {
		const struct rtr_model_thread *t = &m.threads[i];
		const char *name = rtr_model_str(&m, t->name);

		/* make-traces.py: tid = pid + 100 * (0 bash, 1 sshd, 2 kworker/0:1) */
		cr_expect(t->tid >= 1000 && t->tid < 1300 && t->pid == t->tid % 100 + 1000,
			  "tid %" PRIu64 " pid %" PRIu64, t->tid, t->pid);
		cr_expect_str_eq(name, t->tid < 1100 ? "bash" : t->tid < 1200 ? "sshd" :
				 "kworker/0:1");
	}
	cr_expect_eq(m.nmarkers, 216 - 2 * 24, "every event but sched_switch and _fork");
	for (uint32_t i = 0; i < m.nmarkers; i++) {
		const struct rtr_model_marker *mk = &m.markers[i];
		const char *cls = rtr_model_str(&m, m.classes[mk->cls].name);

		cr_assert(!i || mk->ts >= m.markers[i - 1].ts, "markers in time order");
		cr_assert_lt(mk->thread, m.nthreads);
		cr_assert_lt(mk->cpu, m.ncpus);
		cr_assert_not_null(strstr(rtr_model_str(&m, mk->fields), "procname = \""), "%s",
				   rtr_model_str(&m, mk->fields));
		cr_expect(strcmp(cls, "sched_switch") && strcmp(cls, "sched_process_fork"), "%s",
			  cls);
	}
	rtr_model_free(&m);

	cr_assert_eq(rtr_model_load_flags(&m, dirs, 1, 0, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(m.nmarkers, 0);
	cr_expect_eq(m.nclasses, 9);
	cr_expect_eq(m.nthreads, 21);
	rtr_model_free(&m);

	/* stats: per class and per thread; export: a track per thread, named */
	{
		char args[PATH_MAX + 128], file[64], tmp[] = "/dev/shm/rtr-lttx-XXXXXX", *out;
		int st;

		snprintf(args, sizeof(args), "stats --json '%s'", dir);
		out = rt(args, false, &st);
		cr_expect_eq(st, 0, "%s", out);
		cr_expect_not_null(strstr(out, "\"class\": \"sched_switch\", \"count\": 24}"),
				   "%s", out);
		cr_expect_not_null(strstr(out, "{\"trace\": 0, \"tid\": 1201, \"pid\": 1001, "
					  "\"name\": \"kworker/0:1\", \"count\": "), "%s", out);
		free(out);
		cr_assert_not_null(mkdtemp(tmp));
		snprintf(file, sizeof(file), "%s/out.json", tmp);
		snprintf(args, sizeof(args), "export --format chrome -o '%s' '%s'", file, dir);
		out = rt(args, true, &st);
		free(out);
		out = checker(file, &st);
		cr_expect_eq(st, 0, "the checker: %s", out);
		cr_expect_not_null(strstr(out, "\"kworker/0:1 1201\""), "%s", out);
		cr_expect_not_null(strstr(out, "\"i\": 174,"), "168 markers + 6 losses: %s", out);
		free(out);
		/* each field an arg: numbers as numbers, strings unquoted, the rest as text */
		snprintf(args, sizeof(args), "cat '%s'", file);
		out = t_sh(args, &st);
		cr_expect_not_null(strstr(out, "\"procname\":\"kworker/0:1\",\"prio\":119,"
					  "\"state_ctx\":\"SLEEPING (1)\""), "%.3000s", out);
		free(out);
		/* a sequence of integers: text (sched-odd's fork has no child_tid: a marker) */
		snprintf(args, sizeof(args), "export --format chrome --force -o '%s' "
			 "'%s/../sched-odd'", file, dir);
		out = rt(args, true, &st);
		cr_expect_eq(st, 0, "%s", out);
		free(out);
		snprintf(args, sizeof(args), "cat '%s'", file);
		out = t_sh(args, &st);
		cr_expect_not_null(strstr(out, "\"_vtids_length\":1,\"vtids\":\"[ 101 ]\""),
				   "%.3000s", out);
		free(out);
		unlink(file);
		rmdir(tmp);
	}

	known_trace(&s, &k);
	load(&m, s.trace, 0);
	cr_expect_eq(m.nmarkers, 0, "task events are the model's, not markers");
	for (uint32_t i = 0; i < m.nclasses; i++)
		if (!strcmp(rtr_model_str(&m, m.classes[i].name), "create"))
			creates = m.classes[i].count;
	cr_expect_gt(creates, 0, "create events counted");
	rtr_model_free(&m);
	session_end(&s);
}

/* The task of thread @tid in @m (its one trace), or NULL. */
static const struct rtr_model_task *task_of(const struct rtr_model *m, uint64_t tid)
{
	for (uint32_t i = 0; i < m->ntasks; i++)
		if (m->tasks[i].id == tid)
			return &m->tasks[i];
	return NULL;
}

/* The CPU number of run @r. */
static uint32_t run_cpu(const struct rtr_model *m, const struct rtr_model_run *r)
{
	return m->cpus[r->cpu].cpu;
}

/*
 * An LTTng kernel trace's scheduler events in the model (make-traces.py's
 * SCHED_STORY, times here from its first event): each thread a task of kind
 * thread labelled with its comm (again when the comm changes, not at every
 * event); sched_switch the runs on each CPU (sshd's from the CPU's first
 * item to its switch away); the fork a create, the exit a resolve (the later
 * free changes nothing), a fork of a thread id that ended a new thread,
 * sched_waking a signal from the running thread
 * (none from idle), sched_wakeup beside sched_waking a marker; stats and
 * export say the same.  In sched-odd, where a thread id is a string, an
 * enumeration or missing, those classes stay markers; a comm that is a
 * string is read too.
 */
Test(tools_model, lttng_sched_events_are_thread_tasks_runs_and_signals)
{
	static const struct {
		uint64_t tid;
		const char *label;
		int64_t created;
		uint32_t runs;
	} want[] = {
		{ 100, "bash", 0, 2 }, { 50, "sshd", 200, 1 }, { 101, "bash", 1000, 1 },
		{ 7, "kworker/0:1", 2000, 1 },
	};
	static const struct {
		uint64_t tid;
		uint32_t cpu;
		int64_t start, end;
	} runs[] = {
		{ 100, 0, 0, 2000 }, { 100, 0, 8500, 10000 }, { 50, 1, 200, 500 },
		{ 101, 1, 1700, 4000 }, { 7, 0, 2000, 3000 },
	};
	static const char *const markers[] = {
		"syscall_entry_openat", "sched_wakeup", "syscall_entry_openat",
	};
	const char *src = getenv("RTR_SRCDIR");
	char dir[PATH_MAX], *dirs[1] = { dir }, err[512], args[PATH_MAX + 64], *out;
	const struct rtr_model_task *t, *child;
	struct rtr_model m;
	uint32_t nruns = 0;
	int st;

	snprintf(dir, sizeof(dir), "%s/tests/data/lttng-kernel/sched", src && *src ? src : ".");
	cr_assert_eq(rtr_model_load(&m, dirs, 1, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(m.events, 16);
	cr_assert_eq(m.ntasks, 5);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		t = task_of(&m, want[i].tid);
		cr_assert_not_null(t, "thread %" PRIu64, want[i].tid);
		cr_expect_str_eq(rtr_model_str(&m, t->kind_name), "thread");
		cr_expect_eq(t->kind, RTR_KIND_THREAD);
		cr_expect_str_eq(rtr_model_str(&m, t->name), want[i].label);
		cr_expect_eq(t->created, want[i].created, "thread %" PRIu64, want[i].tid);
		cr_expect_eq(t->nruns, want[i].runs, "thread %" PRIu64, want[i].tid);
		if (want[i].tid != 101) {
			cr_expect_eq(t->flags, RTR_TASK_PREEXISTING, "thread %" PRIu64,
				     want[i].tid);
			cr_expect_eq(t->nlabels, 1, "one label for the comm, however often named");
		}
		nruns += t->nruns;
	}
	/* the child: created by bash, renamed by its exec, resolved at its exit */
	child = task_of(&m, 101);
	cr_expect_eq(child->flags, RTR_TASK_CREATED | RTR_TASK_RESOLVED);
	cr_expect_eq(child->parent_id, 100);
	cr_assert_neq(child->parent, RTR_MODEL_NONE);
	cr_expect_eq(m.tasks[child->parent].id, 100);
	cr_expect_eq(child->resolved, 3800, "at sched_process_exit, not _free");
	cr_expect_eq(child->end, 3800);
	cr_assert_eq(child->nlabels, 2);
	cr_expect_str_eq(rtr_model_str(&m, m.labels[child->label_first].text), "bash");
	cr_expect_eq(m.labels[child->label_first].ts, 1000);
	cr_expect_str_eq(rtr_model_str(&m, m.labels[child->label_first + 1].text), "ls");
	cr_expect_eq(m.labels[child->label_first + 1].ts, 3800);
	/* bash's second child, given the ended one's thread id: a thread of its own */
	t = &m.tasks[m.ntasks - 1];
	cr_expect_eq(t->id, 101);
	cr_expect_neq(t, child);
	cr_expect_eq(t->flags, RTR_TASK_CREATED);
	cr_expect_eq(t->created, 8600);
	cr_expect_eq(t->parent_id, 100);
	cr_expect_eq(t->nruns, 0);
	cr_expect_eq(t->nlabels, 1);
	/* the runs, each on its CPU, from switch to switch */
	cr_expect_eq(m.nruns, 5);
	cr_expect_eq(nruns, 5);
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		bool found = false;

		t = task_of(&m, runs[i].tid);
		for (uint32_t j = t->run_first; j < t->run_first + t->nruns; j++) {
			const struct rtr_model_run *r = &m.runs[j];

			found |= r->start == runs[i].start && r->end == runs[i].end &&
				 run_cpu(&m, r) == runs[i].cpu;
		}
		cr_expect(found, "thread %" PRIu64 " ran on CPU %u from %" PRId64 " to %" PRId64,
			  runs[i].tid, runs[i].cpu, runs[i].start, runs[i].end);
	}
	/* how each run ended: prev_state 1 and 128 waited, 0x100 was preempted; the last runs on */
	static const struct {
		uint64_t tid;
		int64_t start;
		uint8_t why;
	} whys[] = {
		{ 100, 0, RTR_RUN_BLOCKED }, { 100, 8500, RTR_RUN_SWITCH }, { 50, 200, RTR_RUN_BLOCKED },
		{ 101, 1700, RTR_RUN_BLOCKED }, { 7, 2000, RTR_RUN_PREEMPTED },
	};
	for (size_t i = 0; i < sizeof(whys) / sizeof(whys[0]); i++) {
		t = task_of(&m, whys[i].tid);
		for (uint32_t j = t->run_first; j < t->run_first + t->nruns; j++)
			if (m.runs[j].start == whys[i].start)
				cr_expect_eq(m.runs[j].why, whys[i].why, "thread %" PRIu64 " at %" PRId64
					     ": ended %u", whys[i].tid, whys[i].start, m.runs[j].why);
	}
	/* so each thread's time: bash blocked from 2000 to 8500, in the kernel */
	struct rtr_thread_time *tt;
	uint32_t ntt;

	cr_assert_eq(rtr_thread_times(&m, &tt, &ntt), 0);
	cr_assert_eq(ntt, 4, "bash, sshd, the child, the kworker");
	for (uint32_t i = 0; i < ntt; i++) {
		if (tt[i].tid == 100) {
			cr_expect_eq(tt[i].on_cpu, 2000 + 1500);
			cr_expect_eq(tt[i].blocked, 6500);
			cr_expect_eq(tt[i].runnable, 0);
			cr_expect(tt[i].nwhy == 1 && !strcmp(tt[i].why[0].kind, "kernel"));
		} else if (tt[i].tid == 7) {
			cr_expect_eq(tt[i].preempted, 1);
			cr_expect_eq(tt[i].on_cpu, 1000);
		}
	}
	free(tt);
	for (uint32_t c = 0; c < m.ncpus; c++) {
		uint32_t a = m.cpus[c].run_first, b = a + m.cpus[c].nruns;

		for (uint32_t j = a + 1; j < b; j++)
			cr_expect_geq(m.runs[m.cpu_runs[j]].start, m.runs[m.cpu_runs[j - 1]].end,
				      "a CPU runs one thread at a time");
	}
	/* bash woke its child; the idle CPU's wake-up of bash is no arrow */
	cr_assert_eq(m.narrows, 1);
	cr_expect_eq(m.arrows[0].kind, RTR_ARROW_SIGNAL);
	cr_expect_eq(m.tasks[m.arrows[0].from].id, 100);
	cr_expect_eq(m.tasks[m.arrows[0].to].id, 101);
	cr_expect_eq(m.arrows[0].ts, 1500);
	cr_expect_eq(m.cpus[m.arrows[0].cpu].cpu, 0);
	/* the rest are markers */
	cr_assert_eq(m.nmarkers, 3);
	for (uint32_t i = 0; i < m.nmarkers; i++)
		cr_expect_str_eq(rtr_model_str(&m, m.classes[m.markers[i].cls].name), markers[i]);
	cr_expect_eq(m.markers[1].ts, 1600);
	rtr_model_free(&m);

	snprintf(args, sizeof(args), "stats --json '%s'", dir);
	out = rt(args, false, &st);
	cr_expect_eq(st, 0, "%s", out);
	cr_expect_not_null(strstr(out, "{\"kind\": \"thread\", \"tasks\": 5, \"resolved\": 1, "
				  "\"failed\": 0, \"unresolved\": 4,"), "%s", out);
	cr_expect_not_null(strstr(out, "\"p50_ns\": 2800,"), "the child lived 2.8 us: %s", out);
	free(out);
	snprintf(args, sizeof(args), "export --format chrome -o - '%s'", dir);
	out = rt(args, false, &st);
	cr_expect_eq(st, 0, "%s", out);
	cr_expect_not_null(strstr(out, "\"cat\":\"run\",\"name\":\"kworker/0:1\""), "%s", out);
	free(out);

	/* thread ids of other types: markers, never a crash */
	snprintf(dir, sizeof(dir), "%s/tests/data/lttng-kernel/sched-odd", src && *src ? src : ".");
	cr_assert_eq(rtr_model_load(&m, dirs, 1, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(m.nruns, 0, "no sched_switch read");
	cr_expect_eq(m.nmarkers, 7 + 2 + 1 + 1 + 2, "switch, fork, exit, wakeup, openat");
	for (uint32_t i = 0; i < m.nmarkers; i++) {
		const char *cls = rtr_model_str(&m, m.classes[m.markers[i].cls].name);

		cr_expect(strcmp(cls, "sched_waking") && strcmp(cls, "sched_process_free"), "%s",
			  cls);
	}
	/* what is well-typed still counts: sched_process_free resolves the child */
	child = task_of(&m, 101);
	cr_assert_not_null(child);
	cr_expect_eq(child->flags, RTR_TASK_PREEXISTING | RTR_TASK_RESOLVED);
	cr_expect_eq(child->resolved, 7000);
	/* sched_waking's comm a string: its tid found by a walk, its comm read */
	t = task_of(&m, 100);
	cr_assert_not_null(t);
	cr_expect_str_eq(rtr_model_str(&m, t->name), "bash");
	cr_expect_eq(t->created, 8000, "its one mention: its wake-up");
	cr_expect_str_eq(rtr_model_str(&m, child->name), "bash");
	rtr_model_free(&m);
}

/*
 * A ringtrace trace's typed events: markers on their CPU with their fields
 * as dump prints them, in time order between the task events; their class
 * counted in the model and in stats; Trace Event instants in export, their
 * fields in args.
 */
Test(tools_model, typed_events_are_markers_counted_and_exported)
{
	static const char *const want[] = {
		"id = 0, status = ok (0)",
		"id = 1, status = not_found (1)",
		"id = 2, status = 7",
	};
	struct session s;
	struct rtr_model m;
	char args[512], file[160], *out, *json;
	uint64_t main_task, creates = 0, reqs = 0;
	size_t len;
	FILE *f;
	int st;

	session_start(&s, 0, 0);
	main_task = rtr_task_id();
	rtr_create(0, main_task, RTR_KIND_THREAD);
	rtr_switch(main_task);
	RTR_TRACE(test, reply, .id = 0, .status = 0);
	RTR_TRACE(test, reply, .id = 1, .status = 1);
	rtr_note("between");
	RTR_TRACE(test, reply, .id = 2, .status = 7);
	rtr_switch(0);
	session_stop(&s);

	load(&m, s.trace, 0);
	cr_assert_eq(m.nmarkers, 3);
	for (uint32_t i = 0; i < m.nmarkers; i++) {
		const struct rtr_model_marker *k = &m.markers[i];

		cr_expect_str_eq(rtr_model_str(&m, m.classes[k->cls].name), "test:reply");
		cr_expect_str_eq(rtr_model_str(&m, k->fields), want[i]);
		/* the thread records name the thread that wrote it: this one */
		cr_assert_lt(k->thread, m.nthreads);
		cr_expect_eq(m.threads[k->thread].tid, (uint64_t)gettid());
		cr_expect_eq(m.threads[k->thread].pid, (uint64_t)getpid());
		cr_expect_lt(k->cpu, m.ncpus);
		cr_expect(!i || k->ts >= m.markers[i - 1].ts);
	}
	cr_expect(m.nnotes == 1 && m.markers[1].ts <= m.notes[0].ts &&
		  m.notes[0].ts <= m.markers[2].ts, "markers on the model's time axis");
	for (uint32_t i = 0; i < m.nclasses; i++) {
		const char *name = rtr_model_str(&m, m.classes[i].name);

		if (!strcmp(name, "create"))
			creates = m.classes[i].count;
		if (!strcmp(name, "test:reply"))
			reqs = m.classes[i].count;
	}
	cr_expect_eq(creates, 1);
	cr_expect_eq(reqs, 3);
	rtr_model_free(&m);

	/* stats: the events per class */
	snprintf(args, sizeof(args), "stats --json '%s'", s.trace);
	out = rt(args, false, &st);
	cr_assert_eq(st, 0, "%s", out);
	cr_expect_not_null(strstr(out, "{\"trace\": 0, \"class\": \"test:reply\", \"count\": 3}"),
			   "%s", out);
	free(out);
	snprintf(args, sizeof(args), "stats '%s'", s.trace);
	out = rt(args, false, &st);
	cr_assert_eq(st, 0, "%s", out);
	cr_expect_not_null(strstr(out, "event class"), "%s", out);
	cr_expect_not_null(strstr(out, "test:reply"), "%s", out);
	free(out);

	/* export: valid Trace Event JSON, an instant per marker with its fields */
	snprintf(file, sizeof(file), "%s/out.json", s.dir);
	snprintf(args, sizeof(args), "export --format chrome -o '%s' '%s'", file, s.trace);
	out = rt(args, true, &st);
	cr_assert_eq(st, 0, "%s", out);
	free(out);
	out = checker(file, &st);
	cr_expect_eq(st, 0, "the checker: %s", out);
	cr_expect_not_null(strstr(out, "\"i\": 4,"), "3 markers + 1 note: %s", out);
	free(out);
	f = fopen(file, "rb");
	cr_assert_not_null(f);
	json = malloc(1 << 20);
	len = fread(json, 1, (1 << 20) - 1, f);
	json[len] = 0;
	fclose(f);
	cr_expect_not_null(strstr(json, "{\"ph\":\"i\",\"name\":\"test:reply\""), "%s", json);
	cr_expect_not_null(strstr(json, "\"fields\":\"id = 1, status = not_found (1)\","
				  "\"id\":1,\"status\":\"not_found (1)\"}"), "each field an arg: %s", json);
	free(json);

	/*
	 * view: the page's data holds a marker per event, its class and fields
	 * (what the viewer draws on the CPU's lane and shows on hover: its render
	 * tests, tests/viewer/run.mjs, check those on an LTTng trace)
	 */
	snprintf(file, sizeof(file), "%s/page.html", s.dir);
	snprintf(args, sizeof(args), "view -o '%s' '%s'", file, s.trace);
	out = rt(args, true, &st);
	cr_assert_eq(st, 0, "%s", out);
	free(out);
	snprintf(args, sizeof(args),
		 "/usr/bin/python3 -c 'import base64, gzip, json, re, sys\n"
		 "h = open(sys.argv[1]).read()\n"
		 "meta = json.loads(re.search(r\"id=.rtr-meta.>(.*?)</script>\", h, "
		 "re.S).group(1))\n"
		 "blob = gzip.decompress(base64.b64decode(re.search("
		 "r\"id=.rtr-data. data-encoding=.gzip.>(.*?)</script>\", h, re.S).group(1)))\n"
		 "print(\"markers\", meta[\"columns\"][\"marker_ts\"][1])\n"
		 "sys.stdout.buffer.write(blob.replace(bytes([0]), bytes([10])))' '%s'",
		 file);
	out = t_sh(args, &st);
	cr_assert_eq(st, 0, "%s", out);
	cr_expect_eq(strncmp(out, "markers 3\n", 10), 0, "%.100s", out);
	/* the blob, its NULs made newlines: its strings */
	cr_expect_not_null(strstr(out, "\ntest:reply\n"), "no class name in the page");
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		cr_expect_not_null(strstr(out, want[i]), "no '%s' in the page", want[i]);
	free(out);
	session_end(&s);
}

/* What `stats` tabulates, alike in @a (a whole load) and @b (RTR_MODEL_LEAN). */
static void expect_same_tables(const struct rtr_model *a, const struct rtr_model *b,
			       const char *what)
{
	struct rtr_thread_time *ta, *tb;
	uint32_t na, nb;

	cr_assert_eq(a->ntasks, b->ntasks, "%s", what);
	for (uint32_t i = 0; i < a->ntasks; i++) {
		const struct rtr_model_task *x = &a->tasks[i], *y = &b->tasks[i];

		cr_expect(x->id == y->id && x->flags == y->flags && x->kind == y->kind &&
			  x->created == y->created && x->resolved == y->resolved &&
			  x->end == y->end && x->parent == y->parent && x->becomes == y->becomes &&
			  x->became_from == y->became_from && x->nlabels == y->nlabels,
			  "%s: task %u differs", what, i);
		cr_expect_str_eq(rtr_model_str(a, x->kind_name), rtr_model_str(b, y->kind_name));
		cr_expect_str_eq(rtr_model_str(a, x->name), rtr_model_str(b, y->name));
		cr_expect_str_eq(rtr_model_str(a, x->reason), rtr_model_str(b, y->reason));
	}
	cr_assert_eq(a->nclasses, b->nclasses, "%s", what);
	for (uint32_t i = 0; i < a->nclasses; i++)
		cr_expect_eq(a->classes[i].count, b->classes[i].count, "%s: class %u", what, i);
	cr_assert_eq(a->ncpus, b->ncpus, "%s", what);
	for (uint32_t i = 0; i < a->ncpus; i++)
		cr_expect(a->cpus[i].events == b->cpus[i].events &&
			  a->cpus[i].events_lost == b->cpus[i].events_lost &&
			  a->cpus[i].packets_lost == b->cpus[i].packets_lost &&
			  a->cpus[i].first == b->cpus[i].first && a->cpus[i].last == b->cpus[i].last,
			  "%s: cpu %u differs", what, i);
	cr_assert_eq(a->nthreads, b->nthreads, "%s", what);
	for (uint32_t i = 0; i < a->nthreads; i++)
		cr_expect(a->threads[i].tid == b->threads[i].tid &&
			  a->threads[i].pid == b->threads[i].pid &&
			  a->threads[i].events == b->threads[i].events, "%s: thread %u", what, i);
	cr_expect(a->events == b->events && a->start == b->start && a->end == b->end &&
		  a->nlosses == b->nlosses && a->ndamage == b->ndamage, "%s", what);
	cr_assert_eq(rtr_thread_times(a, &ta, &na), 0);
	cr_assert_eq(rtr_thread_times(b, &tb, &nb), 0);
	cr_assert_eq(na, nb, "%s: thread times", what);
	for (uint32_t i = 0; i < na; i++) {
		cr_expect(ta[i].task == tb[i].task && ta[i].on_cpu == tb[i].on_cpu &&
			  ta[i].runnable == tb[i].runnable && ta[i].blocked == tb[i].blocked &&
			  ta[i].runs == tb[i].runs && ta[i].preempted == tb[i].preempted &&
			  ta[i].migrations == tb[i].migrations && ta[i].nwhy == tb[i].nwhy,
			  "%s: thread time %u differs", what, i);
		for (uint32_t k = 0; k < ta[i].nwhy && k < tb[i].nwhy; k++)
			cr_expect(!strcmp(ta[i].why[k].kind, tb[i].why[k].kind) &&
				  ta[i].why[k].ns == tb[i].why[k].ns, "%s: thread time %u, why %u",
				  what, i, k);
	}
	free(ta);
	free(tb);
	/* and it is lean: none of what only drawings read */
	cr_expect(b->nnotes == 0 && b->npauses == 0 && b->nsamples == 0, "%s", what);
	cr_expect_leq(b->narrows, a->narrows, "%s", what);
	cr_expect_leq(b->nruns, a->nruns, "%s", what);
}

/*
 * RTR_MODEL_LEAN (`stats`' tables): the tasks, classes, CPUs, threads and
 * thread times of a whole load, without the arrows, samples and runs that
 * only drawings read: on a trace of every task event, and on the kernel's.
 */
Test(tools_model, a_lean_load_tabulates_as_a_whole_one)
{
	const char *src = getenv("RTR_SRCDIR");
	static const char *const kernel[] = { "sched", "sched-odd", "contexts", "x86_64" };
	char dir[PATH_MAX], *dirs[1] = { dir }, err[512];
	struct rtr_model a, b;
	struct session s;
	struct known k;

	known_trace(&s, &k);
	load(&a, s.trace, 0);
	dirs[0] = s.trace;
	cr_assert_eq(rtr_model_load_flags(&b, dirs, 1, RTR_MODEL_LEAN, err, sizeof(err)), 0, "%s",
		     err);
	expect_same_tables(&a, &b, "the known trace");
	cr_expect_lt(b.narrows, a.narrows, "no arrow left out");
	cr_expect_lt(b.nsamples, a.nsamples, "no counter sample left out");
	rtr_model_free(&a);
	rtr_model_free(&b);
	session_end(&s);
	dirs[0] = dir;
	for (size_t i = 0; i < sizeof(kernel) / sizeof(kernel[0]); i++) {
		int ra, rb;

		snprintf(dir, sizeof(dir), "%s/tests/data/lttng-kernel/%s", src && *src ? src : ".",
			 kernel[i]);
		ra = rtr_model_load_flags(&a, dirs, 1, 0, err, sizeof(err));
		rb = rtr_model_load_flags(&b, dirs, 1, RTR_MODEL_LEAN, err, sizeof(err));
		cr_assert(ra >= 0 && ra == rb, "%s: %d, %d: %s", dir, ra, rb, err);
		expect_same_tables(&a, &b, kernel[i]);
		rtr_model_free(&a);
		rtr_model_free(&b);
	}
}

/*
 * A long read says how far it got on a terminal (under script(1)'s pty):
 * "reading: N M of T M events", T from the index, the line cleared at the
 * end; not a word of it when standard error is not a terminal.
 */
Test(tools_model, a_long_read_shows_its_progress_on_a_terminal, .timeout = 120)
{
	struct rtr_config cfg = { .struct_size = sizeof(cfg), .packet_size = 1 << 20,
				  .packets_per_cpu = 128 };
	char cmd[PATH_MAX + 512], args[PATH_MAX + 64], *out;
	struct session s;
	int st;

	session_start_cfg(&s, &cfg);
	for (uint64_t i = 0; i < 500000; i++) {
		uint64_t t = rtr_task_id();

		rtr_create(0, t, RTR_KIND_TASK);
		rtr_label(t, "x");
		rtr_resolve(0, t);
	}
	session_stop(&s);
	snprintf(cmd, sizeof(cmd), "script -qec \"RINGTRACE_PROGRESS_DELAY_MS=0 '%s/ringtrace' "
		 "stats '%s' >/dev/null\" /dev/null", t_bindir(), s.trace);
	out = t_sh(cmd, &st);
	cr_assert_eq(st, 0, "%s", out);
	cr_expect_not_null(strstr(out, "\rringtrace: reading: 1.0 M of 1.5 M events (69 %)"), "%s",
			   out);
	cr_expect_not_null(strstr(out, "\r\033[K"), "the line not cleared: %s", out);
	free(out);
	snprintf(args, sizeof(args), "stats '%s'", s.trace);
	setenv("RINGTRACE_PROGRESS_DELAY_MS", "0", 1);
	out = rt(args, true, &st);
	unsetenv("RINGTRACE_PROGRESS_DELAY_MS");
	cr_assert_eq(st, 0, "%s", out);
	cr_expect_null(strstr(out, "reading:"), "progress without a terminal: %s", out);
	free(out);
	session_end(&s);
}
