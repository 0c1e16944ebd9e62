// SPDX-License-Identifier: MIT
/*
 * reader/ctf_parse.c - general TSDL (CTF 1.8) parsed into the types,
 * clocks, stream and event classes of reader/ctf_plan.h, then compiled into
 * plans (ctf_plan.c).  What LTTng-UST 2.13 and LTTng kernel traces hold:
 * typealiases and typedefs (of one or more words: "unsigned long"), named
 * and anonymous structures, variants and enumerations, integers and floats
 * with every attribute, strings, arrays and sequences, the trace, env,
 * clock, stream, event and callsite blocks, C and C++ comments.
 *
 * The text is hostile: every token is bounded by the text, nesting is
 * bounded, every problem is reported as "FILE: line N: what".  Types live
 * in an arena the metadata owns (tr_metadata_free()).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "format/ctf.h"
#include "format/error.h"
#include "reader/ctf_plan.h"
#include "reader/ctf_internal.h"
#include "reader/tsdl.h"

#define MAX_DEPTH	32		/* nested types and blocks */
#define MAX_FIELDS	65536		/* members of one structure or variant */
#define MAX_LABELS	65536		/* labels of one enumeration */

/* ---- the arena ------------------------------------------------------------- */

struct tr_arena {
	struct tr_arena *next;
	size_t used, cap;
	max_align_t data[];
};

void *tr_arena_alloc(struct tr_arena **a, size_t n)
{
	struct tr_arena *b = *a;

	n = (n + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
	if (!b || b->cap - b->used < n) {
		size_t cap = n > 65536 ? n : 65536;

		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->next = *a;
		b->used = 0;
		b->cap = cap;
		*a = b;
	}
	b->used += n;
	return memset((char *)b->data + b->used - n, 0, n);
}

char *tr_arena_strndup(struct tr_arena **a, const char *s, size_t n)
{
	char *d = tr_arena_alloc(a, n + 1);

	if (d) {
		memcpy(d, s, n);
		d[n] = 0;
	}
	return d;
}

void tr_arena_free(struct tr_arena *a)
{
	while (a) {
		struct tr_arena *n = a->next;

		free(a);
		a = n;
	}
}

/* ---- the lexer ------------------------------------------------------------- */

enum tok {
	T_END, T_IDENT, T_INT, T_STRING, T_LBRACE, T_RBRACE, T_LBRACK, T_RBRACK, T_LPAREN,
	T_RPAREN, T_SEMI, T_COLON, T_COMMA, T_EQ, T_LT, T_GT, T_DOT, T_ASSIGN, T_ELLIPSIS,
	T_STAR, T_ERROR,
};

static const char *const tok_names[] = {
	[T_END] = "the end of the metadata", [T_IDENT] = "a name", [T_INT] = "a number",
	[T_STRING] = "a string", [T_LBRACE] = "'{'", [T_RBRACE] = "'}'", [T_LBRACK] = "'['",
	[T_RBRACK] = "']'", [T_LPAREN] = "'('", [T_RPAREN] = "')'", [T_SEMI] = "';'",
	[T_COLON] = "':'", [T_COMMA] = "','", [T_EQ] = "'='", [T_LT] = "'<'", [T_GT] = "'>'",
	[T_DOT] = "'.'", [T_ASSIGN] = "':='", [T_ELLIPSIS] = "'...'", [T_STAR] = "'*'",
	[T_ERROR] = "a bad token",
};

struct token {
	enum tok t;
	const char *s;		/* identifiers: the name; strings: unescaped (arena) */
	size_t n;
	uint64_t v;		/* numbers: the magnitude */
	bool neg;
	uint32_t line;
};

/* A named type: a typealias or typedef, or a struct/variant/enum tag. */
struct binding {
	struct binding *next;
	const char *name;	/* "unsigned long", "struct packet_context" */
	const struct tr_ctype *type;
};

struct parser {
	const char *fname;
	char *err;
	size_t errlen;
	const char *p, *end;
	uint32_t line;
	struct token tok;	/* the current token */
	struct tr_arena **arena;
	struct binding *scope;	/* innermost first */
	int depth;
	bool failed, nomem;
	struct tr_ctf_parsed *out;
};

__attribute__((format(printf, 2, 3)))
static int fail(struct parser *ps, const char *fmt, ...)
{
	va_list ap;

	if (ps->failed)
		return -EPROTO;
	ps->failed = true;
	va_start(ap, fmt);
	rtr_verrf_at(ps->err, ps->errlen, EPROTO, ps->fname, RTR_AT_LINE,
		     ps->tok.line ? ps->tok.line : ps->line, fmt, ap);
	va_end(ap);
	return -EPROTO;
}

/* What the text has that is not read but harms nothing: counted, the first said; read on. */
__attribute__((format(printf, 2, 3)))
static void warn(struct parser *ps, const char *fmt, ...)
{
	struct tr_ctf_parsed *o = ps->out;
	va_list ap;

	if (o->nwarnings++)
		return;
	va_start(ap, fmt);
	rtr_verrf_at(o->warning, sizeof(o->warning), 0, ps->fname, RTR_AT_LINE,
		     ps->tok.line ? ps->tok.line : ps->line, fmt, ap);
	va_end(ap);
}

/* An attribute given twice: refused, as babeltrace2 refuses it (the last would win silently). */
static int twice(struct parser *ps, unsigned *seen, unsigned bit, const char *what, const char *key)
{
	if (*seen & bit)
		return fail(ps, "%s: the attribute '%s' is given twice", what, key);
	*seen |= bit;
	return 0;
}

static int nomem(struct parser *ps)
{
	int r = fail(ps, "out of memory");

	ps->nomem = true;
	return r;
}

static void *alloc(struct parser *ps, size_t n)
{
	void *p = tr_arena_alloc(ps->arena, n);

	if (!p)
		nomem(ps);
	return p;
}

/* What the current token is, for a message: at most 40 printable bytes. */
static const char *tok_text(const struct parser *ps, char *buf, size_t n)
{
	const struct token *t = &ps->tok;

	if (t->t == T_IDENT) {
		size_t k = t->n < 40 ? t->n : 40;

		snprintf(buf, n, "'%.*s'", (int)k, t->s);
		return buf;
	}
	if (t->t == T_INT) {
		snprintf(buf, n, "%s%" PRIu64, t->neg ? "-" : "", t->v);
		return buf;
	}
	return tok_names[t->t];
}

static bool ident_start(char c)
{
	return rtr_ctf_ident_start(c);
}

static void skip_space(struct parser *ps)
{
	while (ps->p < ps->end) {
		char c = *ps->p;

		if (c == '\n') {
			ps->line++;
			ps->p++;
		} else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
			ps->p++;
		} else if (c == '/' && ps->p + 1 < ps->end && ps->p[1] == '*') {
			ps->p += 2;
			while (ps->p < ps->end && !(*ps->p == '*' && ps->p + 1 < ps->end &&
						    ps->p[1] == '/')) {
				ps->line += *ps->p == '\n';
				ps->p++;
			}
			ps->p = ps->p < ps->end ? ps->p + 2 : ps->end;
		} else if (c == '/' && ps->p + 1 < ps->end && ps->p[1] == '/') {
			while (ps->p < ps->end && *ps->p != '\n')
				ps->p++;
		} else {
			return;
		}
	}
}

