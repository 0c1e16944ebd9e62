// SPDX-License-Identifier: MIT
/*
 * reader/tsdl.c - ringtrace's TSDL, parsed (tsdl.h).  The parser accepts
 * exactly the TSDL that events/ctf.c writes (fixed parts compared line by
 * line, the trace/env/clock values and the event blocks parsed), so that
 * the packet and record layouts the cursors decode are the ones it
 * describes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ringtrace/ringtrace.h>
#include "format/classes.h"
#include "format/ctf.h"
#include "reader/ctf.h"
#include "reader/tsdl.h"


struct mp {
	const char *fname;
	char *err;
	size_t errlen;
	const char *p, *end;	/* text not read yet */
	const char *s;		/* the current line, trimmed */
	size_t n;
	uint32_t lineno;
	struct tr_metadata *md;
	bool nomem;		/* the failure was memory running out */
};

__attribute__((format(printf, 2, 3)))
static int mp_fail(struct mp *m, const char *fmt, ...)
{
	size_t o;
	va_list ap;

	snprintf(m->err, m->errlen, "%s: line %u: ", m->fname, m->lineno);
	o = strlen(m->err);
	va_start(ap, fmt);
	vsnprintf(m->err + o, m->errlen - o, fmt, ap);
	va_end(ap);
	return -EPROTO;
}

static int mp_oom(struct mp *m)
{
	m->nomem = true;
	return mp_fail(m, "out of memory");
}

/* The current line for a message: at most 60 bytes, non-printables as '?'. */
static const char *excerpt(const struct mp *m)
{
	static __thread char buf[80];
	size_t n = m->n > 60 ? 60 : m->n, i;

	for (i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)m->s[i];

		buf[i] = ch >= 0x20 && ch < 0x7f ? (char)ch : '?';
	}
	strcpy(buf + i, m->n > 60 ? "..." : "");
	return buf;
}

static bool is_space(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r';
}

/* Advance to the next line; false at the end of the text. */
static bool mp_line(struct mp *m)
{
	const char *e;

	if (m->p >= m->end)
		return false;
	e = memchr(m->p, '\n', (size_t)(m->end - m->p));
	if (!e)
		e = m->end;
	m->s = m->p;
	m->p = e < m->end ? e + 1 : e;
	m->lineno++;
	while (m->s < e && is_space(*m->s))
		m->s++;
	while (e > m->s && is_space(e[-1]))
		e--;
	m->n = (size_t)(e - m->s);
	return true;
}

/* Next non-blank line, or an error naming what was expected. */
static int mp_need(struct mp *m, const char *what)
{
	while (mp_line(m)) {
		if (m->n)
			return 0;
	}
	return mp_fail(m, "metadata ends inside %s", what);
}

/* The current line is @s (its indentation, a writer's, not compared). */
static bool line_is(const struct mp *m, const char *s)
{
	size_t n;

	while (*s == '\t')
		s++;
	n = strlen(s);

	return m->n == n && !memcmp(m->s, s, n);
}

/* A cursor over the current line. */
struct lx {
	const char *s, *e;
	bool oom;		/* a string could not be allocated */
};

static void lx_space(struct lx *x)
{
	while (x->s < x->e && is_space(*x->s))
		x->s++;
}

static bool lx_eat(struct lx *x, const char *lit)
{
	size_t n = strlen(lit);

	if ((size_t)(x->e - x->s) < n || memcmp(x->s, lit, n))
		return false;
	x->s += n;
	return true;
}

/* An identifier: its start and length, or false. */
static bool lx_ident(struct lx *x, const char **id, size_t *n)
{
	const char *s = x->s;

	if (s >= x->e || !rtr_ctf_ident_start(*s))
		return false;
	while (s < x->e && rtr_ctf_ident_char(*s))
		s++;
	*id = x->s;
	*n = (size_t)(s - x->s);
	x->s = s;
	return true;
}

static bool lx_u64(struct lx *x, uint64_t *v)
{
	uint64_t r = 0;
	const char *s = x->s;

	if (s >= x->e || *s < '0' || *s > '9')
		return false;
	if (*s == '0' && s + 1 < x->e && s[1] >= '0' && s[1] <= '9')
		return false;	/* no octal, no leading zeros */
	for (; s < x->e && *s >= '0' && *s <= '9'; s++) {
		unsigned d = (unsigned)(*s - '0');

		if (r > (UINT64_MAX - d) / 10)
			return false;
		r = r * 10 + d;
	}
	x->s = s;
	*v = r;
	return true;
}

