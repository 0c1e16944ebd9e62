// SPDX-License-Identifier: MIT
/*
 * platform/unix/clock.c - the trace clock: the TSC when it is invariant
 * (constant_tsc and nonstop_tsc), else CLOCK_MONOTONIC in nanoseconds.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "platform/platform.h"

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

static int tsc_state;	/* 0 unknown, 1 usable, -1 not */

bool rtr_tsc_usable(void)
{
#if defined(__x86_64__)
	char line[4096];
	FILE *f;
	int usable = -1;

	if (tsc_state)
		return tsc_state > 0;
	f = fopen("/proc/cpuinfo", "re");
	if (f) {
		while (fgets(line, sizeof(line), f)) {
			if (strncmp(line, "flags", 5))
				continue;
			if (strstr(line, " constant_tsc") && strstr(line, " nonstop_tsc"))
				usable = 1;
			break;
		}
		fclose(f);
	}
	__atomic_store_n(&tsc_state, usable, __ATOMIC_RELAXED);
	return usable > 0;
#else
	return false;
#endif
}

uint64_t rtr_monotonic_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static int64_t realtime_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return (int64_t)t.tv_sec * 1000000000ll + t.tv_nsec;
}

uint64_t rtr_clock_read(void)
{
#if defined(__x86_64__)
	if (rtr_tsc_usable())
		return __rdtsc();
#endif
	return rtr_monotonic_ns();
}

/*
 * rtr_clock_calibrate() - the clock's frequency, and the realtime (ns since
 * the epoch) at clock value 0, for the CTF clock's offset.  The TSC is
 * measured against CLOCK_MONOTONIC over 50 ms; the offset takes the best of
 * several (clock, realtime, clock) samples, the one with the smallest window.
 */
int rtr_clock_calibrate(uint64_t *freq, int64_t *offset_ns)
{
	uint64_t best_win = UINT64_MAX, c0, c1, m0, m1;
	int64_t best_off = 0;
	double f = 1e9;

	if (rtr_tsc_usable()) {
		struct timespec d = { 0, 50 * 1000000L };

		m0 = rtr_monotonic_ns();
		c0 = rtr_clock_read();
		while (nanosleep(&d, &d) && errno == EINTR)
			;
		m1 = rtr_monotonic_ns();
		c1 = rtr_clock_read();
		if (m1 <= m0 || c1 <= c0)
			return -EIO;
		f = (double)(c1 - c0) * 1e9 / (double)(m1 - m0);
	}
	for (int i = 0; i < 16; i++) {
		uint64_t a = rtr_clock_read();
		int64_t r = realtime_ns();
		uint64_t b = rtr_clock_read();

		if (b - a < best_win) {
			best_win = b - a;
			best_off = r - (int64_t)((double)(a + (b - a) / 2) * 1e9 / f);
		}
	}
	*freq = (uint64_t)(f + 0.5);
	*offset_ns = best_off;
	return 0;
}
