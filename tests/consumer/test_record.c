// SPDX-License-Identifier: MIT
/*
 * tests/consumer/test_record.c - the consumer commands run as a user runs
 * them (`ringtrace record`, `consume`, `snapshot`, `recover`) on a
 * multi-threaded program (ringtrace-test-emit, tests/consumer/emit.c) whose
 * every event carries (thread, cpu, seq, checksum).  Each trace is read back
 * with tools/trace_reader and babeltrace2 (bt2_emit.py), and every event's
 * content, place and order is checked, and every loss accounted for.
 *
 * The programs are the ones built beside this runner: an ASan runner runs
 * ASan builds of ringtrace and of the traced program.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <ringtrace/region.h>
#include "consumer/qfile.h"
#include "tests/consumer/emit.h"
#include "reader/cursor.h"

TestSuite(consumer_record, .timeout = 600);

#define MAXCPU 256

/* ---- processes and files ------------------------------------------------- */

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static const char *bindir(void)
{
	static char dir[PATH_MAX];

	if (!dir[0]) {
		char exe[PATH_MAX];
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

		cr_assert_gt(n, 0);
		exe[n] = 0;
		snprintf(dir, sizeof(dir), "%s", dirname(exe));
	}
	return dir;
}

static const char *srcdir(void)
{
	const char *s = getenv("RTR_SRCDIR");

	return s ? s : ".";
}

/* A path, formatted; each call gets its own buffer (a ring of 16). */
static char *P(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *P(const char *fmt, ...)
{
	static char bufs[16][PATH_MAX + 256];
	static unsigned next;
	char *b = bufs[next++ % 16];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b, sizeof(bufs[0]), fmt, ap);
	va_end(ap);
	return b;
}

/*
 * Start argv[0] (a path) with @env ("K=V" strings, NULL-terminated, may be
 * NULL) set, standard input from @in, output to @out and errors to @err
 * (-1: /dev/null, or the runner's for @err).  The child dies with us.
 */
static pid_t spawn(char *const argv[], const char *const env[], int in, int out, int err)
{
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		setpgid(0, 0);
		for (int i = 0; env && env[i]; i++)
			putenv((char *)env[i]);
		dup2(in >= 0 ? in : null, 0);
		dup2(out >= 0 ? out : null, 1);
		if (err >= 0)
			dup2(err, 2);
		execv(argv[0], argv);
		fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

/* Wait for @pid; one that runs past @secs has hung: kill it, fail. */
static int wait_exit(pid_t pid, double secs, const char *what)
{
	double t0 = now();
	int st;

	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid)
			return st;
		cr_assert_eq(r, 0, "waitpid %s: %s", what, strerror(errno));
		if (now() - t0 > secs) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			cr_assert_fail("%s hung: killed after %.0f s", what, secs);
		}
		usleep(2000);
	}
}

static void expect_exit(int st, int code, const char *what, const char *log)
{
	cr_assert(WIFEXITED(st), "%s: killed by signal %d\n%s", what,
		  WIFSIGNALED(st) ? WTERMSIG(st) : 0, log ? log : "");
	cr_assert_eq(WEXITSTATUS(st), code, "%s: exit %d, not %d\n%s", what, WEXITSTATUS(st),
		     code, log ? log : "");
}

/* Wait until @path exists; fail if @pid (when > 0) ends first or it takes @secs. */
static void wait_path(const char *path, pid_t pid, double secs)
{
	double t0 = now();
	struct stat st;

	while (stat(path, &st) < 0) {
		if (pid > 0) {
			int s;

			cr_assert_eq(waitpid(pid, &s, WNOHANG), 0,
				     "the process ended (status 0x%x) before %s appeared", s, path);
		}
		cr_assert_lt(now() - t0, secs, "%s did not appear within %.0f s", path, secs);
		usleep(1000);
	}
}

static void touch(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);

	cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
	close(fd);
}

/* The whole file (malloc'd, NUL-terminated), or NULL. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	cr_assert_not_null(buf);
	n = (long)fread(buf, 1, (size_t)n, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

/* Run a shell command (under a kill timeout); its output (malloc'd) and status. */
static char *sh(int *status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static char *sh(int *status, const char *fmt, ...)
{
	char cmd[8192];
	size_t len = 0, cap = 1 << 16, n;
	char *out = malloc(cap);
	va_list ap;
	FILE *p;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	/* The command goes through the environment: no quoting to get wrong. */
	setenv("RTR_TEST_CMD", cmd, 1);
	p = popen("timeout -s KILL 300 /bin/sh -c \"$RTR_TEST_CMD\"", "r");
	cr_assert_not_null(p, "%s", cmd);
	while ((n = fread(out + len, 1, cap - len - 1, p)) > 0) {
		len += n;
		if (cap - len < 4096)
			out = realloc(out, cap *= 2);
	}
	out[len] = 0;
	*status = pclose(p);
	return out;
}

static char *make_tmpdir(const char *base)
{
	char *d = P("%s/rtr-rec-XXXXXX", base);

	cr_assert_not_null(mkdtemp(d), "mkdtemp: %s", strerror(errno));
	return strdup(d);
}

static void rm_rf(char *dir)
{
	int st;

	free(sh(&st, "rm -rf '%s'", dir));
	cr_expect_eq(st, 0);
	free(dir);
}

/* The CPUs this process (and so its children) may run on, as emit pins. */
static int allowed_cpus(int *cpus)
{
	cpu_set_t set;
	int n = 0;

	cr_assert_eq(sched_getaffinity(0, sizeof(set), &set), 0);
	for (int c = 0; c < CPU_SETSIZE && n < MAXCPU; c++)
		if (CPU_ISSET(c, &set))
			cpus[n++] = c;
	return n;
}

/* ---- reading a trace back ------------------------------------------------ */

/* Totals of one trace directory (chunk), for babeltrace2 to agree with. */
struct tv_dir {
	uint64_t events;	/* every class */
	uint64_t emit_events;	/* rtrtest:ev */
	uint64_t digest;	/* sum of the check fields */
	uint64_t lost_events;
	uint64_t lost_packets;
	uint64_t lost_first;	/* of which before a stream's first packet */
	uint64_t packets;
};

/*
 * What the events of one run (one trace, or the chunks of one, read in
 * order) say.  Each event is checked as it is read: its class, size,
 * checksum, thread, seq < @cap, never seen before, after the same thread's
 * previous event in its stream and, with @pinned, in the stream of the CPU
 * it names and right after that event unless the stream shows a loss
 * between the two.
 */
struct tv {
	uint32_t nthreads;
	uint64_t cap;
	bool pinned;
	uint8_t *seen[EMIT_MAX_THREADS];
	uint64_t present[EMIT_MAX_THREADS];
	uint64_t min[EMIT_MAX_THREADS], max[EMIT_MAX_THREADS];
	uint64_t emit_cpu[MAXCPU];	/* events of the threads pinned to each CPU */
	uint64_t lost_cpu[MAXCPU];
	uint64_t lostp_cpu[MAXCPU];
	struct tv_dir all;
	/* where each stream stopped, to continue it in the next chunk */
	struct tr_cursor prev[MAXCPU];
	bool have_prev[MAXCPU];
	uint64_t last[MAXCPU][EMIT_MAX_THREADS];	/* seq + 1 of the last event; 0: none */
	bool loss_since[MAXCPU][EMIT_MAX_THREADS];
	uint32_t ndirs;
};

static struct tv *tv_new(uint32_t nthreads, uint64_t cap, bool pinned)
{
	struct tv *v = calloc(1, sizeof(*v));

	cr_assert_not_null(v);
	v->nthreads = nthreads;
	v->cap = cap;
	v->pinned = pinned;
	for (uint32_t t = 0; t < nthreads; t++) {
		v->seen[t] = calloc(cap, 1);
		cr_assert_not_null(v->seen[t]);
		v->min[t] = UINT64_MAX;
	}
	return v;
}

static void tv_free(struct tv *v)
{
	for (uint32_t t = 0; t < v->nthreads; t++)
		free(v->seen[t]);
	free(v);
}

static void mark_loss(struct tv *v, uint32_t cpu)
{
	for (uint32_t t = 0; t < EMIT_MAX_THREADS; t++)
		v->loss_since[cpu][t] = true;
}

/* Read trace directory @dir (the next chunk of @v's run); its totals in @d. */
static void tv_read(struct tv *v, const char *dir, struct tv_dir *d)
{
	struct tr_trace t;
	char err[600];

	memset(d, 0, sizeof(*d));
	cr_assert_eq(tr_open(&t, dir, err, sizeof(err)), 0, "%s", err);
	if (v->ndirs)
		cr_expect_eq(t.md.chunk_index, v->ndirs, "%s: chunk_index %" PRIu64 ", not %u", dir,
			     t.md.chunk_index, v->ndirs);
	v->ndirs++;
	for (uint32_t i = 0; i < t.nstreams; i++) {
		struct tr_cursor c;
		unsigned cpu;
		int item;

		cr_assert_eq(sscanf(t.streams[i].name, "stream_%u", &cpu), 1, "%s",
			     t.streams[i].path);
		cr_assert_lt(cpu, MAXCPU);
		tr_cursor_init(&c, &t, i);
		if (v->have_prev[cpu])
			tr_cursor_continue(&c, &v->prev[cpu]);
		while ((item = tr_next(&c)) != TR_END) {
			uint32_t th, pcpu;
			uint64_t seq, check;

			cr_assert_neq(item, TR_ERROR, "%s", c.err);
			if (item == TR_LOST_PACKETS) {
				d->lost_packets += c.lost;
				if (c.pkt_off == 0 && !v->have_prev[cpu])
					d->lost_first += c.lost;
				v->lostp_cpu[cpu] += c.lost;
				mark_loss(v, cpu);
				continue;
			}
			if (item == TR_LOST_EVENTS) {
				d->lost_events += c.lost;
				v->lost_cpu[cpu] += c.lost;
				mark_loss(v, cpu);
				continue;
			}
			d->events++;
			if (strcmp(c.cls->name, EMIT_EVENT_NAME))
				continue;
			cr_assert_eq(c.len, EMIT_PAYLOAD_SIZE, "%s@%" PRIu64 ": payload of %" PRIu64
				     " bytes", c.s->path, c.off, c.len);
			th = ld32(c.payload);
			pcpu = ld32(c.payload + 4);
			seq = ld64(c.payload + 8);
			check = ld64(c.payload + 16);
			cr_assert_lt(th, v->nthreads, "%s@%" PRIu64 ": thread %u", c.s->path, c.off, th);
			cr_assert_eq(check, emit_checksum(th, seq), "%s@%" PRIu64 ": thread %u seq %"
				     PRIu64 ": bad checksum", c.s->path, c.off, th, seq);
			cr_assert_lt(seq, v->cap, "%s@%" PRIu64 ": thread %u seq %" PRIu64
				     " was never emitted (< %" PRIu64 ")", c.s->path, c.off, th, seq,
				     v->cap);
			cr_assert_eq(v->seen[th][seq], 0, "%s@%" PRIu64 ": thread %u seq %" PRIu64
				     " duplicated", c.s->path, c.off, th, seq);
			v->seen[th][seq] = 1;
			cr_assert_gt(seq + 1, v->last[cpu][th], "%s@%" PRIu64 ": thread %u seq %" PRIu64
				     " after seq %" PRIu64 " in the same stream", c.s->path, c.off,
				     th, seq, v->last[cpu][th] - 1);
			if (v->pinned) {
				cr_assert_eq(pcpu, cpu, "%s@%" PRIu64 ": thread %u pinned to cpu %u "
					     "is in stream %u", c.s->path, c.off, th, pcpu, cpu);
				cr_assert(seq == v->last[cpu][th] || v->loss_since[cpu][th],
					  "%s@%" PRIu64 ": thread %u jumps from seq %" PRIu64 " to %"
					  PRIu64 " and the stream shows no loss", c.s->path, c.off,
					  th, (uint64_t)(v->last[cpu][th] - 1), seq);
				v->emit_cpu[cpu]++;
			}
			v->last[cpu][th] = seq + 1;
			v->loss_since[cpu][th] = false;
			v->present[th]++;
			if (seq < v->min[th])
				v->min[th] = seq;
			if (seq > v->max[th])
				v->max[th] = seq;
			d->emit_events++;
			d->digest += check;
		}
		d->packets += c.packets;
		v->prev[cpu] = c;
		v->have_prev[cpu] = true;
	}
	tr_close(&t);
	v->all.events += d->events;
	v->all.emit_events += d->emit_events;
	v->all.digest += d->digest;
	v->all.lost_events += d->lost_events;
	v->all.lost_packets += d->lost_packets;
	v->all.lost_first += d->lost_first;
	v->all.packets += d->packets;
}

static uint64_t json_u64(const char *json, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\": ", key);
	p = strstr(json, pat);
	cr_assert_not_null(p, "no %s in %s", key, json);
	return strtoull(p + strlen(pat), NULL, 10);
}

static void bt2_agrees_on(const char *dir, const struct tv_dir *d, bool losses);

/* babeltrace2 reads @dir and finds what our reader found. */
static void bt2_agrees(const char *dir, const struct tv_dir *d)
{
	bt2_agrees_on(dir, d, true);
}

/*
 * The same, but for the losses when @losses is false: a trace that
 * continues another (a recovered one) starts with a count babeltrace2
 * cannot attribute ("unknown").
 */
static void bt2_agrees_on(const char *dir, const struct tv_dir *d, bool losses)
{
	char *json;
	int st;

	json = sh(&st, "/usr/bin/python3 '%s/tests/consumer/bt2_emit.py' '%s' 2>&1", srcdir(),
		  dir);
	cr_assert_eq(st, 0, "babeltrace2 cannot read %s:\n%s", dir, json);
	cr_expect_eq(json_u64(json, "events"), d->events, "%s: %s; ours: %" PRIu64, dir, json,
		     d->events);
	cr_expect_eq(json_u64(json, "emit_events"), d->emit_events, "%s: %s", dir, json);
	cr_expect_eq(json_u64(json, "bad_checksums"), 0, "%s: %s", dir, json);
	cr_expect_eq(json_u64(json, "digest"), d->digest, "%s: babeltrace2 decoded other values",
		     dir);
	cr_expect_eq(json_u64(json, "packets"), d->packets, "%s: %s", dir, json);
	if (!losses) {
		free(json);
		return;
	}
	cr_expect_eq(json_u64(json, "discarded_events"), d->lost_events, "%s: %s; ours: %" PRIu64,
		     dir, json, d->lost_events);
	cr_expect_eq(json_u64(json, "discarded_events_unknown"), 0, "%s: %s", dir, json);
	/* babeltrace2 does not count the packets before a stream's first one. */
	cr_expect_eq(json_u64(json, "discarded_packets"), d->lost_packets - d->lost_first,
		     "%s: %s; ours: %" PRIu64 " (%" PRIu64 " before the first)", dir, json,
		     d->lost_packets, d->lost_first);
	cr_expect_eq(json_u64(json, "packets"), d->packets, "%s: %s", dir, json);
	free(json);
}

/* `ringtrace check` finds @dir clean (losses are not damage). */
static void check_clean(const char *dir)
{
	char *out;
	int st;

	out = sh(&st, "'%s/ringtrace' check '%s' 2>&1", bindir(), dir);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "ringtrace check %s:\n%s", dir, out);
	free(out);
}

/* Read and check one whole trace directory; babeltrace2 and check agree. */
static void tv_read_all(struct tv *v, const char *dir)
{
	struct tv_dir d;

	tv_read(v, dir, &d);
	bt2_agrees(dir, &d);
	check_clean(dir);
}

/* The chunks DIR/PREFIX-000000... in order; their number. */
static uint32_t tv_read_chunks(struct tv *v, const char *path, const char *prefix, bool bt2)
{
	char *dir = strdup(path);	/* P()'s buffers are reused */
	uint32_t n = 0;
	struct stat st;

	for (;; n++) {
		char *chunk = P("%s/%s-%06u", dir, prefix, n);
		struct tv_dir d;

		if (stat(chunk, &st) < 0)
			break;
		tv_read(v, chunk, &d);
		if (bt2)
			bt2_agrees(chunk, &d);
		check_clean(chunk);
	}
	free(dir);
	return n;
}

/* Every thread's events are all there: 0 .. @n - 1, exactly once. */
static void expect_all(const struct tv *v, uint64_t n)
{
	for (uint32_t t = 0; t < v->nthreads; t++)
		cr_expect_eq(v->present[t], n, "thread %u: %" PRIu64 " of its %" PRIu64 " events",
			     t, v->present[t], n);
	cr_expect_eq(v->all.lost_events, 0);
	cr_expect_eq(v->all.lost_packets, 0);
}

/* "lost: N events" in a record/consume report. */
static uint64_t reported_lost(const char *log)
{
	const char *p = strstr(log, "; lost: ");

	cr_assert_not_null(p, "no loss figure in:\n%s", log);
	return strtoull(p + 8, NULL, 10);
}

/* The region a recorder's log names ("..., region PATH"), in P()'s buffer. */
static char *region_of(const char *log)
{
	const char *p = log ? strstr(log, ", region /") : NULL;
	size_t n;

	cr_assert_not_null(p, "no region named in:\n%s", log ? log : "");
	p += strlen(", region ");
	n = strcspn(p, "\n");
	return P("%.*s", (int)n, p);
}

/*
 * A region this test is done with, and its queue's file if a recorder it
 * killed left one: an orphan queue file (no region) is what `ringtrace
 * info --queues` complains of, and /dev/shm must hold none after a test.
 */
static void remove_region(const char *region)
{
	char q[PATH_MAX];

	snprintf(q, sizeof(q), "%s.queue", region);
	unlink(region);
	unlink(q);
}

static char *emit_path(void)
{
	return P("%s/ringtrace-test-emit", bindir());
}

static char *ringtrace(void)
{
	return P("%s/ringtrace", bindir());
}

static int open_log(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
	return fd;
}

/* ---- 1. record, both modes ----------------------------------------------- */

/*
 * Discard mode with losses for sure: the recorder is stopped (SIGSTOP)
 * while the first half of the events is emitted into a 16 KiB per CPU
 * ring, then the second half runs against the live consumer.  Each CPU's
 * stream must miss exactly as many of its threads' events as it counts
 * lost, every gap where a loss is shown.
 */
Test(consumer_record, discard_mode_every_event_or_its_loss_counted)
{
	const uint32_t threads = 4;
	const uint64_t events = 20000;
	char *dir = make_tmpdir("/dev/shm"), *log, *report;
	int cpus[MAXCPU], ncpus = allowed_cpus(cpus), lfd, st;
	uint64_t expect_cpu[MAXCPU] = { 0 }, missing = 0;
	char thr[16], ev[32];
	struct tv *v;
	pid_t rec;

	mkdir(P("%s/sync", dir), 0700);
	snprintf(thr, sizeof(thr), "%u", threads);
	snprintf(ev, sizeof(ev), "%" PRIu64, events);
	{
		char *argv[] = { ringtrace(), "record", "-o", P("%s/trace", dir),
				 "--packet-size", "4k", "--packets", "4", "--flush-interval",
				 "100ms", "--", emit_path(), "--threads", thr, "--events", ev,
				 "--pin", "--phases", "2", "--sync", P("%s/sync", dir), NULL };

		lfd = open_log(P("%s/record.log", dir));
		rec = spawn(argv, NULL, -1, -1, lfd);
		close(lfd);
	}
	wait_path(P("%s/sync/pid", dir), rec, 60);
	cr_assert_eq(kill(rec, SIGSTOP), 0);
	touch(P("%s/sync/go.0", dir));
	wait_path(P("%s/sync/done.0", dir), -1, 120);
	cr_assert_eq(kill(rec, SIGCONT), 0);
	touch(P("%s/sync/go.1", dir));
	st = wait_exit(rec, 300, "ringtrace record");
	log = slurp(P("%s/record.log", dir));
	expect_exit(st, 0, "ringtrace record", log);
	report = slurp(P("%s/sync/report", dir));
	cr_assert_not_null(report);
	cr_assert_eq(strtoull(report + strlen("attempted "), NULL, 10), threads * events);

	v = tv_new(threads, events, true);
	tv_read_all(v, P("%s/trace", dir));
	for (uint32_t t = 0; t < threads; t++) {
		expect_cpu[cpus[t % (uint32_t)ncpus]] += events;
		missing += events - v->present[t];
	}
	for (int c = 0; c < MAXCPU; c++)
		cr_expect_eq(expect_cpu[c] - v->emit_cpu[c], v->lost_cpu[c],
			     "cpu %d: %" PRIu64 " events emitted there, %" PRIu64 " in the trace, %"
			     PRIu64 " counted lost", c, expect_cpu[c], v->emit_cpu[c], v->lost_cpu[c]);
	cr_expect_eq(v->all.emit_events + v->all.lost_events, threads * events);
	cr_expect_eq(missing, v->all.lost_events);
	cr_expect_gt(v->all.lost_events, 0, "a stopped consumer made the ring drop");
	cr_expect_eq(v->all.lost_packets, 0, "discard mode loses events, never packets");
	cr_expect_eq(reported_lost(log), v->all.lost_events, "the summary:\n%s", log);
	cr_expect_not_null(strstr(log, "exited with status 0"), "%s", log);
	cr_expect_null(strstr(log, "snapshot"), "a discard-mode summary speaks of snapshots:\n%s",
		       log);
	free(log);
	free(report);
	tv_free(v);
	rm_rf(dir);
}

/* A snapshot's events: per thread a run that ends with its last event. */
static void check_snapshot(const char *path, uint32_t threads, uint64_t events, struct tv_dir *tot)
{
	struct tv *v = tv_new(threads, events, true);
	uint32_t with_events = 0;

	tv_read_all(v, path);
	cr_expect_eq(v->all.lost_events, 0, "%s: overwrite mode drops no event", path);
	cr_expect_gt(v->all.lost_packets, 0, "%s: 1.3 MB per CPU into a 32 KiB ring overwrote",
		     path);
	for (uint32_t t = 0; t < threads; t++) {
		if (!v->present[t])
			continue;	/* all its packets were overwritten */
		with_events++;
		cr_expect_eq(v->max[t], events - 1, "%s: thread %u's last event is missing", path, t);
		cr_expect_eq(v->present[t], v->max[t] - v->min[t] + 1,
			     "%s: thread %u: a hole in %" PRIu64 "..%" PRIu64, path, t, v->min[t],
			     v->max[t]);
	}
	cr_expect_gt(with_events, 0, "%s holds no event", path);
	*tot = v->all;
	tv_free(v);
}

/*
 * Overwrite mode, the flight recorder: a snapshot on SIGUSR1 while the
 * program is alive (its last events emitted, the program waiting), and the
 * one at the end; both hold the latest packets: per thread a run of events
 * ending with its last, and the same events in both.
 */
Test(consumer_record, overwrite_mode_snapshots_hold_the_latest_events)
{
	const uint32_t threads = 4;
	const uint64_t events = 20000;
	char *dir = make_tmpdir("/dev/shm"), *log, *state;
	struct tv_dir a, b;
	int lfd, st;
	char thr[16], ev[32];
	pid_t rec;
	double t0;

	mkdir(P("%s/sync", dir), 0700);
	touch(P("%s/sync/go.0", dir));
	snprintf(thr, sizeof(thr), "%u", threads);
	snprintf(ev, sizeof(ev), "%" PRIu64, events);
	{
		char *argv[] = { ringtrace(), "record", "-o", P("%s/trace", dir), "--mode",
				 "overwrite", "--packet-size", "4k", "--packets", "8", "--",
				 emit_path(), "--threads", thr, "--events", ev, "--pin", "--sync",
				 P("%s/sync", dir), "--hold", NULL };

		lfd = open_log(P("%s/record.log", dir));
		rec = spawn(argv, NULL, -1, -1, lfd);
		close(lfd);
	}
	wait_path(P("%s/sync/report", dir), rec, 120);
	/* The recorder's handler may not be in place before the program runs: it is now. */
	cr_assert_eq(kill(rec, SIGUSR1), 0);
	t0 = now();
	for (;;) {
		state = slurp(P("%s/trace/snapshot-000000/.ringtrace-state", dir));
		if (state && strstr(state, "state done"))
			break;
		cr_assert(!state || !strstr(state, "state failed"), "%s", state);
		free(state);
		cr_assert_lt(now() - t0, 60, "no snapshot 60 s after SIGUSR1");
		usleep(10000);
	}
	free(state);
	touch(P("%s/sync/go.1", dir));
	st = wait_exit(rec, 120, "ringtrace record");
	log = slurp(P("%s/record.log", dir));
	expect_exit(st, 0, "ringtrace record", log);
	cr_expect_not_null(strstr(log, "2 snapshots in"), "%s", log);
	check_snapshot(P("%s/trace/snapshot-000000", dir), threads, events, &a);
	check_snapshot(P("%s/trace/snapshot-000001", dir), threads, events, &b);
	/*
	 * Nothing was emitted between the two: the same events (the first takes
	 * the open packets as far as they are written, the second the same
	 * packets closed at stop).
	 */
	cr_expect_eq(a.emit_events, b.emit_events, "snapshots: %" PRIu64 " and %" PRIu64
		     " events", a.emit_events, b.emit_events);
	cr_expect_eq(a.digest, b.digest, "the two snapshots hold different events");
	free(log);
	rm_rf(dir);
}

static uint64_t file_size(const char *path)
{
	struct stat sb;

	cr_assert_eq(stat(path, &sb), 0, "%s: %s", path, strerror(errno));
	return (uint64_t)sb.st_size;
}

/*
 * Per stream file of trace @path (up to MAXCPU): its packets, and how many
 * of them are full (closed because the next event, 24 bytes of payload, did
 * not fit).
 */
static void count_packets(const char *path, uint32_t psize, uint32_t *packets, uint32_t *full)
{
	for (uint32_t cpu = 0; cpu < MAXCPU; cpu++) {
		char *data = slurp(P("%s/stream_%u", path, cpu));
		uint64_t off = 0, len;

		packets[cpu] = full[cpu] = 0;
		if (!data)
			continue;
		len = file_size(P("%s/stream_%u", path, cpu));
		while (off + RTR_PACKET_HDR_SIZE <= len) {
			struct rtr_packet_hdr h;

			memcpy(&h, data + off, sizeof(h));
			cr_assert_eq(h.magic, RTR_CTF_MAGIC, "%s/stream_%u: packet at %" PRIu64, path,
				     cpu, off);
			packets[cpu]++;
			/* closed because the next one did not fit (16 + round8(24) bytes) */
			full[cpu] += h.content_size / 8 + 40 > psize;
			off += h.packet_size / 8;
		}
		free(data);
	}
}

