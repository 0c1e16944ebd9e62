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
bool rtr_scene_lod_better(const struct rtr_scene_lod *l, uint32_t a, uint32_t b);

/* The index of the most important arrow of rtr_scene.arrows[@lo .. @hi) (@lo < @hi). */
uint32_t rtr_scene_arrow_best(const struct rtr_scene *s, uint32_t lo, uint32_t hi);

/* Arrow @a is more important than @b: visible, a failure, then the longest. */
bool rtr_scene_arrow_better(const struct rtr_scene *s, uint32_t a, uint32_t b);

#endif /* RTR_VIEW_SCENE_INTERNAL_H */
