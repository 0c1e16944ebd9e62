/* SPDX-License-Identifier: MIT */
/*
 * consumer/qfile.h - the write-behind queue's file (REGION.queue): its
 * layout, written by the queue (queue.c) as it works, and read back by
 * `ringtrace recover` after the recorder died (qfile.c).  Documentation/
 * consumer.rst, "What survives what".
 *
 * The queue's arena is a shared mapping of this file, so a packet copied
 * out of the ring is in the file before its ring slot goes back to the
 * writers: the kernel keeps the file when the recorder is killed.  A
 * descriptor per 4 KiB block of the arena says which packet starts there
 * and how far it got:
 *
 *     QUEUED   copied in, its ring slot given back; not placed in a file
 *     PLACED   given its place in a stream file (or being written to the
 *              pipe); the write may be in flight, done in part, or done
 *     ALMOST   (a pipe) all of its frame but the last byte written: whether
 *              that byte went too, when the recorder died, cannot be known
 *     DONE     written whole
 *     FREE     no packet starts here (or it was freed once written)
 *
 * Each store of a state is a release store, after what it describes; a
 * reader of a dead recorder's file sees a state and everything before it.
 *
 * Layout, host byte order (the file never leaves the machine), offsets
 * from the start:
 *
 *     0                  struct rtr_qfile_hdr (one 4 KiB block)
 *     RTR_QFILE_HDR      @nslots struct rtr_qfile_slot, slot i for the
 *                        packet starting at arena byte i * 4096
 *     @arena_off         the arena, @cap bytes, 4 KiB aligned
 *
 * The file is as untrusted as a region: recover checks every field.
 */
#ifndef RTR_CONSUMER_QFILE_H
#define RTR_CONSUMER_QFILE_H

#include <stdint.h>
#include <sys/types.h>
#include "consumer/output.h"

#define RTR_QFILE_MAGIC		"RTRQUEUE"
#define RTR_QFILE_VERSION	1u
#define RTR_QFILE_HDR		4096u
#define RTR_QFILE_BLOCK		4096u

enum rtr_qslot_state {
	RTR_QSLOT_FREE = 0,
	RTR_QSLOT_QUEUED = 1,
	RTR_QSLOT_PLACED = 2,
	RTR_QSLOT_DONE = 3,
	RTR_QSLOT_ALMOST = 4,	/* a pipe's: all of its frame but the last byte written */
};

/* @state of the header */
enum rtr_qfile_state {
	RTR_QFILE_WRITING = 1,	/* the recorder works (or died working) */
	RTR_QFILE_FAILED = 2,	/* the output failed: nothing after the first
				 * packet not DONE of a stream is on disk */
};

struct rtr_qfile_hdr {
	char magic[8];		/* RTR_QFILE_MAGIC, stored last at creation */
	uint32_t version;
	uint32_t state;		/* enum rtr_qfile_state */
	uint64_t cap;		/* arena bytes, a multiple of 4096 */
	uint64_t nslots;	/* @cap / 4096 */
	uint64_t arena_off;
	int32_t pid;		/* the recorder */
	uint32_t stream;	/* 0: a directory; 1: a framed stream (a pipe);
				 * 2: an lttng-relayd: no file to cut */
	char chunk[64];		/* the chunk being written ("." without rotation) */
	char path[3984];	/* the trace directory, absolute; "" for a stream */
};

struct rtr_qfile_slot {
	uint32_t state;		/* enum rtr_qslot_state */
	uint32_t cpu;
	uint64_t order;		/* 1, 2, ...: the queue's order of packets */
	uint64_t size;		/* the packet's bytes */
	uint64_t room;		/* arena bytes it takes (whole blocks) */
	uint64_t off;		/* PLACED in a file: its offset in the stream file */
	uint64_t ondisk;	/* PLACED in a file: the bytes it takes there */
	uint64_t pad[2];
};

_Static_assert(sizeof(struct rtr_qfile_hdr) == RTR_QFILE_HDR, "one block");
_Static_assert(sizeof(struct rtr_qfile_slot) == 64, "64 bytes a slot");

/* Where the arena of a @cap-byte queue starts in its file. */
static inline uint64_t rtr_qfile_arena_off(uint64_t cap)
{
	uint64_t slots = cap / RTR_QFILE_BLOCK * sizeof(struct rtr_qfile_slot);

	return RTR_QFILE_HDR + ((slots + RTR_QFILE_BLOCK - 1) & ~(uint64_t)(RTR_QFILE_BLOCK - 1));
}

struct rtr_session;

/**
 * struct rtr_qfile_report - what recovery took from a dead recorder's queue.
 * @found: there was a queue file.  @packets, @bytes: packets put into the
 * new trace.  @on_disk: packets the file says are in the recorder's trace
 * already (left there).  @cut: stream files of that trace cut back to a
 * packet boundary (their tail moved into the new trace).  @maybe_twice:
 * packets that were being written to a pipe when the recorder died: in
 * the new trace, and perhaps whole at the end of the stream as well.
 * @first, @last: per CPU (up to @ncpus), the sequence numbers taken (last
 * < first: none).
 */
struct rtr_qfile_report {
	bool found;
	uint64_t packets, bytes, on_disk, cut, maybe_twice;
	uint32_t ncpus;
	uint64_t *first, *last;
	char path[4000];	/* the recorder's trace directory, or "" */
	char warn[600];		/* what could not be done in the recorder's trace */
};

/*
 * rtr_qfile_recover() - a dead recorder's queue file @qpath into @o, through
 * the session @s (its accounting): every packet of a stream from the first
 * not written whole, in order, before the ring's.  The recorder's trace is
 * cut back where that packet was placed, so each packet is in one trace
 * exactly.  Return: 0 (also when there is no file: @rep->found false), or
 * -errno with @err (the file is refused: nothing was changed).
 */
int rtr_qfile_recover(const char *qpath, struct rtr_session *s, struct rtr_out *o,
		      struct rtr_qfile_report *rep, char *err, size_t errlen);

void rtr_qfile_report_free(struct rtr_qfile_report *rep);

/**
 * struct rtr_qfile_info - a look at a queue file (`ringtrace info`).
 * @pid: its recorder.  @running: the recorder still holds it.  @held:
 * packets not written whole.  @bytes: what the file takes on its file
 * system.  @trace: the recorder's trace directory, or "-" (a stream).
 */
struct rtr_qfile_info {
	pid_t pid;
	bool running;
	uint64_t held, bytes;
	char trace[4000];
};

/* Read @qpath's header and descriptors.  Return: 0, -EINVAL (not a queue file) or -errno. */
int rtr_qfile_look(const char *qpath, struct rtr_qfile_info *info);

#endif /* RTR_CONSUMER_QFILE_H */