/* "N packets, E events, L events lost, K packets lost" of `check`, and of @what in a log. */
static void check_figures(const char *trace, const char *log, const char *what)
{
	uint64_t p, e, le, lp, rp, rle, rlp;
	char *out;
	const char *l;
	int st;

	out = sh(&st, "'%s' check '%s' 2>&1", ringtrace(), trace);
	cr_assert_eq(st, 0, "check %s:\n%s", trace, out);
	l = strstr(out, " events lost, ");
	cr_assert_not_null(l, "%s", out);
	while (l > out && l[-1] != '\n')
		l--;
	cr_assert_eq(sscanf(l, "%" SCNu64 " packets, %" SCNu64 " events, %" SCNu64 " events lost, %"
			    SCNu64 " packets lost", &p, &e, &le, &lp), 4, "%s", l);
	free(out);
	l = strstr(log, what);
	cr_assert_not_null(l, "no report of %s in:\n%s", what, log);
	cr_assert_eq(sscanf(l + strlen(what), ": %" SCNu64 " packets, %*s %*s lost: %" SCNu64
			    " events, %" SCNu64 " packets", &rp, &rle, &rlp), 3, "%s", l);
	cr_expect_eq(rp, p, "%s: the summary says %" PRIu64 " packets, check %" PRIu64, what, rp, p);
	cr_expect_eq(rle, le, "%s: the summary says %" PRIu64 " events lost, check %" PRIu64, what,
		     rle, le);
	cr_expect_eq(rlp, lp, "%s: the summary says %" PRIu64 " packets lost, check %" PRIu64, what,
		     rlp, lp);
}

/*
 * The flight recorder keeps its memory's worth: with N packets per CPU, a
 * snapshot of the running ring (the writers going on, one per CPU) holds
 * at least N - 1 full packets of each busy CPU, and the one taken once the
 * program stopped all N; every event checked, each thread's newest ones
 * there, and the recorder's summary the same figures as `check`.
 */
Test(consumer_record, the_flight_recorder_keeps_its_memorys_worth)
{
	const uint32_t N = 4, psize = 16384;
	char *dir = make_tmpdir("/dev/shm"), *log, *state;
	uint32_t packets[MAXCPU], full[MAXCPU], busy = 0;
	int lfd, st;
	pid_t rec;
	double t0;

	mkdir(P("%s/sync", dir), 0700);
	touch(P("%s/sync/go.0", dir));
	{
		char *argv[] = { ringtrace(), "record", "-o", P("%s/trace", dir), "--mode",
				 "overwrite", "--packet-size", "16k", "--packets", "4", "--",
				 emit_path(), "--threads", "2", "--events", "1000000", "--pin",
				 "--pace", "200:200", "--sync", P("%s/sync", dir), NULL };

		lfd = open_log(P("%s/record.log", dir));
		rec = spawn(argv, NULL, -1, -1, lfd);
		close(lfd);
	}
	/* Mid-run: once each thread has written 8 rings' worth. */
	wait_path(P("%s/sync/pid", dir), rec, 60);
	usleep(300000);
	cr_assert(access(P("%s/sync/report", dir), F_OK) != 0, "the program ended too soon");
	cr_assert_eq(kill(rec, SIGUSR1), 0);
	t0 = now();
	for (;;) {
		state = slurp(P("%s/trace/snapshot-000000/.ringtrace-state", dir));
		if (state && strstr(state, "state done"))
			break;
		free(state);
		cr_assert_lt(now() - t0, 60, "no snapshot 60 s after SIGUSR1");
		usleep(10000);
	}
	free(state);
	cr_assert(access(P("%s/sync/report", dir), F_OK) != 0,
		  "the program ended before the snapshot: not a running ring");
	st = wait_exit(rec, 120, "ringtrace record");
	log = slurp(P("%s/record.log", dir));
	expect_exit(st, 0, "ringtrace record", log);
	/* Running: N - 1 full packets at least, and at most N, per busy CPU. */
	count_packets(P("%s/trace/snapshot-000000", dir), psize, packets, full);
	for (uint32_t cpu = 0; cpu < MAXCPU; cpu++) {
		if (!packets[cpu])
			continue;
		busy++;
		cr_expect_geq(full[cpu], N - 1, "running: cpu %u has %u full packets of %u", cpu,
			      full[cpu], N);
		cr_expect_leq(packets[cpu], N, "running: cpu %u has %u packets", cpu, packets[cpu]);
	}
	cr_expect_gt(busy, 0);
	/* Stopped: all N. */
	count_packets(P("%s/trace/snapshot-000001", dir), psize, packets, full);
	for (uint32_t cpu = 0; cpu < MAXCPU; cpu++)
		if (packets[cpu])
			cr_expect_eq(packets[cpu], N, "stopped: cpu %u has %u packets of %u", cpu,
				     packets[cpu], N);
	/*
	 * Every event checked; the newest of each thread in the last snapshot,
	 * and no hole but what the writers counted lost (they drop while a
	 * snapshot holds them off a packet it has not copied, if the recorder
	 * stalls: on a loaded machine).
	 */
	for (int i = 0; i < 2; i++) {
		struct tv *v = tv_new(2, 1000000, true);
		char *snap = strdup(P("%s/trace/snapshot-%06d", dir, i));	/* P() is reused */
		struct tv_dir d;

		tv_read(v, snap, &d);
		check_clean(snap);
		/*
		 * babeltrace2 reads it (events lost before a snapshot's first packet
		 * it counts as unknown: no bt2_agrees() here).
		 */
		free(sh(&st, "babeltrace2 '%s' >/dev/null 2>&1", snap));
		cr_expect_eq(st, 0, "babeltrace2 refuses %s", snap);
		free(snap);
		for (uint32_t t = 0; t < 2; t++) {
			if (!v->present[t])
				continue;
			if (i == 1)
				cr_expect_eq(v->max[t], 1000000 - 1, "thread %u's last event", t);
			cr_expect_geq(v->present[t] + v->all.lost_events, v->max[t] - v->min[t] + 1,
				      "snapshot %d, thread %u: holes not counted lost", i, t);
		}
		tv_free(v);
	}
	check_figures(P("%s/trace/snapshot-000000", dir), log, "snapshot-000000");
	check_figures(P("%s/trace/snapshot-000001", dir), log, "snapshot-000001");
	free(log);
	rm_rf(dir);
}

/* Start a flight recorder of 2 threads x 20000 events into @out; the program holds at its end. */
static pid_t start_flight_recorder(const char *dir, const char *out)
{
	char *argv[] = { ringtrace(), "record", "-o", (char *)out, "--mode", "overwrite",
			 "--packet-size", "4k", "--packets", "8", "--", emit_path(), "--threads",
			 "2", "--events", "20000", "--pin", "--sync", P("%s/sync", dir), "--hold",
			 NULL };
	int lfd;
	pid_t rec;

	mkdir(P("%s/sync", dir), 0700);
	touch(P("%s/sync/go.0", dir));
	lfd = open_log(P("%s/record.log", dir));
	rec = spawn(argv, NULL, -1, -1, lfd);
	close(lfd);
	wait_path(P("%s/sync/report", dir), rec, 120);
	return rec;
}

/* Wait until the recorder's log says @what. */
static void wait_log(const char *dir, const char *what)
{
	double t0 = now();
	char *log;

	while (!(log = slurp(P("%s/record.log", dir))) || !strstr(log, what)) {
		cr_assert_lt(now() - t0, 60, "no '%s' in 60 s:\n%s", what, log ? log : "");
		free(log);
		usleep(10000);
	}
	free(log);
}

/*
 * The flight recorder's directory is renamed and a symlink put in its place
 * while it runs: the snapshots still go into its own directory, never
 * through the link.
 */
Test(consumer_record, snapshots_never_follow_a_symlink_put_in_place_of_the_directory)
{
	char *dir = make_tmpdir("/dev/shm"), *log;
	struct stat sb;
	pid_t rec;
	int st;

	rec = start_flight_recorder(dir, P("%s/trace", dir));
	cr_assert_eq(rename(P("%s/trace", dir), P("%s/moved", dir)), 0);
	mkdir(P("%s/elsewhere", dir), 0700);
	cr_assert_eq(symlink(P("%s/elsewhere", dir), P("%s/trace", dir)), 0);
	cr_assert_eq(kill(rec, SIGUSR1), 0);
	wait_log(dir, "snapshot-000000");
	touch(P("%s/sync/go.1", dir));
	st = wait_exit(rec, 120, "ringtrace record");
	log = slurp(P("%s/record.log", dir));
	expect_exit(st, 0, "ringtrace record", log);
	cr_expect_not_null(strstr(log, "2 snapshots in"), "%s", log);
	cr_expect_neq(stat(P("%s/elsewhere/snapshot-000000", dir), &sb), 0,
		      "a snapshot went through the symlink");
	check_clean(P("%s/moved/snapshot-000000", dir));
	check_clean(P("%s/moved/snapshot-000001", dir));
	free(log);
	rm_rf(dir);
}

/*
 * A snapshot that fails (a full disk: root needed for a small tmpfs) is
 * reported; it keeps its number, and the next one, once there is room, is
 * written whole under the next number.  Exit 1: one failed.
 */
Test(consumer_record, a_failed_snapshot_does_not_stop_the_next_ones)
{
	char *dir = make_tmpdir("/dev/shm"), *mnt = make_tmpdir("/tmp"), *log;
	struct tv_dir snap;
	pid_t rec;
	int st;

	cr_assert_eq(unshare(CLONE_NEWNS), 0, "unshare(CLONE_NEWNS): %s: this test needs root "
		     "(a mount namespace and a small tmpfs)", strerror(errno));
	cr_assert_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0, "%s", strerror(errno));
	cr_assert_eq(mount("tmpfs", mnt, "tmpfs", 0, "size=512k,mode=0700"), 0,
		     "cannot mount a 512 KiB tmpfs on %s: %s: this test needs root", mnt,
		     strerror(errno));
	rec = start_flight_recorder(dir, P("%s/trace", mnt));
	/* The disk full, then a snapshot. */
	free(sh(&st, "dd if=/dev/zero of='%s/filler' bs=4k 2>/dev/null", mnt));
	cr_assert_eq(kill(rec, SIGUSR1), 0);
	wait_log(dir, "ringtrace record: snapshot:");
	/* Room again: the last snapshot is whole. */
	cr_assert_eq(unlink(P("%s/filler", mnt)), 0);
	touch(P("%s/sync/go.1", dir));
	st = wait_exit(rec, 120, "ringtrace record");
	log = slurp(P("%s/record.log", dir));
	expect_exit(st, 1, "ringtrace record, a snapshot failed", log);
	cr_expect_not_null(strstr(log, "No space left on device"), "%s", log);
	cr_expect_not_null(strstr(log, "1 snapshot in"), "%s", log);
	/* The failed one is gone: half a snapshot (a stream missing) would check "ok". */
	cr_expect_neq(access(P("%s/trace/snapshot-000000", mnt), F_OK), 0,
		      "the failed snapshot was left: %s", log);
	cr_expect_not_null(strstr(log, "snapshot-000000 removed"), "%s", log);
	check_snapshot(P("%s/trace/snapshot-000001", mnt), 2, 20000, &snap);
	/* Kept, as after any write failure, for `recover`. */
	cr_expect_eq(unlink(region_of(log)), 0, "%s", log);
	free(log);
	cr_expect_eq(umount2(mnt, MNT_DETACH), 0);
	rmdir(mnt);
	free(mnt);
	rm_rf(dir);
}

/* ---- 2. crash and recover -------------------------------------------------- */

struct crash_figures {
	uint64_t trials, events, lost, packets, salvaged, in_flight;
};

/*
 * One trial: the program writes into its own region (no consumer: the
 * 256 KiB per CPU ring fills up and then drops, counting), each thread
 * publishing how many of its events are committed; SIGKILL at a random
 * moment; `ringtrace recover` must give back every committed event that
 * was not counted lost, and nothing else.
 */
static void crash_trial(const char *dir, unsigned trial, unsigned seed, struct crash_figures *f)
{
	const uint32_t threads = 4;
	char *region = strdup(P("%s/region-%u", dir, trial));
	char *progress = strdup(P("%s/progress-%u", dir, trial));
	char *out = strdup(P("%s/rec-%u", dir, trial));
	char env_path[PATH_MAX + 32];
	const char *env[] = { env_path, "RINGTRACE_PACKET_SIZE=4096", "RINGTRACE_PACKETS=64",
			      "RINGTRACE_MODE=discard", NULL };
	char *argv[] = { emit_path(), "--threads", "4", "--events", "0", "--pace", "8:1000",
			 "--progress", progress, NULL };
	uint64_t done[EMIT_MAX_THREADS], sum = 0, total, cap = 0;
	volatile uint64_t *prog;
	char *log, *rlog;
	struct tv *v;
	int fd, st, lfd;
	pid_t pid;
	double t0;

	snprintf(env_path, sizeof(env_path), "RINGTRACE_PATH=%s", region);
	lfd = open_log(P("%s/emit-%u.log", dir, trial));
	pid = spawn(argv, env, -1, -1, lfd);
	close(lfd);
	wait_path(progress, pid, 60);
	fd = open(progress, O_RDONLY);
	cr_assert_geq(fd, 0);
	/* Created, then sized: a mapping beyond its end would be SIGBUS. */
	t0 = now();
	for (struct stat sb; fstat(fd, &sb) == 0 && sb.st_size < EMIT_MAX_THREADS * 8;) {
		cr_assert_lt(now() - t0, 60, "%s is not sized", progress);
		usleep(200);
	}
	prog = mmap(NULL, EMIT_MAX_THREADS * 8, PROT_READ, MAP_SHARED, fd, 0);
	cr_assert_neq(prog, MAP_FAILED);
	close(fd);
	/* Tracing runs (an event is committed), then a random moment: filling, or full. */
	t0 = now();
	while (!prog[0] && !prog[1] && !prog[2] && !prog[3]) {
		cr_assert_lt(now() - t0, 60, "the program emitted nothing in 60 s");
		usleep(200);
	}
	usleep(rand_r(&seed) % 800000);
	cr_assert_eq(kill(pid, SIGKILL), 0);
	st = wait_exit(pid, 60, "the traced program");
	cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "status 0x%x", st);
	for (uint32_t t = 0; t < threads; t++) {
		done[t] = prog[t];
		sum += done[t];
		if (done[t] + 1 > cap)
			cap = done[t] + 1;
	}
	munmap((void *)prog, EMIT_MAX_THREADS * 8);

	log = sh(&st, "'%s' recover '%s' -o '%s' 2>&1", ringtrace(), region, out);
	expect_exit(st, 0, "ringtrace recover", log);
	cr_expect_not_null(strstr(log, "could not be saved:"), "%s", log);
	v = tv_new(threads, cap, false);
	tv_read_all(v, out);
	/* Each thread's events: what it had committed, and perhaps the one it was writing. */
	for (uint32_t t = 0; t < threads; t++)
		cr_assert(!v->present[t] || v->max[t] <= done[t],
			  "trial %u: thread %u had committed %" PRIu64 " events, the trace has seq %"
			  PRIu64, trial, t, done[t], v->max[t]);
	total = v->all.emit_events + v->all.lost_events;
	cr_assert(total >= sum && total <= sum + threads,
		  "trial %u: %" PRIu64 " events committed (+ up to %u in flight), the trace has %"
		  PRIu64 " and counts %" PRIu64 " lost\n%s", trial, sum, threads,
		  v->all.emit_events, v->all.lost_events, log);
	cr_expect_eq(v->all.lost_packets, 0, "trial %u: packets lost in a discard ring\n%s", trial,
		     log);
	rlog = strstr(log, " open packets salvaged)");
	f->trials++;
	f->events += v->all.emit_events;
	f->lost += v->all.lost_events;
	f->packets += v->all.packets;
	if (rlog) {
		while (rlog > log && rlog[-1] != '(')
			rlog--;
		f->salvaged += strtoull(rlog, NULL, 10);
	}
	f->in_flight += total - sum;
	free(log);
	tv_free(v);
	remove_region(region);
	unlink(progress);
	free(sh(&st, "rm -rf '%s'", out));
	free(region);
	free(progress);
	free(out);
}

static double stress_budget(void)
{
	const char *s = getenv("RTR_STRESS_SECONDS");

	return s ? strtod(s, NULL) : 0;
}

/*
 * In the stress suite: `make check` runs 4 trials, `make stress` trials for
 * RTR_STRESS_SECONDS.
 */
Test(stress, record_crash_then_recover_gets_every_committed_event, .timeout = 3600)
{
	char *dir = make_tmpdir("/dev/shm");
	struct crash_figures f = { 0 };
	double budget = stress_budget(), t0 = now();
	unsigned seed = (unsigned)time(NULL) ^ (unsigned)getpid();

	cr_log_info("crash trials: seed %u", seed);
	do {
		crash_trial(dir, (unsigned)f.trials, seed + (unsigned)f.trials * 7919u, &f);
	} while (f.trials < 4 || now() - t0 < budget);
	cr_log_info("crash trials: %" PRIu64 ", events recovered %" PRIu64 ", counted lost %" PRIu64
		    ", packets %" PRIu64 " (%" PRIu64 " salvaged open), in flight at the kill %"
		    PRIu64, f.trials, f.events, f.lost, f.packets, f.salvaged, f.in_flight);
	fprintf(stderr, "  crash: %" PRIu64 " trials, %" PRIu64 " events recovered, %" PRIu64
		" counted lost, %" PRIu64 " packets (%" PRIu64 " open ones salvaged)\n", f.trials,
		f.events, f.lost, f.packets, f.salvaged);
	cr_expect_gt(f.events, 0);
	rm_rf(dir);
}

/* ---- 3. the recorder killed --------------------------------------------- */

/*
 * A recorder to be killed, of two emit threads that write until killed and
 * publish what they committed (--progress).  victim_start() spawns
 * `[/bin/sh -c WRAP sh] ringtrace record REC... -- emit ... EMIT...`, its
 * standard output @out and its log DIR/record-ID.log;
 * victim_running() waits until events are committed and the recorder has
 * named the region; victim_dead(), once the recorder is dead, kills the
 * program too and reads what each thread had committed.
 */
struct victim {
	char *log_path, *progress, *log, *region;
	pid_t recorder, program;
	volatile uint64_t *prog;
	uint64_t done[2], sum, cap;
};

static void victim_start(struct victim *vi, const char *dir, unsigned id, char *wrap,
			 char *const rec[], char *const emit[], int out)
{
	char *argv[48];
	int n = 0, lfd;

	memset(vi, 0, sizeof(*vi));
	vi->log_path = strdup(P("%s/record-%u.log", dir, id));
	vi->progress = strdup(P("%s/progress-%u", dir, id));
	if (wrap) {
		argv[n++] = "/bin/sh";
		argv[n++] = "-c";
		argv[n++] = wrap;
		argv[n++] = "sh";
	}
	argv[n++] = ringtrace();
	argv[n++] = "record";
	for (int i = 0; rec[i]; i++)
		argv[n++] = rec[i];
	argv[n++] = "--";
	argv[n++] = emit_path();
	argv[n++] = "--threads";
	argv[n++] = "2";
	argv[n++] = "--events";
	argv[n++] = "0";
	argv[n++] = "--progress";
	argv[n++] = vi->progress;
	for (int i = 0; emit && emit[i]; i++)
		argv[n++] = emit[i];
	argv[n] = NULL;
	cr_assert_lt(n, 48);
	lfd = open_log(vi->log_path);
	vi->recorder = spawn(argv, NULL, -1, out, lfd);
	close(lfd);
}

static void victim_running(struct victim *vi)
{
	double t0;
	char *log;
	int fd;

	wait_path(vi->progress, vi->recorder, 60);
	fd = open(vi->progress, O_RDONLY);
	cr_assert_geq(fd, 0);
	/* Created, then sized: a mapping beyond its end would be SIGBUS. */
	t0 = now();
	for (struct stat sb; fstat(fd, &sb) == 0 && sb.st_size < EMIT_MAX_THREADS * 8;) {
		cr_assert_lt(now() - t0, 60, "%s is not sized", vi->progress);
		usleep(200);
	}
	vi->prog = mmap(NULL, EMIT_MAX_THREADS * 8, PROT_READ, MAP_SHARED, fd, 0);
	cr_assert_neq(vi->prog, MAP_FAILED);
	close(fd);
	for (t0 = now(); !vi->prog[0] && !vi->prog[1];) {
		cr_assert_lt(now() - t0, 60, "the program emitted nothing in 60 s");
		usleep(200);
	}
	for (t0 = now(); !(log = slurp(vi->log_path)) || !strstr(log, ", region /"); free(log)) {
		cr_assert_lt(now() - t0, 60, "the recorder names no region in 60 s");
		usleep(1000);
	}
	free(log);
}

/* The recorder is dead (status @st): the program too, after @linger_us. */
static void victim_dead(struct victim *vi, int st, useconds_t linger_us)
{
	const char *p;

	vi->log = slurp(vi->log_path);
	cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "the recorder was not killed "
		  "(status 0x%x):\n%s", st, vi->log ? vi->log : "");
	vi->region = strdup(region_of(vi->log));
	p = strstr(vi->log, "(pid ");
	cr_assert_not_null(p, "%s", vi->log);
	vi->program = (pid_t)strtol(p + 5, NULL, 10);
	cr_assert_gt(vi->program, 1, "%s", vi->log);
	/* It runs on into its ring (its writers drop); then it dies too. */
	usleep(linger_us);
	kill(vi->program, SIGKILL);
	wait_exit(vi->program, 60, "the traced program");	/* ours: we are its subreaper */
	for (uint32_t t = 0; t < 2; t++) {
		vi->done[t] = vi->prog[t];
		vi->sum += vi->done[t];
		if (vi->done[t] + 1 > vi->cap)
			vi->cap = vi->done[t] + 1;
	}
	munmap((void *)vi->prog, EMIT_MAX_THREADS * 8);
}

/*
 * The recorder's trace @traces (read into @v before) and the recovered one
 * hold every event the program committed, once, or count it dropped; no
 * packet is missing, no event was never committed.
 */
static void victim_accounted(const struct victim *vi, const struct tv *v, const char *what,
			     const char *rlog)
{
	uint64_t total = v->all.emit_events + v->all.lost_events;

	for (uint32_t t = 0; t < 2; t++)
		cr_assert(!v->present[t] || v->max[t] <= vi->done[t], "%s: thread %u had committed %"
			  PRIu64 " events, the traces have seq %" PRIu64, what, t, vi->done[t],
			  v->max[t]);
	cr_assert(total >= vi->sum && total <= vi->sum + 2, "%s: %" PRIu64 " events committed (+ "
		  "up to 2 in flight), the traces have %" PRIu64 " and count %" PRIu64 " lost\n%s\n"
		  "%s", what, vi->sum, v->all.emit_events, v->all.lost_events, vi->log, rlog);
	cr_assert_eq(v->all.lost_packets, 0, "%s: a packet is in neither trace\n%s\n%s", what,
		     vi->log, rlog);
}

static void victim_free(struct victim *vi)
{
	if (vi->region)
		remove_region(vi->region);
	unlink(vi->progress);
	free(vi->log_path);
	free(vi->progress);
	free(vi->log);
	free(vi->region);
}


/*
 * The recorder (not the program) is SIGKILLed at a random moment, with its
 * write-behind queue holding a random amount: `ringtrace recover` must put
 * every packet the queue had taken from the ring into a trace, exactly once
 * with the recorder's trace, which it cuts back to whole packets.  Four
 * kinds of trial, in turn: a writer at full speed into a directory, a
 * paced one, a writer into `-o -` read by a reader that pauses (the queue
 * fills), and rotation.
 */
enum { KILL_FILES, KILL_PACED, KILL_PIPE, KILL_ROTATE, KILL_KINDS };

struct kill_figures {
	uint64_t trials, events, lost, from_queue, cut, ambiguous;
};

/* A number from a recover log: the figure before @what. */
static uint64_t figure_before(const char *log, const char *what)
{
	const char *p = strstr(log, what);

	if (!p)
		return 0;
	while (p > log && p[-1] == ' ')
		p--;
	while (p > log && p[-1] >= '0' && p[-1] <= '9')
		p--;
	return strtoull(p, NULL, 10);
}

