/* SPDX-License-Identifier: MIT */
/*
 * tools/region_cmd.h - what the commands that consume a region (record,
 * consume, snapshot, recover) share: their options, their help, the report
 * of what was written and lost per CPU, and the consumer loop.
 */
#ifndef RTR_TOOLS_REGION_CMD_H
#define RTR_TOOLS_REGION_CMD_H

#include <stdbool.h>
#include <stdint.h>
#include "consumer/output.h"

struct rtr_session;

/**
 * struct opts - a region command's options.
 * @cmd: the command's name.
 * @out: where the trace goes.
 * @mode: @packet_size: @packets: record's ring (0, NULL: the default).
 * @flush_ns: close quiet CPUs' packets this often (0: never).
 * @argv: record: the program.  @region: consume, snapshot, recover.
 * @preload: record --pthread: the library to preload ("" until found).
 * @live: the progress line is redrawn in place on stderr: a terminal that
 *	only this command writes to (consume's; not record's).
 */
struct opts {
	const char *cmd;
	struct rtr_out_opts out;
	const char *mode;
	uint64_t packet_size;
	uint64_t packets;
	uint64_t flush_ns;
	const char *blocking;	/* record: RINGTRACE_BLOCKING_TIMEOUT for the program, or NULL */
	char blocking_buf[32];
	bool keep_region;
	bool no_follow_forks;	/* record: RINGTRACE_FOLLOW_FORKS=0 for the program */
	bool quiet;
	bool live;
	char **argv;
	const char *region;
	char xen_region[96];	/* "xen:DOMAIN", from --xen-domain */
	const char *preload;
	int sched;		/* record --sched: 1, --no-sched: 0, neither: -1 (on with --pthread) */
	unsigned sample_hz;	/* record --sample[=HZ]: CPU samples a second, 0 for none */
	bool hold_times;	/* record --hold-times: RINGTRACE_PTHREAD_HOLD=1 for the program */
	int wait_ms;		/* the consumer loop wakes at least this often (0: 100 ms) */
	/* record --trigger EXPR (tools/trigger.h), --trigger-after T, --trigger-limit N */
	const char *trigger[8];
	unsigned ntrigger;
	uint64_t trigger_after_ns;
	unsigned trigger_limit;	/* snapshots a minute; 0 until given (then the default) */
};

/* "ringtrace CMD: " @fmt (with @arg), and where the help is, on stderr.  Return: 2. */
int region_usage_error(const struct opts *o, const char *fmt, const char *arg);

/*
 * region_parse() - the options every region command shares; @program: the
 * command runs a program (record).  Return: -1 to go on, else the exit
 * status (0 after --help, 2 after a usage error, said on stderr).
 */
int region_parse(struct opts *o, int argc, char **argv, bool program);

/* region_notices() - the session's warnings (rtr_session_notice()), on stderr. */
void region_notices(struct rtr_session *s);

/*
 * region_report() - what @s wrote and lost, per CPU, and its damage, on
 * stderr: the losses as the trace tells them (what `check` finds).
 */
void region_report(const struct rtr_session *s, const char *what);

/*
 * region_stopped_writing() - the output failed (@why): what that means for
 * the trace and the program, on stderr (the consumer loop says it as soon
 * as it sees it; its callers, when the queue's writer failed after it).
 */
void region_stopped_writing(const struct opts *o, const char *why);

struct rtr_qfile_report;

/*
 * region_report_dead_queue() - what `ringtrace @cmd` took from a dead
 * recorder's queue file @qpath (@q), and @err if it refused it.
 */
void region_report_dead_queue(const char *cmd, const struct rtr_qfile_report *q,
			      const char *qpath, const char *err);

/* region_report_queue() - the write-behind queue's figures, and what it held if the output failed. */
void region_report_queue(const struct rtr_out_report *r, const char *qpath);

/*
 * The write-behind queue's file of @region: REGION.queue beside it, or for
 * a Xen guest (xen:NAME) /dev/shm/ringtrace-xen-NAME.queue.
 */
void region_queue_path(const char *region, char *buf, size_t len);

/* region_report_net() - with -o net://: the relayd's outages it came back from. */
void region_report_net(const struct rtr_out_report *r);

/* The write-behind queue's default: a few seconds of a fast writer, a long stall of the disk. */
#define RTR_DEFAULT_BUFFER_SIZE (256ull << 20)

/*
 * region_consume_loop() - drain @s into @out until @done(@arg) says so, or
 * the output fails (then the consumer stops taking packets: the producer
 * drops and counts events).  The caller has armed the SIGBUS guard.
 * Return: 0, or -EIO if writing failed (said on stderr).
 */
int region_consume_loop(const struct opts *o, struct rtr_session *s, struct rtr_out *out,
			bool (*done)(void *), void *arg);

#endif /* RTR_TOOLS_REGION_CMD_H */
