// SPDX-License-Identifier: MIT
/*
 * tools/ringtrace.c - the ringtrace command: one table of the subcommands
 * (tools/commands.h), which dispatches them and prints the usage.  Each
 * subcommand lives in its own file.
 */
#include <stdio.h>
#include <string.h>
#include <ringtrace/region.h>
#include "tools/commands.h"

#define VERSION "0.1"

/* Where a summary starts: after the arguments, or on a line of its own. */
#define SUMMARY_COL 17

static const struct rtr_command commands[] = {
	{ "record", "[OPTIONS] [--] PROGRAM [ARGS]",
	  "run PROGRAM with a region and write its trace (-o DIR or -o -),\n"
	  "rotating chunks, or as a flight recorder (--mode overwrite)", rtr_cmd_record },
	{ "consume", "REGION|-|--xen-domain D -o DIR",
	  "consume a region a program made itself, or a stream from stdin", rtr_cmd_consume },
	{ "snapshot", "REGION|--xen-domain D -o DIR",
	  "write what an overwrite-mode ring holds now, the program running", rtr_cmd_snapshot },
	{ "recover", "REGION|--xen-domain D -o DIR",
	  "rebuild the trace of a process that crashed, with a report", rtr_cmd_recover },
	{ "info", "REGION|--xen-domain D",
	  "show a region's geometry, state, and per-CPU positions and losses", rtr_cmd_info },
	{ "convert", "REGION -o DIR",
	  "write the trace held in REGION as a CTF directory DIR (new);\n"
	  "the open packets too when the producer stopped or died", rtr_cmd_convert },
	{ "dump", "[--follow] [--clock-seconds] [--no-delta] [--slice T0..T1] TRACE",
	  "print every event of TRACE, streams merged in time; --follow\n"
	  "tails a trace being recorded", rtr_cmd_dump },
	{ "check", "TRACE", "validate TRACE: packets, records, losses, damage", rtr_cmd_check },
	{ "index", "[--quiet] TRACE...",
	  "build or extend the index beside each trace: its events and span\n"
	  "without reading it, and --slice without reading what comes before", rtr_cmd_index },
	{ "stats", "[--json | --hangs] DIR...",
	  "per task kind: counts, creation to resolution p50/p90/p99/max and\n"
	  "a histogram, unresolved and failed tasks; per CPU: event rates and\n"
	  "losses", rtr_cmd_stats },
	{ "why", "[--json] TRACE TASK | --slowest KIND [-n N] TRACE",
	  "why a task took as long as it did: its critical path, segments\n"
	  "adding up to its duration, each wait explained", rtr_cmd_why },
	{ "diff", "[--json] [--group PATTERN]... A B",
	  "compare two runs: per kind and label group, p50/p90/p99 with\n"
	  "confidence intervals, and the critical-path segments that changed", rtr_cmd_diff },
	{ "export", "--format chrome|sqlite [-o FILE] [--force] DIR...",
	  "Trace Event JSON for Perfetto UI and chrome://tracing; an SQLite\n"
	  "database for SQL over the trace (-o FILE.db)", rtr_cmd_export },
	{ "view", "[-o FILE.html] [--force] [--align start] DIR...",
	  "write the traces as one self-contained HTML page: the timeline;\n"
	  "--serve serves it (--follow: a recording as it runs)", rtr_cmd_view },
	{ "gui", "[--size WxH] [--range T0..T1] [--screenshot FILE.png] DIR...",
	  "open the traces in a window (GTK 4): the timeline; --follow DIR\n"
	  "or - follows a recording as it runs", rtr_cmd_gui },
	{ "help", "", "this text", NULL },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	fprintf(f, "usage: ringtrace COMMAND [ARGS]\n\ncommands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++) {
		const struct rtr_command *c = &commands[i];
		const char *s = c->summary;
		int n = fprintf(f, "  %s%s%s", c->name, *c->args ? " " : "", c->args);

		/* The summary beside a short synopsis, else under it. */
		if (n < SUMMARY_COL - 1)
			fprintf(f, "%*s", SUMMARY_COL - n, "");
		else
			fprintf(f, "\n%*s", SUMMARY_COL, "");
		for (const char *e; (e = strchr(s, '\n')); s = e + 1)
			fprintf(f, "%.*s\n%*s", (int)(e - s), s, SUMMARY_COL, "");
		fprintf(f, "%s\n", s);
	}
	fprintf(f, "\n"
		"TRACE: a trace directory, a directory of rotated chunks, or - for the stream\n"
		"of `ringtrace record -o -` on standard input.\n\n"
		"options:\n"
		"  -h, --help     this text\n"
		"  --version      print the version\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("ringtrace %s (region ABI %u.%u)\n", VERSION, RTR_REGION_ABI_MAJOR,
		       RTR_REGION_ABI_MINOR);
		return 0;
	}
	for (size_t i = 0; i < NCOMMANDS; i++) {
		if (strcmp(argv[1], commands[i].name))
			continue;
		if (!commands[i].run) {
			usage(stdout);
			return 0;
		}
		return commands[i].run(argc - 1, argv + 1);
	}
	fprintf(stderr, "ringtrace: unknown command '%s' (see ringtrace --help)\n", argv[1]);
	return 2;
}