static void kill_trial(const char *dir, unsigned trial, unsigned *seed, struct kill_figures *f)
{
	int kind = (int)(trial % KILL_KINDS);
	char *out = strdup(P("%s/out-%u", dir, trial));
	char *rec = strdup(P("%s/rec-%u", dir, trial));
	char *stream = strdup(P("%s/stream-%u", dir, trial));
	char *rargv[16], *eargv[3] = { NULL }, *rlog, pause[32];
	int n = 0, pfd[2] = { -1, -1 }, st, fd = -1;
	pid_t reader = -1;
	struct victim vi;
	struct tv *v;

	rargv[n++] = "-o";
	rargv[n++] = kind == KILL_PIPE ? "-" : out;
	rargv[n++] = "--packet-size";
	rargv[n++] = "64k";
	rargv[n++] = "--packets";
	rargv[n++] = "8";
	rargv[n++] = "--buffer-size";
	rargv[n++] = kind == KILL_PIPE ? "8M" : "2M";
	rargv[n++] = "--flush-interval";
	rargv[n++] = "20ms";
	if (kind == KILL_ROTATE) {
		rargv[n++] = "--rotate-size";
		rargv[n++] = "256k";
	}
	rargv[n] = NULL;
	if (kind != KILL_FILES) {
		eargv[0] = "--pace";
		eargv[1] = kind == KILL_PACED ? "16:100" : "64:50";
	}
	if (kind == KILL_PIPE) {
		/* The reader: nothing for a while, then all of it. */
		char *sargv[] = { "/bin/sh", "-c", pause, NULL };

		snprintf(pause, sizeof(pause), "sleep 0.%03u; exec cat", rand_r(seed) % 400);
		cr_assert_eq(pipe2(pfd, O_CLOEXEC), 0);
		fd = open(stream, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		cr_assert_geq(fd, 0);
		reader = spawn(sargv, NULL, pfd[0], fd, -1);
		close(pfd[0]);
		close(fd);
	}
	victim_start(&vi, dir, trial, NULL, rargv, eargv, pfd[1]);
	if (pfd[1] >= 0)
		close(pfd[1]);
	/* Recording, then a random moment. */
	victim_running(&vi);
	usleep(rand_r(seed) % 150000);
	cr_assert_eq(kill(vi.recorder, SIGKILL), 0);
	st = wait_exit(vi.recorder, 60, "ringtrace record");
	victim_dead(&vi, st, rand_r(seed) % 50000);
	if (kind == KILL_PIPE) {
		char *clog;

		wait_exit(reader, 60, "the pipe's reader");
		/* What came through the pipe: a cut stream, whose whole packets make a trace. */
		clog = sh(&st, "'%s' consume - -o '%s' < '%s' 2>&1", ringtrace(), out, stream);
		cr_assert(WIFEXITED(st) && WEXITSTATUS(st) <= 1, "consume - of the cut stream:\n%s",
			  clog);
		free(clog);
		unlink(stream);
	}
	rlog = sh(&st, "'%s' recover '%s' -o '%s' 2>&1", ringtrace(), vi.region, rec);
	expect_exit(st, 0, "ringtrace recover", rlog);
	cr_expect_eq(access(P("%s.queue", vi.region), F_OK), -1,
		     "trial %u: recover left the queue file\n%s", trial, rlog);
	v = tv_new(2, vi.cap, false);
	if (strstr(rlog, "being written to the recorder's stream")) {
		/*
		 * Killed in the microsecond of a frame's last byte: the packet
		 * may be in both, and recover says so (consumer.rst).  Each
		 * trace is clean; the two are not one stream.
		 */
		check_clean(out);
		check_clean(rec);
		f->ambiguous++;
		goto done;
	}
	/* The recorder's trace, then the recovered one continuing each stream. */
	if (kind == KILL_ROTATE) {
		tv_read_chunks(v, out, "chunk", trial % 20 == KILL_ROTATE);
	} else if (access(P("%s/metadata", out), F_OK) == 0) {
		struct tv_dir d;

		tv_read(v, out, &d);
		if (trial % 20 < KILL_KINDS)
			bt2_agrees(out, &d);
		check_clean(out);
	}
	v->ndirs = 0;
	{
		struct tv_dir d;

		tv_read(v, rec, &d);
		if (trial % 20 < KILL_KINDS)
			bt2_agrees_on(rec, &d, false);
		check_clean(rec);
	}
	victim_accounted(&vi, v, P("trial %u (kind %d)", trial, kind), rlog);
	f->trials++;
	f->events += v->all.emit_events;
	f->lost += v->all.lost_events;
	f->from_queue += figure_before(rlog, "packets (");
	f->cut += figure_before(rlog, "stream file");
done:
	free(rlog);
	tv_free(v);
	victim_free(&vi);
	free(sh(&st, "rm -rf '%s' '%s'", out, rec));
	free(out);
	free(rec);
	free(stream);
}

/*
 * In the stress suite: 100 kills in `make check` (RTR_KILL_TRIALS says
 * otherwise), and /dev/shm holds no file of theirs afterwards.
 */
Test(stress, a_killed_recorder_loses_nothing_its_queue_held, .timeout = 3600)
{
	char *dir = make_tmpdir("/tmp");
	struct kill_figures f = { 0 };
	const char *env = getenv("RTR_KILL_TRIALS");
	unsigned trials = env ? (unsigned)strtoul(env, NULL, 10) : 100;
	unsigned seed = (unsigned)time(NULL) ^ (unsigned)getpid();

	cr_log_info("kill trials: seed %u", seed);
	/* The recorder's program becomes ours when it dies: reaped at once, not by init. */
	cr_assert_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	for (unsigned i = 0; i < trials; i++)
		kill_trial(dir, i, &seed, &f);
	fprintf(stderr, "  kill: %" PRIu64 " recorders killed, %" PRIu64 " events in the traces, "
		"%" PRIu64 " counted dropped by the ring, %" PRIu64 " packets recovered from "
		"queues, %" PRIu64 " stream files cut back, %" PRIu64 " killed in a frame's last "
		"byte\n", f.trials, f.events, f.lost, f.from_queue, f.cut, f.ambiguous);
	cr_expect_leq(f.ambiguous * 20, f.trials, "%" PRIu64 " of %" PRIu64 " kills left a "
		      "packet that may be in both traces", f.ambiguous, f.trials);
	cr_expect_gt(f.from_queue, 0, "no trial killed a recorder whose queue held a packet: "
		     "the test tests nothing");
	rm_rf(dir);
}

/*
 * A dead recorder's queue file is input like any other: one from a real
 * kill, damaged 60 ways (random bytes in the header, the descriptors and
 * the packets; cut short; a descriptor's fields set to extremes), and
 * `ringtrace recover` of its region each time: no crash, no hang, no
 * sanitizer report; a file it refuses is named, left as it is, and the
 * ring is recovered anyway; one it takes gives a trace `check` calls clean.
 */
/*
 * The damaged-queue test's directory and the killed recorder's region, both
 * in /dev/shm (memory): removed after a failed assertion too.
 */
static char dq_dir[PATH_MAX], dq_region[PATH_MAX];

static void damaged_queue_fini(void)
{
	char cmd[3 * PATH_MAX];
	int st;

	if (dq_region[0]) {
		snprintf(cmd, sizeof(cmd), "%s.queue", dq_region);
		unlink(cmd);
		unlink(dq_region);
	}
	if (dq_dir[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dq_dir);
		free(sh(&st, "%s", cmd));
	}
	dq_dir[0] = dq_region[0] = 0;
}

Test(consumer_record, a_damaged_queue_file_is_refused_not_crashed_on, .timeout = 600,
     .fini = damaged_queue_fini)
{
	char *dir = make_tmpdir("/dev/shm"), *region, *qcopy, *rcopy;
	char *rargv[] = { "-o", "-", "--packet-size", "64k", "--packets", "8", "--buffer-size",
			  "2M", NULL };
	char *eargv[] = { "--pace", "64:100", NULL };
	unsigned seed = 4242;
	int pfd[2], st, refused = 0, taken = 0;
	struct victim vi;
	size_t qlen;

	snprintf(dq_dir, sizeof(dq_dir), "%s", dir);
	cr_assert_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	cr_assert_eq(pipe2(pfd, O_CLOEXEC), 0);
	victim_start(&vi, dir, 0, NULL, rargv, eargv, pfd[1]);
	close(pfd[1]);
	/* Nobody reads: the queue fills, its packets never written. */
	victim_running(&vi);
	/*
	 * Until the queue holds two packets of one CPU (the swapped-numbers
	 * trial below needs them; a slow machine takes more than a second).
	 */
	{
		char *log = slurp(vi.log_path), *q = strdup(P("%s.queue", region_of(log)));
		bool two = false;

		for (double t0 = now(); !two; usleep(20000)) {
			uint32_t held[2] = { 0 };
			struct rtr_qfile_hdr h;
			int fd = open(q, O_RDONLY);

			cr_assert_lt(now() - t0, 60, "the queue never held two packets of one CPU");
			if (fd < 0)
				continue;
			if (pread(fd, &h, sizeof(h), 0) == (ssize_t)sizeof(h))
				for (uint64_t i = 0; i < h.nslots && i < 4096 && !two; i++) {
					struct rtr_qfile_slot sl;

					if (pread(fd, &sl, sizeof(sl), RTR_QFILE_HDR +
						  (off_t)(i * sizeof(sl))) != (ssize_t)sizeof(sl))
						break;
					if (sl.state == RTR_QSLOT_QUEUED && sl.cpu < 2)
						two = ++held[sl.cpu] >= 2;
				}
			close(fd);
		}
		free(q);
		free(log);
	}
	kill(vi.recorder, SIGKILL);
	victim_dead(&vi, wait_exit(vi.recorder, 60, "ringtrace record"), 0);
	close(pfd[0]);
	region = vi.region;
	snprintf(dq_region, sizeof(dq_region), "%s", region);
	qcopy = strdup(P("%s/pristine.queue", dir));
	rcopy = strdup(P("%s/r", dir));
	free(sh(&st, "cp '%s.queue' '%s' && cp '%s' '%s'", region, qcopy, region, rcopy));
	cr_assert_eq(st, 0);
	{
		struct stat sb;

		cr_assert_eq(stat(qcopy, &sb), 0);
		qlen = (size_t)sb.st_size;
	}
	for (int trial = 0; trial < 60; trial++) {
		char *q = strdup(P("%s.queue", rcopy)), *out;
		int fd;

		free(sh(&st, "rm -rf '%s/rec'; cp --sparse=always '%s' '%s'", dir, qcopy, q));
		fd = open(q, O_RDWR);
		cr_assert_geq(fd, 0);
		switch (trial % 6) {
		case 0:		/* the header */
			for (int k = 0; k < 1 + trial % 5; k++) {
				uint8_t b = (uint8_t)(1 + rand_r(&seed) % 255);

				cr_assert_eq(pwrite(fd, &b, 1, rand_r(&seed) % 4096), 1);
			}
			break;
		case 1:		/* the first descriptors */
			for (int k = 0; k < 1 + trial % 9; k++) {
				uint8_t b = (uint8_t)(1 + rand_r(&seed) % 255);

				cr_assert_eq(pwrite(fd, &b, 1, 4096 + rand_r(&seed) % 8192), 1);
			}
			break;
		case 2: {	/* a descriptor's field at an extreme */
			uint64_t v = trial & 8 ? UINT64_MAX : (uint64_t)1 << 62;
			off_t at = 4096 + (off_t)(rand_r(&seed) % 128) * 64 + 8 * (rand_r(&seed) % 7);

			cr_assert_eq(pwrite(fd, &v, 8, at), 8);
			break;
		}
		case 3:		/* cut short */
			cr_assert_eq(ftruncate(fd, (off_t)(rand_r(&seed) % (qlen / 2))), 0);
			break;
		case 4: {	/* the packets: garbage at the arena's start */
			uint8_t junk[512];

			for (size_t k = 0; k < sizeof(junk); k++)
				junk[k] = (uint8_t)rand_r(&seed);
			cr_assert_eq(pwrite(fd, junk, sizeof(junk), 4096 + 8192 +
					    (off_t)(rand_r(&seed) % 65536)), (ssize_t)sizeof(junk));
			break;
		}
		default:	/* untouched: taken whole */
			break;
		}
		close(fd);
		out = sh(&st, "timeout 60 '%s' recover '%s' -o '%s/rec' 2>&1", ringtrace(), rcopy, dir);
		cr_assert(WIFEXITED(st) && WEXITSTATUS(st) <= 1, "trial %d: recover crashed or "
			  "hung (status 0x%x):\n%s", trial, st, out);
		cr_assert_null(strstr(out, "Sanitizer"), "trial %d:\n%s", trial, out);
		if (access(q, F_OK) == 0) {
			cr_assert_not_null(strstr(out, q), "trial %d: the queue file is left and not "
					   "named:\n%s", trial, out);
			refused++;
		} else {
			taken++;
		}
		/*
		 * Packets whose bodies were scribbled on are taken as a ring's
		 * would be (the consumer copies records, readers check them):
		 * check names that damage; everything else comes out clean.
		 */
		if (WEXITSTATUS(st) == 0 && trial % 6 != 4) {
			check_clean(P("%s/rec", dir));
		} else if (WEXITSTATUS(st) == 0) {
			char *c = sh(&st, "timeout 60 '%s' check '%s/rec' 2>&1", ringtrace(), dir);

			cr_assert(WIFEXITED(st) && WEXITSTATUS(st) <= 1, "trial %d: check crashed:\n%s",
				  trial, c);
			free(c);
		}
		if (trial % 6 == 5)
			cr_assert_null(strstr(out, "not a write-behind queue"), "trial %d: the "
				       "untouched file was refused:\n%s", trial, out);
		unlink(q);
		free(q);
		free(out);
	}
	cr_expect_gt(refused, 10, "damage refused %d times of 60: the file is hardly checked",
		     refused);
	/*
	 * Two packets of one CPU with their numbers swapped: each descriptor
	 * is sound alone; taken in that order, the stream would go backwards.
	 */
	{
		char *q = strdup(P("%s.queue", rcopy)), *out;
		struct rtr_qfile_slot sl, a = { 0 };
		uint64_t ai = 0, bi = 0, nslots;
		int fd;

		free(sh(&st, "rm -rf '%s/rec'; cp --sparse=always '%s' '%s'", dir, qcopy, q));
		fd = open(q, O_RDWR);
		cr_assert_geq(fd, 0);
		{
			struct rtr_qfile_hdr h;

			cr_assert_eq(pread(fd, &h, sizeof(h), 0), (ssize_t)sizeof(h));
			nslots = h.nslots;
		}
		/* the first two queued packets of any one CPU (the wait above saw some) */
		{
			struct rtr_qfile_slot first[2] = { { 0 } };
			uint64_t fi[2] = { 0 };
			bool seen[2] = { false, false };

			for (uint64_t i = 0; i < nslots && !bi; i++) {
				cr_assert_eq(pread(fd, &sl, sizeof(sl),
						   RTR_QFILE_HDR + i * sizeof(sl)), (ssize_t)sizeof(sl));
				if (sl.state != RTR_QSLOT_QUEUED || sl.cpu >= 2)
					continue;
				if (!seen[sl.cpu]) {
					seen[sl.cpu] = true;
					first[sl.cpu] = sl;
					fi[sl.cpu] = i;
				} else {
					a = first[sl.cpu];
					ai = fi[sl.cpu];
					bi = i;
				}
			}
		}
		cr_assert_neq(bi, 0, "no two packets of one CPU held in the queue");
		cr_assert_eq(pread(fd, &sl, sizeof(sl), RTR_QFILE_HDR + bi * sizeof(sl)),
			     (ssize_t)sizeof(sl));
		cr_assert_eq(pwrite(fd, &sl.order, 8, RTR_QFILE_HDR + ai * sizeof(sl) + 8), 8);
		cr_assert_eq(pwrite(fd, &a.order, 8, RTR_QFILE_HDR + bi * sizeof(sl) + 8), 8);
		close(fd);
		out = sh(&st, "timeout 60 '%s' recover '%s' -o '%s/rec' 2>&1", ringtrace(), rcopy, dir);
		cr_assert(WIFEXITED(st) && WEXITSTATUS(st) <= 1, "recover crashed:\n%s", out);
		cr_assert_not_null(strstr(out, "not a write-behind queue"), "packets swapped in "
				   "the queue's order were taken:\n%s", out);
		cr_assert_not_null(strstr(out, "after packet"), "%s", out);
		cr_assert_eq(access(q, F_OK), 0, "the refused queue file was removed");
		if (WEXITSTATUS(st) == 0)
			check_clean(P("%s/rec", dir));
		unlink(q);
		free(q);
		free(out);
	}
	cr_expect_geq(taken, 10);
	unlink(P("%s.queue", region));
	victim_free(&vi);
	free(qcopy);
	free(rcopy);
	rm_rf(dir);
}

/*
 * A memory cgroup of our own under the one we are in (v2, or v1's memory
 * controller), limited to @bytes: its directory, or NULL if this machine
 * gives us none (not root, no controller).
 */
static char *memory_cgroup(uint64_t bytes, const char **limit_file, const char **oom_file)
{
	char line[512], *dir = NULL, *base = NULL;
	FILE *f = fopen("/proc/self/cgroup", "r");

	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		char *path = strrchr(line, ':');

		if (!path)
			continue;
		path[strcspn(path, "\n")] = 0;
		if (strstr(line, ":memory:")) {
			base = strdup(P("/sys/fs/cgroup/memory%s", path + 1));
			*limit_file = "memory.limit_in_bytes";
			*oom_file = "memory.oom_control";
			break;
		}
		if (!strncmp(line, "0::", 3) && access("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0) {
			base = strdup(P("/sys/fs/cgroup%s", path + 1));
			*limit_file = "memory.max";
			*oom_file = "memory.events";
		}
	}
	fclose(f);
	if (!base)
		return NULL;
	dir = strdup(P("%s/rtr-oom-%d", base, (int)getpid()));
	free(base);
	if (mkdir(dir, 0700) < 0) {
		free(dir);
		return NULL;
	}
	f = fopen(P("%s/%s", dir, *limit_file), "w");
	if (!f || fprintf(f, "%" PRIu64 "\n", bytes) < 0 || fclose(f)) {
		rmdir(dir);
		free(dir);
		return NULL;
	}
	return dir;
}

/*
 * The recorder killed by the OOM killer: in a 48 MiB memory cgroup, it
 * writes to a pipe nobody reads, so its write-behind queue (its file in
 * /dev/shm, charged to it) grows until the kernel kills it.  Then the pipe
 * is read, the program killed, and recover must give back every committed
 * event, as for a SIGKILL.
 */
Test(stress, a_recorder_the_oom_killer_kills_loses_nothing, .timeout = 600)
{
	const char *limit_file = NULL, *oom_file = NULL;
	char *cg = memory_cgroup(48ull << 20, &limit_file, &oom_file);
	char *rargv[] = { "-o", "-", "--packet-size", "64k", "--packets", "8", NULL };
	char *eargv[] = { "--pace", "64:20", NULL };
	char *dir, *rlog, *oom, script[PATH_MAX + 64], buf[65536];
	struct victim vi;
	struct tv *v;
	int pfd[2], fd, st;
	ssize_t got;

	if (!cg)
		cr_skip_test("no memory cgroup of our own here (root and a memory controller "
			     "needed): the OOM case is not tested");
	dir = make_tmpdir("/tmp");
	cr_assert_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	snprintf(script, sizeof(script), "echo $$ > '%s/cgroup.procs' && exec \"$@\"", cg);
	cr_assert_eq(pipe2(pfd, O_CLOEXEC), 0);
	victim_start(&vi, dir, 0, script, rargv, eargv, pfd[1]);
	close(pfd[1]);
	/* Nobody reads the pipe: the queue grows until the kernel kills the recorder. */
	victim_running(&vi);
	victim_dead(&vi, wait_exit(vi.recorder, 300, "ringtrace record in a 48 MiB cgroup"), 0);
	oom = sh(&st, "cat '%s/%s'", cg, oom_file);	/* its size says 0: read it whole */
	cr_assert(oom && strstr(oom, "oom_kill ") && !strstr(oom, "oom_kill 0"),
		  "the recorder died, but not by the OOM killer:\n%s", oom ? oom : "");
	free(oom);
	/* What the pipe holds, then what recover takes. */
	fd = open(P("%s/stream", dir), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	cr_assert_geq(fd, 0);
	while ((got = read(pfd[0], buf, sizeof(buf))) > 0)
		cr_assert_eq(write(fd, buf, (size_t)got), got);
	close(fd);
	close(pfd[0]);
	free(sh(&st, "'%s' consume - -o '%s/piped' < '%s/stream' 2>&1", ringtrace(), dir, dir));
	rlog = sh(&st, "'%s' recover '%s' -o '%s/rec' 2>&1", ringtrace(), vi.region, dir);
	expect_exit(st, 0, "ringtrace recover", rlog);
	cr_expect_neq(strstr(rlog, "from the write-behind queue"), NULL, "%s", rlog);
	cr_expect_eq(access(P("%s.queue", vi.region), F_OK), -1, "the queue file is left:\n%s",
		     rlog);
	v = tv_new(2, vi.cap, false);
	/* Killed in the microsecond of a frame's last byte: not one stream (consumer.rst). */
	if (strstr(rlog, "being written to the recorder's stream")) {
		cr_log_warn("the OOM killer struck in a frame's last byte: both traces checked "
			    "alone");
		check_clean(P("%s/piped", dir));
		check_clean(P("%s/rec", dir));
		goto done;
	}
	if (access(P("%s/piped/metadata", dir), F_OK) == 0)
		tv_read(v, P("%s/piped", dir), &(struct tv_dir){ 0 });
	v->ndirs = 0;
	tv_read(v, P("%s/rec", dir), &(struct tv_dir){ 0 });	/* babeltrace2: the kill loop */
	check_clean(P("%s/rec", dir));
	victim_accounted(&vi, v, "the OOM-killed recorder", rlog);
	fprintf(stderr, "  oom: the recorder killed by the OOM killer; %" PRIu64 " events "
		"recovered, %" PRIu64 " counted dropped\n", v->all.emit_events, v->all.lost_events);
done:
	tv_free(v);
	victim_free(&vi);
	free(rlog);
	rmdir(cg);
	free(cg);
	rm_rf(dir);
}

/* ---- 5. streaming through a pipe, and rotation ---------------------------- */

/*
 * 4 threads x 3000 events pinned two per CPU, into 1 MiB per CPU: the ring
 * cannot fill, so every event must arrive, whatever the consumer's speed.
 */
#define NOLOSS_THREADS 4
#define NOLOSS_EVENTS 3000
#define NOLOSS_ARGS "--packet-size", "64k", "--packets", "16"
#define NOLOSS_EMIT "--threads", "4", "--events", "3000", "--pin"

/*
 * record -o - of 2 threads x @events (paced, about 28 MB/s each: a recorder
 * keeps up, even delayed 0.1 s on a loaded machine) into a reader that reads
 * nothing until the program has finished: the ring (4 MiB per CPU) alone
 * would overflow; the write-behind queue of @queue holds the stall.  The stream
 * is then turned into a trace and every event checked.  Return: the events
 * the trace counts lost (and *@present those in it).
 */
static uint64_t piped(const char *dir, const char *queue, const char *ring, uint64_t events,
		      const char *reader, uint64_t *present)
{
	char *log, *out, ev[32];
	struct tv *v = tv_new(2, events, true);
	uint64_t lost;
	int st;

	snprintf(ev, sizeof(ev), "%" PRIu64, events);
	mkdir(P("%s/sync", dir), 0700);
	touch(P("%s/sync/go.0", dir));
	/* The reader: nothing until the program's report is there, then all of it. */
	out = sh(&st, "cd '%s' && ('%s' record -o - --packet-size 64k --packets %s --buffer-size %s "
		 "-- '%s' --threads 2 --events %s --pin --pace 100:100 --sync sync 2>rec.log; "
		 "echo rec=$? >>rec.log) | (%s) >stream; cat rec.log; "
		 "'%s' consume - -o trace <stream >cons.log 2>&1; echo cons=$?",
		 dir, ringtrace(), ring, queue, emit_path(), ev, reader, ringtrace());
	log = out;
	cr_assert_not_null(strstr(log, "rec=0"), "%s", log);
	cr_assert_not_null(strstr(log, "cons=0"), "%s", log);
	tv_read_all(v, P("%s/trace", dir));
	/* What the recorder says is what the trace says. */
	cr_expect_eq(reported_lost(log), v->all.lost_events, "%s", log);
	cr_expect_eq(v->all.emit_events + v->all.lost_events, 2 * events,
		     "%" PRIu64 " events in the trace, %" PRIu64 " counted lost, of %" PRIu64,
		     v->all.emit_events, v->all.lost_events, 2 * events);
	cr_expect_eq(v->all.lost_packets, 0, "discard mode loses events, not packets");
	*present = v->all.emit_events;
	lost = v->all.lost_events;
	free(out);
	tv_free(v);
	return lost;
}

/* The same into a reader that reads nothing until the program has finished. */
static uint64_t stalled_pipe(const char *dir, const char *queue, uint64_t events,
			     uint64_t *present)
{
	return piped(dir, queue, "64", events,
		     "until [ -e sync/report ]; do sleep 0.05; done; cat", present);
}

/*
 * The write-behind queue: a stalled output below the queue's capacity loses
 * nothing; above it, the ring's rules apply and the loss is counted exactly.
 */
Test(consumer_record, a_stalled_output_below_the_queue_loses_nothing)
{
	char *dir = make_tmpdir("/dev/shm");
	uint64_t present;

	/* 2 x 500000 events of 28 bytes, 28 MB: well within 64 MiB. */
	cr_expect_eq(stalled_pipe(dir, "64M", 500000, &present), 0, "events lost");
	cr_expect_eq(present, 1000000);
	rm_rf(dir);
}

Test(consumer_record, a_stalled_output_above_the_queue_counts_its_loss)
{
	char *dir = make_tmpdir("/dev/shm");
	uint64_t present, lost;

	/* The same 28 MB into 1 MiB of queue and 8 MiB of ring: many dropped, counted. */
	lost = stalled_pipe(dir, "1M", 500000, &present);
	cr_expect_gt(lost, 0, "a 1 MiB queue held a 28 MB stall");
	cr_expect_gt(present, 0);
	rm_rf(dir);
}

/*
 * A reader that takes one 64 KiB packet every 20 ms (3 MB/s) while the
 * program writes 11 MB at about 50 MB/s into a ring of 8 x 64 KiB per CPU:
 * the queue of 16 MiB holds what the reader has not taken, freed one packet
 * at a time at its front.  The queue placed each next packet in the one
 * packet's gap so made, alternating with the top, a run each, and refused
 * packets with 5 of its 16 MiB in use; it must fill before it refuses.
 */
Test(consumer_record, a_slow_reader_has_the_whole_queue)
{
	char *dir = make_tmpdir("/dev/shm");
	uint64_t present;

	cr_expect_eq(piped(dir, "16M", "8", 200000,
			   "/usr/bin/python3 -c 'import os, sys, time\n"
			   "buf = bytearray(65536)\n"
			   "while True:\n"
			   "    n = os.readv(0, [buf])\n"
			   "    if not n: break\n"
			   "    sys.stdout.buffer.write(buf[:n]); sys.stdout.flush(); time.sleep(0.02)\n'",
			   &present),
		     0, "events lost");
	cr_expect_eq(present, 400000);
	rm_rf(dir);
}

/*
 * Blocking mode: four writers at full speed, a ring of 4 x 16 KiB per CPU,
 * a queue of 1 MiB and a reader that takes at most 20 MiB/s: the writers
 * wait for room instead of dropping, and every event is there, checked.
 */
Test(consumer_record, blocking_mode_loses_nothing_to_a_slow_reader)
{
	char *dir = make_tmpdir("/dev/shm"), *out;
	struct tv *v = tv_new(4, 100000, true);
	int st;

	out = sh(&st, "cd '%s' && ('%s' record -o - --packet-size 16k --packets 4 --buffer-size 1M "
		 "--blocking-timeout inf -- '%s' --threads 4 --events 100000 --pin 2>rec.log; "
		 "echo rec=$? >>rec.log) | /usr/bin/python3 -c '"
		 "import os, sys, time\n"
		 "while True:\n"
		 "    b = os.read(0, 1 << 20)\n"
		 "    if not b: break\n"
		 "    sys.stdout.buffer.write(b); sys.stdout.flush(); time.sleep(0.05)\n"
		 "' >stream; cat rec.log; '%s' consume - -o trace <stream 2>&1; echo cons=$?",
		 dir, ringtrace(), emit_path(), ringtrace());
	cr_assert_not_null(strstr(out, "rec=0"), "%s", out);
	cr_assert_not_null(strstr(out, "cons=0"), "%s", out);
	cr_expect_eq(reported_lost(out), 0, "%s", out);
	tv_read_all(v, P("%s/trace", dir));
	expect_all(v, 100000);
	free(out);
	tv_free(v);
	rm_rf(dir);
}

Test(consumer_record, a_pipe_carries_the_same_events_as_a_direct_record)
{
	char *dir = make_tmpdir("/dev/shm"), *log1, *log2;
	struct tv *direct = tv_new(NOLOSS_THREADS, NOLOSS_EVENTS, true);
	struct tv *piped = tv_new(NOLOSS_THREADS, NOLOSS_EVENTS, true);
	int pfd[2], l1, l2, st1, st2;
	pid_t w, r;

	{
		char *argv[] = { ringtrace(), "record", "-o", P("%s/direct", dir), NOLOSS_ARGS,
				 "--", emit_path(), NOLOSS_EMIT, NULL };

		l1 = open_log(P("%s/direct.log", dir));
		st1 = wait_exit(spawn(argv, NULL, -1, -1, l1), 300, "ringtrace record");
		close(l1);
		log1 = slurp(P("%s/direct.log", dir));
		expect_exit(st1, 0, "ringtrace record", log1);
		free(log1);
	}
	cr_assert_eq(pipe2(pfd, O_CLOEXEC), 0);
	{
		char *wargv[] = { ringtrace(), "record", "-o", "-", NOLOSS_ARGS, "--", emit_path(),
				  NOLOSS_EMIT, NULL };
		char *rargv[] = { ringtrace(), "consume", "-", "-o", P("%s/piped", dir), NULL };

		l1 = open_log(P("%s/writer.log", dir));
		l2 = open_log(P("%s/reader.log", dir));
		w = spawn(wargv, NULL, -1, pfd[1], l1);
		r = spawn(rargv, NULL, pfd[0], -1, l2);
		close(pfd[0]);
		close(pfd[1]);
		close(l1);
		close(l2);
	}
	st1 = wait_exit(w, 300, "ringtrace record -o -");
	st2 = wait_exit(r, 300, "ringtrace consume -");
	log1 = slurp(P("%s/writer.log", dir));
	log2 = slurp(P("%s/reader.log", dir));
	expect_exit(st1, 0, "ringtrace record -o -", log1);
	expect_exit(st2, 0, "ringtrace consume -", log2);
	tv_read_all(direct, P("%s/direct", dir));
	tv_read_all(piped, P("%s/piped", dir));
	expect_all(direct, NOLOSS_EVENTS);
	expect_all(piped, NOLOSS_EVENTS);
	cr_expect_eq(piped->all.digest, direct->all.digest);
	cr_expect_eq(piped->all.emit_events, direct->all.emit_events);
	for (int c = 0; c < MAXCPU; c++)
		cr_expect_eq(piped->emit_cpu[c], direct->emit_cpu[c], "cpu %d", c);
	free(log1);
	free(log2);
	tv_free(direct);
	tv_free(piped);
	rm_rf(dir);
}

/*
 * The writer of the stream dies (SIGKILL) while the program runs: the reader
 * says the stream was cut, and what arrived is a valid trace.
 */
Test(consumer_record, a_cut_stream_leaves_a_valid_trace_and_says_so)
{
	char *dir = make_tmpdir("/dev/shm"), *log, *pidtext;
	struct tv *v = tv_new(2, 1u << 26, true);
	int pfd[2], l1, l2, st;
	struct stat sb;
	pid_t w, r;
	double t0;

	mkdir(P("%s/sync", dir), 0700);
	touch(P("%s/sync/go.0", dir));
	cr_assert_eq(pipe2(pfd, O_CLOEXEC), 0);
	{
		char *wargv[] = { ringtrace(), "record", "-o", "-", "--flush-interval", "50ms",
				  "--", emit_path(), "--threads", "2", "--events", "0", "--pin",
				  "--pace", "32:1000", "--sync", P("%s/sync", dir), NULL };
		char *rargv[] = { ringtrace(), "consume", "-", "-o", P("%s/cut", dir), NULL };

		l1 = open_log(P("%s/writer.log", dir));
		l2 = open_log(P("%s/reader.log", dir));
		w = spawn(wargv, NULL, -1, pfd[1], l1);
		r = spawn(rargv, NULL, pfd[0], -1, l2);
		close(pfd[0]);
		close(pfd[1]);
		close(l1);
		close(l2);
	}
	/* Packets have arrived: a stream file with something in it. */
	t0 = now();
	while (!((stat(P("%s/cut/stream_0", dir), &sb) == 0 && sb.st_size > 0) ||
		 (stat(P("%s/cut/stream_1", dir), &sb) == 0 && sb.st_size > 0))) {
		cr_assert_lt(now() - t0, 60, "nothing came through the pipe in 60 s");
		usleep(5000);
	}
	cr_assert_eq(kill(w, SIGKILL), 0);
	wait_exit(w, 60, "ringtrace record -o -");
	pidtext = slurp(P("%s/sync/pid", dir));
	cr_assert_not_null(pidtext);
	kill(atoi(pidtext), SIGKILL);	/* it dies with its recorder anyway */
	free(pidtext);
	log = slurp(P("%s/writer.log", dir));
	remove_region(region_of(log));
	free(log);
	st = wait_exit(r, 60, "ringtrace consume - (cut stream)");
	log = slurp(P("%s/reader.log", dir));
	expect_exit(st, 1, "ringtrace consume - (cut stream)", log);
	cr_expect_not_null(strstr(log, "standard input: the stream was cut"), "%s", log);
	cr_expect_not_null(strstr(log, "what came before is a valid trace"), "%s", log);
	tv_read_all(v, P("%s/cut", dir));
	cr_expect_gt(v->all.emit_events, 0);
	for (uint32_t t = 0; t < 2; t++)
		cr_expect(!v->present[t] || v->min[t] == 0 || v->all.lost_events,
			  "thread %u starts at seq %" PRIu64, t, v->min[t]);
	free(log);
	tv_free(v);
	rm_rf(dir);
}

/*
 * Counters registered while the recorder drains, 400 of them, rotation every
 * 16 KiB: each chunk's metadata names every counter its events set (the
 * registry is read after each packet is taken, not once per pass).
 */
Test(consumer_record, each_chunk_names_the_counters_registered_while_it_was_written)
{
	/* On a disk: slow writes, long drain passes (on tmpfs the window is too short to see). */
	char *dir = make_tmpdir("/tmp"), *out;
	int st;

	/* A small ring: big drain passes.  Events lost under load are not a failure here. */
	out = sh(&st, "cd '%s' && '%s' record -q -o t --packet-size 4k --packets 16 "
		 "--rotate-size 16k --flush-interval 50ms -- '%s' --threads 2 --events 100000 "
		 "--counters 400 --pace 100:1000 && for c in t/chunk-*; do '%s' dump $c "
		 "2>/dev/null | grep ' counter: '; done >counters.txt; "
		 "echo set=$(wc -l <counters.txt) unnamed=$(grep -vc 'counter = c[0-9]* (' counters.txt)",
		 dir, ringtrace(), emit_path(), ringtrace());
	cr_expect_eq(st, 0, "%s", out);
	cr_expect_not_null(strstr(out, " unnamed=0"), "%s", out);
	cr_expect_null(strstr(out, "set=0 "), "no counter in the trace: %s", out);
	free(out);
	rm_rf(dir);
}

/*
 * `consume -` stops on SIGINT or SIGTERM, whether it waits on a quiet pipe
 * or copies a stream: exit 128 + the signal, the trace up to there valid and
 * marked stopped.
 */
Test(consumer_record, consume_stdin_stops_on_a_signal)
{
	char *dir = make_tmpdir("/dev/shm"), *out;
	int st;

	/* A writer that sends nothing: consume blocks in read(). */
	out = sh(&st, "cd '%s' && mkfifo q && (sleep 30 >q & echo $! >spid) && "
		 "('%s' consume - -o quiet <q 2>quiet.log & echo $! >cpid; wait $!; "
		 "echo status=$? >>quiet.log) & "
		 "cd '%s'; sleep 0.5; kill -INT $(cat cpid); "
		 "for i in $(seq 100); do grep -q status= quiet.log && break; sleep 0.05; done; "
		 "cat quiet.log; kill $(cat spid); cat quiet/.ringtrace-state",
		 dir, ringtrace(), dir);
	cr_expect_not_null(strstr(out, "status=130"), "%s", out);
	cr_expect_not_null(strstr(out, "interrupted before the stream began"), "%s", out);
	cr_expect_not_null(strstr(out, "state stopped"), "%s", out);
	free(out);
	/* A stream flowing: SIGTERM; what came is a trace.  Then the recorder is stopped. */
	out = sh(&st, "cd '%s' && mkfifo s && ('%s' record -o - --flush-interval 50ms -- '%s' "
		 "--threads 2 --events 0 --pace 32:1000 >s 2>rec.log & echo $! >rpid) && "
		 "('%s' consume - -o live <s 2>live.log & echo $! >cpid; wait $!; "
		 "echo status=$? >>live.log) & "
		 "cd '%s'; for i in $(seq 200); do [ -s live/stream_0 ] || [ -s live/stream_1 ] && "
		 "break; sleep 0.05; done; kill -TERM $(cat cpid); "
		 "for i in $(seq 200); do grep -q status= live.log && break; sleep 0.05; done; "
		 "kill -TERM $(cat rpid); while kill -0 $(cat rpid) 2>/dev/null; do sleep 0.05; done; "
		 "reg=$(sed -n 's/.*, region \\(.*\\)$/\\1/p' rec.log); "
		 /* The reader gone, the recorder kept what its queue held beside the region. */
		 "rm -f \"$reg\" \"$reg.queue\"; "
		 "cat live.log; grep '^state' live/.ringtrace-state; '%s' check live >/dev/null; "
		 "echo check=$?",
		 dir, ringtrace(), emit_path(), ringtrace(), dir, ringtrace());
	cr_expect_not_null(strstr(out, "status=143"), "%s", out);
	cr_expect_not_null(strstr(out, "state stopped"), "%s", out);
	cr_expect_not_null(strstr(out, "check=0"), "%s", out);
	free(out);
	rm_rf(dir);
}

/*
 * --rotate-size 16k with 4 KiB packets: tens of chunks; read in order, the
 * streams continue from chunk to chunk with every event exactly once, and
 * each chunk is a trace babeltrace2 reads alone.
 */
Test(consumer_record, rotation_loses_nothing_at_chunk_boundaries)
{
	char *dir = make_tmpdir("/dev/shm"), *log;
	struct tv *v = tv_new(4, 5000, true);
	uint32_t chunks;
	int lfd, st;

	{
		char *argv[] = { ringtrace(), "record", "-o", P("%s/rot", dir), "--packet-size",
				 "4k", "--packets", "256", "--rotate-size", "16k", "--",
				 emit_path(), "--threads", "4", "--events", "5000", "--pin", NULL };

		lfd = open_log(P("%s/record.log", dir));
		st = wait_exit(spawn(argv, NULL, -1, -1, lfd), 300, "ringtrace record --rotate-size");
		close(lfd);
	}
	log = slurp(P("%s/record.log", dir));
	expect_exit(st, 0, "ringtrace record --rotate-size", log);
	chunks = tv_read_chunks(v, P("%s/rot", dir), "chunk", true);
	cr_expect_gt(chunks, 8, "%u chunks", chunks);
	expect_all(v, 5000);
	cr_expect_eq(reported_lost(log), 0);
	free(log);
	tv_free(v);
	rm_rf(dir);
}

/* ---- 3. a hostile region ---------------------------------------------------- */

/*
 * @prog from this runner's build: the ASan runner's is the ASan build.  (A
 * plain runner must not borrow an ASan build beside it: it may be stale.)
 */
static char *asan_tool(const char *prog)
{
	return P("%s/%s", bindir(), prog);
}

/* No sanitizer report, no crash: the status is 0, or 1 with a message. */
static void survived(int st, const char *what, const char *log)
{
	cr_assert(WIFEXITED(st), "%s crashed (signal %d):\n%s", what,
		  WIFSIGNALED(st) ? WTERMSIG(st) : 0, log);
	cr_assert(WEXITSTATUS(st) == 0 || WEXITSTATUS(st) == 1, "%s: exit %d\n%s", what,
		  WEXITSTATUS(st), log);
	if (WEXITSTATUS(st) == 1)
		cr_expect(strlen(log) > 0, "%s failed without a word", what);
	cr_assert_null(strstr(log, "AddressSanitizer"), "%s:\n%s", what, log);
	cr_assert_null(strstr(log, "runtime error"), "%s:\n%s", what, log);
}

/* Write random bytes (and random 64-bit words) into @path for @secs. */
static void scribble(const char *path, double secs, unsigned seed)
{
	uint64_t x = 0x9E3779B97F4A7C15ull ^ seed;
	struct stat st;
	uint8_t *m;
	double t0 = now();
	int fd = open(path, O_RDWR);

	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size < 4096)
		_exit(3);
	m = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		_exit(3);
	while (now() - t0 < secs) {
		for (int i = 0; i < 64; i++) {
			uint64_t off;

			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			/* half in the first 64 KiB (header, registry, control blocks) */
			off = (x >> 8) % (x & 1 ? (uint64_t)st.st_size : 65536 < st.st_size ?
					  65536 : (uint64_t)st.st_size);
			if (x & 2)
				m[off] = (uint8_t)(x >> 32);
			else
				__atomic_store_n((uint64_t *)(m + (off & ~7ull)),
						 x & 4 ? x >> 3 : (x >> 40) % (1u << 20), __ATOMIC_RELAXED);
		}
		usleep(200);
	}
	_exit(0);
}

/*
 * A process scribbles on the region of a running program while `ringtrace
 * consume` (the ASan build when there is one) takes its packets; then
 * `ringtrace recover` reads the scribbled region of the dead program.  They
 * survive every round, say what was damaged, and what they write does not
 * crash `ringtrace check`.
 */
Test(consumer_record, consume_and_recover_survive_a_scribbled_region)
{
	char *dir = make_tmpdir("/dev/shm");
	char *consume = strdup(asan_tool("ringtrace")), *check = strdup(asan_tool("ringtrace"));
	unsigned damage_reports = 0, rounds = 4;

	for (unsigned round = 0; round < rounds; round++) {
		char *region = strdup(P("%s/region-%u", dir, round));
		char *out = strdup(P("%s/out-%u", dir, round));
		char *rec = strdup(P("%s/rec-%u", dir, round));
		char *sync = strdup(P("%s/sync-%u", dir, round));
		char env_path[PATH_MAX + 32];
		const char *env[] = { env_path, "RINGTRACE_PACKET_SIZE=4096", "RINGTRACE_PACKETS=16",
				      round & 1 ? "RINGTRACE_MODE=overwrite" : "RINGTRACE_MODE=discard",
				      NULL };
		char *eargv[] = { emit_path(), "--threads", "2", "--events", "0", "--pace",
				  "16:500", "--sync", sync, NULL };
		char *cargv[] = { consume, "consume", region, "-o", out, "--flush-interval",
				  "50ms", NULL };
		char *log, *pidtext;
		pid_t emit, cons, scrib;
		int lfd, st;
		struct stat sb;

		snprintf(env_path, sizeof(env_path), "RINGTRACE_PATH=%s", region);
		mkdir(sync, 0700);
		touch(P("%s/go.0", sync));
		lfd = open_log(P("%s/emit-%u.log", dir, round));
		emit = spawn(eargv, env, -1, -1, lfd);
		close(lfd);
		wait_path(P("%s/pid", sync), emit, 60);
		lfd = open_log(P("%s/consume-%u.log", dir, round));
		cons = spawn(cargv, NULL, -1, -1, lfd);
		close(lfd);
		/* Let it attach and take a few packets, then scribble. */
		usleep(200000);
		scrib = fork();
		cr_assert_geq(scrib, 0);
		if (scrib == 0)
			scribble(region, 1.5, round * 7919u + (unsigned)getpid());
		st = wait_exit(scrib, 60, "the scribbler");
		cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the scribbler failed: 0x%x", st);
		/* The program may have died of it; if not, it dies now. */
		kill(emit, SIGKILL);
		wait_exit(emit, 60, "the traced program");
		pidtext = slurp(P("%s/pid", sync));
		free(pidtext);

		st = wait_exit(cons, 120, "ringtrace consume on a scribbled region");
		log = slurp(P("%s/consume-%u.log", dir, round));
		survived(st, "ringtrace consume on a scribbled region", log);
		if (strstr(log, "damaged: cpu") || strstr(log, "registry"))
			damage_reports++;
		free(log);
		if (stat(out, &sb) == 0) {
			log = sh(&st, "'%s' check '%s' 2>&1", check, out);
			survived(st, "ringtrace check on what consume wrote", log);
			free(log);
		}

		log = sh(&st, "'%s' recover '%s' -o '%s' 2>&1", consume, region, rec);
		survived(st, "ringtrace recover on a scribbled region", log);
		if (strstr(log, "damaged: cpu") || strstr(log, "damage"))
			damage_reports++;
		free(log);
		if (stat(rec, &sb) == 0) {
			log = sh(&st, "'%s' check '%s' 2>&1", check, rec);
			survived(st, "ringtrace check on what recover wrote", log);
			free(log);
		}
		free(region);
		free(out);
		free(rec);
		free(sync);
	}
	cr_expect_gt(damage_reports, 0, "%u rounds of scribbling and no damage reported", rounds);
	free(consume);
	free(check);
	rm_rf(dir);
}

/*
 * The registry (the event names in the region) turns to garbage after the
 * consumer has described it in the trace's metadata: the classes already
 * written stay, so the packets taken before and after still decode.
 */
Test(consumer_record, a_registry_scribbled_later_keeps_the_metadata_written)
{
	char *dir = make_tmpdir("/dev/shm"), *region, *log;
	struct tv *v = tv_new(2, 1u << 26, true);
	char env_path[PATH_MAX + 32];
	const char *env[] = { env_path, "RINGTRACE_PACKET_SIZE=4096", "RINGTRACE_PACKETS=64",
			      NULL };
	struct rtr_region_hdr *h;
	struct stat sb;
	pid_t emit, cons;
	int fd, lfd, st;
	double t0;

	region = strdup(P("%s/region", dir));
	snprintf(env_path, sizeof(env_path), "RINGTRACE_PATH=%s", region);
	mkdir(P("%s/sync", dir), 0700);
	touch(P("%s/sync/go.0", dir));
	{
		char *eargv[] = { emit_path(), "--threads", "2", "--events", "0", "--pin", "--pace",
				  "16:1000", "--sync", P("%s/sync", dir), NULL };

		lfd = open_log(P("%s/emit.log", dir));
		emit = spawn(eargv, env, -1, -1, lfd);
		close(lfd);
	}
	wait_path(P("%s/sync/pid", dir), emit, 60);
	{
		char *cargv[] = { ringtrace(), "consume", region, "-o", P("%s/out", dir),
				  "--flush-interval", "50ms", NULL };

		lfd = open_log(P("%s/consume.log", dir));
		cons = spawn(cargv, NULL, -1, -1, lfd);
		close(lfd);
	}
	t0 = now();
	while (!((stat(P("%s/out/stream_0", dir), &sb) == 0 && sb.st_size > 0) ||
		 (stat(P("%s/out/stream_1", dir), &sb) == 0 && sb.st_size > 0))) {
		cr_assert_lt(now() - t0, 60, "consume wrote nothing in 60 s");
		usleep(5000);
	}
	/* Garbage over the registry text, and a length that moved. */
	fd = open(region, O_RDWR);
	cr_assert_geq(fd, 0);
	h = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	cr_assert_neq(h, MAP_FAILED);
	{
		char junk[64];
		uint32_t len = h->metadata_len;

		memset(junk, '}', sizeof(junk));
		cr_assert_gt(len, 0);
		cr_assert_eq(pwrite(fd, junk, sizeof(junk), (off_t)h->metadata_off), sizeof(junk));
		__atomic_store_n(&h->metadata_len, len + 1, __ATOMIC_RELEASE);
	}
	munmap(h, 4096);
	close(fd);
	usleep(300000);	/* more packets, under the bad registry */
	kill(emit, SIGKILL);
	wait_exit(emit, 60, "the traced program");
	st = wait_exit(cons, 120, "ringtrace consume");
	log = slurp(P("%s/consume.log", dir));
	expect_exit(st, 0, "ringtrace consume", log);
	cr_expect_not_null(strstr(log, "registry"), "the bad registry is not reported:\n%s", log);
	tv_read_all(v, P("%s/out", dir));
	cr_expect_gt(v->all.emit_events, 0);
	free(log);
	free(region);
	tv_free(v);
	rm_rf(dir);
}

/*
 * The header's producer pid scribbled to name other processes: one that
 * lives on without mapping the region, and the consumer itself.  Neither
 * keeps `consume` waiting once the program is gone (it waited for ever, for
 * a process that was never the producer), and the program, listed among
 * the region's writers, keeps it going while it runs.
 */
Test(consumer_record, a_producer_pid_scribbled_to_another_process_keeps_no_one_waiting)
{
	for (int round = 0; round < 2; round++) {
		char *dir = make_tmpdir("/dev/shm"), *region, *log;
		char env_path[PATH_MAX + 32];
		const char *env[] = { env_path, "RINGTRACE_PACKET_SIZE=4096",
				      "RINGTRACE_PACKETS=64", NULL };
		char *sargv[] = { "/bin/sleep", "600", NULL };
		struct rtr_region_hdr *h;
		struct tv *v = tv_new(2, 1u << 26, false);
		pid_t emit, cons, other;
		int fd, lfd, st;

		region = strdup(P("%s/region", dir));
		snprintf(env_path, sizeof(env_path), "RINGTRACE_PATH=%s", region);
		mkdir(P("%s/sync", dir), 0700);
		touch(P("%s/sync/go.0", dir));
		{
			char *eargv[] = { emit_path(), "--threads", "2", "--events", "0", "--pace",
					  "16:1000", "--sync", P("%s/sync", dir), NULL };

			lfd = open_log(P("%s/emit.log", dir));
			emit = spawn(eargv, env, -1, -1, lfd);
			close(lfd);
		}
		wait_path(P("%s/sync/pid", dir), emit, 60);
		other = spawn(sargv, NULL, -1, -1, -1);
		{
			char *cargv[] = { ringtrace(), "consume", region, "-o", P("%s/out", dir),
					  "--flush-interval", "50ms", NULL };

			lfd = open_log(P("%s/consume.log", dir));
			/* Started stopped, so that its pid is known before it attaches. */
			cons = fork();
			cr_assert_geq(cons, 0);
			if (cons == 0) {
				raise(SIGSTOP);
				prctl(PR_SET_PDEATHSIG, SIGKILL);
				dup2(lfd, 2);
				execv(cargv[0], cargv);
				_exit(127);
			}
			close(lfd);
			cr_assert_eq(waitpid(cons, &st, WUNTRACED), cons);
			cr_assert(WIFSTOPPED(st));
		}
		fd = open(region, O_RDWR);
		cr_assert_geq(fd, 0);
		h = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		cr_assert_neq(h, MAP_FAILED);
		cr_assert_eq(h->producer_pid, (uint32_t)emit);
		__atomic_store_n(&h->producer_pid, (uint32_t)(round ? cons : other),
				 __ATOMIC_RELEASE);
		munmap(h, 4096);
		close(fd);
		kill(cons, SIGCONT);
		/* The program runs on: consume too. */
		usleep(500000);
		cr_assert_eq(waitpid(cons, &st, WNOHANG), 0,
			     "consume stopped while the program ran (status 0x%x)", st);
		kill(emit, SIGKILL);
		wait_exit(emit, 60, "the traced program");
		st = wait_exit(cons, 30, "ringtrace consume, the producer pid another process's");
		log = slurp(P("%s/consume.log", dir));
		expect_exit(st, 0, "ringtrace consume", log);
		tv_read_all(v, P("%s/out", dir));
		cr_expect_gt(v->all.emit_events, 0, "%s", log);
		kill(other, SIGKILL);
		waitpid(other, &st, 0);
		free(log);
		free(region);
		tv_free(v);
		rm_rf(dir);
	}
}

/*
 * A consumer killed while the program runs on (as a Xen guest does), its
 * queue holding packets (its pipe's reader stalled), and a second `consume`
 * of the same region: the second takes the dead one's queue file first,
 * says so and removes it, then goes on with the ring.  What came through
 * the pipe and the second trace hold every event exactly once.
 */
Test(consumer_record, a_restarted_consume_takes_the_dead_ones_queue, .timeout = 300)
{
	char *dir = make_tmpdir("/dev/shm"), *region, *log, *fifo;
	struct tv *v = tv_new(2, 30000, true);
	char env_path[PATH_MAX + 32], buf[65536];
	const char *env[] = { env_path, "RINGTRACE_PACKET_SIZE=4096", "RINGTRACE_PACKETS=64",
			      NULL };
	struct stat sb;
	pid_t emit, c1, c2;
	int ffd, sfd, lfd, st;
	ssize_t got;
	double t0;

	region = strdup(P("%s/region", dir));
	fifo = strdup(P("%s/pipe", dir));
	snprintf(env_path, sizeof(env_path), "RINGTRACE_PATH=%s", region);
	mkdir(P("%s/sync", dir), 0700);
	touch(P("%s/sync/go.0", dir));
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	/* Open both ways and never read until the end: the consumer's writes stall. */
	ffd = open(fifo, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	cr_assert_geq(ffd, 0);
	{
		char *eargv[] = { emit_path(), "--threads", "2", "--events", "30000", "--pin",
				  "--pace", "16:1000", "--sync", P("%s/sync", dir), NULL };

		lfd = open_log(P("%s/emit.log", dir));
		emit = spawn(eargv, env, -1, -1, lfd);
		close(lfd);
	}
	wait_path(P("%s/sync/pid", dir), emit, 60);
	{
		char *cargv[] = { ringtrace(), "consume", region, "-o", "-", "--flush-interval",
				  "50ms", NULL };
		int wfd = open(fifo, O_WRONLY | O_CLOEXEC);

		cr_assert_geq(wfd, 0);
		lfd = open_log(P("%s/c1.log", dir));
		c1 = spawn(cargv, NULL, -1, wfd, lfd);
		close(lfd);
		close(wfd);
	}
	/* Its queue holds packets: the pipe is full, more came. */
	t0 = now();
	while (stat(P("%s.queue", region), &sb) < 0 || sb.st_blocks == 0)
		cr_assert_lt(now() - t0, 30, "the first consumer made no queue file");
	usleep(600000);
	kill(c1, SIGKILL);
	wait_exit(c1, 60, "the first consume");
	{
		char *cargv[] = { ringtrace(), "consume", region, "-o", P("%s/second", dir),
				  "--flush-interval", "50ms", NULL };

		lfd = open_log(P("%s/c2.log", dir));
		c2 = spawn(cargv, NULL, -1, -1, lfd);
		close(lfd);
	}
	/* What the first one's pipe holds. */
	sfd = open(P("%s/first.stream", dir), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	cr_assert_geq(sfd, 0);
	while ((got = read(ffd, buf, sizeof(buf))) > 0)
		cr_assert_eq(write(sfd, buf, (size_t)got), got);
	close(sfd);
	close(ffd);
	st = wait_exit(emit, 120, "the traced program");
	expect_exit(st, 0, "the traced program", NULL);
	st = wait_exit(c2, 120, "the second consume");
	log = slurp(P("%s/c2.log", dir));
	expect_exit(st, 0, "the second consume", log);
	cr_expect_not_null(strstr(log, "a dead consumer's, taken, and removed"), "%s", log);
	cr_expect_not_null(strstr(log, "from the write-behind queue"), "%s", log);
	cr_expect_eq(access(P("%s.queue", region), F_OK), -1, "a queue file is left:\n%s", log);
	if (strstr(log, "from the write-behind queue"))
		cr_log_info("%.*s", (int)strcspn(strstr(log, "from the write-behind queue"), "\n"),
			    strstr(log, "from the write-behind queue"));
	free(sh(&st, "'%s' consume - -o '%s/first' < '%s/first.stream' > /dev/null 2>&1",
		ringtrace(), dir, dir));
	if (strstr(log, "being written to the recorder's stream")) {
		cr_log_warn("the first consumer died in a frame's last byte: each trace checked "
			    "alone");
		check_clean(P("%s/second", dir));
	} else {
		struct tv_dir d;

		if (access(P("%s/first/metadata", dir), F_OK) == 0) {
			tv_read(v, P("%s/first", dir), &d);
			v->ndirs = 0;	/* a trace of its own */
		}
		tv_read(v, P("%s/second", dir), &d);
		check_clean(P("%s/second", dir));
		expect_all(v, 30000);
	}
	free(log);
	free(fifo);
	free(region);
	tv_free(v);
	rm_rf(dir);
}

/* ---- 4. a full disk ------------------------------------------------------- */

/*
 * A small tmpfs, mounted in a mount namespace of this test's own (root
 * needed: without it the test fails and says why).  Recording 3.8 MB into
 * 32 KiB chunks fills it: ringtrace stops writing with a message naming the
 * file and the error, every chunk left is a valid trace, and the program
 * runs to its end undisturbed.  The packets the write-behind queue held are
 * kept in its file, and `ringtrace recover` takes them with the region.
 * The tmpfs is 160 KiB to 304 KiB, in steps smaller than a chunk, so that
 * the disk fills at every point of a chunk, its first packets and its
 * metadata included.
 */
static void full_disk_trial(const char *dir, const char *mnt, unsigned kib)
{
	struct tv *v = tv_new(4, 30000, true);
	char *log, *report, *trace = strdup(P("%s/trace-%u", mnt, kib));
	char *out = strdup(P("%s/recovered-%u", dir, kib)), *sync = strdup(P("%s/sync-%u", dir, kib));
	uint32_t chunks;
	int lfd, st;
	pid_t rec;

	cr_assert_eq(mount("tmpfs", mnt, "tmpfs", 0, P("size=%uk,mode=0700", kib)), 0,
		     "cannot mount a %u KiB tmpfs on %s: %s: this test needs root", kib, mnt,
		     strerror(errno));
	mkdir(sync, 0700);
	touch(P("%s/go.0", sync));
	{
		char *argv[] = { ringtrace(), "record", "-o", trace, "--packet-size",
				 "4k", "--packets", "64", "--rotate-size", "32k",
				 "--flush-interval", "100ms", "--", emit_path(), "--threads", "4",
				 "--events", "30000", "--pin", "--sync", sync, NULL };

		lfd = open_log(P("%s/record-%u.log", dir, kib));
		rec = spawn(argv, NULL, -1, -1, lfd);
		close(lfd);
	}
	st = wait_exit(rec, 300, "ringtrace record on a full disk");
	log = slurp(P("%s/record-%u.log", dir, kib));
	expect_exit(st, 1, "ringtrace record on a full disk", log);
	cr_expect_not_null(strstr(log, P("%s/", trace)), "no file named:\n%s", log);
	cr_expect_not_null(strstr(log, "No space left on device"), "%s", log);
	cr_expect_not_null(strstr(log, "stopped writing"), "%s", log);
	cr_expect_not_null(strstr(log, "exited with status 0"), "the program was disturbed:\n%s",
			   log);
	report = slurp(P("%s/report", sync));
	cr_expect_not_null(report, "the program did not finish its work");
	free(report);
	/* What is on disk: chunks that are traces, in order, each event once. */
	chunks = tv_read_chunks(v, trace, "chunk", kib == 192);
	cr_expect_geq(chunks, 2, "%u KiB: chunks completed before the disk filled: %u", kib,
		      chunks);
	cr_expect_gt(v->all.emit_events, 0);
	{
		/*
		 * The region is kept for `ringtrace recover`, and the message
		 * says so; so is the queue's file, if it held packets.  What
		 * they hold continues the chunks: with the events dropped after
		 * writing stopped counted, every event is accounted for.
		 */
		char *region = strdup(region_of(log));
		char *queue = strdup(P("%s.queue", region));
		char *rlog;

		cr_expect_not_null(strstr(log, region), "%s", log);
		if (access(queue, F_OK) == 0)
			cr_expect_not_null(strstr(log, queue), "the kept queue is not named:\n%s",
					   log);
		rlog = sh(&st, "'%s' recover '%s' -o '%s' 2>&1", ringtrace(), region, out);
		expect_exit(st, 0, "ringtrace recover of the kept region", rlog);
		cr_expect_eq(access(queue, F_OK), -1, "recover left %s:\n%s", queue, rlog);
		v->ndirs = 0;	/* a trace of its own, not chunk number @chunks */
		tv_read(v, out, &(struct tv_dir){ 0 });
		cr_expect_eq(v->all.lost_packets, 0, "%u KiB: a packet is in neither the chunks nor "
			     "the region:\n%s\n%s", kib, log, rlog);
		cr_expect_eq(v->all.emit_events + v->all.lost_events, 4 * 30000,
			     "%u KiB: %" PRIu64 " events in the chunks and the region, %" PRIu64
			     " counted lost", kib, v->all.emit_events, v->all.lost_events);
		free(rlog);
		remove_region(region);
		free(region);
		free(queue);
	}
	free(log);
	tv_free(v);
	cr_expect_eq(umount2(mnt, MNT_DETACH), 0);
	free(trace);
	free(out);
	free(sync);
}

Test(consumer_record, a_full_disk_stops_cleanly_and_leaves_valid_chunks, .timeout = 900)
{
	char *dir = make_tmpdir("/dev/shm"), *mnt = make_tmpdir("/tmp");

	cr_assert_eq(unshare(CLONE_NEWNS), 0, "unshare(CLONE_NEWNS): %s: this test needs root "
		     "(a mount namespace and a small tmpfs)", strerror(errno));
	cr_assert_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0, "%s", strerror(errno));
	for (unsigned kib = 160; kib <= 304; kib += 8)
		full_disk_trial(dir, mnt, kib);
	rmdir(mnt);
	free(mnt);
	rm_rf(dir);
}

/*
 * The disk fills while 1 MiB packets are in flight at a chunk's end (the
 * default packets, 3 MiB chunks, a 20 MiB tmpfs): the chunk that was being
 * closed is cut back to its last whole packet, not left with a partial one
 * that makes the whole trace damaged; every chunk checks clean, and with
 * what recover takes, every packet is somewhere.
 */
Test(consumer_record, a_disk_full_at_rotation_leaves_every_chunk_valid, .timeout = 600)
{
	char *dir = make_tmpdir("/dev/shm"), *mnt = make_tmpdir("/tmp");

	cr_assert_eq(unshare(CLONE_NEWNS), 0, "unshare(CLONE_NEWNS): %s: this test needs root",
		     strerror(errno));
	cr_assert_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0, "%s", strerror(errno));
	for (int run = 0; run < 3; run++) {
		char *trace = strdup(P("%s/trace", mnt)), *out = strdup(P("%s/rec-%d", dir, run));
		char *log, *rlog, *region;
		struct tv *v = tv_new(2, 3000000, false);
		int st;

		cr_assert_eq(mount("tmpfs", mnt, "tmpfs", 0, "size=20m,mode=0700"), 0, "%s",
			     strerror(errno));
		log = sh(&st, "'%s' record -o '%s' --rotate-size 3M -- '%s' --threads 2 --events "
			 "3000000 2>&1", ringtrace(), trace, emit_path());
		expect_exit(st, 1, "ringtrace record on a full disk", log);
		cr_expect_not_null(strstr(log, "No space left on device"), "%s", log);
		tv_read_chunks(v, trace, "chunk", false);
		region = strdup(region_of(log));
		rlog = sh(&st, "'%s' recover '%s' -o '%s' 2>&1", ringtrace(), region, out);
		expect_exit(st, 0, "ringtrace recover", rlog);
		v->ndirs = 0;
		tv_read(v, out, &(struct tv_dir){ 0 });
		cr_expect_eq(v->all.lost_packets, 0, "run %d: a packet is in neither the chunks nor "
			     "the recovered trace:\n%s\n%s", run, log, rlog);
		cr_expect_eq(v->all.emit_events + v->all.lost_events, 2 * 3000000,
			     "run %d: %" PRIu64 " events, %" PRIu64 " counted lost", run,
			     v->all.emit_events, v->all.lost_events);
		remove_region(region);
		cr_expect_eq(umount2(mnt, MNT_DETACH), 0);
		free(region);
		free(log);
		free(rlog);
		free(trace);
		free(out);
		tv_free(v);
	}
	rmdir(mnt);
	free(mnt);
	rm_rf(dir);
}

/*
 * A container's /dev/shm is often 64 MiB, and the ring is all allocated
 * there at start.  record's default count comes down to what /dev/shm has
 * room for, says so, and every event is traced; a ring too big for it is
 * refused before the program runs (it would run untraced).
 */
Test(consumer_record, the_default_ring_comes_down_to_a_small_dev_shm)
{
	char *dir = make_tmpdir("/tmp"), *log, opts[64];
	uint64_t ncpus, def = 32, size;
	const char *at;
	struct tv *v;
	int st;

	cr_assert_eq(unshare(CLONE_NEWNS), 0, "unshare(CLONE_NEWNS): %s: this test needs root "
		     "(a mount namespace and a small /dev/shm)", strerror(errno));
	cr_assert_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0, "%s", strerror(errno));
	cr_assert_eq(mount("tmpfs", "/dev/shm", "tmpfs", 0, "size=1m,mode=1777"), 0,
		     "cannot mount a 1 MiB tmpfs on /dev/shm: %s", strerror(errno));
	/* 1 MiB holds not even 4 packets of 1 MiB: refused; the message gives the CPUs. */
	log = sh(&st, "'%s' record -o '%s/t0' -- touch '%s/ran' 2>&1", ringtrace(), dir, dir);
	expect_exit(st, 1, "record into a 1 MiB /dev/shm", log);
	cr_assert_not_null(at = strstr(log, "the ring, "), "%s", log);
	ncpus = strtoull(at + strlen("the ring, "), NULL, 10);
	cr_assert_gt(ncpus, 0, "%s", log);
	cr_expect_not_null(strstr(log, "4 packets of 1.0 MiB"), "%s", log);
	cr_expect_not_null(strstr(log, "does not fit in /dev/shm (1.0 MiB free)"), "%s", log);
	cr_expect_neq(access(P("%s/ran", dir), F_OK), 0, "the program ran, untraced:\n%s", log);
	free(log);
	/* The default count (256 MiB in all at most), and room for half of it. */
	while (def > 4 && def * ncpus > 256)
		def /= 2;
	if (def >= 8) {
		size = 4096 + 65536 + ncpus * (4096 + (def / 2 << 20)) + (1 << 20);
		snprintf(opts, sizeof(opts), "size=%" PRIu64 ",mode=1777", size);
		cr_assert_eq(mount("tmpfs", "/dev/shm", "tmpfs", MS_REMOUNT, opts), 0, "%s: %s",
			     opts, strerror(errno));
		log = sh(&st, "'%s' record -o '%s/t1' -- '%s' --threads 2 --events 50000 2>&1",
			 ringtrace(), dir, emit_path());
		expect_exit(st, 0, "record into a small /dev/shm", log);
		cr_expect_not_null(strstr(log, P("%" PRIu64 " packets of 1.0 MiB per CPU, not %"
						 PRIu64, def / 2, def)), "%s", log);
		v = tv_new(2, 50000, false);
		tv_read_all(v, P("%s/t1", dir));
		expect_all(v, 50000);
		tv_free(v);
		free(log);
		/* Asked for on the command line: refused, not changed. */
		log = sh(&st, "'%s' record -o '%s/t2' --packets %" PRIu64 " -- touch '%s/ran' 2>&1",
			 ringtrace(), dir, def, dir);
		expect_exit(st, 1, "record --packets too many for /dev/shm", log);
		cr_expect_not_null(strstr(log, P("%" PRIu64 " packets of 1.0 MiB", def)), "%s", log);
		cr_expect_neq(access(P("%s/ran", dir), F_OK), 0, "the program ran:\n%s", log);
		cr_expect_neq(access(P("%s/t2", dir), F_OK), 0, "a trace was begun:\n%s", log);
		free(log);
	}
	cr_expect_eq(umount2("/dev/shm", MNT_DETACH), 0);
	rm_rf(dir);
}

