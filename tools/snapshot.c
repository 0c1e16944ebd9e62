// SPDX-License-Identifier: MIT
/*
 * tools/snapshot.c - `ringtrace snapshot`: what an overwrite-mode ring holds
 * now, written as a trace, the program running.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <ringtrace/consumer.h>
#include "consumer/convert.h"
#include "consumer/output.h"
#include "consumer/session.h"
#include "consumer/stream_in.h"
#include "platform/platform.h"
#include "tools/cli.h"
#include "tools/commands.h"
#include "tools/region_cmd.h"

int rtr_cmd_snapshot(int argc, char **argv)
{
	struct opts o = { 0 };
	struct rtr_session s;
	struct rtr_out_report orep;
	char err[700];
	int ret;

	ret = region_parse(&o, argc, argv, false);
	if (ret >= 0)
		return ret;
	if (!strcmp(o.out.path, "-"))
		return region_usage_error(&o, "%s", "a snapshot is a directory, not '-'");
	if (!strncmp(o.out.path, "net://", 6))
		return region_usage_error(&o, "%s", "a snapshot is a directory, not a relayd "
					  "session (net://)");
	cli_catch_signals();
	if (sigsetjmp(cli_bus_jmp, 1)) {
		cli_bus_message(o.cmd, o.region);
		return 1;
	}
	cli_bus_armed = 1;
	ret = rtr_session_snapshot(o.region, &o.out, &s, &orep, err, sizeof(err));
	cli_bus_armed = 0;
	region_notices(&s);
	if (ret) {
		fprintf(stderr, "ringtrace snapshot: %s\n", err);
		return 1;
	}
	if (!o.quiet)
		region_report(&s, o.out.path);
	rtr_session_close(&s);
	return 0;
}
