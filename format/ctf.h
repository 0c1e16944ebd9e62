/* SPDX-License-Identifier: MIT */
/*
 * format/ctf.h - the facts of ringtrace's CTF 1.8 that the writer and the
 * reader share, each written once: the field types and their sizes, TSDL
 * identifiers, the fixed parts of the metadata (typealiases, packet header
 * and context, event header, the trace, clock and event blocks' fixed
 * lines), the magic numbers, the clock's name, UUIDs as text.  The writer
 * (events/metadata.c) prints these; the reader (reader/tsdl.c, reader/trace.c,
 * reader/cursor.c) compares a trace with them, so the two cannot drift.
 * The packet layout itself is the region ABI's (ringtrace/region.h,
 * Documentation/ctf.rst).  format/ is below every library that writes or
 * reads traces and uses nothing but libc and the public headers.
 */
#ifndef RTR_FORMAT_CTF_H
#define RTR_FORMAT_CTF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <ringtrace/event.h>
#include <ringtrace/region.h>

/*
 * The field types of ringtrace's event classes: the public codes of enum
 * rtr_field_type (written into the region's registry), and one more, the u8
 * enum of the create events' kind.  The tree's one field-type enum: the
 * metadata writer (events/metadata.c), the registry and the reader
 * (reader/tsdl.c) all use it, and rtr_ctf_types[] says how each is declared
 * and how large it is.
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

/*
 * The trace block's fixed lines (major, minor, byte order), in the order
 * the writer writes them before the uuid; the reader takes them in any
 * order, each once.
 */
extern const char *const rtr_ctf_trace_fixed[];

/* Text metadata's first line (CTF 1.8, 7.1), as ringtrace writes it. */
#define RTR_CTF_SIGNATURE	"/* CTF 1.8 */"
/* The magic of a metadata packet's header (CTF 1.8, 7.1: packet-based metadata). */
#define RTR_CTF_METADATA_MAGIC	0x75d11d57u
/*
 * The env line that makes a trace ringtrace's own, held to this profile
 * (reader/tsdl.h); without it, metadata is read as general CTF 1.8.
 */
#define RTR_CTF_TRACER_NAME	"ringtrace"
#define RTR_CTF_TRACER_LINE	"\ttracer_name = \"" RTR_CTF_TRACER_NAME "\";"
/* The one clock: its name (also in the typealiases' map = clock.tsc.value). */
#define RTR_CTF_CLOCK_NAME	"tsc"
#define RTR_CTF_CLOCK_NAME_LINE	"\tname = \"" RTR_CTF_CLOCK_NAME "\";"
/* Its description, by frequency (the reader ignores it). */
#define RTR_CTF_CLOCK_DESC(freq) ((freq) == 1000000000 ? "CLOCK_MONOTONIC, ns" : "invariant TSC")
/*
 * An event block's fixed lines: after "event {", its name and id lines,
 * then these two; the fields; then the two closing lines.
 */
#define RTR_CTF_EVENT_OPEN	"event {"
#define RTR_CTF_EVENT_STREAM	"\tstream_id = 0;"
#define RTR_CTF_EVENT_FIELDS	"\tfields := struct {"
#define RTR_CTF_EVENT_FIELDS_END "\t} align(8);"
#define RTR_CTF_BLOCK_END	"};"

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

#endif /* RTR_FORMAT_CTF_H */
