/* SPDX-License-Identifier: MIT */
/*
 * view/links.h - the tasks a task is linked to by its arrows, as the
 * details panels list them (the self-contained page's, the window's, the
 * served page's): what it read and still waits for, who read it, who
 * resolved it and what it resolved, who woke it and whom it woke; and
 * where it ran.
 */
#ifndef RTR_VIEW_LINKS_H
#define RTR_VIEW_LINKS_H

#include <stdbool.h>
#include <stdint.h>
#include "view/scene.h"

/**
 * enum rtr_link_kind - how a task is linked to another (rtr_task_link.kind).
 * @RTR_LINK_READ: it read the other's result (a read arrow to it).
 * @RTR_LINK_WAITS_FOR: it looked at the other, not ready (a try_read), and
 *	read neither it nor anything it became afterwards.
 * @RTR_LINK_READ_BY: the other read its result.
 * @RTR_LINK_RESOLVED_BY: the other resolved (or failed) it.
 * @RTR_LINK_RESOLVED: it resolved the other.
 * @RTR_LINK_WOKEN_BY: the other woke it (a signal).
 * @RTR_LINK_WOKE: it woke the other.
 */
enum rtr_link_kind {
	RTR_LINK_READ,
	RTR_LINK_WAITS_FOR,
	RTR_LINK_READ_BY,
	RTR_LINK_RESOLVED_BY,
	RTR_LINK_RESOLVED,
	RTR_LINK_WOKEN_BY,
	RTR_LINK_WOKE,
	RTR_LINK_KINDS,
};

/**
 * struct rtr_task_link - one task linked to another.
 * @ts: the time of the first arrow between them of that kind.
 * @task: the other task.
 * @kind: enum rtr_link_kind.
 */
struct rtr_task_link {
	int64_t ts;
	uint32_t task;
	uint32_t kind;
};

/**
 * rtr_task_links() - the tasks @task of @s is linked to, each once a kind.
 * @s: the scene.
 * @task: index into its model's tasks.
 * @max: at most this many a kind (the first in time).
 * @out: a malloc'd array of them, by kind then time (NULL when none).
 * @n: their number.
 * @more: by kind, the other tasks linked that way, left out by @max.
 *
 * One pass over the model's arrows: a few milliseconds for millions, made
 * when a task is selected, never by frame.
 * Return: 0, or -ENOMEM.
 */
int rtr_task_links(const struct rtr_scene *s, uint32_t task, uint32_t max, struct rtr_task_link **out,
		   uint32_t *n, uint32_t more[RTR_LINK_KINDS]);

/* rtr_link_kind_str() - "read", "waits for", "read by", "resolved by", "resolved", "woken by", "woke". */
const char *rtr_link_kind_str(unsigned kind);

/* The CPUs or threads rtr_task_where() gives at most. */
#define RTR_WHERE_MAX 1024

/**
 * struct rtr_task_where - where a task ran: on one CPU, or as one thread.
 * @index: into rtr_model.cpus, or rtr_model.threads.
 * @runs: its runs there.
 * @ns: their time.
 */
struct rtr_task_where {
	uint32_t index;
	uint32_t runs;
	int64_t ns;
};

/**
 * rtr_task_where() - where @task of @s ran (the details panels' "ran on"
 * and "threads"): by CPU, or with @by_thread by the thread that switched
 * to it (runs whose thread is unknown left out), in order of first run;
 * the first RTR_WHERE_MAX of them (a hostile trace's task on a million
 * threads costs no more).
 * @out: a malloc'd array (NULL when none); @n its length.
 * Return: 0, or -ENOMEM.
 */
int rtr_task_where(const struct rtr_scene *s, uint32_t task, bool by_thread, struct rtr_task_where **out,
		   uint32_t *n);

/* The counter changes rtr_task_counters() sorts at most. */
#define RTR_COUNTERS_KEPT 65536u

/**
 * struct rtr_task_counter - a counter change a task made (the counters'
 * samples taken while it ran).
 * @counter: index into rtr_model.counters.
 * @ts: when.
 * @value: the counter's value then.
 * @delta: its change (from the counter's previous sample, or from 0 for
 *	its first).
 */
struct rtr_task_counter {
	uint32_t counter;
	int64_t ts;
	int64_t value;
	int64_t delta;
};

/**
 * rtr_task_counters() - the counter changes @task of @s made (the details
 * panels' "counters"), in time order: the first @max of them in time (of
 * the first RTR_COUNTERS_KEPT found, counter by counter), and how many
 * there are in all.
 * @out: a malloc'd array (NULL when none); @n its length; @total all of
 *	them.
 *
 * One pass over the model's counter samples, made when a task is selected.
 * Return: 0, or -ENOMEM.
 */
int rtr_task_counters(const struct rtr_scene *s, uint32_t task, uint32_t max,
		      struct rtr_task_counter **out, uint32_t *n, uint64_t *total);

#endif /* RTR_VIEW_LINKS_H */
