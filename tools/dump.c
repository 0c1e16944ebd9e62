// SPDX-License-Identifier: MIT
/*
 * tools/dump.c - `ringtrace dump DIR`: every event of a trace as one line of
 * text, babeltrace2-like, all streams merged in timestamp order (the read
 * side's one merge, reader/merge.h; --follow resumes it turn after turn),
 * the losses in line where they happen.  A trace holds millions of events, so lines are
 * formatted by hand into a large buffer: no printf per field, the time of
 * day recomputed only when the second changes.
 */
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "format/state.h"
#include "reader/clock.h"
#include "reader/ctf_plan.h"
#include "reader/input.h"
#include "reader/follow.h"
#include "reader/index.h"
#include "reader/merge.h"
#include "reader/text.h"
#include "tools/cli.h"
#include "tools/commands.h"

#define OUT_CAP		(256u << 10)

struct dfield {
	enum rtr_ctf_type type;
	const struct tr_field *f;
	char *lead;		/* " name = " or ", name = " */
	size_t leadn;
	const struct tr_label **tab;	/* enums: label by value, when dense */
	uint32_t ntab;
};

struct dclass {
	bool contexts;		/* general CTF: the stream or the class has an event context */
	char *head;		/* "name: {" */
	size_t headn;
	size_t bound;		/* room for the head, the fixed-size fields and the tail */
	struct dfield *f;
};

/* A stream's line prefixes, made once its first packet told its CPU. */
struct dstream {
	char *pre;		/* " host cpu N " */
	size_t pren;
	char *lpre;		/* " cpu N: lost " */
	size_t lpren;
	/* "pid P tid T ": the thread of the stream's records, as its thread records say */
	char thr[64 + TR_TEXT_PAD];
	size_t thrn;
	uint64_t tid, pid;
};

struct dump {
	struct dclass **cls;		/* per chunk */
	struct dstream *s;		/* per stream of the merge */
	struct tr_text o;
	struct tr_clock clk;
	bool clock_seconds, delta;
	/*
	 * the cached "[HH:MM:SS." (or "[SECONDS.") of second @tsec, @tn bytes,
	 * then the first five digits of its nanoseconds, @thi (>= 10^5: none yet)
	 */
	char tstr[48];
	size_t tn;
	uint32_t thi;
	int64_t tsec;
	bool tvalid;
	/* the previous event's time, for the delta */
	int64_t psec;
	uint32_t pnsec;
	bool have_prev;
	uint64_t events;
	/* --slice: the time range, ns from the trace's first item (UINT64_MAX: to the end) */
	bool sliced;
	uint64_t slice_a, slice_b;
	uint64_t slice_lost_events, slice_lost_packets;	/* the losses printed */
};

/* dump_trace()'s: memory ran out; the command says so and stops (exit status 1). */
#define DUMP_NOMEM	(-2)

static void say_oom(struct dump *d)
{
	tr_text_flush(&d->o);
	fflush(stdout);
	fprintf(stderr, "ringtrace dump: out of memory\n");
}

#define PAD TR_TEXT_PAD

/* asprintf() into a buffer padded for tr_put_pad(); NULL when memory ran out. */
__attribute__((format(printf, 2, 3)))
static char *padded(size_t *len, const char *fmt, ...)
{
	va_list ap;
	char *s, *b;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	b = calloc(1, (size_t)n + PAD + 1);
	if (!b) {
		free(s);
		return NULL;
	}
	memcpy(b, s, (size_t)n);
	free(s);
	*len = (size_t)n;
	return b;
}

static const struct tr_label *find_label(const void *ctx, uint32_t v)
{
	const struct dfield *df = ctx;

	if (df->tab)
		return v < df->ntab ? df->tab[v] : NULL;
	return tr_field_label(df->f, v);
}

