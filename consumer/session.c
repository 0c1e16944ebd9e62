// SPDX-License-Identifier: MIT
/*
 * consumer/session.c - the consumer loop over one region (session.h).
 *
 * Nothing read from the region is trusted: packets come through
 * rtr_consumer_get(), which copies and checks them; the registry is copied
 * out with pread() and parsed strictly; a registry that does not parse
 * costs the counter and typed-event names, never the packets.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "consumer/session.h"
#include "platform/platform.h"

static void on_damage(void *arg, uint32_t cpu, uint64_t seq, const char *why)
{
	struct rtr_session *s = arg;

	if (s->damage_count < RTR_DAMAGE_LOG) {
		s->damage[s->damage_count].cpu = cpu;
		s->damage[s->damage_count].seq = seq;
		snprintf(s->damage[s->damage_count].why, sizeof(s->damage[0].why), "%s", why);
	}
	s->damage_count++;
}

int rtr_session_open(struct rtr_session *s, const char *region, char *err, size_t errlen)
{
	const struct rtr_region_hdr *h;
	int ret;

	memset(s, 0, sizeof(*s));
	s->region = region;
	s->flush_ms = 1000;
	/* "xen:DOMAIN": a Xen guest's region, from dom0 (Documentation/xen.rst). */
	if (!strncmp(region, "xen:", 4))
		ret = rtr_consumer_open_xen(&s->c, region + 4, err, errlen);
	else
		ret = rtr_consumer_open(&s->c, region, err, errlen);
	if (ret)
		return ret;
	h = rtr_consumer_region(s->c);
	s->ncpus = h->ncpus;
	s->producer = (pid_t)h->producer_pid;
	s->cpu = calloc(s->ncpus, sizeof(*s->cpu));
	if (!s->cpu) {
		rtr_consumer_close(s->c);
		s->c = NULL;
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	rtr_consumer_on_damage(s->c, on_damage, s);
	rtr_consumer_zero_copy(s->c, true);
	return 0;
}

const char *rtr_session_notice(struct rtr_session *s)
{
	if (!s->notice_new)
		return NULL;
	s->notice_new = false;
	return s->notice;
}

void rtr_session_close(struct rtr_session *s)
{
	rtr_consumer_close(s->c);
	s->c = NULL;
	free(s->cpu);
	s->cpu = NULL;
}

int rtr_session_metadata(struct rtr_session *s, struct rtr_out *o)
{
	char err[sizeof(s->registry_err)];
	uint32_t mlen = 0;
	size_t len = 0;
	char *text;
	int ret;

	/* Cheap test first, a load from the region: the registry only grows. */
	if (s->have_metadata && rtr_consumer_metadata_len(s->c) == s->metadata_len)
		return 0;
	ret = rtr_consumer_metadata(s->c, &text, &len, &mlen, err, sizeof(err));
	if (ret)
		return ret;
	if (err[0])
		snprintf(s->registry_err, sizeof(s->registry_err), "%s", err);
	if (err[0] && s->have_metadata) {
		/*
		 * The registry only grows: one that parsed and no longer does
		 * was damaged.  The metadata written describes every packet so
		 * far; replacing it with one without names would make them
		 * undecodable.  Keep it, and read the registry again only when
		 * its length moves.
		 */
		free(text);
		s->metadata_len = mlen;
		s->registry_kept = true;
		return 0;
	}
	ret = rtr_out_metadata(o, text, len);
	free(text);
	if (!ret) {
		s->have_metadata = true;
		s->metadata_len = mlen;
	}
	return ret;
}

static int put_packet(struct rtr_session *s, struct rtr_out *o,
		      const struct rtr_consumer_packet *pkt, bool salvaged)
{
	struct rtr_session_cpu *a = &s->cpu[pkt->cpu];
	int ret;

	/*
	 * The registry, read after the packet was taken, describes every event
	 * in it (a class is registered before its first event is written); a
	 * chunk's metadata is written before its packets.
	 */
	if (rtr_session_metadata(s, o) && rtr_out_failed(o))
		return -EIO;
	ret = rtr_out_packetv(o, pkt->cpu, pkt->data, pkt->body, pkt->size);
	/*
	 * A packet not written stays in the region, not put: the session
	 * stops there (nothing takes another packet), and `ringtrace recover`
	 * finds it in the region the recorder keeps.
	 */
	if (ret)
		return ret;
	rtr_consumer_put(s->c, pkt->cpu);
	a->packets++;
	a->bytes += pkt->size;
	a->salvaged += salvaged;
	return 0;
}

