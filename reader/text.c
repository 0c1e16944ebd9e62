// SPDX-License-Identifier: MIT
/* reader/text.c - events as text (text.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include "reader/ctf_plan.h"
#include "reader/text.h"
#include "reader/trace.h"
#include "reader/tsdl.h"

const char tr_dig2[200] = {
	"00010203040506070809" "10111213141516171819" "20212223242526272829"
	"30313233343536373839" "40414243444546474849" "50515253545556575859"
	"60616263646566676869" "70717273747576777879" "80818283848586878889"
	"90919293949596979899"
};

static const char hexd[] = "0123456789abcdef";

/* 0: as is; else the character after the backslash, or 'x' for \xNN. */
static const char esc[256] = {
	[0 ... 8] = 'x', ['\t'] = 't', ['\n'] = 'n', [11 ... 0x1f] = 'x',
	['"'] = '"', ['\\'] = '\\', [0x7f ... 0xff] = 'x',
};

int tr_text_init(struct tr_text *t, FILE *f, size_t cap)
{
	memset(t, 0, sizeof(*t));
	t->f = f;
	t->cap = cap < 4096 ? 4096 : cap;
	t->buf = malloc(t->cap);
	return t->buf ? 0 : -ENOMEM;
}

void tr_text_free(struct tr_text *t)
{
	free(t->buf);
	memset(t, 0, sizeof(*t));
}

int tr_text_flush(struct tr_text *t)
{
	if (t->f && t->len && !t->failed && fwrite(t->buf, 1, t->len, t->f) != t->len)
		t->failed = true;
	if (t->f)
		t->len = 0;
	return t->failed ? -EIO : 0;
}

void tr_text_grow(struct tr_text *t, size_t n)
{
	size_t cap;
	char *b;

	if (t->f)
		tr_text_flush(t);
	if (t->cap - t->len >= n)
		return;
	cap = t->cap * 2 > t->len + n ? t->cap * 2 : t->len + n;
	b = realloc(t->buf, cap);
	if (!b) {
		/* keep writing over what is there: the text is marked incomplete */
		t->failed = true;
		if (t->cap >= n) {
			t->len = 0;
			return;
		}
		abort();	/* no buffer to write into at all: a broken invariant */
	}
	t->buf = b;
	t->cap = cap;
}

char *tr_put_base(char *p, uint64_t v, unsigned base)
{
	char b[66];
	unsigned shift = base == 16 ? 4 : base == 8 ? 3 : 1, n = 0;

	do {
		b[n++] = hexd[v & (base - 1)];
		v >>= shift;
	} while (v);
	if (base == 16) {
		*p++ = '0';
		*p++ = 'x';
	} else if (base == 2) {
		*p++ = '0';
		*p++ = 'b';
	} else if (b[n - 1] != '0') {
		*p++ = '0';
	}
	while (n)
		*p++ = b[--n];
	return p;
}

char *tr_put_double(char *p, double v)
{
	char b[40];
	int n = 0;

	for (int prec = 15; prec <= 17; prec++) {
		n = snprintf(b, sizeof(b), "%.*g", prec, v);
		if (strtod(b, NULL) == v)
			break;
	}
	return tr_put(p, b, (size_t)n);
}

char *tr_put_float(char *p, float v)
{
	char b[40];
	int n = 0;

	for (int prec = 6; prec <= 9; prec++) {
		n = snprintf(b, sizeof(b), "%.*g", prec, (double)v);
		if (strtof(b, NULL) == v)
			break;
	}
	return tr_put(p, b, (size_t)n);
}

#define CHUNK 16384u	/* input bytes per room check */

/*
 * The bytes of the 8 at @s that esc[] escapes (below 0x20, NUL included;
 * '"', '\\'; 0x7f and above), as the high bit of each in a little-endian
 * word: exact for the lowest such byte, the only one the callers use (a
 * borrow only marks bytes above a marked one).
 */
