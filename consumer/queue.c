// SPDX-License-Identifier: MIT
/*
 * consumer/queue.c - the output's write-behind queue (output_int.h).
 *
 * The consumer's drain loop copies each packet out of the ring into this
 * queue and gives the slot back to the writers at once; a writer thread
 * writes the queue out, with several O_DIRECT writes in flight.  So a
 * stall of the disk or of a pipe's reader costs nothing until the queue is
 * full, and then the ring's own rules apply: rtr_queue_room() says no, the
 * drain leaves the packets in the ring, and its writers drop (counted) or
 * wait (blocking mode).  Documentation/consumer.rst, "The write-behind
 * queue".
 *
 * Concurrency:
 *
 * ====================  ====================  =================================
 * what                  who                   how
 * ====================  ====================  =================================
 * @head, the arena's    the drain side only   a packet is copied into a gap
 *  gaps, a new run or                         place() found under @lock, then
 *  the newest's end                           published (its run extended or
 *                                             added, @head moved, op linked)
 *                                             under @lock
 * @tail, ops' states,   the writer thread     ops are freed in order, under
 *  the oldest run's                           @lock, once written
 *  start
 * the output's files    the writer thread     and its engine's workers, which
 *                                             only write where it placed
 * ====================  ====================  =================================
 *
 * The arena is one mapping of @cap bytes, lazily backed; each packet takes
 * whole 4 KiB blocks, so that it can be written with O_DIRECT from where it
 * lies, padded with zeros.  The packets live in runs (@runs, oldest first):
 * a packet goes after the newest run while that stays under @soft, else
 * into the lowest gap worth a run of its own (place()), so a queue that
 * keeps up reuses the same few megabytes (backed once, warm) instead of
 * going round all of @cap; under a stall every gap worth it is used, so the
 * queue holds nearly all of @cap.
 * Packets are freed oldest first, from the front of the oldest run: a gap
 * found by the drain side stays free until it uses it.
 */
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <endian.h>
#include <ringtrace/region.h>
#include "format/error.h"
#include "consumer/output_int.h"
#include "consumer/qfile.h"
#include "platform/platform.h"

#define QDEPTH		4	/* writes in flight (consumer.rst: measured, 2 to 8) */
#define NWORKERS	QDEPTH
#define QRUNS		16	/* runs of packets in the arena at most */
#define QSOFT		(16ull << 20)	/* a run goes past this only if nothing lower fits */
#define QGROW		(4ull << 20)	/* the file's blocks are reserved this many at a time */
#define QHUGE		(2ull << 20)	/* a stage's alignment and granule: a huge page */
#define QSTAGES		(QDEPTH + 1)	/* one per write in flight, and the next one's */

enum { OP_PACKET, OP_METADATA, OP_PROGRESS };
enum { OP_QUEUED, OP_INFLIGHT, OP_DONE, OP_FAILED, OP_UNWRITTEN };

struct qop {
	int kind;
	int state;
	uint32_t cpu;
	uint64_t size;		/* packet: its bytes; metadata: the text's */
	uint64_t room;		/* arena bytes it takes: its size in whole blocks */
	uint8_t *data;		/* packet: in the arena; metadata: malloc'd */
	uint8_t *wbuf;		/* what an O_DIRECT write reads: @data, or a stage's copy */
	int stage;		/* while in flight: 1 + the stage it holds, or 0 */
	struct rtr_qfile_slot *slot;	/* packet, with a queue file: its descriptor */
	bool heap;		/* packet: malloc'd, not in the arena (in_memory()) */
	uint64_t watermark;
	/* placed by the writer */
	int fd;
	uint64_t off;
	size_t ondisk;
	size_t written;		/* so far (a short write goes on) */
	uint64_t chunk;
	int res;		/* the engine's: 0 or -errno */
	struct qop *next;	/* in the queue */
	struct qop *job;	/* in an engine's list, or the relayd's unconfirmed */
};

struct rtr_queue {
	struct rtr_out *o;
	pthread_mutex_t lock;
	pthread_cond_t work;	/* the writer: an op came, or stop */
	pthread_cond_t room;	/* the drain side: room made, or the writer failed */
	pthread_t writer;
	bool writer_started;
	uint8_t *arena;
	uint64_t cap;
	/* the queue file (qfile.h), or none (-1): the arena is then anonymous */
	int qfd;
	uint8_t *map;		/* the whole file; @arena inside it */
	uint64_t maplen;
	struct rtr_qfile_hdr *qh;
	struct rtr_qfile_slot *slots;
	uint64_t backed;	/* arena bytes whose file blocks are reserved */
	uint64_t limit;		/* place() goes no further: @cap, or @backed while the
				 * file system is full (until @limit_ns + 1 s) */
	uint64_t limit_ns;
	uint64_t in_memory;	/* packets that went through memory: the file was full */
	uint64_t order;
	bool qfull_said;
	struct qop *staged;	/* the drain side's last packet, not yet the writer's */
	uint64_t head, tail;	/* free-running byte counts: appended, freed */
	uint64_t peak;
	struct { uint64_t start, end; } runs[QRUNS];	/* arena offsets, oldest first */
	int nruns;
	uint64_t soft;
	struct qop *first, *last;	/* every op not yet freed, in order */
	struct qop *todo;		/* the first not yet taken by the writer */
	bool stop;
	int engine;
	int inflight;		/* the writer's */
	struct qop *net_first, *net_last;	/* the writer's: sent to a relayd, unconfirmed */
	int failed_ops;		/* the writer's: writes that failed, not yet settled */
	/* RTR_OUT_ENGINE_THREADS */
	pthread_t workers[NWORKERS];
	int nworkers;
	pthread_mutex_t elock;
	pthread_cond_t ework, edone;
	struct qop *jobs, *jobs_last, *done;
	bool quit;
	/* the writer's: the O_DIRECT writes' copies of a queue file's packets */
	struct { uint8_t *buf; uint64_t len; bool busy; } stages[QSTAGES];
	/* RTR_OUT_ENGINE_URING */
	struct io_uring ring;
	bool ring_ok;
	int ring_pending;	/* submitted to the ring, not yet completed */
};