static bool lx_s64(struct lx *x, int64_t *v)
{
	bool neg = lx_eat(x, "-");
	uint64_t u;

	if (!lx_u64(x, &u))
		return false;
	if (neg) {
		if (u > (uint64_t)INT64_MAX + 1)
			return false;
		*v = u == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)u;
	} else {
		if (u > INT64_MAX)
			return false;
		*v = (int64_t)u;
	}
	return true;
}

/*
 * A TSDL string literal with the escapes the writer produces (\" and \\),
 * unescaped into a new string.  @printable: refuse bytes outside 0x20-0x7e,
 * else refuse only control bytes.
 */
static char *lx_string(struct lx *x, bool printable, uint32_t *len)
{
	const char *s = x->s, *q;
	size_t n = 0;
	char *out, *o;

	if (s >= x->e || *s != '"')
		return NULL;
	/* Check it and size it first: allocate the string, not the rest of the text. */
	for (q = s + 1; q < x->e && *q != '"'; q++, n++) {
		unsigned char ch = (unsigned char)*q;

		if (ch == '\\') {
			if (q + 1 >= x->e || (q[1] != '"' && q[1] != '\\'))
				return NULL;
			ch = (unsigned char)*++q;
		}
		if (ch < 0x20 || ch == 0x7f || (printable && ch > 0x7e))
			return NULL;
	}
	if (q >= x->e)
		return NULL;
	out = malloc(n + 1);
	if (!out) {
		x->oom = true;
		return NULL;
	}
	for (o = out, s++; s < q; s++)
		*o++ = *s == '\\' ? *++s : *s;
	*o = 0;
	x->s = q + 1;
	if (len)
		*len = (uint32_t)n;
	return out;
}

static bool lx_end(struct lx *x)
{
	lx_space(x);
	return x->s == x->e;
}

/* "key = " at the start of the line: the key, or false. */
static bool kv_key(const struct mp *m, struct lx *x, const char *key)
{
	*x = (struct lx){ m->s, m->s + m->n, false };
	return lx_eat(x, key) && lx_eat(x, " = ");
}

/* A block of fixed lines, compared one by one. */
static int parse_fixed(struct mp *m, const char *const *lines, const char *what)
{
	for (; *lines; lines++) {
		if (mp_need(m, what))
			return -1;
		if (!line_is(m, *lines))
			return mp_fail(m, "in %s: expected '%s', found '%s'", what,
				       *lines + strspn(*lines, "\t"), excerpt(m));
	}
	return 0;
}

static int parse_trace(struct mp *m)
{
	bool major = false, minor = false, uuid = false, order = false, header = false;
	struct lx x;

	for (;;) {
		if (mp_need(m, "the trace block"))
			return -1;
		if (line_is(m, "};"))
			break;
		if (line_is(m, rtr_ctf_trace_fixed[0]) && !major) {
			major = true;
		} else if (line_is(m, rtr_ctf_trace_fixed[1]) && !minor) {
			minor = true;
		} else if (line_is(m, rtr_ctf_trace_fixed[2]) && !order) {
			order = true;
		} else if (kv_key(m, &x, "uuid")) {
			char *s = lx_string(&x, true, NULL);
			int bad = !s || !lx_eat(&x, ";") || !lx_end(&x) ||
				  rtr_ctf_uuid_parse(s, strlen(s), true, m->md->uuid);

			if (!bad)
				memcpy(m->md->uuid_str, s, 37);
			free(s);
			if (bad)
				return mp_fail(m, "bad trace uuid: '%s'", excerpt(m));
			uuid = true;
		} else if (line_is(m, "packet.header := struct {")) {
			if (parse_fixed(m, rtr_ctf_packet_header, "packet.header"))
				return -1;
			header = true;
		} else {
			return mp_fail(m, "unexpected line in the trace block: '%s'", excerpt(m));
		}
	}
	if (!major || !minor || !uuid || !order || !header)
		return mp_fail(m, "the trace block lacks %s",
			       !major ? "major = 1" : !minor ? "minor = 8" : !uuid ? "its uuid" :
			       !order ? "byte_order = le" : "its packet.header");
	return 0;
}