/*
 * The escape after a backslash at *@s (C's: \n \t \r \a \b \f \v \e,
 * octal \NNN, hex \xHH, and any other character as itself): its value, and
 * *@s past it.
 */
static unsigned lex_escape(const char **s, const char *end)
{
	const char *p = *s;
	unsigned v = 0;
	int k;

	switch (*p) {
	case 'n': *s = p + 1; return '\n';
	case 't': *s = p + 1; return '\t';
	case 'r': *s = p + 1; return '\r';
	case 'a': *s = p + 1; return '\a';
	case 'b': *s = p + 1; return '\b';
	case 'f': *s = p + 1; return '\f';
	case 'v': *s = p + 1; return '\v';
	case 'e': *s = p + 1; return 0x1b;
	case 'x':
		for (k = 0, p++; k < 2 && p < end && isxdigit((unsigned char)*p); k++, p++)
			v = v * 16 + (unsigned)(*p <= '9' ? *p - '0' : (*p | 0x20) - 'a' + 10);
		if (!k)
			v = 'x';	/* "\x" without digits: the x itself */
		*s = p;
		return v;
	}
	if (*p >= '0' && *p <= '7') {
		for (k = 0; k < 3 && p < end && *p >= '0' && *p <= '7'; k++, p++)
			v = v * 8 + (unsigned)(*p - '0');
		*s = p;
		return v & 0xff;
	}
	*s = p + 1;
	return (unsigned char)*p;
}

/* A string literal after its opening quote: escapes resolved, into the arena. */
static int lex_string(struct parser *ps, struct token *t)
{
	const char *s = ps->p, *q;
	size_t n = 0;
	char *out, *o;

	for (q = s; q < ps->end && *q != '"'; q++, n++) {
		if (*q == '\n')
			return fail(ps, "a string runs past the end of its line");
		if ((unsigned char)*q < 0x20 && *q != '\t')
			return fail(ps, "a control character in a string");
		if (*q == '\\' && ++q == ps->end)
			break;
	}
	if (q >= ps->end)
		return fail(ps, "a string without its closing quote");
	out = alloc(ps, n + 1);
	if (!out)
		return -ENOMEM;
	for (o = out; s < q;) {
		if (*s != '\\') {
			*o++ = *s++;
			continue;
		}
		s++;
		*o++ = (char)lex_escape(&s, q);	/* \" \\ \' and the rest as themselves */
	}
	*o = 0;
	t->t = T_STRING;
	t->s = out;
	t->n = (size_t)(o - out);
	ps->p = q + 1;
	return 0;
}

static int lex_number(struct parser *ps, struct token *t)
{
	const char *s = ps->p;
	unsigned base = 10;
	uint64_t v = 0;
	bool any = false;

	if (*s == '0' && s + 1 < ps->end && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	} else if (*s == '0' && s + 1 < ps->end && s[1] >= '0' && s[1] <= '7') {
		base = 8;
		s++;
	}
	for (; s < ps->end; s++) {
		unsigned d;

		if (*s >= '0' && *s <= '9')
			d = (unsigned)(*s - '0');
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = (unsigned)(*s - 'a' + 10);
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = (unsigned)(*s - 'A' + 10);
		else
			break;
		if (d >= base)
			return fail(ps, "a bad digit in a number");
		if (v > (UINT64_MAX - d) / base)
			return fail(ps, "a number larger than 64 bits");
		v = v * base + d;
		any = true;
	}
	if (!any && base != 8)
		return fail(ps, "a bad number");
	/* C's suffixes: U, L, UL, ULL ... */
	while (s < ps->end && (*s == 'u' || *s == 'U' || *s == 'l' || *s == 'L'))
		s++;
	if (s < ps->end && (rtr_ctf_ident_char(*s) || *s == '.'))
		if (!(*s == '.' && s + 2 < ps->end && s[1] == '.' && s[2] == '.'))
			return fail(ps, "a bad number");
	t->t = T_INT;
	t->v = v;
	ps->p = s;
	return 0;
}

static int lex(struct parser *ps, struct token *t)
{
	char c;

	memset(t, 0, sizeof(*t));
	skip_space(ps);
	t->line = ps->line;
	if (ps->p >= ps->end) {
		t->t = T_END;
		return 0;
	}
	c = *ps->p;
	if (ident_start(c)) {
		const char *s = ps->p;

		while (ps->p < ps->end && rtr_ctf_ident_char(*ps->p))
			ps->p++;
		t->t = T_IDENT;
		t->s = s;
		t->n = (size_t)(ps->p - s);
		return 0;
	}
	if ((c >= '0' && c <= '9') || ((c == '-' || c == '+') && ps->p + 1 < ps->end &&
				      ps->p[1] >= '0' && ps->p[1] <= '9')) {
		bool neg = c == '-';
		int r;

		if (c == '-' || c == '+')	/* unary minus, or plus */
			ps->p++;
		r = lex_number(ps, t);
		t->neg = neg && t->v;
		return r;
	}
	if (c == '"') {
		ps->p++;
		return lex_string(ps, t);
	}
	if (c == '\'') {
		/* a character constant ('a', '\n', '\x20', '\040'): its value */
		const char *q = ps->p + 1;
		unsigned v;

		if (q >= ps->end || *q == '\'' || *q == '\n')
			return fail(ps, "a bad character constant");
		if (*q == '\\') {
			q++;
			if (q >= ps->end)
				return fail(ps, "a bad character constant");
			v = lex_escape(&q, ps->end);
		} else {
			v = (unsigned char)*q++;
		}
		if (q >= ps->end || *q != '\'')
			return fail(ps, "a bad character constant");
		t->t = T_INT;
		t->v = v;
		ps->p = q + 1;
		return 0;
	}
	ps->p++;
	switch (c) {
	case '{': t->t = T_LBRACE; return 0;
	case '}': t->t = T_RBRACE; return 0;
	case '[': t->t = T_LBRACK; return 0;
	case ']': t->t = T_RBRACK; return 0;
	case '(': t->t = T_LPAREN; return 0;
	case ')': t->t = T_RPAREN; return 0;
	case ';': t->t = T_SEMI; return 0;
	case ',': t->t = T_COMMA; return 0;
	case '=': t->t = T_EQ; return 0;
	case '<': t->t = T_LT; return 0;
	case '>': t->t = T_GT; return 0;
	case '*': t->t = T_STAR; return 0;
	case ':':
		if (ps->p < ps->end && *ps->p == '=') {
			ps->p++;
			t->t = T_ASSIGN;
		} else {
			t->t = T_COLON;
		}
		return 0;
	case '.':
		if (ps->p + 1 < ps->end && ps->p[0] == '.' && ps->p[1] == '.') {
			ps->p += 2;
			t->t = T_ELLIPSIS;
		} else {
			t->t = T_DOT;
		}
		return 0;
	}
	if ((unsigned char)c < 0x20 || (unsigned char)c > 0x7e)
		return fail(ps, "a byte 0x%02x that no token starts with", (unsigned char)c);
	return fail(ps, "'%c' starts no token", c);
}

static int next(struct parser *ps)
{
	if (lex(ps, &ps->tok)) {
		ps->tok.t = T_ERROR;
		return -EPROTO;
	}
	return 0;
}

/*
 * How many words (identifiers) start at the current token, and the kind
 * of token after them: a look ahead that leaves the lexer where it was.
 */
