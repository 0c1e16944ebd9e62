// SPDX-License-Identifier: MIT
/*
 * tests/events/test_threads.c - threads and processes in a trace made with
 * the events API: threads (most of them sharing CPU 0) each record their
 * own gettid() in typed events and notes; `ringtrace dump`, the model (what
 * `stats` and `view` read), `export` and babeltrace2
 * (tests/interop/bt2_read.py) must each attribute every event to that
 * thread, and to this process.
 */
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <ringtrace/ringtrace.h>
#include <ringtrace/event.h>
#include "consumer/convert.h"
#include "reader/model.h"
#include "tests/helpers.h"

#define TIDTEST_WHO(F) F(u32, tid) F(u32, seq)
RTR_EVENT_DECLARE(tidtest, who, TIDTEST_WHO)
RTR_EVENT_DEFINE(tidtest, who, TIDTEST_WHO)

#define PINNED		4
#define FREE		2
#define WRITERS		(PINNED + FREE)
#define EVENTS		3000
#define NOTE_EVERY	100

TestSuite(events_threads, .timeout = 120);

struct writer {
	pthread_t t;
	bool pinned;
	uint32_t tid;
};

static void *writer_main(void *arg)
{
	struct writer *w = arg;

	if (w->pinned)
		t_pin0();
	w->tid = (uint32_t)gettid();
	for (uint32_t i = 0; i < EVENTS; i++) {
		RTR_TRACE(tidtest, who, .tid = w->tid, .seq = i);
		if (i % NOTE_EVERY == 0)
			rtr_note("written by %u", w->tid);
		if (i % 50 == 49)
			sched_yield();	/* another writer of CPU 0 takes over */
	}
	return NULL;
}

static bool is_writer(const struct writer *w, uint64_t tid)
{
	for (int k = 0; k < WRITERS; k++)
		if (w[k].tid == tid)
			return true;
	return false;
}

/* The number after the last "KEY": in @line. */
static uint64_t last_u64(const char *line, const char *key)
{
	const char *p = NULL;

	for (const char *q = line; (q = strstr(q, key)); q++)
		p = q;
	cr_assert_not_null(p, "no %s in %s", key, line);
	return strtoull(p + strlen(key), NULL, 10);
}

