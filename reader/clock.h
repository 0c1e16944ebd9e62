/* SPDX-License-Identifier: MIT */
/*
 * reader/clock.h - a trace clock's cycles as wall-clock time: seconds since
 * the epoch (floor) and nanoseconds, exactly as CTF defines it
 * (ns = offset_s * 1e9 + (offset + cycles) * 1e9 / freq, rounded down),
 * for any frequency and offset in the metadata, without overflow.
 *
 * The fast path is inline: the second that starts at @base is cached, so a
 * trace read in time order costs a subtraction and a multiplication per
 * event; tr_clock_second() recomputes it when the second changes.
 */
#ifndef RTR_READER_CLOCK_H
#define RTR_READER_CLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include "reader/tsdl.h"

struct tr_clock {
	uint64_t freq;
	int64_t offset_s;
	uint64_t offset;
	double scale;		/* 1e9 / freq */
	/* cache: the second that starts at @base (offset + cycles) */
	unsigned __int128 base;
	int64_t sec;
	bool valid;
	/* @base less the offset, in cycles, when it fits (@c64): the test in 64 bits */
	bool c64;
	uint64_t cbase;
	bool small;		/* freq * 1e9 fits in 64 bits */
};

/* The clock of the trace whose metadata is @md. */
void tr_clock_init(struct tr_clock *k, const struct tr_metadata *md);
/* The slow half of tr_clock_ns(): the second @t (offset + cycles) falls in. */
void tr_clock_second(struct tr_clock *k, unsigned __int128 t);

/* ns = offset_s * 1e9 + (offset + cycles) * 1e9 / freq, exactly (floor). */
static inline void tr_clock_ns(struct tr_clock *k, uint64_t cycles, int64_t *sec, uint32_t *nsec)
{
	uint64_t rem, q;

	if (__builtin_expect(k->c64 && cycles >= k->cbase && cycles - k->cbase < k->freq, 1)) {
		rem = cycles - k->cbase;
	} else {
		unsigned __int128 t = (unsigned __int128)k->offset + cycles;

		if (!k->valid || t < k->base || t - k->base >= k->freq)
			tr_clock_second(k, t);
		rem = (uint64_t)(t - k->base);	/* < freq */
	}
	if (k->freq == 1000000000u) {
		q = rem;
	} else if (k->small) {
		/* rem * 1e9 fits in 64 bits: estimate, then correct by one */
		uint64_t num = rem * 1000000000u;

		q = (uint64_t)((double)rem * k->scale);
		if (q > 999999999u)
			q = 999999999u;
		while (q && q * k->freq > num)
			q--;
		while (num - q * k->freq >= k->freq)
			q++;
	} else {
		unsigned __int128 num = (unsigned __int128)rem * 1000000000u;

		q = (uint64_t)((double)rem * k->scale);
		if (q > 999999999u)
			q = 999999999u;
		while (q && (unsigned __int128)q * k->freq > num)
			q--;
		while ((unsigned __int128)(q + 1) * k->freq <= num)
			q++;
	}
	*sec = k->sec;
	*nsec = (uint32_t)q;
}

#endif /* RTR_READER_CLOCK_H */