static int count_words(struct parser *ps, enum tok *after)
{
	const char *p = ps->p;
	uint32_t line = ps->line;
	struct token t = ps->tok;
	int n = 0;

	while (t.t == T_IDENT && n < 16) {
		n++;
		if (lex(ps, &t)) {
			t.t = T_ERROR;
			break;
		}
	}
	*after = t.t;
	ps->p = p;
	ps->line = line;
	return n;
}

static bool is(const struct parser *ps, enum tok t)
{
	return ps->tok.t == t;
}

static bool is_word(const struct token *t, const char *w)
{
	size_t n = strlen(w);

	return t->t == T_IDENT && t->n == n && !memcmp(t->s, w, n);
}

static int expect(struct parser *ps, enum tok t, const char *where)
{
	char buf[64];

	if (ps->tok.t != t)
		return fail(ps, "expected %s %s, found %s", tok_names[t], where,
			    tok_text(ps, buf, sizeof(buf)));
	return next(ps);
}

static char *tok_dup(struct parser *ps)
{
	return tr_arena_strndup(ps->arena, ps->tok.s, ps->tok.n);
}

/* ---- scopes ---------------------------------------------------------------- */

static const struct tr_ctype *lookup(const struct parser *ps, const char *name, size_t n)
{
	for (const struct binding *b = ps->scope; b; b = b->next) {
		if (strlen(b->name) == n && !memcmp(b->name, name, n))
			return b->type;
	}
	return NULL;
}

static int bind(struct parser *ps, const char *name, const struct tr_ctype *type)
{
	struct binding *b = alloc(ps, sizeof(*b));

	if (!b)
		return -ENOMEM;
	b->name = name;
	b->type = type;
	b->next = ps->scope;
	ps->scope = b;
	return 0;
}

/* ---- attributes: "key = value;" ------------------------------------------------ */

struct value {
	enum tok t;		/* T_INT, T_STRING, T_IDENT (a word or a dotted path) */
	uint64_t v;
	bool neg;
	const char *s;		/* arena */
	size_t n;
};

/* After "=": a number, a string, or a word or path ("le", "clock.monotonic.value"). */
static int parse_value(struct parser *ps, struct value *v)
{
	char buf[64];

	memset(v, 0, sizeof(*v));
	if (is(ps, T_INT)) {
		v->t = T_INT;
		v->v = ps->tok.v;
		v->neg = ps->tok.neg;
		return next(ps);
	}
	if (is(ps, T_STRING)) {
		v->t = T_STRING;
		v->s = ps->tok.s;
		v->n = ps->tok.n;
		return next(ps);
	}
	if (is(ps, T_IDENT)) {
		const char *start = ps->tok.s;
		const char *end = ps->tok.s + ps->tok.n;

		if (next(ps))
			return -EPROTO;
		while (is(ps, T_DOT)) {
			if (next(ps) || !is(ps, T_IDENT))
				return fail(ps, "a dotted name ends without its last part");
			end = ps->tok.s + ps->tok.n;
			if (next(ps))
				return -EPROTO;
		}
		v->t = T_IDENT;
		v->s = tr_arena_strndup(ps->arena, start, (size_t)(end - start));
		v->n = (size_t)(end - start);
		return v->s ? 0 : nomem(ps);
	}
	return fail(ps, "expected a value, found %s", tok_text(ps, buf, sizeof(buf)));
}

static bool word_is(const struct value *v, const char *w)
{
	return v->t == T_IDENT && !strcmp(v->s, w);
}

static int bool_value(struct parser *ps, const struct value *v, const char *key, bool *out)
{
	if (v->t == T_INT && !v->neg && v->v <= 1)
		*out = v->v;
	else if (word_is(v, "true") || word_is(v, "TRUE"))
		*out = true;
	else if (word_is(v, "false") || word_is(v, "FALSE"))
		*out = false;
	else
		return fail(ps, "%s: expected true or false", key);
	return 0;
}

static int order_value(struct parser *ps, const struct value *v, uint8_t *out)
{
	if (word_is(v, "native"))
		*out = TR_ORDER_NATIVE;
	else if (word_is(v, "le") || word_is(v, "little"))
		*out = TR_ORDER_LE;
	else if (word_is(v, "be") || word_is(v, "big") || word_is(v, "network"))
		*out = TR_ORDER_BE;
	else
		return fail(ps, "byte_order: expected le, be, network or native");
	return 0;
}

static int uint_value(struct parser *ps, const struct value *v, const char *key, uint64_t max,
		      uint64_t *out)
{
	if (v->t != T_INT || v->neg || v->v > max)
		return fail(ps, "%s: expected a number from 0 to %" PRIu64, key, max);
	*out = v->v;
	return 0;
}

/* ---- types ----------------------------------------------------------------- */

static struct tr_ctype *new_type(struct parser *ps, enum tr_tkind kind)
{
	struct tr_ctype *t = alloc(ps, sizeof(*t));

	if (t) {
		t->kind = kind;
		t->align = 1;
		t->base = 10;
	}
	return t;
}

static int parse_type(struct parser *ps, const struct tr_ctype **out);
static int parse_fields(struct parser *ps, struct tr_ctype *t, bool variant);

static bool pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* "integer { size = 8; ... }" after "integer". */
static int parse_integer(struct parser *ps, const struct tr_ctype **out)
{
	static const char *const keys[] = { "size", "align", "signed", "byte_order", "encoding",
					    "base", "map", NULL };
	struct tr_ctype *t = new_type(ps, TR_TK_INT);
	bool have_size = false, have_align = false;
	unsigned seen = 0;

	if (!t || expect(ps, T_LBRACE, "after 'integer'"))
		return -EPROTO;
	while (!is(ps, T_RBRACE)) {
		struct value v;
		uint64_t u = 0;
		char key[32];

		if (!is(ps, T_IDENT))
			return expect(ps, T_RBRACE, "closing the integer");
		snprintf(key, sizeof(key), "%.*s", (int)ps->tok.n, ps->tok.s);
		if (next(ps) || expect(ps, T_EQ, "after an integer's attribute") ||
		    parse_value(ps, &v))
			return -EPROTO;
		for (unsigned k = 0; keys[k]; k++)
			if (!strcmp(key, keys[k]) && twice(ps, &seen, 1u << k, "an integer", key))
				return -EPROTO;
		if (!strcmp(key, "size")) {
			if (uint_value(ps, &v, key, 64, &u) || !u)
				return fail(ps, "size: expected 1 to 64 bits");
			t->size = (uint32_t)u;
			have_size = true;
		} else if (!strcmp(key, "align")) {
			if (uint_value(ps, &v, key, 1u << 20, &u) || !pow2(u))
				return fail(ps, "align: expected a power of two");
			t->align = (uint32_t)u;
			have_align = true;
		} else if (!strcmp(key, "signed")) {
			if (bool_value(ps, &v, key, &t->sign))
				return -EPROTO;
		} else if (!strcmp(key, "byte_order")) {
			if (order_value(ps, &v, &t->order))
				return -EPROTO;
		} else if (!strcmp(key, "encoding")) {
			if (word_is(&v, "UTF8") || word_is(&v, "ASCII") || word_is(&v, "utf8") ||
			    word_is(&v, "ascii"))
				t->text = true;
			else if (!word_is(&v, "none"))
				return fail(ps, "encoding: expected none, UTF8 or ASCII");
		} else if (!strcmp(key, "base")) {
			if (v.t == T_INT && (v.v == 2 || v.v == 8 || v.v == 10 || v.v == 16))
				t->base = (uint8_t)v.v;
			else if (word_is(&v, "decimal") || word_is(&v, "dec") || word_is(&v, "d") ||
				 word_is(&v, "i") || word_is(&v, "u"))
				t->base = 10;
			else if (word_is(&v, "hexadecimal") || word_is(&v, "hex") ||
				 word_is(&v, "x") || word_is(&v, "X") || word_is(&v, "p"))
				t->base = 16;
			else if (word_is(&v, "octal") || word_is(&v, "oct") || word_is(&v, "o"))
				t->base = 8;
			else if (word_is(&v, "binary") || word_is(&v, "b"))
				t->base = 2;
			else
				return fail(ps, "base: expected 2, 8, 10 or 16");
		} else if (!strcmp(key, "map")) {
			/* clock.NAME.value */
			if (v.t != T_IDENT || v.n < 13 || strncmp(v.s, "clock.", 6) ||
			    strcmp(v.s + v.n - 6, ".value"))
				return fail(ps, "map: expected clock.NAME.value");
			t->clock = tr_arena_strndup(ps->arena, v.s + 6, v.n - 12);
			if (!t->clock)
				return nomem(ps);
		} else {
			warn(ps, "an integer's unknown attribute '%s', ignored", key);
		}
		if (expect(ps, T_SEMI, "after an integer's attribute"))
			return -EPROTO;
	}
	if (!have_size)
		return fail(ps, "an integer without its size");
	if (!have_align)
		t->align = t->size % 8 ? 1 : 8;
	*out = t;
	return next(ps);
}