static uint64_t round_block(uint64_t n)
{
	return (n + DIRECT_ALIGN - 1) & ~(uint64_t)(DIRECT_ALIGN - 1);
}

/* A packet's descriptor in the queue file: a release store, after what it says. */
static void slot_set(struct qop *op, uint32_t state)
{
	if (op->slot)
		__atomic_store_n(&op->slot->state, state, __ATOMIC_RELEASE);
}

/* ---- the engines: make a placed write, tell when it is done ------------------ */

static void *worker_main(void *arg)
{
	struct rtr_queue *q = arg;

	pthread_mutex_lock(&q->elock);
	for (;;) {
		struct qop *op;
		struct iovec iov;

		while (!q->jobs && !q->quit)
			pthread_cond_wait(&q->ework, &q->elock);
		if (!q->jobs)
			break;
		op = q->jobs;
		q->jobs = op->job;
		pthread_mutex_unlock(&q->elock);
		iov = (struct iovec){ op->wbuf, op->ondisk };
		op->res = out_pwritev_all(op->fd, &iov, 1, op->off);
		pthread_mutex_lock(&q->elock);
		op->job = q->done;
		q->done = op;
		pthread_cond_signal(&q->edone);
	}
	pthread_mutex_unlock(&q->elock);
	return NULL;
}

static int uring_submit(struct rtr_queue *q, struct qop *op)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&q->ring);
	int ret;

	if (!sqe)
		return -EBUSY;	/* cannot be: at most QDEPTH in flight */
	io_uring_prep_write(sqe, op->fd, op->wbuf + op->written, (unsigned)(op->ondisk - op->written),
			    op->off + op->written);
	io_uring_sqe_set_data(sqe, op);
	do
		ret = io_uring_submit(&q->ring);
	while (ret == -EINTR);
	if (ret < 0)
		return ret;
	q->ring_pending++;
	return 0;
}

/* @op at the end of a list linked by ->job (@first, @last). */
static void job_append(struct qop **first, struct qop **last, struct qop *op)
{
	op->job = NULL;
	if (*first)	/* (@last is stale once @first was emptied) */
		(*last)->job = op;
	else
		*first = op;
	*last = op;
}

static void submit(struct rtr_queue *q, struct qop *op)
{
	op->state = OP_INFLIGHT;
	op->written = 0;
	q->inflight++;
	if (q->engine == RTR_OUT_ENGINE_URING) {
		int ret = uring_submit(q, op);

		if (ret) {
			/* Not submitted: it completes now, failed. */
			op->res = ret;
			pthread_mutex_lock(&q->elock);
			op->job = q->done;
			q->done = op;
			pthread_mutex_unlock(&q->elock);
		}
		return;
	}
	pthread_mutex_lock(&q->elock);
	job_append(&q->jobs, &q->jobs_last, op);
	pthread_cond_signal(&q->ework);
	pthread_mutex_unlock(&q->elock);
}

static void complete(struct rtr_queue *q, struct qop *op);

/*
 * net://: the packets the relayd confirmed are done, oldest first (with
 * @wait, all of them); if it failed for good, all of them failed.
 */
static void net_reap(struct rtr_queue *q, bool wait)
{
	int n = out_net_confirmed(q->o, wait);

	while (q->net_first && (n != 0 || wait)) {
		struct qop *op = q->net_first;

		q->net_first = op->job;
		if (!q->net_first)
			q->net_last = NULL;
		/* waited for every answer, yet fewer than were sent: cannot be */
		op->res = n < 0 ? n : n > 0 ? 0 : -EPROTO;
		if (op->res == -EPROTO)
			out_fail(q->o, -EPROTO, "lttng-relayd: fewer packets confirmed than sent");
		n -= n > 0;
		complete(q, op);
	}
}

