// SPDX-License-Identifier: MIT
/*
 * reader/cursor.c - one stream file, packet by packet, record by record
 * (cursor.h): the packet header checked as it is reached, each record
 * checked whole before it is returned.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ringtrace/region.h>
#include "format/error.h"
#include "reader/ctf_plan.h"
#include "reader/cursor.h"
#include "events/classes.h"

#define TS_MASK		((1ull << RTR_EV_TS_BITS) - 1)

/* tr_cursor_fast_paths(): off only in tests */
static bool fast_paths = true;

void tr_cursor_fast_paths(bool on)
{
	fast_paths = on;
}

__attribute__((format(printf, 3, 4), cold))
static int fail(struct tr_cursor *c, uint64_t off, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rtr_verrf_at(c->err, sizeof(c->err), EPROTO, c->s->path, RTR_AT_OFFSET, off, fmt, ap);
	va_end(ap);
	c->failed = true;
	return TR_ERROR;
}

/* A producer's known quirk at @off: counted, the first one said; the read goes on. */
__attribute__((format(printf, 3, 4)))
static void quirk(struct tr_cursor *c, uint64_t off, const char *fmt, ...)
{
	va_list ap;

	if (c->quirks++)
		return;
	va_start(ap, fmt);
	rtr_verrf_at(c->quirk, sizeof(c->quirk), 0, c->s->path, RTR_AT_OFFSET, off, fmt, ap);
	va_end(ap);
}

void tr_cursor_init(struct tr_cursor *c, const struct tr_trace *t, uint32_t stream)
{
	memset(c, 0, sizeof(*c));
	c->md = &t->md;
	c->s = &t->streams[stream];
	c->sclass = -1;
}

void tr_cursor_continue(struct tr_cursor *c, const struct tr_cursor *prev)
{
	if (!prev->started)
		return;
	c->started = true;
	c->cpu = prev->cpu;
	c->kernel = prev->kernel;
	c->seq = prev->seq;
	c->discarded = prev->discarded;
	c->ts_end = prev->ts_end;
	c->first_seq = prev->first_seq;
	c->first_events = prev->first_events;
	c->clock = prev->clock;
	c->has_instance = prev->has_instance;
	c->instance = prev->instance;
	c->sclass = c->md->ctf && prev->sclass >= 0 &&
		    (uint32_t)prev->sclass < c->md->ctf->nstreams ? prev->sclass : -1;
}

int tr_cursor_resume(struct tr_cursor *c, const struct tr_cursor *saved)
{
	const struct tr_metadata *md = c->md;
	const struct tr_stream *s = c->s;

	*c = *saved;
	c->md = md;
	c->s = s;
	c->cls = NULL;
	c->payload = NULL;
	if (c->failed)
		return TR_ERROR;
	if (md->ctf && c->sclass >= 0 && (uint32_t)c->sclass >= md->ctf->nstreams)
		return fail(c, c->pos, "the trace's metadata changed under the reader");
	if (c->pos > s->size || c->pkt_end > s->size || c->pkt_off > c->pkt_end)
		return fail(c, c->pos, "the file is %" PRIu64 " bytes now, shorter than what was "
			    "read of it: it was truncated or replaced", s->size);
	return 0;
}

/* ---- packets and records through the plans (reader/ctf_plan.h) ---- */

/* A clock value of the stream's clock as the trace's time: ns since the epoch with several clocks.
 */
static inline uint64_t ctf_time(const struct tr_cursor *c, uint64_t clock)
{
	const struct tr_ctf *ctf = c->md->ctf;
	const struct tr_clock_class *k;
	__int128 ns;

	if (__builtin_expect(!c->md->ns_clocks, 1) || c->sclass < 0 ||
	    ctf->streams[c->sclass].clock < 0)
		return clock;
	k = &ctf->clocks[ctf->streams[c->sclass].clock];
	ns = (__int128)k->offset_s * 1000000000 +
	     ((unsigned __int128)k->offset + clock) * 1000000000u / k->freq;
	return ns < 0 ? 0 : ns > (__int128)UINT64_MAX ? UINT64_MAX : (uint64_t)ns;
}

