/* SPDX-License-Identifier: MIT */
/*
 * reader/ctf_internal.h - between the TSDL parser (ctf_parse.c) and the
 * plan compiler (ctf_plan.c): the metadata as parsed, before its references
 * are resolved and its layouts compiled.  Not for the reader's users.
 */
#ifndef RTR_READER_CTF_INTERNAL_H
#define RTR_READER_CTF_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "reader/ctf_plan.h"

struct tr_arena;

void *tr_arena_alloc(struct tr_arena **a, size_t n);
char *tr_arena_strndup(struct tr_arena **a, const char *s, size_t n);
void tr_arena_free(struct tr_arena *a);

struct tr_ctf_pclock {
	const char *name;
	uint64_t freq;		/* 0: not given (1 GHz) */
	int64_t offset_s;
	int64_t offset;		/* cycles; may be negative */
	uint32_t line;
};

struct tr_ctf_pstream {
	uint64_t id;
	bool has_id;
	const struct tr_ctype *packet_context;
	const struct tr_ctype *event_header;
	const struct tr_ctype *event_context;
	uint32_t line;
};

struct tr_ctf_pevent {
	const char *name;
	uint64_t id;
	bool has_id;
	uint64_t stream_id;
	bool has_stream_id;
	int64_t loglevel;
	const struct tr_ctype *context;
	const struct tr_ctype *fields;
	uint32_t line;
};

/* The metadata as the text says it; everything in the arena. */
struct tr_ctf_parsed {
	bool have_trace;
	bool has_major, has_minor;	/* the trace block gave them (1 and 8) */
	uint32_t trace_line;		/* the trace block's, 0 if none */
	uint32_t packet_header_line;	/* its packet.header's */
	uint8_t order;		/* enum tr_order: the trace's */
	uint8_t uuid[16];
	bool has_uuid;
	const struct tr_ctype *packet_header;
	const char *hostname, *domain, *tracer, *procname;
	uint32_t vpid;
	bool has_vpid;
	uint64_t chunk_index;	/* env: a rotated trace's chunk (ringtrace's consumer) */
	struct tr_clock_quality clockq;	/* env: ringtrace's clock_* entries */
	struct tr_ctf_pclock *clocks;
	uint32_t nclocks;
	struct tr_ctf_pstream *streams;
	uint32_t nstreams;
	struct tr_ctf_pevent *events;
	uint32_t nevents;
	/* what the text has that is not read but does no harm: counted, the first said */
	uint32_t nwarnings;
	char warning[256];
};

/*
 * tr_ctf_parse_text() - parse the TSDL @text of @len bytes (@fname names it
 * in messages) into @o, allocating from @arena.
 * Return: 0, -EPROTO (@err: "FNAME: line N: what"), -ENOMEM.
 */
int tr_ctf_parse_text(struct tr_ctf_parsed *o, const char *text, size_t len, const char *fname,
		      struct tr_arena **arena, char *err, size_t errlen);

/*
 * tr_ctf_metadata_parsed() - @in, parsed from a general CTF trace's text
 * into @arena, compiled into @md, which then owns @arena (*@arena is NULL
 * after).  Return: as tr_parse_metadata().
 */
int tr_ctf_metadata_parsed(struct tr_metadata *md, const struct tr_ctf_parsed *in,
			   struct tr_arena **arena, const char *fname, char *err, size_t errlen);

#endif /* RTR_READER_CTF_INTERNAL_H */
