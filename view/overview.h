/* SPDX-License-Identifier: MIT */
/*
 * view/overview.h - what a front end draws of a trace too large for a
 * model in memory: each stream's events over time, read from the index
 * beside the trace (reader/index.h) without decoding an event.  Each
 * packet of the index is a bucket (its first and last item's times, its
 * events); a query spreads the buckets over the pixels of a window, so
 * every event of a 100 M-event trace is counted in the first frame.  A
 * front end draws this where its view holds more events than it loads,
 * and the scene of a slice (rtr_model_load_slice()) where it holds fewer
 * (Documentation/viewer.rst, "Traces larger than memory").
 *
 * Times are ns since @origin_ns, the epoch time of the trace's earliest
 * item, as the time ranges of rtr_model_load_slice() count them.
 * Read-only once built: any thread may query it.
 */
#ifndef RTR_VIEW_OVERVIEW_H
#define RTR_VIEW_OVERVIEW_H

#include <stddef.h>
#include <stdint.h>
#include "reader/clock.h"

/**
 * struct rtr_overview_lane - one stream (a CPU's, or the kernel's of a CPU).
 * @name: the stream file's name (its chunks' streams of that name are one lane).
 * @cpu: the CPU its packets name (UINT64_MAX: none).
 * @first: its buckets are rtr_overview.b[first .. first + n], in time order.
 * @n: how many.
 * @events: the events of its buckets.
 */
struct rtr_overview_lane {
	char *name;
	uint64_t cpu;
	uint32_t first, n;
	uint64_t events;
};

/* struct rtr_overview_bucket - a packet: its items' span [t0, t1] and its events. */
struct rtr_overview_bucket {
	int64_t t0, t1;
	uint64_t events;
};

/**
 * struct rtr_overview - the streams of one trace (its rotated chunks as one).
 * @origin_ns: epoch ns of time 0, the earliest item.
 * @end: the latest item's time (ns since @origin_ns).
 * @events: every lane's events.
 * @lanes: @nlanes, sorted by name.
 * @b: @nb buckets, grouped by lane.
 * @clk: the trace's clock (rtr_overview_time()).
 */
struct rtr_overview {
	int64_t origin_ns;
	int64_t end;
	uint64_t events;
	struct rtr_overview_lane *lanes;
	uint32_t nlanes;
	struct rtr_overview_bucket *b;
	uint32_t nb;
	struct tr_clock clk;
};

/*
 * rtr_overview_time() - the overview's time (ns since @ov->origin_ns) of
 * the trace's clock value @cycles (a recorder's watermark).
 */
int64_t rtr_overview_time(struct rtr_overview *ov, uint64_t cycles);

/*
 * rtr_overview_build() - the overview of the trace @arg names (a trace
 * directory or a directory of rotated chunks; not "-"): each chunk's index
 * opened (built or extended first when it has to be).
 * Return: 0; -1 with @err saying why (@ov then holds nothing).
 */
int rtr_overview_build(struct rtr_overview *ov, const char *arg, char *err, size_t errlen);

void rtr_overview_free(struct rtr_overview *ov);

/*
 * rtr_overview_events() - about how many events of the trace fall in
 * [@t0, @t1): a bucket's events counted in proportion to the part of its
 * span inside (all of them when it is a point inside).
 */
uint64_t rtr_overview_events(const struct rtr_overview *ov, int64_t t0, int64_t t1);

/*
 * rtr_overview_density() - lane @lane's events in each of @width pixel
 * columns over [@t0, @t1) (@t1 > @t0), into @out (@width of them): each
 * bucket's events spread evenly over its span.  Return: the events counted
 * (the sum of @out, up to rounding).
 */
double rtr_overview_density(const struct rtr_overview *ov, uint32_t lane, int64_t t0, int64_t t1,
			    uint32_t width, double *out);

#endif /* RTR_VIEW_OVERVIEW_H */
