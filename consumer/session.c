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
#include "format/error.h"
#include "consumer/session.h"
#include "events/classes.h"
#include "events/metadata.h"
#include "format/state.h"
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
		return rtr_errf(err, errlen, ENOMEM, "out of memory");
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

/* The kernel's event classes (record --sched) appended to the TSDL @*text. */
static int add_kernel_classes(char **text, size_t *len)
{
	char *more = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&more, &n);
	int ret;

	if (!f)
		return -ENOMEM;
	fwrite(*text, 1, *len, f);
	for (uint32_t k = 0; k < RTR_KEV_COUNT; k++)
		rtr_ctf_write_events(f, rtr_event_kernel(k), 1);
	ret = ferror(f) ? -ENOMEM : 0;
	if (fclose(f) && !ret)
		ret = -ENOMEM;
	if (ret) {
		free(more);
		return ret;
	}
	free(*text);
	*text = more;
	*len = n;
	return 0;
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
	if (s->kernel_classes && (ret = add_kernel_classes(&text, &len))) {
		free(text);
		return ret;
	}
	ret = rtr_out_metadata(o, text, len);
	free(text);
	if (!ret) {
		s->have_metadata = true;
		s->metadata_len = mlen;
	}
	return ret;
}

/*
 * One packet written: the trace's losses as a reader counts them, the
 * packets before the stream's first one included.
 */
static void account_packet(struct rtr_session_cpu *a, uint64_t seq, uint64_t size,
			   uint64_t discarded)
{
	if (!a->packets)
		a->first_seq = seq;
	if (seq >= a->next_seq)
		a->lost_packets += seq - a->next_seq;
	a->next_seq = seq + 1;
	a->trace_lost = discarded;
	a->lost_events = discarded;
	a->packets++;
	a->bytes += size;
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
	/*
	 * Written already: a dead recorder's queue had it (it died after
	 * copying the packet, before giving the slot back).
	 */
	if (a->packets && pkt->seq < a->next_seq) {
		rtr_consumer_put(s->c, pkt->cpu);
		return 0;
	}
	ret = rtr_out_packetv(o, pkt->cpu, pkt->data, pkt->body, pkt->size);
	if (ret == -ENOBUFS) {
		/* The output's queue is full: the packet stays in the ring, for the next pass. */
		rtr_consumer_unget(s->c, pkt->cpu);
		s->out_full = true;
		return ret;
	}
	/*
	 * A packet not written stays in the region, not put: the session
	 * stops there (nothing takes another packet), and `ringtrace recover`
	 * finds it in the region the recorder keeps.
	 */
	if (ret)
		return ret;
	rtr_consumer_put(s->c, pkt->cpu);
	rtr_out_publish(o);	/* the queue writes it only now (queue.c) */
	account_packet(a, pkt->seq, pkt->size, pkt->events_discarded);
	a->salvaged += salvaged;
	return 0;
}

int rtr_session_put_saved(struct rtr_session *s, struct rtr_out *o, uint32_t cpu,
			  const void *data, size_t size)
{
	struct rtr_packet_hdr h;
	int ret;

	if (cpu >= s->ncpus || size < RTR_PACKET_HDR_SIZE)
		return -EINVAL;
	memcpy(&h, data, sizeof(h));
	if (rtr_session_metadata(s, o) && rtr_out_failed(o))
		return -EIO;
	ret = rtr_out_packet(o, cpu, data, size);
	if (!ret)
		account_packet(&s->cpu[cpu], h.packet_seq_num, size, h.events_discarded);
	return ret;
}

void rtr_session_account(struct rtr_session *s)
{
	for (uint32_t i = 0; i < s->ncpus; i++) {
		struct rtr_consumer_stats st;

		rtr_consumer_get_stats(s->c, i, &st);
		s->cpu[i].damaged = st.damaged;
		s->cpu[i].lapped = st.lapped;
		/* Nothing written yet: what the producer counts so far. */
		if (!s->cpu[i].packets)
			s->cpu[i].lost_events = rtr_consumer_lost(s->c, i);
	}
}

uint64_t rtr_session_max_events(const struct rtr_session *s)
{
	return (rtr_consumer_region(s->c)->packet_size - RTR_PACKET_HDR_SIZE) / RTR_EV_COMPACT_SIZE;
}