/* "[HH:MM:SS.nnnnnnnnn" (or "[SECONDS.nnnnnnnnn"), without the closing bracket. */
static inline __attribute__((always_inline)) char *put_time(struct dump *d, char *p, int64_t sec,
							   uint32_t nsec)
{
	uint32_t hi, lo;

	if (__builtin_expect(!d->tvalid || sec != d->tsec, 0)) {
		time_t tt = (time_t)sec;
		struct tm tm;

		d->tvalid = true;
		d->tsec = sec;
		if (!d->clock_seconds && sec >= 0 && localtime_r(&tt, &tm))
			d->tn = (size_t)snprintf(d->tstr, sizeof(d->tstr), "[%02d:%02d:%02d.",
						 tm.tm_hour, tm.tm_min, tm.tm_sec);
		else if (sec >= 0)
			d->tn = (size_t)snprintf(d->tstr, sizeof(d->tstr), "[%" PRId64 ".", sec);
		else
			d->tn = 0;	/* before the epoch: not cached */
		d->thi = UINT32_MAX;
	}
	if (__builtin_expect(!d->tn, 0)) {
		/* sec < 0: show -|t| */
		uint64_t s = (uint64_t)0 - (uint64_t)sec;

		if (nsec) {
			s--;
			nsec = 1000000000u - nsec;
		}
		p = tr_put(p, "[-", 2);
		p = tr_put_u64(p, s);
		*p++ = '.';
		return tr_put_9(p, nsec);
	}
	/* the first five digits of the nanoseconds change every 10 us: cached too */
	hi = nsec / 10000;
	lo = nsec - hi * 10000;
	if (__builtin_expect(hi != d->thi, 0)) {
		d->thi = hi;
		d->tstr[d->tn] = (char)('0' + hi / 10000);
		memcpy(d->tstr + d->tn + 1, tr_dig2 + 2 * (hi % 10000 / 100), 2);
		memcpy(d->tstr + d->tn + 3, tr_dig2 + 2 * (hi % 100), 2);
	}
	p = tr_put_pad(p, d->tstr, d->tn + 5);
	memcpy(p, tr_dig2 + 2 * (lo / 100), 2);
	memcpy(p + 2, tr_dig2 + 2 * (lo % 100), 2);
	return p + 4;
}

static char *put_delta_slow(struct dump *d, char *p, int64_t sec, uint32_t nsec)
{
	__int128 dt;

	if (!d->have_prev) {
		d->have_prev = true;
		p = tr_put(p, " (+?.????????" "?)", 15);
	} else {
		if (sec == d->psec)
			dt = (int64_t)nsec - (int64_t)d->pnsec;
		else
			dt = ((__int128)sec - d->psec) * 1000000000 + (__int128)nsec - d->pnsec;
		p = tr_put(p, " (+", 3);
		if (dt < 0) {
			p[-1] = '-';
			dt = -dt;
		}
		if (dt < 1000000000) {
			*p++ = '0';
		} else {
			__int128 s = dt / 1000000000;

			p = tr_put_u64(p, s > UINT64_MAX ? UINT64_MAX : (uint64_t)s);
			dt -= s * 1000000000;
		}
		*p++ = '.';
		p = tr_put_9(p, (uint32_t)dt);
		*p++ = ')';
	}
	d->psec = sec;
	d->pnsec = nsec;
	return p;
}

/* " (+S.nnnnnnnnn)": the time since the previous event (inline: same second, forwards). */
static inline __attribute__((always_inline)) char *put_delta(struct dump *d, char *p, int64_t sec,
							    uint32_t nsec)
{
	if (__builtin_expect(!d->have_prev || sec != d->psec || nsec < d->pnsec, 0))
		return put_delta_slow(d, p, sec, nsec);
	if (nsec - d->pnsec < 10000) {
		/* under 10 us: the last four digits */
		static const char lead[TR_TEXT_PAD] = " (+0.00000";
		uint32_t dt = nsec - d->pnsec;

		p = tr_put_pad(p, lead, 10);
		memcpy(p, tr_dig2 + 2 * (dt / 100), 2);
		memcpy(p + 2, tr_dig2 + 2 * (dt % 100), 2);
		p += 4;
	} else {
		p = tr_put(p, " (+0.", 5);
		p = tr_put_9(p, nsec - d->pnsec);
	}
	*p++ = ')';
	d->pnsec = nsec;
	return p;
}

