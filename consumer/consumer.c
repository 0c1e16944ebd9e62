// SPDX-License-Identifier: MIT
/*
 * consumer/consumer.c - take complete packets out of a region.
 *
 * The region is written by a producer we do not trust.  The header is copied
 * once and checked (rtr_region_check()); after that every address is
 * computed from the copy, with positions masked into the stream's buffer.
 * A packet is copied, then checked; in overwrite mode the copy is kept only
 * if @prod, read after the copy, shows no writer could have entered the
 * slot meanwhile (Documentation/ringbuf.rst, "Reading in overwrite mode").
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <ringtrace/consumer.h>
#include "format/packet.h"
#include "events/classes.h"
#include "format/error.h"
#include "platform/compiler.h"
#include "platform/platform.h"

struct stream {
	uint64_t cons;		/* our position: next packet to take */
	uint64_t last_discarded;	/* events_discarded of the last packet taken */
	uint64_t last_ts;	/* timestamp_end of the last packet taken */
	uint64_t pending;	/* lapped packets not yet reported in a packet's @skipped */
	uint64_t start;		/* where this consumer began: an earlier one took what is before */
	uint64_t lost_seen;	/* the last plausible loss count read */
	bool lost_bad;		/* an implausible one was read (and reported) */
	bool held;		/* a packet was taken and not yet put */
	uint64_t last_size;	/* of the packet held */
	bool holding;		/* a snapshot's hold is armed on this stream (@hold follows @cons) */
	struct rtr_consumer_stats st;
};

struct rtr_consumer {
	struct rtr_region_hdr h;	/* validated copy */
	struct rtr_region_mem mem;	/* where the region is, how to wake its producer */
	uint8_t *base;
	uint64_t size;
	int fd;
	uint64_t bufsize;		/* N * P */
	struct stream *streams;
	uint8_t *copy;			/* one packet */
	bool readonly;			/* a snapshot: never moves the region's @cons */
	bool claimed;			/* our pid is the region's @consumer_pid */
	bool zero_copy;			/* discard mode: header copied, body in place */
	bool gone;			/* producer_gone() said yes: for good */
	rtr_consumer_damage_fn damage_fn;
	void *damage_arg;
};

#define FAIL(...) return rtr_errf(err, errlen, EPROTO, __VA_ARGS__)

RTR_API int rtr_region_check(const struct rtr_region_hdr *h, uint64_t mapped, char *err,
			     size_t errlen)
{
	uint64_t buf_bytes, streams_end;
	const char *bad;

	if (h->magic != RTR_REGION_MAGIC)
		FAIL("not a ringtrace region (bad magic 0x%016llx)", (unsigned long long)h->magic);
	if (h->endian != RTR_REGION_ENDIAN)
		FAIL("region written with the other byte order");
	if (h->abi_major != RTR_REGION_ABI_MAJOR)
		FAIL("region ABI %u.%u, this reader knows %u.x", h->abi_major, h->abi_minor,
		     RTR_REGION_ABI_MAJOR);
	if (h->region_size != mapped)
		FAIL("region_size %llu differs from the file size %llu",
		     (unsigned long long)h->region_size, (unsigned long long)mapped);
	if (h->mode != RTR_MODE_DISCARD && h->mode != RTR_MODE_OVERWRITE)
		FAIL("unknown mode %u", h->mode);
	bad = rtr_region_geometry_bad(h->packet_size, h->packets_per_cpu, h->ncpus);
	if (bad)
		FAIL("bad %s (packet_size %u, packets_per_cpu %u, ncpus %u)", bad, h->packet_size,
		     h->packets_per_cpu, h->ncpus);
	if (h->header_size != RTR_PACKET_HDR_SIZE)
		FAIL("packet header size %u, expected %u", h->header_size, RTR_PACKET_HDR_SIZE);
	buf_bytes = (uint64_t)h->packet_size * h->packets_per_cpu;
	if (h->cpu_stride != RTR_CPU_CTL_SIZE + buf_bytes)
		FAIL("cpu_stride %llu inconsistent with the packet geometry",
		     (unsigned long long)h->cpu_stride);
	if (h->cpu_off < RTR_REGION_HDR_SIZE || h->cpu_off % 64 || h->cpu_off > mapped)
		FAIL("bad cpu_off %llu", (unsigned long long)h->cpu_off);
	/* ncpus <= 2^16 and stride <= 2^26 * 2^16 + 4096 (the limits above): no overflow */
	streams_end = h->cpu_off + (uint64_t)h->ncpus * h->cpu_stride;
	if (streams_end > mapped)
		FAIL("%u streams end at %llu, past the region's %llu bytes", h->ncpus,
		     (unsigned long long)streams_end, (unsigned long long)mapped);
	if (h->metadata_off < RTR_REGION_HDR_SIZE || h->metadata_cap > RTR_METADATA_MAX ||
	    h->metadata_off + h->metadata_cap > h->cpu_off)
		FAIL("bad metadata area %llu+%u", (unsigned long long)h->metadata_off,
		     h->metadata_cap);
	if (h->metadata_len > h->metadata_cap)
		FAIL("metadata_len %u exceeds its area's %u bytes", h->metadata_len, h->metadata_cap);
	if (h->clock_freq < RTR_CLOCK_FREQ_MIN || h->clock_freq > RTR_CLOCK_FREQ_MAX)
		FAIL("clock frequency %llu Hz, not a clock ringtrace writes (1 MHz to 100 GHz)",
		     (unsigned long long)h->clock_freq);
	if (!rtr_ts_fits(h->clock_freq, h->clock_offset_ns, 0))
		FAIL("clock offset %lld ns is not a time", (long long)h->clock_offset_ns);
	return 0;
}

