// SPDX-License-Identifier: MIT
/*
 * tools/region_cmd.c - what the commands that consume a region share
 * (region_cmd.h): their options and help, the per-CPU report, the
 * progress line and the consumer loop.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <ringtrace/consumer.h>
#include <ringtrace/region.h>
#include "consumer/output.h"
#include "consumer/qfile.h"
#include "consumer/session.h"
#include "platform/platform.h"
#include "tools/cli.h"
#include "tools/region_cmd.h"

int region_usage_error(const struct opts *o, const char *fmt, const char *arg)
{
	fprintf(stderr, "ringtrace %s: ", o->cmd);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n(ringtrace %s --help)\n", o->cmd);
	return 2;
}

static const char *const help_text[] = {
	"record", "usage: ringtrace record [OPTIONS] [--] PROGRAM [ARGS]\n\n"
	"Run PROGRAM (linked with libringtrace) with a region of its own, consume the\n"
	"region while it runs, and report what was recorded and lost per CPU.\n\n"
	"  --pthread            trace PROGRAM's threads, locks, conditions, semaphores\n"
	"                       and barriers as tasks, without changing or rebuilding it:\n"
	"                       libringtrace-pthread.so is preloaded (LD_PRELOAD)\n"
	"  --hold-times         with --pthread: time each hold of a mutex (a clock read\n"
	"                       at each lock and unlock), so that `stats --locks` says\n"
	"                       how long the thread whose unlock ended a wait had held it\n"
	"  --sched              the kernel's view too (on with --pthread): each thread's\n"
	"                       context switches (in, blocked, preempted), forks, exits\n"
	"                       and names, from perf events of PROGRAM and what it\n"
	"                       starts, in the same trace on the same clock; where the\n"
	"                       kernel refuses perf events, said once, the rest recorded\n"
	"  --no-sched           not the kernel's view (with --pthread)\n"
	"  --sample[=HZ]        with the kernel's view (implies --sched), CPU samples of\n"
	"                       each thread's own code, HZ a second of its CPU time\n"
	"                       (default 999), with the callers the frame pointers give;\n"
	"                       `stats`, `export --format folded` and the viewer's\n"
	"                       flame graph show them\n"
	"  -o DIR               the trace directory (new; default ringtrace-DATE-TIME),\n"
	"                       or - for the framed stream on standard output, or\n"
	"                       net://HOST[:CTRL_PORT[:DATA_PORT]] for a live session on\n"
	"                       an lttng-relayd (ports 5342 and 5343 by default)\n"
	"  --mode discard       stream every packet to DIR (default); events are dropped,\n"
	"                       and counted, only when the buffer is full\n"
	"  --mode overwrite     flight recorder: the ring keeps the latest packets; a\n"
	"                       snapshot (SIGUSR1 to ringtrace, or `ringtrace snapshot`)\n"
	"                       and the end of the program write DIR/snapshot-NNNNNN\n"
	"  --trigger EXPR       overwrite mode: a snapshot, DIR/snapshot-NNNNNN-NAME, when\n"
	"                       the ring's records meet EXPR (up to 8 of them):\n"
	"                         slow(PATTERN) > TIME       a task labelled PATTERN\n"
	"                                                    (fnmatch; kind=K: of kind K)\n"
	"                                                    resolved or failed later\n"
	"                         unresolved(PATTERN) > TIME a should_resolve task still\n"
	"                                                    unresolved after TIME\n"
	"                         counter(NAME) > VALUE      the counter crosses VALUE\n"
	"                                                    (> >= < <=)\n"
	"                         event(NAME)[.FIELD OP V]   a typed event (NAME a\n"
	"                                                    pattern), its field tested\n"
	"                                                    (OP > >= < <= == !=; V a\n"
	"                                                    number or a \"pattern\")\n"
	"                       NAME=EXPR names it (default triggerN)\n"
	"  --trigger-after T    a trigger's snapshot waits T after it is met, to hold\n"
	"                       what follows too (default 0)\n"
	"  --trigger-limit N    at most N triggered snapshots a minute (default 10);\n"
	"                       the others are counted and said\n"
	"  --packet-size SIZE   bytes per packet, power of two (default 1M)\n"
	"  --packets N          packets per CPU, power of two (default 32 up to 8\n"
	"                       CPUs, then fewer: 256 MiB in all, at least 4 per CPU,\n"
	"                       and no more than /dev/shm has room for)\n"
	"  --rotate-size SIZE   new chunk DIR/chunk-NNNNNN every SIZE bytes (e.g. 1G)\n"
	"  --rotate-time TIME   new chunk every TIME (e.g. 10m, 1h)\n"
	"  --flush-interval T   close quiet CPUs' packets every T (default 1s; 0: never)\n"
	"  --blocking-timeout T discard mode: a thread that finds the ring full waits up\n"
	"                       to T for room (e.g. 100ms; inf: no limit) before it drops\n"
	"                       the event (default 0: it drops at once)\n"
	"  --buffer-size SIZE   the write-behind queue between the ring and the disk\n"
	"                       (default 256M; 0: write each packet as it is taken),\n"
	"                       the file REGION.queue: `recover` takes it if we die\n"
	"  --relayd-retry T     -o net://: after the relayd fails, try to reach it again\n"
	"                       for T (default 10s; 0: never), then go on as a new\n"
	"                       session, SESSION-rN; the packets made meanwhile wait\n"
	"                       in the queue, then are dropped and counted\n"
	"  --force              replace an existing trace directory\n"
	"  --file-mode OCTAL    mode of the files written (default 0600)\n"
	"  --keep-region        leave the region file when done\n"
	"  --no-follow-forks    PROGRAM's forked children do not trace (they are counted\n"
	"                       and named in the summary); by default they trace into\n"
	"                       the same trace, and record waits for every one to end\n"
	"  -q, --quiet          no progress line, no summary\n"
	"\nExit status: PROGRAM's (128+N if killed by signal N); 1 if the trace could not\n"
	"be written whole, 2 for a usage error.\n",
	"consume", "usage: ringtrace consume REGION|- -o DIR|-|net://HOST[:C[:D]] [OPTIONS]\n"
	"       ringtrace consume --xen-domain NAME|ID -o DIR|-|net://... [OPTIONS]\n\n"
	"Consume the region a program created itself (RINGTRACE_PATH, rtr_start()) until\n"
	"it stops or exits, or until SIGINT/SIGTERM; or, with '-', copy a framed stream\n"
	"from standard input (`ringtrace record -o -`) into DIR.  -o net://: as for\n"
	"record, a live session on an lttng-relayd.\n\n"
	"  --xen-domain D       in dom0: the region of Xen guest D (a name, as xl list\n"
	"                       shows it, or an id), traced with RINGTRACE_XEN=1\n"
	"  --rotate-size SIZE, --rotate-time TIME, --flush-interval T, --buffer-size SIZE,\n"
	"  --relayd-retry T, --force, --file-mode OCTAL, -q: as for record\n",
	"snapshot", "usage: ringtrace snapshot REGION|--xen-domain D -o DIR [--force] "
	"[--file-mode OCTAL]\n\n"
	"Write what an overwrite-mode ring holds now as the trace DIR, without stopping\n"
	"or slowing the program: per CPU its latest packets, the open one as far as it\n"
	"is written (N of N packets' worth).  A recorder takes one on SIGUSR1 too.\n"
	"--xen-domain D: the ring of Xen guest D (a name or an id), from dom0.\n",
	"recover", "usage: ringtrace recover REGION|--xen-domain D -o DIR [--force] "
	"[--file-mode OCTAL]\n\n"
	"Rebuild a trace from the region of a process that crashed or was killed: every\n"
	"complete packet, and each CPU's open packet up to its last committed event.\n"
	"Reports what could not be saved and why.  A region whose producer still runs\n"
	"is refused (use consume or snapshot).  A dead recorder's write-behind queue\n"
	"(REGION.queue) is taken first: the packets it had not written whole, its trace\n"
	"cut back to the packets before them; the file is then removed.  --xen-domain\n"
	"D: the region of Xen guest D (a name or an id), from dom0: a guest that\n"
	"crashed and was preserved (on_crash = 'preserve'); one that runs or is paused\n"
	"is refused.\n",
};

static void help(const char *cmd)
{
	for (size_t i = 0; i < sizeof(help_text) / sizeof(help_text[0]); i += 2)
		if (!strcmp(help_text[i], cmd))
			fputs(help_text[i + 1], stdout);
}

/* Parse the options every consumer command shares.  Return: -1 ok, else exit status. */
int region_parse(struct opts *o, int argc, char **argv, bool program)
{
	bool streaming = program || !strcmp(argv[0], "consume");

	o->cmd = argv[0];
	o->out.file_mode = 0600;
	/* Streaming to disk: O_DIRECT where the file system allows it. */
	o->out.direct = streaming;
	o->out.buffer_size = streaming ? RTR_DEFAULT_BUFFER_SIZE : 0;
	/* How the queue writes: the measured default, or one named (make bench compares them). */
	{
		const char *e = getenv("RINGTRACE_QUEUE_ENGINE");

		if (e && !strcmp(e, "threads"))
			o->out.engine = RTR_OUT_ENGINE_THREADS;
		else if (e && !strcmp(e, "uring"))
			o->out.engine = RTR_OUT_ENGINE_URING;
	}
	o->out.fd = STDOUT_FILENO;
	o->out.net_retry_ms = 10000;	/* -o net://: a relayd restarted within 10 s is waited for */
	o->flush_ns = 1000000000ull;
	o->sched = -1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		bool takes = true;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			help(o->cmd);
			return 0;
		}
		if (!strcmp(a, "--")) {
			if (!program)
				return region_usage_error(o, "unexpected '%s'", a);
			if (i + 1 >= argc)
				return region_usage_error(o, "no program after '%s'", a);
			o->argv = argv + i + 1;
			break;
		}
		if (a[0] != '-' || !strcmp(a, "-")) {
			if (program) {
				o->argv = argv + i;
				break;
			}
			if (o->region)
				return region_usage_error(o, o->region == o->xen_region ?
							  "unexpected argument '%s' (--xen-domain "
							  "names the region)" :
							  "unexpected argument '%s'", a);
			o->region = a;
			continue;
		}
		if (!strcmp(a, "--xen-domain") && !program) {
			if (!v || !*v)
				return region_usage_error(o, "option '%s' needs a domain name or id", a);
			if (o->region)
				return region_usage_error(o, "--xen-domain %s: a region is given already",
							  v);
			if (strlen(v) + 4 >= sizeof(o->xen_region))
				return region_usage_error(o, "--xen-domain %s: not a domain name", v);
			snprintf(o->xen_region, sizeof(o->xen_region), "xen:%s", v);
			o->region = o->xen_region;
			i++;
			continue;
		}
		if (!strcmp(a, "--force")) {
			o->out.force = true;
			takes = false;
		} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			o->quiet = true;
			takes = false;
		} else if (!strcmp(a, "--keep-region") && program) {
			o->keep_region = true;
			takes = false;
		} else if (!strcmp(a, "--pthread") && program) {
			o->preload = "";
			takes = false;
		} else if (!strcmp(a, "--sched") && program) {
			o->sched = 1;
			takes = false;
		} else if ((!strcmp(a, "--sample") || !strncmp(a, "--sample=", 9)) && program) {
			char *end;
			unsigned long hz = 999;

			if (a[8] == '=') {
				errno = 0;
				hz = strtoul(a + 9, &end, 10);
				if (errno || end == a + 9 || *end || !hz || hz > 100000)
					return region_usage_error(o, "%s: a rate from 1 to 100000 "
								  "samples a second", a);
			}
			o->sample_hz = (unsigned)hz;
			takes = false;
		} else if (!strcmp(a, "--hold-times") && program) {
			o->hold_times = true;
			takes = false;
		} else if (!strcmp(a, "--no-sched") && program) {
			o->sched = 0;
			takes = false;
		} else if (!strcmp(a, "--no-follow-forks") && program) {
			o->no_follow_forks = true;
			takes = false;
		}
		if (!takes)
			continue;
		if (!v)
			return region_usage_error(o, "option '%s' needs a value", a);
		i++;
		if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
			o->out.path = v;
		} else if (!strcmp(a, "--mode") && program) {
			if (strcmp(v, "discard") && strcmp(v, "overwrite"))
				return region_usage_error(o, "--mode %s: use discard or overwrite", v);
			o->mode = v;
		} else if (!strcmp(a, "--packet-size") && program) {
			if (cli_parse_size(v, &o->packet_size) ||
			    rtr_region_geometry_bad(o->packet_size, RTR_PACKETS_PER_CPU_MIN, 1))
				return region_usage_error(o, "--packet-size %s: a power of two from 4k "
							  "to 64M", v);
		} else if (!strcmp(a, "--blocking-timeout") && program) {
			uint64_t ns;

			if (!strcmp(v, "inf")) {
				o->blocking = "inf";
			} else if (cli_parse_time(v, &ns)) {
				return region_usage_error(o, "--blocking-timeout %s: a time like 100ms "
							  "or 2s, or inf", v);
			} else {
				snprintf(o->blocking_buf, sizeof(o->blocking_buf), "%llu",
					 (unsigned long long)(ns / 1000));
				o->blocking = o->blocking_buf;
			}
		} else if (!strcmp(a, "--trigger") && program) {
			if (o->ntrigger == sizeof(o->trigger) / sizeof(o->trigger[0]))
				return region_usage_error(o, "%s", "--trigger: at most 8 of them");
			o->trigger[o->ntrigger++] = v;
		} else if (!strcmp(a, "--trigger-after") && program) {
			if (cli_parse_time(v, &o->trigger_after_ns) || o->trigger_after_ns > 3600e9)
				return region_usage_error(o, "--trigger-after %s: a time like 100ms or "
							  "2s (at most 1h)", v);
		} else if (!strcmp(a, "--trigger-limit") && program) {
			char *end;
			unsigned long n = strtoul(v, &end, 10);

			if (*end || !*v || !n || n > 600)
				return region_usage_error(o, "--trigger-limit %s: snapshots a minute, "
							  "1 to 600", v);
			o->trigger_limit = (unsigned)n;
		} else if (!strcmp(a, "--packets") && program) {
			if (cli_parse_size(v, &o->packets) ||
			    rtr_region_geometry_bad(RTR_PACKET_SIZE_MIN, o->packets, 1))
				return region_usage_error(o, "--packets %s: a power of two from 2 to "
							  "65536", v);
		} else if (!streaming && (!strcmp(a, "--rotate-size") || !strcmp(a, "--rotate-time") ||
					  !strcmp(a, "--flush-interval") ||
					  !strcmp(a, "--buffer-size") || !strcmp(a, "--relayd-retry"))) {
			return region_usage_error(o, "%s is for record and consume", a);
		} else if (!strcmp(a, "--buffer-size")) {
			if (cli_parse_size(v, &o->out.buffer_size) || o->out.buffer_size > (1ull << 40))
				return region_usage_error(o, "--buffer-size %s: a size like 64M or 1G "
							  "(0: no queue)", v);
		} else if (!strcmp(a, "--rotate-size")) {
			if (cli_parse_size(v, &o->out.rotate_size) || !o->out.rotate_size)
				return region_usage_error(o, "--rotate-size %s: a size like 512M or 1G", v);
		} else if (!strcmp(a, "--rotate-time")) {
			if (cli_parse_time(v, &o->out.rotate_ns) || !o->out.rotate_ns)
				return region_usage_error(o, "--rotate-time %s: a time like 30s, 10m or 1h", v);
		} else if (!strcmp(a, "--relayd-retry")) {
			uint64_t ns;

			if (cli_parse_time(v, &ns))
				return region_usage_error(o, "--relayd-retry %s: a time like 10s or 1m "
							  "(0: never)", v);
			o->out.net_retry_ms = ns / 1000000;
		} else if (!strcmp(a, "--flush-interval")) {
			if (cli_parse_time(v, &o->flush_ns))
				return region_usage_error(o, "--flush-interval %s: a time like 1s or 200ms", v);
		} else if (!strcmp(a, "--file-mode")) {
			char *end;
			unsigned long m = strtoul(v, &end, 8);

			if (*end || !*v || m > 0666 || (m & 0600) != 0600)
				return region_usage_error(o, "--file-mode %s: octal, like 0600 or 0640 "
						   "(readable and writable by the owner)", v);
			o->out.file_mode = (mode_t)m;
		} else {
			return region_usage_error(o, "unknown option '%s'", a);
		}
	}
	if (program && !o->argv)
		return region_usage_error(o, "%s", "no program to run: ringtrace record [OPTIONS] -- PROGRAM");
	if (!program && !o->region)
		return region_usage_error(o, "%s", "no region given (a file, or --xen-domain D)");
	if (!o->out.path && !program)
		return region_usage_error(o, "%s", "no output given (-o DIR)");
	/*
	 * record's program writes to the same stderr (and with -o -, its stdout
	 * too): a line redrawn there with \r mixes with what the program prints.
	 * record says how it went at the end instead.
	 */
	o->live = !program && !o->quiet && isatty(STDERR_FILENO);
	return -1;
}