static int parse_env(struct mp *m)
{
	struct lx x;

	for (;;) {
		const char *key;
		size_t kn;

		if (mp_need(m, "the env block"))
			return -1;
		if (line_is(m, "};"))
			return 0;
		x = (struct lx){ m->s, m->s + m->n, false };
		if (!lx_ident(&x, &key, &kn) || !lx_eat(&x, " = "))
			return mp_fail(m, "unexpected line in the env block: '%s'", excerpt(m));
		if (x.s < x.e && *x.s == '"') {
			char *s = lx_string(&x, false, NULL);

			if (!s || !lx_eat(&x, ";") || !lx_end(&x)) {
				free(s);
				return mp_fail(m, "bad env value: '%s'", excerpt(m));
			}
			if (kn == 8 && !memcmp(key, "hostname", 8)) {
				free(m->md->hostname);
				m->md->hostname = s;
			} else {
				free(s);
			}
		} else {
			int64_t v;

			if (!lx_s64(&x, &v) || !lx_eat(&x, ";") || !lx_end(&x))
				return mp_fail(m, "bad env value: '%s'", excerpt(m));
			if (kn == 11 && !memcmp(key, "chunk_index", 11)) {
				if (v < 0)
					return mp_fail(m, "bad chunk_index: '%s'", excerpt(m));
				m->md->chunk_index = (uint64_t)v;
			}
			if (kn == 4 && !memcmp(key, "vpid", 4)) {
				if (v < 0 || v > UINT32_MAX)
					return mp_fail(m, "bad vpid: '%s'", excerpt(m));
				m->md->vpid = (uint32_t)v;
				m->md->has_vpid = true;
			}
		}
	}
}

static int parse_clock(struct mp *m)
{
	bool name = false, freq = false;
	struct lx x;

	for (;;) {
		if (mp_need(m, "the clock block"))
			return -1;
		if (line_is(m, "};"))
			break;
		if (line_is(m, RTR_CTF_CLOCK_NAME_LINE)) {
			name = true;
		} else if (line_is(m, "absolute = false;") || line_is(m, "absolute = true;")) {
			/* a clock read as wall-clock time either way */
		} else if (kv_key(m, &x, "uuid") || kv_key(m, &x, "description")) {
			char *s = lx_string(&x, false, NULL);
			bool bad = !s || !lx_eat(&x, ";") || !lx_end(&x);

			free(s);
			if (bad)
				return mp_fail(m, "bad clock string: '%s'", excerpt(m));
		} else if (kv_key(m, &x, "freq")) {
			if (!lx_u64(&x, &m->md->freq) || !lx_eat(&x, ";") || !lx_end(&x) ||
			    !m->md->freq)
				return mp_fail(m, "bad clock frequency: '%s'", excerpt(m));
			freq = true;
		} else if (kv_key(m, &x, "precision")) {
			uint64_t v;

			if (!lx_u64(&x, &v) || !lx_eat(&x, ";") || !lx_end(&x))
				return mp_fail(m, "bad clock precision: '%s'", excerpt(m));
		} else if (kv_key(m, &x, "offset_s")) {
			if (!lx_s64(&x, &m->md->offset_s) || !lx_eat(&x, ";") || !lx_end(&x))
				return mp_fail(m, "bad clock offset_s: '%s'", excerpt(m));
		} else if (kv_key(m, &x, "offset")) {
			if (!lx_u64(&x, &m->md->offset) || !lx_eat(&x, ";") || !lx_end(&x))
				return mp_fail(m, "bad clock offset: '%s'", excerpt(m));
		} else {
			return mp_fail(m, "unexpected line in the clock block: '%s'", excerpt(m));
		}
	}
	if (!name || !freq)
		return mp_fail(m, "the clock block lacks %s",
			       !name ? RTR_CTF_CLOCK_NAME_LINE + 1 : "freq");
	/* Times a reader can convert to ns (region.h's bounds), as babeltrace2 must. */
	{
		__int128 base = (__int128)m->md->offset_s * 1000000000 +
				(__int128)m->md->offset * 1000000000 / m->md->freq;

		if (m->md->freq < RTR_CLOCK_FREQ_MIN || m->md->freq > RTR_CLOCK_FREQ_MAX)
			return mp_fail(m, "clock frequency %" PRIu64 " Hz: not a clock ringtrace "
				       "writes (1 MHz to 100 GHz)", m->md->freq);
		if (base <= -RTR_TIME_NS_MAX || base >= RTR_TIME_NS_MAX)
			return mp_fail(m, "clock offset beyond any time in 64-bit nanoseconds");
		m->md->base_ns = (int64_t)base;
	}
	return 0;
}