/* "pid P tid T ", made again only when the stream's thread changes. */
static inline char *put_thread(struct dstream *ds, char *p, const struct tr_cursor *c)
{
	if (__builtin_expect(c->tid != ds->tid || c->pid != ds->pid || !ds->thrn, 0)) {
		char *t = tr_put(ds->thr, "pid ", 4);

		t = tr_put_u64(t, c->pid);
		t = tr_put(t, " tid ", 5);
		t = tr_put_u64(t, c->tid);
		*t++ = ' ';
		ds->thrn = (size_t)(t - ds->thr);
		ds->tid = c->tid;
		ds->pid = c->pid;
	}
	return tr_put_pad(p, ds->thr, ds->thrn);
}

/* Inline: it is the loop's body (a call costs 2% of dump's instructions). */
static inline __attribute__((always_inline)) void
emit_event(struct dump *d, const struct tr_cursor *c, const struct dclass *dcls,
	   struct dstream *ds)
{
	const struct tr_class *cls = c->cls;
	const struct dclass *dc = &dcls[cls - c->md->classes];
	const uint8_t *pl = c->payload;
	struct tr_text *o = &d->o;
	int64_t sec;
	uint32_t nsec;
	char *p;

	tr_clock_ns(&d->clk, c->ts, &sec, &nsec);
	p = tr_text_room(o, 128 + ds->pren + sizeof(ds->thr) + dc->bound);
	p = put_time(d, p, sec, nsec);
	*p++ = ']';
	if (d->delta)
		p = put_delta(d, p, sec, nsec);
	p = tr_put_pad(p, ds->pre, ds->pren);
	if (c->has_tid)
		p = put_thread(ds, p, c);
	p = tr_put_pad(p, dc->head, dc->headn);
	/*
	 * The fields decoded by the one formatter of these payloads, in line
	 * (text.h), not by tr_fval_next() (reader/trace.h, which the cursor
	 * has already run over this record): through it, dump took 38
	 * instructions an event more (callgrind, 2026-11-28: 491 M against
	 * 530 M on 1 M events).
	 */
	for (uint32_t i = 0; i < cls->nfields; i++) {
		const struct dfield *df = &dc->f[i];

		p = tr_put_pad(p, df->lead, df->leadn);
		p = tr_put_own_value(o, p, df->type, &pl, dc->bound, find_label, df);
	}
	p = tr_put(p, " }\n", 3);
	o->len = (size_t)(p - o->buf);
	d->events += cls != c->md->thread;	/* the ring's thread records are not counted */
}

/* An event's contexts and fields, each group in braces: "{ vtid = 12 }, { a = 1 }\n". */
static void emit_ctf_groups(struct dump *d, const struct tr_cursor *c, struct tr_walk *wp)
{
	const struct tr_class *cls = c->cls;
	const struct tr_stream_class *sc = &c->md->ctf->streams[c->sclass];
	const struct tr_plan *plan[3] = { &sc->event_context, cls->context, cls->payload };
	const uint64_t at[3] = { c->sctx_bit, c->ctx_bit, c->pl_bit };
	struct tr_text *o = &d->o;
	struct tr_walk w = *wp;
	bool group = false;
	char *p;

	for (int i = 0; i < 3; i++) {
		if (i < 2 && !plan[i]->nops)
			continue;
		p = tr_text_room(o, 8);
		if (group)
			p = tr_put(p, ", {", 3);
		*p++ = ' ';
		o->len = (size_t)(p - o->buf);
		w.bit = at[i];
		w.budget = tr_walk_budget(w.end - w.bit);
		tr_text_plan(o, plan[i], &w, true);
		p = tr_text_room(o, 8);
		if (plan[i]->nops)
			*p++ = ' ';
		*p++ = '}';
		o->len = (size_t)(p - o->buf);
		group = true;
	}
	p = tr_text_room(o, 1);
	*p = '\n';
	o->len++;
	d->events++;
}

