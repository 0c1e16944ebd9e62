/* SPDX-License-Identifier: MIT */
/*
 * consumer/relayd.h - the output `-o net://HOST[:CTRL[:DATA]]`: a live
 * session on a stock lttng-relayd (LTTng 2.13 and others of major 2), spoken
 * as a 2.10 consumer daemon speaks it.  Documentation/network.rst.
 *
 * One control connection (commands, each answered) and one data connection
 * (packets, never answered).  The session is created by rtr_relayd_open();
 * its streams (the metadata, then one per CPU) at the first metadata.  Each
 * packet goes on the data connection, its index on the control one, as live
 * mode needs; rtr_relayd_progress() sends a beacon for every stream (and a
 * header-only packet first for a stream that has none yet), so that a live
 * reader is never held back by a quiet CPU.
 *
 * Concurrency: none; one thread calls everything (the write-behind queue's
 * writer, or the consumer's loop without a queue).  Every call is bounded
 * by the timeout given at open: a relayd that stops reading or answering
 * fails the output, it never blocks the caller for longer.
 *
 * Every reply is input from the network: its size is fixed by the command,
 * and a reply that says anything but success fails the output with a
 * message naming the command.
 */
#ifndef RTR_CONSUMER_RELAYD_H
#define RTR_CONSUMER_RELAYD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RTR_RELAYD_SCHEME "net://"
#define RTR_RELAYD_CTRL_PORT 5342	/* lttng-relayd's defaults */
#define RTR_RELAYD_DATA_PORT 5343
#define RTR_RELAYD_LIVE_PORT 5344
#define RTR_RELAYD_TIMEOUT_MS 10000
#define RTR_RELAYD_SUBDIR "ringtrace"	/* 2.11: the trace is HOSTNAME/SESSION/ringtrace */

struct rtr_relayd;

/**
 * struct rtr_relayd_opts - where, and what the session is called.
 * @url: net://HOST[:CTRL_PORT[:DATA_PORT]]; HOST a name or an address
 *       ([::1] for IPv6).
 * @hostname: the host the session is filed under (NULL: gethostname()).
 * @program: names the session: PROGRAM-YYYYmmdd-HHMMSS-PID (our pid).
 * @ncpus: the streams to create at first (more are added as packets of
 *         higher CPUs come); 0: the possible CPUs here.
 * @live_timer_us: the session's live timer, as LTTng's `--live`: how
 *         often a quiet stream gets a beacon (the flush interval).
 * @timeout_ms: connecting, and any one send or reply (0: 10 s).
 * @retry_ms: after a failure, try to reach the relayd again for this long
 *         (0: the output fails at once); back, the recording goes on as a
 *         new session, SESSION-rN.
 */
struct rtr_relayd_opts {
	const char *url;
	const char *hostname;
	const char *program;
	uint32_t ncpus;
	uint32_t live_timer_us;
	int timeout_ms;
	uint64_t retry_ms;
};

/**
 * struct rtr_relayd_stats - what went to the relayd.
 * @packets, @bytes: packets of the trace sent on the data connection.
 * @empty: header-only packets made for streams that had none at a beacon.
 * @beacons: live beacons sent.
 * @streams: streams created (the metadata's included).
 */
struct rtr_relayd_stats {
	uint64_t packets;
	uint64_t bytes;
	uint64_t empty;
	uint64_t beacons;
	uint32_t streams;
	uint32_t minor;		/* the protocol's 2.MINOR agreed */
	char session[320];	/* HOSTNAME/SESSION, as `net://RELAYD/host/...` names it */
	uint32_t reconnects;	/* times the relayd was reached again after a failure */
	char outage[400];	/* the last failure it came back from */
	uint64_t resent;	/* packets sent again after it came back: it never said it wrote them */
};

/*
 * rtr_relayd_parse() - split @url into @host and the two ports.
 * Return: 0, or -EINVAL with @err set.
 */
int rtr_relayd_parse(const char *url, char *host, size_t hostlen, uint16_t *ctrl,
		     uint16_t *data, char *err, size_t errlen);

/*
 * rtr_relayd_open() - connect both connections, agree on the protocol's
 * version, create the session.
 * Return: 0, or -errno with @err set: -ECONNREFUSED (nothing listens),
 * -ETIMEDOUT, -EPROTO (not a relayd we can speak to, or it refused).
 */
int rtr_relayd_open(struct rtr_relayd **out, const struct rtr_relayd_opts *opts, char *err,
		    size_t errlen);

/*
 * rtr_relayd_metadata() - the TSDL text as it is now: the first time, the
 * streams are created and the whole text sent; then what was appended to
 * it, or, if it changed otherwise, the metadata is reset and sent again.
 * Return: 0 or -errno (rtr_relayd_error() says why).
 */
int rtr_relayd_metadata(struct rtr_relayd *r, const char *text, size_t len);

/*
 * rtr_relayd_packet() - one packet of stream @cpu: @hdr
 * (RTR_PACKET_HDR_SIZE bytes), then the rest of its @size bytes at @body.
 * @keep: the caller keeps @hdr and @body as they are until
 * rtr_relayd_confirmed() has counted the packet, which it does once the
 * relayd said it wrote it (DATA_PENDING; up to 64 packets kept at once);
 * if the relayd fails first, the packet is sent again in the session that
 * follows.  The answers to the indexes and questions are read later (a
 * few await theirs at once).  Without @keep, the index's answer is read
 * before the call returns.
 * Return: 0 or -errno.
 */
int rtr_relayd_packet(struct rtr_relayd *r, uint32_t cpu, const void *hdr, const void *body,
		      size_t size, bool keep);

/*
 * rtr_relayd_confirmed() - how many more of the packets sent with @keep
 * the relayd has said it wrote since the last call, oldest first: from
 * the answers already here, or (@wait) once it wrote every one (asked
 * again until then, within the timeout).  Return: that count, or -errno.
 */
int rtr_relayd_confirmed(struct rtr_relayd *r, bool wait);

/*
 * rtr_relayd_progress() - every event before @watermark has been given:
 * a beacon at @watermark for each stream.  Return: 0 or -errno.
 */
int rtr_relayd_progress(struct rtr_relayd *r, uint64_t watermark);

/*
 * rtr_relayd_close() - wait (up to the timeout) until the relayd has
 * written every packet sent, close the streams and the connections.
 * Return: 0 or -errno (what was sent before may not all be written).
 */
int rtr_relayd_close(struct rtr_relayd *r);

/* Why the last call failed. */
const char *rtr_relayd_error(const struct rtr_relayd *r);
const struct rtr_relayd_stats *rtr_relayd_stats(const struct rtr_relayd *r);

/* Close the connections (if open) and free. */
void rtr_relayd_free(struct rtr_relayd *r);

#endif /* RTR_CONSUMER_RELAYD_H */
