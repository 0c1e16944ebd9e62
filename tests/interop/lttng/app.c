// SPDX-License-Identifier: MIT
/*
 * tests/interop/lttng/app.c - rtr-lttng-app: emits the tracepoints of tp.h
 * for the LTTng interop tests and benchmark.
 *   rtr-lttng-app [--events N] [--threads T] [--bench] [--pace US]
 * Without --bench, each of T threads emits N rounds of every event, with
 * values that depend on the round (tp.h); with --bench, N request events.
 * --pace: a pause of US microseconds after each round (a live session's
 * program, running while its events are read).
 * Exit status 0.
 */
#define LTTNG_UST_TRACEPOINT_DEFINE
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tests/interop/lttng/tp.h"

static long rounds = 100;
static int bench;
static long pace_us;

/* Rooms larger than any sequence reads from them (8 bytes). */
static const char strings[6][80] = {
	"hello", "", "quote\" backslash\\ tab\t newline\n", "\xc3\xa9t\xc3\xa9 \x01\x7f",
	"a longer string, to span more than the eight bytes of the fixed text", "x",
};

static void *run(void *arg)
{
	long t = (long)arg;

	for (long r = 0; r < rounds; r++) {
		int64_t i = r * 16 + t;

		if (pace_us && r)
			usleep((useconds_t)pace_us);
		if (bench) {
			lttng_ust_tracepoint(rtrtest, request, (uint64_t)i, 200 + (uint32_t)(i % 5),
					     (uint64_t)(i * 1337 % 100000), "/index.html");
			continue;
		}
		{
			int32_t a[4] = { (int32_t)i, (int32_t)-i, INT32_MAX, INT32_MIN };
			uint16_t b[4] = { (uint16_t)i, 0xffff, 0, 0xbeef };
			char fixed[16] = { 0 };

			/* the fixed text: 8 bytes, NUL-padded or cut */
			strncpy(fixed, strings[r % 6], sizeof(fixed) - 1);
			lttng_ust_tracepoint(rtrtest, ints, i);
			lttng_ust_tracepoint(rtrtest, text, i, strings[r % 6], fixed);
			lttng_ust_tracepoint(rtrtest, seqs, i, a, b);
			lttng_ust_tracepoint(rtrtest, empty);
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long threads = 1;
	pthread_t tid[64];

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--events") && i + 1 < argc)
			rounds = atol(argv[++i]);
		else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
			threads = atol(argv[++i]);
		else if (!strcmp(argv[i], "--bench"))
			bench = 1;
		else if (!strcmp(argv[i], "--pace") && i + 1 < argc)
			pace_us = atol(argv[++i]);
		else {
			fprintf(stderr, "usage: rtr-lttng-app [--events N] [--threads T] [--bench] "
				"[--pace US]\n");
			return 2;
		}
	}
	if (threads < 1 || threads > 64)
		threads = 1;
	for (long t = 0; t < threads; t++)
		pthread_create(&tid[t], NULL, run, (void *)t);
	for (long t = 0; t < threads; t++)
		pthread_join(tid[t], NULL);
	return 0;
}
