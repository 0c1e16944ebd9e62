/* SPDX-License-Identifier: MIT */
/*
 * reader/threads.h - where each thread's time went, from a model with the
 * kernel's records (record --sched, model.h: runs by thread, each saying
 * how it ended): on a CPU, runnable (preempted, waiting for a CPU), or
 * blocked, and blocked on what: the mutex, condition, semaphore, barrier,
 * rwlock or thread (a join) the pthread wrapper's try_read names at the
 * moment the thread left the CPU, else "kernel" (I/O, a sleep, a lock the
 * wrapper does not see).  `ringtrace stats` prints it.
 */
#ifndef RTR_READER_THREADS_H
#define RTR_READER_THREADS_H

#include <stdbool.h>
#include <stdint.h>
#include "reader/model.h"

#define RTR_BLOCKED_KINDS	8	/* reasons kept per thread; more are "other" */

/**
 * struct rtr_thread_time - one thread task's time, from its first run to
 * the end of its last.
 * @task: task index.
 * @tid: the kernel's thread id.
 * @on_cpu, @runnable, @blocked: ns.
 * @runs: runs; @preempted: those that ended preempted; @migrations: runs
 *	on another CPU than the run before.
 * @why: kinds (model strings: "mutex", "condition", ..., "kernel") and
 *	the time blocked on each, @nwhy of them.
 */
struct rtr_thread_time {
	uint32_t task;
	uint64_t tid;
	int64_t on_cpu;
	int64_t runnable;
	int64_t blocked;
	uint32_t runs;
	uint32_t preempted;
	uint32_t migrations;
	uint32_t nwhy;
	struct {
		const char *kind;
		int64_t ns;
	} why[RTR_BLOCKED_KINDS];
};

/**
 * enum rtr_thread_state - what a thread was doing over a span of its time
 * (the kernel's records).
 * @RTR_THREAD_RUNNING: on a CPU (one of its runs).
 * @RTR_THREAD_RUNNABLE: waiting for a CPU: from a run that ended preempted
 *	to its next run.
 * @RTR_THREAD_BLOCKED: waiting for something else: from a run that ended
 *	otherwise to its next run.
 */
enum rtr_thread_state {
	RTR_THREAD_RUNNING,
	RTR_THREAD_RUNNABLE,
	RTR_THREAD_BLOCKED,
};

/**
 * struct rtr_thread_span - one span of a thread task's time.
 * @task: the thread task's index.
 * @tid: the kernel's thread id.
 * @run: index into rtr_model.runs: the run (running), or the run the span
 *	follows (runnable, blocked).
 * @start, @end: the span, @start < @end for a gap, <= for a run.
 * @state: what it was doing.
 * @on: blocked, on what: a kind ("mutex", "condition", ...: the pthread
 *	wrapper's try_read of the object when the thread left the CPU), else
 *	"kernel" (I/O, a sleep, a lock the wrapper does not see); NULL else.
 */
struct rtr_thread_span {
	uint32_t task;
	uint64_t tid;
	uint32_t run;
	int64_t start;
	int64_t end;
	enum rtr_thread_state state;
	const char *on;
};

/*
 * rtr_thread_spans() - every span of every thread task that has runs ended
 * by the kernel's records, in task order then time order, given to @fn:
 * from its first run to the end of its last, each run and each gap between
 * two runs (a gap of no time is left out).  @fn's non-zero return stops the
 * walk.  Return: 0, @fn's return, or -ENOMEM.
 */
int rtr_thread_spans(const struct rtr_model *m,
		     int (*fn)(const struct rtr_thread_span *sp, void *arg), void *arg);

/*
 * rtr_thread_times() - the times of every thread task that has runs ended
 * by the kernel's records, in task order (the sums of its spans,
 * rtr_thread_spans()): *@out (malloc'd, free() it), *@n.
 * Return: 0, or -ENOMEM.
 */
int rtr_thread_times(const struct rtr_model *m, struct rtr_thread_time **out, uint32_t *n);

/**
 * struct rtr_lock_wait - one synchronisation object's waits (the pthread
 * wrapper's mutex, condition, semaphore, barrier or rwlock tasks): each a
 * try_read by a thread task and the read by it that ended the wait.
 * @task: the object's task index.
 * @waits: the waits that ended (@ns sorted ascending, @waits of them).
 * @total: their sum, ns.
 * @waiters: distinct thread tasks that waited; @releasers: distinct ones
 *	whose signal (an unlock of a contended mutex, a post, a
 *	condition's signal) came last before a wait ended.
 * @holds: of the releases that ended waits, those whose hold time the
 *	trace has (a mutex, record --hold-times), each counted once; @hold_ns
 *	their hold times, sorted ascending (NULL if none).
 */
struct rtr_lock_wait {
	uint32_t task;
	uint32_t waits;
	int64_t total;
	int64_t *ns;
	uint32_t waiters;
	uint32_t releasers;
	uint32_t waiter[4];	/* the first ones, task indices */
	uint32_t releaser[4];
	uint32_t holds;
	int64_t *hold_ns;
};

/*
 * rtr_lock_waits() - every object that was waited for, most total wait
 * first: *@out (free with rtr_lock_waits_free()), *@n.  Return: 0, -ENOMEM.
 */
int rtr_lock_waits(const struct rtr_model *m, struct rtr_lock_wait **out, uint32_t *n);
void rtr_lock_waits_free(struct rtr_lock_wait *w, uint32_t n);

/**
 * struct rtr_lock_hold - a synchronisation object held by a thread while
 * others waited for it: what a lock's lane draws (the viewer).
 * @lock: the object's task index; @holder: the thread task whose release
 *	(signal) ended the waits.
 * @start: from when it is known held: the holder's lock where the trace
 *	has the hold's time (record --hold-times: @exact), else the start of
 *	the earliest wait it ended, not before the release before it.
 * @end: the release.
 * @waits: the waits it ended.
 */
struct rtr_lock_hold {
	uint32_t lock;
	uint32_t holder;
	int64_t start;
	int64_t end;
	uint32_t waits;
	bool exact;
};

/*
 * rtr_lock_holds() - every release that ended a wait, as a hold: *@out
 * (malloc'd, free() it), *@n, by start.  Return: 0, or -ENOMEM.
 */
int rtr_lock_holds(const struct rtr_model *m, struct rtr_lock_hold **out, uint32_t *n);

#endif /* RTR_READER_THREADS_H */
