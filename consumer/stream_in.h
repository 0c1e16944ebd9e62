/* SPDX-License-Identifier: MIT */
/*
 * consumer/stream_in.h - read the framed stream of `-o -` into the
 * consumer's output: `ringtrace consume - -o DIR`, and the tools that take
 * a stream on standard input and write a trace.  The reading and checking
 * are format/frames.c's; this gives them an output as their sink.
 */
#ifndef RTR_CONSUMER_STREAM_IN_H
#define RTR_CONSUMER_STREAM_IN_H

#include "format/stream.h"

struct rtr_out;

/*
 * rtr_stream_copy() - rtr_frames_copy() into @o (opened by the caller,
 * closed by the caller).  Return: as rtr_frames_copy().
 */
int rtr_stream_copy(int fd, struct rtr_out *o, const volatile sig_atomic_t *stop,
		    struct rtr_stream_report *rep);

#endif /* RTR_CONSUMER_STREAM_IN_H */
