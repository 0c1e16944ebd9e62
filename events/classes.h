/* SPDX-License-Identifier: MIT */
/*
 * events/classes.h - the metadata of a whole ringtrace trace: the built-in
 * classes (format/classes.h) with the counter names of the region's
 * registry as an enum, and its typed events.
 */
#ifndef RTR_EVENTS_CLASSES_H
#define RTR_EVENTS_CLASSES_H

#include <stdio.h>
#include "format/classes.h"
#include "events/registry.h"

/*
 * rtr_events_write_metadata() - TSDL for a trace of the region with header
 * @h and registry @reg.  Return: as rtr_ctf_write_metadata().
 */
int rtr_events_write_metadata(FILE *f, const struct rtr_region_hdr *h,
			      const struct rtr_registry *reg, const char *hostname);

#endif /* RTR_EVENTS_CLASSES_H */
