/* SPDX-License-Identifier: MIT */
/*
 * tests/xen/verify.h - read back traces of ringtrace-test-emit (emit.h) and
 * hold every event to account: its checksum, its thread and sequence
 * number, seen once, in order within its stream; and count what the trace
 * says was lost.  Failures are Criterion assertions.
 */
#ifndef RTR_TESTS_XEN_VERIFY_H
#define RTR_TESTS_XEN_VERIFY_H

#include <stdbool.h>
#include <stdint.h>
#include "tests/consumer/emit.h"

#define XV_MAXCPU 256

/* What one trace (or all of them) holds. */
struct xv_counts {
	uint64_t present;	/* emit events */
	uint64_t other;		/* events of other classes */
	uint64_t lost_events;	/* as the trace reports them */
	uint64_t lost_packets;
	uint64_t packets;
	uint64_t digest;	/* sum of the check fields, for babeltrace2 */
};

struct xv {
	uint32_t nthreads;
	uint64_t cap;				/* sequence numbers emitted per thread, at most */
	uint8_t *seen[EMIT_MAX_THREADS];
	uint64_t last[XV_MAXCPU][EMIT_MAX_THREADS];	/* seq + 1 of the last one; 0: none */
	uint64_t per_thread[EMIT_MAX_THREADS];
	struct xv_counts all;
};

void xv_init(struct xv *v, uint32_t nthreads, uint64_t cap);
void xv_free(struct xv *v);

/* Read the trace @dir, check it, add it to @v; its own counts in @one. */
void xv_read(struct xv *v, const char *dir, struct xv_counts *one);

/*
 * babeltrace2 reads @dir and finds the events and digest @one says;
 * @mid_stream: the trace starts after a consumer that stopped.
 */
void xv_bt2_agrees(const char *dir, const struct xv_counts *one, bool mid_stream);

#endif /* RTR_TESTS_XEN_VERIFY_H */
