/* SPDX-License-Identifier: MIT */
/*
 * view/lod.h - "the most important item of any range", the level-of-detail
 * index of the scene's window query (view/scene.h).  Each item has a 64-bit
 * key (larger: more important; view/scene.c makes it from a task's or an
 * arrow's rank and length); level 1 keeps the largest key of each block of
 * 64 items, level 2 of each block of 64 level-1 blocks, and so on.  A query
 * scans the ends of its range item by item and the middle a level up:
 * O(64 · levels) comparisons, all of them on contiguous memory, where a
 * binary segment tree's O(log n) would each miss the cache on a large trace.
 * About 12/63 bytes an item beyond the keys.  Internal to view/.
 */
#ifndef RTR_VIEW_LOD_H
#define RTR_VIEW_LOD_H

#include <stdint.h>

#define RTR_LOD_FANOUT	64
#define RTR_LOD_LEVELS	6	/* 64^6: more than UINT32_MAX items */

struct rtr_lod {
	uint32_t n;
	uint32_t nlevels;		/* 1 + the levels above the items */
	uint64_t *key[RTR_LOD_LEVELS];	/* key[0]: the items' own, n of them */
	uint32_t *pos[RTR_LOD_LEVELS];	/* pos[l][b]: the item whose key key[l][b] is */
	uint32_t len[RTR_LOD_LEVELS];
};

/*
 * rtr_lod_build() - the levels above @key (@n keys, owned by @l from now on,
 * freed by rtr_lod_free()).  Return: 0, -ENOMEM (@key freed too).
 */
int rtr_lod_build(struct rtr_lod *l, uint64_t *key, uint32_t n);

/*
 * rtr_lod_best() - the item of [@lo, @hi) (@lo < @hi) with the largest key,
 * the first of them on a tie.
 */
uint32_t rtr_lod_best(const struct rtr_lod *l, uint32_t lo, uint32_t hi);

void rtr_lod_free(struct rtr_lod *l);

#endif /* RTR_VIEW_LOD_H */