/*
 * Check the region @c->mem holds and set up the streams; @c->mem is
 * released on failure.  @what names it in @err.
 */
static int open_mem(struct rtr_consumer *c, const char *what, char *err, size_t errlen)
{
	int ret;

	c->base = c->mem.base;
	c->size = c->mem.size;
	c->fd = c->mem.fd;
	if (c->size < RTR_REGION_HDR_SIZE) {
		ret = rtr_errf(err, errlen, EPROTO, "%s: %llu bytes, too small for a region", what,
			       (unsigned long long)c->size);
		goto err;
	}
	if (rtr_load_acquire(&((struct rtr_region_hdr *)c->base)->magic) == 0) {
		ret = rtr_errf(err, errlen, EAGAIN, "%s: the producer has not finished creating it",
			       what);
		goto err;
	}
	memcpy(&c->h, c->base, sizeof(c->h));
	{
		char why[200];

		ret = rtr_region_check(&c->h, c->size, why, sizeof(why));
		if (!ret && c->mem.max_cpus && c->h.ncpus > c->mem.max_cpus)
			ret = rtr_errf(why, sizeof(why), EPROTO, "more streams than its control "
				       "page has words for");
		if (ret) {
			rtr_errf(err, errlen, -ret, "%s: %s", what, why);
			goto err;
		}
	}
	/* The consumer's words: in the control pages unless the platform keeps them. */
	if (!c->mem.cons) {
		c->mem.cons = c->base + c->h.cpu_off + offsetof(struct rtr_cpu_ctl, cons);
		c->mem.cons_stride = c->h.cpu_stride;
	}
	if (!c->mem.flush_req)
		c->mem.flush_req = &((struct rtr_region_hdr *)c->base)->flush_req;
	c->bufsize = (uint64_t)c->h.packet_size * c->h.packets_per_cpu;
	c->streams = calloc(c->h.ncpus, sizeof(*c->streams));
	/* Page-aligned: a copied packet can be written with O_DIRECT as it is. */
	if (posix_memalign((void **)&c->copy, 4096, c->h.packet_size))
		c->copy = NULL;
	if (!c->streams || !c->copy) {
		ret = -ENOMEM;
		goto err;
	}
	/*
	 * Start where the region says the consumer is (a consumer may take over
	 * from another).  A consumer that finished a dead producer's stream
	 * left @cons past @prod: one packet past the open packet it salvaged,
	 * and one more for the header-only packet that told the last losses
	 * (rtr_consumer_tail()); so up to two packets past @prod is where it
	 * stopped, and nothing is taken twice.  Further, or a position no
	 * producer reaches, is not believed: start at the producer's current
	 * packet, and count it.
	 */
	for (uint32_t i = 0; i < c->h.ncpus; i++) {
		struct rtr_cpu_ctl *cb = (void *)(c->base + c->h.cpu_off + i * c->h.cpu_stride);
		struct rtr_cons_words *w = (void *)(c->mem.cons + i * c->mem.cons_stride);
		uint64_t P = c->h.packet_size, mask = ~(P - 1);
		uint64_t cons = rtr_load(&w->cons) & mask, prod = rtr_load_acquire(&cb->prod);

		if (prod > RTR_POS_MAX) {
			cons = 0;
			c->streams[i].st.bad_position++;
		} else if (cons > ((prod + P - 1) & mask) + P) {
			cons = prod & mask;
			c->streams[i].st.bad_position++;
		}
		c->streams[i].cons = cons;
		c->streams[i].start = cons;
	}
	return 0;
err:
	free(c->streams);
	free(c->copy);
	c->mem.ops->release(&c->mem, false);
	return ret;
}

RTR_API int rtr_consumer_open(struct rtr_consumer **out, const char *path, char *err,
			      size_t errlen)
{
	struct rtr_consumer *c;
	int ret;

	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	ret = rtr_region_file_open(&c->mem, path);
	if (ret) {
		free(c);
		return rtr_errf(err, errlen, -ret, "%s: %s", path, strerror(-ret));
	}
	ret = open_mem(c, path, err, errlen);
	if (ret) {
		free(c);
		return ret;
	}
	*out = c;
	return 0;
}

RTR_API int rtr_consumer_open_xen(struct rtr_consumer **out, const char *domain, char *err,
				  size_t errlen)
{
	struct rtr_consumer *c;
	char what[96];
	int ret;

	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	ret = rtr_xen_region_attach(&c->mem, domain, err, errlen);
	if (ret) {
		free(c);
		return ret;
	}
	snprintf(what, sizeof(what), "domain %s", domain);
	ret = open_mem(c, what, err, errlen);
	if (ret) {
		free(c);
		return ret;
	}
	*out = c;
	return 0;
}

