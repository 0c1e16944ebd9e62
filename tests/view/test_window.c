// SPDX-License-Identifier: MIT
/*
 * tests/view/test_window.c - the scene's window query (view/scene.h) with
 * exact expectations: a lane of 1 M tasks 1 ns apart drawn at 1000 px; a
 * failed task inside merged spans kept red at every zoom; the ARP demo's
 * never-resolved task drawn to the right edge at every zoom; random lanes
 * against a count done by brute force; arrows capped and summarised with
 * the failures kept; sleeping regions.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include "bench/synth.h"
#include "tests/helpers.h"
#include "view/links.h"
#include "view/scene.h"

TestSuite(view_window, .timeout = 120);

#define MILLION 1000000u

static uint64_t count_sum(const struct rtr_item *it, uint32_t n)
{
	uint64_t s = 0;

	for (uint32_t i = 0; i < n; i++)
		s += it[i].count;
	return s;
}

/* Every item within the window, in x order, and spans made of several. */
static void check_items(const struct rtr_frame *f, uint32_t width)
{
	for (uint32_t i = 0; i < f->ntasks; i++) {
		const struct rtr_item *it = &f->tasks[i];

		cr_assert(it->x0 >= 0 && it->x1 <= width && it->x0 <= it->x1,
			  "item %u: [%f, %f] out of [0, %u]", i, it->x0, it->x1, width);
		cr_assert(it->count >= 1);
		cr_assert_eq(!!(it->flags & RTR_ITEM_SPAN), it->count > 1, "item %u: count %u, flags %#x",
			     i, it->count, it->flags);
		if (i && f->tasks[i - 1].lane == it->lane)
			cr_assert(f->tasks[i - 1].x0 <= it->x0, "item %u before its predecessor", i);
	}
}

Test(view_window, a_lane_of_1m_tasks_1ns_apart_at_1000px_is_one_item_per_pixel_at_most)
{
	struct rtr_model m;
	struct rtr_scene s;
	struct rtr_frame f = { 0 };
	struct rtr_window w = { .t0 = 0, .t1 = MILLION, .row0 = 0, .row1 = 1, .width = 1000 };

	cr_assert_eq(synth_lane(&m, MILLION, 1, 0), 0);
	cr_assert_eq(rtr_scene_build(&s, &m, 0), 0);
	cr_assert_eq(s.nrows, 1, "instants 1 ns apart share a row");
	cr_assert_eq(rtr_scene_window(&s, &w, &f), 0);
	check_items(&f, 1000);
	/* contiguous dust: one span over the whole width, standing for them all */
	cr_assert_eq(f.ntasks, 1);
	cr_assert_eq(f.tasks[0].count, MILLION);
	cr_assert_eq(f.tasks[0].x0, 0);
	cr_assert_eq(f.tasks[0].x1, 1000);
	cr_assert_eq(f.tasks[0].flags, RTR_ITEM_SPAN);
	cr_assert_eq(f.tasks_in_view, MILLION);

	/* zoomed in 1000 times: a pixel a task, still merged, each counted once */
	w.t0 = 500000;
	w.t1 = 501000;
	cr_assert_eq(rtr_scene_window(&s, &w, &f), 0);
	check_items(&f, 1000);
	cr_assert_eq(f.ntasks, 1);
	cr_assert_eq(f.tasks[0].count, 1000, "tasks 500000 .. 500999: %u", f.tasks[0].count);

	/* zoomed in a million times: each task is 1000 px apart, at most 2 in view */
	w.t0 = 10;
	w.t1 = 11;
	cr_assert_eq(rtr_scene_window(&s, &w, &f), 0);
	cr_assert_eq(f.ntasks, 1);
	cr_assert_eq(f.tasks[0].index, 10);
	cr_assert_eq(f.tasks[0].count, 1);
	cr_assert_eq(f.tasks[0].x0, 0);
	rtr_frame_free(&f);
	rtr_scene_free(&s);
	rtr_model_free(&m);
}

Test(view_window, tasks_with_gaps_between_pixels_stay_one_item_per_pixel_and_count_them_all)
{
	struct rtr_model m;
	struct rtr_scene s;
	struct rtr_frame f = { 0 };
	/* 1 M tasks 1 ns long, 5 ns apart, at 1000 px: 5000 tasks a pixel */
	struct rtr_window w = { .t0 = 0, .t1 = 5 * (int64_t)MILLION, .row0 = 0, .row1 = 1, .width = 1000 };

	cr_assert_eq(synth_lane(&m, MILLION, 5, 1), 0);
	cr_assert_eq(rtr_scene_build(&s, &m, 0), 0);
	for (int64_t span = w.t1; span >= 100; span /= 7) {
		w.t0 = 1234567 - span / 3;
		if (w.t0 < 0)
			w.t0 = 0;
		w.t1 = w.t0 + span;
		cr_assert_eq(rtr_scene_window(&s, &w, &f), 0);
		check_items(&f, 1000);
		cr_assert_leq(f.ntasks, 1000, "span %ld: %u items", (long)span, f.ntasks);
		/* tasks crossing [t0, t1): end >= t0 and start < t1 */
		{
			uint64_t first = w.t0 <= 1 ? 0 : (uint64_t)(w.t0 - 1 + 4) / 5;
			uint64_t last = (uint64_t)(w.t1 - 1) / 5;

			if (last >= MILLION)
				last = MILLION - 1;
			cr_assert_eq(count_sum(f.tasks, f.ntasks), last - first + 1, "span %ld", (long)span);
			cr_assert_eq(f.tasks_in_view, last - first + 1);
		}
	}
	rtr_frame_free(&f);
	rtr_scene_free(&s);
	rtr_model_free(&m);
}

/* The item that holds task @t in row @row, or NULL. */
static const struct rtr_item *item_of(const struct rtr_frame *f, uint32_t row, uint32_t t)
{
	for (uint32_t i = 0; i < f->ntasks; i++)
		if (f->tasks[i].lane == row && f->tasks[i].index == t)
			return &f->tasks[i];
	return NULL;
}