static void ctf_walk_init(const struct tr_cursor *c, struct tr_walk *w, const uint8_t *pkt,
			  uint64_t bit, uint64_t end, char *err, size_t errlen)
{
	w->pkt = pkt;
	w->bit = bit;
	w->end = end;
	w->regs = c->md->ctf->regs;
	w->roles = 0;
	w->budget = tr_walk_budget(end - bit);
	w->clock = c->clock;
	w->err = err;
	w->errlen = errlen;
}

/* ---- ringtrace's profile: what its writer always writes, checked strictly ---- */

/* The file offset of the packet's field of @role, or the packet's own when it has none. */
static inline uint64_t at(const struct tr_walk *w, uint64_t off, enum tr_role role)
{
	return w->roles & (1u << role) ? off + w->role_at[role] / 8 : off;
}

/*
 * The packet header of ringtrace's own traces (after the plan walk found its
 * fields, laid out as struct rtr_packet_hdr: the profile compared it): what
 * another producer's packet may get wrong and be read on (a quirk), the
 * writer never does, so each is damage here.
 */
static int own_packet(struct tr_cursor *c, const struct tr_walk *w, uint64_t off)
{
	const uint32_t need = 1u << TR_ROLE_CPU | 1u << TR_ROLE_STREAM_INSTANCE |
			      1u << TR_ROLE_TS_BEGIN | 1u << TR_ROLE_TS_END |
			      1u << TR_ROLE_SEQ_NUM | 1u << TR_ROLE_DISCARDED |
			      1u << TR_ROLE_CONTENT_SIZE | 1u << TR_ROLE_PACKET_SIZE;
	uint64_t sid = w->role[TR_ROLE_STREAM_INSTANCE], cpu = w->role[TR_ROLE_CPU];
	uint64_t ts_begin = w->role[TR_ROLE_TS_BEGIN], ts_end = w->role[TR_ROLE_TS_END];
	uint64_t seq = w->role[TR_ROLE_SEQ_NUM], discarded = w->role[TR_ROLE_DISCARDED];
	uint64_t content = w->role[TR_ROLE_CONTENT_SIZE];

	if ((w->roles & need) != need)
		return fail(c, off,
			    "a packet header without ringtrace's fields (its metadata "
			    "passed the profile: a broken invariant)");
	if (sid != cpu && sid != (uint64_t)RTR_KSTREAM_BASE + cpu)
		return fail(c, at(w, off, TR_ROLE_CPU),
			    "cpu_id %" PRIu64 " differs from stream_instance_id %" PRIu64, cpu,
			    sid);
	if (c->started && sid != c->cpu + (c->kernel ? RTR_KSTREAM_BASE : 0))
		return fail(c, at(w, off, TR_ROLE_STREAM_INSTANCE),
			    "packet of stream %" PRIu64 " in the stream of %s %" PRIu64, sid,
			    c->kernel ? "the kernel's records of cpu" : "cpu", c->cpu);
	if (content % 8)
		return fail(c, at(w, off, TR_ROLE_CONTENT_SIZE),
			    "content_size %" PRIu64 " bits is not a whole number of bytes",
			    content);
	if (ts_end < ts_begin)
		return fail(c, at(w, off, TR_ROLE_TS_END),
			    "timestamp_end %" PRIu64 " before timestamp_begin %" PRIu64, ts_end,
			    ts_begin);
	/* babeltrace2 refuses a time it cannot convert (2.0.4 aborts on some). */
	if (!rtr_ts_fits(c->md->freq, c->md->base_ns, ts_end))
		return fail(c, at(w, off, TR_ROLE_TS_END),
			    "timestamp_end %" PRIu64 " is not a time: it overflows when "
			    "converted to ns since the epoch",
			    ts_end);
	if (discarded > RTR_LOST_MAX)
		return fail(c, at(w, off, TR_ROLE_DISCARDED),
			    "events_discarded %" PRIu64 ": more than any producer can lose",
			    discarded);
	if (!c->started)
		return 0;
	if (seq <= c->seq)
		return fail(c, at(w, off, TR_ROLE_SEQ_NUM),
			    "packet_seq_num %" PRIu64 " does not follow %" PRIu64, seq, c->seq);
	if (discarded < c->discarded)
		return fail(c, at(w, off, TR_ROLE_DISCARDED),
			    "events_discarded %" PRIu64 " below the previous packet's %" PRIu64,
			    discarded, c->discarded);
	return 0;
}

