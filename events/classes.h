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

/* Name of built-in event @id, or NULL. */
const char *rtr_event_name(uint32_t id);

/*
 * rtr_events_write_metadata() - TSDL for a trace of the region with header
 * @h and registry @reg.  Return: as rtr_ctf_write_metadata().
 */
int rtr_events_write_metadata(FILE *f, const struct rtr_region_hdr *h,
			      const struct rtr_registry *reg, const char *hostname);

#endif /* RTR_EVENTS_CLASSES_H */
