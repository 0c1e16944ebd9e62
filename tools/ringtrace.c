// SPDX-License-Identifier: MIT
/*
 * tools/ringtrace.c - the ringtrace command: `info` (a look at a region,
 * live or left by a dead process), `convert` (a region to a CTF directory),
 * and the dispatch to the others: `record`, `consume`, `snapshot`,
 * `recover` (tools/record.c), `dump` and `check` (tools/dump.c, check.c),
 * `stats` and `export` (tools/stats.c, export.c, on the task model of
 * tools/model.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <ringtrace/consumer.h>
#include "consumer/convert.h"
#include "tools/commands.h"
#include "tools/model.h"
#include "tools/trace_reader.h"

#define VERSION "0.1"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ringtrace COMMAND [ARGS]\n\n"
		"commands:\n"
		"  record [OPTIONS] [--] PROGRAM [ARGS]\n"
		"                 run PROGRAM with a region and write its trace (-o DIR or -o -),\n"
		"                 rotating chunks, or as a flight recorder (--mode overwrite)\n"
		"  consume REGION|- -o DIR\n"
		"                 consume a region a program made itself, or a stream from stdin\n"
		"  snapshot REGION -o DIR\n"
		"                 write what an overwrite-mode ring holds now, the program running\n"
		"  recover REGION -o DIR\n"
		"                 rebuild the trace of a process that crashed, with a report\n"
		"  info REGION    show a region's geometry, state, and per-CPU positions and losses\n"
		"  convert REGION -o DIR\n"
		"                 write the trace held in REGION as a CTF directory DIR (new);\n"
		"                 the open packets too when the producer stopped or died\n"
		"  dump [--follow] [--clock-seconds] [--no-delta] TRACE\n"
		"                 print every event of TRACE, streams merged in time; --follow\n"
		"                 tails a trace being recorded\n"
		"  check TRACE    validate TRACE: packets, records, losses, damage\n"
		"  stats [--json] DIR...\n"
		"                 per task kind: counts, creation to resolution p50/p90/p99/max,\n"
		"                 unresolved and failed tasks; per CPU: event rates and losses\n"
		"  export --format chrome [-o FILE] DIR...\n"
		"                 Trace Event JSON for Perfetto UI and chrome://tracing\n"
		"  view [-o FILE.html] [--force] DIR...\n"
		"                 write the traces as one self-contained HTML page: the timeline\n"
		"  help           this text\n\n"
		"TRACE: a trace directory, a directory of rotated chunks, or - for the stream\n"
		"of `ringtrace record -o -` on standard input.\n\n"
		"options:\n"
		"  -h, --help     this text\n"
		"  --version      print the version\n");
}

static int cmd_info(int argc, char **argv)
{
	const struct rtr_region_hdr *h;
	struct rtr_consumer *c;
	char err[512], uuid[40];
	uint64_t lost = 0;
	int ret;

	if (argc != 2 || argv[1][0] == '-') {
		fprintf(stderr, "usage: ringtrace info REGION\n");
		return 2;
	}
	ret = rtr_consumer_open(&c, argv[1], err, sizeof(err));
	if (ret) {
		fprintf(stderr, "ringtrace info: %s\n", err);
		return 1;
	}
	h = rtr_consumer_region(c);
	for (int i = 0, o = 0; i < 16; i++) {
		o += snprintf(uuid + o, sizeof(uuid) - (size_t)o, "%02x", h->uuid[i]);
		if (i == 3 || i == 5 || i == 7 || i == 9)
			uuid[o++] = '-';
	}
	printf("region      %s\n", argv[1]);
	printf("abi         %u.%u\n", h->abi_major, h->abi_minor);
	printf("uuid        %s\n", uuid);
	printf("state       %s\n", rtr_consumer_stopped(c) ? "stopped" : "running");
	printf("producer    pid %u%s\n", h->producer_pid,
	       kill((pid_t)h->producer_pid, 0) == 0 || errno == EPERM ? "" : " (not running)");
	printf("mode        %s\n", h->mode == RTR_MODE_DISCARD ? "discard" : "overwrite");
	printf("streams     %u CPUs x %u packets x %u KiB\n", h->ncpus, h->packets_per_cpu,
	       h->packet_size / 1024);
	printf("clock       %" PRIu64 " Hz\n", h->clock_freq);
	printf("\n%5s %14s %14s %10s %12s %12s %12s\n", "cpu", "produced", "consumed", "packets",
	       "lost-full", "lost-big", "lost-busy");
	for (uint32_t i = 0; i < h->ncpus; i++) {
		struct rtr_consumer_cpu ci;

		rtr_consumer_cpu_info(c, i, &ci);
		printf("%5u %14" PRIu64 " %14" PRIu64 " %10" PRIu64 " %12" PRIu64 " %12" PRIu64
		       " %12" PRIu64 "\n", i, ci.prod, ci.cons, ci.prod / h->packet_size,
		       ci.lost_full, ci.lost_big, ci.lost_busy);
		lost += ci.lost_full + ci.lost_big + ci.lost_busy;
	}
	printf("\nevents lost in all: %" PRIu64 "\n", lost);
	rtr_consumer_close(c);
	return 0;
}

static int cmd_convert(int argc, char **argv)
{
	const char *region = NULL, *dir = NULL;
	struct rtr_convert_report rep;
	int ret;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-o")) {
			if (i + 1 == argc) {
				fprintf(stderr, "ringtrace convert: -o needs a value\n");
				return 2;
			}
			dir = argv[++i];
		} else if (argv[i][0] == '-') {
			fprintf(stderr, "ringtrace convert: unknown option '%s'\n", argv[i]);
			return 2;
		} else if (!region) {
			region = argv[i];
		} else {
			fprintf(stderr, "ringtrace convert: unexpected argument '%s'\n", argv[i]);
			return 2;
		}
	}
	if (!region || !dir) {
		fprintf(stderr, "usage: ringtrace convert REGION -o DIR\n");
		return 2;
	}
	ret = rtr_convert(region, dir, &rep);
	if (rep.registry_err[0])
		fprintf(stderr, "ringtrace convert: %s: %s; counter names are missing from the trace\n",
			region, rep.registry_err);
	if (ret) {
		fprintf(stderr, "ringtrace convert: %s\n", rep.err);
		return 1;
	}
	printf("%s: %" PRIu64 " packets (%" PRIu64 " salvaged from a %s producer), %.1f KiB, "
	       "%u streams\n", dir, rep.packets, rep.salvaged,
	       rep.producer_gone ? "stopped or dead" : "running", (double)rep.bytes / 1024,
	       rep.ncpus);
	printf("lost: %" PRIu64 " events counted by the producer, %" PRIu64
	       " packets overwritten or damaged\n", rep.events_lost, rep.lost_packets);
	if (!rep.producer_gone)
		printf("the producer is still running: its open packets were left out\n");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("ringtrace %s (region ABI %u.%u)\n", VERSION, RTR_REGION_ABI_MAJOR,
		       RTR_REGION_ABI_MINOR);
		return 0;
	}
	if (!strcmp(argv[1], "info"))
		return cmd_info(argc - 1, argv + 1);
	if (!strcmp(argv[1], "convert"))
		return cmd_convert(argc - 1, argv + 1);
	if (!strcmp(argv[1], "dump"))
		return rtr_cmd_dump(argc - 1, argv + 1);
	if (!strcmp(argv[1], "check"))
		return rtr_cmd_check(argc - 1, argv + 1);
	if (!strcmp(argv[1], "record"))
		return rtr_cmd_record(argc - 1, argv + 1);
	if (!strcmp(argv[1], "consume"))
		return rtr_cmd_consume(argc - 1, argv + 1);
	if (!strcmp(argv[1], "snapshot"))
		return rtr_cmd_snapshot(argc - 1, argv + 1);
	if (!strcmp(argv[1], "recover"))
		return rtr_cmd_recover(argc - 1, argv + 1);
	if (!strcmp(argv[1], "view"))
		return rtr_cmd_view(argc - 1, argv + 1);
	if (!strcmp(argv[1], "stats"))
		return rtr_cmd_stats(argc - 1, argv + 1);
	if (!strcmp(argv[1], "export"))
		return rtr_cmd_export(argc - 1, argv + 1);
	fprintf(stderr, "ringtrace: unknown command '%s' (see ringtrace --help)\n", argv[1]);
	return 2;
}
