// SPDX-License-Identifier: MIT
/*
 * ringtrace-xensim - the simulated hypervisor's toolstack (the tests' xl),
 * platform/xensim/xensim.h.  The simulation lives in DIR; the xenstore
 * commands act as the domain RINGTRACE_XENSIM_DOMID says (default dom0).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "platform/xen.h"
#include "platform/xensim/xensim.h"

static const char usage[] =
	"usage: ringtrace-xensim COMMAND DIR [ARGS]\n"
	"  init DIR                  create a simulation with dom0 in DIR\n"
	"  create DIR NAME           create a domain; prints its id\n"
	"  crash DIR ID              the domain crashed and is preserved\n"
	"  pause DIR ID, unpause DIR ID  the domain's paused flag (stop its processes too)\n"
	"  destroy DIR ID            the domain is gone\n"
	"  stats DIR ID              event-channel counters: sent delivered coalesced\n"
	"  read DIR PATH             xenstore read (as RINGTRACE_XENSIM_DOMID)\n"
	"  write DIR PATH VALUE      xenstore write\n"
	"  rm DIR PATH               xenstore remove\n"
	"  ls DIR PATH               xenstore directory\n";

static int fail(const char *what, int ret)
{
	fprintf(stderr, "ringtrace-xensim: %s: %s\n", what, strerror(-ret));
	return 1;
}

static unsigned long id_arg(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (!*s || *end) {
		fprintf(stderr, "ringtrace-xensim: %s: not a domain id\n", s);
		exit(2);
	}
	return v;
}

static int xs_cmd(const char *cmd, const char *dir, char **argv, int argc)
{
	struct rtr_xen *x;
	char err[256], buf[4096];
	int ret;

	setenv("RINGTRACE_XENSIM", dir, 1);
	ret = rtr_xen_open(&x, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "ringtrace-xensim: %s\n", err);
		return 1;
	}
	if (!strcmp(cmd, "read") && argc == 1) {
		ret = rtr_xs_read(x, argv[0], buf, sizeof(buf));
		if (ret >= 0)
			printf("%s\n", buf);
	} else if (!strcmp(cmd, "write") && argc == 2) {
		const char *p[] = { argv[0] }, *v[] = { argv[1] };

		ret = rtr_xs_write(x, p, v, 1);
	} else if (!strcmp(cmd, "rm") && argc == 1) {
		ret = rtr_xs_rm(x, argv[0]);
	} else if (!strcmp(cmd, "ls") && argc == 1) {
		char **names;
		unsigned n;

		ret = rtr_xs_list(x, argv[0], &names, &n);
		for (unsigned i = 0; !ret && i < n; i++)
			printf("%s\n", names[i]);
		if (!ret)
			free(names);
	} else {
		rtr_xen_close(x);
		fputs(usage, stderr);
		return 2;
	}
	rtr_xen_close(x);
	return ret < 0 ? fail(argv[0], ret) : 0;
}

int main(int argc, char **argv)
{
	const char *cmd, *dir;
	uint32_t id;
	int ret;

	if (argc < 3 || !strcmp(argv[1], "--help")) {
		fputs(usage, argc < 3 && (argc < 2 || strcmp(argv[1], "--help")) ? stderr : stdout);
		return argc < 3 && (argc < 2 || strcmp(argv[1], "--help")) ? 2 : 0;
	}
	cmd = argv[1];
	dir = argv[2];
	if (!strcmp(cmd, "init") && argc == 3) {
		ret = rtr_xensim_init(dir);
		return ret ? fail(dir, ret) : 0;
	}
	if (!strcmp(cmd, "create") && argc == 4) {
		ret = rtr_xensim_create(dir, argv[3], &id);
		if (ret)
			return fail(argv[3], ret);
		printf("%u\n", id);
		return 0;
	}
	if (!strcmp(cmd, "crash") && argc == 4) {
		ret = rtr_xensim_crash(dir, (uint32_t)id_arg(argv[3]));
		return ret ? fail(argv[3], ret) : 0;
	}
	if ((!strcmp(cmd, "pause") || !strcmp(cmd, "unpause")) && argc == 4) {
		ret = rtr_xensim_pause(dir, (uint32_t)id_arg(argv[3]), cmd[0] == 'p');
		return ret ? fail(argv[3], ret) : 0;
	}
	if (!strcmp(cmd, "destroy") && argc == 4) {
		ret = rtr_xensim_destroy(dir, (uint32_t)id_arg(argv[3]));
		return ret ? fail(argv[3], ret) : 0;
	}
	if (!strcmp(cmd, "stats") && argc == 4) {
		struct rtr_xensim_stats st;

		ret = rtr_xensim_stats(dir, (uint32_t)id_arg(argv[3]), &st);
		if (ret)
			return fail(argv[3], ret);
		printf("%llu %llu %llu\n", (unsigned long long)st.sent,
		       (unsigned long long)st.delivered, (unsigned long long)st.coalesced);
		return 0;
	}
	return xs_cmd(cmd, dir, argv + 3, argc - 3);
}
