// SPDX-License-Identifier: MIT
/*
 * format/frames.c - read the framed stream of `-o -` (format/stream.h) and
 * give what it carries to a sink: the consumer's output for `ringtrace
 * consume - -o DIR` (consumer/stream_in.c), the reader's spool for every
 * tool that reads '-' (reader/spool.c).  The stream comes from another
 * machine or program: every length is checked before anything is
 * allocated or read, every packet header before it is given on.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <endian.h>
#include "format/ctf.h"
#include "format/packet.h"
#include "format/stream.h"
#include "platform/compiler.h"
#include <ringtrace/region.h>

/* In the env of every ringtrace trace's metadata (events/metadata.c). */
#define OWN_TRACER RTR_CTF_TRACER_LINE

/*
 * Read exactly @n bytes.  Return: 1, 0 at a clean end (nothing read),
 * -EINTR once *@stop is set (a signal handler sets it; the read it cuts
 * short returns EINTR), -errno.
 */
static int read_full(int fd, void *buf, size_t n, const volatile sig_atomic_t *stop)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r;

		if (stop && *stop)
			return -EINTR;
		r = read(fd, (uint8_t *)buf + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return got ? -EPIPE : 0;
		got += (size_t)r;
	}
	return 1;
}

/* What a stream's previous packet said: the next one must follow it. */
struct stream_pos {
	bool seen;
	uint64_t seq;
	uint64_t ts_end;
	uint64_t discarded;
};

/*
 * check_frame() - NULL if the packet in @buf (@len bytes) of stream @cpu
 * follows the stream's previous one, and note it; else why not.
 */
static const char *check_frame(struct stream_pos **pos, uint32_t *npos, uint32_t cpu,
			       const uint8_t *buf, uint64_t len)
{
	struct rtr_packet_hdr p;
	struct rtr_packet_rules r = { .cpu = cpu, .max_bytes = len };
	struct stream_pos *sp;
	const char *why;

	if (cpu >= *npos) {
		uint32_t n = cpu + 1 > 2 * *npos ? cpu + 1 : 2 * *npos;
		struct stream_pos *np = realloc(*pos, n * sizeof(*np));

		if (!np)
			return "out of memory";
		memset(np + *npos, 0, (n - *npos) * sizeof(*np));
		*pos = np;
		*npos = n;
	}
	sp = &(*pos)[cpu];
	memcpy(&p, buf, sizeof(p));
	r.prev_discarded = sp->discarded;
	why = rtr_packet_check(&p, &r);
	if (!why && p.content_size / 8 != len)
		why = "content_size differs from the frame's length";
	if (!why && sp->seen && p.packet_seq_num <= sp->seq)
		why = "packet_seq_num does not follow the stream's previous packet";
	if (!why && sp->seen && p.timestamp_begin < sp->ts_end)
		why = "timestamp_begin before the stream's previous packet's end";
	if (why)
		return why;
	sp->seen = true;
	sp->seq = p.packet_seq_num;
	sp->ts_end = p.timestamp_end;
	sp->discarded = p.events_discarded;
	return NULL;
}

int rtr_frames_copy(int fd, const struct rtr_frame_sink *o, const volatile sig_atomic_t *stop,
		    struct rtr_stream_report *rep)
{
	struct stream_pos *pos = NULL;
	uint32_t npos = 0;
	uint8_t pro[RTR_STREAM_PROLOGUE], hdr[RTR_FRAME_HDR];
	uint8_t *buf = NULL;
	size_t cap = 0;
	bool have_md = false, foreign = false;
	uint32_t version;
	int ret;

