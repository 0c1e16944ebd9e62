/* SPDX-License-Identifier: MIT */
/*
 * reader/input.h - the input resolver: what a trace argument names.  A
 * trace directory; a directory of rotated chunks (chunk-NNNNNN, each a
 * trace, read one after the other as one trace); a directory holding
 * several traces below it (LTTng's domains, a rotated session's archives:
 * every directory with a metadata file, searched as babeltrace2 searches,
 * merged as one trace); or '-', the framed stream
 * of `ringtrace record -o -` on standard input, spooled into a private
 * temporary trace directory (reader/spool.h) that tr_input_close()
 * removes.  The recorder's state file, for following a trace as it grows,
 * is format/state.h's.
 */
#ifndef RTR_READER_INPUT_H
#define RTR_READER_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * struct tr_input - a resolved trace argument.
 * @root: the directory given, or the spool's trace directory.
 * @dirs: the traces to read, in order (@root, or its chunks sorted by
 *	name, or the traces found below it sorted by path), @ndirs of them.
 * @found: @dirs are traces found below @root, not chunks.
 * @spool: the temporary directory to remove, or NULL.
 * @spooling: a thread is still copying standard input into it.
 * @stream_failed: the stream on standard input was cut or damaged (what
 *	came before it is read); @stream_err says how.
 */
struct tr_input {
	char *root;
	char **dirs;
	uint32_t ndirs;
	char *spool;
	bool found;
	bool spooling;
	bool stream_failed;
	char stream_err[600];
	/* private: */
	void *priv;
};

/*
 * tr_input_open() - resolve @arg.  With @live and '-', standard input is
 * copied in the background (follow the spool directory while it grows);
 * without, it is copied whole first, and a stream cut or damaged sets
 * @in->stream_failed.  Return: 0; or a negative errno with @err set:
 * -ENOENT not a trace (nor chunks, nor a directory with traces below it),
 * -EISDIR a directory of snapshots (each
 * a trace: the user must name one), -EPROTO the stream holds no trace,
 * -ENOMEM, or the file system's error.  tr_input_close() @in either way.
 * After -ENOENT for a directory, @in->root is set and tr_input_rescan()
 * may find the trace later (a recorder creating it).
 */
int tr_input_open(struct tr_input *in, const char *arg, bool live, char *err, size_t errlen);

/* List the chunks again (a recorder may have started new ones).  Return: as tr_input_open(). */
int tr_input_rescan(struct tr_input *in, char *err, size_t errlen);

/*
 * tr_input_close() - wait for the spooling thread, remove the spool
 * directory, free.  Return: 0; or -EPIPE, the stream was cut or damaged,
 * with @err saying how (@in->stream_failed told it already if it was set
 * before the call).
 */
int tr_input_close(struct tr_input *in, char *err, size_t errlen);

/*
 * tr_input_ended() - with '-' followed: the spooling thread has copied the
 * whole stream, or stopped at a cut or damage; then @in->stream_failed
 * and @in->stream_err say which (as after tr_input_open() without @live),
 * so that the last load of a follower says it.  True for anything else.
 */
bool tr_input_ended(struct tr_input *in);

/*
 * tr_input_wait() - let a follower wait @ms for more of the trace; with '-',
 * no longer than until the spooling thread has copied the whole stream.
 */
void tr_input_wait(struct tr_input *in, int ms);

#endif /* RTR_READER_INPUT_H */
