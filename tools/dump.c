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
	char *pre;		/* " host cpu N " */
	size_t pren;
	char *lpre;		/* " cpu N: lost " */
	size_t lpren;
	int item;		/* enum tr_item the cursor is on */
};

struct dump {
	const struct tr_trace *t;
	struct dclass *cls;
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
	const struct tr_field *f = df->f;
	uint32_t lo = 0, hi = f->nlabels;

	if (df->tab)
		return v < df->ntab ? df->tab[v] : NULL;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (f->labels[mid].value == v)
			return &f->labels[mid];
		if (f->labels[mid].value < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
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
	const struct dclass *dc = &d->cls[cls - d->t->md.classes];
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

static void setup_classes(struct dump *d)
{
	const struct tr_metadata *md = &d->t->md;

	d->cls = calloc(md->nclasses ? md->nclasses : 1, sizeof(*d->cls));
	if (!d->cls)
		oom();
	for (uint32_t i = 0; i < md->nclasses; i++) {
		const struct tr_class *c = &md->classes[i];
		struct dclass *dc = &d->cls[i];

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
			if (f->nlabels && maxval < 4096) {
				df->ntab = maxval + 1;
				df->tab = calloc(df->ntab, sizeof(*df->tab));
				if (!df->tab)
					oom();
				for (uint32_t k = 0; k < f->nlabels; k++)
					df->tab[f->labels[k].value] = &f->labels[k];
			}
		}
	}
}

static void free_classes(struct dump *d)
{
	for (uint32_t i = 0; d->cls && i < d->t->md.nclasses; i++) {
		for (uint32_t j = 0; j < d->t->md.classes[i].nfields; j++) {
			free(d->cls[i].f[j].lead);
			free(d->cls[i].f[j].tab);
		}
		free(d->cls[i].f);
		free(d->cls[i].head);
	}
	free(d->cls);
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
		"TRACE is a trace directory, a directory of rotated chunks (read one after\n"
		"the other, each merged in time), or - for the stream of `ringtrace record\n"
		"-o -` on standard input (printed as it comes).  A summary goes to stderr.\n\n"
		"  -f, --follow     tail a trace being written: print events as the recorder\n"
		"                   makes them safe (every CPU's events up to its watermark,\n"
		"                   in time order), until the recording ends\n"
		"  --clock-seconds  print the time as [SECONDS.nnnnnnnnn] since the epoch\n"
		"  --no-delta       leave out the time since the previous event\n"
		"  -h, --help       this text\n\n"
		"exit status: 0 done, 1 damaged trace (what was decodable is printed, then the\n"
		"damage: file and offset), 2 usage\n");
}

/* The cursors of the last trace read, by stream file name, to go on from. */
struct carry {
	char **names;
	struct tr_cursor *c;
	uint32_t n;
};

/* A cursor's state without its message: what tr_next() moves. */
#define CURSOR_STATE offsetof(struct tr_cursor, err)

static const struct tr_cursor *carry_find(const struct carry *k, const char *name)
{
	for (uint32_t i = 0; i < k->n; i++)
		if (!strcmp(k->names[i], name))
			return &k->c[i];
	return NULL;
}

static void carry_free(struct carry *k)
{
	for (uint32_t i = 0; i < k->n; i++)
		free(k->names[i]);
	free(k->names);
	free(k->c);
	memset(k, 0, sizeof(*k));
}

static void carry_save(struct carry *k, const struct dump *d)
{
	carry_free(k);
	k->names = calloc(d->t->nstreams + 1, sizeof(*k->names));
	k->c = calloc(d->t->nstreams + 1, sizeof(*k->c));
	if (!k->names || !k->c)
		oom();
	for (uint32_t i = 0; i < d->t->nstreams; i++) {
		k->names[i] = strdup(d->t->streams[i].name);
		if (!k->names[i])
			oom();
		memcpy(&k->c[i], &d->s[i].c, CURSOR_STATE);
	}
	k->n = d->t->nstreams;
}