/*
 * The common record of ringtrace's own traces, read without the plans' walk:
 * the compact or extended header as words, the class by its id, the payload
 * by its size or its typed fields (tr_fval_next()).  Return: TR_EVENT, or 0
 * for anything it does not take or any problem: ctf_next_record() then reads
 * the record again through the plans, and says what is wrong.
 */
static inline int own_next_fast(struct tr_cursor *c)
{
	const struct tr_metadata *md = c->md;
	const uint8_t *p = c->s->data + c->pos, *q, *end;
	uint64_t left = c->pkt_end - c->pos, ts;
	const struct tr_class *cls;
	uint32_t w, id, hl;

	if (left < RTR_EV_COMPACT_SIZE)
		return 0;
	__builtin_prefetch(p + 512);
	w = ld32(p);
	id = w & 31;
	if (__builtin_expect(id != RTR_EV_EXTENDED, 1)) {
		ts = (c->clock & ~TS_MASK) | (w >> 5);
		if (ts < c->clock)
			ts += 1ull << RTR_EV_TS_BITS;
		hl = RTR_EV_COMPACT_SIZE;
	} else {
		if (left < RTR_EV_EXTENDED_SIZE || p[0] != RTR_EV_EXTENDED)
			return 0;
		id = ld32(p + 1);
		ts = ld64(p + 5);
		hl = RTR_EV_EXTENDED_SIZE;
	}
	if (ts < c->clock || ts > c->ts_end)
		return 0;
	cls = id < 64 ? (md->by_id[id] < 0 ? NULL : &md->classes[md->by_id[id]])
		      : tr_class_find(md, id);
	if (!cls)
		return 0;
	q = p + hl;
	end = p + left;
	if (cls->fixed) {
		if (left - hl < cls->size)
			return 0;
		q += cls->size;
	} else {
		struct tr_fval v;

		for (uint32_t i = 0; i < cls->nfields; i++) {
			if (tr_fval_next(cls->fields[i].type, &q, end, &v) != TR_FVAL_OK)
				return 0;
		}
	}
	if (cls == md->thread) {
		/* the thread of this record and of those after it in the packet */
		c->has_tid = c->has_pid = true;
		c->pid = ld32(p + hl);
		c->tid = ld32(p + hl + 4);
		c->threads++;
	}
	c->off = c->pos;
	c->sctx_bit = c->ctx_bit = c->pl_bit = (c->pos - c->pkt_off + hl) * 8;
	c->clock = c->ts = ts;
	c->cls = cls;
	c->payload = p + hl;
	c->len = (uint64_t)(q - p) - hl;
	c->pos += (uint64_t)(q - p);
	c->events++;
	return TR_EVENT;
}

