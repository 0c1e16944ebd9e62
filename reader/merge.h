/* SPDX-License-Identifier: MIT */
/*
 * reader/merge.h - the streams of one trace, item by item in time order: a
 * k-way merge over one cursor per stream (reader/cursor.h).  The one merge
 * of the read side: dump, the model (stats, export, view) and anything else
 * that reads a trace in time order go through it, so they all see the same
 * order.
 *
 * Order: by timestamp; ties go to the stream whose name sorts first
 * (strverscmp: stream_2 before stream_10), whatever chunk it is in.
 *
 * Chunks: the chunks of one rotated trace are merged as one trace, and so
 * are the traces of a directory that holds several (LTTng's domains, a
 * rotated session's archives).  A stream may lie in several files
 * (tr_stream_files(): ringtrace's files of one name in a rotated trace's
 * chunks; another producer's files of one stream_instance_id): when one
 * ends, its cursor goes on in the next (tr_cursor_continue(): the sequence
 * numbers must follow; a gap counts as packets lost), and its totals count
 * the whole stream.
 *
 * Following a trace being written (dump --follow): a merge may stop at a
 * clock value (tr_merge_set_limit()): the items after it stay where they
 * are.  tr_merge_save() keeps where each stream stopped, by name, in a
 * struct tr_merge_pos that outlives the trace's mappings; a later merge over
 * the chunks as they are then goes on from there (tr_merge_resume()),
 * reading nothing twice and checking the sequence numbers across.
 *
 * Damage: a damaged stream returns TR_ERROR once (its cursor's err says
 * where and what); the merge goes on without it.
 *
 * Cost: one cursor step and one sift of a binary heap of the streams per
 * item; no allocation after tr_merge_init_chunks().
 */
#ifndef RTR_READER_MERGE_H
#define RTR_READER_MERGE_H

#include <stdbool.h>
#include <stdint.h>
#include "reader/cursor.h"
#include "reader/trace.h"

/**
 * struct tr_merge - a merge in progress.
 * @c: one cursor per stream, @nstreams of them, in name order.
 *	tr_merge_next() moves the stream it returned last, so that stream's
 *	cursor holds its item until the next call.
 * @chunk: per stream, the index of the chunk its cursor is in.
 * @chunks: the trace, or its chunks in order; @nchunks of them.
 * private: the rest.
 */
struct tr_merge {
	struct tr_cursor *c;
	uint32_t nstreams;
	uint32_t *chunk;
	const struct tr_trace *chunks;
	uint32_t nchunks;
	/* private: */
	int *item;		/* the item each stream's cursor is on */
	uint32_t *heap;		/* streams with an item, earliest first */
	uint32_t n;
	uint32_t primed;	/* streams read up to their first item */
	uint32_t moved;		/* the stream to move on the next call, or UINT32_MAX */
	uint32_t advance;	/* the same, when the inline path may move it */
	uint8_t *flags;		/* per stream: TR_MERGE_* below */
	uint64_t limit;
	struct tr_stream_files *files;	/* per stream: its files (tr_stream_files()) */
	uint32_t *at;		/* per stream: the index in its files of its cursor's */
};

/**
 * struct tr_stream_files - one stream of a set of traces: its files, read
 * one after the other (tr_cursor_continue()), @n of them in @f, each a
 * file @file of trace @trace.
 */
struct tr_stream_files {
	uint32_t n;
	struct tr_file_ref {
		uint32_t trace, file;
	} *f;
};

/*
 * tr_stream_files() - the streams of the @ntraces traces @t.  Ringtrace's
 * own traces: a stream is the files of one name in traces of one UUID, in
 * the traces' order (a rotated trace's chunks).  Another producer's (general CTF): a stream is
 * the files whose first packets have the same stream class and
 * stream_instance_id in traces of the same UUID (LTTng's --tracefile-size
 * files, a rotated session's archives), in the order of their first
 * times, as babeltrace2 groups them; a file without a stream_instance_id
 * (or whose first packet is damaged) is a stream of its own.  Streams are
 * in the order of their first files' names (strverscmp), then traces.
 * Return: 0 with *@out (tr_stream_files_free()) and *@n; or -ENOMEM.
 */
int tr_stream_files(const struct tr_trace *t, uint32_t ntraces, struct tr_stream_files **out,
		    uint32_t *n);
void tr_stream_files_free(struct tr_stream_files *sf, uint32_t n);

/*
 * tr_stream_next_file() - @c reads the stream @prev read on in @t's file
 * @file (the stream's next file): its first packet must follow @prev's last
 * (tr_cursor_continue()), and its totals go on from @prev's.
 */
void tr_stream_next_file(struct tr_cursor *c, const struct tr_trace *t, uint32_t file,
			 const struct tr_cursor *prev);

/* tr_merge_init() - merge @t's streams.  Return: 0, or -ENOMEM. */
int tr_merge_init(struct tr_merge *mg, const struct tr_trace *t);

/*
 * tr_merge_init_chunks() - merge the @nchunks chunks of one rotated trace,
 * in order, as one trace (see the top of this file).  The chunks must stay
 * open until tr_merge_free().  Return: 0, or -ENOMEM.
 */
