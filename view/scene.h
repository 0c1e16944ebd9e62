/* SPDX-License-Identifier: MIT */
/*
 * view/scene.h - the scene: what every front end of the viewer draws of a
 * task model (reader/model.h), computed once in C (Documentation/viewer.rst).
 * The page `ringtrace view` writes, the server of `ringtrace view --serve`
 * and a native window in the same process all draw from it.
 *
 * Built once from a model: the rows (tasks that do not overlap in time share
 * a row, each under its parent as mirage arranged them), the arrows with the
 * create and becomes lines in classes by length, the sleeping regions of each
 * trace, and per-lane summaries for the window query (and min/max trees over
 * the counters' samples).
 *
 * The window query (rtr_scene_window()) answers "what is there to draw in
 * this time range, these rows, at this many pixels": never more than about
 * one item per pixel per lane.  Tasks and runs narrower than
 * RTR_SCENE_NARROW_PX are merged into spans that carry their count; the most
 * important of each pixel (a failed task first, then the longest) is the
 * span's representative, and a pixel that holds a failed task is an item of
 * its own with the flag kept, so it is still drawn red.  Arrows beyond the
 * frame's cap are summarised: one per length class and pixel, or, beyond that,
 * a count per kind and pixel column with the failures kept one by one.
 *
 * Cost: a query walks the pixels, not the events: O(pixels * log n) a lane
 * (a galloping search for each pixel's first item, a blocked index for the
 * best of the pixel's items), plus O(cap * log n) for the arrows.
 *
 * Layout: flat arrays, indices (uint32_t) into the model's arrays,
 * RTR_MODEL_NONE for none.  Times are the model's (ns since its origin).
 * The scene borrows the model: keep it alive and unchanged while the scene
 * is.  A built scene is read-only: any number of threads may query it at
 * once, each with its own struct rtr_frame.
 */
#ifndef RTR_VIEW_SCENE_H
#define RTR_VIEW_SCENE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "reader/model.h"
#include "reader/threads.h"
#include "view/lod.h"

/* A task or a run narrower than this on screen is merged with its neighbours. */
#define RTR_SCENE_NARROW_PX	3

/* Arrow length classes: 0 ns, then [2^(b-1), 2^b) ns for class b. */
#define RTR_SCENE_NCLASSES	66

/* The widest window a query draws, in pixels (a request asking more is refused). */
#define RTR_SCENE_MAX_WIDTH	16384

/* The arrows a frame draws one by one when the caller does not say (struct rtr_window). */
#define RTR_SCENE_DEFAULT_ARROWS	4000

/**
 * enum rtr_scene_arrow_kind - the kinds of struct rtr_scene_arrow: the
 * model's (enum rtr_arrow_kind, 0 to 3) and the scene's vertical lines.
 * @RTR_SCENE_ARROW_CREATE: a task created another (parent to child).
 * @RTR_SCENE_ARROW_BECOMES: a task merged into another (rtr_becomes()).
 */
enum rtr_scene_arrow_kind {
	RTR_SCENE_ARROW_CREATE = 4,
	RTR_SCENE_ARROW_BECOMES = 5,
	RTR_SCENE_ARROW_KINDS = 6,
};

/**
 * struct rtr_scene_arrow - an arrow or a vertical line between two tasks.
 * @tf: where it starts in time (rtr_model_arrow.t_from; the event's time
 *	for a create or becomes line).
 * @ts: where it ends.
 * @from: task index.
 * @to: task index.
 * @kind: enum rtr_arrow_kind or enum rtr_scene_arrow_kind.
 * @flags: enum rtr_arrow_flags.
 * @cls: its length class (@ts - @tf: 0, or the bit length of the length).
 *
 * rtr_scene.arrows is sorted by class, then @tf, then @ts: the arrows of
 * class b that cross a window [t0, t1] start in [t0 - 2^b, t1].
 */
struct rtr_scene_arrow {
	int64_t tf;
	int64_t ts;
	uint32_t from;
	uint32_t to;
	uint8_t kind;
	uint8_t flags;
	uint8_t cls;
};

