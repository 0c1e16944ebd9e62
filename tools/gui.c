// SPDX-License-Identifier: MIT
/*
 * tools/gui.c - `ringtrace gui TRACE...`: the seeds' native window (GTK 4)
 * on the scene (view/scene.h), drawn on each frame by the one renderer
 * (view/render.h) from a window query of the visible range
 * (Documentation/viewer.rst, "The window").  Drag to pan, the wheel zooms
 * around the pointer, / searches, a click opens a task's details.
 * `--screenshot FILE.png` draws the first frame of the window, saves what
 * GTK rendered, and exits.  Built when GTK 4 is there (CONFIG_GTK).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "reader/model.h"
#include "view/links.h"
#include "view/live.h"
#include "view/path.h"
#include "view/slices.h"
#include "tools/analysis.h"
#include "tools/cli.h"
#include "tools/commands.h"
#include "tools/render_out.h"
#include "tools/xen_follow.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ringtrace gui [--size WxH] [--range T0..T1] [--search QUERY]\n"
		"                     [--align clock|start] [--screenshot FILE.png [--force]] TRACE...\n"
		"       ringtrace gui --follow [options] TRACE\n"
		"       ringtrace gui [options] -\n"
		"       ringtrace gui --xen-domain NAME|ID [options]\n\n"
		"Open the CTF traces TRACE... in a window (GTK 4): tasks as lines, arrows\n"
		"between them, counters, the CPUs' lanes, drawn by the renderer of `ringtrace\n"
		"view --format` (Documentation/viewer.rst).  Each TRACE is a trace directory\n"
		"or a directory of rotated chunks.\n\n"
		"  --size WxH       the window's size (default 1280x800)\n"
		"  --range T0..T1   show that time range first, from the start of the\n"
		"                   earliest trace (20ms..35ms; default: all of it)\n"
		"  --search QUERY   highlight the tasks matching QUERY and show the first\n"
		"                   (as the / key: a substring, or /regex/flags)\n"
		"  --align clock    the traces on one time axis, their clocks' (the default)\n"
		"  --align start    each trace from its own start, one above the other\n"
		"  -f, --follow     follow TRACE while a recorder writes it (a directory\n"
		"                   `ringtrace record -o` is writing or will make): new events\n"
		"                   appear as they reach the disk; a view at the end stays\n"
		"                   there.  - (the stream of `ringtrace record -o -` on\n"
		"                   standard input) is followed as it arrives, and so is\n"
		"                   net://HOST[:PORT]/host/HOSTNAME/SESSION (a session live\n"
		"                   in an lttng-relayd)\n"
		"  --xen-domain D   in dom0: follow the trace of Xen guest D (a name, as\n"
		"                   xl list shows it, or an id) as `ringtrace consume\n"
		"                   --xen-domain D -o -` streams it (run by the window)\n"
		"  --screenshot FILE.png  draw the window's first frame into FILE.png and\n"
		"                   exit (a new file: --force replaces one)\n"
		"  --on-signal      with --screenshot: not at the first frame, but when\n"
		"                   SIGUSR1 comes (scripted input, then the picture);\n"
		"                   following, without it: once the recording ended\n"
		"  --slice T0..T1   read that time range of each trace only (T0.., ..T1:\n"
		"                   from its start, to its end; times from its first event),\n"
		"                   through the index beside it (built if missing)\n"
		"  -h, --help       this text\n\n"
		"Keys: drag to pan, wheel to zoom around the pointer (shift: rows), click a\n"
		"task for its details, / search, Enter or n next match, N previous, + - zoom,\n"
		"arrows or h j k l to move, 0 or Home the whole trace, e or End the end, p\n"
		"the selected task's critical path, H the durations of its kind ([ ] its\n"
		"buckets, each highlighting its tasks), Esc clear, ? help.\n\n"
		"A trace with more events than a model can hold in the memory available\n"
		"(some 300 bytes an event; RINGTRACE_VIEW_MAX_EVENTS sets the cap) opens on\n"
		"its overview, each stream's events over time from the index beside it;\n"
		"zoomed in to at most 400,000 events, the view's slice is loaded and drawn.\n\n"
		"exit status: 0 closed, 1 a trace that could not be read, no display, or the\n"
		"screenshot not written, 2 usage\n");
}

struct gui_opts {
	struct rtr_picture_opts pic;
	const char *screenshot;
	const char *search;
	bool on_signal;
	bool force;
	bool align;
	bool follow;
	const char *xen_domain;
};

#ifdef RTR_HAVE_GTK
#include <signal.h>
#include <glib-unix.h>
#include <gtk/gtk.h>

#define MIN_SPAN_NS	20	/* zooming in stops at 20 ns across the window */
#define GUI_LINKS_MAX	20	/* the tasks the side panel links to, a kind of arrow */

struct gui {
	struct rtr_model *m;	/* ls's */
	struct rtr_scene *s;
	struct rtr_live_scene *ls;	/* the model and scene drawn */
	struct rtr_frame f;
	struct rtr_render_view v;
	const struct gui_opts *o;
	GtkApplication *app;
	GtkWidget *win, *area, *details, *search, *status;
	uint32_t *matches;
	uint32_t nmatches, cur;
	struct rtr_path path;	/* `p`: the selected task's critical path, drawn (v.path) */
	/* `H`: the durations of a kind, its tasks in one bucket highlighted (as matches) */
	char *hist_kind;	/* the kind's name: NULL, no histogram */
	int64_t *hist_d;	/* sorted */
	uint64_t hist_n;
	uint32_t hist_b;	/* the bucket highlighted */
	double pointer_x;
	int64_t drag_t0, drag_t1;
	uint32_t drag_row0;
	double frame_ms;
	uint32_t pending;	/* a task to bring into view once the window has a size */
	int64_t shown[4];	/* the view the status line describes: t0, t1, matches, turn */
	bool status_pending;
	bool shot_wanted;	/* --on-signal: SIGUSR1 came */
	bool shot_taken;
	int shot_tries;		/* snapshots of the window that held nothing yet */
	int rc;
	/* following (--follow, -): a thread makes each turn's scene, the main loop swaps it in */
	struct rtr_live *live;
	GThread *follower;
	GMutex lock;		/* next, live_msg, quit */
	struct rtr_live_scene *next;	/* made, not yet swapped in */
	char live_msg[1100];	/* the follower's error, to be said */
	bool live_info;		/* ... not an error: why the guest's trace ended */
	bool quit;		/* the window closed: the follower stops */
	struct xen_follow xen;	/* --xen-domain: consume, whose stream is our standard input */
	bool ended;		/* the recording's last scene is drawn */
	bool closed;		/* the window is destroyed: nothing more is swapped in */
	/*
	 * RINGTRACE_GUI_LAG_LOG (scripts/bench-live.sh): a line per followed
	 * scene once drawn, "WALL_NS END_NS EVENTS", the wall clock then and
	 * the scene's newest time (CLOCK_REALTIME ns both)
	 */
	FILE *lag_log;
	uint64_t lag_turn;	/* the last turn written there, + 1 */
	/*
	 * A trace too large for a model (more events than memory or
	 * RINGTRACE_VIEW_MAX_EVENTS allows): its overview drawn where the view
	 * holds more events than a slice loads, the slice around the view
	 * where it holds fewer (view/slices.h), swapped in as a followed
	 * scene is.  Overview times are the model's + off().
	 */
	struct rtr_slices *sl;
	bool loading;		/* (lock) */
	/*
	 * RINGTRACE_GUI_BENCH (scripts/bench-index.sh): after the first frame,
	 * a scripted zoom from the whole trace to 1 us around its middle, with
	 * pans at each level, a step a frame (waiting for slices to load);
	 * then each frame's drawing time and the process's memory written
	 * there, and the window closed
	 */
	FILE *bench;
	double *bench_ms;	/* by frame drawn while scripted */
	uint32_t bench_n, bench_cap, bench_step, bench_overviews;
	gint64 bench_start;
	bool overview;		/* the last frame was the overview */
	bool loadable;		/* ... of a view a slice is loaded for */
};

static const char help_text[] =
	"<b>Keys</b>\n"
	"drag\tmove in time and rows\n"
	"wheel\tzoom around the pointer\n"
	"shift+wheel\tmove the rows\n"
	"click\ta task's details\n"
	"/\tsearch (substring, or /regex/i)\n"
	"Enter, n\tnext match\n"
	"N\tprevious match\n"
	"H\tthe durations of the selected task's kind\n"
	"[  ]\tthe histogram's previous, next bucket\n"
	"+  -\tzoom in, out\n"
	"← →  h l\tmove in time\n"
	"↑ ↓  k j\tmove by a row (PgUp PgDn: 10)\n"
	"0, Home\tthe whole trace\n"
	"e, End\tthe end (kept there while following)\n"
	"p\tthe selected task's critical path\n"
	"Esc\tclear search, selection and path\n"
	"?\tthis help";

/* Overview times less the model's: 0 unless a slice of a trace too large is drawn. */
static int64_t off(const struct gui *g)
{
	return g->sl ? rtr_slices_off(g->sl, g->m) : 0;
}

/* The first and last time there is to show, the model's times: the whole trace's with an overview. */
static int64_t first_t(const struct gui *g)
{
	return g->sl ? -off(g) : g->m->start;
}

static int64_t last_t(const struct gui *g)
{
	return g->sl ? g->sl->ov.end - off(g) : g->m->end;
}

static void whole(struct gui *g)
{
	g->v.t0 = first_t(g);
	g->v.t1 = last_t(g) > first_t(g) ? last_t(g) : first_t(g) + 1;
	g->v.row0 = 0;
}

