// SPDX-License-Identifier: MIT
/*
 * tests/tools/test_dump_check.c - `ringtrace dump` and `ringtrace check` on
 * traces written here with the library: the exact values of every field
 * type, time order across streams, the event count babeltrace2 finds, the
 * losses, and damaged copies of a good trace (every one must fail cleanly,
 * naming the file and the offset).  The reader itself is also fed mutated
 * copies in this process, on exact-size buffers, so that ASan sees any
 * read out of bounds.
 */
#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include "events/metadata.h"
#include "examples/stress/harness.h"
#include "tests/helpers.h"
#include "reader/cursor.h"
#include "reader/ctf_plan.h"

TestSuite(tools_dump_check, .timeout = 120);

/* ---- running commands ---------------------------------------------------------- */

/* `ringtrace ARGS 2>&1` */
static char *rt(const char *args, int *status)
{
	char cmd[PATH_MAX + 1024];

	snprintf(cmd, sizeof(cmd), "'%s/ringtrace' %s 2>&1", t_bindir(), args);
	return t_sh(cmd, status);
}

/* No sanitizer report, no crash: the output came from our own error path. */
static void expect_clean_exit(const char *what, const char *out, int st)
{
	cr_expect_neq(st, -1, "%s: killed by a signal:\n%s", what, out);
	cr_expect_null(strstr(out, "Sanitizer"), "%s:\n%s", what, out);
	cr_expect_null(strstr(out, "runtime error"), "%s:\n%s", what, out);
}

static void rm_rf(const char *path)
{
	char cmd[PATH_MAX + 32];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
	cr_expect_eq(system(cmd), 0);
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b;
	long n;

	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	b = malloc((size_t)n + 1);
	cr_assert_not_null(b);
	cr_assert_eq(fread(b, 1, (size_t)n, f), (size_t)n);
	b[n] = 0;
	fclose(f);
	*len = (size_t)n;
	return b;
}

static void spit(const char *path, const void *b, size_t len)
{
	FILE *f = fopen(path, "wb");

	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	cr_assert_eq(fwrite(b, 1, len, f), len);
	cr_assert_eq(fclose(f), 0);
}

/* ---- traces written with the library -------------------------------------------- */

static const struct rtr_ctf_enum_entry kinds[] = {
	{ "zero", 0 }, { "q\"uote\\back", 1 }, { "two-hundred", 200 },
};
static const struct rtr_ctf_enum_entry wides[] = { { "one", 1 }, { "big", 4000000000u } };

static const struct rtr_ctf_field f_ints[] = {
	{ "a", RTR_CTF_U8, NULL, 0 },  { "b", RTR_CTF_U16, NULL, 0 },
	{ "c", RTR_CTF_U32, NULL, 0 }, { "d", RTR_CTF_U64, NULL, 0 },
	{ "e", RTR_CTF_S8, NULL, 0 },  { "f", RTR_CTF_S16, NULL, 0 },
	{ "g", RTR_CTF_S32, NULL, 0 }, { "h", RTR_CTF_S64, NULL, 0 },
};
static const struct rtr_ctf_field f_str[] = {
	{ "s", RTR_CTF_STRING, NULL, 0 }, { "tail", RTR_CTF_U32, NULL, 0 },
};
static const struct rtr_ctf_field f_enum[] = {
	{ "k", RTR_CTF_ENUM_U8, kinds, 3 }, { "w", RTR_CTF_ENUM_U32, wides, 2 },
};
static const struct rtr_ctf_field f_seq[] = {
	{ "data", RTR_CTF_BYTES, NULL, 0 }, { "after", RTR_CTF_U8, NULL, 0 },
};
static const struct rtr_ctf_field f_dbl[] = { { "v", RTR_CTF_DOUBLE, NULL, 0 } };
static const struct rtr_ctf_field f_x[] = { { "x", RTR_CTF_U32, NULL, 0 } };

enum { EV_INTS = 1, EV_STR = 2, EV_ENUM = 3, EV_SEQ = 4, EV_DBL = 5, EV_TICK = 6, EV_BIG = 40 };
#define EV_MAXID 0xffffffffu

static const struct rtr_ctf_event classes[] = {
	{ "ints", EV_INTS, f_ints, 8 },
	{ "str", EV_STR, f_str, 2 },
	{ "en", EV_ENUM, f_enum, 2 },
	{ "seq", EV_SEQ, f_seq, 2 },
	{ "dbl", EV_DBL, f_dbl, 1 },
	{ "app:tick", EV_TICK, f_x, 1 },	/* a typed event's provider:name */
	{ "big_id", EV_BIG, f_x, 1 },
	{ "max_id", EV_MAXID, NULL, 0 },
};
#define NCLASSES (sizeof(classes) / sizeof(classes[0]))

/* A payload under construction; roomy, since the ring copies whole words. */
struct pl {
	uint8_t b[8192];
	size_t n;
};

static void pl_put(struct pl *p, const void *v, size_t n)
{
	cr_assert_leq(p->n + n, sizeof(p->b) - 8);
	if (n)
		memcpy(p->b + p->n, v, n);
	p->n += n;
}

#define PL_INT(p, type, v) do { type x_ = (type)(v); pl_put(p, &x_, sizeof(x_)); } while (0)

struct tb {
	struct t_ring t;
	char trace[128];
};

static void tb_open(struct tb *b, uint32_t mode, uint32_t psize, uint32_t npk)
{
	t_pin0();
	t_ring_open(&b->t, mode, psize, npk, false);
	snprintf(b->trace, sizeof(b->trace), "%s/trace", b->t.dir);
	cr_assert_eq(mkdir(b->trace, 0700), 0);
}

static int tb_write(struct tb *b, uint32_t id, const struct pl *p)
{
	return rtr_ring_write(&b->t.slot, id, p->b, (uint32_t)p->n);
}

/* Append every packet the consumer has for each CPU to stream_<cpu>. */
static void tb_drain(struct tb *b, uint64_t *seqs, size_t *nseqs)
{
	const struct rtr_region_hdr *h = rtr_consumer_region(b->t.c);
	struct rtr_consumer_packet pkt;

	for (uint32_t cpu = 0; cpu < h->ncpus; cpu++) {
		char path[192];
		FILE *f;

		snprintf(path, sizeof(path), "%s/stream_%u", b->trace, cpu);
		f = fopen(path, "ab");
		cr_assert_not_null(f);
		while (rtr_consumer_get(b->t.c, cpu, &pkt) == 0) {
			cr_assert_eq(fwrite(pkt.data, 1, pkt.size, f), pkt.size);
			if (seqs && cpu == 0)
				seqs[(*nseqs)++] = pkt.seq;
			rtr_consumer_put(b->t.c, cpu);
		}
		cr_assert_eq(fclose(f), 0);
	}
}