Test(events_threads, every_event_is_attributed_to_its_thread_in_every_reader)
{
	char dir[] = "/dev/shm/rtr-tid-XXXXXX", region[96], trace[96], cmd[1536], err[256];
	struct rtr_config cfg = { .struct_size = sizeof(cfg), .packets_per_cpu = 64 };
	const uint64_t want = (uint64_t)WRITERS * EVENTS;
	const uint32_t pid = (uint32_t)getpid();
	struct rtr_convert_report rep;
	struct writer w[WRITERS];
	uint64_t n = 0, notes = 0;
	char *out, *line, *save;
	struct rtr_model m;
	char *dirs[1];
	int st;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(region, sizeof(region), "%s/region", dir);
	snprintf(trace, sizeof(trace), "%s/trace", dir);
	cfg.path = region;
	cr_assert_eq(rtr_start(&cfg), 0);
	for (int k = 0; k < WRITERS; k++) {
		w[k] = (struct writer){ .pinned = k < PINNED };
		cr_assert_eq(pthread_create(&w[k].t, NULL, writer_main, &w[k]), 0);
	}
	for (int k = 0; k < WRITERS; k++)
		pthread_join(w[k].t, NULL);
	cr_assert_eq(rtr_stop(), 0);
	cr_assert_eq(rtr_convert(region, trace, &rep), 0, "%s", rep.err);
	cr_assert_eq(rep.events_lost, 0);

	/* ringtrace dump: "... cpu N pid P tid T tidtest:who: { tid = T, seq = S }" */
	snprintf(cmd, sizeof(cmd), "'%s/ringtrace' dump '%s' 2>/dev/null", t_bindir(), trace);
	out = t_sh(cmd, &st);
	cr_assert_eq(st, 0, "%s", cmd);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long p, t, f;
		const char *c = strstr(line, " pid ");

		cr_assert_not_null(c, "a line without its thread: %s", line);
		cr_assert_eq(sscanf(c, " pid %llu tid %llu ", &p, &t), 2, "%s", line);
		cr_expect_eq(p, pid, "%s", line);
		if (strstr(line, " note: { text = \"written by ")) {
			f = last_u64(line, "written by ");
			cr_expect_eq(t, f, "%s", line);
			notes++;
		} else if ((c = strstr(line, " tidtest:who: { tid = "))) {
			cr_assert_eq(sscanf(c, " tidtest:who: { tid = %llu", &f), 1);
			cr_expect_eq(t, f, "%s", line);
			n++;
		} else {
			cr_expect_not_null(strstr(line, " thread: { pid = "), "%s", line);
		}
	}
	cr_expect_eq(n, want, "dump: every event");
	cr_expect_eq(notes, (uint64_t)WRITERS * (EVENTS / NOTE_EVERY), "dump: every note");
	free(out);

	/* check: the program's events, the thread records apart */
	snprintf(cmd, sizeof(cmd), "'%s/ringtrace' check '%s' | tail -n 3", t_bindir(), trace);
	out = t_sh(cmd, &st);
	cr_assert_eq(st, 0, "%s", out);
	{
		unsigned long long threads, packets, events;

		cr_assert_eq(sscanf(out, "%llu thread records (each names the process and thread "
				    "of the events after it in its packet)\n%llu packets, %llu events,",
				    &threads, &packets, &events), 3, "%s", out);
		cr_expect_eq(events, want + (uint64_t)WRITERS * (EVENTS / NOTE_EVERY), "%s", out);
		cr_expect_geq(threads, packets, "a thread record in each packet at least: %s", out);
	}
	free(out);

	/* babeltrace2: each event with the pid and tid of the thread records before it */
	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 '%s/tests/interop/bt2_read.py' events '%s'",
		 getenv("RTR_SRCDIR") ? getenv("RTR_SRCDIR") : ".", trace);
	out = t_sh(cmd, &st);
	cr_assert_eq(st, 0, "%s: %s", cmd, out);
	n = 0;
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		cr_expect_eq(last_u64(line, "\"pid\": "), pid, "%s", line);
		if (!strstr(line, "\"name\": \"tidtest:who\""))
			continue;
		cr_expect_eq(last_u64(line, "\"tid\": "), t_json_u64(line, "fields\": {\"tid"),
			     "%s", line);
		n++;
	}
	cr_expect_eq(n, want, "babeltrace2: every event");
	free(out);

	/* the model: each marker on its thread; stats counts each thread's events */
	dirs[0] = trace;
	cr_assert_eq(rtr_model_load_flags(&m, dirs, 1, RTR_MODEL_MARKERS | RTR_MODEL_FIELDS, err,
					  sizeof(err)), 0, "%s", err);
	n = 0;
	for (uint32_t i = 0; i < m.nmarkers; i++) {
		const struct rtr_model_marker *k = &m.markers[i];
		unsigned long long f;

		cr_assert_lt(k->thread, m.nthreads);
		cr_assert_eq(sscanf(rtr_model_str(&m, k->fields), "tid = %llu", &f), 1);
		cr_expect_eq(m.threads[k->thread].tid, f);
		cr_expect_eq(m.threads[k->thread].pid, pid);
		n++;
	}
	cr_expect_eq(n, want, "model: every marker");
	cr_expect_eq(m.nthreads, WRITERS, "the writers, and no other thread");
	for (uint32_t i = 0; i < m.nthreads; i++) {
		cr_expect(is_writer(w, m.threads[i].tid), "thread %" PRIu64, m.threads[i].tid);
		cr_expect_eq(m.threads[i].events, EVENTS + EVENTS / NOTE_EVERY,
			     "thread %" PRIu64 ": its events, its notes", m.threads[i].tid);
	}
	rtr_model_free(&m);

	/* export: each event and note an instant on the track named after its thread */
	snprintf(cmd, sizeof(cmd), "'%s/ringtrace' export --format chrome -o - '%s' | "
		 "/usr/bin/python3 -c 'import json, re, sys\n"
		 "ev = json.load(sys.stdin)[\"traceEvents\"]\n"
		 "names = {(e[\"pid\"], e[\"tid\"]): e[\"args\"][\"name\"] for e in ev "
		 "if e[\"ph\"] == \"M\" and e[\"name\"] == \"thread_name\"}\n"
		 "n = 0\n"
		 "for e in ev:\n"
		 "    if e[\"ph\"] != \"i\": continue\n"
		 "    t = re.match(r\"tid = (\\d+),\", e.get(\"args\", {}).get(\"fields\", \"\")) "
		 "or re.match(r\"written by (\\d+)$\", e[\"name\"])\n"
		 "    if not t: continue\n"
		 "    assert names[(e[\"pid\"], e[\"tid\"])] == \"tid \" + t.group(1), e\n"
		 "    n += 1\n"
		 "print(n)'", t_bindir(), trace);
	out = t_sh(cmd, &st);
	cr_expect_eq(st, 0, "%s", out);
	cr_expect_eq(strtoull(out, NULL, 10), want + (uint64_t)WRITERS * (EVENTS / NOTE_EVERY),
		     "export: every event and note on its thread's track: %s", out);
	free(out);

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_expect_eq(system(cmd), 0);
}