static int parse_float(struct parser *ps, const struct tr_ctype **out)
{
	static const char *const keys[] = { "exp_dig", "mant_dig", "align", "byte_order", NULL };
	struct tr_ctype *t = new_type(ps, TR_TK_FLOAT);
	bool have_align = false;
	unsigned seen = 0;

	if (!t || expect(ps, T_LBRACE, "after 'floating_point'"))
		return -EPROTO;
	while (!is(ps, T_RBRACE)) {
		struct value v;
		uint64_t u = 0;
		char key[32];

		if (!is(ps, T_IDENT))
			return expect(ps, T_RBRACE, "closing the floating_point");
		snprintf(key, sizeof(key), "%.*s", (int)ps->tok.n, ps->tok.s);
		if (next(ps) || expect(ps, T_EQ, "after an attribute") || parse_value(ps, &v))
			return -EPROTO;
		for (unsigned k = 0; keys[k]; k++)
			if (!strcmp(key, keys[k]) && twice(ps, &seen, 1u << k, "a floating_point",
							   key))
				return -EPROTO;
		if (!strcmp(key, "exp_dig")) {
			if (uint_value(ps, &v, key, 64, &u))
				return -EPROTO;
			t->exp_dig = (uint32_t)u;
		} else if (!strcmp(key, "mant_dig")) {
			if (uint_value(ps, &v, key, 64, &u))
				return -EPROTO;
			t->mant_dig = (uint32_t)u;
		} else if (!strcmp(key, "align")) {
			if (uint_value(ps, &v, key, 1u << 20, &u) || !pow2(u))
				return fail(ps, "align: expected a power of two");
			t->align = (uint32_t)u;
			have_align = true;
		} else if (!strcmp(key, "byte_order")) {
			if (order_value(ps, &v, &t->order))
				return -EPROTO;
		} else {
			warn(ps, "a floating_point's unknown attribute '%s', ignored", key);
		}
		if (expect(ps, T_SEMI, "after an attribute"))
			return -EPROTO;
	}
	if (t->exp_dig == 8 && t->mant_dig == 24)
		t->size = 32;
	else if (t->exp_dig == 11 && t->mant_dig == 53)
		t->size = 64;
	else
		return fail(ps, "a floating_point of %u exponent and %u mantissa digits (only "
			    "IEEE 754's 32 and 64 bits are read)", t->exp_dig, t->mant_dig);
	if (!have_align)
		t->align = 8;
	*out = t;
	return next(ps);
}

static int parse_string_type(struct parser *ps, const struct tr_ctype **out)
{
	struct tr_ctype *t = new_type(ps, TR_TK_STRING);

	if (!t)
		return -ENOMEM;
	t->align = 8;
	if (is(ps, T_LBRACE)) {
		if (next(ps))
			return -EPROTO;
		unsigned seen = 0;

		while (!is(ps, T_RBRACE)) {
			struct value v;
			char key[32];

			if (!is(ps, T_IDENT))
				return expect(ps, T_RBRACE, "closing the string");
			snprintf(key, sizeof(key), "%.*s", (int)ps->tok.n, ps->tok.s);
			if (!strcmp(key, "encoding") && twice(ps, &seen, 1, "a string", key))
				return -EPROTO;
			if (strcmp(key, "encoding"))
				warn(ps, "a string's unknown attribute '%s', ignored", key);
			if (next(ps) || expect(ps, T_EQ, "after a string's attribute") ||
			    parse_value(ps, &v) || expect(ps, T_SEMI, "after a string's attribute"))
				return -EPROTO;
		}
		if (next(ps))
			return -EPROTO;
	}
	*out = t;
	return 0;
}

