// SPDX-License-Identifier: MIT
/*
 * tools/dump.c - `ringtrace dump DIR`: every event of a trace as one line of
 * text, babeltrace2-like, all streams merged in timestamp order (a k-way
 * merge over the per-file cursors, ties in stream order), the losses in line
 * where they happen.  A trace holds millions of events, so lines are
 * formatted by hand into a large buffer: no printf per field, the time of
 * day recomputed only when the second changes.
 */
#include <endian.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "tools/input.h"
#include "tools/trace_reader.h"
#include "consumer/output.h"

#define OUT_CAP		(256u << 10)
#define CHUNK		16384u		/* string/bytes input per buffer check */

struct out {
	char *buf;
	size_t len, cap;
	bool failed;
};

struct dfield {
	enum tr_type type;
	const struct tr_field *f;
	char *lead;		/* " name = " or ", name = " */
	size_t leadn;
	const struct tr_label **tab;	/* enums: label by value, when dense */
	uint32_t ntab;
};

struct dclass {
	char *head;		/* "name: {" */
	size_t headn;
	size_t bound;		/* room for the head, the fixed-size fields and the tail */
	struct dfield *f;
};

struct dstream {
	struct tr_cursor c;
	const struct dclass *cls;	/* the class table of the chunk c reads */
	const char *name;	/* the stream file's name */
	uint32_t *chain_c, *chain_i;	/* its file in each chunk: chunk, stream index */
	uint32_t nchain, at;	/* ... how many, and the one c reads */
	bool ended;		/* its last file read to the end (not stopped at a limit) */
	bool copied;		/* its cursor was taken from the turn before, totals and all */
	uint64_t events_lost, packets_lost;	/* of the chunks read before */
	char *pre;		/* " host cpu N " */
	size_t pren;
	char *lpre;		/* " cpu N: lost " */
	size_t lpren;
	int item;		/* enum tr_item the cursor is on */
};

struct dump {
	const struct tr_trace *t;	/* the first (or only) chunk */
	const struct tr_trace *chunks;
	const char **chunk_name;	/* of each chunk: its directory's name */
	uint32_t nchunks;
	struct dclass **cls;		/* per chunk */
	uint32_t ns;			/* streams (by name, over the chunks) */
	bool capped;			/* the last chunk is being written */
	struct dstream *s;
	struct out o;
	struct tr_clock clk;
	bool clock_seconds, delta;
	/* the cached "[HH:MM:SS." (or "[SECONDS.") of second @tsec */
	char tstr[48];
	size_t tn;
	int64_t tsec;
	bool tvalid;
	/* the previous event's time, for the delta */
	int64_t psec;
	uint32_t pnsec;
	bool have_prev;
	uint64_t events;
	uint64_t lost_events, lost_packets;
};

static char dig2[200];

static void init_digits(void)
{
	for (int i = 0; i < 100; i++) {
		dig2[2 * i] = (char)('0' + i / 10);
		dig2[2 * i + 1] = (char)('0' + i % 10);
	}
}

static __attribute__((noreturn)) void oom(void)
{
	fprintf(stderr, "ringtrace dump: out of memory\n");
	exit(1);
}

static void out_flush(struct out *o)
{
	if (o->len && !o->failed && fwrite(o->buf, 1, o->len, stdout) != o->len)
		o->failed = true;
	o->len = 0;
}

static __attribute__((noinline)) void out_grow(struct out *o, size_t n)
{
	out_flush(o);
	if (n > o->cap) {
		char *b = realloc(o->buf, n);

		if (!b)
			oom();
		o->buf = b;
		o->cap = n;
	}
}

/* Room for @n more bytes: where to write them. */
static inline char *out_room(struct out *o, size_t n)
{
	if (__builtin_expect(o->cap - o->len < n, 0))
		out_grow(o, n);
	return o->buf + o->len;
}

static inline char *put(char *p, const void *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}

static const uint64_t pow10_tab[20] = {
	0, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
	100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
	10000000000000ull, 100000000000000ull, 1000000000000000ull, 10000000000000000ull,
	100000000000000000ull, 1000000000000000000ull, 10000000000000000000ull,
};

/* Decimal digits of @v: 1..20. */
static inline unsigned ndigits(uint64_t v)
{
	unsigned t = (unsigned)(64 - __builtin_clzll(v | 1)) * 1233 >> 12;

	return t - (v < pow10_tab[t]) + 1;
}

/* Exactly 8 digits, zero-padded: two independent halves. */
static inline void put_8(char *p, uint32_t x)
{
	uint32_t a = x / 10000, b = x % 10000;

	memcpy(p, dig2 + 2 * (a / 100), 2);
	memcpy(p + 2, dig2 + 2 * (a % 100), 2);
	memcpy(p + 4, dig2 + 2 * (b / 100), 2);
	memcpy(p + 6, dig2 + 2 * (b % 100), 2);
}