/* ---- 6. command line errors --------------------------------------------- */

static int run_rt(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int run_rt(char **out, const char *fmt, ...)
{
	char args[4096];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	*out = sh(&st, "'%s' %s 2>&1", ringtrace(), args);
	cr_assert(WIFEXITED(st), "ringtrace %s: signal\n%s", args, *out);
	return WEXITSTATUS(st);
}

/* Every file under @dir has mode @mode, every directory @mode plus x. */
static void expect_modes(const char *dir, mode_t mode)
{
	char *out;
	int st;

	out = sh(&st, "find '%s' -mindepth 1 -type f ! -perm %o -printf '%%p %%m\\n'; "
		 "find '%s' -type d ! -perm %o -printf '%%p %%m\\n'", dir, (unsigned)mode, dir,
		 (unsigned)(mode | ((mode & 0444) >> 2)));
	cr_expect_eq(st, 0);
	cr_expect_str_empty(out, "modes other than %o:\n%s", (unsigned)mode, out);
	free(out);
}

Test(consumer_record, output_safety_and_usage_errors)
{
	char *dir = make_tmpdir("/dev/shm"), *out, *before, *after;
	const char *emit = "--threads 2 --events 100";
	struct stat sb;

	/* A trace, files 0600 (directories 0700); --file-mode 0640 asks for more. */
	cr_assert_eq(run_rt(&out, "record -q -o '%s/t' -- '%s/ringtrace-test-emit' %s", dir, bindir(), emit), 0, "%s",
		     out);
	free(out);
	expect_modes(P("%s/t", dir), 0600);
	cr_assert_eq(run_rt(&out, "record -q --file-mode 0640 -o '%s/t640' --rotate-size 4k -- "
			    "'%s/ringtrace-test-emit' %s", dir, bindir(), emit), 0, "%s", out);
	free(out);
	expect_modes(P("%s/t640", dir), 0640);

	/* An existing trace: refused and untouched without --force, replaced with it. */
	before = sh(&(int){ 0 }, "cd '%s/t' && ls -la --time-style=full-iso . && md5sum *", dir);
	cr_expect_eq(run_rt(&out, "record -q -o '%s/t' -- '%s/ringtrace-test-emit' %s", dir, bindir(), emit), 1);
	cr_expect_not_null(strstr(out, "exists"), "%s", out);
	cr_expect_not_null(strstr(out, "--force"), "%s", out);
	free(out);
	after = sh(&(int){ 0 }, "cd '%s/t' && ls -la --time-style=full-iso . && md5sum *", dir);
	cr_expect_str_eq(after, before, "the existing trace was touched");
	free(after);
	cr_expect_eq(run_rt(&out, "record -q --force -o '%s/t' -- '%s/ringtrace-test-emit' %s", dir, bindir(), emit), 0,
		     "%s", out);
	free(out);
	after = sh(&(int){ 0 }, "cd '%s/t' && ls -la --time-style=full-iso . && md5sum *", dir);
	cr_expect_str_neq(after, before, "--force did not replace the trace");
	free(after);
	free(before);
	check_clean(P("%s/t", dir));

	/* A directory that is not a trace: never emptied, not even with --force. */
	mkdir(P("%s/mine", dir), 0700);
	touch(P("%s/mine/precious", dir));
	cr_expect_eq(run_rt(&out, "record -q -o '%s/mine' -- '%s/ringtrace-test-emit' %s", dir, bindir(), emit), 1);
	free(out);
	cr_expect_eq(run_rt(&out, "record -q --force -o '%s/mine' -- '%s/ringtrace-test-emit' %s", dir, bindir(), emit),
		     1);
	cr_expect_not_null(strstr(out, "precious"), "%s", out);
	free(out);
	cr_expect_eq(stat(P("%s/mine/precious", dir), &sb), 0, "--force removed a file not ours");

	/* The same when the stranger is inside a chunk: refused before anything is removed. */
	mkdir(P("%s/chunky", dir), 0700);
	touch(P("%s/chunky/metadata", dir));
	touch(P("%s/chunky/stream_0", dir));
	mkdir(P("%s/chunky/chunk-000000", dir), 0700);
	touch(P("%s/chunky/chunk-000000/stream_0", dir));
	touch(P("%s/chunky/chunk-000000/notes.txt", dir));
	cr_expect_eq(run_rt(&out, "record -q --force -o '%s/chunky' -- '%s/ringtrace-test-emit' %s", dir, bindir(), emit),
		     1);
	cr_expect_not_null(strstr(out, "'chunk-000000/notes.txt'"), "%s", out);
	free(out);
	for (const char *const *f = (const char *const[]){ "metadata", "stream_0", "chunk-000000/stream_0",
							   "chunk-000000/notes.txt", NULL }; *f; f++)
		cr_expect_eq(stat(P("%s/chunky/%s", dir, *f), &sb), 0, "--force removed %s before "
			     "refusing", *f);

	/* A symlink as the output: refused, to a directory or to nowhere, with --force too. */
	cr_assert_eq(symlink(P("%s/mine", dir), P("%s/link", dir)), 0);
	cr_assert_eq(symlink(P("%s/nowhere", dir), P("%s/dangling", dir)), 0);
	cr_expect_eq(run_rt(&out, "record -q --force -o '%s/link' -- '%s/ringtrace-test-emit' %s", dir, bindir(), emit),
		     1);
	cr_expect_not_null(strstr(out, "symbolic link"), "%s", out);
	free(out);
	cr_expect_eq(run_rt(&out, "record -q -o '%s/dangling' -- '%s/ringtrace-test-emit' %s", dir, bindir(), emit), 1,
		     "%s", out);
	free(out);
	cr_expect_neq(stat(P("%s/nowhere", dir), &sb), 0, "a directory created through a symlink");
	cr_expect_eq(run_rt(&out, "recover /nonexistent -o '%s/link'", dir), 1);
	free(out);

	/* A program that cannot run costs no directory. */
	cr_expect_eq(run_rt(&out, "record -q -o '%s/none' -- '%s/no-such-program'", dir, dir), 127);
	cr_expect_not_null(strstr(out, "no-such-program"), "%s", out);
	free(out);
	cr_expect_neq(stat(P("%s/none", dir), &sb), 0, "an empty trace directory was left");

	/* Usage errors: exit 2 and a message that names the problem. */
	{
		static const struct {
			const char *args, *says;
		} bad[] = {
			{ "record", "no program" },
			{ "record --packet-size 3000 -- true", "--packet-size" },
			{ "record --packet-size 1k -- true", "--packet-size" },
			{ "record --packets 3 -- true", "--packets" },
			{ "record --mode sometimes -- true", "--mode" },
			{ "record --rotate-size 0 -- true", "--rotate-size" },
			{ "record --rotate-size lots -- true", "--rotate-size" },
			{ "record --rotate-time soon -- true", "--rotate-time" },
			{ "record --flush-interval x -- true", "--flush-interval" },
			{ "record --file-mode 0999 -- true", "--file-mode" },
			{ "record --file-mode 0044 -- true", "--file-mode" },
			{ "record --mode overwrite -o - -- true", "discard" },
			{ "record --mode overwrite --rotate-size 1M -- true", "rotation" },
			{ "record --frobnicate -- true", "unknown option" },
			{ "record -o", "needs a value" },
			{ "consume", "no region" },
			{ "consume /dev/shm/x", "no output" },
			{ "consume a b -o x", "unexpected" },
			{ "consume - -o -", "copies nothing" },
			{ "recover /dev/shm/x -o -", "directory" },
			{ "snapshot /dev/shm/x -o -", "directory" },
			{ "recover --packets 4 x -o y", "unknown option" },
		};

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			cr_expect_eq(run_rt(&out, "%s", bad[i].args), 2, "ringtrace %s:\n%s",
				     bad[i].args, out);
			cr_expect_not_null(strstr(out, bad[i].says), "ringtrace %s: no '%s' in:\n%s",
					   bad[i].args, bad[i].says, out);
			free(out);
		}
	}
	rm_rf(dir);
}

