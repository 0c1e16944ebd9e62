// SPDX-License-Identifier: MIT
/*
 * tests/events/test_events.c - the task model through the whole chain: the
 * public API, a region, `convert` to a CTF directory, and babeltrace2
 * (python3-bt2) reading back every value exactly.
 */
#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timex.h>
#include <time.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <ringtrace/ringtrace.h>
#include "consumer/convert.h"
#include "tests/helpers.h"

TestSuite(events, .timeout = 120);

struct session {
	char dir[64];
	char region[96];
	char trace[96];
};

static void session_start(struct session *s, uint32_t mode)
{
	struct rtr_config cfg = { .struct_size = sizeof(cfg), .mode = mode };

	strcpy(s->dir, "/dev/shm/rtr-ev-XXXXXX");
	cr_assert_not_null(mkdtemp(s->dir));
	snprintf(s->region, sizeof(s->region), "%s/region", s->dir);
	snprintf(s->trace, sizeof(s->trace), "%s/trace", s->dir);
	cfg.path = s->region;
	cr_assert_eq(rtr_start(&cfg), 0);
	cr_assert(rtr_tracing());
	cr_expect_str_eq(rtr_region_path(), s->region);
}

/* Stop, convert, and return babeltrace2's events as JSON lines (malloc'd). */
static char *session_read(struct session *s)
{
	struct rtr_convert_report rep;
	char cmd[512];
	const char *src = getenv("RTR_SRCDIR");
	size_t len = 0, cap = 1 << 20;
	char *out = malloc(cap);
	FILE *p;
	size_t n;

	cr_assert_eq(rtr_stop(), 0);
	cr_assert(!rtr_tracing());
	cr_assert_eq(rtr_convert(s->region, s->trace, &rep), 0, "%s", rep.err);
	cr_expect_eq(rep.events_lost, 0);
	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 '%s/tests/interop/bt2_read.py' events '%s'",
		 src ? src : ".", s->trace);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while ((n = fread(out + len, 1, cap - len - 1, p)) > 0) {
		len += n;
		if (cap - len < 65536)
			out = realloc(out, cap *= 2);
	}
	out[len] = 0;
	cr_assert_eq(pclose(p), 0, "%s failed", cmd);
	return out;
}

static void session_end(struct session *s)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", s->dir);
	cr_expect_eq(system(cmd), 0);
}

/* The value of "key" in a JSON line, as its literal text. */
static void field(const char *line, const char *key, char *out, size_t len)
{
	char pat[64];
	const char *p, *e;

	snprintf(pat, sizeof(pat), "\"%s\": ", key);
	p = strstr(line, "\"fields\": ");
	cr_assert_not_null(p, "%s", line);
	p = strstr(p, pat);
	cr_assert_not_null(p, "no field %s in %s", key, line);
	p += strlen(pat);
	e = p + strcspn(p, ",}");
	cr_assert_lt((size_t)(e - p), len);
	memcpy(out, p, (size_t)(e - p));
	out[e - p] = 0;
}

static char *hex(const char *s, size_t n)
{
	static char buf[2 * 600 + 8];
	int o = sprintf(buf, "\"hex:");

	for (size_t i = 0; i < n; i++)
		o += sprintf(buf + o, "%02x", (uint8_t)s[i]);
	strcpy(buf + o, "\"");
	return buf;
}

struct expect {
	const char *name;
	const char *keys[3];
	char vals[3][600];
};

static int nexp;
static struct expect exps[64];

static void want(const char *name, const char *k0, const char *v0, const char *k1,
		 const char *v1, const char *k2, const char *v2)
{
	struct expect *e = &exps[nexp++];

	e->name = name;
	e->keys[0] = k0;
	e->keys[1] = k1;
	e->keys[2] = k2;
	snprintf(e->vals[0], sizeof(e->vals[0]), "%s", v0 ? v0 : "");
	snprintf(e->vals[1], sizeof(e->vals[1]), "%s", v1 ? v1 : "");
	snprintf(e->vals[2], sizeof(e->vals[2]), "%s", v2 ? v2 : "");
}

