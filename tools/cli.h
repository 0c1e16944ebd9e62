/* SPDX-License-Identifier: MIT */
/*
 * tools/cli.h - what the commands share: parsing sizes and times, printing
 * sizes, the signals a long command reacts to, the SIGBUS guard around
 * reads of a region another process may truncate, and the messages that
 * opening an input and loading the model print.  Library code returns
 * errors; these helpers are where the commands print them.
 */
#ifndef RTR_TOOLS_CLI_H
#define RTR_TOOLS_CLI_H

#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rtr_model;
struct tr_input;

/* "64k", "4M", "1G", or bytes (a trailing "B" or "iB" allowed).  Return: 0, or -EINVAL. */
int cli_parse_size(const char *s, uint64_t *out);
/* "20ns", "3us", "500ms", "10s", "5m", "2h", "1d"; a bare number is seconds.  To ns.  Return: 0, or -EINVAL. */
int cli_parse_time(const char *s, uint64_t *ns);
/*
 * cli_parse_span() - @opt's value @s, "T0..T1" (with @open also "T0.." and
 * "..T1": *@b UINT64_MAX, *@a 0), as ns; said on stderr when wrong.
 * Return: 0 or -EINVAL.
 */
int cli_parse_span(const char *cmd, const char *opt, const char *s, bool open, uint64_t *a,
		   uint64_t *b);
/* @bytes as "12.3 KiB", "4.5 MiB" or "1.23 GiB". */
void cli_human(char *buf, size_t n, uint64_t bytes);

/* Set by cli_catch_signals()'s handlers. */
extern volatile sig_atomic_t cli_got_chld, cli_got_usr1, cli_got_term, cli_got_int;
extern volatile sig_atomic_t cli_got_stop;	/* SIGINT, SIGTERM or SIGHUP came */

/*
 * A producer that truncates its region file under us turns our next read of
 * the mapping into SIGBUS.  While a command reads the region (cli_bus_armed
 * set after sigsetjmp(cli_bus_jmp, 1)), the handler jumps back there: the
 * command stops reading, says why (cli_bus_message()), and leaves what it
 * wrote (whole packets only) as a trace.
 */
extern sigjmp_buf cli_bus_jmp;
extern volatile sig_atomic_t cli_bus_armed;
void cli_bus_message(const char *cmd, const char *region);

/*
 * cli_catch_signals() - SIGCHLD, SIGUSR1, SIGINT, SIGTERM, SIGHUP set the
 * flags above, without SA_RESTART (a signal ends a consumer's wait);
 * SIGPIPE is ignored; SIGBUS goes to the guard.
 */
void cli_catch_signals(void);

/*
 * cli_input_told() - after tr_input_open(): a stream on standard input cut
 * or damaged is said on stderr ("ringtrace: ..."), what came before being
 * read.  cli_input_close() - tr_input_close(), saying what it found that was
 * not said yet.  Return: 0, or 1 if the stream was cut or damaged.
 */
void cli_input_told(const struct tr_input *in);
int cli_input_close(struct tr_input *in);

/*
 * Output files (export -o, view -o) are made as the recorder makes its files
 * (consumer/output.c): written into a temporary file beside PATH, created
 * new (O_EXCL | O_NOFOLLOW) with mode CLI_FILE_MODE less the umask, synced,
 * then given the name PATH: with @force by rename() over what is there,
 * else so that an existing file is never replaced (rename with
 * RENAME_NOREPLACE, or link()).  A symbolic link at PATH is refused, with or
 * without @force: nothing is written through one.  A failure leaves no
 * temporary file behind.
 */
#define CLI_FILE_MODE 0600	/* record's --file-mode default */

/**
 * struct cli_out - an output file being written.
 * @fd: the temporary file: write here.
 * @private: where it goes.
 */
struct cli_out {
	int fd;
	/* private: */
	int dfd;
	bool force;
	const char *cmd, *path;
	char name[256], tmp[300];
};

/*
 * cli_out_open() - for the command @cmd, start writing @path: a file that
 * exists (without @force), a symbolic link or something that is not a
 * regular file there is refused now, before any work.  Errors are said on
 * stderr ("ringtrace CMD: PATH: ...").  Return: 0, or -errno.
 */
