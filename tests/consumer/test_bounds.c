// SPDX-License-Identifier: MIT
/*
 * tests/consumer/test_bounds.c - what an independent test suite found the
 * consumer, recover and the stream reader doing with hostile or unusual
 * input, one test per defect, each failing before its fix:
 *  - no trace that `check` calls clean while babeltrace2 refuses or aborts
 *    on it (times that do not convert, impossible loss counts);
 *  - recover is read-only and repeatable, and never takes twice what an
 *    earlier consumer took;
 *  - framed streams: an empty metadata frame, a damaged packet;
 *  - the default region name cannot be guessed; `dump -` ends with its
 *    stream.
 * Regions are made by ringtrace-test-emit and edited here as an adversary
 * would; every trace written is read by `ringtrace check` and babeltrace2.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <ringtrace/region.h>
#include "tests/helpers.h"

TestSuite(consumer_bounds, .timeout = 120);

struct tdir {
	char dir[64];
};

static void tdir_make(struct tdir *d)
{
	strcpy(d->dir, "/dev/shm/rtr-bounds-XXXXXX");
	cr_assert_not_null(mkdtemp(d->dir));
}

/* @d->dir/@name, in one of 8 buffers. */
static const char *in(const struct tdir *d, const char *name)
{
	static char bufs[8][160];
	static unsigned next;
	char *b = bufs[next++ % 8];

	snprintf(b, sizeof(bufs[0]), "%s/%s", d->dir, name);
	return b;
}

static void tdir_remove(struct tdir *d)
{
	char cmd[128];
	int st;

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d->dir);
	free(t_sh(cmd, &st));
}

