// SPDX-License-Identifier: MIT
/*
 * tests/format/test_layers.c - the layers below the read side.  The framed
 * stream of `record -o -` is read once (format/frames.c) into either sink:
 * the consumer's output (`ringtrace consume -`) or the reader's own spool
 * (reader/spool.c), which rtr-read-alone uses, linked without the consumer
 * or liburing (its Makefile rule).  Both sinks give the same trace; a cut
 * stream, or a spool whose disk is full, is said, and what came before is
 * read.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <criterion/criterion.h>
#include "tests/helpers.h"

TestSuite(format_layers, .timeout = 300);

struct counts {
	unsigned long long events, threads, lost;
};

/*
 * rtr-read-alone's line for @arg (a trace or '-'), with @input on its
 * standard input, its spool in @tmp.
 */
static int read_alone(const char *arg, const char *input, const char *tmp, struct counts *c)
{
	char cmd[8192];
	int status;
	char *out;

	snprintf(cmd, sizeof(cmd), "TMPDIR=%s %s/rtr-read-alone %s %s%s 2>&1", tmp, t_bindir(),
		 arg, input ? "< " : "", input ? input : "");
	out = t_sh(cmd, &status);
	memset(c, 0, sizeof(*c));
	cr_assert(strstr(out, "events "), "rtr-read-alone %s printed: %s", arg, out);
	cr_assert_eq(sscanf(strstr(out, "events "), "events %llu threads %llu lost %llu",
			    &c->events, &c->threads, &c->lost), 3, "%s", out);
	cr_log_info("rtr-read-alone %s: %s", arg, out);
	free(out);
	return status;
}

/*
 * The framed stream of ringtrace-bench-user's @threads x @events under
 * `record -o -` into @dir/stream, then the shell command @then.
 */
static void record_stream(const char *dir, int threads, int events, const char *then)
{
	char cmd[8192];
	int status;
	char *out;

	snprintf(cmd, sizeof(cmd), "%s/ringtrace record -q -o - -- %s/ringtrace-bench-user "
		 "--threads %d --events %d > %s/stream 2>/dev/null && %s", t_bindir(), t_bindir(),
		 threads, events, dir, then);
	out = t_sh(cmd, &status);
	cr_assert_eq(status, 0, "recording, or `%s` after it, failed: %s", then, out);
	free(out);
}

Test(format_layers, the_reader_spools_a_stream_as_the_consumer_writes_it)
{
	char dir[256], cmd[8192];
	struct counts spooled, consumed;
	int status;
	char *out;

	t_mkdtemp(dir, sizeof(dir), "layers");
	snprintf(cmd, sizeof(cmd), "%s/ringtrace consume - -o %s/trace < %s/stream 2>&1",
		 t_bindir(), dir, dir);
	record_stream(dir, 2, 100000, cmd);

	snprintf(cmd, sizeof(cmd), "%s/stream", dir);
	cr_assert_eq(read_alone("-", cmd, dir, &spooled), 0);
	/* every event the program attempted: in the trace or counted lost */
	cr_expect_eq(spooled.events + spooled.lost, 200000);
	cr_expect_gt(spooled.events, 0);
	cr_expect_gt(spooled.threads, 0, "the ring's thread records");

	snprintf(cmd, sizeof(cmd), "%s/trace", dir);
	cr_assert_eq(read_alone(cmd, NULL, dir, &consumed), 0);
	cr_expect_eq(consumed.events, spooled.events);
	cr_expect_eq(consumed.threads, spooled.threads);
	cr_expect_eq(consumed.lost, spooled.lost);
	/* and event for event: dump of the spooled stream is dump of what consume wrote */
	snprintf(cmd, sizeof(cmd), "cd %s && TMPDIR=%s %s/ringtrace dump - < stream > spooled.txt && "
		 "%s/ringtrace dump trace > consumed.txt && cmp spooled.txt consumed.txt && "
		 "wc -l < consumed.txt", dir, dir, t_bindir(), t_bindir());
	out = t_sh(cmd, &status);
	cr_expect_eq(status, 0, "the two dumps differ: %s", out);
	cr_expect_geq(strtoull(out, NULL, 10), spooled.events, "lines: %s", out);
	free(out);

	/* and the spool directory is removed when the reader is done */
	snprintf(cmd, sizeof(cmd), "ls -d %s/ringtrace-stdin-* 2>/dev/null | wc -l", dir);
	out = t_sh(cmd, &status);
	cr_expect_eq(atoi(out), 0, "spool directories left: %s", out);
	free(out);
	t_rm_rf(dir);
}

