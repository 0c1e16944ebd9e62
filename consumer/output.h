/* SPDX-License-Identifier: MIT */
/*
 * consumer/output.h - where a consumer puts packets: a CTF trace directory
 * (optionally rotated into chunks, each a complete trace), or the framed
 * byte stream of `-o -`.  Documentation/consumer.rst.
 */
#ifndef RTR_CONSUMER_OUTPUT_H
#define RTR_CONSUMER_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "format/stream.h"

/**
 * struct rtr_out_opts - how to write.
 * @path: a directory to create, "-" for the framed stream on @fd, or
 *        net://HOST[:CTRL_PORT[:DATA_PORT]] for a live session on an
 *        lttng-relayd (consumer/relayd.h).
 * @parent_fd: if not 0, the directory (an O_DIRECTORY descriptor) in which
 *             the last component of @path is created; @path itself then
 *             only names it in messages.  No path is followed to it again.
 * @fd: the stream's file descriptor (with @path "-").
 * @force: an existing trace directory at @path may be replaced.
 * @file_mode: of every file and, with the x bits added, every directory.
 * @rotate_size: start a new chunk once a chunk holds this many bytes (0: never).
 * @rotate_ns: start a new chunk once a chunk is this old (0: never).
 * @chunk_prefix: with rotation, chunks are @path/@chunk_prefix-NNNNNN;
 *                "chunk" when NULL.
 * @direct: write stream files with O_DIRECT where the file system allows it:
 *          the packet bodies go from the region to the disk with no copy
 *          through the page cache; each packet is padded to 4 KiB on disk
 *          (CTF's packet_size beyond content_size).
 * @buffer_size: 0: write in the calling thread.  Else the write-behind
 *          queue: rtr_out_packetv() copies the packet into a queue of this
 *          many bytes and returns, a writer thread writes it (several
 *          O_DIRECT writes in flight), and a stalled output costs nothing
 *          until the queue is full (rtr_out_room()).
 * @engine: how the queue's writes are made (enum rtr_out_engine).
 * @queue_path: with a queue, its file (created exclusively, consumer/
 *          qfile.h): the arena is a shared mapping of it, so that the packets
 *          it holds survive the consumer's death and a failed output;
 *          `ringtrace recover` takes them.  Removed once all is written.
 *          NULL: anonymous memory, and what it holds dies with the process.
 * @queue_reserve: with @queue_path, how much of the file to reserve and map
 *          at once (at most the 16 MiB a queue that keeps up reuses), so
 *          that a program writing at full speed does not wait for it; the
 *          rest is reserved as packets reach it.  0: all of it then.
 * @program: with @path net://..., names the relayd session (consumer/relayd.h).
 * @ncpus: with net://, the streams to create at first (0: the CPUs here).
 * @live_timer_us: with net://, the session's live timer (the flush interval).
 * @net_retry_ms: with net://, how long to try to reach the relayd again
 *          after a failure before the output fails (0: not at all).
 */
struct rtr_out_opts {
	const char *path;
	int parent_fd;
	int fd;
	bool force;
	mode_t file_mode;
	uint64_t rotate_size;
	uint64_t rotate_ns;
	const char *chunk_prefix;
	bool direct;
	uint64_t buffer_size;
	int engine;
	const char *queue_path;
	uint64_t queue_reserve;
	const char *program;
	uint32_t ncpus;
	uint32_t live_timer_us;
	uint64_t net_retry_ms;
};

/**
 * enum rtr_out_engine - the queue's writes: RTR_OUT_ENGINE_AUTO the better
 * one here (Documentation/consumer.rst, "The write-behind queue"),
 * RTR_OUT_ENGINE_THREADS worker threads each making one pwritev() at a
 * time, RTR_OUT_ENGINE_URING one io_uring (threads where it cannot be set
 * up).
 */
enum rtr_out_engine {
	RTR_OUT_ENGINE_AUTO = 0,
	RTR_OUT_ENGINE_THREADS = 1,
	RTR_OUT_ENGINE_URING = 2,
};

struct rtr_out;

/**
 * struct rtr_out_report - what was written.
 * @chunks: trace directories complete on disk (1 without rotation).
 * @failed: writing stopped at an error: @err names the file and why; what
 *          was written before stays a valid trace.
 */
