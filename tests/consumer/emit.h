/* SPDX-License-Identifier: MIT */
/*
 * tests/consumer/emit.h - what ringtrace-test-emit writes, for the tests that
 * read it back: one typed event rtrtest:ev (thread, cpu, seq, check) per
 * call, check = emit_checksum(thread, seq).
 */
#ifndef RTR_TESTS_EMIT_H
#define RTR_TESTS_EMIT_H

#include <stdint.h>
#include "examples/stress/harness.h"

#define EMIT_EVENT_NAME "rtrtest:ev"
#define EMIT_PAYLOAD_SIZE 24	/* u32 thread, u32 cpu, u64 seq, u64 check */
#define EMIT_MAX_THREADS 64
#define EMIT_NO_CPU 0xffffffffu	/* the thread is not pinned */

/* The stress harness's checksum: tests/consumer/bt2_emit.py checks it with the same code. */
static inline uint64_t emit_checksum(uint32_t thread, uint64_t seq)
{
	return stress_checksum(thread, seq);
}

#endif /* RTR_TESTS_EMIT_H */
