// SPDX-License-Identifier: MIT
/*
 * ringtrace-stress - many writer threads against a consumer process, both
 * modes, then a check of every event.  `make demo` runs it.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <ringtrace/region.h>
#include "examples/stress/harness.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ringtrace-stress [options]\n"
		"Run writer threads against a consumer in another process, in discard\n"
		"then overwrite mode, and verify every event that was written.\n\n"
		"  -s, --seconds S       run time per mode (default 5)\n"
		"  -w, --writers N       writer threads (default 4)\n"
		"  -m, --mode M          discard, overwrite or both (default both)\n"
		"  -p, --packet-size B   bytes per packet, power of two (default 65536)\n"
		"  -n, --packets N       packets per CPU, power of two (default 8)\n"
		"  -d, --dir DIR         work directory (default: a new one under /dev/shm)\n"
		"      --portable        use the portable (locked) path instead of rseq\n"
		"  -h, --help            this text\n");
}

static int parse_u32(const char *opt, const char *s, uint32_t *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *end || end == s || v > 0xffffffffUL) {
		fprintf(stderr, "ringtrace-stress: %s: '%s' is not a number\n", opt, s);
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seconds", required_argument, NULL, 's' },
		{ "writers", required_argument, NULL, 'w' },
		{ "mode", required_argument, NULL, 'm' },
		{ "packet-size", required_argument, NULL, 'p' },
		{ "packets", required_argument, NULL, 'n' },
		{ "dir", required_argument, NULL, 'd' },
		{ "portable", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct stress_cfg cfg = {
		.packet_size = 65536, .packets = 8, .writers = 4, .seconds = 5,
	};
	const char *mode = "both";
	char tmpl[] = "/dev/shm/ringtrace-stress.XXXXXX";
	bool own_dir = false;
	int c, failed = 0;

	while ((c = getopt_long(argc, argv, "s:w:m:p:n:d:h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			cfg.seconds = strtod(optarg, NULL);
			if (cfg.seconds <= 0) {
				fprintf(stderr, "ringtrace-stress: --seconds: '%s' is not a positive number\n", optarg);
				return 2;
			}
			break;
		case 'w':
			if (parse_u32("--writers", optarg, &cfg.writers) || !cfg.writers)
				return 2;
			break;
		case 'm':
			mode = optarg;
			if (strcmp(mode, "discard") && strcmp(mode, "overwrite") && strcmp(mode, "both")) {
				fprintf(stderr, "ringtrace-stress: --mode: '%s': use discard, overwrite or both\n", mode);
				return 2;
			}
			break;
		case 'p':
			if (parse_u32("--packet-size", optarg, &cfg.packet_size))
				return 2;
			break;
		case 'n':
			if (parse_u32("--packets", optarg, &cfg.packets))
				return 2;
			break;
		case 'd':
			cfg.dir = optarg;
			break;
		case 'P':
			cfg.portable = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "ringtrace-stress: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	if (!cfg.dir) {
		if (!mkdtemp(tmpl)) {
			fprintf(stderr, "ringtrace-stress: %s: %s\n", tmpl, strerror(errno));
			return 1;
		}
		cfg.dir = tmpl;
		own_dir = true;
	}
	printf("ringtrace-stress: %u writers on %ld CPUs, consumer in a separate process, %.1f s per mode\n",
	       cfg.writers, sysconf(_SC_NPROCESSORS_ONLN), cfg.seconds);
	printf("The writers trace as fast as they can, faster than the consumer can copy to\n"
	       "files, so discard mode drops events (each one counted in the trace) and\n"
	       "overwrite mode keeps the newest packets; then every event is checked.\n");
	for (int m = RTR_MODE_DISCARD; m <= RTR_MODE_OVERWRITE; m++) {
		struct stress_result res;
		int ret;

		if ((m == RTR_MODE_DISCARD && !strcmp(mode, "overwrite")) ||
		    (m == RTR_MODE_OVERWRITE && !strcmp(mode, "discard")))
			continue;
		cfg.mode = (uint32_t)m;
		ret = stress_run(&cfg, &res);
		printf("%s mode:\n", m == RTR_MODE_DISCARD ? "discard" : "overwrite");
		stress_print(&cfg, &res);
		if (ret)
			failed = 1;
	}
	if (own_dir) {
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpl);
		if (system(cmd))
			fprintf(stderr, "ringtrace-stress: could not remove %s\n", tmpl);
	}
	return failed;
}