/*
 * struct rtr_scene_lod - level-of-detail summaries of items laid out in
 * lanes (rows of tasks, CPUs' runs): each lane's items in time order, never
 * overlapping, so that both their starts and their ends are sorted; @idx
 * over all lanes' items keeps the most important of any range (view/lod.h:
 * a failed or never-resolved task first, then the longest).  Internal to view/.
 */
struct rtr_scene_lod {
	uint32_t n;
	uint32_t nlanes;
	const uint32_t *off;	/* lane l: items off[l] .. off[l + 1] */
	const uint32_t *item;	/* position -> task or run index */
	int64_t *start;		/* by position */
	int64_t *end;
	uint8_t *mark;		/* by position: 1 failed, 2 never resolved (reaches the right edge) */
	struct rtr_lod idx;	/* keys: mark << 62 | duration */
};

/**
 * struct rtr_scene - what every front end draws of a model.
 * @m: the model (borrowed).
 * @nrows: rows of tasks.
 * @task_row: the row of each task (rtr_model.ntasks).
 * @row_off: row r's tasks are @row_task[row_off[r] .. row_off[r + 1]];
 *	@nrows + 1 entries.
 * @row_task: the tasks by row, each row's in time order (they never overlap).
 * @trace_row: trace t's rows start at trace_row[t]; one empty row between two
 *	traces; rtr_model.ntraces + 1 entries.
 * @arrows: the model's arrows and the create and becomes lines; @narrows.
 * @class_off: class b's arrows are @arrows[class_off[b] .. class_off[b + 1]];
 *	RTR_SCENE_NCLASSES + 1 entries.
 * @sleep: where no task of a trace runs (no run on any of its CPUs) between
 *	its first and its last item, [start, end) pairs in time order;
 *	@sleep_off[t] .. @sleep_off[t + 1] are trace t's pairs (a trace without
 *	runs has none): mirage's sleeping regions.
 * @aligned: built with RTR_SCENE_ALIGN_START.
 * @task_start: where each task's line starts: its creation, or with
 *	RTR_SCENE_SIMPLIFY_BINDS a simplified bind's first read.
 * @simplified: the binds simplified.
 * @holds: the locks held while others waited (reader/threads.h,
 *	rtr_lock_holds()) by lock, each lock's by start: lock task k's are
 *	@holds[hold_first[k] .. hold_first[k + 1]] (they never overlap);
 *	@nholds; @hold_first has rtr_model.ntasks + 1 entries.
 * @cpu_sample_ts: the times of the CPU samples (record --sample) by thread
 *	task, each task's in time order: task k's are
 *	@cpu_sample_ts[cpu_sample_first[k] .. cpu_sample_first[k + 1]];
 *	@cpu_sample_first has rtr_model.ntasks + 1 entries.
 */
struct rtr_scene {
	const struct rtr_model *m;
	uint32_t nrows;
	uint32_t *task_row;
	uint32_t *row_off;
	uint32_t *row_task;
	uint32_t *trace_row;
	struct rtr_scene_arrow *arrows;
	uint32_t narrows;
	uint32_t class_off[RTR_SCENE_NCLASSES + 1];
	int64_t *sleep;
	uint32_t *sleep_off;
	bool aligned;
	int64_t *task_start;
	uint32_t simplified;
	struct rtr_lock_hold *holds;
	uint32_t nholds;
	uint32_t *hold_first;
	int64_t *cpu_sample_ts;
	uint32_t *cpu_sample_first;
	/* private: */
	struct rtr_scene_lod rows;	/* tasks by row */
	struct rtr_scene_lod lanes;	/* runs by CPU */
	struct rtr_scene_lod cpu_marks;	/* markers by CPU */
	struct rtr_scene_lod thread_marks; /* markers by thread (those that name one) */
	uint32_t *mark_buf;		/* the last two's lane offsets and items */
	struct rtr_lod arrow_idx;	/* over @arrows: rank << 62 | length */
	uint8_t *arrow_rank;		/* by arrow: 0 hidden, 1 drawn, 2 a failure */
	int64_t *arrow_tf;		/* by arrow: its start, searched on contiguous memory */
	int64_t *sample_min;		/* segment trees over rtr_model.samples' values */
	int64_t *sample_max;
	int64_t *kind_ts;		/* arrows' ends by kind, then time: the summaries */
	uint32_t kind_off[RTR_SCENE_ARROW_KINDS + 1];
	uint32_t *failed;		/* the failure arrows (failed reads, failures), in @arrows' order */
	uint32_t nfailed;
};

