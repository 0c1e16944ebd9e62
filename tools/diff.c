// SPDX-License-Identifier: MIT
/*
 * tools/diff.c - `ringtrace diff A B`: two runs compared.  Per task kind and
 * per label group (a --group pattern, else the label with its numbers made
 * '*'): counts, p50/p90/p99 of the durations with 95 % confidence
 * intervals, what got slower or faster and by how much; for the group that
 * changed most, the critical-path segments (reader/critpath.h) that
 * changed, and a lost wake-up named where B has one.  Text or --json.
 * Documentation/analysis.rst gives the statistics.
 */
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "reader/critpath.h"
#include "reader/model.h"
#include "tools/analysis.h"
#include "tools/cli.h"
#include "tools/commands.h"
#include "tools/json.h"

#define GROUP_MAX	200	/* bytes of a group's name */
#define PATHS_MAX	200	/* critical paths computed per group and side */
#define SEG_DEPTH	2	/* path levels compared (0: the task's own list) */
#define SEGKEYS_MAX	4096
#define TOP_SEGS	8
#define MIN_TASKS	10	/* fewer durations on a side: no verdict, too few to tell */

struct group {
	char *name;
	bool is_kind;
	const char *kind;	/* a label group: its first task's kind */
	uint64_t tasks, unresolved, never;
	int64_t *durs;		/* resolved tasks, sorted once collected */
	uint64_t ndurs, cap;
	uint32_t *members;	/* task indices (all, resolved or not) */
	uint64_t nmembers, mcap;
};

struct gtab {
	struct group *g;
	uint32_t n, cap;	/* open addressing, cap a power of two */
};

struct side {
	const char *dir;
	struct rtr_model m;
	struct rtr_cp_index ix;
	struct gtab t;
	bool loaded;
};

struct opts {
	bool json;
	char **groups;
	int ngroups;
	unsigned top;
};

/* ---- groups ------------------------------------------------------------------------ */

/* @s with each run of digits (and of 0x and hex digits) made one star: "GET /item/17" -> "GET /item/" and a star. */
static void normalize(const char *s, char *out, size_t n)
{
	size_t k = 0;

	while (*s && k + 2 < n) {
		if (s[0] == '0' && s[1] == 'x' && strchr("0123456789abcdefABCDEF", s[2]) && s[2]) {
			out[k++] = '0';
			out[k++] = 'x';
			if (k + 2 >= n)
				break;
			out[k++] = '*';
			for (s += 2; *s && strchr("0123456789abcdefABCDEF", *s); s++)
				;
		} else if (*s >= '0' && *s <= '9') {
			out[k++] = '*';
			while (*s >= '0' && *s <= '9')
				s++;
		} else {
			out[k++] = *s++;
		}
	}
	out[k] = 0;
}