	memset(rep, 0, sizeof(*rep));
	ret = read_full(fd, pro, sizeof(pro), stop);
	if (ret <= 0) {
		snprintf(rep->err, sizeof(rep->err), "%s%s",
			 ret == -EINTR ? "interrupted before" : "standard input: ",
			 ret == -EINTR ? " the stream began" :
			 ret == -EPIPE ? "too short to be a ringtrace stream" :
			 ret ? strerror(-ret) : "empty, not a ringtrace stream");
		return ret ? ret : -EPROTO;
	}
	if (memcmp(pro, RTR_STREAM_MAGIC, 8)) {
		snprintf(rep->err, sizeof(rep->err), "standard input: not a ringtrace stream "
			 "(no RTRSTRM prologue; a trace directory is read by its path)");
		return -EPROTO;
	}
	memcpy(&version, pro + 8, 4);
	if (le32toh(version) != RTR_STREAM_VERSION) {
		snprintf(rep->err, sizeof(rep->err), "standard input: stream version %u, this "
			 "reader knows %u", le32toh(version), RTR_STREAM_VERSION);
		return -EPROTO;
	}
	rep->bytes = sizeof(pro);	/* offsets in messages are the stream's own */
	for (;;) {
		uint32_t type, arg;
		uint64_t len, max;

		ret = read_full(fd, hdr, sizeof(hdr), stop);
		if (ret == 0) {
			snprintf(rep->err, sizeof(rep->err), "standard input: the stream was cut "
				 "after %" PRIu64 " bytes (no end frame): the writer died or the "
				 "connection broke", rep->bytes);
			ret = -EPIPE;
			break;
		}
		if (ret == -EPIPE) {
			snprintf(rep->err, sizeof(rep->err), "standard input: the stream was cut "
				 "inside a frame header at byte %" PRIu64, rep->bytes);
			break;
		}
		if (ret == -EINTR) {
			snprintf(rep->err, sizeof(rep->err), "interrupted after %" PRIu64
				 " bytes of standard input", rep->bytes);
			break;
		}
		if (ret < 0) {
			snprintf(rep->err, sizeof(rep->err), "standard input: %s after %" PRIu64
				 " bytes", strerror(-ret), rep->bytes);
			break;
		}
		memcpy(&type, hdr, 4);
		memcpy(&arg, hdr + 4, 4);
		memcpy(&len, hdr + 8, 8);
		type = le32toh(type);
		arg = le32toh(arg);
		len = le64toh(len);
		rep->bytes += sizeof(hdr);
		max = type == RTR_FRAME_METADATA ? RTR_FRAME_METADATA_MAX :
		      type == RTR_FRAME_PACKET ? RTR_FRAME_PACKET_MAX :
		      type == RTR_FRAME_PROGRESS ? 8 : 0;
		if (type < RTR_FRAME_METADATA || type > RTR_FRAME_END || len > max ||
		    (type == RTR_FRAME_METADATA && !len) ||	/* no writer sends none */
		    (type == RTR_FRAME_PROGRESS && len != 8) ||
		    (type == RTR_FRAME_PACKET && (len < RTR_PACKET_HDR_SIZE || arg > 65535))) {
			snprintf(rep->err, sizeof(rep->err), "standard input: bad frame at byte %"
				 PRIu64 " (type %u, %" PRIu64 " bytes, arg %u)", rep->bytes - 16,
				 type, len, arg);
			ret = -EPROTO;
			break;
		}
		if (len > cap) {
			uint8_t *nb = realloc(buf, len);

			if (!nb) {
				ret = -ENOMEM;
				snprintf(rep->err, sizeof(rep->err), "out of memory");
				break;
			}
			buf = nb;
			cap = len;
		}
		if (len && (ret = read_full(fd, buf, len, stop)) != 1) {
			if (ret == -EINTR)
				snprintf(rep->err, sizeof(rep->err), "interrupted after %" PRIu64
					 " bytes of standard input", rep->bytes);
			else
				snprintf(rep->err, sizeof(rep->err), "standard input: the stream was "
					 "cut inside a frame at byte %" PRIu64, rep->bytes);
			ret = ret ? ret : -EPIPE;
			break;
		}
		rep->bytes += len;
		if (type == RTR_FRAME_END) {
			rep->ended = true;
			rep->writer_stopped_early = arg != 0;
			ret = 0;
			break;
		}
		if (type == RTR_FRAME_METADATA) {
			ret = o->metadata(o->ctx, (const char *)buf, len);
			/*
			 * Another tracer's trace (an LTTng session read live from
			 * a relayd, reader/live.c): its packets are not ours to
			 * check here; the reader checks them as any CTF trace's.
			 */
			if (!have_md)
				foreign = !memmem(buf, len, OWN_TRACER, strlen(OWN_TRACER));
			have_md = true;
		} else if (type == RTR_FRAME_PACKET) {
			if (!have_md) {
				snprintf(rep->err, sizeof(rep->err), "standard input: a packet before "
					 "the metadata at byte %" PRIu64, rep->bytes - len - 16);
				ret = -EPROTO;
				break;
			}
			const char *why = foreign ? NULL : check_frame(&pos, &npos, arg, buf, len);

			if (why) {
				/* Not written: the trace stays readable; the end reports it. */
				if (!rep->damaged++)
					snprintf(rep->damage, sizeof(rep->damage), "cpu %u, byte %"
						 PRIu64 ": %s", arg, rep->bytes - len - 16, why);
				continue;
			}
			ret = o->packet(o->ctx, arg, buf, len);
			rep->packets++;
		} else {
			uint64_t w;

			memcpy(&w, buf, 8);
			ret = o->progress(o->ctx, le64toh(w));
		}
		if (ret) {
			snprintf(rep->err, sizeof(rep->err), "%s", o->error(o->ctx));
			break;
		}
	}
	free(buf);
	free(pos);
	if (!ret && rep->damaged) {
		snprintf(rep->err, sizeof(rep->err), "standard input: %" PRIu64 " damaged packet%s "
			 "not copied (the first: %s)", rep->damaged, rep->damaged == 1 ? "" : "s",
			 rep->damage);
		ret = -EPROTO;
	}
	return ret;
}
