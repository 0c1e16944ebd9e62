/* SPDX-License-Identifier: MIT */
/*
 * reader/index.h - the index beside a trace: each stream file's packets,
 * with where a cursor starts to read each, the times of its items and how
 * many events it holds.  A reader that wants a time range starts each
 * stream's cursor at the packet holding it (tr_merge_seek()) instead of
 * reading from the start; a tool that wants a trace's size in events or
 * its time span reads them here without decoding anything.
 *
 * It is built by reading every packet once (every record checked, as any
 * read does), kept in the trace directory as `.ringtrace-index` (a
 * hidden file: babeltrace2 and ringtrace's readers skip it), and reused:
 * a later open checks it and reads only what was added to the files since
 * (a recording in progress, a trace followed).  The file is input like
 * any trace file: its own checksum, the metadata's length and hash, each
 * stream file's inode and size, every offset and time in order and inside
 * its file, and the last packet it indexes read again and compared.  Any
 * mismatch rebuilds that stream's part (or all of it), never trusts it.
 * A directory it cannot write keeps the index in memory only.
 *
 * Entries: one per packet holding items (events or losses); the empty
 * packets before one are read with it, so that a cursor started there
 * checks their sequence numbers as a read from the start does.  A stream
 * whose read failed (damage, or a packet still being written at the end
 * of a recording) is indexed up to the last packet before the failure;
 * the rest is read again at each open.
 */
#ifndef RTR_READER_INDEX_H
#define RTR_READER_INDEX_H

#include <stdbool.h>
#include <stdint.h>
#include "reader/cursor.h"
#include "reader/trace.h"

/* The index's file, in the trace directory. */
#define TR_INDEX_FILE	".ringtrace-index"

/**
 * struct tr_index_entry - one packet with items (and the empty packets
 * just before it).
 * @start: the file offset where a cursor starts to read it.
 * @first_ts: @last_ts: its first and last items' times (struct
 *	tr_cursor.ts: the trace's clock).
 * @seq: @discarded: @ts_end: @clock: the cursor's state before it (the
 *	previous packet's packet_seq_num, events_discarded, timestamp_end and
 *	clock value): what a read from the start would have there.
 * @events: its events (TR_EVENT items but the ring's thread records).
 * @flags: enum tr_index_entry_flags.
 */
struct tr_index_entry {
	uint64_t start;
	uint64_t first_ts;
	uint64_t last_ts;
	uint64_t seq;
	uint64_t discarded;
	uint64_t ts_end;
	uint64_t clock;
	uint32_t events;
	uint32_t flags;
};

/*
 * enum tr_index_entry_flags - @TR_INDEX_FIRST: the file's first packet (a
 * cursor starts there as a new one).  @TR_INDEX_LOSS: its first item is a
 * loss, not an event (@first_ts is the loss's time).
 */
enum tr_index_entry_flags {
	TR_INDEX_FIRST = 1u << 0,
	TR_INDEX_LOSS = 1u << 1,
};

/**
 * struct tr_index_stream - one stream file's entries.
 * @name: the file's name (tr_stream.name).
 * @ino: @dev: the file's identity when it was indexed.
 * @done: the end of the last packet indexed (what a later open reads on from).
 * @events: the events of its entries.
 * @e: @n: the entries, in file order.
 * @cpu: @instance: @first_seq: @first_events: @sclass: @kernel:
 *	@has_instance: the cursor's state that its first packet sets and
 *	no later one changes (struct tr_cursor).
 * @failed: the read stopped at damage or at a packet not whole yet, at
 *	@done or after it.
 */
struct tr_index_stream {
	char *name;
	uint64_t ino, dev;
	uint64_t done;
	uint64_t events;
	struct tr_index_entry *e;
	uint32_t n, cap;
	uint64_t cpu, instance, first_seq, first_events;
	int32_t sclass;
	bool kernel, has_instance;
	bool failed;
};

/*
 * enum tr_index_how - how tr_index_open() got the index: read from its
 * file unchanged, read and then extended with what the files gained, or
 * built (none, stale or damaged; @why says which).
 */
enum tr_index_how {
	TR_INDEX_REUSED,
	TR_INDEX_EXTENDED,
	TR_INDEX_BUILT,
};

/**
 * struct tr_index - the index of one trace directory.
 * @s: @nstreams: per stream file, in tr_trace.streams' order.
 * @events: @packets: totals of the entries.
 * @first_ts: @last_ts: the earliest and latest item times (UINT64_MAX and
 *	0 when there is none).
 * @how: enum tr_index_how.  @saved: the file was written (or was up to
 *	date).  @why: when built, why (no index, which check failed); when
 *	not saved, why not.
 */
struct tr_index {
	struct tr_index_stream *s;
	uint32_t nstreams;
	uint64_t events, packets;
	uint64_t first_ts, last_ts;
	int how;
	bool saved;
	char why[512];
};

/*
 * tr_index_open() - the index of @t: read from the trace directory's file
 * and checked, extended with what the stream files gained since, or built;
 * then saved there (atomically: a new file renamed over the old) when it
 * changed and the directory can be written.  Streams are indexed on
 * several threads at once (at most one per CPU).
 * Return: 0 (@ix filled: tr_index_free()); or -ENOMEM.  Damage in the
 * trace is not an error here: a stream is indexed up to it (@failed).
 */
int tr_index_open(struct tr_index *ix, const struct tr_trace *t);

/* tr_index_free() - free @ix's memory; @ix is then empty. */
void tr_index_free(struct tr_index *ix);

/*
 * tr_index_find() - the first entry of @s that holds items at or after
 * @ts (its @last_ts >= @ts), or @s->n when none does.  O(log n).
 */
uint32_t tr_index_find(const struct tr_index_stream *s, uint64_t ts);

/*
 * tr_cursor_seek() - @c, just initialised on @s's file (tr_cursor_init()),
 * starts at entry @k: its next items are those a read from the start
 * would give from there, losses included.  Its totals count from there.
 */
void tr_cursor_seek(struct tr_cursor *c, const struct tr_index_stream *s, uint32_t k);

/*
 * tr_index_slice() - the indexes of the @n traces @t read merged as one
 * (a rotated trace's chunks; tr_traces_one_clock() applied), into @ix (@n
 * of them: tr_index_free() each), and the time range [@from_ns, @to_ns)
 * from their earliest item as their cursors' times [*@from, *@to)
 * (@to_ns UINT64_MAX: to the end).  Return: 0, or -ENOMEM.
 */
int tr_index_slice(const struct tr_trace *t, uint32_t n, struct tr_index *ix, uint64_t from_ns,
		   uint64_t to_ns, uint64_t *from, uint64_t *to);

struct tr_merge;

/*
 * tr_merge_seek() - before the first tr_merge_next(): start each stream of
 * @mg at the packet holding its first item at or after @ts (a time of
 * struct tr_cursor.ts), found in @ix, the indexes of @mg's chunks (one
 * each, in order; one whose @s is NULL has none).  The items before @ts in
 * that packet are still returned: the caller skips them.  A stream whose
 * files are not indexed up to @ts is read from its start.
 */
void tr_merge_seek(struct tr_merge *mg, const struct tr_index *ix, uint64_t ts);

#endif /* RTR_READER_INDEX_H */
