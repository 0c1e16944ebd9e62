// SPDX-License-Identifier: MIT
/*
 * tests/interop/test_ctf_gaps.c - the shapes of CTF 1.8 that babeltrace's
 * test corpus showed the reader refusing (issue 21), in traces written here
 * (tests/interop/ctf_gaps.py), so that they are tested without the corpus:
 * each is read by dump exactly as babeltrace2 reads it
 * (tests/interop/lttng/compare.py), and check says what it should.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include "tests/helpers.h"

TestSuite(interop_ctf_gaps, .timeout = 120);

/* Write ctf_gaps.py's trace @name under @dir: its path, in @path. */
static void make(const char *dir, const char *name, char *path, size_t len)
{
	char cmd[PATH_MAX * 2 + 256], *out;
	int st;

	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 '%s/tests/interop/ctf_gaps.py' '%s' '%s' 2>&1",
		 t_srcdir(), dir, name);
	out = t_sh(cmd, &st);
	cr_assert_eq(st, 0, "%s", out);
	out[strcspn(out, "\n")] = 0;
	snprintf(path, len, "%s", out);
	free(out);
}

/* `ringtrace CMD @trace`: its output (both streams) and exit status. */
static char *tool(const char *cmd, const char *trace, int *st)
{
	char line[PATH_MAX * 2 + 64];

	snprintf(line, sizeof(line), "'%s/ringtrace' %s '%s' 2>&1", t_bindir(), cmd, trace);
	return t_sh(line, st);
}

/* CTF 1.8 leaves the stream block out when there is one stream class and no context. */
Test(interop_ctf_gaps, metadata_without_a_stream_block_is_one_stream_class)
{
	char dir[PATH_MAX], trace[PATH_MAX], *out;
	int st;

	t_mkdtemp(dir, sizeof(dir), "gaps");
	make(dir, "no-stream-block", trace, sizeof(trace));
	t_compare_bt2(trace, "losses alike: 0 events, 0 packets");
	out = tool("check", trace, &st);
	cr_expect_eq(st, 0, "%s", out);
	cr_expect_not_null(strstr(out, "1 packets, 12 events"), "%s", out);
	free(out);
	t_rm_rf(dir);
}

/* check over ctf_gaps.py's @name: exit @status, @warnings warnings counted, @said in its output. */
static void check_says(const char *name, int status, int warnings, const char *said)
{
	char dir[PATH_MAX], trace[PATH_MAX], want[64], *out;
	int st;

	t_mkdtemp(dir, sizeof(dir), "gaps");
	make(dir, name, trace, sizeof(trace));
	if (!status)
		t_compare_bt2(trace, NULL);
	out = tool("check", trace, &st);
	cr_expect_eq(st, status, "%s: %s", name, out);
	if (warnings) {
		snprintf(want, sizeof(want), "\n%d warning%s: ", warnings, warnings == 1 ? "" : "s");
		cr_expect_not_null(strstr(out, want), "%s: %s", name, out);
		cr_expect_not_null(strstr(out, "check: ok (with warnings)"), "%s: %s", name, out);
	} else {
		cr_expect_null(strstr(out, "warning"), "%s: %s", name, out);
	}
	cr_expect_not_null(strstr(out, said), "%s: '%s' not in: %s", name, said, out);
	free(out);
	out = tool("dump", trace, &st);
	cr_expect_eq(st, status, "%s: %s", name, out);
	if (warnings)
		cr_expect_not_null(strstr(out, "ringtrace dump: warning: "), "%s: %s", name, out);
	free(out);
	t_rm_rf(dir);
}

/*
 * Timestamps as known producers write them: each a warning naming the file
 * and offset, counted by check, the read going on with babeltrace2's values.
 */
Test(interop_ctf_gaps, producers_timestamp_quirks_are_located_warnings)
{
	check_says("before-packet", 0, 1, "chan_0: offset 224: timestamp 1000158 before its "
		   "packet's timestamp_begin 1001000");
	check_says("after-packet", 0, 1, "chan_0: offset 104: timestamp 1000101 after its "
		   "packet's timestamp_end 1000100");
	/* located at the field: the second packet (offset 140) has timestamp_end at +40 */
	check_says("end-zero", 0, 2, "chan_0: offset 180: timestamp_end 0: a packet its producer "
		   "never closed");
	check_says("seq-again", 0, 1, "chan_0: offset 120: packet_seq_num 0 again");
}

