// SPDX-License-Identifier: MIT
/* tools/analysis.c - what why, diff and stats share (analysis.h). */
#include <fnmatch.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "reader/model.h"
#include "tools/analysis.h"

const char *an_dur(char *b, size_t n, int64_t ns)
{
	double v = (double)ns;

	if (ns < 1000 && ns > -1000)
		snprintf(b, n, "%" PRId64 " ns", ns);
	else if (ns < 1000000 && ns > -1000000)
		snprintf(b, n, "%.3f us", v / 1e3);
	else if (ns < 1000000000 && ns > -1000000000)
		snprintf(b, n, "%.3f ms", v / 1e6);
	else
		snprintf(b, n, "%.3f s", v / 1e9);
	return b;
}

void an_put_clean(FILE *f, const char *s, int width)
{
	int n = 0;

	for (; *s; s++, n++)
		fputc((unsigned char)*s >= 0x20 && (unsigned char)*s < 0x7f ? *s : '?', f);
	for (; n < width; n++)
		fputc(' ', f);
}

void an_put_task(FILE *f, const struct rtr_model *m, uint32_t task)
{
	const struct rtr_model_task *t;

	if (task >= m->ntasks) {
		fprintf(f, "(no task)");
		return;
	}
	t = &m->tasks[task];
	fprintf(f, "task %" PRIu64 " \"", t->id);
	an_put_clean(f, *rtr_model_str(m, t->name) ? rtr_model_str(m, t->name) : "?", 0);
	fprintf(f, "\" (");
	an_put_clean(f, rtr_model_str(m, t->kind_name), 0);
	fprintf(f, ")");
}

bool an_task_matches(const struct rtr_model *m, uint32_t task, const char *pat)
{
	const struct rtr_model_task *t = &m->tasks[task];

	for (uint32_t i = 0; i < t->nlabels; i++)
		if (!fnmatch(pat, rtr_model_str(m, m->labels[t->label_first + i].text), 0))
			return true;
	return false;
}

int64_t an_quantile(const int64_t *v, uint64_t n, double p)
{
	double r = ceil(p * (double)n);
	uint64_t rank = r < 1 ? 1 : r > (double)n ? n : (uint64_t)r;

	return v[rank - 1];
}

void an_quantile_ci(const int64_t *v, uint64_t n, double p, int64_t *lo, int64_t *hi)
{
	double np = (double)n * p, sd = sqrt((double)n * p * (1 - p));
	double l = floor(np - 1.96 * sd), u = ceil(np + 1.96 * sd) + 1;

	/* ranks are 1-based: the l-th and u-th smallest */
	*lo = v[l < 1 ? 0 : (uint64_t)l - 1];
	*hi = v[u > (double)n ? n - 1 : (uint64_t)u - 1];
}

int an_cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

bool an_task_duration(const struct rtr_model *m, uint32_t t, int64_t *ns)
{
	const struct rtr_model_task *k = &m->tasks[t];

	if (!(k->flags & RTR_TASK_RESOLVED) || !(k->flags & RTR_TASK_CREATED))
		return false;
	*ns = k->resolved - k->created;
	return true;
}

int64_t *an_kind_durations(const struct rtr_model *m, uint32_t kind_name, uint64_t *n)
{
	int64_t *d = malloc(((size_t)m->ntasks + 1) * sizeof(*d));

	*n = 0;
	if (!d)
		return NULL;
	for (uint32_t t = 0; t < m->ntasks; t++)
		if (m->tasks[t].kind_name == kind_name && an_task_duration(m, t, &d[*n]))
			(*n)++;
	if (*n > 1)
		qsort(d, *n, sizeof(*d), an_cmp_i64);
	return d;
}

uint32_t an_hist_bucket(int64_t ns)
{
	uint64_t v = ns < 0 ? 0 : (uint64_t)ns;
	unsigned half = AN_HIST_SUB_BUCKETS / 2, e;

	if (v < AN_HIST_SUB_BUCKETS)
		return (uint32_t)v;
	e = 63 - (unsigned)__builtin_clzll(v);	/* v in [2^e, 2^(e+1)), e >= 3 */
	/* the top bits after the leading one choose the sub-bucket */
	return AN_HIST_SUB_BUCKETS + (e - 3) * half +
	       (uint32_t)((v >> (e - 2)) & (half - 1));
}

int64_t an_hist_low(uint32_t b)
{
	unsigned half = AN_HIST_SUB_BUCKETS / 2, e, sub;

	if (b < AN_HIST_SUB_BUCKETS)
		return b;
	e = (b - AN_HIST_SUB_BUCKETS) / half + 3;
	sub = (b - AN_HIST_SUB_BUCKETS) % half;
	if (e >= 63)
		return INT64_MAX;
	return (int64_t)(((uint64_t)half + sub) << (e - 2));
}

void an_hist_print(FILE *f, const int64_t *v, uint64_t n, int width, int indent)
{
	uint64_t most = 0, done = 0;
	char a[32], b[32];

	if (!n)
		return;
	/* the sorted values: each bucket's count in one pass */
	for (uint64_t i = 0; i < n;) {
		uint32_t bk = an_hist_bucket(v[i]);
		uint64_t j = i;

		while (j < n && an_hist_bucket(v[j]) == bk)
			j++;
		if (j - i > most)
			most = j - i;
		i = j;
	}
	for (uint64_t i = 0; i < n;) {
		uint32_t bk = an_hist_bucket(v[i]);
		uint64_t j = i;
		int bar;

		while (j < n && an_hist_bucket(v[j]) == bk)
			j++;
		done += j - i;
		bar = (int)(((j - i) * (uint64_t)width + most - 1) / most);
		fprintf(f, "%*s%12s .. %-12s %10" PRIu64 " ", indent, "",
			an_dur(a, sizeof(a), an_hist_low(bk)), an_dur(b, sizeof(b), an_hist_low(bk + 1)),
			j - i);
		for (int k = 0; k < width; k++)
			fputc(k < bar ? '#' : ' ', f);
		fprintf(f, " %6.2f%%\n", 100.0 * (double)done / (double)n);
		i = j;
	}
}
