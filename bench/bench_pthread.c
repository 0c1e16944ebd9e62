// SPDX-License-Identifier: MIT
/*
 * bench/bench_pthread.c - ringtrace-pthread-bench: what a program pays for
 * its locks under `ringtrace record --pthread`.  A plain pthread program,
 * not built with ringtrace (it calls nothing of it, so nothing of it is
 * linked in): scripts/bench-pthread.sh runs it untraced and traced, in
 * turns, and compares.
 *
 *   uncontended  one thread locks and unlocks a mutex nobody else wants:
 *                ns per lock/unlock pair (the wrapper's fast path), and
 *                the same pair through glibc's own entry points
 *                (__pthread_mutex_lock, which no preload wraps), in turns
 *                in the same run: the untraced cost under the same
 *                conditions (uncontended.direct);
 *   handoff      two threads pass a token back and forth under a mutex and
 *                a condition variable: ns per hand-off (a contended lock, a
 *                wait, a signal, a wake-up each).
 *
 * Each figure is the best of --reps runs (the machine is shared), printed
 * as "name value unit" lines.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static double uncontended(uint64_t n)
{
	uint64_t t0 = now_ns();

	for (uint64_t i = 0; i < n; i++) {
		pthread_mutex_lock(&lock);
		__asm__ __volatile__("" ::: "memory");
		pthread_mutex_unlock(&lock);
	}
	return (double)(now_ns() - t0) / (double)n;
}

#ifdef __GLIBC__
/*
 * glibc exports its mutex functions under these names too (a compatibility
 * version, found with dlvsym()); a preload wraps only the usual names.
 */
static int (*direct_lock)(pthread_mutex_t *m);
static int (*direct_unlock)(pthread_mutex_t *m);

static bool find_direct(void)
{
	void *l = dlvsym(RTLD_DEFAULT, "__pthread_mutex_lock", "GLIBC_2.2.5");
	void *u = dlvsym(RTLD_DEFAULT, "__pthread_mutex_unlock", "GLIBC_2.2.5");

	if (!l || !u)
		return false;
	memcpy(&direct_lock, &l, sizeof(l));
	memcpy(&direct_unlock, &u, sizeof(u));
	return true;
}

static double uncontended_direct(uint64_t n)
{
	uint64_t t0 = now_ns();

	for (uint64_t i = 0; i < n; i++) {
		direct_lock(&lock);
		__asm__ __volatile__("" ::: "memory");
		direct_unlock(&lock);
	}
	return (double)(now_ns() - t0) / (double)n;
}
#endif

/* The token: whose turn it is, 0 or 1; -1 ends the other thread. */
static pthread_mutex_t hand_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hand_cond = PTHREAD_COND_INITIALIZER;
static int turn;
static uint64_t hand_n;

static void pass(int me)
{
	pthread_mutex_lock(&hand_lock);
	while (turn != me)
		pthread_cond_wait(&hand_cond, &hand_lock);
	turn = !me;
	pthread_cond_signal(&hand_cond);
	pthread_mutex_unlock(&hand_lock);
}

static void *partner(void *arg)
{
	(void)arg;
	for (uint64_t i = 0; i < hand_n; i++)
		pass(1);
	return NULL;
}

static double handoff(uint64_t n)
{
	pthread_t t;
	uint64_t t0;
	int ret;

	turn = 0;
	hand_n = n;
	ret = pthread_create(&t, NULL, partner, NULL);
	if (ret) {
		fprintf(stderr, "ringtrace-pthread-bench: pthread_create: %s\n", strerror(ret));
		exit(1);
	}
	t0 = now_ns();
	for (uint64_t i = 0; i < n; i++)
		pass(0);
	pthread_join(t, NULL);
	/* 2n hand-offs: each pass gives the token to the other thread. */
	return (double)(now_ns() - t0) / (double)(2 * n);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: ringtrace-pthread-bench [--pairs N] [--handoffs N] [--reps N]\n"
		   "  prints pthread.uncontended.ns, .direct.ns (glibc's own entry points)\n"
		   "  and pthread.handoff.ns, each the best of the reps\n");
}

int main(int argc, char **argv)
{
	uint64_t pairs = 2000000, handoffs = 20000, reps = 5;
	double best_u = 1e30, best_d = 1e30, best_h = 1e30;
#ifdef __GLIBC__
	bool direct = find_direct();
#endif

	for (int i = 1; i < argc; i++) {
		uint64_t *opt = NULL;
		char *end;

		if (!strcmp(argv[i], "--pairs"))
			opt = &pairs;
		else if (!strcmp(argv[i], "--handoffs"))
			opt = &handoffs;
		else if (!strcmp(argv[i], "--reps"))
			opt = &reps;
		else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		}
		if (!opt || i + 1 == argc) {
			usage(stderr);
			return 2;
		}
		errno = 0;
		*opt = strtoull(argv[++i], &end, 0);
		if (errno || *end || !*opt) {
			fprintf(stderr, "ringtrace-pthread-bench: %s: not a positive number: %s\n",
				argv[i - 1], argv[i]);
			return 2;
		}
	}
	/*
	 * A program whose threads are worth tracing has threads: once a process
	 * has created one, glibc takes its locks with a locked instruction (a
	 * single-threaded process skips the lock prefix, a pair then costs a
	 * third).  Start a thread first, so that every figure, untraced
	 * included, is the multi-threaded cost.
	 */
	handoff(1);
	uncontended(pairs / 10);	/* warm up */
	for (uint64_t r = 0; r < reps; r++) {
		double u = uncontended(pairs), h = handoff(handoffs);
#ifdef __GLIBC__
		double d = direct ? uncontended_direct(pairs) : 1e30;

		if (d < best_d)
			best_d = d;
#endif
		if (u < best_u)
			best_u = u;
		if (h < best_h)
			best_h = h;
	}
	printf("pthread.uncontended.ns %.3f ns/pair\n", best_u);
	if (best_d < 1e30)
		printf("pthread.uncontended.direct.ns %.3f ns/pair\n", best_d);
	printf("pthread.handoff.ns %.3f ns/handoff\n", best_h);
	return 0;
}