/* Take the writes done; with @wait, at least one (some must be in flight). */
static void reap(struct rtr_queue *q, bool wait)
{
	struct qop *done;

	if (q->net_first) {
		net_reap(q, wait);
		return;
	}

	/* The workers' (or io_uring submissions that failed): a list under @elock. */
	pthread_mutex_lock(&q->elock);
	while (wait && !q->done && q->inflight && q->engine != RTR_OUT_ENGINE_URING)
		pthread_cond_wait(&q->edone, &q->elock);
	done = q->done;
	q->done = NULL;
	pthread_mutex_unlock(&q->elock);
	if (done)
		wait = false;
	while (done) {
		struct qop *op = done;

		done = op->job;
		complete(q, op);
	}
	while (q->ring_pending) {
		struct io_uring_cqe *cqe;
		struct qop *op;
		int ret = wait ? io_uring_wait_cqe(&q->ring, &cqe) :
				 io_uring_peek_cqe(&q->ring, &cqe);

		if (ret == -EINTR)
			continue;
		if (ret)
			break;	/* nothing ready */
		op = io_uring_cqe_get_data(cqe);
		ret = cqe->res;
		io_uring_cqe_seen(&q->ring, cqe);
		q->ring_pending--;
		wait = false;
		if (ret > 0 && op->written + (size_t)ret < op->ondisk) {
			/* A short write: the rest, from where it stopped. */
			op->written += (size_t)ret;
			if (uring_submit(q, op) == 0)
				continue;
			ret = -EIO;
		}
		op->res = ret < 0 ? ret : ret == 0 ? -EIO : 0;
		complete(q, op);
	}
}

/* Wait until no write is in flight: the files are as the ops placed them. */
static void barrier(struct rtr_queue *q)
{
	while (q->inflight)
		reap(q, true);
}

static void complete(struct rtr_queue *q, struct qop *op)
{
	q->inflight--;
	if (op->stage)
		q->stages[op->stage - 1].busy = false;
	op->stage = 0;
	if (op->res) {
		op->state = OP_FAILED;
		q->failed_ops++;
		return;
	}
	op->state = OP_DONE;
	slot_set(op, RTR_QSLOT_DONE);
	out_written(q->o, op->ondisk);
}

static int engine_start(struct rtr_queue *q, int want)
{
	if (want == RTR_OUT_ENGINE_URING &&
	    io_uring_queue_init(2 * QDEPTH, &q->ring, 0) == 0) {
		q->ring_ok = true;
		q->engine = RTR_OUT_ENGINE_URING;
		return 0;
	}
	/* Threads: asked for, or io_uring not there (an old kernel, a sandbox). */
	q->engine = RTR_OUT_ENGINE_THREADS;
	for (q->nworkers = 0; q->nworkers < NWORKERS; q->nworkers++) {
		int ret = pthread_create(&q->workers[q->nworkers], NULL, worker_main, q);

		if (ret)
			return -ret;
	}
	return 0;
}

static void engine_stop(struct rtr_queue *q)
{
	pthread_mutex_lock(&q->elock);
	q->quit = true;
	pthread_cond_broadcast(&q->ework);
	pthread_mutex_unlock(&q->elock);
	for (int i = 0; i < q->nworkers; i++)
		pthread_join(q->workers[i], NULL);
	q->nworkers = 0;
	if (q->ring_ok)
		io_uring_queue_exit(&q->ring);
	q->ring_ok = false;
}

/* ---- the writer thread ---------------------------------------------------------- */

/*
 * After a failed write: every write in flight ends, each stream file is cut
 * back to its earliest failed packet, and the packets after it that did get
 * written are not counted (they were cut off with it).
 */
static void settle(struct rtr_queue *q)
{
	struct rtr_out *o = q->o;

	barrier(q);
	pthread_mutex_lock(&q->lock);	/* the drain side may be appending */
	for (struct qop *f = q->first; f; f = f->next) {
		bool earliest = true;

		/* Only writes this queue placed (others failed, and were cut, in output.c). */
		if (f->kind != OP_PACKET || f->state != OP_FAILED || f->fd < 0)
			continue;
		for (struct qop *g = q->first; g; g = g->next)
			if (g != f && g->kind == OP_PACKET && g->state == OP_FAILED && g->fd >= 0 &&
			    g->cpu == f->cpu && g->chunk == f->chunk && g->off < f->off)
				earliest = false;
		if (!earliest)
			continue;
		out_write_failed(o, f->cpu, f->off, f->res);
		for (struct qop *g = q->first; g; g = g->next)
			if (g->kind == OP_PACKET && g->state == OP_DONE && g->cpu == f->cpu &&
			    g->chunk == f->chunk && g->off > f->off) {
				g->state = OP_UNWRITTEN;
				slot_set(g, RTR_QSLOT_QUEUED);	/* cut off with it */
				o->rep.packets--;
				o->rep.bytes -= g->ondisk;
			}
	}
	for (struct qop *f = q->first; f; f = f->next)
		if (f->kind == OP_PACKET && (f->state == OP_FAILED || f->state == OP_QUEUED)) {
			f->state = OP_UNWRITTEN;
			slot_set(f, RTR_QSLOT_QUEUED);
		}
	if (q->qh)
		__atomic_store_n(&q->qh->state, RTR_QFILE_FAILED, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&q->lock);
}

/*
 * A packet has its place in a stream file: the queue file says where, and
 * which chunk is being written, before any of it is written.
 */
static void placed(struct rtr_queue *q, struct qop *op)
{
	struct rtr_out *o = q->o;

	if (!op->slot)
		return;
	if (strcmp(q->qh->chunk, o->chunk_name))
		snprintf(q->qh->chunk, sizeof(q->qh->chunk), "%s", o->chunk_name);
	op->slot->off = op->off;
	op->slot->ondisk = op->ondisk;
}

/* A placed packet of a file without O_DIRECT, written here (none in flight). */
static void write_now(struct rtr_queue *q, struct qop *op)
{
	struct iovec iov = { op->data, op->ondisk };

	slot_set(op, RTR_QSLOT_PLACED);
	q->inflight++;
	op->res = out_pwritev_all(op->fd, &iov, 1, op->off);
	complete(q, op);
}