Test(view_window, a_failed_task_inside_merged_spans_is_drawn_red_at_every_zoom)
{
	struct rtr_model m;
	struct rtr_scene s;
	struct rtr_frame f = { 0 };
	struct rtr_window w = { .t0 = 0, .t1 = MILLION, .row0 = 0, .row1 = 1, .width = 1000 };
	const uint32_t bad = 500123;
	const struct rtr_item *it;

	cr_assert_eq(synth_lane(&m, MILLION, 1, 0), 0);
	m.tasks[bad].flags |= RTR_TASK_FAILED;
	cr_assert_eq(rtr_scene_build(&s, &m, 0), 0);
	cr_assert_eq(rtr_scene_window(&s, &w, &f), 0);
	check_items(&f, 1000);
	/* before its pixel, its pixel (500), after it */
	cr_assert_eq(f.ntasks, 3);
	cr_assert_eq(f.tasks[0].count, 500000);
	cr_assert_eq(f.tasks[0].x0, 0);
	cr_assert_eq(f.tasks[0].x1, 500);
	cr_assert_eq(f.tasks[0].flags, RTR_ITEM_SPAN);
	cr_assert_eq(f.tasks[1].index, bad);
	cr_assert_eq(f.tasks[1].count, 1000);
	cr_assert_eq(f.tasks[1].flags, RTR_ITEM_SPAN | RTR_ITEM_FAILED);
	cr_assert_eq(f.tasks[1].x0, 500);
	cr_assert_eq(f.tasks[1].x1, 501);
	cr_assert_eq(f.tasks[2].count, 499000);
	cr_assert_eq(f.tasks[2].x0, 501);
	cr_assert_eq(f.tasks[2].x1, 1000);
	cr_assert_eq(f.tasks[2].flags, RTR_ITEM_SPAN);

	/* every zoom level down to a few ns, the window around it */
	for (int64_t span = MILLION; span >= 4; span /= 3) {
		w.t0 = bad - span / 2;
		w.t1 = w.t0 + span;
		cr_assert_eq(rtr_scene_window(&s, &w, &f), 0);
		check_items(&f, 1000);
		it = item_of(&f, 0, bad);
		cr_assert_not_null(it, "span %ld: the failed task is nowhere", (long)span);
		cr_assert(it->flags & RTR_ITEM_FAILED, "span %ld: flags %#x", (long)span, it->flags);
		/* instants at 0 .. 999999: those in [t0, t1) */
		cr_assert_eq(count_sum(f.tasks, f.ntasks),
			     (uint64_t)((w.t1 < MILLION ? w.t1 : MILLION) - (w.t0 > 0 ? w.t0 : 0)),
			     "span %ld", (long)span);
	}
	rtr_frame_free(&f);
	rtr_scene_free(&s);
	rtr_model_free(&m);
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

Test(view_window, random_lanes_agree_with_brute_force_and_stay_under_a_pixel_each)
{
	struct rtr_model m;
	struct rtr_scene s;
	struct rtr_frame f = { 0 };
	uint64_t seed = 42;

	cr_assert_eq(synth_server(&m, 200000, 4, 1000, 7), 0);
	cr_assert_eq(rtr_scene_build(&s, &m, 0), 0);
	cr_assert_gt(s.nrows, 10);
	for (int round = 0; round < 40; round++) {
		int64_t span = 1 + (int64_t)(rnd(&seed) % (uint64_t)(m.end + 1));
		int64_t t0 = (int64_t)(rnd(&seed) % (uint64_t)(m.end + 1)) - span / 2;
		uint32_t width = 1 + (uint32_t)(rnd(&seed) % 2000);
		struct rtr_window w = { .t0 = t0, .t1 = t0 + span, .row0 = 0, .row1 = s.nrows,
					.width = width };
		uint64_t want = 0, runs_want = 0;
		uint32_t *per_lane = calloc(s.nrows + m.ncpus, sizeof(*per_lane));

		cr_assert_eq(rtr_scene_window(&s, &w, &f), 0);
		check_items(&f, width);
		for (uint32_t t = 0; t < m.ntasks; t++)
			if (m.tasks[t].end >= w.t0 && m.tasks[t].created < w.t1)
				want++;
		cr_assert_eq(count_sum(f.tasks, f.ntasks), want, "round %d", round);
		for (uint32_t r = 0; r < m.nruns; r++)
			if (m.runs[r].end >= w.t0 && m.runs[r].start < w.t1)
				runs_want++;
		cr_assert_eq(count_sum(f.runs, f.nruns), runs_want, "round %d", round);
		for (uint32_t i = 0; i < f.ntasks; i++) {
			const struct rtr_item *it = &f.tasks[i];
			const struct rtr_model_task *t = &m.tasks[it->index];

			per_lane[it->lane]++;
			cr_assert_eq(s.task_row[it->index], it->lane);
			/* a span's representative: failed when any of its tasks failed */
			cr_assert_eq(!!(it->flags & RTR_ITEM_FAILED), !!(t->flags & RTR_TASK_FAILED) &&
				     !(t->flags & RTR_TASK_NEVER_RESOLVED));
			cr_assert_eq(!!(it->flags & RTR_ITEM_NEVER), !!(t->flags & RTR_TASK_NEVER_RESOLVED));
		}
		for (uint32_t i = 0; i < f.nruns; i++)
			per_lane[s.nrows + f.runs[i].lane]++;
		for (uint32_t l = 0; l < s.nrows + m.ncpus; l++)
			cr_assert_leq(per_lane[l], width + 2, "round %d lane %u: %u items at %u px", round,
				      l, per_lane[l], width);
		free(per_lane);
	}
	rtr_frame_free(&f);
	rtr_scene_free(&s);
	rtr_model_free(&m);
}

Test(view_window, arrows_are_capped_merged_then_summarised_with_failures_kept)
{
	struct rtr_model m;
	struct rtr_scene s;
	struct rtr_frame f = { 0 };
	struct rtr_window w = { .row0 = 0, .width = 1000, .max_arrows = 500 };
	uint64_t visible = 0, hist = 0, failed_reads = 0;
	bool seen_failure = false;

	cr_assert_eq(synth_server(&m, 100000, 4, 1000, 3), 0);
	cr_assert_eq(rtr_scene_build(&s, &m, 0), 0);
	w.row1 = s.nrows;
	/* a few arrows: every one of them */
	w.t0 = 5000000;
	w.t1 = 5000000 + 3000;
	cr_assert_eq(rtr_scene_window(&s, &w, &f), 0);
	cr_assert_eq(f.arrow_detail, RTR_ARROWS_EXACT);
	for (uint32_t i = 0; i < s.narrows; i++) {
		const struct rtr_scene_arrow *a = &s.arrows[i];
		uint32_t rf = s.task_row[a->from], rt = s.task_row[a->to];

		if (a->ts >= w.t0 && a->tf < w.t1 && !rtr_scene_arrow_hidden(a) &&
		    (rf < rt ? rf : rt) < w.row1)
			visible++;
	}
	cr_assert_gt(visible, 0);
	cr_assert_eq(f.narrows, visible);

	/* the whole trace: far more than 500 */
	w.t0 = 0;
	w.t1 = m.end + 1;
	cr_assert_eq(rtr_scene_window(&s, &w, &f), 0);
	cr_assert_gt(f.arrows_in_view, 500);
	cr_assert_leq(f.narrows, 500);
	cr_assert_eq(f.arrow_detail, RTR_ARROWS_SUMMARY);
	for (uint32_t k = 0; k < RTR_SCENE_ARROW_KINDS; k++)
		for (uint32_t px = 0; px < w.width; px++)
			hist += f.arrow_hist[k * w.width + px];
	visible = 0;
	for (uint32_t i = 0; i < s.narrows; i++) {
		const struct rtr_scene_arrow *a = &s.arrows[i];

		if (a->ts >= w.t0 && a->ts < w.t1 && !rtr_scene_arrow_hidden(a))
			visible++;
		if (rtr_scene_arrow_failed(&s, a))
			failed_reads++;
	}
	cr_assert_eq(hist, visible, "the summary counts every arrow once: %lu, %lu",
		     (unsigned long)hist, (unsigned long)visible);
	/* 100000 / 997 requests failed: a resolve that fails and a read of each */
	cr_assert_eq(failed_reads, 2 * (100000 / 997));
	cr_assert_eq(f.narrows, 2 * (100000 / 997), "every failure drawn");
	for (uint32_t i = 0; i < f.narrows; i++)
		cr_assert(rtr_scene_arrow_failed(&s, &s.arrows[f.arrows[i].arrow]));

	/* in between: merged by class and pixel, a failure wins its pixel */
	w.max_arrows = 4000;
	w.t1 = m.end / 20;
	cr_assert_eq(rtr_scene_window(&s, &w, &f), 0);
	cr_assert_eq(f.arrow_detail, RTR_ARROWS_MERGED);
	cr_assert_leq(f.narrows, 4000);
	visible = 0;
	for (uint32_t i = 0; i < f.narrows; i++) {
		visible += f.arrows[i].count;
		seen_failure |= rtr_scene_arrow_failed(&s, &s.arrows[f.arrows[i].arrow]);
	}
	cr_assert(seen_failure);
	cr_assert_leq(visible, f.arrows_in_view);
	cr_assert_gt(visible, f.narrows);
	rtr_frame_free(&f);
	rtr_scene_free(&s);
	rtr_model_free(&m);
}

Test(view_window, sleeping_regions_are_where_no_cpu_runs)
{
	struct rtr_model m;
	struct rtr_scene s;
	struct rtr_frame f = { 0 };
	struct rtr_window w = { .t0 = 0, .t1 = 1000, .row0 = 0, .row1 = 1, .width = 100 };

	/* two CPUs: runs [100, 200) and [150, 300) on them, then [600, 700) */
	cr_assert_eq(synth_server(&m, 3, 2, 1000, 1), 0);
	m.runs[0] = (struct rtr_model_run){ .start = 100, .end = 200, .task = 2, .cpu = 0 };
	m.runs[1] = (struct rtr_model_run){ .start = 150, .end = 300, .task = 3, .cpu = 1 };
	m.runs[2] = (struct rtr_model_run){ .start = 600, .end = 700, .task = 4, .cpu = 0 };
	m.cpu_runs[0] = 0;
	m.cpu_runs[1] = 2;
	m.cpu_runs[2] = 1;
	m.cpus[0] = (struct rtr_model_cpu){ .first = 0, .last = 900, .run_first = 0, .nruns = 2 };
	m.cpus[1] = (struct rtr_model_cpu){ .first = 50, .last = 800, .run_first = 2, .nruns = 1 };
	cr_assert_eq(rtr_scene_build(&s, &m, 0), 0);
	cr_assert_eq(s.sleep_off[1], 3);
	cr_assert_eq(s.sleep[0], 0);
	cr_assert_eq(s.sleep[1], 100);
	cr_assert_eq(s.sleep[2], 300);
	cr_assert_eq(s.sleep[3], 600);
	cr_assert_eq(s.sleep[4], 700);
	cr_assert_eq(s.sleep[5], 900);
	cr_assert_eq(rtr_scene_window(&s, &w, &f), 0);
	cr_assert_eq(f.nsleep, 3);
	cr_assert_eq(f.sleep[1].x0, 30);
	cr_assert_eq(f.sleep[1].x1, 60);
	/* zoomed out 1000 times: narrower than a pixel, merged, then dropped */
	w.t1 = 1000000;
	cr_assert_eq(rtr_scene_window(&s, &w, &f), 0);
	cr_assert_eq(f.nsleep, 0);
	rtr_frame_free(&f);
	rtr_scene_free(&s);
	rtr_model_free(&m);
}

/* A counter of @n samples, 1 ns apart from 0, sample i of value i % 1000. */
static void add_counter(struct rtr_model *m, uint32_t n)
{
	m->counters = calloc(1, sizeof(*m->counters));
	m->samples = malloc(((size_t)n + 1) * sizeof(*m->samples));
	cr_assert(m->counters && m->samples);
	m->ncounters = 1;
	m->nsamples = n;
	m->counters[0] = (struct rtr_model_counter){ .nsamples = n, .min = 0, .max = 999 };
	for (uint32_t i = 0; i < n; i++)
		m->samples[i] = (struct rtr_model_sample){ .ts = i, .value = i % 1000,
							   .task = RTR_MODEL_NONE };
}

Test(view_window, a_counter_of_1m_changes_is_a_column_a_pixel_with_its_range)
{
	struct rtr_model m;
	struct rtr_scene s;
	struct rtr_frame f = { 0 };
	struct rtr_window w = { .t0 = 0, .t1 = MILLION, .row0 = 0, .row1 = 1, .width = 1000 };
	uint64_t sum = 0;

	cr_assert_eq(synth_lane(&m, MILLION, 1, 0), 0);
	add_counter(&m, MILLION);
	cr_assert_eq(rtr_scene_build(&s, &m, 0), 0);
	cr_assert_eq(rtr_scene_window(&s, &w, &f), 0);
	cr_assert_eq(f.ncounters, 1000);
	for (uint32_t p = 0; p < 1000; p++) {
		const struct rtr_counter_item *c = &f.counters[p];

		cr_assert_eq(c->x0, p);
		cr_assert_eq(c->count, 1000, "column %u: %u changes", p, c->count);
		cr_assert_eq(c->min, 0);
		cr_assert_eq(c->max, 999);
		cr_assert_eq(c->value, 999);
		if (p < 999)
			cr_assert_eq(c->x1, p + 1);
		sum += c->count;
	}
	cr_assert_eq(sum, MILLION);
	/* the trace's last item is at 999999: the last step ends there */
	cr_assert_float_eq(f.counters[999].x1, 999.999, 1e-9);

	/* zoomed in: each change a step of its own, from the value before */
	w.t0 = 1500;
	w.t1 = 1510;
	cr_assert_eq(rtr_scene_window(&s, &w, &f), 0);
	cr_assert_eq(f.ncounters, 10);
	for (uint32_t i = 0; i < 10; i++) {
		const struct rtr_counter_item *c = &f.counters[i];

		cr_assert_eq(c->x0, 100 * i);
		cr_assert_eq(c->x1, i < 9 ? 100 * (i + 1) : 1000);
		cr_assert_eq(c->count, 1);
		cr_assert_eq(c->min, 499 + i);
		cr_assert_eq(c->max, 500 + i);
		cr_assert_eq(c->value, 500 + i);
	}
	/* between two changes: the value it had, across the window */
	rtr_scene_free(&s);
	m.samples[MILLION - 1].ts = 2 * MILLION;	/* a gap: 999998, then 2000000 */
	m.traces[0].last = 3 * MILLION;
	cr_assert_eq(rtr_scene_build(&s, &m, 0), 0);
	w.t0 = MILLION + 10;
	w.t1 = MILLION + 20;
	cr_assert_eq(rtr_scene_window(&s, &w, &f), 0);
	cr_assert_eq(f.ncounters, 1);
	cr_assert_eq(f.counters[0].count, 0);
	cr_assert_eq(f.counters[0].value, 998);
	cr_assert_eq(f.counters[0].x0, 0);
	cr_assert_eq(f.counters[0].x1, 1000);
	rtr_frame_free(&f);
	rtr_scene_free(&s);
	rtr_model_free(&m);
}

Test(view_window, markers_on_cpu_and_thread_lanes_merge_into_counted_ticks)
{
	struct rtr_model m;
	struct rtr_scene s;
	struct rtr_frame f = { 0 };
	struct rtr_window w = { .t0 = 0, .t1 = MILLION, .row0 = 0, .row1 = 1, .width = 1000 };

	/* 1 M markers 1 ns apart on CPU 0, from threads 0 and 1 in turn, every tenth from none */
	cr_assert_eq(synth_lane(&m, 10, 1000, 0), 0);
	m.markers = calloc(MILLION, sizeof(*m.markers));
	m.threads = calloc(2, sizeof(*m.threads));
	cr_assert(m.markers && m.threads);
	m.nmarkers = MILLION;
	m.nthreads = 2;
	for (uint32_t i = 0; i < MILLION; i++)
		m.markers[i] = (struct rtr_model_marker){ .ts = i, .cpu = 0,
			.thread = i % 10 == 9 ? RTR_MODEL_NONE : i % 2 };
	cr_assert_eq(rtr_scene_build(&s, &m, 0), 0);
	cr_assert_eq(rtr_scene_window(&s, &w, &f), 0);
	cr_assert_eq(f.ncpu_marks, 1);
	cr_assert_eq(f.cpu_marks[0].count, MILLION);
	cr_assert_eq(f.cpu_marks[0].flags, RTR_ITEM_SPAN);
	cr_assert_eq(f.cpu_marks[0].index, 0, "the first marker stands for them");
	cr_assert_eq(f.nthread_marks, 2);
	cr_assert_eq(f.thread_marks[0].lane, 0);
	cr_assert_eq(f.thread_marks[0].count, 500000);
	cr_assert_eq(f.thread_marks[1].lane, 1);
	cr_assert_eq(f.thread_marks[1].count, 400000);
	/* zoomed in: each a tick of its own */
	w.t0 = 100;
	w.t1 = 110;
	cr_assert_eq(rtr_scene_window(&s, &w, &f), 0);
	cr_assert_eq(f.ncpu_marks, 10);
	for (uint32_t k = 0; k < 10; k++) {
		cr_assert_eq(f.cpu_marks[k].x0, 100 * k);
		cr_assert_eq(f.cpu_marks[k].index, 100 + k);
		cr_assert_eq(f.cpu_marks[k].count, 1);
		cr_assert_eq(f.cpu_marks[k].flags, 0);
	}
	/* thread 0 wrote 100, 102, ... 108; thread 1 101, 103, 105, 107 (109: no thread) */
	cr_assert_eq(f.nthread_marks, 9);
	rtr_frame_free(&f);
	rtr_scene_free(&s);
	rtr_model_free(&m);
}

/*
 * Losses: 100,000 on one CPU lane, 1 ns apart, each of 2 events but every
 * tenth of 1 packet; at 1000 px they are 1000 items (a column each) whose
 * sums are every loss's; zoomed in, each its own item at its own x; one at
 * the window's end (a loss is seen at its packet's end, the trace's last
 * time) is drawn at the right edge.
 */
Test(view_window, losses_are_a_counted_mark_a_column_of_their_lane_with_their_sums)
{
	struct rtr_model m;
	struct rtr_scene s;
	struct rtr_frame f = { 0 };
	struct rtr_window w = { .t0 = 0, .t1 = 100000, .row0 = 0, .row1 = 1, .width = 1000 };
	const uint32_t n = 100000;
	uint64_t ev = 0, pk = 0, cnt = 0;

	cr_assert_eq(synth_lane(&m, 10, 1000, 0), 0);
	m.losses = calloc(n + 1, sizeof(*m.losses));
	cr_assert(m.losses);
	for (uint32_t i = 0; i < n; i++)
		m.losses[m.nlosses++] = (struct rtr_model_loss){ .ts = i, .cpu = 0,
			.count = i % 10 ? 2 : 1, .kind = i % 10 ? RTR_LOSS_EVENTS : RTR_LOSS_PACKETS };
	m.losses[m.nlosses++] = (struct rtr_model_loss){ .ts = n, .cpu = 0, .count = 7 };
	cr_assert_eq(rtr_scene_build(&s, &m, 0), 0);
	cr_assert_eq(rtr_scene_window(&s, &w, &f), 0);
	cr_assert_eq(f.nlosses, 1000, "%u items", f.nlosses);
	for (uint32_t i = 0; i < f.nlosses; i++) {
		const struct rtr_loss_item *it = &f.losses[i];

		cr_assert_eq(it->lane, 0);
		cr_assert(it->x >= 0 && it->x <= w.width - 1, "item %u at %f", i, it->x);
		if (i)
			cr_assert(it->x > f.losses[i - 1].x, "item %u not right of the one before", i);
		ev += it->events;
		pk += it->packets;
		cnt += it->count;
	}
	/* 90,000 of 2 events, 10,000 of 1 packet, and the last one's 7 */
	cr_assert_eq(ev, 180000 + 7);
	cr_assert_eq(pk, 10000);
	cr_assert_eq(cnt, n + 1);
	cr_assert_eq(f.losses[999].x, 999, "the loss at t1 is drawn at the right edge");
	cr_assert_eq(f.losses[999].count, 101, "the last column: 100 losses, and the one at t1");
	/* zoomed in on [100, 110): ten losses, each its own */
	w.t0 = 100;
	w.t1 = 110;
	cr_assert_eq(rtr_scene_window(&s, &w, &f), 0);
	cr_assert_eq(f.nlosses, 11, "ten, and the one at t1 (%u)", f.nlosses);
	for (uint32_t k = 0; k < 10; k++) {
		cr_assert_eq(f.losses[k].x, 100 * k);
		cr_assert_eq(f.losses[k].index, 100 + k);
		cr_assert_eq(f.losses[k].count, 1);
		cr_assert_eq(f.losses[k].packets, k ? 0 : 1);
		cr_assert_eq(f.losses[k].events, k ? 2 : 0);
	}
	/* none in view: none drawn */
	w.t0 = n + 10;
	w.t1 = n + 20;
	cr_assert_eq(rtr_scene_window(&s, &w, &f), 0);
	cr_assert_eq(f.nlosses, 0);
	rtr_frame_free(&f);
	rtr_scene_free(&s);
	rtr_model_free(&m);
}

/*
 * Notes: 10,000 1 ns apart at 1000 px are a mark a pixel column, each
 * counting its 10; zoomed in, each its own at its x.  Pauses: two wide
 * ones their own regions, clamped to the window; 500 narrow ones a pixel
 * apart merged with the region they touch.
 */
Test(view_window, notes_are_a_counted_mark_a_column_and_pauses_shaded_regions)
{
	struct rtr_model m;
	struct rtr_scene s;
	struct rtr_frame f = { 0 };
	struct rtr_window w = { .t0 = 0, .t1 = 10000, .row0 = 0, .row1 = 1, .width = 1000 };
	uint64_t n = 0;

	cr_assert_eq(synth_lane(&m, 10, 1000, 0), 0);
	m.notes = calloc(10000, sizeof(*m.notes));
	m.pauses = calloc(502, sizeof(*m.pauses));
	cr_assert(m.notes && m.pauses);
	for (uint32_t i = 0; i < 10000; i++)
		m.notes[m.nnotes++] = (struct rtr_model_note){ .ts = i, .thread = RTR_MODEL_NONE };
	/* by their end: one from before the window to 2000, 500 of 2 ns at 5000.., one to after it */
	m.pauses[m.npauses++] = (struct rtr_model_pause){ .start = -500, .end = 2000 };
	for (uint32_t i = 0; i < 500; i++)
		m.pauses[m.npauses++] = (struct rtr_model_pause){ .start = 5000 + 4 * i, .end = 5002 + 4 * i };
	m.pauses[m.npauses++] = (struct rtr_model_pause){ .start = 9000, .end = 20000 };
	cr_assert_eq(rtr_scene_build(&s, &m, 0), 0);
	cr_assert_eq(rtr_scene_window(&s, &w, &f), 0);
	cr_assert_eq(f.nnotes, 1000, "%u marks", f.nnotes);
	for (uint32_t i = 0; i < f.nnotes; i++) {
		cr_assert_eq(f.notes[i].index, 10 * i);
		cr_assert_eq(f.notes[i].x0, i);
		n += f.notes[i].count;
	}
	cr_assert_eq(n, 10000);
	cr_assert_eq(f.npauses, 3, "%u regions", f.npauses);
	cr_assert_eq(f.pauses[0].x0, 0, "clamped to the window");
	cr_assert_eq(f.pauses[0].x1, 200);
	cr_assert_eq(f.pauses[1].x0, 500);
	cr_assert_eq(f.pauses[1].count, 500, "the narrow ones a pixel apart: one region");
	cr_assert(f.pauses[1].x1 > 699.79 && f.pauses[1].x1 < 699.81, "to the last one's end: %f", f.pauses[1].x1);
	cr_assert_eq(f.pauses[2].x0, 900);
	cr_assert_eq(f.pauses[2].x1, 1000, "clamped to the window");
	/* zoomed in */
	w.t0 = 100;
	w.t1 = 110;
	cr_assert_eq(rtr_scene_window(&s, &w, &f), 0);
	cr_assert_eq(f.nnotes, 10);
	for (uint32_t k = 0; k < 10; k++) {
		cr_assert_eq(f.notes[k].x0, 100 * k);
		cr_assert_eq(f.notes[k].index, 100 + k);
		cr_assert_eq(f.notes[k].count, 1);
	}
	cr_assert_eq(f.npauses, 1, "inside the first pause");
	cr_assert(f.pauses[0].x0 == 0 && f.pauses[0].x1 == 1000, "the whole width: %f %f", f.pauses[0].x0,
		  f.pauses[0].x1);
	rtr_frame_free(&f);
	rtr_scene_free(&s);
	rtr_model_free(&m);
}

/*
 * The links of a task's details (view/links.h), from its arrows: task 0
 * read 1 twice (listed once, at the first), tried 2 and then read what 2
 * became (3: no longer a wait), tried 4 (still waiting), was resolved by
 * 5, resolved 6, woke 7 and was woken by 8; 9 .. 108 read it, of which the
 * first 50 are listed and the other 50 counted.
 */
Test(view_window, a_tasks_links_are_its_arrows_each_task_once_a_kind)
{
	struct rtr_model m;
	struct rtr_scene s;
	struct rtr_task_link *l;
	uint32_t n, more[RTR_LINK_KINDS], na = 0;

	cr_assert_eq(synth_lane(&m, 110, 10, 5), 0);	/* 109: no arrow */
	for (uint32_t t = 0; t < m.ntasks; t++)
		m.tasks[t].becomes = m.tasks[t].became_from = RTR_MODEL_NONE;
	m.tasks[2].becomes = 3;
	m.tasks[3].became_from = 2;
	free(m.arrows);
	m.arrows = calloc(200, sizeof(*m.arrows));
	cr_assert(m.arrows);
#define ARROW(T, K, F, TO) (m.arrows[na++] = (struct rtr_model_arrow){ .ts = (T), .t_from = (T), \
			    .kind = (K), .from = (F), .to = (TO) })
	ARROW(10, RTR_ARROW_READ, 1, 0);	/* a read points at the reader */
	ARROW(11, RTR_ARROW_TRY_READ, 2, 0);
	ARROW(12, RTR_ARROW_TRY_READ, 4, 0);
	ARROW(13, RTR_ARROW_READ, 1, 0);
	ARROW(14, RTR_ARROW_READ, 3, 0);
	ARROW(15, RTR_ARROW_RESOLVE, 5, 0);
	ARROW(16, RTR_ARROW_RESOLVE, 0, 6);
	ARROW(17, RTR_ARROW_SIGNAL, 0, 7);
	ARROW(18, RTR_ARROW_SIGNAL, 8, 0);
	for (uint32_t t = 9; t < 109; t++)
		ARROW(100 + t, RTR_ARROW_READ, 0, t);
	ARROW(300, RTR_ARROW_SIGNAL, 50, 51);	/* between others: none of its */
