// SPDX-License-Identifier: MIT
/*
 * tools/consume.c - `ringtrace consume`: consume the region a program made
 * itself until it stops, or copy a framed stream from standard input into a
 * trace directory.
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
#include <sys/statvfs.h>
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

struct consume_state {
	struct rtr_session *s;
};

static bool consume_done(void *arg)
{
	struct consume_state *cs = arg;

	return cli_got_int || cli_got_term || rtr_session_producer_gone(cs->s);
}

static int consume_stream(const struct opts *o)
{
	struct rtr_out_opts oo = o->out;
	struct rtr_stream_report rep;
	struct rtr_out_report orep;
	struct rtr_out *out;
	char err[700];
	int ret;

	if (!strcmp(o->out.path, "-")) {
		fprintf(stderr, "ringtrace consume: from '-' to '-' copies nothing\n");
		return 2;
	}
	oo.buffer_size = 0;	/* a pipe's writer waits for us: nothing to lose */
	ret = rtr_out_open(&out, &oo, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "ringtrace consume: %s\n", err);
		return 1;
	}
	ret = rtr_stream_copy(STDIN_FILENO, out, &cli_got_stop, &rep);
	if (rtr_out_close(out, !ret && !rep.writer_stopped_early, &orep) && !ret) {
		ret = -EIO;
		snprintf(rep.err, sizeof(rep.err), "%s", orep.err);
	}
	if (!o->quiet) {
		char b[32];

		cli_human(b, sizeof(b), orep.bytes);
		fprintf(stderr, "%s: %" PRIu64 " packets, %s, %" PRIu64 " chunk%s\n", o->out.path,
			orep.packets, b, orep.chunks, orep.chunks == 1 ? "" : "s");
	}
	if (ret) {
		fprintf(stderr, "ringtrace consume: %s; what came before is a valid trace\n",
			rep.err);
		return ret == -EINTR ? 128 + (cli_got_term ? cli_got_term : SIGINT) : 1;
	}
	if (rep.writer_stopped_early)
		fprintf(stderr, "ringtrace consume: the writer stopped before the end of its trace\n");
	/*
	 * The frames' packet headers were checked as they came; the records
	 * inside them are checked now, as `check` checks them.
	 */
	if (cli_check_written(o->out.path, err, sizeof(err))) {
		fprintf(stderr, "ringtrace consume: the packets' headers were sound, but records "
			"inside them are damaged: %s; the trace is kept as it came (`ringtrace "
			"check %s` says more)\n", err, o->out.path);
		return 1;
	}
	return 0;
}

/* The producer's command name (/proc), else the region's file name. */
static const char *producer_name(const struct rtr_session *s, char *buf, size_t len,
				 const char *region)
{
	char path[64];
	const char *base = strrchr(region, '/');
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)s->producer);
	f = s->producer > 0 ? fopen(path, "re") : NULL;
	if (f && fgets(buf, (int)len, f)) {
		fclose(f);
		buf[strcspn(buf, "\n")] = 0;
		if (buf[0])
			return buf;
	} else if (f) {
		fclose(f);
	}
	return base ? base + 1 : region;
}

/*
 * The packets of a dead consumer's queue file, moved aside to @dead: into
 * @out before any of the ring's (its recorder took them from the ring, so
 * the ring goes on after them), its trace cut back as `recover` would.
 * Taken whole, the file is removed; refused, it stays where it is, named.
 */
static void take_dead_queue(const struct opts *o, struct rtr_session *s, struct rtr_out *out,
			    const char *dead, const char *qpath)
{
	struct rtr_qfile_report q = { 0 };
	char qerr[600] = "";
	int ret = rtr_qfile_recover(dead, s, out, &q, qerr, sizeof(qerr));

	if (!o->quiet || qerr[0])
		region_report_dead_queue(o->cmd, &q, qpath, qerr);
	if (!ret && !qerr[0] && !rtr_out_failed(out)) {
		unlink(dead);
		if (!o->quiet && q.found)
			fprintf(stderr, "%s: a dead consumer's, taken, and removed\n", qpath);
	} else {
		fprintf(stderr, "ringtrace %s: the dead consumer's queue file is kept as %s\n",
			o->cmd, dead);
	}
	rtr_qfile_report_free(&q);
}