static void clamp_view(struct gui *g)
{
	int64_t start = first_t(g), span = g->v.t1 - g->v.t0, all = last_t(g) - start;

	if (all < 1)
		all = 1;
	if (span < MIN_SPAN_NS)
		span = MIN_SPAN_NS;
	if (span > all) {
		g->v.t0 = start;
		g->v.t1 = start + all;
		return;
	}
	if (g->v.t0 < start)
		g->v.t0 = start;
	if (g->v.t0 + span > start + all)
		g->v.t0 = start + all - span;
	g->v.t1 = g->v.t0 + span;
	if (g->s->nrows && g->v.row0 >= g->s->nrows)
		g->v.row0 = g->s->nrows - 1;
}

/*
 * The status line, written when the view it describes changed (not on every
 * frame: a new text redraws the window, and the window would never rest).
 */
static void status(struct gui *g)
{
	char buf[512], live[160] = "";
	int64_t start = first_t(g);

	if (g->live)
		snprintf(live, sizeof(live), "   %s: %" PRIu64 " events%s, turn %" PRIu64 "%s",
			 g->ended ? "recording ended" : "following", g->m->events,
			 g->m->sliced ? " (its tail)" : "", g->ls->turn,
			 g->ended || g->v.t1 < g->m->end ? "" : " (pinned to the end: e)");
	if (g->sl && g->overview)
		snprintf(live, sizeof(live), "   overview: %" PRIu64 " events in view, a slice "
			 "loads at %" PRIu64, rtr_overview_events(&g->sl->ov, g->v.t0 + off(g),
								   g->v.t1 + off(g)), g->sl->slice_max);
	else if (g->sl)
		snprintf(live, sizeof(live), "   slice of %" PRIu64 " events (%.6f .. %.6f s); "
			 "search in it", g->m->events, g->sl->have_a / 1e9,
			 (g->sl->have_b < g->sl->ov.end ? g->sl->have_b : g->sl->ov.end) / 1e9);
	snprintf(buf, sizeof(buf), "%.6f .. %.6f s   %" PRIu64 " tasks in view   %u rows   "
		 "%u matches   frame %.2f ms%s   ? for keys",
		 (g->v.t0 - start) / 1e9, (g->v.t1 - start) / 1e9, g->f.tasks_in_view,
		 g->s->nrows, g->nmatches, g->frame_ms, live);
	gtk_label_set_text(GTK_LABEL(g->status), buf);
}

static gboolean status_idle(gpointer data)
{
	struct gui *g = data;

	g->status_pending = false;
	if (g->closed)
		return G_SOURCE_REMOVE;
	status(g);
	return G_SOURCE_REMOVE;
}

static void redraw(struct gui *g)
{
	clamp_view(g);
	gtk_widget_queue_draw(g->area);
}

static void zoom(struct gui *g, double factor, double x)
{
	double span = (double)(g->v.t1 - g->v.t0), at = g->v.t0 + span * x / g->v.width;
	double nspan = span * factor;

	if (nspan < MIN_SPAN_NS)
		nspan = MIN_SPAN_NS;
	g->v.t0 = (int64_t)(at - nspan * x / g->v.width);
	g->v.t1 = g->v.t0 + (int64_t)nspan;
	redraw(g);
}

static void pan(struct gui *g, double px)
{
	int64_t d = (int64_t)(px * (double)(g->v.t1 - g->v.t0) / g->v.width);

	g->v.t0 += d;
	g->v.t1 += d;
	redraw(g);
}

/*
 * @s for Pango markup: valid UTF-8 (g_utf8_make_valid()), control
 * characters but newlines and tabs as '?' (markup refuses even their
 * character references), then escaped.  A trace's strings are its
 * writer's bytes, and one invalid string makes a label show nothing.
 * g_free() the result.
 */