static void check_lines(char *out)
{
	int i = 0;

	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n"), i++) {
		char name[64], v[1300];

		cr_assert_lt(i, nexp, "more events than emitted: %s", line);
		cr_assert_eq(sscanf(line, "{\"name\": \"%63[^\"]\"", name), 1);
		cr_expect_str_eq(name, exps[i].name, "event %d", i);
		for (int k = 0; k < 3 && exps[i].keys[k]; k++) {
			field(line, exps[i].keys[k], v, sizeof(v));
			cr_expect_str_eq(v, exps[i].vals[k], "event %d (%s) field %s", i, name,
					 exps[i].keys[k]);
		}
	}
	cr_expect_eq(i, nexp, "babeltrace2 read %d of %d events", i, nexp);
}

Test(events, every_task_model_call_round_trips_exactly)
{
	static const char odd[] = "a\x01\xff\"\\\t\xc3\xa9z";
	char longtext[400], u64max[32], s64min[32], s64max[32];
	uint32_t requests, other, again;
	struct session s;
	char *out;

	t_pin0();
	snprintf(u64max, sizeof(u64max), "%" PRIu64, UINT64_MAX);
	snprintf(s64min, sizeof(s64min), "%" PRId64, INT64_MIN);
	snprintf(s64max, sizeof(s64max), "%" PRId64, INT64_MAX);
	memset(longtext, 'x', sizeof(longtext) - 1);
	longtext[sizeof(longtext) - 1] = 0;
	nexp = 0;
	cr_assert_eq(rtr_counter_register("requests \"in\" \\ flight", &requests), 0);
	session_start(&s, 1);
	cr_assert_eq(rtr_counter_register("other", &other), 0, "registered while tracing");
	cr_assert_eq(rtr_counter_register("requests \"in\" \\ flight", &again), 0);
	cr_expect_eq(again, requests, "same name, same counter");
	cr_expect_eq(rtr_counter_register("bad\nname", &again), -EINVAL);
	cr_expect_eq(rtr_counter_register("", &again), -EINVAL);

	rtr_switch(7);
	want("switch", "task", "7", NULL, NULL, NULL, NULL);
	rtr_switch(0);
	want("switch", "task", "0", NULL, NULL, NULL, NULL);
	rtr_switch(1ull << 40);
	want("switch64", "task", "1099511627776", NULL, NULL, NULL, NULL);
	rtr_create(1, 2, RTR_KIND_BIND);
	want("create", "parent", "1", "child", "2", "kind", "2");
	rtr_create(UINT64_MAX, 3, 250);
	want("create64", "parent", u64max, "child", "3", "kind", "250");
	rtr_read(1, 2);
	want("read", "reader", "1", "input", "2", NULL, NULL);
	rtr_read(1, 1ull << 33);
	want("read64", "reader", "1", "input", "8589934592", NULL, NULL);
	rtr_try_read(4294967295u, 0);
	want("try_read", "reader", "4294967295", "input", "0", NULL, NULL);
	rtr_try_read(4294967296ull, 1);
	want("try_read64", "reader", "4294967296", "input", "1", NULL, NULL);
	rtr_resolve(9, 10);
	want("resolve", "resolver", "9", "task", "10", NULL, NULL);
	rtr_resolve(9, UINT64_MAX);
	want("resolve64", "resolver", "9", "task", u64max, NULL, NULL);
	rtr_becomes(11, 12);
	want("becomes", "input", "11", "main", "12", NULL, NULL);
	rtr_becomes(1ull << 63, 12);
	want("becomes64", "input", "9223372036854775808", "main", "12", NULL, NULL);
	rtr_signal(13, 14);
	want("signal", "sender", "13", "receiver", "14", NULL, NULL);
	rtr_signal(13, 1ull << 32);
	want("signal64", "sender", "13", "receiver", "4294967296", NULL, NULL);
	rtr_should_resolve(15);
	want("should_resolve", "task", "15", NULL, NULL, NULL, NULL);
	rtr_should_resolve(1ull << 50);
	want("should_resolve64", "task", "1125899906842624", NULL, NULL, NULL, NULL);
	rtr_fail(16, 17, "connection reset");
	want("fail", "resolver", "16", "task", "17", "reason",
	     hex("connection reset", 16));
	rtr_fail(16, 18, NULL);
	want("fail", "resolver", "16", "task", "18", "reason", "\"hex:\"");
	rtr_label(19, odd);
	want("label", "task", "19", "text", hex(odd, sizeof(odd) - 1), NULL, NULL);
	rtr_label(20, "");
	want("label", "task", "20", "text", "\"hex:\"", NULL, NULL);
	rtr_label(21, longtext);
	want("label", "task", "21", "text", hex(longtext, RTR_TEXT_MAX), NULL, NULL);
	rtr_counter_set(requests, INT64_MAX);
	want("counter", "counter", "0", "value", s64max, NULL, NULL);
	rtr_counter_set(requests, INT64_MIN);
	want("counter", "counter", "0", "value", s64min, NULL, NULL);
	rtr_counter_set(requests, 5);
	want("counter", "counter", "0", "value", "5", NULL, NULL);
	rtr_counter_add(requests, -7);
	want("counter", "counter", "0", "value", "-2", NULL, NULL);
	rtr_counter_add(other, 3);
	want("counter", "counter", "1", "value", "3", NULL, NULL);
	rtr_note("%d requests, %s", 42, "all good");
	want("note", "text", hex("42 requests, all good", 21), NULL, NULL, NULL, NULL);
	rtr_pause(123456789, "gc");
	want("pause", "duration_ns", "123456789", "reason", hex("gc", 2), NULL, NULL);
	{
		uint64_t w = rtr_named_wait(1, "disk read");

		want("create", "parent", "1", "kind", "0", NULL, NULL);
		want("label", "text", hex("disk read", 9), NULL, NULL, NULL, NULL);
		cr_expect_neq(w, 0);
		cr_expect_neq(rtr_task_id(), w, "task ids are unique");
	}
	out = session_read(&s);
	/* Counter names come from the registry, as enum labels. */
	cr_expect_not_null(strstr(out, "\"counter@labels\": [\"requests \\\"in\\\" \\\\ flight\"]"),
			   "%s", out);
	cr_expect_not_null(strstr(out, "\"counter@labels\": [\"other\"]"));
	cr_expect_not_null(strstr(out, "\"kind@labels\": [\"bind\"]"));
	check_lines(out);	/* last: it cuts @out into lines */
	free(out);
	session_end(&s);
}

