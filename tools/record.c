// SPDX-License-Identifier: MIT
/*
 * tools/record.c - the consumer commands: `record` (run a program and
 * consume its region), `consume` (a region some program made, or a framed
 * stream on standard input), `snapshot` (what an overwrite-mode ring holds
 * now) and `recover` (the region of a process that crashed).  The loop is
 * consumer/session.c's; this file is options, signals, the child process
 * and the reports.  Documentation/ringtrace.rst.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <ringtrace/consumer.h>
#include "consumer/convert.h"
#include "consumer/output.h"
#include "consumer/session.h"
#include "consumer/stream_in.h"
#include "platform/platform.h"
#include "tools/commands.h"

static volatile sig_atomic_t got_chld, got_usr1, got_term, got_int;
static volatile sig_atomic_t got_stop;	/* SIGINT, SIGTERM or SIGHUP came */

/*
 * A producer that truncates its region file under us turns our next read of
 * the mapping into SIGBUS.  While a command reads the region, the handler
 * jumps back to where it armed it: the command stops reading, says why, and
 * leaves what it wrote (whole packets only) as a trace.
 */
static sigjmp_buf bus_jmp;
static volatile sig_atomic_t bus_armed;

static void on_sigbus(int sig)
{
	if (bus_armed) {
		bus_armed = 0;
		siglongjmp(bus_jmp, 1);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void bus_message(const char *cmd, const char *region)
{
	fprintf(stderr, "\nringtrace %s: the region %s shrank while it was read (its file was "
		"truncated: a hostile or broken producer); stopped reading: what was written is a "
		"valid trace up to there\n", cmd, region);
}

static void on_signal(int sig)
{
	if (sig == SIGCHLD)
		got_chld = 1;
	else if (sig == SIGUSR1)
		got_usr1 = 1;
	else if (sig == SIGINT)
		got_int = got_stop = 1;
	else
		got_term = sig, got_stop = 1;
}

/* Handlers without SA_RESTART: a signal ends the consumer's futex wait. */
static void catch_signals(void)
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

/* "64k", "4M", "1G", or bytes. */
static int parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
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
		return -1;
	*out = v;
	return 0;
}

/* "500ms", "10s", "5m", "2h", "1d"; a bare number is seconds.  To ns. */
static int parse_time(const char *s, uint64_t *ns)
{
	char *end;
	double v = strtod(s, &end);
	double mul = 1e9;

	if (end == s || v < 0)
		return -1;
	if (!strcmp(end, "ms"))
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
		return -1;
	if (v * mul > 1e18)
		return -1;
	*ns = (uint64_t)(v * mul);
	return 0;
}

static void human(char *buf, size_t n, uint64_t bytes)
{
	if (bytes >= (1ull << 30))
		snprintf(buf, n, "%.2f GiB", (double)bytes / (1 << 30));
	else if (bytes >= (1 << 20))
		snprintf(buf, n, "%.1f MiB", (double)bytes / (1 << 20));
	else
		snprintf(buf, n, "%.1f KiB", (double)bytes / 1024);
}

struct opts {
	const char *cmd;
	struct rtr_out_opts out;
	const char *mode;
	uint64_t packet_size;
	uint64_t packets;
	uint64_t flush_ns;
	bool keep_region;
	bool quiet;
	char **argv;		/* record: the program */
	const char *region;	/* consume, snapshot, recover */
};

static int usage_error(const struct opts *o, const char *fmt, const char *arg)
{
	fprintf(stderr, "ringtrace %s: ", o->cmd);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n(ringtrace %s --help)\n", o->cmd);
	return 2;
}

static const char *const help_text[] = {
	"record", "usage: ringtrace record [OPTIONS] [--] PROGRAM [ARGS]\n\n"
	"Run PROGRAM (linked with libringtrace) with a region of its own, consume the\n"
	"region while it runs, and report what was recorded and lost per CPU.\n\n"
	"  -o DIR               the trace directory (new; default ringtrace-DATE-TIME),\n"
	"                       or - for the framed stream on standard output\n"
	"  --mode discard       stream every packet to DIR (default); events are dropped,\n"
	"                       and counted, only when the buffer is full\n"
	"  --mode overwrite     flight recorder: the ring keeps the latest packets; a\n"
	"                       snapshot (SIGUSR1 to ringtrace, or `ringtrace snapshot`)\n"
	"                       and the end of the program write DIR/snapshot-NNNNNN\n"
	"  --packet-size SIZE   bytes per packet, power of two (default 1M)\n"
	"  --packets N          packets per CPU, power of two (default 16 up to 16\n"
	"                       CPUs, then fewer: 256 MiB in all, at least 4 per CPU)\n"
	"  --rotate-size SIZE   new chunk DIR/chunk-NNNNNN every SIZE bytes (e.g. 1G)\n"
	"  --rotate-time TIME   new chunk every TIME (e.g. 10m, 1h)\n"
	"  --flush-interval T   close quiet CPUs' packets every T (default 1s; 0: never)\n"
	"  --force              replace an existing trace directory\n"
	"  --file-mode OCTAL    mode of the files written (default 0600)\n"
	"  --keep-region        leave the region file when done\n"
	"  -q, --quiet          no progress line, no summary\n"
	"\nExit status: PROGRAM's (128+N if killed by signal N); 1 if the trace could not\n"
	"be written whole, 2 for a usage error.\n",
	"consume", "usage: ringtrace consume REGION|- -o DIR|- [OPTIONS]\n\n"
	"Consume the region a program created itself (RINGTRACE_PATH, rtr_start()) until\n"
	"it stops or exits, or until SIGINT/SIGTERM; or, with '-', copy a framed stream\n"
	"from standard input (`ringtrace record -o -`) into DIR.\n\n"
	"  --rotate-size SIZE, --rotate-time TIME, --flush-interval T, --force,\n"
	"  --file-mode OCTAL, -q: as for record\n",
	"snapshot", "usage: ringtrace snapshot REGION -o DIR [--force] [--file-mode OCTAL]\n\n"
	"Write what an overwrite-mode ring holds now as the trace DIR, without stopping\n"
	"or slowing the program: its open packets are closed first, then the latest\n"
	"packets of each CPU are copied.  A recorder takes one on SIGUSR1 too.\n",
	"recover", "usage: ringtrace recover REGION -o DIR [--force] [--file-mode OCTAL]\n\n"
	"Rebuild a trace from the region of a process that crashed or was killed: every\n"
	"complete packet, and each CPU's open packet up to its last committed event.\n"
	"Reports what could not be saved and why.  A region whose producer still runs\n"
	"is refused (use consume or snapshot).\n",
};

static void help(const char *cmd)
{
	for (size_t i = 0; i < sizeof(help_text) / sizeof(help_text[0]); i += 2)
		if (!strcmp(help_text[i], cmd))
			fputs(help_text[i + 1], stdout);
}

/* Parse the options every consumer command shares.  Return: -1 ok, else exit status. */
static int parse(struct opts *o, int argc, char **argv, bool program)
{
	bool streaming = program || !strcmp(argv[0], "consume");

	o->cmd = argv[0];
	o->out.file_mode = 0600;
	/* Streaming to disk: O_DIRECT where the file system allows it. */
	o->out.direct = streaming;
	o->out.fd = STDOUT_FILENO;
	o->flush_ns = 1000000000ull;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		bool takes = true;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			help(o->cmd);
			return 0;
		}
		if (!strcmp(a, "--")) {
			if (!program)
				return usage_error(o, "unexpected '%s'", a);
			if (i + 1 >= argc)
				return usage_error(o, "no program after '%s'", a);
			o->argv = argv + i + 1;
			break;
		}
		if (a[0] != '-' || !strcmp(a, "-")) {
			if (program) {
				o->argv = argv + i;
				break;
			}
			if (o->region)
				return usage_error(o, "unexpected argument '%s'", a);
			o->region = a;
			continue;
		}
		if (!strcmp(a, "--force")) {
			o->out.force = true;
			takes = false;
		} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			o->quiet = true;
			takes = false;
		} else if (!strcmp(a, "--keep-region") && program) {
			o->keep_region = true;
			takes = false;
		}
		if (!takes)
			continue;
		if (!v)
			return usage_error(o, "option '%s' needs a value", a);
		i++;
		if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
			o->out.path = v;
		} else if (!strcmp(a, "--mode") && program) {
			if (strcmp(v, "discard") && strcmp(v, "overwrite"))
				return usage_error(o, "--mode %s: use discard or overwrite", v);
			o->mode = v;
		} else if (!strcmp(a, "--packet-size") && program) {
			if (parse_size(v, &o->packet_size) || o->packet_size < 4096 ||
			    o->packet_size > (64u << 20) || (o->packet_size & (o->packet_size - 1)))
				return usage_error(o, "--packet-size %s: a power of two from 4k to 64M",
						   v);
		} else if (!strcmp(a, "--packets") && program) {
			if (parse_size(v, &o->packets) || o->packets < 2 || o->packets > 65536 ||
			    (o->packets & (o->packets - 1)))
				return usage_error(o, "--packets %s: a power of two from 2 to 65536", v);
		} else if (!streaming && (!strcmp(a, "--rotate-size") || !strcmp(a, "--rotate-time") ||
					  !strcmp(a, "--flush-interval"))) {
			return usage_error(o, "%s is for record and consume", a);
		} else if (!strcmp(a, "--rotate-size")) {
			if (parse_size(v, &o->out.rotate_size) || !o->out.rotate_size)
				return usage_error(o, "--rotate-size %s: a size like 512M or 1G", v);
		} else if (!strcmp(a, "--rotate-time")) {
			if (parse_time(v, &o->out.rotate_ns) || !o->out.rotate_ns)
				return usage_error(o, "--rotate-time %s: a time like 30s, 10m or 1h", v);
		} else if (!strcmp(a, "--flush-interval")) {
			if (parse_time(v, &o->flush_ns))
				return usage_error(o, "--flush-interval %s: a time like 1s or 200ms", v);
		} else if (!strcmp(a, "--file-mode")) {
			char *end;
			unsigned long m = strtoul(v, &end, 8);

			if (*end || !*v || m > 0666 || (m & 0600) != 0600)
				return usage_error(o, "--file-mode %s: octal, like 0600 or 0640 "
						   "(readable and writable by the owner)", v);
			o->out.file_mode = (mode_t)m;
		} else {
			return usage_error(o, "unknown option '%s'", a);
		}
	}
	if (program && !o->argv)
		return usage_error(o, "%s", "no program to run: ringtrace record [OPTIONS] -- PROGRAM");
	if (!program && !o->region)
		return usage_error(o, "%s", "no region file given");
	if (!o->out.path && !program)
		return usage_error(o, "%s", "no output given (-o DIR)");
	return -1;
}

