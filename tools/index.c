// SPDX-License-Identifier: MIT
/*
 * tools/index.c - `ringtrace index TRACE...`: build, extend or check the
 * index beside each trace (reader/index.h) and say what it holds.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "reader/index.h"
#include "reader/input.h"
#include "tools/cli.h"
#include "tools/commands.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ringtrace index [--quiet] TRACE...\n\n"
		"Build the index beside each trace directory (its file .ringtrace-index),\n"
		"or check and extend the one there, and print what it holds: per trace its\n"
		"streams, packets, events and time span, and whether the index was built,\n"
		"extended with what the stream files gained, or reused.  The index gives a\n"
		"trace's events and span without reading it, and lets --slice read a time\n"
		"range of a trace without reading what comes before.  Readers that use it\n"
		"build it themselves when it is missing; this command does it ahead (e.g.\n"
		"after a long recording) and is safe to run while a recorder writes.\n"
		"An index is checked before it is used (its checksum, the metadata, each\n"
		"stream file's identity and size, its last packet read again): one that is\n"
		"stale or damaged is built again.  A directory that cannot be written keeps\n"
		"the index in memory only (said here).\n"
		"TRACE is a trace directory, a directory of rotated chunks or one holding\n"
		"several traces (each indexed).\n\n"
		"  -q, --quiet  print nothing but errors\n"
		"  -h, --help   this text\n\n"
		"exit status: 0, 1 a trace could not be read or is damaged (indexed up to\n"
		"the damage), 2 usage\n");
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *how_name(int how)
{
	return how == TR_INDEX_REUSED ? "reused" : how == TR_INDEX_EXTENDED ? "extended" : "built";
}

/* Index one trace directory.  Return: 0, or 1 (damaged or unreadable). */
static int index_dir(const char *dir, bool quiet)
{
	struct tr_trace t;
	struct tr_index ix;
	char err[1024], path[4200];
	uint32_t failed = 0;
	struct stat st;
	double t0 = now_s();
	int r;

	if ((r = tr_open_lazy(&t, dir, err, sizeof(err)))) {
		fprintf(stderr, "ringtrace index: %s\n", err);
		return 1;
	}
	if ((r = tr_index_open(&ix, &t))) {
		fprintf(stderr, "ringtrace index: %s: %s\n", dir, strerror(-r));
		tr_close(&t);
		return 1;
	}
	for (uint32_t i = 0; i < ix.nstreams; i++) {
		if (ix.s[i].failed) {
			if (!failed++)
				fprintf(stderr, "ringtrace index: %s: a packet that cannot be read "
					"(damage, or not written whole yet) at offset %" PRIu64
					": indexed up to it (ringtrace check %s says more)\n",
					t.streams[i].path, ix.s[i].done, dir);
		}
	}
	if (!ix.saved)
		fprintf(stderr, "ringtrace index: %s: kept in memory only (%s)\n", dir, ix.why);
	if (!quiet) {
		snprintf(path, sizeof(path), "%s/%s", dir, TR_INDEX_FILE);
		printf("%s: index %s in %.3f s%s%s%s\n", dir, how_name(ix.how), now_s() - t0,
		       ix.how == TR_INDEX_REUSED ? "" : " (", ix.how == TR_INDEX_REUSED ? "" : ix.why,
		       ix.how == TR_INDEX_REUSED ? "" : ")");
		printf("  %u stream%s, %" PRIu64 " packets, %" PRIu64 " events", ix.nstreams,
		       ix.nstreams == 1 ? "" : "s", ix.packets, ix.events);
		if (ix.events && ix.last_ts >= ix.first_ts && t.md.freq)
			printf(", %.6f s of the trace's clock",
			       (double)(ix.last_ts - ix.first_ts) / (double)t.md.freq);
		printf("\n");
		if (ix.saved && !stat(path, &st))
			printf("  %s: %lld bytes (%.3f a event)\n", path, (long long)st.st_size,
			       ix.events ? (double)st.st_size / (double)ix.events : 0.0);
	}
	tr_index_free(&ix);
	tr_close(&t);
	return failed ? 1 : 0;
}

int rtr_cmd_index(int argc, char **argv)
{
	bool quiet = false;
	int first = 1, ret = 0;

	for (; first < argc && argv[first][0] == '-' && argv[first][1]; first++) {
		if (!strcmp(argv[first], "-h") || !strcmp(argv[first], "--help")) {
			usage(stdout);
			return 0;
		}
		if (!strcmp(argv[first], "-q") || !strcmp(argv[first], "--quiet")) {
			quiet = true;
			continue;
		}
		if (!strcmp(argv[first], "--")) {
			first++;
			break;
		}
		fprintf(stderr, "ringtrace index: unknown option '%s'\n", argv[first]);
		usage(stderr);
		return 2;
	}
	if (first >= argc) {
		usage(stderr);
		return 2;
	}
	for (int i = first; i < argc; i++) {
		struct tr_input in;
		char err[1024];

		if (!strcmp(argv[i], "-")) {
			fprintf(stderr, "ringtrace index: '-': a stream has no directory to keep "
				"an index in\n");
			return 2;
		}
		if (tr_input_open(&in, argv[i], false, err, sizeof(err))) {
			fprintf(stderr, "ringtrace index: %s\n", err);
			ret = 1;
			continue;
		}
		for (uint32_t k = 0; k < in.ndirs; k++)
			ret |= index_dir(in.dirs[k], quiet);
		tr_input_close(&in, NULL, 0);
	}
	return ret;
}