Test(events, timestamps_read_as_wall_clock_time_within_a_millisecond)
{
	struct timespec before, after;
	struct session s;
	char *out, *p;
	int64_t ns;

	session_start(&s, 1);
	clock_gettime(CLOCK_REALTIME, &before);
	rtr_switch(1);
	clock_gettime(CLOCK_REALTIME, &after);
	out = session_read(&s);
	p = strstr(out, "\"ns\": ");
	cr_assert_not_null(p, "%s", out);
	ns = strtoll(p + 6, NULL, 10);
	cr_expect_geq(ns, (int64_t)before.tv_sec * 1000000000 + before.tv_nsec - 1000000,
		      "%" PRId64 " is more than 1 ms before the call", ns);
	cr_expect_leq(ns, (int64_t)after.tv_sec * 1000000000 + after.tv_nsec + 1000000,
		      "%" PRId64 " is more than 1 ms after the call", ns);
	free(out);
	session_end(&s);
}

/* An integer of the metadata's env: "\tKEY = N;", or -1 when it has none. */
static int64_t env_int(const char *md, const char *key)
{
	char pat[80];
	const char *p;

	snprintf(pat, sizeof(pat), "\t%s = ", key);
	p = strstr(md, pat);
	return p ? strtoll(p + strlen(pat), NULL, 10) : -1;
}

/*
 * The metadata says how well the clock is known (region.h, ABI 1.3), and
 * it holds: 40 events over 0.4 s, each between two readings of the
 * program's CLOCK_REALTIME, are read by babeltrace2 within those readings
 * give or take the stated window and the frequency's stated error over the
 * time since the calibration (and a nanosecond of rounding).  The host's
 * synchronization is adjtimex()'s.
 */