static char *markup_text(const char *s)
{
	char *v = g_utf8_make_valid(s, -1), *e;

	for (char *p = v; *p; p++)
		if (((unsigned char)*p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7f)
			*p = '?';
	e = g_markup_escape_text(v, -1);
	g_free(v);
	return e;
}

static void rows_by(struct gui *g, int64_t n)
{
	int64_t r = (int64_t)g->v.row0 + n;

	g->v.row0 = r < 0 ? 0 : (uint32_t)r;
	redraw(g);
}

static void bring_into_view(struct gui *g, uint32_t task);
static void to_end(struct gui *g);
static bool draw_overview(struct gui *g, cairo_t *cr);

static void draw(GtkDrawingArea *area, cairo_t *cr, int w, int h, gpointer data)
{
	struct gui *g = data;
	gint64 t = g_get_monotonic_time();

	g->v.width = w < 1 ? 1 : w > RTR_SCENE_MAX_WIDTH ? RTR_SCENE_MAX_WIDTH : (uint32_t)w;
	g->v.height = h < 1 ? 1 : (uint32_t)h;
	clamp_view(g);
	if (g->pending != RTR_MODEL_NONE) {
		uint32_t task = g->pending;

		g->pending = RTR_MODEL_NONE;
		bring_into_view(g, task);
		clamp_view(g);
	}
	/* a trace too large: its overview where the slice drawn does not hold the view */
	if (!draw_overview(g, cr) && rtr_render(cr, g->s, &g->v, &g->f))
		fprintf(stderr, "ringtrace gui: out of memory drawing a frame\n");
	g->frame_ms = (g_get_monotonic_time() - t) / 1000.0;
	if (g->bench && g->bench_step) {
		if (g->bench_n == g->bench_cap) {
			uint32_t nc = g->bench_cap ? 2 * g->bench_cap : 256;
			double *n = realloc(g->bench_ms, nc * sizeof(*n));

			if (n) {
				g->bench_ms = n;
				g->bench_cap = nc;
			}
		}
		if (g->bench_n < g->bench_cap)
			g->bench_ms[g->bench_n++] = g->frame_ms;
		g->bench_overviews += g->overview;
	}
	if (g->lag_log && g->lag_turn != g->ls->turn + 1 && g->m->events) {
		struct timespec now;

		clock_gettime(CLOCK_REALTIME, &now);
		fprintf(g->lag_log, "%" PRId64 " %" PRId64 " %" PRIu64 "\n",
			(int64_t)now.tv_sec * 1000000000 + now.tv_nsec, g->m->origin_ns + g->m->end,
			g->m->events);
		fflush(g->lag_log);
		g->lag_turn = g->ls->turn + 1;
	}
	if (!g->status_pending && (g->shown[0] != g->v.t0 || g->shown[1] != g->v.t1 ||
				   g->shown[2] != g->nmatches || g->shown[3] != (int64_t)g->ls->turn)) {
		g->shown[0] = g->v.t0;
		g->shown[1] = g->v.t1;
		g->shown[2] = g->nmatches;
		g->shown[3] = (int64_t)g->ls->turn;
		g->status_pending = true;
		g_idle_add(status_idle, g);
	}
}

/* Show @task: its line in the middle of the window, its row in view. */
static void bring_into_view(struct gui *g, uint32_t task)
{
	const struct rtr_model_task *t = &g->m->tasks[task];
	struct rtr_render_layout l;
	int64_t len = t->end - t->created, span = g->v.t1 - g->v.t0;
	uint32_t row = g->s->task_row[task];

	if (g->v.height < 2) {	/* not drawn yet: on the first frame */
		g->pending = task;
		return;
	}
	if (len * 2 > span || t->end < g->v.t0 || t->created > g->v.t1) {
		span = len * 2 > span ? len * 2 + 1 : span;
		g->v.t0 = t->created - (span - len) / 2;
		g->v.t1 = g->v.t0 + span;
	}
	rtr_render_layout(g->s, &g->v, &l);
	if (row < l.row0 || row >= l.row1)
		g->v.row0 = row > (l.row1 - l.row0) / 2 ? row - (l.row1 - l.row0) / 2 : 0;
	redraw(g);
}

static void add_link(GString *s, const char *what, const struct gui *g, uint32_t task)
{
	char buf[32];
	char *name, *kind;

	if (task == RTR_MODEL_NONE)
		return;
	name = markup_text(rtr_scene_task_name(g->s, task, buf, sizeof(buf)));
	kind = markup_text(rtr_model_str(g->m, g->m->tasks[task].kind_name));
	g_string_append_printf(s, "%s: <a href=\"task:%u\">%s</a> (%s)\n", what, task, name, kind);
	g_free(name);
	g_free(kind);
}

/* Where it ran (view/links.h): "ran on: cpu 0: 1.2 ms in 3 runs; ...", and the threads'. */
static void where_text(GString *s, const struct gui *g, uint32_t task)
{
	const struct rtr_model *m = g->m;
	struct rtr_task_where *w;
	uint32_t n;
	char d[32];

	for (int by_thread = 0; by_thread < 2; by_thread++) {
		if (rtr_task_where(g->s, task, by_thread, &w, &n)) {
			g_string_append(s, "(out of memory)\n");
			return;
		}
		for (uint32_t i = 0; i < n && i < GUI_LINKS_MAX; i++) {
			g_string_append(s, i ? "; " : by_thread ? "threads: " : "ran on: ");
			if (by_thread)
				g_string_append_printf(s, "tid %" PRIu64, m->threads[w[i].index].tid);
			else if (m->cpus[w[i].index].cpu == RTR_MODEL_NONE)
				g_string_append(s, "cpu ?");
			else
				g_string_append_printf(s, "cpu %u", m->cpus[w[i].index].cpu);
			g_string_append_printf(s, ": %s in %u run%s", an_dur(d, sizeof(d), w[i].ns), w[i].runs,
					       w[i].runs > 1 ? "s" : "");
		}
		if (n > GUI_LINKS_MAX)
			g_string_append_printf(s, " and %u more", n - GUI_LINKS_MAX);
		if (n)
			g_string_append(s, "\n");
		free(w);
	}
}

/* The counter changes it made (view/links.h): "counters: queue#1+3 at 1.2 ms, ...". */
static void counter_text(GString *s, const struct gui *g, uint32_t task)
{
	const struct rtr_model *m = g->m;
	struct rtr_task_counter *c;
	uint32_t n;
	uint64_t all;
	char d[32];

	if (rtr_task_counters(g->s, task, GUI_LINKS_MAX, &c, &n, &all)) {
		g_string_append(s, "(out of memory listing its counters)\n");
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		gchar *name = markup_text(rtr_model_str(m, m->counters[c[i].counter].name));

		g_string_append_printf(s, "%s%s%s%" PRId64 " at %s", i ? ", " : "counters: ", name,
				       c[i].delta >= 0 ? "+" : "", c[i].delta,
				       an_dur(d, sizeof(d), c[i].ts - m->start));
		g_free(name);
	}
	if (all > n)
		g_string_append_printf(s, " and %" PRIu64 " more", all - n);
	if (n)
		g_string_append(s, "\n");
	free(c);
}

/*
 * The tasks it is linked to by its arrows (view/links.h), a line a kind:
 * "read by: a (kind), b (kind) and 3 more", each a link.
 */
static void arrow_links(GString *s, const struct gui *g, uint32_t task)
{
	struct rtr_task_link *l;
	uint32_t n, more[RTR_LINK_KINDS];
	char buf[32];

	if (rtr_task_links(g->s, task, GUI_LINKS_MAX, &l, &n, more)) {
		g_string_append(s, "(out of memory listing its links)\n");
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		char *name = markup_text(rtr_scene_task_name(g->s, l[i].task, buf, sizeof(buf)));
		char *kind = markup_text(rtr_model_str(g->m, g->m->tasks[l[i].task].kind_name));
		bool first = !i || l[i - 1].kind != l[i].kind;
		bool last = i + 1 == n || l[i + 1].kind != l[i].kind;

		if (first)
			g_string_append_printf(s, "%s: ", rtr_link_kind_str(l[i].kind));
		g_string_append_printf(s, "<a href=\"task:%u\">%s</a> (%s)%s", l[i].task, name, kind,
				       last ? "" : ", ");
		if (last && more[l[i].kind])
			g_string_append_printf(s, " and %u more", more[l[i].kind]);
		if (last)
			g_string_append(s, "\n");
		g_free(name);
		g_free(kind);
	}
	free(l);
}

/* The critical path in words: its length, then its top segments (`ringtrace why`'s first level). */
static void path_text(GString *s, const struct gui *g)
{
	const struct rtr_critpath *cp = &g->path.cp;
	char d[32], buf[32];

	g_string_append_printf(s, "\n<b>critical path</b> (p)\n%s%s, %u segments drawn\n",
			       an_dur(d, sizeof(d), cp->end - cp->start),
			       cp->resolved ? "" : " (not resolved: to the trace's end)", g->path.n);
	for (uint32_t i = 0; i < cp->ntop && i < 12; i++) {
		const struct rtr_cp_seg *sg = &cp->segs[i];
		uint32_t who = sg->other != RTR_MODEL_NONE ? sg->other : sg->by;
		char *esc = who == RTR_MODEL_NONE ? NULL :
			    markup_text(rtr_scene_task_name(g->s, who, buf, sizeof(buf)));

		g_string_append_printf(s, "  %s %s%s%s\n", an_dur(d, sizeof(d), sg->end - sg->start),
				       rtr_cp_what_str(sg->what), esc ? " " : "", esc ? esc : "");
		g_free(esc);
	}
	if (cp->ntop > 12)
		g_string_append_printf(s, "  and %u more\n", cp->ntop - 12);
}

/* No path drawn (a new scene, Esc, `p` again). */
static void path_clear(struct gui *g)
{
	rtr_path_free(&g->path);
	g->v.path = NULL;
	g->v.npath = 0;
}

static void show_details(struct gui *g, uint32_t task);

/* ---- `H`: a kind's durations (tools/analysis.h's log buckets, as `stats`) ---------- */

static void hist_clear(struct gui *g)
{
	if (!g->hist_kind)
		return;
	free(g->hist_kind);
	free(g->hist_d);
	g->hist_kind = NULL;
	g->hist_d = NULL;
	g->hist_n = 0;
	free(g->matches);
	g->matches = NULL;
	g->nmatches = 0;
	g->v.marks = NULL;
	g->v.nmarks = 0;
}

/*
 * Bucket @b of the histogram: its tasks highlighted as a search's matches
 * (n, N go through them), the side panel and the status line saying so.
 */
static void hist_select(struct gui *g, uint32_t b)
{
	int64_t lo = an_hist_low(b), hi = an_hist_low(b + 1), d;
	uint32_t n = 0;

	g->hist_b = b;
	free(g->matches);
	g->matches = malloc(((size_t)g->m->ntasks + 1) * sizeof(*g->matches));
	for (uint32_t t = 0; g->matches && t < g->m->ntasks; t++)
		if (!strcmp(rtr_model_str(g->m, g->m->tasks[t].kind_name), g->hist_kind) &&
		    an_task_duration(g->m, t, &d) && d >= lo && d < hi)
			g->matches[n++] = t;
	g->nmatches = g->matches ? n : 0;
	g->v.marks = g->matches;
	g->v.nmarks = g->nmatches;
	g->cur = g->nmatches ? g->nmatches - 1 : 0;	/* n: the first */
	show_details(g, g->v.selected);
	redraw(g);
}

/* The kind's durations in the new scene (following), the same bucket highlighted. */
static void hist_refresh(struct gui *g)
{
	uint32_t kind = RTR_MODEL_NONE;

	free(g->hist_d);
	g->hist_d = NULL;
	g->hist_n = 0;
	for (uint32_t t = 0; t < g->m->ntasks && kind == RTR_MODEL_NONE; t++)
		if (!strcmp(rtr_model_str(g->m, g->m->tasks[t].kind_name), g->hist_kind))
			kind = g->m->tasks[t].kind_name;
	if (kind != RTR_MODEL_NONE)
		g->hist_d = an_kind_durations(g->m, kind, &g->hist_n);
	hist_select(g, g->hist_b);
}

/* `H`: the selected task's kind's durations, the bucket of its own highlighted; again: off. */
static void hist_toggle(struct gui *g)
{
	uint32_t task = g->v.selected;
	int64_t d;

	if (g->hist_kind) {
		hist_clear(g);
		show_details(g, task);
		redraw(g);
		return;
	}
	if (task == RTR_MODEL_NONE) {
		gtk_label_set_markup(GTK_LABEL(g->details), "Select a task (click it), then H for "
				     "the durations of its kind.");
		return;
	}
	/* the search's matches give way to the bucket's */
	gtk_editable_set_text(GTK_EDITABLE(g->search), "");
	g_object_set_data(G_OBJECT(g->search), "q", NULL);
	g->hist_kind = strdup(rtr_model_str(g->m, g->m->tasks[task].kind_name));
	g->hist_d = g->hist_kind ? an_kind_durations(g->m, g->m->tasks[task].kind_name,
						     &g->hist_n) : NULL;
	if (!g->hist_d) {
		hist_clear(g);
		fprintf(stderr, "ringtrace gui: the histogram: out of memory\n");
		return;
	}
	if (!an_task_duration(g->m, task, &d))
		d = g->hist_n ? an_quantile(g->hist_d, g->hist_n, 0.5) : 0;
	hist_select(g, an_hist_bucket(d));
}

/* `[`, `]`: the previous or next bucket that holds a task. */
static void hist_step(struct gui *g, int dir)
{
	uint32_t b = g->hist_b;

	if (!g->hist_kind || !g->hist_n)
		return;
	for (uint64_t i = 0; i < g->hist_n; i++) {	/* sorted: the first above, the last below */
		uint32_t k = an_hist_bucket(g->hist_d[i]);

		if (dir > 0 && k > g->hist_b) {
			b = k;
			break;
		}
		if (dir < 0 && k < g->hist_b)
			b = k;
	}
	if (b != g->hist_b)
		hist_select(g, b);
}

/* The histogram in the side panel: a line per bucket, from the first to the last. */
static void hist_text(GString *s, const struct gui *g)
{
	const int64_t *v = g->hist_d;
	uint64_t n = g->hist_n, at = 0, most = 1;
	char a[32], b[32], c[32], d[32];
	uint32_t b0, b1, lines = 0;
	char *esc = markup_text(g->hist_kind);

	g_string_append_printf(s, "\n<b>durations of %s</b> (H; [ ] buckets)\n", esc);
	g_free(esc);
	if (!n) {
		g_string_append(s, "none: no task of this kind created and resolved\n");
		return;
	}
	g_string_append_printf(s, "%" PRIu64 " tasks: p50 %s, p90 %s, p99 %s, max %s\n", n,
			       an_dur(a, sizeof(a), an_quantile(v, n, 0.5)),
			       an_dur(b, sizeof(b), an_quantile(v, n, 0.9)),
			       an_dur(c, sizeof(c), an_quantile(v, n, 0.99)),
			       an_dur(d, sizeof(d), v[n - 1]));
	b0 = an_hist_bucket(v[0]);
	b1 = an_hist_bucket(v[n - 1]);
	for (uint64_t i = 0, run = 0; i < n; i++) {
		run = i && an_hist_bucket(v[i]) == an_hist_bucket(v[i - 1]) ? run + 1 : 1;
		most = run > most ? run : most;
	}
	for (uint32_t k = b0; k <= b1 && lines < 40; k++) {
		uint64_t cnt = 0;

		while (at < n && an_hist_bucket(v[at]) == k)
			at++, cnt++;
		if (!cnt && k != g->hist_b)
			continue;
		g_string_append_printf(s, "%s<a href=\"hist:%u\">%s .. %s</a> ",
				       k == g->hist_b ? "<b>&gt; " : "  ", k,
				       an_dur(a, sizeof(a), an_hist_low(k)),
				       an_dur(b, sizeof(b), an_hist_low(k + 1)));
		for (uint64_t j = 0; j < (cnt * 8 + most - 1) / most; j++)
			g_string_append(s, "\u2588");	/* a bar of at most 8 */
		g_string_append_printf(s, " %" PRIu64 "%s\n", cnt, k == g->hist_b ? "</b>" : "");
		lines++;
	}
	if (lines == 40)
		g_string_append(s, "  (more buckets: ] to go on)\n");
}

/* `p`: the selected task's critical path, drawn and summed up; `p` again takes it away. */
static void path_toggle(struct gui *g)
{
	uint32_t task = g->v.selected;
	int ret;

	if (g->v.path) {
		path_clear(g);
	} else if (task == RTR_MODEL_NONE) {
		gtk_label_set_markup(GTK_LABEL(g->details), "Select a task (click it), then p "
				     "for its critical path.");
		return;
	} else if ((ret = rtr_path_build(g->s, task, &g->path))) {
		fprintf(stderr, "ringtrace gui: the critical path: %s\n", strerror(-ret));
		return;
	} else {
		g->v.path = g->path.segs;
		g->v.npath = g->path.n;
	}
	show_details(g, task);
	redraw(g);
}

static void show_details(struct gui *g, uint32_t task)
{
	GString *s = g_string_new(NULL);
	char buf[32], *esc, *kind;

	if (g->v.path && g->path.cp.task != task)
		path_clear(g);
	g->v.selected = task;
	if (task == RTR_MODEL_NONE) {
		/* a damaged trace is drawn up to its damage: said here, not only on stderr */
		for (uint32_t i = 0; i < g->m->ndamage; i++) {
			esc = markup_text(rtr_model_str(g->m, g->m->damage[i].message));
			g_string_append_printf(s, "<span foreground=\"#cc0000\">damaged: %s (drawn up to "
					       "there)</span>\n\n", esc);
			g_free(esc);
		}
		/* and what it lost: the red marks on the CPU lanes */
		uint64_t lost_e = 0, lost_p = 0;

		for (uint32_t i = 0; i < g->m->ncpus; i++) {
			lost_e += g->m->cpus[i].events_lost;
			lost_p += g->m->cpus[i].packets_lost;
		}
		if (lost_e || lost_p)
			g_string_append_printf(s, "<span foreground=\"#cc0000\">lost: %" PRIu64 " events, %"
					       PRIu64 " packets (red marks on the CPU lanes)</span>\n\n",
					       lost_e, lost_p);
		if (g->sl) {
			g_string_append_printf(s, "%" PRIu64 " events: too many for a model in memory. "
					       "Where the view holds more than %" PRIu64 ", each "
					       "stream's events over time are drawn (from the index); "
					       "where it holds fewer, its tasks, loaded. Search and "
					       "details are those of the loaded slice.\n\n",
					       g->sl->ov.events, g->sl->slice_max);
		} else if (g->m->sliced && g->live) {
			g_string_append_printf(s, "A long recording: its tail is followed, the "
					       "events from where its last %" PRIu64 " began on "
					       "(RINGTRACE_LIVE_TAIL_EVENTS); a task created before "
					       "is drawn from the tail's start. Open the recording "
					       "without --follow for the whole of it.\n\n",
					       g->live->tail_max / 2);
		} else if (g->m->sliced) {
			char a[32], b[32];

			an_dur(a, sizeof(a), (int64_t)cli_slice.from);
			if (cli_slice.to == UINT64_MAX)
				snprintf(b, sizeof(b), "the end");
			else
				an_dur(b, sizeof(b), (int64_t)cli_slice.to);
			g_string_append_printf(s, "A slice: from %s to %s of the trace (--slice); "
					       "times here count from its first event.\n\n", a, b);
		}
		g_string_append(s, "Click a task for its details.\n\n? for keys");
		gtk_label_set_markup(GTK_LABEL(g->details), s->str);
		g_string_free(s, TRUE);
		return;
	}
	const struct rtr_model_task *t = &g->m->tasks[task];
	const struct rtr_model *m = g->m;

	esc = markup_text(rtr_scene_task_name(g->s, task, buf, sizeof(buf)));
	kind = markup_text(rtr_model_str(m, t->kind_name));
	g_string_append_printf(s, "<b>%s</b>\nid %" PRIu64 ", %s, trace %u\n", esc, t->id, kind,
			       t->trace);
	g_free(esc);
	g_free(kind);
	if (t->flags & RTR_TASK_FAILED) {
		esc = markup_text(rtr_model_str(m, t->reason));
		g_string_append_printf(s, "<span foreground=\"#cc0000\">failed: %s</span>\n", esc);
		g_free(esc);
	} else if (t->flags & RTR_TASK_NEVER_RESOLVED) {
		g_string_append(s, "<span foreground=\"#cc0000\">never resolved</span>\n");
	} else if (t->flags & RTR_TASK_RESOLVED) {
		g_string_append(s, "resolved\n");
	} else {
		g_string_append(s, "not resolved in the trace\n");
	}
	g_string_append_printf(s, "created %.9f s\n", (t->created - m->start) / 1e9);
	if (t->flags & RTR_TASK_RESOLVED)
		g_string_append_printf(s, "resolved %.9f s\nduration %.9f s\n",
				       (t->resolved - m->start) / 1e9, (t->resolved - t->created) / 1e9);
	g_string_append_printf(s, "ran %u times\n", t->nruns);
	where_text(s, g, task);
	add_link(s, "created by", g, t->parent);
	add_link(s, "became", g, t->becomes);
	add_link(s, "became from", g, t->became_from);
	arrow_links(s, g, task);
	counter_text(s, g, task);
	if (t->nlabels)
		g_string_append(s, "<b>labels</b>\n");
	for (uint32_t i = 0; i < t->nlabels && i < 50; i++) {
		esc = markup_text(rtr_model_str(m, m->labels[t->label_first + i].text));
		g_string_append_printf(s, "  %s\n", esc);
		g_free(esc);
	}
	if (g->v.path && g->path.cp.task == task)
		path_text(s, g);
	if (g->hist_kind)
		hist_text(s, g);
	gtk_label_set_markup(GTK_LABEL(g->details), s->str);
	g_string_free(s, TRUE);
}

static gboolean on_link(GtkLabel *label, const char *uri, gpointer data)
{
	struct gui *g = data;
	unsigned long t;

	if (!strncmp(uri, "hist:", 5) && g->hist_kind) {
		hist_select(g, (uint32_t)strtoul(uri + 5, NULL, 10));
		return TRUE;
	}
	if (strncmp(uri, "task:", 5))
		return FALSE;
	t = strtoul(uri + 5, NULL, 10);
	if (t < g->m->ntasks) {
		show_details(g, (uint32_t)t);
		bring_into_view(g, (uint32_t)t);
	}
	return TRUE;
}

static void select_match(struct gui *g, int dir)
{
	if (!g->nmatches)
		return;
	g->cur = (g->cur + g->nmatches + (uint32_t)dir) % g->nmatches;
	show_details(g, g->matches[g->cur]);
	bring_into_view(g, g->matches[g->cur]);
}

static void run_search(struct gui *g, const char *q)
{
	int64_t n;

	hist_clear(g);	/* its highlighted bucket gives way */
	free(g->matches);
	g->matches = NULL;
	g->nmatches = 0;
	g->v.marks = NULL;
	g->v.nmarks = 0;
	if (!*q) {
		redraw(g);
		return;
	}
	n = rtr_scene_search(g->s, q, NULL, 0);
	if (n > 0 && (g->matches = malloc((size_t)n * sizeof(*g->matches))))
		n = rtr_scene_search(g->s, q, g->matches, (uint32_t)n);
	if (n < 0) {
		gtk_label_set_text(GTK_LABEL(g->details), n == -EINVAL ?
				   "The search is not one: an empty or too long query, or a\n"
				   "regular expression that does not compile." : "Out of memory.");
		redraw(g);
		return;
	}
	g->nmatches = g->matches ? (uint32_t)n : 0;
	g->v.marks = g->matches;
	g->v.nmarks = g->nmatches;
	g->cur = g->nmatches ? g->nmatches - 1 : 0;
	if (!g->nmatches)
		gtk_label_set_text(GTK_LABEL(g->details), "No task matches.");
	select_match(g, 1);
	redraw(g);
}

static void on_search_activate(GtkEntry *e, gpointer data)
{
	struct gui *g = data;
	const char *q = gtk_editable_get_text(GTK_EDITABLE(e));

	/* Enter on the same query: the next match */
	if (g->nmatches && g->v.marks && g->o->search != q && g_object_get_data(G_OBJECT(e), "q") &&
	    !strcmp(g_object_get_data(G_OBJECT(e), "q"), q)) {
		select_match(g, 1);
	} else {
		g_object_set_data_full(G_OBJECT(e), "q", g_strdup(q), g_free);
		run_search(g, q);
	}
	gtk_widget_grab_focus(g->area);
}

static gboolean on_key(GtkEventControllerKey *c, guint key, guint code, GdkModifierType st,
		       gpointer data)
{
	struct gui *g = data;

	if (gtk_widget_has_focus(g->search) || gtk_widget_is_focus(gtk_widget_get_first_child(g->search)))
		return FALSE;
	switch (key) {
	case GDK_KEY_question:
		gtk_label_set_markup(GTK_LABEL(g->details), help_text);
		return TRUE;
	case GDK_KEY_slash:
		gtk_widget_grab_focus(g->search);
		return TRUE;
	case GDK_KEY_n:
	case GDK_KEY_Return:
		select_match(g, 1);
		return TRUE;
	case GDK_KEY_N:
		select_match(g, -1);
		return TRUE;
	case GDK_KEY_plus:
	case GDK_KEY_equal:
	case GDK_KEY_KP_Add:
		zoom(g, 1 / 1.5, g->v.width / 2.0);
		return TRUE;
	case GDK_KEY_minus:
	case GDK_KEY_KP_Subtract:
		zoom(g, 1.5, g->v.width / 2.0);
		return TRUE;
	case GDK_KEY_Left:
	case GDK_KEY_h:
		pan(g, -g->v.width / 8.0);
		return TRUE;
	case GDK_KEY_Right:
	case GDK_KEY_l:
		pan(g, g->v.width / 8.0);
		return TRUE;
	case GDK_KEY_Up:
	case GDK_KEY_k:
		rows_by(g, -1);
		return TRUE;
	case GDK_KEY_Down:
	case GDK_KEY_j:
		rows_by(g, 1);
		return TRUE;
	case GDK_KEY_Page_Up:
		rows_by(g, -10);
		return TRUE;
	case GDK_KEY_Page_Down:
		rows_by(g, 10);
		return TRUE;
	case GDK_KEY_0:
	case GDK_KEY_Home:
		whole(g);
		redraw(g);
		return TRUE;
	case GDK_KEY_e:
	case GDK_KEY_End:
		to_end(g);
		return TRUE;
	case GDK_KEY_p:
		path_toggle(g);
		return TRUE;
	case GDK_KEY_H:
		hist_toggle(g);
		return TRUE;
	case GDK_KEY_bracketleft:
		hist_step(g, -1);
		return TRUE;
	case GDK_KEY_bracketright:
		hist_step(g, 1);
		return TRUE;
	case GDK_KEY_Escape:
		gtk_editable_set_text(GTK_EDITABLE(g->search), "");
		run_search(g, "");
		show_details(g, RTR_MODEL_NONE);
		redraw(g);
		return TRUE;
	}
	return FALSE;
}

static gboolean on_scroll(GtkEventControllerScroll *c, double dx, double dy, gpointer data)
{
	struct gui *g = data;
	GdkModifierType st = gtk_event_controller_get_current_event_state(GTK_EVENT_CONTROLLER(c));

	if (st & GDK_SHIFT_MASK)
		rows_by(g, dy > 0 ? 3 : -3);
	else if (dy)
		zoom(g, dy > 0 ? 1.2 : 1 / 1.2, g->pointer_x);
	return TRUE;
}

static void on_motion(GtkEventControllerMotion *c, double x, double y, gpointer data)
{
	((struct gui *)data)->pointer_x = x;
}

static void on_drag_begin(GtkGestureDrag *d, double x, double y, gpointer data)
{
	struct gui *g = data;

	g->drag_t0 = g->v.t0;
	g->drag_t1 = g->v.t1;
	g->drag_row0 = g->v.row0;
}

static void on_drag_update(GtkGestureDrag *d, double dx, double dy, gpointer data)
{
	struct gui *g = data;
	struct rtr_render_layout l;
	int64_t shift = (int64_t)(-dx * (double)(g->drag_t1 - g->drag_t0) / g->v.width);
	int64_t row;

	rtr_render_layout(g->s, &g->v, &l);
	row = (int64_t)g->drag_row0 - (int64_t)(dy / l.row_h);
	g->v.t0 = g->drag_t0 + shift;
	g->v.t1 = g->drag_t1 + shift;
	g->v.row0 = row < 0 ? 0 : (uint32_t)row;
	redraw(g);
}

static void on_click(GtkGestureClick *c, int n, double x, double y, gpointer data)
{
	struct gui *g = data;

	gtk_widget_grab_focus(g->area);
	show_details(g, rtr_render_hit(g->s, &g->v, &g->f, x, y));
	redraw(g);
}

/* ---- following a recording (--follow, -): view/live.h ------------------------------- */

/* The same span, at the end: kept there while the recording grows (e, End). */
static void to_end(struct gui *g)
{
	int64_t span = g->v.t1 - g->v.t0;

	g->v.t1 = last_t(g) > first_t(g) ? last_t(g) : first_t(g) + 1;
	g->v.t0 = g->v.t1 - span;
	redraw(g);
}

/* @task of @old in @m (the same trace, id and creation), or RTR_MODEL_NONE. */
static uint32_t same_task(const struct rtr_model *old, uint32_t task, const struct rtr_model *m)
{
	const struct rtr_model_task *t;
	int64_t created;

	if (task >= old->ntasks)
		return RTR_MODEL_NONE;
	t = &old->tasks[task];
	created = t->created + old->origin_ns - m->origin_ns;
	for (uint32_t i = 0; i < m->ntasks; i++)
		if (m->tasks[i].id == t->id && m->tasks[i].trace == t->trace &&
		    m->tasks[i].created == created)
			return i;
	return RTR_MODEL_NONE;
}

/* The search's matches in the new scene, the view left where it is. */
static void rematch(struct gui *g)
{
	const char *q = g_object_get_data(G_OBJECT(g->search), "q");
	int64_t n;

	free(g->matches);
	g->matches = NULL;
	g->nmatches = 0;
	g->v.marks = NULL;
	g->v.nmarks = 0;
	if (!q || !*q)
		return;
	n = rtr_scene_search(g->s, q, NULL, 0);
	if (n > 0 && (g->matches = malloc((size_t)n * sizeof(*g->matches))))
		n = rtr_scene_search(g->s, q, g->matches, (uint32_t)n);
	g->nmatches = n > 0 && g->matches ? (uint32_t)n : 0;
	g->v.marks = g->matches;
	g->v.nmarks = g->nmatches;
	if (g->cur >= g->nmatches)
		g->cur = g->nmatches ? g->nmatches - 1 : 0;
}

/*
 * The next turn's scene drawn instead of the last: the view moved with the
 * origin, kept at the end if it was there (the whole trace if it showed it
 * whole), the selection and the search found again in it.
 */
static void swap_in(struct gui *g, struct rtr_live_scene *ls)
{
	struct rtr_live_scene *old = g->ls;
	int64_t shift = ls->m.origin_ns - old->m.origin_ns, span = g->v.t1 - g->v.t0;
	bool pinned = !g->sl && g->v.t1 >= old->m.end, whole = pinned && g->v.t0 <= old->m.start;
	uint32_t sel = same_task(&old->m, g->v.selected, &ls->m);

	for (uint32_t i = old->m.ndamage; i < ls->m.ndamage; i++)
		fprintf(stderr, "ringtrace gui: damaged: %s\n", rtr_model_str(&ls->m, ls->m.damage[i].message));
	path_clear(g);	/* the old model's tasks */
	g->ls = ls;
	g->m = &ls->m;
	g->s = &ls->s;
	g->ended = ls->done;
	/* the last frame's items are the old scene's: no hit test on them */
	g->f.ntasks = g->f.nruns = g->f.narrows = g->f.ncpu_marks = g->f.nthread_marks = 0;
	g->v.t0 -= shift;
	g->v.t1 -= shift;
	if (pinned) {
		g->v.t1 = g->m->end > g->m->start ? g->m->end : g->m->start + 1;
		g->v.t0 = whole ? g->m->start : g->v.t1 - span;
	}
	g->pending = RTR_MODEL_NONE;
	if (g->hist_kind)
		hist_refresh(g);
	else
		rematch(g);
	if (sel != g->v.selected || ls->m.ndamage != old->m.ndamage)
		show_details(g, sel);
	rtr_live_scene_free(old);
	if (ls->done && !g->sl)
		fprintf(stderr, "ringtrace gui: the recording ended: %" PRIu64 " events, %u tasks "
			"(turn %" PRIu64 ")\n", ls->m.events, ls->m.ntasks, ls->turn);
	redraw(g);
}

/* On the main loop: the scene the follower made, and what it has to say. */
static gboolean follow_idle(gpointer data)
{
	struct gui *g = data;
	struct rtr_live_scene *ls;
	char msg[sizeof(g->live_msg)];
	bool info;

	g_mutex_lock(&g->lock);
	ls = g->next;
	g->next = NULL;
	memcpy(msg, g->live_msg, sizeof(msg));
	info = g->live_info;
	g->live_msg[0] = 0;
	g_mutex_unlock(&g->lock);
	if (ls && g->closed)
		rtr_live_scene_free(ls);
	else if (ls)
		swap_in(g, ls);
	if (msg[0] && !g->closed) {
		char *esc = markup_text(msg), *m;

		m = info ? g_strdup_printf("The guest's trace ended: %s", esc) :
			   g_strdup_printf("<span foreground=\"red\">The recording can no longer be "
					   "followed: %s</span>", esc);
		gtk_label_set_markup(GTK_LABEL(g->details), m);
		g_free(m);
		g_free(esc);
	}
	return G_SOURCE_REMOVE;
}

/*
 * The follower: a turn every 200 ms until the recording ends, each grown
 * recording's scene handed to the main loop (the one it has not taken yet
 * replaced).  It never touches the scene drawn.
 */
static gpointer follower(gpointer data)
{
	struct gui *g = data;

	for (;;) {
		struct rtr_live_scene *ls, *stale = NULL;
		char err[1024];
		int r;

		g_mutex_lock(&g->lock);
		r = g->quit;
		g_mutex_unlock(&g->lock);
		if (r)
			break;
		r = rtr_live_poll(g->live, &ls, err, sizeof(err));
		if (r < 0 || (r > 0 && ls->done)) {
			/* --xen-domain: the stream ended because consume did; why, if it failed */
			char why[sizeof(g->live_msg)];

			if (!xen_follow_end(&g->xen, 10000, why, sizeof(why))) {
				/* not --xen-domain */
			} else if (r < 0 && g->xen.status) {
				snprintf(err, sizeof(err), "%s", why);	/* said below */
			} else if (r > 0 && why[0]) {
				/* in the window: why it ended (the guest's program, its domain) */
				g_mutex_lock(&g->lock);
				snprintf(g->live_msg, sizeof(g->live_msg), "%s", why);
				g->live_info = !g->xen.status;
				g_mutex_unlock(&g->lock);
			}
		}
		if (r < 0) {
			if (err[0])
				fprintf(stderr, "ringtrace gui: %s\n", err);
			g_mutex_lock(&g->lock);
			snprintf(g->live_msg, sizeof(g->live_msg), "%s", err[0] ? err : "the stream was cut");
			g_mutex_unlock(&g->lock);
			g_idle_add(follow_idle, g);
			break;
		}
		if (r) {
			g_mutex_lock(&g->lock);
			stale = g->next;
			g->next = ls;
			g_mutex_unlock(&g->lock);
			rtr_live_scene_free(stale);
			g_idle_add(follow_idle, g);
			if (ls->done)
				break;
		}
		rtr_live_wait(g->live, rtr_live_pause_ms(g->live));
	}
	return NULL;
}

/* ---- a trace too large for a model: its overview, and slices (view/slices.h) ------- */

/* On the main loop: the slice loaded, drawn instead of the last; or why it was not. */
static gboolean slice_idle(gpointer data)
{
	struct gui *g = data;
	struct rtr_live_scene *ls;
	char err[sizeof(g->sl->err)];

	if (g->closed)
		return G_SOURCE_REMOVE;
	ls = rtr_slices_take(g->sl, err, sizeof(err));
	if (ls) {
		swap_in(g, ls);
	} else if (err[0]) {
		char *esc = markup_text(err), *m;

		fprintf(stderr, "ringtrace gui: %s: a slice could not be loaded: %s\n", g->sl->dir, err);
		m = g_strdup_printf("<span foreground=\"red\">The slice could not be loaded: "
				    "%s</span>", esc);
		gtk_label_set_markup(GTK_LABEL(g->details), m);
		g_free(m);
		g_free(esc);
	}
	redraw(g);
	return G_SOURCE_REMOVE;
}

/* On the loader's thread: a slice is ready (view/slices.h's @ready). */
static void slice_ready(void *data)
{
	g_idle_add(slice_idle, data);
}

/*
 * A trace too large: the overview drawn when the slice does not hold the
 * view (the slice around it asked for when the view holds few enough
 * events).  Return: true, the overview was drawn.
 */
static bool draw_overview(struct gui *g, cairo_t *cr)
{
	enum rtr_slices_what what;
	int64_t a, b;
	uint64_t n;
	char msg[400];

	if (!g->sl)
		return false;
	g->v.ruler_shift = g->m->start + off(g);
	a = g->v.t0 + off(g);
	b = g->v.t1 + off(g);
	what = rtr_slices_view(g->sl, a, b, &n);
	g->overview = what != RTR_SLICES_DRAWN;
	g->loadable = what == RTR_SLICES_LOADING;
	if (!g->overview)
		return false;
	snprintf(msg, sizeof(msg), "%s: %" PRIu64 " events, too many to load at once: each "
		 "stream's events over time, from the index beside it.\n"
		 "%" PRIu64 " events in view. %s", g->sl->dir, g->sl->ov.events, n,
		 g->loadable ? "Loading them..." : n <= g->sl->slice_max ? "" :
		 "Zoom in (wheel, +) to see tasks: a view of fewer events loads them.");
	if (rtr_render_overview(cr, &g->sl->ov, &(struct rtr_render_view){ .t0 = a, .t1 = b,
			.width = g->v.width, .height = g->v.height }, msg))
		fprintf(stderr, "ringtrace gui: out of memory drawing a frame\n");
	/* no hit test on the last slice's items */
	g->f.ntasks = g->f.nruns = g->f.narrows = g->f.ncpu_marks = g->f.nthread_marks = 0;
	g->f.tasks_in_view = 0;
	return true;
}

/* The loader stopped, everything of the slices freed. */
static void big_stop(struct gui *g)
{
	if (!g->sl)
		return;
	rtr_slices_close(g->sl);
	free(g->sl);
	g->sl = NULL;
}

/* A trace over the cap (cli_view_over()): its overview and slices.  Return: 0, or 1 said. */
static int big_start(struct gui *g, const char *dir, uint64_t cap)
{
	char err[1024];

	if (!(g->sl = calloc(1, sizeof(*g->sl)))) {
		fprintf(stderr, "ringtrace gui: out of memory\n");
		return 1;
	}
	if (rtr_slices_open(g->sl, dir, cap, RTR_MODEL_MARKERS, RTR_SCENE_SIMPLIFY_BINDS,
			    slice_ready, g, &g->ls, err, sizeof(err))) {
		fprintf(stderr, "ringtrace gui: %s\n", err);
		return 1;
	}
	fprintf(stderr, "ringtrace gui: %s: %" PRIu64 " events, more than %" PRIu64 " (%s): its "
		"overview is drawn, and the events of a view of at most %" PRIu64 " are loaded\n",
		dir, g->sl->ov.events, cap, getenv("RINGTRACE_VIEW_MAX_EVENTS") &&
		*getenv("RINGTRACE_VIEW_MAX_EVENTS") ? "RINGTRACE_VIEW_MAX_EVENTS" :
		"what this machine's memory holds in a model", g->sl->slice_max);
	return 0;
}

/* --screenshot: what GTK drew of the whole window, saved once it has drawn a frame. */
static gboolean take_screenshot(gpointer data)
{
	struct gui *g = data;
	int w = gtk_widget_get_width(g->win), h = gtk_widget_get_height(g->win);
	GdkPaintable *p;
	GtkSnapshot *snap;
	GskRenderNode *node;
	GdkTexture *tex = NULL;
	GBytes *png = NULL;
	struct cli_out co;

	p = gtk_widget_paintable_new(g->win);
	snap = gtk_snapshot_new();
	gdk_paintable_snapshot(p, snap, w, h);
	node = gtk_snapshot_free_to_node(snap);
	if (!node && ++g->shot_tries < 50) {
		/*
		 * Nothing in the window's snapshot yet, though a frame was painted
		 * (seen under ASan on a loaded machine): again after the next one.
		 */
		g_object_unref(p);
		g->shot_taken = false;
		gtk_widget_queue_draw(g->area);
		return G_SOURCE_REMOVE;
	}
	if (node)
		tex = gsk_renderer_render_texture(gtk_native_get_renderer(GTK_NATIVE(g->win)), node,
						  &GRAPHENE_RECT_INIT(0, 0, (float)w, (float)h));
	if (tex)
		png = gdk_texture_save_to_png_bytes(tex);
	g->rc = 1;
	if (!png) {
		fprintf(stderr, "ringtrace gui: %s: the window could not be captured (%s, %d x %d)\n",
			g->o->screenshot, !node ? "nothing drawn" : !tex ? "not rendered" : "not encoded",
			w, h);
	} else if (!cli_out_open(&co, "gui", g->o->screenshot, g->o->force)) {
		gsize len;
		const char *d = g_bytes_get_data(png, &len);
		bool ok = true;

		while (len && ok) {
			ssize_t n = write(co.fd, d, len);

			ok = n > 0;
			d += ok ? n : 0;
			len -= ok ? (gsize)n : 0;
		}
		if (!ok) {
			fprintf(stderr, "ringtrace gui: %s: %s\n", g->o->screenshot, strerror(errno));
			cli_out_abort(&co);
		} else if (!cli_out_commit(&co)) {
			printf("%s\n", g->o->screenshot);
			g->rc = 0;
		}
	}
	if (png)
		g_bytes_unref(png);
	if (tex)
		g_object_unref(tex);
	if (node)
		gsk_render_node_unref(node);
	g_object_unref(p);
	g->shot_taken = true;
	gtk_window_destroy(GTK_WINDOW(g->win));
	return G_SOURCE_REMOVE;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * RINGTRACE_GUI_BENCH: the next step of the script (zoom by 1.5 around the
 * middle, then four pans of an eighth of the width), or, past 1 us, the
 * figures written and the window closed.  Return: false, done.
 */
static bool bench_next(struct gui *g)
{
	int64_t mid = (first_t(g) + last_t(g)) / 2, all = last_t(g) - first_t(g), span;
	uint32_t level = g->bench_step / 5, pan = g->bench_step % 5;
	static const double pans[5] = { 0, 1, 2, -1, -2 };

	span = (int64_t)((double)all / pow(1.5, level));
	if (span < 1000 || all < 1) {
		uint64_t events = g->sl ? g->sl->ov.events : g->m->events;

		if (g->bench_n)
			qsort(g->bench_ms, g->bench_n, sizeof(*g->bench_ms), cmp_double);
		fprintf(g->bench, "frames %u\noverview_frames %u\n", g->bench_n, g->bench_overviews);
		if (g->bench_n)
			fprintf(g->bench, "frame_p50_ms %.3f\nframe_p95_ms %.3f\nframe_max_ms %.3f\n",
				g->bench_ms[g->bench_n / 2], g->bench_ms[(uint32_t)(g->bench_n * 0.95)],
				g->bench_ms[g->bench_n - 1]);
		fprintf(g->bench, "script_s %.3f\nevents %" PRIu64 "\nrss_anon_bytes %" PRIu64
			"\nslices %" PRIu64 "\n", (g_get_monotonic_time() - g->bench_start) / 1e6,
			events, cli_proc_kb("/proc/self/status", "RssAnon"),
			g->sl ? g->sl->slices : 0);
		fclose(g->bench);
		g->bench = NULL;
		gtk_window_destroy(GTK_WINDOW(g->win));
		return false;
	}
	if (!g->bench_step)
		g->bench_start = g_get_monotonic_time();
	g->v.t0 = mid - span / 2 + (int64_t)(pans[pan] * (double)span / 8);
	g->v.t1 = g->v.t0 + span;
	g->bench_step++;
	redraw(g);
	return true;
}

/*
 * After each frame painted: the screenshot, once it is wanted (the first
 * frame, or SIGUSR1 with --on-signal) and the window is at rest (the status
 * line written, and painted since).
 */
static void on_after_paint(GdkFrameClock *clock, gpointer data)
{
	struct gui *g = data;

	if (g->bench && g->frame_ms) {
		if (!g->sl || !rtr_slices_busy(g->sl))
			bench_next(g);
		return;
	}
	if (!g->o->screenshot || g->shot_taken || !g->frame_ms || g->status_pending)
		return;
	if (g->o->on_signal && !g->shot_wanted)
		return;
	if (g->shown[0] != g->v.t0 || g->shown[1] != g->v.t1 || g->shown[2] != g->nmatches ||
	    g->shown[3] != (int64_t)g->ls->turn)
		return;
	/* following, the first frame's picture is the finished recording's */
	if (g->live && !g->ended && !g->o->on_signal)
		return;
	/* a trace too large: the slice of the view, once it is loaded */
	if (g->sl && !g->o->on_signal && (rtr_slices_busy(g->sl) || (g->overview && g->loadable)))
		return;
	g->shot_taken = true;
	g_idle_add(take_screenshot, g);
}

static gboolean on_usr1(gpointer data)
{
	struct gui *g = data;

	g->shot_wanted = true;
	gtk_widget_queue_draw(g->area);
	return G_SOURCE_CONTINUE;
}

static void on_destroy(GtkWidget *w, gpointer data)
{
	(void)w;
	((struct gui *)data)->closed = true;
}

static void on_map(GtkWidget *w, gpointer data)
{
	GdkFrameClock *clock = gtk_widget_get_frame_clock(w);

	if (clock)
		g_signal_connect(clock, "after-paint", G_CALLBACK(on_after_paint), data);
}

static void activate(GtkApplication *app, gpointer data)
{
	struct gui *g = data;
	GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
	GtkWidget *hbox = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 0);
	GtkWidget *side = gtk_box_new(GTK_ORIENTATION_VERTICAL, 4);
	GtkWidget *scroll = gtk_scrolled_window_new();
	GtkEventController *key = gtk_event_controller_key_new();
	GtkEventController *wheel = gtk_event_controller_scroll_new(GTK_EVENT_CONTROLLER_SCROLL_VERTICAL);
	GtkEventController *motion = gtk_event_controller_motion_new();
	GtkGesture *drag = gtk_gesture_drag_new(), *click = gtk_gesture_click_new();
	char title[256];

	g->win = gtk_application_window_new(app);
	snprintf(title, sizeof(title), "ringtrace gui: %s%s", rtr_model_str(g->m, g->m->traces[0].dir),
		 g->m->ntraces > 1 ? " ..." : "");
	gtk_window_set_title(GTK_WINDOW(g->win), title);
	gtk_window_set_default_size(GTK_WINDOW(g->win), g->o->pic.width ? (int)g->o->pic.width : 1280,
				    g->o->pic.height ? (int)g->o->pic.height : 800);
	g->area = gtk_drawing_area_new();
	gtk_widget_set_hexpand(g->area, TRUE);
	gtk_widget_set_vexpand(g->area, TRUE);
	gtk_widget_set_focusable(g->area, TRUE);
	gtk_drawing_area_set_draw_func(GTK_DRAWING_AREA(g->area), draw, g, NULL);
	g->search = gtk_search_entry_new();
	gtk_search_entry_set_key_capture_widget(GTK_SEARCH_ENTRY(g->search), NULL);
	g_signal_connect(g->search, "activate", G_CALLBACK(on_search_activate), g);
	g->details = gtk_label_new(NULL);
	gtk_label_set_xalign(GTK_LABEL(g->details), 0);
	gtk_label_set_yalign(GTK_LABEL(g->details), 0);
	gtk_label_set_selectable(GTK_LABEL(g->details), TRUE);
	gtk_label_set_wrap(GTK_LABEL(g->details), TRUE);
	g_signal_connect(g->details, "activate-link", G_CALLBACK(on_link), g);
	gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scroll), g->details);
	gtk_widget_set_vexpand(scroll, TRUE);
	gtk_widget_set_size_request(side, 280, -1);
	gtk_box_append(GTK_BOX(side), g->search);
	gtk_box_append(GTK_BOX(side), scroll);
	gtk_box_append(GTK_BOX(hbox), g->area);
	gtk_box_append(GTK_BOX(hbox), side);
	g->status = gtk_label_new("");
	gtk_label_set_xalign(GTK_LABEL(g->status), 0);
	/* a long status line is cut, never widens the window */
	gtk_label_set_ellipsize(GTK_LABEL(g->status), PANGO_ELLIPSIZE_END);
	gtk_box_append(GTK_BOX(box), hbox);
	gtk_box_append(GTK_BOX(box), g->status);
	gtk_window_set_child(GTK_WINDOW(g->win), box);

	g_signal_connect(key, "key-pressed", G_CALLBACK(on_key), g);
	gtk_widget_add_controller(g->win, key);
	g_signal_connect(wheel, "scroll", G_CALLBACK(on_scroll), g);
	gtk_widget_add_controller(g->area, wheel);
	g_signal_connect(motion, "motion", G_CALLBACK(on_motion), g);
	gtk_widget_add_controller(g->area, motion);
	g_signal_connect(drag, "drag-begin", G_CALLBACK(on_drag_begin), g);
	g_signal_connect(drag, "drag-update", G_CALLBACK(on_drag_update), g);
	gtk_widget_add_controller(g->area, GTK_EVENT_CONTROLLER(drag));
	g_signal_connect(click, "released", G_CALLBACK(on_click), g);
	gtk_widget_add_controller(g->area, GTK_EVENT_CONTROLLER(click));
	g_signal_connect(g->win, "map", G_CALLBACK(on_map), g);
	g_signal_connect(g->win, "destroy", G_CALLBACK(on_destroy), g);
	if (g->o->on_signal)
		g_unix_signal_add(SIGUSR1, on_usr1, g);

	show_details(g, RTR_MODEL_NONE);
	if (g->o->search) {
		gtk_editable_set_text(GTK_EDITABLE(g->search), g->o->search);
		g_object_set_data_full(G_OBJECT(g->search), "q", g_strdup(g->o->search), g_free);
		run_search(g, g->o->search);
	}
	gtk_window_present(GTK_WINDOW(g->win));
	gtk_widget_grab_focus(g->area);
	if (g->live && !g->ended && !g->follower) {
		g->follower = g_thread_new("follower", follower, g);
		/* said once the window is there (and SIGUSR1 handled, for --on-signal) */
		fprintf(stderr, "ringtrace gui: following %s: new events appear as they are "
			"recorded\n", g->o->xen_domain ? "the guest" : strcmp(g->live->arg, "-") ? g->live->arg : "standard input");
	}
}