/* ---- 4. live: the flush timer, dump --follow, snapshot, rotation by time ---- */

/*
 * The program emits its events, then waits: nothing closes its last packets
 * but the recorder's flush timer, so the events reaching the trace while the
 * program still runs shows the timer at work.  (A bound of time is not
 * asserted: the machine may be loaded; 60 s only stops a hang.)
 */
Test(consumer_record, the_flush_timer_puts_a_quiet_programs_events_on_disk)
{
	char *dir = make_tmpdir("/dev/shm"), *log;
	struct tv *v;
	pid_t rec;
	double t0;
	int lfd, st;

	mkdir(P("%s/sync", dir), 0700);
	touch(P("%s/sync/go.0", dir));
	{
		char *argv[] = { ringtrace(), "record", "-o", P("%s/trace", dir),
				 "--flush-interval", "200ms", "--", emit_path(), "--threads", "2",
				 "--events", "3000", "--pin", "--sync", P("%s/sync", dir), "--hold",
				 NULL };

		lfd = open_log(P("%s/record.log", dir));
		rec = spawn(argv, NULL, -1, -1, lfd);
		close(lfd);
	}
	wait_path(P("%s/sync/report", dir), rec, 120);
	/* 6000 events of 28 bytes fill no 256 KiB packet: only a flush closes them. */
	t0 = now();
	for (;;) {
		char *out = sh(&st, "'%s' check '%s/trace' 2>&1 | tail -n 2", ringtrace(), dir);
		bool all = strstr(out, " 6000 events,") || strstr(out, " 6001 events,");

		free(out);
		if (all)
			break;
		cr_assert_eq(waitpid(rec, &st, WNOHANG), 0, "the recorder ended early");
		cr_assert_lt(now() - t0, 60, "the events were not on disk 60 s after they were "
			     "emitted");
		usleep(50000);
	}
	/* The program still holds: the events came by the timer, not at its end. */
	cr_expect_eq(kill(rec, 0), 0);
	touch(P("%s/sync/go.1", dir));
	st = wait_exit(rec, 120, "ringtrace record");
	log = slurp(P("%s/record.log", dir));
	expect_exit(st, 0, "ringtrace record", log);
	v = tv_new(2, 3000, true);
	tv_read_all(v, P("%s/trace", dir));
	expect_all(v, 3000);
	tv_free(v);
	free(log);
	rm_rf(dir);
}

/*
 * `dump --follow` started while a paced program is recorded with rotation
 * prints, by the time the recording ends, exactly what `dump` prints of the
 * finished trace: every chunk, every event once, in the same order.
 */
Test(consumer_record, dump_follow_prints_what_dump_prints_of_the_finished_trace)
{
	char *dir = make_tmpdir("/dev/shm"), *out;
	int st;

	/* a ring deep enough that a loaded machine's consumer loses nothing */
	out = sh(&st, "cd '%s' && ('%s' record -q -o live --packet-size 4k --packets 1024 "
		 "--rotate-size 32k --flush-interval 100ms -- '%s' --threads 2 --events 20000 "
		 "--pace 500:1000 >rec.log 2>&1 &) && "
		 /* the recorder has made its directory (a loaded machine may take seconds) */
		 "for i in $(seq 400); do [ -e live/.ringtrace-state ] && break; sleep 0.05; done && "
		 "timeout 120 '%s' dump --follow live >follow.txt 2>follow.log; echo follow=$?; "
		 "sleep 0.2; '%s' dump live >dump.txt 2>dump.log; echo dump=$?; "
		 "cmp follow.txt dump.txt && echo same; wc -l <dump.txt; ls live | grep -c chunk-",
		 dir, ringtrace(), emit_path(), ringtrace(), ringtrace());
	cr_expect_not_null(strstr(out, "follow=0\n"), "%s", out);
	cr_expect_not_null(strstr(out, "dump=0\n"), "%s", out);
	cr_expect_not_null(strstr(out, "same\n"), "follow and dump differ:\n%s", out);
	/* 40000 events and the threads' few others; several chunks. */
	{
		const char *p = strstr(out, "same\n");
		unsigned long lines = 0, chunks = 0;

		if (p)
			sscanf(p + 5, "%lu %lu", &lines, &chunks);
		cr_expect_geq(lines, 40000, "%s", out);
		cr_expect_gt(chunks, 2, "%s", out);
	}
	free(out);
	rm_rf(dir);
}

/*
 * A follower marks the trace directory (format/state.h, RTR_VIEWER_FILE),
 * and the recorder, with its default 1 s flush interval, closes its quiet
 * packets every 100 ms while it is there: the same paced recording makes
 * many more packets followed than not (3 s of 5 events each 25 ms: about
 * 30 flushes, against 3), and the mark is gone with the recording.
 */
