// SPDX-License-Identifier: MIT
/*
 * format/ctf.c - the fixed parts of ringtrace's TSDL and the field types'
 * table (format/ctf.h): the packet header and context exactly as struct
 * rtr_packet_hdr lays them out (packed, byte-aligned), LTTng's compact
 * record header (5-bit id, 27-bit timestamp; id 31: a 32-bit id from the
 * next byte, and a 64-bit timestamp).  Every integer is byte-aligned
 * because records are packed.  Written by events/metadata.c, compared by
 * reader/tsdl.c.
 */
#include <stdbool.h>
#include <string.h>
#include "format/ctf.h"

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

const char *const rtr_ctf_trace_fixed[] = {
	"\tmajor = 1;",
	"\tminor = 8;",
	"\tbyte_order = le;",
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