static void tb_finish(struct tb *b, uint64_t *seqs, size_t *nseqs)
{
	char path[192];
	FILE *f;

	cr_assert_eq(rtr_ring_detach(&b->t.slot), 0);
	cr_assert_eq(rtr_ring_stop(b->t.ring), 0);
	tb_drain(b, seqs, nseqs);
	snprintf(path, sizeof(path), "%s/metadata", b->trace);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	cr_assert_eq(rtr_ctf_write_metadata(f, rtr_consumer_region(b->t.c), "testhost", classes,
					     NCLASSES), 0);
	cr_assert_eq(fclose(f), 0);
}

/* The header-only packet that carries losses after the last one, as convert writes it. */
static bool tb_tail(struct tb *b)
{
	struct rtr_consumer_packet pkt;
	char path[192];
	FILE *f;

	if (rtr_consumer_tail(b->t.c, 0, &pkt))
		return false;
	snprintf(path, sizeof(path), "%s/stream_0", b->trace);
	f = fopen(path, "ab");
	cr_assert_not_null(f);
	cr_assert_eq(fwrite(pkt.data, 1, pkt.size, f), pkt.size);
	cr_assert_eq(fclose(f), 0);
	rtr_consumer_put(b->t.c, 0);
	return true;
}

static void tb_close(struct tb *b)
{
	rm_rf(b->trace);
	t_ring_close(&b->t);
}

static int try_ints(struct tb *b, uint64_t u)
{
	struct pl p = { .n = 30 };

	memcpy(p.b, &u, 8);
	return tb_write(b, EV_INTS, &p);
}

static void write_ints8(struct tb *b, uint64_t a, uint64_t b16, uint64_t c, uint64_t d, int64_t e,
			int64_t f, int64_t g, int64_t h)
{
	struct pl p = { .n = 0 };

	PL_INT(&p, uint8_t, a);
	PL_INT(&p, uint16_t, b16);
	PL_INT(&p, uint32_t, c);
	PL_INT(&p, uint64_t, d);
	PL_INT(&p, int8_t, e);
	PL_INT(&p, int16_t, f);
	PL_INT(&p, int32_t, g);
	PL_INT(&p, int64_t, h);
	cr_assert_eq(tb_write(b, EV_INTS, &p), 0);
}

static void write_ints(struct tb *b, uint64_t u, int64_t s)
{
	write_ints8(b, u, u, u, u, s, s, s, s);
}

static int write_str(struct tb *b, const void *s, size_t n, uint32_t tail)
{
	struct pl p = { .n = 0 };
	uint8_t nul = 0;

	pl_put(&p, s, n);
	pl_put(&p, &nul, 1);
	PL_INT(&p, uint32_t, tail);
	return tb_write(b, EV_STR, &p);
}

static void write_enum(struct tb *b, uint8_t k, uint32_t w)
{
	struct pl p = { .n = 0 };

	PL_INT(&p, uint8_t, k);
	PL_INT(&p, uint32_t, w);
	cr_assert_eq(tb_write(b, EV_ENUM, &p), 0);
}

static void write_seq(struct tb *b, const void *d, uint32_t n, uint8_t after)
{
	struct pl p = { .n = 0 };

	PL_INT(&p, uint32_t, n);
	pl_put(&p, d, n);
	PL_INT(&p, uint8_t, after);
	cr_assert_eq(tb_write(b, EV_SEQ, &p), 0);
}

static void write_dbl(struct tb *b, double v)
{
	struct pl p = { .n = 0 };

	pl_put(&p, &v, 8);
	cr_assert_eq(tb_write(b, EV_DBL, &p), 0);
}

static void write_x(struct tb *b, uint32_t id, uint32_t x)
{
	struct pl p = { .n = 0 };

	PL_INT(&p, uint32_t, x);
	cr_assert_eq(tb_write(b, id, &p), 0);
}

/* Largest payload a 4096-byte packet takes: 84 + 16 + round8(len) <= 4096. */
#define MAX_PAYLOAD_4K	3992u
#define MAX_STRING_4K	(MAX_PAYLOAD_4K - 1 - 4)

static const uint8_t nasty[] = {
	'q', '"', 'b', '\\', '\n', '\t', 0x01, 0x1f, 0x7f, 0x80, 0xff, 'e', 'n', 'd',
};
#define NASTY_OUT "\"q\\\"b\\\\\\n\\t\\x01\\x1f\\x7f\\x80\\xffend\""

/* One of each field type at its limits, in a trace of one stream. */
static void values_trace(struct tb *b)
{
	static const uint8_t bytes[] = { 0x00, 0x01, 0x7f, 0x80, 0xff };
	static char big[MAX_STRING_4K + 2];
	struct pl none = { .n = 0 };

	tb_open(b, RTR_MODE_DISCARD, 4096, 16);
	write_x(b, EV_BIG, 5);	/* extended header first: its timestamp is in clear */
	write_ints8(b, UINT8_MAX, UINT16_MAX, UINT32_MAX, UINT64_MAX, INT8_MIN, INT16_MIN,
		    INT32_MIN, INT64_MIN);
	write_ints8(b, 0, 0, 0, 0, INT8_MAX, INT16_MAX, INT32_MAX, INT64_MAX);
	write_ints(b, 1, -1);
	cr_assert_eq(write_str(b, nasty, sizeof(nasty), 1), 0);
	cr_assert_eq(write_str(b, "", 0, 2), 0);
	memset(big, 'x', sizeof(big));
	cr_assert_eq(write_str(b, big, MAX_STRING_4K, 3), 0);
	cr_assert_neq(write_str(b, big, MAX_STRING_4K + 1, 4), 0,
		      "the string above is the longest");
	write_enum(b, 0, 1);
	write_enum(b, 1, 4000000000u);
	write_enum(b, 7, 5);
	write_enum(b, 200, 0);
	write_seq(b, bytes, sizeof(bytes), 9);
	write_seq(b, NULL, 0, 10);
	write_dbl(b, 0.1);
	write_dbl(b, -0.0);
	write_dbl(b, 1e300);
	write_dbl(b, 1.0 / 3);
	cr_assert_eq(tb_write(b, EV_MAXID, &none), 0);
	write_x(b, EV_BIG, UINT32_MAX);
	write_x(b, EV_TICK, 7);
	tb_finish(b, NULL, NULL);
}

/* Each of @want, in this order, in @out. */
static void expect_in_order(const char *out, const char *const *want, size_t n)
{
	const char *at = out;

	for (size_t i = 0; i < n; i++) {
		const char *f = strstr(at, want[i]);

		cr_expect_not_null(f, "missing (or out of order): %s\nin:\n%.4000s", want[i], out);
		if (f)
			at = f + strlen(want[i]);
	}
}