/* @x < 10^8, no padding. */
static inline char *put_small(char *p, uint32_t x)
{
	unsigned n = ndigits(x);
	char *e = p + n;

	while (x >= 100) {
		uint32_t d = x / 100;

		e -= 2;
		memcpy(e, dig2 + 2 * (x - d * 100), 2);
		x = d;
	}
	if (x >= 10)
		memcpy(e - 2, dig2 + 2 * x, 2);
	else
		e[-1] = (char)('0' + x);
	return p + n;
}

static inline __attribute__((always_inline)) char *put_u64(char *p, uint64_t v)
{
	if (v < 100000000u)
		return put_small(p, (uint32_t)v);
	if (v < 10000000000000000ull) {
		p = put_small(p, (uint32_t)(v / 100000000u));
	} else {
		uint64_t hi = v / 100000000u;

		p = put_small(p, (uint32_t)(hi / 100000000u));
		put_8(p, (uint32_t)(hi % 100000000u));
		p += 8;
	}
	put_8(p, (uint32_t)(v % 100000000u));
	return p + 8;
}

/*
 * Copy a short string whose buffer is readable 32 bytes past its start (or
 * its length): one or two vector moves instead of a call.  The output has
 * PAD bytes of slack reserved after each such copy.
 */
#define PAD 32
static inline char *put_pad(char *p, const char *s, size_t n)
{
	if (n <= 16)
		memcpy(p, s, 16);
	else if (n <= 32)
		memcpy(p, s, 32);
	else
		memcpy(p, s, n);
	return p + n;
}

/* asprintf() into a buffer padded for put_pad(). */
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
		oom();
	b = calloc(1, (size_t)n + PAD + 1);
	if (!b)
		oom();
	memcpy(b, s, (size_t)n);
	free(s);
	*len = (size_t)n;
	return b;
}

static inline char *put_s64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return put_u64(p, (uint64_t)0 - (uint64_t)v);
	}
	return put_u64(p, (uint64_t)v);
}

/* Nine digits, zero-padded. */
static inline char *put_9(char *p, uint32_t v)
{
	p[0] = (char)('0' + v / 100000000u);
	put_8(p + 1, v % 100000000u);
	return p + 9;
}

/* The shortest of %.15g..%.17g that reads back as the same double. */
static char *put_double(char *p, double v)
{
	char b[40];
	int n = 0;

	for (int prec = 15; prec <= 17; prec++) {
		n = snprintf(b, sizeof(b), "%.*g", prec, v);
		if (strtod(b, NULL) == v)
			break;
	}
	return put(p, b, (size_t)n);
}

static const char hexd[] = "0123456789abcdef";

/* 0: as is; else the character after the backslash, or 'x' for \xNN. */
static char esc[256];

static void init_escapes(void)
{
	for (int i = 0; i < 256; i++)
		esc[i] = i < 0x20 || i >= 0x7f ? 'x' : 0;
	esc['"'] = '"';
	esc['\\'] = '\\';
	esc['\n'] = 'n';
	esc['\t'] = 't';
}

static void put_string(struct out *o, const uint8_t *s, size_t n)
{
	char *p = out_room(o, 1);

	*p = '"';
	o->len++;
	while (n) {
		size_t chunk = n > CHUNK ? CHUNK : n;
		const uint8_t *e = s + chunk;

		p = out_room(o, 4 * chunk + 1);
		while (s < e) {
			const uint8_t *r = s;

			while (r < e && !esc[*r])
				r++;
			p = put(p, s, (size_t)(r - s));
			s = r;
			if (s < e) {
				*p++ = '\\';
				*p++ = esc[*s];
				if (esc[*s] == 'x') {
					*p++ = hexd[*s >> 4];
					*p++ = hexd[*s & 15];
				}
				s++;
			}
		}
		o->len = (size_t)(p - o->buf);
		n -= chunk;
	}
	p = out_room(o, 1);
	*p = '"';
	o->len++;
}

static void put_bytes(struct out *o, const uint8_t *s, size_t n)
{
	char *p = out_room(o, 2);

	p[0] = '0';
	p[1] = 'x';
	o->len += 2;
	while (n) {
		size_t chunk = n > CHUNK ? CHUNK : n;

		p = out_room(o, 2 * chunk);
		for (size_t i = 0; i < chunk; i++) {
			*p++ = hexd[s[i] >> 4];
			*p++ = hexd[s[i] & 15];
		}
		o->len = (size_t)(p - o->buf);
		s += chunk;
		n -= chunk;
	}
}

static const struct tr_label *find_label(const struct dfield *df, uint32_t v)
{
	if (df->tab)
		return v < df->ntab ? df->tab[v] : NULL;
	return tr_field_label(df->f, v);
}

