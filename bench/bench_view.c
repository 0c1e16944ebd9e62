// SPDX-License-Identifier: MIT
/*
 * bench/bench_view.c - ringtrace-view-bench: the scene's window query
 * (view/scene.h) on a server-like model made in memory (bench/synth.h):
 * the scene's build time and memory, then a scripted zoom from the whole
 * trace down to a 1 us window, with pans across the trace at each level, as
 * a front end of 1920 x 64 rows asks: the time of each query (p50, p95, max)
 * and the items it answers (what a frame draws).
 *
 *   ringtrace-view-bench [--requests N] [--rows FILE]
 *
 * Figures (printed; appended to FILE as "name value unit", the rows
 * scripts/bench.sh merges into build/bench/results.json), with S the size
 * (1m for 1 M requests):
 *   view.S.build_s            rtr_scene_build()
 *   view.S.scene_bytes_per_task  the scene's resident memory / tasks
 *   view.S.query_us, view.S.query_p50_us, view.S.query_max_us  (wall clock)
 *   view.S.query_cpu_us, view.S.query_cpu_max_us  the thread's CPU time (p95, max):
 *                             steadier than the wall clock on a shared host
 *   view.S.items_max          the most items (tasks + runs + arrows) a query answered
 *   view.S.task_items_max     the most task items
 *   view.S.render_frame_ms, view.S.render_frame_max_ms  the same script drawn by
 *                             the one renderer (view/render.h) into a 1920 x 1080
 *                             image surface, software cairo: a frame of `ringtrace gui`
 *                             (p95, max; query included)
 *
 *   ringtrace-view-bench --trace DIR [--rows FILE]
 *
 * One turn of following a recording (view/live.h) on the finished trace
 * DIR, its last: the model of all of it loaded as a turn loads it
 * (rtr_model_load_turn()) and its scene built.  What each turn of
 * `view --serve --follow` and `gui --follow` costs at that size today:
 *   viewer.live.turn_s        load and build, wall clock (the median of 3)
 *   viewer.live.turn_load_s   of which the model's load
 *   viewer.live.turn_events   the trace's events
 *   viewer.live.turn_ns_per_event
 *
 *   ringtrace-view-bench --tail DIR [--rows FILE]
 *
 * A turn of following DIR as the front ends do (view/live.h): past
 * RTR_LIVE_TAIL_EVENTS, only the recording's tail is loaded:
 *   viewer.100m.follow_turn_s     the turn (rtr_live_poll()), wall clock
 *   viewer.100m.follow_turn_events  the tail's events
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "bench/synth.h"
#include "platform/platform.h"
#include "reader/follow.h"
#include "reader/input.h"
#include "view/live.h"
#include "view/render.h"
#include "view/scene.h"

#define WIDTH	1920
#define ROWS	64

static long rss_pages(void)
{
	long size = 0, rss = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f) {
		if (fscanf(f, "%ld %ld", &size, &rss) != 2)
			rss = 0;
		fclose(f);
	}
	return rss;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static FILE *rows_file;
static uint64_t *cpu_times;

/* This thread's CPU time: what a query cost, whatever else the host runs. */
static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void figure(const char *size, const char *name, double v, const char *unit)
{
	char full[128];

	snprintf(full, sizeof(full), "view.%s.%s", size, name);
	printf("  %-36s %14.3f  %s\n", full, v, unit);
	if (rows_file)
		fprintf(rows_file, "%s %.6f %s\n", full, v, unit);
}

