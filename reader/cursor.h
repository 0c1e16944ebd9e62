/* SPDX-License-Identifier: MIT */
/*
 * reader/cursor.h - one stream file of a trace, read item by item: the
 * losses a packet reveals (before its records), then its records.
 *
 * Checks: a packet's header is checked when it is reached (magic, uuid,
 * stream, cpu, sizes inside the file, sequence numbers and loss counters
 * that only grow, timestamps in order); a record is checked whole (its
 * header, its class, every field inside the packet) before it is returned,
 * so a TR_EVENT's payload can be walked with no further bounds checks.
 * The first problem fails the cursor for good (TR_ERROR, sticky): @err says
 * which file, at which byte offset, and what is wrong.  Losses are items,
 * not errors.
 *
 * One decoder.  Every trace's metadata is compiled into plans
 * (reader/ctf_plan.h): the packet header and context are walked through
 * them, and so is a record, unless a fast path takes it whole:
 * ringtrace's own profile (md->own: the compact or extended header read
 * as words, a fixed-size class checked by one comparison) or LTTng's
 * event headers.  A fast path makes every check the walk makes and hands
 * anything else, damage included, to the walk, which says what is wrong.
 * The same checks where the trace has the fields (magic, uuid, stream
 * class, sizes, sequence numbers, loss counters, timestamps), every field
 * inside the packet's content; ringtrace's own traces also as strictly as
 * their writer writes them (a repeated sequence number, a count going
 * down, a time outside its packet: damage, where another producer's is a
 * quirk).  The record's parts are at @sctx_bit, @ctx_bit and @pl_bit for
 * a printer (reader/text.h).
 *
 * Cost: a record of a fixed-size class costs one bounds check; the packet
 * checks are paid once a packet.  No allocation, no system call.
 */
#ifndef RTR_READER_CURSOR_H
#define RTR_READER_CURSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "reader/trace.h"

enum tr_item {
	TR_ERROR = -1,		/* damage: c->err says where and what; sticky */
	TR_END = 0,		/* the file ended cleanly at a packet boundary */
	TR_EVENT,		/* c->cls, c->ts, c->payload, c->off */
	TR_LOST_PACKETS,	/* c->lost packets missing before this packet; c->ts its begin */
	TR_LOST_EVENTS,		/* events_discarded grew by c->lost; c->ts the packet's begin */
};

/**
 * struct tr_cursor - the position in one stream file, and the item there.
 * @pos: file offset of the next record or packet.
 * @cpu: stream_instance_id of the file's first packet.
 * @first_seq: the first packet's packet_seq_num: packets lost before it;
 *	@first_events: the events it says were lost before it.
 * @ts: @off: @lost: @cls: @payload: @len: the current item (enum tr_item
 *	says which are valid): its time in clock cycles, the record's file
 *	offset, the losses, the class and its payload of @len bytes.
 * @packets: @events: @events_lost: @packets_lost: totals so far (of the
 *	whole stream when a merge chains its chunks).  @threads: of @events,
 *	the thread records (the ring's, not the program's events).
 * @dips: @dip_off: in another producer's trace, the packets whose
 *	events_discarded went down (counted as no loss), the first one's offset.
 * @quirks: @quirk: in another producer's trace, the timestamps known
 *	producers get wrong (Documentation/ctf.rst): each a warning, the read
 *	going on; @quirk says the first ("FILE: offset N: what").
 * @failed: @err: the damage, once found.
 *
 * Everything before @err is the cursor's state: copying that much copies
 * the position (dump --follow keeps cursors from turn to turn).
 */
struct tr_cursor {
	const struct tr_metadata *md;
	const struct tr_stream *s;
	uint64_t pos;
	uint64_t pkt_off;	/* current packet: its offset, end offset */
	uint64_t pkt_end;
	uint64_t pkt_next;	/* where the next packet starts: after its padding */
	uint64_t ts_end;	/* its timestamp_end */
	uint64_t seq;		/* its packet_seq_num */
	uint64_t discarded;	/* its events_discarded */
	uint64_t cpu;
	bool kernel;		/* the kernel's records (record --sched): stream_instance_id
				 * is RTR_KSTREAM_BASE + @cpu (events/classes.h) */
	bool started;		/* a packet has been read */
	uint64_t first_seq;
	uint64_t first_events;
	uint64_t pend_packets;	/* losses found at the packet start, not returned yet */
	uint64_t pend_events;

	/* the current item */
	uint64_t ts;
	uint64_t off;
	uint64_t lost;
	const struct tr_class *cls;
	const uint8_t *payload;
	uint64_t len;

	/* the record's parts, in bits from the packet's start */
	int32_t sclass;		/* the file's stream class (index), -1 before its first packet */
	uint64_t bit;		/* the next record (in ringtrace's own traces, @pos alone is kept) */
	uint64_t clock;		/* the stream's clock, in its cycles */
	uint64_t sctx_bit;	/* the stream's event context */
	uint64_t ctx_bit;	/* the class's context */
	uint64_t pl_bit;	/* the payload */
	uint64_t end_bit;	/* the record's end */
	uint64_t content_bits;	/* the packet's content_size: it may end inside a byte */
	/*
	 * the thread and process of the record: its event contexts' (LTTng's
	 * vtid, vpid), or in a ringtrace trace the packet's latest thread record
	 * (none before the packet's first)
	 */
	bool has_tid, has_pid;
	uint64_t tid, pid;
	const char *procname;	/* in the mapping, NULL when none: at most ... */
	size_t procname_max;	/* ... this many bytes, up to a NUL */

	/* totals */
	uint64_t packets, events, events_lost, packets_lost, threads;
	uint64_t dips, dip_off;	/* general CTF: events_discarded went down, first where */
	/*
	 * general CTF: timestamps a producer is known to get wrong, read on
	 * (an event before its packet's timestamp_begin, after its
	 * timestamp_end, a timestamp_end of 0); the first one said in @quirk
	 */
	uint64_t quirks;
	uint64_t body_bit;	/* where the current packet's records start */
	/* general CTF: the first packet's stream_instance_id, when its header has one */
	bool has_instance;
	uint64_t instance;
	char quirk[256];
	bool failed;
	char err[512];
};

/* A cursor's state without its message: what tr_next() moves. */
#define TR_CURSOR_STATE offsetof(struct tr_cursor, err)

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
 * tr_cursor_fast_paths() - for tests: with @on false, every record is read
 * through the plans' walk, none by a fast path.  The items, their contents
 * and the messages must be the same either way (tests/tools/
 * test_dump_check.c holds the cursor to it on mutated traces); only the time
 * differs.  Process-wide; on by default.
 */
void tr_cursor_fast_paths(bool on);

#endif /* RTR_READER_CURSOR_H */
