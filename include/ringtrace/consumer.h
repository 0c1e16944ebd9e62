/* SPDX-License-Identifier: MIT */
/*
 * ringtrace/consumer.h - reading a region: attach, wait, take complete
 * packets, release them.  The consumer trusts nothing it reads from the
 * region: the header is copied and checked once, every packet is copied
 * before it is checked, and in overwrite mode a copy that a writer may have
 * lapped is thrown away (counted), never returned.  Documentation/ringbuf.rst.
 */
#ifndef RINGTRACE_CONSUMER_H
#define RINGTRACE_CONSUMER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <ringtrace/region.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rtr_consumer;

/**
 * struct rtr_consumer_packet - a packet taken with rtr_consumer_get().
 * @data: the consumer's own copy, @size bytes (header included), valid
 *        until the next rtr_consumer_get() on the same consumer; with
 *        rtr_consumer_zero_copy(), the header only (RTR_PACKET_HDR_SIZE bytes).
 * @body: the @size - RTR_PACKET_HDR_SIZE bytes after the header: in @data,
 *        or with zero copy in the region itself, valid until the packet is put.
 * @skipped: packets of this stream lost just before this one (overwritten
 *           before they could be read; overwrite mode only).
 */
struct rtr_consumer_packet {
	uint32_t cpu;
	uint64_t seq;
	uint64_t size;
	const uint8_t *data;
	const uint8_t *body;
	uint64_t skipped;
	uint64_t events_discarded;
	uint64_t timestamp_begin;
	uint64_t timestamp_end;
};

/**
 * struct rtr_consumer_stats - per stream, since attach.
 * @packets, @bytes: taken.  @lapped: dropped because overwritten (before or
 * while being read).  @damaged: copies that failed validation (a corrupt or
 * hostile producer).  @bad_position: times @prod made no sense.
 */
struct rtr_consumer_stats {
	uint64_t packets;
	uint64_t bytes;
	uint64_t lapped;
	uint64_t damaged;
	uint64_t bad_position;
};

/**
 * rtr_consumer_open() - map and check the region file at @path.
 * @err: receives a one-line reason on failure (may be NULL).
 * Return: 0; -EAGAIN if the producer has not finished creating it;
 * -EPROTO if it is not a region, or one of an unsupported ABI or byte
 * order, or inconsistent (@err says which field); other -errno from open/mmap.
 */
int rtr_consumer_open(struct rtr_consumer **out, const char *path, char *err, size_t errlen);

/**
 * rtr_consumer_open_xen() - in dom0, attach to the region a Xen guest
 * shares: @domain is its id or its name.  The guest's control page is
 * mapped read-write, its region read-only, its event channel bound
 * (Documentation/xen.rst); everything read from the guest is checked.
 * Return: 0; -ENOENT (no such domain, or it does not trace); -EPROTO (its
 * keys or pages do not check out: @err says which); -ENOSYS (built
 * without Xen); other -errno from the Xen drivers.
 */
int rtr_consumer_open_xen(struct rtr_consumer **out, const char *domain, char *err,
			  size_t errlen);
void rtr_consumer_close(struct rtr_consumer *c);

/* What the region is called in messages: its path, or "xen:DOMAIN". */
const char *rtr_consumer_name(const struct rtr_consumer *c);

/*
 * rtr_consumer_producer_gone() - true once the producer's process has
 * exited (unix: its pid is gone; Xen: the guest's kernel said so through
 * the control page, or the domain was destroyed).  A crashed, preserved
 * guest is not "gone" here: `ringtrace recover --xen-domain` reads it.
 * Once it has said yes, it says yes for good.
 */
bool rtr_consumer_producer_gone(const struct rtr_consumer *c);
/*
 * Region ABI 1.2: a traced process's forked children write into its region
 * too (Documentation/events.rst, "Processes and fork"), and
 * rtr_consumer_producer_gone() says yes only once every process writing
 * into it has exited.
 */
/**
 * struct rtr_consumer_procs - the processes of a region, as it reads now
 * (from the region: informational; 0 everywhere for a region before 1.2).
 * @struct_size: set by the caller to sizeof(struct rtr_consumer_procs).
 * @writing: processes writing into it now (dead ones not yet noticed
 *           included).
 * @followed: processes that joined the first, cumulative (forked children,
 *            programs exec'd or spawned that joined the region).
 * @untraced: processes that were meant to trace into it and did not (a child
 *            not followed, no room for one more, or a program that found
 *            the region taken by another: exec'd under `ringtrace record`).
 * @untraced_exec: of @untraced, the programs exec'd that found the region
 *            and could not join it (the others are forked children not
 *            followed).
 * @untraced_pids: the first of them (up to 8; 0 past @untraced).
 */