long rtr_session_drain(struct rtr_session *s, struct rtr_out *o)
{
	uint32_t P = rtr_consumer_region(s->c)->packet_size;
	long n = 0;

	s->out_full = false;
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
		/*
		 * Only when the output can take a packet: else the packets stay in
		 * the ring, whose own rules apply (its writers drop, or wait).
		 */
		while (rtr_out_room(o, P) && rtr_consumer_get(s->c, cpu, &pkt) == 0) {
			int ret = put_packet(s, o, &pkt, false);

			if (ret == -ENOBUFS)
				break;
			if (ret)
				return ret;
			n++;
			rtr_consumer_get_stats(s->c, cpu, &st);
			if (st.packets + st.damaged + st.lapped - start >= max)
				break;
		}
		s->out_full |= !rtr_out_room(o, P);
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

/*
 * The watermark, once the drain took every complete packet: with packets
 * left in the ring (the output had no room), events before it are not all
 * given yet, and saying so would let a reader (`dump --follow`, a live
 * relayd's beacons) pass them by.
 */
static int progress(struct rtr_session *s, struct rtr_out *o)
{
	return s->out_full ? 0 : rtr_out_progress(o, s->flush_ts);
}

/*
 * When the next flush is due: every flush interval, or, while a follower
 * watches the output, every RTR_VIEWER_FLUSH_MS if that is sooner.
 */
static uint64_t flush_due(const struct rtr_session *s)
{
	uint64_t soon = s->last_flush_ns + RTR_VIEWER_FLUSH_MS * 1000000ull;

	return s->followed && soon < s->next_flush_ns ? soon : s->next_flush_ns;
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
			return progress(s, o);
		}
		if (now - s->flush_sent_ns > 5000000000ull && !s->flush_warned) {
			s->flush_warned = true;
			snprintf(s->notice, sizeof(s->notice), "%s: the producer has not closed its "
				 "packets for 5 s (its flusher thread is stuck or gone)", s->region);
			s->notice_new = true;
		}
		return 0;
	}
	s->followed = rtr_out_followed(o);
	if (s->flush_ms <= 0 || now < flush_due(s))
		return 0;
	s->last_flush_ns = now;
	s->next_flush_ns = now + (uint64_t)s->flush_ms * 1000000ull;
	s->flush_ts = rtr_clock_read();
	if (!rtr_consumer_open_packets(s->c)) {
		/* Nothing open: every event before now is in a complete packet. */
		long n = rtr_session_drain(s, o);

		return n < 0 ? (int)n : progress(s, o);
	}
	s->flush_ticket = rtr_consumer_flush_request(s->c);
	s->flush_sent_ns = now;
	s->flush_pending = true;
	return 0;
}

int rtr_session_wait_ms(const struct rtr_session *s, int max_ms)
{
	uint64_t now, ms;

	if (s->flush_ms <= 0)
		return max_ms;
	now = rtr_monotonic_ns();
	/*
	 * Soon while the flusher answers at once; less and less often while it
	 * does not (a paused guest): a quarter of the time it has not answered.
	 */
	if (s->flush_pending) {
		ms = (now - s->flush_sent_ns) / 4000000;
		return ms < 1 ? 1 : ms < (uint64_t)max_ms ? (int)ms : max_ms;
	}
	if (now >= flush_due(s))
		return 0;
	ms = (flush_due(s) - now + 999999) / 1000000;
	return ms < (uint64_t)max_ms ? (int)ms : max_ms;
}

/* Every complete packet: with a queue, waiting for room as often as it takes. */
static int drain_all(struct rtr_session *s, struct rtr_out *o)
{
	for (;;) {
		long n = rtr_session_drain(s, o);

		if (n < 0)
			return (int)n;
		if (!n && !s->out_full)
			return 0;
		if (s->out_full && !rtr_out_wait(o, 100) && rtr_out_failed(o))
			return -EIO;
	}
}

/* Room for one more packet of the ring's, waiting for it. */
static int wait_room(struct rtr_session *s, struct rtr_out *o)
{
	uint32_t P = rtr_consumer_region(s->c)->packet_size;

	while (!rtr_out_room(o, P)) {
		if (rtr_out_failed(o))
			return -EIO;
		rtr_out_wait(o, 100);
	}
	return 0;
}

