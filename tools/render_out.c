// SPDX-License-Identifier: MIT
/*
 * tools/render_out.c - `ringtrace view --format svg|pdf|png`: the traces
 * drawn by the one renderer (view/render.h) into a file, with no display;
 * and the options and the file writing `ringtrace gui --screenshot` shares.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cairo-pdf.h>
#include <cairo-svg.h>
#include "reader/model.h"
#include "tools/cli.h"
#include "tools/render_out.h"

#define DEFAULT_WIDTH	1600
#define MAX_HEIGHT	16384

int rtr_out_format_parse(const char *s)
{
	return !strcmp(s, "svg") ? RTR_OUT_SVG : !strcmp(s, "pdf") ? RTR_OUT_PDF :
	       !strcmp(s, "png") ? RTR_OUT_PNG : RTR_OUT_NONE;
}

int rtr_out_format_of(const char *path)
{
	const char *dot = strrchr(path, '.');

	return dot && !strchr(dot, '/') ? rtr_out_format_parse(dot + 1) : RTR_OUT_NONE;
}

static int parse_px(const char *s, char **end, uint32_t max, uint32_t *out)
{
	unsigned long v;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, end, 10);
	if (errno || !v || v > max)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

int rtr_out_parse_size(const char *cmd, const char *s, struct rtr_picture_opts *o)
{
	char *end = NULL;

	o->height = 0;
	if (parse_px(s, &end, RTR_SCENE_MAX_WIDTH, &o->width) ||
	    (*end && (*end != 'x' || parse_px(end + 1, &end, MAX_HEIGHT, &o->height) || *end))) {
		fprintf(stderr, "ringtrace %s: --size takes WIDTHxHEIGHT or WIDTH in pixels "
			"(1 to %u wide, 1 to %u high), not '%s'\n", cmd, RTR_SCENE_MAX_WIDTH,
			MAX_HEIGHT, s);
		return -EINVAL;
	}
	return 0;
}

int rtr_out_parse_range(const char *cmd, const char *s, struct rtr_picture_opts *o)
{
	uint64_t a, b;

	if (cli_parse_span(cmd, "--range", s, false, &a, &b))
		return -EINVAL;
	o->ranged = true;
	o->from = (int64_t)a;
	o->to = (int64_t)b;
	return 0;
}

int rtr_out_view(const char *cmd, const struct rtr_scene *s, const struct rtr_picture_opts *o,
		 struct rtr_render_view *v)
{
	const struct rtr_model *m = s->m;

	memset(v, 0, sizeof(*v));
	v->selected = RTR_MODEL_NONE;
	v->width = o->width ? o->width : DEFAULT_WIDTH;
	v->height = o->height ? o->height : rtr_render_height(s, MAX_HEIGHT);
	v->t0 = m->start;
	v->t1 = m->end > m->start ? m->end : m->start + 1;
	if (o->ranged) {
		if (o->from > m->end - m->start) {
			fprintf(stderr, "ringtrace %s: --range starts at %" PRId64 " ns, after the "
				"traces' end (%" PRId64 " ns from their start)\n", cmd, o->from,
				m->end - m->start);
			return -ERANGE;
		}
		v->t0 = m->start + o->from;
		v->t1 = m->start + o->to;
	}
	return 0;
}

static cairo_status_t write_fd(void *closure, const unsigned char *data, unsigned int len)
{
	int fd = *(int *)closure;

	while (len) {
		ssize_t n = write(fd, data, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return CAIRO_STATUS_WRITE_ERROR;
		data += n;
		len -= (unsigned)n;
	}
	return CAIRO_STATUS_SUCCESS;
}

int rtr_out_write(const char *cmd, const char *path, int fd, int format, const struct rtr_scene *s,
		  const struct rtr_render_view *v)
{
	struct rtr_frame f = { 0 };
	cairo_surface_t *sf;
	cairo_status_t st;
	cairo_t *cr;
	int ret;

	if (format == RTR_OUT_SVG)
		sf = cairo_svg_surface_create_for_stream(write_fd, &fd, v->width, v->height);
	else if (format == RTR_OUT_PDF)
		sf = cairo_pdf_surface_create_for_stream(write_fd, &fd, v->width, v->height);
	else
		sf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)v->width, (int)v->height);
	cr = cairo_create(sf);
	ret = rtr_render(cr, s, v, &f);
	rtr_frame_free(&f);
	cairo_destroy(cr);
	if (!ret && format == RTR_OUT_PNG)
		ret = cairo_surface_write_to_png_stream(sf, write_fd, &fd) ? -EIO : 0;
	cairo_surface_finish(sf);
	st = cairo_surface_status(sf);
	cairo_surface_destroy(sf);
	if (!ret && st)
		ret = st == CAIRO_STATUS_NO_MEMORY ? -ENOMEM : -EIO;
	if (ret)
		fprintf(stderr, "ringtrace %s: %s: %s\n", cmd, path,
			ret == -EIO ? "could not be written" : strerror(-ret));
	return ret;
}

int rtr_view_picture(char **dirs, int ndirs, bool align, const char *out, bool force,
		     const struct rtr_picture_opts *o)
{
	struct rtr_model m = { 0 };
	struct rtr_scene sc = { 0 };
	struct rtr_render_view v;
	struct cli_out co;
	int ret = 1, loaded;

	if (cli_out_open(&co, "view", out, force))
		return 1;
	if (cli_view_fits("view", dirs, ndirs, false)) {
		cli_out_abort(&co);
		return 1;
	}
	loaded = cli_model_load("view", &m, dirs, ndirs, RTR_MODEL_MARKERS);
	if (loaded < 0)
		goto done;
	cli_model_damage("view", &m);
	if (rtr_scene_build(&sc, &m, RTR_SCENE_SIMPLIFY_BINDS | (align ? RTR_SCENE_ALIGN_START : 0))) {
		fprintf(stderr, "ringtrace view: out of memory\n");
		goto done;
	}
	if (rtr_out_view("view", &sc, o, &v) || rtr_out_write("view", out, co.fd, o->format, &sc, &v))
		goto done;
	ret = cli_out_commit(&co) ? 1 : 0;
	co.fd = -1;
	if (!ret) {
		printf("%s\n", out);
		ret = m.ndamage ? 1 : 0;
		for (uint32_t i = 0; i < m.ntraces; i++)
			if (m.traces[i].incomplete)
				ret = 1;
	}
done:
	if (co.fd >= 0)
		cli_out_abort(&co);
	rtr_scene_free(&sc);
	rtr_model_free(&m);
	return ret;
}