/**
 * enum rtr_scene_flags - how rtr_scene_build() lays the model out.
 * @RTR_SCENE_ALIGN_START: move each trace in time so that it begins where
 *	the earliest does (`ringtrace view --align start`): runs of a program
 *	recorded at different times drawn one above the other.  This changes
 *	the model's times in place (and re-sorts what is sorted by time).
 * @RTR_SCENE_SIMPLIFY_BINDS: mirage's simplify_binds: a bind-like task
 *	(kind bind, try, map, ignore_result, on_success, on_failure,
 *	on_termination, on_any) whose first read comes before anyone waited
 *	for it or read it sat idle until its input was ready: its line starts
 *	at that read, and its creation line comes from the input it read.
 *	The rows stay those of the tasks' creations.
 */
enum rtr_scene_flags {
	RTR_SCENE_ALIGN_START = 1u << 0,
	RTR_SCENE_SIMPLIFY_BINDS = 1u << 1,
};

/**
 * rtr_scene_build() - lay @m out for drawing.
 * @s: the scene to fill.
 * @m: the model (with RTR_SCENE_ALIGN_START, changed in place).
 * @flags: enum rtr_scene_flags.
 *
 * Cost: O(n log n) time, about 60 bytes a task, 40 an arrow, 30 a run.
 *
 * Return: 0; -ENOMEM, memory ran out (@s then holds nothing, and
 * rtr_scene_free() is still safe).
 */
int rtr_scene_build(struct rtr_scene *s, struct rtr_model *m, unsigned flags);

/* rtr_scene_free() - free what rtr_scene_build() allocated; @s is then empty. */
void rtr_scene_free(struct rtr_scene *s);

/**
 * struct rtr_window - a window query: what a front end shows.
 * @t0: the time at the left edge (ns since the model's origin).
 * @t1: the time at the right edge (> @t0).
 * @row0: the first row shown.
 * @row1: the row after the last (clamped to rtr_scene.nrows).
 * @width: the window's width in pixels (1 .. RTR_SCENE_MAX_WIDTH).
 * @max_arrows: the arrows drawn one by one, at most (0: RTR_SCENE_DEFAULT_ARROWS);
 *	beyond, the arrows are summarised (struct rtr_frame).
 */
struct rtr_window {
	int64_t t0;
	int64_t t1;
	uint32_t row0;
	uint32_t row1;
	uint32_t width;
	uint32_t max_arrows;
};

/**
 * enum rtr_item_flags - struct rtr_item.flags.
 * @RTR_ITEM_SPAN: the item stands for @count items narrower than
 *	RTR_SCENE_NARROW_PX, merged; @index is the most important of them.
 * @RTR_ITEM_FAILED: a failed task is among them (drawn red).
 * @RTR_ITEM_NEVER: a never-resolved task (drawn red to the right edge).
 */
enum rtr_item_flags {
	RTR_ITEM_SPAN = 1u << 0,
	RTR_ITEM_FAILED = 1u << 1,
	RTR_ITEM_NEVER = 1u << 2,
};

/**
 * struct rtr_item - a task or a run to draw, or a span of merged ones.
 * @x0: left end, in pixels from the window's left edge (clamped to
 *	[0, width]).
 * @x1: right end (>= @x0; a never-resolved task's is the width: the right edge).
 * @lane: its row (tasks) or its CPU (runs: an index into rtr_model.cpus).
 * @index: the task (rtr_model.tasks) or run (rtr_model.runs) it is, or the
 *	most important of the span: a failed task first, then the longest.
 * @count: how many tasks or runs it stands for (1 unless RTR_ITEM_SPAN).
 * @flags: enum rtr_item_flags.
 */