static void print_report(const struct rtr_session *s, const char *what)
{
	struct rtr_session_cpu t;
	char b[32];

	rtr_session_totals(s, &t);
	human(b, sizeof(b), t.bytes);
	fprintf(stderr, "%s: %" PRIu64 " packets, %s", what, t.packets, b);
	if (t.salvaged)
		fprintf(stderr, " (%" PRIu64 " open packets salvaged)", t.salvaged);
	fprintf(stderr, "; lost: %" PRIu64 " events, %" PRIu64 " packets\n", t.lost_events,
		t.lost_packets);
	fprintf(stderr, "%6s %10s %12s %9s %13s %13s %9s\n", "cpu", "packets", "bytes",
		"salvaged", "events lost", "overwritten", "damaged");
	for (uint32_t i = 0; i < s->ncpus; i++) {
		const struct rtr_session_cpu *a = &s->cpu[i];

		if (!a->packets && !a->lost_events && !a->lost_packets)
			continue;
		human(b, sizeof(b), a->bytes);
		fprintf(stderr, "%6u %10" PRIu64 " %12s %9" PRIu64 " %13" PRIu64 " %13" PRIu64
			" %9" PRIu64 "\n", i, a->packets, b, a->salvaged, a->lost_events, a->lapped,
			a->damaged);
	}
	for (uint64_t i = 0; i < s->damage_count && i < RTR_DAMAGE_LOG; i++)
		fprintf(stderr, "damaged: cpu %u packet %" PRIu64 ": %s\n", s->damage[i].cpu,
			s->damage[i].seq, s->damage[i].why);
	if (s->damage_count > RTR_DAMAGE_LOG)
		fprintf(stderr, "damaged: ... and %" PRIu64 " more\n",
			s->damage_count - RTR_DAMAGE_LOG);
	if (s->registry_err[0] && s->registry_kept)
		fprintf(stderr, "warning: the region's registry: %s; the trace keeps the names "
			"read before it was damaged\n", s->registry_err);
	else if (s->registry_err[0])
		fprintf(stderr, "warning: the region's registry: %s; counter and typed event "
			"names are missing from the trace\n", s->registry_err);
}

