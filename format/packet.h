/* SPDX-License-Identifier: MIT */
/*
 * format/packet.h - the checks a packet header must pass before it is
 * written or spooled, whether it comes from a region (consumer/consumer.c),
 * a dead recorder's queue (consumer/qfile.c) or a framed stream
 * (format/frames.c): one copy of the rules, the bounds of
 * <ringtrace/region.h> included.
 */
#ifndef RTR_FORMAT_PACKET_H
#define RTR_FORMAT_PACKET_H

#include <stdint.h>
#include <ringtrace/region.h>

/**
 * struct rtr_packet_rules - what a packet of a stream must agree with.
 * @cpu: the stream.  @max_bytes: the most bytes it may have (header
 * included).  @freq, @base_ns: the trace clock (@freq 0: not known, the
 * timestamps are not converted).  @prev_discarded: events_discarded of the
 * stream's previous packet (0 before the first).
 */
struct rtr_packet_rules {
	uint32_t cpu;
	uint64_t max_bytes;
	uint64_t freq;
	int64_t base_ns;
	uint64_t prev_discarded;
};

/* Return: NULL if @p passes, else why not (a static string). */
const char *rtr_packet_check(const struct rtr_packet_hdr *p, const struct rtr_packet_rules *r);

#endif /* RTR_FORMAT_PACKET_H */