int rtr_cmd_consume(int argc, char **argv)
{
	struct opts o = { 0 };
	struct rtr_session s;
	struct rtr_out *out;
	struct rtr_out_report orep;
	struct consume_state cs = { &s };
	char err[700], qpath[PATH_MAX + 8], dead[PATH_MAX + 40] = "", comm[64];
	/* volatile: read after a siglongjmp() back to the sigsetjmp() below */
	volatile bool failed = false, out_closed = false;
	bool gone, said;
	int ret;

	ret = region_parse(&o, argc, argv, false);
	if (ret >= 0)
		return ret;
	cli_catch_signals();
	if (!strcmp(o.region, "-"))
		return consume_stream(&o);
	for (int tries = 0;; tries++) {
		ret = rtr_session_open(&s, o.region, err, sizeof(err));
		if (ret != -EAGAIN || tries > 250)
			break;
		usleep(20000);
	}
	if (ret) {
		fprintf(stderr, "ringtrace consume: %s\n", err);
		return 1;
	}
	if (o.out.buffer_size && o.out.buffer_size < 2ull * rtr_consumer_region(s.c)->packet_size) {
		fprintf(stderr, "ringtrace consume: --buffer-size must hold two of the region's "
			"%u-byte packets at least, or be 0\n", rtr_consumer_region(s.c)->packet_size);
		rtr_session_close(&s);
		return 2;
	}
	/* The write-behind queue's file, beside the region: what it holds survives us. */
	region_queue_path(o.region, qpath, sizeof(qpath));
	o.out.queue_path = qpath;
	/*
	 * A dead consumer's queue file there (killed, say, while the producer
	 * runs on, as a Xen guest does): moved aside, so that ours takes its
	 * place, and its packets written first, before the ring's.
	 */
	{
		struct rtr_qfile_info qi;

		if (rtr_qfile_look(qpath, &qi) == 0 && !qi.running) {
			snprintf(dead, sizeof(dead), "%s.taken-%d", qpath, (int)getpid());
			if (rename(qpath, dead) < 0)
				dead[0] = 0;	/* another took it first */
		}
	}
	{
		char qdir[PATH_MAX + 8];
		char *slash;
		struct statvfs sv;

		/* The ring is there already: half of what is free may be reserved at once. */
		snprintf(qdir, sizeof(qdir), "%s", qpath);
		slash = strrchr(qdir, '/');
		if (slash)
			slash[slash == qdir] = 0;
		if (statvfs(slash ? qdir : ".", &sv) == 0)
			o.out.queue_reserve = (uint64_t)sv.f_bavail * sv.f_frsize / 2;
	}
	/* With -o net://, the relayd's session is named after the program. */
	o.out.program = producer_name(&s, comm, sizeof(comm), o.region);
	o.out.ncpus = s.ncpus;
	o.out.live_timer_us = o.flush_ns / 1000 > UINT32_MAX ? UINT32_MAX :
			      (uint32_t)(o.flush_ns / 1000);
	ret = rtr_out_open(&out, &o.out, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "ringtrace consume: %s\n", err);
		rtr_session_close(&s);
		return 1;
	}
	if (!o.quiet)
		fprintf(stderr, "ringtrace consume: %s (pid %d) -> %s%s%s; stop with Ctrl-C\n",
			o.region, (int)s.producer, o.out.path,
			rtr_out_report(out)->net_session[0] ? ", session " : "",
			rtr_out_report(out)->net_session);
	/* Every read of the region, to the last, under the SIGBUS jump. */
	if (sigsetjmp(cli_bus_jmp, 1)) {
		cli_bus_message(o.cmd, o.region);
		if (!out_closed)
			rtr_out_close(out, false, &orep);
		if (!o.quiet)
			region_report(&s, o.out.path);
		rtr_session_close(&s);
		return 1;
	}
	cli_bus_armed = 1;
	if (dead[0])
		take_dead_queue(&o, &s, out, dead, qpath);
	failed = region_consume_loop(&o, &s, out, consume_done, &cs) != 0;
	said = failed;
	gone = rtr_session_producer_gone(&s);
	if (gone && !o.quiet && !rtr_consumer_stopped(s.c) && rtr_consumer_gone_why(s.c))
		fprintf(stderr, "ringtrace consume: %s: %s\n", o.region, rtr_consumer_gone_why(s.c));
	if (!failed && gone) {
		failed = rtr_session_finish(&s, out) != 0;
	} else if (!failed) {
		/* Interrupted, the producer running: its open packets, closed now. */
		if (rtr_consumer_open_packets(s.c) && rtr_consumer_flush(s.c, 1000) == 0)
			failed = rtr_session_drain(&s, out) < 0;
	}
	out_closed = true;
	if (rtr_out_close(out, !failed && gone, &orep))
		failed = true;
	/* The queue's writer failed once the loop was over: say it now. */
	if (failed && !said)
		region_stopped_writing(&o, orep.err);
	cli_bus_armed = 0;
	if (!o.quiet)
		region_report(&s, o.out.path);
	if (!o.quiet)
		region_report_queue(&orep, qpath);
	if (!o.quiet)
		region_report_net(&orep);
	if (failed)
		fprintf(stderr, "ringtrace consume: %s\n", orep.err);
	rtr_session_close(&s);
	return failed ? 1 : 0;
}
