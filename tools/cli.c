// SPDX-License-Identifier: MIT
/* tools/cli.c - what the commands share (cli.h). */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "platform/platform.h"
#include "reader/index.h"
#include "reader/input.h"
#include "reader/model.h"
#include "tools/cli.h"

int cli_parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	}
	if (*end == 'i' && end[1] == 'B')
		end += 2;
	else if (*end == 'B')
		end++;
	if (*end)
		return -EINVAL;
	*out = v;
	return 0;
}

int cli_parse_time(const char *s, uint64_t *ns)
{
	char *end;
	double v = strtod(s, &end);
	double mul = 1e9;

	if (end == s || v < 0)
		return -EINVAL;
	if (!strcmp(end, "ns"))
		mul = 1;
	else if (!strcmp(end, "us"))
		mul = 1e3;
	else if (!strcmp(end, "ms"))
		mul = 1e6;
	else if (!strcmp(end, "s") || !*end)
		mul = 1e9;
	else if (!strcmp(end, "m") || !strcmp(end, "min"))
		mul = 60e9;
	else if (!strcmp(end, "h"))
		mul = 3600e9;
	else if (!strcmp(end, "d"))
		mul = 86400e9;
	else
		return -EINVAL;
	if (v * mul > 1e18)
		return -EINVAL;
	*ns = (uint64_t)(v * mul);
	return 0;
}

int cli_parse_span(const char *cmd, const char *opt, const char *s, bool open, uint64_t *a,
		   uint64_t *b)
{
	const char *dots = strstr(s, "..");
	char *first = dots ? strndup(s, (size_t)(dots - s)) : NULL;
	bool bad_a, bad_b;

	if (!first) {
		fprintf(stderr, "ringtrace %s: %s takes T0..T1%s (times from the start of the "
			"trace: 20ms..35ms, 1.5s..2s, 0..800us), not '%s'\n", cmd, opt,
			open ? ", T0.. or ..T1" : "", s);
		return -EINVAL;
	}
	*a = 0;
	*b = UINT64_MAX;
	bad_a = (!open || *first) && cli_parse_time(first, a);
	bad_b = (!open || dots[2]) && cli_parse_time(dots + 2, b);
	free(first);
	if (bad_a || bad_b || *a >= *b) {
		fprintf(stderr, "ringtrace %s: %s '%s': %s\n", cmd, opt, s,
			bad_a || bad_b ? "each time a number with a unit (ns, us, ms, s, m, h; a "
			"bare number is seconds)" : "T0 must come before T1");
		return -EINVAL;
	}
	return 0;
}

void cli_human(char *buf, size_t n, uint64_t bytes)
{
	if (bytes >= (1ull << 30))
		snprintf(buf, n, "%.2f GiB", (double)bytes / (1 << 30));
	else if (bytes >= (1 << 20))
		snprintf(buf, n, "%.1f MiB", (double)bytes / (1 << 20));
	else
		snprintf(buf, n, "%.1f KiB", (double)bytes / 1024);
}

/* ---- signals ------------------------------------------------------------------- */

volatile sig_atomic_t cli_got_chld, cli_got_usr1, cli_got_term, cli_got_int;
volatile sig_atomic_t cli_got_stop;
sigjmp_buf cli_bus_jmp;
volatile sig_atomic_t cli_bus_armed;

static void on_sigbus(int sig)
{
	if (cli_bus_armed) {
		cli_bus_armed = 0;
		siglongjmp(cli_bus_jmp, 1);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

void cli_bus_message(const char *cmd, const char *region)
{
	fprintf(stderr, "\nringtrace %s: the region %s shrank while it was read (its file was "
		"truncated: a hostile or broken producer); stopped reading: what was written is a "
		"valid trace up to there\n", cmd, region);
}

static void on_signal(int sig)
{
	if (sig == SIGCHLD)
		cli_got_chld = 1;
	else if (sig == SIGUSR1)
		cli_got_usr1 = 1;
	else if (sig == SIGINT)
		cli_got_int = cli_got_stop = 1;
	else
		cli_got_term = sig, cli_got_stop = 1;
}

void cli_catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };
	int sigs[] = { SIGCHLD, SIGUSR1, SIGINT, SIGTERM, SIGHUP };

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	sa.sa_handler = on_sigbus;
	sigaction(SIGBUS, &sa, NULL);
}