static int cmp_label(const void *a, const void *b)
{
	const struct tr_label *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	/* stable: labels were numbered by position in @len's place */
	return x->len < y->len ? -1 : x->len > y->len;
}

const struct tr_label *tr_field_label(const struct tr_field *f, uint32_t value)
{
	uint32_t lo = 0, hi = f ? f->nlabels : 0;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (f->labels[mid].value == value)
			return &f->labels[mid];
		if (f->labels[mid].value < value)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Sort by value, keep the first label written for each value. */
static int sort_labels(struct tr_field *f)
{
	uint32_t *lens = malloc((f->nlabels ? f->nlabels : 1) * sizeof(*lens));
	uint32_t n = 0;

	if (!lens)
		return -1;
	for (uint32_t i = 0; i < f->nlabels; i++) {
		lens[i] = f->labels[i].len;
		f->labels[i].len = i;
	}
	if (f->nlabels)
		qsort(f->labels, f->nlabels, sizeof(*f->labels), cmp_label);
	for (uint32_t i = 0; i < f->nlabels; i++) {
		struct tr_label l = f->labels[i];

		l.len = lens[l.len];
		if (n && f->labels[n - 1].value == l.value) {
			free(l.label);
			continue;
		}
		f->labels[n++] = l;
	}
	f->nlabels = n;
	free(lens);
	return 0;
}

static void free_field(struct tr_field *f)
{
	for (uint32_t i = 0; i < f->nlabels; i++)
		free(f->labels[i].label);
	free(f->labels);
	free(f->name);
}

/* "enum : uint8_t { "a" = 0, "b" = 1 } _name;" after "enum : ". */
static int parse_enum(struct mp *m, struct lx *x, struct tr_field *f)
{
	uint32_t cap = 0;
	uint64_t max;

	if (lx_eat(x, "uint8_t {")) {
		f->type = RTR_CTF_ENUM_U8;
		max = UINT8_MAX;
	} else if (lx_eat(x, "uint32_t {")) {
		f->type = RTR_CTF_ENUM_U32;
		max = UINT32_MAX;
	} else {
		return mp_fail(m, "bad enum type: '%s'", excerpt(m));
	}
	for (;;) {
		struct tr_label l;
		uint64_t v;

		lx_space(x);
		if (lx_eat(x, "}"))
			break;
		if (f->nlabels && !lx_eat(x, ","))
			return mp_fail(m, "expected ',' or '}' in enum: '%s'", excerpt(m));
		lx_space(x);
		l.label = lx_string(x, true, &l.len);
		if (!l.label && x->oom)
			return mp_oom(m);
		if (!l.label)
			return mp_fail(m, "bad enum label: '%s'", excerpt(m));
		if (!lx_eat(x, " = ") || !lx_u64(x, &v) || v > max) {
			free(l.label);
			return mp_fail(m, "bad enum value: '%s'", excerpt(m));
		}
		l.value = (uint32_t)v;
		if (f->nlabels == cap) {
			struct tr_label *nl;

			cap = cap ? cap * 2 : 16;
			nl = realloc(f->labels, cap * sizeof(*nl));
			if (!nl) {
				free(l.label);
				return mp_oom(m);
			}
			f->labels = nl;
		}
		f->labels[f->nlabels++] = l;
	}
	if (sort_labels(f))
		return mp_oom(m);
	lx_space(x);
	return 0;
}

/* One line of a fields struct, into @c's field list. */
static int parse_field(struct mp *m, struct tr_class *c, uint32_t *cap)
{
	struct tr_field f = { 0 };
	struct lx x = { m->s, m->s + m->n, false };
	const char *name, *ref = NULL;
	size_t nn, rn = 0;
	uint32_t i;

	if (lx_eat(&x, "enum : ")) {
		if (parse_enum(m, &x, &f))
			goto fail;
	} else {
		/* The types a field is declared with by name: the integers, double, string. */
		for (i = RTR_CTF_U8; i <= RTR_CTF_STRING; i++) {
			size_t tn = strlen(rtr_ctf_types[i].tsdl);

			if ((size_t)(x.e - x.s) > tn && !memcmp(x.s, rtr_ctf_types[i].tsdl, tn) &&
			    x.s[tn] == ' ') {
				f.type = (enum rtr_ctf_type)i;
				x.s += tn + 1;
				break;
			}
		}
		if (i > RTR_CTF_STRING) {
			mp_fail(m, "unknown field type: '%s'", excerpt(m));
			goto fail;
		}
	}
	if (!lx_eat(&x, "_") || !lx_ident(&x, &name, &nn)) {
		mp_fail(m, "bad field name: '%s'", excerpt(m));
		goto fail;
	}
	if (f.type == RTR_CTF_U8 && lx_eat(&x, "[")) {
		if (!lx_eat(&x, "_") || !lx_ident(&x, &ref, &rn) || !lx_eat(&x, "]")) {
			mp_fail(m, "bad sequence length: '%s'", excerpt(m));
			goto fail;
		}
	}
	if (!lx_eat(&x, ";") || !lx_end(&x)) {
		mp_fail(m, "expected ';' after the field name: '%s'", excerpt(m));
		goto fail;
	}
	if (ref) {
		/* uint8_t _x[_x_len]; right after uint32_t _x_len; */
		struct tr_field *prev = c->nfields ? &c->fields[c->nfields - 1] : NULL;

		if (rn != nn + 4 || memcmp(ref, name, nn) || memcmp(ref + nn, "_len", 4) || !prev ||
		    prev->type != RTR_CTF_U32 || strlen(prev->name) != rn ||
		    memcmp(prev->name, ref, rn)) {
			mp_fail(m, "a byte sequence must follow its length field "
				"'uint32_t _%.*s_len;': '%s'", (int)nn, name, excerpt(m));
			goto fail;
		}
		prev->type = RTR_CTF_BYTES;
		prev->name[nn] = 0;
		return 0;
	}
	f.name = strndup(name, nn);
	if (!f.name) {
		mp_oom(m);
		goto fail;
	}
	if (c->nfields == *cap) {
		struct tr_field *nf;

		*cap = *cap ? *cap * 2 : 8;
		nf = realloc(c->fields, *cap * sizeof(*nf));
		if (!nf) {
			mp_oom(m);
			goto fail;
		}
		c->fields = nf;
	}
	c->fields[c->nfields++] = f;
	return 0;
fail:
	free_field(&f);
	return -1;
}

static void free_class(struct tr_class *c)
{
	for (uint32_t i = 0; i < c->nfields; i++)
		free_field(&c->fields[i]);
	free(c->fields);
	free(c->name);
}

static int parse_event(struct mp *m, struct tr_class *c)
{
	uint32_t cap = 0;
	uint64_t id;
	struct lx x;
	char *name;

	memset(c, 0, sizeof(*c));
	c->line = m->lineno;
	if (mp_need(m, "an event block"))
		return -1;
	name = kv_key(m, &x, "name") ? lx_string(&x, true, NULL) : NULL;
	if (!name || !lx_eat(&x, ";") || !lx_end(&x)) {
		free(name);
		return mp_fail(m, "expected the event's 'name = \"...\";': '%s'", excerpt(m));
	}
	c->name = name;
	if (!rtr_ctf_event_name_ok(name))
		return mp_fail(m, "event name is neither an identifier nor provider:name: '%s'",
			       excerpt(m));
	if (mp_need(m, "an event block"))
		return -1;
	if (!kv_key(m, &x, "id") || !lx_u64(&x, &id) || id > UINT32_MAX || !lx_eat(&x, ";") ||
	    !lx_end(&x))
		return mp_fail(m, "expected the event's 'id = N;': '%s'", excerpt(m));
	c->id = (uint32_t)id;
	if (mp_need(m, "an event block"))
		return -1;
	if (!line_is(m, RTR_CTF_EVENT_STREAM))
		return mp_fail(m, "expected '%s': '%s'", RTR_CTF_EVENT_STREAM + 1, excerpt(m));
	if (mp_need(m, "an event block"))
		return -1;
	if (!line_is(m, RTR_CTF_EVENT_FIELDS))
		return mp_fail(m, "expected '%s': '%s'", RTR_CTF_EVENT_FIELDS + 1, excerpt(m));
	for (;;) {
		if (mp_need(m, "an event's fields"))
			return -1;
		if (line_is(m, RTR_CTF_EVENT_FIELDS_END))
			break;
		if (parse_field(m, c, &cap))
			return -1;
	}
	if (mp_need(m, "an event block"))
		return -1;
	if (!line_is(m, RTR_CTF_BLOCK_END))
		return mp_fail(m, "expected '%s' closing the event block: '%s'", RTR_CTF_BLOCK_END,
			       excerpt(m));
	c->fixed = true;
	for (uint32_t i = 0; i < c->nfields; i++) {
		uint32_t sz = rtr_ctf_types[c->fields[i].type].size;

		if (!sz)
			c->fixed = false;
		c->size += sz;
	}
	if (!c->fixed)
		c->size = 0;
	return 0;
}

static int cmp_class(const void *a, const void *b)
{
	const struct tr_class *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

void tr_metadata_free(struct tr_metadata *md)
{
	tr_ctf_free(md);
	for (uint32_t i = 0; i < md->nclasses; i++)
		free_class(&md->classes[i]);
	free(md->classes);
	free(md->hostname);
	memset(md, 0, sizeof(*md));
}

static int parse_metadata(struct tr_metadata *md, const char *text, size_t len,
			  const char *fname, bool packets, char *err, size_t errlen)
{
	struct mp m = { fname, err, errlen, text, text + len, text, 0, 0, md, false };
	bool trace = false, env = false, clock = false, stream = false, signed_;
	uint32_t aliases = 0, cap = 0, naliases = 0;
	const char *nul;

	memset(md, 0, sizeof(*md));
	for (int i = 0; i < 64; i++)
		md->by_id[i] = -1;
	while (rtr_ctf_typealiases[naliases])
		naliases++;
	nul = memchr(text, 0, len);
	if (nul) {
		m.lineno = 1;
		for (const char *s = text; s < nul; s++)
			m.lineno += *s == '\n';
		mp_fail(&m, "NUL byte in the metadata text");
		goto fail;
	}
	/*
	 * Text metadata starts with its signature, "/" "* CTF 1.8", a comment
	 * that may close on a later line (CTF 1.8, 7.1); packets carry the
	 * version in their headers, and their text need not start so.
	 */
	signed_ = mp_line(&m) && m.n >= 10 && !memcmp(m.s, "/* CTF 1.8", 10) &&
		  (m.n == 10 || m.s[10] == ' ' || m.s[10] == '\t' || m.s[10] == '*' ||
		   m.s[10] == '\r');
	if (!signed_ && !packets) {
		if (!m.lineno)
			m.lineno = 1;
		mp_fail(&m, "not ringtrace's CTF 1.8 text metadata, nor any CTF 1.8 metadata "
			"(text must start with \"/* CTF 1.8\", packets with the magic 0x%08x)",
			RTR_CTF_METADATA_MAGIC);
		goto fail;
	}
	/* Anything but ringtrace's own TSDL: general CTF 1.8 (reader/ctf.h). */
	if (!memmem(text, len, RTR_CTF_TRACER_LINE + 1, strlen(RTR_CTF_TRACER_LINE + 1))) {
		int r = tr_ctf_metadata(md, text, len, fname, err, errlen);

		if (r)
			tr_metadata_free(md);
		return r;
	}
	/* ringtrace's own: its signature is one line, as events/ctf.c writes it */
	if (!signed_ || m.n < 12 || memcmp(m.s + m.n - 2, "*/", 2)) {
		mp_fail(&m, "ringtrace's metadata must start with its one-line signature "
			"\"%s\"", RTR_CTF_SIGNATURE);
		goto fail;
	}
	while (mp_line(&m)) {
		if (!m.n)
			continue;
		if (m.n > 10 && !memcmp(m.s, "typealias ", 10)) {
			uint32_t i;

			for (i = 0; rtr_ctf_typealiases[i]; i++) {
				if (line_is(&m, rtr_ctf_typealiases[i]))
					break;
			}
			if (!rtr_ctf_typealiases[i] || aliases & (1u << i)) {
				mp_fail(&m, "%s typealias: '%s'",
					!rtr_ctf_typealiases[i] ? "unknown" : "repeated", excerpt(&m));
				goto fail;
			}
			aliases |= 1u << i;
			continue;
		}
		if (aliases != (1u << naliases) - 1) {
			mp_fail(&m, "the typealiases must come first, all %u of them", naliases);
			goto fail;
		}
		if (line_is(&m, "trace {") && !trace) {
			if (parse_trace(&m))
				goto fail;
			trace = true;
		} else if (line_is(&m, "env {") && !env) {
			if (parse_env(&m))
				goto fail;
			env = true;
		} else if (line_is(&m, "clock {") && !clock) {
			if (parse_clock(&m))
				goto fail;
			clock = true;
		} else if (line_is(&m, "stream {") && !stream) {
			if (parse_fixed(&m, rtr_ctf_stream_block, "the stream block"))
				goto fail;
			stream = true;
		} else if (line_is(&m, RTR_CTF_EVENT_OPEN)) {
			struct tr_class c;

			if (!trace || !clock || !stream) {
				mp_fail(&m, "event block before the trace, clock and stream "
					"blocks");
				goto fail;
			}
			if (md->nclasses == cap) {
				struct tr_class *nc;

				cap = cap ? cap * 2 : 16;
				nc = realloc(md->classes, cap * sizeof(*nc));
				if (!nc) {
					mp_oom(&m);
					goto fail;
				}
				md->classes = nc;
			}
			if (parse_event(&m, &c)) {
				free_class(&c);
				goto fail;
			}
			md->classes[md->nclasses++] = c;
		} else {
			mp_fail(&m, "unexpected line: '%s'", excerpt(&m));
			goto fail;
		}
	}
	if (!trace || !clock || !stream) {
		mp_fail(&m, "metadata ends without its %s block",
			!trace ? "trace" : !clock ? "clock" : "stream");
		goto fail;
	}
	if (!md->hostname && !(md->hostname = strdup(""))) {
		mp_oom(&m);
		goto fail;
	}
	if (md->nclasses)
		qsort(md->classes, md->nclasses, sizeof(*md->classes), cmp_class);
	for (uint32_t i = 0; i < md->nclasses; i++) {
		if (i && md->classes[i].id == md->classes[i - 1].id) {
			m.lineno = md->classes[i].line > md->classes[i - 1].line ?
				   md->classes[i].line : md->classes[i - 1].line;
			m.s = "";
			mp_fail(&m, "event id %u is used twice", md->classes[i].id);
			goto fail;
		}
		if (md->classes[i].id < 64)
			md->by_id[md->classes[i].id] = (int32_t)i;
		if (tr_class_is(&md->classes[i], rtr_event_builtin(RTR_EV_THREAD)))
			md->thread = &md->classes[i];
	}
	return 0;
fail:
	tr_metadata_free(md);
	return m.nomem ? -ENOMEM : -EPROTO;
}

int tr_parse_metadata(struct tr_metadata *md, const char *text, size_t len, const char *fname,
		      char *err, size_t errlen)
{
	return parse_metadata(md, text, len, fname, false, err, errlen);
}

int tr_parse_metadata_packets(struct tr_metadata *md, const char *text, size_t len,
			      const char *fname, char *err, size_t errlen)
{
	return parse_metadata(md, text, len, fname, true, err, errlen);
}

bool tr_class_is(const struct tr_class *c, const struct rtr_ctf_event *b)
{
	if (strcmp(c->name, b->name) || c->nfields != b->nfields)
		return false;
	for (uint32_t j = 0; j < c->nfields; j++) {
		if (c->fields[j].type != b->fields[j].type)
			return false;
	}
	return true;
}

const struct tr_class *tr_class_find(const struct tr_metadata *md, uint32_t id)
{
	uint32_t lo = 0, hi = md->nclasses;

	if (id < 64)
		return md->by_id[id] < 0 ? NULL : &md->classes[md->by_id[id]];
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (md->classes[mid].id == id)
			return &md->classes[mid];
		if (md->classes[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