/* One query of the script: the @pan-th of 8 windows of @span ns; its time kept. */
static int query(const struct rtr_scene *s, const struct rtr_model *m, int64_t span, int pan,
		 struct rtr_frame *f, uint64_t **times, uint32_t *nq, uint32_t *cap,
		 uint32_t *items_max, uint32_t *task_items_max)
{
	struct rtr_window w = { .width = WIDTH, .max_arrows = RTR_SCENE_DEFAULT_ARROWS };
	uint32_t items;
	uint64_t t, c;

	w.t0 = (m->end + 1 - span) / 8 * pan;
	w.t1 = w.t0 + span;
	/* the rows of a screen, from the top one down to the middle */
	w.row0 = s->nrows > ROWS ? (uint32_t)((uint64_t)(s->nrows - ROWS) * (uint64_t)pan / 16) : 0;
	w.row1 = w.row0 + ROWS;
	c = cpu_ns();
	t = rtr_monotonic_ns();
	if (rtr_scene_window(s, &w, f)) {
		fprintf(stderr, "ringtrace-view-bench: the window query failed\n");
		return -1;
	}
	t = rtr_monotonic_ns() - t;
	c = cpu_ns() - c;
	if (*nq == *cap) {
		uint64_t *p = realloc(*times, 2 * *cap * sizeof(*p));
		uint64_t *q = realloc(cpu_times, 2 * *cap * sizeof(*q));

		if (p)
			*times = p;
		if (q)
			cpu_times = q;
		if (!p || !q)
			return -1;
		*cap *= 2;
	}
	cpu_times[*nq] = c;
	(*times)[(*nq)++] = t;
	items = f->ntasks + f->nruns + f->narrows;
	*items_max = items > *items_max ? items : *items_max;
	*task_items_max = f->ntasks > *task_items_max ? f->ntasks : *task_items_max;
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: ringtrace-view-bench [--requests N] [--rows FILE]\n"
		"       ringtrace-view-bench --trace DIR [--rows FILE]\n"
		"       ringtrace-view-bench --tail DIR [--rows FILE]\n"
		"The window query of the viewer's scene on a server-like model of N requests\n"
		"(default 1000000) made in memory; or one turn of following the recording\n"
		"DIR, its last (load and scene); figures printed, and appended to FILE.\n");
}

static void live_figure(const char *name, double v, const char *unit)
{
	printf("  %-36s %14.3f  %s\n", name, v, unit);
	if (rows_file)
		fprintf(rows_file, "%s %.6f %s\n", name, v, unit);
}

static int cmp_u64(const void *a, const void *b);

/* --trace DIR: the last turn of following DIR, three times; the median. */
static int live_turn(const char *dir)
{
	struct tr_follow_turn turn = { .done = true, .limit = UINT64_MAX };
	struct tr_input in;
	uint64_t t[3], tl[3], events = 0;
	char err[1024];

	if (tr_input_open(&in, dir, false, err, sizeof(err))) {
		fprintf(stderr, "ringtrace-view-bench: %s\n", err);
		tr_input_close(&in, NULL, 0);
		return 1;
	}
	turn.now = in.ndirs - 1;
	for (int k = 0; k < 3; k++) {
		struct rtr_model m;
		struct rtr_scene s;

		t[k] = rtr_monotonic_ns();
		if (rtr_model_load_turn(&m, &in, &turn, dir, RTR_MODEL_MARKERS | RTR_MODEL_FIELDS, err,
					sizeof(err)) < 0 ||
		    (tl[k] = rtr_monotonic_ns() - t[k], 0) ||
		    rtr_scene_build(&s, &m, RTR_SCENE_SIMPLIFY_BINDS)) {
			fprintf(stderr, "ringtrace-view-bench: %s: %s\n", dir, err);
			rtr_model_free(&m);
			tr_input_close(&in, NULL, 0);
			return 1;
		}
		t[k] = rtr_monotonic_ns() - t[k];
		events = m.events;
		rtr_scene_free(&s);
		rtr_model_free(&m);
	}
	tr_input_close(&in, NULL, 0);
	qsort(t, 3, sizeof(*t), cmp_u64);
	qsort(tl, 3, sizeof(*tl), cmp_u64);
	printf("a turn of following %s (%" PRIu64 " events): the model loaded, the scene built\n",
	       dir, events);
	live_figure("viewer.live.turn_s", t[1] / 1e9, "s (median of 3)");
	live_figure("viewer.live.turn_load_s", tl[1] / 1e9, "s (the model; median of 3)");
	live_figure("viewer.live.turn_events", (double)events, "events");
	live_figure("viewer.live.turn_ns_per_event", events ? (double)t[1] / events : 0, "ns");
	return 0;
}