struct rtr_item {
	double x0;
	double x1;
	uint32_t lane;
	uint32_t index;
	uint32_t count;
	uint32_t flags;
};

/**
 * struct rtr_arrow_item - an arrow to draw, or one standing for several.
 * @x0: where it starts, pixels (not clamped: an arrow may start or end
 *	off the window).
 * @x1: where it ends.
 * @from_row: rtr_scene.task_row of its start.
 * @to_row: of its end.
 * @arrow: index into rtr_scene.arrows.
 * @count: the arrows of its class starting in its pixel it stands for.
 */
struct rtr_arrow_item {
	double x0;
	double x1;
	uint32_t from_row;
	uint32_t to_row;
	uint32_t arrow;
	uint32_t count;
};

/**
 * struct rtr_span - a region to shade: a sleeping region.
 * @x0: left end, pixels, clamped to [0, width].
 * @x1: right end.
 * @trace: trace index (its rows are rtr_scene.trace_row[trace] ..).
 */
struct rtr_span {
	double x0;
	double x1;
	uint32_t trace;
};

/**
 * struct rtr_counter_item - a counter's value over a stretch of the window:
 * one sample's step, or a pixel column of several changes.
 * @x0: where it starts, pixels (clamped to [0, width]).
 * @x1: where the next item starts (or the window's right edge, or the
 *	counter's trace's last item).
 * @counter: index into rtr_model.counters.
 * @count: the changes in [@x0, @x0 + 1) it stands for (0 for the value
 *	the counter had when the window starts, 1 for a single step).
 * @min: the smallest value it took there (the value before the changes
 *	included: a column's stroke runs from there).
 * @max: the largest.
 * @value: the value from the last of them on, up to @x1.
 */
struct rtr_counter_item {
	double x0;
	double x1;
	uint32_t counter;
	uint32_t count;
	int64_t min;
	int64_t max;
	int64_t value;
};

/**
 * struct rtr_loss_item - where a CPU's stream revealed lost events or
 * packets (rtr_model.losses), one item a pixel column of a lane.
 * @x: where, pixels (the loss's own x when alone; the column's left edge
 *	when it stands for several).
 * @lane: the CPU lane (rtr_model.cpus).
 * @index: the first loss it stands for (rtr_model.losses); @count of them.
 * @count: losses it stands for.
 * @events: events lost there (RTR_LOSS_EVENTS), summed.
 * @packets: packets lost there (RTR_LOSS_PACKETS), summed.
 */
struct rtr_loss_item {
	double x;
	uint32_t lane;
	uint32_t index;
	uint32_t count;
	uint64_t events;
	uint64_t packets;
};

/**
 * enum rtr_arrow_detail - how a frame's arrows are given (rtr_frame.arrow_detail).
 * @RTR_ARROWS_EXACT: every arrow in view, one item each.
 * @RTR_ARROWS_MERGED: one item per length class and starting pixel, with its count.
 * @RTR_ARROWS_SUMMARY: too many even so: @arrow_hist counts them, and the
 *	arrow items are the failures only.
 */
enum rtr_arrow_detail {
	RTR_ARROWS_EXACT = 0,
	RTR_ARROWS_MERGED = 1,
	RTR_ARROWS_SUMMARY = 2,
};

