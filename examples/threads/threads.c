// SPDX-License-Identifier: MIT
/*
 * ringtrace-threads - a multi-threaded program to record: N threads each
 * emit a typed event (thread, seq) at full speed or at a set rate, for a
 * time or a count, with a task per batch and a counter.  At the end it
 * prints how many events each thread attempted, so that a recording can be
 * checked: events in the trace + events counted lost == events attempted.
 *
 *   ringtrace record -o DIR -- ringtrace-threads --threads 2 --seconds 3
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ringtrace/ringtrace.h>
#include <ringtrace/event.h>

#define THREADS_TICK(F) F(u32, thread) F(u64, seq)
RTR_EVENT_DECLARE(threads, tick, THREADS_TICK)
RTR_EVENT_DEFINE(threads, tick, THREADS_TICK)

static uint64_t opt_count, opt_rate;
static double opt_seconds = 1;

struct worker {
	pthread_t tid;
	uint32_t id;
	uint64_t attempted;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *run(void *arg)
{
	struct worker *w = arg;
	uint64_t start = now_ns(), end = start + (uint64_t)(opt_seconds * 1e9), seq = 0;
	uint64_t task = rtr_task_id();

	rtr_create(0, task, RTR_KIND_TASK);
	rtr_label(task, "worker");
	rtr_switch(task);
	for (;;) {
		/* Check the clock once per 1024 events: full speed means full speed. */
		for (int i = 0; i < 1024; i++) {
			if (opt_count && seq >= opt_count)
				goto out;
			RTR_TRACE(threads, tick, .thread = w->id, .seq = seq);
			seq++;
		}
		/* A set rate: sleep off each batch's lead, leaving the CPU to others. */
		if (opt_rate) {
			uint64_t due = start + (uint64_t)((double)seq * 1e9 / (double)opt_rate);
			uint64_t now = now_ns();

			if (due > now) {
				struct timespec ts = { .tv_sec = (time_t)((due - now) / 1000000000u),
						       .tv_nsec = (long)((due - now) % 1000000000u) };

				nanosleep(&ts, NULL);
			}
		}
		if (!opt_count && now_ns() >= end)
			break;
	}
out:
	rtr_resolve(task, task);
	w->attempted = seq;
	return NULL;
}

int main(int argc, char **argv)
{
	uint32_t nthreads = 2;
	struct worker *w;
	uint64_t total = 0;
	uint32_t counter;

	for (int i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(argv[i], "--threads") && v) {
			nthreads = (uint32_t)strtoul(v, NULL, 0);
			i++;
		} else if (!strcmp(argv[i], "--seconds") && v) {
			opt_seconds = strtod(v, NULL);
			i++;
		} else if (!strcmp(argv[i], "--count") && v) {
			opt_count = strtoull(v, NULL, 0);
			i++;
		} else if (!strcmp(argv[i], "--rate") && v) {
			opt_rate = strtoull(v, NULL, 0);
			i++;
		} else {
			fprintf(stderr, "usage: ringtrace-threads [--threads N] [--seconds S | --count N]"
				" [--rate EVENTS_PER_S_PER_THREAD]\n");
			return strcmp(argv[i], "-h") && strcmp(argv[i], "--help") ? 2 : 0;
		}
	}
	if (!nthreads || nthreads > 1024) {
		fprintf(stderr, "ringtrace-threads: --threads from 1 to 1024\n");
		return 2;
	}
	if (!rtr_tracing())
		fprintf(stderr, "ringtrace-threads: not tracing (run under `ringtrace record`, "
			"or set RINGTRACE=1)\n");
	if (rtr_counter_register("threads.running", &counter))
		counter = 0;
	rtr_counter_set(counter, nthreads);
	w = calloc(nthreads, sizeof(*w));
	if (!w)
		return 1;
	for (uint32_t i = 0; i < nthreads; i++) {
		w[i].id = i;
		if (pthread_create(&w[i].tid, NULL, run, &w[i])) {
			fprintf(stderr, "ringtrace-threads: pthread_create failed\n");
			return 1;
		}
	}
	for (uint32_t i = 0; i < nthreads; i++) {
		pthread_join(w[i].tid, NULL);
		total += w[i].attempted;
		printf("thread %u attempted %" PRIu64 "\n", i, w[i].attempted);
	}
	rtr_counter_set(counter, 0);
	printf("attempted %" PRIu64 "\n", total);
	free(w);
	return 0;
}
