/* SPDX-License-Identifier: MIT */
/*
 * consumer/output_int.h - inside the output: the writing layer (output.c)
 * and the write-behind queue in front of it (queue.c).  Not installed.
 *
 * output.c writes synchronously, in the calling thread.  With a queue
 * (@o.buffer_size), the rtr_out_*() calls copy their work into the queue
 * and return; the queue's writer thread runs it through the same functions
 * of output.c (out_*() below), and nothing else touches the chunk and
 * stream-file state: the drain side only reads @failed.
 */
#ifndef RTR_CONSUMER_OUTPUT_INT_H
#define RTR_CONSUMER_OUTPUT_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>
#include "consumer/output.h"

#define DIRECT_ALIGN 4096u

struct rtr_queue;
struct rtr_relayd;

struct rtr_out {
	struct rtr_out_opts o;
	bool stream;
	int topfd;		/* the trace directory */
	uint64_t viewer_checked_ns;	/* rtr_out_followed(): when it last looked */
	bool followed;		/* ... and what it saw */
	int chunkfd;		/* the chunk being written (== topfd without rotation) */
	bool rotating;
	bool chunk_open;
	uint64_t chunk_index;	/* of the next chunk to open */
	uint64_t chunk_bytes;
	uint64_t chunk_start_ns;
	char chunk_name[64];
	int *sfd;		/* per CPU: stream file of the chunk, or -1 */
	uint64_t *ssize;	/* its size: always a packet boundary */
	bool *sdirect;		/* opened with O_DIRECT: packets padded to DIRECT_ALIGN */
	uint32_t nsfd;
	uint8_t *bounce;	/* 2 * DIRECT_ALIGN, aligned: a packet's first and last blocks */
	char *md;
	size_t mdlen;
	uint64_t watermark;
	struct rtr_out_report rep;
	bool failed;		/* @rep.failed, for other threads (atomic) */
	struct rtr_queue *q;	/* the write-behind queue, or NULL: synchronous */
	/* a packet frame: called once all of it but its last byte is written */
	void (*frame_almost)(void *arg);
	void *frame_almost_arg;
	struct rtr_relayd *relayd;	/* net://: @stream is set too (no directory) */
};

/* The synchronous layer (output.c), for the queue's writer. */
int out_packet_sync(struct rtr_out *o, uint32_t cpu, const void *hdr, const void *body,
		    size_t size);
int out_metadata_sync(struct rtr_out *o, const char *text, size_t len);
int out_progress_sync(struct rtr_out *o, uint64_t watermark);
int out_fail(struct rtr_out *o, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Write @iov whole at @off of @fd, going on after short writes.  Return: 0 or -errno. */
int out_pwritev_all(int fd, struct iovec *iov, int n, uint64_t off);

/* Write one frame of the framed stream to @fd.  Return: 0 or -errno. */
int out_frame(int fd, uint32_t type, uint32_t arg, const void *data, uint64_t len);

/* A packet of @cpu is due: the current chunk closes first (no write may be in flight). */
bool out_rotate_due(const struct rtr_out *o);

/*
 * out_place() - the place of the next packet of stream @cpu, @size bytes,
 * written from an aligned buffer padded with zeros to DIRECT_ALIGN: the
 * chunk rotated or opened and the stream file opened as needed, and the
 * file's end moved at once: *@off is where to write *@ondisk bytes.  With
 * O_DIRECT (*@direct) that is the padded size, and several writes may be
 * in flight; without, the packet's own size, written before the next is
 * placed.  A framed stream has no place: 0 is returned, and the caller
 * writes with out_packet_sync().
 * Return: the file descriptor, or -errno (the output failed).
 */
int out_place(struct rtr_out *o, uint32_t cpu, size_t size, uint64_t *off, size_t *ondisk,
	      bool *direct);

/* A placed packet is on disk: count it. */
void out_written(struct rtr_out *o, size_t ondisk);

/*
 * out_net_packet() - net://: send a packet the caller keeps as it is until
 * out_net_confirmed() has counted it (rtr_relayd_packet() with keep).
 * out_net_confirmed() - how many more of them the relayd said it wrote,
 * oldest first (@wait: all of them), each counted as written; or -errno,
 * the output failed.
 */
int out_net_packet(struct rtr_out *o, uint32_t cpu, const void *hdr, const void *body,
		   size_t size);
int out_net_confirmed(struct rtr_out *o, bool wait);

/*
 * out_write_failed() - the write of the packet placed at @off of stream
 * @cpu failed with @ret: fail the output, and cut the stream file back to
 * @off (the earliest failure of a stream is the last one called: nothing
 * after it counts).
 */
void out_write_failed(struct rtr_out *o, uint32_t cpu, uint64_t off, int ret);

/* The queue (queue.c). */
int rtr_queue_open(struct rtr_out *o, char *err, size_t errlen);
bool rtr_queue_room(struct rtr_out *o, size_t size);
int rtr_queue_packet(struct rtr_out *o, uint32_t cpu, const void *hdr, const void *body,
		     size_t size);
int rtr_queue_metadata(struct rtr_out *o, const char *text, size_t len);
int rtr_queue_progress(struct rtr_out *o, uint64_t watermark);
int rtr_queue_wait(struct rtr_out *o, int timeout_ms);
void rtr_queue_publish(struct rtr_out *o);
/* Write everything queued, stop the writer, free the queue (its file kept, if failed). */
void rtr_queue_close(struct rtr_out *o);

#endif /* RTR_CONSUMER_OUTPUT_INT_H */
