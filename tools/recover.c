// SPDX-License-Identifier: MIT
/*
 * tools/recover.c - `ringtrace recover`: the trace of a process that crashed
 * or was killed, rebuilt from its region, with what could not be saved.
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
#include "consumer/qfile.h"
#include "consumer/session.h"
#include "consumer/stream_in.h"
#include "platform/platform.h"
#include "tools/cli.h"
#include "tools/commands.h"
#include "tools/region_cmd.h"

/* What the trace lacks, and why: an earlier consumer's packets named apart. */
static void report_recovered(const struct rtr_session *s, const struct rtr_session_cpu *t,
			     const struct rtr_qfile_report *q)
{
	uint64_t taken = 0, gone;

	for (uint32_t i = 0; i < s->ncpus; i++) {
		uint64_t first = rtr_consumer_start(s->c, i) / rtr_consumer_region(s->c)->packet_size;
		bool queued = q->found && i < q->ncpus && q->first[i] <= q->last[i];

		if (queued) {
			if (q->first[i])
				fprintf(stderr, "cpu %u: packets 0 to %" PRIu64 " are in the recorder's "
					"trace%s%s; %" PRIu64 " to %" PRIu64 " were in its queue: "
					"they are in this one\n", i, q->first[i] - 1,
					q->path[0] ? " " : "", q->path, q->first[i], q->last[i]);
			first = q->first[i];
		} else if (first) {
			fprintf(stderr, "cpu %u: packets 0 to %" PRIu64 " were taken by an earlier "
				"consumer: they are in its trace, not this one\n", i, first - 1);
		}
		taken += first;
	}
	/* Missing sequence numbers: taken earlier, damaged, or else overwritten. */
	gone = t->lost_packets - t->damaged - taken;
	fprintf(stderr, "could not be saved:\n");
	fprintf(stderr, "  %" PRIu64 " events the producer dropped (buffer full, too big, or "
		"busy), counted in the trace\n", t->lost_events);
	fprintf(stderr, "  %" PRIu64 " packets overwritten before the end (overwrite mode)\n",
		gone <= t->lost_packets ? gone : 0);
	fprintf(stderr, "  %" PRIu64 " packets damaged (listed above)\n", t->damaged);
	for (uint32_t i = 0; i < s->ncpus; i++)
		if (s->cpu[i].unsalvageable)
			fprintf(stderr, "  cpu %u: the open packet's header is damaged: its events "
				"are lost\n", i);
	fprintf(stderr, "  the event each thread was writing when the process died, if any "
		"(never committed)\n");
}

int rtr_cmd_recover(int argc, char **argv)
{
	struct opts o = { 0 };
	struct rtr_convert_report rep;
	struct rtr_qfile_report q = { 0 };
	char qpath[PATH_MAX + 8];
	struct rtr_session s;
	struct rtr_session_cpu t;
	int ret;

	ret = region_parse(&o, argc, argv, false);
	if (ret >= 0)
		return ret;
	if (!strcmp(o.out.path, "-"))
		return region_usage_error(&o, "%s", "recover writes a directory, not '-'");
	if (!strncmp(o.out.path, "net://", 6))
		return region_usage_error(&o, "%s", "recover writes a directory, not to a relayd "
					  "(net://)");
	cli_catch_signals();
	if (sigsetjmp(cli_bus_jmp, 1)) {
		cli_bus_message(o.cmd, o.region);
		return 1;
	}
	cli_bus_armed = 1;
	ret = rtr_session_open(&s, o.region, rep.err, sizeof(rep.err));
	if (ret) {
		cli_bus_armed = 0;
		fprintf(stderr, "ringtrace recover: %s\n", rep.err);
		return 1;
	}
	if (!rtr_session_producer_gone(&s)) {
		cli_bus_armed = 0;
		fprintf(stderr, "ringtrace recover: the producer of %s (pid %d) is still running; "
			"use `ringtrace consume` or `ringtrace snapshot` on a live region\n", o.region,
			(int)s.producer);
		rtr_session_close(&s);
		return 1;
	}
	rtr_session_close(&s);
	region_queue_path(o.region, qpath, sizeof(qpath));
	ret = rtr_recover_session(o.region, qpath, &o.out, &s, &rep, &q);
	cli_bus_armed = 0;
	if (!s.c) {
		fprintf(stderr, "ringtrace recover: %s\n", rep.err);
		rtr_qfile_report_free(&q);
		return 1;
	}
	rtr_session_totals(&s, &t);
	/* Taken whole: the queue file has served (a second recover would take it twice). */
	if (!ret && q.found && !rep.queue_err[0] && unlink(qpath) == 0 && !o.quiet)
		fprintf(stderr, "%s: taken, and removed\n", qpath);
	if (o.quiet) {
		if (rep.queue_err[0])
			fprintf(stderr, "ringtrace recover: %s\n", rep.queue_err);
		goto done;
	}
	region_report(&s, o.out.path);
	region_report_dead_queue(o.cmd, &q, qpath, rep.queue_err);
	report_recovered(&s, &t, &q);
	/* Packets are taken as their headers say; the records inside, as check reads them. */
	if (!ret) {
		char damage[1024];

		if (cli_check_written(o.out.path, damage, sizeof(damage)))
			fprintf(stderr, "  records damaged inside packets, kept as they were: %s "
				"(`ringtrace check %s` says more)\n", damage, o.out.path);
	}
done:
	rtr_qfile_report_free(&q);
	rtr_session_close(&s);
	if (ret)
		fprintf(stderr, "ringtrace recover: %s\n", rep.err);
	return ret ? 1 : 0;
}
