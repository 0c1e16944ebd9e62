// SPDX-License-Identifier: MIT
/*
 * tests/viewer/make_traces.c - the traces the viewer's render tests open
 * (tests/viewer/run.mjs), written with the public API and converted:
 *   rtr-viewer-traces DIR   makes DIR/basic, DIR/many and DIR/lossy.
 * basic: eight known tasks on one thread, with sleeps so their lengths are
 * known to a few milliseconds: "alpha" should resolve and never does;
 * "worker" resolves "beta" (green) and signals "main" (orange), "main" reads
 * "beta" (blue); "gamma" fails with "timeout"; "delta-short" lives 200 us;
 * "epsilon" becomes "zeta"; counters queue#1 and queue#2; two notes, one
 * with bytes XML cannot hold; a pause.
 * many: 2000 tasks alive at once (2000 rows: the vertical focus).
 * lossy: a small ring filled with no consumer: events lost.
 * binds: "input" resolved 5 ms after two binds on it were made: "idle-bind",
 * which nobody waits for (simplify_binds draws it from its read, under
 * "input"), and "awaited-bind", which "main" waits for (drawn from its
 * creation); main sleeps (switch to idle) from 8 to 18 ms: a sleeping region.
 * requests: 1000 requests of the event loop below (the fit view's test).
 *   rtr-viewer-traces --events N DIR   makes the trace DIR of about N events
 * for the viewer's benchmark (make bench): an event loop serving requests,
 * 16 in flight, each created, labelled, run, waiting on an I/O task that the
 * loop resolves, woken, reading it, resolved; a counter; a note now and then.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <ringtrace/ringtrace.h>
#include "consumer/convert.h"

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

static int begin(const char *dir, const char *name, uint32_t packet_size, uint32_t packets)
{
	static char region[4096];
	struct rtr_config cfg = { .struct_size = sizeof(cfg), .path = region,
		.mode = RTR_MODE_DISCARD, .packet_size = packet_size, .packets_per_cpu = packets };
	int ret;

	if (*name)
		snprintf(region, sizeof(region), "%s/%s.region", dir, name);
	else
		snprintf(region, sizeof(region), "%s.region", dir);
	ret = rtr_start(&cfg);
	if (ret)
		fprintf(stderr, "rtr-viewer-traces: rtr_start %s: %s\n", region, strerror(-ret));
	return ret;
}

static int finish(const char *dir, const char *name)
{
	struct rtr_convert_report rep;
	char region[4096], trace[4096];
	int ret;

	if (rtr_stop())
		return -1;
	/* name "": the trace is @dir itself */
	snprintf(region, sizeof(region), *name ? "%s/%s.region" : "%s%s.region", dir, name);
	snprintf(trace, sizeof(trace), *name ? "%s/%s" : "%s%s", dir, name);
	ret = rtr_convert(region, trace, &rep);
	remove(region);
	if (ret)
		fprintf(stderr, "rtr-viewer-traces: convert %s: %s\n", trace, rep.err);
	return ret;
}

static int basic(const char *dir)
{
	uint64_t main_task = rtr_task_id(), worker = rtr_task_id(), beta = rtr_task_id();
	uint64_t alpha, gamma, delta, epsilon, zeta;
	uint32_t q1, q2;

	if (begin(dir, "basic", 0, 0))
		return -1;
	rtr_counter_register("queue#1", &q1);
	rtr_counter_register("queue#2", &q2);
	rtr_create(0, main_task, RTR_KIND_THREAD);
	rtr_label(main_task, "main");
	rtr_switch(main_task);
	alpha = rtr_named_wait(main_task, "alpha");
	rtr_should_resolve(alpha);
	rtr_create(main_task, beta, RTR_KIND_REQUEST);
	rtr_label(beta, "beta");
	rtr_create(main_task, worker, RTR_KIND_THREAD);
	rtr_label(worker, "worker");
	gamma = rtr_named_wait(main_task, "gamma");
	rtr_counter_set(q1, 3);
	rtr_counter_set(q2, 10);
	sleep_us(5000);
	rtr_try_read(main_task, beta);
	rtr_switch(worker);
	rtr_note("hello note");
	sleep_us(5000);
	rtr_resolve(worker, beta);
	sleep_us(2000);
	rtr_signal(worker, main_task);
	rtr_switch(main_task);
	rtr_read(main_task, beta);
	rtr_counter_set(q1, 7);
	sleep_us(5000);
	rtr_note("ctl\x01\x1f <&> \"q\"");	/* not XML: the SVG export must still parse */
	rtr_fail(worker, gamma, "timeout");
	delta = rtr_named_wait(main_task, "delta-short");
	sleep_us(200);
	rtr_resolve(main_task, delta);
	epsilon = rtr_named_wait(main_task, "epsilon");
	zeta = rtr_named_wait(main_task, "zeta");
	sleep_us(2000);
	rtr_becomes(epsilon, zeta);
	sleep_us(3000);
	rtr_resolve(main_task, zeta);
	rtr_counter_set(q2, 0);
	sleep_us(2000);
	rtr_pause(2000000, "gc");
	sleep_us(5000);
	rtr_resolve(main_task, worker);
	rtr_switch(0);
	return finish(dir, "basic");
}