/*
 * A pipe's frame is written but for its last byte: a recorder that dies
 * before this left a frame its reader drops (recover takes the packet);
 * after it, the byte may have gone too (recover takes it, and says so).
 */
static void frame_almost(void *arg)
{
	slot_set(arg, RTR_QSLOT_ALMOST);
}

/*
 * What an O_DIRECT write of @op reads (at most QDEPTH in flight).  A
 * queue file's packet is copied to a stage of anonymous memory in huge
 * pages first, while the writes before it are still in flight.  Written
 * from the file's mapping, its 4 KiB pages of shared memory cost the disk
 * throughput: a 1 MiB write from 256 scattered pages is more segments than
 * a virtio disk takes in one request (consumer.rst, Figures).  The copy
 * costs the writer thread ~60 us a MiB.  The packet stays in the file
 * until its write is done, for recover.  Without memory for a stage, it
 * is written from where it lies.
 */
static void stage(struct rtr_queue *q, struct qop *op)
{
	int i = 0;

	op->wbuf = op->data;
	if (q->qfd < 0)
		return;	/* an anonymous arena: huge pages already */
	while (i < QSTAGES && q->stages[i].busy)
		i++;
	if (i == QSTAGES)
		return;	/* cannot be: a stage per write in flight, and one more */
	if (q->stages[i].len < op->ondisk) {
		uint64_t len = (op->ondisk + QHUGE - 1) & ~(QHUGE - 1);
		void *p = NULL;

		free(q->stages[i].buf);
		q->stages[i].buf = NULL;
		q->stages[i].len = 0;
		if (posix_memalign(&p, QHUGE, len))
			return;
		madvise(p, len, MADV_HUGEPAGE);
		q->stages[i].buf = p;
		q->stages[i].len = len;
	}
	memcpy(q->stages[i].buf, op->data, op->ondisk);
	q->stages[i].busy = true;
	op->stage = i + 1;
	op->wbuf = q->stages[i].buf;
}

/* One op, in order.  Return: false once the output has failed. */
static bool run_op(struct rtr_queue *q, struct qop *op)
{
	struct rtr_out *o = q->o;

	if (op->kind == OP_METADATA) {
		op->state = out_metadata_sync(o, (const char *)op->data, op->size) ? OP_FAILED :
			    OP_DONE;
	} else if (op->kind == OP_PROGRESS) {
		/* The state file's sizes are whole packets: everything before is on disk. */
		barrier(q);
		op->state = out_progress_sync(o, op->watermark) ? OP_FAILED : OP_DONE;
	} else {
		struct rtr_packet_hdr *h = (struct rtr_packet_hdr *)op->data;
		bool direct;
		int fd;

		if (out_rotate_due(o)) {
			barrier(q);	/* the chunk's files are synced and closed */
			/*
			 * A write that failed is cut back in its own chunk's file
			 * (settle()), which rotating would close: not now.
			 */
			if (q->failed_ops)
				return false;
		}
		op->fd = -1;
		fd = out_place(o, op->cpu, op->size, &op->off, &op->ondisk, &direct);
		op->chunk = o->chunk_index;
		if (fd < 0) {
			op->state = OP_FAILED;
			op->res = fd;
		} else if (o->relayd) {
			/*
			 * A relayd: sent in order, here, and done once it confirms
			 * it (net_reap()); until then the packet stays, to be sent
			 * again if the relayd fails first.
			 */
			op->ondisk = op->size;
			slot_set(op, RTR_QSLOT_PLACED);
			if (out_net_packet(o, op->cpu, op->data, op->data + RTR_PACKET_HDR_SIZE,
					   op->size)) {
				op->state = OP_FAILED;
			} else {
				op->state = OP_INFLIGHT;
				job_append(&q->net_first, &q->net_last, op);
				q->inflight++;
			}
		} else if (o->stream) {
			/* A pipe: in order, here. */
			barrier(q);
			op->ondisk = op->size;
			slot_set(op, RTR_QSLOT_PLACED);
			o->frame_almost = op->slot ? frame_almost : NULL;
			o->frame_almost_arg = op;
			op->state = out_packet_sync(o, op->cpu, op->data,
						    op->data + RTR_PACKET_HDR_SIZE, op->size) ?
				    OP_FAILED : OP_DONE;
			o->frame_almost = NULL;
			if (op->state == OP_DONE)
				slot_set(op, RTR_QSLOT_DONE);
		} else {
			placed(q, op);
			if (!direct) {
				/* A file without O_DIRECT: in order, here. */
				barrier(q);
				op->fd = fd;
				write_now(q, op);
			} else {
				uint64_t bits = (uint64_t)op->ondisk * 8;

				/* CTF's way of saying the zeros after the content are padding. */
				memcpy(&h->packet_size, &bits, sizeof(bits));
				slot_set(op, RTR_QSLOT_PLACED);
				op->fd = fd;
				stage(q, op);
				while (q->inflight >= QDEPTH)
					reap(q, true);
				submit(q, op);
			}
		}
	}
	reap(q, false);
	return !rtr_out_failed(o) && op->state != OP_FAILED;
}