Test(tools_dump_check, dump_prints_the_exact_values)
{
	static const char *const want[] = {
		" testhost cpu 0 big_id: { x = 5 }\n",
		" testhost cpu 0 ints: { a = 255, b = 65535, c = 4294967295, "
		"d = 18446744073709551615, e = -128, f = -32768, g = -2147483648, "
		"h = -9223372036854775808 }\n",
		" ints: { a = 0, b = 0, c = 0, d = 0, e = 127, f = 32767, g = 2147483647, "
		"h = 9223372036854775807 }\n",
		" ints: { a = 1, b = 1, c = 1, d = 1, e = -1, f = -1, g = -1, h = -1 }\n",
		" str: { s = " NASTY_OUT ", tail = 1 }\n",
		" str: { s = \"\", tail = 2 }\n",
		" en: { k = zero (0), w = one (1) }\n",
		" en: { k = q\"uote\\back (1), w = big (4000000000) }\n",
		" en: { k = 7, w = 5 }\n",
		" en: { k = two-hundred (200), w = 0 }\n",
		" seq: { data = 0x00017f80ff, after = 9 }\n",
		" seq: { data = 0x, after = 10 }\n",
		" dbl: { v = 0.1 }\n",
		" dbl: { v = -0 }\n",
		" dbl: { v = 1e+300 }\n",
		" dbl: { v = 0.3",
		" max_id: { }\n",
		" big_id: { x = 4294967295 }\n",
		" app:tick: { x = 7 }\n",
	};
	char args[256], *out, *line, *third;
	static char maxline[MAX_STRING_4K + 64];
	struct tb b;
	int st;

	values_trace(&b);
	snprintf(args, sizeof(args), "dump '%s'", b.trace);
	out = rt(args, &st);
	cr_assert_eq(st, 0, "%s", out);
	expect_in_order(out, want, sizeof(want) / sizeof(want[0]));
	third = strstr(out, " dbl: { v = 0.3");
	cr_assert_not_null(third);
	cr_expect_eq(strtod(third + strlen(" dbl: { v = "), NULL), 1.0 / 3, "round trip of 1/3");
	memset(maxline, 0, sizeof(maxline));
	strcpy(maxline, " str: { s = \"");
	memset(maxline + strlen(maxline), 'x', MAX_STRING_4K);
	strcat(maxline, "\", tail = 3 }\n");
	cr_expect_not_null(strstr(out, maxline), "the longest string, whole");
	/* the string one byte too long was refused, and counted */
	cr_expect_not_null(strstr(out, "dump: 20 events, 1 events lost, 0 packets lost"), "%s",
			   out);
	for (line = out; *line == '['; line = strchr(line, '\n') + 1)
		;
	cr_expect_eq(strncmp(line, "dump: ", 6), 0, "every stdout line is an event: %s", line);
	free(out);

	/* The reference reader agrees on the count, and check finds it clean. */
	snprintf(args, sizeof(args), "babeltrace2 '%s' 2>/dev/null | wc -l", b.trace);
	out = t_sh(args, &st);
	cr_expect_eq(atoi(out), 20, "babeltrace2: %s", out);
	free(out);
	snprintf(args, sizeof(args), "check '%s'", b.trace);
	out = rt(args, &st);
	cr_expect_eq(st, 0, "%s", out);
	cr_expect_not_null(strstr(out, "check: ok (with losses)\n"), "%s", out);
	free(out);
	tb_close(&b);
}

Test(tools_dump_check, dump_time_and_options)
{
	char args[256], path[192], *out, *out2, *line;
	const struct rtr_region_hdr *h;
	uint64_t ts;
	__int128 want, got;
	long long s;
	unsigned long ns;
	uint8_t *data;
	size_t len;
	struct tb b;
	struct tm tm;
	time_t tt;
	char hms[32];
	int st;

	values_trace(&b);
	h = rtr_consumer_region(b.t.c);
	snprintf(path, sizeof(path), "%s/stream_0", b.trace);
	data = slurp(path, &len);
	cr_assert_gt(len, RTR_PACKET_HDR_SIZE + RTR_EV_EXTENDED_SIZE);
	cr_assert_eq(data[RTR_PACKET_HDR_SIZE], RTR_EV_EXTENDED, "the first record is extended");
	memcpy(&ts, data + RTR_PACKET_HDR_SIZE + 5, 8);
	free(data);

	snprintf(args, sizeof(args), "dump --clock-seconds --no-delta '%s'", b.trace);
	out = rt(args, &st);
	cr_assert_eq(st, 0, "%s", out);
	cr_assert_eq(sscanf(out, "[%lld.%9lu] testhost cpu 0 big_id: { x = 5 }", &s, &ns), 2, "%s",
		     out);
	cr_expect_null(strstr(out, "(+"), "--no-delta: %s", out);
	got = (__int128)s * 1000000000 + ns;
	want = (__int128)h->clock_offset_ns + (__int128)ts * 1000000000 / h->clock_freq;
	cr_expect(got - want <= 2 && want - got <= 2, "time %lld.%09lu, wanted %lld ns", s, ns,
		  (long long)want);

	snprintf(args, sizeof(args), "dump '%s'", b.trace);
	out2 = rt(args, &st);
	cr_assert_eq(st, 0, "%s", out2);
	tt = (time_t)s;
	localtime_r(&tt, &tm);
	snprintf(hms, sizeof(hms), "[%02d:%02d:%02d.%09lu] (+?.", tm.tm_hour, tm.tm_min, tm.tm_sec,
		 ns);
	cr_expect_eq(strncmp(out2, hms, strlen(hms)), 0, "local time %s in %.200s", hms, out2);
	line = strchr(out2, '\n') + 1;
	cr_expect_eq(strncmp(line + 20, " (+0.", 5), 0, "a delta on the second line: %.100s", line);

	free(out);
	free(out2);
	out = rt("dump", &st);
	cr_expect_eq(st, 2, "%s", out);
	cr_expect_not_null(strstr(out, "usage: ringtrace dump"), "%s", out);
	free(out);
	out = rt("dump --frob /tmp", &st);
	cr_expect_eq(st, 2, "%s", out);
	free(out);
	out = rt("dump --help", &st);
	cr_expect_eq(st, 0, "%s", out);
	cr_expect_not_null(strstr(out, "--clock-seconds"), "%s", out);
	free(out);
	out = rt("check", &st);
	cr_expect_eq(st, 2, "%s", out);
	free(out);
	out = rt("check -x /tmp", &st);
	cr_expect_eq(st, 2, "%s", out);
	free(out);
	out = rt("check --help", &st);
	cr_expect_eq(st, 0, "%s", out);
	cr_expect_not_null(strstr(out, "usage: ringtrace check"), "%s", out);
	free(out);
	out = rt("--help", &st);
	cr_expect_not_null(strstr(out, "dump ["), "%s", out);
	cr_expect_not_null(strstr(out, "check TRACE"), "%s", out);
	free(out);
	tb_close(&b);
}