static int ctf_open_packet(struct tr_cursor *c)
{
	const struct tr_ctf *ctf = c->md->ctf;
	const uint8_t *p = c->s->data + c->pos;
	uint64_t off = c->pos, left = c->s->size - c->pos, content, psize, seq, discarded;
	uint64_t ts_end, prev_end;
	const struct tr_stream_class *sc;
	struct tr_walk w;
	char err[256];
	int32_t sclass;

	/* the header and context: bounded by the file until content_size is known */
	ctf_walk_init(c, &w, p, 0, left > UINT64_MAX / 8 ? UINT64_MAX : left * 8, err,
		      sizeof(err));
	if (tr_walk_plan(&ctf->packet_header, &w))
		return fail(c, off + w.fail_bit / 8,
			    "packet header: %s (%" PRIu64 " bytes left in the file)", err, left);
	if ((w.roles & (1u << TR_ROLE_MAGIC)) && w.role[TR_ROLE_MAGIC] != RTR_CTF_MAGIC)
		return fail(c, at(&w, off, TR_ROLE_MAGIC),
			    "bad packet magic 0x%08" PRIx64 " (expected 0x%08x)",
			    w.role[TR_ROLE_MAGIC], RTR_CTF_MAGIC);
	if ((w.roles & (1u << TR_ROLE_UUID)) && ctf->has_uuid &&
	    memcmp(p + w.role[TR_ROLE_UUID] / 8, c->md->uuid, 16))
		return fail(c, off + w.role[TR_ROLE_UUID] / 8,
			    "packet uuid differs from the metadata's %s", c->md->uuid_str);
	if (w.roles & (1u << TR_ROLE_STREAM_ID)) {
		sc = tr_ctf_stream(ctf, w.role[TR_ROLE_STREAM_ID]);
		if (!sc)
			return fail(c, at(&w, off, TR_ROLE_STREAM_ID),
				    "stream_id %" PRIu64 ": no stream block declares it",
				    w.role[TR_ROLE_STREAM_ID]);
	} else if (ctf->nstreams == 1) {
		sc = &ctf->streams[0];
	} else {
		return fail(c, off, "a packet without its stream_id, in a trace of %u stream "
			    "classes", ctf->nstreams);
	}
	sclass = (int32_t)(sc - ctf->streams);
	if (c->started && c->sclass != sclass)
		return fail(c, off, "a packet of stream class %" PRIu64 " in a file of stream class "
			    "%" PRIu64, sc->id, ctf->streams[c->sclass].id);
	c->sclass = sclass;
	if (tr_walk_plan(&sc->packet_context, &w))
		return fail(c, off + w.fail_bit / 8,
			    "packet context: %s (%" PRIu64 " bytes left in the file)", err, left);
	if (c->md->own && own_packet(c, &w, off))
		return TR_ERROR;
	content = w.roles & (1u << TR_ROLE_CONTENT_SIZE) ? w.role[TR_ROLE_CONTENT_SIZE] :
		  w.roles & (1u << TR_ROLE_PACKET_SIZE) ? w.role[TR_ROLE_PACKET_SIZE] : left * 8;
	psize = w.roles & (1u << TR_ROLE_PACKET_SIZE) ? w.role[TR_ROLE_PACKET_SIZE] : content;
	if (content < w.bit)
		return fail(c, at(&w, off, TR_ROLE_CONTENT_SIZE),
			    "content_size %" PRIu64 " bits is less than the packet's "
			    "header and context (%" PRIu64 " bits)",
			    content, w.bit);
	if ((content + 7) / 8 > left)
		return fail(c, at(&w, off, TR_ROLE_CONTENT_SIZE),
			    "content_size %" PRIu64 " bits (%" PRIu64 " bytes) runs past "
			    "the end of the file (%" PRIu64 " bytes left)",
			    content, content / 8, left);
	if (psize < content)
		return fail(c, at(&w, off, TR_ROLE_PACKET_SIZE),
			    "packet_size %" PRIu64 " bits is less than content_size %" PRIu64,
			    psize, content);
	if (psize % 8)
		return fail(c, at(&w, off, TR_ROLE_PACKET_SIZE),
			    "packet_size %" PRIu64 " bits is not a whole number of bytes", psize);
	if (psize / 8 > left)
		return fail(c, at(&w, off, TR_ROLE_PACKET_SIZE),
			    "packet_size %" PRIu64 " bits (%" PRIu64 " bytes) runs past "
			    "the end of the file (%" PRIu64 " bytes left)",
			    psize, psize / 8, left);
	if (!psize)
		return fail(c, off, "a packet of no bytes");
	/* A packet tells its threads itself: nothing carries over a lost one. */
	c->has_tid = c->has_pid = false;
	c->tid = c->pid = 0;
	ts_end = w.roles & (1u << TR_ROLE_TS_END) ? w.role[TR_ROLE_TS_END] : UINT64_MAX;
	if ((w.roles & (1u << TR_ROLE_TS_BEGIN)) && ts_end < w.role[TR_ROLE_TS_BEGIN]) {
		if (ts_end)
			return fail(c, at(&w, off, TR_ROLE_TS_END),
				    "timestamp_end %" PRIu64 " before timestamp_begin %" PRIu64,
				    ts_end, w.role[TR_ROLE_TS_BEGIN]);
		/* lttng-crash's packets, never closed: their end is not known */
		quirk(c, at(&w, off, TR_ROLE_TS_END),
		      "timestamp_end 0: a packet its producer never closed (its end unknown)");
		ts_end = UINT64_MAX;
	}
	seq = w.roles & (1u << TR_ROLE_SEQ_NUM) ? w.role[TR_ROLE_SEQ_NUM] : c->seq + 1;
	discarded = w.roles & (1u << TR_ROLE_DISCARDED) ? w.role[TR_ROLE_DISCARDED] : c->discarded;
	if (c->started) {
		if ((w.roles & (1u << TR_ROLE_CPU)) && w.role[TR_ROLE_CPU] != c->cpu)
			return fail(c, at(&w, off, TR_ROLE_CPU),
				    "packet of cpu %" PRIu64 " in the stream of cpu %" PRIu64,
				    w.role[TR_ROLE_CPU], c->cpu);
		if (seq < c->seq)
			return fail(c, at(&w, off, TR_ROLE_SEQ_NUM),
				    "packet_seq_num %" PRIu64 " does not follow %" PRIu64, seq,
				    c->seq);
		/* one packet's copy made into a test trace (babeltrace's): read on */
		if (seq == c->seq)
			quirk(c, off, "packet_seq_num %" PRIu64 " again: the same as the previous "
			      "packet's", seq);
		/* the previous packet's end, or its last time when its end is not known */
		prev_end = c->ts_end != UINT64_MAX ? c->ts_end : c->clock;
		if ((w.roles & (1u << TR_ROLE_TS_BEGIN)) && w.role[TR_ROLE_TS_BEGIN] < prev_end)
			return fail(c, at(&w, off, TR_ROLE_TS_BEGIN),
				    "timestamp_begin %" PRIu64 " before the previous "
				    "packet's %s %" PRIu64,
				    w.role[TR_ROLE_TS_BEGIN],
				    c->ts_end != UINT64_MAX ? "timestamp_end" : "last time",
				    prev_end);
		/*
		 * Another producer's count that goes down is its own glitch, not
		 * damage: LTTng-UST 2.13 was seen writing one packet whose
		 * events_discarded is 0 between two that count 20,485 and 20,879
		 * (babeltrace2 2.0 then reports 2^64 - 20,485 events lost).  The
		 * drop loses nothing, the count goes on from the highest seen, and
		 * check says so.  ringtrace's own traces stay strict (above).
		 */
		if (discarded < c->discarded) {
			if (!c->dips)
				c->dip_off = off;
			c->dips++;
			discarded = c->discarded;
		}
		c->pend_packets = w.roles & (1u << TR_ROLE_SEQ_NUM) && seq > c->seq ?
				  seq - c->seq - 1 : 0;
		c->pend_events = discarded - c->discarded;
	} else {
		/* In a rotated trace's later chunk, what came before is in earlier chunks. */
		bool later = c->md->own && c->md->chunk_index > 0;

		c->pend_packets = !later && w.roles & (1u << TR_ROLE_SEQ_NUM) ? seq : 0;
		c->pend_events = later ? 0 : discarded;
		c->first_seq = c->pend_packets;
		c->first_events = c->pend_events;
		c->has_instance = w.roles & (1u << TR_ROLE_STREAM_INSTANCE);
		c->instance = c->has_instance ? w.role[TR_ROLE_STREAM_INSTANCE] : 0;
		c->cpu = w.roles & (1u << TR_ROLE_CPU) ? w.role[TR_ROLE_CPU] :
			 w.roles & (1u << TR_ROLE_STREAM_INSTANCE) ? w.role[TR_ROLE_STREAM_INSTANCE] :
			 0;
		c->kernel = c->md->own && c->instance != c->cpu;
		c->started = true;
	}
	c->packets_lost += c->pend_packets;
	c->events_lost += c->pend_events;
	if (w.roles & (1u << TR_ROLE_TS_BEGIN))
		c->clock = w.role[TR_ROLE_TS_BEGIN];
	c->pkt_off = c->pos;
	/* CTF sizes are in bits: the content may end inside its last byte */
	c->pkt_end = c->pos + (content + 7) / 8;
	c->content_bits = content;
	c->pkt_next = c->pos + psize / 8;
	c->bit = w.bit;
	c->pos = c->pkt_off + w.bit / 8;
	c->seq = seq;
	c->discarded = discarded;
	c->ts_end = ts_end;
	/* the first record may come before timestamp_begin (a quirk), if there is one */
	c->body_bit = w.roles & (1u << TR_ROLE_TS_BEGIN) ? w.bit : UINT64_MAX;
	c->ts = ctf_time(c, c->clock);
	c->packets++;
	return 0;
}

