// SPDX-License-Identifier: MIT
/*
 * tools/record.c - `ringtrace record`: run a program with a region of its
 * own, consume the region while it runs (to a trace directory, rotated
 * chunks or the framed stream), or keep it as a flight recorder and write
 * snapshots; then report what was recorded and lost per CPU.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <ringtrace/consumer.h>
#include "consumer/convert.h"
#include "consumer/kernel.h"
#include "consumer/output.h"
#include "consumer/session.h"
#include "consumer/stream_in.h"
#include "platform/platform.h"
#include "ringbuf/ring.h"
#include "tools/cli.h"
#include "tools/commands.h"
#include "tools/region_cmd.h"
#include "tools/trigger.h"

#define SHM_DIR "/dev/shm"	/* where the region is made: every user's, tmpfs */

struct child {
	pid_t pid;
	int status;
	bool exited;
	uint64_t int_at;	/* when SIGINT came, if it did */
	bool int_sent;
	bool asked_stop;	/* SIGINT or SIGTERM came: once the program ends, stop */
	struct rtr_session *s;
	/* --sched: the kernel's view, written into @out as the loop goes */
	struct rtr_kernel *k;
	struct rtr_out *out;
	uint64_t flush_ns;
};

static void reap(struct child *ch)
{
	int st;

	if (ch->exited)
		return;
	cli_got_chld = 0;
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
	reap(ch);
	/* Once the program is gone, the processes it left tracing are not waited for. */
	if (cli_got_term || cli_got_int)
		ch->asked_stop = true;
	if (cli_got_term && !ch->exited)
		kill(ch->pid, cli_got_term);
	cli_got_term = 0;
	if (cli_got_int && !ch->int_at)
		ch->int_at = rtr_monotonic_ns();
	if (ch->int_at && !ch->int_sent && !ch->exited &&
	    rtr_monotonic_ns() - ch->int_at > 1000000000ull) {
		kill(ch->pid, SIGINT);
		ch->int_sent = true;
	}
}

/*
 * Done when the region is stopped (the last process writing into it
 * stopped tracing), or the program has exited and so has every process
 * still writing into the region (its forked children, which trace on).
 */
static bool program_done(struct child *ch)
{
	return rtr_consumer_stopped(ch->s->c) ||
	       (ch->exited && (ch->asked_stop || rtr_consumer_producer_gone(ch->s->c)));
}

/*
 * --sched: what the kernel reported since the last pass, into the trace
 * (after the metadata that declares it).  A failure is the output's: the
 * consumer loop says it.
 */
static int kernel_pass(struct child *ch, bool final)
{
	if (!ch->k || !ch->out || rtr_out_failed(ch->out))
		return 0;
	if (rtr_session_metadata(ch->s, ch->out))
		return -EIO;
	return rtr_kernel_drain(ch->k, ch->out, ch->flush_ns, final);
}

static bool record_done(void *arg)
{
	struct child *ch = arg;

	kernel_pass(ch, false);

	forward_term(ch);
	reap(ch);
	return program_done(ch);
}

/* The processes besides the program: traced into the trace, or not (and why). */
static void report_procs(const struct opts *o, const struct rtr_session *s)
{
	struct rtr_consumer_procs p = { .struct_size = sizeof(p) };

	if (!s->c || rtr_consumer_procs(s->c, &p))
		return;
	if (p.followed && !o->quiet)
		fprintf(stderr, "ringtrace record: %u other process%s (forked, or exec'd and "
			"joined) traced into the same trace\n", p.followed,
			p.followed == 1 ? "" : "es");
	if (p.writing && !rtr_consumer_producer_gone(s->c))
		fprintf(stderr, "ringtrace record: interrupted while %u process%s still traced: "
			"their later events are not in the trace\n", p.writing,
			p.writing == 1 ? "" : "es");
	if (!p.untraced)
		return;
	fprintf(stderr, "ringtrace record: %u process%s ran untraced:", p.untraced,
		p.untraced == 1 ? "" : "es");
	for (uint32_t i = 0; i < p.untraced && i < 8; i++)
		fprintf(stderr, "%s pid %u", i ? "," : "", p.untraced_pids[i]);
	fprintf(stderr, "%s:", p.untraced > 8 ? ", ..." : "");
	if (p.untraced_exec)
		fprintf(stderr, " %u program%s linked with libringtrace, exec'd, did not join the "
			"trace (not followed, or another libringtrace's)%s", p.untraced_exec,
			p.untraced_exec == 1 ? "" : "s",
			p.untraced > p.untraced_exec ? ";" : "");
	if (p.untraced > p.untraced_exec)
		fprintf(stderr, " %u forked child%s not followed (%s)", p.untraced - p.untraced_exec,
			p.untraced - p.untraced_exec == 1 ? "" : "ren",
			o->no_follow_forks ? "--no-follow-forks" : "too many processes at once");
	fputc('\n', stderr);
}

