/* SPDX-License-Identifier: MIT */
/*
 * reader/ctf_plan.h - general CTF 1.8: the metadata of any trace babeltrace2
 * reads from LTTng (UST and kernel), parsed into types, clocks, stream
 * classes and event classes, and each layout compiled into a decoding plan.
 * Documentation/reader.rst, "General CTF 1.8".
 *
 * Types: the TSDL's integers (any size from 1 to 64 bits, any alignment,
 * either byte order, signed or not, mapped to a clock or not), floating
 * point (32 and 64 bits), strings, enumerations (ranges of an integer), and
 * the compound types: structures, variants (chosen by an enumeration tag),
 * arrays (a fixed length) and sequences (the length a field decoded
 * before).  Types are immutable once parsed and owned by the metadata's
 * arena: a typealias shares them.
 *
 * Plans: each layout a stream or an event class decodes (the packet header
 * and context; the event header, the stream's and the class's event
 * contexts, the payload) is compiled once into a flat array of ops, so that
 * decoding a record is a walk over an array, not a tree, and the references
 * (a sequence's length, a variant's tag) are resolved to registers before
 * the first byte is read.  A layout of fixed size and byte-aligned fields
 * has its size precomputed: a cursor then checks its bounds once.
 *
 * Every read is bounds-checked against the packet's content: a walk never
 * reads outside [packet, packet + content_size) and fails with the offset
 * and the field instead.
 */
#ifndef RTR_READER_CTF_PLAN_H
#define RTR_READER_CTF_PLAN_H