Test(events, the_clocks_stated_uncertainty_holds)
{
	enum { N = 40 };
	struct timespec before[N], after[N], start;
	int64_t window, ppb, worst = 0;
	struct session s;
	char *out, *md, path[160];
	struct timex tx = { 0 };
	int st;

	clock_gettime(CLOCK_REALTIME, &start);
	session_start(&s, 1);
	for (int i = 0; i < N; i++) {
		clock_gettime(CLOCK_REALTIME, &before[i]);
		rtr_switch(1000 + (uint64_t)i);
		clock_gettime(CLOCK_REALTIME, &after[i]);
		usleep(10000);
	}
	out = session_read(&s);
	snprintf(path, sizeof(path), "cat '%s/metadata'", s.trace);
	md = t_sh(path, &st);
	cr_assert(md && st == 0, "%s", path);
	window = env_int(md, "clock_offset_window_ns");
	ppb = env_int(md, "clock_freq_error_ppb");
	cr_assert_gt(window, 0, "no clock_offset_window_ns in the env:\n%s", md);
	cr_assert_geq(ppb, 0, "no clock_freq_error_ppb in the env:\n%s", md);
	cr_expect_lt(window, 1000000, "a window of %" PRId64 " ns: the calibration is broken", window);
	cr_expect_geq(env_int(md, "clock_esterror_us"), 0);
	cr_expect_geq(env_int(md, "clock_maxerror_us"), 0);
	st = adjtimex(&tx);
	cr_expect_not_null(strstr(md, st == TIME_ERROR ? "\tclock_sync = \"unsynchronized\";" :
				  "\tclock_sync = \"synchronized\";"), "adjtimex says %d:\n%s", st, md);
	for (int i = 0; i < N; i++) {
		char pat[40];
		const char *p;
		int64_t ns, lo, hi, since, bound;

		snprintf(pat, sizeof(pat), "\"task\": %d", 1000 + i);
		p = strstr(out, pat);
		cr_assert_not_null(p, "event %d missing:\n%s", i, out);
		while (p > out && p[-1] != '\n')
			p--;
		p = strstr(p, "\"ns\": ");
		cr_assert_not_null(p);
		ns = strtoll(p + 6, NULL, 10);
		lo = (int64_t)before[i].tv_sec * 1000000000 + before[i].tv_nsec;
		hi = (int64_t)after[i].tv_sec * 1000000000 + after[i].tv_nsec;
		since = hi - ((int64_t)start.tv_sec * 1000000000 + start.tv_nsec);
		bound = window + ppb * since / 1000000000 + 1;
		cr_expect(ns >= lo - bound && ns <= hi + bound, "event %d at %" PRId64 " ns, its call "
			  "between %" PRId64 " and %" PRId64 ": outside the stated +-%" PRId64 " ns", i,
			  ns, lo, hi, bound);
		if (ns < lo && lo - ns > worst)
			worst = lo - ns;
		if (ns > hi && ns - hi > worst)
			worst = ns - hi;
	}
	cr_log_info("clock: window %" PRId64 " ns, %" PRId64 " ppb; the worst event %" PRId64
		    " ns outside its call", window, ppb, worst);
	free(md);
	free(out);
	session_end(&s);
}

Test(events, stop_and_start_again_and_calls_while_off_are_free)
{
	struct session s;
	char *out;
	int lines = 0;

	cr_expect_eq(rtr_stop(), -ENODEV, "not tracing");
	rtr_switch(1);	/* off: nothing */
	session_start(&s, 2);
	cr_expect_eq(rtr_start(NULL), -EALREADY);
	rtr_switch(2);
	out = session_read(&s);
	rtr_switch(3);	/* off again */
	for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n"))
		lines++;
	cr_expect_eq(lines, 1);
	free(out);
	session_end(&s);
	session_start(&s, 1);
	rtr_switch(4);
	out = session_read(&s);
	cr_expect_not_null(strstr(out, "\"task\": 4"), "a second session traces: %s", out);
	free(out);
	session_end(&s);
}

/*
 * Random sequences from four threads, each with its own task ids (thread k
 * uses k * 10^6 + n, or k << 40 | n for the 64-bit forms): babeltrace2's
 * time-ordered stream, filtered by thread, is exactly what each emitted.
 */
#define RT_THREADS 4
#define RT_EVENTS 3000

struct rt_thread {
	pthread_t t;
	uint32_t k;
	uint64_t seed;
	char *expect;	/* one line per event: "name a b" */
	size_t len;
};

static uint64_t rt_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void *rt_main(void *arg)
{
	struct rt_thread *t = arg;
	size_t cap = RT_EVENTS * 64;

	t->expect = malloc(cap);
	for (int i = 0; i < RT_EVENTS; i++) {
		uint64_t r = rt_rand(&t->seed);
		bool wide = r & 1;
		uint64_t a = wide ? ((uint64_t)t->k << 40) | (r >> 40) : t->k * 1000000ull + (r >> 50);
		uint64_t b = (r >> 8) & 0xffff;
		const char *name;

		switch ((r >> 4) % 6) {
		case 0: rtr_switch(a); name = wide ? "switch64" : "switch"; b = 0; break;
		case 1: rtr_read(a, b); name = wide ? "read64" : "read"; break;
		case 2: rtr_try_read(a, b); name = wide ? "try_read64" : "try_read"; break;
		case 3: rtr_resolve(a, b); name = wide ? "resolve64" : "resolve"; break;
		case 4: rtr_signal(a, b); name = wide ? "signal64" : "signal"; break;
		default: rtr_should_resolve(a); name = wide ? "should_resolve64" : "should_resolve"; b = 0; break;
		}
		t->len += (size_t)snprintf(t->expect + t->len, cap - t->len, "%s %" PRIu64 " %" PRIu64 "\n",
					   name, a, b);
	}
	return NULL;
}