static char *put_enum(char *p, const struct dfield *df, uint32_t v)
{
	const struct tr_label *l = find_label(df, v);

	if (l) {
		p = put(p, l->label, l->len);
		*p++ = ' ';
		*p++ = '(';
		p = put_u64(p, v);
		*p++ = ')';
		return p;
	}
	return put_u64(p, v);
}


/* "[HH:MM:SS.nnnnnnnnn" (or "[SECONDS.nnnnnnnnn"), without the closing bracket. */
static inline __attribute__((always_inline)) char *put_time(struct dump *d, char *p, int64_t sec,
							   uint32_t nsec)
{
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
	}
	if (__builtin_expect(!d->tn, 0)) {
		/* sec < 0: show -|t| */
		uint64_t s = (uint64_t)0 - (uint64_t)sec;

		if (nsec) {
			s--;
			nsec = 1000000000u - nsec;
		}
		p = put(p, "[-", 2);
		p = put_u64(p, s);
		*p++ = '.';
		return put_9(p, nsec);
	}
	p = put_pad(p, d->tstr, d->tn);
	return put_9(p, nsec);
}

static char *put_delta(struct dump *d, char *p, int64_t sec, uint32_t nsec)
{
	__int128 dt;

	if (!d->have_prev) {
		d->have_prev = true;
		p = put(p, " (+?.????????" "?)", 15);
	} else {
		if (sec == d->psec)
			dt = (int64_t)nsec - (int64_t)d->pnsec;
		else
			dt = ((__int128)sec - d->psec) * 1000000000 + (__int128)nsec - d->pnsec;
		p = put(p, " (+", 3);
		if (dt < 0) {
			p[-1] = '-';
			dt = -dt;
		}
		if (dt < 1000000000) {
			*p++ = '0';
		} else {
			__int128 s = dt / 1000000000;

			p = put_u64(p, s > UINT64_MAX ? UINT64_MAX : (uint64_t)s);
			dt -= s * 1000000000;
		}
		*p++ = '.';
		p = put_9(p, (uint32_t)dt);
		*p++ = ')';
	}
	d->psec = sec;
	d->pnsec = nsec;
	return p;
}

static void emit_event(struct dump *d, struct dstream *ds)
{
	const struct tr_class *cls = ds->c.cls;
	const struct dclass *dc = &ds->cls[cls - ds->c.md->classes];
	const uint8_t *pl = ds->c.payload;
	struct out *o = &d->o;
	int64_t sec;
	uint32_t nsec;
	char *p;

	tr_clock_ns(&d->clk, ds->c.ts, &sec, &nsec);
	p = out_room(o, 128 + ds->pren + dc->bound);
	p = put_time(d, p, sec, nsec);
	*p++ = ']';
	if (d->delta)
		p = put_delta(d, p, sec, nsec);
	p = put_pad(p, ds->pre, ds->pren);
	p = put_pad(p, dc->head, dc->headn);
	for (uint32_t i = 0; i < cls->nfields; i++) {
		const struct dfield *df = &dc->f[i];

		p = put_pad(p, df->lead, df->leadn);
		switch (df->type) {
		case TR_U8:
			p = put_u64(p, *pl);
			pl += 1;
			break;
		case TR_U16:
			p = put_u64(p, ld16(pl));
			pl += 2;
			break;
		case TR_U32:
			p = put_u64(p, ld32(pl));
			pl += 4;
			break;
		case TR_U64:
			p = put_u64(p, ld64(pl));
			pl += 8;
			break;
		case TR_S8:
			p = put_s64(p, (int8_t)*pl);
			pl += 1;
			break;
		case TR_S16:
			p = put_s64(p, (int16_t)ld16(pl));
			pl += 2;
			break;
		case TR_S32:
			p = put_s64(p, (int32_t)ld32(pl));
			pl += 4;
			break;
		case TR_S64:
			p = put_s64(p, (int64_t)ld64(pl));
			pl += 8;
			break;
		case TR_DOUBLE: {
			uint64_t u = ld64(pl);
			double v;

			memcpy(&v, &u, 8);
			p = put_double(p, v);
			pl += 8;
			break;
		}
		case TR_ENUM8:
			p = put_enum(p, df, *pl);
			pl += 1;
			break;
		case TR_ENUM32:
			p = put_enum(p, df, ld32(pl));
			pl += 4;
			break;
		case TR_STRING: {
			/* the cursor found the NUL inside the record */
			size_t n = strlen((const char *)pl);

			o->len = (size_t)(p - o->buf);
			put_string(o, pl, n);
			p = out_room(o, dc->bound);
			pl += n + 1;
			break;
		}
		case TR_BYTES: {
			uint32_t n = ld32(pl);

			o->len = (size_t)(p - o->buf);
			put_bytes(o, pl + 4, n);
			p = out_room(o, dc->bound);
			pl += 4 + (size_t)n;
			break;
		}
		}
	}
	p = put(p, " }\n", 3);
	o->len = (size_t)(p - o->buf);
	d->events++;
}