/* Run a shell command (%s: the bin directory, then @dir); its output; *st its status. */
static char *run(int *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static char *run(int *st, const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return t_sh(cmd, st);
}

/* A region of 4 x 16 KiB per CPU, written by one pinned thread that stopped cleanly. */
static void make_region(const struct tdir *d, const char *name, uint32_t events)
{
	char *out;
	int st;

	out = run(&st, "RINGTRACE_PATH='%s/%s' RINGTRACE_PACKET_SIZE=16k RINGTRACE_PACKETS=4 "
		  "'%s/ringtrace-test-emit' --threads 1 --pin --events %u 2>&1", d->dir, name,
		  t_bindir(), events);
	cr_assert_eq(st, 0, "%s", out);
	free(out);
}

struct mapped {
	int fd;
	uint8_t *p;
	size_t size;
};

static struct rtr_region_hdr *map_region(struct mapped *m, const char *path)
{
	struct stat sb;

	m->fd = open(path, O_RDWR);
	cr_assert_geq(m->fd, 0, "%s: %s", path, strerror(errno));
	cr_assert_eq(fstat(m->fd, &sb), 0);
	m->size = (size_t)sb.st_size;
	m->p = mmap(NULL, m->size, PROT_READ | PROT_WRITE, MAP_SHARED, m->fd, 0);
	cr_assert_neq(m->p, MAP_FAILED);
	return (struct rtr_region_hdr *)m->p;
}

static void unmap(struct mapped *m)
{
	munmap(m->p, m->size);
	close(m->fd);
}

static struct rtr_cpu_ctl *ctl_of(struct mapped *m, uint32_t cpu)
{
	const struct rtr_region_hdr *h = (const void *)m->p;

	return (struct rtr_cpu_ctl *)(m->p + h->cpu_off + (uint64_t)cpu * h->cpu_stride);
}

/* The stream that holds packets (the one the pinned thread wrote). */
static uint32_t busy_cpu(struct mapped *m)
{
	const struct rtr_region_hdr *h = (const void *)m->p;

	for (uint32_t i = 0; i < h->ncpus; i++)
		if (ctl_of(m, i)->prod)
			return i;
	cr_assert_fail("no stream has packets");
	return 0;
}

/* `ringtrace check DIR` and `babeltrace2 DIR`: both must take the trace. */
static void readers_agree(const char *dir, const char *expect)
{
	char *out;
	int st;

	out = run(&st, "'%s/ringtrace' check '%s' 2>&1", t_bindir(), dir);
	cr_expect_eq(st, 0, "check %s:\n%s", dir, out);
	if (expect)
		cr_expect_not_null(strstr(out, expect), "check %s: no '%s' in:\n%s", dir, expect,
				   out);
	free(out);
	out = run(&st, "babeltrace2 '%s' 2>&1 >/dev/null | tail -n 5", dir);
	cr_expect_eq(st, 0, "babeltrace2 %s:\n%s", dir, out);
	free(out);
	/* The pipeline's status is tail's: ask babeltrace2's own. */
	out = run(&st, "babeltrace2 '%s' >/dev/null 2>&1", dir);
	cr_expect_eq(st, 0, "babeltrace2 refuses or aborts on %s (status %d)", dir, st);
	free(out);
}

/* `ringtrace recover REGION -o DIR`: its report; it must succeed. */
static char *recover(const struct tdir *d, const char *region, const char *dir)
{
	char *out;
	int st;

	out = run(&st, "'%s/ringtrace' recover '%s' -o '%s' 2>&1", t_bindir(), in(d, region),
		  in(d, dir));
	cr_assert_eq(st, 0, "recover:\n%s", out);
	return out;
}

Test(consumer_bounds, a_tail_packet_never_carries_a_time_babeltrace2_cannot_read)
{
	struct tdir d;
	struct mapped m;
	struct rtr_cpu_ctl *cb;

	tdir_make(&d);
	make_region(&d, "region", 1000);
	map_region(&m, in(&d, "region"));
	cb = ctl_of(&m, busy_cpu(&m));
	/* Five events lost after the last packet, and a last timestamp of 2^64 - 1. */
	cb->lost_full += 5;
	cb->last_ts = UINT64_MAX;
	unmap(&m);
	free(recover(&d, "region", "trace"));
	readers_agree(in(&d, "trace"), " 5 events lost");
	tdir_remove(&d);
}

Test(consumer_bounds, a_clock_no_reader_can_convert_is_refused)
{
	struct tdir d;
	struct mapped m;
	char *out;
	int st;

	tdir_make(&d);
	make_region(&d, "region", 1000);
	/* 16383 Hz: the TSC's values overflow 64-bit nanoseconds; babeltrace2 refuses the trace. */
	map_region(&m, in(&d, "region"))->clock_freq = 16383;
	unmap(&m);
	out = run(&st, "'%s/ringtrace' recover '%s' -o '%s' 2>&1", t_bindir(), in(&d, "region"),
		  in(&d, "trace"));
	cr_expect_eq(st, 1, "recover took a 16383 Hz clock:\n%s", out);
	cr_expect_not_null(strstr(out, "clock frequency 16383 Hz"), "%s", out);
	cr_expect_neq(access(in(&d, "trace"), F_OK), 0, "a trace was written");
	free(out);
	tdir_remove(&d);
}

Test(consumer_bounds, an_impossible_loss_count_is_damage_not_a_loss)
{
	struct tdir d;
	struct mapped m;
	struct rtr_region_hdr *h;
	struct rtr_packet_hdr *p;
	char *out;

	tdir_make(&d);
	make_region(&d, "region", 1500);
	h = map_region(&m, in(&d, "region"));
	/* The second packet of the stream claims 2^60 events lost. */
	p = (struct rtr_packet_hdr *)((uint8_t *)ctl_of(&m, busy_cpu(&m)) + RTR_CPU_CTL_SIZE +
				      h->packet_size);
	cr_assert_eq(p->magic, RTR_CTF_MAGIC);
	p->events_discarded = 1ull << 60;
	unmap(&m);
	out = recover(&d, "region", "trace");
	cr_expect_not_null(strstr(out, "events_discarded beyond any producer's count"), "%s", out);
	free(out);
	/* Not written: the trace lacks one packet, and claims no loss of events. */
	readers_agree(in(&d, "trace"), " 0 events lost, 1 packets lost");
	tdir_remove(&d);
}

/* Patch the first packet header of @file (a trace's stream) at @field with @v. */
static void patch_stream(const char *file, size_t field, uint64_t v)
{
	int fd = open(file, O_RDWR);

	cr_assert_geq(fd, 0, "%s: %s", file, strerror(errno));
	cr_assert_eq(pwrite(fd, &v, 8, (off_t)field), 8);
	close(fd);
}

Test(consumer_bounds, check_reports_what_babeltrace2_cannot_read)
{
	static const struct {
		size_t field;
		uint64_t value;
		const char *why;
	} cases[] = {
		{ offsetof(struct rtr_packet_hdr, timestamp_end), UINT64_MAX, "is not a time" },
		{ offsetof(struct rtr_packet_hdr, events_discarded), 1ull << 60,
		  "more than any producer can lose" },
	};
	struct tdir d;
	char *out, *stream;
	int st;

	tdir_make(&d);
	make_region(&d, "region", 1000);
	free(recover(&d, "region", "good"));
	out = run(&st, "ls '%s' | grep stream_ | head -n 1", in(&d, "good"));
	cr_assert_eq(st, 0);
	out[strcspn(out, "\n")] = 0;
	stream = strdup(out);
	free(out);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char file[256];

		free(run(&st, "rm -rf '%s' && cp -r '%s' '%s'", in(&d, "bad"), in(&d, "good"),
			 in(&d, "bad")));
		snprintf(file, sizeof(file), "%s/%s", in(&d, "bad"), stream);
		patch_stream(file, cases[i].field, cases[i].value);
		out = run(&st, "'%s/ringtrace' check '%s' 2>&1", t_bindir(), in(&d, "bad"));
		cr_expect_eq(st, 1, "check of a trace with %s: status %d\n%s", cases[i].why, st,
			     out);
		cr_expect_not_null(strstr(out, cases[i].why), "%s", out);
		free(out);
	}
	free(stream);
	tdir_remove(&d);
}

