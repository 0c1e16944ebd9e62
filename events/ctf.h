/* SPDX-License-Identifier: MIT */
/*
 * events/ctf.h - CTF 1.8 metadata (TSDL) for a region's packets and records.
 * The packet and record layouts are the region ABI's (Documentation/ctf.rst);
 * event classes are described here by name, id and typed fields.
 */
#ifndef RTR_EVENTS_CTF_H
#define RTR_EVENTS_CTF_H

#include <stdint.h>
#include <stdio.h>
#include <ringtrace/region.h>

enum rtr_ctf_type {
	RTR_CTF_U8, RTR_CTF_U16, RTR_CTF_U32, RTR_CTF_U64,
	RTR_CTF_S8, RTR_CTF_S16, RTR_CTF_S32, RTR_CTF_S64,
	RTR_CTF_DOUBLE,
	RTR_CTF_STRING,		/* NUL-terminated */
	RTR_CTF_ENUM_U8,	/* integers with named values (@map) */
	RTR_CTF_ENUM_U32,
	RTR_CTF_BYTES,		/* u32 length, then that many bytes */
};

struct rtr_ctf_enum_entry {
	const char *label;	/* printable ASCII */
	uint32_t value;
};

struct rtr_ctf_field {
	const char *name;
	enum rtr_ctf_type type;
	const struct rtr_ctf_enum_entry *map;	/* enums only */
	uint32_t nmap;
};

struct rtr_ctf_event {
	const char *name;
	uint32_t id;
	const struct rtr_ctf_field *fields;
	uint32_t nfields;
};

/**
 * rtr_ctf_write_metadata() - write the TSDL text describing a trace taken
 * from a region with header @h, whose records are the @n event classes @ev.
 * @hostname: the env block's hostname (NULL: this machine's).
 * Return: 0, -EINVAL for a bad event class (name not an identifier, id
 * repeated), -EIO if writing to @f failed.
 */
int rtr_ctf_write_metadata(FILE *f, const struct rtr_region_hdr *h, const char *hostname,
			   const struct rtr_ctf_event *ev, size_t n);

#endif /* RTR_EVENTS_CTF_H */
