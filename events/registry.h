/* SPDX-License-Identifier: MIT */
/*
 * events/registry.h - the region's metadata area: the names a trace needs
 * that are in no packet (counter names; later, typed event classes), as
 * lines of text that the producer appends and any reader parses strictly:
 *
 *     counter <id> <name>\n
 *     event <id> <provider>:<name> <nfields>[ <type>:<field>[=<l0>|<l1>...]]...\n
 *
 * Documentation/region.rst, "The metadata area".
 */
#ifndef RTR_EVENTS_REGISTRY_H
#define RTR_EVENTS_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <ringtrace/region.h>

#define RTR_REGISTRY_NAME_MAX	200
#define RTR_REGISTRY_COUNTERS	4096

#define RTR_REGISTRY_FIELDS	64
#define RTR_REGISTRY_EVENTS	4096
#define RTR_REGISTRY_FIRST_ID	22	/* below: the task model's ids (RTR_EV_BUILTIN_COUNT) */

struct rtr_reg_field {
	char name[64];
	uint32_t type;		/* enum rtr_field_type (ringtrace/event.h) */
	char *labels;		/* enum (type 11): "a|b|c", label i = value i */
};

#define RTR_REGISTRY_LABELS	256	/* labels of one enum field */

struct rtr_reg_event {
	uint32_t id;
	char name[130];		/* provider:name */
	uint32_t nfields;
	struct rtr_reg_field fields[RTR_REGISTRY_FIELDS];
};

struct rtr_registry {
	char *counters[RTR_REGISTRY_COUNTERS];	/* by id; NULL: not registered */
	uint32_t ncounters;			/* highest id + 1 */
	struct rtr_reg_event *events;
	uint32_t nevents;
};

/* A name fit for the registry and for TSDL: 1..200 printable ASCII bytes. */
bool rtr_registry_name_ok(const char *name);

/* Producer: append a counter line (caller serialises); -ENOSPC when full. */
int rtr_registry_add_counter(struct rtr_region_hdr *h, uint32_t id, const char *name);

/* Producer: append an event class line; -ENOSPC when full, -EINVAL for bad names. */
int rtr_registry_add_event(struct rtr_region_hdr *h, uint32_t id, const char *provider,
			   const char *name, const struct rtr_reg_field *fields, uint32_t nfields);

/*
 * Producers sharing a region (forked children, a program exec'd into it),
 * under its lock (rtr_region_lock()): the id the region gives a counter
 * called @name, or an event class, as @h's line already says (the same name,
 * or the same class to the letter, registered by another process), else a
 * new one from @next_counter / @next_class, appended.  Return: 0; -EINVAL
 * for bad names; -ENOSPC when the area or the ids are full.
 */
int rtr_registry_counter_id(struct rtr_region_hdr *h, const char *name, uint32_t *id);
int rtr_registry_event_id(struct rtr_region_hdr *h, const char *provider, const char *name,
			  const struct rtr_reg_field *fields, uint32_t nfields, uint32_t *id);

/* An identifier for TSDL: [A-Za-z_][A-Za-z0-9_]*, 1..63 bytes. */
bool rtr_registry_ident_ok(const char *s);

/*
 * Reader: parse @len bytes of registry text (a copy: the region may change).
 * Return: 0, or -EPROTO with @err naming the line and the problem.
 */
int rtr_registry_parse(const char *text, size_t len, struct rtr_registry *reg, char *err,
		       size_t errlen);
void rtr_registry_free(struct rtr_registry *reg);

#endif /* RTR_EVENTS_REGISTRY_H */
