// SPDX-License-Identifier: MIT
/*
 * tests/format/test_format.c - the writer's metadata and the reader's
 * expectations come from one table (format/ctf.h): every fixed line of the
 * tables is in what events/metadata.c writes, in the table's order; the reader
 * (reader/tsdl.c) reads each field type back at the table's size; and the
 * reader refuses the written text with any one of those lines changed,
 * naming that line, so it holds a trace to each line of the table and to
 * no private copy.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include <ringtrace/region.h>
#include "events/metadata.h"
#include "format/classes.h"
#include "format/ctf.h"
#include "reader/ctf_plan.h"
#include "reader/tsdl.h"

TestSuite(format_ctf);

static const struct rtr_ctf_enum_entry kinds[] = { { "zero", 0 }, { "one", 1 }, { "two", 2 } };

/* One field of each type of the table. */
static struct rtr_ctf_field all_fields[RTR_CTF_NTYPES];
static const char *const field_names[RTR_CTF_NTYPES] = {
	"f_u8", "f_u16", "f_u32", "f_u64", "f_s8", "f_s16", "f_s32", "f_s64", "f_double",
	"f_string", "f_enum8", "f_enum32", "f_bytes",
};

/* The writer's text for a trace with one class holding a field of each type. */
static char *written(size_t *len)
{
	struct rtr_region_hdr h;
	struct rtr_ctf_event ev[2];
	char *text = NULL;
	FILE *f;

	cr_assert_eq(sizeof(field_names) / sizeof(field_names[0]), RTR_CTF_NTYPES);
	memset(&h, 0, sizeof(h));
	for (int i = 0; i < 16; i++)
		h.uuid[i] = (uint8_t)(0x11 * i);
	h.abi_major = RTR_REGION_ABI_MAJOR;
	h.mode = RTR_MODE_DISCARD;
	h.clock_freq = 1000000000;
	h.clock_offset_ns = 1700000000123456789LL;
	for (int t = 0; t < RTR_CTF_NTYPES; t++) {
		bool is_enum = t == RTR_CTF_ENUM_U8 || t == RTR_CTF_ENUM_U32;

		all_fields[t] = (struct rtr_ctf_field){ field_names[t], (enum rtr_ctf_type)t,
							is_enum ? kinds : NULL, is_enum ? 3 : 0 };
	}
	ev[0] = (struct rtr_ctf_event){ "every_type", 40, all_fields, RTR_CTF_NTYPES };
	ev[1] = *rtr_event_builtin(RTR_EV_THREAD);
	f = open_memstream(&text, len);
	cr_assert_not_null(f);
	cr_assert_eq(rtr_ctf_write_metadata(f, &h, "host", ev, 2), 0);
	cr_assert_eq(fclose(f), 0);
	return text;
}

/* The lines of @text, NUL-terminated in place; their count in *n. */
static char **lines_of(char *text, size_t *n)
{
	char **v = NULL;
	size_t cap = 0;

	*n = 0;
	for (char *s = text, *e; *s; s = e + 1) {
		e = strchr(s, '\n');
		cr_assert_not_null(e, "the text ends with a newline");
		*e = 0;
		if (*n == cap) {
			cap = cap ? 2 * cap : 64;
			v = realloc(v, cap * sizeof(*v));
			cr_assert_not_null(v);
		}
		v[(*n)++] = s;
	}
	return v;
}

/* The line index where @table begins, its lines consecutive; -1 if none. */
static long find_table(char **v, size_t n, const char *const *table)
{
	size_t k = 0;

	while (table[k])
		k++;
	for (size_t i = 0; i + k <= n; i++) {
		size_t j = 0;

		while (j < k && !strcmp(v[i + j], table[j]))
			j++;
		if (j == k)
			return (long)i;
	}
	return -1;
}

static const char *const *const tables[] = {
	rtr_ctf_typealiases, rtr_ctf_trace_fixed, rtr_ctf_packet_header, rtr_ctf_stream_block,
};
#define NTABLES (sizeof(tables) / sizeof(tables[0]))

