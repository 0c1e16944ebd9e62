/* SPDX-License-Identifier: MIT */
/*
 * reader/tsdl.h - a trace's metadata: the TSDL text of its "metadata" file
 * parsed into the clock and the event classes, each a list of typed fields.
 * What the cursors (reader/cursor.h) decode records with, and what dump,
 * the model and the viewer name things by.  Documentation/reader.rst.
 *
 * One parser reads every trace's text (reader/ctf_parse.c), then two kinds
 * are told apart.  Ringtrace's own (its env says tracer_name = "ringtrace")
 * is held to its profile: the packet header and context and the event
 * header compared type for type with format/ctf.h's fixed parts, every
 * field one of its types, nothing events/metadata.c does not write; so its
 * traces are checked as strictly as they are written, and its classes are
 * lists of typed fields.  Anything else is general CTF 1.8 (reader/ctf_plan.h:
 * LTTng-UST and kernel traces), compiled into plans.  Everything is treated
 * as hostile: a problem is reported with the file, the line and what is
 * wrong, and the text is never read outside the bytes given.
 *
 * Layout: struct tr_metadata owns its classes, sorted by id; each class
 * owns its fields, each enum field its labels, sorted by value (the first
 * label written for a value wins).  Strings are NUL-terminated, printable
 * ASCII where the text came from a TSDL string literal.  All freed by
 * tr_metadata_free().
 */
#ifndef RTR_READER_TSDL_H
#define RTR_READER_TSDL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "format/ctf.h"
#include "reader/ctf_plan.h"

struct tr_ctf;
struct tr_plan;

struct tr_label {
	char *label;		/* unescaped, printable ASCII */
	uint32_t len;
	uint32_t value;
};

struct tr_field {
	char *name;		/* without CTF's leading underscore */
	enum rtr_ctf_type type;	/* format/ctf.h: the writer's types, sizes in rtr_ctf_types[] */
	struct tr_label *labels;	/* enums: sorted by value, first label of a value kept */
	uint32_t nlabels;
};

/* The label of @value in enum field @f (binary search), or NULL. */
const struct tr_label *tr_field_label(const struct tr_field *f, uint32_t value);

/**
 * struct tr_class - one event class.
 * @fixed: every field has a fixed size, and the payload takes @size bytes;
 *	a cursor then checks a record's bounds with one comparison.
 * @line: the metadata line of its event block, for messages.
 */
struct tr_class {
	char *name;
	uint32_t id;
	uint32_t nfields;
	struct tr_field *fields;
	bool fixed;
	uint32_t size;
	uint32_t line;
	/* every trace's (tr_metadata.ctf); general CTF's @fields is empty */
	uint32_t stream;		/* index of its stream class */
	int32_t loglevel;
	const struct tr_plan *context;	/* event.context */
	const struct tr_plan *payload;	/* event.fields */
};

/**
 * struct tr_metadata - one trace's metadata.
 * @freq: clock cycles per second, never 0.
 * @offset_s: @offset: the clock's offset (CTF: ns = offset_s * 1e9 +
 *	(offset + cycles) * 1e9 / freq).
 * @hostname: "" when the env block has none.
 * @chunk_index: the env's chunk_index: > 0 in a rotated trace's later chunks.
 * @classes: sorted by id, @nclasses of them; @by_id indexes those below 64
 *	(-1 where none).  General CTF: by stream class, then id (@by_id unused:
 *	reader/ctf_plan.h's stream classes index them).
 * @ctf: the trace's types, clocks, stream classes and plans
 *	(reader/ctf_plan.h): what the cursors decode every trace with.
 * @own: ringtrace's own metadata, held to its profile (tsdl.c): its classes
 *	also carry their fields as a list of format/ctf.h's types (@fields,
 *	@fixed, @size), and the cursors check its packets strictly and read
 *	its records by the profile's fast path.  False: general CTF (LTTng's,
 *	and anything else), its classes described by their plans alone.
 * @ns_clocks: the streams use different clocks: cursors give times in ns
 *	since the epoch (@freq 1 GHz, no offset) instead of cycles.
 * @thread: the class of ringtrace's thread records (the built-in "thread":
 *	u32 pid, u32 tid), NULL when the trace has none.
 * @warnings: @warning: general CTF: what the text has that is not read but
 *	harms nothing (an unknown attribute, as babeltrace2 warns): counted,
 *	the first said ("FILE: line N: what").
 */

/* "its offset within +-11 ns (and 553 ppb of the time since); ..." into @buf. */
void tr_clock_quality_text(const struct tr_clock_quality *q, char *buf, size_t len);

struct tr_metadata {
	uint8_t uuid[16];
	char uuid_str[37];
	uint64_t freq;
	int64_t offset_s;
	uint64_t offset;
	int64_t base_ns;	/* ns since the epoch at clock value 0 (checked to fit) */
	char *hostname;
	uint32_t vpid;
	bool has_vpid;
	uint64_t chunk_index;
	struct tr_clock_quality clockq;
	struct tr_class *classes;
	uint32_t nclasses;
	int32_t by_id[64];
	struct tr_ctf *ctf;
	bool own;
	bool ns_clocks;
	const struct tr_class *thread;
	uint32_t warnings;
	char warning[256];
};

/*
 * tr_parse_metadata() - parse @len bytes of metadata text into @md; @fname
 * only names it in @err.
 * Return: 0; -EPROTO, the text is not ringtrace's TSDL or is damaged, or
 * -ENOMEM: @err names the line and the problem, and @md holds nothing.
 */
int tr_parse_metadata(struct tr_metadata *md, const char *text, size_t len, const char *fname,
		      char *err, size_t errlen);
/*
 * tr_parse_metadata_packets() - the same for the text of packetised
 * metadata (the packets' contents joined): it need not start with the
 * "/" "* CTF 1.8" signature, the packets' headers having said the version.
 */
int tr_parse_metadata_packets(struct tr_metadata *md, const char *text, size_t len,
			      const char *fname, char *err, size_t errlen);
void tr_metadata_free(struct tr_metadata *md);

/*
 * tr_class_is() - @c has the name and the field types of the built-in
 * class @b (format/classes.h): a class is known by its name and layout,
 * never by its id, which is the writer's business.
 */
bool tr_class_is(const struct tr_class *c, const struct rtr_ctf_event *b);

/* The event class with @id, or NULL. */
const struct tr_class *tr_class_find(const struct tr_metadata *md, uint32_t id);

#endif /* RTR_READER_TSDL_H */
