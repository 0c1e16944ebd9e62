// SPDX-License-Identifier: MIT
/* reader/clock.c - the slow half of the clock conversion (clock.h). */
#include <string.h>
#include "reader/clock.h"


void tr_clock_init(struct tr_clock *k, const struct tr_metadata *md)
{
	memset(k, 0, sizeof(*k));
	k->freq = md->freq;
	k->offset_s = md->offset_s;
	k->offset = md->offset;
	k->scale = 1e9 / (double)md->freq;
	k->small = md->freq <= UINT64_MAX / 1000000000u;
}

void tr_clock_second(struct tr_clock *k, unsigned __int128 t)
{
	unsigned __int128 s = t / k->freq;
	__int128 ss = (__int128)k->offset_s + (__int128)s;

	k->base = s * k->freq;
	k->sec = ss > INT64_MAX ? INT64_MAX : (int64_t)ss;
	k->valid = true;
	k->c64 = k->base >= k->offset && k->base - k->offset <= UINT64_MAX;
	k->cbase = k->c64 ? (uint64_t)(k->base - k->offset) : 0;
}