/* --sched: what the kernel's streams hold. */
static void report_kernel(const struct rtr_kernel *k)
{
	struct rtr_kernel_report r;

	rtr_kernel_report(k, &r);
	fprintf(stderr, "ringtrace record: the kernel's view, %u CPUs: %" PRIu64 " switches, %" PRIu64
		" forks, %" PRIu64 " exits, %" PRIu64 " names, %" PRIu64 " mappings",
		r.cpus, r.switches, r.forks, r.exits, r.comms, r.mmaps);
	if (r.sample_hz)
		fprintf(stderr, ", %" PRIu64 " CPU samples (%u Hz)", r.samples, r.sample_hz);
	fprintf(stderr, "; %" PRIu64 " records lost; clock %s\n", r.lost, r.clock);
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

/*
 * find_preload() - libringtrace-pthread.so for --pthread: $RINGTRACE_PRELOAD,
 * else beside our own libraries, ../lib from this program (the build tree
 * and an installed prefix alike).  An absolute path: the program may chdir.
 */
static int find_preload(char *path, size_t len)
{
	const char *env = getenv("RINGTRACE_PRELOAD");
	char exe[PATH_MAX], *slash;
	ssize_t n;

	if (env && *env) {
		if (!realpath(env, path) || access(path, R_OK)) {
			fprintf(stderr, "ringtrace record: RINGTRACE_PRELOAD=%s: %s\n", env,
				strerror(errno));
			return -1;
		}
		return 0;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		goto missing;
	exe[n] = 0;
	slash = strrchr(exe, '/');
	if (!slash)
		goto missing;
	*slash = 0;
	snprintf(path, len, "%s/../lib/libringtrace-pthread.so", exe);
	if (access(path, R_OK) == 0 && realpath(path, exe)) {
		snprintf(path, len, "%s", exe);
		return 0;
	}
missing:
	fprintf(stderr, "ringtrace record: --pthread: libringtrace-pthread.so is not in %s "
		"(set RINGTRACE_PRELOAD to its path)\n", n > 0 ? path : "../lib");
	return -1;
}

/* In the child: LD_PRELOAD gains @lib, after what the user preloads (a sanitizer first). */
static int preload_env(const char *lib)
{
	const char *old = getenv("LD_PRELOAD");
	char buf[2 * PATH_MAX];

	if (old && *old)
		snprintf(buf, sizeof(buf), "%s:%s", old, lib);
	else
		snprintf(buf, sizeof(buf), "%s", lib);
	return setenv("LD_PRELOAD", buf, 1);
}

/* Start the program; exec failures come back through a close-on-exec pipe. */
static int spawn(const struct opts *o, const char *region, pid_t *pid, struct rtr_kernel **k)
{
	int pfd[2], gfd[2] = { -1, -1 }, err = 0;
	ssize_t n;
	char num[32];

	if (pipe2(pfd, O_CLOEXEC) < 0)
		return -errno;
	/* --sched: the child waits for its perf events before it runs the program */
	if (k && pipe2(gfd, O_CLOEXEC) < 0) {
		err = -errno;
		close(pfd[0]);
		close(pfd[1]);
		return err;
	}
	*pid = fork();
	if (*pid < 0) {
		err = -errno;
		close(pfd[0]);
		close(pfd[1]);
		if (k) {
			close(gfd[0]);
			close(gfd[1]);
		}
		return err;
	}
	if (*pid == 0) {
		struct sigaction sa = { .sa_handler = SIG_DFL };

		sigemptyset(&sa.sa_mask);
		sigaction(SIGPIPE, &sa, NULL);
		close(pfd[0]);
		if (k) {
			char go;

			close(gfd[1]);
			while ((n = read(gfd[0], &go, 1)) < 0 && errno == EINTR)
				;
			close(gfd[0]);
		}
		setenv("RINGTRACE_PATH", region, 1);
		setenv("RINGTRACE_MODE", o->mode ? o->mode : "discard", 1);
		snprintf(num, sizeof(num), "%" PRIu64, o->packet_size);
		setenv("RINGTRACE_PACKET_SIZE", num, 1);
		snprintf(num, sizeof(num), "%" PRIu64, o->packets);
		setenv("RINGTRACE_PACKETS", num, 1);
		if (o->blocking)
			setenv("RINGTRACE_BLOCKING_TIMEOUT", o->blocking, 1);
		else
			unsetenv("RINGTRACE_BLOCKING_TIMEOUT");
		if (o->no_follow_forks)
			setenv("RINGTRACE_FOLLOW_FORKS", "0", 1);
		else
			unsetenv("RINGTRACE_FOLLOW_FORKS");
		if (o->hold_times)
			setenv("RINGTRACE_PTHREAD_HOLD", "1", 1);
		else
			unsetenv("RINGTRACE_PTHREAD_HOLD");
		if (o->preload && preload_env(o->preload))
			_exit(127);
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
	if (k) {
		char kerr[400];
		const char *slash = strrchr(o->argv[0], '/');
		int ret;

		close(gfd[0]);
		ret = rtr_kernel_open(k, *pid, slash ? slash + 1 : o->argv[0], o->sample_hz, kerr,
				      sizeof(kerr));
		if (ret) {
			fprintf(stderr, "ringtrace record: --sched: %s; recording without the kernel's "
				"view\n", kerr);
		} else {
			struct rtr_kernel_report r;

			rtr_kernel_report(*k, &r);
			if (r.sample_refused[0])
				fprintf(stderr, "ringtrace record: --sample: %s; recording without CPU "
					"samples\n", r.sample_refused);
		}
		n = write(gfd[1], "g", 1);
		close(gfd[1]);
	}
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

/* --trigger: the watch, the trigger met and waiting for its snapshot, the limit's window. */
struct triggers {
	struct trig t[TRIG_MAX];
	unsigned n;
	struct trig_watch *w;
	int due;			/* the trigger whose snapshot is due, -1 none */
	uint64_t due_at;		/* rtr_monotonic_ns() */
	uint64_t taken_at[600];		/* the last triggered snapshots' times, a ring */
	unsigned ntaken;
	uint64_t told_over;		/* when "over the limit" was said last */
};

/* Whether the limit allows a triggered snapshot now: fewer than it in the last minute. */
static bool under_limit(const struct opts *o, const struct triggers *tg, uint64_t now)
{
	unsigned lim = o->trigger_limit;

	if (tg->ntaken < lim)
		return true;
	return now - tg->taken_at[(tg->ntaken - lim) % lim] >= 60000000000ull;
}

/* Read what the ring's writers committed since the last turn: a trigger met becomes due. */
static void watch(const struct opts *o, struct triggers *tg)
{
	char why[300];
	int i;

	while (tg->w && (i = trig_watch_poll(tg->w, why, sizeof(why))) >= 0) {
		struct trig *t = &tg->t[i];
		uint64_t now = rtr_monotonic_ns();

		if (tg->due >= 0) {
			t->over++;	/* its snapshot is the one due */
			continue;
		}
		if (!under_limit(o, tg, now)) {
			t->over++;
			if (!o->quiet && now - tg->told_over >= 10000000000ull) {
				fprintf(stderr, "ringtrace record: trigger %s met (%s): over the limit "
					"of %u snapshots a minute, none taken (counted)\n", t->name,
					why, o->trigger_limit);
				tg->told_over = now;
			}
			continue;
		}
		tg->due = i;
		tg->due_at = now + o->trigger_after_ns;
		if (!o->quiet)
			fprintf(stderr, "ringtrace record: trigger %s met: %s\n", t->name, why);
	}
}

/* The summary: per trigger, what met it and what was taken; what the watch missed. */
static void report_triggers(const struct opts *o, const struct triggers *tg)
{
	struct trig_watch_report r;

	if (!tg->n || o->quiet)
		return;
	for (unsigned i = 0; i < tg->n; i++) {
		const struct trig *t = &tg->t[i];

		fprintf(stderr, "ringtrace record: trigger %s (%s): met %" PRIu64 " time%s, %" PRIu64
			" snapshot%s", t->name, t->text, t->met, t->met == 1 ? "" : "s", t->taken,
			t->taken == 1 ? "" : "s");
		if (t->over)
			fprintf(stderr, "; %" PRIu64 " not taken (another was due, or over the limit "
				"of %u a minute)", t->over, o->trigger_limit);
		fputc('\n', stderr);
	}
	if (!tg->w)
		return;
	trig_watch_report(tg->w, &r);
	fprintf(stderr, "ringtrace record: the triggers tested %" PRIu64 " events", r.events);
	if (r.missed)
		fprintf(stderr, "; %" PRIu64 " packets were overwritten before they were read "
			"(their events not tested)", r.missed);
	if (r.damaged)
		fprintf(stderr, "; %" PRIu64 " packets did not check (not believed)", r.damaged);
	if (r.untracked)
		fprintf(stderr, "; %" PRIu64 " tasks not watched (the table was full)", r.untracked);
	fputc('\n', stderr);
}

/*
 * Flight recorder: snapshots on SIGUSR1, when a trigger is met (@tg) and at
 * the end, each created in the directory @topfd (no path followed to it
 * again) as snapshot-NNNNNN, a trigger's with -NAME after; @nsnap counts
 * those written whole.  One that failed is removed (a snapshot missing a
 * stream must not pass for whole), and its number is not used again: the
 * next one takes the next number.
 */
static int snapshots(const struct opts *o, const char *region, struct child *ch, int topfd,
		     int *nsnap, struct triggers *tg)
{
	int failures = 0, next = 0;
	char werr[300];

	if (tg->n && trig_watch_open(&tg->w, region, tg->t, tg->n, werr, sizeof(werr)))
		fprintf(stderr, "ringtrace record: --trigger: cannot read the ring: %s; snapshots "
			"on SIGUSR1 and at the end only\n", werr);
	for (;;) {
		bool last, trig;
		uint64_t now;

		forward_term(ch);
		reap(ch);
		last = program_done(ch);
		watch(o, tg);	/* after program_done(): the last records are tested too */
		now = rtr_monotonic_ns();
		trig = tg->due >= 0 && (now >= tg->due_at || last);
		if (cli_got_usr1 || last || trig) {
			struct rtr_out_opts oo = o->out;
			struct rtr_out_report orep;
			struct rtr_session snap;
			char path[PATH_MAX], err[700];

			cli_got_usr1 = 0;
			snprintf(path, sizeof(path), "%s/snapshot-%06d%s%s", o->out.path, next,
				 trig ? "-" : "", trig ? tg->t[tg->due].name : "");
			oo.path = path;
			oo.parent_fd = topfd;
			oo.force = false;
			oo.buffer_size = 0;	/* copied to memory first: written at once */
			int r = rtr_session_snapshot(region, &oo, &snap, &orep, err, sizeof(err));

			region_notices(&snap);
			next++;
			if (r) {
				/* Removed (or marked failed); its number is not used again. */
				fprintf(stderr, "ringtrace record: snapshot: %s\n", err);
				failures++;
			} else {
				if (!o->quiet)
					region_report(&snap, path);
				rtr_session_close(&snap);
				(*nsnap)++;
			}
			if (trig) {
				tg->t[tg->due].taken += !r;
				tg->taken_at[tg->ntaken++ % o->trigger_limit] = now;
				tg->due = -1;
			}
		}
		if (last)
			return failures ? -EIO : 0;
		/* 50 ms, or until a trigger's snapshot is due; a signal cuts it short */
		if (tg->due >= 0 && tg->due_at - now < 50000000)
			usleep((useconds_t)((tg->due_at - now) / 1000) + 1);
		else
			usleep(50000);
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

/*
 * The ring lives in /dev/shm, all of it allocated at start, and a
 * container's /dev/shm is often 64 MiB.  The default count (@chosen false)
 * comes down to what it has room for, 4 per CPU at least; a ring that does
 * not fit is refused here, before the program runs (it would run
 * untraced).  Return: 0, or -1 said.
 */
static int fit_shm(struct opts *o, bool chosen)
{
	uint64_t ncpus = rtr_cpu_possible(), want = o->packets, room, need;
	char have[32], size[32], psize[32];
	struct statvfs sv;

	if (statvfs(SHM_DIR, &sv))
		return 0;	/* the program's own error names the problem */
	room = (uint64_t)sv.f_bavail * sv.f_frsize;
	need = rtr_ring_region_size(o->packet_size, o->packets, ncpus);
	while (!chosen && o->packets > 4 && need > room) {
		o->packets /= 2;
		need = rtr_ring_region_size(o->packet_size, o->packets, ncpus);
	}
	cli_human(have, sizeof(have), room);
	cli_human(size, sizeof(size), need);
	cli_human(psize, sizeof(psize), o->packet_size);
	if (need > room) {
		fprintf(stderr, "ringtrace record: the ring, %" PRIu64 " CPUs x %" PRIu64 " packets "
			"of %s (%s), does not fit in %s (%s free): give fewer --packets or a "
			"smaller --packet-size, or make %s larger (docker run --shm-size=...)\n",
			ncpus, o->packets, psize, size, SHM_DIR, have, SHM_DIR);
		return -1;
	}
	if (o->packets != want && !o->quiet)
		fprintf(stderr, "ringtrace record: %s has %s free: %" PRIu64 " packets of %s per "
			"CPU, not %" PRIu64 "\n", SHM_DIR, have, o->packets, psize, want);
	/* The queue's file may take half of what the ring leaves at once (16 MiB at most). */
	o->out.queue_reserve = (room - need) / 2;
	return 0;
}

int rtr_cmd_record(int argc, char **argv)
{
	struct opts o = { 0 };
	struct rtr_session s = { 0 };
	struct rtr_out *out = NULL;
	struct rtr_out_report orep = { 0 };
	struct child ch = { 0 };
	char region[128], qpath[PATH_MAX + 8], err[700];
	static char preload[PATH_MAX];
	/* volatile: read after a siglongjmp() back to the sigsetjmp() below */
	volatile bool write_failed = false, bus = false, out_closed = false;
	volatile uint64_t left = 0;
	static int nsnap;
	static struct triggers tg = { .due = -1 };
	bool overwrite, chosen, sched;
	volatile int topfd = -1;
	uint64_t rnd;
	int ret;

	ret = region_parse(&o, argc, argv, true);
	if (ret >= 0)
		return ret;
	if (!o.out.path)
		o.out.path = default_dir();
	if (o.preload) {
		if (find_preload(preload, sizeof(preload)))
			return 1;
		o.preload = preload;
	}
	/*
	 * Defaults for streaming at full speed (Documentation/consumer.rst,
	 * "Sizing the buffers"): 1 MiB packets are written with one O_DIRECT
	 * write each (2.2 GB/s here, against 1.3 GB/s for 256 KiB), and 32 of
	 * them per CPU ride out the delays before a woken recorder runs (up to
	 * 26 ms on this project's virtual machines): one writer at full speed
	 * lost events in each of 6 runs with 16 per CPU, in none with 32.
	 * Past 8 CPUs, fewer per CPU: 256 MiB in all.
	 */
	if (!o.packet_size)
		o.packet_size = 1024 * 1024;
	chosen = o.packets != 0;
	if (!o.packets) {
		uint32_t n = rtr_cpu_possible();

		o.packets = 32;
		while (o.packets > 4 && (uint64_t)o.packets * o.packet_size * n > (256u << 20))
			o.packets /= 2;
	}
	if (fit_shm(&o, chosen))
		return 1;
	overwrite = o.mode && !strcmp(o.mode, "overwrite");
	if (o.hold_times && !o.preload)
		return region_usage_error(&o, "%s", "--hold-times times the locks of --pthread: "
					  "give --pthread too");
	if (o.sample_hz && !o.sched)
		return region_usage_error(&o, "%s", "--sample is part of the kernel's view: not "
					  "with --no-sched");
	if (o.sample_hz && o.sched < 0)
		o.sched = 1;	/* --sample implies --sched */
	sched = o.sched > 0 || (o.sched < 0 && o.preload);
	if (sched && overwrite) {
		if (o.sched > 0)
			return region_usage_error(&o, "%s", "--sched streams the kernel's records: "
						  "it needs discard mode");
		sched = false;	/* --pthread's default: a flight recorder has no kernel's view */
	}
	if (sched && !strncmp(o.out.path, "net://", 6)) {
		if (o.sched > 0)
			return region_usage_error(&o, "%s", "--sched writes streams a relayd session "
						  "does not have: -o DIR or -o -");
		sched = false;
	}
	if (overwrite && !strcmp(o.out.path, "-"))
		return region_usage_error(&o, "%s", "--mode overwrite writes snapshot directories: "
				   "-o - needs discard mode");
	if (overwrite && !strncmp(o.out.path, "net://", 6))
		return region_usage_error(&o, "%s", "--mode overwrite writes snapshot directories: "
				   "-o net:// needs discard mode");
	if (overwrite && (o.out.rotate_size || o.out.rotate_ns))
		return region_usage_error(&o, "%s", "rotation is for discard mode; overwrite mode "
				   "writes a snapshot directory each time");
	if (!overwrite && (o.ntrigger || o.trigger_after_ns || o.trigger_limit))
		return region_usage_error(&o, "%s", "--trigger is for the flight recorder: "
					  "give --mode overwrite");
	if (!o.trigger_limit)
		o.trigger_limit = 10;
	for (unsigned i = 0; i < o.ntrigger; i++) {
		if (trig_parse(o.trigger[i], i, &tg.t[i], err, sizeof(err)))
			return region_usage_error(&o, "%s", err);
		for (unsigned j = 0; j < i; j++)
			if (!strcmp(tg.t[i].name, tg.t[j].name))
				return region_usage_error(&o, "--trigger: two are named %s",
							  tg.t[i].name);
	}
	tg.n = o.ntrigger;
	if (overwrite && o.blocking && strcmp(o.blocking, "0"))
		return region_usage_error(&o, "%s", "--blocking-timeout is for discard mode: a flight "
					  "recorder overwrites, it never waits");
	if (o.out.buffer_size && o.out.buffer_size < 2 * o.packet_size)
		return region_usage_error(&o, "%s", "--buffer-size must hold two packets at least "
					  "(2 x --packet-size), or be 0");
	/*
	 * Our pid for the reader, and 64 random bits: /dev/shm is everyone's,
	 * and a name another user could guess, they could create first.
	 */
	if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
		rnd = rtr_monotonic_ns() ^ ((uint64_t)getpid() << 32);
	snprintf(region, sizeof(region), SHM_DIR "/ringtrace-record-%d-%016" PRIx64, (int)getpid(),
		 rnd);
	/* The write-behind queue's file, beside the region: what it holds survives us. */
	region_queue_path(region, qpath, sizeof(qpath));
	o.out.queue_path = qpath;
	cli_catch_signals();
	/* With -o net://, the relayd's session is named after the program. */
	o.out.program = o.argv[0];
	o.out.ncpus = rtr_cpu_possible();
	o.out.live_timer_us = o.flush_ns / 1000 > UINT32_MAX ? UINT32_MAX :
			      (uint32_t)(o.flush_ns / 1000);
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
	ret = spawn(&o, region, &ch.pid, sched ? &ch.k : NULL);
	if (ret) {
		fprintf(stderr, "ringtrace record: cannot run %s: %s\n", o.argv[0], strerror(-ret));
		rtr_kernel_close(ch.k);
		rtr_out_abandon(out, o.out.path);
		if (topfd >= 0) {
			close(topfd);
			rmdir(o.out.path);
		}
		return ret == -ENOENT ? 127 : 126;
	}
	if (attach(&o, &s, region, &ch)) {
		rtr_kernel_close(ch.k);
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
	if (ch.k) {
		char kerr[300];

		if (rtr_kernel_start(ch.k, rtr_consumer_region(s.c), kerr, sizeof(kerr))) {
			fprintf(stderr, "ringtrace record: --sched: %s; recording without the kernel's "
				"view\n", kerr);
			rtr_kernel_close(ch.k);
			ch.k = NULL;
		} else {
			s.kernel_classes = true;
			ch.out = out;
			ch.flush_ns = o.flush_ns;
			o.wait_ms = 20;	/* the kernel's buffers hold about 80 ms of 100 k switches/s */
		}
	}
	if (!o.quiet)
		fprintf(stderr, "ringtrace record: %s (pid %d) -> %s%s%s%s, region %s\n", o.argv[0],
			(int)ch.pid, o.out.path, overwrite ? " (flight recorder)" : "",
			out && rtr_out_report(out)->net_session[0] ? ", session " : "",
			out ? rtr_out_report(out)->net_session : "", region);
	if (!o.quiet && overwrite)
		fprintf(stderr, "ringtrace record: for a snapshot now: kill -USR1 %d\n",
			(int)getpid());
	/* Every read of the region, the last accounting included, under the SIGBUS jump. */
	if (sigsetjmp(cli_bus_jmp, 1)) {
		cli_bus_message(o.cmd, region);
		bus = true;
		write_failed = true;
		if (out && !out_closed) {
			out_closed = true;
			rtr_out_close(out, false, &orep);
		}
		goto wait_child;
	}
	cli_bus_armed = 1;
	if (overwrite) {
		write_failed = snapshots(&o, region, &ch, topfd, &nsnap, &tg) != 0;
	} else {
		ret = region_consume_loop(&o, &s, out, record_done, &ch);
		write_failed = ret != 0;
		if (!write_failed && rtr_session_finish(&s, out))
			write_failed = true;
		if (!write_failed && kernel_pass(&ch, true))
			write_failed = true;
		out_closed = true;
		if (rtr_out_close(out, !write_failed, &orep))
			write_failed = true;
		/* The queue's writer failed once the loop was over: say it now. */
		if (write_failed && !ret)
			region_stopped_writing(&o, orep.err);
		rtr_session_account(&s);
		if (write_failed)
			left = left_in_region(&s);
	}
	cli_bus_armed = 0;
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
			region_report(&s, o.out.path);
		if (!overwrite && write_failed && !bus) {
			char b[32];

			cli_human(b, sizeof(b), left);
			fprintf(stderr, "not written: %s of packets left in the region when writing "
				"stopped, and every event the program dropped after them (counted "
				"in the region)\n", b);
		}
		if (!overwrite)
			region_report_queue(&orep, qpath);
		if (!overwrite)
			region_report_net(&orep);
		if (overwrite)
			fprintf(stderr, "ringtrace record: %d snapshot%s in %s\n", nsnap,
				nsnap == 1 ? "" : "s", o.out.path);
		report_triggers(&o, &tg);
	}
	trig_watch_close(tg.w);
	if (!bus)
		report_procs(&o, &s);
	if (ch.k && !o.quiet)
		report_kernel(ch.k);
	rtr_kernel_close(ch.k);
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