/* check's closing totals line. */
static void check_totals(const char *out, uint64_t *packets, uint64_t *events, uint64_t *lost_ev,
			 uint64_t *lost_pk)
{
	const char *l = strstr(out, " packets, ");

	cr_assert_not_null(l, "%s", out);
	while (l > out && l[-1] != '\n')
		l--;
	cr_assert_eq(sscanf(l, "%" SCNu64 " packets, %" SCNu64 " events, %" SCNu64
			    " events lost, %" SCNu64 " packets lost", packets, events, lost_ev,
			    lost_pk), 4, "%s", l);
}

Test(tools_dump_check, losses_in_line_and_counted)
{
	char args[256], line[128], *out;
	uint64_t seqs[256], lost_full, truth = 0, packets, events, lost_ev, lost_pk;
	size_t nseqs = 0;
	struct tb b;
	int st;

	/* Discard mode, nobody consuming: the ring fills and drops. */
	tb_open(&b, RTR_MODE_DISCARD, 4096, 2);
	for (int i = 0; i < 300; i++)
		try_ints(&b, (uint64_t)i);
	tb_drain(&b, NULL, NULL);
	lost_full = t_ctl(&b.t, 0)->lost_full;
	cr_assert_gt(lost_full, 0);
	for (int i = 0; i < 10; i++)
		write_ints(&b, (uint64_t)i, i);
	tb_finish(&b, NULL, NULL);
	snprintf(args, sizeof(args), "check '%s'", b.trace);
	out = rt(args, &st);
	cr_expect_eq(st, 0, "losses are not damage: %s", out);
	cr_expect_not_null(strstr(out, "check: ok (with losses)"), "%s", out);
	check_totals(out, &packets, &events, &lost_ev, &lost_pk);
	cr_expect_eq(lost_ev, lost_full, "%s", out);
	cr_expect_eq(lost_pk, 0, "%s", out);
	free(out);
	snprintf(args, sizeof(args), "dump '%s'", b.trace);
	out = rt(args, &st);
	cr_expect_eq(st, 0, "%s", out);
	snprintf(line, sizeof(line), "] cpu 0: lost %" PRIu64 " events\n", lost_full);
	cr_expect_not_null(strstr(out, line), "%s in %s", line, out);
	snprintf(line, sizeof(line), "dump: %" PRIu64 " events, %" PRIu64 " events lost, 0 packets",
		 events, lost_full);
	cr_expect_not_null(strstr(out, line), "%s in %s", line, out);
	free(out);
	tb_close(&b);

	/* Losses after the last packet, told by a header-only tail packet. */
	tb_open(&b, RTR_MODE_DISCARD, 4096, 2);
	for (int i = 0; i < 300; i++)
		try_ints(&b, (uint64_t)i);
	tb_finish(&b, NULL, NULL);
	lost_full = t_ctl(&b.t, 0)->lost_full;
	cr_assert_gt(lost_full, 0);
	cr_assert(tb_tail(&b), "a tail packet");
	snprintf(args, sizeof(args), "check '%s'", b.trace);
	out = rt(args, &st);
	cr_expect_eq(st, 0, "%s", out);
	check_totals(out, &packets, &events, &lost_ev, &lost_pk);
	cr_expect_eq(lost_ev, lost_full, "%s", out);
	cr_expect_eq(lost_pk, 0, "%s", out);
	free(out);
	snprintf(args, sizeof(args), "dump '%s'", b.trace);
	out = rt(args, &st);
	cr_expect_eq(st, 0, "%s", out);
	snprintf(line, sizeof(line), "] cpu 0: lost %" PRIu64 " events\ndump: ", lost_full);
	cr_expect_not_null(strstr(out, line), "the last line: %s in %s", line, out);
	free(out);
	tb_close(&b);

	/* Overwrite mode: laps lose packets before the first one and in between. */
	tb_open(&b, RTR_MODE_OVERWRITE, 4096, 2);
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < 400; i++)
			write_ints(&b, (uint64_t)i, i);
		tb_drain(&b, seqs, &nseqs);
	}
	tb_finish(&b, seqs, &nseqs);
	cr_assert_gt(nseqs, 2);
	truth = seqs[0];
	for (size_t i = 1; i < nseqs; i++)
		truth += seqs[i] - seqs[i - 1] - 1;
	cr_assert_gt(seqs[0], 0);
	cr_assert_gt(truth, seqs[0], "a gap after the first packet too");
	snprintf(args, sizeof(args), "check '%s'", b.trace);
	out = rt(args, &st);
	cr_expect_eq(st, 0, "%s", out);
	check_totals(out, &packets, &events, &lost_ev, &lost_pk);
	cr_expect_eq(packets, nseqs, "%s", out);
	cr_expect_eq(lost_pk, truth, "%s", out);
	snprintf(line, sizeof(line), "(%" PRIu64 " of them before the streams' first packets)",
		 seqs[0]);
	cr_expect_not_null(strstr(out, line), "%s in %s", line, out);
	free(out);
	snprintf(args, sizeof(args), "dump '%s'", b.trace);
	out = rt(args, &st);
	cr_expect_eq(st, 0, "%s", out);
	snprintf(line, sizeof(line), "] cpu 0: lost %" PRIu64 " packets\n", seqs[0]);
	cr_expect_eq(strncmp(strchr(out, ']'), line, strlen(line)), 0,
		     "the packets lost before the first, on the first line: %.200s", out);
	snprintf(line, sizeof(line), " 0 events lost, %" PRIu64 " packets lost\n", truth);
	cr_expect_not_null(strstr(out, line), "%s in %s", line, out);
	free(out);
	tb_close(&b);
}

/* ---- a stress trace: two streams, many events ----------------------------------------- */

ParameterizedTestParameters(tools_dump_check, stress_trace_agrees_with_babeltrace2)
{
	static uint32_t modes[] = { RTR_MODE_DISCARD, RTR_MODE_OVERWRITE };

	return cr_make_param_array(uint32_t, modes, 2);
}