/*
 * A general CTF event (reader/ctf_plan.h): its stream's and its class's
 * contexts, when it has them, then its fields, each group in braces:
 * "name: { vtid = 12 }, { a = 1, b = "x" }".  The cursor checked every
 * field: the walks here stay inside the packet.
 */
static inline __attribute__((always_inline)) void
emit_ctf_event(struct dump *d, const struct tr_cursor *c, const struct dclass *dcls,
	       const struct dstream *ds)
{
	const struct tr_class *cls = c->cls;
	const struct dclass *dc = &dcls[cls - c->md->classes];
	struct tr_text *o = &d->o;
	struct tr_walk w;
	int64_t sec;
	uint32_t nsec;
	char *p;

	tr_clock_ns(&d->clk, c->ts, &sec, &nsec);
	p = tr_text_room(o, 128 + ds->pren + dc->headn);
	p = put_time(d, p, sec, nsec);
	*p++ = ']';
	if (d->delta)
		p = put_delta(d, p, sec, nsec);
	p = tr_put_pad(p, ds->pre, ds->pren);
	p = tr_put_pad(p, dc->head, dc->headn);
	w.pkt = c->s->data + c->pkt_off;
	w.end = (c->pkt_end - c->pkt_off) * 8;
	w.regs = c->md->ctf->regs;
	if (__builtin_expect(!dc->contexts, 1)) {
		/* the fields alone: "name: { a = 1 }" */
		*p++ = ' ';
		o->len = (size_t)(p - o->buf);
		w.bit = c->pl_bit;
		w.budget = tr_walk_budget(w.end - w.bit);
		if (cls->payload->skip && !(w.bit % 8))
			tr_text_skip(o, cls->payload, &w, true);
		else
			tr_text_plan(o, cls->payload, &w, true);
		p = tr_text_room(o, 3);
		if (cls->payload->nops)
			*p++ = ' ';
		p = tr_put(p, "}\n", 2);
		o->len = (size_t)(p - o->buf);
		d->events++;
		return;
	}
	o->len = (size_t)(p - o->buf);
	emit_ctf_groups(d, c, &w);
}

static void emit_loss(struct dump *d, const struct tr_cursor *c, const struct dstream *ds,
		      const char *what)
{
	struct tr_text *o = &d->o;
	int64_t sec;
	uint32_t nsec;
	char *p;

	tr_clock_ns(&d->clk, c->ts, &sec, &nsec);
	p = tr_text_room(o, 128 + ds->lpren + 32);
	p = put_time(d, p, sec, nsec);
	*p++ = ']';
	p = tr_put_pad(p, ds->lpre, ds->lpren);
	p = tr_put_u64(p, c->lost);
	*p++ = ' ';
	p = tr_put(p, what, strlen(what));
	*p++ = '\n';
	o->len = (size_t)(p - o->buf);
}

static void free_classes(struct dclass *cls, const struct tr_metadata *md);

/* Each class's line parts; NULL when memory ran out (nothing left allocated). */
static struct dclass *setup_classes(const struct tr_metadata *md)
{
	struct dclass *cls = calloc(md->nclasses ? md->nclasses : 1, sizeof(*cls));