void rtr_session_account(struct rtr_session *s)
{
	for (uint32_t i = 0; i < s->ncpus; i++) {
		struct rtr_consumer_stats st;

		rtr_consumer_get_stats(s->c, i, &st);
		s->cpu[i].damaged = st.damaged;
		s->cpu[i].lapped = st.lapped;
		s->cpu[i].lost_packets = st.damaged + st.lapped;
		s->cpu[i].lost_events = rtr_consumer_lost(s->c, i);
	}
}

long rtr_session_drain(struct rtr_session *s, struct rtr_out *o)
{
	long n = 0;

	/* Metadata first, even with no packet to write (put_packet() keeps it current). */
	if (rtr_session_metadata(s, o) && rtr_out_failed(o))
		return -EIO;
	for (uint32_t cpu = 0; cpu < s->ncpus; cpu++) {
		struct rtr_consumer_packet pkt;
		struct rtr_consumer_stats st;
		/*
		 * Bounded by a buffer's worth of slots a pass, taken or skipped:
		 * a producer writing faster than we read, or a hostile one that
		 * keeps one good packet after each run of damaged ones (each
		 * rtr_consumer_get() may walk the whole buffer), gets that much.
		 */
		uint64_t max = rtr_consumer_region(s->c)->packets_per_cpu, start;

		rtr_consumer_get_stats(s->c, cpu, &st);
		start = st.packets + st.damaged + st.lapped;
		while (rtr_consumer_get(s->c, cpu, &pkt) == 0) {
			int ret = put_packet(s, o, &pkt, false);

			if (ret)
				return ret;
			n++;
			rtr_consumer_get_stats(s->c, cpu, &st);
			if (st.packets + st.damaged + st.lapped - start >= max)
				break;
		}
	}
	rtr_session_account(s);
	return n;
}

bool rtr_session_producer_gone(const struct rtr_session *s)
{
	if (rtr_consumer_stopped(s->c))
		return true;
	return rtr_consumer_producer_gone(s->c);
}

int rtr_session_tick(struct rtr_session *s, struct rtr_out *o)
{
	uint64_t now = rtr_monotonic_ns();

	if (s->flush_pending) {
		if (rtr_consumer_flush_done(s->c, s->flush_ticket)) {
			long n = rtr_session_drain(s, o);

			s->flush_pending = false;
			if (n < 0)
				return (int)n;
			return rtr_out_progress(o, s->flush_ts);
		}
		if (now - s->flush_sent_ns > 5000000000ull && !s->flush_warned) {
			s->flush_warned = true;
			snprintf(s->notice, sizeof(s->notice), "%s: the producer has not closed its "
				 "packets for 5 s (its flusher thread is stuck or gone)", s->region);
			s->notice_new = true;
		}
		return 0;
	}
	if (s->flush_ms <= 0 || now < s->next_flush_ns)
		return 0;
	s->next_flush_ns = now + (uint64_t)s->flush_ms * 1000000ull;
	s->flush_ts = rtr_clock_read();
	if (!rtr_consumer_open_packets(s->c)) {
		/* Nothing open: every event before now is in a complete packet. */
		long n = rtr_session_drain(s, o);

		return n < 0 ? (int)n : rtr_out_progress(o, s->flush_ts);
	}
	s->flush_ticket = rtr_consumer_flush_request(s->c);
	s->flush_sent_ns = now;
	s->flush_pending = true;
	return 0;
}

int rtr_session_finish(struct rtr_session *s, struct rtr_out *o)
{
	long n = rtr_session_drain(s, o);

	if (n < 0)
		return (int)n;
	for (uint32_t cpu = 0; cpu < s->ncpus; cpu++) {
		struct rtr_consumer_packet pkt;
		int ret;

		ret = rtr_consumer_salvage(s->c, cpu, &pkt);
		if (ret == 0) {
			ret = put_packet(s, o, &pkt, true);
			if (ret)
				return ret;
		} else if (ret == -EPROTO) {
			s->cpu[cpu].unsalvageable = true;
		}
		/* Losses after the last packet: one more, header only, to tell them. */
		if (rtr_consumer_tail(s->c, cpu, &pkt) == 0) {
			ret = put_packet(s, o, &pkt, false);
			if (ret)
				return ret;
		}
	}
	rtr_session_account(s);
	return rtr_out_progress(o, rtr_clock_read());
}