RTR_API void rtr_consumer_close(struct rtr_consumer *c)
{
	if (!c)
		return;
	for (uint32_t i = 0; i < c->h.ncpus && c->streams; i++)
		rtr_consumer_release(c, i);
	if (c->claimed) {
		/* Detached: writers blocked for room no longer wait on us. */
		struct rtr_region_hdr *h = (struct rtr_region_hdr *)c->base;
		uint32_t me = (uint32_t)getpid();

		__atomic_compare_exchange_n(&h->consumer_pid, &me, 0, false, __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED);
	}
	c->mem.ops->release(&c->mem, false);
	free(c->streams);
	free(c->copy);
	free(c);
}

RTR_API const char *rtr_consumer_name(const struct rtr_consumer *c)
{
	return c->mem.name;
}

/*
 * Region ABI 1.2: every process of @procs (the producer's forked children)
 * is gone too.  The pids are the region's, untrusted: a pid counts only
 * while its process maps the region (unix: writer_gone()), so a scribbled
 * table, or a pid reused by another program, keeps nobody waiting.
 */
static bool others_gone(struct rtr_consumer *c)
{
	const struct rtr_region_hdr *h = (const struct rtr_region_hdr *)c->base;

	if (c->h.abi_minor < 2)
		return true;
	for (uint32_t i = 0; i < RTR_REGION_PROCS; i++) {
		/* Bit 31: an entry a parent reserved for a child being forked; its pid. */
		uint32_t pid = rtr_load(&h->procs[i]) & 0x7fffffffu;

		if (pid && pid != c->h.producer_pid &&
		    !(c->mem.ops->writer_gone ? c->mem.ops->writer_gone(&c->mem, pid) :
		      c->mem.ops->producer_gone(&c->mem, pid)))
			return false;
	}
	return true;
}

RTR_API bool rtr_consumer_producer_gone(const struct rtr_consumer *c)
{
	struct rtr_consumer *m = (struct rtr_consumer *)c;

	/*
	 * One answer for good: a caller that ends its loop on "gone" and asks
	 * again to choose how to finish must not hear "running" (a starved
	 * guest's heartbeat moving again in between made consume stop as if
	 * interrupted, without a word and with its trace unfinished).
	 */
	if (!m->gone)
		m->gone = m->mem.ops->producer_gone(&m->mem, c->h.producer_pid) &&
			  others_gone(m);
	return m->gone;
}

RTR_API int rtr_consumer_procs(const struct rtr_consumer *c, struct rtr_consumer_procs *p)
{
	const struct rtr_region_hdr *h = (const struct rtr_region_hdr *)c->base;

	if (!p || p->struct_size < sizeof(*p))
		return -EINVAL;
	memset(p, 0, sizeof(*p));
	p->struct_size = sizeof(*p);
	if (c->h.abi_minor < 2)
		return 0;
	_Static_assert(RTR_REGION_UNTRACED_PIDS == 8, "as many as the public struct holds");
	p->writing = rtr_load(&h->nprocs);
	p->followed = rtr_load(&h->followed);
	p->untraced = rtr_load(&h->untraced);
	p->untraced_exec = rtr_load(&h->untraced_exec);
	if (p->untraced_exec > p->untraced)
		p->untraced_exec = p->untraced;	/* the region's word: not believed past the total */
	for (uint32_t i = 0; i < RTR_REGION_UNTRACED_PIDS && i < p->untraced; i++)
		p->untraced_pids[i] = rtr_load(&h->untraced_pids[i]);
	return 0;
}

RTR_API const char *rtr_consumer_gone_why(const struct rtr_consumer *c)
{
	return c->mem.gone_why;
}

RTR_API const struct rtr_region_hdr *rtr_consumer_region(const struct rtr_consumer *c)
{
	return &c->h;
}

static struct rtr_cpu_ctl *ctl(const struct rtr_consumer *c, uint32_t cpu)
{
	return (struct rtr_cpu_ctl *)(c->base + c->h.cpu_off + cpu * c->h.cpu_stride);
}

static struct rtr_cons_words *words(const struct rtr_consumer *c, uint32_t cpu)
{
	return (struct rtr_cons_words *)(c->mem.cons + cpu * c->mem.cons_stride);
}

static const uint8_t *slot(const struct rtr_consumer *c, uint32_t cpu, uint64_t pos)
{
	return c->base + c->h.cpu_off + cpu * c->h.cpu_stride + RTR_CPU_CTL_SIZE +
	       (pos & (c->bufsize - 1));
}

/*
 * Copy from shared memory.  Under ThreadSanitizer, word by word with relaxed
 * atomics, so that the validated racy read of overwrite mode is not reported
 * as a race; otherwise memcpy.
 */
static void copy_shared(void *dst, const void *src, size_t n)
{
#ifdef RTR_TSAN
	const uint8_t *s = src;
	uint8_t *d = dst;

	for (size_t i = 0; i < n; i++)
		d[i] = __atomic_load_n(&s[i], __ATOMIC_RELAXED);
#else
	memcpy(dst, src, n);
#endif
}

