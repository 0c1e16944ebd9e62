// SPDX-License-Identifier: MIT
/*
 * view/live.c - the scene of a recording in progress, made again each time
 * the recording grew (view/live.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "format/error.h"
#include "reader/live.h"
#include "view/live.h"
#include "view/overview.h"

int rtr_live_open(struct rtr_live *lv, const char *arg, unsigned model_flags,
		  unsigned scene_flags, char *err, size_t errlen)
{
	const char *tail = getenv("RINGTRACE_LIVE_TAIL_EVENTS");
	struct stat sb;
	int ret;

	memset(lv, 0, sizeof(*lv));
	lv->arg = arg;
	lv->model_flags = model_flags;
	lv->scene_flags = scene_flags;
	lv->tail_max = RTR_LIVE_TAIL_EVENTS;
	lv->tail_from = INT64_MIN;
	if (tail && *tail) {
		char *e;
		unsigned long long v = strtoull(tail, &e, 10);

		if (*e)
			return rtr_errf(err, errlen, EINVAL, "RINGTRACE_LIVE_TAIL_EVENTS '%s' is not "
					"a number of events", tail);
		lv->tail_max = v;
	}
	if (strcmp(arg, "-") && strncmp(arg, TR_LIVE_SCHEME, strlen(TR_LIVE_SCHEME)) &&
	    stat(arg, &sb)) {
		ret = -errno;
		return rtr_errf(err, errlen, -ret, "%s: %s (no such trace to follow: a recorder "
				"makes it before its first events)", arg, strerror(-ret));
	}
	ret = tr_input_open(&lv->in, arg, true, err, errlen);
	lv->f.in = &lv->in;
	/* A directory with no trace yet may be one a recorder is making: the polls wait for it. */
	if (ret == -ENOENT && lv->in.root && !stat(arg, &sb) && S_ISDIR(sb.st_mode))
		ret = 0;
	return ret;
}

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int rtr_live_pause_ms(const struct rtr_live *lv)
{
	if (lv->turn_ms < RTR_LIVE_PAUSE_MS)
		return RTR_LIVE_PAUSE_MS;
	return lv->turn_ms > 60000 ? 60000 : (int)lv->turn_ms;
}

void rtr_live_scene_free(struct rtr_live_scene *ls)
{
	if (!ls)
		return;
	rtr_scene_free(&ls->s);
	rtr_model_free(&ls->m);
	free(ls);
}

/*
 * Where the tail to load starts (ns since the epoch), from the recording's
 * overview (the indexes of its chunks, each extended with what was written
 * since) up to the turn's watermark: where it started last turn while that
 * holds at most tail_max events; else from where the last tail_max / 2
 * begin; INT64_MIN (the whole) while the recording holds at most tail_max.
 */
static int64_t tail_start(const struct rtr_live *lv, const struct tr_follow_turn *turn)
{
	struct rtr_overview ov;
	int64_t lo = 0, hi, end, at = lv->tail_from, from;
	char err[256];

	if (rtr_overview_build(&ov, lv->arg, err, sizeof(err)))
		return lv->tail_from;	/* (a recorder between two chunks): as it was */
	end = ov.end + 1;
	if (!turn->done && turn->limit != UINT64_MAX) {
		int64_t w = rtr_overview_time(&ov, turn->limit);

		end = w < end ? w : end;
	}
	from = at == INT64_MIN || at < ov.origin_ns ? 0 : at - ov.origin_ns;
	if (end > from && rtr_overview_events(&ov, from, end) > lv->tail_max) {
		hi = end;
		while (lo < hi) {
			int64_t mid = lo + (hi - lo) / 2;

			if (rtr_overview_events(&ov, mid, end) > lv->tail_max / 2)
				lo = mid + 1;
			else
				hi = mid;
		}
		at = ov.origin_ns + lo;
	}
	rtr_overview_free(&ov);
	return at;
}

int rtr_live_poll(struct rtr_live *lv, struct rtr_live_scene **out, char *err, size_t errlen)
{
	struct tr_follow_turn turn;
	struct rtr_live_scene *ls;
	uint64_t seen[4], t0;
	int r;

	*out = NULL;
	if (lv->done)
		return 0;
	r = tr_follow_poll(&lv->f, &turn, err, errlen);
	if (r < 0)
		return -1;
	if (r == TR_FOLLOW_WAIT)
		return 0;
	seen[0] = lv->in.ndirs;
	seen[1] = turn.now;
	seen[2] = turn.done ? UINT64_MAX : turn.limit;
	seen[3] = 0;
	for (uint32_t i = 0; i < turn.st.nstreams; i++)
		seen[3] += turn.st.streams[i].size;
	if (lv->any && !memcmp(seen, lv->seen, sizeof(seen))) {
		tr_follow_turn_free(&turn);
		return 0;
	}
	/*
	 * The last turn of a stream: a cut or damage is said in the model, as a
	 * load says it.  The spool writes its final state just before it says
	 * it ended (and how): until it has, this is not the last turn yet, or a
	 * cut stream's last scene would be taken for a whole one.
	 */
	if (turn.done && !tr_input_ended(&lv->in)) {
		tr_follow_turn_free(&turn);
		return 0;
	}
	t0 = mono_ms();
	ls = calloc(1, sizeof(*ls));
	if (!ls) {
		tr_follow_turn_free(&turn);
		rtr_errf(err, errlen, ENOMEM, "out of memory");
		return -1;
	}
	/* a long recording: its tail, moved on when it has grown past tail_max (view/live.h) */
	if (lv->tail_max && strcmp(lv->arg, "-") &&
	    strncmp(lv->arg, TR_LIVE_SCHEME, strlen(TR_LIVE_SCHEME)) &&
	    (!lv->any || lv->tail_from != INT64_MIN || lv->last_events > lv->tail_max / 4))
		lv->tail_from = tail_start(lv, &turn);
	r = rtr_model_load_turn_tail(&ls->m, &lv->in, &turn, lv->arg, lv->model_flags,
				     lv->tail_from, err, errlen);
	if (r < 0) {
		tr_follow_turn_free(&turn);
		free(ls);
		return -1;
	}
	if (rtr_scene_build(&ls->s, &ls->m, lv->scene_flags)) {
		tr_follow_turn_free(&turn);
		rtr_live_scene_free(ls);
		rtr_errf(err, errlen, ENOMEM, "out of memory");
		return -1;
	}
	lv->turn_ms = mono_ms() - t0;
	lv->last_events = ls->m.events;
	ls->done = lv->done = turn.done;
	ls->turn = ++lv->turns;
	memcpy(lv->seen, seen, sizeof(seen));
	lv->any = true;
	tr_follow_turn_free(&turn);
	*out = ls;
	return 1;
}

void rtr_live_wait(struct rtr_live *lv, int ms)
{
	tr_input_wait(&lv->in, ms);
}

int rtr_live_close(struct rtr_live *lv, char *err, size_t errlen)
{
	return tr_input_close(&lv->in, err, errlen);
}
