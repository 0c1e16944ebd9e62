// SPDX-License-Identifier: MIT
/*
 * tools/trigger.c - record --trigger (trigger.h): the expressions, and the
 * watch that reads an overwrite-mode ring beside its writers and tests
 * every record against them.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ringtrace/consumer.h>
#include <ringtrace/region.h>
#include <ringtrace/ringtrace.h>
#include "format/classes.h"
#include "platform/platform.h"
#include "reader/cursor.h"
#include "reader/trace.h"
#include "reader/tsdl.h"
#include "tools/cli.h"
#include "tools/trigger.h"

/* ---- the expressions ------------------------------------------------------------------ */

static const char *const kind_word[] = {
	[TRIG_SLOW] = "slow", [TRIG_UNRESOLVED] = "unresolved",
	[TRIG_COUNTER] = "counter", [TRIG_EVENT] = "event",
};

static const char *const op_text[] = {
	[TRIG_GT] = ">", [TRIG_GE] = ">=", [TRIG_LT] = "<", [TRIG_LE] = "<=",
	[TRIG_EQ] = "==", [TRIG_NE] = "!=",
};

__attribute__((format(printf, 4, 5)))
static int bad(char *err, size_t errlen, const char *spec, const char *fmt, ...)
{
	char what[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(err, errlen, "--trigger '%s': %s (forms: slow(PATTERN) > TIME, "
		 "unresolved(PATTERN) > TIME, counter(NAME) > VALUE, event(NAME)[.FIELD OP VALUE]; "
		 "NAME=... names it)", spec, what);
	return -EINVAL;
}

static const char *skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* The operator at @s (two-character ones first), its length in *@n; -1 if none. */
static int parse_op(const char *s, size_t *n)
{
	static const enum trig_op order[] = { TRIG_GE, TRIG_LE, TRIG_EQ, TRIG_NE, TRIG_GT, TRIG_LT };

	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		size_t len = strlen(op_text[order[i]]);

		if (!strncmp(s, op_text[order[i]], len)) {
			*n = len;
			return (int)order[i];
		}
	}
	return -1;
}

