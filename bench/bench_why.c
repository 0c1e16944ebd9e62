// SPDX-License-Identifier: MIT
/*
 * bench/bench_why.c - ringtrace-why-bench: the critical path
 * (reader/critpath.h) on a server-like model made in memory (bench/synth.h):
 * the index built once per trace, the path of the slowest request, and the
 * paths of many requests in a row, as `ringtrace why --slowest` and
 * `ringtrace diff` compute them.
 *
 *   ringtrace-why-bench [--requests N] [--rows FILE]
 *
 * Figures (printed; appended to FILE as "name value unit", the rows
 * scripts/bench.sh merges into build/bench/results.json), S the size (1m):
 *   why.S.index_s        rtr_cp_index_build()
 *   why.S.slowest_s      the path of the slowest request (the index built)
 *   why.S.paths_per_s    paths of 1000 requests spread over the trace
 *   why.S.index_cpu_s, why.S.paths_per_cpu_s  the same in the process's CPU
 *                        time: steadier than the wall clock on a shared host
 * The model has no trace file to read: its load (reader/, the viewer
 * issue's index) is measured apart.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bench/synth.h"
#include "platform/platform.h"
#include "reader/critpath.h"

static FILE *rows_file;

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void figure(const char *size, const char *name, double v, const char *unit)
{
	char full[128];

	snprintf(full, sizeof(full), "why.%s.%s", size, name);
	printf("  %-36s %14.6f  %s\n", full, v, unit);
	if (rows_file)
		fprintf(rows_file, "%s %.6f %s\n", full, v, unit);
}

int main(int argc, char **argv)
{
	unsigned long long nreq = 1000000;
	struct rtr_model m;
	struct rtr_cp_index ix;
	struct rtr_critpath cp;
	uint32_t slow = 0, npaths = 0;
	uint64_t t, c, segs = 0;
	char size[32];

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--requests") && i + 1 < argc) {
			nreq = strtoull(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--rows") && i + 1 < argc) {
			rows_file = fopen(argv[++i], "a");
			if (!rows_file) {
				perror(argv[i]);
				return 1;
			}
		} else {
			fprintf(argc > 1 && !strcmp(argv[i], "--help") ? stdout : stderr,
				"usage: ringtrace-why-bench [--requests N] [--rows FILE]\n");
			return strcmp(argv[i], "--help") ? 2 : 0;
		}
	}
	if (!nreq || nreq > UINT32_MAX / 4) {
		fprintf(stderr, "ringtrace-why-bench: --requests: 1 to %u\n", UINT32_MAX / 4);
		return 2;
	}
	if (nreq % 1000000 == 0)
		snprintf(size, sizeof(size), "%um", (unsigned)(nreq / 1000000));
	else
		snprintf(size, sizeof(size), "%uk", (unsigned)(nreq / 1000));
	if (synth_server(&m, (uint32_t)nreq, 8, 1000, 1)) {
		fprintf(stderr, "ringtrace-why-bench: out of memory\n");
		return 1;
	}
	printf("why: %u tasks, %u arrows, %u runs (%llu requests, 8 CPUs)\n", m.ntasks, m.narrows,
	       m.nruns, nreq);
	t = rtr_monotonic_ns();
	c = cpu_ns();
	if (rtr_cp_index_build(&m, &ix)) {
		fprintf(stderr, "ringtrace-why-bench: out of memory\n");
		return 1;
	}
	c = cpu_ns() - c;
	figure(size, "index_s", (double)(rtr_monotonic_ns() - t) / 1e9, "s");
	figure(size, "index_cpu_s", (double)c / 1e9, "s (CPU time)");
	for (uint32_t i = 1; i < m.ntasks; i++)
		if (rtr_cp_end(&m, &ix, i, NULL) - m.tasks[i].created >
		    rtr_cp_end(&m, &ix, slow, NULL) - m.tasks[slow].created)
			slow = i;
	t = rtr_monotonic_ns();
	if (rtr_critpath(&m, &ix, slow, &cp)) {
		fprintf(stderr, "ringtrace-why-bench: out of memory\n");
		return 1;
	}
	figure(size, "slowest_s", (double)(rtr_monotonic_ns() - t) / 1e9, "s");
	printf("  (the slowest task: %u segments)\n", cp.nsegs);
	rtr_critpath_free(&cp);
	t = rtr_monotonic_ns();
	c = cpu_ns();
	for (uint32_t i = 0; i < m.ntasks && npaths < 1000; i += m.ntasks / 1000 + 1, npaths++) {
		if (rtr_critpath(&m, &ix, i, &cp)) {
			fprintf(stderr, "ringtrace-why-bench: out of memory\n");
			return 1;
		}
		segs += cp.nsegs;
		rtr_critpath_free(&cp);
	}
	t = rtr_monotonic_ns() - t;
	c = cpu_ns() - c;
	figure(size, "paths_per_s", (double)npaths * 1e9 / (double)(t ? t : 1), "paths/s");
	figure(size, "paths_per_cpu_s", (double)npaths * 1e9 / (double)(c ? c : 1),
	       "paths/s (CPU time)");
	printf("  (%u paths, %llu segments)\n", npaths, (unsigned long long)segs);
	rtr_cp_index_free(&ix);
	rtr_model_free(&m);
	if (rows_file)
		fclose(rows_file);
	return 0;
}