#undef ARROW
	m.narrows = na;
	cr_assert_eq(rtr_scene_build(&s, &m, 0), 0);
	cr_assert_eq(rtr_task_links(&s, 0, 50, &l, &n, more), 0);
	cr_assert_eq(n, 7 + 50, "%u links", n);
	cr_assert_eq(l[0].kind, RTR_LINK_READ);
	cr_assert(l[0].task == 1 && l[0].ts == 10, "1, once, at its first read");
	cr_assert(l[1].kind == RTR_LINK_READ && l[1].task == 3);
	cr_assert(l[2].kind == RTR_LINK_WAITS_FOR && l[2].task == 4, "2 was read as 3: only 4 is waited for");
	cr_assert(l[3].kind == RTR_LINK_READ_BY && l[3].task == 9 && l[3].ts == 109);
	for (uint32_t i = 3; i < 53; i++)
		cr_assert(l[i].kind == RTR_LINK_READ_BY && l[i].task == 6 + i, "read by, in time order: %u", i);
	cr_assert(l[53].kind == RTR_LINK_RESOLVED_BY && l[53].task == 5);
	cr_assert(l[54].kind == RTR_LINK_RESOLVED && l[54].task == 6);
	cr_assert(l[55].kind == RTR_LINK_WOKEN_BY && l[55].task == 8);
	cr_assert(l[56].kind == RTR_LINK_WOKE && l[56].task == 7);
	cr_assert_eq(more[RTR_LINK_READ_BY], 50);
	for (unsigned k = 0; k < RTR_LINK_KINDS; k++)
		if (k != RTR_LINK_READ_BY)
			cr_assert_eq(more[k], 0, "kind %u", k);
	cr_assert_str_eq(rtr_link_kind_str(RTR_LINK_WAITS_FOR), "waits for");
	free(l);
	/* seen from 60: it read 0 */
	cr_assert_eq(rtr_task_links(&s, 60, 50, &l, &n, more), 0);
	cr_assert(n == 1 && l[0].kind == RTR_LINK_READ && l[0].task == 0);
	free(l);
	/* a task with no arrow: none */
	cr_assert_eq(rtr_task_links(&s, 109, 50, &l, &n, more), 0);
	cr_assert(n == 0 && !l);
	rtr_scene_free(&s);
	rtr_model_free(&m);
}

