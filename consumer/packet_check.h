/* SPDX-License-Identifier: MIT */
/*
 * consumer/packet_check.h - the checks a packet header must pass before a
 * consumer writes it, whether it comes from a region (consumer.c) or from a
 * framed stream (stream_in.c): one copy of the rules, the bounds of
 * <ringtrace/region.h> included.
 */
#ifndef RTR_CONSUMER_PACKET_CHECK_H
#define RTR_CONSUMER_PACKET_CHECK_H

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

#endif /* RTR_CONSUMER_PACKET_CHECK_H */