Test(events, random_sequences_from_several_threads_come_back_in_order)
{
	struct rt_thread th[RT_THREADS];
	char *got[RT_THREADS];
	size_t glen[RT_THREADS] = { 0 };
	struct session s;
	char *out;

	session_start(&s, 1);
	for (uint32_t k = 0; k < RT_THREADS; k++) {
		th[k] = (struct rt_thread){ .k = k + 1, .seed = 0x9e3779b97f4a7c15ull * (k + 1) };
		got[k] = calloc(RT_EVENTS * 64, 1);
		pthread_create(&th[k].t, NULL, rt_main, &th[k]);
	}
	for (uint32_t k = 0; k < RT_THREADS; k++)
		pthread_join(th[k].t, NULL);
	out = session_read(&s);
	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		char name[32], v[64];
		uint64_t a, b = 0;
		uint32_t k;

		cr_assert_eq(sscanf(line, "{\"name\": \"%31[^\"]\"", name), 1);
		if (strstr(name, "switch") || strstr(name, "should_resolve")) {
			field(line, "task", v, sizeof(v));
			a = strtoull(v, NULL, 10);
		} else {
			const char *ka = strstr(name, "read") ? "reader" :
					 strstr(name, "resolve") ? "resolver" : "sender";
			const char *kb = strstr(name, "read") ? "input" :
					 strstr(name, "resolve") ? "task" : "receiver";

			field(line, ka, v, sizeof(v));
			a = strtoull(v, NULL, 10);
			field(line, kb, v, sizeof(v));
			b = strtoull(v, NULL, 10);
		}
		k = a >> 40 ? (uint32_t)(a >> 40) : (uint32_t)(a / 1000000);
		cr_assert(k >= 1 && k <= RT_THREADS, "event of no thread: %s", line);
		glen[k - 1] += (size_t)sprintf(got[k - 1] + glen[k - 1], "%s %" PRIu64 " %" PRIu64 "\n",
					       name, a, b);
	}
	for (uint32_t k = 0; k < RT_THREADS; k++) {
		cr_expect_eq(glen[k], th[k].len, "thread %u: lengths differ", k + 1);
		cr_expect_eq(memcmp(got[k], th[k].expect, th[k].len), 0,
			     "thread %u: sequence differs", k + 1);
		free(got[k]);
		free(th[k].expect);
	}
	free(out);
	session_end(&s);
}

/*
 * -DRINGTRACE_DISABLE: tests/events/disabled_unit.c calls every function of
 * the API; its object file must reference no ringtrace symbol, and the
 * function must compile to a bare return.
 */
