/* SPDX-License-Identifier: MIT */
/*
 * consumer/session.h - the consumer loop over one region: keep the output's
 * metadata in step with the region's registry, drain complete packets,
 * close quiet CPUs' packets on a timer, and at the end take the open
 * packets of a producer that is gone.  `ringtrace record`, `consume`,
 * `convert`, `recover` and `snapshot` are this loop with different ends.
 * Documentation/consumer.rst.
 */
#ifndef RTR_CONSUMER_SESSION_H
#define RTR_CONSUMER_SESSION_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <ringtrace/consumer.h>
#include "consumer/output.h"

#define RTR_DAMAGE_LOG 32

/**
 * struct rtr_session_cpu - one stream's account.  Once a packet is written,
 * the losses are the trace's own, exactly as `ringtrace check` counts them
 * from it; before, the producer's counts.
 * @packets, @bytes: written.  @salvaged: open packets taken at the end.
 * @lost_events: events the producer dropped: the events_discarded of the
 *               last packet written (the producer's count before any).
 * @lost_packets: sequence numbers missing from the stream written, the ones
 *                before its first packet included: overwritten (before a
 *                snapshot, or while it was read), damaged, or taken by an
 *                earlier consumer (@first_seq of them).  Their events are
 *                not counted: at most @lost_packets * rtr_session_max_events().
 * @damaged, @lapped: the consumer's counts (rtr_consumer_stats).
 * @first_seq: the first packet written; @next_seq: the one after the last.
 */
struct rtr_session_cpu {
	uint64_t packets;
	uint64_t bytes;
	uint64_t salvaged;
	uint64_t lost_events;
	uint64_t lost_packets;
	uint64_t damaged;
	uint64_t lapped;
	uint64_t first_seq;
	uint64_t next_seq;
	uint64_t trace_lost;		/* events_discarded of the last packet written */
	bool unsalvageable;	/* the open packet was there but could not be taken */
};

struct rtr_session {
	struct rtr_consumer *c;
	const char *region;
	pid_t producer;			/* from the header; 0 if unknown */
	uint32_t ncpus;
	struct rtr_session_cpu *cpu;
	uint32_t metadata_len;		/* of the registry last turned into TSDL */
	bool have_metadata;
	char registry_err[200];		/* the registry could not be read: names missing */
	bool registry_kept;		/* ... after it was: the names read before are kept */
	bool kernel_classes;		/* the metadata also declares the kernel's events (--sched) */
	int flush_ms;
	uint64_t next_flush_ns;
	uint64_t last_flush_ns;		/* when the last flush was asked for */
	bool followed;			/* a follower marked the output lately (rtr_out_followed()) */
	bool flush_pending;
	uint32_t flush_ticket;
	uint64_t flush_ts;		/* clock value read before the request */
	uint64_t flush_sent_ns;
	bool flush_warned;
	char notice[300];		/* a warning for the caller to print (rtr_session_notice()) */
	bool notice_new;
	bool out_full;			/* the last drain left packets: the output had no room */
	uint64_t damage_count;
	struct {
		uint32_t cpu;
		uint64_t seq;
		char why[80];
	} damage[RTR_DAMAGE_LOG];	/* the first ones, for the report */
};

/*
 * rtr_session_notice() - a warning the session has for its caller (the
 * producer is slow to close its packets, ...), once, or NULL.  The library
 * prints nothing: the command says it.
 */
const char *rtr_session_notice(struct rtr_session *s);

/* Attach to @region.  Return: 0 or -errno (-EAGAIN: not created yet) with @err. */
int rtr_session_open(struct rtr_session *s, const char *region, char *err, size_t errlen);
void rtr_session_close(struct rtr_session *s);

/* Give @o the TSDL for the region's registry as it is now, if it changed. */
int rtr_session_metadata(struct rtr_session *s, struct rtr_out *o);

/* Write every complete packet.  Return: packets written, or -errno (output failed). */
long rtr_session_drain(struct rtr_session *s, struct rtr_out *o);

/*
 * rtr_session_tick() - the flush timer: every @s->flush_ms ask the producer
 * to close its non-empty open packets; once it has, tell @o the watermark.
 */
int rtr_session_tick(struct rtr_session *s, struct rtr_out *o);
/*
 * rtr_session_wait_ms() - how long the consumer loop may wait before
 * rtr_session_tick() has work, at most @max_ms: until the next flush is
 * due; 1 ms while a flush is asked for and not yet done (the producer's
 * flusher answers on a futex the loop does not wait on), then a quarter
 * of the time it has gone unanswered (a paused guest's flusher).
 */
int rtr_session_wait_ms(const struct rtr_session *s, int max_ms);

/* The producer stopped tracing, or its process is gone. */
bool rtr_session_producer_gone(const struct rtr_session *s);

/*
 * rtr_session_finish() - the producer is gone: drain, take each open packet
 * up to its last record, and the header-only packet that tells losses after
 * the last one.  Return: 0 or -errno from the output.
 */
int rtr_session_finish(struct rtr_session *s, struct rtr_out *o);

/*
 * rtr_session_snapshot() - write what the ring of @region holds now into the
 * new trace @opts->path (overwrite mode): a second, read-only reader, after
 * the producer closed its open packets (if it is alive to do so).
 * Return: 0, and @report stays open for its figures (rtr_session_close() it);
 * or -errno with @err set and nothing left open.
 */
int rtr_session_snapshot(const char *region, const struct rtr_out_opts *opts,
			 struct rtr_session *report, struct rtr_out_report *orep, char *err,
			 size_t errlen);

/*
 * rtr_session_put_saved() - write a packet of stream @cpu kept outside the
 * ring (a dead recorder's queue), checked by the caller, and count it as
 * the stream's next.  Return: 0 or -errno.
 */
int rtr_session_put_saved(struct rtr_session *s, struct rtr_out *o, uint32_t cpu,
			  const void *data, size_t size);

/* Bring the per-stream figures up to date with the region's counters. */
void rtr_session_account(struct rtr_session *s);

/* The most events a packet of the region can hold (each record takes 4 bytes or more). */
uint64_t rtr_session_max_events(const struct rtr_session *s);

/* Totals over the streams. */
void rtr_session_totals(const struct rtr_session *s, struct rtr_session_cpu *t);

#endif /* RTR_CONSUMER_SESSION_H */
