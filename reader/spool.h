/* SPDX-License-Identifier: MIT */
/*
 * reader/spool.h - a framed stream (`record -o -`, a live session) written
 * out as the trace directory the reader reads, while it grows: the sink
 * format/frames.c gives the stream's metadata, packets and watermarks to.
 * The directory has what a recorder's has (metadata, stream_<N>, the state
 * file of format/state.h), so that a follower reads it as it reads a
 * recording in progress.  Written with plain write(2): the read side needs
 * none of the consumer's output (its queue, O_DIRECT, rotation).
 */
#ifndef RTR_READER_SPOOL_H
#define RTR_READER_SPOOL_H

#include <stdbool.h>
#include <stddef.h>
#include "format/stream.h"

struct tr_spool;

/*
 * tr_spool_open() - create the directory @dir (mode 0700; it must not
 * exist) and its state file, "recording".  Return: 0, or -errno with @err
 * set.
 */
int tr_spool_open(struct tr_spool **out, const char *dir, char *err, size_t errlen);

/* The sink to give rtr_frames_copy(). */
const struct rtr_frame_sink *tr_spool_sink(struct tr_spool *sp);

/*
 * tr_spool_close() - close the files, write the final state (done, or
 * stopped if not @complete, or failed if a write failed) and free @sp.
 * Return: 0, -EIO if a write failed (what is in the directory is whole
 * packets still).
 */
int tr_spool_close(struct tr_spool *sp, bool complete);

#endif /* RTR_READER_SPOOL_H */