Test(consumer_record, a_follower_makes_the_recorder_flush_often)
{
	char *dir = make_tmpdir("/dev/shm"), *out;
	unsigned long packets[2] = { 0, 0 };
	int st;

	for (int followed = 0; followed < 2; followed++) {
		const char *at;

		out = sh(&st, "cd '%s' && rm -rf t && ('%s' record -q -o t -- '%s' --threads 1 "
			 "--events 600 --pace 5:25000 >rec.log 2>&1 &) && "
			 "for i in $(seq 400); do [ -e t/.ringtrace-state ] && break; sleep 0.05; done && "
			 "if [ %d = 1 ]; then timeout 60 '%s' dump --follow t >/dev/null 2>follow.log; "
			 "else while ! grep -q '^state done' t/.ringtrace-state; do sleep 0.1; done; fi; "
			 "sleep 0.3; ls -a t | grep -c ringtrace-viewer; '%s' check t | grep ' packets, '",
			 dir, ringtrace(), emit_path(), followed, ringtrace(), ringtrace());
		at = strstr(out, " packets, ");
		cr_assert_not_null(at, "%s", out);
		while (at > out && at[-1] != '\n')
			at--;
		packets[followed] = strtoul(at, NULL, 10);
		cr_expect(!strncmp(out, "0\n", 2), "the mark is left in the trace: %s", out);
		free(out);
	}
	cr_log_info("packets: %lu not followed, %lu followed", packets[0], packets[1]);
	/* a thread that migrates closes a packet on each CPU it used: some slack */
	cr_expect_leq(packets[0], 12, "not followed, flushed every 1 s: %lu packets", packets[0]);
	cr_expect_geq(packets[1], 2 * packets[0] + 4, "followed, flushed every 100 ms: %lu "
		      "packets (%lu not followed)", packets[1], packets[0]);
	rm_rf(dir);
}

/*
 * Old chunks removed while a recording is followed (a clean-up job during
 * a days-long recording): `dump --follow` goes on from the chunks there
 * are, to the end, exit 0; it printed every event of the run, those of
 * the removed chunks before they went.
 */
Test(consumer_record, dump_follow_goes_on_when_old_chunks_are_removed)
{
	char *dir = make_tmpdir("/dev/shm"), *out;
	int st;

	/* Phase 0, followed to its last event; old chunks removed; phase 1. */
	out = sh(&st, "cd '%s' && mkdir sync && touch sync/go.0 && "
		 "('%s' record -q -o live --packet-size 4k --packets 1024 --rotate-size 64k "
		 "--flush-interval 50ms -- '%s' --threads 2 --events 60000 --phases 2 --sync sync "
		 "--pace 100:2000 >rec.log 2>&1 &) && "
		 "for i in $(seq 400); do [ -e live/.ringtrace-state ] && break; sleep 0.05; done && "
		 "(timeout 120 '%s' dump --follow live >follow.txt 2>follow.log; "
		 "echo follow=$? >>follow.log) & "
		 "cd '%s'; for i in $(seq 1200); do [ -f sync/done.0 ] && "
		 "[ \"$(grep -c rtrtest:ev follow.txt)\" = 60000 ] && break; sleep 0.05; done; "
		 "ls live | grep -c chunk-; rm -rf live/chunk-000000 live/chunk-000001 live/chunk-000002; "
		 "touch sync/go.1; "
		 "for i in $(seq 2400); do grep -q follow= follow.log 2>/dev/null && break; sleep 0.05; done; "
		 "cat follow.log; grep -c 'rtrtest:ev' follow.txt",
		 dir, ringtrace(), emit_path(), ringtrace(), dir);
	cr_expect_not_null(strstr(out, "follow=0"), "%s", out);
	cr_expect_not_null(strstr(out, "\n120000\n"), "every event printed once:\n%s", out);
	free(out);
	rm_rf(dir);
}

/*
 * A stream file truncated between two turns of `dump --follow`: reported
 * once as damage, never read out of bounds; the follow ends with 1.
 */
Test(consumer_record, dump_follow_reports_a_file_truncated_under_it)
{
	char *dir = make_tmpdir("/dev/shm"), *out;
	int st;

	/* Only the follow in the background; it has printed everything before the files shrink. */
	out = sh(&st, "cd '%s' && '%s' record -q -o t --packet-size 4k -- '%s' --threads 1 "
		 "--events 20000 && n=$('%s' dump t 2>/dev/null | wc -l) && "
		 "printf 'ringtrace-state 1\\nstate recording\\nchunk .\\nwatermark 18446744073709551615\\n' >t/.ringtrace-state && "
		 "for f in t/stream_*; do printf 'stream %%s %%s\\n' ${f##*_} $(stat -c %%s $f) >>t/.ringtrace-state; done && "
		 "{ (timeout 60 '%s' dump --follow t >follow.txt 2>follow.log; echo follow=$? >>follow.log) & } && "
		 "for i in $(seq 2400); do [ \"$(cat follow.txt 2>/dev/null | wc -l)\" -ge \"$n\" ] && "
		 "break; sleep 0.05; done; for f in t/stream_*; do truncate -s 8192 $f; done; sleep 1; "
		 "sed -i 's/recording/done/' t/.ringtrace-state; "
		 "for i in $(seq 400); do grep -q follow= follow.log && break; sleep 0.05; done; "
		 "cat follow.log",
		 dir, ringtrace(), emit_path(), ringtrace(), ringtrace());
	cr_expect_not_null(strstr(out, "follow=1"), "%s", out);
	cr_expect_not_null(strstr(out, "truncated or replaced"), "%s", out);
	cr_expect_null(strstr(out, "AddressSanitizer"), "%s", out);
	free(out);
	rm_rf(dir);
}

/*
 * `ringtrace snapshot` on a live overwrite-mode region the program made
 * itself: its latest events, each thread's last one included (the open
 * packets were closed by the program's flusher); the program goes on.  A
 * discard-mode region is refused, and nothing is written.
 */
Test(consumer_record, the_snapshot_command_copies_a_live_flight_recorder)
{
	char *dir = make_tmpdir("/dev/shm"), *out, *region, *snap;
	struct tv_dir a;
	pid_t pid;
	int st;

	region = strdup(P("%s/region", dir));
	snap = strdup(P("%s/snap", dir));
	mkdir(P("%s/sync", dir), 0700);
	touch(P("%s/sync/go.0", dir));
	{
		char *argv[] = { emit_path(), "--threads", "4", "--events", "20000", "--pin",
				 "--sync", P("%s/sync", dir), "--hold", NULL };
		char *path = strdup(P("RINGTRACE_PATH=%s", region));
		const char *env[] = { path, "RINGTRACE_MODE=overwrite",
				      "RINGTRACE_PACKET_SIZE=4096", "RINGTRACE_PACKETS=8", NULL };

		pid = spawn(argv, env, -1, -1, -1);
		free(path);
	}
	wait_path(P("%s/sync/report", dir), pid, 120);
	out = sh(&st, "'%s' snapshot '%s' -o '%s' 2>&1", ringtrace(), region, snap);
	expect_exit(st, 0, "ringtrace snapshot", out);
	free(out);
	cr_expect_eq(kill(pid, 0), 0, "the program was disturbed");
	check_snapshot(snap, 4, 20000, &a);
	touch(P("%s/sync/go.1", dir));
	st = wait_exit(pid, 60, "ringtrace-test-emit");
	expect_exit(st, 0, "ringtrace-test-emit", NULL);

	/* Discard mode: refused with a reason, no directory left. */
	unlink(region);
	{
		char *argv[] = { emit_path(), "--threads", "1", "--events", "10", "--sync",
				 P("%s/sync", dir), "--hold", NULL };
		char *path = strdup(P("RINGTRACE_PATH=%s", region));
		const char *env[] = { path, NULL };

		unlink(P("%s/sync/report", dir));
		unlink(P("%s/sync/go.1", dir));
		pid = spawn(argv, env, -1, -1, -1);
		free(path);
	}
	wait_path(P("%s/sync/report", dir), pid, 120);
	out = sh(&st, "'%s' snapshot '%s' -o '%s/snap2' 2>&1; echo status=$?; ls '%s'", ringtrace(),
		 region, dir, dir);
	cr_expect_not_null(strstr(out, "snapshots are for overwrite mode"), "%s", out);
	cr_expect_not_null(strstr(out, "status=1"), "%s", out);
	cr_expect_null(strstr(out, "snap2"), "%s", out);
	free(out);
	touch(P("%s/sync/go.1", dir));
	wait_exit(pid, 60, "ringtrace-test-emit");
	free(region);
	free(snap);
	rm_rf(dir);
}

/* --rotate-time: a paced program over a second or so makes several chunks, nothing lost. */
Test(consumer_record, rotation_by_time_loses_nothing)
{
	char *dir = make_tmpdir("/dev/shm"), *out;
	struct tv *v = tv_new(2, 4000, true);
	uint32_t chunks;
	int st;

	out = sh(&st, "'%s' record -q -o '%s/rot' --packet-size 4k --packets 64 --rotate-time "
		 "150ms --flush-interval 50ms -- '%s' --threads 2 --events 4000 --pin "
		 "--pace 20:5000 2>&1", ringtrace(), dir, emit_path());
	expect_exit(st, 0, "ringtrace record --rotate-time", out);
	chunks = tv_read_chunks(v, P("%s/rot", dir), "chunk", false);
	cr_expect_geq(chunks, 3, "%u chunks", chunks);
	expect_all(v, 4000);
	free(out);
	tv_free(v);
	rm_rf(dir);
}

/*
 * A producer that truncates its region file under the consumer: reading the
 * mapping then raises SIGBUS.  consume stops with a message naming the
 * region, exit 1, and what it wrote is a valid trace; recover on the
 * truncated file refuses it with a message, no crash.
 */
Test(consumer_record, a_region_truncated_under_the_consumer_stops_it_cleanly)
{
	char *dir = make_tmpdir("/dev/shm"), *out;
	int st;

	out = sh(&st, "cd '%s' && (RINGTRACE_PATH=$PWD/region RINGTRACE_PACKET_SIZE=4096 "
		 "'%s' --threads 2 --events 1000000 --pace 100:1000 >/dev/null 2>&1 &) && "
		 "for i in $(seq 100); do [ -s region ] && break; sleep 0.05; done; "
		 "('%s' consume region -o trace >consume.log 2>&1; echo consume=$? >>consume.log) & "
		 "for i in $(seq 200); do grep -q ' -> ' consume.log 2>/dev/null && break; "
		 "sleep 0.05; done; sleep 0.2; truncate -s 8192 region; wait; cat consume.log; "
		 "'%s' check trace >check.log 2>&1; echo check=$?; "
		 "'%s' recover region -o rec 2>&1; echo recover=$?",
		 dir, emit_path(), ringtrace(), ringtrace(), ringtrace());
	cr_expect_not_null(strstr(out, "consume=1"), "%s", out);
	cr_expect_not_null(strstr(out, "shrank while it was read"), "%s", out);
	cr_expect_not_null(strstr(out, "check=0"), "%s", out);
	cr_expect_not_null(strstr(out, "recover=1"), "%s", out);
	cr_expect_null(strstr(out, "AddressSanitizer"), "%s", out);
	free(out);
	rm_rf(dir);
}

/*
 * The same under `ringtrace record`, in both modes (the flight recorder
 * reads the region between snapshots too).  The program is stopped before
 * its region is cut, so that the recorder, not the program, meets the
 * SIGBUS first; then killed.  The recorder stops with the message and
 * exit 1; what it wrote is a valid trace.
 */
Test(consumer_record, a_region_truncated_under_record_stops_it_cleanly)
{
	static const char *const modes[] = { "discard", "overwrite" };

	for (size_t i = 0; i < 2; i++) {
		char *dir = make_tmpdir("/dev/shm"), *out;
		int st;

		out = sh(&st, "cd '%s' && ('%s' record --mode %s --packet-size 4k -o trace -- "
			 "'%s' --threads 2 --events 1000000 --pace 100:1000 >rec.log 2>&1; "
			 "echo record=$? >>rec.log) & "
			 "cd '%s'; for i in $(seq 200); do grep -q ' -> ' rec.log 2>/dev/null && "
			 "break; sleep 0.05; done; sleep 0.3; "
			 "region=$(sed -n 's/.*, region \\(.*\\)$/\\1/p' rec.log); "
			 "pid=$(sed -n 's/.* (pid \\([0-9]*\\)) -> .*/\\1/p' rec.log); "
			 "kill -STOP $pid; truncate -s 0 \"$region\"; sleep 0.5; kill -KILL $pid; "
			 "wait; cat rec.log; rm -f \"$region\"; "
			 "for t in trace trace/snapshot-*; do [ -f $t/metadata ] || continue; "
			 "'%s' check $t >/dev/null 2>&1; echo check=$?; done",
			 dir, ringtrace(), modes[i], emit_path(), dir, ringtrace());
		cr_expect_not_null(strstr(out, "record=1"), "%s: %s", modes[i], out);
		cr_expect_not_null(strstr(out, "shrank while it was read"), "%s: %s", modes[i], out);
		cr_expect_null(strstr(out, "check=1"), "%s: %s", modes[i], out);
		cr_expect_null(strstr(out, "AddressSanitizer"), "%s: %s", modes[i], out);
		free(out);
		rm_rf(dir);
	}
}

/*
 * A rotated trace dumps as one: a CPU's packet closed just after a rotation
 * holds events older than the last ones of the chunk before, and dump
 * merges all the chunks in time (its lines sorted by time, every event once).
 */
Test(consumer_record, dump_merges_the_chunks_of_a_rotated_trace_in_time)
{
	char *dir = make_tmpdir("/dev/shm"), *out;
	int st;

	/* a ring deep enough that a loaded machine's consumer loses nothing */
	out = sh(&st, "cd '%s' && '%s' record -q -o rot --packet-size 16k --packets 256 "
		 "--rotate-size 64k -- '%s' --threads 2 --events 40000 --pace 1000:1000 "
		 ">/dev/null 2>&1 && '%s' dump --clock-seconds --no-delta rot >d.txt 2>d.log && "
		 "awk -F'[][]' '{ print $2 }' d.txt | sort -c && echo sorted; "
		 "grep -c 'rtrtest:ev' d.txt; ls rot | grep -c chunk-",
		 dir, ringtrace(), emit_path(), ringtrace());
	cr_expect_not_null(strstr(out, "sorted\n"), "%s", out);
	{
		const char *p = strstr(out, "sorted\n");
		unsigned long events = 0, chunks = 0;

		if (p)
			sscanf(p + 7, "%lu %lu", &events, &chunks);
		cr_expect_eq(events, 80000, "%s", out);
		cr_expect_gt(chunks, 3, "%s", out);
	}
	free(out);
	rm_rf(dir);
}

/*
 * The framed stream comes from another program or machine: mutated streams
 * (bytes flipped, frame lengths and types lied about, cut anywhere) fed to
 * `check -` and `consume - -o DIR` must end with 0 or 1 and a message, never
 * a crash, a sanitizer report or a hang; what consume writes checks clean
 * or reports damage, never crashes the checker.
 */
Test(consumer_record, mutated_streams_are_reported_not_crashed_on, .timeout = 600)
{
	char *dir = make_tmpdir("/dev/shm"), *out, *good;
	size_t len;
	unsigned seed = 12345;
	int st, refused = 0;

	out = sh(&st, "'%s' record -q -o - --packet-size 4k -- '%s' --threads 2 --events 3000 "
		 ">'%s/good' 2>/dev/null; echo rec=$?", ringtrace(), emit_path(), dir);
	cr_assert_not_null(strstr(out, "rec=0"), "%s", out);
	free(out);
	good = slurp(P("%s/good", dir));
	cr_assert_not_null(good);
	{
		struct stat sb;

		cr_assert_eq(stat(P("%s/good", dir), &sb), 0);
		len = (size_t)sb.st_size;
	}
	cr_assert_gt(len, 1000);
	for (int trial = 0; trial < 150; trial++) {
		char *m = malloc(len);
		size_t n = len;
		int fd;

		memcpy(m, good, len);
		switch (trial % 5) {
		case 0:		/* a few random bytes */
			for (int k = 0; k < 1 + trial % 7; k++)
				m[rand_r(&seed) % len] ^= (char)(1 + rand_r(&seed) % 255);
			break;
		case 1:		/* cut anywhere */
			n = (size_t)rand_r(&seed) % len;
			break;
		case 2: {	/* a frame header's fields: a random 32-bit word in the first frames */
			size_t at = 16 + (size_t)(rand_r(&seed) % 64) * 4;
			uint32_t v = (uint32_t)rand_r(&seed) * 2654435761u;

			if (at + 4 <= len)
				memcpy(m + at, &v, 4);
			break;
		}
		case 3:		/* a huge length in the first frame */
			memset(m + 24, 0xff, 8);
			break;
		default:	/* a range of garbage in the middle */
			for (size_t k = len / 3; k < len / 3 + 200 && k < len; k++)
				m[k] = (char)rand_r(&seed);
		}
		fd = open(P("%s/bad", dir), O_WRONLY | O_CREAT | O_TRUNC, 0600);
		cr_assert_geq(fd, 0);
		cr_assert_eq(write(fd, m, n), (ssize_t)n);
		close(fd);
		free(m);
		out = sh(&st, "cd '%s' && rm -rf c; timeout 60 '%s' check - <bad >/dev/null 2>check.log;"
			 " echo check=$?; timeout 60 '%s' consume - -o c <bad 2>consume.log;"
			 " echo consume=$?; if [ -d c ]; then timeout 60 '%s' check c >/dev/null "
			 "2>cc.log; echo cc=$?; else echo cc=1; fi; cat check.log consume.log cc.log",
			 dir, ringtrace(), ringtrace(), ringtrace());
		cr_assert(strstr(out, "check=0\n") || strstr(out, "check=1\n"),
			  "trial %d: check - crashed or hung:\n%s", trial, out);
		cr_assert(strstr(out, "consume=0\n") || strstr(out, "consume=1\n"),
			  "trial %d: consume - crashed or hung:\n%s", trial, out);
		cr_assert(strstr(out, "cc=0\n") || strstr(out, "cc=1\n"),
			  "trial %d: check of what consume wrote crashed:\n%s", trial, out);
		cr_assert_null(strstr(out, "Sanitizer"), "trial %d:\n%s", trial, out);
		/* A stream cut or lied about says so: an error never goes unsaid. */
		if (strstr(out, "consume=1\n"))
			cr_assert_not_null(strstr(out, "ringtrace consume:"), "trial %d:\n%s", trial,
					   out);
		/* What check - calls damaged, consume - never passes in silence. */
		if (strstr(out, "check=1\n"))
			cr_assert_not_null(strstr(out, "consume=1\n"), "trial %d: check - says the "
					   "stream is damaged, consume - exits 0:\n%s", trial, out);
		refused += strstr(out, "check=1\n") != NULL;
		free(out);
	}
	/* Mutations that all passed would mean the reader checked nothing. */
	cr_expect_gt(refused, 100, "only %d of 150 damaged streams were reported", refused);
	free(good);
	rm_rf(dir);
}

/* ---- N. into an lttng-relayd (`-o net://`, consumer/relayd.c) ------------ */

TestSuite(consumer_relayd, .timeout = 300);

#define RELAYD_BIN "/usr/bin/lttng-relayd"

/* A stock lttng-relayd of our own on 127.0.0.1: its ports, output, pid. */
struct relayd {
	pid_t pid;
	int port[3];		/* control, data, live */
	char *dir;		/* ours: out/ (its output), log, LTTNG_HOME */
	const char *addr;	/* where it listens: NULL for 127.0.0.1 */
};