static bool ts_fits(const struct rtr_consumer *c, uint64_t ts)
{
	return rtr_ts_fits(c->h.clock_freq, c->h.clock_offset_ns, ts);
}

/* Check a copied packet header; NULL if it is the packet expected at @pos. */
static const char *check_packet(const struct rtr_consumer *c, uint32_t cpu, uint64_t pos,
				const struct rtr_packet_hdr *p)
{
	struct rtr_packet_rules r = {
		.cpu = cpu, .max_bytes = c->h.packet_size, .freq = c->h.clock_freq,
		.base_ns = c->h.clock_offset_ns, .prev_discarded = c->streams[cpu].last_discarded,
	};

	if (p->magic != RTR_CTF_MAGIC)
		return "bad magic";
	if (memcmp(p->uuid, c->h.uuid, sizeof(p->uuid)))
		return "uuid differs from the region's";
	if (p->packet_seq_num != pos / c->h.packet_size)
		return "sequence number does not match the position";
	return rtr_packet_check(p, &r);
}

static void fill_packet(struct rtr_consumer *c, struct stream *s, uint32_t cpu,
			struct rtr_consumer_packet *pkt);

static void damaged(struct rtr_consumer *c, uint32_t cpu, uint64_t seq, const char *why)
{
	if (c->damage_fn)
		c->damage_fn(c->damage_arg, cpu, seq, why);
}

RTR_API void rtr_consumer_on_damage(struct rtr_consumer *c, rtr_consumer_damage_fn fn, void *arg)
{
	c->damage_fn = fn;
	c->damage_arg = arg;
}

/*
 * take_stream() - the stream of @cpu, with the packet a previous call took
 * and did not put released (the copy is ours anyway); NULL out of range.
 */
static struct stream *take_stream(struct rtr_consumer *c, uint32_t cpu, struct rtr_cpu_ctl **cb)
{
	if (cpu >= c->h.ncpus)
		return NULL;
	*cb = ctl(c, cpu);
	if (c->streams[cpu].held)
		rtr_consumer_put(c, cpu);
	return &c->streams[cpu];
}

/*
 * The region's region file is ours to write (a Xen dom0's mapping of a
 * guest's pages is read-only: there the consumer's words are elsewhere, and
 * there is neither @consumer_pid nor a snapshot's hold).
 */
static bool local(const struct rtr_consumer *c)
{
	return c->fd >= 0;
}

/* Name us the region's consumer: writers blocked for room look for us. */
static void claim(struct rtr_consumer *c)
{
	if (c->claimed || c->readonly || !local(c))
		return;
	c->claimed = true;
	rtr_store(&((struct rtr_region_hdr *)c->base)->consumer_pid, (uint32_t)getpid());
}

/*
 * Move the region's consumer position of stream @cpu to @cons, and wake the
 * writers blocked for room, if any (blocking mode: they count themselves in
 * @waiting, fence, then look at @cons; we store @cons, fence, then look at
 * @waiting).  The first such store names us the region's consumer.
 */
static void release_to(struct rtr_consumer *c, uint32_t cpu, uint64_t cons)
{
	struct rtr_cons_words *w = words(c, cpu);

	claim(c);
	rtr_store_release(&w->cons, cons);
	rtr_smp_mb();
	if (rtr_load(&ctl(c, cpu)->waiting))
		c->mem.ops->wake(&c->mem, (uint32_t *)&w->cons +
				 (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__));
}

/*
 * A snapshot's hold on the packets from @pos on, for HOLD_STEP_MS: long
 * enough to copy a packet, short enough that a reader stalled meanwhile
 * (descheduled on a loaded machine) costs the writers little.  Renewed at
 * each packet copied.
 */
#define HOLD_STEP_MS 250

static void hold_from(struct rtr_consumer *c, uint32_t cpu, uint64_t pos)
{
	struct rtr_cpu_ctl *cb = ctl(c, cpu);

	if (!local(c))
		return;
	rtr_store(&cb->hold, pos);
	rtr_store_release(&cb->hold_until,
			  rtr_clock_read() + c->h.clock_freq / 1000 * HOLD_STEP_MS);
}

/*
 * lapped() - after copying the packet at @pos (header @p copied first), may
 * a writer have written into its slot meanwhile?  The slot is next used
 * from position @pos + B, and no byte of it is written before a writer
 * opens that packet: while @prod is below @pos + B, never; at exactly
 * @pos + B (the ring full to the byte, the opener between its check and its
 * commit), at most the new header, which the writer commits at once or,
 * interrupted, retries from a fresh check.  So the copy stands if @prod is
 * still at most @pos + B and, at @pos + B, the header is unchanged since it
 * was copied (a header written over ours would also fail check_packet():
 * its sequence number and times belong to a later packet).
 */
static bool lapped(const struct rtr_consumer *c, struct rtr_cpu_ctl *cb, uint32_t cpu,
		   uint64_t pos, const struct rtr_packet_hdr *p)
{
	uint64_t prod = rtr_load_acquire(&cb->prod), B = c->bufsize;
	uint8_t again[RTR_PACKET_HDR_SIZE];

	if (prod < pos + B)
		return false;
	if (prod > pos + B)
		return true;
	copy_shared(again, slot(c, cpu, pos), sizeof(again));
	return memcmp(again, p, sizeof(again)) != 0;
}

