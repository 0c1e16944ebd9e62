/* SPDX-License-Identifier: MIT */
/*
 * bench/synth.h - task models made in memory, without a trace, for the
 * scene's tests (tests/view/) and its benchmark (bench/bench_view.c).
 */
#ifndef RTR_BENCH_SYNTH_H
#define RTR_BENCH_SYNTH_H

#include <stdint.h>
#include "reader/model.h"

/*
 * synth_lane() - one trace, one CPU, @n tasks of @dur ns created @gap ns
 * apart from time 0 (task i from i * gap to i * gap + dur; id i + 1), all
 * resolved, created by no task: laid out in one row when @dur < @gap.
 * Return: 0, -1 out of memory.
 */
int synth_lane(struct rtr_model *m, uint32_t n, int64_t gap, int64_t dur);

/*
 * synth_server() - a server-like model: @ncpus CPUs, a main task per CPU
 * running for the whole trace, and @nreq requests arriving every ~@gap ns,
 * each lasting 1 to 64 x @gap (so several overlap: many rows), created by
 * the main task of CPU (request % ncpus), read by it when done (a read
 * arrow) and resolved by it (a resolve arrow); one request in 997 fails and
 * one in 100003 is marked should_resolve and never resolved.  Each CPU runs
 * its requests in turn (a run per request).  Pseudo-random from @seed.
 * Return: 0, -1 out of memory.
 */
int synth_server(struct rtr_model *m, uint32_t nreq, uint32_t ncpus, int64_t gap, uint64_t seed);

#endif /* RTR_BENCH_SYNTH_H */
