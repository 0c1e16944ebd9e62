// SPDX-License-Identifier: MIT
/*
 * tests/view/test_render.c - the one renderer (view/render.h) and `ringtrace
 * view --format svg|pdf|png`: the ARP demo's hanging run drawn into an image
 * surface at several zooms (its never-resolved connection red up to the
 * right edge, on its row), into PNG, SVG and PDF files by the command (the
 * PNG's size and pixels, the SVG parsed, the PDF's text and its pixels
 * through pdftoppm), and bad options refused.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cairo.h>
#include <criterion/criterion.h>
#include "tests/helpers.h"
#include "bench/synth.h"
#include "view/overview.h"
#include "view/render.h"

TestSuite(view_render, .timeout = 120);

struct arp {
	char dir[64], trace[128];
	struct rtr_model m;
	struct rtr_scene s;
	uint32_t never;
};

static void arp_load(struct arp *a)
{
	char cmd[1024], err[256], *out, *dirs[1];
	int st;

	memset(a, 0, sizeof(*a));
	t_mkdtemp(a->dir, sizeof(a->dir), "render-arp");
	snprintf(a->trace, sizeof(a->trace), "%s/bad", a->dir);
	snprintf(cmd, sizeof(cmd), "'%s/ringtrace' record -q -o '%s' -- '%s/ringtrace-arp' --race "
		 "--timeout 300 >/dev/null 2>&1; echo $?", t_bindir(), a->trace, t_bindir());
	out = t_sh(cmd, &st);
	cr_assert_eq(atoi(out), 1, "the race hangs and gives up: %s", out);
	free(out);
	dirs[0] = a->trace;
	cr_assert_geq(rtr_model_load(&a->m, dirs, 1, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(rtr_scene_build(&a->s, &a->m, RTR_SCENE_SIMPLIFY_BINDS), 0);
	a->never = RTR_MODEL_NONE;
	for (uint32_t t = 0; t < a->m.ntasks; t++)
		if (a->m.tasks[t].flags & RTR_TASK_NEVER_RESOLVED)
			a->never = t;
	cr_assert_neq(a->never, RTR_MODEL_NONE);
}

static void arp_free(struct arp *a)
{
	rtr_scene_free(&a->s);
	rtr_model_free(&a->m);
	t_rm_rf(a->dir);
}

static uint32_t px(cairo_surface_t *sf, int x, int y)
{
	const unsigned char *d = cairo_image_surface_get_data(sf);

	cairo_surface_flush(sf);
	return *(const uint32_t *)(d + (size_t)y * cairo_image_surface_get_stride(sf) + (size_t)x * 4) &
	       0xffffff;
}

/* The pixels of [@x0, @x1) x [@y0, @y1) of @sf for which @want holds. */
static int count_px(cairo_surface_t *sf, int x0, int x1, int y0, int y1, bool (*want)(uint32_t))
{
	int n = 0;

	for (int x = x0; x < x1; x++)
		for (int y = y0; y < y1; y++)
			n += want(px(sf, x, y));
	return n;
}

/* The y of @task's line in view @v, and the pixel row it is drawn on. */
static int line_y(const struct arp *a, const struct rtr_render_view *v, uint32_t task)
{
	struct rtr_render_layout l;
	uint32_t row = a->s.task_row[task];

	rtr_render_layout(&a->s, v, &l);
	cr_assert(row >= l.row0 && row < l.row1, "row %u shown (%u .. %u)", row, l.row0, l.row1);
	/* a 2 px line centred on the row's middle: its upper pixel row */
	return (int)(l.rows_y + (row - l.row0 + 0.5) * l.row_h) - 1;
}

/* Some pixel of the line at x in [x0, x1) is red (#cc0000). */
static bool red_near(cairo_surface_t *sf, int x, int y)
{
	for (int dy = 0; dy <= 1; dy++)
		if (px(sf, x, y + dy) == 0xcc0000)
			return true;
	return false;
}

Test(view_render, the_never_resolved_connection_is_red_to_the_right_edge_at_every_zoom)
{
	struct arp a;
	struct rtr_frame f = { 0 };
	const uint32_t W = 900, H = 300;
	cairo_surface_t *sf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, W, H);
	cairo_t *cr = cairo_create(sf);
	int zooms = 0;

	arp_load(&a);
	for (int64_t span = 2 * (a.m.end - a.m.start + 1); span >= 2000; span /= 3) {
		const int64_t created = a.m.tasks[a.never].created;
		struct rtr_render_view v = { .t0 = a.m.end - span + 1, .t1 = a.m.end + 1, .width = W,
					     .height = H, .selected = RTR_MODEL_NONE };
		int y;

		if (v.t0 < created)
			v.t0 = created - span / 10;
		v.t1 = v.t0 + span;
		cr_assert_eq(rtr_render(cr, &a.s, &v, &f), 0);
		y = line_y(&a, &v, a.never);
		cr_assert(red_near(sf, W - 1, y), "window [%ld, %ld): the right edge's pixel at y %d is "
			  "%06x, not red", (long)v.t0, (long)v.t1, y, px(sf, W - 1, y));
		/* and not the rows' background one row above: the line is on its own row */
		cr_assert_neq(px(sf, W - 1, y - 12), 0xcc0000);
		zooms++;
	}
	cr_assert_gt(zooms, 5);
	/* something else than red: the main loop's dark line, somewhere on its row */
	{
		struct rtr_render_view v = { .t0 = a.m.start, .t1 = a.m.end + 1, .width = W, .height = H,
					     .selected = RTR_MODEL_NONE };
		uint32_t dark = 0;
		int y;

		cr_assert_eq(rtr_render(cr, &a.s, &v, &f), 0);
		y = line_y(&a, &v, a.s.row_task[a.s.row_off[0]]);
		for (uint32_t x = 0; x < W; x++)
			dark += px(sf, (int)x, y) == 0x333333 || px(sf, (int)x, y + 1) == 0x333333;
		cr_assert_gt(dark, W / 2, "the first row's task runs across the trace: %u dark pixels", dark);
		cr_assert_eq(rtr_render_hit(&a.s, &v, &f, W - 5, y + 1), a.s.row_task[a.s.row_off[0]]);
		cr_assert_eq(rtr_render_hit(&a.s, &v, &f, W - 5, line_y(&a, &v, a.never) + 1), a.never);
	}
	/* a view that is not one */
	{
		struct rtr_render_view v = { .t0 = 5, .t1 = 5, .width = W, .height = H };

		cr_assert_eq(rtr_render(cr, &a.s, &v, &f), -EINVAL);
		v.t1 = 6;
		v.width = 0;
		cr_assert_eq(rtr_render(cr, &a.s, &v, &f), -EINVAL);
	}
	cairo_destroy(cr);
	cairo_surface_destroy(sf);
	rtr_frame_free(&f);
	arp_free(&a);
}

static char *run(const char *cmd, int *st)
{
	char full[2048];

	/* t_sh() kills it after 300 s */
	snprintf(full, sizeof(full), "(%s) 2>&1; echo \"rc=$?\"", cmd);
	return t_sh(full, st);
}