/* "N packets, E events, L events lost" from `ringtrace check`. */
static void check_counts(const char *dir, uint64_t *packets, uint64_t *events, uint64_t *lost)
{
	char *out;
	const char *l;
	int st;

	out = run(&st, "'%s/ringtrace' check '%s' 2>&1", t_bindir(), dir);
	cr_assert_eq(st, 0, "check %s:\n%s", dir, out);
	l = strstr(out, " packets, ");
	cr_assert_not_null(l, "%s", out);
	while (l > out && l[-1] != '\n')
		l--;
	cr_assert_eq(sscanf(l, "%" SCNu64 " packets, %" SCNu64 " events, %" SCNu64, packets, events,
			    lost), 3, "%s", l);
	free(out);
}

Test(consumer_bounds, recover_reads_a_region_again_and_again_and_never_twice_what_consume_took)
{
	struct tdir d;
	uint64_t p1, e1, l1, p2, e2, l2;
	char emit[256], *out;
	int st;
	pid_t pid;

	snprintf(emit, sizeof(emit), "%s/ringtrace-test-emit", t_bindir());
	tdir_make(&d);
	/*
	 * A producer killed while writing: complete packets, open ones, and
	 * events dropped after the last packet (no consumer: the ring fills).
	 */
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		setenv("RINGTRACE_PATH", in(&d, "region"), 1);
		setenv("RINGTRACE_PACKET_SIZE", "16k", 1);
		setenv("RINGTRACE_PACKETS", "4", 1);
		execl(emit, "ringtrace-test-emit", "--threads", "2", "--events", "0", "--pace",
		      "50:1000", (char *)NULL);
		_exit(127);
	}
	usleep(300000);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	/* Twice the same: nothing taken from the region. */
	free(recover(&d, "region", "first"));
	free(recover(&d, "region", "second"));
	check_counts(in(&d, "first"), &p1, &e1, &l1);
	check_counts(in(&d, "second"), &p2, &e2, &l2);
	cr_expect_gt(e1, 0);
	cr_expect_eq(p1, p2, "recover took packets from the region: %" PRIu64 " then %" PRIu64,
		     p1, p2);
	cr_expect_eq(e1, e2);
	cr_expect_eq(l1, l2);
	/* consume takes everything, open packets included; recover then finds nothing new. */
	out = run(&st, "'%s/ringtrace' consume -q '%s' -o '%s' 2>&1", t_bindir(),
		  in(&d, "region"), in(&d, "consumed"));
	cr_assert_eq(st, 0, "%s", out);
	free(out);
	check_counts(in(&d, "consumed"), &p2, &e2, &l2);
	cr_expect_eq(p2, p1);
	cr_expect_eq(e2, e1);
	cr_expect_eq(l2, l1);
	out = recover(&d, "region", "after");
	cr_expect_not_null(strstr(out, "taken by an earlier consumer"), "%s", out);
	free(out);
	check_counts(in(&d, "after"), &p2, &e2, &l2);
	cr_expect_eq(e2, 0, "recover after consume salvaged again: %" PRIu64 " events", e2);
	cr_expect_eq(p2, 0, "%" PRIu64 " packets taken twice", p2);
	tdir_remove(&d);
}

Test(consumer_bounds, an_empty_metadata_frame_is_read_cleanly)
{
	char *out;
	int st;

	/*
	 * Prologue, then a METADATA frame of length 0, then nothing: refused
	 * as a frame no writer sends, at its offset in the stream (the
	 * prologue counted), before any memcpy() of its (NULL) text.
	 */
	out = run(&st, "printf 'RTRSTRM\\0\\001\\0\\0\\0\\0\\0\\0\\0\\001\\0\\0\\0"
		  "\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0' | '%s/ringtrace' dump - 2>&1",
		  t_bindir());
	cr_expect_eq(st, 1, "status %d:\n%s", st, out);
	cr_expect_null(strstr(out, "runtime error"), "%s", out);
	cr_expect_not_null(strstr(out, "bad frame at byte 16 (type 1, 0 bytes"), "%s", out);
	free(out);
	/* A stream cut after the prologue says how far it came: 16 bytes, all of it. */
	out = run(&st, "printf 'RTRSTRM\\0\\001\\0\\0\\0\\0\\0\\0\\0' | '%s/ringtrace' dump - "
		  "2>&1", t_bindir());
	cr_expect_eq(st, 1, "status %d:\n%s", st, out);
	cr_expect_not_null(strstr(out, "cut after 16 bytes"), "%s", out);
	free(out);
}

