/* SPDX-License-Identifier: MIT */
/*
 * tools/input.h - what a trace argument names: a trace directory, a
 * directory of rotated chunks (read one after the other), or '-' (the framed
 * stream of `ringtrace record -o -` on standard input, spooled into a
 * private temporary trace directory).  And the state file a recorder keeps,
 * for `dump --follow`.
 */
#ifndef RTR_TOOLS_INPUT_H
#define RTR_TOOLS_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tr_input {
	char *root;		/* the directory given, or the spool directory */
	char **dirs;		/* the traces to read, in order */
	uint32_t ndirs;
	char *spool;		/* temporary directory to remove, or NULL */
	bool spooling;		/* a thread is still copying standard input into it */
	bool stream_failed;	/* the stream was cut or damaged: what came is read */
	void *priv;
};

/*
 * tr_input_open() - resolve @arg.  With @live and '-', standard input is
 * copied in the background (follow the spool directory while it grows);
 * without, it is copied whole first.  Return: 0, or -1 with @err set.
 */
int tr_input_open(struct tr_input *in, const char *arg, bool live, char *err, size_t errlen);

/* List the chunks again (a recorder may have started new ones). */
int tr_input_rescan(struct tr_input *in, char *err, size_t errlen);

/*
 * Wait for the spooling thread, remove the spool directory, free.
 * Return: 0, or -1 if the stream was cut or damaged (the message is printed).
 */
int tr_input_close(struct tr_input *in);

/**
 * struct tr_state - a recorder's .ringtrace-state.
 * @done: the recording is over (done, stopped or failed): read to the end.
 * @chunk: the chunk being written ("." without rotation, "" if none yet).
 * @watermark: every event before it is in the files, within @size.
 */
struct tr_state {
	bool present;
	bool done;
	char chunk[64];
	uint64_t watermark;
	uint32_t nstreams;
	struct {
		uint32_t cpu;
		uint64_t size;
	} streams[1024];
};

/* Read @dir's state file.  Return: 0 (state->present false if there is none), -1 damaged. */
int tr_state_read(const char *dir, struct tr_state *st);

#endif /* RTR_TOOLS_INPUT_H */
