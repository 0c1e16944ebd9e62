/* SPDX-License-Identifier: MIT */
/*
 * tools/render_out.h - what `ringtrace view --format` and `ringtrace gui
 * --screenshot` share: their options, and one frame of the renderer
 * (view/render.h) written as SVG, PDF or PNG.
 */
#ifndef RTR_TOOLS_RENDER_OUT_H
#define RTR_TOOLS_RENDER_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include "view/render.h"

enum rtr_out_format {
	RTR_OUT_NONE = 0,
	RTR_OUT_SVG,
	RTR_OUT_PDF,
	RTR_OUT_PNG,
};

/**
 * struct rtr_picture_opts - a picture's options.
 * @format: enum rtr_out_format.
 * @width: pixels (0: the default).
 * @height: pixels (0: every row, up to a limit).
 * @ranged: @from and @to were given: ns from the start of the earliest trace.
 */
struct rtr_picture_opts {
	int format;
	uint32_t width, height;
	bool ranged;
	int64_t from, to;
};

/* "svg", "pdf", "png" -> enum rtr_out_format; RTR_OUT_NONE for anything else. */
int rtr_out_format_parse(const char *s);
/* The format a file name's extension says (.svg, .pdf, .png), or RTR_OUT_NONE. */
int rtr_out_format_of(const char *path);
/* "WxH" or "W" (1 .. RTR_SCENE_MAX_WIDTH each).  Return: 0, or -EINVAL (said on stderr for @cmd). */
int rtr_out_parse_size(const char *cmd, const char *s, struct rtr_picture_opts *o);
/* "T0..T1" (cli_parse_time() units, T0 < T1).  Return: 0, or -EINVAL (said on stderr for @cmd). */
int rtr_out_parse_range(const char *cmd, const char *s, struct rtr_picture_opts *o);

/*
 * rtr_out_view() - the view @o asks of @s (the whole trace when not ranged).
 * Return: 0, or -ERANGE (a range outside the traces: said on stderr for @cmd).
 */
int rtr_out_view(const char *cmd, const struct rtr_scene *s, const struct rtr_picture_opts *o,
		 struct rtr_render_view *v);

/*
 * rtr_out_write() - one frame of @v drawn into a picture of @format written
 * to @fd.  Return: 0, or -errno (said on stderr for @cmd, @path naming it).
 */
int rtr_out_write(const char *cmd, const char *path, int fd, int format, const struct rtr_scene *s,
		  const struct rtr_render_view *v);

/* `ringtrace view --format ...`: the traces drawn into one picture file. */
int rtr_view_picture(char **dirs, int ndirs, bool align, const char *out, bool force,
		     const struct rtr_picture_opts *o);

#endif /* RTR_TOOLS_RENDER_OUT_H */