/* Free the ops at the front that are done: their room goes back to the drain side. */
static void free_done(struct rtr_queue *q)
{
	bool freed = false;

	while (q->first && q->first->state == OP_DONE) {
		struct qop *op = q->first;

		q->first = op->next;
		if (!q->first)
			q->last = NULL;
		q->tail += op->room;
		slot_set(op, RTR_QSLOT_FREE);
		if (op->room) {
			/* The oldest packet: the front of the oldest run. */
			q->runs[0].start += op->room;
			if (q->runs[0].start == q->runs[0].end)
				memmove(&q->runs[0], &q->runs[1], --q->nruns * sizeof(q->runs[0]));
		}
		if (op->kind != OP_PACKET || op->heap)
			free(op->data);
		free(op);
		freed = true;
	}
	if (freed)
		pthread_cond_broadcast(&q->room);
}

static void *writer_main(void *arg)
{
	struct rtr_queue *q = arg;
	bool ok = true;

	pthread_mutex_lock(&q->lock);
	for (;;) {
		struct qop *op = ok ? q->todo : NULL;

		if (op) {
			q->todo = op->next;
			pthread_mutex_unlock(&q->lock);
			ok = run_op(q, op);
			if (!ok)
				settle(q);
			pthread_mutex_lock(&q->lock);
		} else if (q->inflight) {
			pthread_mutex_unlock(&q->lock);
			reap(q, true);
			pthread_mutex_lock(&q->lock);
		} else if (q->stop || !ok) {
			break;
		} else {
			pthread_cond_wait(&q->work, &q->lock);
		}
		free_done(q);
		if (!ok)
			pthread_cond_broadcast(&q->room);	/* the drain side sees the failure */
	}
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

/* ---- the drain side -------------------------------------------------------------- */

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23	/* Linux 5.14 */
#endif

/*
 * The queue file's blocks for the arena up to @need (and their slots),
 * reserved before they are written: a file system that fills (a small
 * /dev/shm) says ENOSPC here, where the queue can say it is full, and
 * never raises SIGBUS on a store into the mapping.  Mapped at once too.
 * Return: false if the file system has no room.
 */
static bool reserve(struct rtr_queue *q, uint64_t to)
{
	uint64_t s0, s1;

	s0 = RTR_QFILE_HDR + q->backed / RTR_QFILE_BLOCK * sizeof(struct rtr_qfile_slot);
	s1 = RTR_QFILE_HDR + to / RTR_QFILE_BLOCK * sizeof(struct rtr_qfile_slot);
	s0 &= ~(uint64_t)(RTR_QFILE_BLOCK - 1);
	s1 = round_block(s1);
	if ((s1 > s0 && fallocate(q->qfd, 0, (off_t)s0, (off_t)(s1 - s0)) < 0 &&
	     errno != EOPNOTSUPP) ||
	    (fallocate(q->qfd, 0, (off_t)(q->qh->arena_off + q->backed), (off_t)(to - q->backed)) <
		     0 && errno != EOPNOTSUPP))
		return false;
	madvise(q->arena + q->backed, to - q->backed, MADV_POPULATE_WRITE);
	q->backed = to;
	return true;
}

/* A few megabytes at a time; just what is needed when the file system is nearly full. */
static bool grow(struct rtr_queue *q, uint64_t need)
{
	uint64_t to = need + QGROW - 1 - (need + QGROW - 1) % QGROW;

	if (reserve(q, to < q->cap ? to : q->cap))
		return true;
	if (reserve(q, need))
		return true;
	q->qfull_said = true;
	return false;
}

/* The absolute path of the directory @fd, for the queue file's readers. */
static void dir_path(int fd, char *buf, size_t len)
{
	char proc[64];
	ssize_t n;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, buf, len - 1);
	buf[n > 0 ? n : 0] = 0;
}

/*
 * The arena: in the queue file @o->o.queue_path, created here (qfile.h), or
 * anonymous memory when there is none.  Return: 0 or -errno with @err.
 */