/* The progress line on a terminal, at most once a second. */
static void progress(const struct opts *o, const struct rtr_session *s, uint64_t *last,
		     uint64_t start)
{
	struct rtr_session_cpu t;
	uint64_t now = rtr_monotonic_ns();
	char b[32];

	if (o->quiet || !isatty(STDERR_FILENO) || now - *last < 1000000000ull)
		return;
	*last = now;
	rtr_session_totals(s, &t);
	human(b, sizeof(b), t.bytes);
	fprintf(stderr, "\rringtrace: %4" PRIu64 " s  %s  %" PRIu64 " packets  lost %" PRIu64
		" events  ", (uint64_t)((now - start) / 1000000000u), b, t.packets, t.lost_events);
}

/*
 * One consumer loop: until @done says so, or the output fails (then the
 * consumer stops taking packets; the producer drops and counts events).
 * The caller has armed the SIGBUS jump.
 */
static int consume_loop(const struct opts *o, struct rtr_session *s, struct rtr_out *out,
			bool (*done)(void *), void *arg)
{
	uint64_t last = 0, start = rtr_monotonic_ns();
	bool failed = false;

	s->flush_ms = (int)(o->flush_ns / 1000000ull);
	if (o->flush_ns && !s->flush_ms)
		s->flush_ms = 1;
	for (;;) {
		/* Wake at least every 100 ms (signals, the child), and for each flush. */
		int timeout = s->flush_ms > 0 && s->flush_ms < 100 ? s->flush_ms : 100;

		if (!failed) {
			if (rtr_session_drain(s, out) < 0 || rtr_session_tick(s, out) < 0)
				failed = true;
			if (failed) {
				fprintf(stderr, "%sringtrace %s: %s; stopped writing: what is on disk "
					"is a valid trace; the program goes on, its events are dropped "
					"and counted in the region\n",
					!o->quiet && isatty(STDERR_FILENO) ? "\n" : "", o->cmd,
					rtr_out_report(out)->err);
			}
		}
		progress(o, s, &last, start);
		if (done(arg))
			break;
		if (failed)
			usleep(100000);
		else
			rtr_consumer_wait(s->c, timeout);
	}
	if (!o->quiet && isatty(STDERR_FILENO) && last)
		fputc('\n', stderr);
	return failed ? -EIO : 0;
}

