/* SPDX-License-Identifier: MIT */
/*
 * tools/analysis.h - what the commands that answer questions share (why,
 * diff, stats' histograms): durations for people, task names, label
 * patterns, percentiles with their confidence intervals, and log-bucket
 * histograms.  Documentation/analysis.rst gives the statistics.
 */
#ifndef RTR_TOOLS_ANALYSIS_H
#define RTR_TOOLS_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct rtr_model;

/* A duration for people: "850 ns", "12.345 us", "1.500 ms", "2.000 s". */
const char *an_dur(char *b, size_t n, int64_t ns);

/* @s on @f, non-printable bytes as '?', padded with spaces to @width. */
void an_put_clean(FILE *f, const char *s, int width);

/* `task ID "label" (kind)` on @f, the label cleaned ("?" if none). */
void an_put_task(FILE *f, const struct rtr_model *m, uint32_t task);

/*
 * an_task_matches() - one of @task's labels matches the fnmatch(3) pattern
 * @pat ('*' matches '/' too: "GET /item/" then a star).
 */
bool an_task_matches(const struct rtr_model *m, uint32_t task, const char *pat);

/* qsort() order of int64_t values, ascending. */
int an_cmp_i64(const void *a, const void *b);

/*
 * an_task_duration() - @t's duration as `stats` and the viewers'
 * histograms take it: creation to resolution, for a task created and
 * resolved in the trace (false for any other: nothing in *@ns).  (`diff`
 * ends a task where its becomes chain is resolved: rtr_cp_end().)
 */
bool an_task_duration(const struct rtr_model *m, uint32_t t, int64_t *ns);

/*
 * an_kind_durations() - the durations (an_task_duration()) of @m's tasks of
 * kind @kind_name (a string of @m), sorted, in a malloc'd array of *@n;
 * NULL if out of memory.  The viewers' histograms of a kind.
 */
int64_t *an_kind_durations(const struct rtr_model *m, uint32_t kind_name, uint64_t *n);

/*
 * an_quantile() - nearest rank of the @n sorted values @v: the smallest
 * value with at least @p (0..1) of the values at or below it.  @n > 0.
 */
int64_t an_quantile(const int64_t *v, uint64_t n, double p);

/*
 * an_quantile_ci() - a 95 % confidence interval of the @p quantile of the
 * population @v (sorted, @n) was drawn from: order statistics around the
 * rank n*p, +-1.96 binomial standard deviations (distribution-free; exact
 * enough from ~20 values; with fewer, the bounds widen to the extremes).
 */
void an_quantile_ci(const int64_t *v, uint64_t n, double p, int64_t *lo, int64_t *hi);

/*
 * Log-bucket histogram (HdrHistogram's layout, 2 significant bits): values
 * below AN_HIST_SUB_BUCKETS nanoseconds each have a bucket; above, each
 * power of two is cut into AN_HIST_SUB_BUCKETS / 2 buckets of equal width,
 * so a bucket is at most a quarter of its lowest value wide.  The buckets
 * are for drawing; percentiles are taken from the sorted values, exactly.
 */
#define AN_HIST_SUB_BUCKETS 8

/* The bucket of @ns (negative values: bucket 0). */
uint32_t an_hist_bucket(int64_t ns);
/* The smallest value of bucket @b; the bucket holds [an_hist_low(b), an_hist_low(b + 1)). */
int64_t an_hist_low(uint32_t b);

/*
 * an_hist_print() - a histogram of the @n sorted durations @v on @f, one line
 * per non-empty bucket between the first and last: range, count, a bar of
 * at most @width '#'s, and the cumulative percentage; @indent spaces first.
 */
void an_hist_print(FILE *f, const int64_t *v, uint64_t n, int width, int indent);

#endif /* RTR_TOOLS_ANALYSIS_H */
