// SPDX-License-Identifier: MIT
/*
 * tools/convert.c - `ringtrace convert REGION -o DIR`: the trace a region
 * holds, written as a CTF directory; the open packets too when the producer
 * stopped or died.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "consumer/convert.h"
#include "tools/commands.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ringtrace convert REGION -o DIR\n\n"
		"Write the trace the region REGION holds as the new CTF directory DIR, in one\n"
		"pass: the complete packets, and the open ones too when the producer has\n"
		"stopped or died.  It only reads the region.\n\n"
		"  -o DIR       the trace directory to create (it must not exist)\n"
		"  -h, --help   this text\n\n"
		"exit status: 0 written, 1 failed (the message says why), 2 usage\n");
}

int rtr_cmd_convert(int argc, char **argv)
{
	const char *region = NULL, *dir = NULL;
	struct rtr_convert_report rep;
	int ret;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "-o")) {
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
		usage(stderr);
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
