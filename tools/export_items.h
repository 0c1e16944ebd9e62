/* SPDX-License-Identifier: MIT */
/*
 * tools/export_items.h - what the exports of the task model share
 * (export.c's Trace Event JSON, export_perfetto.c's protobuf): the model's
 * items put in time order, and the names they give tracks and events.
 */
#ifndef RTR_TOOLS_EXPORT_ITEMS_H
#define RTR_TOOLS_EXPORT_ITEMS_H

#include <stddef.h>
#include <stdint.h>
#include "reader/model.h"

/* An item of the model at a time: @type is the export's own, @idx its index in its array. */
struct ex_item {
	int64_t ts;
	uint32_t type;
	uint32_t idx;
};

/* qsort() order: by time, then type (the export's tie rule), then index. */
int ex_item_cmp(const void *a, const void *b);

/* The types ex_items() gives the items, the export's own. */
struct ex_types {
	uint32_t begin, end;		/* a task's creation, its end */
	uint32_t flow_out, flow_in;	/* a visible arrow's source, its target */
	uint32_t sample, note, loss, marker;
};

/*
 * ex_items() - append every item of @m but the runs and pauses (each task's
 * begin and end, each visible arrow's two ends, each counter sample, note,
 * loss and marker), typed by @ty, at @it + *@k (*@k moved past them): room
 * for 2 * (ntasks + narrows) + nsamples + nnotes + nlosses + nmarkers.
 */
void ex_items(const struct rtr_model *m, struct ex_item *it, size_t *k, const struct ex_types *ty);

/* An arrow's name: read, try_read, resolve, fail (a failing resolve) or signal. */
const char *ex_arrow_name(const struct rtr_model_arrow *a);

/* How a run ended where the kernel's records say: "blocked" or "preempted"; else NULL. */
const char *ex_run_ended(const struct rtr_model_run *r);

/* A task's name: its first label, else "KIND ID" made in @b (the kind cut at 280 bytes). */
const char *ex_task_name(const struct rtr_model *m, const struct rtr_model_task *t, char *b,
			 size_t len);

/* Trace @i's process name, "HOST pid N: DIR", in @b (cut to fit). */
const char *ex_process_name(const struct rtr_model *m, uint32_t i, char *b, size_t len);

/* Thread @i's name, "NAME TID" (or "tid TID"), in @b (cut to fit). */
const char *ex_thread_name(const struct rtr_model *m, uint32_t i, char *b, size_t len);

#endif /* RTR_TOOLS_EXPORT_ITEMS_H */
