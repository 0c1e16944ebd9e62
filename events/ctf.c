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

static const char *const type_names[] = {
	[RTR_CTF_U8] = "uint8_t",   [RTR_CTF_U16] = "uint16_t",
	[RTR_CTF_U32] = "uint32_t", [RTR_CTF_U64] = "uint64_t",
	[RTR_CTF_S8] = "int8_t",    [RTR_CTF_S16] = "int16_t",
	[RTR_CTF_S32] = "int32_t",  [RTR_CTF_S64] = "int64_t",
	[RTR_CTF_DOUBLE] = "double_t",
	[RTR_CTF_STRING] = "string",
	[RTR_CTF_ENUM_U8] = "uint8_t",
	[RTR_CTF_ENUM_U32] = "uint32_t",
	[RTR_CTF_BYTES] = "uint8_t",
};

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
		fprintf(f, "\t\tenum : %s {", type_names[fl->type]);
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
	fprintf(f, "\t\t%s _%s;\n", type_names[fl->type], fl->name);
}

static bool identifier(const char *s)
{
	if (!s || !*s || (*s >= '0' && *s <= '9'))
		return false;
	for (; *s; s++) {
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	}
	return true;
}

/* An event name: an identifier, or provider:name (two identifiers). */
static bool event_name_ok(const char *s)
{
	const char *colon = s ? strchr(s, ':') : NULL;
	char provider[64];

	if (!colon)
		return identifier(s);
	if ((size_t)(colon - s) >= sizeof(provider))
		return false;
	memcpy(provider, s, (size_t)(colon - s));
	provider[colon - s] = 0;
	return identifier(provider) && identifier(colon + 1);
}

static void uuid_str(char *out, const uint8_t *u)
{
	int o = 0;

	for (int i = 0; i < 16; i++) {
		o += sprintf(out + o, "%02x", u[i]);
		if (i == 3 || i == 5 || i == 7 || i == 9)
			out[o++] = '-';
	}
	out[o] = 0;
}

int rtr_ctf_write_metadata(FILE *f, const struct rtr_region_hdr *h, const char *hostname,
			   const struct rtr_ctf_event *ev, size_t n)
{
	char uuid[40], host[256], safe_host[256];
	int64_t off_s, off_ns;

	for (size_t i = 0; i < n; i++) {
		if (!event_name_ok(ev[i].name))
			return -EINVAL;
		for (uint32_t j = 0; j < ev[i].nfields; j++) {
			const struct rtr_ctf_field *fl = &ev[i].fields[j];

			if (!identifier(fl->name) || fl->type > RTR_CTF_BYTES)
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
	uuid_str(uuid, h->uuid);
	/* CTF: ns = offset_s * 1e9 + (offset + value) * 1e9 / freq */
	off_s = h->clock_offset_ns / 1000000000;
	off_ns = h->clock_offset_ns % 1000000000;
	if (off_ns < 0) {
		off_ns += 1000000000;
		off_s--;
	}

	fprintf(f, "/* CTF 1.8 */\n\n");
	fprintf(f, "typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
		   "typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"
		   "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
		   "typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
		   "typealias integer { size = 8; align = 8; signed = true; } := int8_t;\n"
		   "typealias integer { size = 16; align = 8; signed = true; } := int16_t;\n"
		   "typealias integer { size = 32; align = 8; signed = true; } := int32_t;\n"
		   "typealias integer { size = 64; align = 8; signed = true; } := int64_t;\n"
		   "typealias floating_point { exp_dig = 11; mant_dig = 53; align = 8; } := double_t;\n"
		   "typealias integer { size = 5; align = 1; signed = false; } := uint5_t;\n"
		   "typealias integer { size = 27; align = 1; signed = false; "
		   "map = clock.tsc.value; } := uint27_clock_t;\n"
		   "typealias integer { size = 64; align = 8; signed = false; "
		   "map = clock.tsc.value; } := uint64_clock_t;\n\n");
	fprintf(f, "trace {\n"
		   "\tmajor = 1;\n"
		   "\tminor = 8;\n"
		   "\tuuid = \"%s\";\n"
		   "\tbyte_order = le;\n"
		   "\tpacket.header := struct {\n"
		   "\t\tuint32_t magic;\n"
		   "\t\tuint8_t uuid[16];\n"
		   "\t\tuint32_t stream_id;\n"
		   "\t\tuint64_t stream_instance_id;\n"
		   "\t} align(8);\n"
		   "};\n\n", uuid);
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
		   "\tabsolute = false;\n"
		   "};\n\n", uuid,
		h->clock_freq == 1000000000 ? "CLOCK_MONOTONIC, ns" : "invariant TSC",
		h->clock_freq, off_s,
		(uint64_t)((unsigned __int128)off_ns * h->clock_freq / 1000000000u));
	fprintf(f, "stream {\n"
		   "\tid = 0;\n"
		   "\tpacket.context := struct {\n"
		   "\t\tuint64_clock_t timestamp_begin;\n"
		   "\t\tuint64_t packet_seq_num;\n"
		   "\t\tuint32_t cpu_id;\n"
		   "\t\tuint64_clock_t timestamp_end;\n"
		   "\t\tuint64_t content_size;\n"
		   "\t\tuint64_t packet_size;\n"
		   "\t\tuint64_t events_discarded;\n"
		   "\t} align(8);\n"
		   "\tevent.header := struct {\n"
		   "\t\tenum : uint5_t { compact = 0 ... 30, extended = 31 } id;\n"
		   "\t\tvariant <id> {\n"
		   "\t\t\tstruct { uint27_clock_t timestamp; } compact;\n"
		   "\t\t\tstruct { uint32_t id; uint64_clock_t timestamp; } extended;\n"
		   "\t\t} v;\n"
		   "\t} align(8);\n"
		   "};\n");
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
