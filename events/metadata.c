// SPDX-License-Identifier: MIT
/*
 * events/metadata.c - TSDL for a trace: the fixed parts format/ctf.h holds (the
 * typealiases, the packet header and context, the event header, the trace
 * block's fixed lines), then the trace's own values (uuid, env, clock) and
 * one event block per class.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>
#include "events/metadata.h"

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

	fprintf(f, "%s\n\n", RTR_CTF_SIGNATURE);
	put_lines(f, rtr_ctf_typealiases);
	fprintf(f, "\ntrace {\n");
	put_lines(f, rtr_ctf_trace_fixed);
	fprintf(f, "\tuuid = \"%s\";\n"
		   "\tpacket.header := struct {\n", uuid);
	put_lines(f, rtr_ctf_packet_header);
	fprintf(f, "%s\n\n", RTR_CTF_BLOCK_END);
	fprintf(f, "env {\n"
		   "\thostname = \"%s\";\n"
		   "\tdomain = \"ringtrace\";\n"
		   "%s\n"
		   "\ttracer_major = 0;\n"
		   "\ttracer_minor = 1;\n"
		   "\tregion_abi_major = %u;\n"
		   "\tregion_abi_minor = %u;\n"
		   "\tmode = \"%s\";\n"
		   "\tvpid = %u;\n", safe_host, RTR_CTF_TRACER_LINE, h->abi_major, h->abi_minor,
		h->mode == RTR_MODE_DISCARD ? "discard" : "overwrite", h->producer_pid);
	/*
	 * How well the clock is known (region.h, ABI 1.3; Documentation/
	 * network.rst, "Many hosts on one axis"): numbers and a word, whatever
	 * the producer wrote, so nothing a reader must escape.
	 */
	if (h->abi_minor >= 3 && h->clock_window_ns)
		fprintf(f, "\tclock_offset_window_ns = %u;\n"
			   "\tclock_freq_error_ppb = %u;\n"
			   "\tclock_sync = \"%s\";\n"
			   "\tclock_esterror_us = %u;\n"
			   "\tclock_maxerror_us = %u;\n", h->clock_window_ns, h->clock_freq_ppb,
			h->clock_sync == RTR_CLOCK_SYNC_YES ? "synchronized" :
			h->clock_sync == RTR_CLOCK_SYNC_NO ? "unsynchronized" : "unknown",
			h->clock_esterror_us, h->clock_maxerror_us);
	fprintf(f, "};\n\n");
	fprintf(f, "clock {\n"
		   "%s\n"
		   "\tuuid = \"%s\";\n"
		   "\tdescription = \"%s\";\n"
		   "\tfreq = %" PRIu64 ";\n"
		   "\tprecision = 1;\n"
		   "\toffset_s = %" PRId64 ";\n"
		   "\toffset = %" PRIu64 ";\n"
		   "\tabsolute = true;\n"
		   "};\n\n", RTR_CTF_CLOCK_NAME_LINE, uuid, RTR_CTF_CLOCK_DESC(h->clock_freq),
		h->clock_freq, off_s,
		(uint64_t)((unsigned __int128)off_ns * h->clock_freq / 1000000000u));
	fprintf(f, "stream {\n");
	put_lines(f, rtr_ctf_stream_block);
	return rtr_ctf_write_events(f, ev, n);
}

int rtr_ctf_write_events(FILE *f, const struct rtr_ctf_event *ev, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "\n%s\n\tname = \"%s\";\n\tid = %" PRIu32 ";\n%s\n%s\n",
			RTR_CTF_EVENT_OPEN, ev[i].name, ev[i].id, RTR_CTF_EVENT_STREAM,
			RTR_CTF_EVENT_FIELDS);
		for (uint32_t j = 0; j < ev[i].nfields; j++)
			put_field(f, &ev[i].fields[j]);
		fprintf(f, "%s\n%s\n", RTR_CTF_EVENT_FIELDS_END, RTR_CTF_BLOCK_END);
	}
	return ferror(f) ? -EIO : 0;
}
