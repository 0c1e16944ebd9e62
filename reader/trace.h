/* SPDX-License-Identifier: MIT */
/*
 * reader/trace.h - one CTF trace directory written by ringtrace, opened:
 * its metadata parsed (reader/tsdl.h) and its stream files mapped read-only,
 * each a sequence of packets that a cursor (reader/cursor.h) walks.
 *
 * Every byte of every file is treated as hostile: a file may be truncated,
 * damaged or replaced while it is read, and nothing here trusts a size or
 * an offset it did not check.  A stream file is mapped whole; @size is what
 * may be read of it (less than the file for a trace being written, see
 * dump --follow), never more than @mapped.
 *
 * Layout: struct tr_trace owns its directory name, its metadata and its
 * streams (sorted by name in version order: stream_2 before stream_10);
 * tr_close() unmaps and frees them all.
 */
#ifndef RTR_READER_TRACE_H
#define RTR_READER_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <endian.h>
#include <stdint.h>
#include <string.h>
#include "reader/tsdl.h"

struct tr_stream {
	char *name;		/* file name in the trace directory */
	char *path;		/* directory/name, for messages */
	const uint8_t *data;	/* the whole file, mapped; NULL when empty */
	uint64_t size;		/* what is read: the file's, or less (dump --follow) */
	uint64_t mapped;	/* the mapping's length */
};

struct tr_trace {
	char *dir;
	struct tr_metadata md;
	struct tr_stream *streams;	/* sorted by name (version order) */
	uint32_t nstreams;
	bool lazy;			/* mapped without reading ahead (tr_open_lazy) */
};

/*
 * tr_open() - parse @dir's metadata and map its stream files (every regular
 * file whose name neither starts with '.' nor is "metadata").
 * Return: 0; or a negative errno with @err naming the file (and line) and
 * the problem: -ENOENT and the like from the file system, -EPROTO for
 * metadata that does not parse, -EFBIG for metadata too large, -ENOMEM.
 * @t then holds nothing.
 */
int tr_open(struct tr_trace *t, const char *dir, char *err, size_t errlen);
/*
 * tr_open_lazy() - the same, the files mapped without being read in first:
 * for a reader that reads only their ends, again and again (dump --follow).
 */
int tr_open_lazy(struct tr_trace *t, const char *dir, char *err, size_t errlen);
void tr_close(struct tr_trace *t);

/*
 * tr_traces_one_clock() - the @n traces @t, read merged as one (a directory
 * of several traces): their items' times on one clock.  When their clocks
 * differ (frequency or offset), every trace of another producer (general
 * CTF) gives its times in ns since the epoch instead of cycles (as
 * tr_metadata.ns_clocks); ringtrace's own traces keep their cycles (the
 * chunks of one rotated trace share their clock).
 */
void tr_traces_one_clock(struct tr_trace *t, uint32_t n);

/* Little-endian loads from trace bytes, at any alignment. */
static inline uint16_t ld16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return le16toh(v);
}

static inline uint32_t ld32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return le32toh(v);
}

static inline uint64_t ld64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return le64toh(v);
}

#endif /* RTR_READER_TRACE_H */