struct rtr_consumer_procs {
	uint32_t struct_size;
	uint32_t writing;
	uint32_t followed;
	uint32_t untraced;
	uint32_t untraced_exec;
	uint32_t untraced_pids[8];
};

/* rtr_consumer_procs() - fill @p.  Return: 0; -EINVAL for a bad @struct_size. */
int rtr_consumer_procs(const struct rtr_consumer *c, struct rtr_consumer_procs *p);

/* Why rtr_consumer_producer_gone() said yes, in words; NULL until it has. */
const char *rtr_consumer_gone_why(const struct rtr_consumer *c);

/* The validated copy of the region header. */
const struct rtr_region_hdr *rtr_consumer_region(const struct rtr_consumer *c);

/**
 * rtr_consumer_get() - copy the next complete packet of stream @cpu.
 * Return: 0 with @pkt filled; -EAGAIN when none is complete yet; -EINVAL
 * for a CPU out of range.  Damaged or lapped packets are skipped and counted.
 */
int rtr_consumer_get(struct rtr_consumer *c, uint32_t cpu, struct rtr_consumer_packet *pkt);

/**
 * rtr_consumer_salvage() - take the open packet of stream @cpu as it stands,
 * up to the last committed record, when its producer will never close it
 * (it died, or stopped without closing).  The copy's end fields are filled
 * in: content_size from @prod, timestamp_end from the last record, and
 * events_discarded from the control page.  A live producer would go on
 * writing that packet: salvaging it then delivers its beginning twice.
 * Return: 0 with @pkt filled (release it with rtr_consumer_put()); -EAGAIN
 * when no packet is open or complete ones remain to be taken first;
 * -EPROTO when the open packet's header does not check out.
 */
int rtr_consumer_salvage(struct rtr_consumer *c, uint32_t cpu, struct rtr_consumer_packet *pkt);

/**
 * rtr_consumer_tail() - when the producer is gone (stopped or dead) and every
 * packet of @cpu was taken, events it dropped after its last packet (discard
 * mode, buffer full) are in no packet.  This makes the packet that tells
 * them: header only, the next sequence number, events_discarded the final
 * count, timestamps at the stream's last.  Call it last, once per stream.
 * Return: 0 with @pkt filled (put it like any other); -EAGAIN when there is
 * nothing to tell, or packets remain to be taken first.
 */
int rtr_consumer_tail(struct rtr_consumer *c, uint32_t cpu, struct rtr_consumer_packet *pkt);

/**
 * rtr_consumer_zero_copy() - in discard mode, copy only each packet's header
 * (which is checked) and point @body into the region: the writers do not
 * enter a packet before it is put, so a consumer that writes the packet
 * straight to a file saves a copy.  Only the header is validated: a hostile
 * producer can still change the body, as it could before the copy; readers
 * of the trace check every record.  No effect in overwrite mode, where every
 * packet is copied to detect a writer lapping it.
 */
void rtr_consumer_zero_copy(struct rtr_consumer *c, bool on);

/* rtr_consumer_put() - release the packet last taken on @cpu to the writers. */
void rtr_consumer_put(struct rtr_consumer *c, uint32_t cpu);

/**
 * rtr_consumer_wait() - sleep until a packet completes on some stream, the
 * producer stops, or @timeout_ms passes (-1: no limit).  Writers make the
 * wake-up system call only because this function asked them to.
 * Return: 1 if there may be work, 0 on timeout, -errno.
 */
int rtr_consumer_wait(struct rtr_consumer *c, int timeout_ms);

/**
 * rtr_consumer_flush() - ask the producer's flusher to close every non-empty
 * open packet, and wait for it to be done.
 * Return: 0; -ETIMEDOUT if the producer did not answer in @timeout_ms.
 */
int rtr_consumer_flush(struct rtr_consumer *c, int timeout_ms);

/*
 * rtr_consumer_flush_request() - the same request, without waiting: the
 * ticket tells when it is served (rtr_consumer_flush_done()), so a consumer
 * goes on draining meanwhile.
 */
uint32_t rtr_consumer_flush_request(struct rtr_consumer *c);
bool rtr_consumer_flush_done(const struct rtr_consumer *c, uint32_t ticket);

/* True if some stream has an open packet with records in it (one to flush). */
bool rtr_consumer_open_packets(const struct rtr_consumer *c);

/**
 * rtr_consumer_rewind() - make @c a snapshot reader: every stream starts
 * at the oldest packet the ring may still hold (in overwrite mode, the
 * N-1 packets before the open one), and taking packets never moves the
 * region's consumer position, so another consumer is not disturbed.
 */
void rtr_consumer_rewind(struct rtr_consumer *c);