/* "enum [NAME] [: TYPE] [{ ... }]" after "enum". */
static int parse_enum(struct parser *ps, const struct tr_ctype **out)
{
	const struct tr_ctype *container = NULL;
	struct tr_ctype *t;
	char *name = NULL;
	uint32_t cap = 0;
	int64_t nextv = 0;
	bool full = false;	/* the last label ended at the container's largest value */

	if (is(ps, T_IDENT)) {
		name = tok_dup(ps);
		if (!name || next(ps))
			return -EPROTO;
	}
	if (is(ps, T_COLON)) {
		if (next(ps) || parse_type(ps, &container))
			return -EPROTO;
		if (container->kind != TR_TK_INT)
			return fail(ps, "an enumeration's container must be an integer");
	}
	if (!is(ps, T_LBRACE)) {
		char tag[300];
		const struct tr_ctype *n;

		if (!name)
			return fail(ps, "an enumeration without a name nor a body");
		snprintf(tag, sizeof(tag), "enum %s", name);
		n = lookup(ps, tag, strlen(tag));
		if (!n)
			return fail(ps, "no enumeration named '%s'", name);
		*out = n;
		return 0;
	}
	if (!container) {
		container = lookup(ps, "int", 3);
		if (!container || container->kind != TR_TK_INT)
			return fail(ps, "an enumeration without a container type, and no 'int' "
				    "typealias to default to");
	}
	t = new_type(ps, TR_TK_ENUM);
	if (!t)
		return -ENOMEM;
	t->container = container;
	t->size = container->size;
	t->align = container->align;
	t->sign = container->sign;
	t->order = container->order;
	t->base = container->base;
	t->clock = container->clock;
	if (next(ps))
		return -EPROTO;
	while (!is(ps, T_RBRACE)) {
		struct tr_enum_map m = { 0 };

		if (is(ps, T_STRING) || is(ps, T_IDENT)) {
			m.label = tr_arena_strndup(ps->arena, ps->tok.s, ps->tok.n);
			m.len = (uint32_t)ps->tok.n;
			if (!m.label)
				return nomem(ps);
		} else {
			return fail(ps, "expected an enumeration's label");
		}
		if (next(ps))
			return -EPROTO;
		m.lo = m.hi = nextv;
		if (full && !is(ps, T_EQ))
			return fail(ps, "a label after the largest value, without a value of its own");
		if (is(ps, T_EQ)) {
			if (next(ps))
				return -EPROTO;
			if (!is(ps, T_INT))
				return fail(ps, "expected a label's value");
			if (ps->tok.neg ? ps->tok.v > (uint64_t)INT64_MAX + 1 :
			    (!t->sign && false))
				return fail(ps, "a label's value out of range");
			m.lo = ps->tok.neg ? (int64_t)(0 - ps->tok.v) : (int64_t)ps->tok.v;
			m.hi = m.lo;
			if (next(ps))
				return -EPROTO;
			if (is(ps, T_ELLIPSIS)) {
				if (next(ps) || !is(ps, T_INT))
					return fail(ps, "expected the range's last value");
				m.hi = ps->tok.neg ? (int64_t)(0 - ps->tok.v) : (int64_t)ps->tok.v;
				if (next(ps))
					return -EPROTO;
				if (t->sign ? m.hi < m.lo : (uint64_t)m.hi < (uint64_t)m.lo)
					return fail(ps, "a range that ends before it starts");
			}
		}
		/* the next label's value, unless this one ends at the largest (no overflow) */
		full = t->sign ? m.hi == INT64_MAX : (uint64_t)m.hi == UINT64_MAX;
		nextv = (int64_t)((uint64_t)m.hi + 1);
		if (t->nmaps == cap) {
			struct tr_enum_map *nm;

			if (cap >= MAX_LABELS)
				return fail(ps, "an enumeration of more than %u labels", MAX_LABELS);
			cap = cap ? 2 * cap : 16;
			nm = alloc(ps, cap * sizeof(*nm));
			if (!nm)
				return -ENOMEM;
			if (t->nmaps)
				memcpy(nm, t->maps, t->nmaps * sizeof(*nm));
			t->maps = nm;
		}
		t->maps[t->nmaps++] = m;
		if (is(ps, T_COMMA)) {
			if (next(ps))
				return -EPROTO;
		} else if (!is(ps, T_RBRACE)) {
			return expect(ps, T_RBRACE, "closing the enumeration");
		}
	}
	if (next(ps))
		return -EPROTO;
	if (name) {
		char *tag = alloc(ps, strlen(name) + 6);

		if (!tag)
			return -ENOMEM;
		sprintf(tag, "enum %s", name);
		if (bind(ps, tag, t))
			return -ENOMEM;
	}
	*out = t;
	return 0;
}

/* "struct [NAME] [{ ... }] [align(N)]" or "variant [NAME] [<TAG>] [{ ... }]". */
static int parse_compound(struct parser *ps, bool variant, const struct tr_ctype **out)
{
	const char *kw = variant ? "variant" : "struct";
	struct tr_ctype *t;
	char *name = NULL, *tag = NULL;

	if (is(ps, T_IDENT)) {
		name = tok_dup(ps);
		if (!name || next(ps))
			return -EPROTO;
	}
	if (variant && is(ps, T_LT)) {
		const char *start;
		const char *end;

		if (next(ps) || !is(ps, T_IDENT))
			return fail(ps, "expected a variant's tag after '<'");
		start = ps->tok.s;
		end = ps->tok.s + ps->tok.n;
		if (next(ps))
			return -EPROTO;
		while (is(ps, T_DOT)) {
			if (next(ps) || !is(ps, T_IDENT))
				return fail(ps, "a tag's path ends without its last part");
			end = ps->tok.s + ps->tok.n;
			if (next(ps))
				return -EPROTO;
		}
		tag = tr_arena_strndup(ps->arena, start, (size_t)(end - start));
		if (!tag || expect(ps, T_GT, "closing the variant's tag"))
			return -EPROTO;
	}
	if (!is(ps, T_LBRACE)) {
		char key[300];
		const struct tr_ctype *n;
		struct tr_ctype *c;

		if (!name)
			return fail(ps, "a %s without a name nor a body", kw);
		snprintf(key, sizeof(key), "%s %s", kw, name);
		n = lookup(ps, key, strlen(key));
		if (!n)
			return fail(ps, "no %s named '%s'", kw, name);
		if (!tag) {
			*out = n;
		} else {
			c = alloc(ps, sizeof(*c));
			if (!c)
				return -ENOMEM;
			*c = *n;
			c->tag = tag;
			*out = c;
		}
		goto align;
	}
	t = new_type(ps, variant ? TR_TK_VARIANT : TR_TK_STRUCT);
	if (!t)
		return -ENOMEM;
	t->tag = tag;
	if (next(ps) || parse_fields(ps, t, variant))
		return -EPROTO;
	if (name) {
		char *key = alloc(ps, strlen(name) + 9);

		if (!key)
			return -ENOMEM;
		sprintf(key, "%s %s", kw, name);
		if (bind(ps, key, t))
			return -ENOMEM;
	}
	*out = t;
align:
	if (!variant && is_word(&ps->tok, "align")) {
		struct tr_ctype *c;

		if (next(ps) || expect(ps, T_LPAREN, "after 'align'"))
			return -EPROTO;
		if (!is(ps, T_INT) || ps->tok.neg || !pow2(ps->tok.v) || ps->tok.v > (1u << 20))
			return fail(ps, "align(): expected a power of two");
		c = alloc(ps, sizeof(*c));
		if (!c)
			return -ENOMEM;
		*c = **out;
		if (ps->tok.v > c->align)
			c->align = (uint32_t)ps->tok.v;
		*out = c;
		if (next(ps) || expect(ps, T_RPAREN, "closing align()"))
			return -EPROTO;
	}
	return 0;
}

/*
 * A type specifier.  A type named by several words ("unsigned long") is
 * ambiguous with the declarator after it ("unsigned long events_discarded;"):
 * with @declarator, the last of the words before ';', ',', '[' or ':' is
 * left for the caller.
 */
static int parse_type_in(struct parser *ps, const struct tr_ctype **out, bool declarator)
{
	char buf[64], words[256];
	size_t wl = 0;
	enum tok after;
	int n, r;

	if (ps->depth >= MAX_DEPTH)
		return fail(ps, "types nested more than %d deep", MAX_DEPTH);
	if (!is(ps, T_IDENT))
		return fail(ps, "expected a type, found %s", tok_text(ps, buf, sizeof(buf)));
	ps->depth++;
	if (is_word(&ps->tok, "integer")) {
		r = next(ps) ? -EPROTO : parse_integer(ps, out);
	} else if (is_word(&ps->tok, "floating_point")) {
		r = next(ps) ? -EPROTO : parse_float(ps, out);
	} else if (is_word(&ps->tok, "string")) {
		r = next(ps) ? -EPROTO : parse_string_type(ps, out);
	} else if (is_word(&ps->tok, "enum")) {
		r = next(ps) ? -EPROTO : parse_enum(ps, out);
	} else if (is_word(&ps->tok, "struct")) {
		r = next(ps) ? -EPROTO : parse_compound(ps, false, out);
	} else if (is_word(&ps->tok, "variant")) {
		r = next(ps) ? -EPROTO : parse_compound(ps, true, out);
	} else {
		n = count_words(ps, &after);
		if (declarator && n > 1 && (after == T_SEMI || after == T_COMMA ||
					    after == T_LBRACK || after == T_COLON))
			n--;
		r = 0;
		for (int i = 0; i < n && !r; i++) {
			if (wl + ps->tok.n + 2 > sizeof(words)) {
				r = fail(ps, "a type name longer than %zu bytes", sizeof(words));
				break;
			}
			if (wl)
				words[wl++] = ' ';
			memcpy(words + wl, ps->tok.s, ps->tok.n);
			wl += ps->tok.n;
			if (i + 1 < n)
				r = next(ps);
		}
		if (!r) {
			*out = lookup(ps, words, wl);
			r = *out ? next(ps) : fail(ps, "unknown type '%.*s'", (int)wl, words);
		}
	}
	ps->depth--;
	return r;
}

