// SPDX-License-Identifier: MIT
/*
 * tests/pthread/pt_own.c - rtr-pthread-own: a program linked with the shared
 * libringtrace that writes events of its own, recorded with --pthread (the
 * preload and the program share one tracer).
 *
 * A thread's first write on libringtrace's slow path registers the thread
 * with urcu-bp, which takes urcu-bp's mutexes.  Here the main thread holds
 * urcu-bp's registry lock (urcu_bp_before_fork(), its public way to hold
 * it) until a worker that is not registered yet sleeps on it inside its
 * first such write.  That wait is libringtrace's, not the program's: the
 * preload must pass it straight to the C library.  The trace must have the
 * worker's note and no wait for a mutex.
 *
 * Recorded, the wait made the hang certain with two CPUs: the worker runs
 * on CPU 1, where the main thread wrote last, so its events before the
 * wait take the fast path; the main thread then holds the lock from CPU 0
 * for 300 ms, longer than the 2^27 TSC cycles a compact record's delta
 * carries, so the worker's first event after it takes the slow path, which
 * registered the thread again, under the lock it had just taken.
 */
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <urcu-bp.h>
#include <ringtrace/ringtrace.h>

#define PT_NAME "rtr-pthread-own"
#include "tests/pthread/pt_util.h"

/* urcu-bp's per-thread registration (its header's URCU_TLS): NULL until registered. */
extern __thread void *urcu_bp_reader;

static int stage;		/* 1: the worker says whether it is registered; 2: go */
static int registered;
static pid_t worker_tid;
static void *big;

/* Pin the calling thread to @cpu; false if it may not run there. */
static bool pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0;
}

static void *worker(void *arg)
{
	(void)arg;
	pin(1);
	worker_tid = gettid_();
	registered = urcu_bp_reader != NULL;
	__atomic_store_n(&stage, 1, __ATOMIC_RELEASE);
	if (registered)
		return NULL;
	/* Spin, not wait: a wrapped wait could register this thread first. */
	while (__atomic_load_n(&stage, __ATOMIC_ACQUIRE) != 2)
		sched_yield();
	/*
	 * A record larger than any packet: never on the fast path, so the slow
	 * path registers the thread, then drops the record (lost_big).
	 */
	rtr_emit(RTR_EV_NOTE, big, RTR_PACKET_SIZE_MAX);
	rtr_note("own event");
	return NULL;
}

int main(void)
{
	pthread_t t;
	int tries;

	if (!rtr_tracing()) {
		fprintf(stderr, "%s: run it under ringtrace record --pthread\n", PT_NAME);
		return 2;
	}
	big = calloc(1, RTR_PACKET_SIZE_MAX);	/* mapped, never touched */
	if (!big)
		return 1;
	/* A worker whose thread start took the slow path is registered already: another. */
	for (tries = 0; tries < 100; tries++) {
		__atomic_store_n(&stage, 0, __ATOMIC_RELAXED);
		CHECK(pthread_create(&t, NULL, worker, NULL));
		while (!__atomic_load_n(&stage, __ATOMIC_ACQUIRE))
			sched_yield();
		if (!registered)
			break;
		CHECK(pthread_join(t, NULL));
	}
	if (registered) {
		fprintf(stderr, "%s: every worker was registered with urcu-bp at its start\n",
			PT_NAME);
		return 1;
	}
	if (pin(1)) {
		rtr_note("main on cpu 1");
		pin(0);
	}
	urcu_bp_before_fork();
	__atomic_store_n(&stage, 2, __ATOMIC_RELEASE);
	wait_asleep(worker_tid);
	usleep(300 * 1000);
	urcu_bp_after_fork_parent();
	CHECK(pthread_join(t, NULL));
	free(big);
	printf("tries %d\n", tries + 1);
	return 0;
}