RTR_API int rtr_consumer_get(struct rtr_consumer *c, uint32_t cpu,
			     struct rtr_consumer_packet *pkt)
{
	uint64_t P = c->h.packet_size, B = c->bufsize;
	struct rtr_packet_hdr *p = (struct rtr_packet_hdr *)c->copy;
	struct rtr_cpu_ctl *cb;
	struct stream *s;

	s = take_stream(c, cpu, &cb);
	if (!s)
		return -EINVAL;
	/*
	 * Each turn returns or advances s->cons by a packet.  A producer that
	 * keeps moving @prod (or lapping every copy) could keep us here: after
	 * a buffer's worth of turns, return and let the caller come back.
	 */
	for (uint32_t turn = 0;; turn++) {
		uint64_t prod = rtr_load_acquire(&cb->prod), size;
		const uint8_t *body;
		const char *why;

		if (prod < s->cons || prod > RTR_POS_MAX) {
			s->st.bad_position++;
			return -EAGAIN;
		}
		if (prod - s->cons < P || turn > c->h.packets_per_cpu + 1)
			return -EAGAIN;
		if (prod - s->cons > B) {
			/* Lapped (overwrite mode), or nonsense from the producer. */
			uint64_t oldest = (prod & ~(P - 1)) - B + P;

			if (c->h.mode == RTR_MODE_DISCARD) {
				/* No writer passes the consumer in discard mode: damage. */
				damaged(c, cpu, s->cons / P, "the producer's position jumped past "
					"the unread packets (discard mode)");
				s->st.bad_position++;
				s->st.damaged += (oldest - s->cons) / P;
			} else {
				s->st.lapped += (oldest - s->cons) / P;
			}
			s->pending += (oldest - s->cons) / P;
			s->cons = oldest;
		}
		copy_shared(p, slot(c, cpu, s->cons), RTR_PACKET_HDR_SIZE);
		size = p->content_size / 8;
		body = slot(c, cpu, s->cons) + RTR_PACKET_HDR_SIZE;
		/* Zero copy: the body stays where it is; the trace's readers check it. */
		if (!(c->zero_copy && c->h.mode == RTR_MODE_DISCARD) &&
		    size > RTR_PACKET_HDR_SIZE && size <= P) {
			copy_shared(c->copy + RTR_PACKET_HDR_SIZE, body, size - RTR_PACKET_HDR_SIZE);
			body = c->copy + RTR_PACKET_HDR_SIZE;
		}
		rtr_smp_rmb();	/* the copy before the second look at @prod */
		if (c->h.mode == RTR_MODE_OVERWRITE && lapped(c, cb, cpu, s->cons, p)) {
			/* A writer may have entered the slot during the copy. */
			s->pending++;
			s->st.lapped++;
			s->cons += P;
			if (s->holding)
				hold_from(c, cpu, s->cons);
			continue;
		}
		why = check_packet(c, cpu, s->cons, p);
		if (why) {
			damaged(c, cpu, s->cons / P, why);
			s->st.damaged++;
			s->pending++;
			s->cons += P;
			if (!c->readonly)
				release_to(c, cpu, s->cons);
			else if (s->holding)
				hold_from(c, cpu, s->cons);
			continue;
		}
		fill_packet(c, s, cpu, pkt);
		pkt->body = body;
		return 0;
	}
}

RTR_API void rtr_consumer_zero_copy(struct rtr_consumer *c, bool on)
{
	c->zero_copy = on;
}

static void fill_packet(struct rtr_consumer *c, struct stream *s, uint32_t cpu,
			struct rtr_consumer_packet *pkt)
{
	const struct rtr_packet_hdr *p = (const struct rtr_packet_hdr *)c->copy;

	pkt->cpu = cpu;
	pkt->seq = p->packet_seq_num;
	pkt->size = p->content_size / 8;
	pkt->data = c->copy;
	pkt->body = c->copy + RTR_PACKET_HDR_SIZE;
	pkt->skipped = s->pending;
	pkt->events_discarded = p->events_discarded;
	pkt->timestamp_begin = p->timestamp_begin;
	pkt->timestamp_end = p->timestamp_end;
	s->last_discarded = p->events_discarded;
	s->last_ts = p->timestamp_end;
	s->pending = 0;
	s->held = true;
	s->last_size = pkt->size;
	s->st.packets++;
	s->st.bytes += pkt->size;
}

RTR_API int rtr_consumer_salvage(struct rtr_consumer *c, uint32_t cpu,
				 struct rtr_consumer_packet *pkt)
{
	uint64_t P = c->h.packet_size, prod, start, last_ts;
	struct rtr_packet_hdr *p = (struct rtr_packet_hdr *)c->copy;
	struct rtr_cpu_ctl *cb;
	struct stream *s;
	const char *why;

