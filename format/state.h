/* SPDX-License-Identifier: MIT */
/*
 * format/state.h - the state file a recorder keeps in the trace directory
 * it writes (RTR_STATE_FILE), so that a reader can follow the trace while it
 * grows (`ringtrace dump --follow`).  Its format is written and parsed here
 * and nowhere else: consumer/output.c writes it, reader/ reads it.
 *
 * Text, one item a line, in this order (Documentation/consumer.rst):
 *
 *     ringtrace-state 1
 *     state recording|done|stopped|failed
 *     chunk NAME          the chunk being written: "." without rotation, "-" none yet
 *     watermark N         every event before clock value N is in the files ...
 *     stream CPU SIZE     ... within SIZE bytes of each stream file of that chunk
 *
 * The file is replaced atomically (written aside, renamed), so a reader sees
 * one version whole; it still trusts nothing in it beyond its syntax.
 */
#ifndef RTR_FORMAT_STATE_H
#define RTR_FORMAT_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The state file's name in a trace directory (hidden: not a stream file). */
#define RTR_STATE_FILE ".ringtrace-state"

enum rtr_state_kind {
	RTR_REC_RECORDING,	/* being written */
	RTR_REC_DONE,		/* the recording ended normally */
	RTR_REC_STOPPED,	/* the writer stopped early */
	RTR_REC_FAILED,	/* writing failed: what is on disk is a valid trace */
};

struct rtr_state_stream {
	uint32_t cpu;
	uint64_t size;		/* bytes of whole packets in stream_<cpu> */
};

/**
 * struct rtr_state - one version of the state file.
 * @present: the file exists (rtr_state_read() found one).
 * @kind: enum rtr_state_kind.
 * @done: the recording is over (done, stopped or failed): read to the end.
 * @chunk: the chunk being written ("." without rotation, "" if none yet).
 * @watermark: every event before it is in the files, within the sizes.
 * @streams: the stream files of that chunk, @nstreams of them; owned
 *	(rtr_state_free()).
 */
struct rtr_state {
	bool present;
	enum rtr_state_kind kind;
	bool done;
	char chunk[64];
	uint64_t watermark;
	uint32_t nstreams;
	struct rtr_state_stream *streams;
};

/*
 * rtr_state_format() - @st as the file's text, in a new buffer *@text of
 * *@len bytes (free() it).  Return: 0, -EINVAL (no such @kind), -ENOMEM.
 */
int rtr_state_format(const struct rtr_state *st, char **text, size_t *len);

/*
 * rtr_state_parse() - @len bytes of state file text into @st.
 * Return: 0, -EPROTO (not a state file, or damaged), -ENOMEM.
 */
int rtr_state_parse(struct rtr_state *st, const char *text, size_t len);

/*
 * rtr_state_read() - the state file of the trace directory @dir.
 * Return: 0 (@st->present false if there is none); -EPROTO damaged; or the
 * negative errno of reading it.
 */
int rtr_state_read(const char *dir, struct rtr_state *st);

void rtr_state_free(struct rtr_state *st);

/*
 * rtr_file_replace() - write @len bytes as the file @name of the directory
 * @dfd, atomically: under a temporary name (".NAME.tmp"), then renamed
 * over @name, so that a reader sees the old file or the new one whole
 * (the metadata of a trace being written, its state file).  @sync: fsync
 * the file before the rename.  Return: 0 or -errno (nothing left behind).
 */
int rtr_file_replace(int dfd, const char *name, const void *data, size_t len, mode_t mode,
		     bool sync);

/* rtr_state_write() - @st as the state file of the directory @dfd.  Return: 0, -errno. */
int rtr_state_write(int dfd, const struct rtr_state *st, mode_t mode);

/*
 * A follower's mark in the trace directory it follows (`dump --follow`,
 * `view --serve --follow`, `gui --follow`): touched at each turn.  While it
 * is younger than RTR_VIEWER_FRESH_MS, the recorder closes its quiet
 * packets every RTR_VIEWER_FLUSH_MS at most instead of every flush
 * interval, so that what a follower shows is fresh; nobody watching, the
 * writers' packets are closed no more often than asked
 * (Documentation/consumer.rst, "The state file").
 */
#define RTR_VIEWER_FILE ".ringtrace-viewer"
#define RTR_VIEWER_FRESH_MS 2000
#define RTR_VIEWER_FLUSH_MS 100

/* rtr_viewer_touch() - mark @dir followed now (no error: a read-only trace is followed unmarked). */
void rtr_viewer_touch(const char *dir);

/* rtr_viewer_fresh() - the mark in the directory @dirfd is younger than RTR_VIEWER_FRESH_MS. */
bool rtr_viewer_fresh(int dirfd);

#endif /* RTR_FORMAT_STATE_H */