/**
 * struct rtr_frame - the answer of a window query.
 * @tasks: the tasks of the rows in view, by row, then x; @ntasks.
 * @runs: the runs of every CPU lane, by lane, then x; @nruns.
 * @arrows: the arrows; @narrows.
 * @arrow_detail: enum rtr_arrow_detail.
 * @arrow_hist: with RTR_ARROWS_SUMMARY, RTR_SCENE_ARROW_KINDS * width
 *	counts: arrow_hist[kind * width + px], the arrows of that kind ending
 *	in pixel column px; NULL otherwise.
 * @sleep: the sleeping regions in view, at least a pixel wide; @nsleep.
 * @counters: every counter's steps in view, by counter then x, at most one
 *	a pixel column: the changes within one column merged into one item
 *	with their range; @ncounters.
 * @cpu_marks: the markers (rtr_model.markers: events the task model does
 *	not read) on each CPU's lane: @lane a CPU, @index a marker, ticks
 *	closer than a pixel merged into spans with their count; @ncpu_marks.
 * @thread_marks: the same on the lanes of the threads that wrote markers:
 *	@lane a thread (rtr_model.threads); @nthread_marks.
 * @holds: on the row of each lock drawn as a task of its own (a @tasks
 *	item of count 1), its holds in view while others waited (at most
 *	4096 a lock): @lane the row, @index the hold (rtr_scene.holds), @x0
 *	and @x1 clamped (@x1 at least @x0 + 1 within the width); @nholds.
 * @ticks: on the row of each thread drawn as a task of its own, its CPU
 *	samples in view (record --sample), one item a pixel column that has
 *	some: @lane the row, @index the thread task, @x0 the column, @x1 the
 *	next, @count the samples in it; @nticks.
 * @losses: the losses in view (at t1 too: a loss is seen at its packet's
 *	end, often the trace's last time) on the CPU lanes, by time, at most one a
 *	pixel column of a lane; @nlosses.  (A stream's damage, where its lane
 *	stops being known, is few: front ends take it from rtr_model.damage.)
 * @notes: the notes in view (rtr_model.notes), marks on the ruler: @x0
 *	the note's x (@x1 the same), @index the first note of its pixel
 *	column, @count how many the column holds; @nnotes.
 * @pauses: the pauses in view (rtr_model.pauses: stalls the program
 *	reported, rtr_pause()), shaded regions: @x0 and @x1 clamped to [0, width], @index
 *	the pause, @count 1, or the pauses a pixel wide merged into one item
 *	(@index the first); @npauses.
 * @tasks_in_view: tasks of the rows in view that cross the window (what
 *	the items stand for: the sum of their counts).
 * @arrows_in_view: arrows whose class and start put them in the window
 *	(an upper bound: some end before it).
 *
 * Owned by the caller: start it zeroed, reuse it across queries (its arrays
 * grow and are reused), rtr_frame_free() at the end.
 */
struct rtr_frame {
	struct rtr_item *tasks;
	uint32_t ntasks;
	struct rtr_item *runs;
	uint32_t nruns;
	struct rtr_arrow_item *arrows;
	uint32_t narrows;
	uint32_t arrow_detail;
	uint32_t *arrow_hist;
	struct rtr_span *sleep;
	uint32_t nsleep;
	struct rtr_counter_item *counters;
	uint32_t ncounters;
	struct rtr_item *cpu_marks;
	uint32_t ncpu_marks;
	struct rtr_item *thread_marks;
	uint32_t nthread_marks;
	struct rtr_item *holds;
	uint32_t nholds;
	struct rtr_item *ticks;
	uint32_t nticks;
	struct rtr_loss_item *losses;
	uint32_t nlosses;
	struct rtr_item *notes;
	uint32_t nnotes;
	struct rtr_item *pauses;
	uint32_t npauses;
	uint64_t tasks_in_view;
	uint64_t arrows_in_view;
	/* private: */
	uint32_t cap_tasks, cap_runs, cap_arrows, cap_sleep, cap_hist, cap_counters, cap_bound;
	uint32_t cap_cpu_marks, cap_thread_marks, cap_holds, cap_ticks, cap_losses, cap_notes;
	uint32_t cap_pauses;
	int64_t *bound;
};

/* Labels: over a task's line this many pixels wide or more; at most this many a frame. */
#define RTR_SCENE_LABEL_MIN_PX	16.0
#define RTR_SCENE_LABELS_MAX	3000

/* rtr_scene_task_name() - a task's name as drawn: its first label, else "#id" (in @buf). */
const char *rtr_scene_task_name(const struct rtr_scene *s, uint32_t task, char *buf, size_t len);

