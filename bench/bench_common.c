// SPDX-License-Identifier: MIT
/*
 * bench/bench_common.c - what ringtrace-bench and ringtrace-events-bench
 * share: CPU pinning, the floor loop, the options they both take
 * and the result table.  Built with -falign-loops=64 (bench/Kbuild), like
 * the measured loops of bench_events.c, for the floor's sake.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>
#include "ringbuf/ring.h"
#include "bench/bench_common.h"

#define FLOOR_WORDS	8192u		/* 64 KiB of u64, used as a ring */

/* The floor's ring; 3 words of slack so a record never needs to wrap. */
static __thread uint64_t floor_buf[FLOOR_WORDS + 3] __attribute__((aligned(64)));

/* ---- the floor ---------------------------------------------------------- */

/*
 * bench_floor() - the least any tracer can do per event: read the TSC and
 * store {tsc, i, i ^ BENCH_SEED} into a thread-local 64 KiB ring.
 */
__attribute__((noinline)) void bench_floor(uint64_t n)
{
	uint32_t idx = 0;

	for (uint64_t i = 0; i < n; i++) {
		uint64_t *r = &floor_buf[idx];

		r[0] = __rdtsc();
		r[1] = i;
		r[2] = i ^ BENCH_SEED;
		idx = (idx + 3) & (FLOOR_WORDS - 1);
		BENCH_BARRIER();
	}
}

/* ---- helpers ------------------------------------------------------------ */

/* Pin the calling thread to @cpu.  Return: 0 or -errno. */
int bench_pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return -pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

/*
 * bench_usable_cpus() - the first (at most @max) CPUs this thread may run
 * on, into @cpus.  Return: how many, or -1 (said on stderr).
 */
int bench_usable_cpus(int *cpus, int max)
{
	cpu_set_t set;
	int n = 0;

	if (sched_getaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "%s: sched_getaffinity: %s\n", bench_prog, strerror(errno));
		return -1;
	}
	for (int c = 0; c < CPU_SETSIZE && n < max; c++)
		if (CPU_ISSET(c, &set))
			cpus[n++] = c;
	return n;
}

/* The "model name" of /proc/cpuinfo, or "unknown". */
void bench_cpu_model(char *buf, size_t len)
{
	char line[512];
	FILE *f = fopen("/proc/cpuinfo", "re");

	snprintf(buf, len, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "model name", 10) || !colon)
			continue;
		colon++;
		while (*colon == ' ' || *colon == '\t')
			colon++;
		colon[strcspn(colon, "\n")] = 0;
		snprintf(buf, len, "%s", colon);
		break;
	}
	fclose(f);
}

/* The least power of two >= @x, from 2 up to 65536. */
uint32_t bench_pow2_at_least(uint64_t x)
{
	uint32_t p = 2;

	while (p < x && p < 65536)
		p <<= 1;
	return p;
}

/* Events @ring dropped so far, as its control pages count them. */
uint64_t bench_ring_lost(const struct rtr_ring *ring)
{
	uint64_t n = 0;

	for (uint32_t cpu = 0; cpu < ring->ncpus; cpu++) {
		struct rtr_cpu_ctl *cb = rtr_ring_cpu(ring, cpu);

		n += __atomic_load_n(&cb->lost_full, __ATOMIC_RELAXED) +
		     __atomic_load_n(&cb->lost_big, __ATOMIC_RELAXED) +
		     __atomic_load_n(&cb->lost_busy, __ATOMIC_RELAXED);
	}
	return n;
}

/* ---- options ------------------------------------------------------------ */

static int parse_u64(const char *opt, const char *s, uint64_t min, uint64_t max,
		     uint64_t *out)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || end == s || *s == '-' || v < min || v > max) {
		fprintf(stderr, "%s: %s: '%s' is not a number from %" PRIu64 " to %" PRIu64
			"\n", bench_prog, opt, s, min, max);
		return -1;
	}
	*out = v;
	return 0;
}