static uint64_t hash(const char *s, bool kind)
{
	uint64_t h = kind ? 0x84222325cbf29ce4ull : 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

static struct group *gfind(struct gtab *t, const char *name, bool kind)
{
	if (!t->cap)
		return NULL;
	for (uint32_t i = (uint32_t)hash(name, kind) & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
		struct group *g = &t->g[i];

		if (!g->name)
			return NULL;
		if (g->is_kind == kind && !strcmp(g->name, name))
			return g;
	}
}

static int gput(struct gtab *t, const char *name, bool kind, struct group **out)
{
	struct group *g;

	if ((*out = gfind(t, name, kind)))
		return 0;
	if (2 * (t->n + 1) > t->cap) {
		struct gtab n = { .cap = t->cap ? t->cap * 2 : 64 };

		n.g = calloc(n.cap, sizeof(*n.g));
		if (!n.g)
			return -ENOMEM;
		for (uint32_t i = 0; i < t->cap; i++) {
			struct group *o = &t->g[i];
			uint32_t j;

			if (!o->name)
				continue;
			for (j = (uint32_t)hash(o->name, o->is_kind) & (n.cap - 1); n.g[j].name;
			     j = (j + 1) & (n.cap - 1))
				;
			n.g[j] = *o;
		}
		n.n = t->n;
		free(t->g);
		*t = n;
	}
	uint32_t i = (uint32_t)hash(name, kind) & (t->cap - 1);

	while (t->g[i].name)
		i = (i + 1) & (t->cap - 1);
	g = &t->g[i];
	g->name = strdup(name);
	if (!g->name)
		return -ENOMEM;
	g->is_kind = kind;
	t->n++;
	*out = g;
	return 0;
}

static void gtab_free(struct gtab *t)
{
	for (uint32_t i = 0; i < t->cap; i++) {
		free(t->g[i].name);
		free(t->g[i].durs);
		free(t->g[i].members);
	}
	free(t->g);
	memset(t, 0, sizeof(*t));
}

/* Room in *@v (of *@cap items of @size bytes, @n used) for one more.  Return: 0, -ENOMEM. */
static int grow(void **v, uint64_t *cap, uint64_t n, size_t size)
{
	uint64_t c = *cap ? *cap * 2 : 16;
	void *p;

	if (n < *cap)
		return 0;
	p = realloc(*v, c * size);
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = c;
	return 0;
}

static int add_task(struct group *g, uint32_t task, bool resolved, bool never, int64_t dur)
{
	g->tasks++;
	g->unresolved += !resolved;
	g->never += never;
	if (grow((void **)&g->members, &g->mcap, g->nmembers, sizeof(*g->members)))
		return -ENOMEM;
	g->members[g->nmembers++] = task;
	if (!resolved)
		return 0;
	if (grow((void **)&g->durs, &g->cap, g->ndurs, sizeof(*g->durs)))
		return -ENOMEM;
	g->durs[g->ndurs++] = dur;
	return 0;
}

/* The label group of @task: the first --group pattern one of its labels matches, else its name normalized. */
static bool label_group(const struct rtr_model *m, uint32_t task, const struct opts *o, char *out,
			size_t n)
{
	const struct rtr_model_task *t = &m->tasks[task];

	for (int i = 0; i < o->ngroups; i++)
		if (an_task_matches(m, task, o->groups[i])) {
			snprintf(out, n, "%s", o->groups[i]);
			return true;
		}
	if (!t->nlabels)
		return false;
	normalize(rtr_model_str(m, t->name), out, n);
	return true;
}

static int collect(struct side *s, const struct opts *o)
{
	const struct rtr_model *m = &s->m;
	char name[GROUP_MAX];

	for (uint32_t i = 0; i < m->ntasks; i++) {
		const struct rtr_model_task *t = &m->tasks[i];
		bool res, never = t->flags & RTR_TASK_NEVER_RESOLVED;
		int64_t dur = rtr_cp_end(m, &s->ix, i, &res) - t->created;
		struct group *g;

		res = res && (t->flags & RTR_TASK_CREATED);
		if (gput(&s->t, rtr_model_str(m, t->kind_name), true, &g) ||
		    add_task(g, i, res, never, dur))
			return -ENOMEM;
		if (!label_group(m, i, o, name, sizeof(name)))
			continue;
		if (gput(&s->t, name, false, &g))
			return -ENOMEM;
		if (!g->kind)
			g->kind = rtr_model_str(m, t->kind_name);
		if (add_task(g, i, res, never, dur))
			return -ENOMEM;
	}
	for (uint32_t i = 0; i < s->t.cap; i++)
		if (s->t.g[i].name && s->t.g[i].ndurs > 1)
			qsort(s->t.g[i].durs, s->t.g[i].ndurs, sizeof(int64_t), an_cmp_i64);
	return 0;
}

/* ---- comparing --------------------------------------------------------------------- */

struct pct {
	int64_t v, lo, hi;
};

struct row {
	const struct group *a, *b;	/* either may be NULL */
	const char *name;
	bool is_kind;
	struct pct p[2][3];		/* [side][p50, p90, p99] */
	int verdict;			/* +1 slower, -1 faster, 0 not significant or unknown */
	int64_t delta;			/* B p50 - A p50 (0 if either has no durations) */
};

static const double qs[3] = { 0.50, 0.90, 0.99 };

static void fill_pct(struct pct *p, const struct group *g)
{
	for (int i = 0; i < 3; i++) {
		if (!g || !g->ndurs) {
			p[i] = (struct pct){ 0 };
			continue;
		}
		p[i].v = an_quantile(g->durs, g->ndurs, qs[i]);
		an_quantile_ci(g->durs, g->ndurs, qs[i], &p[i].lo, &p[i].hi);
	}
}

static void make_row(struct row *r, const struct group *a, const struct group *b)
{
	const struct group *any = a ? a : b;

	*r = (struct row){ .a = a, .b = b, .name = any->name, .is_kind = any->is_kind };
	fill_pct(r->p[0], a);
	fill_pct(r->p[1], b);
	if (a && b && a->ndurs && b->ndurs) {
		r->delta = r->p[1][0].v - r->p[0][0].v;
		/* significant: enough tasks, and the two medians' intervals do not overlap */
		if (a->ndurs < MIN_TASKS || b->ndurs < MIN_TASKS)
			r->verdict = 0;
		else if (r->p[1][0].lo > r->p[0][0].hi)
			r->verdict = 1;
		else if (r->p[1][0].hi < r->p[0][0].lo)
			r->verdict = -1;
	}
}

static uint64_t never_of(const struct group *g)
{
	return g ? g->never : 0;
}

/* Rows: hangs B gained first, then significant changes by size, then the rest by size. */
static int cmp_row(const void *x, const void *y)
{
	const struct row *a = x, *b = y;
	int64_t ha = (int64_t)never_of(a->b) - (int64_t)never_of(a->a);
	int64_t hb = (int64_t)never_of(b->b) - (int64_t)never_of(b->a);
	int64_t da = a->delta < 0 ? -a->delta : a->delta, db = b->delta < 0 ? -b->delta : b->delta;

	if (ha != hb)
		return ha > hb ? -1 : 1;
	if ((a->verdict != 0) != (b->verdict != 0))
		return a->verdict ? -1 : 1;
	if (da != db)
		return da > db ? -1 : 1;
	return strcmp(a->name, b->name);
}

static int rows_of(struct side *s, bool kinds, struct row **out, uint32_t *n)
{
	struct row *r = calloc((size_t)s[0].t.n + s[1].t.n + 1, sizeof(*r));
	uint32_t k = 0;

	if (!r)
		return -ENOMEM;
	for (int side = 0; side < 2; side++)
		for (uint32_t i = 0; i < s[side].t.cap; i++) {
			const struct group *g = &s[side].t.g[i], *o;

			if (!g->name || g->is_kind != kinds)
				continue;
			o = gfind(&s[!side].t, g->name, kinds);
			if (side == 1 && o)
				continue;	/* already paired from A */
			make_row(&r[k++], side ? o : g, side ? g : o);
		}
	if (k > 1)
		qsort(r, k, sizeof(*r), cmp_row);
	*out = r;
	*n = k;
	return 0;
}

/* ---- the critical paths of one group, summed by segment ----------------------------- */

struct segkey {
	char key[GROUP_MAX + 64];
	unsigned depth;
	uint32_t what;
	int64_t ns[2];
	int64_t *per[2];	/* each path's total, PATHS_MAX of them (the median's sample) */
	int64_t med[2];		/* the median over the paths (a path without it: 0) */
	uint64_t lost[2];
	/* a lost wake-up's example, from B: waiter, input, signaller, signal time */
	uint32_t l_task, l_other, l_by;
	int64_t l_ts;
};

struct segsum {
	struct segkey *k;
	uint32_t n;
	uint64_t paths[2];
	bool truncated;
	bool nomem;
};

static struct segkey *segkey_of(struct segsum *ss, const char *key, unsigned depth, uint32_t what)
{
	for (uint32_t i = 0; i < ss->n; i++)
		if (ss->k[i].depth == depth && !strcmp(ss->k[i].key, key))
			return &ss->k[i];
	if (ss->n == SEGKEYS_MAX) {
		ss->truncated = true;
		return NULL;
	}
	struct segkey *k = &ss->k[ss->n++];

	memset(k, 0, sizeof(*k));
	snprintf(k->key, sizeof(k->key), "%s", key);
	k->depth = depth;
	k->what = what;
	k->l_task = k->l_other = k->l_by = RTR_MODEL_NONE;
	return k;
}

static void sum_segs(struct segsum *ss, int side, const struct rtr_model *m,
		     const struct rtr_critpath *cp, uint32_t first, uint32_t n, unsigned depth)
{
	char label[GROUP_MAX], key[GROUP_MAX + 64];

	for (uint32_t i = 0; i < n; i++) {
		const struct rtr_cp_seg *s = &cp->segs[first + i];
		uint32_t subj = s->other != RTR_MODEL_NONE ? s->other : s->task;
		struct segkey *k;

		if (subj >= m->ntasks)
			continue;
		normalize(rtr_model_str(m, m->tasks[subj].name), label, sizeof(label));
		snprintf(key, sizeof(key), "%s%s \"%s\" (%s)", rtr_cp_what_str(s->what),
			 s->what == RTR_CP_CREATOR ? ", by" : "", label[0] ? label : "?",
			 rtr_model_str(m, m->tasks[subj].kind_name));
		k = segkey_of(ss, key, depth, s->what);
		if (k && !k->per[side])
			k->per[side] = calloc(PATHS_MAX, sizeof(int64_t));
		if (k && !k->per[side]) {
			ss->nomem = true;
			return;
		}
		if (k) {
			k->ns[side] += s->end - s->start;
			if (ss->paths[side] < PATHS_MAX)
				k->per[side][ss->paths[side]] += s->end - s->start;
			if (s->lost_by != RTR_MODEL_NONE) {
				k->lost[side]++;
				if (side == 1 && k->l_task == RTR_MODEL_NONE) {
					k->l_task = s->task;
					k->l_other = s->other;
					k->l_by = s->lost_by;
					k->l_ts = s->lost_ts;
				}
			}
		}
		if (s->nchildren && depth < SEG_DEPTH)
			sum_segs(ss, side, m, cp, s->child_first, s->nchildren, depth + 1);
	}
}

static int sum_group(struct segsum *ss, int side, struct side *s, const struct group *g)
{
	uint64_t n = g->nmembers, step = n > PATHS_MAX ? (n + PATHS_MAX - 1) / PATHS_MAX : 1;

	for (uint64_t i = 0; i < n && ss->paths[side] < PATHS_MAX; i += step) {
		struct rtr_critpath cp;

		if (rtr_critpath(&s->m, &s->ix, g->members[i], &cp))
			return -ENOMEM;
		sum_segs(ss, side, &s->m, &cp, 0, cp.ntop, 0);
		ss->truncated |= cp.truncated;
		rtr_critpath_free(&cp);
		ss->paths[side]++;
		if (ss->nomem)
			return -ENOMEM;
	}
	return 0;
}

/* Each key's median per path, over the paths of each side. */
static void medians(struct segsum *ss, int64_t *tmp)
{
	for (uint32_t i = 0; i < ss->n; i++)
		for (int side = 0; side < 2; side++) {
			struct segkey *k = &ss->k[i];
			uint64_t n = ss->paths[side];

			k->med[side] = 0;
			if (!n || !k->per[side])
				continue;
			memcpy(tmp, k->per[side], n * sizeof(*tmp));
			qsort(tmp, n, sizeof(*tmp), an_cmp_i64);
			k->med[side] = an_quantile(tmp, n, 0.5);
		}
}

static double mean(const struct segsum *ss, const struct segkey *k, int side)
{
	return ss->paths[side] ? (double)k->ns[side] / (double)ss->paths[side] : 0;
}

/* (qsort() passes no argument: the sums the means come from, for cmp_segkey()) */
static const struct segsum *cmp_ss;

static int cmp_segkey(const void *x, const void *y)
{
	const struct segkey *a = x, *b = y;
	int64_t ma = a->med[1] - a->med[0], mb = b->med[1] - b->med[0];
	double da = mean(cmp_ss, a, 1) - mean(cmp_ss, a, 0);
	double db = mean(cmp_ss, b, 1) - mean(cmp_ss, b, 0);

	if (ma < 0)
		ma = -ma;
	if (mb < 0)
		mb = -mb;
	if (ma != mb)
		return ma > mb ? -1 : 1;
	if (da < 0)
		da = -da;
	if (db < 0)
		db = -db;
	if (da != db)
		return da > db ? -1 : 1;
	if (a->depth != b->depth)
		return a->depth < b->depth ? -1 : 1;
	return strcmp(a->key, b->key);
}

/* ---- text -------------------------------------------------------------------------- */

static void put_pct(const struct pct *p, bool have)
{
	char a[32], b[32], c[32];

	if (!have) {
		printf(" %36s", "-");
		return;
	}
	an_dur(a, sizeof(a), p->v);
	an_dur(b, sizeof(b), p->lo);
	an_dur(c, sizeof(c), p->hi);
	char buf[128];

	snprintf(buf, sizeof(buf), "%s [%s, %s]", a, b, c);
	printf(" %36s", buf);
}

static const char *verdict_str(const struct row *r)
{
	if (!r->a)
		return "only in B";
	if (!r->b)
		return "only in A";
	if (never_of(r->b) > never_of(r->a))
		return "HANGS in B";
	if (!r->a->ndurs || !r->b->ndurs)
		return "-";
	if (r->a->ndurs < MIN_TASKS || r->b->ndurs < MIN_TASKS)
		return "too few to tell";
	return r->verdict > 0 ? "slower" : r->verdict < 0 ? "faster" : "~";
}

static void print_rows(const char *title, const struct row *r, uint32_t n, unsigned top)
{
	char d[32];

	printf("\n%-24s %8s %8s %36s %36s %12s %12s  %s\n", title, "A tasks", "B tasks",
	       "A p50 [95% CI]", "B p50 [95% CI]", "B-A p50", "B-A p99", "change");
	for (uint32_t i = 0; i < n && i < top; i++) {
		const struct row *w = &r[i];
		double ratio = w->p[0][0].v > 0 ? (double)w->p[1][0].v / (double)w->p[0][0].v : 0;

		an_put_clean(stdout, w->name, 24);
		printf(" %8" PRIu64 " %8" PRIu64, w->a ? w->a->tasks : 0, w->b ? w->b->tasks : 0);
		put_pct(&w->p[0][0], w->a && w->a->ndurs);
		put_pct(&w->p[1][0], w->b && w->b->ndurs);
		if (w->a && w->b && w->a->ndurs && w->b->ndurs) {
			printf(" %12s", an_dur(d, sizeof(d), w->delta));
			printf(" %12s", an_dur(d, sizeof(d), w->p[1][2].v - w->p[0][2].v));
		} else {
			printf(" %12s %12s", "-", "-");
		}
		printf("  %s", verdict_str(w));
		if (w->verdict && ratio > 0)
			printf(" (x%.2f)", ratio);
		if (w->b && w->b->never)
			printf(", %" PRIu64 " never resolved in B", w->b->never);
		if (w->a && w->a->never)
			printf(", %" PRIu64 " never resolved in A", w->a->never);
		printf("\n");
	}
	if (n > top)
		printf("(%u more; --top N shows more)\n", n - top);
}

static void print_lost(const struct rtr_model *m, const struct segkey *k)
{
	char d[32];

	printf("\n  the bug: in B, ");
	an_put_task(stdout, m, k->l_task);
	printf(" waits for ");
	an_put_task(stdout, m, k->l_other);
	printf(", which ");
	an_put_task(stdout, m, k->l_by);
	printf(" signalled at %s, before the wait began, and nothing after: a lost wake-up\n"
	       "  (the wake-up came before the wait; a one-shot wait, resolved whether or not\n"
	       "  anyone waits yet, cannot lose it)\n", an_dur(d, sizeof(d), k->l_ts - m->start));
}

static void print_segs(const struct row *r, struct segsum *ss, const struct side *s)
{
	char a[32], b[32], c[32];
	const struct segkey *lost = NULL;

	printf("\nthe group that changed most: ");
	an_put_clean(stdout, r->name, 0);
	if (!r->is_kind && (r->a ? r->a : r->b)->kind)
		printf(" (%s)", (r->a ? r->a : r->b)->kind);
	printf("\n  critical path, median per task over %" PRIu64 " task%s of A and %" PRIu64
	       " of B (%u levels):\n", ss->paths[0], ss->paths[0] == 1 ? "" : "s", ss->paths[1],
	       SEG_DEPTH + 1);
	printf("  %12s %12s %12s\n", "A", "B", "B-A");
	for (uint32_t i = 0; i < ss->n && i < TOP_SEGS; i++) {
		const struct segkey *k = &ss->k[i];

		printf("  %12s %12s %12s  %*s", an_dur(a, sizeof(a), k->med[0]),
		       an_dur(b, sizeof(b), k->med[1]), an_dur(c, sizeof(c), k->med[1] - k->med[0]),
		       (int)(2 * k->depth), "");
		an_put_clean(stdout, k->key, 0);
		if (k->lost[1] > k->lost[0])
			printf("  (%" PRIu64 " lost wake-up%s in B)", k->lost[1], k->lost[1] == 1 ? "" : "s");
		printf("\n");
	}
	for (uint32_t i = 0; i < ss->n; i++)
		if (ss->k[i].lost[1] > ss->k[i].lost[0] && ss->k[i].l_task != RTR_MODEL_NONE &&
		    (!lost || ss->k[i].ns[1] > lost->ns[1]))
			lost = &ss->k[i];
	if (lost)
		print_lost(&s[1].m, lost);
}

/* ---- JSON -------------------------------------------------------------------------- */

static void json_group(struct jw *w, const char *key, const struct group *g, const struct pct *p)
{
	static const char *const names[3] = { "p50", "p90", "p99" };

	jw_lit(w, ", \"");
	jw_lit(w, key);
	jw_lit(w, "\": ");
	if (!g) {
		jw_lit(w, "null");
		return;
	}
	jw_lit(w, "{\"tasks\": ");
	jw_u64(w, g->tasks);
	jw_lit(w, ", \"resolved\": ");
	jw_u64(w, g->ndurs);
	jw_lit(w, ", \"unresolved\": ");
	jw_u64(w, g->unresolved);
	jw_lit(w, ", \"never_resolved\": ");
	jw_u64(w, g->never);
	for (int i = 0; g->ndurs && i < 3; i++) {
		jw_lit(w, ", \"");
		jw_lit(w, names[i]);
		jw_lit(w, "_ns\": ");
		jw_i64(w, p[i].v);
		jw_lit(w, ", \"");
		jw_lit(w, names[i]);
		jw_lit(w, "_ci_ns\": [");
		jw_i64(w, p[i].lo);
		jw_lit(w, ", ");
		jw_i64(w, p[i].hi);
		jw_lit(w, "]");
	}
	jw_lit(w, "}");
}

static void json_rows(struct jw *w, const char *key, const struct row *r, uint32_t n)
{
	jw_lit(w, ",\n \"");
	jw_lit(w, key);
	jw_lit(w, "\": [");
	for (uint32_t i = 0; i < n; i++) {
		jw_lit(w, i ? ",\n  {\"name\": " : "\n  {\"name\": ");
		jw_cstr(w, r[i].name);
		if (!r[i].is_kind && (r[i].a ? r[i].a : r[i].b)->kind) {
			jw_lit(w, ", \"kind\": ");
			jw_cstr(w, (r[i].a ? r[i].a : r[i].b)->kind);
		}
		jw_lit(w, ", \"change\": ");
		jw_cstr(w, verdict_str(&r[i]));
		jw_lit(w, ", \"p50_delta_ns\": ");
		jw_i64(w, r[i].delta);
		json_group(w, "a", r[i].a, r[i].p[0]);
		json_group(w, "b", r[i].b, r[i].p[1]);
		jw_lit(w, "}");
	}
	jw_lit(w, "]");
}

static void json_segs(struct jw *w, const struct row *r, const struct segsum *ss,
		      const struct side *s)
{
	jw_lit(w, ",\n \"changed_most\": {\"name\": ");
	jw_cstr(w, r->name);
	jw_lit(w, ", \"paths_a\": ");
	jw_u64(w, ss->paths[0]);
	jw_lit(w, ", \"paths_b\": ");
	jw_u64(w, ss->paths[1]);
	jw_lit(w, ", \"segments\": [");
	for (uint32_t i = 0; i < ss->n; i++) {
		const struct segkey *k = &ss->k[i];

		jw_lit(w, i ? ",\n   {\"segment\": " : "\n   {\"segment\": ");
		jw_cstr(w, k->key);
		jw_lit(w, ", \"what\": ");
		jw_cstr(w, rtr_cp_what_str(k->what));
		jw_lit(w, ", \"depth\": ");
		jw_u64(w, k->depth);
		jw_lit(w, ", \"a_median_ns\": ");
		jw_i64(w, k->med[0]);
		jw_lit(w, ", \"b_median_ns\": ");
		jw_i64(w, k->med[1]);
		jw_lit(w, ", \"a_mean_ns\": ");
		jw_i64(w, (int64_t)mean(ss, k, 0));
		jw_lit(w, ", \"b_mean_ns\": ");
		jw_i64(w, (int64_t)mean(ss, k, 1));
		jw_lit(w, ", \"lost_wakeups_a\": ");
		jw_u64(w, k->lost[0]);
		jw_lit(w, ", \"lost_wakeups_b\": ");
		jw_u64(w, k->lost[1]);
		if (k->l_task != RTR_MODEL_NONE) {
			const struct rtr_model *m = &s[1].m;

			jw_lit(w, ", \"lost_wakeup_b\": {\"waiter\": ");
			jw_cstr(w, rtr_model_str(m, m->tasks[k->l_task].name));
			jw_lit(w, ", \"input\": ");
			jw_cstr(w, k->l_other < m->ntasks ? rtr_model_str(m, m->tasks[k->l_other].name) : "");
			jw_lit(w, ", \"signalled_by\": ");
			jw_cstr(w, k->l_by < m->ntasks ? rtr_model_str(m, m->tasks[k->l_by].name) : "");
			jw_lit(w, ", \"signal_ns\": ");
			jw_i64(w, k->l_ts - m->start);
			jw_lit(w, "}");
		}
		jw_lit(w, "}");
	}
	jw_lit(w, "]}");
}

/* ---- the command ------------------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ringtrace diff [--json] [--group PATTERN]... [--top N] A B\n\n"
		"Compare two runs (traces A and B): per task kind and per label group, the\n"
		"tasks, the durations' p50, p90 and p99 with 95%% confidence intervals\n"
		"(order statistics, distribution-free), what got slower or faster (the\n"
		"medians' intervals apart) and by how much; then, for the group that\n"
		"changed most (one that hangs in B first), the critical-path segments\n"
		"(`ringtrace why`) whose mean per task changed most, and a wake-up sent\n"
		"before the wait (a lost wake-up) where B has one.\n\n"
		"  --group PATTERN  a label group: the tasks with a label matching the\n"
		"                   fnmatch(3) PATTERN ('GET /item/*'); repeatable, the\n"
		"                   first match wins.  Other labels are grouped with their\n"
		"                   numbers made '*' ('conn 17' -> 'conn *')\n"
		"  --top N          rows shown per table (default 10; --json has all)\n"
		"  --json           one JSON object: kinds, groups, changed_most\n"
		"  -h, --help       this text\n\n"
		"exit status: 0 compared, 1 a damaged or unreadable trace, 2 usage\n");
}

/* A side to load: what load() did, and its message when it failed. */
struct loader {
	struct side *s;
	const struct opts *o;
	int r;			/* rtr_model_load()'s: < 0 failed (@err says why), 1 damaged */
	char err[1024];
};

/* Side @l->s: its model, its critical-path index and its groups (a thread's body). */
static void *load(void *arg)
{
	struct loader *l = arg;
	struct side *s = l->s;
	char *dirs[1] = { (char *)s->dir };

	l->r = rtr_model_load_flags(&s->m, dirs, 1, 0, l->err, sizeof(l->err));
	if (l->r < 0)
		return NULL;
	s->loaded = true;
	if (rtr_cp_index_build(&s->m, &s->ix) || collect(s, l->o)) {
		snprintf(l->err, sizeof(l->err), "out of memory");
		l->r = -ENOMEM;
	}
	return NULL;
}

/*
 * Both sides, B's in a thread of its own: two traces, two cores, about half
 * the time.  The messages are printed afterwards, A's first.  0, 1 if either
 * is damaged, -1 if either failed.
 */
static int load_both(struct side *s, const struct opts *o)
{
	struct loader l[2] = { { .s = &s[0], .o = o }, { .s = &s[1], .o = o } };
	pthread_t th;
	bool threaded = !pthread_create(&th, NULL, load, &l[1]);
	int r = 0;

	load(&l[0]);
	if (threaded)
		pthread_join(th, NULL);
	else
		load(&l[1]);
	for (int i = 0; i < 2; i++) {
		if (l[i].r < 0) {
			fprintf(stderr, "ringtrace diff: %s\n", l[i].err);
			r = -1;
		} else if (l[i].r && !r) {
			r = 1;
		}
	}
	return r;
}

static int parse(int argc, char **argv, struct opts *o, struct side *s)
{
	int npos = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--json")) {
			o->json = true;
		} else if (!strcmp(a, "--group") || !strcmp(a, "--top")) {
			char *end;
			unsigned long v;

			if (i + 1 >= argc) {
				fprintf(stderr, "ringtrace diff: %s needs a value\n", a);
				return 2;
			}
			if (!strcmp(a, "--group")) {
				o->groups[o->ngroups++] = argv[++i];
				continue;
			}
			errno = 0;
			v = strtoul(argv[++i], &end, 10);
			if (errno || end == argv[i] || *end || !v || v > 1000000 || argv[i][0] == '-') {
				fprintf(stderr, "ringtrace diff: --top: not a count from 1 to 1000000: '%s'\n",
					argv[i]);
				return 2;
			}
			o->top = (unsigned)v;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "ringtrace diff: unknown option '%s'\n", a);
			usage(stderr);
			return 2;
		} else if (npos < 2) {
			s[npos++].dir = a;
		} else {
			npos = 3;
		}
	}
	if (npos != 2) {
		fprintf(stderr, "ringtrace diff: give two traces, A and B\n");
		usage(stderr);
		return 2;
	}
	if (!strcmp(s[0].dir, "-") && !strcmp(s[1].dir, "-")) {
		fprintf(stderr, "ringtrace diff: A and B cannot both be standard input\n");
		return 2;
	}
	return -1;
}

