/* SPDX-License-Identifier: MIT */
/* consumer/stream_in.h - read the framed stream of `-o -` into an output. */
#ifndef RTR_CONSUMER_STREAM_IN_H
#define RTR_CONSUMER_STREAM_IN_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

struct rtr_out;

/**
 * struct rtr_stream_report - what came in.
 * @ended: the END frame arrived (the stream was not cut).
 * @writer_stopped_early: the writer said its trace is incomplete.
 * @err: why reading or writing stopped.
 */
struct rtr_stream_report {
	uint64_t bytes;		/* read so far, the prologue included */
	uint64_t packets;
	bool ended;
	bool writer_stopped_early;
	uint64_t damaged;	/* packets that failed their checks: not copied */
	char damage[300];	/* the first of them */
	char err[700];
};

/*
 * rtr_stream_copy() - read frames from @fd until the END frame and give
 * them to @o (opened by the caller, closed by the caller).  @stop (may be
 * NULL): a flag a signal handler sets; the copy then ends, -EINTR (the
 * handler must be installed without SA_RESTART, to cut a blocked read).
 * A packet that fails its checks (consumer/packet_check.h, and its
 * sequence number, time and loss count following the stream's previous
 * packet) is not given to @o; the copy goes on, and ends with -EPROTO.
 * Return: 0 at the END frame; -errno (cut, damaged, output failed,
 * interrupted) with @rep->err set.  Everything before the problem has been
 * given to @o.
 */
int rtr_stream_copy(int fd, struct rtr_out *o, const volatile sig_atomic_t *stop,
		    struct rtr_stream_report *rep);

#endif /* RTR_CONSUMER_STREAM_IN_H */