	s = take_stream(c, cpu, &cb);
	if (!s)
		return -EINVAL;
	prod = rtr_load_acquire(&cb->prod);
	last_ts = rtr_load(&cb->last_ts);
	start = prod & ~(P - 1);
	if (prod == start || start != s->cons)
		return -EAGAIN;
	if (prod - start < RTR_PACKET_HDR_SIZE) {
		damaged(c, cpu, start / P, "open packet shorter than its header");
		s->st.damaged++;
		return -EPROTO;
	}
	if (prod > RTR_POS_MAX)
		return -EAGAIN;
	copy_shared(c->copy, slot(c, cpu, start), prod - start);
	rtr_smp_rmb();	/* the copy before the second look at @prod */
	/* A live producer (a snapshot) may have closed it and gone round the ring since. */
	if (c->h.mode == RTR_MODE_OVERWRITE && lapped(c, cb, cpu, start, p)) {
		s->st.lapped++;
		s->pending++;
		s->cons += P;
		return -EAGAIN;
	}
	if (!ts_fits(c, last_ts)) {
		/* The end time of the records cannot be known: none is believed. */
		damaged(c, cpu, start / P, "the open packet's last timestamp is not a time");
		s->st.damaged++;
		return -EPROTO;
	}
	if (last_ts < p->timestamp_begin)
		last_ts = p->timestamp_begin;
	p->timestamp_end = last_ts;
	p->content_size = (prod - start) * 8;
	p->packet_size = p->content_size;
	p->events_discarded = rtr_consumer_lost(c, cpu);
	why = check_packet(c, cpu, start, p);
	if (why) {
		damaged(c, cpu, start / P, why);
		s->st.damaged++;
		return -EPROTO;
	}
	fill_packet(c, s, cpu, pkt);
	return 0;
}

RTR_API int rtr_consumer_tail(struct rtr_consumer *c, uint32_t cpu,
			      struct rtr_consumer_packet *pkt)
{
	struct rtr_packet_hdr *p = (struct rtr_packet_hdr *)c->copy;
	uint64_t P = c->h.packet_size, prod, lost, ts;
	struct rtr_cpu_ctl *cb;
	struct stream *s;

	s = take_stream(c, cpu, &cb);
	if (!s)
		return -EINVAL;
	prod = rtr_load_acquire(&cb->prod);
	lost = rtr_consumer_lost(c, cpu);
	/*
	 * Packets remain to be taken; or an earlier consumer took this tail
	 * already (@cons a packet past the end of the producer's last packet).
	 */
	if (prod > s->cons || s->cons > ((prod + P - 1) & ~(P - 1)) || lost <= s->last_discarded)
		return -EAGAIN;
	/* The stream's last time; the control page's only if it is one. */
	ts = rtr_load(&cb->last_ts);
	if (ts < s->last_ts || !ts_fits(c, ts))
		ts = s->last_ts;
	memset(p, 0, RTR_PACKET_HDR_SIZE);
	p->magic = RTR_CTF_MAGIC;
	memcpy(p->uuid, c->h.uuid, sizeof(p->uuid));
	p->stream_instance_id = cpu;
	p->cpu_id = cpu;
	p->timestamp_begin = ts;
	p->timestamp_end = ts;
	p->packet_seq_num = s->cons / P;
	p->content_size = (uint64_t)RTR_PACKET_HDR_SIZE * 8;
	p->packet_size = p->content_size;
	p->events_discarded = lost;
	fill_packet(c, s, cpu, pkt);
	return 0;
}

RTR_API void rtr_consumer_put(struct rtr_consumer *c, uint32_t cpu)
{
	struct stream *s;

	if (cpu >= c->h.ncpus)
		return;
	s = &c->streams[cpu];
	if (!s->held)
		return;
	s->held = false;
	s->cons += c->h.packet_size;
	if (!c->readonly)
		release_to(c, cpu, s->cons);
	else if (s->holding)
		hold_from(c, cpu, s->cons);	/* the copied one is free; the next is held anew */
}

RTR_API void rtr_consumer_unget(struct rtr_consumer *c, uint32_t cpu)
{
	struct stream *s;

	if (cpu >= c->h.ncpus || !c->streams[cpu].held)
		return;
	s = &c->streams[cpu];
	s->held = false;
	s->st.packets--;
	s->st.bytes -= s->last_size;
}

RTR_API void rtr_consumer_read_only(struct rtr_consumer *c)
{
	c->readonly = true;
}

RTR_API uint64_t rtr_consumer_start(const struct rtr_consumer *c, uint32_t cpu)
{
	return cpu < c->h.ncpus ? c->streams[cpu].start : 0;
}

/*
 * The oldest packet stream @i's ring holds now: with the writers between
 * two packets (or gone), all N of them, B back; with a packet open, the
 * N - 1 before it (the open one is in the slot of the oldest).
 */
static uint64_t oldest(struct rtr_consumer *c, uint32_t i)
{
	uint64_t P = c->h.packet_size, prod = rtr_load_acquire(&ctl(c, i)->prod);
	uint64_t keep = prod & (P - 1) ? c->bufsize - P : c->bufsize;
	uint64_t cur = prod & ~(P - 1);

	if (prod > RTR_POS_MAX)
		return c->streams[i].cons;
	return cur > keep ? cur - keep : 0;
}

