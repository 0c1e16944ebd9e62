/* SPDX-License-Identifier: MIT */
/*
 * events/metadata.h - the writer of a trace's CTF 1.8 metadata (TSDL), from the
 * facts in format/ctf.h; event classes are described by name, id and typed
 * fields (struct rtr_ctf_event).
 */
#ifndef RTR_EVENTS_METADATA_H
#define RTR_EVENTS_METADATA_H

#include <stdio.h>
#include "format/ctf.h"

/**
 * rtr_ctf_write_metadata() - write the TSDL text describing a trace taken
 * from a region with header @h, whose records are the @n event classes @ev.
 * @hostname: the env block's hostname (NULL: this machine's).
 * Return: 0, -EINVAL for a bad event class (name not an identifier, id
 * repeated), -EIO if writing to @f failed.
 */
int rtr_ctf_write_metadata(FILE *f, const struct rtr_region_hdr *h, const char *hostname,
			   const struct rtr_ctf_event *ev, size_t n);

/*
 * rtr_ctf_write_events() - the event blocks of the @n classes @ev, as
 * rtr_ctf_write_metadata() ends with them (more classes appended to its
 * text).  Return: 0, or -EIO if writing to @f failed.
 */
int rtr_ctf_write_events(FILE *f, const struct rtr_ctf_event *ev, size_t n);

#endif /* RTR_EVENTS_METADATA_H */
