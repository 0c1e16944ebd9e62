/* SPDX-License-Identifier: MIT */
/* consumer/convert.h - a region file to a CTF trace directory. */
#ifndef RTR_CONSUMER_CONVERT_H
#define RTR_CONSUMER_CONVERT_H

#include <stdbool.h>
#include <stdint.h>

/**
 * struct rtr_convert_report - what rtr_convert() did.
 * @err: why it failed, naming the file.
 * @registry_err: set when the region's registry was damaged: the trace was
 *                written without counter names.
 */
struct rtr_convert_report {
	uint32_t ncpus;
	uint64_t packets;
	uint64_t salvaged;	/* open packets taken up to their last record */
	uint64_t bytes;
	uint64_t lost_packets;	/* overwritten or damaged, before delivered ones */
	uint64_t damaged;
	uint64_t events_lost;	/* the producer's count, all streams */
	bool producer_gone;
	char err[512];
	char registry_err[160];
	char queue_err[700];	/* the dead recorder's queue could not be taken: why */
};

/*
 * rtr_convert() - write the trace held in @region into the new directory
 * @dir (created 0700; an existing one is an error).  The open packets are
 * salvaged only when the producer has stopped or is dead.
 * Return: 0, or -errno with @rep->err set.
 */
int rtr_convert(const char *region, const char *dir, struct rtr_convert_report *rep);

struct rtr_out_opts;
struct rtr_session;

/*
 * rtr_convert_session() - the same, to the output @opts, leaving the session
 * @s open on success (and on output errors) for a detailed report; the
 * caller closes it if @s->c is set.
 */
int rtr_convert_session(const char *region, const struct rtr_out_opts *opts,
			struct rtr_session *s, struct rtr_convert_report *rep);

struct rtr_qfile_report;

/*
 * rtr_recover_session() - rtr_convert_session() after a recorder's death:
 * the packets its write-behind queue file @queue (if there is one) holds
 * and its trace lacks go first (consumer/qfile.h, @qrep), then the ring's.
 */
int rtr_recover_session(const char *region, const char *queue, const struct rtr_out_opts *opts,
			struct rtr_session *s, struct rtr_convert_report *rep,
			struct rtr_qfile_report *qrep);

#endif /* RTR_CONSUMER_CONVERT_H */