void region_notices(struct rtr_session *s)
{
	const char *notice;

	while ((notice = rtr_session_notice(s)))
		fprintf(stderr, "ringtrace: %s\n", notice);
}

void region_report(const struct rtr_session *s, const char *what)
{
	struct rtr_session_cpu t;
	char b[32];

	rtr_session_totals(s, &t);
	cli_human(b, sizeof(b), t.bytes);
	fprintf(stderr, "%s: %" PRIu64 " packets, %s", what, t.packets, b);
	if (t.salvaged)
		fprintf(stderr, " (%" PRIu64 " open packets salvaged)", t.salvaged);
	/* The trace's own counts: what `ringtrace check` finds in it. */
	fprintf(stderr, "; lost: %" PRIu64 " events, %" PRIu64 " packets\n", t.lost_events,
		t.lost_packets);
	if (t.lost_packets)
		fprintf(stderr, "(the events of lost packets are not counted: at most %" PRIu64
			" a packet)\n", rtr_session_max_events(s));
	fprintf(stderr, "%6s %10s %12s %9s %13s %13s %9s\n", "cpu", "packets", "bytes",
		"salvaged", "events lost", "packets lost", "damaged");
	for (uint32_t i = 0; i < s->ncpus; i++) {
		const struct rtr_session_cpu *a = &s->cpu[i];

		if (!a->packets && !a->lost_events && !a->lost_packets && !a->damaged)
			continue;
		cli_human(b, sizeof(b), a->bytes);
		fprintf(stderr, "%6u %10" PRIu64 " %12s %9" PRIu64 " %13" PRIu64 " %13" PRIu64
			" %9" PRIu64 "\n", i, a->packets, b, a->salvaged, a->lost_events,
			a->lost_packets, a->damaged);
	}
	for (uint64_t i = 0; i < s->damage_count && i < RTR_DAMAGE_LOG; i++)
		fprintf(stderr, "damaged: cpu %u packet %" PRIu64 ": %s\n", s->damage[i].cpu,
			s->damage[i].seq, s->damage[i].why);
	if (s->damage_count > RTR_DAMAGE_LOG)
		fprintf(stderr, "damaged: ... and %" PRIu64 " more\n",
			s->damage_count - RTR_DAMAGE_LOG);
	if (s->registry_err[0] && s->registry_kept)
		fprintf(stderr, "warning: the region's registry: %s; the trace keeps the names "
			"read before it was damaged\n", s->registry_err);
	else if (s->registry_err[0])
		fprintf(stderr, "warning: the region's registry: %s; counter and typed event "
			"names are missing from the trace\n", s->registry_err);
}