static int parse_type(struct parser *ps, const struct tr_ctype **out)
{
	return parse_type_in(ps, out, false);
}

/* ---- declarations ---------------------------------------------------------- */

/*
 * A declarator after its type: "name", "name[N]", "name[path]" (a
 * sequence), dimensions nested as in C.  @name gets the name.
 */
static int parse_declarator(struct parser *ps, const struct tr_ctype *type, const char **name,
			    const struct tr_ctype **out)
{
	struct dim {
		uint64_t n;
		const char *ref;
	} dims[8];
	int ndims = 0;
	char buf[64];

	if (!is(ps, T_IDENT))
		return fail(ps, "expected a field name, found %s", tok_text(ps, buf, sizeof(buf)));
	*name = tok_dup(ps);
	if (!*name || next(ps))
		return -EPROTO;
	while (is(ps, T_LBRACK)) {
		if (ndims == 8)
			return fail(ps, "more than 8 dimensions");
		if (next(ps))
			return -EPROTO;
		dims[ndims].ref = NULL;
		dims[ndims].n = 0;
		if (is(ps, T_INT) && !ps->tok.neg) {
			dims[ndims].n = ps->tok.v;
			if (next(ps))
				return -EPROTO;
		} else if (is(ps, T_IDENT)) {
			const char *start = ps->tok.s, *end = ps->tok.s + ps->tok.n;

			if (next(ps))
				return -EPROTO;
			while (is(ps, T_DOT)) {
				if (next(ps) || !is(ps, T_IDENT))
					return fail(ps, "a length's path ends without its last part");
				end = ps->tok.s + ps->tok.n;
				if (next(ps))
					return -EPROTO;
			}
			dims[ndims].ref = tr_arena_strndup(ps->arena, start, (size_t)(end - start));
			if (!dims[ndims].ref)
				return nomem(ps);
		} else {
			return fail(ps, "expected an array's length or a sequence's length field");
		}
		ndims++;
		if (expect(ps, T_RBRACK, "closing the length"))
			return -EPROTO;
	}
	/* name[a][b]: an array of a arrays of b elements. */
	for (int i = ndims - 1; i >= 0; i--) {
		struct tr_ctype *a = new_type(ps, dims[i].ref ? TR_TK_SEQ : TR_TK_ARRAY);

		if (!a)
			return -ENOMEM;
		a->elem = type;
		a->align = type->align;
		a->length = dims[i].n;
		a->length_ref = dims[i].ref;
		/* An array or sequence of text integers is text (a string in a fixed room). */
		a->text = (type->kind == TR_TK_INT && type->text && type->size == 8);
		type = a;
	}
	*out = type;
	return 0;
}

static int parse_typealias(struct parser *ps)
{
	const struct tr_ctype *type;
	char words[256];
	size_t wl = 0;

	if (next(ps) || parse_type(ps, &type))
		return -EPROTO;
	if (expect(ps, T_ASSIGN, "in a typealias"))
		return -EPROTO;
	while (is(ps, T_IDENT)) {
		if (wl + ps->tok.n + 2 > sizeof(words))
			return fail(ps, "a type name longer than %zu bytes", sizeof(words));
		if (wl)
			words[wl++] = ' ';
		memcpy(words + wl, ps->tok.s, ps->tok.n);
		wl += ps->tok.n;
		if (next(ps))
			return -EPROTO;
	}
	if (!wl)
		return fail(ps, "a typealias without its name");
	{
		char *name = tr_arena_strndup(ps->arena, words, wl);

		if (!name || bind(ps, name, type))
			return nomem(ps);
	}
	return expect(ps, T_SEMI, "after a typealias");
}

static int parse_typedef(struct parser *ps)
{
	const struct tr_ctype *type, *t;
	const char *name;

	if (next(ps) || parse_type_in(ps, &type, true))
		return -EPROTO;
	for (;;) {
		if (parse_declarator(ps, type, &name, &t) || bind(ps, name, t))
			return -EPROTO;
		if (!is(ps, T_COMMA))
			break;
		if (next(ps))
			return -EPROTO;
	}
	return expect(ps, T_SEMI, "after a typedef");
}

/* The members of a structure or the options of a variant, after '{'; through '}'. */
static int parse_fields(struct parser *ps, struct tr_ctype *t, bool variant)
{
	struct binding *outer = ps->scope;
	uint32_t cap = 0;

	while (!is(ps, T_RBRACE)) {
		const struct tr_ctype *type;

		if (is(ps, T_END) || is(ps, T_ERROR))
			return expect(ps, T_RBRACE, variant ? "closing the variant" :
				      "closing the structure");
		if (is_word(&ps->tok, "typealias")) {
			if (parse_typealias(ps))
				return -EPROTO;
			continue;
		}
		if (is_word(&ps->tok, "typedef")) {
			if (parse_typedef(ps))
				return -EPROTO;
			continue;
		}
		if (parse_type_in(ps, &type, true))
			return -EPROTO;
		if (is(ps, T_SEMI)) {	/* a declaration of a named type alone */
			if (next(ps))
				return -EPROTO;
			continue;
		}
		for (;;) {
			struct tr_cfield f;

			if (parse_declarator(ps, type, &f.name, &f.type))
				return -EPROTO;
			for (uint32_t i = 0; i < t->nfields; i++)
				if (!strcmp(t->fields[i].name, f.name))
					return fail(ps, "'%s' is declared twice", f.name);
			if (t->nfields == cap) {
				struct tr_cfield *nf;

				if (cap >= MAX_FIELDS)
					return fail(ps, "more than %u members", MAX_FIELDS);
				cap = cap ? 2 * cap : 8;
				nf = alloc(ps, cap * sizeof(*nf));
				if (!nf)
					return -ENOMEM;
				if (t->nfields)
					memcpy(nf, t->fields, t->nfields * sizeof(*nf));
				t->fields = nf;
			}
			t->fields[t->nfields++] = f;
			if (f.type->align > t->align)
				t->align = f.type->align;
			if (!is(ps, T_COMMA))
				break;
			if (next(ps))
				return -EPROTO;
		}
		if (expect(ps, T_SEMI, "after a member"))
			return -EPROTO;
	}
	if (variant && !t->nfields)
		return fail(ps, "a variant without options");
	ps->scope = outer;	/* the aliases declared inside stay inside */
	return next(ps);
}

/* ---- blocks ---------------------------------------------------------------- */

/* "a.b.c" of an entry, before '=' or ':='. */
static int parse_key(struct parser *ps, char *key, size_t n)
{
	size_t kl = 0;
	char buf[64];

	if (!is(ps, T_IDENT))
		return fail(ps, "expected an entry's name, found %s", tok_text(ps, buf, sizeof(buf)));
	for (;;) {
		if (kl + ps->tok.n + 2 > n)
			return fail(ps, "an entry's name longer than %zu bytes", n);
		memcpy(key + kl, ps->tok.s, ps->tok.n);
		kl += ps->tok.n;
		key[kl] = 0;
		if (next(ps))
			return -EPROTO;
		if (!is(ps, T_DOT))
			return 0;
		key[kl++] = '.';
		if (next(ps) || !is(ps, T_IDENT))
			return fail(ps, "an entry's name ends with '.'");
	}
}