/* ---- output files ------------------------------------------------------------------ */

/* What is at @o's name now: refused if a link, not a regular file, or (without --force) there. */
static int out_check(const struct cli_out *o)
{
	struct stat st;

	if (fstatat(o->dfd, o->name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (S_ISLNK(st.st_mode)) {
		fprintf(stderr, "ringtrace %s: %s: is a symbolic link; ringtrace does not write "
			"through one\n", o->cmd, o->path);
		return -ELOOP;
	}
	if (!S_ISREG(st.st_mode)) {
		fprintf(stderr, "ringtrace %s: %s: exists and is not a regular file\n", o->cmd,
			o->path);
		return -EEXIST;
	}
	if (!o->force) {
		fprintf(stderr, "ringtrace %s: %s exists (--force replaces it)\n", o->cmd, o->path);
		return -EEXIST;
	}
	return 0;
}

int cli_out_open(struct cli_out *o, const char *cmd, const char *path, bool force)
{
	const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
	char dir[4096];
	struct timespec ts;
	int ret;

	*o = (struct cli_out){ .fd = -1, .dfd = -1, .force = force, .cmd = cmd, .path = path };
	if (!*name || !strcmp(name, ".") || !strcmp(name, "..") ||
	    strlen(name) >= sizeof(o->name) || (size_t)(name - path) >= sizeof(dir)) {
		fprintf(stderr, "ringtrace %s: %s: not a file name\n", cmd, path);
		return -EINVAL;
	}
	snprintf(o->name, sizeof(o->name), "%s", name);
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
	if (!*dir)
		strcpy(dir, "/");
	o->dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (o->dfd < 0) {
		ret = -errno;
		fprintf(stderr, "ringtrace %s: %s: %s\n", cmd, dir, strerror(errno));
		return ret;
	}
	ret = out_check(o);
	if (ret) {
		if (ret != -ELOOP && ret != -EEXIST)
			fprintf(stderr, "ringtrace %s: %s: %s\n", cmd, path, strerror(-ret));
		close(o->dfd);
		return ret;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	for (unsigned i = 0; i < 100; i++) {
		/* a new name each try: another process's file there is never opened */
		snprintf(o->tmp, sizeof(o->tmp), ".%.200s.%d-%lx.tmp", o->name, (int)getpid(),
			 (unsigned long)ts.tv_nsec + i);
		o->fd = openat(o->dfd, o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			       CLI_FILE_MODE);
		if (o->fd >= 0 || errno != EEXIST)
			break;
	}
	if (o->fd < 0) {
		ret = -errno;
		fprintf(stderr, "ringtrace %s: %s: cannot create a file there: %s\n", cmd, dir,
			strerror(errno));
		close(o->dfd);
		return ret;
	}
	return 0;
}

/* Name the temporary file @o->name, never replacing what is there. */
static int out_link(struct cli_out *o)
{
	if (!renameat2(o->dfd, o->tmp, o->dfd, o->name, RENAME_NOREPLACE))
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -errno;
	/* a file system without RENAME_NOREPLACE: link() fails too if the name exists */
	if (linkat(o->dfd, o->tmp, o->dfd, o->name, 0) < 0)
		return -errno;
	unlinkat(o->dfd, o->tmp, 0);
	return 0;
}

int cli_out_commit(struct cli_out *o)
{
	int ret = 0;

	if (fsync(o->fd) < 0)
		ret = -errno;
	if (close(o->fd) < 0 && !ret)
		ret = -errno;
	o->fd = -1;
	if (ret) {
		fprintf(stderr, "ringtrace %s: %s: %s\n", o->cmd, o->path, strerror(-ret));
	} else {
		/* checked again: what was there may have changed while we wrote */
		ret = out_check(o);
		if (!ret && o->force)
			ret = renameat(o->dfd, o->tmp, o->dfd, o->name) ? -errno : 0;
		else if (!ret)
			ret = out_link(o);
		if (ret == -EEXIST && !o->force)
			fprintf(stderr, "ringtrace %s: %s exists (--force replaces it)\n", o->cmd,
				o->path);
		else if (ret && ret != -ELOOP && ret != -EEXIST)
			fprintf(stderr, "ringtrace %s: %s: %s\n", o->cmd, o->path, strerror(-ret));
	}
	if (!ret) {
		o->tmp[0] = 0;	/* it has its name: nothing to remove */
		fsync(o->dfd);	/* the new name on disk, as the recorder's */
	}
	cli_out_abort(o);
	return ret;
}

void cli_out_abort(struct cli_out *o)
{
	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
	if (o->dfd >= 0) {
		if (o->tmp[0])
			unlinkat(o->dfd, o->tmp, 0);
		close(o->dfd);
	}
	o->dfd = -1;
}

/* ---- inputs and the model ---------------------------------------------------------- */

void cli_input_told(const struct tr_input *in)
{
	if (in->stream_failed)
		fprintf(stderr, "ringtrace: %s\n", in->stream_err);
}

int cli_input_close(struct tr_input *in)
{
	bool told = in->stream_failed;
	char err[sizeof(in->stream_err)];

	if (!tr_input_close(in, err, sizeof(err)))
		return 0;
	if (!told)
		fprintf(stderr, "ringtrace: %s\n", err);
	return 1;
}

int cli_traces_exist(const char *cmd, char *const *paths, int n)
{
	struct stat st;

	for (int i = 0; i < n; i++) {
		/* '-' and net:// (a relayd's live session) are not files */
		if (!strcmp(paths[i], "-") || !strncmp(paths[i], "net://", 6) || !stat(paths[i], &st) ||
		    (errno != ENOENT && errno != ENOTDIR))
			continue;	/* what else is wrong, opening it says */
		fprintf(stderr, "ringtrace %s: no such trace: %s\n", cmd, paths[i]);
		return 2;
	}
	return 0;
}

struct cli_slice cli_slice;

int cli_slice_arg(const char *cmd, int argc, char **argv, int *i)
{
	const char *a = argv[*i], *v;

	if (strcmp(a, "--slice") && strncmp(a, "--slice=", 8))
		return 0;
	v = a[7] ? a + 8 : *i + 1 < argc ? argv[++*i] : "";
	if (cli_parse_span(cmd, "--slice", v, true, &cli_slice.from, &cli_slice.to))
		return -1;
	cli_slice.on = true;
	return 1;
}

static void view_count(char *const *dirs, int ndirs, uint64_t *events, uint64_t *span);

void cli_slice_empty(const char *cmd, char *const *dirs, int ndirs)
{
	uint64_t events, span;

	view_count(dirs, ndirs, &events, &span);
	fprintf(stderr, "ringtrace %s: warning: --slice: nothing in that time range of the "
		"trace%s (times count from %s first event", cmd, ndirs > 1 ? "s" : "",
		ndirs > 1 ? "each one's" : "its");
	if (events)
		fprintf(stderr, "; %s %.6f s long", ndirs > 1 ? "the longest is" : "it is",
			(double)span / 1e9);
	fprintf(stderr, ")\n");
}

/* A long load's progress line (rtr_model_on_progress()), on a terminal. */
struct progress {
	uint64_t total;		/* events, as the index says; 0: not known */
	double t0, last;
	double delay;		/* from this long in (RINGTRACE_PROGRESS_DELAY_MS; 1 s) */
	bool shown;
};

static double mono_s(void)
{
	return (double)rtr_monotonic_ns() / 1e9;
}

static void show_progress(void *arg, uint64_t events)
{
	struct progress *p = arg;
	double now = mono_s();

	/* from a second in, four times a second at most */
	if (now - p->t0 < p->delay || now - p->last < 0.25)
		return;
	p->last = now;
	p->shown = true;
	if (p->total >= events)
		fprintf(stderr, "\rringtrace: reading: %.1f M of %.1f M events (%u %%), %.0f s ",
			(double)events / 1e6, (double)p->total / 1e6,
			(unsigned)(events * 100 / p->total), now - p->t0);
	else
		fprintf(stderr, "\rringtrace: reading: %.1f M events, %.0f s ", (double)events / 1e6,
			now - p->t0);
}

int cli_model_read(struct rtr_model *m, char *const *dirs, int ndirs, unsigned flags, char *err,
		   size_t errlen)
{
	const char *delay = getenv("RINGTRACE_PROGRESS_DELAY_MS");
	struct progress p = { .t0 = mono_s(), .last = -1.0, .delay = 1.0 };
	bool tty = isatty(STDERR_FILENO);
	uint64_t span;
	int r;

	if (delay && *delay)
		p.delay = strtod(delay, NULL) / 1000.0;
	if (tty) {
		if (!cli_slice.on)
			view_count(dirs, ndirs, &p.total, &span);
		rtr_model_on_progress(show_progress, &p);
	}
	if (cli_slice.on)
		r = rtr_model_load_slice(m, dirs, ndirs, flags, cli_slice.from, cli_slice.to, err,
					 errlen);
	else
		r = rtr_model_load_flags(m, dirs, ndirs, flags, err, errlen);
	if (tty) {
		rtr_model_on_progress(NULL, NULL);
		if (p.shown)
			fprintf(stderr, "\r\033[K");	/* the line goes: what follows is the command's */
	}
	return r;
}

int cli_model_load(const char *cmd, struct rtr_model *m, char *const *dirs, int ndirs,
		   unsigned flags)
{
	char err[1024];
	int r = cli_model_read(m, dirs, ndirs, flags, err, sizeof(err));

	if (r < 0)
		fprintf(stderr, "ringtrace %s: %s\n", cmd, err);
	else if (cli_slice.on && !m->events && !m->nlosses)
		cli_slice_empty(cmd, dirs, ndirs);
	return r;
}

void cli_model_damage(const char *cmd, const struct rtr_model *m)
{
	for (uint32_t i = 0; i < m->ndamage; i++)
		fprintf(stderr, "ringtrace %s: damaged: %s\n", cmd,
			rtr_model_str(m, m->damage[i].message));
}

uint64_t cli_proc_kb(const char *path, const char *name)
{
	FILE *f = fopen(path, "re");
	size_t n = strlen(name);
	unsigned long long kb = 0;
	char line[160];

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, n) && line[n] == ':' &&
		    sscanf(line + n + 1, "%llu", &kb) == 1)
			break;
	fclose(f);
	return (uint64_t)kb * 1024;
}

/*
 * The memory a command reckons with, bytes: RINGTRACE_MEM_AVAILABLE_MB, or
 * MemAvailable of /proc/meminfo; 0 when unknown.
 */
static uint64_t mem_available(void)
{
	const char *env = getenv("RINGTRACE_MEM_AVAILABLE_MB");

	if (env && *env) {
		char *e;
		unsigned long long mb = strtoull(env, &e, 10);

		if (!*e && mb && mb < (1ull << 40))
			return (uint64_t)mb << 20;
		fprintf(stderr, "ringtrace: warning: RINGTRACE_MEM_AVAILABLE_MB '%s' is not a number "
			"of MB (1 or more): the memory available is read from /proc/meminfo\n", env);
	}
	return cli_proc_kb("/proc/meminfo", "MemAvailable");
}

/*
 * The cap of a view (*@cap; 0: none) and the memory available it comes
 * from (*@avail, 0 when not from it).  Return: 0, or -1 said.
 */
static int view_cap(const char *cmd, bool page, uint64_t *cap, uint64_t *avail)
{
	const char *env = getenv("RINGTRACE_VIEW_MAX_EVENTS");

	*avail = 0;
	if (env && *env) {
		char *e;

		*cap = strtoull(env, &e, 10);
		if (*e) {
			fprintf(stderr, "ringtrace %s: RINGTRACE_VIEW_MAX_EVENTS '%s' is not a "
				"number of events\n", cmd, env);
			return -1;
		}
	} else if (page) {
		*cap = CLI_PAGE_MAX_EVENTS;
	} else {
		*avail = mem_available();
		*cap = *avail / CLI_MODEL_BYTES_PER_EVENT;
	}
	return 0;
}

/* The events of the traces @dirs, and the longest one's span (ns), from their indexes. */
static void view_count(char *const *dirs, int ndirs, uint64_t *events, uint64_t *span)
{
	char err[1024];

	*events = *span = 0;
	for (int i = 0; i < ndirs; i++) {
		struct tr_input in;

		if (!strcmp(dirs[i], "-") || !strncmp(dirs[i], "net://", 6) ||
		    tr_input_open(&in, dirs[i], false, err, sizeof(err)))
			continue;	/* no index there: the load says what is wrong */
		for (uint32_t k = 0; k < in.ndirs; k++) {
			struct tr_trace t;
			struct tr_index ix;

			if (tr_open_lazy(&t, in.dirs[k], err, sizeof(err)))
				continue;
			if (!tr_index_open(&ix, &t)) {
				*events += ix.events;
				if (ix.events && ix.last_ts > ix.first_ts && t.md.freq) {
					uint64_t ns = (uint64_t)((long double)(ix.last_ts - ix.first_ts) *
								 (t.md.ns_clocks ? 1.0L :
								  1e9L / (long double)t.md.freq));

					*span = ns > *span ? ns : *span;
				}
				tr_index_free(&ix);
			}
			tr_close(&t);
		}
		tr_input_close(&in, NULL, 0);
	}
}

int cli_view_over(const char *cmd, char *const *dirs, int ndirs, bool page, uint64_t *cap,
		  uint64_t *events)
{
	uint64_t avail, span;

	*events = 0;
	if (view_cap(cmd, page, cap, &avail))
		return -1;
	if (!*cap || cli_slice.on)
		return 0;
	view_count(dirs, ndirs, events, &span);
	return *events > *cap;
}

/* " (it spans S s; --slice 0..Tms holds about N events)" for a slice of @want events. */
static void say_slice(uint64_t span, uint64_t events, uint64_t want)
{
	if (span && events)
		fprintf(stderr, " (it spans %.3f s; --slice 0..%.3fms holds about %" PRIu64
			" events)", (double)span / 1e9,
			(double)span / 1e6 * (double)want / (double)events, want);
}

int cli_model_fits(const char *cmd, char *const *dirs, int ndirs, unsigned bytes_per_event)
{
	uint64_t events, span, avail, need;

	if (cli_slice.on || !(avail = mem_available()))
		return 0;
	view_count(dirs, ndirs, &events, &span);
	need = events * bytes_per_event;
	if (need <= avail - avail / 10)
		return 0;
	fprintf(stderr, "ringtrace %s: %s: %" PRIu64 " events (the index beside %s says): their "
		"model needs about %" PRIu64 " MB, more than the %" PRIu64 " MB this machine has "
		"available.\nRead a time range of %s with --slice T0..T1", cmd, dirs[0], events,
		ndirs > 1 ? "the traces" : "it", need >> 20, avail >> 20,
		ndirs > 1 ? "them" : "it");
	say_slice(span, events, avail / 4 / bytes_per_event);
	fprintf(stderr, ".\n");
	return 1;
}

int cli_view_fits(const char *cmd, char *const *dirs, int ndirs, bool page)
{
	const char *env = getenv("RINGTRACE_VIEW_MAX_EVENTS");
	uint64_t events, span, cap, avail;

	if (cli_slice.on)
		return 0;
	if (view_cap(cmd, page, &cap, &avail))
		return 1;
	if (!cap)
		return 0;
	view_count(dirs, ndirs, &events, &span);
	if (events <= cap)
		return 0;
	fprintf(stderr, "ringtrace %s: %s: %" PRIu64 " events (the index beside %s says), more "
		"than ", cmd, dirs[0], events, ndirs > 1 ? "the traces" : "it");
	if (env && *env)
		fprintf(stderr, "RINGTRACE_VIEW_MAX_EVENTS (%" PRIu64 ")", cap);
	else if (page)
		fprintf(stderr, "the %" PRIu64 " M a page can hold (a browser cannot load a "
			"larger one)", cap / 1000000);
	else
		fprintf(stderr, "this machine's memory holds in a model (about %" PRIu64 " MB "
			"available, some %u bytes an event)", avail >> 20,
			(unsigned)CLI_MODEL_BYTES_PER_EVENT);
	fprintf(stderr, ".\nView a time range of it with --slice T0..T1");
	say_slice(span, events, cap / 4);
	fprintf(stderr, "%s, or set RINGTRACE_VIEW_MAX_EVENTS (0: no limit).\n",
		ndirs == 1 ? "; `ringtrace view --serve` and `ringtrace gui` open it whole (its "
			     "overview, and its events where you zoom in)" :
		page ? ", serve it with --serve" : "");
	return 1;
}