/*
 * LTTng's event header (tr_fast_header): the id and the timestamp without a
 * walk.  Return: 0, or -1 if it does not fit (the walk then says why).
 */
static inline __attribute__((always_inline)) int
fast_header(const struct tr_fast_header *f, struct tr_walk *w, uint64_t *id)
{
	uint64_t bit = (w->bit + 7) & ~(uint64_t)7;

	if (w->end < bit || w->end - bit < f->id_bits)
		return -1;
	*id = tr_read_bits(w->pkt, bit, f->id_bits, f->be);
	bit += f->id_bits;
	if (__builtin_expect(*id != f->ext, 1)) {
		bit = (bit + f->ts_align - 1) & ~(uint64_t)(f->ts_align - 1);
		if (w->end < bit || w->end - bit < f->ts_bits)
			return -1;
		w->clock = tr_clock_update(w->clock, tr_read_bits(w->pkt, bit, f->ts_bits, f->be),
					   f->ts_bits);
		w->bit = bit + f->ts_bits;
		return 0;
	}
	bit = (bit + 7) & ~(uint64_t)7;
	if (w->end < bit || w->end - bit < 96)
		return -1;
	*id = tr_read_bits(w->pkt, bit, 32, f->be);
	w->clock = tr_read_bits(w->pkt, bit + 32, 64, f->be);
	w->bit = bit + 96;
	return 0;
}