Test(format_ctf, the_writer_prints_every_table_line_in_order)
{
	size_t len, n;
	char *text = written(&len), **v = lines_of(text, &n);
	long at[NTABLES];
	bool tracer = false, clock = false, mapped = false, event_lines[3] = { false };

	cr_assert_str_eq(v[0], RTR_CTF_SIGNATURE);
	for (size_t t = 0; t < NTABLES; t++) {
		at[t] = find_table(v, n, tables[t]);
		cr_assert_geq(at[t], 0, "table %zu (from '%s') is not in the written metadata", t,
			      tables[t][0]);
		if (t)
			cr_assert_gt(at[t], at[t - 1], "table %zu comes before table %zu", t, t - 1);
	}
	for (size_t i = 0; i < n; i++) {
		tracer |= !strcmp(v[i], RTR_CTF_TRACER_LINE);
		clock |= !strcmp(v[i], RTR_CTF_CLOCK_NAME_LINE);
		event_lines[0] |= !strcmp(v[i], RTR_CTF_EVENT_OPEN);
		event_lines[1] |= !strcmp(v[i], RTR_CTF_EVENT_STREAM);
		event_lines[2] |= !strcmp(v[i], RTR_CTF_EVENT_FIELDS);
		/* the typealiases map the timestamps onto the clock of that name */
		mapped |= strstr(v[i], "map = clock." RTR_CTF_CLOCK_NAME ".value;") != NULL;
	}
	cr_assert(tracer && clock, "the env's tracer line and the clock's name line are written");
	cr_assert(event_lines[0] && event_lines[1] && event_lines[2]);
	cr_assert(mapped);
	free(v);
	free(text);
}

Test(format_ctf, the_reader_reads_each_type_at_the_table_size)
{
	struct tr_metadata md;
	char err[512];
	size_t len;
	char *text = written(&len);
	const struct tr_class *c, *thread;
	uint32_t size = 0;
	bool fixed = true;

	cr_assert_eq(tr_parse_metadata(&md, text, len, "metadata", err, sizeof(err)), 0, "%s", err);
	cr_assert(md.own, "ringtrace's own metadata is read by its profile");
	cr_assert_not_null(md.ctf, "and compiled into the plans every trace is decoded with");
	c = tr_class_find(&md, 40);
	cr_assert_not_null(c);
	cr_assert_eq(tr_ctf_class(&md.ctf->streams[0], 40), c, "one class, in both indexes");
	cr_assert_not_null(c->payload);
	cr_assert_eq(c->payload->fixed, c->fixed, "the plan and the fields agree on the size");
	cr_assert_str_eq(c->name, "every_type");
	cr_assert_eq(c->nfields, RTR_CTF_NTYPES);
	for (uint32_t t = 0; t < RTR_CTF_NTYPES; t++) {
		cr_assert_str_eq(c->fields[t].name, field_names[t]);
		cr_assert_eq(c->fields[t].type, (enum rtr_ctf_type)t, "field %s", field_names[t]);
		size += rtr_ctf_types[t].size;
		fixed &= rtr_ctf_types[t].size != 0;
	}
	cr_assert_eq(c->fields[RTR_CTF_ENUM_U8].nlabels, 3);
	cr_assert_str_eq(c->fields[RTR_CTF_ENUM_U32].labels[2].label, "two");
	/* a string and a byte sequence: not fixed, so no size */
	cr_assert_not(fixed);
	cr_assert_eq(c->fixed, false);
	cr_assert_eq(c->size, 0);
	thread = md.thread;
	cr_assert_not_null(thread, "the built-in thread class is recognised by the schema");
	cr_assert(tr_class_is(thread, rtr_event_builtin(RTR_EV_THREAD)));
	cr_assert(thread->fixed);
	cr_assert_eq(thread->size, 2 * rtr_ctf_types[RTR_CTF_U32].size);
	cr_assert(thread->payload->fixed);
	cr_assert_eq(thread->payload->bytes, thread->size, "the plan's size is the fields'");
	cr_assert_eq(md.freq, 1000000000);
	cr_assert_eq(md.base_ns, 1700000000123456789LL);
	cr_assert_str_eq(md.uuid_str, "00112233-4455-6677-8899-aabbccddeeff");
	cr_assert_gt(size, 0);
	tr_metadata_free(&md);
	free(text);
}

/*
 * Each line of each table, changed by one character in the written text:
 * the reader refuses it and names that line.  A reader with its own copy
 * of a line that the table lost or changed would not.
 */
Test(format_ctf, the_reader_refuses_any_table_line_changed)
{
	size_t len, n, tried = 0;
	char *text = written(&len), **v = lines_of(text, &n);
	char *orig = malloc(len + 1);

	cr_assert_not_null(orig);
	/* lines_of() cut @text into lines: rebuild it to copy from */
	for (size_t i = 0, o = 0; i < n; i++) {
		size_t l = strlen(v[i]);

		memcpy(orig + o, v[i], l);
		orig[o + l] = '\n';
		o += l + 1;
	}
	orig[len] = 0;
	for (size_t t = 0; t < NTABLES; t++) {
		long at = find_table(v, n, tables[t]);

		cr_assert_geq(at, 0);
		for (size_t j = 0; tables[t][j]; j++) {
			size_t line = (size_t)at + j, off = (size_t)(v[line] - text);
			char *copy = strdup(orig), want[32], err[512];
			struct tr_metadata md;
			char *p;
			int r;

			cr_assert_not_null(copy);
			/* the line's first non-tab character, made another one */
			p = copy + off + strspn(copy + off, "\t");
			*p = *p == 'Q' ? 'R' : 'Q';
			r = tr_parse_metadata(&md, copy, len, "metadata", err, sizeof(err));
			cr_assert_eq(r, -EPROTO, "'%s' changed was read", tables[t][j]);
			snprintf(want, sizeof(want), ": line %zu: ", line + 1);
			cr_assert_not_null(strstr(err, want), "'%s' changed: %s", tables[t][j], err);
			free(copy);
			tried++;
		}
	}
	cr_assert_gt(tried, 30);
	free(orig);
	free(v);
	free(text);
}