/* --follow, -: the recording's first scene (waited for), and the follower ready. */
static int follow_start(struct gui *g, const char *dir)
{
	const unsigned sflags = RTR_SCENE_SIMPLIFY_BINDS | (g->o->align ? RTR_SCENE_ALIGN_START : 0);
	char err[1024];
	bool said = false;
	int r;

	g->live = calloc(1, sizeof(*g->live));
	if (!g->live) {
		fprintf(stderr, "ringtrace gui: out of memory\n");
		return -1;
	}
	if (rtr_live_open(g->live, dir, RTR_MODEL_MARKERS, sflags, err, sizeof(err))) {
		fprintf(stderr, "ringtrace gui: %s\n", err);
		return -1;
	}
	while (!(r = rtr_live_poll(g->live, &g->ls, err, sizeof(err)))) {
		if (!said)
			fprintf(stderr, "ringtrace gui: waiting for %s's recording to begin\n",
				g->o->xen_domain ? "the guest" : strcmp(dir, "-") ? dir : "standard input");
		said = true;
		rtr_live_wait(g->live, 200);
	}
	if (r < 0) {
		/*
		 * --xen-domain: the stream ended before a scene because consume
		 * failed (no such domain, no buffer): its reason, not the stream's
		 */
		char why[sizeof(err)];

		if (g->o->xen_domain && xen_follow_end(&g->xen, 10000, why, sizeof(why)) &&
		    g->xen.status)
			snprintf(err, sizeof(err), "%s", why);
		if (err[0])
			fprintf(stderr, "ringtrace gui: %s\n", err);
		return -1;
	}
	g_mutex_init(&g->lock);
	cli_model_damage("gui", &g->ls->m);
	return 0;
}

