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
#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <unistd.h>
#include <ringtrace/consumer.h>
#include "consumer/qfile.h"
#include "format/ctf.h"
#include "tools/cli.h"
#include "tools/commands.h"
#include "tools/region_cmd.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ringtrace info REGION\n"
		"       ringtrace info --xen-domain NAME|ID\n"
		"       ringtrace info --queues [--remove-orphans] [DIR]\n\n"
		"Show a region's ABI version, uuid, state, producer, mode, geometry, clock, and\n"
		"per CPU the produced and consumed positions, the packets and the events lost,\n"
		"and its recorder's write-behind queue file if one is left.  It only reads: a\n"
		"live program is not disturbed.  With --xen-domain, in dom0, the region of a\n"
		"Xen guest.\n\n"
		"--queues lists the write-behind queue files in DIR (/dev/shm by default):\n"
		"whose recorder runs, which are a dead recorder's (`ringtrace recover REGION`\n"
		"takes them) and which belong to no region (orphans: their packets cannot be\n"
		"put in order with anything).  --remove-orphans removes the orphans.\n\n"
		"  -h, --help   this text\n\n"
		"exit status: 0 shown, 1 the region could not be read, 2 usage\n");
}

/* A queue file's line; return: true if it is an orphan (no recorder, no region). */
static bool queue_line(const char *qpath, bool remove)
{
	struct rtr_qfile_info qi;
	char region[PATH_MAX + 8], b[32];
	size_t n = strlen(qpath);
	bool orphan, have_region;
	int ret = rtr_qfile_look(qpath, &qi);

	if (ret) {
		printf("%s: %s\n", qpath, ret == -EINVAL ? "not a write-behind queue file" :
		       strerror(-ret));
		return false;
	}
	snprintf(region, sizeof(region), "%.*s", (int)(n - 6), qpath);
	have_region = access(region, F_OK) == 0;
	orphan = !qi.running && !have_region;
	cli_human(b, sizeof(b), qi.bytes);
	printf("%s: recorder pid %d %s, %" PRIu64 " packets not on disk, %s; trace %s\n", qpath,
	       (int)qi.pid, qi.running ? "running" : "gone", qi.held, b, qi.trace);
	if (qi.running)
		return false;
	if (have_region)
		printf("  `ringtrace recover %s -o DIR` takes them, and removes it\n", region);
	else if (remove && unlink(qpath) == 0)
		printf("  an orphan (its region %s is gone): removed\n", region);
	else
		printf("  an orphan: its region %s is gone; `ringtrace info --queues "
		       "--remove-orphans` removes it\n", region);
	return orphan;
}

static int queues(int argc, char **argv)
{
	const char *dir = "/dev/shm";
	bool remove = false;
	struct dirent *e;
	unsigned n = 0, orphans = 0;
	DIR *d;

	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--remove-orphans"))
			remove = true;
		else if (argv[i][0] != '-' && dir == (const char *)"/dev/shm")
			dir = argv[i];
		else {
			usage(stderr);
			return 2;
		}
	}
	d = opendir(dir);
	if (!d) {
		fprintf(stderr, "ringtrace info: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		char path[PATH_MAX];

		if (len < 7 || strcmp(e->d_name + len - 6, ".queue"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		n++;
		orphans += queue_line(path, remove);
	}
	closedir(d);
	if (!n)
		printf("no write-behind queue file in %s\n", dir);
	else if (orphans && !remove)
		printf("%u orphan%s\n", orphans, orphans == 1 ? "" : "s");
	return 0;
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
	if (argc >= 2 && !strcmp(argv[1], "--queues"))
		return queues(argc, argv);
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
	{
		char qpath[PATH_MAX + 8], xname[300];

		snprintf(xname, sizeof(xname), "xen:%s", name);
		region_queue_path(xen ? xname : rtr_consumer_name(c), qpath, sizeof(qpath));
		if (access(qpath, F_OK) == 0) {
			printf("\nwrite-behind queue\n");
			queue_line(qpath, false);
		}
	}
	rtr_consumer_close(c);
	return 0;
}
