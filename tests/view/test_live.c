// SPDX-License-Identifier: MIT
/*
 * tests/view/test_live.c - following a recording (view/live.h,
 * reader/follow.h) turn by turn, with the recorder's state file written by
 * the test: what each turn loads is exactly what the state allows (the
 * events up to the watermark, within the whole packets named), a turn with
 * nothing new makes no scene, and the last scene is the model loaded
 * afterwards; a damaged state file is said, never trusted.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include "format/state.h"
#include "tests/helpers.h"
#include "view/live.h"
#include "view/overview.h"

TestSuite(view_live, .timeout = 120);

struct rec {
	char dir[256];
	char trace[300];
	struct rtr_model m;	/* the finished trace, loaded afterwards */
};

/* 2 threads x 3000 events recorded (a deep ring, paced: none lost), and loaded whole. */
static void rec_make(struct rec *r)
{
	char cmd[1024], err[256], *out, *dirs[1];
	int st;

	memset(r, 0, sizeof(*r));
	t_mkdtemp(r->dir, sizeof(r->dir), "live");
	snprintf(r->trace, sizeof(r->trace), "%s/t", r->dir);
	snprintf(cmd, sizeof(cmd), "'%s/ringtrace' record -q -o '%s' --packet-size 4k --packets 1024 -- "
		 "'%s/ringtrace-test-emit' --threads 2 --events 3000 --pace 200:500 >/dev/null 2>&1; "
		 "echo $?",
		 t_bindir(), r->trace, t_bindir());
	out = t_sh(cmd, &st);
	cr_assert_eq(atoi(out), 0, "the recording: %s", out);
	free(out);
	dirs[0] = r->trace;
	cr_assert_eq(rtr_model_load(&r->m, dirs, 1, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(r->m.events, 6000);
	cr_assert_eq(r->m.nmarkers, 6000);
}

static void rec_free(struct rec *r)
{
	rtr_model_free(&r->m);
	t_rm_rf(r->dir);
}

/* The state file a recorder would write: @kind, a watermark, every stream file @whole bytes or whole. */
static void put_state(const struct rec *r, enum rtr_state_kind kind, uint64_t watermark, bool whole)
{
	struct rtr_state_stream ss[64];
	struct rtr_state st = { .present = true, .kind = kind, .watermark = watermark, .streams = ss };
	char path[512], tmp[520], *text;
	size_t len;
	int fd;

	strcpy(st.chunk, ".");
	for (unsigned cpu = 0; cpu < 64; cpu++) {
		struct stat sb;

		snprintf(path, sizeof(path), "%s/stream_%u", r->trace, cpu);
		if (stat(path, &sb))
			continue;
		ss[st.nstreams].cpu = cpu;
		ss[st.nstreams++].size = whole ? (uint64_t)sb.st_size : 0;
	}
	cr_assert_gt(st.nstreams, 0);
	cr_assert_eq(rtr_state_format(&st, &text, &len), 0);
	snprintf(path, sizeof(path), "%s/%s", r->trace, RTR_STATE_FILE);
	snprintf(tmp, sizeof(tmp), "%s.new", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, len), (ssize_t)len);
	close(fd);
	cr_assert_eq(rename(tmp, path), 0);
	free(text);
}

/* The clock value of @r's absolute time @abs (ns since the epoch). */
static uint64_t cycles_at(const struct rec *r, int64_t abs)
{
	const struct rtr_model_trace *t = &r->m.traces[0];

	return (uint64_t)((__int128)(abs - t->offset_ns) * (__int128)t->freq / 1000000000);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

Test(view_live, a_recording_followed_turn_by_turn_ends_as_the_model_loaded_afterwards)
{
	struct rec r;
	struct rtr_live lv;
	struct rtr_live_scene *ls = NULL;
	int64_t *ts, mid;
	uint64_t before = 0, w;
	char err[512];
	size_t k;

	rec_make(&r);
	/* a watermark strictly between two events in the middle of the recording */
	ts = malloc(r.m.nmarkers * sizeof(*ts));
	for (uint32_t i = 0; i < r.m.nmarkers; i++)
		ts[i] = r.m.markers[i].ts;
	qsort(ts, r.m.nmarkers, sizeof(*ts), cmp_i64);
	for (k = r.m.nmarkers / 2; k + 1 < r.m.nmarkers && ts[k + 1] - ts[k] < 4; k++)
		;
	cr_assert_lt(k + 1, r.m.nmarkers);
	mid = ts[k] + (ts[k + 1] - ts[k]) / 2;
	w = cycles_at(&r, r.m.origin_ns + mid);
	for (uint32_t i = 0; i < r.m.nmarkers; i++)
		before += ts[i] <= mid;
	free(ts);

	/* turn 1: recording, nothing on disk yet (no whole packet named) */
	put_state(&r, RTR_REC_RECORDING, w, false);
	cr_assert_eq(rtr_live_open(&lv, r.trace, RTR_MODEL_MARKERS, RTR_SCENE_SIMPLIFY_BINDS, err,
				   sizeof(err)), 0, "%s", err);
	cr_assert_eq(rtr_live_poll(&lv, &ls, err, sizeof(err)), 1, "%s", err);
	cr_assert_eq(ls->turn, 1);
	cr_assert_not(ls->done);
	cr_assert_eq(ls->m.events, 0);
	rtr_live_scene_free(ls);
	/* nothing changed: no new scene */
	cr_assert_eq(rtr_live_poll(&lv, &ls, err, sizeof(err)), 0);
	cr_assert_null(ls);

	/* turn 2: the packets on disk, the events up to the watermark */
	put_state(&r, RTR_REC_RECORDING, w, true);
	cr_assert_eq(rtr_live_poll(&lv, &ls, err, sizeof(err)), 1, "%s", err);
	cr_assert_eq(ls->turn, 2);
	cr_assert_not(ls->done);
	cr_assert_eq(ls->m.nmarkers, before, "the events up to the watermark: %u of %" PRIu64,
		     ls->m.nmarkers, before);
	cr_assert_gt(before, 1000);
	cr_assert_lt(before, 5000);
	cr_assert_eq(ls->m.origin_ns, r.m.origin_ns);
	/* the scene is built on its own model */
	cr_assert_eq(ls->s.m, &ls->m);
	rtr_live_scene_free(ls);

	/* the end: everything, as loaded afterwards */
	put_state(&r, RTR_REC_DONE, w, true);
	cr_assert_eq(rtr_live_poll(&lv, &ls, err, sizeof(err)), 1, "%s", err);
	cr_assert(ls->done);
	cr_assert(lv.done);
	cr_assert_eq(ls->turn, 3);
	cr_assert_eq(ls->m.events, r.m.events);
	cr_assert_eq(ls->m.nmarkers, r.m.nmarkers);
	cr_assert_eq(ls->m.ntasks, r.m.ntasks);
	cr_assert_eq(ls->m.end, r.m.end);
	for (uint32_t i = 0; i < r.m.nmarkers; i++)
		cr_assert_eq(ls->m.markers[i].ts, r.m.markers[i].ts, "marker %u", i);
	rtr_live_scene_free(ls);
	/* over: every later poll says nothing new */
	cr_assert_eq(rtr_live_poll(&lv, &ls, err, sizeof(err)), 0);
	cr_assert_eq(rtr_live_close(&lv, err, sizeof(err)), 0);
	rec_free(&r);
}

/*
 * A long recording (here more than RINGTRACE_LIVE_TAIL_EVENTS: 1000 of its
 * 6000 events) is followed by its tail: each turn's model is a slice
 * holding exactly the last events before the watermark, from where its
 * last 500 begin, each at its time; the last turn's, the finished
 * recording's last 500.
 */
Test(view_live, a_long_recording_is_followed_by_its_tail)
{
	struct rec r;
	struct rtr_live lv;
	struct rtr_live_scene *ls = NULL;
	int64_t *ts, mid;
	uint64_t w, slack = 0;
	struct rtr_overview ov;
	char err[512];
	size_t k, before = 0;

	rec_make(&r);
	ts = malloc(r.m.nmarkers * sizeof(*ts));
	for (uint32_t i = 0; i < r.m.nmarkers; i++)
		ts[i] = r.m.markers[i].ts;
	qsort(ts, r.m.nmarkers, sizeof(*ts), cmp_i64);
	for (k = r.m.nmarkers * 2 / 3; k + 1 < r.m.nmarkers && ts[k + 1] - ts[k] < 4; k++)
		;
	cr_assert_lt(k + 1, r.m.nmarkers);
	mid = ts[k] + (ts[k + 1] - ts[k]) / 2;
	w = cycles_at(&r, r.m.origin_ns + mid);
	before = k + 1;

	/* the slack of the tail's start: a packet of each stream, the largest */
	cr_assert_eq(rtr_overview_build(&ov, r.trace, err, sizeof(err)), 0, "%s", err);
	for (uint32_t i = 0; i < ov.nb; i++)
		slack = ov.b[i].events > slack ? ov.b[i].events : slack;
	slack *= ov.nlanes;
	rtr_overview_free(&ov);
	cr_assert_lt(slack, 500, "packets small enough for the test: %" PRIu64, slack);
	setenv("RINGTRACE_LIVE_TAIL_EVENTS", "1000", 1);
	put_state(&r, RTR_REC_RECORDING, w, true);
	cr_assert_eq(rtr_live_open(&lv, r.trace, RTR_MODEL_MARKERS, RTR_SCENE_SIMPLIFY_BINDS, err,
				   sizeof(err)), 0, "%s", err);
	unsetenv("RINGTRACE_LIVE_TAIL_EVENTS");
	cr_assert_eq(lv.tail_max, 1000);
	for (int turn = 0; turn < 2; turn++) {
		uint64_t upto = turn ? r.m.nmarkers : before, first;

		if (turn)
			put_state(&r, RTR_REC_DONE, w, true);
		cr_assert_eq(rtr_live_poll(&lv, &ls, err, sizeof(err)), 1, "%s", err);
		cr_assert(ls->m.sliced, "turn %d: a tail", turn);
		cr_assert_neq(lv.tail_from, INT64_MIN);
		/*
		 * the tail: from where the last 500 begin, to within a packet of
		 * each stream (the index knows a packet's events, not each one's time)
		 */
		cr_assert(ls->m.nmarkers + slack >= 500 && ls->m.nmarkers <= 500 + slack,
			  "turn %d: %u events, 500 +- %" PRIu64, turn, ls->m.nmarkers, slack);
		/* exactly the recording's events from its start up to the watermark, each at its time */
		first = upto - ls->m.nmarkers;
		for (uint32_t i = 0; i < ls->m.nmarkers; i++)
			cr_assert_eq(ls->m.origin_ns + ls->m.markers[i].ts,
				     r.m.origin_ns + ts[first + i], "turn %d, event %u", turn, i);
		cr_assert_geq(ls->m.origin_ns + ls->m.markers[0].ts, lv.tail_from);
		cr_assert_lt(r.m.origin_ns + ts[first - 1], lv.tail_from, "the event before the tail");
		if (turn)
			cr_assert(ls->done);
		rtr_live_scene_free(ls);
	}
	free(ts);
	cr_assert_eq(rtr_live_close(&lv, err, sizeof(err)), 0);
	rec_free(&r);
}

Test(view_live, a_damaged_state_file_is_said_not_trusted)
{
	struct rec r;
	struct rtr_live lv;
	struct rtr_live_scene *ls = NULL;
	char path[512], err[512];
	FILE *f;

	rec_make(&r);
	snprintf(path, sizeof(path), "%s/%s", r.trace, RTR_STATE_FILE);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("ringtrace-state 1\nstate recording\nchunk .\nwatermark many\n", f);
	fclose(f);
	cr_assert_eq(rtr_live_open(&lv, r.trace, 0, 0, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(rtr_live_poll(&lv, &ls, err, sizeof(err)), -1);
	cr_assert_null(ls);
	cr_assert(strstr(err, "damaged state file"), "%s", err);
	cr_assert(strstr(err, r.trace), "%s", err);
	rtr_live_close(&lv, NULL, 0);
	rec_free(&r);
}

Test(view_live, a_directory_with_no_trace_is_refused_or_waited_for)
{
	char dir[256], err[512];
	struct rtr_live lv;
	struct rtr_live_scene *ls = NULL;

	t_mkdtemp(dir, sizeof(dir), "live-empty");
	/* a directory a recorder may still make a trace in: the polls wait */
	cr_assert_eq(rtr_live_open(&lv, dir, 0, 0, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(rtr_live_poll(&lv, &ls, err, sizeof(err)), 0);
	cr_assert_null(ls);
	rtr_live_close(&lv, NULL, 0);
	/* a path that is nothing: refused when opened */
	strcat(dir, "/nothing");
	cr_assert_eq(rtr_live_open(&lv, dir, 0, 0, err, sizeof(err)), -ENOENT);
	cr_assert(strstr(err, "no such trace to follow"), "%s", err);
	rtr_live_close(&lv, NULL, 0);
	dir[strlen(dir) - strlen("/nothing")] = 0;
	t_rm_rf(dir);
}
