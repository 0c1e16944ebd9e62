// SPDX-License-Identifier: MIT
/*
 * tools/check.c - `ringtrace check DIR`: validate a trace without printing
 * its events.  The metadata must parse; every stream file is read to its
 * end by a cursor, which checks each packet header (magic, uuid, sizes,
 * cpu, sequence, losses, timestamps) and decodes each record in bounds.
 * Losses are reported but are not damage.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tools/trace_reader.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ringtrace check DIR\n\n"
		"Validate the CTF trace in DIR without printing its events: the metadata, and\n"
		"in every stream file each packet (header fields, sizes, uuid, cpu, sequence\n"
		"numbers, loss counters, timestamps) and each record.  Prints per stream the\n"
		"packets, events, events lost, packets lost, and the first damage found.\n\n"
		"  -h, --help   this text\n\n"
		"exit status: 0 clean (losses alone are not damage), 1 damaged, 2 usage\n");
}

int rtr_cmd_check(int argc, char **argv)
{
	uint64_t packets = 0, events = 0, lost_events = 0, lost_packets = 0, lost_first = 0;
	const char *dir = NULL;
	uint32_t damaged = 0;
	struct tr_cursor *c;
	struct tr_trace t;
	char err[1024];

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "ringtrace check: unknown option '%s'\n", argv[i]);
			usage(stderr);
			return 2;
		} else if (!dir) {
			dir = argv[i];
		} else {
			fprintf(stderr, "ringtrace check: unexpected argument '%s'\n", argv[i]);
			return 2;
		}
	}
	if (!dir) {
		usage(stderr);
		return 2;
	}
	if (tr_open(&t, dir, err, sizeof(err))) {
		fprintf(stderr, "ringtrace check: %s\n", err);
		printf("%s: damaged: %s\n", dir, err);
		return 1;
	}
	printf("trace     %s\n", dir);
	printf("uuid      %s\n", t.md.uuid_str);
	printf("host      %s%s", t.md.hostname, t.md.has_vpid ? "" : "\n");
	if (t.md.has_vpid)
		printf(", pid %u\n", t.md.vpid);
	printf("clock     %" PRIu64 " Hz\n", t.md.freq);
	printf("classes   %u event classes\n", t.md.nclasses);
	printf("streams   %u files\n\n", t.nstreams);
	printf("%-16s %5s %10s %12s %12s %12s  %s\n", "stream", "cpu", "packets", "events",
	       "events-lost", "packets-lost", "status");

	c = malloc(sizeof(*c));
	if (!c) {
		fprintf(stderr, "ringtrace check: out of memory\n");
		tr_close(&t);
		return 1;
	}
	for (uint32_t i = 0; i < t.nstreams; i++) {
		char cpu[24] = "-";
		int r;

		tr_cursor_init(c, &t, i);
		while ((r = tr_next(c)) > 0)
			;
		if (c->started)
			snprintf(cpu, sizeof(cpu), "%" PRIu64, c->cpu);
		printf("%-16s %5s %10" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64 "  %s\n",
		       t.streams[i].name, cpu, c->packets, c->events, c->events_lost,
		       c->packets_lost, r == TR_ERROR ? "DAMAGED" : "ok");
		if (r == TR_ERROR) {
			fprintf(stderr, "ringtrace check: %s\n", c->err);
			printf("  damage: %s\n", c->err);
			damaged++;
		}
		packets += c->packets;
		events += c->events;
		lost_events += c->events_lost;
		lost_packets += c->packets_lost;
		lost_first += c->first_seq;
	}
	free(c);
	printf("\n%" PRIu64 " packets, %" PRIu64 " events, %" PRIu64 " events lost, %" PRIu64
	       " packets lost (%" PRIu64 " of them before the streams' first packets)\n",
	       packets, events, lost_events, lost_packets, lost_first);
	if (damaged)
		printf("check: DAMAGED: %u of %u streams\n", damaged, t.nstreams);
	else
		printf("check: ok%s\n", lost_events || lost_packets ? " (with losses)" : "");
	tr_close(&t);
	return damaged ? 1 : 0;
}