/*
 * Where a task ran (rtr_task_where()): by CPU, in order of first run, with
 * each one's runs and time; by thread, the runs whose thread is unknown
 * left out.
 */
Test(view_window, where_a_task_ran_by_cpu_and_by_thread)
{
	struct rtr_model m;
	struct rtr_scene s;
	struct rtr_task_where *w;
	uint32_t n;

	cr_assert_eq(synth_lane(&m, 2, 100, 50), 0);
	free(m.runs);
	m.runs = calloc(4, sizeof(*m.runs));
	cr_assert(m.runs);
	m.runs[0] = (struct rtr_model_run){ .start = 0, .end = 10, .task = 0, .cpu = 1, .thread = 0 };
	m.runs[1] = (struct rtr_model_run){ .start = 20, .end = 25, .task = 0, .cpu = 0,
					    .thread = RTR_MODEL_NONE };
	m.runs[2] = (struct rtr_model_run){ .start = 30, .end = 33, .task = 0, .cpu = 1, .thread = 0 };
	m.runs[3] = (struct rtr_model_run){ .start = 100, .end = 150, .task = 1, .cpu = 0, .thread = 1 };
	m.nruns = 4;
	m.tasks[0].run_first = 0;
	m.tasks[0].nruns = 3;
	m.tasks[1].run_first = 3;
	m.tasks[1].nruns = 1;
	s = (struct rtr_scene){ .m = &m };
	cr_assert_eq(rtr_task_where(&s, 0, false, &w, &n), 0);
	cr_assert_eq(n, 2);
	cr_assert(w[0].index == 1 && w[0].runs == 2 && w[0].ns == 13, "cpu 1 first: %u %u %ld", w[0].index,
		  w[0].runs, (long)w[0].ns);
	cr_assert(w[1].index == 0 && w[1].runs == 1 && w[1].ns == 5);
	free(w);
	cr_assert_eq(rtr_task_where(&s, 0, true, &w, &n), 0);
	cr_assert(n == 1 && w[0].index == 0 && w[0].runs == 2 && w[0].ns == 13, "the unknown thread's run left out");
	free(w);
	cr_assert_eq(rtr_task_where(&s, 1, true, &w, &n), 0);
	cr_assert(n == 1 && w[0].index == 1 && w[0].ns == 50);
	free(w);
	rtr_model_free(&m);
}

