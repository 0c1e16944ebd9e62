/* SPDX-License-Identifier: MIT */
/*
 * tools/trace_reader.h - read a CTF trace directory written by ringtrace:
 * the TSDL that events/ctf.c generates (that format only), and the stream
 * files through per-file cursors over packets and records.  Every byte of
 * every file is treated as hostile: each read is bounds-checked, and a
 * problem is reported with the file, the byte offset and what is wrong.
 */
#ifndef RTR_TOOLS_TRACE_READER_H
#define RTR_TOOLS_TRACE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <endian.h>
#include <stdint.h>
#include <string.h>

enum tr_type {
	TR_U8, TR_U16, TR_U32, TR_U64,
	TR_S8, TR_S16, TR_S32, TR_S64,
	TR_DOUBLE,
	TR_STRING,	/* NUL-terminated */
	TR_ENUM8,	/* uint8_t with labels */
	TR_ENUM32,	/* uint32_t with labels */
	TR_BYTES,	/* u32 length, then that many bytes */
};

struct tr_label {
	char *label;		/* unescaped, printable ASCII */
	uint32_t len;
	uint32_t value;
};

struct tr_field {
	char *name;		/* without CTF's leading underscore */
	enum tr_type type;
	struct tr_label *labels;	/* enums: sorted by value, first label of a value kept */
	uint32_t nlabels;
};

/* The label of @value in enum field @f (binary search), or NULL. */
const struct tr_label *tr_field_label(const struct tr_field *f, uint32_t value);

struct tr_class {
	char *name;
	uint32_t id;
	uint32_t nfields;
	struct tr_field *fields;
	bool fixed;		/* every field has a fixed size ... */
	uint32_t size;		/* ... and the payload takes this many bytes */
	uint32_t line;		/* metadata line of the event block */
};

struct tr_metadata {
	uint8_t uuid[16];
	char uuid_str[37];
	uint64_t freq;		/* clock cycles per second, never 0 */
	int64_t offset_s;
	uint64_t offset;	/* cycles */
	char *hostname;		/* "" when the env block has none */
	uint32_t vpid;
	bool has_vpid;
	uint64_t chunk_index;	/* env chunk_index: > 0 in a rotated trace's later chunks */
	struct tr_class *classes;	/* sorted by id */
	uint32_t nclasses;
	int32_t by_id[64];	/* index into classes for ids < 64, -1 if none */
};

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
 * Return: 0, or -1 with @err naming the file (and line) and the problem.
 */
int tr_open(struct tr_trace *t, const char *dir, char *err, size_t errlen);
/*
 * tr_open_lazy() - the same, the files mapped without being read in first:
 * for a reader that reads only their ends, again and again (dump --follow).
 */
int tr_open_lazy(struct tr_trace *t, const char *dir, char *err, size_t errlen);
void tr_close(struct tr_trace *t);

/* Parse metadata text; @fname only names it in @err.  Return: 0 or -1. */
int tr_parse_metadata(struct tr_metadata *md, const char *text, size_t len, const char *fname,
		      char *err, size_t errlen);
void tr_metadata_free(struct tr_metadata *md);

/* The event class with @id, or NULL. */
const struct tr_class *tr_class_find(const struct tr_metadata *md, uint32_t id);

enum tr_item {
	TR_ERROR = -1,		/* damage: c->err says where and what; sticky */
	TR_END = 0,		/* the file ended cleanly at a packet boundary */
	TR_EVENT,		/* c->cls, c->ts, c->payload, c->off */
	TR_LOST_PACKETS,	/* c->lost packets missing before this packet; c->ts its begin */
	TR_LOST_EVENTS,		/* events_discarded grew by c->lost; c->ts the packet's begin */
};

/*
 * struct tr_cursor - one stream file, read item by item: the losses a
 * packet reveals (before its records), then its records.  A packet's
 * header is checked when it is reached; a record is checked whole (every
 * field inside the packet) before it is returned, so a TR_EVENT's payload
 * can be walked with no further bounds checks.
 */
struct tr_cursor {
	const struct tr_metadata *md;
	const struct tr_stream *s;
	uint64_t pos;		/* file offset of the next record or packet */
	uint64_t pkt_off;	/* current packet: its offset, end offset */
	uint64_t pkt_end;
	uint64_t pkt_next;	/* where the next packet starts: after its padding */
	uint64_t ts_end;	/* its timestamp_end */
	uint64_t seq;		/* its packet_seq_num */
	uint64_t discarded;	/* its events_discarded */
	uint64_t cpu;		/* stream_instance_id of the file's first packet */
	bool started;		/* a packet has been read */
	uint64_t first_seq;	/* the first packet's packet_seq_num: packets lost before it */
	uint64_t pend_packets;	/* losses found at the packet start, not returned yet */
	uint64_t pend_events;

	/* the current item */
	uint64_t ts;		/* clock cycles */
	uint64_t off;		/* file offset of the record */
	uint64_t lost;
	const struct tr_class *cls;
	const uint8_t *payload;
	uint64_t len;		/* payload bytes */

	/* totals */
	uint64_t packets, events, events_lost, packets_lost;
	bool failed;
	char err[512];
};