Test(events, compiled_out_calls_leave_no_code)
{
	char exe[PATH_MAX], cmd[PATH_MAX + 128], buf[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	size_t len;
	FILE *p;

	cr_assert_gt(n, 0);
	exe[n] = 0;
	snprintf(cmd, sizeof(cmd), "nm -u %s/../obj/tests/events/disabled_unit.o", dirname(exe));
	p = popen(cmd, "r");
	len = fread(buf, 1, sizeof(buf) - 1, p);
	buf[len] = 0;
	cr_assert_eq(pclose(p), 0, "%s", cmd);
	cr_expect_null(strstr(buf, "rtr_"), "references left: %s", buf);
	readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	snprintf(cmd, sizeof(cmd),
		 "objdump -d --no-show-raw-insn %s/../obj/tests/events/disabled_unit.o | "
		 "awk '/<all_calls>:/{f=1;next} f&&/^$/{exit} f{print $2}'", dirname(exe));
	p = popen(cmd, "r");
	len = fread(buf, 1, sizeof(buf) - 1, p);
	buf[len] = 0;
	cr_assert_eq(pclose(p), 0);
	/* Sanitizer builds keep a frame; a plain build leaves only "ret". */
	cr_expect(strstr(buf, "ret") && !strstr(buf, "call"), "all_calls is not empty:\n%s", buf);
}

/*
 * Tracing stopped and started again while four threads call the API flat
 * out: no crash (the ASan run checks no access to an unmapped region), each
 * region converts to a trace babeltrace2 reads, and every event it holds
 * is one that was emitted.
 */
struct busy {
	pthread_t t;
	uint32_t k;
	int *stop;
	uint64_t calls;
};

static void *busy_main(void *arg)
{
	struct busy *b = arg;

	while (!__atomic_load_n(b->stop, __ATOMIC_RELAXED)) {
		uint64_t n = b->calls++;

		rtr_read(b->k * 1000000ull + (n & 0xffff), n & 0xffff);
		if ((n & 63) == 0)
			rtr_label(b->k, "busy");
	}
	return NULL;
}

Test(events, stop_and_start_while_threads_trace)
{
	struct busy b[4];
	struct session s[3];
	int stop = 0;

	/* Overwrite, discard (no consumer: it fills and drops), overwrite. */
	session_start(&s[0], 2);
	for (uint32_t k = 0; k < 4; k++) {
		b[k] = (struct busy){ .k = k + 1, .stop = &stop };
		pthread_create(&b[k].t, NULL, busy_main, &b[k]);
	}
	usleep(20000);
	for (int i = 1; i < 3; i++) {
		struct rtr_convert_report rep;

		cr_assert_eq(rtr_stop(), 0);
		usleep(5000);	/* threads call with tracing off */
		session_start(&s[i], i == 1 ? 1 : 2);
		usleep(20000);
		cr_assert_eq(rtr_convert(s[i - 1].region, s[i - 1].trace, &rep), 0, "%s", rep.err);
		cr_expect_gt(rep.packets, 0);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (uint32_t k = 0; k < 4; k++) {
		pthread_join(b[k].t, NULL);
		cr_expect_gt(b[k].calls, 1000);
	}
	for (int i = 0; i < 3; i++) {
		char cmd[256], *out, *l;
		int events = 0;

		if (i == 2) {
			out = session_read(&s[2]);
		} else {
			const char *src = getenv("RTR_SRCDIR");
			size_t len = 0, n;
			FILE *p;

			out = malloc(64 << 20);
			snprintf(cmd, sizeof(cmd), "/usr/bin/python3 '%s/tests/interop/bt2_read.py' "
				 "events '%s'", src ? src : ".", s[i].trace);
			p = popen(cmd, "r");
			while ((n = fread(out + len, 1, (64 << 20) - len - 1, p)) > 0)
				len += n;
			out[len] = 0;
			cr_assert_eq(pclose(p), 0);
		}
		for (l = strtok(out, "\n"); l; l = strtok(NULL, "\n"), events++) {
			char name[32];

			cr_assert_eq(sscanf(l, "{\"name\": \"%31[^\"]\"", name), 1);
			cr_assert(!strcmp(name, "read") || !strcmp(name, "label"), "%s", l);
		}
		cr_expect_gt(events, 0, "session %d traced", i);
		free(out);
		session_end(&s[i]);
	}
}

/*
 * libringtrace.so loads with dlopen() into a program that was not linked
 * with it (Python's ctypes), and its constructor starts tracing there
 * (RINGTRACE_PATH): the region is made, and stopped at exit.  Static TLS
 * has room for a few hundred bytes, so the library keeps no large
 * thread-local buffer: the registry parser's 21 KiB one made every such
 * dlopen() fail ("cannot allocate memory in static TLS block").
 */
Test(events, the_shared_library_loads_with_dlopen_and_traces)
{
	char dir[] = "/tmp/rtr-dlopen-XXXXXX", cmd[2048], *out;
	int st;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && %sRINGTRACE_PATH='%s/region' timeout -s KILL 60 /usr/bin/python3 -c "
		 "'import ctypes; l = ctypes.CDLL(\"%s/../lib/libringtrace.so\"); "
		 "print(\"task\", l.rtr_task_id())' 2>&1; echo status=$?; '%s/ringtrace' info region",
		 dir, T_PRELOAD_ENV, dir, t_bindir(), t_bindir());
	out = t_sh(cmd, &st);
	cr_expect_not_null(strstr(out, "task 1\n"), "%s", out);
	cr_expect_not_null(strstr(out, "status=0"), "%s", out);
	cr_expect_not_null(strstr(out, "state       stopped"), "%s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	free(t_sh(cmd, &st));
}