/* Time going back between two records of one packet is no producer's quirk: damage. */
Test(interop_ctf_gaps, time_going_back_inside_a_packet_is_damage)
{
	check_says("ts-back", 1, 0, "damage: ");
	check_says("ts-back", 1, 0, "chan_0: offset 104: timestamp 1000040 goes back "
		   "(previous 1000050)");
}

/* events_discarded in packets without times: the losses counted as babeltrace2 counts them. */
Test(interop_ctf_gaps, losses_without_packet_times_are_counted)
{
	char dir[PATH_MAX], trace[PATH_MAX];

	t_mkdtemp(dir, sizeof(dir), "gaps");
	make(dir, "losses-no-times", trace, sizeof(trace));
	t_compare_bt2(trace, "losses alike: 12 events, 0 packets");
	t_rm_rf(dir);
}

/*
 * The signature "/" "* CTF 1.8" is text metadata's: packets say their
 * version in their headers, and their text need not start with it
 * (LTTng-UST 2.0, lttng-modules 2.10); a signature comment may close on a
 * later line.  The host printed as babeltrace2 prints it, with the env's
 * procname and vpid.
 */
Test(interop_ctf_gaps, metadata_signatures_as_the_spec_asks)
{
	char dir[PATH_MAX], trace[PATH_MAX], cmd[PATH_MAX * 2 + 64], *out;
	int st;

	t_mkdtemp(dir, sizeof(dir), "gaps");
	make(dir, "packet-metadata", trace, sizeof(trace));
	t_compare_bt2(trace, "losses alike: 0 events, 0 packets");
	out = tool("dump", trace, &st);
	cr_expect_eq(st, 0, "%s", out);
	cr_expect_not_null(strstr(out, " box:app:(4321) cpu 0 tick: { n = 0, d = 0 }"), "%s", out);
	free(out);
	make(dir, "signature-lines", trace, sizeof(trace));
	t_compare_bt2(trace, "losses alike: 0 events, 0 packets");
	/* text without its signature stays refused, the line named */
	snprintf(cmd, sizeof(cmd), "sed -i 1d '%s/metadata'", trace);
	free(t_sh(cmd, &st));
	cr_assert_eq(st, 0);
	out = tool("check", trace, &st);
	cr_expect_eq(st, 1, "%s", out);
	cr_expect_not_null(strstr(out, "/metadata: line 1: not ringtrace's CTF 1.8 text metadata"),
			   "%s", out);
	free(out);
	t_rm_rf(dir);
}

/*
 * TSDL's grammar as babeltrace's corpus writes it: character constants,
 * unary +, string escapes; attributes no reader knows are warnings, as many
 * as babeltrace2 gives, each with its line, and the trace reads.
 */
Test(interop_ctf_gaps, grammar_corners_read_and_unknown_attributes_warn)
{
	char dir[PATH_MAX], trace[PATH_MAX], cmd[PATH_MAX + 128], want[64], *out;
	int st, bt2;

	t_mkdtemp(dir, sizeof(dir), "gaps");
	make(dir, "grammar", trace, sizeof(trace));
	t_compare_bt2(trace, "losses alike: 0 events, 0 packets");
	snprintf(cmd, sizeof(cmd), "babeltrace2 '%s' 2>&1 >/dev/null | grep -c 'Unknown attribute'",
		 trace);
	out = t_sh(cmd, &st);
	bt2 = atoi(out);
	free(out);
	cr_assert_gt(bt2, 0, "babeltrace2 warns of the unknown attributes");
	out = tool("check", trace, &st);
	cr_expect_eq(st, 0, "%s", out);
	snprintf(want, sizeof(want), "warnings  %d in the metadata", bt2);
	cr_expect_not_null(strstr(out, want), "babeltrace2 gives %d warnings: %s", bt2, out);
	cr_expect_not_null(strstr(out, "metadata: line 2: an integer's unknown attribute 'aa', "
				  "ignored"), "%s", out);
	cr_expect_not_null(strstr(out, "check: ok (with warnings)"), "%s", out);
	free(out);
	make(dir, "enum-max", trace, sizeof(trace));
	t_compare_bt2(trace, "losses alike: 0 events, 0 packets");
	t_rm_rf(dir);
}

/*
 * Hostile metadata: an attribute given twice (freq twice would scale every
 * time), a label after the largest value (its value would overflow), a
 * sequence without its length; each refused with its line by dump and
 * check, and nothing leaked (LeakSanitizer makes the exit status 23 under
 * ASan).
 */
