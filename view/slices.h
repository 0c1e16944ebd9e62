/* SPDX-License-Identifier: MIT */
/*
 * view/slices.h - a trace too large for a model in memory, as a front end
 * shows it: its overview (view/overview.h) where the view holds more
 * events than a slice loads, and the scene of the slice around the view
 * (rtr_model_load_slice()) where it holds fewer, loaded on a thread of its
 * own while the overview is drawn (Documentation/viewer.rst, "Traces
 * larger than memory").  `ringtrace gui` and `ringtrace view --serve`
 * both draw through it.
 *
 * Times: the overview's (ns since ov.origin_ns, the trace's first item);
 * a slice's model counts from its own first event: rtr_slices_off() is
 * what to add to its times to get the overview's.
 *
 * Concurrency: the loader thread is the module's; every other call comes
 * from the front end, one at a time (its main loop, or under its lock).
 * @ready is called on the loader thread when a slice (or a failure) is
 * ready to be taken: it hands the news to the front end.
 */
#ifndef RTR_VIEW_SLICES_H
#define RTR_VIEW_SLICES_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "view/live.h"
#include "view/overview.h"

/*
 * A view of at most this many events is loaded (~0.2 s; a frame with that
 * many in view draws in ~8 ms), or half the cap when that is lower.
 */
#define RTR_SLICES_MAX_EVENTS	400000u

/**
 * struct rtr_slices - the overview of a trace and its slices.
 * @ov: the overview.
 * @dir: the trace as the user named it (borrowed).
 * @slice_max: a view of at most this many events is loaded.
 * @have_a: @have_b: the range of the slice taken last (overview times;
 *	@have_a > @have_b: none).
 * @slices: slices loaded so far.
 */
struct rtr_slices {
	struct rtr_overview ov;
	const char *dir;
	uint64_t slice_max;
	int64_t have_a, have_b;
	uint64_t slices;
	/* private: */
	unsigned model_flags, scene_flags;
	void (*ready)(void *arg);
	void *arg;
	pthread_t thread;
	bool opened, started;
	pthread_mutex_t lock;	/* what follows */
	pthread_cond_t wake;
	bool quit, want_new, loading;
	int64_t want_a, want_b;
	struct rtr_live_scene *next;
	int64_t next_a, next_b;
	char err[1024];
	int64_t failed_a, failed_b;
};

/*
 * rtr_slices_open() - the overview of the trace @dir (one trace: a
 * directory or rotated chunks) from its index, and *@first, a scene of
 * none of its events whose model's times are the overview's (the front
 * end draws the overview over it, and uses its range for --range); the
 * loader thread started.
 * @cap: the events a model may hold here: a slice loads at half of it or
 *	RTR_SLICES_MAX_EVENTS, the lower.
 * @model_flags: enum rtr_model_flags; @scene_flags: enum rtr_scene_flags.
 * Return: 0; -1 with @err (then rtr_slices_close() is still safe).
 */
int rtr_slices_open(struct rtr_slices *sl, const char *dir, uint64_t cap, unsigned model_flags,
		    unsigned scene_flags, void (*ready)(void *arg), void *arg,
		    struct rtr_live_scene **first, char *err, size_t errlen);

/*
 * enum rtr_slices_what - what to draw of a view (rtr_slices_view()).
 * @RTR_SLICES_DRAWN: the slice taken last holds it: draw its scene.
 * @RTR_SLICES_LOADING: the overview; the slice around it is being loaded.
 * @RTR_SLICES_OVERVIEW: the overview: too many events in view, or the
 *	load of that slice failed before.
 */
enum rtr_slices_what {
	RTR_SLICES_DRAWN,
	RTR_SLICES_LOADING,
	RTR_SLICES_OVERVIEW,
};

/*
 * rtr_slices_view() - what to draw of the view [@a, @b) (overview times),
 * the load of its slice asked for when it holds few enough events (the
 * view and as much on each side, at most 2 x slice_max events; a later ask
 * replaces one not started).  *@events: about how many events it holds.
 */
enum rtr_slices_what rtr_slices_view(struct rtr_slices *sl, int64_t a, int64_t b,
				     uint64_t *events);

/*
 * rtr_slices_take() - the slice loaded since, to draw instead of the last
 * (the caller's: rtr_live_scene_free()), its range then @have_a..@have_b;
 * NULL when none came, with @err set when a load failed (that range is not
 * asked again).
 */
struct rtr_live_scene *rtr_slices_take(struct rtr_slices *sl, char *err, size_t errlen);

/* rtr_slices_busy() - a load is asked for, under way, or not taken yet. */
bool rtr_slices_busy(struct rtr_slices *sl);

/* rtr_slices_off() - what to add to @m's times (a slice's) to get the overview's. */
static inline int64_t rtr_slices_off(const struct rtr_slices *sl, const struct rtr_model *m)
{
	return m->origin_ns - sl->ov.origin_ns;
}

/* rtr_slices_close() - the loader stopped, everything freed (again: nothing). */
void rtr_slices_close(struct rtr_slices *sl);

#endif /* RTR_VIEW_SLICES_H */
