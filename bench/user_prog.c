// SPDX-License-Identifier: MIT
/*
 * ringtrace-bench-user - a program of a user's kind for the streaming
 * benchmarks (scripts/bench-stream.sh): linked with libringtrace, tracing
 * its own typed event of two u64 through the public API only, run under
 * `ringtrace record` with its default options.  Each thread first measures
 * the floor in this same process (read the TSC and store an event-sized
 * record into a thread-local array), then emits its events, and the program
 * prints both, in ns/event, with how many events each thread attempted.
 *
 *   --threads N    writer threads (default 1), pinned one per usable CPU
 *                  when --pin is given
 *   --events N     per thread (default 10000000); or
 *   --seconds S    per thread, checking the clock every 1024 events
 *   --rate R       events per second per thread (default: full speed)
 *   --pin          pin thread i to the i-th usable CPU
 *
 * Output, one "name value" a line: floor_ns, ns (the traced loop, per
 * event, averaged over the threads), attempted (all threads), start_ns
 * (CLOCK_REALTIME when the first thread began its traced loop: the
 * streaming benchmarks' bandwidth is counted from there, as LTTng-UST's
 * program's is, tests/interop/lttng/app.c).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ringtrace/event.h>
#include <x86intrin.h>

#define APP_PAIR(F) F(u64, a) F(u64, b)
RTR_EVENT_DECLARE(app, pair, APP_PAIR)
RTR_EVENT_DEFINE(app, pair, APP_PAIR)

#define FLOOR_SLOTS 4096	/* 80 KiB of records: in L2, like a ring's open packet */

static uint32_t opt_threads = 1;
static uint64_t opt_events = 10000000, opt_rate;
static double opt_seconds;
static int opt_pin;

struct worker {
	pthread_t tid;
	int cpu;
	uint64_t attempted;
	uint64_t start_real;
	double floor_ns;
	double ns;
};

/* The floor's record: a compact header's worth and the payload. */
struct floor_rec {
	uint32_t hdr;
	uint64_t a, b;
} __attribute__((packed));

static __thread struct floor_rec floor_buf[FLOOR_SLOTS];

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static double floor_loop(uint64_t n)
{
	uint64_t t0 = now_ns();

	for (uint64_t i = 0; i < n; i++) {
		struct floor_rec *r = &floor_buf[i & (FLOOR_SLOTS - 1)];

		r->hdr = (uint32_t)__rdtsc();
		r->a = i;
		r->b = ~i;
		__asm__ __volatile__("" ::: "memory");
	}
	return (double)(now_ns() - t0) / (double)n;
}

static void pace(uint64_t start, uint64_t seq)
{
	uint64_t due = start + (uint64_t)((double)seq * 1e9 / (double)opt_rate), now = now_ns();

	if (due > now) {
		struct timespec ts = { .tv_sec = (time_t)((due - now) / 1000000000u),
				       .tv_nsec = (long)((due - now) % 1000000000u) };

		nanosleep(&ts, NULL);
	}
}

static void *run(void *arg)
{
	struct worker *w = arg;
	uint64_t seq = 0, start, end;

	if (w->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(w->cpu, &set);
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	/* The floor first, a tenth of the events (at least a million), warm. */
	floor_loop(1000000);
	w->floor_ns = floor_loop(opt_events / 10 > 1000000 ? opt_events / 10 : 1000000);
	w->start_real = real_ns();
	start = now_ns();
	end = start + (uint64_t)(opt_seconds * 1e9);
	for (;;) {
		for (int i = 0; i < 1024; i++) {
			if (!opt_seconds && seq >= opt_events)
				goto out;
			rtr_emit_app_pair((struct rtr_args_app_pair){ .a = seq, .b = ~seq });
			seq++;
		}
		if (opt_rate)
			pace(start, seq);
		if (opt_seconds && now_ns() >= end)
			break;
	}
out:
	w->ns = (double)(now_ns() - start) / (double)(seq ? seq : 1);
	w->attempted = seq;
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: ringtrace-bench-user [--threads N] [--events N | --seconds S] "
		"[--rate R] [--pin]\n");
}

int main(int argc, char **argv)
{
	struct worker *w;
	double floor_ns = 0, ns = 0;
	uint64_t attempted = 0, start_real = UINT64_MAX;
	cpu_set_t allowed;
	int next = 0;

	for (int i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(argv[i], "--pin")) {
			opt_pin = 1;
		} else if (!strcmp(argv[i], "--threads") && v) {
			opt_threads = (uint32_t)strtoul(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--events") && v) {
			opt_events = strtoull(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--seconds") && v) {
			opt_seconds = strtod(argv[++i], NULL);
		} else if (!strcmp(argv[i], "--rate") && v) {
			opt_rate = strtoull(argv[++i], NULL, 0);
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (!opt_threads || opt_threads > 1024 || (!opt_events && !opt_seconds)) {
		usage(stderr);
		return 2;
	}
	w = calloc(opt_threads, sizeof(*w));
	if (!w)
		return 1;
	sched_getaffinity(0, sizeof(allowed), &allowed);
	for (uint32_t t = 0; t < opt_threads; t++) {
		w[t].cpu = -1;
		if (opt_pin) {
			while (next < CPU_SETSIZE && !CPU_ISSET(next, &allowed))
				next++;
			if (next == CPU_SETSIZE)
				next = 0;
			w[t].cpu = next++;
		}
		if (pthread_create(&w[t].tid, NULL, run, &w[t])) {
			fprintf(stderr, "ringtrace-bench-user: pthread_create: %s\n", strerror(errno));
			return 1;
		}
	}
	for (uint32_t t = 0; t < opt_threads; t++) {
		pthread_join(w[t].tid, NULL);
		floor_ns += w[t].floor_ns / opt_threads;
		ns += w[t].ns / opt_threads;
		attempted += w[t].attempted;
		if (w[t].start_real < start_real)
			start_real = w[t].start_real;
	}
	printf("floor_ns %.3f\nns %.3f\nattempted %llu\nstart_ns %llu\n", floor_ns, ns,
	       (unsigned long long)attempted, (unsigned long long)start_real);
	free(w);
	return 0;
}
