/* SPDX-License-Identifier: MIT */
/*
 * reader/text.h - events as text: a buffered output, the number and string
 * formatting dump prints millions of lines a second with (no printf per
 * field), and the fields of a general CTF event walked from its plan
 * (reader/ctf_plan.h) into "name = value, ..." text.  What `ringtrace dump`
 * prints, and what the model keeps as an event's fields for the viewer.
 *
 * Values: integers in their base (decimal, 0x..., 0..., 0b...);
 * enumerations as "label (value)" (the first label whose range holds it);
 * floats exactly ("%.17g" at most, the shortest that reads back);
 * strings and text arrays quoted, with \" \\ \n \t and \xNN escapes;
 * arrays and sequences as "[ a, b ]"; structures as "{ a = 1, b = 2 }";
 * a variant as its option's value.
 */
#ifndef RTR_READER_TEXT_H
#define RTR_READER_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "reader/trace.h"

struct tr_plan;
struct tr_walk;

/**
 * struct tr_text - text being made.
 * @f: where a full buffer goes (NULL: the buffer grows instead).
 * @buf: @len bytes used of @cap.
 * @failed: a write failed, or memory ran out: the text is incomplete.
 */
struct tr_text {
	FILE *f;
	char *buf;
	size_t len, cap;
	bool failed;
};

/*
 * Copies of short strings read 32 bytes from their start (tr_put_pad()):
 * tr_text_room() keeps that much slack.
 */
#define TR_TEXT_PAD	32

int tr_text_init(struct tr_text *t, FILE *f, size_t cap);
void tr_text_free(struct tr_text *t);
/* Write out what is buffered (to @f).  Return: 0, or -EIO once a write failed. */
int tr_text_flush(struct tr_text *t);
/* Make room for @n bytes (the slow half of tr_text_room()). */
void tr_text_grow(struct tr_text *t, size_t n);

/* Room for @n more bytes: where to write them.  Set @len after writing. */
static inline char *tr_text_room(struct tr_text *t, size_t n)
{
	if (__builtin_expect(t->cap - t->len < n + TR_TEXT_PAD, 0))
		tr_text_grow(t, n + TR_TEXT_PAD);
	return t->buf + t->len;
}

/* ---- formatting into a buffer with room ---------------------------------------- */

extern const char tr_dig2[200];		/* "00" "01" ... "99" */

static inline char *tr_put(char *p, const void *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}

/* A short string from a buffer readable TR_TEXT_PAD bytes past its start. */
static inline char *tr_put_pad(char *p, const char *s, size_t n)
{
	if (n <= 16)
		memcpy(p, s, 16);
	else if (n <= 32)
		memcpy(p, s, 32);
	else
		memcpy(p, s, n);
	return p + n;
}

/* Exactly 8 digits, zero-padded: two independent halves. */
static inline void tr_put_8(char *p, uint32_t x)
{
	uint32_t a = x / 10000, b = x % 10000;

	memcpy(p, tr_dig2 + 2 * (a / 100), 2);
	memcpy(p + 2, tr_dig2 + 2 * (a % 100), 2);
	memcpy(p + 4, tr_dig2 + 2 * (b / 100), 2);
	memcpy(p + 6, tr_dig2 + 2 * (b % 100), 2);
}

/* @x < 10^4, no padding: a pair or two, the first maybe one digit. */
static inline char *tr_put_4(char *p, uint32_t x)
{
	uint32_t a, b;

	if (x < 100) {
		if (x < 10) {
			*p = (char)('0' + x);
			return p + 1;
		}
		memcpy(p, tr_dig2 + 2 * x, 2);
		return p + 2;
	}
	a = x / 100;
	b = x - a * 100;
	if (a < 10) {
		*p = (char)('0' + a);
		memcpy(p + 1, tr_dig2 + 2 * b, 2);
		return p + 3;
	}
	memcpy(p, tr_dig2 + 2 * a, 2);
	memcpy(p + 2, tr_dig2 + 2 * b, 2);
	return p + 4;
}