int rtr_cmd_diff(int argc, char **argv)
{
	struct opts o = { .top = 10 };
	struct side s[2] = { 0 };
	struct row *kinds = NULL, *groups = NULL;
	uint32_t nk = 0, ng = 0;
	struct segsum ss = { 0 };
	const struct row *most = NULL;
	int r, status = 0;

	o.groups = calloc((size_t)argc + 1, sizeof(*o.groups));
	if (!o.groups) {
		fprintf(stderr, "ringtrace diff: out of memory\n");
		return 1;
	}
	r = parse(argc, argv, &o, s);
	if (r >= 0) {
		free(o.groups);
		return r;
	}
	if (cli_traces_exist("diff", (char *const[]){ (char *)s[0].dir, (char *)s[1].dir }, 2)) {
		free(o.groups);
		return 2;
	}
	/* (the critical-path index and the groups on top of the model: twice stats' share) */
	if (cli_model_fits("diff", (char *const[]){ (char *)s[0].dir, (char *)s[1].dir }, 2,
			   2 * CLI_STATS_BYTES_PER_EVENT)) {
		free(o.groups);
		return 1;
	}
	r = load_both(s, &o);
	status = r ? 1 : 0;
	if (r < 0)
		goto out;
	if (rows_of(s, true, &kinds, &nk) || rows_of(s, false, &groups, &ng))
		goto nomem;
	/* the group that changed most: the first label group, else the first kind */
	most = ng ? &groups[0] : nk ? &kinds[0] : NULL;
	if (most) {
		ss.k = calloc(SEGKEYS_MAX, sizeof(*ss.k));
		if (!ss.k)
			goto nomem;
		for (int i = 0; i < 2; i++) {
			const struct group *g = i ? most->b : most->a;

			if (g && sum_group(&ss, i, &s[i], g))
				goto nomem;
		}
		int64_t *tmp = malloc(PATHS_MAX * sizeof(*tmp));

		if (!tmp)
			goto nomem;
		medians(&ss, tmp);
		free(tmp);
		cmp_ss = &ss;
		if (ss.n > 1)
			qsort(ss.k, ss.n, sizeof(*ss.k), cmp_segkey);
	}
	if (o.json) {
		struct jw w;

		if (jw_init(&w, stdout))
			goto nomem;
		jw_lit(&w, "{\"a\": ");
		jw_cstr(&w, s[0].dir);
		jw_lit(&w, ", \"b\": ");
		jw_cstr(&w, s[1].dir);
		json_rows(&w, "kinds", kinds, nk);
		json_rows(&w, "groups", groups, ng);
		if (most)
			json_segs(&w, most, &ss, s);
		jw_lit(&w, "}\n");
		if (jw_close(&w))
			status = 1;
	} else {
		for (int i = 0; i < 2; i++) {
			printf("%s: ", i ? "B" : "A");
			an_put_clean(stdout, s[i].dir, 0);
			printf(" (%" PRIu64 " events, %u tasks)\n", s[i].m.events, s[i].m.ntasks);
		}
		print_rows("kind", kinds, nk, o.top);
		if (ng)
			print_rows("label group", groups, ng, o.top);
		if (most)
			print_segs(most, &ss, s);
	}
	if (fflush(stdout)) {
		fprintf(stderr, "ringtrace diff: writing the output failed\n");
		status = 1;
	}
	goto out;
nomem:
	fprintf(stderr, "ringtrace diff: out of memory\n");
	status = 1;
out:
	for (int i = 0; i < 2; i++) {
		if (s[i].loaded) {
			cli_model_damage("diff", &s[i].m);
			rtr_model_free(&s[i].m);
		}
		rtr_cp_index_free(&s[i].ix);
		gtab_free(&s[i].t);
	}
	for (uint32_t i = 0; ss.k && i < ss.n; i++) {
		free(ss.k[i].per[0]);
		free(ss.k[i].per[1]);
	}
	free(ss.k);
	free(kinds);
	free(groups);
	free(o.groups);
	return status;
}