struct child {
	pid_t pid;
	int status;
	bool exited;
	uint64_t int_at;	/* when SIGINT came, if it did */
	bool int_sent;
	struct rtr_session *s;
};

static void reap(struct child *ch)
{
	int st;

	if (ch->exited)
		return;
	got_chld = 0;
	if (waitpid(ch->pid, &st, WNOHANG) == ch->pid) {
		ch->exited = true;
		ch->status = st;
	}
}

/*
 * SIGTERM and SIGHUP go on to the program.  SIGINT usually reaches it from
 * the terminal with us; sent to us alone, it goes on after a second.
 */
static void forward_term(struct child *ch)
{
	if (got_term && !ch->exited)
		kill(ch->pid, got_term);
	got_term = 0;
	if (got_int && !ch->int_at)
		ch->int_at = rtr_monotonic_ns();
	if (ch->int_at && !ch->int_sent && !ch->exited &&
	    rtr_monotonic_ns() - ch->int_at > 1000000000ull) {
		kill(ch->pid, SIGINT);
		ch->int_sent = true;
	}
}

static bool record_done(void *arg)
{
	struct child *ch = arg;

	forward_term(ch);
	reap(ch);
	return ch->exited || rtr_consumer_stopped(ch->s->c);
}

static int exit_status(int st)
{
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return 1;
}