/* A value: a number, or a "string" (then @t->is_str).  Return: 0, or -1. */
static int parse_value(const char *s, struct trig *t)
{
	char *end;
	size_t n;

	s = skip_ws(s);
	if (*s == '"') {
		n = strlen(s);
		while (n > 1 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
			n--;
		if (n < 2 || s[n - 1] != '"' || n - 2 >= sizeof(t->str))
			return -1;
		memcpy(t->str, s + 1, n - 2);
		t->str[n - 2] = 0;
		t->is_str = true;
		return 0;
	}
	errno = 0;
	t->num = strtold(s, &end);
	if (end == s || errno || !isfinite((double)t->num) || *skip_ws(end))
		return -1;
	return 0;
}

int trig_parse(const char *spec, unsigned index, struct trig *t, char *err, size_t errlen)
{
	const char *s = skip_ws(spec), *open, *close, *rest;
	size_t n, len;
	int op;

	memset(t, 0, sizeof(*t));
	snprintf(t->text, sizeof(t->text), "%s", spec);
	snprintf(t->name, sizeof(t->name), "trigger%u", index + 1);
	/* NAME= */
	n = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-");
	if (n && s[n] == '=' && s[n + 1] != '=') {
		if (n >= sizeof(t->name))
			return bad(err, errlen, spec, "a name of at most %zu characters",
				   sizeof(t->name) - 1);
		memcpy(t->name, s, n);
		t->name[n] = 0;
		s = skip_ws(s + n + 1);
		snprintf(t->text, sizeof(t->text), "%s", s);
	}
	open = strchr(s, '(');
	if (!open)
		return bad(err, errlen, spec, "no '('");
	len = (size_t)(open - s);
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	for (t->kind = 0; t->kind <= TRIG_EVENT; t->kind++)
		if (strlen(kind_word[t->kind]) == len && !strncmp(s, kind_word[t->kind], len))
			break;
	if (t->kind > TRIG_EVENT)
		return bad(err, errlen, spec, "'%.*s' is none of slow, unresolved, counter, event",
			   (int)len, s);
	/* An event's name has no ')'; the others' values have none either: the last one. */
	close = t->kind == TRIG_EVENT ? strchr(open, ')') : strrchr(open, ')');
	if (!close)
		return bad(err, errlen, spec, "no ')'");
	len = (size_t)(close - open - 1);
	if (!len || len >= sizeof(t->pattern))
		return bad(err, errlen, spec, "the name or pattern in () is empty or longer than "
			   "%zu characters", sizeof(t->pattern) - 1);
	memcpy(t->pattern, open + 1, len);
	t->pattern[len] = 0;
	if ((t->kind == TRIG_SLOW || t->kind == TRIG_UNRESOLVED) &&
	    !strncmp(t->pattern, "kind=", 5)) {
		t->by_kind = true;
		memmove(t->pattern, t->pattern + 5, strlen(t->pattern + 5) + 1);
		if (!t->pattern[0])
			return bad(err, errlen, spec, "kind= names no kind");
	}
	rest = skip_ws(close + 1);
	if (t->kind == TRIG_EVENT) {
		if (!*rest)
			return 0;	/* every record of the class */
		if (*rest != '.')
			return bad(err, errlen, spec, "after event(NAME), .FIELD OP VALUE or nothing");
		rest++;
		n = strspn(rest, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
		if (!n || n >= sizeof(t->field))
			return bad(err, errlen, spec, "no field name after '.'");
		memcpy(t->field, rest, n);
		t->field[n] = 0;
		rest = skip_ws(rest + n);
	}
	op = parse_op(rest, &n);
	if (op < 0)
		return bad(err, errlen, spec, "no comparison (> >= < <= == !=) after ')'%s",
			   t->kind == TRIG_EVENT ? " and the field" : "");
	t->op = (enum trig_op)op;
	rest = skip_ws(rest + n);
	switch (t->kind) {
	case TRIG_SLOW:
	case TRIG_UNRESOLVED: {
		char v[64];

		n = strlen(rest);
		while (n && (rest[n - 1] == ' ' || rest[n - 1] == '\t'))
			n--;
		if (t->op != TRIG_GT && t->op != TRIG_GE)
			return bad(err, errlen, spec, "%s(...) compares with > TIME",
				   kind_word[t->kind]);
		if (!n || n >= sizeof(v))
			return bad(err, errlen, spec, "no time after '%s'", op_text[t->op]);
		memcpy(v, rest, n);
		v[n] = 0;
		if (cli_parse_time(v, &t->ns) || !t->ns)
			return bad(err, errlen, spec, "'%s' is not a time like 20ms or 2s", v);
		return 0;
	}
	case TRIG_COUNTER:
		if (t->op == TRIG_EQ || t->op == TRIG_NE)
			return bad(err, errlen, spec, "a counter crosses a value: > >= < <=");
		if (parse_value(rest, t) || t->is_str)
			return bad(err, errlen, spec, "'%s' is not a number", rest);
		return 0;
	case TRIG_EVENT:
		if (parse_value(rest, t))
			return bad(err, errlen, spec, "'%s' is neither a number nor a \"string\"",
				   rest);
		if (t->is_str && t->op != TRIG_EQ && t->op != TRIG_NE)
			return bad(err, errlen, spec, "a string compares with == or != (a pattern)");
		return 0;
	}
	return 0;
}

/* ---- the watch ---------------------------------------------------------------------- */

/* What a record of a class means to the watch. */
enum role {
	R_NONE, R_CREATE, R_CREATE64, R_LABEL, R_RESOLVE, R_RESOLVE64, R_FAIL, R_SHOULD,
	R_SHOULD64, R_BECOMES, R_BECOMES64, R_COUNTER, R_TYPED,
};

/*
 * One task alive.  @slow and @unres: the slow and unresolved triggers whose
 * pattern it matches (bit i: trigger i), decided by its kind when created,
 * by its label once labelled.
 */
struct task {
	uint64_t id;		/* 0: a free slot */
	uint64_t created;	/* clock cycles */
	char *label;		/* kept only when a trigger concerns it, for the message */
	uint32_t kind;
	uint8_t slow, unres;
	bool labelled, should, told;
};

#define TASKS_MAX (1u << 20)	/* 1 M tasks alive (a table of 80 MiB): past it, not watched */

struct trig_watch {
	struct rtr_consumer *c;
	struct trig *t;
	unsigned n;
	struct tr_trace tr;		/* the metadata, and one stream: the packet at hand */
	struct tr_stream one;
	bool have_md;
	uint32_t md_len;
	enum role *roles;		/* by class index */
	uint8_t *typed;			/* by class index: the event triggers it may meet */
	int32_t *field;			/* by class index x trigger: the field tested, -1 none */
	const struct tr_field *kind_field;	/* the create events' kind enum */
	int64_t counter_id[TRIG_MAX];	/* counter triggers: the counter's id, -1 unknown */
	int8_t counter_side[TRIG_MAX];	/* was the condition true (1), false (0), unknown (-1) */
	uint32_t ncpus;
	uint64_t *open_seq, *open_done;	/* per CPU: the open packet read last, and how far */
	struct task *tasks;		/* open addressing, linear probing, @cap a power of two */
	uint32_t cap, count;
	uint64_t *should;		/* should_resolve tasks' ids, tested each turn */
	uint32_t nshould, should_cap;
	uint64_t freq, max_ts;
	bool tasks_watched;		/* a slow or unresolved trigger: the tasks are kept */
	int pending;			/* a trigger met inside a packet: returned at its end */
	char pending_why[300];
	struct trig_watch_report rep;
};

static uint64_t hash64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

static struct task *task_find(struct trig_watch *w, uint64_t id)
{
	for (uint32_t i = (uint32_t)hash64(id) & (w->cap - 1);; i = (i + 1) & (w->cap - 1)) {
		if (w->tasks[i].id == id)
			return &w->tasks[i];
		if (!w->tasks[i].id)
			return NULL;
	}
}

static int task_grow(struct trig_watch *w)
{
	uint32_t ocap = w->cap, ncap = ocap ? ocap * 2 : 4096;
	struct task *old = w->tasks, *nt = calloc(ncap, sizeof(*nt));

	if (!nt)
		return -ENOMEM;
	w->tasks = nt;
	w->cap = ncap;
	for (uint32_t i = 0; i < ocap; i++) {
		uint32_t j;

		if (!old[i].id)
			continue;
		for (j = (uint32_t)hash64(old[i].id) & (ncap - 1); nt[j].id; j = (j + 1) & (ncap - 1))
			;
		nt[j] = old[i];
	}
	free(old);
	return 0;
}

static struct task *task_add(struct trig_watch *w, uint64_t id)
{
	struct task *k = task_find(w, id);
	uint32_t i;

	if (k)
		return k;
	if (w->count >= TASKS_MAX) {
		w->rep.untracked++;
		return NULL;
	}
	if ((w->count + 1) * 4 > w->cap * 3 && task_grow(w)) {
		w->rep.untracked++;
		return NULL;
	}
	for (i = (uint32_t)hash64(id) & (w->cap - 1); w->tasks[i].id; i = (i + 1) & (w->cap - 1))
		;
	w->count++;
	w->tasks[i] = (struct task){ .id = id };
	return &w->tasks[i];
}

/* Remove @k, moving back the entries after it that would no longer be found (no tombstones). */
static void task_del(struct trig_watch *w, struct task *k)
{
	uint32_t m = w->cap - 1, i = (uint32_t)(k - w->tasks), j = i;

	free(k->label);
	k->label = NULL;
	w->count--;
	for (;;) {
		uint32_t home;

		w->tasks[i].id = 0;
		w->tasks[i].label = NULL;	/* freed, or moved back to where it belongs */
		for (;;) {
			j = (j + 1) & m;
			if (!w->tasks[j].id)
				return;
			home = (uint32_t)hash64(w->tasks[j].id) & m;
			/* @j stays if its home lies cyclically in (i, j] */
			if (i <= j ? (i < home && home <= j) : (i < home || home <= j))
				continue;
			break;
		}
		w->tasks[i] = w->tasks[j];
		i = j;
	}
}

static double ns_of(const struct trig_watch *w, uint64_t cycles)
{
	return (double)cycles * 1e9 / (double)w->freq;
}

/*
 * Which triggers of kind @which (slow or unresolved) match a task of @kind
 * labelled @label (NULL: none yet): bit i for trigger i.
 */
static uint8_t match_tasks(const struct trig_watch *w, enum trig_kind which, uint32_t kind,
			   const char *label)
{
	const struct tr_label *kl = w->kind_field ? tr_field_label(w->kind_field, kind) : NULL;
	uint8_t m = 0;

	for (unsigned i = 0; i < w->n; i++) {
		const struct trig *t = &w->t[i];

		if (t->kind != which)
			continue;
		if (t->by_kind ? kl && !fnmatch(t->pattern, kl->label, 0)
			       : !fnmatch(t->pattern, label ? label : "", 0))
			m |= (uint8_t)(1u << i);
	}
	return m;
}

/* Met: @i, said in words; the first one of a packet is kept for the end of the packet. */
__attribute__((format(printf, 3, 4)))
static void met(struct trig_watch *w, unsigned i, const char *fmt, ...)
{
	va_list ap;

	w->t[i].met++;
	if (w->pending >= 0) {
		w->t[i].over++;		/* another one is being returned: counted, not taken */
		return;
	}
	w->pending = (int)i;
	va_start(ap, fmt);
	vsnprintf(w->pending_why, sizeof(w->pending_why), fmt, ap);
	va_end(ap);
}

/* A task ended at @ts (resolved, failed, or merged into another): the slow triggers. */
static void task_end(struct trig_watch *w, uint64_t id, uint64_t ts, const char *how)
{
	struct task *k = task_find(w, id);

	if (!k)
		return;
	if (k->slow && ts > k->created) {
		double ns = ns_of(w, ts - k->created);

		for (unsigned i = 0; i < w->n; i++)
			if (k->slow >> i & 1 && ns > (double)w->t[i].ns)
				met(w, i, "task %" PRIu64 " \"%.60s\" %s after %.3f ms", id,
				    k->label ? k->label : "", how, ns / 1e6);
	}
	task_del(w, k);
}

static bool cmp(enum trig_op op, long double a, long double b)
{
	switch (op) {
	case TRIG_GT:
		return a > b;
	case TRIG_GE:
		return a >= b;
	case TRIG_LT:
		return a < b;
	case TRIG_LE:
		return a <= b;
	case TRIG_EQ:
		return a == b;
	case TRIG_NE:
		return a != b;
	}
	return false;
}

/*
 * Field @f of a typed record's payload (checked whole by the cursor): its
 * number in *@num, or its text in *@str (the string in the record, NUL-
 * terminated; bytes fields are neither).  Return: 0 number, 1 string, -1
 * neither.
 */
static int field_value(const struct tr_cursor *cur, int32_t f, long double *num, const char **str)
{
	const uint8_t *p = cur->payload, *end = p + cur->len;
	struct tr_fval v;

	for (int32_t i = 0; i <= f; i++)
		if (tr_fval_next(cur->cls->fields[i].type, &p, end, &v) != TR_FVAL_OK)
			return -1;
	switch (v.type) {
	case RTR_CTF_U8:
	case RTR_CTF_U16:
	case RTR_CTF_U32:
	case RTR_CTF_U64:
	case RTR_CTF_ENUM_U8:
	case RTR_CTF_ENUM_U32:
		*num = v.u;
		return 0;
	case RTR_CTF_S8:
	case RTR_CTF_S16:
	case RTR_CTF_S32:
	case RTR_CTF_S64:
		*num = v.s;
		return 0;
	case RTR_CTF_DOUBLE:
		*num = v.d;
		return 0;
	case RTR_CTF_STRING:
		*str = (const char *)v.p;
		return 1;
	}
	return -1;
}

static void typed(struct trig_watch *w, const struct tr_cursor *cur, uint32_t ci)
{
	const struct tr_class *cls = cur->cls;

	for (unsigned i = 0; i < w->n; i++) {
		const struct trig *t = &w->t[i];
		int32_t f = w->field[ci * TRIG_MAX + i];
		long double v = 0;
		const char *s = NULL;
		int r;

		if (!(w->typed[ci] >> i & 1))
			continue;
		if (!t->field[0]) {
			met(w, i, "event %s", cls->name);
			continue;
		}
		if (f < 0)
			continue;
		r = field_value(cur, f, &v, &s);
		if (r == 1 && t->is_str && (!fnmatch(t->str, s, 0)) == (t->op == TRIG_EQ))
			met(w, i, "event %s with %s \"%.60s\"", cls->name, t->field, s);
		else if (r == 0 && !t->is_str && cmp(t->op, v, t->num))
			met(w, i, "event %s with %s %.17Lg", cls->name, t->field, v);
	}
}

static void counter(struct trig_watch *w, uint32_t id, int64_t value)
{
	for (unsigned i = 0; i < w->n; i++) {
		const struct trig *t = &w->t[i];
		bool now;

		if (t->kind != TRIG_COUNTER || w->counter_id[i] != (int64_t)id)
			continue;
		now = cmp(t->op, (long double)value, t->num);
		if (now && w->counter_side[i] != 1)
			met(w, i, "counter %s at %" PRId64, t->pattern, value);
		w->counter_side[i] = now;
	}
}

static void should_add(struct trig_watch *w, uint64_t id)
{
	if (w->nshould == w->should_cap) {
		uint32_t ncap = w->should_cap ? w->should_cap * 2 : 256;
		uint64_t *n = realloc(w->should, ncap * sizeof(*n));

		if (!n) {
			w->rep.untracked++;
			return;
		}
		w->should = n;
		w->should_cap = ncap;
	}
	w->should[w->nshould++] = id;
}

static void record(struct trig_watch *w, const struct tr_cursor *cur)
{
	uint32_t ci = (uint32_t)(cur->cls - w->tr.md.classes);
	const uint8_t *p = cur->payload;
	struct task *k;

	w->rep.events++;
	if (cur->ts > w->max_ts)
		w->max_ts = cur->ts;
	switch (w->roles[ci]) {
	case R_NONE:
		break;
	case R_CREATE:
	case R_CREATE64: {
		bool wide = w->roles[ci] == R_CREATE64;
		uint64_t id = wide ? ld64(p + 8) : ld32(p + 4);
		uint32_t kind = wide ? p[16] : p[8];

		if (!id || !w->tasks_watched)
			break;
		k = task_add(w, id);
		if (!k)
			break;
		k->created = cur->ts;
		k->kind = kind;
		k->slow = match_tasks(w, TRIG_SLOW, kind, NULL);
		k->unres = match_tasks(w, TRIG_UNRESOLVED, kind, NULL);
		break;
	}
	case R_LABEL:
		k = task_find(w, ld64(p));
		if (k && !k->labelled) {
			k->labelled = true;
			k->slow = match_tasks(w, TRIG_SLOW, k->kind, (const char *)p + 8);
			k->unres = match_tasks(w, TRIG_UNRESOLVED, k->kind, (const char *)p + 8);
			if (k->slow | k->unres)
				k->label = strdup((const char *)p + 8);
		}
		break;
	case R_RESOLVE:
		task_end(w, ld32(p + 4), cur->ts, "resolved");
		break;
	case R_RESOLVE64:
		task_end(w, ld64(p + 8), cur->ts, "resolved");
		break;
	case R_FAIL:
		task_end(w, ld64(p + 8), cur->ts, "failed");
		break;
	case R_BECOMES:
	case R_BECOMES64: {
		/* the input goes on as the main task: no longer a line of its own */
		struct task *in = task_find(w, w->roles[ci] == R_BECOMES ? ld32(p) : ld64(p));

		if (in)
			task_del(w, in);
		break;
	}
	case R_SHOULD:
	case R_SHOULD64:
		k = task_find(w, w->roles[ci] == R_SHOULD ? ld32(p) : ld64(p));
		if (k && !k->should) {
			k->should = true;
			should_add(w, k->id);
		}
		break;
	case R_COUNTER:
		counter(w, ld32(p), (int64_t)ld64(p + 4));
		break;
	case R_TYPED:
		typed(w, cur, ci);
		break;
	}
}

/* The should_resolve tasks still unresolved @t->ns after their creation, at @now. */
static void unresolved(struct trig_watch *w, uint64_t now)
{
	uint32_t keep = 0;

	for (uint32_t j = 0; j < w->nshould; j++) {
		struct task *k = task_find(w, w->should[j]);

		if (!k || !k->should)
			continue;	/* resolved, failed or merged since: forgotten */
		w->should[keep++] = w->should[j];
		if (k->told || now <= k->created)
			continue;
		for (unsigned i = 0; i < w->n; i++) {
			double ns = ns_of(w, now - k->created);

			if (k->unres >> i & 1 && ns > (double)w->t[i].ns) {
				met(w, i, "task %" PRIu64 " \"%.60s\" unresolved after %.3f ms",
				    k->id, k->label ? k->label : "", ns / 1e6);
				k->told = true;
			}
		}
	}
	w->nshould = keep;
}

static void md_clear(struct trig_watch *w)
{
	if (w->have_md)
		tr_metadata_free(&w->tr.md);
	w->have_md = false;
	free(w->roles);
	free(w->typed);
	free(w->field);
	w->roles = NULL;
	w->typed = NULL;
	w->field = NULL;
	w->kind_field = NULL;
}

/* The class's role (the built-in classes known by name and layout, never by id). */
static enum role role_of(const struct tr_class *c)
{
	static const struct {
		uint32_t ev;
		enum role r;
	} known[] = {
		{ RTR_EV_CREATE, R_CREATE }, { RTR_EV_CREATE64, R_CREATE64 },
		{ RTR_EV_LABEL, R_LABEL }, { RTR_EV_RESOLVE, R_RESOLVE },
		{ RTR_EV_RESOLVE64, R_RESOLVE64 }, { RTR_EV_FAIL, R_FAIL },
		{ RTR_EV_SHOULD_RESOLVE, R_SHOULD }, { RTR_EV_SHOULD_RESOLVE64, R_SHOULD64 },
		{ RTR_EV_BECOMES, R_BECOMES }, { RTR_EV_BECOMES64, R_BECOMES64 },
		{ RTR_EV_COUNTER, R_COUNTER },
	};

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (tr_class_is(c, rtr_event_builtin(known[i].ev)))
			return known[i].r;
	return R_NONE;
}

/* The metadata, again when the registry grew (a typed event or counter named since). */
static int md_refresh(struct trig_watch *w, char *err, size_t errlen)
{
	uint32_t len = rtr_consumer_metadata_len(w->c);
	char *text = NULL, merr[300] = "";
	size_t tlen;
	int ret;

	if (w->have_md && len == w->md_len)
		return 0;
	ret = rtr_consumer_metadata(w->c, &text, &tlen, &w->md_len, merr, sizeof(merr));
	if (ret) {
		snprintf(err, errlen, "the region's metadata: %s", merr[0] ? merr : strerror(-ret));
		return ret;
	}
	md_clear(w);
	ret = tr_parse_metadata(&w->tr.md, text, tlen, "the region's metadata", err, errlen);
	free(text);
	if (ret)
		return ret;
	w->have_md = true;
	w->roles = calloc(w->tr.md.nclasses + 1, sizeof(*w->roles));
	w->typed = calloc(w->tr.md.nclasses + 1, 1);
	w->field = malloc((w->tr.md.nclasses + 1) * TRIG_MAX * sizeof(*w->field));
	if (!w->roles || !w->typed || !w->field) {
		md_clear(w);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	w->freq = w->tr.md.freq;
	for (unsigned i = 0; i < w->n; i++)
		w->counter_id[i] = -1;
	for (uint32_t ci = 0; ci < w->tr.md.nclasses; ci++) {
		const struct tr_class *c = &w->tr.md.classes[ci];

		w->roles[ci] = role_of(c);
		if (w->roles[ci] == R_CREATE && c->nfields == 3)
			w->kind_field = &c->fields[2];
		for (unsigned i = 0; i < w->n; i++) {
			const struct trig *t = &w->t[i];

			w->field[ci * TRIG_MAX + i] = -1;
			if (t->kind == TRIG_COUNTER && w->roles[ci] == R_COUNTER)
				for (uint32_t l = 0; l < c->fields[0].nlabels; l++)
					if (!strcmp(c->fields[0].labels[l].label, t->pattern))
						w->counter_id[i] = c->fields[0].labels[l].value;
			if (t->kind != TRIG_EVENT || fnmatch(t->pattern, c->name, 0))
				continue;
			w->typed[ci] |= (uint8_t)(1u << i);
			if (w->roles[ci] == R_NONE)
				w->roles[ci] = R_TYPED;
			for (uint32_t f = 0; f < c->nfields; f++)
				if (!strcmp(c->fields[f].name, t->field))
					w->field[ci * TRIG_MAX + i] = (int32_t)f;
		}
	}
	return 0;
}

int trig_watch_open(struct trig_watch **out, const char *path, struct trig *t, unsigned n,
		    char *err, size_t errlen)
{
	struct trig_watch *w = calloc(1, sizeof(*w));
	int ret;

	*out = NULL;
	if (!w || n > TRIG_MAX) {
		free(w);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	w->t = t;
	w->n = n;
	w->pending = -1;
	for (unsigned i = 0; i < n; i++) {
		w->counter_side[i] = -1;
		w->tasks_watched |= t[i].kind == TRIG_SLOW || t[i].kind == TRIG_UNRESOLVED;
	}
	ret = rtr_consumer_open(&w->c, path, err, errlen);
	if (ret) {
		free(w);
		return ret;
	}
	rtr_consumer_read_only(w->c);	/* never moves the region's position: a second reader */
	w->ncpus = rtr_consumer_region(w->c)->ncpus;
	w->open_seq = calloc(w->ncpus, sizeof(*w->open_seq));
	w->open_done = calloc(w->ncpus, sizeof(*w->open_done));
	w->one = (struct tr_stream){ .name = "ring", .path = "the ring" };
	w->tr.streams = &w->one;
	w->tr.nstreams = 1;
	if (!w->open_seq || !w->open_done || task_grow(w)) {
		trig_watch_close(w);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < w->ncpus; i++)
		w->open_seq[i] = UINT64_MAX;
	ret = md_refresh(w, err, errlen);
	if (ret) {
		trig_watch_close(w);
		return ret;
	}
	*out = w;
	return 0;
}

/*
 * The records of packet @pkt from byte @from on (the open packet read
 * before as far as @from).  A record the metadata does not know yet sends
 * us to read it again once, then the packet is counted as damaged.
 */
static void packet(struct trig_watch *w, const struct rtr_consumer_packet *pkt, uint64_t from)
{
	for (int again = 0; again < 2 && w->have_md; again++) {
		struct tr_cursor cur;
		char err[300];
		int it;

		w->one.data = pkt->data;
		w->one.size = pkt->size;
		w->one.mapped = pkt->size;
		tr_cursor_init(&cur, &w->tr, 0);
		while ((it = tr_next(&cur)) > 0) {
			if (it != TR_EVENT || cur.off < from || cur.cls == w->tr.md.thread)
				continue;
			record(w, &cur);
			from = cur.off + 1;
		}
		if (it == TR_END)
			return;
		if (again || md_refresh(w, err, sizeof(err)))
			break;
	}
	w->rep.damaged++;
}

int trig_watch_poll(struct trig_watch *w, char *why, size_t whylen)
{
	struct rtr_consumer_packet pkt;
	uint64_t now, clk;
	char err[300];
	int i;

	if (w->pending < 0) {
		md_refresh(w, err, sizeof(err));	/* failing, the last one read on */
		for (uint32_t cpu = 0; cpu < w->ncpus && w->pending < 0; cpu++) {
			while (w->pending < 0 && rtr_consumer_get(w->c, cpu, &pkt) == 0) {
				packet(w, &pkt, pkt.seq == w->open_seq[cpu] ? w->open_done[cpu] : 0);
				w->open_seq[cpu] = UINT64_MAX;
				rtr_consumer_put(w->c, cpu);
			}
			if (w->pending >= 0)
				break;
			if (rtr_consumer_salvage(w->c, cpu, &pkt) == 0) {
				packet(w, &pkt, pkt.seq == w->open_seq[cpu] ? w->open_done[cpu] : 0);
				w->open_seq[cpu] = pkt.seq;
				w->open_done[cpu] = pkt.size;
				rtr_consumer_unget(w->c, cpu);
			}
		}
		/*
		 * Now, for the unresolved: the clock the writers read, when it
		 * agrees with the records (a quiet program writes none).
		 */
		now = w->max_ts;
		clk = rtr_clock_read();
		if (clk > now && clk - now < w->freq * 86400)
			now = clk;
		if (w->pending < 0 && w->nshould)
			unresolved(w, now);
	}
	if (w->pending < 0)
		return -1;
	i = w->pending;
	w->pending = -1;
	snprintf(why, whylen, "%s", w->pending_why);
	return i;
}

void trig_watch_report(const struct trig_watch *w, struct trig_watch_report *r)
{
	*r = w->rep;
	/* the consumer's counts: overwritten before or while copied; copies that did not check */
	for (uint32_t cpu = 0; cpu < w->ncpus; cpu++) {
		struct rtr_consumer_stats st;

		rtr_consumer_get_stats(w->c, cpu, &st);
		r->missed += st.lapped;
		r->damaged += st.damaged;
	}
}

void trig_watch_close(struct trig_watch *w)
{
	if (!w)
		return;
	md_clear(w);
	rtr_consumer_close(w->c);
	free(w->open_seq);
	free(w->open_done);
	for (uint32_t i = 0; i < w->cap; i++)
		if (w->tasks[i].id)
			free(w->tasks[i].label);
	free(w->tasks);
	free(w->should);
	free(w);
}