/* A snapshot's packets, copied out of the ring before anything is written. */
struct held {
	uint32_t cpu;
	uint64_t size;
	uint8_t *data;
};

int rtr_session_snapshot(const char *region, const struct rtr_out_opts *opts,
			 struct rtr_session *s, struct rtr_out_report *orep, char *err,
			 size_t errlen)
{
	const struct rtr_region_hdr *h;
	struct held *held = NULL;
	size_t nheld = 0, cap;
	struct rtr_out *o;
	bool gone;
	int ret;

	ret = rtr_session_open(s, region, err, errlen);
	if (ret)
		return ret;
	h = rtr_consumer_region(s->c);
	if (h->mode != RTR_MODE_OVERWRITE) {
		snprintf(err, errlen, "%s: a discard-mode region is streamed, not snapshot "
			 "(snapshots are for overwrite mode)", region);
		ret = -EINVAL;
		goto out;
	}
	cap = (size_t)h->ncpus * h->packets_per_cpu;
	held = calloc(cap, sizeof(*held));
	if (!held) {
		snprintf(err, errlen, "out of memory");
		ret = -ENOMEM;
		goto out;
	}
	gone = rtr_session_producer_gone(s);
	/* A live producer closes its open packets first, so the snapshot ends now. */
	if (!gone && rtr_consumer_open_packets(s->c) && rtr_consumer_flush(s->c, 1000)) {
		snprintf(s->notice, sizeof(s->notice), "%s: the producer did not close its packets "
			 "within 1 s; the snapshot leaves the open ones out", region);
		s->notice_new = true;
	}
	/*
	 * Copy first, write after: the writers go on, and the ring's oldest
	 * packets would be overwritten while files are created and synced.
	 * The packets complete now, and no more: a busy CPU does not keep us here.
	 */
	rtr_consumer_rewind(s->c);
	for (uint32_t cpu = 0; cpu < s->ncpus; cpu++) {
		struct rtr_consumer_packet pkt;
		struct rtr_consumer_cpu ci;
		uint64_t target;

		rtr_consumer_cpu_info(s->c, cpu, &ci);
		target = ci.prod / h->packet_size;
		while (nheld < cap && rtr_consumer_get(s->c, cpu, &pkt) == 0 && pkt.seq < target) {
			held[nheld].data = malloc(pkt.size);
			if (!held[nheld].data) {
				ret = -ENOMEM;
				snprintf(err, errlen, "out of memory");
				goto out;
			}
			memcpy(held[nheld].data, pkt.data, pkt.size);
			held[nheld].cpu = cpu;
			held[nheld].size = pkt.size;
			nheld++;
			rtr_consumer_put(s->c, cpu);
		}
	}
	ret = rtr_out_open(&o, opts, err, errlen);
	if (ret)
		goto out;
	ret = rtr_session_metadata(s, o);
	for (size_t i = 0; i < nheld && !ret; i++) {
		struct rtr_session_cpu *a = &s->cpu[held[i].cpu];

		ret = rtr_out_packet(o, held[i].cpu, held[i].data, held[i].size);
		a->packets++;
		a->bytes += held[i].size;
	}
	rtr_session_account(s);
	/* A dead producer's open packets are part of what the ring holds. */
	if (!ret && gone)
		ret = rtr_session_finish(s, o);
	if (ret && rtr_out_failed(o))
		snprintf(err, errlen, "%s", rtr_out_report(o)->err);
	else if (ret)
		snprintf(err, errlen, "%s: %s", opts->path, strerror(-ret));
	if (rtr_out_close(o, !ret, orep) && !ret) {
		ret = -EIO;
		snprintf(err, errlen, "%s", orep->err);
	}
out:
	for (size_t i = 0; i < nheld; i++)
		free(held[i].data);
	free(held);
	if (ret)
		rtr_session_close(s);
	return ret;
}

void rtr_session_totals(const struct rtr_session *s, struct rtr_session_cpu *t)
{
	memset(t, 0, sizeof(*t));
	for (uint32_t i = 0; i < s->ncpus; i++) {
		t->packets += s->cpu[i].packets;
		t->bytes += s->cpu[i].bytes;
		t->salvaged += s->cpu[i].salvaged;
		t->lost_events += s->cpu[i].lost_events;
		t->lost_packets += s->cpu[i].lost_packets;
		t->damaged += s->cpu[i].damaged;
		t->lapped += s->cpu[i].lapped;
		t->unsalvageable |= s->cpu[i].unsalvageable;
	}
}