static void emit_loss(struct dump *d, struct dstream *ds, const char *what)
{
	struct out *o = &d->o;
	int64_t sec;
	uint32_t nsec;
	char *p;

	tr_clock_ns(&d->clk, ds->c.ts, &sec, &nsec);
	p = out_room(o, 128 + ds->lpren + 32);
	p = put_time(d, p, sec, nsec);
	*p++ = ']';
	p = put_pad(p, ds->lpre, ds->lpren);
	p = put_u64(p, ds->c.lost);
	*p++ = ' ';
	p = put(p, what, strlen(what));
	*p++ = '\n';
	o->len = (size_t)(p - o->buf);
}

static struct dclass *setup_classes(const struct tr_metadata *md)
{
	struct dclass *cls = calloc(md->nclasses ? md->nclasses : 1, sizeof(*cls));

	if (!cls)
		oom();
	for (uint32_t i = 0; i < md->nclasses; i++) {
		const struct tr_class *c = &md->classes[i];
		struct dclass *dc = &cls[i];

		dc->head = padded(&dc->headn, "%s: {", c->name);
		dc->bound = dc->headn + PAD + 4;
		dc->f = calloc(c->nfields ? c->nfields : 1, sizeof(*dc->f));
		if (!dc->f)
			oom();
		for (uint32_t j = 0; j < c->nfields; j++) {
			const struct tr_field *f = &c->fields[j];
			struct dfield *df = &dc->f[j];
			uint32_t maxlabel = 0, maxval = 0;

			df->f = f;
			df->type = f->type;
			df->lead = padded(&df->leadn, "%s%s = ", j ? ", " : " ", f->name);
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
					oom();
				for (uint32_t k = 0; k < f->nlabels; k++)
					df->tab[f->labels[k].value] = &f->labels[k];
			}
		}
	}
	return cls;
}

static void free_classes(struct dclass *cls, const struct tr_metadata *md)
{
	for (uint32_t i = 0; cls && i < md->nclasses; i++) {
		for (uint32_t j = 0; j < md->classes[i].nfields; j++) {
			free(cls[i].f[j].lead);
			free(cls[i].f[j].tab);
		}
		free(cls[i].f);
		free(cls[i].head);
	}
	free(cls);
}

/* The stream's line prefixes, once its first packet told its CPU. */
static void stream_prefix(struct dump *d, struct dstream *ds)
{
	const char *host = d->t->md.hostname;

	if (ds->pre)
		return;
	ds->pre = padded(&ds->pren, " %s%scpu %" PRIu64 " ", host, *host ? " " : "", ds->c.cpu);
	ds->lpre = padded(&ds->lpren, " cpu %" PRIu64 ": lost ", ds->c.cpu);
}

static bool before(const struct dump *d, uint32_t a, uint32_t b)
{
	uint64_t ta = d->s[a].c.ts, tb = d->s[b].c.ts;

	return ta < tb || (ta == tb && a < b);
}

static void sift_down(const struct dump *d, uint32_t *heap, uint32_t n, uint32_t i)
{
	for (;;) {
		uint32_t l = 2 * i + 1, m = i;

		if (l < n && before(d, heap[l], heap[m]))
			m = l;
		if (l + 1 < n && before(d, heap[l + 1], heap[m]))
			m = l + 1;
		if (m == i)
			return;
		uint32_t x = heap[i];

		heap[i] = heap[m];
		heap[m] = x;
		i = m;
	}
}

static void damage(struct dump *d, struct dstream *ds)
{
	out_flush(&d->o);
	fflush(stdout);
	fprintf(stderr, "ringtrace dump: %s\n", ds->c.err);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ringtrace dump [--follow] [--clock-seconds] [--no-delta] TRACE\n\n"
		"Print every event of the CTF trace TRACE as a line of text, all streams\n"
		"merged in timestamp order:\n"
		"  [HH:MM:SS.nnnnnnnnn] (+S.nnnnnnnnn) HOST cpu N NAME: { field = value, ... }\n"
		"and the losses where they happen ([time] cpu N: lost K events|packets).\n"
		"TRACE is a trace directory, a directory of rotated chunks (merged as one\n"
		"trace), or - for the stream of `ringtrace record -o -` on standard input\n"
		"(printed as it comes).  A summary goes to stderr.\n\n"
		"  -f, --follow     tail a trace being written: print events as the recorder\n"
		"                   makes them safe (every CPU's events up to its watermark,\n"
		"                   in time order), until the recording ends\n"
		"  --clock-seconds  print the time as [SECONDS.nnnnnnnnn] since the epoch\n"
		"  --no-delta       leave out the time since the previous event\n"
		"  -h, --help       this text\n\n"
		"exit status: 0 done, 1 damaged trace (what was decodable is printed, then the\n"
		"damage: file and offset), 2 usage\n");
}

