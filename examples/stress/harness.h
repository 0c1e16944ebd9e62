/* SPDX-License-Identifier: MIT */
/*
 * examples/stress/harness.h - many writers against a consumer in another
 * process, then a check of every event.  Used by `make demo`
 * (ringtrace-stress) and by tests/stress/.
 *
 * Each event carries (writer, seq, checksum).  Writers remember where each
 * event went (stream and packet, or dropped), run-length encoded; the
 * consumer process writes the packets it takes to one file per stream; the
 * verifier then proves: no event torn or duplicated, each in the very packet
 * its writer committed it to, per-writer order within each stream, every
 * missing event inside a packet the stream's sequence numbers show as lost,
 * and per stream the dropped events equal the trace's events_discarded.
 */
#ifndef RTR_STRESS_HARNESS_H
#define RTR_STRESS_HARNESS_H

#include <stdbool.h>
#include <stdint.h>

#define STRESS_EVENT_ID	1u

/*
 * stress_checksum() - the check field of a writer's event @seq (a 64-bit
 * mix): what a torn or misplaced record fails.  The consumer tests'
 * programs (tests/consumer/emit.h) and tests/interop/bt2_read.py use it too.
 */
static inline uint64_t stress_checksum(uint32_t writer, uint64_t seq)
{
	uint64_t x = ((uint64_t)writer << 40) ^ seq ^ 0x9e3779b97f4a7c15ull;

	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	return x;
}

struct stress_cfg {
	const char *dir;		/* work directory: region file and streams */
	uint32_t mode;			/* RTR_MODE_* */
	uint32_t packet_size;
	uint32_t packets;
	uint32_t writers;
	double seconds;			/* run time limit */
	uint64_t max_events;		/* per writer, 0: no limit */
	uint32_t consumer_delay_us;	/* per packet: a slow consumer forces loss */
	bool portable;			/* force the portable (locked) path */
	bool quiet;
};

struct stress_result {
	uint64_t written;		/* committed by writers */
	uint64_t dropped;		/* refused by the ring (counted losses) */
	uint64_t received;		/* events found in the stream files */
	uint64_t in_lost_packets;	/* committed into packets the consumer never got */
	uint64_t packets;		/* packets in the stream files */
	uint64_t lost_packets;		/* packet_seq_num gaps */
	uint64_t lost_first_packets;	/* of which before each stream's first packet */
	uint64_t events_discarded;	/* sum over streams of the final count */
	uint64_t bytes;
	double seconds;
	double ns_per_event;		/* writer CPU time per event attempt */
	bool used_rseq;
	bool ok;
	char why[512];			/* the first problem found */
};

int stress_run(const struct stress_cfg *cfg, struct stress_result *res);
void stress_print(const struct stress_cfg *cfg, const struct stress_result *res);

#endif /* RTR_STRESS_HARNESS_H */