ParameterizedTest(uint32_t *mode, tools_dump_check, stress_trace_agrees_with_babeltrace2)
{
	char dir[] = "/dev/shm/rtr-dump-XXXXXX", cmd[PATH_MAX + 512], *out, *buf;
	struct stress_cfg cfg = {
		.mode = *mode, .packet_size = 16384, .packets = 8, .writers = 2,
		.seconds = 30, .max_events = 40000, .consumer_delay_us = 300, .quiet = true,
	};
	uint64_t packets, events, lost_ev, lost_pk, lines = 0, dumped;
	const char *ev;
	long long ps = LLONG_MIN, s;
	unsigned long pns = 0, ns;
	struct stress_result res;
	size_t len;
	int st;

	cr_assert_not_null(mkdtemp(dir));
	cfg.dir = dir;
	cr_assert_eq(stress_run(&cfg, &res), 0, "%s", res.why);
	cr_assert(res.ok, "%s", res.why);

	snprintf(cmd, sizeof(cmd), "check '%s/trace'", dir);
	out = rt(cmd, &st);
	cr_expect_eq(st, 0, "%s", out);
	check_totals(out, &packets, &events, &lost_ev, &lost_pk);
	cr_expect_eq(events, res.received, "%s", out);
	cr_expect_eq(packets, res.packets, "%s", out);
	cr_expect_eq(lost_ev, res.events_discarded, "%s", out);
	cr_expect_eq(lost_pk, res.lost_packets, "%s", out);
	free(out);

	/* Same event count as babeltrace2 (which prints the thread records as events). */
	snprintf(cmd, sizeof(cmd), "babeltrace2 '%s/trace' 2>/dev/null | grep -c ' stress_event: '",
		 dir);
	out = t_sh(cmd, &st);
	cr_expect_eq(strtoull(out, NULL, 10), res.received, "babeltrace2: %s", out);
	free(out);

	/* The merged output goes forward in time, line after line. */
	snprintf(cmd, sizeof(cmd), "'%s/ringtrace' dump --clock-seconds '%s/trace' > '%s/dump' "
		 "2> '%s/dump.err'", t_bindir(), dir, dir, dir);
	cr_assert_eq(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "%s/dump", dir);
	buf = (char *)slurp(cmd, &len);
	for (char *l = buf; l < buf + len; l = strchr(l, '\n') + 1) {
		cr_assert_eq(sscanf(l, "[%lld.%9lu]", &s, &ns), 2, "%.100s", l);
		cr_assert(s > ps || (s == ps && ns >= pns), "time goes back at line %" PRIu64
			  ": %.100s", lines + 1, l);
		ps = s;
		pns = ns;
		cr_assert_not_null(strchr(l, '\n'));
		ev = memmem(l, (size_t)(strchr(l, '\n') - l), " stress_event: ", 15);
		if (ev) {
			unsigned tid, pad;
			const char *t = memmem(l, (size_t)(ev - l), " tid ", 5);

			/* the writer's tid is in the payload's pad: dump names the same thread */
			cr_assert_not_null(t, "%.100s", l);
			cr_assert_eq(sscanf(t, " tid %u stress_event: { writer = %*u, pad = %u,", &tid,
					    &pad), 2, "%.200s", l);
			cr_assert_eq(tid, pad, "%.200s", l);
			lines++;
		} else {
			cr_assert(memmem(l, (size_t)(strchr(l, '\n') - l), ": lost ", 7) ||
				  memmem(l, (size_t)(strchr(l, '\n') - l), " thread: { pid = ", 17),
				  "%.200s", l);
		}
	}
	cr_expect_eq(lines, res.received);
	free(buf);
	snprintf(cmd, sizeof(cmd), "%s/dump.err", dir);
	buf = (char *)slurp(cmd, &len);
	cr_assert_eq(sscanf(buf, "dump: %" SCNu64 " events", &dumped), 1, "%s", buf);
	cr_expect_eq(dumped, res.received);
	free(buf);
	rm_rf(dir);
}

/* ---- damaged traces ---------------------------------------------------------------------- */

/* A good trace of a few packets of mixed records, on CPU 0. */
static void base_trace(struct tb *b)
{
	char s[64];

	tb_open(b, RTR_MODE_DISCARD, 4096, 16);
	for (int i = 0; i < 120; i++) {
		int n = snprintf(s, sizeof(s), "record %d", i);

		write_ints(b, (uint64_t)i, -i);
		cr_assert_eq(write_str(b, s, (size_t)n, (uint32_t)i), 0);
		write_seq(b, s, (uint32_t)(i % 7), (uint8_t)i);
	}
	tb_finish(b, NULL, NULL);
}

static void st64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

struct damage {
	struct tb b;
	char base[160];		/* the good trace */
	char dir[192];		/* the damaged copy */
	uint8_t *stream;	/* the good stream_0 */
	size_t len;
	uint64_t p0;		/* bytes of its first packet */
	int n;
};

static void damage_open(struct damage *d)
{
	char path[256];

	memset(d, 0, sizeof(*d));
	base_trace(&d->b);
	snprintf(d->base, sizeof(d->base), "%s", d->b.trace);
	snprintf(path, sizeof(path), "%s/stream_0", d->base);
	d->stream = slurp(path, &d->len);
	cr_assert_gt(d->len, 3 * 4096 / 2, "several packets");
	d->p0 = ld64(d->stream + 60) / 8;
	cr_assert_lt(d->p0, d->len);
}

/* A copy of the good trace, its stream_0 replaced by @len bytes of @data. */
static const char *variant(struct damage *d, const void *data, size_t len)
{
	char cmd[512], path[256];
	int st;

	snprintf(d->dir, sizeof(d->dir), "%s/../bad%d", d->base, d->n++);
	snprintf(cmd, sizeof(cmd), "cp -r '%s' '%s'", d->base, d->dir);
	free(t_sh(cmd, &st));
	cr_assert_eq(st, 0);
	snprintf(path, sizeof(path), "%s/stream_0", d->dir);
	if (data)
		spit(path, data, len);
	return d->dir;
}

/* dump and check both fail cleanly, saying @what (and naming stream_0 at @off if >= 0). */
static void expect_damage(const char *dir, const char *what, long long off)
{
	static const char *const cmds[] = { "dump", "check" };
	char args[512], where[300];

	for (int i = 0; i < 2; i++) {
		char *out;
		int st;

		snprintf(args, sizeof(args), "%s '%s'", cmds[i], dir);
		out = rt(args, &st);
		expect_clean_exit(args, out, st);
		cr_expect_eq(st, 1, "%s: exit %d:\n%.3000s", args, st, out);
		cr_expect_not_null(strstr(out, what), "%s: no '%s' in:\n%.3000s", args, what, out);
		if (off >= 0) {
			snprintf(where, sizeof(where), "%s/stream_0: offset %lld: ", dir, off);
			cr_expect_not_null(strstr(out, where), "%s: no '%s' in:\n%.3000s", args,
					   where, out);
		}
		free(out);
	}
}

/* Where the packet holding byte @off of the good stream starts. */
static uint64_t packet_start(const struct damage *d, uint64_t off)
{
	uint64_t p = 0;

	while (p + ld64(d->stream + p + 60) / 8 <= off)
		p += ld64(d->stream + p + 60) / 8;
	return p;
}

static void damage_close(struct damage *d)
{
	char path[256];

	free(d->stream);
	for (int i = 0; i < d->n; i++) {
		snprintf(path, sizeof(path), "%s/../bad%d", d->base, i);
		rm_rf(path);
	}
	tb_close(&d->b);
}

