/* SPDX-License-Identifier: MIT */
/*
 * view/path.h - a task's critical path (reader/critpath.h) as the front
 * ends draw it: at each time of the task's life, the one task the path
 * goes through there and what it was doing, the deepest explanation the
 * walk found (a wait for another task is that task's own path over the
 * wait, and so on down).  `ringtrace gui` draws it over the rows when a
 * task is selected and `p` pressed (Documentation/viewer.rst, "The
 * critical path"); `ringtrace why` prints the same walk as a tree.
 */
#ifndef RTR_VIEW_PATH_H
#define RTR_VIEW_PATH_H

#include <stdint.h>
#include "reader/critpath.h"
#include "view/scene.h"

/**
 * struct rtr_path_seg - a stretch of the path.
 * @t0: its start (model time, ns); @t1: its end, > @t0.
 * @task: the task the path goes through there (its row is drawn).
 * @what: enum rtr_cp_what, what @task was doing.
 */
struct rtr_path_seg {
	int64_t t0, t1;
	uint32_t task;
	uint32_t what;
};

/**
 * struct rtr_path - a task's path, flattened.
 * @segs: @n of them, in time order, each starting where the one before
 *	ended: they add up to the task's duration (@cp.end - @cp.start).
 * @cp: the walk itself (its top list for a summary in words).
 */
struct rtr_path {
	struct rtr_path_seg *segs;
	uint32_t n;
	struct rtr_critpath cp;
};

/*
 * rtr_path_build() - the critical path of @task in @s's model into @p
 * (zeroed or freed before).  Return: 0, -EINVAL (no such task), -ENOMEM.
 */
int rtr_path_build(const struct rtr_scene *s, uint32_t task, struct rtr_path *p);
void rtr_path_free(struct rtr_path *p);

#endif /* RTR_VIEW_PATH_H */
