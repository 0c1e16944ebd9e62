// SPDX-License-Identifier: MIT
/*
 * view/slices.c - a trace too large for a model: its overview, and the
 * slices of it a front end's view asks for (view/slices.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include "view/slices.h"

/*
 * The loader's nice value: it works in the background, and on a machine
 * with few CPUs its loads otherwise take the front end's frames (the
 * window's, the X server's, the browser's).
 */
#define LOADER_NICE 10

/* The loader: the range last asked, loaded and its scene built, handed over. */
static void *loader(void *arg)
{
	struct rtr_slices *sl = arg;
	char *dirs[1] = { (char *)sl->dir };

	/* this thread's own (Linux: a thread's nice is its own); no matter if refused */
	(void)setpriority(PRIO_PROCESS, (id_t)gettid(), LOADER_NICE);
	for (;;) {
		struct rtr_live_scene *ls, *stale;
		char err[sizeof(sl->err)] = "";
		int64_t a, b;
		int r = -1;

		pthread_mutex_lock(&sl->lock);
		while (!sl->quit && !sl->want_new)
			pthread_cond_wait(&sl->wake, &sl->lock);
		if (sl->quit) {
			pthread_mutex_unlock(&sl->lock);
			return NULL;
		}
		a = sl->want_a;
		b = sl->want_b;
		sl->want_new = false;
		sl->loading = true;
		pthread_mutex_unlock(&sl->lock);
		if (!(ls = calloc(1, sizeof(*ls))))
			snprintf(err, sizeof(err), "out of memory");
		else
			r = rtr_model_load_slice(&ls->m, dirs, 1, sl->model_flags, (uint64_t)a,
						 b > sl->ov.end ? UINT64_MAX : (uint64_t)b, err,
						 sizeof(err));
		if (r >= 0) {
			/* nothing in the range: its model where the range is, so that a view stays put */
			if (!ls->m.events && !ls->m.nlosses) {
				ls->m.origin_ns = sl->ov.origin_ns + a;
				ls->m.start = ls->m.end = 0;
			}
			ls->done = true;
			if (rtr_scene_build(&ls->s, &ls->m, sl->scene_flags)) {
				snprintf(err, sizeof(err), "out of memory");
				r = -1;
			}
		}
		if (r < 0) {
			rtr_live_scene_free(ls);
			ls = NULL;
		}
		pthread_mutex_lock(&sl->lock);
		stale = sl->next;
		sl->next = ls;
		sl->next_a = a;
		sl->next_b = b;
		if (r < 0)
			snprintf(sl->err, sizeof(sl->err), "%s", err[0] ? err : "the slice could not be loaded");
		sl->loading = false;
		pthread_mutex_unlock(&sl->lock);
		rtr_live_scene_free(stale);
		if (sl->ready)
			sl->ready(sl->arg);
	}
}

int rtr_slices_open(struct rtr_slices *sl, const char *dir, uint64_t cap, unsigned model_flags,
		    unsigned scene_flags, void (*ready)(void *arg), void *arg,
		    struct rtr_live_scene **first, char *err, size_t errlen)
{
	char *dirs[1] = { (char *)dir };
	struct rtr_live_scene *ls;