static int arena_open(struct rtr_queue *q, char *err, size_t errlen)
{
	struct rtr_out *o = q->o;
	const char *path = o->o.queue_path;
	uint64_t off = rtr_qfile_arena_off(q->cap);
	int ret;

	q->qfd = -1;
	if (path) {
		q->qfd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (q->qfd < 0 && errno == EEXIST) {
			/*
			 * Another recorder's, alive or dead (`ringtrace recover`
			 * takes a dead one's): left as it is, and this queue is
			 * memory, which the report says.
			 */
			o->rep.queue_file_taken = true;
			path = NULL;
		}
	}
	if (!path) {
		q->maplen = q->cap;
		q->map = mmap(NULL, q->cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
			      MAP_NORESERVE, -1, 0);
		if (q->map == MAP_FAILED) {
			ret = -errno;
			return rtr_errf(err, errlen, -ret,
					"the write-behind queue (%llu bytes): %s",
					(unsigned long long)q->cap, strerror(errno));
		}
		q->arena = q->map;
		q->backed = q->cap;
		/* 2 MiB pages where the kernel has them: 128 faults fill 256 MiB, not 65536. */
		madvise(q->arena, q->cap, MADV_HUGEPAGE);
		return 0;
	}
	if (q->qfd < 0) {
		ret = -errno;
		return rtr_errf(err, errlen, -ret, "the write-behind queue's file %s: %s", path,
				strerror(errno));
	}
	/* Held while we live: recover takes no queue whose recorder runs. */
	if (flock(q->qfd, LOCK_EX | LOCK_NB) < 0) {
		ret = rtr_errf(err, errlen, errno, "the write-behind queue's file %s: lock: %s",
			       path, strerror(errno));
		goto fail;
	}
	q->maplen = off + q->cap;
	if (ftruncate(q->qfd, (off_t)q->maplen) < 0 ||
	    fallocate(q->qfd, 0, 0, RTR_QFILE_HDR) < 0) {
		ret = rtr_errf(err, errlen, errno,
			       "the write-behind queue's file %s (%llu bytes): %s", path,
			       (unsigned long long)q->maplen, strerror(errno));
		goto fail;
	}
	q->map = mmap(NULL, q->maplen, PROT_READ | PROT_WRITE, MAP_SHARED, q->qfd, 0);
	if (q->map == MAP_FAILED) {
		ret = rtr_errf(err, errlen, errno, "the write-behind queue's file %s: mmap: %s",
			       path, strerror(errno));
		goto fail;
	}
	q->qh = (struct rtr_qfile_hdr *)q->map;
	q->slots = (struct rtr_qfile_slot *)(q->map + RTR_QFILE_HDR);
	q->arena = q->map + off;
	madvise(q->arena, q->cap, MADV_HUGEPAGE);
	q->qh->version = RTR_QFILE_VERSION;
	q->qh->state = RTR_QFILE_WRITING;
	q->qh->cap = q->cap;
	q->qh->nslots = q->cap / RTR_QFILE_BLOCK;
	q->qh->arena_off = off;
	q->qh->pid = (int32_t)getpid();
	q->qh->stream = o->relayd ? 2 : o->stream;
	if (!o->stream)
		dir_path(o->topfd, q->qh->path, sizeof(q->qh->path));
	/* The magic last, a release store: a file without it was never a queue. */
	{
		uint64_t magic;

		memcpy(&magic, RTR_QFILE_MAGIC, sizeof(magic));
		__atomic_store_n((uint64_t *)(void *)q->qh->magic, magic, __ATOMIC_RELEASE);
	}
	/*
	 * The blocks a queue that keeps up reuses, reserved and mapped now if
	 * the caller has room for them (the ring comes first): allocating them
	 * while the program writes at full speed would cost the drain a few
	 * milliseconds.  The rest as packets reach them (grow()).
	 */
	if (o->o.queue_reserve)
		reserve(q, round_block(o->o.queue_reserve < q->soft ? o->o.queue_reserve : q->soft));
	return 0;
fail:
	if (q->map && q->map != MAP_FAILED)
		munmap(q->map, q->maplen);
	q->map = NULL;
	close(q->qfd);
	q->qfd = -1;
	unlink(path);
	return ret;
}

int rtr_queue_open(struct rtr_out *o, char *err, size_t errlen)
{
	struct rtr_queue *q = calloc(1, sizeof(*q));
	sigset_t all, old;
	int ret;

	if (!q)
		return -ENOMEM;
	q->o = o;
	q->cap = round_block(o->o.buffer_size);
	/* A quarter of a small queue: its early wraps are exercised too (tests). */
	q->soft = round_block(q->cap / 4 < QSOFT ? q->cap / 4 : QSOFT);
	q->limit = q->cap;
	ret = arena_open(q, err, errlen);
	if (ret) {
		free(q);
		return ret;
	}
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->work, NULL);
	pthread_cond_init(&q->room, NULL);
	pthread_mutex_init(&q->elock, NULL);
	pthread_cond_init(&q->ework, NULL);
	pthread_cond_init(&q->edone, NULL);
	o->q = q;
	/* The program's signals are for the thread that drains (SIGBUS, SIGCHLD, ...). */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	ret = engine_start(q, o->o.engine == RTR_OUT_ENGINE_THREADS ? RTR_OUT_ENGINE_THREADS :
			   RTR_OUT_ENGINE_URING);
	if (!ret) {
		ret = -pthread_create(&q->writer, NULL, writer_main, q);
		q->writer_started = !ret;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	o->rep.engine = q->engine;
	if (ret) {
		rtr_errf(err, errlen, -ret, "cannot start the writer threads: %s", strerror(-ret));
		rtr_queue_close(o);
	}
	return ret;
}

/*
 * Where in the arena a packet of @need bytes goes (@q->lock held).  After
 * the newest run while that ends under @q->soft.  Past it, a queue that
 * holds little (half of @q->soft at most) goes back to the lowest gap worth
 * a run (a quarter of @q->soft, or @need if more) below: it keeps reusing
 * the same few megabytes.  One that holds more goes on after the newest run
 * as a ring would, however far; where the newest run cannot grow, into the
 * lowest gap worth a run, else the largest that fits.  Going back low under
 * a backlog, as the queue once did, has the packets alternate between the
 * gaps a reader frees at the front and the top, a run each, until QRUNS
 * runs refuse a packet with most of the arena free.  Return: false if
 * nothing fits.
 */
