// SPDX-License-Identifier: MIT
/*
 * tests/pthread/pt_own.c - rtr-pthread-own: a program linked with the shared
 * libringtrace that writes events of its own, recorded with --pthread (the
 * preload and the program share one tracer).
 *
 * urcu-bp takes its registry lock where the program cannot see it: when a
 * thread first takes libringtrace's slow path (it registers), and when a
 * registered thread exits (it unregisters).  Here a worker writes its note,
 * then exits while the main thread holds urcu-bp's registry lock
 * (urcu_bp_before_fork(), its public way to hold it), so the worker's exit
 * sleeps on that lock until the main thread lets it go.  That wait and that
 * unlock are libringtrace's, not the program's: the preload must pass them
 * straight to the C library.  Traced, the wait made a mutex task (and the
 * unlock's signal could register the exiting thread again under the lock
 * it held: a hang).  The trace must have the worker's note and no wait for
 * a mutex.
 *
 * (Since every thread's first event carries a thread record, on the slow
 * path, a worker registers with its first event: the first-write case can
 * no longer be caught apart from the preload's own events, which hold the
 * preload's recursion guard.  The exit is the case left.)
 */
#include <pthread.h>
#include <sched.h>
#include <urcu-bp.h>
#include <ringtrace/ringtrace.h>

#define PT_NAME "rtr-pthread-own"
#include "tests/pthread/pt_util.h"


static int stage;		/* 1: the worker wrote its note; 2: it may exit */
static pid_t worker_tid;

static void *worker(void *arg)
{
	(void)arg;
	worker_tid = gettid_();
	rtr_note("own event");
	__atomic_store_n(&stage, 1, __ATOMIC_RELEASE);
	/* Spin, not wait: the only wait of this thread is urcu-bp's, at its exit. */
	while (__atomic_load_n(&stage, __ATOMIC_ACQUIRE) != 2)
		sched_yield();
	return NULL;
}

int main(void)
{
	pthread_t t;

	if (!rtr_tracing()) {
		fprintf(stderr, "%s: run it under ringtrace record --pthread\n", PT_NAME);
		return 2;
	}
	CHECK(pthread_create(&t, NULL, worker, NULL));
	while (!__atomic_load_n(&stage, __ATOMIC_ACQUIRE))
		sched_yield();
	urcu_bp_before_fork();
	__atomic_store_n(&stage, 2, __ATOMIC_RELEASE);
	/* The worker returns, and its exit sleeps on urcu-bp's registry lock. */
	wait_asleep(worker_tid);
	usleep(50 * 1000);
	urcu_bp_after_fork_parent();
	CHECK(pthread_join(t, NULL));
	printf("worker %d exited\n", (int)worker_tid);
	return 0;
}
