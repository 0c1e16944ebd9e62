// SPDX-License-Identifier: MIT
/*
 * tools/json.c - see json.h.  UTF-8 is checked as RFC 3629 defines it: no
 * overlong forms, no surrogates, nothing above U+10FFFF.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tools/json.h"

#define JW_CAP	(256u << 10)

int jw_init(struct jw *w, FILE *f)
{
	memset(w, 0, sizeof(*w));
	w->f = f;
	w->cap = JW_CAP;
	w->buf = malloc(w->cap);
	return w->buf ? 0 : -ENOMEM;
}

int jw_flush(struct jw *w)
{
	if (w->len && !w->failed && fwrite(w->buf, 1, w->len, w->f) != w->len)
		w->failed = true;
	w->len = 0;
	return w->failed ? -1 : 0;
}

int jw_close(struct jw *w)
{
	int r = jw_flush(w);

	if (fflush(w->f))
		r = -1;
	free(w->buf);
	w->buf = NULL;
	return r;
}

/* Room for @n more bytes (n <= JW_CAP). */
static inline char *room(struct jw *w, size_t n)
{
	if (__builtin_expect(w->cap - w->len < n, 0))
		jw_flush(w);
	return w->buf + w->len;
}

void jw_raw(struct jw *w, const char *s, size_t n)
{
	while (n) {
		size_t k = n < w->cap / 2 ? n : w->cap / 2;

		memcpy(room(w, k), s, k);
		w->len += k;
		s += k;
		n -= k;
	}
}

void jw_lit(struct jw *w, const char *s)
{
	jw_raw(w, s, strlen(s));
}

size_t jw_utf8_len(const uint8_t *s, size_t n)
{
	uint8_t c = s[0];

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return n >= 2 && (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		uint8_t lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;

		return n >= 3 && s[1] >= lo && s[1] <= hi && (s[2] & 0xc0) == 0x80 ? 3 : 0;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		uint8_t lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;

		return n >= 4 && s[1] >= lo && s[1] <= hi && (s[2] & 0xc0) == 0x80 &&
		       (s[3] & 0xc0) == 0x80 ? 4 : 0;
	}
	return 0;
}

static const char hexd[] = "0123456789abcdef";

void jw_str(struct jw *w, const char *str, size_t n)
{
	const uint8_t *s = (const uint8_t *)str, *e = s + n;
	char *p;

	p = room(w, 1);
	*p = '"';
	w->len++;
	while (s < e) {
		/* the worst case per input byte is 6 output bytes */
		size_t chunk = (size_t)(e - s) < 4096 ? (size_t)(e - s) : 4096;
		const uint8_t *ce = s + chunk;

		p = room(w, 6 * chunk + 8);
		while (s < ce) {
			uint8_t c = *s;
			size_t k;

			if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
				*p++ = (char)c;
				s++;
				continue;
			}
			if (c == '"' || c == '\\') {
				*p++ = '\\';
				*p++ = (char)c;
				s++;
				continue;
			}
			if (c < 0x20 || c == 0x7f) {
				if (c == '\n' || c == '\t' || c == '\r') {
					*p++ = '\\';
					*p++ = c == '\n' ? 'n' : c == '\t' ? 't' : 'r';
				} else {
					memcpy(p, "\\u00", 4);
					p[4] = hexd[c >> 4];
					p[5] = hexd[c & 15];
					p += 6;
				}
				s++;
				continue;
			}
			/* a sequence may run past the chunk: check it against the whole string */
			k = jw_utf8_len(s, (size_t)(e - s));
			if (k) {
				memcpy(p, s, k);
				p += k;
				s += k;
				if (s > ce)
					ce = s;
			} else {
				memcpy(p, "\xef\xbf\xbd", 3);	/* U+FFFD */
				p += 3;
				s++;
			}
		}
		w->len = (size_t)(p - w->buf);
	}
	p = room(w, 1);
	*p = '"';
	w->len++;
}

void jw_cstr(struct jw *w, const char *s)
{
	jw_str(w, s, strlen(s));
}

void jw_u64(struct jw *w, uint64_t v)
{
	char b[24], *p = b + sizeof(b);

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	jw_raw(w, p, (size_t)(b + sizeof(b) - p));
}

void jw_i64(struct jw *w, int64_t v)
{
	if (v < 0) {
		jw_raw(w, "-", 1);
		jw_u64(w, (uint64_t)0 - (uint64_t)v);
	} else {
		jw_u64(w, (uint64_t)v);
	}
}

void jw_us(struct jw *w, int64_t ns)
{
	uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	char frac[4];

	if (ns < 0)
		jw_raw(w, "-", 1);
	jw_u64(w, a / 1000);
	frac[0] = '.';
	frac[1] = (char)('0' + a % 1000 / 100);
	frac[2] = (char)('0' + a % 100 / 10);
	frac[3] = (char)('0' + a % 10);
	jw_raw(w, frac, 4);
}

void jw_double(struct jw *w, double v)
{
	char b[40];
	int n;

	if (!isfinite(v)) {
		jw_lit(w, "null");
		return;
	}
	n = snprintf(b, sizeof(b), "%.17g", v);
	jw_raw(w, b, (size_t)n);
}