	if (!cls)
		return NULL;
	for (uint32_t i = 0; i < md->nclasses; i++) {
		const struct tr_class *c = &md->classes[i];
		struct dclass *dc = &cls[i];

		dc->head = padded(&dc->headn, "%s: {", c->name);
		if (!dc->head)
			goto nomem;
		dc->contexts = !md->own && (md->ctf->streams[c->stream].event_context.nops ||
					   c->context->nops);
		dc->bound = dc->headn + PAD + 4;
		dc->f = calloc(c->nfields ? c->nfields : 1, sizeof(*dc->f));
		if (!dc->f)
			goto nomem;
		for (uint32_t j = 0; j < c->nfields; j++) {
			const struct tr_field *f = &c->fields[j];
			struct dfield *df = &dc->f[j];
			uint32_t maxlabel = 0, maxval = 0;

			df->f = f;
			df->type = f->type;
			df->lead = padded(&df->leadn, "%s%s = ", j ? ", " : " ", f->name);
			if (!df->lead)
				goto nomem;
			for (uint32_t k = 0; k < f->nlabels; k++) {
				if (f->labels[k].len > maxlabel)
					maxlabel = f->labels[k].len;
				maxval = f->labels[k].value;	/* sorted */
			}
			dc->bound += df->leadn + PAD + 48 + maxlabel;
			/* A direct table where it is dense: its size follows the metadata's. */
			if (f->nlabels && maxval < 4096 && maxval < 8 * f->nlabels + 64) {
				df->ntab = maxval + 1;
				df->tab = calloc(df->ntab, sizeof(*df->tab));
				if (!df->tab)
					goto nomem;
				for (uint32_t k = 0; k < f->nlabels; k++)
					df->tab[f->labels[k].value] = &f->labels[k];
			}
		}
	}
	return cls;
nomem:
	free_classes(cls, md);
	return NULL;
}

static void free_classes(struct dclass *cls, const struct tr_metadata *md)
{
	for (uint32_t i = 0; cls && i < md->nclasses; i++) {
		for (uint32_t j = 0; cls[i].f && j < md->classes[i].nfields; j++) {
			free(cls[i].f[j].lead);
			free(cls[i].f[j].tab);
		}
		free(cls[i].f);
		free(cls[i].head);
	}
	free(cls);
}

/*
 * The stream's line prefixes, once its first packet told its CPU; its
 * trace's host.  Return: 0, or -ENOMEM.
 */
static int stream_prefix(struct dstream *ds, const struct tr_cursor *c)
{
	const struct tr_metadata *md = c->md;
	const char *host = md->hostname;
	char buf[512];

	/*
	 * Another producer's trace: its host as babeltrace2 names it,
	 * HOSTNAME[:PROCNAME][:(VPID)] from the env (LTTng-UST's per-process
	 * buffers carry the last two).
	 */
	if (!md->own && (md->ctf->procname || md->has_vpid)) {
		int n = snprintf(buf, sizeof(buf), "%s", host);

		if (md->ctf->procname && n >= 0 && (size_t)n < sizeof(buf))
			n += snprintf(buf + n, sizeof(buf) - (size_t)n, "%s%s", n ? ":" : "",
				      md->ctf->procname);
		if (md->has_vpid && n >= 0 && (size_t)n < sizeof(buf))
			snprintf(buf + n, sizeof(buf) - (size_t)n, "%s(%u)", n ? ":" : "", md->vpid);
		host = buf;
	}
	ds->pre = padded(&ds->pren, " %s%scpu %" PRIu64 " ", host, *host ? " " : "", c->cpu);
	ds->lpre = padded(&ds->lpren, " cpu %" PRIu64 ": lost ", c->cpu);
	if (ds->pre && ds->lpre)
		return 0;
	free(ds->pre);
	free(ds->lpre);
	ds->pre = ds->lpre = NULL;
	return -ENOMEM;
}