Test(view_render, view_format_png_svg_pdf_write_the_same_picture)
{
	struct arp a;
	struct rtr_render_view v = { .width = 800, .height = 300, .selected = RTR_MODEL_NONE };
	char cmd[1024], path[256], *out;
	cairo_surface_t *sf;
	int st, y;

	arp_load(&a);
	v.t0 = a.m.start;
	v.t1 = a.m.end > a.m.start ? a.m.end : a.m.start + 1;
	y = line_y(&a, &v, a.never);

	/* PNG: the size asked, the connection red at the right edge */
	snprintf(path, sizeof(path), "%s/bad.png", a.dir);
	snprintf(cmd, sizeof(cmd), "'%s/ringtrace' view --format png --size 800x300 '%s'", t_bindir(),
		 a.trace);
	out = run(cmd, &st);
	cr_assert(strstr(out, "bad.png\nrc=0"), "%s", out);
	free(out);
	sf = cairo_image_surface_create_from_png(path);
	cr_assert_eq(cairo_surface_status(sf), CAIRO_STATUS_SUCCESS);
	cr_assert_eq(cairo_image_surface_get_width(sf), 800);
	cr_assert_eq(cairo_image_surface_get_height(sf), 300);
	cr_assert(red_near(sf, 799, y), "the PNG's right edge at y %d: %06x", y, px(sf, 799, y));
	cairo_surface_destroy(sf);
	/* it is there now: not replaced without --force */
	out = run(cmd, &st);
	cr_assert(strstr(out, "rc=1"), "%s", out);
	cr_assert(strstr(out, "exists"), "%s", out);
	free(out);

	/* SVG: well-formed, of the size asked */
	snprintf(cmd, sizeof(cmd), "'%s/ringtrace' view -o '%s/bad.svg' --size 800x300 '%s'", t_bindir(),
		 a.dir, a.trace);
	out = run(cmd, &st);
	cr_assert(strstr(out, "bad.svg\nrc=0"), "the format from the extension: %s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), "head -c 400 '%s/bad.svg'", a.dir);
	out = run(cmd, &st);
	cr_assert(strstr(out, "<svg") && strstr(out, "width=\"800") && strstr(out, "height=\"300"),
		  "%s", out);
	free(out);
	if (!system("command -v xmllint >/dev/null 2>&1")) {
		snprintf(cmd, sizeof(cmd), "xmllint --noout '%s/bad.svg'", a.dir);
		out = run(cmd, &st);
		cr_assert(!strcmp(out, "rc=0\n"), "xmllint: %s", out);
		free(out);
	} else {
		cr_log_warn("xmllint missing (libxml2-utils): the SVG is not parsed");
	}

	/* PDF: a header, the labels as text, and the same pixels once rasterised */
	snprintf(cmd, sizeof(cmd), "'%s/ringtrace' view --format pdf -o '%s/bad.pdf' --size 800x300 '%s'"
		 " && head -c 5 '%s/bad.pdf'", t_bindir(), a.dir, a.trace, a.dir);
	out = run(cmd, &st);
	cr_assert(strstr(out, "%PDF-"), "%s", out);
	free(out);
	if (!system("command -v pdftotext >/dev/null 2>&1 && command -v pdftoppm >/dev/null 2>&1")) {
		snprintf(cmd, sizeof(cmd), "pdftotext '%s/bad.pdf' - | tr -s ' \\n' ' '", a.dir);
		out = run(cmd, &st);
		/* the lines wide enough at 800 px have their labels */
		cr_assert(strstr(out, "TCP connect") && strstr(out, "main loop"),
			  "the labels: %s", out);
		free(out);
		snprintf(cmd, sizeof(cmd), "pdftoppm -r 72 -png -singlefile '%s/bad.pdf' '%s/pdf'", a.dir,
			 a.dir);
		out = run(cmd, &st);
		cr_assert(strstr(out, "rc=0"), "%s", out);
		free(out);
		snprintf(path, sizeof(path), "%s/pdf.png", a.dir);
		sf = cairo_image_surface_create_from_png(path);
		cr_assert_eq(cairo_surface_status(sf), CAIRO_STATUS_SUCCESS);
		cr_assert_eq(cairo_image_surface_get_width(sf), 800);
		cr_assert_eq(cairo_image_surface_get_height(sf), 300);
		if (cairo_image_surface_get_format(sf) != CAIRO_FORMAT_RGB24 &&
		    cairo_image_surface_get_format(sf) != CAIRO_FORMAT_ARGB32)
			cr_assert_fail("pdftoppm's PNG is not RGB");
		cr_assert(red_near(sf, 798, y), "the PDF's right edge at y %d: %06x", y, px(sf, 798, y));
		cairo_surface_destroy(sf);
	} else {
		cr_log_warn("pdftotext/pdftoppm missing (poppler-utils): the PDF is not read back");
	}
	arp_free(&a);
}

Test(view_render, bad_options_are_refused_with_what_is_wrong)
{
	static const struct {
		const char *args, *says;
		int rc;
	} cases[] = {
		{ "--format gif", "--format takes svg, pdf or png, not 'gif'", 2 },
		{ "--format png --size 0x10", "--size takes WIDTHxHEIGHT", 2 },
		{ "--format png --size 800x", "--size takes WIDTHxHEIGHT", 2 },
		{ "--format png --size 99999", "--size takes WIDTHxHEIGHT", 2 },
		{ "--format png --range 5ms", "--range takes T0..T1", 2 },
		{ "--format png --range 5ms..1ms", "T0 must come before T1", 2 },
		{ "--format png --range 1parsec..2ms", "a number with a unit", 2 },
		{ "--size 800x600", "--size and --range go with --format", 2 },
		{ "--format png -o x.svg", "its extension names another format", 2 },
		{ "--format svg --serve", "one or the other", 2 },
		{ "--format png --range 1h..2h -o @/far.png", "after the traces' end", 1 },
		{ "--format", "--format needs a value", 2 },
	};
	struct arp a;

	arp_load(&a);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char args[256], cmd[1024], *out, *at, want[16];
		int st;

		snprintf(args, sizeof(args), "%s", cases[i].args);
		at = strchr(args, '@');
		if (at) {
			char rest[128];

			snprintf(rest, sizeof(rest), "%s", at + 1);
			snprintf(at, sizeof(args) - (size_t)(at - args), "%s%s", a.dir, rest);
		}
		snprintf(cmd, sizeof(cmd), "cd '%s' && '%s/ringtrace' view %s '%s'", a.dir, t_bindir(), args,
			 a.trace);
		if (!strcmp(cases[i].args, "--format"))	/* the trace would be its value */
			snprintf(cmd, sizeof(cmd), "'%s/ringtrace' view --format", t_bindir());
		out = run(cmd, &st);
		snprintf(want, sizeof(want), "rc=%d\n", cases[i].rc);
		cr_assert(strstr(out, cases[i].says), "%s: %s", cases[i].args, out);
		cr_assert(strstr(out, want), "%s: %s", cases[i].args, out);
		free(out);
	}
	cr_assert(access("x.svg", F_OK) && access("x.png", F_OK));
	{
		char p[128];

		snprintf(p, sizeof(p), "%s/far.png", a.dir);
		cr_assert(access(p, F_OK), "a refused picture leaves no file");
	}
	arp_free(&a);
}

/* ---- ringtrace gui under xvfb: the window's first frame, as GTK drew it ----------- */

static bool have_xvfb(void)
{
	return !system("command -v xvfb-run >/dev/null 2>&1 && command -v Xvfb >/dev/null 2>&1");
}

/*
 * The first match is selected too: the yellow band (255, 230, 0 at 85 %), then
 * the blue one (40, 120, 255 at 45 %) over a sleeping region's grey (210).
 */
static bool match_band(uint32_t p)
{
	const double y[3] = { 0.85 * 255 + 0.15 * 210, 0.85 * 230 + 0.15 * 210, 0.15 * 210 };
	const double want[3] = { 0.45 * 40 + 0.55 * y[0], 0.45 * 120 + 0.55 * y[1], 0.45 * 255 + 0.55 * y[2] };
	const int got[3] = { (int)(p >> 16 & 0xff), (int)(p >> 8 & 0xff), (int)(p & 0xff) };

	for (int i = 0; i < 3; i++)
		if (got[i] < want[i] - 4 || got[i] > want[i] + 4)
			return false;
	return true;
}

Test(view_render, gui_screenshot_under_xvfb_shows_the_connection_red_to_the_area_edge_and_the_search)
{
	struct arp a;
	struct rtr_render_view v = { .width = 700, .height = 360, .selected = RTR_MODEL_NONE };
	struct rtr_render_layout l;
	char cmd[1024], path[256], *out;
	cairo_surface_t *sf;
	int st, y, x, edge = -1, yellow = 0, panel_red = 0;

	if (!have_xvfb())
		cr_skip_test("xvfb-run missing (Debian's xvfb): the window is not tested");
	arp_load(&a);
	v.t0 = a.m.start;
	v.t1 = a.m.end;
	rtr_render_layout(&a.s, &v, &l);
	cr_assert_eq(l.row_h, RTR_RENDER_ROW_H, "the demo's rows fit: they are 28 px apart");
	y = line_y(&a, &v, a.never);
	snprintf(path, sizeof(path), "%s/shot.png", a.dir);
	/* no dbus session in the test: GTK says so, harmlessly */
	snprintf(cmd, sizeof(cmd), "GSK_RENDERER=cairo NO_AT_BRIDGE=1 timeout 60 xvfb-run -a -s "
		 "'-screen 0 1280x800x24' '%s/ringtrace' gui --size 1000x400 --search 'TCP connect' "
		 "--screenshot '%s' '%s' 2>&1 | grep -v -e dbus -e 'session bus'", t_bindir(), path, a.trace);
	out = run(cmd, &st);
	if (strstr(out, "no display could be opened") || strstr(out, "xvfb-run: error")) {
		free(out);
		arp_free(&a);
		cr_skip_test("no X display could be made under xvfb-run");
	}
	cr_assert(strstr(out, "shot.png"), "%s", out);
	free(out);
	sf = cairo_image_surface_create_from_png(path);
	cr_assert_eq(cairo_surface_status(sf), CAIRO_STATUS_SUCCESS, "%s", path);
	cr_assert_eq(cairo_image_surface_get_width(sf), 1000);
	cr_assert_eq(cairo_image_surface_get_height(sf), 400);
	/* the red line runs without a break to the drawing area's right edge, the panel follows */
	for (x = 999; x >= 0 && edge < 0; x--)
		if (red_near(sf, x, y))
			edge = x;
	cr_assert_geq(edge, 600, "the connection's red ends at x %d", edge);
	for (x = edge; x > edge - 500; x--)
		cr_assert(red_near(sf, x, y), "a break in the red line at x %d (edge %d)", x, edge);
	/* the search: the connection matched and selected, on its band; its details in red in the panel */
	for (x = 0; x < edge; x++)
		for (int dy = -12; dy < -3; dy++)
			yellow += match_band(px(sf, x, y + dy));
	cr_assert_gt(yellow, 100, "the band of the selected match: %d pixels", yellow);
	for (x = edge + 2; x < 1000; x++)
		for (int yy = 30; yy < 150; yy++) {
			uint32_t p = px(sf, x, yy);

			panel_red += (p >> 16 & 0xff) > 150 && (p >> 8 & 0xff) < 80 && (p & 0xff) < 80;
		}
	cr_assert_gt(panel_red, 10, "the panel says, in red, that it never resolved: %d", panel_red);
	cairo_surface_destroy(sf);
	arp_free(&a);
}