static void describe_exit(const char *prog, int st)
{
	if (WIFEXITED(st))
		fprintf(stderr, "ringtrace record: %s exited with status %d\n", prog,
			WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		fprintf(stderr, "ringtrace record: %s was killed by signal %d (%s)\n", prog,
			WTERMSIG(st), strsignal(WTERMSIG(st)));
}

/* Start the program; exec failures come back through a close-on-exec pipe. */
static int spawn(const struct opts *o, const char *region, pid_t *pid)
{
	int pfd[2], err = 0;
	ssize_t n;
	char num[32];

	if (pipe2(pfd, O_CLOEXEC) < 0)
		return -errno;
	*pid = fork();
	if (*pid < 0) {
		err = -errno;
		close(pfd[0]);
		close(pfd[1]);
		return err;
	}
	if (*pid == 0) {
		struct sigaction sa = { .sa_handler = SIG_DFL };

		sigemptyset(&sa.sa_mask);
		sigaction(SIGPIPE, &sa, NULL);
		close(pfd[0]);
		setenv("RINGTRACE_PATH", region, 1);
		setenv("RINGTRACE_MODE", o->mode ? o->mode : "discard", 1);
		snprintf(num, sizeof(num), "%" PRIu64, o->packet_size);
		setenv("RINGTRACE_PACKET_SIZE", num, 1);
		snprintf(num, sizeof(num), "%" PRIu64, o->packets);
		setenv("RINGTRACE_PACKETS", num, 1);
		/* Standard output may be the trace stream: the program writes to stderr. */
		if (!strcmp(o->out.path, "-"))
			dup2(STDERR_FILENO, STDOUT_FILENO);
		execvp(o->argv[0], o->argv);
		err = errno;
		n = write(pfd[1], &err, sizeof(err));
		(void)n;
		_exit(127);
	}
	close(pfd[1]);
	n = read(pfd[0], &err, sizeof(err));
	close(pfd[0]);
	if (n == sizeof(err)) {
		waitpid(*pid, NULL, 0);
		return -err;
	}
	return 0;
}

/* Attach as soon as the program has created its region. */
static int attach(const struct opts *o, struct rtr_session *s, const char *region,
		  struct child *ch)
{
	char err[600];
	uint64_t start = rtr_monotonic_ns();
	bool told = false;

	for (;;) {
		int ret = rtr_session_open(s, region, err, sizeof(err));

		if (!ret)
			return 0;
		if (ret != -ENOENT && ret != -EAGAIN && ret != -ENODATA) {
			fprintf(stderr, "ringtrace record: %s\n", err);
			return ret;
		}
		forward_term(ch);
		reap(ch);
		if (ch->exited) {
			describe_exit(o->argv[0], ch->status);
			fprintf(stderr, "ringtrace record: %s ended without creating its region: is it "
				"linked with libringtrace (-lringtrace)?\n", o->argv[0]);
			return -ENOENT;
		}
		if (!told && rtr_monotonic_ns() - start > 3000000000ull) {
			fprintf(stderr, "ringtrace record: waiting for %s (pid %d) to create %s...\n",
				o->argv[0], (int)ch->pid, region);
			told = true;
		}
		usleep(2000);
	}
}

/*
 * Flight recorder: snapshots on SIGUSR1 and at the end, each created in the
 * directory @topfd (no path followed to it again) as snapshot-NNNNNN; @nsnap
 * counts those written whole.  One that failed keeps its number, and what it
 * wrote: the next one takes the next number.
 */
static int snapshots(const struct opts *o, const char *region, struct child *ch, int topfd,
		     int *nsnap)
{
	int failures = 0, next = 0;

	for (;;) {
		bool last;

		forward_term(ch);
		reap(ch);
		last = ch->exited || rtr_consumer_stopped(ch->s->c);
		if (got_usr1 || last) {
			struct rtr_out_opts oo = o->out;
			struct rtr_out_report orep;
			struct rtr_session snap;
			char path[PATH_MAX], err[700];

			got_usr1 = 0;
			snprintf(path, sizeof(path), "%s/snapshot-%06d", o->out.path, next);
			oo.path = path;
			oo.parent_fd = topfd;
			oo.force = false;
			if (rtr_session_snapshot(region, &oo, &snap, &orep, err, sizeof(err))) {
				struct stat st;

				fprintf(stderr, "ringtrace record: snapshot: %s\n", err);
				failures++;
				if (fstatat(topfd, strrchr(path, '/') + 1, &st, AT_SYMLINK_NOFOLLOW) == 0)
					next++;
			} else {
				next++;
				if (!o->quiet)
					print_report(&snap, path);
				rtr_session_close(&snap);
				(*nsnap)++;
			}
		}
		if (last)
			return failures ? -EIO : 0;
		usleep(50000);	/* a signal cuts it short */
	}
}

/* After the output failed: the bytes of packets the region still holds, not written. */
static uint64_t left_in_region(const struct rtr_session *s)
{
	uint64_t bytes = 0;

	for (uint32_t i = 0; i < s->ncpus; i++) {
		struct rtr_consumer_cpu ci;

		if (rtr_consumer_cpu_info(s->c, i, &ci) == 0 && ci.prod > ci.cons)
			bytes += ci.prod - ci.cons;
	}
	return bytes;
}

static char *default_dir(void)
{
	static char buf[64];
	time_t now = time(NULL);
	struct tm tm;

	localtime_r(&now, &tm);
	strftime(buf, sizeof(buf), "ringtrace-%Y%m%d-%H%M%S", &tm);
	return buf;
}

int rtr_cmd_record(int argc, char **argv)
{
	struct opts o = { 0 };
	struct rtr_session s = { 0 };
	struct rtr_out *out = NULL;
	struct rtr_out_report orep = { 0 };
	struct child ch = { 0 };
	char region[128], err[700];
	/* volatile: read after a siglongjmp() back to the sigsetjmp() below */
	volatile bool write_failed = false, bus = false, out_closed = false;
	volatile uint64_t left = 0;
	static int nsnap;
	bool overwrite;
	volatile int topfd = -1;
	uint64_t rnd;
	int ret;

	ret = parse(&o, argc, argv, true);
	if (ret >= 0)
		return ret;
	if (!o.out.path)
		o.out.path = default_dir();
	/*
	 * Defaults for streaming at full speed: 1 MiB packets are written with
	 * one O_DIRECT write each (2.2 GB/s here, against 1.3 GB/s for
	 * 256 KiB), and 16 of them per CPU ride out the disk's hiccups: one
	 * writer at full speed loses nothing.  Past 16 CPUs, fewer per CPU.
	 */
	if (!o.packet_size)
		o.packet_size = 1024 * 1024;
	if (!o.packets) {
		uint32_t n = rtr_cpu_possible();

		o.packets = 16;
		while (o.packets > 4 && (uint64_t)o.packets * o.packet_size * n > (256u << 20))
			o.packets /= 2;
	}
	overwrite = o.mode && !strcmp(o.mode, "overwrite");
	if (overwrite && !strcmp(o.out.path, "-"))
		return usage_error(&o, "%s", "--mode overwrite writes snapshot directories: "
				   "-o - needs discard mode");
	if (overwrite && (o.out.rotate_size || o.out.rotate_ns))
		return usage_error(&o, "%s", "rotation is for discard mode; overwrite mode "
				   "writes a snapshot directory each time");
	catch_signals();
	/* The output first: a bad -o must not cost a run of the program. */
	if (overwrite) {
		topfd = rtr_mkdir_new(AT_FDCWD, o.out.path, o.out.file_mode, o.out.force, err,
				      sizeof(err));
		ret = topfd < 0 ? topfd : 0;
	} else {
		ret = rtr_out_open(&out, &o.out, err, sizeof(err));
	}
	if (ret) {
		fprintf(stderr, "ringtrace record: %s\n", err);
		return 1;
	}
	/*
	 * Our pid for the reader, and 64 random bits: /dev/shm is everyone's,
	 * and a name another user could guess, they could create first.
	 */
	if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
		rnd = rtr_monotonic_ns() ^ ((uint64_t)getpid() << 32);
	snprintf(region, sizeof(region), "/dev/shm/ringtrace-record-%d-%016" PRIx64, (int)getpid(),
		 rnd);
	ret = spawn(&o, region, &ch.pid);
	if (ret) {
		fprintf(stderr, "ringtrace record: cannot run %s: %s\n", o.argv[0], strerror(-ret));
		rtr_out_abandon(out, o.out.path);
		if (topfd >= 0) {
			close(topfd);
			rmdir(o.out.path);
		}
		return ret == -ENOENT ? 127 : 126;
	}
	if (attach(&o, &s, region, &ch)) {
		reap(&ch);
		if (!ch.exited) {
			kill(ch.pid, SIGTERM);
			waitpid(ch.pid, &ch.status, 0);
		}
		rtr_out_abandon(out, o.out.path);
		if (topfd >= 0) {
			close(topfd);
			rmdir(o.out.path);
		}
		unlink(region);
		return 1;
	}
	ch.s = &s;
	if (!o.quiet)
		fprintf(stderr, "ringtrace record: %s (pid %d) -> %s%s, region %s\n", o.argv[0],
			(int)ch.pid, o.out.path, overwrite ? " (flight recorder)" : "", region);
	if (!o.quiet && overwrite)
		fprintf(stderr, "ringtrace record: for a snapshot now: kill -USR1 %d\n",
			(int)getpid());
	/* Every read of the region, the last accounting included, under the SIGBUS jump. */
	if (sigsetjmp(bus_jmp, 1)) {
		bus_message(o.cmd, region);
		bus = true;
		write_failed = true;
		if (out && !out_closed) {
			out_closed = true;
			rtr_out_close(out, false, &orep);
		}
		goto wait_child;
	}
	bus_armed = 1;
	if (overwrite) {
		write_failed = snapshots(&o, region, &ch, topfd, &nsnap) != 0;
	} else {
		ret = consume_loop(&o, &s, out, record_done, &ch);
		write_failed = ret != 0;
		if (!write_failed && rtr_session_finish(&s, out))
			write_failed = true;
		out_closed = true;
		if (rtr_out_close(out, !write_failed, &orep))
			write_failed = true;
		rtr_session_account(&s);
		if (write_failed)
			left = left_in_region(&s);
	}
	bus_armed = 0;
wait_child:
	/* The program may have stopped tracing and still run: wait for it. */
	while (!ch.exited) {
		forward_term(&ch);
		reap(&ch);
		if (!ch.exited)
			usleep(50000);	/* a signal cuts it short */
	}
	if (!o.quiet) {
		describe_exit(o.argv[0], ch.status);
		if (!overwrite)
			print_report(&s, o.out.path);
		if (!overwrite && write_failed && !bus) {
			char b[32];

			human(b, sizeof(b), left);
			fprintf(stderr, "not written: %s of packets left in the region when writing "
				"stopped, and every event after them (counted above as lost)\n", b);
		}
		if (overwrite)
			fprintf(stderr, "ringtrace record: %d snapshot%s in %s\n", nsnap,
				nsnap == 1 ? "" : "s", o.out.path);
	}
	if (write_failed && orep.failed)
		fprintf(stderr, "ringtrace record: %s\n", orep.err);
	rtr_session_close(&s);
	if (topfd >= 0)
		close(topfd);
	if (write_failed && !o.keep_region && !bus) {
		fprintf(stderr, "ringtrace record: the region %s is kept: `ringtrace recover %s -o DIR`"
			" once there is room, then remove it\n", region, region);
	} else if (!o.keep_region) {
		unlink(region);
	}
	if (write_failed)
		return 1;
	return exit_status(ch.status);
}

struct consume_state {
	struct rtr_session *s;
};

static bool consume_done(void *arg)
{
	struct consume_state *cs = arg;

	return got_int || got_term || rtr_session_producer_gone(cs->s);
}

static int consume_stream(const struct opts *o)
{
	struct rtr_stream_report rep;
	struct rtr_out_report orep;
	struct rtr_out *out;
	char err[700];
	int ret;

	if (!strcmp(o->out.path, "-")) {
		fprintf(stderr, "ringtrace consume: from '-' to '-' copies nothing\n");
		return 2;
	}
	ret = rtr_out_open(&out, &o->out, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "ringtrace consume: %s\n", err);
		return 1;
	}
	ret = rtr_stream_copy(STDIN_FILENO, out, &got_stop, &rep);
	if (rtr_out_close(out, !ret && !rep.writer_stopped_early, &orep) && !ret) {
		ret = -EIO;
		snprintf(rep.err, sizeof(rep.err), "%s", orep.err);
	}
	if (!o->quiet) {
		char b[32];

		human(b, sizeof(b), orep.bytes);
		fprintf(stderr, "%s: %" PRIu64 " packets, %s, %" PRIu64 " chunk%s\n", o->out.path,
			orep.packets, b, orep.chunks, orep.chunks == 1 ? "" : "s");
	}
	if (ret) {
		fprintf(stderr, "ringtrace consume: %s; what came before is a valid trace\n",
			rep.err);
		return ret == -EINTR ? 128 + (got_term ? got_term : SIGINT) : 1;
	}
	if (rep.writer_stopped_early)
		fprintf(stderr, "ringtrace consume: the writer stopped before the end of its trace\n");
	return 0;
}