/**
 * rtr_consumer_hold() - a snapshot reader (after rtr_consumer_rewind()) about
 * to copy stream @cpu of an overwrite-mode ring: start it again at the
 * oldest packet the ring holds now (all N with no packet open, else the
 * N - 1 before the open one) and ask the writers not to open a packet over
 * one not yet copied; each rtr_consumer_put() frees the one copied.  They
 * drop events meanwhile (lost_full), and honour a hold for one second at
 * most.  Hold one stream at a time, copy it, release it.
 * Return: 0; -EINVAL for a stream out of range, a consumer that is not a
 * snapshot reader, or a discard-mode region.
 */
int rtr_consumer_hold(struct rtr_consumer *c, uint32_t cpu);

/* rtr_consumer_release() - end the hold of stream @cpu (rtr_consumer_close() ends all). */
void rtr_consumer_release(struct rtr_consumer *c, uint32_t cpu);

/*
 * rtr_consumer_unget() - give back the packet taken on @cpu without
 * releasing it: the next rtr_consumer_get() takes it again (a consumer
 * whose output had no room for it).
 */
void rtr_consumer_unget(struct rtr_consumer *c, uint32_t cpu);

/**
 * rtr_consumer_read_only() - taking packets with @c never moves the region's
 * consumer position: a reader that may run again (recover, convert) gets
 * the same packets each time, and a live consumer is not disturbed.
 */
void rtr_consumer_read_only(struct rtr_consumer *c);

/*
 * rtr_consumer_start() - the position stream @cpu began at when @c was
 * opened: what is before it, an earlier consumer took (a byte position;
 * divided by the packet size, the first sequence number left).
 */
uint64_t rtr_consumer_start(const struct rtr_consumer *c, uint32_t cpu);

/*
 * rtr_consumer_on_damage() - call @fn for each packet found damaged (its
 * stream, sequence number and what is wrong with it), as it is skipped.
 */
typedef void (*rtr_consumer_damage_fn)(void *arg, uint32_t cpu, uint64_t seq, const char *why);
void rtr_consumer_on_damage(struct rtr_consumer *c, rtr_consumer_damage_fn fn, void *arg);

/*
 * rtr_consumer_metadata_len() - the length of the region's registry text as
 * it is now (it only grows): when it changes, read the registry again.
 * Unchecked: the registry is read with pread() and parsed strictly.
 */
uint32_t rtr_consumer_metadata_len(const struct rtr_consumer *c);

/**
 * rtr_consumer_metadata() - the CTF metadata (TSDL text) of the trace the
 * region holds: the packet and record layout, the task model's event
 * classes, and the names its registry has now (counters, typed events).
 * Write it as the trace directory's "metadata" beside the stream files,
 * again whenever rtr_consumer_metadata_len() moves.
 * @text: set to the text, to free().  @len: its length.  @registry_len: the
 * registry length it was made from (may be NULL).  @err: set when the
 * registry could not be read or parsed: the text is given without the
 * names, and the packets still decode (may be NULL).
 * Return: 0; -ENOMEM; -EPROTO if the registry's classes make no valid
 * metadata (@err says so).  *@text is NULL on failure.
 */
int rtr_consumer_metadata(struct rtr_consumer *c, char **text, size_t *len,
			  uint32_t *registry_len, char *err, size_t errlen);

/* True once the producer has stopped: drain, then finish. */
bool rtr_consumer_stopped(const struct rtr_consumer *c);

/**
 * struct rtr_consumer_cpu - one stream's control page as it reads now
 * (values straight from the region: informational, not validated).
 */
struct rtr_consumer_cpu {
	uint64_t prod;
	uint64_t cons;
	uint64_t lost_full;
	uint64_t lost_big;
	uint64_t lost_busy;
	uint64_t notify_at;
};

int rtr_consumer_cpu_info(const struct rtr_consumer *c, uint32_t cpu,
			  struct rtr_consumer_cpu *out);

/* Events the producer counted as lost on @cpu, as of now (cumulative). */
uint64_t rtr_consumer_lost(const struct rtr_consumer *c, uint32_t cpu);

void rtr_consumer_get_stats(const struct rtr_consumer *c, uint32_t cpu,
			    struct rtr_consumer_stats *st);

/**
 * rtr_region_check() - validate a copied region header against the size
 * of its mapping.  Return: 0 if consistent, else -EPROTO with the reason,
 * naming the field, in @err (@errlen bytes, always terminated; NULL: not
 * said).
 */
int rtr_region_check(const struct rtr_region_hdr *h, uint64_t mapped_size, char *err,
		     size_t errlen);

#ifdef __cplusplus
}
#endif
#endif /* RINGTRACE_CONSUMER_H */