/* The pixels of @task's band (rows y-12 .. y-4 of its line) for which @want holds. */
static int band(const struct arp *a, cairo_surface_t *sf, uint32_t task, int xmax, bool (*want)(uint32_t))
{
	struct rtr_render_view v = { .width = 700, .height = 360 };
	int y = line_y(a, &v, task), n = 0;

	for (int x = 0; x < xmax; x++)
		for (int dy = -12; dy < -3; dy++)
			n += want(px(sf, x, y + dy));
	return n;
}

/* The blue band of the selection (40, 120, 255 at 45 %) over a sleeping region's grey (210). */
static bool selected_band(uint32_t p)
{
	const double want[3] = { 0.45 * 40 + 0.55 * 210, 0.45 * 120 + 0.55 * 210, 0.45 * 255 + 0.55 * 210 };
	const int got[3] = { (int)(p >> 16 & 0xff), (int)(p >> 8 & 0xff), (int)(p & 0xff) };

	for (int i = 0; i < 3; i++)
		if (got[i] < want[i] - 4 || got[i] > want[i] + 4)
			return false;
	return true;
}

/* The rightmost pure black pixel of pixel row @y left of @xmax, or -1. */
static int rightmost_black(cairo_surface_t *sf, int xmax, int y)
{
	for (int x = xmax - 1; x >= 0; x--)
		if (px(sf, x, y) == 0)
			return x;
	return -1;
}

/* gui_input.sh's @scenario on the ARP trace: the window as it was then, NULL if no display. */
static cairo_surface_t *drive(const struct arp *a, const char *scenario)
{
	char cmd[2048], path[256], *out;
	cairo_surface_t *sf;
	int st;

	snprintf(path, sizeof(path), "%s/%s.png", a->dir, scenario);
	snprintf(cmd, sizeof(cmd), "timeout 90 xvfb-run -a -s '-screen 0 1280x800x24' sh '%s/tests/view/gui_input.sh' "
		 "'%s/ringtrace' '%s' '%s' %s 2>&1 | grep -v -e dbus -e 'session bus'", t_srcdir(),
		 t_bindir(), a->trace, path, scenario);
	out = run(cmd, &st);
	if (strstr(out, "no display could be opened") || strstr(out, "xvfb-run: error")) {
		free(out);
		return NULL;
	}
	cr_assert(strstr(out, "gui exit 0"), "%s: %s", scenario, out);
	free(out);
	sf = cairo_image_surface_create_from_png(path);
	cr_assert_eq(cairo_surface_status(sf), CAIRO_STATUS_SUCCESS, "%s", path);
	return sf;
}

static uint32_t task_named(const struct arp *a, const char *name)
{
	for (uint32_t t = 0; t < a->m.ntasks; t++)
		if (!strcmp(rtr_model_str(&a->m, a->m.tasks[t].name), name))
			return t;
	cr_assert_fail("no task named %s", name);
	return 0;
}

Test(view_render, gui_takes_real_input_wheel_zoom_click_details_and_keyed_search)
{
	struct arp a;
	cairo_surface_t *sf;
	uint32_t query;
	int n, panel_red = 0;

	if (!have_xvfb() || system("command -v xdotool >/dev/null 2>&1"))
		cr_skip_test("xvfb-run or xdotool missing (Debian's xvfb, xdotool): no scripted input");
	arp_load(&a);
	query = task_named(&a, "ARP query");
	/* the whole trace: the ARP query's line is a few pixels long */
	sf = drive(&a, "zoom-click");
	if (!sf) {
		arp_free(&a);
		cr_skip_test("no X display could be made under xvfb-run");
	}
	/*
	 * zoomed in 1.2^10 = 6.2 times around x = 0: the vertical lines (create,
	 * becomes; black) move 6.2 times further from it.  Looked for between
	 * rows, where no label is black.
	 */
	{
		cairo_surface_t *whole = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 720, 360);
		cairo_t *cr = cairo_create(whole);
		struct rtr_frame f = { 0 };
		struct rtr_render_view v = { .t0 = a.m.start, .t1 = a.m.end, .width = 720, .height = 360,
					     .selected = RTR_MODEL_NONE };
		int y = line_y(&a, &v, query) + 6, x_whole;

		cr_assert_eq(rtr_render(cr, &a.s, &v, &f), 0);
		x_whole = rightmost_black(whole, 720, y);
		cr_assert_geq(x_whole, 1, "a vertical line right of the pointer at the whole trace");
		n = rightmost_black(sf, 720, y);
		cr_assert_gt(n, 4 * x_whole, "zoomed in: the vertical lines' rightmost at %d px, "
			     "%d px at the whole trace", n, x_whole);
		rtr_frame_free(&f);
		cairo_destroy(cr);
		cairo_surface_destroy(whole);
	}
	/* the click selected the connection: its blue band, its details in red in the panel */
	n = band(&a, sf, a.never, 700, selected_band);
	cr_assert_gt(n, 1000, "the selection's band on the connection's row: %d pixels", n);
	for (int x = 722; x < 1000; x++)
		for (int y = 30; y < 150; y++) {
			uint32_t p = px(sf, x, y);

			panel_red += (p >> 16 & 0xff) > 150 && (p >> 8 & 0xff) < 80 && (p & 0xff) < 80;
		}
	cr_assert_gt(panel_red, 10, "never resolved, in red in the panel: %d", panel_red);
	cairo_surface_destroy(sf);

	/* / then the query then Enter: the main loop matched and selected, no other row */
	sf = drive(&a, "search");
	cr_assert_not_null(sf);
	n = band(&a, sf, task_named(&a, "main loop"), 700, match_band);
	cr_assert_gt(n, 1000, "the match's band on the main loop's row: %d pixels", n);
	cr_assert_eq(band(&a, sf, a.never, 700, match_band), 0, "the connection does not match");
	cairo_surface_destroy(sf);
	arp_free(&a);
}

/* Pixel @p is @c drawn at 90 % over anything: each channel within 0.9 c .. 0.9 c + 26. */
static bool path_colour(uint32_t p, uint32_t c)
{
	for (int sh = 0; sh <= 16; sh += 8) {
		int got = (int)(p >> sh & 0xff), want = (int)(0.9 * (c >> sh & 0xff));

		if (got < want - 1 || got > want + 27)
			return false;
	}
	return true;
}

/*
 * The critical path (view/path.h) of the ARP demo's never-resolved
 * connection: segments in time order, each where the one before ended,
 * adding up to the walk's length, through more than one task; drawn over
 * the rows, each segment wide enough shows its colour on its task's row at
 * its middle.
 */
