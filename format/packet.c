// SPDX-License-Identifier: MIT
/*
 * format/packet.c - the checks of a ringtrace packet header (format/packet.h).
 */
#include <stddef.h>
#include "format/classes.h"
#include "format/ctf.h"
#include "format/packet.h"
#include <ringtrace/region.h>

const char *rtr_packet_check(const struct rtr_packet_hdr *p, const struct rtr_packet_rules *r)
{
	if (p->magic != RTR_CTF_MAGIC)
		return "bad magic";
	/* a stream of the kernel's records (record --sched): RTR_KSTREAM_BASE + the CPU */
	if (p->stream_instance_id != r->cpu ||
	    (p->cpu_id != r->cpu &&
	     (r->cpu < RTR_KSTREAM_BASE || p->cpu_id != r->cpu - RTR_KSTREAM_BASE)))
		return "wrong stream";
	if (p->content_size % 8 || p->content_size < (uint64_t)RTR_PACKET_HDR_SIZE * 8 ||
	    p->content_size > r->max_bytes * 8)
		return "bad content_size";
	if (p->packet_size != p->content_size)
		return "packet_size differs from content_size";
	if (p->timestamp_end < p->timestamp_begin)
		return "timestamp_end before timestamp_begin";
	if (r->freq && !rtr_ts_fits(r->freq, r->base_ns, p->timestamp_end))
		return "timestamp_end is not a time (it overflows when converted to ns)";
	if (p->events_discarded > RTR_LOST_MAX)
		return "events_discarded beyond any producer's count";
	if (p->events_discarded < r->prev_discarded)
		return "events_discarded below the previous packet's";
	return NULL;
}
