// SPDX-License-Identifier: MIT
/*
 * tests/tools/test_text.c - reader/text's formatting, which dump prints
 * every value with, against slow references: integers against printf at
 * every power of ten and on a sweep, strings against a byte-at-a-time
 * escape with every byte value at every position (the scan takes 8 and 16
 * bytes at a time, so the positions around those matter), and a general
 * CTF plan of strings and integers (the skip plans' own path); the decoder
 * of ringtrace's own payloads (tr_fval_next()) at every width and end.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include "reader/ctf_plan.h"
#include "reader/text.h"
#include "reader/trace.h"
#include "reader/tsdl.h"

TestSuite(reader_text);

/* The escape text.h documents, a byte at a time. */
static size_t ref_escape(char *o, const uint8_t *s, size_t n)
{
	size_t k = 0;

	o[k++] = '"';
	for (size_t i = 0; i < n; i++) {
		uint8_t c = s[i];

		if (c == '"' || c == '\\')
			k += (size_t)sprintf(o + k, "\\%c", c);
		else if (c == '\n')
			k += (size_t)sprintf(o + k, "\\n");
		else if (c == '\t')
			k += (size_t)sprintf(o + k, "\\t");
		else if (c < 0x20 || c >= 0x7f)
			k += (size_t)sprintf(o + k, "\\x%02x", c);
		else
			o[k++] = (char)c;
	}
	o[k++] = '"';
	return k;
}

static void expect_number(uint64_t v, bool sign)
{
	char want[32], got[32 + TR_TEXT_PAD], *e;

	if (sign) {
		snprintf(want, sizeof(want), "%" PRId64, (int64_t)v);
		e = tr_put_s64(got, (int64_t)v);
	} else {
		snprintf(want, sizeof(want), "%" PRIu64, v);
		e = tr_put_u64(got, v);
	}
	*e = 0;
	cr_expect_str_eq(got, want);
}

Test(reader_text, integers_print_as_printf_does)
{
	uint64_t x = 88172645463325252ull;

	for (int k = 0; k < 20; k++) {
		uint64_t p = 1;

		for (int j = 0; j < k; j++)
			p *= 10;
		for (uint64_t v = p - 1; v <= p + 1; v++) {
			expect_number(v, false);
			expect_number(v, true);
			expect_number((uint64_t)0 - v, true);
		}
	}
	expect_number(UINT64_MAX, false);
	expect_number((uint64_t)INT64_MIN, true);
	expect_number((uint64_t)INT64_MAX, true);
	for (int i = 0; i < 200000; i++) {
		/* xorshift, shifted to every magnitude */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		expect_number(x >> (i % 64), false);
		expect_number(x >> (i % 64), true);
	}
}

Test(reader_text, strings_escape_every_byte_at_every_position)
{
	struct tr_text t;
	uint8_t s[48];
	char want[4 * sizeof(s) + 2];

	cr_assert_eq(tr_text_init(&t, NULL, 0), 0);
	for (size_t n = 0; n <= 40; n++) {
		for (size_t at = 0; at < (n ? n : 1); at++) {
			for (unsigned c = 0; c < 256; c++) {
				size_t wn;

				for (size_t i = 0; i < n; i++)
					s[i] = (uint8_t)('a' + i % 26);
				if (n)
					s[at] = (uint8_t)c;
				t.len = 0;
				tr_text_string(&t, s, n);
				wn = ref_escape(want, s, n);
				cr_assert_eq(t.len, wn, "length %zu, byte 0x%02x at %zu", n, c, at);
				cr_assert(!memcmp(t.buf, want, wn),
					  "length %zu, byte 0x%02x at %zu: %.*s", n, c, at,
					  (int)t.len, t.buf);
			}
		}
	}
	tr_text_free(&t);
}

static const char tsdl[] =
	"/* CTF 1.8 */\n"
	"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
	"typealias integer { size = 8; align = 8; signed = true; } := int8_t;\n"
	"typealias integer { size = 16; align = 8; signed = true; } := int16_t;\n"
	"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
	"typealias integer { size = 64; align = 8; signed = true; } := int64_t;\n"
	"trace { major = 1; minor = 8; byte_order = le;\n"
	"	packet.header := struct { uint32_t magic; uint32_t stream_id; }; };\n"
	"stream { id = 0; event.header := struct { uint32_t id; }; };\n"
	"event { name = \"e\"; id = 0; stream_id = 0; fields := struct {\n"
	"	string a; uint8_t u; int8_t b; string c; int16_t h; int64_t q; string d; }; };\n";

/* One record of the class above: strings @a, @c, @d, then the integers after each. */
static size_t record(uint8_t *r, const char *a, const char *c, const char *d, uint8_t u,
		     int8_t b, int16_t h, int64_t q)
{
	size_t n = 0;

	n += strlen(a) + 1;
	memcpy(r, a, n);
	r[n++] = u;
	r[n++] = (uint8_t)b;
	memcpy(r + n, c, strlen(c) + 1);
	n += strlen(c) + 1;
	memcpy(r + n, &h, 2);	/* little-endian hosts: as the trace says */
	n += 2;
	memcpy(r + n, &q, 8);
	n += 8;
	memcpy(r + n, d, strlen(d) + 1);
	return n + strlen(d) + 1;
}

