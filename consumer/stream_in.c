// SPDX-License-Identifier: MIT
/*
 * consumer/stream_in.c - the consumer's output as the sink of a framed
 * stream (consumer/stream_in.h).
 */
#include "consumer/output.h"
#include "consumer/stream_in.h"

static int out_md(void *ctx, const char *text, size_t len)
{
	return rtr_out_metadata(ctx, text, len);
}

static int out_pkt(void *ctx, uint32_t stream, const void *data, size_t len)
{
	return rtr_out_packet(ctx, stream, data, len);
}

static int out_progress(void *ctx, uint64_t watermark)
{
	return rtr_out_progress(ctx, watermark);
}

static const char *out_error(void *ctx)
{
	return rtr_out_report(ctx)->err;
}

int rtr_stream_copy(int fd, struct rtr_out *o, const volatile sig_atomic_t *stop,
		    struct rtr_stream_report *rep)
{
	const struct rtr_frame_sink sink = {
		.ctx = o, .metadata = out_md, .packet = out_pkt, .progress = out_progress,
		.error = out_error,
	};

	return rtr_frames_copy(fd, &sink, stop, rep);
}
