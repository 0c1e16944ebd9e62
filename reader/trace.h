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

/**
 * struct tr_fval - one field of a ringtrace event's payload, decoded
 * (tr_fval_next()).
 * @type: its enum rtr_ctf_type.
 * @u: an unsigned integer's or an enumeration's value (the bits of any
 *	fixed-size field).
 * @s: a signed integer's (@u sign-extended from the field's size).
 * @d: a double's (@u's bits).
 * @p, @n: where its bytes are and how many: a string's without its NUL, a
 *	byte sequence's after its length, a fixed-size field's all.
 */
struct tr_fval {
	uint32_t type;
	uint64_t u;
	int64_t s;
	double d;
	const uint8_t *p;
	uint32_t n;
};

/* What tr_fval_next() found wrong. */
enum tr_fval_err {
	TR_FVAL_OK,
	TR_FVAL_PAST,		/* a fixed-size field, or a sequence's length, past @end */
	TR_FVAL_NO_NUL,		/* a string without its NUL before @end */
	TR_FVAL_BYTES_PAST,	/* a byte sequence's bytes past @end */
};

/*
 * tr_fval_next() - the field of type @type (enum rtr_ctf_type) at *@pl, of
 * a payload that ends at @end, decoded into @v; *@pl moved past it.  The
 * tree's decoder of ringtrace's own payloads: the cursor's fast path of
 * ringtrace's profile (reader/cursor.c), the text of the viewer and the model's fields
 * (reader/text.c) and record --trigger's field tests (tools/trigger.c) read
 * them with it; dump's loop (tools/dump.c), which it would slow by a
 * tenth, decodes them inline after the cursor's check.  Every member of @v
 * is set, whatever the type.
 * Return: TR_FVAL_OK, or what is wrong (*@pl unmoved).
 */
static inline enum tr_fval_err tr_fval_next(uint32_t type, const uint8_t **pl,
					    const uint8_t *end, struct tr_fval *v)
{
	const uint8_t *p = *pl;
	size_t left = (size_t)(end - p);
	uint32_t size = type < RTR_CTF_NTYPES ? rtr_ctf_types[type].size : 0;

	v->type = type;
	v->p = p;
	v->u = 0;
	if (size) {
		if (left < size)
			return TR_FVAL_PAST;
		switch (size) {
		case 1:
			v->u = p[0];
			v->s = (int8_t)v->u;
			break;
		case 2:
			v->u = ld16(p);
			v->s = (int16_t)v->u;
			break;
		case 4:
			v->u = ld32(p);
			v->s = (int32_t)v->u;
			break;
		default:
			v->u = ld64(p);
			v->s = (int64_t)v->u;
			break;
		}
		memcpy(&v->d, &v->u, sizeof(v->d));
		v->n = size;
		*pl = p + size;
		return TR_FVAL_OK;
	}
	v->s = 0;
	v->d = 0;
	if (type == RTR_CTF_STRING) {
		const uint8_t *z = memchr(p, 0, left);

		if (!z)
			return TR_FVAL_NO_NUL;
		v->n = (uint32_t)(z - p);
		*pl = z + 1;
		return TR_FVAL_OK;
	}
	if (type != RTR_CTF_BYTES || left < 4)
		return TR_FVAL_PAST;
	v->n = ld32(p);
	if (left - 4 < v->n)
		return TR_FVAL_BYTES_PAST;
	v->p = p + 4;
	*pl = p + 4 + v->n;
	return TR_FVAL_OK;
}

#endif /* RTR_READER_TRACE_H */
