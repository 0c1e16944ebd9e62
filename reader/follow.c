// SPDX-License-Identifier: MIT
/*
 * reader/follow.c - what a follower of a recording may read at each turn
 * (reader/follow.h): the recorder's state file and the chunks listed again.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "reader/follow.h"
#include "format/error.h"

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

const char *tr_follow_base(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

void tr_follow_cap(struct tr_trace *t, const struct rtr_state *st)
{
	for (uint32_t i = 0; i < t->nstreams; i++) {
		uint64_t whole = 0;
		unsigned cpu;

		if (sscanf(t->streams[i].name, "stream_%u", &cpu) == 1)
			for (uint32_t j = 0; j < st->nstreams; j++)
				if (st->streams[j].cpu == cpu)
					whole = st->streams[j].size;
		if (t->streams[i].size > whole)
			t->streams[i].size = whole;
	}
}

void tr_follow_turn_free(struct tr_follow_turn *turn)
{
	rtr_state_free(&turn->st);
}

int tr_follow_poll(struct tr_follow *f, struct tr_follow_turn *turn, char *err, size_t errlen)
{
	struct tr_input *in = f->in;
	struct rtr_state *st = &turn->st;

	memset(turn, 0, sizeof(*turn));
	err[0] = 0;
	if (rtr_state_read(in->root, st)) {
		return rtr_errf(err, errlen, EPROTO, "%s/%s: damaged state file", in->root,
				RTR_STATE_FILE);
	}
	/*
	 * No state file: not a recording under way (a copied trace, or one
	 * another tool wrote): read it whole.  Give a recorder that is
	 * creating its directory a moment first.
	 */
	if (!st->present && !in->spooling) {
		if (f->absent_since == 0)
			f->absent_since = mono_ms();
		if (tr_input_rescan(in, err, errlen) && mono_ms() - f->absent_since < 2000)
			goto wait;
		st->done = st->present = true;
		st->chunk[0] = 0;
	}
	turn->done = st->present && st->done;
	/* a recording under way, followed: its recorder flushes more often (format/state.h) */
	if (st->present && !st->done && !in->spool)
		rtr_viewer_touch(in->root);
	if (tr_input_rescan(in, err, errlen)) {
		if (turn->done) {
			/* A spooled stream with no trace: its closing says why. */
			if (in->spool)
				err[0] = 0;
			rtr_state_free(st);
			return -ENOENT;
		}
		goto wait;	/* no metadata, no chunk yet */
	}
	err[0] = 0;
	/* The chunk being written; those before it are complete. */
	turn->now = in->ndirs - 1;
	for (uint32_t i = 0; i < in->ndirs && st->chunk[0] && strcmp(st->chunk, "."); i++)
		if (!strcmp(tr_follow_base(in->dirs[i]), st->chunk))
			turn->now = i;
	if (turn->done)
		turn->now = in->ndirs - 1;
	turn->limit = turn->done ? UINT64_MAX : st->watermark;
	return TR_FOLLOW_READ;
wait:
	err[0] = 0;
	rtr_state_free(st);
	return TR_FOLLOW_WAIT;
}