Test(interop_ctf_gaps, hostile_metadata_is_refused_with_its_line)
{
	static const struct { const char *name, *said; } cases[] = {
		{ "freq-twice", "metadata: line 16: the clock block gives 'freq' twice (first at "
				"line 15)" },
		{ "size-twice", "metadata: line 16: an integer: the attribute 'size' is given "
				"twice" },
		{ "enum-past-max", "metadata: line 16: a label after the largest value, without a "
				   "value of its own" },
		{ "seq-no-length", "metadata: line 13: the sequence 'x': its length 'len' is no "
				   "field before it" },
	};
	char dir[PATH_MAX], trace[PATH_MAX], *out;
	int st;

	t_mkdtemp(dir, sizeof(dir), "gaps");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		make(dir, cases[i].name, trace, sizeof(trace));
		for (int k = 0; k < 2; k++) {
			out = tool(k ? "dump" : "check", trace, &st);
			cr_expect_eq(st, 1, "%s: %s", cases[i].name, out);
			cr_expect_not_null(strstr(out, cases[i].said), "%s: %s", cases[i].name, out);
			free(out);
		}
	}
	t_rm_rf(dir);
}

/*
 * A stream in several files (LTTng's --tracefile-size): one stream, read
 * through its files in the order of their times (not of their names), its
 * sequence numbers going on: nothing lost, as babeltrace2 says.
 */
Test(interop_ctf_gaps, a_stream_in_several_files_is_one_stream)
{
	char dir[PATH_MAX], trace[PATH_MAX], cmd[PATH_MAX + 32], *out;
	int st;

	t_mkdtemp(dir, sizeof(dir), "gaps");
	make(dir, "tracefile-size", trace, sizeof(trace));
	t_compare_bt2(trace, "losses alike: 0 events, 0 packets");
	out = tool("check", trace, &st);
	cr_expect_eq(st, 0, "%s", out);
	/* named by its first file (chan_0_9, before chan_0_10 in time) */
	cr_expect_not_null(strstr(out, "\nchan_0_9 "), "%s", out);
	cr_expect_null(strstr(out, "\nchan_0_10 "), "%s", out);
	cr_expect_not_null(strstr(out, "  ok\n  in 3 files, read one after the other"), "%s", out);
	cr_expect_not_null(strstr(out, "6 packets, 12 events, 0 events lost, 0 packets lost"),
			   "%s", out);
	cr_expect_null(strstr(out, "lost before"), "%s", out);
	free(out);
	/* its middle file gone: one packet lost between the two left, as babeltrace2 counts */
	snprintf(cmd, sizeof(cmd), "rm '%s/chan_0_10'", trace);
	free(t_sh(cmd, &st));
	cr_assert_eq(st, 0);
	t_compare_bt2(trace, "losses alike: 0 events, 1 packets");
	out = tool("check", trace, &st);
	cr_expect_eq(st, 0, "%s", out);
	cr_expect_not_null(strstr(out, "  ok\n  in 2 files, read one after the other"), "%s", out);
	cr_expect_not_null(strstr(out, "5 packets, 10 events, 0 events lost, 1 packets lost"),
			   "%s", out);
	free(out);
	t_rm_rf(dir);
}

/*
 * A directory of traces: each found below it, their clocks (other offsets,
 * other frequencies) brought to one, merged in time; files of one name in
 * different traces are different streams; the archives of one rotated
 * trace (one UUID) are one trace, its stream going on from one to the next.
 */
Test(interop_ctf_gaps, a_directory_of_traces_is_read_as_one)
{
	char dir[PATH_MAX], trace[PATH_MAX], cmd[PATH_MAX * 3 + 64], *out;
	int st;

	t_mkdtemp(dir, sizeof(dir), "gaps");
	make(dir, "several-traces", trace, sizeof(trace));
	t_compare_bt2(trace, "losses alike: 0 events, 0 packets");
	/* symbolic links are not followed: not to the root, not in a loop */
	snprintf(cmd, sizeof(cmd), "ln -s / '%s/root' && ln -s '%s' '%s/self'", trace, trace,
		 trace);
	free(t_sh(cmd, &st));
	cr_assert_eq(st, 0);
	out = tool("check", trace, &st);
	cr_expect_eq(st, 0, "%s", out);
	cr_expect_not_null(strstr(out, "\n4 traces found in "), "%s", out);
	cr_expect_not_null(strstr(out, "\narchive/1/chan_1     1          2            2"), "%s",
			   out);
	cr_expect_not_null(strstr(out, "\nkernel/chan_0        0          1            2"), "%s",
			   out);
	cr_expect_not_null(strstr(out, "\nust/chan_0           0          1            2"), "%s",
			   out);
	cr_expect_not_null(strstr(out, "check: ok\n"), "%s", out);
	free(out);
	/* the two domains' events interleave: the kernel's third between the ust's two */
	out = tool("dump --clock-seconds", trace, &st);
	cr_expect_eq(st, 0, "%s", out);
	cr_expect_not_null(strstr(out, "{ n = 2, d = -2 }\n[1600000000.001000900] (+0.000000200) "
				  "cpu 0 tick: { n = 3, d = -3 }\n"), "%s", out);
	free(out);
	t_rm_rf(dir);
}

