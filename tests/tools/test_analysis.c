// SPDX-License-Identifier: MIT
/*
 * tests/tools/test_analysis.c - what why, diff and stats share
 * (tools/analysis.h): the log buckets cover every value once, in order,
 * each at most a quarter of its value wide; nearest-rank quantiles; the
 * percentiles' confidence intervals cover the true value as often as 95 %
 * says (a fixed seed: reproducible); label patterns and their grouping.
 */
#include <stdint.h>
#include <stdlib.h>
#include <criterion/criterion.h>
#include "tools/analysis.h"

TestSuite(tools_analysis, .timeout = 60);

Test(tools_analysis, buckets_cover_each_value_once_in_order)
{
	uint64_t s = 88172645463325252ull;

	for (int64_t v = 0; v < 100000; v++) {
		uint32_t b = an_hist_bucket(v);

		cr_assert(an_hist_low(b) <= v && v < an_hist_low(b + 1), "%ld in bucket %u", (long)v, b);
		if (v)
			cr_assert_geq(b, an_hist_bucket(v - 1));
	}
	for (int i = 0; i < 100000; i++) {
		int64_t v;
		uint32_t b;

		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		v = (int64_t)(s >> (s & 63)) & INT64_MAX;
		b = an_hist_bucket(v);
		cr_assert(an_hist_low(b) <= v && (v < an_hist_low(b + 1) || an_hist_low(b + 1) == INT64_MAX),
			  "%ld in bucket %u", (long)v, b);
		/* a quarter of the value wide at most */
		if (v >= 8 && an_hist_low(b + 1) != INT64_MAX)
			cr_assert_leq((an_hist_low(b + 1) - an_hist_low(b)) * 4, an_hist_low(b));
	}
	cr_assert_eq(an_hist_bucket(-5), 0);
	cr_assert_eq(an_hist_low(an_hist_bucket(INT64_MAX) + 1), INT64_MAX);
}

Test(tools_analysis, nearest_rank_quantiles)
{
	int64_t v[10] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };

	cr_assert_eq(an_quantile(v, 10, 0.5), 5);
	cr_assert_eq(an_quantile(v, 10, 0.9), 9);
	cr_assert_eq(an_quantile(v, 10, 0.99), 10);
	cr_assert_eq(an_quantile(v, 10, 0.0), 1);
	cr_assert_eq(an_quantile(v, 1, 0.99), 1);
	cr_assert_eq(an_quantile(v, 4, 0.5), 2);
}

static int cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* Samples of 200 from the uniform 0..99999: the true p50 is 50000, p90 90000. */
Test(tools_analysis, intervals_cover_the_true_percentile)
{
	uint64_t s = 0x2545f4914f6cdd1dull;
	int64_t v[200];
	int cover50 = 0, cover90 = 0, trials = 400;

	for (int t = 0; t < trials; t++) {
		int64_t lo, hi;

		for (int i = 0; i < 200; i++) {
			s ^= s << 13, s ^= s >> 7, s ^= s << 17;
			v[i] = (int64_t)(s % 100000);
		}
		qsort(v, 200, sizeof(v[0]), cmp);
		an_quantile_ci(v, 200, 0.5, &lo, &hi);
		cr_assert_leq(lo, an_quantile(v, 200, 0.5));
		cr_assert_geq(hi, an_quantile(v, 200, 0.5));
		cover50 += lo <= 50000 && 50000 <= hi;
		an_quantile_ci(v, 200, 0.9, &lo, &hi);
		cover90 += lo <= 90000 && 90000 <= hi;
	}
	/* 95 % nominal: between 90 % and 99.5 % of the trials (and not always: not the whole range) */
	cr_assert(cover50 >= trials * 90 / 100 && cover50 < trials, "p50 covered %d/%d", cover50, trials);
	cr_assert(cover90 >= trials * 90 / 100 && cover90 < trials, "p90 covered %d/%d", cover90, trials);
}

Test(tools_analysis, durations_for_people)
{
	char b[32];

	cr_assert_str_eq(an_dur(b, sizeof(b), 850), "850 ns");
	cr_assert_str_eq(an_dur(b, sizeof(b), 12345), "12.345 us");
	cr_assert_str_eq(an_dur(b, sizeof(b), 1500000), "1.500 ms");
	cr_assert_str_eq(an_dur(b, sizeof(b), -2000000000), "-2.000 s");
}