RTR_API void rtr_consumer_rewind(struct rtr_consumer *c)
{
	c->readonly = true;
	for (uint32_t i = 0; i < c->h.ncpus; i++) {
		struct stream *s = &c->streams[i];

		s->held = false;
		s->pending = 0;
		s->cons = oldest(c, i);
	}
}

RTR_API int rtr_consumer_hold(struct rtr_consumer *c, uint32_t cpu)
{
	struct stream *s;

	if (cpu >= c->h.ncpus || !c->readonly || c->h.mode != RTR_MODE_OVERWRITE)
		return -EINVAL;
	s = &c->streams[cpu];
	s->held = false;
	s->pending = 0;
	/*
	 * Store the hold, fence, then look where the writers are: a writer that
	 * opens a packet after this sees the hold; one that opened before is
	 * seen here, or by lapped() after the copy.  Twice: the writers may
	 * have gone on between our look and the hold.
	 */
	for (int i = 0; i < 2; i++) {
		s->cons = oldest(c, cpu);
		hold_from(c, cpu, s->cons);
		rtr_smp_mb();
		if (oldest(c, cpu) == s->cons)
			break;
	}
	s->holding = true;
	return 0;
}

RTR_API void rtr_consumer_release(struct rtr_consumer *c, uint32_t cpu)
{
	if (cpu >= c->h.ncpus || !c->streams[cpu].holding)
		return;
	c->streams[cpu].holding = false;
	if (local(c))
		rtr_store_release(&ctl(c, cpu)->hold_until, 0);
}

static bool any_ready(struct rtr_consumer *c)
{
	for (uint32_t i = 0; i < c->h.ncpus; i++) {
		uint64_t prod = rtr_load_acquire(&ctl(c, i)->prod);

		if (prod >= c->streams[i].cons + c->h.packet_size)
			return true;
	}
	return false;
}

static void arm(struct rtr_consumer *c, bool on)
{
	for (uint32_t i = 0; i < c->h.ncpus; i++)
		rtr_store(&words(c, i)->notify_at, on ? c->streams[i].cons + c->h.packet_size : 0);
}

RTR_API uint32_t rtr_consumer_metadata_len(const struct rtr_consumer *c)
{
	struct rtr_region_hdr *h = (struct rtr_region_hdr *)c->base;

	return rtr_load_acquire(&h->metadata_len);
}

/*
 * Read @len bytes at @off of the region: pread() from a file (a truncated
 * file is an error, not a SIGBUS), a copy from granted pages (which stay
 * mapped while we hold them).  @off + @len is within the checked header's
 * bounds.
 */
static int read_region(const struct rtr_consumer *c, void *buf, size_t len, uint64_t off)
{
	if (c->fd >= 0)
		return pread(c->fd, buf, len, (off_t)off) == (ssize_t)len ? 0 : -EIO;
	if (off > c->size || len > c->size - off)
		return -EIO;
	copy_shared(buf, c->base + off, len);
	return 0;
}

/* Copy the registry out of the region, then parse the copy. */
static int read_registry(struct rtr_consumer *c, struct rtr_registry *reg, uint32_t *len,
			 char *err, size_t errlen)
{
	uint32_t mlen;
	char *text;
	int ret;

	if (read_region(c, &mlen, sizeof(mlen), offsetof(struct rtr_region_hdr, metadata_len)))
		return rtr_errf(err, errlen, EIO, "registry unreadable");
	*len = mlen;
	/* The checked header copy fixes the area; only the length moves. */
	if (mlen > c->h.metadata_cap)
		return rtr_errf(err, errlen, EPROTO,
				"registry length %u exceeds its area's %u bytes", mlen,
				c->h.metadata_cap);
	text = malloc(mlen + 1);
	if (!text)
		return -ENOMEM;
	if (read_region(c, text, mlen, c->h.metadata_off)) {
		free(text);
		return rtr_errf(err, errlen, EIO, "registry unreadable");
	}
	ret = rtr_registry_parse(text, mlen, reg, err, errlen);
	free(text);
	return ret;
}

RTR_API int rtr_consumer_metadata(struct rtr_consumer *c, char **textp, size_t *len,
				  uint32_t *registry_len, char *err, size_t errlen)
{
	struct rtr_registry reg;
	uint32_t mlen = 0;
	char *text = NULL;
	FILE *f;
	int ret;

	*textp = NULL;
	if (err && errlen)
		err[0] = 0;
	ret = read_registry(c, &reg, &mlen, err, errlen);
	if (ret == -ENOMEM)
		goto nomem;
	if (ret)
		memset(&reg, 0, sizeof(reg));	/* the packets still decode; no names */
	*len = 0;
	f = open_memstream(&text, len);
	if (!f) {
		rtr_registry_free(&reg);
		goto nomem;
	}
	ret = rtr_events_write_metadata(f, &c->h, &reg, NULL);
	if (fclose(f) && !ret)
		ret = -ENOMEM;
	rtr_registry_free(&reg);
	if (ret) {
		free(text);
		if (ret != -EINVAL)
			goto nomem;
		/* A registry the parser took, whose classes still do not make TSDL. */
		return rtr_errf(err, errlen, EPROTO,
				"the registry's event classes make no valid metadata");
	}
	if (registry_len)
		*registry_len = mlen;
	*textp = text;
	return 0;
nomem:
	return rtr_errf(err, errlen, ENOMEM, "out of memory");
}