int tr_merge_init_chunks(struct tr_merge *mg, const struct tr_trace *chunks, uint32_t nchunks);
void tr_merge_free(struct tr_merge *mg);

/*
 * tr_merge_set_limit() - before the first tr_merge_next(): an item later
 * than @limit (clock cycles) ends its stream for this merge, its cursor left
 * before it, for a later merge to resume from.  UINT64_MAX: no limit.
 */
void tr_merge_set_limit(struct tr_merge *mg, uint64_t limit);

/* private: the slow halves of tr_merge_next(), and the heap's sift. */
int tr_merge__next_slow(struct tr_merge *mg, uint32_t *stream);
int tr_merge__next_end(struct tr_merge *mg, uint32_t *stream, int r);

static inline bool tr_merge__before(const struct tr_merge *mg, uint32_t a, uint32_t b)
{
	uint64_t ta = mg->c[a].ts, tb = mg->c[b].ts;

	return ta < tb || (ta == tb && a < b);
}

static inline void tr_merge__sift_down(struct tr_merge *mg, uint32_t i)
{
	uint32_t *heap = mg->heap, n = mg->n;

	for (;;) {
		uint32_t l = 2 * i + 1, m = i, x;

		if (l < n && tr_merge__before(mg, heap[l], heap[m]))
			m = l;
		if (l + 1 < n && tr_merge__before(mg, heap[l + 1], heap[m]))
			m = l + 1;
		if (m == i)
			return;
		x = heap[i];
		heap[i] = heap[m];
		heap[m] = x;
		i = m;
	}
}

static inline void tr_merge__sift(struct tr_merge *mg)
{
	tr_merge__sift_down(mg, 0);
}

/*
 * tr_merge_next() - the next item of the trace, in *@stream's cursor.
 * Return: its enum tr_item; TR_ERROR when *@stream is damaged (its cursor's
 * err says where; the merge goes on without it); TR_END when every stream
 * has ended (or reached the limit).
 *
 * The fast path, inline: the stream returned last moves one item within
 * its file and goes back into the heap (@item is up to date for the streams
 * in the heap but the top one).  The start, the end of a file, a limit and
 * damage take the slow path.
 */
static inline int tr_merge_next(struct tr_merge *mg, uint32_t *stream)
{
	uint32_t s = mg->advance;
	int r;

	if (__builtin_expect(s == UINT32_MAX, 0))
		return tr_merge__next_slow(mg, stream);
	r = tr_next(&mg->c[s]);
	if (__builtin_expect(r <= 0, 0))
		return tr_merge__next_end(mg, stream, r);
	if (mg->n > 1) {
		mg->item[s] = r;
		tr_merge__sift(mg);
		s = mg->moved = mg->advance = mg->heap[0];
		r = mg->item[s];
	}
	*stream = s;
	return r;
}

/**
 * struct tr_merge_pos - where the streams of a merge stopped, by name, for
 * a later merge over the same trace as it has grown (dump --follow).
 * @n: streams known, each with @name (its file's), @chunk (the name of the
 *	directory its cursor is in), @c (the cursor, its message too: its
 *	pointers are stale, only its state is used), @ended (it read that
 *	file to its end, not stopped at a limit).
 * Streams a later merge does not see keep their entry.
 */
struct tr_merge_pos {
	uint32_t n;
	struct tr_merge_pos_stream {
		char *name;
		char *chunk;
		struct tr_cursor c;
		bool ended;
	} *s;
};

/*
 * tr_merge_save() - record in @pos where each stream of @mg stopped.
 * @growing: the last chunk is being written: its files' ends are not their
 *	ends (a stream that reached one will read it again).
 * Return: 0, or -ENOMEM (@pos is then as before).
 */
int tr_merge_save(const struct tr_merge *mg, struct tr_merge_pos *pos, bool growing);

/*
 * tr_merge_resume() - before the first tr_merge_next(): each stream of @mg
 * that @pos knows goes on from there.  A stream whose cursor is in a chunk
 * of @mg takes it up where it stopped; the file must not have shrunk (else
 * the stream's first item is TR_ERROR).  A stream whose chunk is before
 * @mg's chunks (or removed) continues in its next file, the sequence
 * numbers checked across.  A stream damaged before is not read again, and
 * its damage not returned again.
 */
void tr_merge_resume(struct tr_merge *mg, const struct tr_merge_pos *pos);

/*
 * tr_merge_pos_first() - of the trace directories @dirs (a rotated trace's
 * chunks, sorted by name, as reader/input.h lists them; @now the one being
 * written), the first a merge resuming from @pos must read: the chunk of
 * each stream's cursor, or the next one if it read its file there to the
 * end.  0 when @pos is empty.
 */
uint32_t tr_merge_pos_first(const struct tr_merge_pos *pos, char *const *dirs, uint32_t ndirs,
			    uint32_t now);

/* tr_merge_pos_lost() - the losses of every stream @pos knows, whole streams. */
void tr_merge_pos_lost(const struct tr_merge_pos *pos, uint64_t *events, uint64_t *packets);

void tr_merge_pos_free(struct tr_merge_pos *pos);

#endif /* RTR_READER_MERGE_H */