/* @x < 10^8, no padding: the digits above the last four, then those four. */
static inline char *tr_put_small(char *p, uint32_t x)
{
	uint32_t a, b;

	if (x < 10000)
		return tr_put_4(p, x);
	a = x / 10000;
	b = x - a * 10000;
	p = tr_put_4(p, a);
	memcpy(p, tr_dig2 + 2 * (b / 100), 2);
	memcpy(p + 2, tr_dig2 + 2 * (b % 100), 2);
	return p + 4;
}

static inline __attribute__((always_inline)) char *tr_put_u64(char *p, uint64_t v)
{
	if (v < 100000000u)
		return tr_put_small(p, (uint32_t)v);
	if (v < 10000000000000000ull) {
		p = tr_put_small(p, (uint32_t)(v / 100000000u));
	} else {
		uint64_t hi = v / 100000000u;

		p = tr_put_small(p, (uint32_t)(hi / 100000000u));
		tr_put_8(p, (uint32_t)(hi % 100000000u));
		p += 8;
	}
	tr_put_8(p, (uint32_t)(v % 100000000u));
	return p + 8;
}

static inline char *tr_put_s64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return tr_put_u64(p, (uint64_t)0 - (uint64_t)v);
	}
	return tr_put_u64(p, (uint64_t)v);
}

/* Nine digits, zero-padded. */
static inline char *tr_put_9(char *p, uint32_t v)
{
	p[0] = (char)('0' + v / 100000000u);
	tr_put_8(p + 1, v % 100000000u);
	return p + 9;
}

/* @v in base 2, 8 or 16, with its prefix (0b, 0, 0x): at most 66 bytes. */
char *tr_put_base(char *p, uint64_t v, unsigned base);
/* The shortest of %.15g..%.17g that reads back as the same double (at most 40 bytes). */
char *tr_put_double(char *p, double v);
/* The same for a float: %.6g..%.9g. */
char *tr_put_float(char *p, float v);

/* @n bytes of @s, quoted and escaped (4 output bytes per input byte at most). */
void tr_text_string(struct tr_text *t, const uint8_t *s, size_t n);
/* @n bytes as 0x and two hex digits each. */
void tr_text_hex(struct tr_text *t, const uint8_t *s, size_t n);

struct tr_class;

/*
 * tr_put_own_value() - one field of type @type of a ringtrace payload at
 * *@plp (checked by its cursor: in bounds, strings ended), printed at @p
 * (room for a number and @label's longest label reserved), *@plp moved past
 * it; an enumeration's value with its label, "label (3)", when @label
 * finds one.  A string or bytes go through @o (its length set from @p
 * first), then @bound bytes of room are reserved again.  Return: where the
 * text goes on.  The one formatter of these payloads: dump's line loop
 * (with its own label tables) and tr_text_fields().
 */