Test(reader_text, skip_plans_print_strings_and_integers)
{
	static const char *const strs[] = {
		"", "x", "/index.html", "0123456789abcdef", "0123456789abcdefg",
		"tab\there", "quote\"and\\slash", "\x7f\x80\xff", "new\nline",
		"a string longer than the sixty-four bytes taken in line, "
		"with an escape \" at its end",
	};
	const size_t ns = sizeof(strs) / sizeof(strs[0]);
	struct tr_metadata md;
	struct tr_text t;
	char err[256], want[1024], ea[400], ec[400], ed[400];
	char *text = strdup(tsdl);
	uint8_t pkt[600];

	cr_assert_eq(tr_parse_metadata(&md, text, strlen(text), "metadata", err, sizeof(err)), 0,
		     "%s", err);
	cr_assert_not_null(md.ctf);
	cr_assert_eq(md.nclasses, 1);
	cr_assert_not_null(md.classes[0].payload->skip, "the payload has skip steps");
	cr_assert_eq(tr_text_init(&t, NULL, 0), 0);
	for (size_t i = 0; i < ns * ns * ns; i++) {
		const char *a = strs[i % ns], *c = strs[i / ns % ns], *d = strs[i / ns / ns];
		int64_t q = (int64_t)(i * 0x9e3779b97f4a7c15ull);
		struct tr_walk w = { 0 };
		size_t n, room[] = { 0, 16 };

		for (int r = 0; r < 2; r++) {
			/* the record at the packet's end, and with bytes after it */
			n = record(pkt, a, c, d, (uint8_t)i, (int8_t)(i * 7), (int16_t)(i * 1000),
				   q);
			memset(pkt + n, 'z', room[r]);
			w.pkt = pkt;
			w.bit = 0;
			w.end = (n + room[r]) * 8;
			w.regs = md.ctf->regs;
			w.budget = tr_walk_budget(w.end);
			t.len = 0;
			cr_assert_eq(tr_text_plan(&t, md.classes[0].payload, &w, true), 0,
				     "record %zu, %d bytes after: %.*s", i, (int)room[r],
				     (int)t.len, t.buf);
			ea[ref_escape(ea, (const uint8_t *)a, strlen(a))] = 0;
			ec[ref_escape(ec, (const uint8_t *)c, strlen(c))] = 0;
			ed[ref_escape(ed, (const uint8_t *)d, strlen(d))] = 0;
			snprintf(want, sizeof(want),
				 "a = %s, u = %u, b = %d, c = %s, h = %d, q = %" PRId64
				 ", d = %s", ea, (uint8_t)i, (int8_t)(i * 7), ec,
				 (int16_t)(i * 1000), q, ed);
			cr_assert_eq(t.len, strlen(want), "%.*s\n%s", (int)t.len, t.buf, want);
			cr_assert(!memcmp(t.buf, want, t.len), "%.*s\n%s", (int)t.len, t.buf, want);
			cr_assert_eq(w.bit, n * 8, "the walk ends after the record");
		}
	}
	tr_text_free(&t);
	tr_metadata_free(&md);
	free(text);
}

/*
 * tr_fval_next(), the decoder of ringtrace's own payloads: each fixed-size
 * type's value at its width and sign; a string and a byte sequence; then
 * every type at the end of buffers of every short length, allocated to the
 * byte (ASan sees a read past one), each refused without moving, never
 * read past.
 */