static void damage(struct dump *d, const struct tr_cursor *c)
{
	tr_text_flush(&d->o);
	fflush(stdout);
	fprintf(stderr, "ringtrace dump: %s\n", c->err);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ringtrace dump [--follow] [--clock-seconds] [--no-delta] [--slice T0..T1]\n"
		"                     TRACE\n\n"
		"Print every event of the CTF trace TRACE as a line of text, all streams\n"
		"merged in timestamp order:\n"
		"  [HH:MM:SS.nnnnnnnnn] (+S.nnnnnnnnn) HOST cpu N pid P tid T NAME: { field = value, ... }\n"
		"(pid and tid: the process and thread that wrote the event, from the trace's\n"
		"thread records; left out where the trace does not say) and the losses where\n"
		"they happen ([time] cpu N: lost K events|packets).\n"
		"TRACE is a trace directory, a directory of rotated chunks (merged as one\n"
		"trace), a directory holding several traces (LTTng's domains, a rotated\n"
		"session: each found below it, all merged in time), - for the stream of\n"
		"`ringtrace record -o -` on standard input, or net://HOST[:PORT]/host/\n"
		"HOSTNAME/SESSION, a session on an lttng-relayd read live from its start\n"
		"(both printed as they come).  A summary goes to stderr, with the warnings:\n"
		"what a producer writes that CTF does not ask for, read on (ringtrace check\n"
		"counts them).\n\n"
		"  -f, --follow     tail a trace being written: print events as the recorder\n"
		"                   makes them safe (every CPU's events up to its watermark,\n"
		"                   in time order), until the recording ends\n"
		"  --clock-seconds  print the time as [SECONDS.nnnnnnnnn] since the epoch\n"
		"  --no-delta       leave out the time since the previous event\n"
		"  --slice T0..T1   only the events from T0 to T1 (T0.. or ..T1: from the\n"
		"                   start, to the end), times from the trace's first event\n"
		"                   (20ms..35ms, 1.5s..2s): each stream read from the packet\n"
		"                   that holds T0, found in the index beside the trace\n"
		"                   (ringtrace index), which is built first if missing\n"
		"  -h, --help       this text\n\n"
		"exit status: 0 done, 1 damaged trace (what was decodable is printed, then the\n"
		"damage: file and offset), 2 usage\n");
}

/*
 * dump_trace() - print the trace @dirs: one directory, or the @ndirs chunks
 * of a rotated trace merged as one, all streams in time order.
 * @pos: where the merge of the turn before stopped (--follow): the streams
 *     go on from there; this turn's stops are saved in it.
 * @limit: leave events after this clock value for a later call.
 * @st: a recorder's state: the stream files are whole up to its sizes.
 * @retry: a chunk that does not open is not reported: -1, try again later.
 * Return: 0, 1 damaged, -1 not readable yet (a trace being created),
 * DUMP_NOMEM memory ran out (said).
 */