void region_report_dead_queue(const char *cmd, const struct rtr_qfile_report *q,
			      const char *qpath, const char *err)
{
	if (err[0])
		fprintf(stderr, "ringtrace %s: %s\n", cmd, err);
	if (!q->found)
		return;
	fprintf(stderr, "from the write-behind queue %s: %" PRIu64 " packets (%" PRIu64
		" bytes) its recorder had not written whole; %" PRIu64 " it held were on disk "
		"already\n", qpath, q->packets, q->bytes, q->on_disk);
	if (q->cut)
		fprintf(stderr, "  %" PRIu64 " stream file%s of %s cut back to the last packet "
			"written whole before them (the rest is in this trace)\n", q->cut,
			q->cut == 1 ? "" : "s", q->path);
	if (q->maybe_twice)
		fprintf(stderr, "  %" PRIu64 " packet%s being written to the recorder's stream (a "
			"pipe, or a relayd) when it died: in this trace, and also at the stream's "
			"end if the write ended\n", q->maybe_twice, q->maybe_twice == 1 ? " was" :
			"s were");
	if (q->warn[0])
		fprintf(stderr, "  %s\n", q->warn);
}

void region_report_queue(const struct rtr_out_report *r, const char *qpath)
{
	if (r->queue_peak) {
		char b[32];

		cli_human(b, sizeof(b), r->queue_peak);
		fprintf(stderr, "write-behind queue: %s at most (%s)%s\n", b,
			r->engine == RTR_OUT_ENGINE_URING ? "io_uring" : "writer threads",
			r->queue_full ? "; it was full at times: packets waited in the ring" :
			"");
	}
	if (r->queue_file_taken)
		fprintf(stderr, "the write-behind queue's file %s was there already (a dead "
			"recorder's? `ringtrace recover` takes it): it is left as it is, and this "
			"recorder's queue was memory, which would not have survived its death\n",
			qpath);
	if (r->queue_file_full)
		fprintf(stderr, "the write-behind queue's file %s found its file system full at "
			"times: packets waited in the ring, and %" PRIu64 " went through memory "
			"(a recorder killed then would have lost them)\n", qpath,
			r->queue_in_memory);
	if (r->kept)
		fprintf(stderr, "not written: %" PRIu64 " packets the write-behind queue held when "
			"writing stopped; they are kept in %s, and `ringtrace recover` takes them "
			"with the region\n", r->kept, qpath);
	if (r->unwritten)
		fprintf(stderr, "lost: %" PRIu64 " packets the write-behind queue held when writing "
			"stopped (they could not be kept: they show as packets lost)\n",
			r->unwritten);
}

