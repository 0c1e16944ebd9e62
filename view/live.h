/* SPDX-License-Identifier: MIT */
/*
 * view/live.h - the scene of a recording in progress (`view --serve
 * --follow`, `gui --follow`, `gui -`): at each turn the recorder's state
 * file says what may be read (reader/follow.h); when the trace grew, a new
 * model of the recording so far and its scene are made, and the front end
 * swaps them in for the ones it draws.  Documentation/viewer.rst,
 * "Following a recording".
 *
 * A long recording: once it holds more than @tail_max events
 * (RTR_LIVE_TAIL_EVENTS), a turn loads only its tail, from where its last
 * @tail_max / 2 events begin (found in the index beside each chunk,
 * extended as the recording grows; rtr_model_load_turn_tail()), so that a
 * turn costs the tail and not the whole recording; it starts there until
 * the tail has grown past @tail_max, then later.  Not for standard input or a relayd's
 * session, which have no index: those are loaded whole at each turn.
 *
 * Concurrency: one thread polls (rtr_live_poll()); the scenes it hands out
 * are the caller's, built and read-only: they may be read by other threads
 * while the next is made.
 */
#ifndef RTR_VIEW_LIVE_H
#define RTR_VIEW_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "reader/follow.h"
#include "reader/input.h"
#include "reader/model.h"
#include "view/scene.h"

/**
 * struct rtr_live_scene - a model of the recording so far and its scene.
 * @m: the model (the scene borrows it).
 * @s: the scene.
 * @done: the recording was over: this is the last one.
 * @turn: 1 for the first scene of the recording, then counting.
 */
struct rtr_live_scene {
	struct rtr_model m;
	struct rtr_scene s;
	bool done;
	uint64_t turn;
};

/**
 * struct rtr_live - a followed recording.
 * @in: the trace (opened live).
 * @arg: the trace as the user named it.
 * @done: the last scene was handed out: nothing will change any more.
 * @tail_max: a recording of more events is loaded from its tail (0: never);
 *	RTR_LIVE_TAIL_EVENTS, or RINGTRACE_LIVE_TAIL_EVENTS.
 * @tail_from: where the tail loaded starts (ns since the epoch;
 *	INT64_MIN: the whole recording is loaded).
 */
struct rtr_live {
	struct tr_input in;
	const char *arg;
	bool done;
	uint64_t tail_max;
	int64_t tail_from;
	/* private: */
	struct tr_follow f;
	unsigned model_flags, scene_flags;
	uint64_t seen[4];	/* what the last scene was made of: ndirs, now, watermark, bytes */
	bool any;
	uint64_t turns;
	uint64_t turn_ms;	/* what making the last scene took */
	uint64_t last_events;	/* the last scene's model's: past a quarter of tail_max, the tail is watched */
};

/* A followed recording of more events than this is loaded from its tail at each turn. */
#define RTR_LIVE_TAIL_EVENTS	2000000u

/* The pause between two turns at least; longer after a turn that took longer. */
#define RTR_LIVE_PAUSE_MS	200

/*
 * rtr_live_open() - follow @arg: a trace directory a recorder is writing (or
 * will soon make), a directory of rotated chunks, or "-" (the framed
 * stream of `ringtrace record -o -` on standard input, spooled as it
 * arrives).  @model_flags: enum rtr_model_flags; @scene_flags: enum
 * rtr_scene_flags.  Return: 0; or a negative errno with @err set (as
 * tr_input_open()): rtr_live_close() @lv either way.
 */
int rtr_live_open(struct rtr_live *lv, const char *arg, unsigned model_flags,
		  unsigned scene_flags, char *err, size_t errlen);

/*
 * rtr_live_poll() - one turn: if the recording grew since the last scene
 * (or ended), load it as it is now and build its scene.
 * Return: 1 with *@out a new scene (the caller's: rtr_live_scene_free()),
 * its model's damage listed as rtr_model_load()'s; 0, nothing new (wait,
 * tr_input_wait(), poll again); -1, @err says why (a damaged state file,
 * a trace that could not be opened, no trace when the recording ended: @err
 * empty when the stream's spool says it at rtr_live_close()).  After the
 * scene with @done, @lv->done is set and every later poll returns 0.
 */
int rtr_live_poll(struct rtr_live *lv, struct rtr_live_scene **out, char *err, size_t errlen);

/* rtr_live_wait() - let @ms pass, or less when the stream on standard input ends. */
void rtr_live_wait(struct rtr_live *lv, int ms);

/*
 * rtr_live_pause_ms() - how long to wait before the next poll: 200 ms, or
 * as long as making the last scene took, so that following a big recording
 * takes at most about half a CPU.
 */
int rtr_live_pause_ms(const struct rtr_live *lv);

void rtr_live_scene_free(struct rtr_live_scene *ls);

/*
 * rtr_live_close() - stop following.  Return: 0, or -EPIPE: the stream on
 * standard input was cut or damaged, @err says how.
 */
int rtr_live_close(struct rtr_live *lv, char *err, size_t errlen);

#endif /* RTR_VIEW_LIVE_H */