/* --tail DIR: a turn of following DIR through view/live.h (its tail, past the limit). */
static int tail_turn(const char *dir)
{
	struct rtr_live lv;
	struct rtr_live_scene *ls = NULL;
	char err[1024];
	uint64_t t = 0;
	int r;

	if (rtr_live_open(&lv, dir, RTR_MODEL_MARKERS | RTR_MODEL_FIELDS, RTR_SCENE_SIMPLIFY_BINDS,
			  err, sizeof(err))) {
		fprintf(stderr, "ringtrace-view-bench: %s\n", err);
		rtr_live_close(&lv, NULL, 0);
		return 1;
	}
	/* (a directory no recorder writes is read once 2 s passed without a state file) */
	for (int i = 0; i < 100; i++) {
		t = rtr_monotonic_ns();
		if ((r = rtr_live_poll(&lv, &ls, err, sizeof(err))))
			break;
		rtr_live_wait(&lv, 100);
	}
	t = rtr_monotonic_ns() - t;
	if (!ls) {
		fprintf(stderr, "ringtrace-view-bench: %s: %s\n", dir, err[0] ? err : "no turn");
		rtr_live_close(&lv, NULL, 0);
		return 1;
	}
	printf("a turn of following %s: its tail from %s (%" PRIu64 " events), the scene built\n",
	       dir, lv.tail_from == INT64_MIN ? "its start" : "where its last ones begin",
	       ls->m.events);
	live_figure("viewer.100m.follow_turn_s", t / 1e9, "s");
	live_figure("viewer.100m.follow_turn_events", (double)ls->m.events, "events");
	rtr_live_scene_free(ls);
	rtr_live_close(&lv, NULL, 0);
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t nreq = 1000000, *times;
	struct rtr_model m;
	struct rtr_scene s;
	struct rtr_frame f = { 0 };
	uint32_t nq = 0, cap = 4096, items_max = 0, task_items_max = 0;
	long rss0, rss1, page = sysconf(_SC_PAGESIZE);
	uint64_t t;
	char size[32];
	const char *trace = NULL;
	bool tail = false;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--trace") && i + 1 < argc) {
			trace = argv[++i];
		} else if (!strcmp(argv[i], "--tail") && i + 1 < argc) {
			trace = argv[++i];
			tail = true;
		} else if (!strcmp(argv[i], "--requests") && i + 1 < argc) {
			nreq = strtoull(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--rows") && i + 1 < argc) {
			rows_file = fopen(argv[++i], "a");
			if (!rows_file) {
				perror(argv[i]);
				return 1;
			}
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (trace)
		return tail ? tail_turn(trace) : live_turn(trace);
	if (!nreq || nreq > UINT32_MAX / 4) {
		fprintf(stderr, "ringtrace-view-bench: --requests: 1 to %u\n", UINT32_MAX / 4);
		return 2;
	}
	if (nreq % 1000000 == 0)
		snprintf(size, sizeof(size), "%um", (unsigned)(nreq / 1000000));
	else
		snprintf(size, sizeof(size), "%uk", (unsigned)(nreq / 1000));
	times = malloc(cap * sizeof(*times));
	cpu_times = malloc(cap * sizeof(*cpu_times));
	if (!times || !cpu_times || synth_server(&m, (uint32_t)nreq, 8, 1000, 1)) {
		fprintf(stderr, "ringtrace-view-bench: out of memory\n");
		return 1;
	}
	printf("view: %u tasks, %u arrows, %u runs (%lu requests, 8 CPUs), %.3f s of trace\n",
	       m.ntasks, m.narrows, m.nruns, (unsigned long)nreq, (double)m.end / 1e9);
	rss0 = rss_pages();
	t = rtr_monotonic_ns();
	if (rtr_scene_build(&s, &m, 0)) {
		fprintf(stderr, "ringtrace-view-bench: out of memory\n");
		return 1;
	}
	t = rtr_monotonic_ns() - t;
	rss1 = rss_pages();
	printf("  %u rows; queries of %u px x %u rows, zoom from the whole trace to 1 us\n", s.nrows,
	       WIDTH, ROWS);
	figure(size, "build_s", (double)t / 1e9, "s");
	figure(size, "scene_bytes_per_task", (double)(rss1 - rss0) * (double)page / m.ntasks, "bytes");
	/* the script three times, the last one counted: a front end reuses its frame */
	for (int turn = 0; turn < 3; turn++) {
		nq = items_max = task_items_max = 0;
		for (int64_t span = m.end + 1; span >= 1000; span /= 2)
			for (int pan = 0; pan < 8; pan++)
				if (query(&s, &m, span, pan, &f, &times, &nq, &cap, &items_max,
					  &task_items_max))
					return 1;
	}
	qsort(times, nq, sizeof(*times), cmp_u64);
	figure(size, "query_us", (double)times[(nq * 95) / 100] / 1e3, "us (p95)");
	figure(size, "query_p50_us", (double)times[nq / 2] / 1e3, "us");
	figure(size, "query_max_us", (double)times[nq - 1] / 1e3, "us");
	qsort(cpu_times, nq, sizeof(*cpu_times), cmp_u64);
	figure(size, "query_cpu_us", (double)cpu_times[(nq * 95) / 100] / 1e3, "us (p95, CPU time)");
	figure(size, "query_cpu_max_us", (double)cpu_times[nq - 1] / 1e3, "us (CPU time)");
	figure(size, "items_max", items_max, "items");
	figure(size, "task_items_max", task_items_max, "items");
	printf("  (%u queries)\n", nq);
	/* the renderer: the same zoom and pans, into an image as `ringtrace gui` draws */
	{
		cairo_surface_t *sf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, WIDTH, 1080);
		cairo_t *cr = cairo_create(sf);
		uint32_t nf = 0;

		for (int turn = 0; turn < 2; turn++) {
			nf = 0;
			for (int64_t span = m.end + 1; span >= 1000; span /= 2)
				for (int pan = 0; pan < 8 && nf < cap; pan++) {
					struct rtr_render_view v = { .width = WIDTH, .height = 1080,
								     .selected = RTR_MODEL_NONE };

					v.t0 = (m.end + 1 - span) / 8 * pan;
					v.t1 = v.t0 + span;
					v.row0 = s.nrows > ROWS ? (uint32_t)((uint64_t)(s.nrows - ROWS) *
									      (uint64_t)pan / 16) : 0;
					t = rtr_monotonic_ns();
					if (rtr_render(cr, &s, &v, &f)) {
						fprintf(stderr, "ringtrace-view-bench: a frame failed\n");
						return 1;
					}
					cairo_surface_flush(sf);
					times[nf++] = rtr_monotonic_ns() - t;
				}
		}
		qsort(times, nf, sizeof(*times), cmp_u64);
		figure(size, "render_frame_ms", (double)times[(nf * 95) / 100] / 1e6, "ms (p95)");
		figure(size, "render_frame_max_ms", (double)times[nf - 1] / 1e6, "ms");
		printf("  (%u frames of 1920 x 1080)\n", nf);
		cairo_destroy(cr);
		cairo_surface_destroy(sf);
	}
	free(times);
	free(cpu_times);
	rtr_frame_free(&f);
	rtr_scene_free(&s);
	rtr_model_free(&m);
	if (rows_file)
		fclose(rows_file);
	return 0;
}