/* CTF sizes are in bits: a packet's content may end inside a byte, after bit-packed records. */
Test(interop_ctf_gaps, content_that_ends_inside_a_byte_is_read)
{
	char dir[PATH_MAX], trace[PATH_MAX], *out;
	int st;

	t_mkdtemp(dir, sizeof(dir), "gaps");
	make(dir, "bit-content", trace, sizeof(trace));
	t_compare_bt2(trace, "losses alike: 0 events, 0 packets");
	out = tool("check", trace, &st);
	cr_expect_eq(st, 0, "%s", out);
	cr_expect_not_null(strstr(out, "2 packets, 10 events, 0 events lost"), "%s", out);
	free(out);
	t_rm_rf(dir);
}

/*
 * The corners of CTF 1.8 babeltrace's corpus leaves out, in one trace read
 * as babeltrace2 reads it: big-endian, two stream classes on two clocks
 * (their events interleaved on one time axis), 32-bit timestamps that wrap,
 * a variant of an integer, a string and a structure chosen by an
 * enumeration, floats of 32 and 64 bits, fields of 3, 13, 1 and 7 bits, a
 * little-endian field, a sequence of structures, packets without a
 * content_size, a loss.
 */
Test(interop_ctf_gaps, ctf_corners_read_as_babeltrace2_reads_them)
{
	char dir[PATH_MAX], trace[PATH_MAX], *out;
	int st;

	t_mkdtemp(dir, sizeof(dir), "gaps");
	make(dir, "corners", trace, sizeof(trace));
	t_compare_bt2(trace, "losses alike: 3 events, 0 packets");
	out = tool("check", trace, &st);
	cr_expect_eq(st, 0, "%s", out);
	cr_expect_not_null(strstr(out, "4 packets, 18 events, 3 events lost"), "%s", out);
	free(out);
	t_rm_rf(dir);
}

/*
 * Two of ringtrace's own recordings in one directory (two UUIDs): two
 * traces, their stream_0 files two streams, not one chained from the first
 * to the second (whose sequence numbers start again).
 */
Test(interop_ctf_gaps, two_ringtrace_recordings_in_a_directory_are_two_traces)
{
	char dir[PATH_MAX], cmd[PATH_MAX * 2 + 128], want[128], *out;
	unsigned long packets = 0, events = 0;
	int st;

	t_mkdtemp(dir, sizeof(dir), "gaps");
	for (int i = 0; i < 2; i++) {
		unsigned long p, e;
		const char *l;

		snprintf(cmd, sizeof(cmd), "'%s/ringtrace-events-bench' --make-trace '%s/%c' "
			 "--events 1000 2>&1", t_bindir(), dir, 'a' + i);
		out = t_sh(cmd, &st);
		cr_assert_eq(st, 0, "%s", out);
		free(out);
		/* each alone, for the sums */
		snprintf(cmd, sizeof(cmd), "%s/%c", dir, 'a' + i);
		out = tool("check", cmd, &st);
		cr_assert_eq(st, 0, "%s", out);
		l = strstr(out, " thread records (");
		l = l ? strchr(l, '\n') : NULL;
		cr_assert(l && sscanf(l, " %lu packets, %lu events", &p, &e) == 2, "%s", out);
		packets += p;
		events += e;
		free(out);
	}
	out = tool("check", dir, &st);
	cr_expect_eq(st, 0, "%s", out);
	cr_expect_not_null(strstr(out, "\na/stream_0 "), "%s", out);
	cr_expect_not_null(strstr(out, "\nb/stream_0 "), "%s", out);
	snprintf(want, sizeof(want), "%lu packets, %lu events, 0 events lost, 0 packets lost",
		 packets, events);
	cr_expect_not_null(strstr(out, want), "%s: %s", want, out);
	cr_expect_not_null(strstr(out, "check: ok\n"), "%s", out);
	free(out);
	out = tool("dump", dir, &st);
	cr_expect_eq(st, 0, "%s", out);
	snprintf(want, sizeof(want), "dump: %lu events, 0 events lost", events);
	cr_expect_not_null(strstr(out, want), "%s: %s", want, out);
	free(out);
	t_rm_rf(dir);
}
