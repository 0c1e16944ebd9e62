// SPDX-License-Identifier: MIT
/*
 * platform/unix/clock.c - the trace clock: the TSC when it is invariant
 * (constant_tsc and nonstop_tsc), else CLOCK_MONOTONIC in nanoseconds.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/timex.h>
#include <time.h>
#include <ringtrace/region.h>
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
 * A (clock, CLOCK_MONOTONIC, clock) triple, the best of 5: the monotonic
 * time at the clock's @mid, within +-@half ticks.
 */
static uint64_t bracket(uint64_t *mid, uint64_t *half)
{
	uint64_t best = UINT64_MAX, m = 0;

	for (int i = 0; i < 5; i++) {
		uint64_t a = rtr_clock_read(), t = rtr_monotonic_ns(), b = rtr_clock_read();

		if (b >= a && b - a < best) {
			best = b - a;
			*mid = a + (b - a) / 2;
			m = t;
		}
	}
	*half = best / 2 + 1;
	return m;
}

/*
 * rtr_clock_calibrate() - the clock's frequency, and the realtime (ns since
 * the epoch) at clock value 0, for the CTF clock's offset, and how well
 * each is known (@q, region.h's ABI 1.3 fields).  The TSC is measured
 * against CLOCK_MONOTONIC over 50 ms, each end a (TSC, monotonic, TSC)
 * triple: the frequency is known within the two windows over the 50 ms.
 * The offset takes the best of 16 (clock, realtime, clock) triples, the one
 * with the smallest window: an event's realtime then is known within half
 * of it, and t later within t * the frequency's error more.  The
 * host's realtime is only as good as its synchronization: adjtimex() says
 * whether it is synchronized and its estimated and maximum error.
 */
int rtr_clock_calibrate(uint64_t *freq, int64_t *offset_ns, struct rtr_clock_quality *q)
{
	uint64_t best_win = UINT64_MAX, mid = 0;
	int64_t best_off = 0;
	double f = 1e9, ppb = 0;
	struct timex tx;
	int st;

	if (rtr_tsc_usable()) {
		struct timespec d = { 0, 50 * 1000000L };
		uint64_t c0, c1, h0, h1, m0, m1;

		m0 = bracket(&c0, &h0);
		while (nanosleep(&d, &d) && errno == EINTR)
			;
		m1 = bracket(&c1, &h1);
		if (m1 <= m0 || c1 <= c0)
			return -EIO;
		f = (double)(c1 - c0) * 1e9 / (double)(m1 - m0);
		/* each end's window, and the monotonic clock's 1 ns steps */
		ppb = ((double)(h0 + h1) + 2 * f / 1e9) / (double)(c1 - c0) * 1e9;
	}
	/*
	 * The offset with the frequency the readers will use, in whole Hz: the
	 * clock's value may be large (a TSC counts from the host's boot), and
	 * half a hertz over 10^16 ticks is already hundreds of microseconds.
	 */
	*freq = (uint64_t)(f + 0.5);
	ppb += 0.5 / f * 1e9;
	for (int i = 0; i < 16; i++) {
		uint64_t a = rtr_clock_read();
		int64_t r = realtime_ns();
		uint64_t b = rtr_clock_read();

		if (b - a < best_win) {
			best_win = b - a;
			mid = a + (b - a) / 2;
			best_off = r - (int64_t)((unsigned __int128)mid * 1000000000u / *freq);
		}
	}
	*offset_ns = best_off;
	/*
	 * Half the window, in ns: the realtime of an event at the clock's value
	 * then.  One t ns later, add t * @freq_ppb / 1e9 (the frequency's error).
	 */
	{
		double w = (double)(best_win / 2 + 1) * 1e9 / f;

		q->window_ns = w >= UINT32_MAX ? UINT32_MAX : (uint32_t)w + 1;
		q->freq_ppb = ppb >= UINT32_MAX ? UINT32_MAX : (uint32_t)ppb + (ppb > 0);
	}
	memset(&tx, 0, sizeof(tx));
	st = adjtimex(&tx);
	if (st < 0) {
		q->sync = RTR_CLOCK_SYNC_UNKNOWN;
		q->esterror_us = q->maxerror_us = 0;
	} else {
		q->sync = st == TIME_ERROR ? RTR_CLOCK_SYNC_NO : RTR_CLOCK_SYNC_YES;
		q->esterror_us = tx.esterror < 0 ? 0 : tx.esterror > UINT32_MAX ? UINT32_MAX :
				 (uint32_t)tx.esterror;
		q->maxerror_us = tx.maxerror < 0 ? 0 : tx.maxerror > UINT32_MAX ? UINT32_MAX :
				 (uint32_t)tx.maxerror;
	}
	return 0;
}