/*
 * The cursors of the last trace read, by stream file name, to go on from.
 * A cursor's chunk is known by its name; carry_locate() finds its index in
 * the input each turn (old chunks may be removed while a recording is
 * followed).
 */
struct carry {
	char **names;
	struct tr_cursor *c;	/* whole, its message too */
	char **cname;		/* the chunk each cursor is in: its directory's name */
	uint32_t *chunk;	/* ... its index in the input now */
	bool *gone;		/* ... or it is no more: the index of the next one */
	bool *ended;		/* whether the cursor reached that file's end */
	uint32_t n;
};

/* A cursor's state without its message: what tr_next() moves. */
#define CURSOR_STATE offsetof(struct tr_cursor, err)

static int carry_find(const struct carry *k, const char *name)
{
	for (uint32_t i = 0; i < k->n; i++)
		if (!strcmp(k->names[i], name))
			return (int)i;
	return -1;
}

static void carry_free(struct carry *k)
{
	for (uint32_t i = 0; i < k->n; i++) {
		free(k->names[i]);
		free(k->cname[i]);
	}
	free(k->names);
	free(k->c);
	free(k->cname);
	free(k->chunk);
	free(k->gone);
	free(k->ended);
	memset(k, 0, sizeof(*k));
}

/*
 * Keep every stream's cursor; @base is the input index of the first chunk
 * read.  Streams this turn did not see (no file in its chunks) keep theirs.
 */
static void carry_save(struct carry *k, const struct dump *d, uint32_t base)
{
	struct carry old = *k;
	uint32_t cap = d->ns + old.n + 1, n = 0;

	k->names = calloc(cap, sizeof(*k->names));
	k->c = calloc(cap, sizeof(*k->c));
	k->cname = calloc(cap, sizeof(*k->cname));
	k->chunk = calloc(cap, sizeof(*k->chunk));
	k->gone = calloc(cap, sizeof(*k->gone));
	k->ended = calloc(cap, sizeof(*k->ended));
	if (!k->names || !k->c || !k->cname || !k->chunk || !k->gone || !k->ended)
		oom();
	for (uint32_t i = 0; i < d->ns; i++, n++) {
		k->names[n] = strdup(d->s[i].name);
		k->cname[n] = strdup(d->chunk_name[d->s[i].chain_c[d->s[i].at]]);
		if (!k->names[n] || !k->cname[n])
			oom();
		k->c[n] = d->s[i].c;
		k->chunk[n] = base + d->s[i].chain_c[d->s[i].at];
		/* The end of a file still being written (capped) is not its end. */
		k->ended[n] = d->s[i].ended &&
			      !(d->capped && d->s[i].chain_c[d->s[i].at] == d->nchunks - 1);
	}
	for (uint32_t i = 0; i < old.n; i++) {
		bool seen = false;

		for (uint32_t j = 0; j < d->ns && !seen; j++)
			seen = !strcmp(old.names[i], d->s[j].name);
		if (seen)
			continue;
		k->names[n] = old.names[i];
		old.names[i] = NULL;
		k->cname[n] = old.cname[i];
		old.cname[i] = NULL;
		k->c[n] = old.c[i];
		k->chunk[n] = old.chunk[i];
		k->gone[n] = old.gone[i];
		k->ended[n] = old.ended[i];
		n++;
	}
	k->n = n;
	carry_free(&old);
}

/*
 * The first chunk a later turn of --follow must read: for each stream, the
 * chunk its cursor is in, or the one after if it read its file there to
 * the end (the chunk @now, being written, may grow: it is read again).
 */