Test(tools_dump_check, truncated_streams_fail_cleanly)
{
	struct damage d;
	char args[512], *out;
	int st;

	damage_open(&d);
	snprintf(args, sizeof(args), "check '%s'", d.base);
	out = rt(args, &st);
	cr_assert_eq(st, 0, "the base trace is good: %s", out);
	free(out);

	size_t cuts[] = { 1, 40, 83, 84, 85, 100, d.p0 / 2, d.p0 - 1, d.p0 + 1, d.p0 + 83,
			  d.p0 + 84, d.p0 + 90, d.len - 1 };

	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		uint64_t start = packet_start(&d, cuts[i]), rel = cuts[i] - start;
		const char *dir = variant(&d, d.stream, cuts[i]);

		cr_assert_gt(rel, 0, "a cut at a packet boundary leaves a good trace");
		if (rel < RTR_PACKET_HDR_SIZE) {
			/* the field the cut falls in (or starts), named where it starts */
			static const uint32_t fields[] = { 0, 4, 20, 24, 32, 40, 48, 52, 60, 68, 76 };
			uint32_t f = 0;

			while (f + 1 < sizeof(fields) / sizeof(fields[0]) && fields[f + 1] <= rel)
				f++;
			/* the header's fields, then the context's (from timestamp_begin) */
			expect_damage(dir,
				      fields[f] < 32 ? "packet header: field '"
						     : "packet context: field '",
				      (long long)(start + fields[f]));
		} else
			expect_damage(dir, "runs past the end of the file", (long long)start + 60);
	}
	/* What came before the damage is printed. */
	snprintf(args, sizeof(args), "dump '%s'", variant(&d, d.stream, d.p0 + 90));
	out = rt(args, &st);
	cr_expect_eq(st, 1);
	cr_expect_not_null(strstr(out, ") testhost cpu 0 ints: { a = 0, "), "%.2000s", out);
	free(out);
	damage_close(&d);
}

Test(tools_dump_check, lying_headers_fail_cleanly)
{
	uint8_t *s;
	struct damage d;

	damage_open(&d);
	s = malloc(d.len);
	cr_assert_not_null(s);

	memcpy(s, d.stream, d.len);
	s[d.p0] ^= 0x40;	/* the second packet's magic */
	expect_damage(variant(&d, s, d.len), "bad packet magic", (long long)d.p0);

	memcpy(s, d.stream, d.len);
	s[10] ^= 1;		/* uuid */
	expect_damage(variant(&d, s, d.len), "uuid differs", 4);

	memcpy(s, d.stream, d.len);
	st64(s + 60, (d.len + 8) * 8);	/* content_size, packet_size: past the file's end */
	st64(s + 68, (d.len + 8) * 8);
	expect_damage(variant(&d, s, d.len), "runs past the end of the file", 60);

	memcpy(s, d.stream, d.len);
	st64(s + 60, 80 * 8);		/* smaller than the header */
	st64(s + 68, 80 * 8);
	expect_damage(variant(&d, s, d.len),
		      "is less than the packet's header and context (672 bits)", 60);

	memcpy(s, d.stream, d.len);
	st64(s + 60, d.p0 * 8 + 3);	/* not whole bytes */
	st64(s + 68, d.p0 * 8 + 3);
	expect_damage(variant(&d, s, d.len), "not a whole number of bytes", 60);

	memcpy(s, d.stream, d.len);
	st64(s + 68, d.p0 * 8 - 64);	/* packet_size < content_size */
	expect_damage(variant(&d, s, d.len), "less than content_size", 68);

	memcpy(s, d.stream, d.len);
	st64(s + 68, d.len * 8 + 8);	/* padding past the file's end */
	expect_damage(variant(&d, s, d.len), "runs past the end of the file", 68);

	memcpy(s, d.stream, d.len);
	st64(s + 68, d.p0 * 8 + 4);	/* padding not whole bytes */
	expect_damage(variant(&d, s, d.len), "not a whole number of bytes", 68);

	memcpy(s, d.stream, d.len);
	st64(s + 60, d.p0 * 8 - 8 * 8);	/* smaller than the records: the next packet is garbage */
	st64(s + 68, d.p0 * 8 - 8 * 8);
	expect_damage(variant(&d, s, d.len), "stream_0: offset ", -1);

	memcpy(s, d.stream, d.len);
	st64(s + d.p0 + 40, ld64(s + 40));	/* second packet repeats the first's seq */
	expect_damage(variant(&d, s, d.len), "does not follow", (long long)d.p0 + 40);

	memcpy(s, d.stream, d.len);
	st64(s + 76, 5);		/* events_discarded goes down in the next packet */
	expect_damage(variant(&d, s, d.len), "below the previous packet's", (long long)d.p0 + 76);

	memcpy(s, d.stream, d.len);
	st64(s + 52, ld64(s + 32) - 1);	/* timestamp_end before timestamp_begin */
	expect_damage(variant(&d, s, d.len), "before timestamp_begin", 52);

	memcpy(s, d.stream, d.len);
	st64(s + 24, 3);		/* stream_instance_id != cpu_id */
	expect_damage(variant(&d, s, d.len), "differs from stream_instance_id", 48);

	free(s);
	damage_close(&d);
}

/* A stream of one hand-made packet: the first one's header, then @rec. */
static const char *crafted(struct damage *d, const void *rec, size_t n)
{
	uint8_t *s = malloc(RTR_PACKET_HDR_SIZE + n);
	const char *dir;

	cr_assert_not_null(s);
	memcpy(s, d->stream, RTR_PACKET_HDR_SIZE);
	memcpy(s + RTR_PACKET_HDR_SIZE, rec, n);
	st64(s + 60, (RTR_PACKET_HDR_SIZE + n) * 8);
	st64(s + 68, (RTR_PACKET_HDR_SIZE + n) * 8);
	dir = variant(d, s, RTR_PACKET_HDR_SIZE + n);
	free(s);
	return dir;
}

