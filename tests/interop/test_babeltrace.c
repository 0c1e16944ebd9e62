// SPDX-License-Identifier: MIT
/*
 * tests/interop/test_babeltrace.c - babeltrace2, the reference CTF reader,
 * reads what we write: every record decoded to the values and timestamps we
 * wrote, no warning but real losses, and the losses it reports equal the
 * truth the stress harness knows.  Uses Debian's babeltrace2 and python3-bt2
 * (tests/interop/bt2_read.py, run with /usr/bin/python3).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include "events/metadata.h"
#include "examples/stress/harness.h"
#include "tests/helpers.h"

TestSuite(interop_babeltrace, .timeout = 300);

static const char *srcdir(void)
{
	const char *s = getenv("RTR_SRCDIR");

	return s ? s : ".";
}

/* Run @cmd, return its standard output (malloc'd) and exit status. */
static char *run(const char *cmd, int *status)
{
	size_t len = 0, cap = 1 << 16;
	char *out = malloc(cap);
	FILE *p = popen(cmd, "r");
	size_t n;

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

/* babeltrace2's command line may warn only about real losses. */
static void expect_only_loss_warnings(const char *trace)
{
	char cmd[512];
	char *err, *line;
	int st;

	snprintf(cmd, sizeof(cmd), "babeltrace2 '%s' 2>&1 >/dev/null", trace);
	err = run(cmd, &st);
	cr_expect_eq(st, 0, "babeltrace2 failed:\n%s", err);
	for (line = strtok(err, "\n"); line; line = strtok(NULL, "\n"))
		cr_expect_eq(strncmp(line, "WARNING: Tracer discarded ", 26), 0,
			     "unexpected babeltrace2 message: %s", line);
	free(err);
}

static void stress_through_babeltrace(uint32_t mode)
{
	char dir[] = "/dev/shm/rtr-bt2-XXXXXX", trace[64], cmd[512];
	struct stress_cfg cfg = {
		.mode = mode, .packet_size = 16384, .packets = 8, .writers = 2,
		.seconds = 30, .max_events = 60000, .consumer_delay_us = 300,
		.quiet = true,
	};
	struct stress_result res;
	char *json;
	int st;

	cr_assert_not_null(mkdtemp(dir));
	cfg.dir = dir;
	cr_assert_eq(stress_run(&cfg, &res), 0, "%s", res.why);
	snprintf(trace, sizeof(trace), "%s/trace", dir);
	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 '%s/tests/interop/bt2_read.py' summary '%s'",
		 srcdir(), trace);
	json = run(cmd, &st);
	cr_assert_eq(st, 0, "%s failed: %s", cmd, json);
	cr_expect_eq(t_json_u64(json, "events"), res.received, "%s", json);
	cr_expect_eq(t_json_u64(json, "bad_checksums"), 0, "babeltrace2 decoded a wrong value");
	cr_expect_eq(t_json_u64(json, "packets"), res.packets);
	cr_expect_eq(t_json_u64(json, "discarded_events"), res.events_discarded,
		     "discarded events: babeltrace2 %s, truth %" PRIu64, json, res.dropped);
	cr_expect_eq(res.events_discarded, res.dropped);
	cr_expect_eq(t_json_u64(json, "discarded_events_unknown"), 0);
	/* babeltrace2 does not count the packets before a stream's first one. */
	cr_expect_eq(t_json_u64(json, "discarded_packets"), res.lost_packets - res.lost_first_packets,
		     "discarded packets: %s, truth %" PRIu64 " (%" PRIu64 " before the first)",
		     json, res.lost_packets, res.lost_first_packets);
	if (mode == RTR_MODE_DISCARD)
		cr_expect_gt(res.dropped, 0, "the slow consumer made discard mode drop");
	else	/* before or after the first packet the consumer got, as it happens */
		cr_expect_gt(res.lost_packets, 0, "the slow consumer made overwrite mode lap");
	expect_only_loss_warnings(trace);
	free(json);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_expect_eq(system(cmd), 0);
}

Test(interop_babeltrace, discard_mode_losses_are_reported_exactly)
{
	stress_through_babeltrace(RTR_MODE_DISCARD);
}

Test(interop_babeltrace, overwrite_mode_losses_are_reported_exactly)
{
	stress_through_babeltrace(RTR_MODE_OVERWRITE);
}

/*
 * Every record header form: compact ids 0 and 30, extended ids 31, 40 and
 * 2^32-1, an extended timestamp after a gap of more than 2^27 cycles, and
 * compact timestamps whose 27 low bits wrap.  babeltrace2 must give back
 * each value and each timestamp exactly as the record was written, and the
 * timestamp must lie between clock reads taken around the write.
 */
struct written {
	uint32_t id;
	uint64_t a, b;
	uint64_t before, after;
};

static const struct rtr_ctf_field ab[] = {
	{ "a", RTR_CTF_U64, NULL, 0 },
	{ "b", RTR_CTF_S64, NULL, 0 },
};

ParameterizedTestParameters(interop_babeltrace, every_header_form_round_trips)
{
	static bool rseq[] = { true, false };

	return cr_make_param_array(bool, rseq, 2);
}

