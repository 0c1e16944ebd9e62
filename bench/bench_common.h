/* SPDX-License-Identifier: MIT */
/*
 * bench/bench_common.h - what ringtrace-bench and ringtrace-events-bench
 * share: CPU pinning, the floor loop, the options they both take and the
 * result table (printed, and written as JSON for scripts/bench.sh).  Their
 * clock is rtr_monotonic_ns() (platform/platform.h).
 */
#ifndef RTR_BENCH_COMMON_H
#define RTR_BENCH_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct rtr_ring;

#define BENCH_SEED	0x9e3779b97f4a7c15ull
#define BENCH_MAX_RESULTS 64

/* Keeps the compiler from hoisting, merging or dropping work across it. */
#define BENCH_BARRIER() __asm__ __volatile__("" ::: "memory")

/* The program's name, for messages: each program defines it. */
extern const char bench_prog[];

int bench_pin_self(int cpu);
int bench_usable_cpus(int *cpus, int max);
void bench_cpu_model(char *buf, size_t len);
uint32_t bench_pow2_at_least(uint64_t x);
uint64_t bench_ring_lost(const struct rtr_ring *ring);

void bench_floor(uint64_t n);

/*
 * struct bench_args - the options both programs take.  @n: 0 when not
 * given (the mode's default).  @trace: --make-trace, where the program has it.
 */
struct bench_args {
	const char *json;
	const char *callgrind;
	const char *trace;
	uint64_t n;
	uint64_t reps;
};

int bench_parse_args(int argc, char **argv, bool make_trace, uint64_t max_events,
		     void (*usage)(FILE *f), struct bench_args *a);

void bench_add(const char *name, double value, const char *unit, double vs_floor);
void bench_print_table(void);
int bench_write_json(const char *path);

#endif /* RTR_BENCH_COMMON_H */