Test(view_render, the_critical_path_is_drawn_over_its_tasks_rows)
{
	static const uint32_t colour[] = { 0x2ca02c, 0xff7f0e, 0x1f77b4, 0xd62728, 0x9467bd,
					   0x8c564b, 0x7f7f7f };
	const uint32_t W = 900, H = 300;
	struct arp a;
	struct rtr_path p;
	struct rtr_frame f = { 0 };
	struct rtr_render_layout l;
	cairo_surface_t *sf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, W, H);
	cairo_t *cr = cairo_create(sf);
	int64_t sum = 0;
	uint32_t tasks = 0, last = RTR_MODEL_NONE, checked = 0;

	arp_load(&a);
	cr_assert_eq(rtr_path_build(&a.s, a.never, &p), 0);
	cr_assert_gt(p.n, 0);
	cr_expect_eq(p.segs[0].t0, p.cp.start);
	cr_expect_eq(p.segs[p.n - 1].t1, p.cp.end);
	for (uint32_t i = 0; i < p.n; i++) {
		cr_assert_gt(p.segs[i].t1, p.segs[i].t0, "segment %u is empty", i);
		if (i)
			cr_assert_eq(p.segs[i].t0, p.segs[i - 1].t1, "segment %u does not start where "
				     "%u ended", i, i - 1);
		cr_assert_lt(p.segs[i].what, 7);
		sum += p.segs[i].t1 - p.segs[i].t0;
		tasks += p.segs[i].task != last;
		last = p.segs[i].task;
	}
	cr_expect_eq(sum, p.cp.end - p.cp.start);
	cr_expect_gt(tasks, 1, "the path stays on one task: nothing explained");
	cr_assert_eq(rtr_path_build(&a.s, a.m.ntasks, &p), -EINVAL, "no such task");
	cr_assert_eq(rtr_path_build(&a.s, a.never, &p), 0);
	{
		struct rtr_render_view v = { .t0 = p.cp.start, .t1 = p.cp.end, .width = W,
					     .height = H, .selected = RTR_MODEL_NONE,
					     .path = p.segs, .npath = p.n };
		double k = (double)W / (double)(v.t1 - v.t0);

		cr_assert_eq(rtr_render(cr, &a.s, &v, &f), 0);
		rtr_render_layout(&a.s, &v, &l);
		for (uint32_t i = 0; i < p.n; i++) {
			const struct rtr_path_seg *sg = &p.segs[i];
			uint32_t row = a.s.task_row[sg->task];
			double x0 = (double)(sg->t0 - v.t0) * k, x1 = (double)(sg->t1 - v.t0) * k;
			int y = (int)(l.rows_y + (row - l.row0 + 0.5) * l.row_h);
			int x = (int)((x0 + x1) / 2);

			/*
			 * The magenta links (2 px wide) at the segment's ends are
			 * drawn over its band on purpose: look only at a pixel
			 * clear of both (a 3-4 px segment's middle pixel can be
			 * half under one; seen once in a fresh-clone run).
			 */
			if (x < x0 + 1 || x + 1 > x1 - 1 || row < l.row0 || row >= l.row1)
				continue;
			cr_expect(path_colour(px(sf, x, y), colour[sg->what]),
				  "segment %u (%s, x %.1f..%.1f) at (%d, %d): 0x%06x, not its colour "
				  "0x%06x", i, rtr_cp_what_str(sg->what), x0, x1, x, y, px(sf, x, y),
				  colour[sg->what]);
			checked++;
		}
	}
	cr_expect_gt(checked, 0, "no segment wide enough to look at");
	/* where it moves from a task to another, a magenta line between their rows */
	{
		double k = (double)W / (double)(p.cp.end - p.cp.start);
		uint32_t links = 0;

		for (uint32_t i = 1; i < p.n; i++) {
			uint32_t r0 = a.s.task_row[p.segs[i - 1].task], r1 = a.s.task_row[p.segs[i].task];
			int x = (int)((double)(p.segs[i].t0 - p.cp.start) * k), y;
			bool found = false;

			if (r0 == r1 || r0 < l.row0 || r0 >= l.row1 || r1 < l.row0 || r1 >= l.row1 ||
			    x < 1 || x >= (int)W - 1)
				continue;
			y = (int)(l.rows_y + ((r0 + r1) / 2.0 - l.row0 + 0.5) * l.row_h) + 1;
			for (int dx = -1; dx <= 1; dx++)
				found |= path_colour(px(sf, x + dx, y), 0xcc00cc);
			cr_expect(found, "no magenta line at x %d between rows %u and %u (0x%06x)", x, r0,
				  r1, px(sf, x, y));
			links++;
		}
		cr_expect_gt(links, 0, "the path moves between no two rows in view");
		checked += links;
	}
	cr_log_info("the path: %u segments through %u tasks, %u looked at", p.n, tasks, checked);
	/*
	 * In the window: a click on the connection, then p: the path's colours
	 * over the rows (and none before: the same click without p).
	 */
	if (have_xvfb() && !system("command -v xdotool >/dev/null 2>&1")) {
		struct rtr_render_view v = { .t0 = a.m.start, .t1 = a.m.end, .width = 700,
					     .height = 360 };
		char scen[64];
		cairo_surface_t *shot;
		int y = line_y(&a, &v, a.never) + 1, n[2] = { 0, 0 }, shots = 0;

		rtr_render_layout(&a.s, &v, &l);
		for (int k = 0; k < 2; k++) {
			snprintf(scen, sizeof(scen), "%s:650:%d", k ? "path" : "click", y);
			shot = drive(&a, scen);
			if (!shot)
				break;
			shots++;
			for (int yy = (int)l.rows_y; yy < (int)(l.rows_y + l.rows_h) && yy < 360; yy++)
				for (int x = 0; x < 700; x++)
					for (uint32_t c = 0; c < 7; c++)
						n[k] += colour[c] != 0x7f7f7f &&
							path_colour(px(shot, x, yy), colour[c]);
			cairo_surface_destroy(shot);
		}
		if (shots == 2)		/* else no X display could be made */
			cr_expect_gt(n[1], 20 + 2 * n[0], "the window's path after a click and p: %d "
				     "pixels of its colours, %d after the click alone", n[1], n[0]);
		cr_log_info("the window: %d pixels of the path's colours after a click and p, %d "
			    "after the click alone", n[1], n[0]);
	}
	rtr_path_free(&p);
	rtr_frame_free(&f);
	cairo_destroy(cr);
	cairo_surface_destroy(sf);
	arp_free(&a);
}

Test(view_render, gui_on_a_damaged_trace_says_so_in_the_window)
{
	struct arp a;
	char cmd[2048], path[256], *out;
	cairo_surface_t *sf;
	int st, red = 0;

	if (!have_xvfb())
		cr_skip_test("xvfb-run missing (Debian's xvfb): the window is not tested");
	arp_load(&a);
	/* the trace's stream cut in its first packet */
	snprintf(cmd, sizeof(cmd), "cd '%s' && cp -r bad cut && for f in cut/*; do case $f in "
		 "*/metadata) ;; *) head -c 3000 bad/${f#cut/} > $f ;; esac; done", a.dir);
	out = run(cmd, &st);
	cr_assert(strstr(out, "rc=0"), "%s", out);
	free(out);
	snprintf(path, sizeof(path), "%s/cut.png", a.dir);
	snprintf(cmd, sizeof(cmd), "GSK_RENDERER=cairo NO_AT_BRIDGE=1 timeout 60 xvfb-run -a '%s/ringtrace' "
		 "gui --size 900x300 --screenshot '%s' '%s/cut' 2>&1 | grep -v -e dbus -e 'session bus'",
		 t_bindir(), path, a.dir);
	out = run(cmd, &st);
	if (strstr(out, "no display could be opened") || strstr(out, "xvfb-run: error")) {
		free(out);
		arp_free(&a);
		cr_skip_test("no X display could be made under xvfb-run");
	}
	cr_assert(strstr(out, "damaged:") && strstr(out, "cut.png"), "said on stderr, and drawn: %s", out);
	free(out);
	sf = cairo_image_surface_create_from_png(path);
	cr_assert_eq(cairo_surface_status(sf), CAIRO_STATUS_SUCCESS, "%s", path);
	/* the panel (right of the drawing area) holds the message in red */
	for (int x = 640; x < 900; x++)
		for (int y = 35; y < 110; y++) {
			uint32_t p = px(sf, x, y);

			red += (p >> 16 & 0xff) > 150 && (p >> 8 & 0xff) < 80 && (p & 0xff) < 80;
		}
	cr_assert_gt(red, 50, "the damage in red in the panel: %d pixels", red);
	cairo_surface_destroy(sf);
	arp_free(&a);
}

