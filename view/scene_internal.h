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
uint32_t rtr_scene_lod_best(const struct rtr_scene_lod *l, uint32_t lo, uint32_t hi);

/* @a is more important than @b (positions): failed or never resolved first, then the longest. */
static inline bool rtr_scene_lod_better(const struct rtr_scene_lod *l, uint32_t a, uint32_t b)
{
	if (l->mark[a] != l->mark[b])
		return l->mark[a] > l->mark[b];
	if (l->end[a] - l->start[a] != l->end[b] - l->start[b])
		return l->end[a] - l->start[a] > l->end[b] - l->start[b];
	return a < b;
}

/* The index of the most important arrow of rtr_scene.arrows[@lo .. @hi) (@lo < @hi). */
uint32_t rtr_scene_arrow_best(const struct rtr_scene *s, uint32_t lo, uint32_t hi);

/* Arrow @a is more important than @b: drawn before hidden, a failure first, then the longest. */
static inline bool rtr_scene_arrow_better(const struct rtr_scene *s, uint32_t a, uint32_t b)
{
	const struct rtr_scene_arrow *x = &s->arrows[a], *y = &s->arrows[b];

	if (s->arrow_rank[a] != s->arrow_rank[b])
		return s->arrow_rank[a] > s->arrow_rank[b];
	if (x->ts - x->tf != y->ts - y->tf)
		return x->ts - x->tf > y->ts - y->tf;
	return a < b;
}

/* Widen [*@min, *@max] by the values of rtr_model.samples[@lo .. @hi). */
void rtr_scene_sample_range(const struct rtr_scene *s, uint32_t lo, uint32_t hi, int64_t *min,
			    int64_t *max);

#endif /* RTR_VIEW_SCENE_INTERNAL_H */