/*
 * The counter changes a task made (rtr_task_counters()): across counters,
 * in time order, each with its change from the counter's previous sample
 * (from 0 for the first); the first @max of them, all counted.
 */
Test(view_window, a_tasks_counter_changes_in_time_order_with_their_deltas)
{
	struct rtr_model m;
	struct rtr_scene s;
	struct rtr_task_counter *c;
	uint32_t n;
	uint64_t all;

	cr_assert_eq(synth_lane(&m, 2, 100, 50), 0);
	m.counters = calloc(2, sizeof(*m.counters));
	m.samples = calloc(6, sizeof(*m.samples));
	cr_assert(m.counters && m.samples);
	/* counter 0: 5 (task 0), 8 (task 1), 2 (task 0); counter 1: 10 (task 0), 4 (task 1), 7 (task 0) */
	m.counters[0] = (struct rtr_model_counter){ .sample_first = 0, .nsamples = 3 };
	m.counters[1] = (struct rtr_model_counter){ .sample_first = 3, .nsamples = 3 };
	m.ncounters = 2;
	m.samples[0] = (struct rtr_model_sample){ .ts = 30, .value = 5, .task = 0 };
	m.samples[1] = (struct rtr_model_sample){ .ts = 40, .value = 8, .task = 1 };
	m.samples[2] = (struct rtr_model_sample){ .ts = 60, .value = 2, .task = 0 };
	m.samples[3] = (struct rtr_model_sample){ .ts = 10, .value = 10, .task = 0 };
	m.samples[4] = (struct rtr_model_sample){ .ts = 45, .value = 4, .task = 1 };
	m.samples[5] = (struct rtr_model_sample){ .ts = 50, .value = 7, .task = 0 };
	m.nsamples = 6;
	s = (struct rtr_scene){ .m = &m };
	cr_assert_eq(rtr_task_counters(&s, 0, 50, &c, &n, &all), 0);
	cr_assert(n == 4 && all == 4, "%u of %lu", n, (unsigned long)all);
	const struct { uint32_t counter; int64_t ts, value, delta; } want[] = {
		{ 1, 10, 10, 10 }, { 0, 30, 5, 5 }, { 1, 50, 7, 3 }, { 0, 60, 2, -6 },
	};
	for (uint32_t i = 0; i < 4; i++)
		cr_expect(c[i].counter == want[i].counter && c[i].ts == want[i].ts &&
			  c[i].value == want[i].value && c[i].delta == want[i].delta,
			  "change %u: counter %u at %ld: %ld (%+ld)", i, c[i].counter, (long)c[i].ts,
			  (long)c[i].value, (long)c[i].delta);
	free(c);
	cr_assert_eq(rtr_task_counters(&s, 0, 2, &c, &n, &all), 0);
	cr_assert(n == 2 && all == 4 && c[0].ts == 10 && c[1].ts == 30, "the first two in time");
	free(c);
	cr_assert_eq(rtr_task_counters(&s, 1, 50, &c, &n, &all), 0);
	cr_assert(n == 2 && c[0].delta == 3 && c[1].delta == -6, "task 1: +3 (5 to 8), -6 (10 to 4)");
	free(c);
	rtr_model_free(&m);
}