/* Three ports free on 127.0.0.1 now (bound together, then let go). */
static void free_ports(int port[3])
{
	int fd[3];

	for (int i = 0; i < 3; i++) {
		struct sockaddr_in a = { .sin_family = AF_INET,
					 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		socklen_t len = sizeof(a);

		fd[i] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		cr_assert_geq(fd[i], 0);
		cr_assert_eq(bind(fd[i], (struct sockaddr *)&a, sizeof(a)), 0, "bind: %s",
			     strerror(errno));
		cr_assert_eq(getsockname(fd[i], (struct sockaddr *)&a, &len), 0);
		port[i] = ntohs(a.sin_port);
	}
	for (int i = 0; i < 3; i++)
		close(fd[i]);
}

/* Whether something accepts connections on @addr (NULL: 127.0.0.1), port @port. */
static bool listening_on(const char *addr, int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool ok;

	if (addr)
		cr_assert_eq(inet_pton(AF_INET, addr, &a.sin_addr), 1);
	ok = fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0;

	if (fd >= 0)
		close(fd);
	return ok;
}

static bool listening(int port)
{
	return listening_on(NULL, port);
}

static void relayd_skip_if_absent(void)
{
	if (access(RELAYD_BIN, X_OK))
		cr_skip_test("lttng-relayd is not installed (Debian's lttng-tools; make check's "
			     "scripts/deps.sh check installs it): no relayd to stream into");
}

/* Start lttng-relayd on three free ports (at @r->addr), its output in a new directory. */
static void relayd_start(struct relayd *r)
{
	const char *ip = r->addr ? r->addr : "127.0.0.1";

	for (int tries = 0;; tries++) {
		char ctl[64], data[64], live[64];
		char *argv[] = { RELAYD_BIN, "-o", NULL, "-C", ctl, "-D", data, "-L", live, NULL };
		char *env[] = { NULL, NULL };
		double t0 = now();
		int lfd;

		r->dir = make_tmpdir("/tmp");
		free_ports(r->port);
		snprintf(ctl, sizeof(ctl), "tcp://%s:%d", ip, r->port[0]);
		snprintf(data, sizeof(data), "tcp://%s:%d", ip, r->port[1]);
		snprintf(live, sizeof(live), "tcp://%s:%d", ip, r->port[2]);
		argv[2] = strdup(P("%s/out", r->dir));
		/* Its run directory (health socket) under ours: relayds of other runs never meet. */
		env[0] = strdup(P("LTTNG_HOME=%s", r->dir));
		lfd = open_log(P("%s/relayd.log", r->dir));
		r->pid = spawn(argv, (const char *const *)env, -1, lfd, lfd);
		close(lfd);
		free(argv[2]);
		while (!listening_on(r->addr, r->port[0]) || !listening_on(r->addr, r->port[2])) {
			int st;

			if (waitpid(r->pid, &st, WNOHANG) == r->pid || now() - t0 > 20) {
				char *log = slurp(P("%s/relayd.log", r->dir));

				if (waitpid(r->pid, &st, WNOHANG) == 0) {
					kill(r->pid, SIGKILL);
					waitpid(r->pid, &st, 0);
				}
				/* A port taken between free_ports() and its bind: again. */
				cr_assert_lt(tries, 3, "lttng-relayd did not start:\n%s",
					     log ? log : "");
				free(log);
				r->pid = 0;
				break;
			}
			usleep(10000);
		}
		free(env[0]);
		if (r->pid)
			return;
		rm_rf(r->dir);
	}
}

/* Stop it (SIGTERM, then SIGKILL after 20 s), keep its output. */
static void relayd_stop(struct relayd *r)
{
	double t0 = now();
	int st;

	if (!r->pid)
		return;
	kill(r->pid, SIGTERM);
	while (waitpid(r->pid, &st, WNOHANG) == 0) {
		if (now() - t0 > 20) {
			kill(r->pid, SIGKILL);
			waitpid(r->pid, &st, 0);
			cr_expect_fail("lttng-relayd took more than 20 s to stop on SIGTERM");
			break;
		}
		usleep(10000);
	}
	r->pid = 0;
}

static char *relayd_url(const struct relayd *r)
{
	return P("net://%s:%d:%d", r->addr ? r->addr : "127.0.0.1", r->port[0], r->port[1]);
}

/* "..., session HOST/NAME, region ..." in a recorder's log, or NULL (in P()'s buffer). */
static char *session_of(const char *log)
{
	const char *p = log ? strstr(log, ", session ") : NULL;

	if (!p)
		return NULL;
	p += strlen(", session ");
	return P("%.*s", (int)strcspn(p, ","), p);
}

/*
 * `ringtrace record --flush-interval 100ms -o net://` (into @r) of the
 * emitter, @threads threads of @events events each, paced @pace (K:US),
 * its log in @r->dir/record.log.
 */
static pid_t record_paced(const struct relayd *r, const char *threads, const char *events,
			  const char *pace)
{
	char *argv[] = { ringtrace(), "record", "--flush-interval", "100ms", "-o", relayd_url(r),
			 "--", emit_path(), "--threads", (char *)threads, "--events",
			 (char *)events, "--pace", (char *)pace, NULL };
	int lfd = open_log(P("%s/record.log", r->dir));
	pid_t pid = spawn(argv, NULL, -1, -1, lfd);

	close(lfd);
	return pid;
}

/* The session a recorder logging to @r->dir/record.log names (malloc'd), within 20 s. */
static char *wait_session(const struct relayd *r)
{
	char *log = NULL, *s = NULL;

	for (double t0 = now(); !s; usleep(5000)) {
		free(log);
		log = slurp(P("%s/record.log", r->dir));
		s = session_of(log);
		cr_assert_lt(now() - t0, 20, "no session named within 20 s:\n%s", log ? log : "");
	}
	s = strdup(s);	/* P()'s buffers are reused */
	free(log);
	return s;
}

/* The relayd's copy of session @s: OUT/HOST/NAME/ringtrace (protocol 2.11). */
static char *relayd_trace(const struct relayd *r, const char *s)
{
	return P("%s/out/%s/ringtrace", r->dir, s);
}

/* Run a live reader, its output in @r->dir/live.txt, its messages in live.err. */
static pid_t spawn_live(const struct relayd *r, char *const argv[])
{
	int ofd = open_log(P("%s/live.txt", r->dir)), lfd = open_log(P("%s/live.err", r->dir));
	pid_t pid = spawn(argv, NULL, -1, ofd, lfd);

	close(ofd);
	close(lfd);
	return pid;
}

/*
 * A program's whole recording goes through the relayd: its output, read by
 * our reader, `ringtrace check` and babeltrace2, holds every event of every
 * thread, each with its content, and the recorder reported no loss.
 */
Test(consumer_relayd, a_recording_streamed_to_a_relayd_holds_every_event)
{
	const uint32_t threads = 4;
	const uint64_t events = 20000;
	struct relayd r = { 0 };
	char thr[16], ev[32], *log, *s;
	struct tv *v;
	int lfd, st;
	pid_t rec;

	relayd_skip_if_absent();
	relayd_start(&r);
	snprintf(thr, sizeof(thr), "%u", threads);
	snprintf(ev, sizeof(ev), "%" PRIu64, events);
	{
		char *argv[] = { ringtrace(), "record", "--flush-interval", "100ms", "-o",
				 relayd_url(&r), "--", emit_path(), "--pin", "--threads", thr,
				 "--events", ev, NULL };

		lfd = open_log(P("%s/record.log", r.dir));
		rec = spawn(argv, NULL, -1, -1, lfd);
		close(lfd);
	}
	st = wait_exit(rec, 120, "ringtrace record -o net://");
	log = slurp(P("%s/record.log", r.dir));
	expect_exit(st, 0, "ringtrace record -o net://", log);
	cr_expect_eq(reported_lost(log), 0, "%s", log);
	s = session_of(log);
	cr_assert_not_null(s, "no session named in:\n%s", log);
	s = strdup(s);
	relayd_stop(&r);
	v = tv_new(threads, events, true);
	tv_read_all(v, relayd_trace(&r, s));
	expect_all(v, events);
	tv_free(v);
	free(s);
	free(log);
	rm_rf(r.dir);
}

/* One rtrtest:ev line of babeltrace2's pretty text with --clock-seconds. */
static bool bt2_event_line(const char *l, double *ts, uint32_t *th, uint64_t *seq,
			   uint64_t *check)
{
	const char *p = strstr(l, "rtrtest:ev:");
	const char *t = strstr(l, "thread = "), *s = strstr(l, "seq = "), *c = strstr(l, "check = ");

	if (!p || !t || !s || !c || l[0] != '[')
		return false;
	*ts = strtod(l + 1, NULL);
	*th = (uint32_t)strtoul(t + 9, NULL, 10);
	*seq = strtoull(s + 6, NULL, 10);
	*check = strtoull(c + 8, NULL, 10);
	return true;
}

/*
 * babeltrace2 follows the session live (`net://RELAYD/host/HOST/SESSION`)
 * while one thread writes slowly and the other CPUs stay quiet: it prints
 * events while the program runs, each within a bounded time of its writing
 * (the flush interval, 100 ms, plus its own polling), never held back by a
 * quiet CPU; once the session ends, it has printed every event from the
 * first it saw to the last, each with its content, and ends by itself.
 */
Test(consumer_relayd, babeltrace2_follows_a_session_live)
{
	const uint64_t events = 500;
	struct relayd r = { 0 };
	char *log = NULL, *s = NULL, *out, params[512], ev[32];
	double t_end = 0, max_lag = 0, sum_lag = 0, first_at = 0;
	uint64_t next = UINT64_MAX, n = 0, during = 0;
	int lfd, st, cpus[MAXCPU];
	bool rec_done = false;
	size_t off = 0;
	pid_t rec, bt;

	relayd_skip_if_absent();
	cr_assert_gt(allowed_cpus(cpus), 0);
	relayd_start(&r);
	snprintf(ev, sizeof(ev), "%" PRIu64, events);
	{
		/* 2 s: 5 events every 20 ms, one thread pinned to one CPU. */
		char *argv[] = { ringtrace(), "record", "--flush-interval", "100ms", "-o",
				 relayd_url(&r), "--", emit_path(), "--pin", "--threads", "1",
				 "--events", ev, "--pace", "5:20000", NULL };

		lfd = open_log(P("%s/record.log", r.dir));
		rec = spawn(argv, NULL, -1, -1, lfd);
		close(lfd);
	}
	s = wait_session(&r);
	snprintf(params, sizeof(params), "inputs=[\"net://127.0.0.1:%d/host/%s\"],"
		 "session-not-found-action=\"end\"", r.port[2], s);
	{
		char *argv[] = { "/usr/bin/babeltrace2", "--component=src.ctf.lttng-live",
				 "--params", params, "--component=sink.text.pretty", "--params",
				 "clock-seconds=true", NULL };

		bt = spawn_live(&r, argv);
	}
	/* Read what it prints as it prints it: when each event line came. */
	for (double t0 = now();; usleep(5000)) {
		char *text = slurp(P("%s/live.txt", r.dir));
		double arrived = now();
		struct timespec rt;
		double wall;
		char *l;

		clock_gettime(CLOCK_REALTIME, &rt);
		wall = (double)rt.tv_sec + (double)rt.tv_nsec / 1e9;
		if (!rec_done && waitpid(rec, &st, WNOHANG) == rec) {
			rec_done = true;
			t_end = arrived;
			expect_exit(st, 0, "ringtrace record -o net://", NULL);
		}
		for (l = text + off; text && strchr(l, '\n'); l = strchr(l, '\n') + 1) {
			uint64_t seq, check;
			uint32_t th;
			double ts;

			off = (size_t)(strchr(l, '\n') + 1 - text);
			*strchr(l, '\n') = 0;	/* the line alone */
			if (!bt2_event_line(l, &ts, &th, &seq, &check)) {
				l[strlen(l)] = '\n';
				continue;
			}
			l[strlen(l)] = '\n';
			cr_assert_eq(th, 0);
			cr_assert_eq(check, emit_checksum(th, seq), "seq %" PRIu64 ": bad checksum",
				     seq);
			cr_assert(next == UINT64_MAX || seq == next, "babeltrace2 printed seq %"
				  PRIu64 " after %" PRIu64, seq, next - 1);
			next = seq + 1;
			n++;
			if (!rec_done) {
				during++;
				if (!first_at)
					first_at = arrived;
			}
			/* The lag: from the event's time to its line (polled every 5 ms). */
			if (!rec_done && wall - ts > max_lag)
				max_lag = wall - ts;
			if (!rec_done)
				sum_lag += wall - ts;
		}
		free(text);
		if (rec_done && waitpid(bt, &st, WNOHANG) == bt)
			break;
		cr_assert_lt(now() - t0, 60, "babeltrace2 did not end within 60 s of the start "
			     "(%" PRIu64 " events read)", n);
	}
	expect_exit(st, 0, "babeltrace2 net://", slurp(P("%s/live.err", r.dir)));
	cr_assert_gt(during, 0, "babeltrace2 printed nothing while the program ran");
	cr_expect_eq(next, events, "babeltrace2's last event is seq %" PRIu64 ", not %" PRIu64,
		     next - 1, events - 1);
	cr_expect_lt(max_lag, 1.5, "an event took %.3f s to reach babeltrace2's output (flush "
		     "interval 100 ms)", max_lag);
	cr_log_info("babeltrace2 live: %" PRIu64 " events, %" PRIu64 " while the program ran, "
		    "lag mean %.0f ms, max %.0f ms, the first line %.2f s before the end", n, during,
		    during ? 1000 * sum_lag / (double)during : 0.0, 1000 * max_lag,
		    t_end - first_at);
	relayd_stop(&r);
	/* The relayd's copy holds all of them. */
	out = relayd_trace(&r, s);
	{
		struct tv *v = tv_new(1, events, true);

		tv_read_all(v, out);
		expect_all(v, events);
		tv_free(v);
	}
	free(s);
	free(log);
	rm_rf(r.dir);
}

/* No relayd there: a clear error naming it, before the program runs. */
Test(consumer_relayd, no_relayd_is_a_clear_error_before_the_program_runs)
{
	char *dir = make_tmpdir("/tmp"), *out;
	int port[3], st;

	free_ports(port);
	out = sh(&st, "cd '%s' && timeout 60 '%s' record -o net://127.0.0.1:%d:%d -- /bin/touch "
		 "ran 2>&1; echo rc=$?; ls", dir, ringtrace(), port[0], port[1]);
	cr_expect_not_null(strstr(out, "rc=1\n"), "%s", out);
	cr_expect_not_null(strstr(out, "lttng-relayd at 127.0.0.1"), "%s", out);
	cr_expect_not_null(strstr(out, "cannot connect to its control port"), "%s", out);
	cr_expect_not_null(strstr(out, "Connection refused"), "%s", out);
	cr_expect_null(strstr(out, "\nran\n"), "the program ran:\n%s", out);
	free(out);
	out = sh(&st, "timeout 60 '%s' record -o net://127.0.0.1:99999 -- /bin/true 2>&1; "
		 "echo rc=$?", ringtrace());
	cr_expect_not_null(strstr(out, "not net://HOST[:CONTROL_PORT[:DATA_PORT]]"), "%s", out);
	cr_expect_not_null(strstr(out, "rc=1\n"), "%s", out);
	free(out);
	/* A flight recorder's snapshots, a recovery: directories, never a relayd. */
	out = sh(&st, "cd '%s' && '%s' record --mode overwrite -o net://127.0.0.1 -- /bin/true "
		 "2>&1; echo rc=$?; '%s' recover /dev/shm/none -o net://127.0.0.1 2>&1; echo rc=$?",
		 dir, ringtrace(), ringtrace());
	cr_expect_not_null(strstr(out, "-o net:// needs discard mode"), "%s", out);
	cr_expect_not_null(strstr(out, "recover writes a directory, not to a relayd"), "%s", out);
	cr_expect_null(strstr(out, "rc=0\n"), "%s", out);
	cr_expect_neq(access(P("%s/net:", dir), F_OK), 0, "a directory net: was made");
	free(out);
	rm_rf(dir);
}

/*
 * The relayd killed mid-recording: the writers never wait for it (the
 * program's events go on at their pace, dropped and counted once the
 * queue and the ring are full), record ends on its own, exits 1, names the
 * relayd and what was not sent, and keeps those packets for recovery; what
 * the relayd received before is a valid trace.
 */
Test(consumer_relayd, a_relayd_killed_mid_recording_costs_the_writers_nothing)
{
	struct relayd r = { 0 };
	char *log = NULL, *s = NULL, *out;
	int lfd, st;
	double t0;
	pid_t rec;

	relayd_skip_if_absent();
	relayd_start(&r);
	{
		/* 3 s of events at a steady pace, then the program ends. */
		char *argv[] = { ringtrace(), "record", "--flush-interval", "100ms",
				 "--packet-size", "4K", "--packets", "4", "--buffer-size", "16K",
				 "-o", relayd_url(&r), "--", emit_path(), "--threads", "2",
				 "--events", "3000", "--pace", "10:10000", NULL };

		lfd = open_log(P("%s/record.log", r.dir));
		rec = spawn(argv, NULL, -1, -1, lfd);
		close(lfd);
	}
	t0 = now();
	s = wait_session(&r);
	usleep(800000);
	kill(r.pid, SIGKILL);
	waitpid(r.pid, &st, 0);
	r.pid = 0;
	/* The program's 3 s, and the recorder's timeouts: bounded. */
	st = wait_exit(rec, 60, "ringtrace record after the relayd was killed");
	free(log);
	log = slurp(P("%s/record.log", r.dir));
	expect_exit(st, 1, "ringtrace record after the relayd was killed", log);
	cr_expect_lt(now() - t0, 40, "record took %.0f s", now() - t0);
	cr_expect_not_null(strstr(log, "exited with status 0"), "the program did not end well:\n%s",
			   log);
	cr_expect_not_null(strstr(log, "lttng-relayd at 127.0.0.1"), "%s", log);
	cr_expect_not_null(strstr(log, "stopped writing"), "%s", log);
	cr_expect_not_null(strstr(log, "lost: "), "no loss figure:\n%s", log);
	/* The region is kept for `ringtrace recover`, and said so. */
	cr_expect_not_null(strstr(log, "is kept: `ringtrace recover"), "%s", log);
	out = sh(&st, "'%s' check '%s' 2>&1", ringtrace(), relayd_trace(&r, s));
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "what the relayd got is not a valid "
		  "trace:\n%s", out);
	free(out);
	free(sh(&st, "rm -f %s %s.queue", region_of(log), region_of(log)));
	free(s);
	free(log);
	rm_rf(r.dir);
}

/* ---- a fake relayd: truncated, oversized and nonsense answers ------------- */

struct fake_relayd {
	int scenario;
	int lfd[2];		/* control, data: listening */
	int port[2];
};

static void put32be(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/*
 * One command from @fd, its header @hlen bytes with the payload's length
 * (u64) at @len_at and the command (u32) at @cmd_at: its number, its
 * payload read and dropped; -1 at the end.
 */
static int fake_read_any(int fd, size_t hlen, size_t len_at, size_t cmd_at)
{
	uint8_t h[24], buf[4096];
	uint64_t len = 0;

	if (recv(fd, h, hlen, MSG_WAITALL) != (ssize_t)hlen)
		return -1;
	for (int i = 0; i < 8; i++)
		len = len << 8 | h[len_at + i];
	while (len) {
		ssize_t n = recv(fd, buf, len < sizeof(buf) ? len : sizeof(buf), 0);

		if (n <= 0)
			return -1;
		len -= (uint64_t)n;
	}
	return (int)((uint32_t)h[cmd_at] << 24 | (uint32_t)h[cmd_at + 1] << 16 |
		     (uint32_t)h[cmd_at + 2] << 8 | h[cmd_at + 3]);
}

/* A relayd's control command: circuit id, length u64, command, version u32. */
static int fake_read_cmd(int fd)
{
	return fake_read_any(fd, 24, 8, 16);
}

static int fake_accept(int lfd)
{
	struct pollfd p = { .fd = lfd, .events = POLLIN };

	return poll(&p, 1, 60000) == 1 ? accept4(lfd, NULL, NULL, SOCK_CLOEXEC) : -1;
}

/*
 * Each scenario answers the recorder's commands up to one it spoils:
 * 0 closes at once, 1 cuts the version's answer, 2 speaks another major,
 * 3 a minor before live mode, 4 refuses the session, 5 answers the session
 * with a path of 4 GiB, 6 answers the first stream with a nonsense code,
 * 7 never answers.
 */
static void *fake_relayd_main(void *arg)
{
	struct fake_relayd *f = arg;
	int c = fake_accept(f->lfd[0]), d = -1, cmd;
	uint8_t ans[16] = { 0 };

	if (c < 0)
		return NULL;
	if (f->scenario == 0)
		goto out;
	cmd = fake_read_cmd(c);
	if (cmd != 5 || f->scenario == 7) {
		if (f->scenario == 7) {
			/* Silent until the recorder gives up (its 10 s) and closes. */
			struct pollfd p = { .fd = c, .events = POLLIN };
			uint8_t b;

			if (poll(&p, 1, 30000) == 1)
				(void)!recv(c, &b, 1, 0);
		}
		goto out;
	}
	put32be(ans, f->scenario == 2 ? 3 : 2);
	put32be(ans + 4, f->scenario == 3 ? 1 : 13);
	if (send(c, ans, f->scenario == 1 ? 4 : 8, MSG_NOSIGNAL) < 0 || f->scenario <= 3)
		goto out;
	if (fake_read_cmd(c) != 2)
		goto out;
	memset(ans, 0, sizeof(ans));
	ans[7] = 1;					/* session id 1 */
	put32be(ans + 8, f->scenario == 4 ? 1 : 10);	/* LTTNG_OK: 10 */
	put32be(ans + 12, f->scenario == 5 ? 0xfffffff0u : 0);
	if (send(c, ans, 16, MSG_NOSIGNAL) < 0 || f->scenario <= 5)
		goto out;
	if (fake_read_cmd(c) != 19)	/* create trace chunk */
		goto out;
	put32be(ans, 10);
	if (send(c, ans, 4, MSG_NOSIGNAL) < 0)
		goto out;
	d = fake_accept(f->lfd[1]);	/* the data connection comes next */
	if (fake_read_cmd(c) != 1)	/* add stream */
		goto out;
	memset(ans, 0xde, 12);	/* code 0xdededede */
	send(c, ans, 12, MSG_NOSIGNAL);
	while (fake_read_cmd(c) >= 0)
		;
out:
	if (d >= 0)
		close(d);
	close(c);
	return NULL;
}

static void fake_listen(int *lfd, int *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);

	*lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	cr_assert_geq(*lfd, 0);
	cr_assert_eq(bind(*lfd, (struct sockaddr *)&a, sizeof(a)), 0);
	cr_assert_eq(listen(*lfd, 4), 0);
	cr_assert_eq(getsockname(*lfd, (struct sockaddr *)&a, &len), 0);
	*port = ntohs(a.sin_port);
}

Test(consumer_relayd, a_fake_relayds_bad_answers_are_clean_errors)
{
	static const char *const expect[] = {
		"version handshake: the connection was closed",
		"version handshake: the connection was closed before the whole answer came",
		"speaks protocol 3.13; ringtrace needs 2.4 to 2.11",
		"speaks protocol 2.1; ringtrace needs 2.4 to 2.11",
		"create session ",	/* ... refused (code 1 ... */
		"answered a path of 4294967280 bytes",
		"add stream metadata: refused (code 3739147998)",
		"version handshake: no answer within the timeout",
	};
	char *dir = make_tmpdir("/tmp");

	for (int sc = 0; sc < 8; sc++) {
		struct fake_relayd f = { .scenario = sc };
		pthread_t th;
		double t0 = now();
		char *out;
		int st;

		fake_listen(&f.lfd[0], &f.port[0]);
		fake_listen(&f.lfd[1], &f.port[1]);
		cr_assert_eq(pthread_create(&th, NULL, fake_relayd_main, &f), 0);
		out = sh(&st, "cd '%s' && timeout -s KILL 60 '%s' record --flush-interval 100ms "
			 "-o net://127.0.0.1:%d:%d -- '%s' --threads 1 --events 1000 2>&1; "
			 "echo rc=$?", dir, ringtrace(), f.port[0], f.port[1], emit_path());
		cr_expect_lt(now() - t0, 30, "scenario %d took %.0f s", sc, now() - t0);
		pthread_join(th, NULL);
		close(f.lfd[0]);
		close(f.lfd[1]);
		cr_expect_not_null(strstr(out, "rc=1\n"), "scenario %d: not a clean failure:\n%s",
				   sc, out);
		cr_expect_not_null(strstr(out, expect[sc]), "scenario %d: no '%s' in:\n%s", sc,
				   expect[sc], out);
		cr_expect_null(strstr(out, "Sanitizer"), "scenario %d:\n%s", sc, out);
		if (sc == 4)
			cr_expect_not_null(strstr(out, "refused (code 1"), "%s", out);
		if (sc == 6) {
			/* The program ran, its region kept for recovery. */
			cr_expect_not_null(strstr(out, "exited with status 0"), "%s", out);
			free(sh(&st, "rm -f %s %s.queue", region_of(out), region_of(out)));
		}
		free(out);
	}
	rm_rf(dir);
}

/* ---- a fake relayd's live port: the viewer protocol, spoiled ---------------- */

/* A viewer command: length u64, command, version u32. */
static int fake_read_vcmd(int fd)
{
	return fake_read_any(fd, 16, 0, 8);
}

static void put64be(uint8_t *p, uint64_t v)
{
	put32be(p, (uint32_t)(v >> 32));
	put32be(p + 4, (uint32_t)v);
}

struct fake_live {
	int scenario;
	int lfd, port;
};

/*
 * The live port of a relayd that answers a reader up to the answer a
 * scenario spoils: 0 closes after the first command, 1 speaks another
 * major, 2 lists 2^32 - 1 sessions, 3 a session whose host name has no
 * end, 4 attaches with a million streams, 5 indexes a packet of 12345
 * bits, 6 sends 100 bytes for a packet indexed as 4096, 7 announces 1 TiB
 * of metadata, 8 never answers the list, 9 answers an index with status
 * 99.
 */
static void *fake_live_main(void *arg)
{
	struct fake_live *f = arg;
	int c = fake_accept(f->lfd), sc = f->scenario;
	static uint8_t a[8 + 2 * 4371];

	if (c < 0)
		return NULL;
	if (fake_read_vcmd(c) != 1 || sc == 0)	/* connect */
		goto out;
	memset(a, 0, 20);
	put32be(a + 8, sc == 1 ? 3 : 2);
	put32be(a + 12, 4);
	if (send(c, a, 20, MSG_NOSIGNAL) < 0 || sc == 1 || fake_read_vcmd(c) != 8)
		goto out;
	put32be(a, 1);	/* viewer session created */
	if (send(c, a, 4, MSG_NOSIGNAL) < 0 || fake_read_vcmd(c) != 2)
		goto out;
	if (sc == 8) {	/* silent until the reader gives up (its 10 s) */
		struct pollfd p = { .fd = c, .events = POLLIN };

		if (poll(&p, 1, 30000) == 1)
			(void)!recv(c, a, 1, 0);
		goto out;
	}
	/* the sessions: id u64, live timer, clients, streams u32, host[64], name[255] */
	memset(a, 0, 4 + 339);
	put32be(a, sc == 2 ? 0xffffffffu : 1);
	put64be(a + 4, 7);
	memset(a + 4 + 20, 'h', sc == 3 ? 64 : 1);
	a[4 + 84] = 's';
	if (send(c, a, 4 + 339, MSG_NOSIGNAL) < 0 || sc <= 3 || fake_read_vcmd(c) != 3)
		goto out;
	/* attached, the streams: id, trace id u64, metadata flag u32, path[4096], channel[255] */
	memset(a, 0, 8 + 2 * 4371);
	put32be(a, 1);
	put32be(a + 4, sc == 4 ? 1000000 : sc == 7 ? 2 : 1);
	put64be(a + 8, 1);
	strcpy((char *)a + 8 + 4116, "stream_0");
	put64be(a + 8 + 4371, 100);
	put32be(a + 8 + 4371 + 16, 1);
	strcpy((char *)a + 8 + 4371 + 4116, "metadata");
	if (send(c, a, 8 + (sc == 7 ? 2 : 1) * 4371, MSG_NOSIGNAL) < 0 || sc == 4)
		goto out;
	if (sc == 7) {
		if (fake_read_vcmd(c) != 6)	/* get metadata */
			goto out;
		memset(a, 0, 12);
		put64be(a, 1ull << 40);
		put32be(a + 8, 1);
		send(c, a, 12, MSG_NOSIGNAL);
		goto out;
	}
	if (fake_read_vcmd(c) != 4)	/* get next index */
		goto out;
	memset(a, 0, 64);
	put64be(a + 8, sc == 5 ? 12345 : 8 * 4096);
	put64be(a + 16, 8 * 4096);
	put32be(a + 56, sc == 9 ? 99 : 1);
	if (send(c, a, 64, MSG_NOSIGNAL) < 0 || sc != 6 || fake_read_vcmd(c) != 5)
		goto out;
	memset(a, 0, 12 + 100);
	put32be(a, 1);
	put32be(a + 4, 100);
	send(c, a, 12 + 100, MSG_NOSIGNAL);
out:
	close(c);
	return NULL;
}

/* Our live reader (dump net://...) against each spoilt answer: a clean error, at once. */
Test(consumer_relayd, a_fake_relayds_bad_live_answers_are_clean_errors)
{
	static const char *const expect[] = {
		"lttng-relayd: connect: the relayd closed the connection",
		"speaks viewer protocol 3, not 2",
		"lttng-relayd: 4294967295 sessions",
		"a session's name is not terminated",
		"1000000 streams: not a session of ours",
		"an index of 12345 bits",
		"a packet of 100 bytes for an index of 4096",
		"metadata of more than",
		"list sessions: no answer within 10 s",
		"get next index: status 99",
	};

	for (int sc = 0; sc < 10; sc++) {
		struct fake_live f = { .scenario = sc };
		pthread_t th;
		double t0 = now();
		char *out;
		int st;

		fake_listen(&f.lfd, &f.port);
		cr_assert_eq(pthread_create(&th, NULL, fake_live_main, &f), 0);
		out = sh(&st, "timeout -s KILL 60 '%s' dump net://127.0.0.1:%d/host/h/s 2>&1; "
			 "echo rc=$?", ringtrace(), f.port);
		cr_expect_lt(now() - t0, 30, "scenario %d took %.0f s", sc, now() - t0);
		pthread_join(th, NULL);
		close(f.lfd);
		cr_expect_not_null(strstr(out, "rc=1\n"), "scenario %d: not a clean failure:\n%s",
				   sc, out);
		cr_expect_not_null(strstr(out, expect[sc]), "scenario %d: no '%s' in:\n%s", sc,
				   expect[sc], out);
		cr_expect_null(strstr(out, "Sanitizer"), "scenario %d:\n%s", sc, out);
		free(out);
	}
}

/*
 * `ringtrace dump net://RELAYD/host/HOST/SESSION` follows a session live
 * from its first packet, and prints, when the session ends, exactly what
 * `dump` prints of the relayd's copy of the trace: every event, in the
 * same order, with the same content.
 */
Test(consumer_relayd, dump_follows_a_session_live_from_its_start)
{
	struct relayd r = { 0 };
	char *log = NULL, *s = NULL, *live, *whole, url[512];
	int st, n = 0;
	pid_t rec, dump;

	relayd_skip_if_absent();
	relayd_start(&r);
	rec = record_paced(&r, "2", "300", "10:50000");
	s = wait_session(&r);
	snprintf(url, sizeof(url), "net://127.0.0.1:%d/host/%s", r.port[2], s);
	{
		char *argv[] = { ringtrace(), "dump", url, NULL };

		dump = spawn_live(&r, argv);
	}
	st = wait_exit(rec, 60, "ringtrace record -o net://");
	expect_exit(st, 0, "ringtrace record -o net://", NULL);
	st = wait_exit(dump, 60, "ringtrace dump net://");
	expect_exit(st, 0, "ringtrace dump net://", slurp(P("%s/live.err", r.dir)));
	free(sh(&st, "'%s' dump '%s' > '%s/whole.txt' 2>/dev/null", ringtrace(),
		relayd_trace(&r, s), r.dir));
	cr_assert_eq(st, 0);
	live = slurp(P("%s/live.txt", r.dir));
	whole = slurp(P("%s/whole.txt", r.dir));
	cr_assert_not_null(live);
	cr_assert_not_null(whole);
	for (const char *p = live; (p = strstr(p, "rtrtest:ev:")); p++)
		n++;
	cr_expect_eq(n, 600, "dump net:// printed %d events, not 600", n);
	cr_expect_str_eq(live, whole, "dump net:// and dump of the relayd's copy differ");
	free(live);
	free(whole);
	/* A session the relayd does not have: said, exit 1. */
	live = sh(&st, "'%s' dump net://127.0.0.1:%d/host/%s-not 2>&1; echo rc=$?", ringtrace(),
		  r.port[2], s);
	cr_expect_not_null(strstr(live, "no live session"), "%s", live);
	cr_expect_not_null(strstr(live, "rc=1\n"), "%s", live);
	free(live);
	relayd_stop(&r);
	free(s);
	free(log);
	rm_rf(r.dir);
}

/*
 * The viewers follow a session live as they follow a directory: `view
 * --serve --follow net://...` serves the scene of the events come so far,
 * made again as more come, to the session's end; `gui --follow net://...`
 * (under xvfb, when there) draws scenes while it runs and its screenshot
 * once the session ended, every event in it.
 */