static bool place(const struct rtr_queue *q, uint64_t need, uint64_t *pos)
{
	uint64_t starts[QRUNS], ends[QRUNS], after = UINT64_MAX, low = UINT64_MAX;
	uint64_t big = UINT64_MAX, bigsize = 0, gap = 0;
	uint64_t worth = q->soft / 4 > need ? q->soft / 4 : need;
	int n = q->nruns;

	if (!n) {
		*pos = 0;
		return need <= q->limit;
	}
	/* The runs by address: they never overlap. */
	for (int i = 0; i < n; i++) {
		int j = i;

		while (j > 0 && starts[j - 1] > q->runs[i].start) {
			starts[j] = starts[j - 1];
			ends[j] = ends[j - 1];
			j--;
		}
		starts[j] = q->runs[i].start;
		ends[j] = q->runs[i].end;
	}
	/* The gaps: [0, starts[0]), [ends[i], starts[i + 1]), [ends[n - 1], cap). */
	for (int i = 0; i <= n; i++) {
		uint64_t end = i < n ? starts[i] : q->limit;

		if (end > q->limit)
			end = q->limit;
		if (gap > end)
			break;
		if (end - gap >= need) {
			if (gap == q->runs[n - 1].end) {
				after = gap;
			} else if (n < QRUNS) {
				/* A new run: only while there is room for one more. */
				if (low == UINT64_MAX && end - gap >= worth)
					low = gap;
				if (end - gap > bigsize) {
					big = gap;
					bigsize = end - gap;
				}
			}
		}
		if (i < n)
			gap = ends[i];
	}
	if (after != UINT64_MAX && (after + need <= q->soft || low == UINT64_MAX || low > after ||
				     q->head - q->tail > q->soft / 2))
		*pos = after;
	else if (low != UINT64_MAX)
		*pos = low;
	else if (big != UINT64_MAX)
		*pos = big;
	else
		return false;
	return true;
}

bool rtr_queue_room(struct rtr_out *o, size_t size)
{
	struct rtr_queue *q = o->q;
	uint64_t pos;
	bool room;

	rtr_queue_publish(o);
	pthread_mutex_lock(&q->lock);
	/* An empty queue takes a packet always: through memory if need be (in_memory()). */
	room = place(q, round_block(size), &pos) || (!q->first && q->qfd >= 0);
	pthread_mutex_unlock(&q->lock);
	if (!room)
		o->rep.queue_full++;
	return room;
}

static void append(struct rtr_queue *q, struct qop *op, uint64_t room)
{
	pthread_mutex_lock(&q->lock);
	if (room) {
		uint64_t pos = (uint64_t)(op->data - q->arena);

		/* After the newest run, or a run of its own (place() left room for one). */
		if (q->nruns && q->runs[q->nruns - 1].end == pos) {
			q->runs[q->nruns - 1].end += room;
		} else {
			q->runs[q->nruns].start = pos;
			q->runs[q->nruns++].end = pos + room;
		}
	}
	q->head += room;
	if (q->head - q->tail > q->peak)
		q->peak = q->head - q->tail;
	if (q->last)
		q->last->next = op;
	else
		q->first = op;
	q->last = op;
	if (!q->todo)
		q->todo = op;
	pthread_cond_signal(&q->work);
	pthread_mutex_unlock(&q->lock);
}

/*
 * The packet staged by rtr_queue_packet() goes to the writer.  Until then
 * the writer cannot write it, nor free it: a recorder that dies between
 * the copy and the ring slot's release leaves the packet in both the ring
 * and the queue's file (recover writes it once), never written from the
 * queue while the ring still holds it (recover could not tell).
 */
void rtr_queue_publish(struct rtr_out *o)
{
	struct rtr_queue *q = o->q;
	struct qop *op = q->staged;

	if (!op)
		return;
	q->staged = NULL;
	append(q, op, op->room);
}

/*
 * An empty queue whose file system has no room for the packet: it goes
 * through memory (aligned, padded, as the arena's would be), so that the
 * recording goes on; it would die with the recorder, and the report says
 * how many did.
 */
static int in_memory(struct rtr_queue *q, uint32_t cpu, const void *hdr, const void *body,
		     size_t size)
{
	uint64_t room = round_block(size);
	struct qop *op = calloc(1, sizeof(*op));

	if (!op || posix_memalign((void **)&op->data, DIRECT_ALIGN, room)) {
		free(op);
		return -ENOMEM;
	}
	memcpy(op->data, hdr, RTR_PACKET_HDR_SIZE);
	memcpy(op->data + RTR_PACKET_HDR_SIZE, body, size - RTR_PACKET_HDR_SIZE);
	memset(op->data + size, 0, room - size);
	op->kind = OP_PACKET;
	op->heap = true;
	op->cpu = cpu;
	op->size = size;
	q->in_memory++;
	q->staged = op;
	return 0;
}