/* @text with the first @from replaced by @to; the result is the caller's. */
static char *replaced(const char *text, const char *from, const char *to, size_t *len)
{
	const char *at = strstr(text, from);
	size_t fl = strlen(from), tl = strlen(to), n = strlen(text);
	char *out;

	cr_assert_not_null(at, "'%s' is in the written text", from);
	out = malloc(n - fl + tl + 1);
	cr_assert_not_null(out);
	memcpy(out, text, (size_t)(at - text));
	memcpy(out + (at - text), to, tl);
	strcpy(out + (at - text) + tl, at + fl);
	*len = strlen(out);
	return out;
}

/* ringtrace's text refused by its profile: @from replaced by @to, the message has @want. */
static void expect_refused(const char *from, const char *to, const char *want)
{
	size_t len, n;
	char *text = written(&len), *bad = replaced(text, from, to, &n), err[512];
	struct tr_metadata md;

	cr_assert_eq(tr_parse_metadata(&md, bad, n, "metadata", err, sizeof(err)), -EPROTO,
		     "'%s' for '%s' was read", to, from);
	cr_assert_not_null(strstr(err, want), "'%s' for '%s': %s", to, from, err);
	free(bad);
	free(text);
}

/*
 * The profile compares types, not spelling: what the one parser reads but
 * ringtrace does not write is refused, where general CTF would read it.
 */
Test(format_ctf, the_profile_refuses_what_the_writer_does_not_write)
{
	/* a field of a type no table entry has (the parser reads it) */
	expect_refused("uint16_t _f_u16;",
		       "integer { size = 16; align = 8; signed = false; base = 16; } _f_u16;",
		       "unknown field type of field 'f_u16'");
	/* the packet context with a field of another size */
	expect_refused("\t\tuint64_t packet_seq_num;", "\t\tuint32_t packet_seq_num;",
		       "the stream block: not the one ringtrace writes");
	/* the packet header with its fields in another order */
	expect_refused("\t\tuint32_t stream_id;\n\t\tuint64_t stream_instance_id;",
		       "\t\tuint64_t stream_instance_id;\n\t\tuint32_t stream_id;",
		       "packet.header: not the one ringtrace writes");
	/* an attribute the writer never writes: refused, not a warning */
	expect_refused("\tprecision = 1;", "\tprecision = 1;\n\tcolour = 3;",
		       "unknown attribute 'colour'");
	/* a second clock */
	expect_refused("stream {", "clock {\n\tname = \"other\";\n\tfreq = 1000;\n};\nstream {",
		       "the clock block: one clock");
	/* an event in another stream */
	expect_refused("\tid = 40;\n\tstream_id = 0;", "\tid = 40;\n\tstream_id = 1;",
		       "event 'every_type': expected 'stream_id = 0;'");
	/* a byte sequence not after its length */
	expect_refused("\t\tuint32_t _f_bytes_len;\n", "\t\tuint32_t _f_bytes_other;\n",
		       "a byte sequence must follow its length field");
	/* an enumeration label of a range */
	expect_refused("\"two\" = 2", "\"two\" = 2 ... 3", "bad enum value");
	/* a field added to the packet context */
	expect_refused("\t\tuint64_t packet_seq_num;", "\t\tuint64_t packet_seq_num;\n\t\tuint64_t x;",
		       "the stream block: not the one ringtrace writes");
}

Test(format_ctf, general_ctf_reads_what_the_profile_refuses)
{
	size_t len, n;
	char *text = written(&len), err[512];
	struct tr_metadata md;
	/* the same text by another tracer: general CTF, the unknown attribute a warning */
	char *other = replaced(text, RTR_CTF_TRACER_LINE, "\ttracer_name = \"other\";", &n);
	char *bad = replaced(other, "\tprecision = 1;", "\tprecision = 1;\n\tcolour = 3;", &n);

	cr_assert_eq(tr_parse_metadata(&md, bad, n, "metadata", err, sizeof(err)), 0, "%s", err);
	cr_assert_not_null(md.ctf, "read as general CTF");
	cr_assert(!md.own);
	cr_assert_eq(md.warnings, 1);
	cr_assert_not_null(strstr(md.warning, "unknown attribute 'colour'"), "%s", md.warning);
	tr_metadata_free(&md);
	free(bad);
	free(other);
	free(text);
}