struct rtr_out_report {
	uint64_t packets;
	uint64_t bytes;
	uint64_t chunks;
	bool failed;
	char err[600];
	/* with a queue: */
	uint64_t queue_peak;		/* the most bytes it held */
	uint64_t queue_full;		/* times a packet found no room */
	uint64_t kept;			/* packets not written, kept in @queue_path */
	uint64_t unwritten;		/* packets not written and not kept (lost) */
	bool queue_file_full;		/* @queue_path's file system had no room at times */
	bool queue_file_taken;		/* @queue_path existed: the queue was memory */
	uint64_t queue_in_memory;	/* packets that went through memory then (not durable) */
	int engine;			/* the one that ran */
	/* with net://: */
	char net_session[320];		/* HOSTNAME/SESSION on the relayd */
	uint32_t net_minor;		/* the protocol agreed: 2.@net_minor */
	uint64_t net_beacons;		/* live beacons sent */
	uint64_t net_empty;		/* header-only packets opening quiet streams */
	uint32_t net_reconnects;	/* the relayd reached again after failures */
	char net_outage[400];		/* the last failure it came back from */
	uint64_t net_resent;		/* packets it never confirmed, sent again after */
};

/* Create the output (the directory, or the stream's prologue).  Return: 0 or -errno. */
int rtr_out_open(struct rtr_out **out, const struct rtr_out_opts *opts, char *err, size_t errlen);

/* The TSDL text for the current chunk and the next ones; copied. */
int rtr_out_metadata(struct rtr_out *o, const char *text, size_t len);

/*
 * rtr_out_room() - whether a packet of @size bytes can be given now: always
 * without a queue; with one, whether it has room.  A consumer takes a
 * packet from the ring only when there is (else the ring's own rules
 * apply: the writers drop, or wait in blocking mode).
 */
bool rtr_out_room(struct rtr_out *o, size_t size);

/* rtr_out_wait() - wait up to @timeout_ms for the queue to make room.  Return: 1 room, 0 not. */
int rtr_out_wait(struct rtr_out *o, int timeout_ms);

/* Append one whole packet of stream @cpu.  Return: 0, or -errno once failed. */
int rtr_out_packet(struct rtr_out *o, uint32_t cpu, const void *data, size_t size);

/* The same, given as its header (RTR_PACKET_HDR_SIZE bytes) and the rest. */
int rtr_out_packetv(struct rtr_out *o, uint32_t cpu, const void *hdr, const void *body,
		    size_t size);

/*
 * rtr_out_publish() - with a queue, the packet last given may be written
 * now: a consumer calls it once it has given the packet's ring slot back
 * (so that a consumer that dies in between leaves the packet in the ring
 * and the queue's file, never on disk and in the ring).  Any other call
 * on @o does it first too.
 */
void rtr_out_publish(struct rtr_out *o);

/* Every event before @watermark (trace clock) has been given. */
int rtr_out_progress(struct rtr_out *o, uint64_t watermark);

/*
 * rtr_out_followed() - a follower marked the trace directory lately
 * (format/state.h, RTR_VIEWER_FILE): flush often.  Looked at every 250 ms
 * at most; false for a stream or a relayd.
 */
bool rtr_out_followed(struct rtr_out *o);

/* True once writing has failed; the report says why. */
bool rtr_out_failed(const struct rtr_out *o);
const struct rtr_out_report *rtr_out_report(const struct rtr_out *o);

/*
 * rtr_out_close() - fsync, mark the trace finished (@complete false: the
 * writer stopped early), copy the report to @rep (may be NULL), free.
 * Return: 0 or the first error.
 */
int rtr_out_close(struct rtr_out *o, bool complete, struct rtr_out_report *rep);

/*
 * rtr_out_remove() - close an output whose trace must not be left as if it
 * were whole (a snapshot that failed half-way), and remove what it wrote:
 * the directory it created and the trace files in it.  If they cannot all
 * be removed, the state file of what is left says "failed".
 * Return: 0, or -errno when something was left.
 */
int rtr_out_remove(struct rtr_out *o, struct rtr_out_report *rep);

/* The same for a trace already closed: directory @path in @at (AT_FDCWD or a directory). */
int rtr_trace_remove(int at, const char *path);

/*
 * rtr_out_abandon() - close an output that never got a packet (the program
 * could not be traced) and remove the directory it created.
 */
void rtr_out_abandon(struct rtr_out *o, const char *path);

/*
 * rtr_mkdir_new() - create directory @path (mode @mode) without following a
 * symlink at its last component; with @force, an existing directory that
 * holds a ringtrace trace (or nothing) is emptied first.  @at: AT_FDCWD, or
 * a directory descriptor: then the last component of @path is created in
 * it (@path names it in messages).
 * Return: an O_DIRECTORY descriptor, or -errno with @err set.
 */
int rtr_mkdir_new(int at, const char *path, mode_t mode, bool force, char *err, size_t errlen);

#endif /* RTR_CONSUMER_OUTPUT_H */