void tr_cursor_init(struct tr_cursor *c, const struct tr_trace *t, uint32_t stream);
/*
 * tr_cursor_continue() - @c reads the next chunk of the stream @prev read
 * (rotation): its first packet must follow @prev's last, and a gap counts.
 */
void tr_cursor_continue(struct tr_cursor *c, const struct tr_cursor *prev);
/*
 * tr_cursor_resume() - @c, initialised on a stream file, goes on from where
 * @saved stopped in an earlier mapping of the same file (dump --follow).  The
 * file may have changed since: a position past its end fails the cursor, as
 * damage, instead of reading out of bounds.  Return: 0, or TR_ERROR.
 */
int tr_cursor_resume(struct tr_cursor *c, const struct tr_cursor *saved);
/* Move to the next item.  Return: enum tr_item. */
int tr_next(struct tr_cursor *c);

/*
 * struct tr_merge - all the streams of one trace, item by item in timestamp
 * order (a k-way merge over one cursor per stream file; ties go to the
 * stream that sorts first).  tr_merge_next() moves the stream it returned
 * last, so that stream's cursor (@c[stream]) holds the item until the next
 * call.
 */
struct tr_merge {
	struct tr_cursor *c;	/* one per stream file */
	int *item;		/* the item each stream's cursor is on */
	uint32_t *heap;		/* streams with an item, earliest first */
	uint32_t n;
	uint32_t nstreams;
	uint32_t primed;	/* streams read up to their first item */
	uint32_t advance;	/* the stream to move on the next call, or UINT32_MAX */
	const struct tr_trace *chunks;	/* the trace, or its chunks in order */
	uint32_t nchunks;
	uint32_t *chunk;	/* per stream: the chunk its cursor is in */
};

/* tr_merge_init() - merge @t's streams.  Return: 0, or -ENOMEM. */
int tr_merge_init(struct tr_merge *mg, const struct tr_trace *t);

/*
 * tr_merge_init_chunks() - merge the @nchunks chunks of one rotated trace,
 * in order, as one trace: the stream files of one name in every chunk are
 * one stream (a CPU), its cursor moving on to the next chunk that has the
 * file when one ends (tr_cursor_continue(): the sequence numbers must
 * follow, and a gap counts as packets lost).  A stream's cursor then counts
 * the whole stream (packets, events, losses), and @chunk[stream] says which
 * chunk its current item is in.  Streams are ordered by name, as tr_open()
 * orders one trace's files; a damaged stream ends at its damage.  The
 * chunks must stay open until tr_merge_free().  Return: 0, or -ENOMEM.
 */
int tr_merge_init_chunks(struct tr_merge *mg, const struct tr_trace *chunks, uint32_t nchunks);
void tr_merge_free(struct tr_merge *mg);

/*
 * tr_merge_next() - the next item of the trace, in *@stream's cursor.
 * Return: its enum tr_item; TR_ERROR when *@stream is damaged (its cursor's
 * err says where; the merge goes on without it); TR_END when every stream
 * has ended.
 */
int tr_merge_next(struct tr_merge *mg, uint32_t *stream);

/* Clock cycles to a time since the epoch: seconds (floor) and nanoseconds. */
struct tr_clock {
	uint64_t freq;
	int64_t offset_s;
	uint64_t offset;
	double scale;		/* 1e9 / freq */
	/* cache: the second that starts at @base (offset + cycles) */
	unsigned __int128 base;
	int64_t sec;
	bool valid;
	bool small;		/* freq * 1e9 fits in 64 bits */
};

void tr_clock_init(struct tr_clock *k, const struct tr_metadata *md);
void tr_clock_second(struct tr_clock *k, unsigned __int128 t);

/* ns = offset_s * 1e9 + (offset + cycles) * 1e9 / freq, exactly (floor). */
static inline void tr_clock_ns(struct tr_clock *k, uint64_t cycles, int64_t *sec, uint32_t *nsec)
{
	unsigned __int128 t = (unsigned __int128)k->offset + cycles;
	uint64_t rem, q;

	if (__builtin_expect(!k->valid || t < k->base || t - k->base >= k->freq, 0))
		tr_clock_second(k, t);
	rem = (uint64_t)(t - k->base);	/* < freq */
	if (k->freq == 1000000000u) {
		q = rem;
	} else if (k->small) {
		/* rem * 1e9 fits in 64 bits: estimate, then correct by one */
		uint64_t num = rem * 1000000000u;

		q = (uint64_t)((double)rem * k->scale);
		if (q > 999999999u)
			q = 999999999u;
		while (q && q * k->freq > num)
			q--;
		while (num - q * k->freq >= k->freq)
			q++;
	} else {
		unsigned __int128 num = (unsigned __int128)rem * 1000000000u;

		q = (uint64_t)((double)rem * k->scale);
		if (q > 999999999u)
			q = 999999999u;
		while (q && (unsigned __int128)q * k->freq > num)
			q--;
		while ((unsigned __int128)(q + 1) * k->freq <= num)
			q++;
	}
	*sec = k->sec;
	*nsec = (uint32_t)q;
}

/* The ringtrace subcommands: argv[0] is the command's name.  Exit status. */
int rtr_cmd_dump(int argc, char **argv);
int rtr_cmd_check(int argc, char **argv);

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

#endif /* RTR_TOOLS_TRACE_READER_H */
