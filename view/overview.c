// SPDX-License-Identifier: MIT
/*
 * view/overview.c - a trace's events over time from its index
 * (view/overview.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "reader/clock.h"
#include "reader/index.h"
#include "reader/input.h"
#include "reader/trace.h"
#include "view/overview.h"

/* Epoch ns of a cursor time (saturated), as the model counts them. */
static int64_t epoch_ns(struct tr_clock *k, uint64_t ts)
{
	int64_t sec, ns;
	uint32_t nsec;

	tr_clock_ns(k, ts, &sec, &nsec);
	if (__builtin_mul_overflow(sec, 1000000000, &ns) || __builtin_add_overflow(ns, nsec, &ns))
		return sec < 0 ? INT64_MIN : INT64_MAX;
	return ns;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The lane of stream @name, added (sorted later) when new; -1 when memory ran out. */
static int64_t lane_of(struct rtr_overview *ov, const char *name, uint64_t cpu)
{
	struct rtr_overview_lane *n;

	for (uint32_t i = 0; i < ov->nlanes; i++)
		if (!strcmp(ov->lanes[i].name, name))
			return i;
	n = realloc(ov->lanes, (ov->nlanes + 1) * sizeof(*n));
	if (!n)
		return -1;
	ov->lanes = n;
	n[ov->nlanes] = (struct rtr_overview_lane){ .name = strdup(name), .cpu = cpu };
	if (!n[ov->nlanes].name)
		return -1;
	return ov->nlanes++;
}

/* The buckets of @ix's streams, each into its lane (chunks in order: lanes' buckets in time order). */
static int add_index(struct rtr_overview *ov, const struct tr_index *ix, struct tr_clock *k,
		     uint32_t **lane_of_b, uint32_t *cap)
{
	for (uint32_t s = 0; s < ix->nstreams; s++) {
		const struct tr_index_stream *st = &ix->s[s];
		int64_t lane = st->n ? lane_of(ov, st->name, st->cpu) : 0;

		if (lane < 0)
			return -1;
		for (uint32_t e = 0; e < st->n; e++) {
			if (ov->nb == *cap) {
				uint32_t nc = *cap ? *cap * 2 : 1024;
				struct rtr_overview_bucket *nb = realloc(ov->b, nc * sizeof(*nb));
				uint32_t *nl = nb ? realloc(*lane_of_b, nc * sizeof(*nl)) : NULL;

				if (nb)
					ov->b = nb;
				if (!nl)
					return -1;
				*lane_of_b = nl;
				*cap = nc;
			}
			ov->b[ov->nb] = (struct rtr_overview_bucket){
				.t0 = epoch_ns(k, st->e[e].first_ts),
				.t1 = epoch_ns(k, st->e[e].last_ts),
				.events = st->e[e].events,
			};
			(*lane_of_b)[ov->nb++] = (uint32_t)lane;
		}
	}
	return 0;
}

/* Buckets grouped by lane (stable: each lane's stay in chunk, then file, order), times from the origin. */
static int arrange(struct rtr_overview *ov, const uint32_t *lane_of_b)
{
	struct rtr_overview_bucket *b = malloc((ov->nb + 1) * sizeof(*b));
	uint32_t *rank = calloc(ov->nlanes + 1, sizeof(*rank)), *pos = calloc(ov->nlanes + 1, sizeof(*pos));
	int64_t first = INT64_MAX, last = INT64_MIN;

	if (!b || !rank || !pos) {
		free(b);
		free(rank);
		free(pos);
		return -1;
	}
	/* lanes sorted by name: rank[old index] = new index */
	{
		char **names = malloc((ov->nlanes + 1) * sizeof(*names));
		struct rtr_overview_lane *sorted = malloc((ov->nlanes + 1) * sizeof(*sorted));

		if (!names || !sorted) {
			free(names);
			free(sorted);
			free(b);
			free(rank);
			free(pos);
			return -1;
		}
		for (uint32_t i = 0; i < ov->nlanes; i++)
			names[i] = ov->lanes[i].name;
		if (ov->nlanes > 1)
			qsort(names, ov->nlanes, sizeof(*names), cmp_name);
		for (uint32_t i = 0; i < ov->nlanes; i++)
			for (uint32_t j = 0; j < ov->nlanes; j++)
				if (ov->lanes[j].name == names[i]) {
					rank[j] = i;
					sorted[i] = ov->lanes[j];
				}
		memcpy(ov->lanes, sorted, ov->nlanes * sizeof(*sorted));
		free(names);
		free(sorted);
	}
	for (uint32_t i = 0; i < ov->nb; i++) {
		ov->lanes[rank[lane_of_b[i]]].n++;
		if (ov->b[i].t0 < first)
			first = ov->b[i].t0;
		if (ov->b[i].t1 > last)
			last = ov->b[i].t1;
	}
	for (uint32_t l = 0, at = 0; l < ov->nlanes; l++) {
		ov->lanes[l].first = pos[l] = at;
		at += ov->lanes[l].n;
	}
	for (uint32_t i = 0; i < ov->nb; i++) {
		struct rtr_overview_bucket x = ov->b[i];
		uint32_t l = rank[lane_of_b[i]];

		x.t0 -= first;
		x.t1 = x.t1 < x.t0 + first ? x.t0 : x.t1 - first;
		b[pos[l]++] = x;
		ov->lanes[l].events += x.events;
		ov->events += x.events;
	}
	free(ov->b);
	ov->b = b;
	ov->origin_ns = ov->nb ? first : 0;
	ov->end = ov->nb ? last - first : 0;
	free(rank);
	free(pos);
	return 0;
}

int rtr_overview_build(struct rtr_overview *ov, const char *arg, char *err, size_t errlen)
{
	struct tr_input in;
	struct tr_trace *t = NULL;
	struct tr_index *ix = NULL;
	uint32_t opened = 0, *lane_of_b = NULL, cap = 0;
	uint64_t from, to;
	int ret = -1;

	memset(ov, 0, sizeof(*ov));
	if (!strcmp(arg, "-")) {
		snprintf(err, errlen, "standard input has no index: it cannot be overviewed");
		return -1;
	}
	if (tr_input_open(&in, arg, false, err, errlen))
		return -1;
	if (!in.ndirs) {
		snprintf(err, errlen, "%s: no trace there", arg);
		goto out;
	}
	t = calloc(in.ndirs, sizeof(*t));
	ix = calloc(in.ndirs, sizeof(*ix));
	if (!t || !ix)
		goto nomem;
	for (; opened < in.ndirs; opened++)
		if (tr_open_lazy(&t[opened], in.dirs[opened], err, errlen))
			goto out;
	if (tr_index_slice(t, opened, ix, 0, UINT64_MAX, &from, &to))
		goto nomem;
	if (opened)
		tr_clock_init(&ov->clk, &t[0].md);
	for (uint32_t k = 0; k < opened; k++) {
		if (add_index(ov, &ix[k], &ov->clk, &lane_of_b, &cap))
			goto nomem_ix;
	}
	if (arrange(ov, lane_of_b))
		goto nomem_ix;
	ret = 0;
	goto out_ix;
nomem_ix:
	snprintf(err, errlen, "%s: out of memory", arg);
out_ix:
	for (uint32_t k = 0; k < opened; k++)
		tr_index_free(&ix[k]);
	goto out;
nomem:
	snprintf(err, errlen, "%s: out of memory", arg);
out:
	for (uint32_t k = 0; k < opened; k++)
		tr_close(&t[k]);
	free(t);
	free(ix);
	free(lane_of_b);
	tr_input_close(&in, NULL, 0);
	if (ret)
		rtr_overview_free(ov);
	return ret;
}

int64_t rtr_overview_time(struct rtr_overview *ov, uint64_t cycles)
{
	int64_t t = epoch_ns(&ov->clk, cycles);

	return t == INT64_MAX || t == INT64_MIN ? t : t - ov->origin_ns;
}

void rtr_overview_free(struct rtr_overview *ov)
{
	for (uint32_t i = 0; i < ov->nlanes; i++)
		free(ov->lanes[i].name);
	free(ov->lanes);
	free(ov->b);
	memset(ov, 0, sizeof(*ov));
}

/* The first bucket of @l ending at or after @t (buckets of a lane never overlap: ends sorted). */
static uint32_t first_from(const struct rtr_overview *ov, const struct rtr_overview_lane *l, int64_t t)
{
	uint32_t a = l->first, b = l->first + l->n;

	while (a < b) {
		uint32_t mid = a + (b - a) / 2;

		if (ov->b[mid].t1 < t)
			a = mid + 1;
		else
			b = mid;
	}
	return a;
}

uint64_t rtr_overview_events(const struct rtr_overview *ov, int64_t t0, int64_t t1)
{
	long double sum = 0;

	for (uint32_t l = 0; l < ov->nlanes; l++) {
		const struct rtr_overview_lane *ln = &ov->lanes[l];

		for (uint32_t i = first_from(ov, ln, t0); i < ln->first + ln->n; i++) {
			const struct rtr_overview_bucket *b = &ov->b[i];
			int64_t a = b->t0 > t0 ? b->t0 : t0, z = b->t1 < t1 ? b->t1 : t1;

			if (b->t0 >= t1)
				break;
			if (b->t1 == b->t0)
				sum += b->events;
			else if (z > a)
				sum += (long double)b->events * (z - a) / (b->t1 - b->t0);
		}
	}
	return (uint64_t)(sum + 0.5L);
}

double rtr_overview_density(const struct rtr_overview *ov, uint32_t lane, int64_t t0, int64_t t1,
			    uint32_t width, double *out)
{
	const struct rtr_overview_lane *ln = &ov->lanes[lane];
	double px_ns = (double)(t1 - t0) / width, sum = 0;

	memset(out, 0, width * sizeof(*out));
	for (uint32_t i = first_from(ov, ln, t0); i < ln->first + ln->n; i++) {
		const struct rtr_overview_bucket *b = &ov->b[i];
		double x0, x1, per;

		if (b->t0 >= t1)
			break;
		x0 = (double)(b->t0 - t0) / px_ns;
		x1 = (double)(b->t1 - t0) / px_ns;
		if (x1 - x0 < 1e-9) {
			/* a point: all of it in its column */
			if (x0 >= 0 && x0 < width) {
				out[(uint32_t)x0] += (double)b->events;
				sum += (double)b->events;
			}
			continue;
		}
		per = (double)b->events / (x1 - x0);
		for (double x = x0 < 0 ? 0 : x0, e = x1 > width ? width : x1; x < e;) {
			double col = (double)(int64_t)x, nx = col + 1 < e ? col + 1 : e;

			out[(uint32_t)col] += per * (nx - x);
			sum += per * (nx - x);
			x = nx;
		}
	}
	return sum;
}