/* Past @p: by its sizes when it allows, else a walk that checks every field. */
static inline int walk_or_skip(const struct tr_plan *p, struct tr_walk *w)
{
	if (!p->nops)
		return 0;
	if (p->skip && !(w->bit % 8)) {
		uint64_t at = w->bit;

		if (!tr_skip_plan(p, w))
			return 0;
		w->bit = at;
	}
	return tr_walk_plan(p, w);
}

/*
 * The record of @cls from bit @start to @w's, read whole by either path:
 * it becomes the cursor's item.  Return: TR_EVENT.
 */
static inline int record_read(struct tr_cursor *c, const struct tr_class *cls,
			      const uint8_t *pkt, uint64_t start, const struct tr_walk *w)
{
	c->clock = w->clock;
	c->off = c->pkt_off + start / 8;
	c->ts = ctf_time(c, w->clock);
	c->cls = cls;
	c->payload = pkt + c->pl_bit / 8;
	c->len = (w->bit - c->pl_bit + 7) / 8;
	c->bit = w->bit;
	c->pos = c->pkt_off + w->bit / 8;
	c->events++;
	return TR_EVENT;
}

/*
 * The common record read without the general walk's bookkeeping: LTTng's
 * event header, no event context, a payload skipped by its sizes, every
 * check of ctf_next_record() made.  Return: TR_EVENT, or 0 for any other
 * record or any problem (ctf_next_record() then reads it again, and says
 * what is wrong).
 */
