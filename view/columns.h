/* SPDX-License-Identifier: MIT */
/*
 * view/columns.h - the columns of the scene as the self-contained page
 * carries them (tools/view.c writes them, tools/viewer/viewer.js reads them
 * by name): one table of names, kinds and meanings.  The page's JSON header
 * names each column with its kind and place, from this table; a column
 * written that is not here, or of another kind, is refused.
 */
#ifndef RTR_VIEW_COLUMNS_H
#define RTR_VIEW_COLUMNS_H

#include <stddef.h>

/* X(name, kind, element size, what an element is); kinds: f64 u32 u16 u8 utf8 */
#define RTR_PAGE_COLUMNS(X)								\
	X(task_start, f64, 8, "ns: the task's creation (first mention)")		\
	X(task_end, f64, 8, "ns: where its line ends (rtr_model_task.end)")		\
	X(task_id, f64, 8, "its id in its trace")					\
	X(task_row, u32, 4, "its row (rtr_scene.task_row)")				\
	X(task_parent, u32, 4, "the task that created it, or 0xffffffff")		\
	X(task_becomes, u32, 4, "the task it became, or 0xffffffff")			\
	X(task_nlabels, u32, 4, "its labels (label_* from the previous task's)")	\
	X(task_nruns, u32, 4, "its runs (run_* from the previous task's)")		\
	X(task_kind, u32, 4, "string: its kind's name")					\
	X(task_name, u32, 4, "string: its first label")					\
	X(task_reason, u32, 4, "string: why it failed")					\
	X(task_flags, u8, 1, "enum rtr_task_flags")					\
	X(task_trace, u16, 2, "its trace")						\
	X(row_task, u32, 4, "the tasks by row, then time (rtr_scene.row_task)")	\
	X(row_off, u32, 4, "row r's tasks: row_task[row_off[r] .. row_off[r + 1]]")	\
	X(label_ts, f64, 8, "ns: a label's time, grouped by task")			\
	X(label_str, u32, 4, "string: its text")					\
	X(run_start, f64, 8, "ns: a run's start, grouped by task")			\
	X(run_end, f64, 8, "ns: its end")						\
	X(run_task, u32, 4, "the task that ran")					\
	X(run_thread, u32, 4, "the thread whose switch started it, or 0xffffffff")	\
	X(run_why, u8, 1, "enum rtr_run_why: 2, preempted: runnable until its next")	\
	X(cpu_runs, u32, 4, "the runs by CPU, each CPU's in time order")		\
	X(arrow_tf, f64, 8, "ns: an arrow's start, by length class then start")	\
	X(arrow_ts, f64, 8, "ns: its end")						\
	X(arrow_from, u32, 4, "the task it starts at")					\
	X(arrow_to, u32, 4, "the task it ends at")					\
	X(arrow_kind, u8, 1, "enum rtr_arrow_kind, 4 create, 5 becomes")		\
	X(arrow_flags, u8, 1, "enum rtr_arrow_flags")					\
	X(arrow_bucket, u32, 4, "length class b's arrows start at arrow_bucket[b]")	\
	X(sample_ts, f64, 8, "ns: a counter's change, grouped by counter")		\
	X(sample_value, f64, 8, "the value from then on")				\
	X(sample_task, u32, 4, "the task running where it changed, or 0xffffffff")	\
	X(note_ts, f64, 8, "ns: a note, by time")					\
	X(note_str, u32, 4, "string: its text")						\
	X(pause_str, u32, 4, "string: a pause's reason")				\
	X(note_cpu, u32, 4, "the note's CPU (stream)")					\
	X(marker_ts, f64, 8, "ns: an event the task model does not read, by time")	\
	X(marker_cpu, u32, 4, "its CPU (stream)")					\
	X(marker_thread, u32, 4, "its thread, or 0xffffffff")				\
	X(marker_name, u32, 4, "string: its class")					\
	X(marker_fields, u32, 4, "string: its fields as dump prints them")		\
	X(pause_start, f64, 8, "ns: a pause's start, by end")				\
	X(pause_end, f64, 8, "ns: its end")						\
	X(pause_cpu, u32, 4, "its CPU (stream)")					\
	X(path_task, u32, 4, "a task whose critical path the page carries (page_paths())") \
	X(path_first, u32, 4, "path p's segments: path_t0[path_first[p] .. path_first[p + 1]]") \
	X(path_t0, f64, 8, "ns: a segment's start (view/path.h)")			\
	X(path_t1, f64, 8, "ns: its end")						\
	X(path_seg_task, u32, 4, "the task the path goes through there")		\
	X(path_what, u8, 1, "enum rtr_cp_what: what that task was doing")		\
	X(cpu_sample_ts, f64, 8, "ns: a CPU sample (record --sample), by time")	\
	X(cpu_sample_task, u32, 4, "the thread task it sampled")			\
	X(cpu_sample_frame, u32, 4, "its innermost frame (frame_*)")			\
	X(frame_parent, u32, 4, "a call path's caller frame, or 0xffffffff (model.h)") \
	X(frame_name, u32, 4, "string: its function")					\
	X(hold_start, f64, 8, "ns: a lock held while others waited, by lock, each by start") \
	X(hold_end, f64, 8, "ns: its release")						\
	X(hold_lock, u32, 4, "the lock's task")						\
	X(hold_holder, u32, 4, "the thread task that held it")			\
	X(hold_exact, u8, 1, "1: from its lock (record --hold-times), 0: from the first wait") \
	X(bind_task, u32, 4, "a bind simplify_binds draws from its first read (rtr_scene_binds())") \
	X(bind_arrow, u32, 4, "its create arrow (arrow_*), which then comes ...")	\
	X(bind_from, u32, 4, "... from this task, the input it read ...")		\
	X(bind_start, f64, 8, "ns: ... at its first read, where its line then starts")	\
	X(sleep_t0, f64, 8, "ns: where no task of a trace runs (rtr_scene.sleep), by trace") \
	X(sleep_t1, f64, 8, "ns: its end")						\
	X(sleep_off, u32, 4, "trace t's: sleep_t0[sleep_off[t] .. sleep_off[t + 1]]")	\
	X(strings, utf8, 1, "the string table: each string NUL-terminated, by index")

/* enum rtr_page_column: RTR_COL_task_start, ... */
enum rtr_page_column {
#define RTR_COL_ENUM(name, kind, size, what) RTR_COL_##name,
	RTR_PAGE_COLUMNS(RTR_COL_ENUM)
#undef RTR_COL_ENUM
	RTR_PAGE_NCOLUMNS
};

/**
 * struct rtr_page_column_def - one column of the page.
 * @name: its name in the page's header ("task_start").
 * @kind: "f64", "u32", "u16", "u8" or "utf8".
 * @size: an element's size in bytes.
 * @what: what an element is.
 */
struct rtr_page_column_def {
	const char *name;
	const char *kind;
	size_t size;
	const char *what;
};

extern const struct rtr_page_column_def rtr_page_columns[RTR_PAGE_NCOLUMNS];

/* rtr_page_column_find() - the column named @name, or NULL. */
const struct rtr_page_column_def *rtr_page_column_find(const char *name);

#endif /* RTR_VIEW_COLUMNS_H */
