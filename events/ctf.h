/* SPDX-License-Identifier: MIT */
/*
 * events/ctf.h - CTF 1.8 metadata (TSDL) for a region's packets and records.
 * The packet and record layouts are the region ABI's (Documentation/ctf.rst);
 * event classes are described here by name, id and typed fields.
 */
#ifndef RTR_EVENTS_CTF_H
#define RTR_EVENTS_CTF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <stdio.h>
#include <ringtrace/event.h>
#include <ringtrace/region.h>

/*
 * The field types of ringtrace's event classes: the public codes of enum
 * rtr_field_type (written into the region's registry), and one more, the u8
 * enum of the create events' kind.  The tree's one field-type enum: the
 * metadata writer (ctf.c), the registry and the reader (reader/tsdl.c)
 * all use it, and rtr_ctf_types[] says how each is declared and how large
 * it is.
 */
enum rtr_ctf_type {
	RTR_CTF_U8 = RTR_FT_u8, RTR_CTF_U16 = RTR_FT_u16,
	RTR_CTF_U32 = RTR_FT_u32, RTR_CTF_U64 = RTR_FT_u64,
	RTR_CTF_S8 = RTR_FT_s8, RTR_CTF_S16 = RTR_FT_s16,
	RTR_CTF_S32 = RTR_FT_s32, RTR_CTF_S64 = RTR_FT_s64,
	RTR_CTF_DOUBLE = RTR_FT_f64,
	RTR_CTF_STRING = RTR_FT_string,	/* NUL-terminated */
	RTR_CTF_ENUM_U8 = 10,		/* integers with named values (@map) */
	RTR_CTF_ENUM_U32 = RTR_FT_enum,
	RTR_CTF_BYTES = RTR_FT_bytes,	/* u32 length, then that many bytes */
};
#define RTR_CTF_NTYPES	(RTR_CTF_BYTES + 1)

/**
 * struct rtr_ctf_type_info - one field type in the TSDL.
 * @tsdl: the type name a field is declared with (an enum's or a byte
 *	sequence's element type for those).
 * @size: bytes in a record; 0 for the variable-size string and bytes.
 */
struct rtr_ctf_type_info {
	const char *tsdl;
	uint8_t size;
};

extern const struct rtr_ctf_type_info rtr_ctf_types[RTR_CTF_NTYPES];

/* A code of the public enum rtr_field_type (what the registry may hold). */
static inline bool rtr_ctf_type_public(uint32_t t)
{
	return t <= RTR_CTF_STRING || t == RTR_CTF_ENUM_U32 || t == RTR_CTF_BYTES;
}

/* TSDL identifiers: [A-Za-z_][A-Za-z0-9_]*.  The tree's one check. */
static inline bool rtr_ctf_ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static inline bool rtr_ctf_ident_char(char c)
{
	return rtr_ctf_ident_start(c) || (c >= '0' && c <= '9');
}

/* The @n bytes at @s are an identifier. */
static inline bool rtr_ctf_identifier(const char *s, size_t n)
{
	if (!s || !n || !rtr_ctf_ident_start(s[0]))
		return false;
	for (size_t i = 1; i < n; i++) {
		if (!rtr_ctf_ident_char(s[i]))
			return false;
	}
	return true;
}

/* An event name: an identifier, or provider:name (two identifiers). */
static inline bool rtr_ctf_event_name_ok(const char *s)
{
	const char *colon, *e;

	if (!s)
		return false;
	colon = strchr(s, ':');
	e = s + strlen(s);
	if (!colon)
		return rtr_ctf_identifier(s, (size_t)(e - s));
	return rtr_ctf_identifier(s, (size_t)(colon - s)) &&
	       rtr_ctf_identifier(colon + 1, (size_t)(e - colon - 1));
}

/*
 * The fixed parts of the TSDL, line by line as the writer writes them
 * (leading tabs included), NULL-terminated: the typealiases; the packet
 * header's fields, after "packet.header := struct {" in the trace block;
 * the stream block, after "stream {".  The reader compares a trace's lines
 * with these, so the two cannot drift apart.
 */
extern const char *const rtr_ctf_typealiases[];
extern const char *const rtr_ctf_packet_header[];
extern const char *const rtr_ctf_stream_block[];

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

/*
 * rtr_ctf_write_events() - the event blocks of the @n classes @ev, as
 * rtr_ctf_write_metadata() ends with them (more classes appended to its
 * text).  Return: 0, or -EIO if writing to @f failed.
 */
int rtr_ctf_write_events(FILE *f, const struct rtr_ctf_event *ev, size_t n);

/*
 * A UUID as CTF's metadata writes it (RFC 4122's text: 8-4-4-4-12
 * lowercase hex digits): rtr_ctf_uuid_text() writes the 36 characters and a
 * NUL to @out; rtr_ctf_uuid_parse() reads @n bytes of @s into @u, hex
 * digits of either case unless @lower (then only as rtr_ctf_uuid_text()
 * writes them).  The writer's metadata, the reader's of every trace and
 * the commands use these two.  Return: 0, or -1 if @s is not a UUID.
 */
void rtr_ctf_uuid_text(char out[37], const uint8_t u[16]);
int rtr_ctf_uuid_parse(const char *s, size_t n, bool lower, uint8_t u[16]);

#endif /* RTR_EVENTS_CTF_H */
