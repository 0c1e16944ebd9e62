/* SPDX-License-Identifier: MIT */
/*
 * reader/critpath.h - why a task took as long as it did: its critical path,
 * read off the task model (model.h) as a list of segments that add up
 * exactly to the task's duration, each of which, where the task waited for
 * another, holds that other's own path over the wait (why it was late).
 * `ringtrace why` prints it, `ringtrace diff` compares it;
 * Documentation/analysis.rst gives the rules.
 *
 * The walk goes backwards from the task's end (its resolution, or that of
 * the task at the end of its becomes chain) to its creation.  At each time
 * the task is, in this order of precedence:
 *   - past the point where it became another task: that task's path;
 *   - not yet created: its creator's path (RTR_CP_CREATOR);
 *   - running (one of its runs covers the time): RTR_CP_RUNNING;
 *   - waiting (a try_read not yet followed by the read of that input, or of
 *     the end of its becomes chain): RTR_CP_RUNNABLE from the wake-up (the
 *     input's resolution, or the latest signal to it or to the waiter) to
 *     the end of the wait, and before the wake-up RTR_CP_WAIT_TASK (the
 *     input's path) or RTR_CP_WAIT_LOCK (a mutex, rwlock or semaphore: the
 *     path of the thread that released it);
 *   - resolved later by another task: RTR_CP_RESOLVER (the resolver's path);
 *   - otherwise RTR_CP_NOT_RUNNING: nothing recorded says why.
 *
 * Layout: one array of segments; a list of segments is contiguous, in time
 * order; a segment's children (the path of what it waited for, over the
 * same interval, adding up to its length) are another list.
 */
#ifndef RTR_READER_CRITPATH_H
#define RTR_READER_CRITPATH_H

#include <stdbool.h>
#include <stdint.h>
#include "reader/model.h"

#define RTR_CP_DEPTH	12		/* nested explanations stop there (and at a cycle) */
#define RTR_CP_SEGS_MAX	(1u << 20)	/* segments of one path; past it, no more children */

/**
 * enum rtr_cp_what - what a segment's task was doing.
 * @RTR_CP_RUNNING: running on a CPU (@cpu).
 * @RTR_CP_RUNNABLE: its input was ready (or it was signalled) but it had
 *	not run yet.
 * @RTR_CP_WAIT_TASK: waiting for task @other; @by woke it (resolved or
 *	signalled @other); the children are @other's path (or @by's, when
 *	@other is only signalled, as a condition is).
 * @RTR_CP_WAIT_LOCK: waiting for lock @other (a mutex, rwlock or semaphore
 *	task) held by thread @by, who released it; the children are @by's path.
 * @RTR_CP_RESOLVER: not running and waiting for nothing recorded, resolved
 *	later by @other: the children are @other's path.
 * @RTR_CP_CREATOR: before the task existed: @other, its creator, had not
 *	created it yet; the children are @other's path.
 * @RTR_CP_NOT_RUNNING: not running, and nothing in the trace says why
 *	(preempted, blocked in an untraced call, or ready with nothing recorded).
 */
enum rtr_cp_what {
	RTR_CP_RUNNING = 0,
	RTR_CP_RUNNABLE = 1,
	RTR_CP_WAIT_TASK = 2,
	RTR_CP_WAIT_LOCK = 3,
	RTR_CP_RESOLVER = 4,
	RTR_CP_CREATOR = 5,
	RTR_CP_NOT_RUNNING = 6,
};

/**
 * struct rtr_cp_seg - one segment.
 * @start: when it begins (model time, ns).
 * @end: when it ends; @end > @start.
 * @what: enum rtr_cp_what.
 * @task: the task it is about (the one running, waiting, ...).
 * @other: the task waited for, the resolver, the creator; RTR_MODEL_NONE
 *	when none (RUNNING, NOT_RUNNING, a creator not in the trace).
 * @by: who woke @task (WAIT_TASK, WAIT_LOCK, RUNNABLE), RTR_MODEL_NONE if
 *	unknown.
 * @cpu: index into rtr_model.cpus for RUNNING, else RTR_MODEL_NONE.
 * @lost_by: a wait nothing woke (@by is RTR_MODEL_NONE) whose input had been
 *	signalled before the wait began, by this task, and never after: a
 *	lost wake-up (the seeds' ARP bug); else RTR_MODEL_NONE.
 * @lost_ts: when that signal was sent.
 * @child_first: its children are segs[child_first .. +nchildren], adding up
 *	to @end - @start; @nchildren is 0 when not explained (depth, cycle,
 *	nothing known).
 */
struct rtr_cp_seg {
	int64_t start, end;
	uint32_t what;
	uint32_t task;
	uint32_t other;
	uint32_t by;
	uint32_t cpu;
	uint32_t lost_by;
	int64_t lost_ts;
	uint32_t child_first, nchildren;
};

/**
 * struct rtr_critpath - a task's critical path.
 * @task: the task (index).
 * @start: its creation (or first mention).
 * @end: its resolution, that of its becomes chain's end, or its model end.
 * @resolved: @end is a resolution.
 * @segs: every segment; the task's own list is segs[0 .. +ntop].
 * @nsegs: how many in all.
 * @ntop: how many in the top list.
 * @truncated: RTR_CP_SEGS_MAX was reached: some segments are not explained.
 */
struct rtr_critpath {
	uint32_t task;
	int64_t start, end;
	bool resolved;
	struct rtr_cp_seg *segs;
	uint32_t nsegs, ntop;
	bool truncated;
};

/**
 * struct rtr_cp_index - what the walk looks up: for each task, the arrows
 * that point at it (as reader, resolved or signalled task), in time order,
 * and the end of its becomes chain.  Built once per model: O(tasks + arrows).
 */
struct rtr_cp_index {
	uint32_t *first;	/* ntasks + 1 offsets into @arrows */
	uint32_t *arrows;	/* indices into rtr_model.arrows */
	uint32_t *last;		/* each task's becomes chain's end (a cycle ends where it closes) */
	uint32_t *tr_first;	/* ntasks + 1 offsets into @tr */
	uint32_t *tr;		/* the try_reads among them, each task's in time order */
};

/* Return: 0, or -ENOMEM. */
int rtr_cp_index_build(const struct rtr_model *m, struct rtr_cp_index *ix);
void rtr_cp_index_free(struct rtr_cp_index *ix);

/*
 * rtr_cp_end() - where @task's path ends: its resolution, that of the task
 * at the end of its becomes chain, else its model end.  *@resolved says
 * whether it is a resolution (may be NULL).
 */
int64_t rtr_cp_end(const struct rtr_model *m, const struct rtr_cp_index *ix, uint32_t task,
		   bool *resolved);

/*
 * rtr_critpath() - @task's critical path into @out (free with
 * rtr_critpath_free()).  Bounded: RTR_CP_DEPTH levels, RTR_CP_SEGS_MAX
 * segments, every loop moving strictly back in time.
 * Return: 0; -EINVAL @task out of range; -ENOMEM.
 */
int rtr_critpath(const struct rtr_model *m, const struct rtr_cp_index *ix, uint32_t task,
		 struct rtr_critpath *out);
void rtr_critpath_free(struct rtr_critpath *cp);

/* rtr_cp_what_str() - "running", "runnable", "waiting for task", ... */
const char *rtr_cp_what_str(uint32_t what);

#endif /* RTR_READER_CRITPATH_H */