Test(format_layers, a_cut_stream_is_said_and_what_came_before_is_read)
{
	char dir[256], cmd[8192], in[300];
	struct counts whole, cut;
	int status;
	char *out;

	t_mkdtemp(dir, sizeof(dir), "layers-cut");
	snprintf(cmd, sizeof(cmd), "head -c 3000000 %s/stream > %s/cut", dir, dir);
	record_stream(dir, 1, 300000, cmd);
	snprintf(in, sizeof(in), "%s/stream", dir);
	cr_assert_eq(read_alone("-", in, dir, &whole), 0);
	snprintf(in, sizeof(in), "%s/cut", dir);
	cr_assert_eq(read_alone("-", in, dir, &cut), 1, "a cut stream is not a clean read");
	cr_expect_gt(cut.events, 0, "the packets before the cut are read");
	cr_expect_lt(cut.events, whole.events);

	snprintf(cmd, sizeof(cmd), "TMPDIR=%s %s/rtr-read-alone - < %s/cut 2>&1 >/dev/null", dir,
		 t_bindir(), dir);
	out = t_sh(cmd, &status);
	cr_expect(strstr(out, "the stream was cut"), "the message says the stream was cut: %s",
		  out);
	free(out);
	t_rm_rf(dir);
}

/*
 * The spool's disk full (TMPDIR on a 3 MiB tmpfs, for a 6 MB stream of 1 MiB
 * packets): said with the file and the system's words, the packets that fit
 * read, none cut in half, and the spool removed.  Root is needed for the
 * tmpfs.
 */
Test(format_layers, a_full_spool_is_said_and_what_fit_is_read)
{
	char dir[256], mnt[300], cmd[8192], in[300];
	struct counts whole, full;
	int status;
	char *out;

	t_mkdtemp(dir, sizeof(dir), "layers-full");
	snprintf(cmd, sizeof(cmd), "mkdir %s/mnt", dir);
	record_stream(dir, 1, 300000, cmd);
	snprintf(mnt, sizeof(mnt), "%s/mnt", dir);
	cr_assert_eq(unshare(CLONE_NEWNS), 0, "unshare(CLONE_NEWNS): %s: this test needs root "
		     "(a mount namespace and a small tmpfs)", strerror(errno));
	cr_assert_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0, "%s", strerror(errno));
	cr_assert_eq(mount("tmpfs", mnt, "tmpfs", 0, "size=3m,mode=0700"), 0,
		     "cannot mount a 3 MiB tmpfs on %s: %s", mnt, strerror(errno));

	snprintf(in, sizeof(in), "%s/stream", dir);
	cr_assert_eq(read_alone("-", in, dir, &whole), 0);
	cr_assert_eq(read_alone("-", in, mnt, &full), 1, "a full spool is not a clean read");
	cr_expect_gt(full.events, 0, "the packets that fit are read");
	cr_expect_lt(full.events, whole.events);

	snprintf(cmd, sizeof(cmd), "TMPDIR=%s %s/rtr-read-alone - < %s 2>&1 >/dev/null; "
		 "echo left:; ls -A %s", mnt, t_bindir(), in, mnt);
	out = t_sh(cmd, &status);
	cr_expect(strstr(out, "No space left on device"), "the system's words: %s", out);
	cr_expect(strstr(out, "/trace/stream_"), "the file that did not fit: %s", out);
	/* that message alone: no packet of the spool is cut short (the cursor would say) */
	cr_expect_null(strstr(strstr(out, "rtr-read-alone:") + 1, "rtr-read-alone:"),
		       "one message, the stream's: %s", out);
	cr_expect_str_eq(strstr(out, "left:\n"), "left:\n", "the spool is removed: %s", out);
	free(out);
	umount2(mnt, MNT_DETACH);
	t_rm_rf(dir);
}
