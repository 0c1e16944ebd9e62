/* SPDX-License-Identifier: MIT */
/*
 * view/scene_internal.h - what view/scene.c and view/window.c share beyond
 * view/scene.h.
 */
#ifndef RTR_VIEW_SCENE_INTERNAL_H
#define RTR_VIEW_SCENE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include "view/scene.h"

/* The position of the most important item of positions [@lo, @hi) (@lo < @hi). */
static inline uint32_t rtr_scene_lod_best(const struct rtr_scene_lod *l, uint32_t lo, uint32_t hi)
{
	return rtr_lod_best(&l->idx, lo, hi);
}

/* @a is more important than @b (positions): failed or never resolved first, then the longest. */
static inline bool rtr_scene_lod_better(const struct rtr_scene_lod *l, uint32_t a, uint32_t b)
{
	const uint64_t *k = l->idx.key[0];

	return k[a] > k[b] || (k[a] == k[b] && a < b);
}

/* The index of the most important arrow of rtr_scene.arrows[@lo .. @hi) (@lo < @hi). */
static inline uint32_t rtr_scene_arrow_best(const struct rtr_scene *s, uint32_t lo, uint32_t hi)
{
	return rtr_lod_best(&s->arrow_idx, lo, hi);
}

/* Widen [*@min, *@max] by the values of rtr_model.samples[@lo .. @hi). */
void rtr_scene_sample_range(const struct rtr_scene *s, uint32_t lo, uint32_t hi, int64_t *min,
			    int64_t *max);

#endif /* RTR_VIEW_SCENE_INTERNAL_H */