/* The follower stopped, what it made and did not hand over freed; the stream's end said. */
static int follow_stop(struct gui *g)
{
	char err[1024];
	int ret = 0;

	if (!g->live)
		return 0;
	if (g->follower) {
		g_mutex_lock(&g->lock);
		g->quit = true;
		g_mutex_unlock(&g->lock);
		g_thread_join(g->follower);
		rtr_live_scene_free(g->next);
		g->next = NULL;
	}
	if (rtr_live_close(g->live, err, sizeof(err))) {
		fprintf(stderr, "ringtrace gui: %s\n", err);
		ret = 1;
	}
	if (g->ls)
		g_mutex_clear(&g->lock);
	free(g->live);
	g->live = NULL;
	return ret;
}

static int gui_run(char **dirs, int ndirs, const struct gui_opts *o)
{
	struct gui *g = calloc(1, sizeof(*g));
	uint64_t cap, events;
	int ret = 1, over;

	if (!g)
		return 1;
	g->o = o;
	g->pending = RTR_MODEL_NONE;
	g->shown[2] = -1;
	if (!gtk_init_check()) {
		fprintf(stderr, "ringtrace gui: no display could be opened (DISPLAY or WAYLAND_DISPLAY "
			"unset or unreachable); `ringtrace view --format png` draws the same picture "
			"without one\n");
		free(g);
		return 1;
	}
	if (o->xen_domain && xen_follow_start(&g->xen, "gui", o->xen_domain))
		goto done;
	{
		const char *b = getenv("RINGTRACE_GUI_BENCH");

		if (b && *b && !(g->bench = fopen(b, "we"))) {
			fprintf(stderr, "ringtrace gui: RINGTRACE_GUI_BENCH %s: %s\n", b, strerror(errno));
			goto done;
		}
	}
	if (o->follow) {
		const char *lag = getenv("RINGTRACE_GUI_LAG_LOG");

		if (lag && *lag && !(g->lag_log = fopen(lag, "we"))) {
			fprintf(stderr, "ringtrace gui: RINGTRACE_GUI_LAG_LOG %s: %s\n", lag,
				strerror(errno));
			goto done;
		}
		if (follow_start(g, dirs[0]))
			goto done;
	} else if ((over = ndirs == 1 && strcmp(dirs[0], "-") ?
			   cli_view_over("gui", dirs, 1, false, &cap, &events) : 0) < 0) {
		goto done;
	} else if (over) {
		/* one trace too large: its overview, and slices of it (several: refused below) */
		if (big_start(g, dirs[0], cap))
			goto done;
	} else {
		if (!(g->ls = calloc(1, sizeof(*g->ls))))
			goto done;
		g->ls->done = true;
		if (cli_view_fits("gui", dirs, ndirs, false) ||
		    cli_model_load("gui", &g->ls->m, dirs, ndirs, RTR_MODEL_MARKERS) < 0)
			goto done;
		cli_model_damage("gui", &g->ls->m);
		if (rtr_scene_build(&g->ls->s, &g->ls->m, RTR_SCENE_SIMPLIFY_BINDS |
				    (o->align ? RTR_SCENE_ALIGN_START : 0))) {
			fprintf(stderr, "ringtrace gui: out of memory\n");
			goto done;
		}
	}
	g->m = &g->ls->m;
	g->s = &g->ls->s;
	g->ended = g->ls->done;
	{
		struct rtr_picture_opts pic = o->pic;

		pic.height = 1;	/* the window's own */
		if (rtr_out_view("gui", g->s, &pic, &g->v))
			goto done;
		g->v.width = 1;
	}
	g->app = gtk_application_new(NULL, G_APPLICATION_NON_UNIQUE);
	g_signal_connect(g->app, "activate", G_CALLBACK(activate), g);
	ret = g_application_run(G_APPLICATION(g->app), 0, NULL);
	g_object_unref(g->app);
	if (o->screenshot)
		ret = g->shot_taken ? g->rc : 1;
done:
	if (follow_stop(g) && !ret)
		ret = 1;
	if (o->xen_domain) {
		char msg[1100];

		/* consume stopped if the window closed before the guest's trace ended */
		if (xen_follow_finish(&g->xen, msg, sizeof(msg)) && g->xen.status &&
		    g->xen.status != 128 + SIGINT)
			fprintf(stderr, "ringtrace gui: %s\n", msg);
		if (g->xen.status && g->xen.status != 128 + SIGINT && !ret)
			ret = 1;
		xen_follow_free(&g->xen);
	}
	if (g->lag_log)
		fclose(g->lag_log);
	if (g->bench)
		fclose(g->bench);
	free(g->bench_ms);
	big_stop(g);
	rtr_frame_free(&g->f);
	rtr_path_free(&g->path);
	hist_clear(g);
	rtr_live_scene_free(g->ls);
	free(g->matches);
	free(g);
	return ret;
}
#endif

