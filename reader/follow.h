/* SPDX-License-Identifier: MIT */
/*
 * reader/follow.h - following a trace while a recorder writes it: at each
 * turn, what may be read now.  The recorder's state file (format/state.h)
 * names the chunk being written, a watermark (every event before it is on
 * disk) and the whole packets of each of its stream files; the chunks
 * before it are finished.  `ringtrace dump --follow`, `view --serve
 * --follow` and `gui --follow` share this (Documentation/consumer.rst, "The
 * state file"; Documentation/reader.rst).
 */
#ifndef RTR_READER_FOLLOW_H
#define RTR_READER_FOLLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "format/state.h"
#include "reader/input.h"
#include "reader/trace.h"

/**
 * struct tr_follow_turn - what one turn may read.
 * @st: the state file as read this turn (owned: tr_follow_turn_free());
 *	when @done, the sizes in it are not to be used.
 * @now: the index in tr_input.dirs of the chunk being written (the last
 *	one when @done); the chunks before it are finished.
 * @limit: read the events before this clock value (UINT64_MAX: all).
 * @done: the recording is over (or the directory never had a recorder):
 *	read everything, this is the last turn.
 */
struct tr_follow_turn {
	struct rtr_state st;
	uint32_t now;
	uint64_t limit;
	bool done;
};

/**
 * struct tr_follow - a follower of one trace argument.
 * @in: the trace, opened by tr_input_open() with live set.
 * @absent_since: private: when a missing state file was first seen (ms).
 */
struct tr_follow {
	struct tr_input *in;
	uint64_t absent_since;
};

/* tr_follow_poll()'s answers. */
enum {
	TR_FOLLOW_WAIT = 0,	/* nothing to read yet: tr_input_wait(), poll again */
	TR_FOLLOW_READ = 1,	/* @turn says what to read */
};

/*
 * tr_follow_poll() - read the state file and list the chunks again.  A
 * directory with no state file is a trace no recorder writes (a copy) once
 * 2 s passed without one appearing: read whole, done.
 * Return: TR_FOLLOW_READ (@turn filled: tr_follow_turn_free() it),
 * TR_FOLLOW_WAIT, or -EPROTO (a damaged state file), -ENOENT (the
 * recording is over and there is no trace: @err says why, or is empty when
 * the spool of standard input will say it when closed).
 */
int tr_follow_poll(struct tr_follow *f, struct tr_follow_turn *turn, char *err, size_t errlen);

void tr_follow_turn_free(struct tr_follow_turn *turn);

/*
 * tr_follow_cap() - cap the stream files of @t (the chunk being written)
 * to the whole packets @st names: bytes after them may be half-written.
 */
void tr_follow_cap(struct tr_trace *t, const struct rtr_state *st);

/* tr_follow_base() - the last component of the path @p. */
const char *tr_follow_base(const char *p);

#endif /* RTR_READER_FOLLOW_H */