static inline int ctf_next_fast(struct tr_cursor *c, const struct tr_stream_class *sc)
{
	const uint8_t *pkt = c->s->data + c->pkt_off;
	uint64_t start = c->bit, id;
	const struct tr_class *cls;
	struct tr_walk w;

	w.pkt = pkt;
	w.bit = start;
	w.end = c->content_bits;
	w.clock = c->clock;
	if (fast_header(&sc->fast, &w, &id) || id >= sc->nids)
		return 0;
	cls = sc->classes[id];
	if (!cls || cls->context->nops || !cls->payload->skip || w.bit % 8 ||
	    w.clock < c->clock || w.clock > c->ts_end)
		return 0;
	c->sctx_bit = c->ctx_bit = c->pl_bit = w.bit;
	if (tr_skip_plan(cls->payload, &w) || w.bit == start)
		return 0;
	c->has_tid = c->has_pid = false;
	c->tid = c->pid = 0;
	c->procname = NULL;
	c->procname_max = 0;
	return record_read(c, cls, pkt, start, &w);
}

static int ctf_next_record(struct tr_cursor *c)
{
	const struct tr_ctf *ctf = c->md->ctf;
	const struct tr_stream_class *sc = &ctf->streams[c->sclass];
	const uint8_t *pkt = c->s->data + c->pkt_off;
	uint64_t end = c->content_bits, start = c->bit, id;
	const struct tr_class *cls;
	const struct tr_plan *p;
	struct tr_walk w;
	char err[256];

	w.pkt = pkt;
	w.bit = start;
	w.end = end;
	w.regs = ctf->regs;
	w.roles = 0;
	w.budget = tr_walk_budget(end - start);
	w.clock = c->clock;
	w.err = err;
	w.errlen = sizeof(err);
	if (!fast_paths || !sc->fast.on || fast_header(&sc->fast, &w, &id)) {
		w.bit = start;
		w.clock = c->clock;
		if (tr_walk_plan(&sc->event_header, &w))
			return fail(c, c->pkt_off + w.fail_bit / 8, "event header: %s", err);
		id = w.roles & (1u << TR_ROLE_EVENT_ID) ? w.role[TR_ROLE_EVENT_ID] : 0;
	}
	cls = tr_ctf_class(sc, id);
	if (!cls)
		return fail(c, c->pkt_off + start / 8, "unknown event id %" PRIu64, id);
	if (c->md->own) {
		/* the profile: the padding after an extended id is zero, time in order */
		if ((pkt[start / 8] & 31) == RTR_EV_EXTENDED && (pkt[start / 8] & 0xe0))
			return fail(c, c->pkt_off + start / 8,
				    "extended record header: bits 5-7 of byte 0 are not zero");
		if (w.clock < c->clock)
			return fail(c, c->pkt_off + start / 8,
				    "timestamp %" PRIu64 " goes back (previous %" PRIu64 ")",
				    w.clock, c->clock);
		if (w.clock > c->ts_end)
			return fail(c, c->pkt_off + start / 8,
				    "timestamp %" PRIu64 " after the "
				    "packet's timestamp_end %" PRIu64,
				    w.clock, c->ts_end);
	}
	/*
	 * Known producers' quirks, read on: barectf writes an event before its
	 * packet's timestamp_begin, LTTng one after its timestamp_end.  Time
	 * going back between two records of a packet is damage.
	 */
	if (w.clock < c->clock) {
		if (start != c->body_bit)
			return fail(c, c->pkt_off + start / 8, "timestamp %" PRIu64 " goes back "
				    "(previous %" PRIu64 ")", w.clock, c->clock);
		quirk(c, c->pkt_off + start / 8, "timestamp %" PRIu64 " before its packet's "
		      "timestamp_begin %" PRIu64, w.clock, c->clock);
	}
	if (w.clock > c->ts_end)
		quirk(c, c->pkt_off + start / 8, "timestamp %" PRIu64 " after its packet's "
		      "timestamp_end %" PRIu64, w.clock, c->ts_end);
	c->sctx_bit = w.bit;
	if (walk_or_skip(&sc->event_context, &w))
		return fail(c, c->pkt_off + w.fail_bit / 8, "%s: event context: %s", cls->name, err);
	c->ctx_bit = w.bit;
	if (walk_or_skip(cls->context, &w))
		return fail(c, c->pkt_off + w.fail_bit / 8, "%s: context: %s", cls->name, err);
	c->pl_bit = w.bit;
	p = cls->payload;
	if (walk_or_skip(p, &w))
		return fail(c, c->pkt_off + w.fail_bit / 8, "%s: %s", cls->name, err);
	if (w.bit == start)
		return fail(c, c->pkt_off + start / 8, "%s: a record of no bits", cls->name);
	if (c->md->own) {
		/* the packet's latest thread record names the records' thread */
		if (cls == c->md->thread) {
			c->has_tid = c->has_pid = true;
			c->pid = ld32(pkt + c->pl_bit / 8);
			c->tid = ld32(pkt + c->pl_bit / 8 + 4);
			c->threads++;
		}
		return record_read(c, cls, pkt, start, &w);
	}
	c->has_tid = w.roles & (1u << TR_ROLE_TID);
	c->has_pid = w.roles & (1u << TR_ROLE_PID);
	c->tid = c->has_tid ? w.role[TR_ROLE_TID] : 0;
	c->pid = c->has_pid ? w.role[TR_ROLE_PID] : 0;
	c->procname = w.roles & (1u << TR_ROLE_PROCNAME) ?
		      (const char *)pkt + w.role[TR_ROLE_PROCNAME] / 8 : NULL;
	c->procname_max = c->procname ? (size_t)(w.bit - w.role[TR_ROLE_PROCNAME]) / 8 : 0;
	return record_read(c, cls, pkt, start, &w);
}