void region_report_net(const struct rtr_out_report *r)
{
	if (!r->net_reconnects)
		return;
	fprintf(stderr, "lttng-relayd: reached again %u time%s after it failed (last: %s); the "
		"recording went on as session %s (the events made while it was away were kept "
		"in the queue, or dropped and counted)\n", r->net_reconnects,
		r->net_reconnects == 1 ? "" : "s", r->net_outage, r->net_session);
	if (r->net_resent)
		fprintf(stderr, "lttng-relayd: %" PRIu64 " packet%s it had not confirmed before it "
			"failed went again into session %s\n", r->net_resent,
			r->net_resent == 1 ? "" : "s", r->net_session);
}

void region_stopped_writing(const struct opts *o, const char *why)
{
	bool net = o->out.path && !strncmp(o->out.path, "net://", 6);

	fprintf(stderr, "%sringtrace %s: %s; stopped writing: what %s is a valid trace; "
		"the program goes on, its events are dropped and counted in the region\n",
		o->live ? "\n" : "", o->cmd, why,
		net ? "the relayd received before" : "is on disk");
}

/* The progress line on a terminal (@o->live), at most once a second. */
static void progress(const struct opts *o, const struct rtr_session *s, uint64_t *last,
		     uint64_t start)
{
	struct rtr_session_cpu t;
	uint64_t now = rtr_monotonic_ns();
	char b[32];

	if (!o->live || now - *last < 1000000000ull)
		return;
	*last = now;
	rtr_session_totals(s, &t);
	cli_human(b, sizeof(b), t.bytes);
	fprintf(stderr, "\rringtrace: %4" PRIu64 " s  %s  %" PRIu64 " packets  lost %" PRIu64
		" events  ", (uint64_t)((now - start) / 1000000000u), b, t.packets, t.lost_events);
}

