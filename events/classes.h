/* SPDX-License-Identifier: MIT */
/*
 * events/classes.h - the task model's event classes (enum rtr_event_id) and
 * the metadata of a whole ringtrace trace: those classes, with the counter
 * names of the region's registry as an enum.
 */
#ifndef RTR_EVENTS_CLASSES_H
#define RTR_EVENTS_CLASSES_H

#include <stdio.h>
#include "events/ctf.h"
#include "events/registry.h"

/*
 * rtr_event_builtin() - the class of built-in event @id (enum
 * rtr_event_id): its name, id and fields, as written into every trace; the
 * counter event's enum without its labels (the registry's counter names).
 * NULL if @id is not a built-in event.
 */
const struct rtr_ctf_event *rtr_event_builtin(uint32_t id);

/*
 * rtr_events_write_metadata() - TSDL for a trace of the region with header
 * @h and registry @reg.  Return: as rtr_ctf_write_metadata().
 */
int rtr_events_write_metadata(FILE *f, const struct rtr_region_hdr *h,
			      const struct rtr_registry *reg, const char *hostname);

#endif /* RTR_EVENTS_CLASSES_H */