Test(tools_dump_check, bad_records_fail_cleanly)
{
	struct damage d;
	uint8_t rec[64];
	uint32_t w, begin_low;
	uint64_t ts;

	damage_open(&d);
	begin_low = (uint32_t)(ld64(d.stream + 32) & ((1u << RTR_EV_TS_BITS) - 1));

	/* A good single-record packet first, so that the failures below are the records'. */
	w = begin_low << 5 | EV_STR;
	memcpy(rec, &w, 4);
	memcpy(rec + 4, "abc\0\1\0\0\0", 8);
	{
		char args[512], *out;
		int st;

		snprintf(args, sizeof(args), "dump '%s'", crafted(&d, rec, 12));
		out = rt(args, &st);
		cr_expect_eq(st, 0, "%s", out);
		cr_expect_not_null(strstr(out, " str: { s = \"abc\", tail = 1 }\n"), "%s", out);
		free(out);
	}

	w = begin_low << 5 | 29;	/* no class 29 */
	memcpy(rec, &w, 4);
	expect_damage(crafted(&d, rec, 12), "unknown event id 29", 84);

	rec[0] = RTR_EV_EXTENDED;	/* extended, id 41 */
	w = 41;
	memcpy(rec + 1, &w, 4);
	ts = ld64(d.stream + 32);
	memcpy(rec + 5, &ts, 8);
	expect_damage(crafted(&d, rec, 13), "unknown event id 41", 84);

	w = begin_low << 5 | EV_STR;	/* a string without NUL up to the packet end */
	memcpy(rec, &w, 4);
	memcpy(rec + 4, "abcdef", 6);
	expect_damage(crafted(&d, rec, 10), "str: field 's': a string without its NUL", 88);

	memcpy(rec + 4, "abc\0\1\0", 6);	/* the u32 after the string cut short */
	expect_damage(crafted(&d, rec, 10), "str: field 'tail': runs past the packet's content",
		      92);

	w = begin_low << 5 | EV_SEQ;	/* a byte sequence longer than the packet */
	memcpy(rec, &w, 4);
	w = 1000;
	memcpy(rec + 4, &w, 4);
	expect_damage(crafted(&d, rec, 20),
		      "seq: field 'data': a sequence of 1000 elements runs past", 92);

	w = begin_low << 5 | EV_INTS;	/* a fixed-size record cut short */
	memcpy(rec, &w, 4);
	expect_damage(crafted(&d, rec, 20), "ints: field 'f': runs past the packet's content", 104);

	expect_damage(crafted(&d, rec, 3),
		      "event header: field 'timestamp': runs past the packet's content", 84);

	rec[0] = RTR_EV_EXTENDED;	/* an extended timestamp that goes back */
	w = EV_BIG;
	memcpy(rec + 1, &w, 4);
	ts = ld64(d.stream + 32) - 1;
	memcpy(rec + 5, &ts, 8);
	expect_damage(crafted(&d, rec, 17), "goes back", 84);

	ts = ld64(d.stream + 52) + 1;	/* after the packet's end */
	memcpy(rec + 5, &ts, 8);
	expect_damage(crafted(&d, rec, 17), "after the packet's timestamp_end", 84);
	damage_close(&d);
}

Test(tools_dump_check, bad_directories_and_metadata_fail_cleanly)
{
	struct damage d;
	char path[300], args[512], *out, *md;
	size_t len;
	int st;

	damage_open(&d);
	snprintf(path, sizeof(path), "%s/metadata", variant(&d, NULL, 0));
	cr_assert_eq(unlink(path), 0);
	expect_damage(d.dir, "metadata: No such file or directory", -1);

	snprintf(path, sizeof(path), "%s/metadata", variant(&d, NULL, 0));
	spit(path, "hello\n", 6);
	expect_damage(d.dir, "metadata: line 1: not ringtrace's CTF 1.8", -1);

	snprintf(path, sizeof(path), "%s/metadata", variant(&d, NULL, 0));
	spit(path, "", 0);
	expect_damage(d.dir, "metadata: line 1:", -1);

	/* An unknown field type, on the line where it is. */
	snprintf(path, sizeof(path), "%s/metadata", d.base);
	md = (char *)slurp(path, &len);
	{
		char *f = strstr(md, "uint32_t _tail;");
		int line = 1;

		cr_assert_not_null(f);
		for (char *c = md; c < f; c++)
			line += *c == '\n';
		memcpy(f, "uint31_t", 8);
		snprintf(path, sizeof(path), "%s/metadata", variant(&d, NULL, 0));
		spit(path, md, len);
		snprintf(args, sizeof(args), "metadata: line %d: unknown type 'uint31_t'", line);
		expect_damage(d.dir, args, -1);
	}
	free(md);

	snprintf(path, sizeof(path), "%s/../empty", d.base);
	cr_assert_eq(mkdir(path, 0700), 0);
	expect_damage(path, "metadata: No such file or directory", -1);
	rmdir(path);

	/* a path that does not exist is not a damaged trace: it is named, exit 2 */
	for (int i = 0; i < 2; i++) {
		out = rt(i ? "check /nonexistent/trace" : "dump /nonexistent/trace", &st);
		cr_expect_eq(st, 2, "%s", out);
		cr_expect_not_null(strstr(out, "no such trace: /nonexistent/trace"), "%s", out);
		free(out);
	}

	/* A metadata-only trace and a hidden file are not damage. */
	snprintf(path, sizeof(path), "%s/stream_0", variant(&d, NULL, 0));
	cr_assert_eq(unlink(path), 0);
	snprintf(path, sizeof(path), "%s/.hidden", d.dir);
	spit(path, "junk", 4);
	snprintf(args, sizeof(args), "check '%s'", d.dir);
	out = rt(args, &st);
	cr_expect_eq(st, 0, "%s", out);
	free(out);
	damage_close(&d);
}

/* ---- the reader itself, on mutated exact-size copies ----------------------------------- */

/* An item as the cursor gave it: what the fast paths and the plans' walk must agree on. */
struct seen {
	int r;
	uint64_t off, ts, lost, len, tid, pid, pos, quirks, events_lost, packets_lost;
	const struct tr_class *cls;
	const uint8_t *payload;
	bool has_tid;
};

/* Every item of @data as stream "stream_0", into @v (at most @max); their count. */
static size_t walk_items(const struct tr_metadata *md, const uint8_t *data, size_t len,
			 struct seen *v, size_t max, char *err, size_t errlen)
{
	struct tr_trace t = { .dir = "fuzz" };
	struct tr_stream s = { .name = "stream_0", .path = "fuzz/stream_0" };
	struct tr_cursor c;
	size_t n = 0;
	int r;

	s.data = data;
	s.size = len;
	t.md = *md;
	t.streams = &s;
	t.nstreams = 1;
	tr_cursor_init(&c, &t, 0);
	do {
		r = tr_next(&c);
		cr_assert_lt(n, max, "the cursor does not stop");
		memset(&v[n], 0, sizeof(v[n])); /* compared with memcmp: the padding too */
		v[n].r = r;
		v[n].pos = c.pos;
		v[n].quirks = c.quirks;
		v[n].events_lost = c.events_lost;
		v[n].packets_lost = c.packets_lost;
		if (r == TR_EVENT) {
			cr_assert_geq(c.payload, data);
			cr_assert_leq(c.payload + c.len, data + len);
			v[n].off = c.off;
			v[n].ts = c.ts;
			v[n].cls = c.cls;
			v[n].payload = c.payload;
			v[n].len = c.len;
			v[n].has_tid = c.has_tid;
			v[n].tid = c.tid;
			v[n].pid = c.pid;
		} else if (r == TR_LOST_EVENTS || r == TR_LOST_PACKETS) {
			v[n].ts = c.ts;
			v[n].lost = c.lost;
		}
		n++;
	} while (r > 0);
	snprintf(err, errlen, "%s", r == TR_ERROR ? c.err : "");
	return n;
}