static int many(const char *dir)
{
	static uint64_t ids[2000];
	uint64_t main_task = rtr_task_id();

	if (begin(dir, "many", 0, 0))
		return -1;
	rtr_create(0, main_task, RTR_KIND_THREAD);
	rtr_label(main_task, "main");
	for (int i = 0; i < 2000; i++) {
		char name[32];

		snprintf(name, sizeof(name), "task %d", i);
		ids[i] = rtr_named_wait(main_task, name);
	}
	sleep_us(2000);
	for (int i = 0; i < 2000; i++)
		rtr_resolve(main_task, ids[i]);
	return finish(dir, "many");
}

static int lossy(const char *dir)
{
	uint64_t t = rtr_task_id();

	/* 2 packets of 4 KiB, no consumer: the ring fills and discards */
	if (begin(dir, "lossy", 4096, 2))
		return -1;
	rtr_create(0, t, RTR_KIND_THREAD);
	rtr_label(t, "flood");
	for (int i = 0; i < 20000; i++)
		rtr_switch(t);
	return finish(dir, "lossy");
}

static int binds(const char *dir)
{
	uint64_t main_task = rtr_task_id(), input, idle, awaited;
	cpu_set_t one;

	/* One CPU: its switches alone say when main ran (a trace records CPUs). */
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	sched_setaffinity(0, sizeof(one), &one);
	if (begin(dir, "binds", 0, 0))
		return -1;
	rtr_create(0, main_task, RTR_KIND_THREAD);
	rtr_label(main_task, "main");
	rtr_switch(main_task);
	input = rtr_named_wait(main_task, "input");
	idle = rtr_task_id();
	rtr_create(main_task, idle, RTR_KIND_BIND);
	rtr_label(idle, "idle-bind");
	rtr_try_read(idle, input);
	awaited = rtr_task_id();
	rtr_create(main_task, awaited, RTR_KIND_BIND);
	rtr_label(awaited, "awaited-bind");
	rtr_try_read(awaited, input);
	sleep_us(1000);
	rtr_try_read(main_task, awaited);
	sleep_us(4000);
	rtr_resolve(main_task, input);
	rtr_switch(idle);
	rtr_read(idle, input);
	sleep_us(1000);
	rtr_resolve(idle, idle);
	rtr_switch(awaited);
	rtr_read(awaited, input);
	sleep_us(1000);
	rtr_resolve(awaited, awaited);
	rtr_switch(main_task);
	rtr_read(main_task, awaited);
	sleep_us(1000);
	rtr_switch(0);			/* asleep from 8 ms ... */
	sleep_us(10000);
	rtr_switch(main_task);		/* ... to 18 ms */
	sleep_us(2000);
	rtr_resolve(main_task, main_task);
	rtr_switch(0);
	return finish(dir, "binds");
}