enum block { B_TRACE, B_ENV, B_CLOCK, B_STREAM, B_EVENT };

static void *grow_list(struct parser *ps, void *list, uint32_t n, uint32_t *cap, size_t size)
{
	void *nl;

	if (n < *cap)
		return list;
	*cap = *cap ? 2 * *cap : 8;
	nl = alloc(ps, *cap * size);
	if (nl && n)
		memcpy(nl, list, n * size);
	return nl;
}

static int block_entry(struct parser *ps, enum block b, const char *key, bool type,
		       const struct value *v, const struct tr_ctype *t)
{
	struct tr_ctf_parsed *o = ps->out;
	uint64_t u = 0;

	switch (b) {
	case B_TRACE:
		if (type && !strcmp(key, "packet.header")) {
			o->packet_header = t;
		} else if (type) {
			break;
		} else if (!strcmp(key, "major")) {
			if (v->t != T_INT || v->v != 1)
				return fail(ps, "trace major %s: only CTF 1 is read",
					    v->t == T_INT ? "not 1" : "not a number");
			o->has_major = true;
		} else if (!strcmp(key, "minor")) {
			if (v->t != T_INT || v->v != 8)
				return fail(ps, "trace minor: only CTF 1.8 is read");
			o->has_minor = true;
		} else if (!strcmp(key, "uuid")) {
			if (v->t != T_STRING || rtr_ctf_uuid_parse(v->s, v->n, false, o->uuid))
				return fail(ps, "a bad trace uuid");
			o->has_uuid = true;
		} else if (!strcmp(key, "byte_order")) {
			if (order_value(ps, v, &o->order))
				return -EPROTO;
			if (o->order == TR_ORDER_NATIVE)
				return fail(ps, "the trace's byte_order is le or be, not native");
		}
		return 0;
	case B_ENV:
		if (type)
			break;
		if (!strcmp(key, "hostname") && v->t == T_STRING)
			o->hostname = v->s;
		else if (!strcmp(key, "domain") && v->t == T_STRING)
			o->domain = v->s;
		else if (!strcmp(key, "tracer_name") && v->t == T_STRING)
			o->tracer = v->s;
		else if (!strcmp(key, "procname") && v->t == T_STRING)
			o->procname = v->s;
		else if (!strcmp(key, "vpid") && v->t == T_INT && !v->neg && v->v <= UINT32_MAX) {
			o->vpid = (uint32_t)v->v;
			o->has_vpid = true;
		}
		else if (!strncmp(key, "clock_", 6)) {
			struct tr_clock_quality *q = &o->clockq;
			uint32_t *dst = !strcmp(key, "clock_offset_window_ns") ? &q->window_ns :
					!strcmp(key, "clock_freq_error_ppb") ? &q->freq_ppb :
					!strcmp(key, "clock_esterror_us") ? &q->esterror_us :
					!strcmp(key, "clock_maxerror_us") ? &q->maxerror_us : NULL;

			if (dst && v->t == T_INT && !v->neg && v->v <= UINT32_MAX) {
				*dst = (uint32_t)v->v;
				q->known |= dst == &q->window_ns && v->v;
			} else if (!strcmp(key, "clock_sync") && v->t == T_STRING) {
				q->sync = !strcmp(v->s, "synchronized") ? RTR_CLOCK_SYNC_YES :
					  !strcmp(v->s, "unsynchronized") ? RTR_CLOCK_SYNC_NO :
					  RTR_CLOCK_SYNC_UNKNOWN;
			}
		}
		else if (!strcmp(key, "chunk_index")) {
			if (v->t != T_INT || v->neg)
				return fail(ps, "bad chunk_index: a number, 0 or more");
			o->chunk_index = v->v;
		}
		return 0;
	case B_CLOCK: {
		struct tr_ctf_pclock *c = &o->clocks[o->nclocks - 1];

		if (type)
			break;
		if (!strcmp(key, "name")) {
			if (v->t != T_STRING && v->t != T_IDENT)
				return fail(ps, "a clock's name is a string");
			c->name = v->s;
		} else if (!strcmp(key, "freq")) {
			if (uint_value(ps, v, key, UINT64_MAX, &u) || !u)
				return fail(ps, "a clock's freq is a number above 0");
			c->freq = u;
		} else if (!strcmp(key, "offset_s") || !strcmp(key, "offset")) {
			int64_t *dst = key[6] ? &c->offset_s : &c->offset;

			if (v->t != T_INT || (v->neg ? v->v > (uint64_t)INT64_MAX + 1 :
					      v->v > INT64_MAX))
				return fail(ps, "a clock's %s is a 64-bit number", key);
			*dst = v->neg ? (int64_t)(0 - v->v) : (int64_t)v->v;
		}
		return 0;
	}
	case B_STREAM: {
		struct tr_ctf_pstream *s = &o->streams[o->nstreams - 1];

		if (type && !strcmp(key, "event.header"))
			s->event_header = t;
		else if (type && !strcmp(key, "event.context"))
			s->event_context = t;
		else if (type && !strcmp(key, "packet.context"))
			s->packet_context = t;
		else if (type)
			break;
		else if (!strcmp(key, "id")) {
			if (uint_value(ps, v, key, UINT64_MAX, &s->id))
				return -EPROTO;
			s->has_id = true;
		}
		return 0;
	}
	case B_EVENT: {
		struct tr_ctf_pevent *e = &o->events[o->nevents - 1];

		if (type && !strcmp(key, "context"))
			e->context = t;
		else if (type && !strcmp(key, "fields"))
			e->fields = t;
		else if (type)
			break;
		else if (!strcmp(key, "name")) {
			if (v->t != T_STRING && v->t != T_IDENT)
				return fail(ps, "an event's name is a string");
			e->name = v->s;
		} else if (!strcmp(key, "id")) {
			if (uint_value(ps, v, key, UINT64_MAX, &e->id))
				return -EPROTO;
			e->has_id = true;
		} else if (!strcmp(key, "stream_id")) {
			if (uint_value(ps, v, key, UINT64_MAX, &e->stream_id))
				return -EPROTO;
			e->has_stream_id = true;
		} else if (!strcmp(key, "loglevel") && v->t == T_INT) {
			e->loglevel = v->neg ? -(int64_t)v->v : (int64_t)v->v;
		}
		return 0;
	}
	}
	return 0;	/* an unknown attribute: parse_block() warned */
}

/* The attributes each block knows (an unknown one is a warning, as with babeltrace2). */
static const char *const block_keys[][10] = {
	[B_TRACE] = { "major", "minor", "uuid", "byte_order", "packet.header" },
	[B_ENV] = { NULL },
	[B_CLOCK] = { "name", "uuid", "description", "freq", "precision", "offset_s", "offset",
		      "absolute" },
	[B_STREAM] = { "id", "event.header", "event.context", "packet.context" },
	[B_EVENT] = { "name", "id", "stream_id", "loglevel", "model.emf.uri", "context",
		      "fields" },
};
static const char *const block_names[] = {
	[B_TRACE] = "trace", [B_ENV] = "env", [B_CLOCK] = "clock", [B_STREAM] = "stream",
	[B_EVENT] = "event",
};