/*
 * Two traces, the second begun 5 ms after the first: with their starts
 * aligned, each one's markers move with it and stay in time order.
 */
Test(view_window, aligned_starts_move_each_traces_markers_with_it)
{
	const int64_t later = 5000000;
	struct rtr_model m;
	struct rtr_scene s;
	struct rtr_frame f = { 0 };
	struct rtr_window w = { .t0 = 0, .t1 = 100, .row0 = 0, .row1 = 2, .width = 100 };

	/* trace 0: task 0 on CPU 0 from 0; trace 1: task 1 on CPU 1 from 5 ms */
	cr_assert_eq(synth_lane(&m, 2, 1000, 10), 0);
	m.traces = realloc(m.traces, 2 * sizeof(*m.traces));
	m.cpus = realloc(m.cpus, 2 * sizeof(*m.cpus));
	m.markers = calloc(4, sizeof(*m.markers));
	cr_assert(m.traces && m.cpus && m.markers);
	m.traces[1] = m.traces[0];
	m.traces[0].ncpus = m.traces[1].ncpus = 1;
	m.traces[1].cpu_first = 1;
	m.cpus[1] = m.cpus[0];
	m.cpus[1].trace = 1;
	m.ntraces = m.ncpus = 2;
	m.tasks[1].trace = 1;
	m.tasks[1].created = later;
	m.tasks[1].resolved = m.tasks[1].end = later + 10;
	m.traces[0].last = m.cpus[0].last = 10;
	m.traces[1].first = m.cpus[1].first = later;
	m.traces[1].last = m.cpus[1].last = m.end = later + 10;
	m.traces[0].events = m.traces[1].events = 2;
	/* by time: trace 0's at 3 and 7, trace 1's at 5 ms + 2 and 5 ms + 5 */
	m.markers[0] = (struct rtr_model_marker){ .ts = 3, .cpu = 0, .thread = RTR_MODEL_NONE };
	m.markers[1] = (struct rtr_model_marker){ .ts = 7, .cpu = 0, .thread = RTR_MODEL_NONE };
	m.markers[2] = (struct rtr_model_marker){ .ts = later + 2, .cpu = 1, .thread = RTR_MODEL_NONE };
	m.markers[3] = (struct rtr_model_marker){ .ts = later + 5, .cpu = 1, .thread = RTR_MODEL_NONE };
	m.nmarkers = 4;
	cr_assert_eq(rtr_scene_build(&s, &m, RTR_SCENE_ALIGN_START), 0);
	cr_assert_eq(m.tasks[1].created, 0, "the second trace moved to 0");
	static const int64_t ts[4] = { 2, 3, 5, 7 };
	static const uint32_t cpu[4] = { 1, 0, 1, 0 };

	for (uint32_t i = 0; i < 4; i++) {
		cr_expect_eq(m.markers[i].ts, ts[i], "marker %u at %lld", i, (long long)m.markers[i].ts);
		cr_expect_eq(m.markers[i].cpu, cpu[i], "marker %u on CPU %u", i, m.markers[i].cpu);
	}
	/* and the window finds them there: two ticks a CPU within the first 100 ns */
	cr_assert_eq(rtr_scene_window(&s, &w, &f), 0);
	cr_assert_eq(f.ncpu_marks, 4);
	for (uint32_t i = 0; i < f.ncpu_marks; i++)
		cr_expect(f.cpu_marks[i].x0 >= 2 && f.cpu_marks[i].x0 <= 7, "tick %u at %f", i,
			  f.cpu_marks[i].x0);
	rtr_frame_free(&f);
	rtr_scene_free(&s);
	rtr_model_free(&m);
}