int tr_next(struct tr_cursor *c)
{
	if (c->failed)
		return TR_ERROR;
	for (;;) {
		if (c->md->own && c->pos < c->pkt_end && !c->pend_packets && !c->pend_events) {
			if (__builtin_expect(fast_paths, 1) && own_next_fast(c))
				return TR_EVENT;
			/* the fast path keeps @pos alone: the walk starts from @bit */
			c->bit = (c->pos - c->pkt_off) * 8;
			return ctf_next_record(c);
		}
		if (!c->md->own && c->bit < c->content_bits && !c->pend_packets &&
		    !c->pend_events) {
			const struct tr_stream_class *sc = &c->md->ctf->streams[c->sclass];

			if (sc->fast.on && !sc->event_context.nops && fast_paths &&
			    ctf_next_fast(c, sc))
				return TR_EVENT;
			return ctf_next_record(c);
		}
		if (c->pend_packets) {
			c->lost = c->pend_packets;
			c->pend_packets = 0;
			return TR_LOST_PACKETS;
		}
		if (c->pend_events) {
			c->lost = c->pend_events;
			c->pend_events = 0;
			return TR_LOST_EVENTS;
		}
		c->pos = c->pkt_next > c->pos ? c->pkt_next : c->pos;
		c->bit = 0;
		c->pkt_off = c->pkt_end = c->pos;
		c->content_bits = 0;
		if (c->pos >= c->s->size)
			return TR_END;
		if (ctf_open_packet(c))
			return TR_ERROR;
	}
}
