// SPDX-License-Identifier: MIT
/*
 * consumer/convert.c - a region file to a CTF trace directory, in one pass
 * of the consumer loop (session.c): the metadata, every complete packet of
 * every CPU, and the open packets' committed prefixes when the producer has
 * stopped or died.  `ringtrace convert` and `ringtrace recover` run it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "consumer/convert.h"
#include "consumer/qfile.h"
#include "consumer/session.h"

int rtr_convert_session(const char *region, const struct rtr_out_opts *opts,
			struct rtr_session *s, struct rtr_convert_report *rep)
{
	return rtr_recover_session(region, NULL, opts, s, rep, NULL);
}

int rtr_recover_session(const char *region, const char *queue, const struct rtr_out_opts *opts,
			struct rtr_session *s, struct rtr_convert_report *rep,
			struct rtr_qfile_report *qrep)
{
	struct rtr_session_cpu t;
	struct rtr_out_report orep;
	struct rtr_out *o;
	int ret;

	memset(rep, 0, sizeof(*rep));
	ret = rtr_session_open(s, region, rep->err, sizeof(rep->err));
	if (ret)
		return ret;
	ret = rtr_out_open(&o, opts, rep->err, sizeof(rep->err));
	if (ret) {
		rtr_session_close(s);
		return ret;
	}
	/* Read-only: run it again, the same trace comes out (after a full disk, say). */
	rtr_consumer_read_only(s->c);
	rep->producer_gone = rtr_session_producer_gone(s);
	rep->ncpus = s->ncpus;
	ret = rtr_session_metadata(s, o);
	/* A dead recorder's queue: its packets come before the ring's. */
	if (!ret && queue) {
		if (rtr_qfile_recover(queue, s, o, qrep, rep->queue_err, sizeof(rep->queue_err)) &&
		    rtr_out_failed(o))
			ret = -EIO;
	}
	/* Bounded: a producer still writing gets at most a few buffers' worth. */
	for (int pass = 0; pass < 64 && !ret; pass++) {
		long n = rtr_session_drain(s, o);

		if (n <= 0) {
			ret = (int)n;
			break;
		}
	}
	if (!ret && rep->producer_gone)
		ret = rtr_session_finish(s, o);
	if (rtr_out_close(o, !ret, &orep) && !ret)
		ret = -EIO;
	if (ret && orep.failed)
		snprintf(rep->err, sizeof(rep->err), "%s", orep.err);
	else if (ret)
		snprintf(rep->err, sizeof(rep->err), "%s: %s", opts->path, strerror(-ret));
	snprintf(rep->registry_err, sizeof(rep->registry_err), "%s", s->registry_err);
	rtr_session_totals(s, &t);
	rep->packets = t.packets;
	rep->salvaged = t.salvaged;
	rep->bytes = t.bytes;
	rep->lost_packets = t.lost_packets;
	rep->damaged = t.damaged;
	rep->events_lost = t.lost_events;
	return ret;
}

int rtr_convert(const char *region, const char *dir, struct rtr_convert_report *rep)
{
	struct rtr_out_opts opts = { .path = dir, .file_mode = 0600 };
	struct rtr_session s;
	int ret;

	ret = rtr_convert_session(region, &opts, &s, rep);
	if (s.c)
		rtr_session_close(&s);
	return ret;
}