/*
 * Walk every item of @data as stream "stream_0" twice, by the fast paths and
 * by the plans' walk alone: the same items, the same message.  Return: 1 if
 * it ended in damage.
 */
static int walk(const struct tr_metadata *md, const uint8_t *data, size_t len)
{
	size_t max = 2 * len + 16, n[2];
	struct seen *v[2];
	char err[2][512];

	for (int k = 0; k < 2; k++) {
		v[k] = malloc(max * sizeof(*v[k]));
		cr_assert_not_null(v[k]);
		tr_cursor_fast_paths(k == 0);
		n[k] = walk_items(md, data, len, v[k], max, err[k], sizeof(err[k]));
	}
	tr_cursor_fast_paths(true);
	cr_assert_eq(n[0], n[1], "fast paths: %zu items, the walk alone: %zu (%s | %s)", n[0], n[1],
		     err[0], err[1]);
	for (size_t i = 0; i < n[0]; i++)
		cr_assert_eq(memcmp(&v[0][i], &v[1][i], sizeof(v[0][i])), 0,
			     "item %zu differs: kind %d/%d, offset %llu/%llu, len %llu/%llu", i,
			     v[0][i].r, v[1][i].r, (unsigned long long)v[0][i].off,
			     (unsigned long long)v[1][i].off, (unsigned long long)v[0][i].len,
			     (unsigned long long)v[1][i].len);
	cr_assert_str_eq(err[0], err[1], "the fast paths and the walk alone say different things");
	free(v[0]);
	free(v[1]);
	if (err[0][0]) {
		cr_assert_eq(strncmp(err[0], "fuzz/stream_0: offset ", 22), 0, "%s", err[0]);
		cr_assert_leq(strtoull(err[0] + 22, NULL, 10), len, "%s", err[0]);
	}
	return err[0][0] != 0;
}

/*
 * LTTng's fast path (its event header read without a walk, a skippable
 * payload stepped over) against the plans' walk alone, on mutated copies of
 * each stream of an LTTng kernel trace (tests/data): the same items, the same
 * messages.
 */
Test(tools_dump_check, lttng_fast_path_reads_as_the_walk)
{
	struct tr_trace t;
	char dir[PATH_MAX], err[512];
	unsigned seed = 4242;
	int damaged = 0, tries = 0;

	snprintf(dir, sizeof(dir), "%s/tests/data/lttng-kernel/x86_64", t_srcdir());
	cr_assert_eq(tr_open(&t, dir, err, sizeof(err)), 0, "%s", err);
	cr_assert_not_null(t.md.ctf);
	cr_assert(!t.md.own);
	cr_assert(t.md.ctf->streams[0].fast.on, "the kernel's event header is LTTng's");
	for (uint32_t f = 0; f < t.nstreams; f++) {
		const struct tr_stream *st = &t.streams[f];

		if (!st->size)
			continue;
		cr_assert_eq(walk(&t.md, st->data, st->size), 0, "%s is good", st->path);
		for (int i = 0; i < 400; i++, tries++) {
			size_t len = st->size, pos = (size_t)rand_r(&seed) % st->size;
			uint8_t *m;

			if (i % 5 == 0)
				len = (size_t)rand_r(&seed) % st->size;
			m = malloc(len ? len : 1);
			cr_assert_not_null(m);
			memcpy(m, st->data, len);
			if (i % 5)
				m[pos] ^= (uint8_t)(1u << (rand_r(&seed) % 8));
			damaged += walk(&t.md, m, len);
			free(m);
		}
	}
	cr_expect_gt(damaged, tries / 10, "mutations are caught (%d of %d)", damaged, tries);
	tr_close(&t);
}

Test(tools_dump_check, reader_survives_mutations)
{
	struct damage d;
	struct tr_metadata md;
	char path[256], err[512], *text, *orig;
	unsigned seed = 12345;
	size_t tlen;
	int damaged = 0;

	damage_open(&d);
	snprintf(path, sizeof(path), "%s/metadata", d.base);
	text = (char *)slurp(path, &tlen);
	orig = strdup(text);
	cr_assert_not_null(orig);
	cr_assert_eq(tr_parse_metadata(&md, text, tlen, "metadata", err, sizeof(err)), 0, "%s",
		     err);
	cr_assert_eq(walk(&md, d.stream, d.len), 0, "the base stream is good");

	for (int i = 0; i < 3000; i++) {
		size_t len = d.len, pos = (size_t)rand_r(&seed) % d.len;
		uint8_t *s;

		if (i % 5 == 0)
			len = (size_t)rand_r(&seed) % d.len;	/* a cut anywhere */
		s = malloc(len ? len : 1);
		cr_assert_not_null(s);
		memcpy(s, d.stream, len);
		if (i % 5 && i % 3)
			s[pos] ^= (uint8_t)(1u << (rand_r(&seed) % 8));
		else if (i % 5)
			s[pos] = (uint8_t)rand_r(&seed);
		/* bias towards the packets' headers and records' first bytes */
		if (i % 7 == 0 && len > 100)
			s[(size_t)rand_r(&seed) % 84] = (uint8_t)rand_r(&seed);
		damaged += walk(&md, s, len);
		free(s);
	}
	cr_expect_gt(damaged, 500, "most mutations are caught (%d)", damaged);

	/* Metadata: deleted, replaced and cut bytes. */
	for (int i = 0; i < 600; i++) {
		size_t n = tlen, pos = (size_t)rand_r(&seed) % tlen;
		struct tr_metadata md2;
		char *m;

		if (i % 3 == 0) {
			text[pos] = 0;	/* cut out, below */
			n--;
		} else if (i % 3 == 2) {
			n = pos;
		}
		m = malloc(n ? n : 1);	/* exactly the text: ASan sees an overread */
		cr_assert_not_null(m);
		if (i % 3 == 0) {
			memcpy(m, text, pos);
			memcpy(m + pos, text + pos + 1, tlen - pos - 1);
			text[pos] = orig[pos];
		} else {
			memcpy(m, text, n);
		}
		if (i % 3 == 1)
			m[pos] = (char)rand_r(&seed);
		if (tr_parse_metadata(&md2, m, n, "metadata", err, sizeof(err)) == 0) {
			walk(&md2, d.stream, d.len);
			tr_metadata_free(&md2);
		} else {
			cr_assert_eq(strncmp(err, "metadata: line ", 15), 0, "%s", err);
		}
		free(m);
	}
	tr_metadata_free(&md);
	free(text);
	free(orig);
	damage_close(&d);
}