RTR_API bool rtr_consumer_stopped(const struct rtr_consumer *c)
{
	struct rtr_region_hdr *h = (struct rtr_region_hdr *)c->base;

	return rtr_load_acquire(&h->state) == RTR_STATE_STOPPED;
}

RTR_API int rtr_consumer_wait(struct rtr_consumer *c, int timeout_ms)
{
	struct rtr_region_hdr *h = (struct rtr_region_hdr *)c->base;
	uint32_t seq = rtr_load_acquire(&h->wake_seq);
	int ret;

	claim(c);	/* the region's consumer from its first wait */
	arm(c, true);
	rtr_smp_mb();	/* @notify_at stores before @prod loads; pairs with writers */
	if (any_ready(c) || rtr_consumer_stopped(c)) {
		arm(c, false);
		return 1;
	}
	ret = c->mem.ops->wait(&c->mem, &h->wake_seq, seq, timeout_ms);
	arm(c, false);
	if (ret == -ETIMEDOUT)
		return 0;
	if (ret && ret != -EINTR)
		return ret;
	return 1;
}

RTR_API uint32_t rtr_consumer_flush_request(struct rtr_consumer *c)
{
	uint32_t req = rtr_add(c->mem.flush_req, 1);

	c->mem.ops->wake(&c->mem, c->mem.flush_req);
	return req;
}

RTR_API bool rtr_consumer_flush_done(const struct rtr_consumer *c, uint32_t ticket)
{
	struct rtr_region_hdr *h = (struct rtr_region_hdr *)c->base;

	return (int32_t)(rtr_load_acquire(&h->flush_done) - ticket) >= 0;
}

RTR_API bool rtr_consumer_open_packets(const struct rtr_consumer *c)
{
	for (uint32_t i = 0; i < c->h.ncpus; i++)
		if (rtr_load_acquire(&ctl(c, i)->prod) & (c->h.packet_size - 1))
			return true;
	return false;
}

RTR_API int rtr_consumer_flush(struct rtr_consumer *c, int timeout_ms)
{
	struct rtr_region_hdr *h = (struct rtr_region_hdr *)c->base;
	uint64_t deadline = rtr_monotonic_ns() + (uint64_t)timeout_ms * 1000000ull;
	uint32_t req = rtr_consumer_flush_request(c);

	for (;;) {
		uint32_t done = rtr_load_acquire(&h->flush_done);
		uint64_t now;

		if ((int32_t)(done - req) >= 0)
			return 0;
		now = rtr_monotonic_ns();
		if (now >= deadline)
			return -ETIMEDOUT;
		c->mem.ops->wait(&c->mem, &h->flush_done, done,
				 (int)((deadline - now) / 1000000 + 1));
	}
}

/*
 * Counts no producer could reach (RTR_LOST_MAX), or going down, are damage:
 * the last plausible count stands.
 */

RTR_API uint64_t rtr_consumer_lost(const struct rtr_consumer *c, uint32_t cpu)
{
	struct rtr_cpu_ctl *cb;
	struct stream *s;
	uint64_t full, big, busy, sum;

	if (cpu >= c->h.ncpus)
		return 0;
	cb = ctl(c, cpu);
	s = &c->streams[cpu];
	full = rtr_load(&cb->lost_full);
	big = rtr_load(&cb->lost_big);
	busy = rtr_load(&cb->lost_busy);
	sum = full + big + busy;
	if (full > RTR_LOST_MAX || big > RTR_LOST_MAX || busy > RTR_LOST_MAX ||
	    sum < s->lost_seen) {
		if (!s->lost_bad && c->damage_fn) {
			char why[120];

			snprintf(why, sizeof(why), "implausible loss counters (%llu, %llu, %llu); "
				 "keeping %llu", (unsigned long long)full, (unsigned long long)big,
				 (unsigned long long)busy, (unsigned long long)s->lost_seen);
			c->damage_fn(c->damage_arg, cpu, s->cons / c->h.packet_size, why);
		}
		s->lost_bad = true;
		return s->lost_seen;
	}
	s->lost_seen = sum;
	return sum;
}

RTR_API void rtr_consumer_get_stats(const struct rtr_consumer *c, uint32_t cpu,
				    struct rtr_consumer_stats *st)
{
	if (cpu < c->h.ncpus)
		*st = c->streams[cpu].st;
	else
		memset(st, 0, sizeof(*st));
}

RTR_API int rtr_consumer_cpu_info(const struct rtr_consumer *c, uint32_t cpu,
				  struct rtr_consumer_cpu *out)
{
	struct rtr_cpu_ctl *cb;

	if (cpu >= c->h.ncpus)
		return -EINVAL;
	cb = ctl(c, cpu);
	out->prod = rtr_load(&cb->prod);
	out->cons = rtr_load(&words(c, cpu)->cons);
	out->lost_full = rtr_load(&cb->lost_full);
	out->lost_big = rtr_load(&cb->lost_big);
	out->lost_busy = rtr_load(&cb->lost_busy);
	out->notify_at = rtr_load(&words(c, cpu)->notify_at);
	return 0;
}