int rtr_cmd_consume(int argc, char **argv)
{
	struct opts o = { 0 };
	struct rtr_session s;
	struct rtr_out *out;
	struct rtr_out_report orep;
	struct consume_state cs = { &s };
	char err[700];
	/* volatile: read after a siglongjmp() back to the sigsetjmp() below */
	volatile bool failed = false, out_closed = false;
	bool gone;
	int ret;

	ret = parse(&o, argc, argv, false);
	if (ret >= 0)
		return ret;
	catch_signals();
	if (!strcmp(o.region, "-"))
		return consume_stream(&o);
	for (int tries = 0;; tries++) {
		ret = rtr_session_open(&s, o.region, err, sizeof(err));
		if (ret != -EAGAIN || tries > 250)
			break;
		usleep(20000);
	}
	if (ret) {
		fprintf(stderr, "ringtrace consume: %s\n", err);
		return 1;
	}
	ret = rtr_out_open(&out, &o.out, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "ringtrace consume: %s\n", err);
		rtr_session_close(&s);
		return 1;
	}
	if (!o.quiet)
		fprintf(stderr, "ringtrace consume: %s (pid %d) -> %s; stop with Ctrl-C\n",
			o.region, (int)s.producer, o.out.path);
	/* Every read of the region, to the last, under the SIGBUS jump. */
	if (sigsetjmp(bus_jmp, 1)) {
		bus_message(o.cmd, o.region);
		if (!out_closed)
			rtr_out_close(out, false, &orep);
		if (!o.quiet)
			print_report(&s, o.out.path);
		rtr_session_close(&s);
		return 1;
	}
	bus_armed = 1;
	failed = consume_loop(&o, &s, out, consume_done, &cs) != 0;
	gone = rtr_session_producer_gone(&s);
	if (!failed && gone) {
		failed = rtr_session_finish(&s, out) != 0;
	} else if (!failed) {
		/* Interrupted, the producer running: its open packets, closed now. */
		if (rtr_consumer_open_packets(s.c) && rtr_consumer_flush(s.c, 1000) == 0)
			failed = rtr_session_drain(&s, out) < 0;
	}
	out_closed = true;
	if (rtr_out_close(out, !failed && gone, &orep))
		failed = true;
	bus_armed = 0;
	if (!o.quiet)
		print_report(&s, o.out.path);
	if (failed)
		fprintf(stderr, "ringtrace consume: %s\n", orep.err);
	rtr_session_close(&s);
	return failed ? 1 : 0;
}