Test(consumer_bounds, consume_of_a_damaged_stream_exits_1_and_keeps_the_rest)
{
	struct tdir d;
	uint64_t off = 16, type, len;
	uint8_t *buf;
	size_t size;
	char *out;
	FILE *f;
	int st;

	tdir_make(&d);
	out = run(&st, "'%s/ringtrace' record -q --packet-size 16k -o - -- '%s/ringtrace-test-emit' "
		  "--threads 1 --pin --events 3000 > '%s' 2>/dev/null", t_bindir(), t_bindir(),
		  in(&d, "stream"));
	cr_assert_eq(st, 0, "%s", out);
	free(out);
	f = fopen(in(&d, "stream"), "r+b");
	cr_assert_not_null(f);
	fseek(f, 0, SEEK_END);
	size = (size_t)ftell(f);
	buf = malloc(size);
	rewind(f);
	cr_assert_eq(fread(buf, 1, size, f), size);
	/* The first packet frame: its packet's magic. */
	for (;;) {
		cr_assert_lt(off + 16, size, "no packet frame");
		type = buf[off];
		memcpy(&len, buf + off + 8, 8);
		if (type == 2)
			break;
		off += 16 + len;
	}
	buf[off + 16] ^= 0xff;
	rewind(f);
	cr_assert_eq(fwrite(buf, 1, size, f), size);
	fclose(f);
	free(buf);
	out = run(&st, "'%s/ringtrace' consume - -o '%s' < '%s' 2>&1", t_bindir(), in(&d, "trace"),
		  in(&d, "stream"));
	cr_expect_eq(st, 1, "consume - of a damaged stream: status %d\n%s", st, out);
	cr_expect_not_null(strstr(out, "bad magic"), "%s", out);
	free(out);
	/* Every other packet is there, a valid trace. */
	readers_agree(in(&d, "trace"), " 1 packets lost");
	tdir_remove(&d);
}

Test(consumer_bounds, the_default_region_name_cannot_be_taken_first)
{
	char *out;
	int st;

	/*
	 * Another user creates the name a RINGTRACE=1 program would use
	 * (ringtrace-PID-0 before): its tracing must start all the same.
	 */
	out = run(&st, "sh -c 'touch /dev/shm/ringtrace-$$-0; RINGTRACE=1 exec "
		  "\"%s/ringtrace-test-emit\" --threads 1 --events 100' 2>&1 & p=$!; wait $p; "
		  "echo status=$?; echo regions=$(ls /dev/shm | grep -c \"^ringtrace-$p-[0-9a-f]\\{16\\}$\"); "
		  "rm -f /dev/shm/ringtrace-$p-*", t_bindir());
	cr_expect_null(strstr(out, "cannot start tracing"), "%s", out);
	cr_expect_not_null(strstr(out, "status=0"), "%s", out);
	cr_expect_not_null(strstr(out, "regions=1"), "the program's region is not there:\n%s", out);
	free(out);
	/* A failure names the region's path. */
	out = run(&st, "RINGTRACE=1 RINGTRACE_PACKET_SIZE=1000 '%s/ringtrace-test-emit' --threads 1 "
		  "--events 10 2>&1", t_bindir());
	cr_expect_not_null(strstr(out, "cannot start tracing into /dev/shm/ringtrace-"), "%s", out);
	free(out);
}

Test(consumer_bounds, dump_of_a_finished_stream_does_not_wait_for_more)
{
	struct tdir d;
	char *out;
	int st;

	tdir_make(&d);
	out = run(&st, "'%s/ringtrace' record -q -o - -- '%s/ringtrace-test-emit' --threads 1 "
		  "--events 1000 > '%s' 2>/dev/null", t_bindir(), t_bindir(), in(&d, "stream"));
	cr_assert_eq(st, 0, "%s", out);
	free(out);
	/* The follower sleeps only until the whole stream is in: never a 0.2 s poll. */
	out = run(&st, "strace -f -qq -e trace=nanosleep,clock_nanosleep -o '%s' '%s/ringtrace' "
		  "dump - < '%s' > /dev/null 2>&1; grep -c sleep '%s'", in(&d, "strace"),
		  t_bindir(), in(&d, "stream"), in(&d, "strace"));
	cr_expect_eq(atoi(out), 0, "dump - slept %d times", atoi(out));
	free(out);
	tdir_remove(&d);
}