Test(reader_text, payload_fields_decode_at_their_width_and_never_past_the_end)
{
	static const uint8_t rec[] = {
		0xff,					/* u8 255 */
		0xfe,					/* s8 -2 */
		0x34, 0x82,				/* u16 0x8234 */
		0xff, 0xff, 0xff, 0x80,			/* s32 */
		0, 0, 0, 0, 0, 0, 0xf8, 0x3f,		/* double 1.5 */
		'h', 'i', 0,				/* string "hi" */
		3, 0, 0, 0, 'x', 'y', 'z',		/* bytes "xyz" */
		0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,	/* s64 -2 */
	};
	const uint8_t *p = rec, *end = rec + sizeof(rec);
	struct tr_fval v;

	cr_assert_eq(tr_fval_next(RTR_CTF_U8, &p, end, &v), TR_FVAL_OK);
	cr_expect(v.u == 255 && v.n == 1 && v.p == rec);
	cr_assert_eq(tr_fval_next(RTR_CTF_S8, &p, end, &v), TR_FVAL_OK);
	cr_expect_eq(v.s, -2);
	cr_assert_eq(tr_fval_next(RTR_CTF_U16, &p, end, &v), TR_FVAL_OK);
	cr_expect_eq(v.u, 0x8234);
	cr_assert_eq(tr_fval_next(RTR_CTF_S32, &p, end, &v), TR_FVAL_OK);
	cr_expect_eq(v.s, (int32_t)0x80ffffff);
	cr_assert_eq(tr_fval_next(RTR_CTF_DOUBLE, &p, end, &v), TR_FVAL_OK);
	cr_expect(v.d == 1.5);
	cr_assert_eq(tr_fval_next(RTR_CTF_STRING, &p, end, &v), TR_FVAL_OK);
	cr_expect(v.n == 2 && !memcmp(v.p, "hi", 2));
	cr_assert_eq(tr_fval_next(RTR_CTF_BYTES, &p, end, &v), TR_FVAL_OK);
	cr_expect(v.n == 3 && !memcmp(v.p, "xyz", 3));
	cr_assert_eq(tr_fval_next(RTR_CTF_S64, &p, end, &v), TR_FVAL_OK);
	cr_expect_eq(v.s, -2);
	cr_expect_eq(p, end);

	for (uint32_t type = 0; type < RTR_CTF_NTYPES + 2; type++) {
		for (size_t len = 0; len < 12; len++) {
			/* a buffer of @len bytes: no NUL, but a byte sequence's length of 200 */
			uint8_t *b = malloc(len ? len : 1);
			const uint8_t *q = b;
			enum tr_fval_err r;
			size_t size = type < RTR_CTF_NTYPES ? rtr_ctf_types[type].size : 0;

			cr_assert_not_null(b);
			memset(b, 'a', len);
			if (type == RTR_CTF_BYTES && len >= 4)
				memcpy(b, "\310\0\0\0", 4);
			r = tr_fval_next(type, &q, b + len, &v);
			if (size && len >= size) {
				cr_expect_eq(r, TR_FVAL_OK, "type %u, %zu bytes", type, len);
				cr_expect_eq(q, b + size);
			} else if (type == RTR_CTF_STRING) {
				cr_expect_eq(r, TR_FVAL_NO_NUL, "a string of no NUL");
			} else if (type == RTR_CTF_BYTES && len >= 4) {
				cr_expect_eq(r, TR_FVAL_BYTES_PAST, "%zu bytes for 200", len);
			} else {
				cr_expect_neq(r, TR_FVAL_OK, "type %u, %zu bytes", type, len);
			}
			if (r != TR_FVAL_OK)
				cr_expect_eq(q, b, "refused without moving");
			free(b);
		}
	}
}

/*
 * tr_text_fields(), the formatter dump's lines share (tr_put_own_value()):
 * every type of ringtrace's payloads at its width and sign, an enumeration
 * with its label and without one, a string escaped, bytes in hex.
 */
Test(reader_text, payload_fields_print_by_type_with_their_labels)
{
	static const uint8_t rec[] = {
		0xff,					/* u8 255 */
		0xfe,					/* s8 -2 */
		0x34, 0x82,				/* u16 33332 */
		0xff, 0xff, 0xff, 0x80,			/* s32 -2130706433 */
		0, 0, 0, 0, 0, 0, 0xf8, 0x3f,		/* double 1.5 */
		'h', '"', 0,				/* string h" */
		3, 0, 0, 0, 'x', 'y', 'z',		/* bytes "xyz" */
		2,					/* enum8 2: "busy" */
		7, 0, 0, 0,				/* enum32 7: no label */
		0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,	/* s64 -2 */
	};
	struct tr_label labels[] = { { "idle", 4, 1 }, { "busy", 4, 2 } };
	struct tr_field f[] = {
		{ "a", RTR_CTF_U8, NULL, 0 },      { "b", RTR_CTF_S8, NULL, 0 },
		{ "c", RTR_CTF_U16, NULL, 0 },     { "d", RTR_CTF_S32, NULL, 0 },
		{ "e", RTR_CTF_DOUBLE, NULL, 0 },  { "f", RTR_CTF_STRING, NULL, 0 },
		{ "g", RTR_CTF_BYTES, NULL, 0 },   { "h", RTR_CTF_ENUM_U8, labels, 2 },
		{ "i", RTR_CTF_ENUM_U32, labels, 2 }, { "j", RTR_CTF_S64, NULL, 0 },
	};
	struct tr_class cls = { .name = "t", .nfields = 10, .fields = f };
	struct tr_text t;

	cr_assert_eq(tr_text_init(&t, NULL, 64), 0);
	tr_text_fields(&t, &cls, rec, sizeof(rec));
	cr_expect_eq(t.len, strlen("a = 255, b = -2, c = 33332, d = -2130706433, e = 1.5, "
				   "f = \"h\\\"\", g = 0x78797a, h = busy (2), i = 7, j = -2"),
		     "%.*s", (int)t.len, t.buf);
	cr_expect_eq(memcmp(t.buf, "a = 255, b = -2, c = 33332, d = -2130706433, e = 1.5, "
			    "f = \"h\\\"\", g = 0x78797a, h = busy (2), i = 7, j = -2", t.len), 0,
		     "%.*s", (int)t.len, t.buf);
	tr_text_free(&t);
}