static int big(const char *dir, uint64_t nev)
{
	static const char *const paths[8] = {
		"GET /", "GET /api/items", "POST /api/orders", "GET /static/app.js",
		"GET /api/users", "PUT /api/items", "GET /health", "DELETE /api/orders",
	};
	uint64_t loop = rtr_task_id(), req[16] = { 0 }, io[16] = { 0 }, ev = 2;
	uint32_t packets = 4, inflight;
	char name[32];

	while ((uint64_t)packets * (1u << 20) < nev * 16 * 2)
		packets *= 2;
	if (begin(dir, "", 1u << 20, packets))
		return -1;
	rtr_counter_register("requests#inflight", &inflight);
	rtr_create(0, loop, RTR_KIND_THREAD);
	rtr_label(loop, "event loop");
	for (uint64_t r = 0; ev < nev; r++) {
		uint32_t k = (uint32_t)(r & 15);

		rtr_switch(loop);
		if (req[k]) {	/* the oldest request's I/O is done */
			rtr_resolve(loop, io[k]);
			rtr_signal(loop, req[k]);
			rtr_switch(req[k]);
			rtr_read(req[k], io[k]);
			rtr_resolve(req[k], req[k]);
			rtr_switch(loop);
			ev += 6;
		}
		req[k] = rtr_task_id();
		io[k] = rtr_task_id();
		rtr_create(loop, req[k], RTR_KIND_REQUEST);
		snprintf(name, sizeof(name), "%s #%llu", paths[r & 7], (unsigned long long)r);
		rtr_label(req[k], name);
		rtr_switch(req[k]);
		rtr_create(req[k], io[k], RTR_KIND_WAIT);
		rtr_try_read(req[k], io[k]);
		rtr_switch(0);
		rtr_counter_set(inflight, (int64_t)(r < 16 ? r + 1 : 16));
		ev += 8;
		if (r % 1000 == 0) {
			rtr_note("served %llu requests", (unsigned long long)r);
			ev++;
		}
	}
	printf("%llu events\n", (unsigned long long)ev);
	return finish(dir, "");
}

/*
 * Two "hosts" (Documentation/network.rst, "A request from one host to
 * another"): client's task "request" labelled "xid send 0x2a", then, in a
 * trace of its own, server's "handler" labelled "xid recv 0x2a".
 */
static int hosts(const char *dir)
{
	uint64_t main_task = rtr_task_id(), req = rtr_task_id(), handler = rtr_task_id();

	if (begin(dir, "client", 0, 0))
		return -1;
	rtr_create(0, main_task, RTR_KIND_THREAD);
	rtr_label(main_task, "client main");
	rtr_switch(main_task);
	rtr_create(main_task, req, RTR_KIND_REQUEST);
	rtr_label(req, "request");
	sleep_us(1000);
	rtr_label(req, "xid send 0x2a");
	sleep_us(4000);
	rtr_resolve(main_task, req);
	rtr_switch(0);
	if (finish(dir, "client"))
		return -1;
	if (begin(dir, "server", 0, 0))
		return -1;
	main_task = rtr_task_id();
	rtr_create(0, main_task, RTR_KIND_THREAD);
	rtr_label(main_task, "server main");
	rtr_switch(main_task);
	rtr_create(main_task, handler, RTR_KIND_REQUEST);
	rtr_label(handler, "handler");
	rtr_label(handler, "xid recv 0x2a");
	sleep_us(3000);
	rtr_resolve(main_task, handler);
	rtr_switch(0);
	return finish(dir, "server");
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "--events"))
		return big(argv[3], strtoull(argv[2], NULL, 0)) ? 1 : 0;
	if (argc != 2 || argv[1][0] == '-') {
		/* an option it does not know is not a directory to make */
		fprintf(stderr, "usage: rtr-viewer-traces DIR\n"
			"       rtr-viewer-traces --events N DIR\n");
		return argc == 2 && !strcmp(argv[1], "--help") ? 0 : 2;
	}
	if (mkdir(argv[1], 0700)) {
		perror(argv[1]);
		return 1;
	}
	if (basic(argv[1]) || many(argv[1]) || lossy(argv[1]) || binds(argv[1]) ||
	    hosts(argv[1]))
		return 1;
	{
		char dir[4096];

		/* 1000 requests: the loop makes about 14 events a request */
		snprintf(dir, sizeof(dir), "%s/requests", argv[1]);
		if (big(dir, 14000))
			return 1;
	}
	return 0;
}