static uint32_t carry_first(const struct carry *k, uint32_t now)
{
	uint32_t first = now;

	for (uint32_t i = 0; i < k->n; i++) {
		uint32_t need = k->chunk[i] + (!k->gone[i] && k->ended[i] && k->chunk[i] < now);

		if (k->c[i].failed)
			continue;	/* read no more: its damage was reported */
		if (need < first)
			first = need;
	}
	return first;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/*
 * Each cursor's chunk in the input as it is now, by name (the input is
 * sorted by name): old chunks may have been removed while a long recording
 * was followed.  A cursor whose chunk is gone goes on in the next one.
 */
static void carry_locate(struct carry *k, const struct tr_input *in)
{
	for (uint32_t i = 0; i < k->n; i++) {
		uint32_t j = 0;

		while (j < in->ndirs && strcmp(base_name(in->dirs[j]), k->cname[i]) < 0)
			j++;
		k->chunk[i] = j;
		k->gone[i] = j == in->ndirs || strcmp(base_name(in->dirs[j]), k->cname[i]);
	}
}

/* Point stream @ds's cursor at its file in the chunk ds->at. */
static void chunk_cursor(struct dump *d, struct dstream *ds)
{
	uint32_t c = ds->chain_c[ds->at];

	tr_cursor_init(&ds->c, &d->chunks[c], ds->chain_i[ds->at]);
	ds->cls = d->cls[c];
}

/*
 * Stream @ds's file in its chunk has ended: it goes on in the next chunk
 * that has it, its sequence numbers and loss counts continuing.
 */
static __attribute__((noinline)) int next_chunk(struct dump *d, struct dstream *ds)
{
	struct tr_cursor prev;
	int r = TR_END;

	while (r == TR_END && ds->at + 1 < ds->nchain) {
		memcpy(&prev, &ds->c, CURSOR_STATE);
		ds->events_lost += ds->c.events_lost;
		ds->packets_lost += ds->c.packets_lost;
		ds->at++;
		chunk_cursor(d, ds);
		tr_cursor_continue(&ds->c, &prev);
		r = tr_next(&ds->c);
	}
	return r;
}

static inline int next_in_chain(struct dump *d, struct dstream *ds)
{
	int r = tr_next(&ds->c);

	if (__builtin_expect(r != TR_END, 1))
		return r;
	return next_chunk(d, ds);
}

/*
 * The next item of stream @i, unless it lies past @limit: then the cursor
 * stays.  At the end of a chunk's file, the stream goes on in the next
 * chunk that has it (next_chunk()).
 */
static inline int next_item(struct dump *d, uint32_t i, uint64_t limit)
{
	struct dstream *ds = &d->s[i];
	uint64_t el, pl;
	struct tr_cursor saved;
	uint32_t at;
	int r;

	if (__builtin_expect(limit == UINT64_MAX, 1)) {
		r = next_in_chain(d, ds);
		ds->ended = r == TR_END;
		return r;
	}
	el = ds->events_lost;
	pl = ds->packets_lost;
	at = ds->at;
	memcpy(&saved, &ds->c, CURSOR_STATE);
	r = next_in_chain(d, ds);
	if (r > 0 && ds->c.ts > limit) {
		/* Past the watermark: back where it was, maybe in the chunk before. */
		if (ds->at != at) {
			ds->at = at;
			chunk_cursor(d, ds);
			ds->events_lost = el;
			ds->packets_lost = pl;
		}
		memcpy(&ds->c, &saved, CURSOR_STATE);
		ds->ended = false;
		return TR_END;
	}
	ds->ended = r == TR_END;
	return r;
}

/* Cap @t's stream files to the whole packets a recorder's state names. */
static void cap_streams(struct tr_trace *t, const struct tr_state *st)
{
	for (uint32_t i = 0; i < t->nstreams; i++) {
		uint64_t whole = 0;
		unsigned cpu;

		if (sscanf(t->streams[i].name, "stream_%u", &cpu) == 1)
			for (uint32_t j = 0; j < st->nstreams; j++)
				if (st->streams[j].cpu == cpu)
					whole = st->streams[j].size;
		if (t->streams[i].size > whole)
			t->streams[i].size = whole;
	}
}

/* The streams by file name over the chunks, each with its file in every chunk. */
static void chain_streams(struct dump *d)
{
	uint32_t total = 0;

	for (uint32_t c = 0; c < d->nchunks; c++)
		total += d->chunks[c].nstreams;
	d->s = calloc(total ? total : 1, sizeof(*d->s));
	if (!d->s)
		oom();
	d->ns = 0;
	for (uint32_t c = 0; c < d->nchunks; c++) {
		for (uint32_t i = 0; i < d->chunks[c].nstreams; i++) {
			const char *name = d->chunks[c].streams[i].name;
			struct dstream *ds = NULL;

			for (uint32_t j = 0; j < d->ns && !ds; j++)
				if (!strcmp(d->s[j].name, name))
					ds = &d->s[j];
			if (!ds) {
				ds = &d->s[d->ns++];
				ds->name = name;
				ds->chain_c = calloc(d->nchunks, sizeof(*ds->chain_c));
				ds->chain_i = calloc(d->nchunks, sizeof(*ds->chain_i));
				if (!ds->chain_c || !ds->chain_i)
					oom();
			}
			ds->chain_c[ds->nchain] = c;
			ds->chain_i[ds->nchain] = i;
			ds->nchain++;
		}
	}
}

/*
 * dump_trace() - print the trace @dirs: one directory, or the @ndirs chunks
 * of a rotated trace merged as one, all streams in time order.
 * @base: the input index of @dirs[0] (--follow reads a window of chunks).
 * @k: the cursors of the turn before (--follow): a stream whose cursor is in
 *     a chunk read now goes on from it; one left in an earlier chunk
 *     continues into its next file (sequence numbers checked across).
 * @limit: leave events after this clock value for a later call.
 * @st: a recorder's state: the stream files are whole up to its sizes.
 * Return: 0, 1 damaged, -1 not readable yet (a trace being created).
 */
static int dump_trace(struct dump *d, char *const *dirs, uint32_t ndirs, uint32_t base,
		      struct carry *k, uint64_t limit, const struct tr_state *st, bool quiet_open)
{
	struct tr_trace *t = calloc(ndirs ? ndirs : 1, sizeof(*t));
	const char **names = calloc(ndirs ? ndirs : 1, sizeof(*names));
	uint32_t *heap, n = 0, opened = 0;
	char err[1024];
	int status = 0;

	if (!t || !names)
		oom();
	/* A chunk that does not open is reported and left out; the others are read. */
	for (uint32_t c = 0; c < ndirs; c++) {
		/* Following: each turn reads the files' ends only; no read-ahead of the rest. */
		if ((st ? tr_open_lazy : tr_open)(&t[opened], dirs[c], err, sizeof(err))) {
			if (quiet_open || base) {
				for (uint32_t j = 0; j < opened; j++)
					tr_close(&t[j]);
				free(t);
				free(names);
				return -1;
			}
			out_flush(&d->o);
			fflush(stdout);
			fprintf(stderr, "ringtrace dump: %s\n", err);
			status = 1;
			continue;
		}
		names[opened++] = base_name(dirs[c]);
	}
	d->chunk_name = names;
	if (!opened) {
		free(names);
		free(t);
		return status;
	}
	if (st)
		cap_streams(&t[opened - 1], st);
	d->capped = st != NULL;
	d->t = &t[0];
	d->chunks = t;
	d->nchunks = opened;
	tr_clock_init(&d->clk, &t[0].md);
	d->cls = calloc(opened, sizeof(*d->cls));
	if (!d->cls)
		oom();
	for (uint32_t c = 0; c < opened; c++)
		d->cls[c] = setup_classes(&t[c].md);
	chain_streams(d);
	heap = calloc(d->ns ? d->ns : 1, sizeof(*heap));
	if (!heap)
		oom();

	for (uint32_t i = 0; i < d->ns; i++) {
		struct dstream *ds = &d->s[i];
		int pi = carry_find(k, ds->name);
		int r;

		ds->copied = false;
		if (pi >= 0 && k->chunk[pi] >= base) {
			/* Its cursor is in a chunk read now: from where it stopped. */
			while (ds->at + 1 < ds->nchain && base + ds->chain_c[ds->at] < k->chunk[pi])
				ds->at++;
		}
		chunk_cursor(d, ds);
		if (pi >= 0 && k->c[pi].failed) {
			/* Damaged in an earlier turn, and reported then: read no more. */
			tr_cursor_resume(&ds->c, &k->c[pi]);
			ds->copied = true;
			continue;
		}
		if (pi >= 0 && !k->gone[pi] && base + ds->chain_c[ds->at] == k->chunk[pi]) {
			ds->copied = true;
			if (tr_cursor_resume(&ds->c, &k->c[pi]) == TR_ERROR) {
				damage(d, ds);
				status = 1;
				continue;
			}
		} else if (pi >= 0) {
			tr_cursor_continue(&ds->c, &k->c[pi]);
		}
		r = next_item(d, i, limit);
		if (r == TR_ERROR) {
			damage(d, ds);
			status = 1;
		} else if (r != TR_END) {
			ds->item = r;
			stream_prefix(d, ds);
			heap[n++] = i;
		}
	}
	for (uint32_t i = n / 2; i-- > 0;)
		sift_down(d, heap, n, i);

	while (n) {
		struct dstream *ds = &d->s[heap[0]];
		int r;

		if (__builtin_expect(ds->item == TR_EVENT, 1))
			emit_event(d, ds);
		else
			emit_loss(d, ds, ds->item == TR_LOST_EVENTS ? "events" : "packets");
		r = next_item(d, heap[0], limit);
		if (__builtin_expect(r > 0, 1)) {
			ds->item = r;
		} else {
			if (r == TR_ERROR) {
				damage(d, ds);
				status = 1;
			}
			heap[0] = heap[--n];
		}
		sift_down(d, heap, n, 0);
	}
	out_flush(&d->o);
	for (uint32_t i = 0; i < d->ns; i++) {
		struct dstream *ds = &d->s[i];
		int pi = ds->copied ? carry_find(k, ds->name) : -1;

		/* A copied cursor's totals include what earlier turns counted. */
		d->lost_events += ds->events_lost + ds->c.events_lost -
				  (pi >= 0 ? k->c[pi].events_lost : 0);
		d->lost_packets += ds->packets_lost + ds->c.packets_lost -
				   (pi >= 0 ? k->c[pi].packets_lost : 0);
	}
	carry_save(k, d, base);
	for (uint32_t i = 0; i < d->ns; i++) {
		free(d->s[i].pre);
		free(d->s[i].lpre);
		free(d->s[i].chain_c);
		free(d->s[i].chain_i);
	}
	free(heap);
	free(d->s);
	d->s = NULL;
	for (uint32_t c = 0; c < opened; c++) {
		free_classes(d->cls[c], &t[c].md);
		tr_close(&t[c]);
	}
	free(d->cls);
	free(t);
	free(names);
	d->chunk_name = NULL;
	d->cls = NULL;
	d->t = NULL;
	d->chunks = NULL;
	return status;
}

static uint64_t rtr_mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/*
 * Follow a trace being written: each turn, the chunks the recorder has
 * finished to their end, then the chunk in progress up to its watermark
 * and within the sizes its state file gives.
 */
static int follow(struct dump *d, struct tr_input *in)
{
	struct carry k = { 0 };
	uint64_t absent_since = 0;
	uint32_t cur = 0;
	int status = 0;

	for (;;) {
		struct tr_state st;
		char err[1024];
		uint32_t now;
		bool done;

		if (tr_state_read(in->root, &st)) {
			fprintf(stderr, "ringtrace dump: %s/%s: damaged state file\n", in->root,
				RTR_STATE_FILE);
			status = 1;
			break;
		}
		/*
		 * No state file: not a recording under way (a copied trace, or one
		 * another tool wrote): read it whole.  Give a recorder that is
		 * creating its directory a moment first.
		 */
		if (!st.present && !in->spooling) {
			if (absent_since == 0)
				absent_since = rtr_mono_ms();
			if (tr_input_rescan(in, err, sizeof(err)) &&
			    rtr_mono_ms() - absent_since < 2000)
				goto wait;
			st.done = st.present = true;
			st.chunk[0] = 0;
		}
		done = st.present && st.done;
		if (tr_input_rescan(in, err, sizeof(err))) {
			if (done) {
				fprintf(stderr, "ringtrace dump: %s\n", err);
				status = 1;
				break;
			}
			goto wait;	/* no metadata, no chunk yet */
		}
		/* The chunk being written; those before it are complete. */
		now = in->ndirs - 1;
		for (uint32_t i = 0; i < in->ndirs && st.chunk[0] && strcmp(st.chunk, "."); i++)
			if (!strcmp(base_name(in->dirs[i]), st.chunk))
				now = i;
		if (done)
			now = in->ndirs - 1;
		carry_locate(&k, in);
		cur = k.n ? carry_first(&k, now) : 0;
		/*
		 * One merge over the chunks not yet read to the end, up to the
		 * watermark; the last one within the whole packets the state
		 * file names.  At the end, everything.
		 */
		{
			int r = dump_trace(d, &in->dirs[cur], now - cur + 1, cur, &k,
					   done ? UINT64_MAX : st.watermark, done ? NULL : &st,
					   !done);

			if (r >= 0)
				status |= r;
			else if (done)
				status = 1;
		}
		if (done)
			break;
wait:
		fflush(stdout);
		usleep(200000);
	}
	carry_free(&k);
	return status;
}

int rtr_cmd_dump(int argc, char **argv)
{
	struct dump d = { .delta = true };
	struct carry k = { 0 };
	struct tr_input in;
	const char *dir = NULL;
	bool live = false;
	char err[1024];
	int status = 0;

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
	if (!strcmp(dir, "-"))
		live = true;
	if (tr_input_open(&in, dir, live, err, sizeof(err))) {
		fprintf(stderr, "ringtrace dump: %s\n", err);
		tr_input_close(&in);
		return 1;
	}
	init_digits();
	init_escapes();
	d.o.cap = OUT_CAP;
	d.o.buf = malloc(d.o.cap);
	if (!d.o.buf)
		oom();
	if (live) {
		status = follow(&d, &in);
	} else {
		/* A rotated trace's chunks: one merge, as one trace. */
		status |= dump_trace(&d, in.dirs, in.ndirs, 0, &k, UINT64_MAX, NULL, false);
	}
	carry_free(&k);
	out_flush(&d.o);
	if (fflush(stdout) || d.o.failed) {
		fprintf(stderr, "ringtrace dump: writing the output failed\n");
		status = 1;
	}
	fprintf(stderr, "dump: %" PRIu64 " events, %" PRIu64 " events lost, %" PRIu64
		" packets lost\n", d.events, d.lost_events, d.lost_packets);
	free(d.o.buf);
	if (tr_input_close(&in))
		status = 1;
	return status;
}