int rtr_cmd_snapshot(int argc, char **argv)
{
	struct opts o = { 0 };
	struct rtr_session s;
	struct rtr_out_report orep;
	char err[700];
	int ret;

	ret = parse(&o, argc, argv, false);
	if (ret >= 0)
		return ret;
	if (!strcmp(o.out.path, "-"))
		return usage_error(&o, "%s", "a snapshot is a directory, not '-'");
	catch_signals();
	if (sigsetjmp(bus_jmp, 1)) {
		bus_message(o.cmd, o.region);
		return 1;
	}
	bus_armed = 1;
	ret = rtr_session_snapshot(o.region, &o.out, &s, &orep, err, sizeof(err));
	bus_armed = 0;
	if (ret) {
		fprintf(stderr, "ringtrace snapshot: %s\n", err);
		return 1;
	}
	if (!o.quiet)
		print_report(&s, o.out.path);
	rtr_session_close(&s);
	return 0;
}

int rtr_cmd_recover(int argc, char **argv)
{
	struct opts o = { 0 };
	struct rtr_convert_report rep;
	struct rtr_session s;
	struct rtr_session_cpu t;
	int ret;

	ret = parse(&o, argc, argv, false);
	if (ret >= 0)
		return ret;
	if (!strcmp(o.out.path, "-"))
		return usage_error(&o, "%s", "recover writes a directory, not '-'");
	catch_signals();
	if (sigsetjmp(bus_jmp, 1)) {
		bus_message(o.cmd, o.region);
		return 1;
	}
	bus_armed = 1;
	ret = rtr_session_open(&s, o.region, rep.err, sizeof(rep.err));
	if (ret) {
		bus_armed = 0;
		fprintf(stderr, "ringtrace recover: %s\n", rep.err);
		return 1;
	}
	if (!rtr_session_producer_gone(&s)) {
		bus_armed = 0;
		fprintf(stderr, "ringtrace recover: the producer of %s (pid %d) is still running; "
			"use `ringtrace consume` or `ringtrace snapshot` on a live region\n", o.region,
			(int)s.producer);
		rtr_session_close(&s);
		return 1;
	}
	rtr_session_close(&s);
	ret = rtr_convert_session(o.region, &o.out, &s, &rep);
	bus_armed = 0;
	if (!s.c) {
		fprintf(stderr, "ringtrace recover: %s\n", rep.err);
		return 1;
	}
	rtr_session_totals(&s, &t);
	if (o.quiet)
		goto done;
	print_report(&s, o.out.path);
	fprintf(stderr, "could not be saved:\n");
	fprintf(stderr, "  %" PRIu64 " events the producer dropped (buffer full, too big, or "
		"busy), counted in the trace\n", t.lost_events);
	fprintf(stderr, "  %" PRIu64 " packets overwritten before the end (overwrite mode)\n",
		t.lapped);
	fprintf(stderr, "  %" PRIu64 " packets damaged (listed above)\n", t.damaged);
	for (uint32_t i = 0; i < s.ncpus; i++)
		if (s.cpu[i].unsalvageable)
			fprintf(stderr, "  cpu %u: the open packet's header is damaged: its events "
				"are lost\n", i);
	fprintf(stderr, "  the event each thread was writing when the process died, if any "
		"(never committed)\n");
done:
	rtr_session_close(&s);
	if (ret)
		fprintf(stderr, "ringtrace recover: %s\n", rep.err);
	return ret ? 1 : 0;
}