int cli_out_open(struct cli_out *o, const char *cmd, const char *path, bool force);
/* cli_out_commit() - sync and close the file, give it its name (as above).  Return: 0, or -errno (said; nothing is left). */
int cli_out_commit(struct cli_out *o);
/* cli_out_abort() - drop the file: the temporary one removed, PATH as it was. */
void cli_out_abort(struct cli_out *o);

/*
 * cli_traces_exist() - each of @paths that is not "-" exists: else "ringtrace
 * CMD: no such trace: PATH" on stderr.  Return: 0, or 2 (a usage error).
 */
int cli_traces_exist(const char *cmd, char *const *paths, int n);

/*
 * --slice T0..T1 (also T0.. and ..T1): the commands that load a model read
 * only that time range of the traces (rtr_model_load_slice()).
 * cli_slice_arg() - argv[*@i] is --slice (its value next, or after '='):
 * parsed into cli_slice, *@i moved past it.  Return: 1, 0 not --slice, -1
 * a wrong value (said).  cli_model_read() - rtr_model_load_flags(), or the
 * slice when one was given.
 */
struct cli_slice {
	bool on;
	uint64_t from, to;
};
extern struct cli_slice cli_slice;
int cli_slice_arg(const char *cmd, int argc, char **argv, int *i);
/* cli_slice_empty() - --slice read nothing: said, with the traces' span (from their indexes). */
void cli_slice_empty(const char *cmd, char *const *dirs, int ndirs);
struct rtr_model;

/*
 * cli_view_fits() - before a view loads the whole of the traces @dirs: its
 * events, from the index beside each trace (built when missing, as a
 * --slice would), against what it can hold: with @page, a page a browser
 * can load (CLI_PAGE_MAX_EVENTS); else a model in the memory available
 * (CLI_MODEL_BYTES_PER_EVENT an event); RINGTRACE_VIEW_MAX_EVENTS sets
 * the cap (0: none).  Nothing is checked with --slice, or for '-'.
 * Return: 0, or 1: over the cap, said with a --slice to try.
 */
#define CLI_PAGE_MAX_EVENTS		40000000ull
#define CLI_MODEL_BYTES_PER_EVENT	300u
int cli_view_fits(const char *cmd, char *const *dirs, int ndirs, bool page);
/*
 * cli_proc_kb() - the "NAME: N kB" line of the /proc file @path (meminfo,
 * self/status), in bytes; 0 when missing.
 */
uint64_t cli_proc_kb(const char *path, const char *name);

/*
 * cli_model_fits() - before a command loads the whole model of the traces
 * @dirs: their events, from the index beside each (as cli_view_fits()), at
 * @bytes_per_event against 90 % of the memory available.  Return: 0; or 1,
 * more than that, said with a --slice to try (not with --slice).
 */
#define CLI_STATS_BYTES_PER_EVENT	100u	/* a model without markers (stats, why, diff) */
#define CLI_LEAN_BYTES_PER_EVENT	50u	/* RTR_MODEL_LEAN (stats' tables) */
int cli_model_fits(const char *cmd, char *const *dirs, int ndirs, unsigned bytes_per_event);

/*
 * cli_view_over() - cli_view_fits()'s test without its refusal: 1, over
 * the cap (*@cap set, *@events the traces'); 0, they fit (or no cap);
 * -1, a wrong RINGTRACE_VIEW_MAX_EVENTS (said).
 */
int cli_view_over(const char *cmd, char *const *dirs, int ndirs, bool page, uint64_t *cap,
		  uint64_t *events);
int cli_model_read(struct rtr_model *m, char *const *dirs, int ndirs, unsigned flags, char *err,
		   size_t errlen);

/*
 * cli_model_load() - rtr_model_load_flags() for the command @cmd ("stats",
 * ...): a fatal error goes to stderr as "ringtrace CMD: message".
 * Return: as rtr_model_load().
 */
int cli_model_load(const char *cmd, struct rtr_model *m, char *const *dirs, int ndirs,
		   unsigned flags);
/* cli_model_damage() - each damage message to stderr as "ringtrace CMD: damaged: ...". */
void cli_model_damage(const char *cmd, const struct rtr_model *m);

#endif /* RTR_TOOLS_CLI_H */
