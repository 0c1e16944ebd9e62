// SPDX-License-Identifier: MIT
/*
 * tests/format/read_alone.c - rtr-read-alone TRACE: the read side linked
 * with its own layers only (libringtrace-read, libringtrace-format and the
 * producer library's platform code: no libringtrace-consumer, no liburing),
 * which the Makefile's link of this program checks.  It reads TRACE as
 * every tool does (tr_input_open(): a directory, or '-' spooled from a
 * framed stream) and prints "events N threads N lost N", the program's
 * events, the ring's thread records and the events counted lost.
 * Exit status: 0, 1 on damage or a cut stream (after printing what it read).
 */
#include <stdbool.h>
#include <stdio.h>
#include "reader/cursor.h"
#include "reader/input.h"
#include "reader/trace.h"

int main(int argc, char **argv)
{
	struct tr_input in;
	uint64_t events = 0, threads = 0, lost = 0;
	char err[700];
	int status = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: rtr-read-alone TRACE\n");
		return 2;
	}
	if (tr_input_open(&in, argv[1], false, err, sizeof(err))) {
		fprintf(stderr, "rtr-read-alone: %s\n", err);
		tr_input_close(&in, err, sizeof(err));
		return 1;
	}
	for (uint32_t d = 0; d < in.ndirs; d++) {
		struct tr_trace t;

		if (tr_open(&t, in.dirs[d], err, sizeof(err))) {
			fprintf(stderr, "rtr-read-alone: %s\n", err);
			status = 1;
			continue;
		}
		for (uint32_t s = 0; s < t.nstreams; s++) {
			struct tr_cursor c;
			int item;

			tr_cursor_init(&c, &t, s);
			while ((item = tr_next(&c)) > 0)
				;
			if (item == TR_ERROR) {
				fprintf(stderr, "rtr-read-alone: %s\n", c.err);
				status = 1;
			}
			events += c.events - c.threads;
			threads += c.threads;
			lost += c.events_lost;
		}
		tr_close(&t);
	}
	bool said = in.stream_failed;

	if (said) {
		fprintf(stderr, "rtr-read-alone: %s\n", in.stream_err);
		status = 1;
	}
	printf("events %llu threads %llu lost %llu\n", (unsigned long long)events,
	       (unsigned long long)threads, (unsigned long long)lost);
	if (tr_input_close(&in, err, sizeof(err)) && !said) {
		fprintf(stderr, "rtr-read-alone: %s\n", err);
		status = 1;
	}
	return status;
}