Test(view_window, bad_windows_are_refused)
{
	struct rtr_model m;
	struct rtr_scene s;
	struct rtr_frame f = { 0 };
	const struct rtr_window bad[] = {
		{ .t0 = 10, .t1 = 10, .row1 = 1, .width = 100 },
		{ .t0 = 10, .t1 = 5, .row1 = 1, .width = 100 },
		{ .t0 = 0, .t1 = 10, .row1 = 1, .width = 0 },
		{ .t0 = 0, .t1 = 10, .row1 = 1, .width = RTR_SCENE_MAX_WIDTH + 1 },
		{ .t0 = 0, .t1 = 10, .row0 = 2, .row1 = 1, .width = 100 },
		{ .t0 = INT64_MIN, .t1 = INT64_MAX, .row1 = 1, .width = 100 },
	};
	struct rtr_window huge = { .t0 = INT64_MIN / 2, .t1 = INT64_MAX / 2, .row0 = 0,
				   .row1 = UINT32_MAX, .width = RTR_SCENE_MAX_WIDTH };

	cr_assert_eq(synth_lane(&m, 1000, 10, 3), 0);
	cr_assert_eq(rtr_scene_build(&s, &m, 0), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_eq(rtr_scene_window(&s, &bad[i], &f), -EINVAL, "window %zu", i);
	/* the widest range there is, every row: the 1000 tasks in one span */
	cr_assert_eq(rtr_scene_window(&s, &huge, &f), 0);
	cr_assert_eq(f.ntasks, 1);
	cr_assert_eq(f.tasks[0].count, 1000);
	rtr_frame_free(&f);
	rtr_scene_free(&s);
	rtr_model_free(&m);
}

/* ---- the ARP demo (examples/arp): its hanging run's connection ------------------- */

Test(view_window, the_arp_demos_never_resolved_task_reaches_the_right_edge_at_every_zoom)
{
	char dir[64], trace[128], cmd[1024], err[256], *out, *dirs[1];
	struct rtr_model m = { 0 };
	struct rtr_scene s;
	struct rtr_frame f = { 0 };
	uint32_t never = RTR_MODEL_NONE, zooms = 0;
	int st;

	t_mkdtemp(dir, sizeof(dir), "view-arp");
	snprintf(trace, sizeof(trace), "%s/bad", dir);
	snprintf(cmd, sizeof(cmd), "'%s/ringtrace' record -q -o '%s' -- '%s/ringtrace-arp' --race "
		 "--timeout 300 >/dev/null 2>&1; echo $?", t_bindir(), trace, t_bindir());
	out = t_sh(cmd, &st);
	cr_assert_eq(atoi(out), 1, "the race hangs and gives up: %s", out);
	free(out);
	dirs[0] = trace;
	cr_assert_eq(rtr_model_load(&m, dirs, 1, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(rtr_scene_build(&s, &m, 0), 0);
	for (uint32_t t = 0; t < m.ntasks; t++)
		if (m.tasks[t].flags & RTR_TASK_NEVER_RESOLVED) {
			cr_assert_eq(never, RTR_MODEL_NONE, "one task never resolved");
			never = t;
		}
	cr_assert_neq(never, RTR_MODEL_NONE);
	/* the whole trace and beyond, down to 1 us windows at its start, in the middle and at the end */
	for (int64_t span = 4 * (m.end - m.start + 1); span >= 1000; span /= 2) {
		const int64_t created = m.tasks[never].created;
		const int64_t at[] = { created - span / 10, created + (m.end - created) / 2 - span / 2,
				       m.end - span + 1, m.end - span / 2 };

		for (size_t a = 0; a < sizeof(at) / sizeof(at[0]); a++) {
			struct rtr_window w = { .t0 = at[a], .t1 = at[a] + span, .row0 = 0,
						.row1 = s.nrows, .width = 1280 };
			const struct rtr_item *it;

			if (w.t1 <= created)	/* it has not started yet */
				continue;
			cr_assert_eq(rtr_scene_window(&s, &w, &f), 0);
			it = item_of(&f, s.task_row[never], never);
			cr_assert_not_null(it, "window [%ld, %ld): the connection is not drawn",
					   (long)w.t0, (long)w.t1);
			cr_assert_eq(it->x1, 1280, "window [%ld, %ld): it ends at %f", (long)w.t0,
				     (long)w.t1, it->x1);
			cr_assert(it->flags & RTR_ITEM_NEVER);
			cr_assert_eq(it->count, 1);
			zooms++;
		}
	}
	cr_assert_gt(zooms, 20);
	rtr_frame_free(&f);
	rtr_scene_free(&s);
	rtr_model_free(&m);
	t_rm_rf(dir);
}
