// SPDX-License-Identifier: MIT
/*
 * reader/profile.c - the CPU samples summed per function, and as folded
 * stacks (profile.h).
 *
 * The samples point into the model's call tree (a frame per call path), so
 * both are sums over the frames that are some sample's innermost: their
 * counts first, then one walk up from each such frame (not from each
 * sample), which is what makes a million samples cheap.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "reader/profile.h"

/* Per frame: the samples from @t0 to @t1 whose innermost frame it is (calloc'd). */
static uint64_t *self_counts(const struct rtr_model *m, int64_t t0, int64_t t1, uint64_t *total)
{
	uint64_t *c = calloc((size_t)m->nframes + 1, sizeof(*c));

	*total = 0;
	if (!c)
		return NULL;
	for (uint32_t i = 0; i < m->ncpu_samples; i++) {
		const struct rtr_model_cpu_sample *s = &m->cpu_samples[i];

		if (s->ts < t0 || s->ts > t1 || s->frame >= m->nframes)
			continue;
		c[s->frame]++;
		(*total)++;
	}
	return c;
}

static int cmp_name(const void *a, const void *b)
{
	const struct rtr_profile_fn *x = a, *y = b;

	return x->name < y->name ? -1 : x->name > y->name;
}

static int cmp_fn(const void *a, const void *b, void *m)
{
	const struct rtr_profile_fn *x = a, *y = b;
	const struct rtr_model *model = m;

	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return strcmp(rtr_model_str(model, x->name), rtr_model_str(model, y->name));
}

int rtr_profile_functions(const struct rtr_model *m, int64_t t0, int64_t t1,
			  struct rtr_profile_fn **out, uint32_t *n, uint64_t *samples)
{
	uint64_t *self = self_counts(m, t0, t1, samples);
	struct rtr_profile_fn *c = NULL, *r;
	size_t nc = 0, cap = 0;
	uint32_t names[RTR_PROFILE_DEPTH];

	*out = NULL;
	*n = 0;
	if (!self)
		return -ENOMEM;
	/*
	 * A contribution per (innermost frame, distinct name on its path): self
	 * to the innermost's name, total to each name once.
	 */
	for (uint32_t i = 0; i < m->nframes; i++) {
		uint32_t nn = 0;

		if (!self[i])
			continue;
		for (uint32_t f = i, depth = 0; f < m->nframes && depth < RTR_PROFILE_DEPTH;
		     f = m->frames[f].parent, depth++) {
			uint32_t name = m->frames[f].name;
			bool seen = false;

			for (uint32_t k = 0; k < nn && !seen; k++)
				seen = names[k] == name;
			if (seen)
				continue;
			names[nn++] = name;
			if (nc == cap) {
				cap = cap ? 2 * cap : 256;
				r = realloc(c, cap * sizeof(*c));
				if (!r) {
					free(c);
					free(self);
					return -ENOMEM;
				}
				c = r;
			}
			c[nc++] = (struct rtr_profile_fn){ .name = name, .self = f == i ? self[i] : 0,
							   .total = self[i] };
		}
	}
	free(self);
	if (!nc)
		return 0;
	qsort(c, nc, sizeof(*c), cmp_name);
	{
		size_t w = 0;

		for (size_t j = 0; j < nc; j++) {
			if (w && c[w - 1].name == c[j].name) {
				c[w - 1].self += c[j].self;
				c[w - 1].total += c[j].total;
			} else {
				c[w++] = c[j];
			}
		}
		nc = w;
	}
	qsort_r(c, nc, sizeof(*c), cmp_fn, (void *)m);
	*out = c;
	*n = (uint32_t)nc;
	return 0;
}

/* One folded line's key: a thread's name (a string) and an innermost frame. */
struct fkey {
	uint32_t thread;	/* string, or UINT32_MAX: "thread TID" of @task */
	uint32_t task;
	uint32_t frame;
	uint64_t count;
	char *text;
};

static void put_clean(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc(*s == ';' || *s == '\n' || *s == '\r' ? '_' : *s, f);
}

static int cmp_text(const void *a, const void *b)
{
	return strcmp(((const struct fkey *)a)->text, ((const struct fkey *)b)->text);
}

static int cmp_key(const void *a, const void *b)
{
	const struct fkey *x = a, *y = b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->thread == UINT32_MAX && x->task != y->task)
		return x->task < y->task ? -1 : 1;
	return x->frame < y->frame ? -1 : x->frame > y->frame;
}

/* "THREAD;OUTER;...;INNER" of @k, malloc'd. */
static char *folded_text(const struct rtr_model *m, const struct fkey *k)
{
	uint32_t path[RTR_PROFILE_DEPTH], np = 0;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	if (k->thread != UINT32_MAX)
		put_clean(f, rtr_model_str(m, k->thread));
	else
		fprintf(f, "thread %" PRIu64, m->tasks[k->task].id & ~RTR_MODEL_KTHREAD);
	for (uint32_t fr = k->frame; fr < m->nframes && np < RTR_PROFILE_DEPTH;
	     fr = m->frames[fr].parent)
		path[np++] = fr;
	while (np--) {
		fputc(';', f);
		put_clean(f, rtr_model_str(m, m->frames[path[np]].name));
	}
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

int rtr_profile_folded(const struct rtr_model *m, FILE *f)
{
	struct fkey *k = malloc(((size_t)m->ncpu_samples + 1) * sizeof(*k));
	size_t n = 0;
	int ret = 0;

	if (!k)
		return -ENOMEM;
	for (uint32_t i = 0; i < m->ncpu_samples; i++) {
		const struct rtr_model_cpu_sample *s = &m->cpu_samples[i];
		const struct rtr_model_task *t;

		if (s->frame >= m->nframes || s->task >= m->ntasks)
			continue;
		t = &m->tasks[s->task];
		k[n++] = (struct fkey){ .thread = t->name ? t->name : UINT32_MAX,
					.task = s->task, .frame = s->frame, .count = 1 };
	}
	qsort(k, n, sizeof(*k), cmp_key);
	{
		size_t w = 0;

		for (size_t j = 0; j < n; j++) {
			if (w && !cmp_key(&k[w - 1], &k[j]))
				k[w - 1].count++;
			else
				k[w++] = k[j];
		}
		n = w;
	}
	for (size_t j = 0; j < n; j++) {
		if (!(k[j].text = folded_text(m, &k[j]))) {
			for (size_t i = 0; i < j; i++)
				free(k[i].text);
			free(k);
			return -ENOMEM;
		}
	}
	/* threads of one name on one line per stack: the lines merged by text */
	qsort(k, n, sizeof(*k), cmp_text);
	for (size_t j = 0; j < n; j++) {
		uint64_t c = k[j].count;

		while (j + 1 < n && !strcmp(k[j].text, k[j + 1].text)) {
			free(k[j].text);
			c += k[++j].count;
		}
		if (fprintf(f, "%s %" PRIu64 "\n", k[j].text, c) < 0)
			ret = -EIO;
		free(k[j].text);
	}
	free(k);
	if (!ret && ferror(f))
		ret = -EIO;
	return ret;
}