static int dump_trace(struct dump *d, char *const *dirs, uint32_t ndirs, struct tr_merge_pos *pos,
		      uint64_t limit, const struct rtr_state *st, bool retry)
{
	struct tr_trace *t = calloc(ndirs ? ndirs : 1, sizeof(*t));
	uint32_t opened = 0, s;
	struct tr_merge mg;
	char err[1024];
	int status = 0, r;
	bool general, merged = false;
	uint64_t from = 0;

	if (!t) {
		say_oom(d);
		return DUMP_NOMEM;
	}
	/* A chunk that does not open is reported and left out; the others are read. */
	for (uint32_t c = 0; c < ndirs; c++) {
		/* Following: each turn reads the files' ends only; no read-ahead of the rest. */
		if ((st ? tr_open_lazy : tr_open)(&t[opened], dirs[c], err, sizeof(err))) {
			if (retry) {
				for (uint32_t j = 0; j < opened; j++)
					tr_close(&t[j]);
				free(t);
				return -1;
			}
			tr_text_flush(&d->o);
			fflush(stdout);
			fprintf(stderr, "ringtrace dump: %s\n", err);
			status = 1;
			continue;
		}
		if (t[opened].md.warnings) {
			tr_text_flush(&d->o);
			fflush(stdout);
			fprintf(stderr, "ringtrace dump: warning: %s (%u such in the metadata, read "
				"on)\n", t[opened].md.warning, t[opened].md.warnings);
		}
		opened++;
	}
	if (!opened) {
		free(t);
		return status;
	}
	if (st)
		tr_follow_cap(&t[opened - 1], st);
	tr_traces_one_clock(t, opened);
	tr_clock_init(&d->clk, &t[0].md);
	d->cls = calloc(opened, sizeof(*d->cls));
	if (!d->cls || tr_merge_init_chunks(&mg, t, opened))
		goto nomem;
	merged = true;
	for (uint32_t c = 0; c < opened; c++)
		if (!(d->cls[c] = setup_classes(&t[c].md)))
			goto nomem;
	d->s = calloc(mg.nstreams + 1, sizeof(*d->s));
	if (!d->s)
		goto nomem;
	tr_merge_set_limit(&mg, limit);
	tr_merge_resume(&mg, pos);
	general = !t[0].md.own;
	if (d->sliced) {
		struct tr_index *ix = calloc(opened, sizeof(*ix));
		uint64_t to;

		if (!ix || tr_index_slice(t, opened, ix, d->slice_a, d->slice_b, &from, &to)) {
			free(ix);
			goto nomem;
		}
		tr_merge_seek(&mg, ix, from);
		tr_merge_set_limit(&mg, to && to - 1 < limit ? to - 1 : limit);
		for (uint32_t c = 0; c < opened; c++)
			tr_index_free(&ix[c]);
		free(ix);
	}

	while ((r = tr_merge_next(&mg, &s)) != TR_END) {
		const struct tr_cursor *c = &mg.c[s];
		struct dstream *ds = &d->s[s];

		/*
		 * --slice: a stream's items before it come first, and its prefix
		 * is made at its first item after: until then it takes this path.
		 */
		if (__builtin_expect(r != TR_EVENT || !ds->pre || general, 0)) {
			if (r == TR_ERROR) {
				damage(d, c);
				status = 1;
				continue;
			}
			if (c->ts < from)
				continue;	/* --slice: before it, in its first packet */
			if (!ds->pre && stream_prefix(ds, c))
				goto nomem;
			if (r != TR_EVENT) {
				*(r == TR_LOST_EVENTS ? &d->slice_lost_events :
				  &d->slice_lost_packets) += c->lost;
				emit_loss(d, c, ds, r == TR_LOST_EVENTS ? "events" : "packets");
				continue;
			}
			if (general) {
				emit_ctf_event(d, c, d->cls[mg.chunk[s]], ds);
				continue;
			}
		}
		emit_event(d, c, d->cls[mg.chunk[s]], ds);
	}
	tr_text_flush(&d->o);
	for (uint32_t i = 0; i < mg.nstreams; i++) {
		if (mg.c[i].quirks) {
			fflush(stdout);
			fprintf(stderr, "ringtrace dump: warning: %s (%" PRIu64 " such in the "
				"stream, read on)\n", mg.c[i].quirk, mg.c[i].quirks);
		}
	}
	if (tr_merge_save(&mg, pos, st != NULL)) {
nomem:
		say_oom(d);
		status = DUMP_NOMEM;
	}
	for (uint32_t i = 0; d->s && i < mg.nstreams; i++) {
		free(d->s[i].pre);
		free(d->s[i].lpre);
	}
	free(d->s);
	d->s = NULL;
	if (merged)
		tr_merge_free(&mg);
	for (uint32_t c = 0; c < opened; c++) {
		if (d->cls)
			free_classes(d->cls[c], &t[c].md);
		tr_close(&t[c]);
	}
	free(d->cls);
	free(t);
	d->cls = NULL;
	return status;
}

/*
 * Follow a trace being written: each turn, the chunks the recorder has
 * finished to their end, then the chunk in progress up to its watermark
 * and within the sizes its state file gives (reader/follow.h).
 */
static int follow(struct dump *d, struct tr_input *in, struct tr_merge_pos *pos)
{
	struct tr_follow f = { .in = in };
	int status = 0;

	for (;;) {
		struct tr_follow_turn turn;
		char err[1024];
		uint32_t cur;
		int r = tr_follow_poll(&f, &turn, err, sizeof(err));

		if (r < 0) {
			if (err[0])
				fprintf(stderr, "ringtrace dump: %s\n", err);
			status = 1;
			break;
		}
		if (r == TR_FOLLOW_READ) {
			cur = tr_merge_pos_first(pos, in->dirs, in->ndirs, turn.now);
			/*
			 * One merge over the chunks not yet read to the end, up to
			 * the watermark; the last one within the whole packets the
			 * state file names.  At the end, everything.
			 */
			r = dump_trace(d, &in->dirs[cur], turn.now - cur + 1, pos, turn.limit,
				       turn.done ? NULL : &turn.st, !turn.done || cur > 0);
			if (r >= 0)
				status |= r;
			else if (turn.done || r == DUMP_NOMEM)
				status = 1;
			tr_follow_turn_free(&turn);
			if (turn.done || r == DUMP_NOMEM)
				break;
		}
		fflush(stdout);
		tr_input_wait(in, 200);
	}
	return status;
}