/* The next item of stream @i, unless it lies past @limit: then the cursor stays. */
static int next_item(struct dump *d, uint32_t i, uint64_t limit)
{
	struct tr_cursor saved;
	int r;

	if (limit == UINT64_MAX)
		return tr_next(&d->s[i].c);
	memcpy(&saved, &d->s[i].c, CURSOR_STATE);
	r = tr_next(&d->s[i].c);
	if (r > 0 && d->s[i].c.ts > limit) {
		memcpy(&d->s[i].c, &saved, CURSOR_STATE);
		return TR_END;
	}
	return r;
}

/*
 * dump_trace() - print the trace @dir, its streams merged in time.
 * @k: the cursors of the trace read before: with @same, this trace read
 *     again further on (--follow); else the previous chunk of a rotated trace.
 * @limit: leave events after this clock value for a later call.
 * @st: a recorder's state: the stream files are whole up to its sizes.
 * Return: 0, 1 damaged, -1 not readable yet (a trace being created).
 */
static int dump_trace(struct dump *d, const char *dir, struct carry *k, bool same,
		      uint64_t limit, const struct tr_state *st, bool quiet_open)
{
	uint32_t *heap, n = 0;
	struct tr_trace t;
	char err[1024];
	int status = 0;

	if (tr_open(&t, dir, err, sizeof(err))) {
		if (quiet_open)
			return -1;
		out_flush(&d->o);
		fflush(stdout);
		fprintf(stderr, "ringtrace dump: %s\n", err);
		return 1;
	}
	for (uint32_t i = 0; st && i < t.nstreams; i++) {
		uint64_t whole = 0;
		unsigned cpu;

		if (sscanf(t.streams[i].name, "stream_%u", &cpu) == 1)
			for (uint32_t j = 0; j < st->nstreams; j++)
				if (st->streams[j].cpu == cpu)
					whole = st->streams[j].size;
		if (t.streams[i].size > whole)
			t.streams[i].size = whole;
	}
	d->t = &t;
	tr_clock_init(&d->clk, &t.md);
	setup_classes(d);
	d->s = calloc(t.nstreams ? t.nstreams : 1, sizeof(*d->s));
	heap = calloc(t.nstreams ? t.nstreams : 1, sizeof(*heap));
	if (!d->s || !heap)
		oom();

	for (uint32_t i = 0; i < t.nstreams; i++) {
		const struct tr_cursor *prev = carry_find(k, t.streams[i].name);
		int r;

		tr_cursor_init(&d->s[i].c, &t, i);
		if (prev && same) {
			memcpy(&d->s[i].c, prev, CURSOR_STATE);
			d->s[i].c.md = &t.md;
			d->s[i].c.s = &t.streams[i];
		} else if (prev) {
			tr_cursor_continue(&d->s[i].c, prev);
		}
		r = next_item(d, i, limit);
		if (r == TR_ERROR) {
			damage(d, &d->s[i]);
			status = 1;
		} else if (r != TR_END) {
			d->s[i].item = r;
			stream_prefix(d, &d->s[i]);
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
	for (uint32_t i = 0; i < t.nstreams; i++) {
		d->lost_events += d->s[i].c.events_lost - (same && carry_find(k, t.streams[i].name) ?
			carry_find(k, t.streams[i].name)->events_lost : 0);
		d->lost_packets += d->s[i].c.packets_lost - (same && carry_find(k,
			t.streams[i].name) ? carry_find(k, t.streams[i].name)->packets_lost : 0);
	}
	carry_save(k, d);
	for (uint32_t i = 0; i < t.nstreams; i++) {
		free(d->s[i].pre);
		free(d->s[i].lpre);
	}
	free(heap);
	free(d->s);
	d->s = NULL;
	free_classes(d);
	d->cls = NULL;
	d->t = NULL;
	tr_close(&t);
	return status;
}

static uint64_t rtr_mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
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
	bool same = false;
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
		for (; cur < in->ndirs && (cur < now || done); cur++, same = false)
			status |= dump_trace(d, in->dirs[cur], &k, same, UINT64_MAX, NULL, false) > 0;
		if (done)
			break;
		if (cur == now) {
			int r = dump_trace(d, in->dirs[cur], &k, same, st.watermark, &st, true);

			if (r >= 0) {
				status |= r;
				same = true;
			}
		}
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
		for (uint32_t i = 0; i < in.ndirs; i++)
			status |= dump_trace(&d, in.dirs[i], &k, false, UINT64_MAX, NULL, false);
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
