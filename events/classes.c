// SPDX-License-Identifier: MIT
/*
 * events/classes.c - the metadata of a whole ringtrace trace: the built-in
 * classes (format/classes.h), the counter names of the region's registry
 * as an enum, and the registry's typed events.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <ringtrace/ringtrace.h>
#include "events/classes.h"
#include "events/metadata.h"

int rtr_events_write_metadata(FILE *f, const struct rtr_region_hdr *h,
			      const struct rtr_registry *reg, const char *hostname)
{
	struct rtr_ctf_event *ev = NULL;
	struct rtr_ctf_field *fields = NULL;
	struct rtr_ctf_enum_entry *names = NULL;
	struct rtr_ctf_field counter[2];
	struct rtr_ctf_enum_entry *maps = NULL;
	uint32_t n = 0, nf = 0, nm = 0, nlabels = 0, nb;
	char *labels = NULL, *lp;
	size_t labels_len = 0;
	int ret;

	/* Enum fields' labels, split once into one buffer and one entry array. */
	for (uint32_t i = 0; i < reg->nevents; i++) {
		for (uint32_t j = 0; j < reg->events[i].nfields; j++) {
			const char *l = reg->events[i].fields[j].labels;

			if (!l)
				continue;
			labels_len += strlen(l) + 1;
			nlabels += 1;
			for (; *l; l++)
				nlabels += *l == '|';
		}
	}
	labels = malloc(labels_len + 1);
	maps = calloc(nlabels + 1, sizeof(*maps));
	if (!labels || !maps) {
		ret = -ENOMEM;
		goto out;
	}
	lp = labels;

	names = calloc(reg->ncounters ? reg->ncounters : 1, sizeof(*names));
	ev = calloc(RTR_EV_BUILTIN_COUNT + reg->nevents, sizeof(*ev));
	fields = calloc((size_t)reg->nevents * RTR_REGISTRY_FIELDS + 1, sizeof(*fields));
	if (!names || !ev || !fields) {
		ret = -ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < reg->ncounters; i++) {
		if (reg->counters[i])
			names[n++] = (struct rtr_ctf_enum_entry){ reg->counters[i], i };
	}
	counter[0] = (struct rtr_ctf_field){ "counter", RTR_CTF_ENUM_U32, names, n };
	counter[1] = (struct rtr_ctf_field){ "value", RTR_CTF_S64, NULL, 0 };
	for (uint32_t i = 0; i < RTR_EV_BUILTIN_COUNT; i++)
		ev[i] = *rtr_event_builtin(i);
	ev[RTR_EV_COUNTER].fields = counter;
	/*
	 * A region made before the thread record (ABI 1.1) gave id 21 to its
	 * first typed event, and has no thread records: that class, not ours.
	 */
	nb = RTR_EV_BUILTIN_COUNT;
	for (uint32_t i = 0; i < reg->nevents; i++)
		if (reg->events[i].id == RTR_EV_THREAD)
			nb = RTR_EV_THREAD;
	/* Typed events: the registry's type codes are enum rtr_ctf_type's. */
	for (uint32_t i = 0; i < reg->nevents; i++) {
		const struct rtr_reg_event *r = &reg->events[i];

		ev[nb + i] = (struct rtr_ctf_event){ r->name, r->id, fields + nf, r->nfields };
		for (uint32_t j = 0; j < r->nfields; j++) {
			struct rtr_ctf_field *fl = &fields[nf++];

			*fl = (struct rtr_ctf_field){ r->fields[j].name,
						      (enum rtr_ctf_type)r->fields[j].type, NULL, 0 };
			if (r->fields[j].labels) {
				uint32_t v = 0;
				char *save;

				strcpy(lp, r->fields[j].labels);
				fl->type = RTR_CTF_ENUM_U32;
				fl->map = maps + nm;
				for (char *t = strtok_r(lp, "|", &save); t; t = strtok_r(NULL, "|", &save))
					maps[nm++] = (struct rtr_ctf_enum_entry){ t, v++ };
				fl->nmap = v;
				lp += strlen(r->fields[j].labels) + 1;
			}
		}
	}
	ret = rtr_ctf_write_metadata(f, h, hostname, ev, nb + reg->nevents);
out:
	free(names);
	free(ev);
	free(fields);
	free(maps);
	free(labels);
	return ret;
}