/*
 * One consumer loop: until @done says so, or the output fails (then the
 * consumer stops taking packets; the producer drops and counts events).
 * The caller has armed the SIGBUS jump.
 */
int region_consume_loop(const struct opts *o, struct rtr_session *s, struct rtr_out *out,
			bool (*done)(void *), void *arg)
{
	uint64_t last = 0, start = rtr_monotonic_ns();
	bool failed = false;

	s->flush_ms = (int)(o->flush_ns / 1000000ull);
	if (o->flush_ns && !s->flush_ms)
		s->flush_ms = 1;
	for (;;) {
		int timeout;

		if (!failed) {
			/* The queue's writer may have failed with nothing more to take. */
			if (rtr_session_drain(s, out) < 0 || rtr_session_tick(s, out) < 0 ||
			    rtr_out_failed(out))
				failed = true;
			region_notices(s);
			if (failed)
				region_stopped_writing(o, rtr_out_report(out)->err);
		}
		progress(o, s, &last, start);
		if (done(arg))
			break;
		/*
		 * Wake at least every 100 ms (signals, the child), when the next
		 * flush is due (a wait of the whole interval, woken a little early
		 * by a packet, made it a whole interval late), and soon after a
		 * flush was asked for (its answer wakes no one here).
		 */
		timeout = rtr_session_wait_ms(s, 100);
		if (o->wait_ms > 0 && o->wait_ms < timeout)
			timeout = o->wait_ms;
		if (timeout < 1)
			timeout = 1;
		if (failed)
			usleep(100000);
		else if (s->out_full)
			rtr_out_wait(out, timeout);	/* the queue makes room; the ring holds on */
		else
			rtr_consumer_wait(s->c, timeout);
	}
	if (o->live && last)
		fputc('\n', stderr);
	return failed ? -EIO : 0;
}

void region_queue_path(const char *region, char *buf, size_t len)
{
	size_t n;

	if (strncmp(region, "xen:", 4)) {
		snprintf(buf, len, "%s.queue", region);
		return;
	}
	/* A Xen guest's region has no file: its queue goes where regions go. */
	n = (size_t)snprintf(buf, len, "/dev/shm/ringtrace-xen-");
	for (const char *c = region + 4; *c && n + 7 < len; c++)
		buf[n++] = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
			   (*c >= '0' && *c <= '9') || *c == '-' || *c == '.' ? *c : '_';
	snprintf(buf + n, len - n, ".queue");
}
