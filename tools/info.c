// SPDX-License-Identifier: MIT
/*
 * tools/info.c - `ringtrace info REGION`: a look at a region, live or left by
 * a dead process: its geometry, state, and per-CPU positions and losses.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <ringtrace/consumer.h>
#include "tools/commands.h"

int rtr_cmd_info(int argc, char **argv)
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