struct seen_key {
	const char *key;
	uint32_t line;
};

static int cmp_seen(const void *a, const void *b)
{
	const struct seen_key *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	return c ? c : (x->line > y->line) - (x->line < y->line);
}

/*
 * A block's @n entries @keys, each given once: a second one is refused at its
 * line (babeltrace2's "Duplicate attribute"; `freq` twice would scale every
 * time), in env a warning.
 */
static int once_each(struct parser *ps, enum block b, struct seen_key *keys, uint32_t n)
{
	if (n > 1)
		qsort(keys, n, sizeof(*keys), cmp_seen);
	for (uint32_t i = 1; i < n; i++) {
		if (strcmp(keys[i].key, keys[i - 1].key))
			continue;
		ps->tok.line = keys[i].line;
		if (b != B_ENV)
			return fail(ps, "the %s block gives '%s' twice (first at line %u)",
				    block_names[b], keys[i].key, keys[i - 1].line);
		warn(ps, "the env block gives '%s' twice (first at line %u), the last read",
		     keys[i].key, keys[i - 1].line);
	}
	return 0;
}

static int parse_block(struct parser *ps, enum block b)
{
	struct binding *outer = ps->scope;
	uint32_t line = ps->tok.line, nkeys = 0, ckeys = 0;
	struct seen_key *keys = NULL;

	if (next(ps) || expect(ps, T_LBRACE, "opening the block"))
		return -EPROTO;
	if (ps->depth >= MAX_DEPTH)
		return fail(ps, "blocks nested too deep");
	while (!is(ps, T_RBRACE)) {
		char key[128];
		struct value v = { 0 };
		const struct tr_ctype *t = NULL;
		bool type;

		if (is(ps, T_END) || is(ps, T_ERROR)) {
			ps->tok.line = line;
			return fail(ps, "the block opened here is not closed");
		}
		if (is_word(&ps->tok, "typealias")) {
			if (parse_typealias(ps))
				return -EPROTO;
			continue;
		}
		if (is_word(&ps->tok, "typedef")) {
			if (parse_typedef(ps))
				return -EPROTO;
			continue;
		}
		keys = grow_list(ps, keys, nkeys, &ckeys, sizeof(*keys));
		if (!keys)
			return -ENOMEM;
		keys[nkeys].line = ps->tok.line;
		if (parse_key(ps, key, sizeof(key)))
			return -EPROTO;
		keys[nkeys].key = tr_arena_strndup(ps->arena, key, strlen(key));
		if (!keys[nkeys++].key)
			return nomem(ps);
		if (b != B_ENV) {
			uint32_t k = 0;

			while (k < 10 && block_keys[b][k] && strcmp(block_keys[b][k], key))
				k++;
			if (k == 10 || !block_keys[b][k])
				warn(ps, "the %s block's unknown attribute '%s', ignored",
				     block_names[b], key);
		}
		type = is(ps, T_ASSIGN);
		if (!type && !is(ps, T_EQ))
			return expect(ps, T_EQ, "after an entry's name");
		if (next(ps))
			return -EPROTO;
		if (type ? parse_type(ps, &t) : parse_value(ps, &v))
			return -EPROTO;
		if (block_entry(ps, b, key, type, &v, t) || expect(ps, T_SEMI, "after an entry"))
			return -EPROTO;
		if (b == B_TRACE && type && !strcmp(key, "packet.header"))
			ps->out->packet_header_line = keys[nkeys - 1].line;
	}
	if (once_each(ps, b, keys, nkeys))
		return -EPROTO;
	ps->scope = outer;
	if (next(ps))
		return -EPROTO;
	return expect(ps, T_SEMI, "after a block");
}

/* "callsite { ... };": a balanced block, skipped. */
static int skip_block(struct parser *ps)
{
	int level = 0;

	if (next(ps) || !is(ps, T_LBRACE))
		return expect(ps, T_LBRACE, "opening the block");
	do {
		if (is(ps, T_LBRACE))
			level++;
		else if (is(ps, T_RBRACE))
			level--;
		else if (is(ps, T_END) || is(ps, T_ERROR))
			return fail(ps, "a block is not closed");
		if (next(ps))
			return -EPROTO;
	} while (level);
	return expect(ps, T_SEMI, "after a block");
}

int tr_ctf_parse_text(struct tr_ctf_parsed *o, const char *text, size_t len, const char *fname,
		      struct tr_arena **arena, char *err, size_t errlen)
{
	struct parser ps = {
		.fname = fname, .err = err, .errlen = errlen, .p = text, .end = text + len,
		.line = 1, .arena = arena, .out = o,
	};
	uint32_t cclocks = 0, cstreams = 0, cevents = 0;

	memset(o, 0, sizeof(*o));
	o->order = TR_ORDER_NATIVE;
	if (next(&ps))
		goto fail;
	while (!is(&ps, T_END)) {
		const struct token *t = &ps.tok;
		int r;

		if (is_word(t, "typealias")) {
			r = parse_typealias(&ps);
		} else if (is_word(t, "typedef")) {
			r = parse_typedef(&ps);
		} else if (is_word(t, "trace")) {
			if (o->have_trace)
				r = fail(&ps, "a second trace block");
			else {
				o->trace_line = t->line;
				r = parse_block(&ps, B_TRACE);
			}
			o->have_trace = true;
		} else if (is_word(t, "env")) {
			r = parse_block(&ps, B_ENV);
		} else if (is_word(t, "clock")) {
			o->clocks = grow_list(&ps, o->clocks, o->nclocks, &cclocks, sizeof(*o->clocks));
			r = o->clocks ? 0 : -ENOMEM;
			if (!r && o->nclocks >= 64)
				r = fail(&ps, "more than 64 clocks");
			if (!r) {
				memset(&o->clocks[o->nclocks], 0, sizeof(o->clocks[0]));
				o->clocks[o->nclocks].line = t->line;
				o->nclocks++;
				r = parse_block(&ps, B_CLOCK);
			}
		} else if (is_word(t, "stream")) {
			o->streams = grow_list(&ps, o->streams, o->nstreams, &cstreams,
					       sizeof(*o->streams));
			r = o->streams ? 0 : -ENOMEM;
			if (!r) {
				memset(&o->streams[o->nstreams], 0, sizeof(o->streams[0]));
				o->streams[o->nstreams].line = t->line;
				o->nstreams++;
				r = parse_block(&ps, B_STREAM);
			}
		} else if (is_word(t, "event")) {
			o->events = grow_list(&ps, o->events, o->nevents, &cevents,
					      sizeof(*o->events));
			r = o->events ? 0 : -ENOMEM;
			if (!r) {
				memset(&o->events[o->nevents], 0, sizeof(o->events[0]));
				o->events[o->nevents].line = t->line;
				o->nevents++;
				r = parse_block(&ps, B_EVENT);
			}
		} else if (is_word(t, "callsite")) {
			r = skip_block(&ps);
		} else {
			const struct tr_ctype *type;

			/* "struct name { ... };" and the like: a named type's declaration */
			r = parse_type(&ps, &type);
			if (!r)
				r = expect(&ps, T_SEMI, "after a declaration");
		}
		if (r)
			goto fail;
	}
	return 0;
fail:
	if (!ps.failed)
		nomem(&ps);
	return ps.nomem ? -ENOMEM : -EPROTO;
}
