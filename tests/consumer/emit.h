/* SPDX-License-Identifier: MIT */
/*
 * tests/consumer/emit.h - what ringtrace-test-emit writes, for the tests that
 * read it back: one typed event rtrtest:ev (thread, cpu, seq, check) per
 * call, check = emit_checksum(thread, seq).
 */
#ifndef RTR_TESTS_EMIT_H
#define RTR_TESTS_EMIT_H

#include <stdint.h>

#define EMIT_EVENT_NAME "rtrtest:ev"
#define EMIT_PAYLOAD_SIZE 24	/* u32 thread, u32 cpu, u64 seq, u64 check */
#define EMIT_MAX_THREADS 64
#define EMIT_NO_CPU 0xffffffffu	/* the thread is not pinned */

static inline uint64_t emit_checksum(uint32_t thread, uint64_t seq)
{
	uint64_t x = ((uint64_t)thread << 40) ^ seq ^ 0x9E3779B97F4A7C15ull;

	x ^= x >> 31;
	x *= 0xBF58476D1CE4E5B9ull;
	x ^= x >> 27;
	return x;
}

#endif /* RTR_TESTS_EMIT_H */