#include <endian.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * struct tr_clock_quality - how well a ringtrace trace's clock is known
 * (its env, from region.h's ABI 1.3 fields): @known false for a trace
 * without them (older, or another tracer's).  The realtime of an event at
 * the calibration is known within +-@window_ns, t ns later within t *
 * @freq_ppb / 1e9 more, as well as the host's realtime: @sync
 * (enum rtr_clock_sync) with adjtimex()'s @esterror_us and @maxerror_us.
 */
struct tr_clock_quality {
	bool known;
	uint8_t sync;
	uint32_t window_ns, freq_ppb, esterror_us, maxerror_us;
};

enum tr_tkind {
	TR_TK_INT,
	TR_TK_FLOAT,
	TR_TK_STRING,
	TR_TK_ENUM,
	TR_TK_STRUCT,
	TR_TK_VARIANT,
	TR_TK_ARRAY,
	TR_TK_SEQ,
};

struct tr_ctype;

enum tr_order {
	TR_ORDER_NATIVE,	/* the trace's (trace { byte_order = ...; }) */
	TR_ORDER_LE,
	TR_ORDER_BE,
};

/* One label of an enumeration: the values @lo to @hi (inclusive, signed when the container is). */
struct tr_enum_map {
	const char *label;
	uint32_t len;
	int64_t lo, hi;
};

/* A field of a structure, or an option of a variant. */
struct tr_cfield {
	const char *name;	/* as written, CTF's leading underscore kept */
	const struct tr_ctype *type;
};

/**
 * struct tr_ctype - one type.
 * @align: alignment in bits (1 = none); a compound's is its largest member's.
 * @size: integers, enumerations (their container's), floats: bits.
 * @sign: @order: @base: @text: integers: signed, the byte order (enum
 *	tr_order: the trace's when native), the base to print in (2, 8, 10,
 *	16), and an encoding (UTF8, ASCII: an array or sequence of these is
 *	text).  Floats have an order too.
 * @clock: integers mapped to a clock ("map = clock.NAME.value"): NAME.
 * @maps: enumerations: @nmaps labels, in the order written.
 * @fields: structures and variants: @nfields members.
 * @tag: variants: the path of the tag field, as written.
 * @elem: arrays and sequences: the element type; @length (arrays) or
 *	@length_ref (sequences: the path of the length field).
 */
struct tr_ctype {
	enum tr_tkind kind;
	uint32_t align;
	uint32_t size;
	bool sign, text;
	uint8_t order;
	uint8_t base;
	const char *clock;
	uint32_t exp_dig, mant_dig;
	const struct tr_ctype *container;
	struct tr_enum_map *maps;
	uint32_t nmaps;
	struct tr_cfield *fields;
	uint32_t nfields;
	const char *tag;
	const struct tr_ctype *elem;
	uint64_t length;
	const char *length_ref;
};


/* ---- plans ------------------------------------------------------------------ */

enum tr_opcode {
	TR_OP_INT,		/* an integer or enumeration: any size, alignment, order */
	TR_OP_FLOAT,
	TR_OP_STRING,		/* NUL-terminated, inside the packet */
	TR_OP_STRUCT,		/* its members: the ops up to @next */
	TR_OP_ARRAY,		/* @arg elements, each the ops up to @next */
	TR_OP_SEQ,		/* regs[@arg] elements, each the ops up to @next */
	TR_OP_VARIANT,		/* the option regs[@arg] selects (@opts), then @next */
};

/*
 * What a field of a header means to the reader (by name, at the top of
 * the packet header and context; "id" and the clock-mapped "timestamp"
 * anywhere in the event header; the thread and process LTTng's contexts
 * name, at the top of the event contexts).
 */
enum tr_role {
	TR_ROLE_NONE,
	TR_ROLE_MAGIC,
	TR_ROLE_UUID,		/* the op of the 16-byte array */
	TR_ROLE_STREAM_ID,
	TR_ROLE_STREAM_INSTANCE,
	TR_ROLE_TS_BEGIN,
	TR_ROLE_TS_END,
	TR_ROLE_CONTENT_SIZE,
	TR_ROLE_PACKET_SIZE,
	TR_ROLE_SEQ_NUM,
	TR_ROLE_DISCARDED,
	TR_ROLE_CPU,
	TR_ROLE_EVENT_ID,
	TR_ROLE_TS,		/* a clock value: updates the stream's clock (CTF 1.8, 8.) */
	TR_ROLE_TID,		/* an event context's vtid or tid (LTTng's contexts) */
	TR_ROLE_PID,		/* ... vpid or pid */
	TR_ROLE_PROCNAME,	/* ... procname: the string's bit offset */
	TR_NROLES
};

/*
 * How reader/text.c prints a field of a skip plan without a generic step: a
 * plain integer of 1, 2, 4 or 8 bytes (unsigned, then signed), or a string.
 */
enum tr_put {
	TR_PUT_NONE,
	TR_PUT_U8,
	TR_PUT_U16,
	TR_PUT_U32,
	TR_PUT_U64,
	TR_PUT_S8,
	TR_PUT_S16,
	TR_PUT_S32,
	TR_PUT_S64,
	TR_PUT_STRING,
};

/* A variant's option: the tag values @lo to @hi select the op @op. */
struct tr_vopt {
	int64_t lo, hi;
	uint32_t op;
};

/**
 * struct tr_op - one step of a plan.
 * @name: the field's name to print (CTF's leading underscore dropped),
 *	@namelen bytes; "" for an array's elements.  @lead: ", name = ", @leadn
 *	bytes, readable TR_TEXT_PAD bytes past (reader/text.h copies it whole).
 * @reg: integers another field refers to: the register their value goes
 *	to, else -1.
 * @arg: arrays: the length; sequences and variants: the register holding
 *	the length or the tag.
 */
struct tr_op {
	uint8_t code;		/* enum tr_opcode */
	uint8_t role;		/* enum tr_role */
	bool sign, be, text;
	bool plain;		/* a whole little-endian decimal integer of 8 to 64 bits */
	uint8_t put;		/* enum tr_put */
	uint8_t base;
	uint16_t size;		/* bits: integers, floats */
	uint32_t align;		/* bits */
	uint32_t next;		/* compounds: the op after the body */
	int32_t reg;
	uint64_t arg;
	const struct tr_ctype *type;
	const char *name;
	uint32_t namelen;
	const char *lead;
	uint32_t leadn;
	const struct tr_vopt *opts;
	uint32_t nopts;
};

/**
 * struct tr_plan - a layout, compiled.
 * @ops: @nops of them; the top-level fields are those whose index is 0 or a
 *	previous top-level op's @next.
 * @fixed: every op is a byte-aligned integer or float of whole bytes,
 *	aligned to at most 8 bits, in no compound but fixed arrays: the layout
 *	takes @bytes bytes wherever it starts.
 * @roles: the roles this plan sets (bit per enum tr_role).
 * @skip: when every top-level field is a whole-byte integer or float
 *	(aligned to at most 8 bits, referred to by nothing) or a string, and
 *	the layout starts on a byte: the layout as @nskip runs of fixed bytes,
 *	each followed by a string or not (tr_skip_plan()); else NULL.
 */
/* One step of a plan walked by its sizes: @bytes of fixed fields, then a string if @string. */
struct tr_skip {
	uint32_t bytes;
	bool string;
};

struct tr_plan {
	struct tr_op *ops;
	uint32_t nops;
	bool fixed;
	uint32_t bytes;
	uint32_t align;
	uint32_t roles;
	struct tr_skip *skip;
	uint32_t nskip;
	uint32_t room;		/* @skip plans: the text of their names and numbers, at most */
};

/**
 * struct tr_walk - a position in a packet, for walking plans.
 * @pkt: the packet's first byte; @end: the content's end, in bits from it.
 * @bit: where the next field starts, in bits from @pkt.
 * @regs: the registers (struct tr_ctf.nregs of them).
 * @role: the values the roles took; @clock the stream's clock, updated by
 *	TR_ROLE_TS (and set by TR_ROLE_TS_BEGIN).
 * @roles: which roles were set (bit per enum tr_role).
 * @budget: ops the walk may still take: a layout whose lengths make it
 *	loop over nothing (empty elements) stops when it runs out.
 * @err: @errlen: where a failure is said: the field and what is wrong
 *	(the caller adds the file and offset: @fail_bit is where).
 */
struct tr_walk {
	const uint8_t *pkt;
	uint64_t bit;
	uint64_t end;
	uint64_t *regs;
	uint64_t role[TR_NROLES];
	uint64_t role_at[TR_NROLES];	/* where each role's integer starts, in bits */
	uint32_t roles;
	uint64_t budget;
	uint64_t clock;
	uint64_t fail_bit;
	char *err;
	size_t errlen;
};

/**
 * struct tr_fast_header - LTTng's event headers, recognised in a stream's
 * plan and read without walking it: an id of @id_bits (@ext: extended),
 * then either a @ts_bits timestamp aligned to @ts_align, or (extended,
 * aligned to 8) a 32-bit id and a 64-bit timestamp.  @on false: walk.
 */
struct tr_fast_header {
	bool on;
	bool be;
	uint8_t id_bits;
	uint8_t ts_bits;
	uint32_t ts_align;
	uint64_t ext;
};

/* ---- the metadata ------------------------------------------------------------- */

/* A clock block. */
struct tr_clock_class {
	const char *name;
	uint64_t freq;		/* never 0 */
	int64_t offset_s;
	uint64_t offset;	/* cycles */
};

struct tr_class;

/**
 * struct tr_stream_class - a stream block.
 * @clock: the clock its timestamps map to (an index into the clocks), -1
 *	if none does.
 * @fast: its event header, when it is one of LTTng's (read without a walk).
 * @classes: its event classes by id, @nids slots (NULL where none); ids at
 *	or above @nids are looked up in @sorted (@nsorted, sorted by id).
 */
struct tr_stream_class {
	uint64_t id;
	struct tr_plan packet_context;
	struct tr_plan event_header;
	struct tr_fast_header fast;
	struct tr_plan event_context;
	int32_t clock;
	const struct tr_class **classes;
	uint32_t nids;
	const struct tr_class **sorted;
	uint32_t nsorted;
};

/**
 * struct tr_ctf - what general CTF metadata holds beyond struct
 * tr_metadata's common part.
 * @be: the trace's byte order is big-endian.
 * @packet_header: the trace's packet header.
 * @clocks: @nclocks of them.  @streams: @nstreams stream classes.
 * @nregs: the registers a walk needs.
 * @domain: @tracer: the env's domain ("ust", "kernel") and tracer_name.
 * @procname: the env's procname (LTTng-UST's per-process buffers), or NULL.
 */
struct tr_ctf {
	bool be;
	bool has_uuid;
	struct tr_plan packet_header;
	struct tr_clock_class *clocks;
	uint32_t nclocks;
	struct tr_stream_class *streams;
	uint32_t nstreams;
	uint32_t nregs;
	const char *domain;
	const char *tracer;
	const char *procname;
	/* private: */
	uint64_t *regs;		/* the registers' room: one walk at a time per trace */
	struct tr_arena *arena;
};

/* The stream class with @id, or NULL. */
const struct tr_stream_class *tr_ctf_stream(const struct tr_ctf *ctf, uint64_t id);
/* The event class @id of stream class @sc, or NULL. */
const struct tr_class *tr_ctf_class(const struct tr_stream_class *sc, uint64_t id);

/*
 * tr_skip_plan() - @w past @p by its skip steps (@p->skip set, @w->bit on a
 * byte).  Return: 0, or -1 if it does not fit (tr_walk_plan() then says why).
 */
static inline int tr_skip_plan(const struct tr_plan *p, struct tr_walk *w)
{
	uint64_t byte = w->bit / 8, endb = w->end / 8;

	for (uint32_t i = 0; i < p->nskip; i++) {
		if (endb - byte < p->skip[i].bytes)
			return -1;
		byte += p->skip[i].bytes;
		if (p->skip[i].string) {
			const uint8_t *z = (const uint8_t *)memchr(w->pkt + byte, 0,
								   (size_t)(endb - byte));

			if (!z)
				return -1;
			byte = (uint64_t)(z - w->pkt) + 1;
		}
	}
	w->bit = byte * 8;
	return 0;
}

/*
 * tr_walk_plan() - walk @p from @w->bit: check every field inside the
 * content, set the registers and roles, leave @w->bit after the layout.
 * Return: 0, or -EPROTO (a field past the end, a string without its NUL, a
 * tag that selects no option, a length too large) with @w->err saying so.
 */
int tr_walk_plan(const struct tr_plan *p, struct tr_walk *w);

/*
 * tr_walk_fields() - tr_walk_plan(), noting where the first @n top-level
 * fields are: the k-th is the op @op[k] of @p, its value at bit @at[k] from
 * @w->pkt (aligned); @op[k] is UINT32_MAX for k past the last field.  For a
 * reader of a few named fields (reader/model.c: LTTng's scheduler events).
 * Return: as tr_walk_plan().
 */
int tr_walk_fields(const struct tr_plan *p, struct tr_walk *w, uint32_t *op, uint64_t *at,
		   uint32_t n);

struct tr_text;

/*
 * tr_walk_text() - the same walk of @p from @w->bit, each field printed
 * into @t as it is read ("a = 1, b = { c = 2 }", ", " first unless
 * @first): what tr_text_plan() does for a plan without skip steps.  The
 * record was checked by tr_walk_plan(): a failure is -EPROTO alone (@w's
 * message buffer is not written).  tr_walk_text_op(): op @i of @p alone,
 * its value without its name (tr_text_skip()'s general case).
 */
int tr_walk_text(const struct tr_plan *p, struct tr_walk *w, struct tr_text *t, bool first);
int tr_walk_text_op(const struct tr_plan *p, uint32_t i, struct tr_walk *w, struct tr_text *t);

/* The clock takes a @size-bit value: CTF 1.8 (8.): its low bits, wrapping forwards. */
static inline uint64_t tr_clock_update(uint64_t clock, uint64_t v, unsigned size)
{
	uint64_t mask;

	if (size >= 64)
		return v;
	mask = (1ull << size) - 1;
	if (v < (clock & mask))
		clock += mask + 1;
	return (clock & ~mask) | v;
}

/* The slow half of tr_read_bits(): any size, any bit offset, either order. */
uint64_t tr_read_bits_slow(const uint8_t *base, uint64_t bit, unsigned size, bool be);

/*
 * tr_read_bits() - the @size-bit unsigned integer at bit @bit of @base, in
 * byte order @be (CTF 1.8 4.1.5: little-endian fields fill each byte from
 * its least significant bit, big-endian ones from its most).  The caller
 * checked the bounds.  Inline for the common case, a whole little-endian
 * integer at a byte boundary.
 */
static inline uint64_t tr_read_bits(const uint8_t *base, uint64_t bit, unsigned size, bool be)
{
	const uint8_t *p = base + bit / 8;

	if (__builtin_expect(!(bit % 8) && !be, 1)) {
		switch (size) {
		case 8:
			return p[0];
		case 16: {
			uint16_t x;

			memcpy(&x, p, 2);
			return le16toh(x);
		}
		case 32: {
			uint32_t x;

			memcpy(&x, p, 4);
			return le32toh(x);
		}
		case 64: {
			uint64_t x;

			memcpy(&x, p, 8);
			return le64toh(x);
		}
		}
	}
	return tr_read_bits_slow(base, bit, size, be);
}

/* The work a walk of @bits bits of content may do (struct tr_walk.budget). */
static inline uint64_t tr_walk_budget(uint64_t bits)
{
	return 64 + 2 * bits;
}

struct tr_metadata;
struct tr_ctf_parsed;

/* ctf_plan.c: the parsed metadata compiled into @md (its ctf, classes, clock). */
int tr_ctf_compile(struct tr_metadata *md, const struct tr_ctf_parsed *in,
		   struct tr_arena **arena, const char *fname, char *err, size_t errlen);

/*
 * tr_ctf_metadata() - general CTF metadata text of @len bytes into @md
 * (which tr_parse_metadata() dispatches here for anything but ringtrace's
 * own TSDL).  Return: as tr_parse_metadata().
 */
int tr_ctf_metadata(struct tr_metadata *md, const char *text, size_t len, const char *fname,
		    char *err, size_t errlen);
void tr_ctf_free(struct tr_metadata *md);

#endif /* RTR_READER_CTF_PLAN_H */