Test(view_render, gui_without_a_display_or_with_bad_options_says_what_is_wrong)
{
	struct arp a;
	char cmd[1024], *out;
	int st;

	arp_load(&a);
	snprintf(cmd, sizeof(cmd), "env -u DISPLAY -u WAYLAND_DISPLAY timeout 60 '%s/ringtrace' gui '%s'",
		 t_bindir(), a.trace);
	out = run(cmd, &st);
	cr_assert(strstr(out, "no display could be opened") || strstr(out, "built without GTK 4"), "%s", out);
	cr_assert(strstr(out, "rc=1"), "%s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), "'%s/ringtrace' gui --screenshot x.jpg '%s'", t_bindir(), a.trace);
	out = run(cmd, &st);
	cr_assert(strstr(out, "--screenshot writes PNG") && strstr(out, "rc=2"), "%s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), "'%s/ringtrace' gui --force '%s'", t_bindir(), a.trace);
	out = run(cmd, &st);
	cr_assert(strstr(out, "--force and --on-signal go with --screenshot") && strstr(out, "rc=2"), "%s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), "'%s/ringtrace' gui '%s/nothing-here'", t_bindir(), a.dir);
	out = run(cmd, &st);
	cr_assert(strstr(out, "nothing-here") && strstr(out, "rc=2"), "%s", out);
	free(out);
	/* following: one recording, and the server's --follow only with --serve */
	snprintf(cmd, sizeof(cmd), "'%s/ringtrace' gui --follow '%s' '%s'", t_bindir(), a.trace, a.trace);
	out = run(cmd, &st);
	cr_assert(strstr(out, "--follow and - take one TRACE") && strstr(out, "rc=2"), "%s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), "'%s/ringtrace' view --follow '%s'", t_bindir(), a.trace);
	out = run(cmd, &st);
	cr_assert(strstr(out, "--follow goes with --serve") && strstr(out, "rc=2"), "%s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), "'%s/ringtrace' view --serve --follow '%s/nothing-here'", t_bindir(), a.dir);
	out = run(cmd, &st);
	cr_assert(strstr(out, "no such trace: ") && strstr(out, "rc=2"), "%s", out);
	free(out);
	arp_free(&a);
}

/*
 * The turn and the events of the scene the window drew when the recording
 * ended ("the recording ended: N events, T tasks (turn K)"), 0 if not said.
 */
static unsigned long ended_events(const char *out, unsigned long *turn)
{
	const char *p = strstr(out, "the recording ended: ");
	unsigned long n = 0, tasks = 0;

	*turn = 0;
	if (p && sscanf(p, "the recording ended: %lu events, %lu tasks (turn %lu)", &n, &tasks, turn) != 3)
		n = 0;
	return n;
}

/*
 * gui --follow on a recording in progress (2 threads x 2400 events, ~6 s):
 * the window draws several scenes while it runs, the last with every event,
 * and its screenshot is taken once the recording ended.
 */
Test(view_render, gui_follow_draws_a_recording_in_progress_to_its_last_event)
{
	char dir[256], cmd[2048], path[300], *out;
	unsigned long turn;
	cairo_surface_t *sf;
	int st;

	if (!have_xvfb())
		cr_skip_test("xvfb-run missing (Debian's xvfb): the window is not tested");
	t_mkdtemp(dir, sizeof(dir), "gui-follow");
	snprintf(path, sizeof(path), "%s/shot.png", dir);
	snprintf(cmd, sizeof(cmd), "cd '%s' && ('%s/ringtrace' record -q -o live --flush-interval 100ms "
		 "--packet-size 4k --packets 1024 -- '%s/ringtrace-test-emit' --threads 2 --events 2400 "
		 "--pace 20:50000 >rec.log 2>&1 &) && "
		 "for i in $(seq 400); do [ -e live/.ringtrace-state ] && break; sleep 0.05; done && "
		 "GSK_RENDERER=cairo NO_AT_BRIDGE=1 timeout 90 xvfb-run -a -s '-screen 0 1280x800x24' "
		 "'%s/ringtrace' gui --follow --size 1000x400 --screenshot '%s' live 2>&1 | "
		 "grep -v -e dbus -e 'session bus'", dir, t_bindir(), t_bindir(), t_bindir(), path);
	out = run(cmd, &st);
	if (strstr(out, "no display could be opened") || strstr(out, "xvfb-run: error")) {
		free(out);
		t_rm_rf(dir);
		cr_skip_test("no X display could be made under xvfb-run");
	}
	cr_assert_eq(ended_events(out, &turn), 4800, "%s", out);
	cr_assert_geq(turn, 2, "scenes drawn while it ran: %s", out);
	cr_assert(strstr(out, "shot.png"), "%s", out);
	free(out);
	sf = cairo_image_surface_create_from_png(path);
	cr_assert_eq(cairo_surface_status(sf), CAIRO_STATUS_SUCCESS, "%s", path);
	cr_assert_eq(cairo_image_surface_get_width(sf), 1000);
	cairo_surface_destroy(sf);
	t_rm_rf(dir);
}

/* gui - : the stream of `ringtrace record -o -` drawn as it arrives, to its end. */
Test(view_render, gui_reads_a_stream_on_standard_input_as_it_arrives)
{
	char dir[256], cmd[2048], path[300], *out;
	unsigned long turn;
	int st;

	if (!have_xvfb())
		cr_skip_test("xvfb-run missing (Debian's xvfb): the window is not tested");
	t_mkdtemp(dir, sizeof(dir), "gui-stdin");
	snprintf(path, sizeof(path), "%s/shot.png", dir);
	snprintf(cmd, sizeof(cmd), "cd '%s' && TMPDIR='%s' && export TMPDIR && '%s/ringtrace' record -q -o - "
		 "--flush-interval 100ms --packet-size 4k --packets 1024 -- '%s/ringtrace-test-emit' "
		 "--threads 2 --events 2400 --pace 20:50000 2>rec.log | "
		 "GSK_RENDERER=cairo NO_AT_BRIDGE=1 timeout 90 xvfb-run -a -s '-screen 0 1280x800x24' "
		 "'%s/ringtrace' gui --size 1000x400 --screenshot '%s' - 2>&1 | "
		 "grep -v -e dbus -e 'session bus'; ls -a | grep -c ringtrace-stdin",
		 dir, dir, t_bindir(), t_bindir(), t_bindir(), path);
	out = run(cmd, &st);
	if (strstr(out, "no display could be opened") || strstr(out, "xvfb-run: error")) {
		free(out);
		t_rm_rf(dir);
		cr_skip_test("no X display could be made under xvfb-run");
	}
	cr_assert_eq(ended_events(out, &turn), 4800, "%s", out);
	cr_assert_geq(turn, 2, "scenes drawn while it came: %s", out);
	cr_assert(strstr(out, "shot.png\n0\n"), "the screenshot, and the spool removed: %s", out);
	free(out);
	t_rm_rf(dir);
}

/*
 * gui - closed (its screenshot taken on SIGUSR1) while the program still
 * runs: the window does not wait for the stream's end; the spool is removed.
 */
Test(view_render, gui_of_a_stream_closes_before_the_stream_ends)
{
	char dir[256], cmd[3072], *out;
	int st;

	if (!have_xvfb())
		cr_skip_test("xvfb-run missing (Debian's xvfb): the window is not tested");
	t_mkdtemp(dir, sizeof(dir), "gui-stdin-close");
	/* 200 events, 10 a second: the stream lasts 20 s; the window is closed once it follows */
	snprintf(cmd, sizeof(cmd), "cd '%s' && TMPDIR='%s' && export TMPDIR && mkfifo s && "
		 "{ '%s/ringtrace' record -q -o - --flush-interval 100ms -- '%s/ringtrace-test-emit' "
		 "--threads 1 --events 200 --pace 1:100000 >s 2>rec.log & rpid=$!; } && "
		 /* the window's own pid, in gui.pid: xvfb-run runs a shell that execs it */
		 "{ GSK_RENDERER=cairo NO_AT_BRIDGE=1 timeout 60 xvfb-run -a -s '-screen 0 1280x800x24' "
		 "sh -c 'echo $$ >gui.pid; exec \"$0\" \"$@\"' '%s/ringtrace' gui --size 600x300 "
		 "--screenshot shot.png --on-signal - <s >gui.out 2>&1 & xpid=$!; } && "
		 /* the window is open once it says it follows (and a moment to draw) */
		 "for i in $(seq 400); do grep -q following gui.out && break; sleep 0.05; done; "
		 "sleep 1; kill -USR1 $(cat gui.pid); wait $xpid; echo gui=$?; "
		 "kill -0 $rpid 2>/dev/null && echo 'the stream was still coming'; wait $rpid; "
		 /* the recorder whose reader went keeps its region for `recover`: not wanted here */
		 "rm -f /dev/shm/ringtrace-record-$rpid-*; "
		 "grep -v -e dbus -e 'session bus' gui.out; ls -a | grep -c ringtrace-stdin",
		 dir, dir, t_bindir(), t_bindir(), t_bindir());
	out = run(cmd, &st);
	if (strstr(out, "no display could be opened") || strstr(out, "xvfb-run: error")) {
		free(out);
		t_rm_rf(dir);
		cr_skip_test("no X display could be made under xvfb-run");
	}
	cr_assert(strstr(out, "gui=0\n"), "%s", out);
	cr_assert(strstr(out, "the stream was still coming"), "the window waited for the stream: %s", out);
	cr_assert(strstr(out, "shot.png\n0\n"), "the screenshot, and the spool removed: %s", out);
	cr_assert_null(strstr(out, "ringtrace gui: the stream"), "a stream stopped on purpose is not "
		       "damaged: %s", out);
	cr_assert_null(strstr(out, "CRITICAL"), "nothing done on the destroyed window: %s", out);
	free(out);
	t_rm_rf(dir);
}

/* gui - on a stream cut short: drawn up to the cut, the window and the exit status say so. */
Test(view_render, gui_of_a_stream_cut_short_says_so_in_the_window)
{
	char dir[256], cmd[2048], path[300], *out;
	cairo_surface_t *sf;
	int st, red = 0;

	if (!have_xvfb())
		cr_skip_test("xvfb-run missing (Debian's xvfb): the window is not tested");
	t_mkdtemp(dir, sizeof(dir), "gui-cut");
	snprintf(path, sizeof(path), "%s/shot.png", dir);
	snprintf(cmd, sizeof(cmd), "cd '%s' && TMPDIR='%s' && export TMPDIR && '%s/ringtrace' record -q "
		 "-o - -- '%s/ringtrace-test-emit' --threads 2 --events 3000 >full 2>rec.log && "
		 "head -c $(( $(stat -c %%s full) / 2 )) full >cut && "
		 "GSK_RENDERER=cairo NO_AT_BRIDGE=1 timeout 90 xvfb-run -a -s '-screen 0 1280x800x24' "
		 "'%s/ringtrace' gui --size 900x300 --screenshot '%s' - <cut >gui.out 2>&1; echo gui=$?; "
		 "grep -v -e dbus -e 'session bus' gui.out; ls -a | grep -c ringtrace-stdin",
		 dir, dir, t_bindir(), t_bindir(), t_bindir(), path);
	out = run(cmd, &st);
	if (strstr(out, "no display could be opened") || strstr(out, "xvfb-run: error")) {
		free(out);
		t_rm_rf(dir);
		cr_skip_test("no X display could be made under xvfb-run");
	}
	cr_assert(strstr(out, "gui=1\n"), "a cut stream: exit status 1: %s", out);
	cr_assert(strstr(out, "the stream ended early or was damaged"), "%s", out);
	cr_assert(strstr(out, "shot.png\n"), "%s", out);
	cr_assert(strstr(out, "\n0\nrc="), "the spool removed: %s", out);
	free(out);
	sf = cairo_image_surface_create_from_png(path);
	cr_assert_eq(cairo_surface_status(sf), CAIRO_STATUS_SUCCESS, "%s", path);
	/* the panel (right of the drawing area) holds the message in red */
	for (int x = 900 - 270; x < 900; x++)
		for (int y = 30; y < 200; y++) {
			uint32_t p = px(sf, x, y);

			red += (p >> 16 & 0xff) > 150 && (p >> 8 & 0xff) < 80 && (p & 0xff) < 80;
		}
	cr_assert_gt(red, 50, "the cut in red in the panel: %d pixels", red);
	cairo_surface_destroy(sf);
	t_rm_rf(dir);
}

/*
 * A read between two traces (RTR_ARROW_REMOTE: a request joined by xid
 * labels, Documentation/network.rst) is drawn teal, a class of its own:
 * the same model with its read arrows flagged, and not, rendered alike but
 * for their colour: teal pixels where the reads were blue, none without
 * the flag.
 */
Test(view_render, a_request_between_traces_is_drawn_in_its_own_colour)
{
	const uint32_t W = 800, H = 400;
	uint32_t teal[2] = { 0, 0 }, blue[2] = { 0, 0 }, flagged = 0;

	for (int k = 0; k < 2; k++) {
		struct rtr_model m;
		struct rtr_scene s;
		struct rtr_frame f = { 0 };
		cairo_surface_t *sf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, W, H);
		cairo_t *cr = cairo_create(sf);
		struct rtr_render_view v;

		/* 40 requests 1 ms apart, each read by its CPU's main task when done */
		cr_assert_eq(synth_server(&m, 40, 2, 1000000, 7), 0);
		for (uint32_t i = 0; k && i < m.narrows; i++)
			if (m.arrows[i].kind == RTR_ARROW_READ) {
				m.arrows[i].flags |= RTR_ARROW_REMOTE;
				flagged++;
			}
		cr_assert_eq(rtr_scene_build(&s, &m, 0), 0);
		v = (struct rtr_render_view){ .t0 = m.start, .t1 = m.end, .width = W, .height = H,
					      .selected = RTR_MODEL_NONE };
		cr_assert_eq(rtr_render(cr, &s, &v, &f), 0);
		for (uint32_t y = 0; y < H; y++)
			for (uint32_t x = 0; x < W; x++) {
				uint32_t c = px(sf, (int)x, (int)y);

				teal[k] += c == 0x00a0a0;
				blue[k] += c == 0x0000ff;
			}
		rtr_frame_free(&f);
		cairo_destroy(cr);
		cairo_surface_destroy(sf);
		rtr_scene_free(&s);
		rtr_model_free(&m);
	}
	cr_assert_gt(flagged, 0, "the model has no read arrow");
	cr_expect_eq(teal[0], 0, "teal drawn with no request between traces: %u pixels", teal[0]);
	cr_expect_gt(blue[0], 20, "the reads are not drawn blue: %u pixels", blue[0]);
	cr_expect_gt(teal[1], 20, "the requests are not drawn teal: %u pixels", teal[1]);
	cr_expect_lt(blue[1], blue[0] / 4, "the requests are still drawn blue: %u pixels, %u "
		     "before", blue[1], blue[0]);
}

/* Dark pixels of the side panel (right of the 700 px drawing area): its text. */
static int panel_ink(cairo_surface_t *sf)
{
	int n = 0;

	for (int x = 722; x < 1000; x++)
		for (int y = 30; y < 380; y++) {
			uint32_t p = px(sf, x, y);

			n += (p >> 16 & 0xff) < 100 && (p >> 8 & 0xff) < 100 && (p & 0xff) < 100;
		}
	return n;
}

/*
 * H in the window: the durations of the selected task's kind in the side
 * panel (stats' log buckets), the tasks of its own bucket highlighted as
 * matches; [ moves to the bucket before.  The ARP demo's kind "task": the
 * main loop (302 ms) alone in its bucket, two of about a microsecond.
 */
Test(view_render, gui_histogram_of_a_kind_highlights_a_buckets_tasks)
{
	struct arp a;
	struct rtr_render_view v = { .width = 700, .height = 360 };
	cairo_surface_t *sf[3];
	const char *const scen[3] = { "click", "hist", "histprev" };
	uint32_t main_loop;
	int ink[3], band_main[3], sel_main[3];

	if (!have_xvfb() || system("command -v xdotool >/dev/null 2>&1"))
		cr_skip_test("xvfb-run or xdotool missing (Debian's xvfb, xdotool): no scripted input");
	arp_load(&a);
	main_loop = task_named(&a, "main loop");
	v.t0 = a.m.start;
	v.t1 = a.m.end;
	for (int i = 0; i < 3; i++) {
		char s[64];

		snprintf(s, sizeof(s), "%s:350:%d", scen[i], line_y(&a, &v, main_loop) + 1);
		sf[i] = drive(&a, s);
		if (!sf[i]) {
			arp_free(&a);
			cr_skip_test("no X display could be made under xvfb-run");
		}
		ink[i] = panel_ink(sf[i]);
		band_main[i] = band(&a, sf[i], main_loop, 700, match_band);
		sel_main[i] = band(&a, sf[i], main_loop, 700, selected_band);
		cr_log_info("%s: panel ink %d, main loop's band: matched %d, selected %d", scen[i],
			    ink[i], band_main[i], sel_main[i]);
	}
	cr_expect_gt(sel_main[0], 1000, "the click did not select the main loop: %d", sel_main[0]);
	cr_expect_eq(band_main[0], 0, "highlighted before H: %d", band_main[0]);
	cr_expect_gt(band_main[1], 1000, "H: the main loop, alone in its bucket, not highlighted: %d",
		     band_main[1]);
	cr_expect_gt(ink[1], ink[0] + 300, "H: no histogram in the panel (%d dark pixels, %d "
		     "before)", ink[1], ink[0]);
	cr_expect_eq(band_main[2], 0, "[: still the main loop's bucket highlighted: %d",
		     band_main[2]);
	cr_expect_gt(sel_main[2], 1000, "[: the main loop no longer selected: %d", sel_main[2]);
	for (int i = 0; i < 3; i++)
		cairo_surface_destroy(sf[i]);
	arp_free(&a);
}

/* @p within 48 of @c in each channel: a glyph's pixel in @c, antialiased. */
static bool near(uint32_t p, uint32_t c)
{
	for (int sh = 0; sh < 24; sh += 8) {
		int d = (int)(p >> sh & 0xff) - (int)(c >> sh & 0xff);

		if (d > 48 || d < -48)
			return false;
	}
	return true;
}

/*
 * A lock's row, as the page draws it: while others waited for the mutex, a
 * band in its holder's colour over the mutex's line, "held by" its name
 * under the band; nothing between the holds (record --pthread --hold-times
 * of rtr-sched-prog contend 4: the holder keeps the mutex 30 ms 4 times
 * while the waiter waits).
 */
Test(view_render, a_locks_holds_are_bands_in_the_holders_colour)
{
	/* view/render.c's lane colours, the page's */
	static const uint32_t lane_color[] = {
		0x4e79a7, 0xf28e2b, 0x59a14f, 0xb07aa1, 0x76b7b2, 0xedc948,
		0xff9da7, 0x9c755f, 0xbab0ac, 0x8cd17d, 0x86bcb6, 0xd37295,
	};
	const uint32_t W = 1200, H = 500;
	char dir[64], trace[128], err[256], *dirs[1] = { trace };
	struct rtr_model m;
	struct rtr_scene s;
	struct rtr_frame f = { 0 };
	struct rtr_render_layout l;
	cairo_surface_t *sf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, W, H);
	cairo_t *cr = cairo_create(sf);
	uint32_t lock = RTR_MODEL_NONE, bands = 0, names = 0;

	t_mkdtemp(dir, sizeof(dir), "render-locks");
	snprintf(trace, sizeof(trace), "%s/locks", dir);
	t_record_locks(trace);
	cr_assert_geq(rtr_model_load(&m, dirs, 1, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(rtr_scene_build(&s, &m, 0), 0);
	for (uint32_t k = 0; k < m.ntasks && lock == RTR_MODEL_NONE; k++)
		if (s.hold_first[k + 1] - s.hold_first[k] >= 4)
			lock = k;
	cr_assert_neq(lock, RTR_MODEL_NONE, "no lock held 4 times while another waited (%u holds)",
		      s.nholds);
	{
		const struct rtr_lock_hold *h = &s.holds[s.hold_first[lock]];
		uint32_t nh = s.hold_first[lock + 1] - s.hold_first[lock];
		struct rtr_render_view v = { .t0 = h[0].start - 5000000, .t1 = h[nh - 1].end + 5000000,
					     .width = W, .height = H, .selected = RTR_MODEL_NONE };
		double k = (double)W / (double)(v.t1 - v.t0), y;

		cr_assert_eq(rtr_render(cr, &s, &v, &f), 0);
		cairo_surface_flush(sf);
		rtr_render_layout(&s, &v, &l);
		cr_assert_geq(l.row_h, 24, "the rows are squeezed: %f", l.row_h);
		y = l.rows_y + ((double)s.task_row[lock] - l.row0 + 0.5) * l.row_h;
		for (uint32_t i = 0; i < nh; i++) {
			uint32_t c = lane_color[h[i].holder % 12];
			int x = (int)(((double)(h[i].start + h[i].end) / 2 - (double)v.t0) * k);

			cr_expect_eq(px(sf, x, (int)y - 2), c, "hold %u at x %d: %06x, not the holder's "
				     "%06x", i, x, px(sf, x, (int)y - 2), c);
			bands += px(sf, x, (int)y - 2) == c;
			/* the name under the band: some of its pixels in the holder's colour */
			for (int xx = (int)((h[i].start - v.t0) * k) + 2; xx < x; xx++)
				for (int yy = (int)y + 3; yy < (int)y + 14; yy++)
					names += near(px(sf, xx, yy), c);
			if (i + 1 < nh && h[i + 1].start - h[i].end > 2000000) {
				int gx = (int)(((double)(h[i].end + h[i + 1].start) / 2 - (double)v.t0) * k);

				cr_expect_neq(px(sf, gx, (int)y - 2), c, "a band between holds %u and %u",
					      i, i + 1);
			}
		}
	}
	cr_expect_eq(bands, s.hold_first[lock + 1] - s.hold_first[lock]);
	cr_expect_gt(names, 20, "no holder's name under the bands");
	rtr_frame_free(&f);
	cairo_destroy(cr);
	cairo_surface_destroy(sf);
	rtr_scene_free(&s);
	rtr_model_free(&m);
	t_rm_rf(dir);
}

/* The overview's bars (view/render.c, rtr_render_overview()). */
static int overview_px(cairo_surface_t *sf, int w, int h)
{
	int n = 0;

	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++)
			n += px(sf, x, y) == 0x1f4e9a;
	return n;
}

/*
 * gui --screenshot of @a's trace under xvfb with RINGTRACE_VIEW_MAX_EVENTS
 * @cap and the options @args, into @a->dir/@name: what it said (the
 * caller's to free).
 */
static char *capped_shot(const struct arp *a, uint64_t cap, const char *args, const char *name)
{
	char cmd[2048];
	int st;

	snprintf(cmd, sizeof(cmd), "RINGTRACE_VIEW_MAX_EVENTS=%" PRIu64 " GSK_RENDERER=cairo "
		 "NO_AT_BRIDGE=1 timeout 60 xvfb-run -a -s '-screen 0 1280x800x24' '%s/ringtrace' "
		 "gui --size 1000x400 %s --screenshot '%s/%s' '%s' 2>&1 | "
		 "grep -v -e dbus -e 'session bus'", cap, t_bindir(), args, a->dir, name, a->trace);
	return run(cmd, &st);
}

/* A task line's ink: dark, or red. */
static bool line_ink(uint32_t p)
{
	return ((p >> 16 & 0xff) < 0xa0 && (p >> 8 & 0xff) < 0xa0 && (p & 0xff) < 0xa0) ||
	       ((p >> 16 & 0xff) > 150 && (p >> 8 & 0xff) < 90 && (p & 0xff) < 90);
}

/*
 * A trace over the cap (RINGTRACE_VIEW_MAX_EVENTS here) is not refused by
 * gui: the whole of it is its overview, from the index; a view of few
 * enough events is loaded as a slice and drawn as any trace, its ruler
 * counting from the trace's start.
 */
Test(view_render, gui_of_a_trace_too_large_draws_its_overview_and_loads_a_narrow_view)
{
	struct arp a;
	struct rtr_overview ov;
	char path[256], range[64], err[256], *out;
	cairo_surface_t *sf;
	int ink;
	uint64_t cap;
	int64_t t = 0;

	if (!have_xvfb())
		cr_skip_test("xvfb-run missing (Debian's xvfb): the window is not tested");
	arp_load(&a);
	cr_assert_eq(rtr_overview_build(&ov, a.trace, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(ov.events, a.m.events);
	cap = ov.events - 1;
	/* the view: from the start, as far as a fifth of the events go (a slice loads at half the cap) */
	while (t < ov.end && rtr_overview_events(&ov, 0, t + 1000) <= ov.events / 5)
		t += 1000;
	cr_assert_gt(t, 0);
	snprintf(path, sizeof(path), "%s/whole.png", a.dir);
	out = capped_shot(&a, cap, "", "whole.png");
	if (strstr(out, "no display could be opened") || strstr(out, "xvfb-run: error")) {
		free(out);
		rtr_overview_free(&ov);
		arp_free(&a);
		cr_skip_test("no X display could be made under xvfb-run");
	}
	cr_assert(strstr(out, "its overview is drawn"), "%s", out);
	cr_assert(strstr(out, "whole.png"), "%s", out);
	free(out);
	sf = cairo_image_surface_create_from_png(path);
	cr_assert_eq(cairo_surface_status(sf), CAIRO_STATUS_SUCCESS, "%s", path);
	cr_expect_gt(overview_px(sf, 1000, 400), 50, "the whole trace: its overview's bars");
	for (int x = 0; x < 1000; x++)
		for (int y = 0; y < 399; y++)	/* red_near() looks at y + 1 too */
			cr_assert(!red_near(sf, x, y), "no task drawn in the overview (%d, %d)", x, y);
	cairo_surface_destroy(sf);

	snprintf(path, sizeof(path), "%s/narrow.png", a.dir);
	snprintf(range, sizeof(range), "--range 0..%" PRId64 "us", t / 1000);
	out = capped_shot(&a, cap, range, "narrow.png");
	cr_assert(strstr(out, "narrow.png"), "%s", out);
	free(out);
	sf = cairo_image_surface_create_from_png(path);
	cr_assert_eq(cairo_surface_status(sf), CAIRO_STATUS_SUCCESS, "%s", path);
	cr_expect_eq(overview_px(sf, 1000, 400), 0, "a narrow view: its slice, no overview");
	/*
	 * the slice's tasks: ink in the rows (dark or red pixels; the overview's
	 * bars are ruled out above).  The race's timing decides which tasks the
	 * range holds, and how long their lines are in the slice: an unresolved
	 * task ends at its last event in the slice (Documentation/viewer.rst,
	 * "Traces larger than memory"), the main loop after 50 us in one run.
	 */
	ink = count_px(sf, 0, 700, 20, 300, line_ink);
	cr_expect_geq(ink, 12, "the slice's tasks drawn: %d pixels of ink in the rows", ink);
	cairo_surface_destroy(sf);
	rtr_overview_free(&ov);
	arp_free(&a);
}

/*
 * What a trace lost is drawn, never left out: a loss is a red diamond on
 * its CPU's lane and a red line up through the rows, with how many where
 * the text fits (left of the mark at the right edge); a damaged stream's
 * lane is shaded red from its last good item on.
 */
/* A loss's count: dark red text, not the mark's red. */
static bool loss_text(uint32_t p)
{
	return (p >> 16 & 0xff) > 100 && (p & 0xff) < 60 && p != 0xd00000;
}

Test(view_render, losses_and_damage_are_drawn_on_their_cpus_lane)
{
	struct rtr_model m;
	struct rtr_scene s;
	struct rtr_frame f = { 0 };
	struct rtr_render_layout l;
	cairo_surface_t *sf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 800, 300);
	cairo_t *cr = cairo_create(sf);
	int lane_y, text;

	cr_assert_eq(synth_lane(&m, 10, 1000, 500), 0);	/* 0 .. 9500 ns */
	m.losses = calloc(2, sizeof(*m.losses));
	m.damage = calloc(1, sizeof(*m.damage));
	cr_assert(m.losses && m.damage);
	m.losses[m.nlosses++] = (struct rtr_model_loss){ .ts = 2500, .cpu = 0, .count = 40 };
	m.losses[m.nlosses++] = (struct rtr_model_loss){ .ts = m.end, .cpu = 0, .count = 3,
							 .kind = RTR_LOSS_PACKETS };
	m.damage[m.ndamage++] = (struct rtr_model_damage){ .trace = 0, .cpu = 0, .ts = 7000 };
	cr_assert_eq(rtr_scene_build(&s, &m, 0), 0);
	struct rtr_render_view v = { .t0 = 0, .t1 = m.end, .width = 800, .height = 300,
				     .selected = RTR_MODEL_NONE };

	cr_assert_eq(rtr_render(cr, &s, &v, &f), 0);
	rtr_render_layout(&s, &v, &l);
	cr_assert_eq(l.nlanes, 1);
	lane_y = (int)l.lanes_y;
	/* the first loss at x = 2500 / 9500 * 800 = 210.5: its diamond, its line over the rows */
	cr_assert_eq(px(sf, 210, lane_y + 4), 0xd00000, "the diamond: %06x", px(sf, 210, lane_y + 4));
	cr_assert_eq(px(sf, 210, (int)(l.rows_y + l.rows_h / 2)), 0xd00000, "the line over the rows");
	/* the last, at the right edge */
	cr_assert_eq(px(sf, 799, lane_y + 4), 0xd00000, "the loss at the trace's end: %06x",
		     px(sf, 799, lane_y + 4));
	/* their counts in dark red, right of the first mark and left of the last */
	text = count_px(sf, 216, 300, lane_y, lane_y + 9, loss_text);
	cr_assert_gt(text, 20, "\"40 events lost\" right of the mark: %d pixels", text);
	text = count_px(sf, 700, 792, lane_y, lane_y + 9, loss_text);
	cr_assert_gt(text, 20, "\"3 packets lost\" left of the last mark: %d pixels", text);
	/* the damage: the lane's bottom pixel row reddish from x = 7000 / 9500 * 800 = 589 on, not before */
	for (int x = 0; x < 800; x += 10) {
		uint32_t p = px(sf, x, lane_y + 1);
		bool reddish = (p >> 16 & 0xff) > (p >> 8 & 0xff) + 30;

		if (x < 580 && x != 210)
			cr_assert(!reddish || (x > 200 && x < 300), "no damage at x %d: %06x", x, p);
		else if (x > 600 && x < 690)	/* (then the last loss's count, on white) */
			cr_assert(reddish, "damage shaded at x %d: %06x", x, p);
	}
	cairo_destroy(cr);
	cairo_surface_destroy(sf);
	rtr_frame_free(&f);
	rtr_scene_free(&s);
	rtr_model_free(&m);
}

/*
 * Notes are purple marks under the ruler with a line down through the
 * rows, pauses brown regions; and a task named with bytes that are not
 * UTF-8 (a hostile or damaged trace's) is drawn with '?' for them while the
 * rest of the frame is still drawn (cairo draws nothing more once given an
 * invalid string): the loss after it in drawing order is there.
 */
Test(view_render, notes_pauses_and_names_that_are_not_utf8_are_drawn)
{
	static const char bad[] = "\xff\xfe\xc3 bad \xe0\x80\x80 name\x01";
	struct rtr_model m;
	struct rtr_scene s;
	struct rtr_frame f = { 0 };
	struct rtr_render_layout l;
	cairo_surface_t *sf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 800, 300);
	cairo_t *cr = cairo_create(sf);
	int note_x, brown = 0;
	char *p;

	cr_assert_eq(synth_lane(&m, 4, 2500, 2000), 0);	/* 0 .. 9500 ns, each task 2 us: labelled */
	p = realloc(m.strs, m.strs_len + sizeof(bad));
	cr_assert(p);
	m.strs = p;
	memcpy(m.strs + m.strs_len, bad, sizeof(bad));
	m.tasks[0].name = m.tasks[1].name = (uint32_t)m.strs_len;
	m.strs_len += sizeof(bad);
	m.strs_cap = m.strs_len;
	m.notes = calloc(1, sizeof(*m.notes));
	m.pauses = calloc(1, sizeof(*m.pauses));
	m.losses = calloc(1, sizeof(*m.losses));
	cr_assert(m.notes && m.pauses && m.losses);
	m.notes[m.nnotes++] = (struct rtr_model_note){ .ts = 5000, .thread = RTR_MODEL_NONE,
						       .text = m.tasks[0].name, .len = sizeof(bad) - 1 };
	m.pauses[m.npauses++] = (struct rtr_model_pause){ .start = 6000, .end = 8000,
							  .reason = m.tasks[0].name, .len = sizeof(bad) - 1 };
	m.losses[m.nlosses++] = (struct rtr_model_loss){ .ts = 3000, .cpu = 0, .count = 5 };
	cr_assert_eq(rtr_scene_build(&s, &m, 0), 0);
	struct rtr_render_view v = { .t0 = 0, .t1 = m.end, .width = 800, .height = 300,
				     .selected = RTR_MODEL_NONE };

	cr_assert_eq(rtr_render(cr, &s, &v, &f), 0);
	cr_assert_eq(cairo_status(cr), CAIRO_STATUS_SUCCESS, "%s", cairo_status_to_string(cairo_status(cr)));
	cr_assert_eq(f.nnotes, 1);
	cr_assert_eq(f.npauses, 1);
	rtr_render_layout(&s, &v, &l);
	/* the note at x = 5000 / 9500 * 800 = 421: its mark under the ruler, its line in the rows */
	note_x = (int)f.notes[0].x0;
	cr_assert_eq(px(sf, note_x, RTR_RENDER_RULER_H - 3), 0x7b1fa2, "the note's mark: %06x",
		     px(sf, note_x, RTR_RENDER_RULER_H - 3));
	cr_assert_neq(px(sf, note_x, (int)(l.rows_y + l.rows_h - 5)),
		      px(sf, note_x + 3, (int)(l.rows_y + l.rows_h - 5)), "its line through the rows");
	/* the pause from 505 to 673: brownish, low in the rows where nothing else is drawn */
	for (int x = 510; x < 670; x += 5) {
		uint32_t q = px(sf, x, (int)(l.rows_y + l.rows_h - 5));

		brown += (q >> 16 & 0xff) > (q & 0xff) + 15;
	}
	cr_assert_geq(brown, 30, "the pause shaded: %d of 32 columns", brown);
	/* drawn after the labels: the loss's diamond at x = 3000 / 9500 * 800 = 252 */
	cr_assert_eq(px(sf, 252, (int)l.lanes_y + 4), 0xd00000, "the frame went on after the name: %06x",
		     px(sf, 252, (int)l.lanes_y + 4));
	cairo_destroy(cr);
	cairo_surface_destroy(sf);
	rtr_frame_free(&f);
	rtr_scene_free(&s);
	rtr_model_free(&m);
}

/*
 * The side panel of a task whose label is not UTF-8 (rtr-viewer-traces'
 * basic trace, its "alpha" made "\xff\xfepha"): its details are shown, the
 * bytes replaced; GTK refused the whole panel's markup before ("Failed to
 * set text") and showed nothing.  So with a kind named "re<q>st" (its
 * metadata's enum label): escaped, not taken for markup.
 */
Test(view_render, gui_shows_the_details_of_a_task_named_with_bytes_that_are_not_utf8)
{
	char dir[64], cmd[2048], path[256], *out;
	cairo_surface_t *sf;
	int st;

	if (!have_xvfb())
		cr_skip_test("xvfb-run missing (Debian's xvfb): the window is not tested");
	t_mkdtemp(dir, sizeof(dir), "render-utf8");
	snprintf(cmd, sizeof(cmd), "cd '%s' && '%s/rtr-viewer-traces' t >/dev/null && grep -c alpha "
		 "t/basic/stream_* | grep -v ':0$' | wc -l && LC_ALL=C sed -i 's/alpha/\\xff\\xfepha/g' "
		 "t/basic/stream_* && sed -i 's/\"request\"/\"re<q>st\"/' t/basic/metadata", dir,
		 t_bindir());
	out = run(cmd, &st);
	cr_assert(strstr(out, "rc=0") && atoi(out) >= 1, "a stream with the label patched: %s", out);
	free(out);
	snprintf(path, sizeof(path), "%s/bad.png", dir);
	/* the first match of "pha", then beta, of kind re<q>st */
	for (int i = 0; i < 2; i++) {
		const char *search = i ? "beta" : "pha";

		snprintf(cmd, sizeof(cmd), "GSK_RENDERER=cairo NO_AT_BRIDGE=1 timeout 60 xvfb-run -a "
			 "'%s/ringtrace' gui --size 1000x400 --search %s --screenshot '%s' --force "
			 "'%s/t/basic' 2>&1 | grep -v -e dbus -e 'session bus'", t_bindir(), search,
			 path, dir);
		out = run(cmd, &st);
		if (strstr(out, "no display could be opened") || strstr(out, "xvfb-run: error")) {
			free(out);
			t_rm_rf(dir);
			cr_skip_test("no X display could be made under xvfb-run");
		}
		cr_assert(strstr(out, "bad.png") && !strstr(out, "Failed to set"), "%s: %s", search, out);
		free(out);
		sf = cairo_image_surface_create_from_png(path);
		cr_assert_eq(cairo_surface_status(sf), CAIRO_STATUS_SUCCESS, "%s", path);
		cr_assert_gt(panel_ink(sf), 300, "%s's details in the panel: %d dark pixels", search,
			     panel_ink(sf));
		cairo_surface_destroy(sf);
	}
	t_rm_rf(dir);
}
