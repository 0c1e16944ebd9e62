/* SPDX-License-Identifier: MIT */
/*
 * format/stream.h - the framed stream of `ringtrace record -o -`, written
 * once: what the consumer writes (consumer/output.c) and what reads it
 * (format/frames.c, into the consumer's output or the reader's spool; and
 * reader/live.c).  Documentation/consumer.rst.
 */
#ifndef RTR_FORMAT_STREAM_H
#define RTR_FORMAT_STREAM_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The framed stream: an 16-byte prologue, then frames, little-endian:
 *   prologue  "RTRSTRM\0", u32 version (1), u32 0
 *   frame     u32 type, u32 arg, u64 len, then len bytes
 * METADATA carries the whole TSDL text (it replaces the previous one), PACKET
 * one CTF packet of stream @arg (the CPU), PROGRESS a u64 watermark: every
 * event before that clock value is in a frame already, END the clean end
 * (arg 0: complete, 1: the writer stopped early).  A stream that ends with
 * no END frame was cut.
 */
#define RTR_STREAM_MAGIC "RTRSTRM"
#define RTR_STREAM_VERSION 1
#define RTR_STREAM_PROLOGUE 16
#define RTR_FRAME_HDR 16
#define RTR_FRAME_METADATA_MAX (16u << 20)
#define RTR_FRAME_PACKET_MAX (64u << 20)

enum rtr_frame_type {
	RTR_FRAME_METADATA = 1,
	RTR_FRAME_PACKET = 2,
	RTR_FRAME_PROGRESS = 3,
	RTR_FRAME_END = 4,
};

/**
 * struct rtr_frame_sink - where rtr_frames_copy() gives what a stream carries.
 * @metadata: the whole TSDL text, @len bytes (it replaces the previous one).
 * @packet: one packet of stream @stream, checked, @len bytes.
 * @progress: every event before clock value @watermark has been given.
 * Each returns 0 or a negative errno, and then @error says why.
 */
struct rtr_frame_sink {
	void *ctx;
	int (*metadata)(void *ctx, const char *text, size_t len);
	int (*packet)(void *ctx, uint32_t stream, const void *data, size_t len);
	int (*progress)(void *ctx, uint64_t watermark);
	const char *(*error)(void *ctx);
};

/**
 * struct rtr_stream_report - what came in.
 * @bytes: read so far, the prologue included.
 * @ended: the END frame arrived (the stream was not cut).
 * @writer_stopped_early: the writer said its trace is incomplete.
 * @damaged: packets that failed their checks: not given to the sink.
 * @damage: the first of them.
 * @err: why reading or writing stopped.
 */
struct rtr_stream_report {
	uint64_t bytes;
	uint64_t packets;
	bool ended;
	bool writer_stopped_early;
	uint64_t damaged;
	char damage[300];
	char err[700];
};

/*
 * rtr_frames_copy() - read frames from @fd until the END frame and give
 * them to @sink.  @stop (may be NULL): a flag a signal handler sets; the
 * copy then ends, -EINTR (the handler must be installed without
 * SA_RESTART, to cut a blocked read).  A packet of a ringtrace trace that
 * fails its checks (format/packet.h, and its sequence number, time and
 * loss count following the stream's previous packet) is not given to
 * @sink; the copy goes on, and ends with -EPROTO.  Another tracer's
 * packets (an LTTng session read live) are given unchecked: the reader
 * checks them as any CTF trace's.
 * Return: 0 at the END frame; -errno (cut, damaged, the sink failed,
 * interrupted) with @rep->err set.  Everything before the problem has
 * been given to @sink.
 */
int rtr_frames_copy(int fd, const struct rtr_frame_sink *sink, const volatile sig_atomic_t *stop,
		    struct rtr_stream_report *rep);

#endif /* RTR_FORMAT_STREAM_H */