	memset(sl, 0, sizeof(*sl));
	*first = NULL;
	pthread_mutex_init(&sl->lock, NULL);
	pthread_cond_init(&sl->wake, NULL);
	sl->opened = true;
	sl->dir = dir;
	sl->model_flags = model_flags;
	sl->scene_flags = scene_flags;
	sl->ready = ready;
	sl->arg = arg;
	sl->slice_max = cap / 2 < RTR_SLICES_MAX_EVENTS ? cap / 2 : RTR_SLICES_MAX_EVENTS;
	if (!sl->slice_max)
		sl->slice_max = 1;
	sl->have_a = sl->failed_a = 1;
	sl->have_b = sl->failed_b = 0;
	if (rtr_overview_build(&sl->ov, dir, err, errlen))
		return -1;
	if (!(ls = calloc(1, sizeof(*ls)))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* the trace's one trace record and strings, no event: a range past its end */
	if (rtr_model_load_slice(&ls->m, dirs, 1, model_flags, (uint64_t)sl->ov.end + 1,
				 (uint64_t)sl->ov.end + 2, err, errlen) < 0) {
		rtr_live_scene_free(ls);
		return -1;
	}
	ls->m.origin_ns = sl->ov.origin_ns;
	ls->m.start = 0;
	ls->m.end = sl->ov.end;
	ls->done = true;
	if (rtr_scene_build(&ls->s, &ls->m, scene_flags)) {
		snprintf(err, errlen, "out of memory");
		rtr_live_scene_free(ls);
		return -1;
	}
	if ((errno = pthread_create(&sl->thread, NULL, loader, sl))) {
		snprintf(err, errlen, "a thread to load slices: %s", strerror(errno));
		rtr_live_scene_free(ls);
		return -1;
	}
	sl->started = true;
	*first = ls;
	return 0;
}

enum rtr_slices_what rtr_slices_view(struct rtr_slices *sl, int64_t a, int64_t b,
				     uint64_t *events)
{
	int64_t margin = b - a;
	bool asked = false;

	*events = rtr_overview_events(&sl->ov, a, b);
	if (sl->have_a <= sl->have_b && a >= sl->have_a && (b <= sl->have_b || sl->have_b > sl->ov.end))
		return RTR_SLICES_DRAWN;
	if (*events > sl->slice_max)
		return RTR_SLICES_OVERVIEW;
	while (margin > 0 && rtr_overview_events(&sl->ov, a - margin, b + margin) > 2 * sl->slice_max)
		margin /= 2;
	a = a - margin < 0 ? 0 : a - margin;
	b = b + margin;
	if (a == sl->failed_a && b == sl->failed_b)
		return RTR_SLICES_OVERVIEW;
	pthread_mutex_lock(&sl->lock);
	asked = sl->want_a == a && sl->want_b == b && (sl->want_new || sl->loading);
	if (!asked) {
		sl->want_a = a;
		sl->want_b = b;
		sl->want_new = true;
		pthread_cond_signal(&sl->wake);
	}
	pthread_mutex_unlock(&sl->lock);
	return RTR_SLICES_LOADING;
}

struct rtr_live_scene *rtr_slices_take(struct rtr_slices *sl, char *err, size_t errlen)
{
	struct rtr_live_scene *ls;
	int64_t a, b;

	pthread_mutex_lock(&sl->lock);
	ls = sl->next;
	sl->next = NULL;
	a = sl->next_a;
	b = sl->next_b;
	if (errlen)
		snprintf(err, errlen, "%s", sl->err);
	sl->err[0] = 0;
	pthread_mutex_unlock(&sl->lock);
	if (ls) {
		sl->have_a = a;
		sl->have_b = b;
		ls->turn = ++sl->slices;
	} else if (errlen && err[0]) {
		sl->failed_a = a;
		sl->failed_b = b;
	}
	return ls;
}

bool rtr_slices_busy(struct rtr_slices *sl)
{
	bool busy;

	pthread_mutex_lock(&sl->lock);
	busy = sl->want_new || sl->loading || sl->next || sl->err[0];
	pthread_mutex_unlock(&sl->lock);
	return busy;
}

void rtr_slices_close(struct rtr_slices *sl)
{
	if (!sl->opened)
		return;
	if (sl->started) {
		pthread_mutex_lock(&sl->lock);
		sl->quit = true;
		pthread_cond_signal(&sl->wake);
		pthread_mutex_unlock(&sl->lock);
		pthread_join(sl->thread, NULL);
		sl->started = false;
	}
	rtr_live_scene_free(sl->next);
	sl->next = NULL;
	rtr_overview_free(&sl->ov);
	pthread_mutex_destroy(&sl->lock);
	pthread_cond_destroy(&sl->wake);
	sl->opened = false;
}
