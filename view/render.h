/* SPDX-License-Identifier: MIT */
/*
 * view/render.h - the one renderer: a window query's answer (view/scene.h)
 * drawn with cairo onto any surface (Documentation/viewer.rst, "The
 * renderer").  `ringtrace gui` calls it on each frame of its window,
 * `ringtrace view --format svg|pdf|png` once into a file's surface: the
 * picture has no logic of its own outside this file.
 *
 * The picture, top to bottom: a ruler; the task rows (a line per task,
 * white where it ran, red when failed or never resolved, labels when they
 * fit; arrows by kind in the page's colours, fading with length; sleeping
 * regions shaded); the counters band (a step plot per group of counters
 * sharing a scale); a lane per CPU with the task that ran there.
 */
#ifndef RTR_VIEW_RENDER_H
#define RTR_VIEW_RENDER_H

#include <stdbool.h>
#include <stdint.h>
#include <cairo.h>
#include "view/overview.h"
#include "view/path.h"
#include "view/scene.h"

/* Rows are this far apart when they fit (the page's 28 px), squeezed down to 2 px when not. */
#define RTR_RENDER_ROW_H	28.0
#define RTR_RENDER_RULER_H	20.0
#define RTR_RENDER_LANE_H	14.0
#define RTR_RENDER_COUNTER_H	48.0

/**
 * struct rtr_render_view - what to draw.
 * @t0: time at the left edge (ns since the model's origin).
 * @t1: time at the right edge (> @t0).
 * @row0: the first row at the top of the rows.
 * @width: pixels (1 .. RTR_SCENE_MAX_WIDTH).
 * @height: pixels (>= 1).
 * @selected: a task drawn on a blue band (RTR_MODEL_NONE: none).
 * @marks: tasks drawn on a yellow band (search matches), ascending; @nmarks.
 * @path: a critical path drawn over the rows (view/path.h), @npath
 *	segments, in time order; NULL: none.
 * @ruler_shift: the ruler counts time from the model's start less this
 *	(0: from its start; a slice of a larger trace: from the trace's).
 */
struct rtr_render_view {
	int64_t t0;
	int64_t t1;
	uint32_t row0;
	uint32_t width;
	uint32_t height;
	uint32_t selected;
	const uint32_t *marks;
	uint32_t nmarks;
	const struct rtr_path_seg *path;
	uint32_t npath;
	int64_t ruler_shift;
};

/**
 * struct rtr_render_layout - where things go for a view (rtr_render_layout()).
 * @rows_y: top of the rows' area; @rows_h its height.
 * @row_h: distance between two rows.
 * @row0: first row shown; @row1 the row after the last.
 * @counters_y: top of the counters band; @counters_h its height (0: none).
 * @ngroups: counter groups (one strip each).
 * @lanes_y: top of the CPU lanes; @nlanes lanes of RTR_RENDER_LANE_H.
 */
struct rtr_render_layout {
	double rows_y, rows_h, row_h;
	uint32_t row0, row1;
	double counters_y, counters_h;
	uint32_t ngroups;
	double lanes_y;
	uint32_t nlanes;
};

/* rtr_render_layout() - the layout of @v over @s. */
void rtr_render_layout(const struct rtr_scene *s, const struct rtr_render_view *v,
		       struct rtr_render_layout *l);

/*
 * rtr_render_height() - the height at which every row of @s shows RTR_RENDER_ROW_H
 * apart, with the counters and lanes: what an export uses when not told
 * (capped at @max).
 */
uint32_t rtr_render_height(const struct rtr_scene *s, uint32_t max);

/**
 * rtr_render() - draw @v of @s into @cr (which is not otherwise changed:
 * saved and restored).
 * @f: a frame reused between calls (zeroed at first; rtr_frame_free() at the end).
 *
 * Return: 0; -EINVAL, a view that is not one (rtr_scene_window()); -ENOMEM.
 */
int rtr_render(cairo_t *cr, const struct rtr_scene *s, const struct rtr_render_view *v,
	       struct rtr_frame *f);

/*
 * rtr_render_hit() - the task under pixel (@x, @y) in the frame rtr_render()
 * last drew into @f for @v, or RTR_MODEL_NONE (a merged span gives its
 * representative).
 */
uint32_t rtr_render_hit(const struct rtr_scene *s, const struct rtr_render_view *v,
			const struct rtr_frame *f, double x, double y);


/*
 * rtr_render_overview() - draw @ov (view/overview.h) in @v's time range
 * (@v->t0, @v->t1: ns since @ov->origin_ns; the rest of @v but its size
 * unused): the ruler, a lane per stream with its events a pixel column as
 * bars (square-root scale: a lone event still shows), and @msg (lines
 * separated by '\n'; NULL: none) under the lanes.  For a trace too large
 * for a model, where the view holds more events than a slice loads.
 * Return: 0; -EINVAL, a view that is not one; -ENOMEM.
 */
int rtr_render_overview(cairo_t *cr, const struct rtr_overview *ov, const struct rtr_render_view *v,
			const char *msg);

#endif /* RTR_VIEW_RENDER_H */