int rtr_session_finish(struct rtr_session *s, struct rtr_out *o)
{
	int n = drain_all(s, o);

	if (n < 0)
		return n;
	for (uint32_t cpu = 0; cpu < s->ncpus; cpu++) {
		struct rtr_consumer_packet pkt;
		int ret;

		ret = wait_room(s, o);
		if (ret)
			return ret;
		ret = rtr_consumer_salvage(s->c, cpu, &pkt);
		if (ret == 0) {
			ret = put_packet(s, o, &pkt, true);
			if (ret)
				return ret;
		} else if (ret == -EPROTO) {
			s->cpu[cpu].unsalvageable = true;
		}
		/* Losses after the last packet: one more, header only, to tell them. */
		ret = wait_room(s, o);
		if (ret)
			return ret;
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
	bool salvaged;		/* a dead producer's open packet */
};

static int hold_packet(struct held *hd, const struct rtr_consumer_packet *pkt, bool salvaged)
{
	hd->data = malloc(pkt->size);
	if (!hd->data)
		return -ENOMEM;
	memcpy(hd->data, pkt->data, pkt->size);
	hd->cpu = pkt->cpu;
	hd->size = pkt->size;
	hd->salvaged = salvaged;
	return 0;
}

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
		ret = rtr_errf(err, errlen, EINVAL,
			       "%s: a discard-mode region is streamed, not snapshot "
			       "(snapshots are for overwrite mode)",
			       region);
		goto out;
	}
	/* N packets per CPU, and a header-only one for the last losses of a dead producer. */
	cap = (size_t)h->ncpus * (h->packets_per_cpu + 1);
	held = calloc(cap, sizeof(*held));
	if (!held) {
		ret = rtr_errf(err, errlen, ENOMEM, "out of memory");
		goto out;
	}
	gone = rtr_session_producer_gone(s);
	/*
	 * Copy first, write after: the writers go on, and the ring's oldest
	 * packets would be overwritten while files are created and synced.
	 * One CPU at a time, holding its writers off the packets not yet
	 * copied (rtr_consumer_hold(): they drop events only if they fill their
	 * open packet before we copy the oldest, a memcpy of one packet); the
	 * packets complete when the hold began, then the open one as far as its
	 * writers committed it, so the snapshot ends now without the producer's
	 * help: N packets per CPU, the last of them partly filled.
	 */
	rtr_consumer_rewind(s->c);
	for (uint32_t cpu = 0; cpu < s->ncpus; cpu++) {
		struct rtr_consumer_packet pkt;
		struct rtr_consumer_cpu ci;
		uint64_t open, last;
		bool whole = false;

		rtr_consumer_hold(s->c, cpu);
		rtr_consumer_cpu_info(s->c, cpu, &ci);
		/* The open packet (none: the last complete one is the end). */
		open = ci.prod & (h->packet_size - 1) ? ci.prod / h->packet_size : UINT64_MAX;
		last = open != UINT64_MAX ? open : ci.prod / h->packet_size - 1;
		while (nheld < cap && rtr_consumer_get(s->c, cpu, &pkt) == 0 && pkt.seq <= last) {
			ret = hold_packet(&held[nheld++], &pkt, false);
			if (ret)
				goto nomem;
			whole = pkt.seq == open;	/* closed while we copied */
			rtr_consumer_put(s->c, cpu);
		}
		if (open != UINT64_MAX && !whole && nheld < cap &&
		    rtr_consumer_salvage(s->c, cpu, &pkt) == 0) {
			ret = hold_packet(&held[nheld++], &pkt, gone);
			if (ret)
				goto nomem;
			rtr_consumer_put(s->c, cpu);
		}
		/* A dead producer's losses after its last packet. */
		if (gone && nheld < cap && rtr_consumer_tail(s->c, cpu, &pkt) == 0) {
			ret = hold_packet(&held[nheld++], &pkt, false);
			if (ret)
				goto nomem;
			rtr_consumer_put(s->c, cpu);
		}
		rtr_consumer_release(s->c, cpu);
	}
	ret = rtr_out_open(&o, opts, err, errlen);
	if (ret)
		goto out;
	ret = rtr_session_metadata(s, o);
	for (size_t i = 0; i < nheld && !ret; i++) {
		struct rtr_session_cpu *a = &s->cpu[held[i].cpu];
		const struct rtr_packet_hdr *ph = (const void *)held[i].data;

		ret = rtr_out_packet(o, held[i].cpu, held[i].data, held[i].size);
		if (!ret) {
			account_packet(a, ph->packet_seq_num, held[i].size, ph->events_discarded);
			a->salvaged += held[i].salvaged;
		}
	}
	rtr_session_account(s);
	if (ret && rtr_out_failed(o))
		rtr_errf(err, errlen, -ret, "%s", rtr_out_report(o)->err);
	else if (ret)
		rtr_errf(err, errlen, -ret, "%s: %s", opts->path, strerror(-ret));
	if (ret) {
		/* Not a snapshot of the ring: remove it, or mark it failed. */
		if (rtr_out_remove(o, orep))
			snprintf(err + strlen(err), errlen - strlen(err), " (and %s, half written, "
				 "could not be removed: its state file says failed)", opts->path);
		else
			snprintf(err + strlen(err), errlen - strlen(err), " (%s removed)",
				 opts->path);
	} else if (rtr_out_close(o, true, orep)) {
		ret = -EIO;
		rtr_errf(err, errlen, EIO, "%s%s", orep->err,
			 rtr_trace_remove(opts->parent_fd > 0 ? opts->parent_fd : AT_FDCWD,
					  opts->path)
				 ? ""
				 : " (the snapshot was removed)");
	}
	goto out;
nomem:
	ret = rtr_errf(err, errlen, ENOMEM, "out of memory");
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
