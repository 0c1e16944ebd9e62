/* SPDX-License-Identifier: MIT */
/*
 * reader/waits.h - why a task never resolved: from each should_resolve task
 * that never did (RTR_TASK_NEVER_RESOLVED), the chain of what it waited
 * for, read off the task model (model.h), down to a task that waits for
 * nothing; and the wake-ups that task was sent, before and after the wait
 * that never ended began.  `ringtrace stats --hangs` prints it; make demo
 * uses it to name the bug of the seeds' ARP race.
 *
 * A step of the chain is one of: the task became another (rtr_becomes(),
 * followed to its end); the task looked at an input that was not ready
 * (try_read) and never read it afterwards: it waits for that input.  When
 * a task waits for several, the latest wait is followed.
 */
#ifndef RTR_READER_WAITS_H
#define RTR_READER_WAITS_H

#include <stdint.h>
#include "reader/model.h"

#define RTR_HANG_STEPS	16	/* the chain is cut there (and at a cycle) */
#define RTR_HANGS_MAX	64	/* hangs explained; the others are only counted */

enum rtr_wait_how {
	RTR_WAIT_STUCK = 0,	/* the should_resolve task itself */
	RTR_WAIT_FOR = 1,	/* the previous step waits for this task (try_read, no read after) */
	RTR_WAIT_BECAME = 2,	/* the previous step became this task */
};

/**
 * struct rtr_wait_step - one task of a chain.
 * @task: task index.
 * @how: enum rtr_wait_how.
 * @since: when the previous step began waiting for it, or became it; the
 *	task's creation for the first step.
 */
struct rtr_wait_step {
	uint32_t task;
	uint32_t how;
	int64_t since;
};

/**
 * struct rtr_hang - a should_resolve task that never resolved, explained.
 * @steps: the chain, @nsteps long (at least 1: the task itself).
 * @signals_before: signals (rtr_signal()) sent to the last step's task
 *	before the wait for it began (@steps[@nsteps - 1].since), @signals_after
 *	after it: a wake-up sent before anyone waited, and none after, is a
 *	lost wake-up.
 * @last_signal: index into rtr_model.arrows of the latest signal to it, or
 *	RTR_MODEL_NONE.
 */
struct rtr_hang {
	struct rtr_wait_step steps[RTR_HANG_STEPS];
	uint32_t nsteps;
	uint32_t signals_before, signals_after;
	uint32_t last_signal;
};

/*
 * rtr_model_hangs() - every never-resolved should_resolve task of @m, up to
 * RTR_HANGS_MAX explained into @out (malloc'd, *@n of them); *@total counts
 * them all.  Work: the model's arrows once per explained step.
 * Return: 0; -ENOMEM.
 */
int rtr_model_hangs(const struct rtr_model *m, struct rtr_hang **out, uint32_t *n, uint32_t *total);

#endif /* RTR_READER_WAITS_H */