/**
 * rtr_scene_window() - what to draw of @s in window @w.
 * @s: a built scene.
 * @w: the window.
 * @f: the answer (its previous contents replaced).
 *
 * Return: 0; -EINVAL, a window that is not one (@t1 <= @t0, a width of 0
 * or above RTR_SCENE_MAX_WIDTH, @row0 > @row1); -ENOMEM.
 */
int rtr_scene_window(const struct rtr_scene *s, const struct rtr_window *w, struct rtr_frame *f);

/*
 * rtr_scene_first_at() - the first of @ts[@a .. @b) (ascending times: a task's
 * @cpu_sample_ts) at or after @t, @b if none.
 */
static inline uint32_t rtr_scene_first_at(const int64_t *ts, uint32_t a, uint32_t b, int64_t t)
{
	while (a < b) {
		uint32_t mid = a + (b - a) / 2;

		if (ts[mid] < t)
			a = mid + 1;
		else
			b = mid;
	}
	return a;
}

/* rtr_frame_free() - free a frame's arrays; @f is then empty. */
void rtr_frame_free(struct rtr_frame *f);

/**
 * struct rtr_scene_bind - a bind that simplify_binds draws from its first
 * read (RTR_SCENE_SIMPLIFY_BINDS).
 * @task: the bind-like task; its line starts at @start, its first read.
 * @arrow: its create line (an index into the arrows of a scene built
 *	without RTR_SCENE_SIMPLIFY_BINDS, of length class 0), which then comes
 *	from @from, the input it read, at @start.
 */
struct rtr_scene_bind {
	uint32_t task, arrow, from;
	int64_t start;
};

/*
 * rtr_scene_binds() - the binds simplify_binds changes in @s, built without
 * it, by task: *@out (the caller frees it), *@n of them.  The scene applies
 * them itself with RTR_SCENE_SIMPLIFY_BINDS; the page, which toggles it (b),
 * carries them.  Return: 0, or -ENOMEM.
 */
int rtr_scene_binds(const struct rtr_scene *s, struct rtr_scene_bind **out, uint32_t *n);

/*
 * rtr_scene_arrow_failed() - @a is a failure: a read of a failed task, or a
 * resolve that failed its task (drawn red).
 */
bool rtr_scene_arrow_failed(const struct rtr_scene *s, const struct rtr_scene_arrow *a);

/*
 * rtr_scene_arrow_hidden() - @a is a try_read that the same reader's read of
 * the same input follows, or a signal to a synchronisation object that
 * ended no wait (RTR_ARROW_HIDDEN): not drawn.
 */
bool rtr_scene_arrow_hidden(const struct rtr_scene_arrow *a);

/*
 * rtr_scene_arrow_remote() - @a is a read between two traces joined by the
 * cross-trace id (RTR_ARROW_REMOTE: a request or reply between hosts),
 * drawn teal (#00a0a0) unless it is a failure.
 */
bool rtr_scene_arrow_remote(const struct rtr_scene_arrow *a);

/* The longest query rtr_scene_search() takes, in bytes. */
#define RTR_SCENE_SEARCH_MAX	256

/**
 * rtr_scene_search() - the tasks whose kind, any label or failure reason
 * matches @query: a substring in any case, or "/re/" or "/re/i" for a POSIX
 * extended regular expression (case-blind with i), as the page's search box.
 * @s: a built scene.
 * @query: the query (1 to RTR_SCENE_SEARCH_MAX bytes).
 * @out: where the matching tasks' indices go, ascending.
 * @max: @out's room: the first @max matches are kept.
 *
 * Return: how many tasks match (may be more than @max); -EINVAL, an empty
 * or too long query, or a regular expression that does not compile, or
 * flags other than i; -ENOMEM.
 */
int64_t rtr_scene_search(const struct rtr_scene *s, const char *query, uint32_t *out, uint32_t max);

/* rtr_scene_arrow_kind_name() - "read", "try_read", "resolve", "signal", "create", "becomes". */
const char *rtr_scene_arrow_kind_name(unsigned kind);

#endif /* RTR_VIEW_SCENE_H */