ParameterizedTest(bool *rseq, interop_babeltrace, every_header_form_round_trips)
{
	static const uint32_t ids[] = { 0, 30, 31, 40, 0xffffffffu };
	struct rtr_ctf_event cls[5];
	char names[5][16], trace[128], path[160], cmd[512];
	struct written w[64];
	struct rtr_consumer_packet pkt;
	int n = 0, st;
	char *out, *line;
	FILE *f;
	struct t_ring t;

	t_pin0();
	t_ring_open(&t, RTR_MODE_DISCARD, 4096, 8, *rseq);
	if (!*rseq)
		cr_assert(!t.ring->use_rseq);
	for (int i = 0; i < 5; i++) {
		snprintf(names[i], sizeof(names[i]), "ev%d", i);
		cls[i] = (struct rtr_ctf_event){ names[i], ids[i], ab, 2 };
	}
	for (int i = 0; i < 40; i++) {
		uint64_t p[2];

		w[n].id = ids[i % 5];
		w[n].a = i == 0 ? UINT64_MAX : (uint64_t)i * 0x0101010101010101ull;
		w[n].b = (uint64_t)(i & 1 ? INT64_MIN + i : INT64_MAX - i);
		p[0] = w[n].a;
		p[1] = w[n].b;
		if (i == 20) {
			usleep(80000);	/* > 2^27 cycles at any TSC up to 1.6 GHz */
		} else if (i > 30) {
			uint64_t t0 = __rdtsc();

			while (__rdtsc() - t0 < (1ull << 25))	/* 27-bit wraps */
				;
		}
		w[n].before = __rdtsc();
		cr_assert_eq(rtr_ring_write(&t.slot, w[n].id, p, 16), 0);
		w[n].after = __rdtsc();
		n++;
	}
	cr_assert_eq(rtr_ring_detach(&t.slot), 0);
	cr_assert_eq(rtr_ring_stop(t.ring), 0);

	snprintf(trace, sizeof(trace), "%s/trace", t.dir);
	cr_assert_eq(mkdir(trace, 0700), 0);
	snprintf(path, sizeof(path), "%s/metadata", trace);
	f = fopen(path, "w");
	cr_assert_eq(rtr_ctf_write_metadata(f, rtr_consumer_region(t.c), "testhost", cls, 5), 0);
	fclose(f);
	snprintf(path, sizeof(path), "%s/stream_0", trace);
	f = fopen(path, "w");
	while (rtr_consumer_get(t.c, 0, &pkt) == 0) {
		cr_assert_eq(fwrite(pkt.data, 1, pkt.size, f), pkt.size);
		rtr_consumer_put(t.c, 0);
	}
	fclose(f);

	expect_only_loss_warnings(trace);
	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 '%s/tests/interop/bt2_read.py' events '%s'",
		 srcdir(), trace);
	out = run(cmd, &st);
	cr_assert_eq(st, 0, "%s: %s", cmd, out);
	int i = 0;

	for (line = strtok(out, "\n"); line; line = strtok(NULL, "\n"), i++) {
		char name[16];
		uint64_t cycles, a;
		int64_t b;

		cr_assert_lt(i, n, "more events than written");
		cr_assert_eq(sscanf(line, "{\"name\": \"%15[^\"]\", \"cycles\": %" SCNu64
				    ", \"ns\": %*[0-9-], \"cpu\": 0, \"fields\": {\"a\": %" SCNu64 ", \"b\": %" SCNd64,
				    name, &cycles, &a, &b), 4, "line: %s", line);
		cr_expect_str_eq(name, names[i % 5]);
		cr_expect_eq(a, w[i].a, "event %d field a", i);
		cr_expect_eq((uint64_t)b, w[i].b, "event %d field b", i);
		cr_expect(cycles >= w[i].before && cycles <= w[i].after,
			  "event %d: timestamp %" PRIu64 " outside [%" PRIu64 ", %" PRIu64 "]",
			  i, cycles, w[i].before, w[i].after);
	}
	cr_expect_eq(i, n, "babeltrace2 read %d of %d events", i, n);
	free(out);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", trace);
	cr_expect_eq(system(cmd), 0);
	t_ring_close(&t);
}

/* The env and clock blocks: a hostile hostname cannot break the TSDL, and
 * the clock offset is exact to the cycle (no detour through a double). */
Test(interop_babeltrace, metadata_env_and_clock_are_exact_and_safe)
{
	struct rtr_region_hdr h;
	char *text = NULL, line[128];
	size_t len = 0;
	FILE *f;

	memset(&h, 0, sizeof(h));
	h.abi_major = 1;
	h.mode = RTR_MODE_DISCARD;
	h.clock_freq = 2596125104ull;
	h.clock_offset_ns = 1795314492452353640ll;	/* s = 1795314492, ns = 452353640 */
	f = open_memstream(&text, &len);
	cr_assert_eq(rtr_ctf_write_metadata(f, &h, "evil\"host\\name\x01", NULL, 0), 0);
	fclose(f);
	cr_expect_not_null(strstr(text, "hostname = \"evil_host_name_\";"), "%s", text);
	cr_expect_not_null(strstr(text, "offset_s = 1795314492;"), "%s", text);
	snprintf(line, sizeof(line), "offset = %" PRIu64 ";",
		 (uint64_t)((unsigned __int128)452353640u * 2596125104ull / 1000000000u));
	cr_expect_not_null(strstr(text, line), "want %s in\n%s", line, text);
	free(text);
}