/* --make-trace first: without it, the table starts one entry on. */
static const struct option long_opts[] = {
	{ "make-trace", required_argument, NULL, 't' },
	{ "json", required_argument, NULL, 'j' },
	{ "events", required_argument, NULL, 'n' },
	{ "reps", required_argument, NULL, 'r' },
	{ "callgrind", required_argument, NULL, 'c' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/*
 * bench_parse_args() - parse -j/--json, -n/--events (1000 to @max_events),
 * -r/--reps, -c/--callgrind, -h/--help and, if @make_trace, -t/--make-trace
 * into @a; @a->reps must hold its default.  --help prints @usage.  Says so
 * when --json goes unused: --callgrind and --make-trace write no table.
 * Return: -1 to go on, else the exit status (0 after --help, 2 on an error).
 */
int bench_parse_args(int argc, char **argv, bool make_trace, uint64_t max_events,
		     void (*usage)(FILE *f), struct bench_args *a)
{
	const struct option *opts = make_trace ? long_opts : long_opts + 1;
	const char *short_opts = make_trace ? ":j:n:r:c:t:h" : ":j:n:r:c:h";
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, short_opts, opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			a->json = optarg;
			break;
		case 'n':
			if (parse_u64("--events", optarg, 1000, max_events, &a->n))
				return 2;
			break;
		case 'r':
			if (parse_u64("--reps", optarg, 1, 1000, &a->reps))
				return 2;
			break;
		case 'c':
			a->callgrind = optarg;
			break;
		case 't':
			a->trace = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case ':':
			fprintf(stderr, "%s: %s needs a value\n", bench_prog, argv[optind - 1]);
			return 2;
		default:
			if (optopt)
				fprintf(stderr, "%s: unknown option '-%c'\n", bench_prog, optopt);
			else
				fprintf(stderr, "%s: unknown option '%s'\n", bench_prog,
					argv[optind - 1]);
			fprintf(stderr, "try '%s --help'\n", bench_prog);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\ntry '%s --help'\n", bench_prog,
			argv[optind], bench_prog);
		return 2;
	}
	if (a->callgrind && a->trace) {
		fprintf(stderr, "%s: --callgrind and --make-trace do not mix\n", bench_prog);
		return 2;
	}
	if (a->json && (a->callgrind || a->trace))
		fprintf(stderr, "%s: --json is ignored with %s\n", bench_prog,
			a->callgrind ? "--callgrind" : "--make-trace");
	return -1;
}

/* ---- results ------------------------------------------------------------ */

struct result {
	const char *name;
	double value;
	const char *unit;
	double vs_floor;	/* cost relative to the floor; < 0: none */
};

static struct result results[BENCH_MAX_RESULTS];
static int nresults;

/* Add a row; @name and @unit must outlive the table.  @vs_floor < 0: none. */
void bench_add(const char *name, double value, const char *unit, double vs_floor)
{
	if (nresults == BENCH_MAX_RESULTS) {
		fprintf(stderr, "%s: too many results\n", bench_prog);
		exit(1);
	}
	results[nresults++] = (struct result){ name, value, unit, vs_floor };
}

void bench_print_table(void)
{
	printf("  %-36s %14s  %-14s %s\n", "name", "value", "unit", "x floor");
	for (int i = 0; i < nresults; i++) {
		const struct result *r = &results[i];
		bool count = !strcmp(r->unit, "events") || !strcmp(r->unit, "bool") ||
			     !strcmp(r->unit, "packets") || !strcmp(r->unit, "records");

		printf("  %-36s %14.*f  %-14s", r->name, count ? 0 : 3, r->value, r->unit);
		if (r->vs_floor >= 0)
			printf(" %.2f", r->vs_floor);
		printf("\n");
	}
}

/* Write the table to @path as a JSON array of {"name", "value", "unit"}. */
int bench_write_json(const char *path)
{
	FILE *f = fopen(path, "we");

	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", bench_prog, path, strerror(errno));
		return -1;
	}
	fprintf(f, "[\n");
	for (int i = 0; i < nresults; i++)
		fprintf(f, "  {\"name\": \"%s\", \"value\": %.10g, \"unit\": \"%s\"}%s\n",
			results[i].name, results[i].value, results[i].unit,
			i + 1 < nresults ? "," : "");
	fprintf(f, "]\n");
	if (fclose(f)) {
		fprintf(stderr, "%s: %s: %s\n", bench_prog, path, strerror(errno));
		return -1;
	}
	return 0;
}
