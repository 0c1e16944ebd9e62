// SPDX-License-Identifier: MIT
/*
 * events/ctf.c - TSDL for the trace: the packet header and context exactly
 * as struct rtr_packet_hdr lays them out (packed, byte-aligned), LTTng's
 * compact record header (5-bit id, 27-bit timestamp; id 31: a 32-bit id
 * from the next byte, and a 64-bit timestamp), the clock, and one event
 * block per class.  Every integer is byte-aligned because records are packed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>
#include "events/ctf.h"

const struct rtr_ctf_type_info rtr_ctf_types[RTR_CTF_NTYPES] = {
	[RTR_CTF_U8] = { "uint8_t", 1 },	[RTR_CTF_U16] = { "uint16_t", 2 },
	[RTR_CTF_U32] = { "uint32_t", 4 },	[RTR_CTF_U64] = { "uint64_t", 8 },
	[RTR_CTF_S8] = { "int8_t", 1 },		[RTR_CTF_S16] = { "int16_t", 2 },
	[RTR_CTF_S32] = { "int32_t", 4 },	[RTR_CTF_S64] = { "int64_t", 8 },
	[RTR_CTF_DOUBLE] = { "double_t", 8 },
	[RTR_CTF_STRING] = { "string", 0 },
	[RTR_CTF_ENUM_U8] = { "uint8_t", 1 },
	[RTR_CTF_ENUM_U32] = { "uint32_t", 4 },
	[RTR_CTF_BYTES] = { "uint8_t", 0 },
};

const char *const rtr_ctf_typealiases[] = {
	"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;",
	"typealias integer { size = 16; align = 8; signed = false; } := uint16_t;",
	"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;",
	"typealias integer { size = 64; align = 8; signed = false; } := uint64_t;",
	"typealias integer { size = 8; align = 8; signed = true; } := int8_t;",
	"typealias integer { size = 16; align = 8; signed = true; } := int16_t;",
	"typealias integer { size = 32; align = 8; signed = true; } := int32_t;",
	"typealias integer { size = 64; align = 8; signed = true; } := int64_t;",
	"typealias floating_point { exp_dig = 11; mant_dig = 53; align = 8; } := double_t;",
	"typealias integer { size = 5; align = 1; signed = false; } := uint5_t;",
	"typealias integer { size = 27; align = 1; signed = false; "
	"map = clock.tsc.value; } := uint27_clock_t;",
	"typealias integer { size = 64; align = 8; signed = false; "
	"map = clock.tsc.value; } := uint64_clock_t;",
	NULL,
};

/* struct rtr_packet_hdr's first fields, then its context's in the stream block. */
const char *const rtr_ctf_packet_header[] = {
	"\t\tuint32_t magic;",
	"\t\tuint8_t uuid[16];",
	"\t\tuint32_t stream_id;",
	"\t\tuint64_t stream_instance_id;",
	"\t} align(8);",
	NULL,
};

const char *const rtr_ctf_stream_block[] = {
	"\tid = 0;",
	"\tpacket.context := struct {",
	"\t\tuint64_clock_t timestamp_begin;",
	"\t\tuint64_t packet_seq_num;",
	"\t\tuint32_t cpu_id;",
	"\t\tuint64_clock_t timestamp_end;",
	"\t\tuint64_t content_size;",
	"\t\tuint64_t packet_size;",
	"\t\tuint64_t events_discarded;",
	"\t} align(8);",
	"\tevent.header := struct {",
	"\t\tenum : uint5_t { compact = 0 ... 30, extended = 31 } id;",
	"\t\tvariant <id> {",
	"\t\t\tstruct { uint27_clock_t timestamp; } compact;",
	"\t\t\tstruct { uint32_t id; uint64_clock_t timestamp; } extended;",
	"\t\t} v;",
	"\t} align(8);",
	"};",
	NULL,
};

/* Lines of a fixed part, each with its newline. */
static void put_lines(FILE *f, const char *const *lines)
{
	for (; *lines; lines++) {
		fputs(*lines, f);
		fputc('\n', f);
	}
}

/* An enum label as a TSDL string literal: quotes and backslashes escaped. */
static void put_label(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void put_field(FILE *f, const struct rtr_ctf_field *fl)
{
	if ((fl->type == RTR_CTF_ENUM_U8 || fl->type == RTR_CTF_ENUM_U32) && fl->nmap) {
		fprintf(f, "\t\tenum : %s {", rtr_ctf_types[fl->type].tsdl);
		for (uint32_t m = 0; m < fl->nmap; m++) {
			fputs(m ? ", " : " ", f);
			put_label(f, fl->map[m].label);
			fprintf(f, " = %" PRIu32, fl->map[m].value);
		}
		fprintf(f, " } _%s;\n", fl->name);
		return;
	}
	if (fl->type == RTR_CTF_BYTES) {
		fprintf(f, "\t\tuint32_t _%s_len;\n\t\tuint8_t _%s[_%s_len];\n", fl->name, fl->name,
			fl->name);
		return;
	}
	fprintf(f, "\t\t%s _%s;\n", rtr_ctf_types[fl->type].tsdl, fl->name);
}

void rtr_ctf_uuid_text(char out[37], const uint8_t u[16])
{
	static const char hex[] = "0123456789abcdef";
	int o = 0;

	for (int i = 0; i < 16; i++) {
		out[o++] = hex[u[i] >> 4];
		out[o++] = hex[u[i] & 15];
		if (i == 3 || i == 5 || i == 7 || i == 9)
			out[o++] = '-';
	}
	out[o] = 0;
}

int rtr_ctf_uuid_parse(const char *s, size_t n, bool lower, uint8_t u[16])
{
	static const char hex[] = "0123456789abcdef0123456789ABCDEF";
	size_t digits = lower ? 16 : 32;

	if (n != 36)
		return -1;
	for (size_t i = 0, k = 0; i < 36;) {
		const char *a, *b;

		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i++] != '-')
				return -1;
			continue;
		}
		a = s[i] ? memchr(hex, s[i], digits) : NULL;
		b = s[i + 1] ? memchr(hex, s[i + 1], digits) : NULL;
		if (!a || !b)
			return -1;
		u[k++] = (uint8_t)(((a - hex) % 16) << 4 | ((b - hex) % 16));
		i += 2;
	}
	return 0;
}

