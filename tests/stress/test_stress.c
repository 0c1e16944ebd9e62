// SPDX-License-Identifier: MIT
/*
 * tests/stress/test_stress.c - writers on every CPU against a consumer in
 * another process, every event checked (examples/stress/harness.c).  Each
 * test runs rounds of at most two seconds until RTR_STRESS_SECONDS (default
 * 1) have passed: `make check` runs one short round, `make stress` minutes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include "ringbuf/ring.h"
#include "examples/stress/harness.h"

TestSuite(stress, .timeout = 3600);

static double budget(void)
{
	const char *s = getenv("RTR_STRESS_SECONDS");
	double v = s ? strtod(s, NULL) : 1.0;

	return v > 0 ? v : 1.0;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/*
 * @slow: the consumer sleeps after each packet, so discard mode must drop
 * (and count) and overwrite mode must lose whole packets (and show gaps).
 */
static void run(uint32_t mode, bool portable, bool slow)
{
	char dir[] = "/dev/shm/rtr-stress-XXXXXX", cmd[96];
	double total = budget(), t0 = now();
	struct stress_result sum = { .ok = true };
	unsigned rounds = 0;

	if (!portable && !rtr_ring_rseq_available())
		cr_skip_test("rseq is not available in this build or on this machine");
#ifdef RTR_TSAN
	if (mode == RTR_MODE_OVERWRITE)
		cr_skip_test("overwrite mode reads are validated after the fact: C11 calls them races");
#endif
	cr_assert_not_null(mkdtemp(dir));
	do {
		struct stress_cfg cfg = {
			.dir = dir, .mode = mode, .packet_size = 16384, .packets = 8,
			.writers = 4, .portable = portable, .quiet = true,
			.seconds = total - (now() - t0) < 2 ? total - (now() - t0) : 2,
			.consumer_delay_us = slow ? 200 : 0,
		};
		struct stress_result res;
		int ret;

		if (cfg.seconds < 0.2)
			cfg.seconds = 0.2;
		ret = stress_run(&cfg, &res);
		cr_assert_eq(ret, 0, "round %u, %s %s%s: %s", rounds,
			     mode == RTR_MODE_DISCARD ? "discard" : "overwrite",
			     portable ? "portable" : "rseq", slow ? " slow consumer" : "", res.why);
		cr_assert(res.ok);
		cr_assert_eq(res.used_rseq, !portable);
		sum.written += res.written;
		sum.dropped += res.dropped;
		sum.received += res.received;
		sum.lost_packets += res.lost_packets;
		rounds++;
	} while (now() - t0 < total);
	cr_expect_gt(sum.received, 10000, "events went through (%lu)", (unsigned long)sum.received);
	if (slow && mode == RTR_MODE_DISCARD)
		cr_expect_gt(sum.dropped, 0, "a slow consumer makes discard mode drop");
	if (slow && mode == RTR_MODE_OVERWRITE)
		cr_expect_gt(sum.lost_packets, 0, "a slow consumer makes overwrite mode lap");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_expect_eq(system(cmd), 0);
}

Test(stress, discard_rseq) { run(RTR_MODE_DISCARD, false, false); }
Test(stress, discard_rseq_slow_consumer) { run(RTR_MODE_DISCARD, false, true); }
Test(stress, overwrite_rseq) { run(RTR_MODE_OVERWRITE, false, false); }
Test(stress, overwrite_rseq_slow_consumer) { run(RTR_MODE_OVERWRITE, false, true); }
Test(stress, discard_portable) { run(RTR_MODE_DISCARD, true, false); }
Test(stress, discard_portable_slow_consumer) { run(RTR_MODE_DISCARD, true, true); }
Test(stress, overwrite_portable) { run(RTR_MODE_OVERWRITE, true, false); }
Test(stress, overwrite_portable_slow_consumer) { run(RTR_MODE_OVERWRITE, true, true); }