int rtr_queue_packet(struct rtr_out *o, uint32_t cpu, const void *hdr, const void *body,
		     size_t size)
{
	struct rtr_queue *q = o->q;
	uint64_t room = round_block(size), pos;
	struct qop *op;
	uint8_t *dst;
	bool ok, empty;

	rtr_queue_publish(o);
	if (rtr_out_failed(o))
		return -EIO;
	if (cpu > 65535 || size < RTR_PACKET_HDR_SIZE)
		return out_fail(o, -EINVAL, "packet of stream %u, %zu bytes: not a packet", cpu,
				size);
	pthread_mutex_lock(&q->lock);
	if (q->limit < q->cap && rtr_monotonic_ns() - q->limit_ns > 1000000000ull)
		q->limit = q->cap;	/* room again in the file system? */
	ok = place(q, room, &pos);
	if (ok && pos + room > q->backed && !grow(q, pos + room)) {
		/* The file system is full: the blocks reserved already, for now. */
		q->limit = q->backed;
		q->limit_ns = rtr_monotonic_ns();
		ok = place(q, room, &pos);
	}
	empty = !q->first;
	pthread_mutex_unlock(&q->lock);
	if (!ok && empty && q->qfd >= 0)
		return in_memory(q, cpu, hdr, body, size);
	if (!ok) {
		o->rep.queue_full++;
		return -ENOBUFS;
	}
	/*
	 * Only this side places packets, and the writer only frees them: the
	 * gap found stays ours until published.  The copy first: reading a
	 * region that shrank raises SIGBUS here, and a handler that jumps out
	 * must find nothing half done.
	 */
	dst = q->arena + pos;
	memcpy(dst, hdr, RTR_PACKET_HDR_SIZE);
	memcpy(dst + RTR_PACKET_HDR_SIZE, body, size - RTR_PACKET_HDR_SIZE);
	memset(dst + size, 0, room - size);
	op = calloc(1, sizeof(*op));
	if (!op)
		return -ENOMEM;
	op->kind = OP_PACKET;
	op->cpu = cpu;
	op->size = size;
	op->room = room;
	op->data = dst;
	if (q->slots) {
		/* In the file before the ring's slot goes back: it survives us. */
		struct rtr_qfile_slot *sl = &q->slots[pos / RTR_QFILE_BLOCK];

		sl->cpu = cpu;
		sl->order = ++q->order;
		sl->size = size;
		sl->room = room;
		sl->off = sl->ondisk = 0;
		op->slot = sl;
		slot_set(op, RTR_QSLOT_QUEUED);
	}
	q->staged = op;	/* the writer's once the ring's slot is given back */
	return 0;
}

int rtr_queue_metadata(struct rtr_out *o, const char *text, size_t len)
{
	struct qop *op;

	rtr_queue_publish(o);
	if (rtr_out_failed(o))
		return -EIO;
	op = calloc(1, sizeof(*op));
	if (!op || !(op->data = malloc(len ? len : 1))) {
		free(op);
		return -ENOMEM;
	}
	if (len)
		memcpy(op->data, text, len);
	op->kind = OP_METADATA;
	op->size = len;
	append(o->q, op, 0);
	return 0;
}

int rtr_queue_progress(struct rtr_out *o, uint64_t watermark)
{
	struct qop *op;

	rtr_queue_publish(o);
	if (rtr_out_failed(o))
		return -EIO;
	op = calloc(1, sizeof(*op));
	if (!op)
		return -ENOMEM;
	op->kind = OP_PROGRESS;
	op->watermark = watermark;
	append(o->q, op, 0);
	return 0;
}

int rtr_queue_wait(struct rtr_out *o, int timeout_ms)
{
	struct rtr_queue *q = o->q;
	struct timespec until;
	uint64_t tail;
	int ret = 0;

	rtr_queue_publish(o);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += timeout_ms / 1000;
	until.tv_nsec += (long)(timeout_ms % 1000) * 1000000;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&q->lock);
	tail = q->tail;
	while (q->tail == tail && q->first && !rtr_out_failed(o) && ret == 0)
		ret = pthread_cond_timedwait(&q->room, &q->lock, &until);
	ret = q->tail != tail || !q->first;
	pthread_mutex_unlock(&q->lock);
	return ret;
}

void rtr_queue_close(struct rtr_out *o)
{
	struct rtr_queue *q = o->q;
	uint64_t unwritten = 0, lost = 0;

	if (!q)
		return;
	rtr_queue_publish(o);
	if (q->writer_started) {
		pthread_mutex_lock(&q->lock);
		q->stop = true;
		pthread_cond_signal(&q->work);
		pthread_mutex_unlock(&q->lock);
		pthread_join(q->writer, NULL);
	}
	barrier(q);
	if (o->rep.failed)
		settle(q);
	engine_stop(q);
	for (struct qop *op = q->first; op; op = op->next) {
		unwritten += op->kind == OP_PACKET && op->state == OP_UNWRITTEN && !op->heap;
		lost += op->kind == OP_PACKET && op->state == OP_UNWRITTEN && op->heap;
	}
	/*
	 * What could not be written stays in the queue file, for `ringtrace
	 * recover`; a queue that wrote everything leaves nothing behind.
	 */
	if (q->qfd >= 0)
		o->rep.kept = unwritten;
	else
		lost += unwritten;
	o->rep.unwritten = lost;
	if (q->qfd >= 0 && !unwritten)
		unlink(o->o.queue_path);	/* ours: another's is never opened (arena_open()) */
	o->rep.queue_peak = q->peak;
	o->rep.queue_file_full = q->qfull_said;
	o->rep.queue_in_memory = q->in_memory;
	while (q->first) {
		struct qop *op = q->first;

		q->first = op->next;
		if (op->kind != OP_PACKET || op->heap)
			free(op->data);
		free(op);
	}
	for (int i = 0; i < QSTAGES; i++)
		free(q->stages[i].buf);
	munmap(q->map, q->maplen);
	if (q->qfd >= 0)
		close(q->qfd);
	pthread_mutex_destroy(&q->lock);
	pthread_cond_destroy(&q->work);
	pthread_cond_destroy(&q->room);
	pthread_mutex_destroy(&q->elock);
	pthread_cond_destroy(&q->ework);
	pthread_cond_destroy(&q->edone);
	free(q);
	o->q = NULL;
}