static inline uint64_t esc_mask(const uint8_t *s)
{
	const uint64_t ones = 0x0101010101010101ull, highs = ones << 7;
	uint64_t x, q, b;

	memcpy(&x, s, 8);
	x = le64toh(x);
	q = x ^ (ones * '"');
	b = x ^ (ones * '\\');
	return (((x - ones * 0x20) & ~x) | ((q - ones) & ~q) | ((b - ones) & ~b) | x |
		((x & ~highs) + ones)) & highs;
}

/*
 * The index of the first byte of the 16 at @s that esc[] escapes (or that
 * ends a C string), 16 if none: one SSE2 compare of each kind where there
 * is SSE2 (a signed "below 0x20" also takes 0x80 and above), else two
 * words of esc_mask().
 */
static inline unsigned esc_first16(const uint8_t *s)
{
#ifdef __SSE2__
	__m128i x = _mm_loadu_si128((const __m128i *)(const void *)s);
	__m128i m = _mm_or_si128(_mm_or_si128(_mm_cmplt_epi8(x, _mm_set1_epi8(0x20)),
					      _mm_cmpeq_epi8(x, _mm_set1_epi8(0x7f))),
				 _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')),
					      _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'))));

	return (unsigned)__builtin_ctz((unsigned)_mm_movemask_epi8(m) | 0x10000u);
#else
	uint64_t m = esc_mask(s);

	if (m)
		return (unsigned)__builtin_ctzll(m) / 8;
	m = esc_mask(s + 8);
	return m ? 8 + (unsigned)__builtin_ctzll(m) / 8 : 16;
#endif
}

/*
 * Copy the bytes from @*sp that need no escape, up to @e or the first that
 * does (then at @*sp), sixteen at a time where sixteen are readable before
 * @e.  @p has room for what is copied and 16 bytes more.
 */
static inline char *put_plain_run(char *p, const uint8_t **sp, const uint8_t *e)
{
	const uint8_t *s = *sp;

	while (e - s >= 16) {
		unsigned k = esc_first16(s);

		memcpy(p, s, 16);
		if (k < 16) {
			*sp = s + k;
			return p + k;
		}
		p += 16;
		s += 16;
	}
	while (s < e && !esc[*s])
		*p++ = (char)*s++;
	*sp = s;
	return p;
}

/* The escape of the byte @c (esc[@c] set): 2 or 4 bytes. */
static inline char *put_escape(char *p, uint8_t c)
{
	*p++ = '\\';
	*p++ = esc[c];
	if (esc[c] == 'x') {
		*p++ = hexd[c >> 4];
		*p++ = hexd[c & 15];
	}
	return p;
}

void tr_text_string(struct tr_text *t, const uint8_t *s, size_t n)
{
	const uint8_t *end = s + n;
	char *p = tr_text_room(t, 1);

	*p = '"';
	t->len++;
	while (s < end) {
		const uint8_t *e = end - s > CHUNK ? s + CHUNK : end;

		p = tr_text_room(t, 4 * (size_t)(e - s) + 1);
		for (;;) {
			p = put_plain_run(p, &s, e);
			if (s == e)
				break;
			p = put_escape(p, *s++);
		}
		t->len = (size_t)(p - t->buf);
	}
	p = tr_text_room(t, 1);
	*p = '"';
	t->len++;
}

void tr_text_hex(struct tr_text *t, const uint8_t *s, size_t n)
{
	char *p = tr_text_room(t, 2);

	p[0] = '0';
	p[1] = 'x';
	t->len += 2;
	while (n) {
		size_t chunk = n > CHUNK ? CHUNK : n;

		p = tr_text_room(t, 2 * chunk);
		for (size_t i = 0; i < chunk; i++) {
			*p++ = hexd[s[i] >> 4];
			*p++ = hexd[s[i] & 15];
		}
		t->len = (size_t)(p - t->buf);
		s += chunk;
		n -= chunk;
	}
}

/* ---- a plan's fields ------------------------------------------------------------- */

/*
 * The rest of tr_text_cstring() from @s, the opening quote written and @p
 * with room for 4 * 256 + 1 bytes.
 */
static const uint8_t *cstring_rest(struct tr_text *t, char *p, const uint8_t *s,
				   const uint8_t *end)
{
	for (;;) {
		const uint8_t *e = end - s > 256 ? s + 256 : end;

		for (;;) {
			p = put_plain_run(p, &s, e);
			if (s == e)
				break;
			if (!*s) {
				*p++ = '"';
				t->len = (size_t)(p - t->buf);
				return s;
			}
			p = put_escape(p, *s++);
		}
		t->len = (size_t)(p - t->buf);
		if (s == end)
			return NULL;
		p = tr_text_room(t, 4 * 256 + 1);
	}
}

/*
 * The NUL-terminated string at @s (before @end), quoted and escaped, in one
 * pass: the escape scan stops at its NUL too.  Return: its NUL; NULL if
 * there is none before @end (what was before it is printed).
 */
const uint8_t *tr_text_cstring(struct tr_text *t, const uint8_t *s, const uint8_t *end)
{
	/* 256 input bytes at most per room check, 4 output bytes each, and the quotes */
	char *p = tr_text_room(t, 4 * 256 + 2);

	*p++ = '"';
	return cstring_rest(t, p, s, end);
}

/* @s is an identifier: printed as it is, else quoted. */
static bool label_is_word(const char *s, size_t n)
{
	if (!n || !((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z') || s[0] == '_'))
		return false;
	for (size_t i = 1; i < n; i++) {
		if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') || s[i] == '_' ||
		      (s[i] >= '0' && s[i] <= '9')))
			return false;
	}
	return true;
}

/* The label of @v in enumeration @et, or NULL. */
static const struct tr_enum_map *enum_label(const struct tr_ctype *et, uint64_t v)
{
	for (uint32_t i = 0; i < et->nmaps; i++) {
		const struct tr_enum_map *m = &et->maps[i];

		if (et->sign ? (int64_t)v >= m->lo && (int64_t)v <= m->hi :
		    v >= (uint64_t)m->lo && v <= (uint64_t)m->hi)
			return m;
	}
	return NULL;
}

void tr_text_int(struct tr_text *t, const struct tr_op *op, uint64_t v)
{
	const struct tr_enum_map *m = NULL;
	char *p;

	if (op->type && op->type->kind == TR_TK_ENUM)
		m = enum_label(op->type, v);
	if (m && !label_is_word(m->label, m->len)) {
		/* a label that is no identifier ("AUTO: EXPECT 0"): quoted */
		tr_text_string(t, (const uint8_t *)m->label, m->len);
		p = tr_text_room(t, 96);
		*p++ = ' ';
		*p++ = '(';
	} else {
		p = tr_text_room(t, 96 + (m ? m->len : 0));
		if (m) {
			p = tr_put(p, m->label, m->len);
			*p++ = ' ';
			*p++ = '(';
		}
	}
	if (op->base == 10 || (op->sign && (int64_t)v < 0 && op->base != 16))
		p = op->sign ? tr_put_s64(p, (int64_t)v) : tr_put_u64(p, v);
	else
		p = tr_put_base(p, op->size < 64 ? v & ((1ull << op->size) - 1) : v, op->base);
	if (m)
		*p++ = ')';
	t->len = (size_t)(p - t->buf);
}

void tr_text_float(struct tr_text *t, uint32_t size, uint64_t v)
{
	char *p = tr_text_room(t, 48);

	if (size == 32) {
		uint32_t u = (uint32_t)v;
		float f;

		memcpy(&f, &u, 4);
		p = tr_put_float(p, f);
	} else {
		double d;

		memcpy(&d, &v, 8);
		p = tr_put_double(p, d);
	}
	t->len = (size_t)(p - t->buf);
}

/*
 * A plan of whole-byte integers, floats and strings at a byte boundary
 * (tr_plan.skip): its room reserved once, the plain integers printed
 * straight from their bytes, the strings by tr_text_cstring(), each by its
 * op's tr_put kind; anything else by the plan's walker (tr_walk_text_op()).
 */
int tr_text_skip(struct tr_text *t, const struct tr_plan *p, struct tr_walk *w, bool first)
{
	const struct tr_op *op = p->ops, *last = p->ops + p->nops;
	const uint8_t *s = w->pkt + w->bit / 8, *end = w->pkt + w->end / 8;
	char *q = tr_text_room(t, p->room);

	q = first ? tr_put_pad(q, op->lead + 2, op->leadn - 2) : tr_put_pad(q, op->lead, op->leadn);
	for (;;) {
		unsigned k = op->put;
		uint64_t v;

		if (__builtin_expect(k - TR_PUT_U8 < TR_PUT_STRING - TR_PUT_U8, 1) &&
		    (size_t)(end - s) >= op->size / 8u) {
			switch (k) {
			case TR_PUT_U8:
				v = s[0];
				break;
			case TR_PUT_U16:
				v = ld16(s);
				break;
			case TR_PUT_U32:
				v = ld32(s);
				break;
			case TR_PUT_S8:
				v = (uint64_t)(int64_t)(int8_t)s[0];
				break;
			case TR_PUT_S16:
				v = (uint64_t)(int64_t)(int16_t)ld16(s);
				break;
			case TR_PUT_S32:
				v = (uint64_t)(int64_t)(int32_t)ld32(s);
				break;
			default:	/* U64, S64 */
				v = ld64(s);
				break;
			}
			s += op->size / 8u;
			if (k >= TR_PUT_S8 && (int64_t)v < 0) {
				*q++ = '-';
				v = (uint64_t)0 - v;
			}
			q = tr_put_u64(q, v);
		} else if (k == TR_PUT_STRING) {
			/* up to 64 bytes needing no escape, 16 at a time, in the op's room */
			const uint8_t *r = s;
			char *o = q + 1;

			*q = '"';
			while (end - r >= 16 && r - s < 64) {
				unsigned n = esc_first16(r);

				memcpy(o, r, 16);
				r += n;
				o += n;
				if (n < 16)
					break;
			}
			if (__builtin_expect(r < end && !*r, 1)) {
				*o++ = '"';
				q = o;
				s = r + 1;
			} else {
				/* escapes, a long string or the packet's end: the general way */
				t->len = (size_t)(q - t->buf);
				s = tr_text_cstring(t, s, end);
				if (!s)
					return -EPROTO;
				s++;
				q = tr_text_room(t, p->room);
			}
		} else {
			t->len = (size_t)(q - t->buf);
			w->bit = (uint64_t)(s - w->pkt) * 8;
			if (tr_walk_text_op(p, (uint32_t)(op - p->ops), w, t))
				return -EPROTO;
			s = w->pkt + w->bit / 8;
			q = tr_text_room(t, p->room);
		}
		if (++op == last)
			break;
		q = tr_put_pad(q, op->lead, op->leadn);
	}
	t->len = (size_t)(q - t->buf);
	w->bit = (uint64_t)(s - w->pkt) * 8;
	return 0;
}

int tr_text_plan(struct tr_text *t, const struct tr_plan *p, struct tr_walk *w, bool first)
{
	if (!p->nops)
		return 0;
	if (p->skip && !(w->bit % 8))
		return tr_text_skip(t, p, w, first);
	return tr_walk_text(p, w, t, first);
}

/* ---- ringtrace's own classes --------------------------------------------------- */

static const struct tr_label *field_label(const void *f, uint32_t v)
{
	return tr_field_label(f, v);
}

void tr_text_fields(struct tr_text *t, const struct tr_class *cls, const uint8_t *pl, size_t len)
{
	(void)len;	/* the cursor checked the record against it */
	for (uint32_t i = 0; i < cls->nfields; i++) {
		const struct tr_field *f = &cls->fields[i];
		size_t n = strlen(f->name), room = 96;
		char *p;

		for (uint32_t k = 0; k < f->nlabels; k++)
			if (f->labels[k].len + 96 > room)
				room = f->labels[k].len + 96;
		p = tr_text_room(t, n + room);
		if (i) {
			*p++ = ',';
			*p++ = ' ';
		}
		p = tr_put(p, f->name, n);
		p = tr_put(p, " = ", 3);
		p = tr_put_own_value(t, p, f->type, &pl, room, field_label, f);
		t->len = (size_t)(p - t->buf);
	}
}