int rtr_ctf_write_metadata(FILE *f, const struct rtr_region_hdr *h, const char *hostname,
			   const struct rtr_ctf_event *ev, size_t n)
{
	char uuid[40], host[256], safe_host[256];
	int64_t off_s, off_ns;

	for (size_t i = 0; i < n; i++) {
		if (!rtr_ctf_event_name_ok(ev[i].name))
			return -EINVAL;
		for (uint32_t j = 0; j < ev[i].nfields; j++) {
			const struct rtr_ctf_field *fl = &ev[i].fields[j];

			if (!fl->name || !rtr_ctf_identifier(fl->name, strlen(fl->name)) ||
			    (unsigned)fl->type >= RTR_CTF_NTYPES)
				return -EINVAL;
			for (uint32_t m = 0; m < fl->nmap; m++) {
				for (const char *c = fl->map[m].label; *c; c++)
					if (*c < 0x20 || *c > 0x7e)
						return -EINVAL;
			}
		}
		for (size_t k = 0; k < i; k++) {
			if (ev[k].id == ev[i].id)
				return -EINVAL;
		}
	}
	if (!hostname) {
		if (gethostname(host, sizeof(host)))
			strcpy(host, "unknown");
		host[sizeof(host) - 1] = 0;
		hostname = host;
	}
	/* A TSDL string: printable, no quote or backslash to escape. */
	snprintf(safe_host, sizeof(safe_host), "%s", hostname);
	for (char *c = safe_host; *c; c++) {
		if (*c < 0x20 || *c > 0x7e || *c == '"' || *c == '\\')
			*c = '_';
	}
	rtr_ctf_uuid_text(uuid, h->uuid);
	/* CTF: ns = offset_s * 1e9 + (offset + value) * 1e9 / freq */
	off_s = h->clock_offset_ns / 1000000000;
	off_ns = h->clock_offset_ns % 1000000000;
	if (off_ns < 0) {
		off_ns += 1000000000;
		off_s--;
	}

	fprintf(f, "/* CTF 1.8 */\n\n");
	put_lines(f, rtr_ctf_typealiases);
	fprintf(f, "\ntrace {\n"
		   "\tmajor = 1;\n"
		   "\tminor = 8;\n"
		   "\tuuid = \"%s\";\n"
		   "\tbyte_order = le;\n"
		   "\tpacket.header := struct {\n", uuid);
	put_lines(f, rtr_ctf_packet_header);
	fprintf(f, "};\n\n");
	fprintf(f, "env {\n"
		   "\thostname = \"%s\";\n"
		   "\tdomain = \"ringtrace\";\n"
		   "\ttracer_name = \"ringtrace\";\n"
		   "\ttracer_major = 0;\n"
		   "\ttracer_minor = 1;\n"
		   "\tregion_abi_major = %u;\n"
		   "\tregion_abi_minor = %u;\n"
		   "\tmode = \"%s\";\n"
		   "\tvpid = %u;\n"
		   "};\n\n", safe_host, h->abi_major, h->abi_minor,
		h->mode == RTR_MODE_DISCARD ? "discard" : "overwrite", h->producer_pid);
	fprintf(f, "clock {\n"
		   "\tname = \"tsc\";\n"
		   "\tuuid = \"%s\";\n"
		   "\tdescription = \"%s\";\n"
		   "\tfreq = %" PRIu64 ";\n"
		   "\tprecision = 1;\n"
		   "\toffset_s = %" PRId64 ";\n"
		   "\toffset = %" PRIu64 ";\n"
		   "\tabsolute = true;\n"
		   "};\n\n", uuid,
		h->clock_freq == 1000000000 ? "CLOCK_MONOTONIC, ns" : "invariant TSC",
		h->clock_freq, off_s,
		(uint64_t)((unsigned __int128)off_ns * h->clock_freq / 1000000000u));
	fprintf(f, "stream {\n");
	put_lines(f, rtr_ctf_stream_block);
	return rtr_ctf_write_events(f, ev, n);
}

int rtr_ctf_write_events(FILE *f, const struct rtr_ctf_event *ev, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "\nevent {\n\tname = \"%s\";\n\tid = %" PRIu32 ";\n\tstream_id = 0;\n",
			ev[i].name, ev[i].id);
		fprintf(f, "\tfields := struct {\n");
		for (uint32_t j = 0; j < ev[i].nfields; j++)
			put_field(f, &ev[i].fields[j]);
		fprintf(f, "\t} align(8);\n};\n");
	}
	return ferror(f) ? -EIO : 0;
}
