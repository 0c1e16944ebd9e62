// SPDX-License-Identifier: MIT
/*
 * tools/info.c - `ringtrace info REGION|--xen-domain D`: a look at a region,
 * live or left by a dead process (or a Xen guest's, from dom0): its
 * geometry, state, and per-CPU positions and losses.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <ringtrace/consumer.h>
#include "events/ctf.h"
#include "tools/commands.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ringtrace info REGION\n"
		"       ringtrace info --xen-domain NAME|ID\n\n"
		"Show a region's ABI version, uuid, state, producer, mode, geometry, clock, and\n"
		"per CPU the produced and consumed positions, the packets and the events lost.\n"
		"It only reads: a live program is not disturbed.  With --xen-domain, in dom0,\n"
		"the region of a Xen guest.\n\n"
		"  -h, --help   this text\n\n"
		"exit status: 0 shown, 1 the region could not be read, 2 usage\n");
}

int rtr_cmd_info(int argc, char **argv)
{
	const struct rtr_region_hdr *h;
	struct rtr_consumer *c;
	char err[512], uuid[40];
	const char *name;
	uint64_t lost = 0;
	bool xen;
	int ret;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		}
	}
	xen = argc == 3 && !strcmp(argv[1], "--xen-domain");
	if (!xen && (argc != 2 || argv[1][0] == '-')) {
		usage(stderr);
		return 2;
	}
	name = argv[xen ? 2 : 1];
	if (xen)
		ret = rtr_consumer_open_xen(&c, name, err, sizeof(err));
	else
		ret = rtr_consumer_open(&c, name, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "ringtrace info: %s\n", err);
		return 1;
	}
	h = rtr_consumer_region(c);
	rtr_ctf_uuid_text(uuid, h->uuid);
	printf("region      %s\n", rtr_consumer_name(c));
	printf("abi         %u.%u\n", h->abi_major, h->abi_minor);
	printf("uuid        %s\n", uuid);
	printf("state       %s\n", rtr_consumer_stopped(c) ? "stopped" : "running");
	if (rtr_consumer_producer_gone(c))
		printf("producer    pid %u (%s)\n", h->producer_pid, rtr_consumer_gone_why(c));
	else
		printf("producer    pid %u%s\n", h->producer_pid, xen ? ", in the guest" : "");
	{
		struct rtr_consumer_procs p = { .struct_size = sizeof(p) };

		if (rtr_consumer_procs(c, &p) == 0 && h->abi_minor >= 2)
			printf("processes   %u writing, %u forked children followed, %u untraced\n",
			       p.writing, p.followed, p.untraced);
	}
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