static inline __attribute__((always_inline)) char *
tr_put_own_value(struct tr_text *o, char *p, enum rtr_ctf_type type, const uint8_t **plp,
		 size_t bound, const struct tr_label *(*label)(const void *ctx, uint32_t v),
		 const void *ctx)
{
	const uint8_t *pl = *plp;

	switch (type) {
	case RTR_CTF_U8:
		p = tr_put_u64(p, *pl);
		pl += 1;
		break;
	case RTR_CTF_U16:
		p = tr_put_u64(p, ld16(pl));
		pl += 2;
		break;
	case RTR_CTF_U32:
		p = tr_put_u64(p, ld32(pl));
		pl += 4;
		break;
	case RTR_CTF_U64:
		p = tr_put_u64(p, ld64(pl));
		pl += 8;
		break;
	case RTR_CTF_S8:
		p = tr_put_s64(p, (int8_t)*pl);
		pl += 1;
		break;
	case RTR_CTF_S16:
		p = tr_put_s64(p, (int16_t)ld16(pl));
		pl += 2;
		break;
	case RTR_CTF_S32:
		p = tr_put_s64(p, (int32_t)ld32(pl));
		pl += 4;
		break;
	case RTR_CTF_S64:
		p = tr_put_s64(p, (int64_t)ld64(pl));
		pl += 8;
		break;
	case RTR_CTF_DOUBLE: {
		uint64_t u = ld64(pl);
		double v;

		memcpy(&v, &u, 8);
		p = tr_put_double(p, v);
		pl += 8;
		break;
	}
	case RTR_CTF_ENUM_U8:
	case RTR_CTF_ENUM_U32: {
		uint32_t v = type == RTR_CTF_ENUM_U8 ? *pl : ld32(pl);
		const struct tr_label *l = label(ctx, v);

		if (l) {
			p = tr_put(p, l->label, l->len);
			*p++ = ' ';
			*p++ = '(';
		}
		p = tr_put_u64(p, v);
		if (l)
			*p++ = ')';
		pl += type == RTR_CTF_ENUM_U8 ? 1 : 4;
		break;
	}
	case RTR_CTF_STRING: {
		/* the cursor found the NUL inside the record */
		size_t n = strlen((const char *)pl);

		o->len = (size_t)(p - o->buf);
		tr_text_string(o, pl, n);
		p = tr_text_room(o, bound);
		pl += n + 1;
		break;
	}
	case RTR_CTF_BYTES: {
		uint32_t n = ld32(pl);

		o->len = (size_t)(p - o->buf);
		tr_text_hex(o, pl + 4, n);
		p = tr_text_room(o, bound);
		pl += 4 + (size_t)n;
		break;
	}
	}
	*plp = pl;
	return p;
}

/*
 * tr_text_fields() - the fields of a record of ringtrace's own class @cls
 * (reader/tsdl.h: @payload, @len bytes, checked by its cursor) as "a = 1,
 * b = "x"": integers, doubles, strings, enumerations' labels, bytes in hex.
 */
void tr_text_fields(struct tr_text *t, const struct tr_class *cls, const uint8_t *payload,
		    size_t len);

/*
 * tr_text_plan() - the fields of @p as "a = 1, b = "x"" at @w (already
 * walked by the cursor: every read is in bounds; registers are set again as
 * the walk goes), @first false to start with ", ".  Return: 0, or -EPROTO
 * if the plan no longer fits (a cursor checked it: it cannot happen), with
 * the text up to there.
 */
int tr_text_plan(struct tr_text *t, const struct tr_plan *p, struct tr_walk *w, bool first);

/*
 * tr_text_skip() - tr_text_plan() for a plan with skip steps (tr_plan.skip)
 * at a byte boundary, called directly: its fields printed by their kind
 * (enum tr_put), without the generic walk.
 */
int tr_text_skip(struct tr_text *t, const struct tr_plan *p, struct tr_walk *w, bool first);

/*
 * What the plan's walker (reader/ctf_plan.c, the one walk of a plan, which
 * tr_text_plan() runs with a printer) prints a field with.
 * tr_text_lit(): @n bytes as they are (braces, separators).
 * tr_text_int(): integer @v of @op, in its base, its enumeration's label
 * first ("label (3)", quoted if it is no identifier).
 * tr_text_float(): the float (@size 32) or double in @v's bits.
 * tr_text_cstring(): the NUL-terminated string at @s, before @end, quoted
 * and escaped.  Return: its NUL; NULL if there is none before @end (what
 * was before it is printed).
 */
static inline void tr_text_lit(struct tr_text *t, const char *s, size_t n)
{
	char *p = tr_text_room(t, n);

	memcpy(p, s, n);
	t->len += n;
}

struct tr_op;

void tr_text_int(struct tr_text *t, const struct tr_op *op, uint64_t v);
void tr_text_float(struct tr_text *t, uint32_t size, uint64_t v);
const uint8_t *tr_text_cstring(struct tr_text *t, const uint8_t *s, const uint8_t *end);

#endif /* RTR_READER_TEXT_H */