Test(consumer_relayd, the_viewers_follow_a_session_live, .timeout = 240)
{
	struct relayd r = { 0 };
	char *s, *out, url[512];
	unsigned long first = 0, last = 0, turn = 0;
	int st;
	pid_t rec;

	relayd_skip_if_absent();
	relayd_start(&r);
	/* 2 threads x 600 events, 10 each 50 ms: 3 s */
	rec = record_paced(&r, "2", "600", "10:50000");
	s = wait_session(&r);
	snprintf(url, sizeof(url), "net://127.0.0.1:%d/host/%s", r.port[2], s);
	out = sh(&st, "cd '%s' && { '%s' view --serve --follow '%s' >serve.log 2>&1 & "
		 "spid=$!; } && for i in $(seq 1200); do grep -q 'recording ended' serve.log && break; "
		 "sleep 0.05; done; kill -TERM $spid; wait $spid; echo rc=$?; cat serve.log",
		 r.dir, ringtrace(), url);
	{
		const char *p = strstr(out, "serving "), *e = strstr(out, "the recording ended: ");

		cr_assert(p && sscanf(p, "serving %lu events", &first) == 1, "%s", out);
		cr_assert(e && sscanf(e, "the recording ended: %lu events", &last) == 1, "%s", out);
	}
	cr_expect_eq(last, 1200, "the served scene at the session's end: %lu events, not 1200:\n%s",
		     last, out);
	cr_expect_lt(first, 1200, "the first scene had every event: nothing was followed:\n%s", out);
	cr_expect_not_null(strstr(out, "rc=0\n"), "%s", out);
	free(out);
	st = wait_exit(rec, 60, "ringtrace record -o net://");
	expect_exit(st, 0, "ringtrace record -o net://", NULL);
	free(s);
	if (system("command -v xvfb-run >/dev/null 2>&1 && command -v Xvfb >/dev/null 2>&1")) {
		relayd_stop(&r);
		rm_rf(r.dir);
		cr_skip_test("xvfb-run missing (Debian's xvfb): the window's follow is not tested");
	}
	rec = record_paced(&r, "2", "600", "10:50000");
	s = wait_session(&r);
	snprintf(url, sizeof(url), "net://127.0.0.1:%d/host/%s", r.port[2], s);
	out = sh(&st, "cd '%s' && GSK_RENDERER=cairo NO_AT_BRIDGE=1 timeout 90 xvfb-run -a -s "
		 "'-screen 0 1280x800x24' '%s' gui --follow --size 800x300 --screenshot shot.png "
		 "'%s' 2>&1 | grep -v -e dbus -e 'session bus'; ls shot.png", r.dir, ringtrace(), url);
	if (strstr(out, "no display could be opened") || strstr(out, "xvfb-run: error")) {
		free(out);
		kill(rec, SIGKILL);
		wait_exit(rec, 60, "ringtrace record -o net://");
		relayd_stop(&r);
		rm_rf(r.dir);
		cr_skip_test("no X display could be made under xvfb-run");
	}
	{
		const char *e = strstr(out, "the recording ended: ");

		cr_assert(e && sscanf(e, "the recording ended: %lu events, %*u tasks (turn %lu)",
				      &last, &turn) == 2, "%s", out);
	}
	cr_expect_eq(last, 1200, "the window's last scene: %lu events, not 1200:\n%s", last, out);
	cr_expect_geq(turn, 2, "scenes drawn while the session ran:\n%s", out);
	cr_expect_not_null(strstr(out, "shot.png"), "%s", out);
	free(out);
	st = wait_exit(rec, 60, "ringtrace record -o net://");
	expect_exit(st, 0, "ringtrace record -o net://", NULL);
	relayd_stop(&r);
	free(s);
	rm_rf(r.dir);
}

/*
 * Our live client reads LTTng's own live sessions too: an LTTng-UST
 * session made by lttng-tools (tests/interop/lttng/record.sh --live, its
 * session daemon as nobody) streams a paced program into our relayd, and
 * `ringtrace dump net://` prints its events while it runs, then every
 * event of every round, each once, and ends by itself.
 */
Test(consumer_relayd, dump_follows_an_lttng_ust_live_session, .timeout = 180)
{
	const int rounds = 60;
	struct relayd r = { 0 };
	char url[512], host[256], *text, *err, *ldir = make_tmpdir("/tmp");
	int lfd, st, seen[60] = { 0 }, nint = 0, during = 0;
	bool rec_done = false;
	pid_t rec, dump;

	relayd_skip_if_absent();
	if (access("/usr/bin/lttng-sessiond", X_OK))
		cr_skip_test("lttng-sessiond is not installed (Debian's lttng-tools)");
	cr_assert_eq(gethostname(host, sizeof(host)), 0);
	relayd_start(&r);
	{
		char live[128], app[PATH_MAX], script[PATH_MAX];
		char *argv[] = { "/bin/sh", script, NULL, "--live", live, "--", app, "--events",
				 "60", "--pace", "50000", NULL };

		snprintf(live, sizeof(live), "net://127.0.0.1:%d:%d", r.port[0], r.port[1]);
		snprintf(app, sizeof(app), "%s/rtr-lttng-app", bindir());
		snprintf(script, sizeof(script), "%s/tests/interop/lttng/record.sh", srcdir());
		/* Its own directory, not under ours: the daemon runs as nobody. */
		argv[2] = ldir;
		lfd = open_log(P("%s/lttng.log", r.dir));
		rec = spawn(argv, NULL, -1, lfd, lfd);
		close(lfd);
	}
	/* The session exists once the relayd has it: dump from its start. */
	snprintf(url, sizeof(url), "net://127.0.0.1:%d/host/%s/rec", r.port[2], host);
	for (double t0 = now();; usleep(20000)) {
		text = sh(&st, "babeltrace2 query src.ctf.lttng-live sessions -p "
			  "'url=\"net://127.0.0.1:%d\"' 2>/dev/null", r.port[2]);
		if (text && strstr(text, "/rec"))
			break;
		free(text);
		cr_assert_lt(now() - t0, 30, "the LTTng session did not reach the relayd in 30 s:"
			     "\n%s", slurp(P("%s/lttng.log", r.dir)));
	}
	free(text);
	{
		char *argv[] = { ringtrace(), "dump", url, NULL };

		dump = spawn_live(&r, argv);
	}
	/* Lines while the program runs: the rounds' `text` events seen then. */
	for (double t0 = now(); !rec_done; usleep(20000)) {
		rec_done = waitpid(rec, &st, WNOHANG) == rec;
		text = slurp(P("%s/live.txt", r.dir));
		if (!rec_done && text && strstr(text, "rtrtest:text:"))
			during = 1;
		free(text);
		cr_assert_lt(now() - t0, 90, "record.sh --live did not end in 90 s");
	}
	expect_exit(st, 0, "record.sh --live", slurp(P("%s/lttng.log", r.dir)));
	st = wait_exit(dump, 60, "ringtrace dump net:// of an LTTng session");
	err = slurp(P("%s/live.err", r.dir));
	expect_exit(st, 0, "ringtrace dump net:// of an LTTng session", err);
	text = slurp(P("%s/live.txt", r.dir));
	cr_assert_not_null(text);
	for (const char *p = text; (p = strstr(p, "rtrtest:text: {")); p++) {
		const char *i = strstr(p, ", i = ");
		long v;

		cr_assert_not_null(i);
		v = strtol(i + 6, NULL, 10);
		cr_assert(v >= 0 && v % 16 == 0 && v / 16 < rounds, "i = %ld", v);
		cr_expect_eq(seen[v / 16]++, 0, "round %ld printed twice", v / 16);
		nint++;
	}
	cr_expect_eq(nint, rounds, "%d rounds printed of %d:\n%s", nint, rounds, err);
	for (const char *ev = "ints\0seqs\0empty\0"; *ev; ev += strlen(ev) + 1) {
		int n = 0;
		char *pat = strdup(P("rtrtest:%s: {", ev));

		for (const char *p = text; (p = strstr(p, pat)); p++)
			n++;
		cr_expect_eq(n, rounds, "%d rtrtest:%s events, not %d", n, ev, rounds);
		free(pat);
	}
	cr_expect(during, "dump printed nothing while the program ran");
	cr_expect_not_null(strstr(err, "0 events lost, 0 packets lost"), "%s", err);
	free(text);
	free(err);
	relayd_stop(&r);
	rm_rf(r.dir);
	rm_rf(ldir);
}

/* The three hosts' network (below): names made of our pid, removed by .fini. */
static char net_br[16], net_ns[3][24];

static void hosts_net_down(void)
{
	char cmd[256];

	for (int i = 0; i < 3; i++) {
		if (!net_ns[i][0])
			continue;
		snprintf(cmd, sizeof(cmd), "ip netns del %s 2>/dev/null", net_ns[i]);
		if (system(cmd)) {
			/* already gone */
		}
	}
	if (net_br[0]) {
		snprintf(cmd, sizeof(cmd), "ip link del %s 2>/dev/null", net_br);
		if (system(cmd)) {
			/* already gone */
		}
	}
}

/* "[SECONDS.ns] (+delta) HOST rtrtest:ev: ..." of babeltrace2 (--clock-seconds). */
static int bt2_host_of(const char *l)
{
	const char *h = strstr(l, " rtrhost");

	/* "rtrhostN:(PID) " when the trace says the process, else "rtrhostN " */
	return h && h[8] >= '0' && h[8] <= '2' && (h[9] == ' ' || h[9] == ':') ? h[8] - '0' : -1;
}

/*
 * Three hosts, one relayd: three network namespaces, each with a host name
 * of its own (a UTS namespace) and a veth on a bridge of a private subnet
 * the test makes, where the relayd listens.  Each host records a traced
 * program into the relayd; one writes steadily, two write an event every
 * 1.2 s (idle for long stretches, so their streams' beacons are what keeps
 * a live reader going).  babeltrace2 follows the three sessions live as one
 * (`src.ctf.lttng-live`, three inputs): every event printed within 1 s of
 * its writing, events of all three hosts while they run.  Afterwards each
 * host's copy holds every event (our reader, babeltrace2 and `check`), and
 * `ringtrace dump` of the relayd's output merges the three hosts in time.
 */
Test(consumer_relayd, three_hosts_into_one_relayd_followed_live, .timeout = 300,
     .fini = hosts_net_down)
{
	static const char *const events[3] = { "3000", "4", "4" };
	static const char *const threads[3] = { "2", "1", "1" };
	static const char *const pace[3] = { "10:10000", "1:1200000", "1:1200000" };
	struct relayd r = { 0 };
	char subnet[32], addr[32], *s[3], *out, *text;
	int st, lfd, npid = (int)getpid() % 100000, during[3] = { 0 }, n[3] = { 0 };
	long long last[3] = { -1, -1, -1 };
	double max_lag = 0;
	pid_t rec[3], bt;
	bool done[3] = { false }, all_done = false;
	size_t off = 0;

	relayd_skip_if_absent();
	if (geteuid() || access("/usr/sbin/ip", X_OK) || access("/usr/bin/unshare", X_OK))
		cr_skip_test("network namespaces need root, ip (iproute2) and unshare");
	/* A private subnet: 10.213.X.0/24, X from our pid (two runs at once do not meet). */
	snprintf(subnet, sizeof(subnet), "10.213.%d", npid % 250);
	snprintf(addr, sizeof(addr), "%s.1", subnet);
	snprintf(net_br, sizeof(net_br), "rtb%d", npid);
	text = sh(&st, "ip link add %s type bridge && ip addr add %s/24 dev %s && "
		  "ip link set %s up 2>&1", net_br, addr, net_br, net_br);
	if (st) {
		net_br[0] = 0;
		cr_skip_test("no bridge could be made here (%s): the three hosts are not tested",
			     text);
	}
	free(text);
	for (int i = 0; i < 3; i++) {
		snprintf(net_ns[i], sizeof(net_ns[i]), "rtrns%d-%d", npid, i);
		free(sh(&st, "ip netns add %s && ip link add rtv%d%c type veth peer name rtp%d%c && "
			"ip link set rtp%d%c netns %s && ip link set rtv%d%c master %s up && "
			"ip -n %s addr add %s.%d/24 dev rtp%d%c && ip -n %s link set rtp%d%c up && "
			"ip -n %s link set lo up 2>&1", net_ns[i], npid, 'a' + i, npid, 'a' + i,
			npid, 'a' + i, net_ns[i], npid, 'a' + i, net_br, net_ns[i], subnet, 2 + i,
			npid, 'a' + i, net_ns[i], npid, 'a' + i, net_ns[i]));
		cr_assert_eq(st, 0, "host %d's network could not be made", i);
	}
	r.addr = addr;
	relayd_start(&r);
	for (int i = 0; i < 3; i++) {
		char script[2048], ns[24];
		char *argv[] = { "/usr/sbin/ip", "netns", "exec", ns, "/usr/bin/unshare", "--uts",
				 "/bin/sh", "-c", script, NULL };

		snprintf(ns, sizeof(ns), "%s", net_ns[i]);
		snprintf(script, sizeof(script), "hostname rtrhost%d && exec '%s' record "
			 "--flush-interval 100ms -o '%s' -- '%s' --threads %s --events %s --pace %s",
			 i, ringtrace(), relayd_url(&r), emit_path(), threads[i], events[i], pace[i]);
		lfd = open_log(P("%s/record%d.log", r.dir, i));
		rec[i] = spawn(argv, NULL, -1, -1, lfd);
		close(lfd);
	}
	for (int i = 0; i < 3; i++) {
		char *log = NULL;

		for (double t0 = now(); !(s[i] = session_of(log)); usleep(5000)) {
			free(log);
			log = slurp(P("%s/record%d.log", r.dir, i));
			cr_assert_lt(now() - t0, 20, "host %d named no session:\n%s", i,
				     log ? log : "");
		}
		cr_expect_not_null(strstr(s[i], P("rtrhost%d/", i)), "host %d's session is %s", i,
				   s[i]);
		s[i] = strdup(s[i]);
		free(log);
	}
	/* One source per session (lttng-live takes one input), muxed into one sink. */
	{
		char p3[3][512], c3[3][48];
		char *argv[] = { "/usr/bin/babeltrace2", c3[0], "--params", p3[0], c3[1], "--params",
				 p3[1], c3[2], "--params", p3[2], "--component=sink.text.pretty",
				 "--params", "clock-seconds=true", NULL };

		for (int i = 0; i < 3; i++) {
			snprintf(c3[i], sizeof(c3[i]), "--component=host%d:src.ctf.lttng-live", i);
			snprintf(p3[i], sizeof(p3[i]), "inputs=[\"net://%s:%d/host/%s\"],"
				 "session-not-found-action=\"end\"", addr, r.port[2], s[i]);
		}
		bt = spawn_live(&r, argv);
	}
	/* Each line as it comes: whose, and how long after its event was written. */
	for (double t0 = now();; usleep(5000)) {
		char *live = slurp(P("%s/live.txt", r.dir));
		struct timespec rt;
		double wall;

		clock_gettime(CLOCK_REALTIME, &rt);
		wall = (double)rt.tv_sec + (double)rt.tv_nsec / 1e9;
		if (!all_done) {
			all_done = true;
			for (int i = 0; i < 3; i++) {
				if (!done[i] && waitpid(rec[i], &st, WNOHANG) == rec[i]) {
					done[i] = true;
					expect_exit(st, 0, "ringtrace record -o net:// in a namespace",
						    slurp(P("%s/record%d.log", r.dir, i)));
				}
				all_done &= done[i];
			}
		}
		while (live && strchr(live + off, '\n')) {
			char *l = live + off, *nl = strchr(l, '\n');
			int h;

			*nl = 0;
			off = (size_t)(nl + 1 - live);
			if (!strstr(l, "rtrtest:ev:") || (h = bt2_host_of(l)) < 0)
				continue;
			n[h]++;
			if (strstr(l, "thread = 0,") && strstr(l, "seq = "))
				last[h] = strtoll(strstr(l, "seq = ") + 6, NULL, 10);
			if (!all_done) {
				double lag = wall - strtod(l + 1, NULL);

				during[h]++;
				if (lag > max_lag)
					max_lag = lag;
			}
		}
		free(live);
		if (all_done && waitpid(bt, &st, WNOHANG) == bt)
			break;
		cr_assert_lt(now() - t0, 120, "babeltrace2 did not end within 120 s");
	}
	expect_exit(st, 0, "babeltrace2 net:// (three hosts)", slurp(P("%s/live.err", r.dir)));
	for (int i = 0; i < 3; i++)
		cr_expect_gt(during[i], 0, "babeltrace2 printed nothing of host %d while it ran", i);
	cr_expect_lt(max_lag, 1.0, "an event took %.3f s to reach babeltrace2 (goal: 1 s)",
		     max_lag);
	cr_log_info("three hosts live: %d + %d + %d events, the longest lag %.0f ms", n[0], n[1],
		    n[2], 1000 * max_lag);
	relayd_stop(&r);
	/* Each host's copy: every event; then the three in one time order. */
	for (int i = 0; i < 3; i++) {
		struct tv *v = tv_new((uint32_t)atoi(threads[i]), strtoull(events[i], NULL, 10),
				      false);

		tv_read_all(v, relayd_trace(&r, s[i]));
		expect_all(v, strtoull(events[i], NULL, 10));
		/* From where it attached (not always the first packet) to the last event. */
		cr_expect_eq(last[i], atoll(events[i]) - 1, "babeltrace2's last event of host %d "
			     "is seq %lld", i, last[i]);
		tv_free(v);
		free(s[i]);
	}
	out = sh(&st, "'%s' dump --clock-seconds '%s/out' 2>/dev/null", ringtrace(), r.dir);
	cr_assert_eq(st, 0);
	if (getenv("RTR_KEEP_RELAYD"))
		cr_log_warn("kept: %s", r.dir);
	{
		double prev = 0;
		int hosts[3] = { 0 }, total = 0;

		for (char *l = out, *nl; l && (nl = strchr(l, '\n')); l = nl + 1) {
			double t = strtod(l + 1, NULL);
			const char *h;

			*nl = 0;	/* the line alone */
			h = strstr(l, " rtrhost");
			if (!strstr(l, "rtrtest:ev:") || !h)
				continue;
			cr_assert_geq(t, prev, "dump of the relayd's output goes back in time");
			prev = t;
			cr_assert(h[8] >= '0' && h[8] <= '2');
			hosts[h[8] - '0']++;
			total++;
		}
		for (int i = 0; i < 3; i++)
			cr_expect_eq(hosts[i], atoi(threads[i]) * atoi(events[i]),
				     "dump: %d events of host %d", hosts[i], i);
		cr_expect_eq(total, 6008);
	}
	free(out);
	/* babeltrace2 merges the three traces too: their clocks are absolute (ctf.rst). */
	out = sh(&st, "babeltrace2 '%s/out' 2>&1 | grep -c 'rtrtest:ev:'", r.dir);
	cr_expect_eq(atoi(out ? out : "0"), 6008, "babeltrace2 of the relayd's output: %s", out);
	free(out);
	if (!getenv("RTR_KEEP_RELAYD"))
		rm_rf(r.dir);
}

/*
 * Two recordings of the same program, started together, into one relayd:
 * two sessions (the recorder's pid in the name), each with every event of
 * its own run and nothing of the other's.
 */
Test(consumer_relayd, two_recordings_at_once_are_two_sessions)
{
	struct relayd r = { 0 };
	char *log[2], *s[2];
	pid_t rec[2];
	int st;

	relayd_skip_if_absent();
	relayd_start(&r);
	for (int i = 0; i < 2; i++) {
		char *argv[] = { ringtrace(), "record", "--flush-interval", "100ms", "-o",
				 relayd_url(&r), "--", emit_path(), "--threads", "2", "--events",
				 "5000", NULL };
		int lfd = open_log(P("%s/record-%d.log", r.dir, i));

		rec[i] = spawn(argv, NULL, -1, -1, lfd);
		close(lfd);
	}
	for (int i = 0; i < 2; i++) {
		st = wait_exit(rec[i], 60, "ringtrace record -o net://");
		log[i] = slurp(P("%s/record-%d.log", r.dir, i));
		expect_exit(st, 0, "ringtrace record -o net://", log[i]);
		s[i] = session_of(log[i]);
		cr_assert_not_null(s[i], "%s", log[i]);
		s[i] = strdup(s[i]);
	}
	cr_assert_str_neq(s[0], s[1], "both recordings were filed as %s", s[0]);
	relayd_stop(&r);
	for (int i = 0; i < 2; i++) {
		struct tv *v = tv_new(2, 5000, false);

		tv_read_all(v, relayd_trace(&r, s[i]));
		expect_all(v, 5000);
		tv_free(v);
		free(s[i]);
		free(log[i]);
	}
	rm_rf(r.dir);
}

/*
 * The relayd killed, then started again on the same ports a second later:
 * the recorder reaches it again, goes on as SESSION-r1, and says so; the
 * queue held what the writers made meanwhile, and the packets the relayd
 * had not said it wrote, so the two sessions together hold every event of
 * every thread (a packet written but not yet said so is sent again, and
 * is in both).  @stop_first: the relayd is stopped (SIGSTOP) for a second
 * first, so that packets go out that it never reads (the recorder does
 * not wait for answers before the next packet or beacon): what its socket
 * held dies with it, and the recorder must send those packets again in
 * the new session.
 */
static void relayd_restart_case(bool stop_first)
{
	const uint64_t events = 2500;
	struct relayd r = { 0 };
	struct tv *v[2];
	char *log, *s, *s1;
	int lfd, st;
	pid_t rec;

	relayd_skip_if_absent();
	relayd_start(&r);
	rec = record_paced(&r, "2", "2500", "10:20000");	/* 5 s, 10 events each 20 ms */
	s = wait_session(&r);
	usleep(1000000);
	if (stop_first) {
		kill(r.pid, SIGSTOP);
		usleep(1000000);
	}
	kill(r.pid, SIGKILL);
	waitpid(r.pid, &st, 0);
	usleep(1000000);
	{
		/* The same relayd again: same ports, same output directory. */
		char ctl[64], data[64], live[64], out[PATH_MAX];
		char *argv[] = { RELAYD_BIN, "-o", out, "-C", ctl, "-D", data, "-L", live, NULL };
		char env[PATH_MAX + 16];
		const char *envp[] = { env, NULL };
		double t0 = now();

		snprintf(out, sizeof(out), "%s/out", r.dir);
		snprintf(ctl, sizeof(ctl), "tcp://127.0.0.1:%d", r.port[0]);
		snprintf(data, sizeof(data), "tcp://127.0.0.1:%d", r.port[1]);
		snprintf(live, sizeof(live), "tcp://127.0.0.1:%d", r.port[2]);
		snprintf(env, sizeof(env), "LTTNG_HOME=%s", r.dir);
		lfd = open_log(P("%s/relayd2.log", r.dir));
		r.pid = spawn(argv, envp, -1, lfd, lfd);
		close(lfd);
		while (!listening(r.port[0]) && now() - t0 < 20)
			usleep(10000);
	}
	st = wait_exit(rec, 60, "ringtrace record across a relayd restart");
	log = slurp(P("%s/record.log", r.dir));
	expect_exit(st, 0, "ringtrace record across a relayd restart", log);
	cr_expect_not_null(strstr(log, "reached again 1 time after it failed"), "%s", log);
	if (stop_first)
		cr_expect_not_null(strstr(log, "it had not confirmed before it failed went again"),
				   "no packet was sent again:\n%s", log);
	cr_expect_eq(reported_lost(log), 0, "%s", log);
	s1 = strdup(P("%s-r1", s));
	cr_expect_not_null(strstr(log, s1), "the new session %s is not named:\n%s", s1, log);
	relayd_stop(&r);
	/* Each session's trace alone is whole and clean; together they hold every event. */
	for (int i = 0; i < 2; i++) {
		v[i] = tv_new(2, events, false);
		tv_read_all(v[i], relayd_trace(&r, i ? s1 : s));
		cr_expect_gt(v[i]->all.emit_events, 0, "session %d holds no event", i);
		/* Nothing was lost: no gap inside either (babeltrace2 would report one). */
		cr_expect_eq(v[i]->all.lost_packets - v[i]->all.lost_first, 0, "session %d: %" PRIu64
			     " packets missing between its packets", i,
			     v[i]->all.lost_packets - v[i]->all.lost_first);
	}
	for (uint32_t t = 0; t < 2; t++)
		for (uint64_t q = 0; q < events; q++)
			cr_assert(v[0]->seen[t][q] || v[1]->seen[t][q], "thread %u seq %" PRIu64
				  " is in neither session", t, q);
	tv_free(v[0]);
	tv_free(v[1]);
	free(s1);
	free(s);
	free(log);
	rm_rf(r.dir);
}

Test(consumer_relayd, a_relayd_restarted_mid_recording_gets_the_rest_as_a_new_session)
{
	relayd_restart_case(false);
}

Test(consumer_relayd, packets_a_stopped_relayd_never_confirmed_go_again_after_it_restarts)
{
	relayd_restart_case(true);
}

/*
 * The older dialects (protocol 2.10, and 2.7 with its shorter index),
 * spoken to the same relayd (RINGTRACE_RELAYD_MINOR): the trace, in
 * OUT/HOST/SESSION without a chunk, holds every event too.
 */
Test(consumer_relayd, the_pre_2_11_dialects_give_the_same_trace)
{
	static const char *const minors[] = { "10", "7" };
	struct relayd r = { 0 };

	relayd_skip_if_absent();
	relayd_start(&r);
	for (int i = 0; i < 2; i++) {
		char *argv[] = { ringtrace(), "record", "-o", relayd_url(&r), "--", emit_path(),
				 "--threads", "2", "--events", "5000", NULL };
		char env[64];
		const char *envp[] = { env, NULL };
		char *log, *s;
		struct tv *v;
		int lfd, st;
		pid_t rec;

		snprintf(env, sizeof(env), "RINGTRACE_RELAYD_MINOR=%s", minors[i]);
		lfd = open_log(P("%s/record.log", r.dir));
		rec = spawn(argv, envp, -1, -1, lfd);
		close(lfd);
		st = wait_exit(rec, 60, "ringtrace record -o net://");
		log = slurp(P("%s/record.log", r.dir));
		expect_exit(st, 0, "ringtrace record -o net://", log);
		s = session_of(log);
		cr_assert_not_null(s, "%s", log);
		s = strdup(s);
		v = tv_new(2, 5000, false);
		tv_read_all(v, P("%s/out/%s", r.dir, s));
		expect_all(v, 5000);
		tv_free(v);
		free(s);
		free(log);
	}
	relayd_stop(&r);
	rm_rf(r.dir);
}