int rtr_cmd_gui(int argc, char **argv)
{
	struct gui_opts o = { 0 };
	char **dirs = calloc((size_t)argc + 1, sizeof(*dirs));
	int ndirs = 0, ret = 2;

	if (!dirs)
		return 1;
	int sl;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool value = !strcmp(a, "--size") || !strcmp(a, "--range") || !strcmp(a, "--search") ||
			     !strcmp(a, "--screenshot") || !strcmp(a, "--align");

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			ret = 0;
			goto out;
		}
		if (value && i + 1 == argc) {
			fprintf(stderr, "ringtrace gui: %s needs a value\n", a);
			usage(stderr);
			goto out;
		}
		if (!strcmp(a, "--size")) {
			if (rtr_out_parse_size("gui", argv[++i], &o.pic))
				goto out;
		} else if (!strcmp(a, "--range")) {
			if (rtr_out_parse_range("gui", argv[++i], &o.pic))
				goto out;
		} else if (!strcmp(a, "--search")) {
			o.search = argv[++i];
		} else if (!strcmp(a, "--screenshot")) {
			o.screenshot = argv[++i];
			if (rtr_out_format_of(o.screenshot) != RTR_OUT_PNG) {
				fprintf(stderr, "ringtrace gui: --screenshot writes PNG: a FILE.png, not '%s' "
					"(`ringtrace view --format svg|pdf` for the others)\n", o.screenshot);
				goto out;
			}
		} else if (!strcmp(a, "--align")) {
			i++;
			if (strcmp(argv[i], "start") && strcmp(argv[i], "clock")) {
				fprintf(stderr, "ringtrace gui: --align takes 'clock' (one time axis, the "
					"default) or 'start' (each trace from its own start)\n");
				goto out;
			}
			o.align = !strcmp(argv[i], "start");
		} else if (!strcmp(a, "--force")) {
			o.force = true;
		} else if (!strcmp(a, "--on-signal")) {
			o.on_signal = true;
		} else if (!strcmp(a, "-f") || !strcmp(a, "--follow")) {
			o.follow = true;
		} else if (!strcmp(a, "-")) {
			dirs[ndirs++] = argv[i];
			o.follow = true;	/* drawn as it arrives */
		} else if (!strcmp(a, "--xen-domain")) {
			if (i + 1 == argc || !argv[i + 1][0] || argv[i + 1][0] == '-') {
				fprintf(stderr, "ringtrace gui: --xen-domain needs a domain (a name, as "
					"xl list shows it, or an id)\n");
				goto out;
			}
			o.xen_domain = argv[++i];
			dirs[ndirs++] = "-";	/* consume's stream, on our standard input */
			o.follow = true;
		} else if ((sl = cli_slice_arg("gui", argc, argv, &i))) {
			if (sl < 0)
				goto out;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "ringtrace gui: unknown option '%s'\n", a);
			usage(stderr);
			goto out;
		} else {
			dirs[ndirs++] = argv[i];
		}
	}
	if (!ndirs) {
		usage(stderr);
		goto out;
	}
	if (o.follow && cli_slice.on) {
		fprintf(stderr, "ringtrace gui: --slice reads a trace directory, not a recording "
			"followed or a stream\n");
		goto out;
	}
	if (o.follow && ndirs != 1) {
		fprintf(stderr, "ringtrace gui: %s\n", o.xen_domain ? "--xen-domain takes no TRACE "
			"(the guest's trace is the one followed)" : "--follow and - take one TRACE (the "
			"recording to follow)");
		goto out;
	}
	if ((o.force || o.on_signal) && !o.screenshot) {
		fprintf(stderr, "ringtrace gui: --force and --on-signal go with --screenshot\n");
		goto out;
	}
	if (cli_traces_exist("gui", dirs, ndirs))
		goto out;
#ifdef RTR_HAVE_GTK
	ret = gui_run(dirs, ndirs, &o);
#else
	fprintf(stderr, "ringtrace gui: this ringtrace was built without GTK 4: install Debian's "
		"libgtk-4-dev (scripts/deps.sh build) and rebuild; `ringtrace view --format png` "
		"draws the same picture without a window\n");
	ret = 1;
#endif
out:
	free(dirs);
	return ret;
}