int rtr_cmd_dump(int argc, char **argv)
{
	struct dump d = { .delta = true };
	struct tr_merge_pos pos = { 0 };
	uint64_t lost_events, lost_packets;
	struct tr_input in;
	const char *dir = NULL;
	bool live = false;
	char err[1024];
	int status = 0, ret;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "--clock-seconds")) {
			d.clock_seconds = true;
		} else if (!strcmp(argv[i], "--no-delta")) {
			d.delta = false;
		} else if (!strcmp(argv[i], "-f") || !strcmp(argv[i], "--follow")) {
			live = true;
		} else if (!strcmp(argv[i], "--slice") || !strncmp(argv[i], "--slice=", 8)) {
			const char *v = argv[i][7] ? argv[i] + 8 : i + 1 < argc ? argv[++i] : "";

			if (cli_parse_span("dump", "--slice", v, true, &d.slice_a, &d.slice_b))
				return 2;
			d.sliced = true;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "ringtrace dump: unknown option '%s'\n", argv[i]);
			usage(stderr);
			return 2;
		} else if (!dir) {
			dir = argv[i];
		} else {
			fprintf(stderr, "ringtrace dump: unexpected argument '%s'\n", argv[i]);
			return 2;
		}
	}
	if (!dir) {
		usage(stderr);
		return 2;
	}
	if (d.sliced && (live || !strcmp(dir, "-"))) {
		fprintf(stderr, "ringtrace dump: --slice reads a trace directory, not one being "
			"followed or a stream\n");
		return 2;
	}
	if (cli_traces_exist("dump", (char **)&dir, 1))
		return 2;
	if (!strcmp(dir, "-") || !strncmp(dir, "net://", 6))
		live = true;	/* read as it is spooled */
	ret = tr_input_open(&in, dir, live, err, sizeof(err));
	/*
	 * Following, a directory that holds no trace yet may be one a recorder
	 * has just made: follow() waits for its first chunk (or says why not).
	 */
	if (ret && !(live && ret == -ENOENT && in.root)) {
		fprintf(stderr, "ringtrace dump: %s\n", err);
		tr_input_close(&in, NULL, 0);
		return 1;
	}
	cli_input_told(&in);
	if (tr_text_init(&d.o, stdout, OUT_CAP)) {
		fprintf(stderr, "ringtrace dump: out of memory\n");
		tr_input_close(&in, NULL, 0);
		return 1;
	}
	if (live) {
		status = follow(&d, &in, &pos);
	} else {
		/* A rotated trace's chunks: one merge, as one trace. */
		status |= dump_trace(&d, in.dirs, in.ndirs, &pos, UINT64_MAX, NULL, false) ? 1 : 0;
	}
	tr_merge_pos_lost(&pos, &lost_events, &lost_packets);
	if (d.sliced) {
		/* the cursors' totals count their first packets whole: the slice's are those printed */
		lost_events = d.slice_lost_events;
		lost_packets = d.slice_lost_packets;
	}
	tr_merge_pos_free(&pos);
	tr_text_flush(&d.o);
	if (fflush(stdout) || d.o.failed) {
		fprintf(stderr, "ringtrace dump: writing the output failed\n");
		status = 1;
	}
	fprintf(stderr, "dump: %" PRIu64 " events, %" PRIu64 " events lost, %" PRIu64
		" packets lost\n", d.events, lost_events, lost_packets);
	if (d.sliced && !d.events && !lost_events && !lost_packets)
		cli_slice_empty("dump", (char *const[]){ (char *)dir }, 1);
	tr_text_free(&d.o);
	if (cli_input_close(&in))
		status = 1;
	return status;
}
