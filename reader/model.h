/* SPDX-License-Identifier: MIT */
/*
 * reader/model.h - the task model of one or more traces, rebuilt from their
 * events (Documentation/events.rst, design-anchors §1.6): tasks, arrows,
 * runs on CPUs, counters, notes, pauses, losses and damage, all on one time
 * axis.  What `ringtrace stats`, `export` and `view` draw from.
 *
 * Layout: flat arrays, each with its count, indices (uint32_t) instead of
 * pointers, RTR_MODEL_NONE for "none", strings as offsets into one pool
 * (rtr_model_str()).  Everything is owned by struct rtr_model and freed by
 * rtr_model_free().
 *
 * Time: every time in the model is an int64_t count of nanoseconds since
 * @origin_ns, the earliest item (event, or packet start for a loss) of all
 * the traces loaded; origin_ns itself is nanoseconds since the Unix epoch.
 * Each trace's times are converted with its own clock (frequency and the
 * offset in its metadata, exactly as `ringtrace dump` prints them), so traces
 * from several processes or hosts share the axis.  Times relative to the
 * origin stay below 2^53 (exact as a double, e.g. in JavaScript) for any
 * trace shorter than 104 days.
 *
 * Task ids are per trace: the task with id 5 in one trace and id 5 in
 * another are two tasks.  The chunks of one rotated recording are one trace
 * (its ids, tasks, CPUs and losses span the chunks).
 *
 * An LTTng kernel trace's scheduler events are read as ringtrace's task
 * events are (Documentation/reader.rst, "The scheduler's events of a kernel
 * trace"): each thread a task of kind thread whose id is its thread id,
 * sched_switch its runs, sched_process_fork its create, the exit its
 * resolve, a wake-up a signal.  A thread id reused after its thread ended
 * names a new task: two tasks of one trace may then share an id.
 */
#ifndef RTR_READER_MODEL_H
#define RTR_READER_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* "No task", "no counter", ...: the null index. */
#define RTR_MODEL_NONE		UINT32_MAX

/* The kind value of a task the trace never saw created (see RTR_TASK_PREEXISTING). */
#define RTR_MODEL_KIND_UNKNOWN	UINT32_MAX

/**
 * enum rtr_task_flags - what is known about a task (struct rtr_model_task.flags).
 * @RTR_TASK_CREATED: a create event for it is in the trace; without it the
 *	task existed before the trace (or its create was lost) and @created is
 *	the first time the trace mentions it.
 * @RTR_TASK_PREEXISTING: the opposite of RTR_TASK_CREATED, kept as its own
 *	bit for readability; exactly one of the two is set.
 * @RTR_TASK_RESOLVED: resolved (or failed): @resolved is valid.
 * @RTR_TASK_FAILED: failed (rtr_fail()); @reason is the text given.
 * @RTR_TASK_SHOULD_RESOLVE: rtr_should_resolve() was called for it.
 * @RTR_TASK_NEVER_RESOLVED: marked should_resolve, and neither it nor the
 *	task at the end of its becomes chain was resolved by the end of the
 *	trace: drawn red to the right edge (mirage: "should-resolve thread
 *	never resolved").  @end is then the end of the trace.
 * @RTR_TASK_BECAME: it merged into another task (@becomes).
 */
enum rtr_task_flags {
	RTR_TASK_CREATED = 1u << 0,
	RTR_TASK_PREEXISTING = 1u << 1,
	RTR_TASK_RESOLVED = 1u << 2,
	RTR_TASK_FAILED = 1u << 3,
	RTR_TASK_SHOULD_RESOLVE = 1u << 4,
	RTR_TASK_NEVER_RESOLVED = 1u << 5,
	RTR_TASK_BECAME = 1u << 6,
};

/**
 * struct rtr_model_task - one task: a line from @created to @end.
 * @id: its id in its trace (never 0: id 0 means "no task").
 * @trace: index into rtr_model.traces.
 * @kind: enum rtr_task_kind value from its create event (user kinds from
 *	64 kept as they are), RTR_MODEL_KIND_UNKNOWN when not created in the
 *	trace; RTR_KIND_THREAD for an LTTng kernel trace's threads, created in
 *	the trace or not.
 * @kind_name: string: the kind's name from the trace metadata ("wait",
 *	"bind", ...), "kind N" for a value the metadata does not name,
 *	"preexisting" for RTR_MODEL_KIND_UNKNOWN, "thread" for a kernel
 *	trace's threads.
 * @flags: enum rtr_task_flags.
 * @parent: index of the task that created it, or RTR_MODEL_NONE (created by
 *	task 0, or not created in the trace).
 * @parent_id: that task's id (0 when none), even when the parent is not a task
 *	of the model.
 * @created: time of its create event, or of its first mention.
 * @resolved: time it was resolved or failed; valid with RTR_TASK_RESOLVED.
 * @end: where its line ends: @resolved if resolved; the end of its trace if
 *	RTR_TASK_NEVER_RESOLVED; otherwise the last time the trace mentions it
 *	(any event naming it, or the end of its last run), never before @created.
 * @becomes: index of the task it merged into (rtr_becomes(this, main)), or
 *	RTR_MODEL_NONE; follow it for the whole chain.
 * @becomes_ts: time of that becomes event.
 * @became_from: index of a task that merged into this one (the latest, when
 *	several did), or RTR_MODEL_NONE: the chain backwards.
 * @name: string: its first label ("" if none).
 * @reason: string: why it failed ("" unless RTR_TASK_FAILED).
 * @label_first: its labels are rtr_model.labels[label_first .. +nlabels], in
 *	time order.
 * @nlabels: how many labels.
 * @run_first: the times it ran are rtr_model.runs[run_first .. +nruns], in
 *	time order.
 * @nruns: how many runs.
 */
struct rtr_model_task {
	uint64_t id;
	uint32_t trace;
	uint32_t kind;
	uint32_t kind_name;
	uint32_t flags;
	uint32_t parent;
	uint64_t parent_id;
	int64_t created;
	int64_t resolved;
	int64_t end;
	uint32_t becomes;
	int64_t becomes_ts;
	uint32_t became_from;
	uint32_t name;
	uint32_t reason;
	uint32_t label_first;
	uint32_t nlabels;
	uint32_t run_first;
	uint32_t nruns;
};

/**
 * enum rtr_arrow_kind - the interactions drawn as arrows (design-anchors §1.7).
 * @RTR_ARROW_READ: @to read @from's result (blue; red if @from failed).
 *	Drawn from @from at @t_from (its resolution) to @to at @ts.
 * @RTR_ARROW_TRY_READ: @to looked at @from, not ready (yellow).
 * @RTR_ARROW_RESOLVE: @from resolved @to (green), or failed it
 *	(RTR_ARROW_FAILURE set).
 * @RTR_ARROW_SIGNAL: @from woke @to (orange).
 *
 * For READ and TRY_READ the arrow points at the reader, as mirage draws it:
 * @from is the input, @to the reader.
 */
enum rtr_arrow_kind {
	RTR_ARROW_READ = 0,
	RTR_ARROW_TRY_READ = 1,
	RTR_ARROW_RESOLVE = 2,
	RTR_ARROW_SIGNAL = 3,
};

/**
 * enum rtr_arrow_flags - struct rtr_model_arrow.flags.
 * @RTR_ARROW_HIDDEN: a try_read that the same reader's read of the same
 *	input follows (mirage hides the yellow arrow then); a signal to a
 *	synchronisation object (mutex, condition, semaphore, barrier, rwlock)
 *	after which no wait on it ended before the next signal to it: only a
 *	release that ended a wait is drawn.
 * @RTR_ARROW_FAILURE: a resolve that is an rtr_fail().
 * @RTR_ARROW_REMOTE: a read that joins two traces by the cross-trace id
 *	convention (a request or a reply from one host to another:
 *	Documentation/network.rst), drawn in a colour of its own.
 */
enum rtr_arrow_flags {
	RTR_ARROW_HIDDEN = 1u << 0,
	RTR_ARROW_FAILURE = 1u << 1,
	RTR_ARROW_REMOTE = 1u << 2,
};

/**
 * struct rtr_model_arrow - one interaction between two tasks.
 * @ts: time of the event.
 * @t_from: where the arrow starts in time: for a read, @from's resolution
 *	if it came before @ts, else @ts; @ts for the others.
 * @from: task index (see enum rtr_arrow_kind for the direction).
 * @to: task index.
 * @kind: enum rtr_arrow_kind.
 * @flags: enum rtr_arrow_flags.
 * @cpu: index into rtr_model.cpus of the stream that recorded it.
 *
 * Only interactions between two tasks (ids other than 0) are arrows; the
 * array is sorted by @ts (ties in trace, then recording order).
 */
struct rtr_model_arrow {
	int64_t ts;
	int64_t t_from;
	uint32_t from;
	uint32_t to;
	uint8_t kind;
	uint8_t flags;
	uint32_t cpu;
};

/**
 * struct rtr_model_hold - how long a thread had held a mutex when its
 * unlock woke a waiter (record --hold-times: the pthread wrapper's
 * pthread:hold event just before that signal).
 * @ts: the signal arrow's time.
 * @holder: the signalling thread's task index (the arrow's @from).
 * @lock: the mutex's task index (the arrow's @to).
 * @held_ns: from the thread's lock to that unlock.
 *
 * rtr_model.holds is sorted by @ts.
 */
struct rtr_model_hold {
	int64_t ts;
	uint32_t holder;
	uint32_t lock;
	int64_t held_ns;
};

/**
 * struct rtr_model_label - a label on a task (rtr_label()).
 * @ts: when.
 * @task: task index.
 * @text: string (arbitrary bytes but NUL; not necessarily UTF-8).
 * @len: its length in bytes.
 *
 * rtr_model.labels is grouped by task (in task index order), each task's
 * labels in time order: see rtr_model_task.label_first.
 */
struct rtr_model_label {
	int64_t ts;
	uint32_t task;
	uint32_t text;
	uint32_t len;
};

/**
 * struct rtr_model_run - a task running on a CPU, from @start to @end.
 * @start: its switch event.
 * @end: the next switch on the same CPU; or, when the CPU's stream then
 *	loses events or packets or is damaged, the CPU's last item before that
 *	(what ran during a gap is unknown); or, at the end of the stream, the
 *	CPU's last time (rtr_model_cpu.last).
 * @task: task index.
 * @cpu: index into rtr_model.cpus.
 * @thread: index into rtr_model.threads of the thread whose switch started
 *	it (ringtrace's thread records), or RTR_MODEL_NONE when unknown.
 *
 * Derived from rtr_switch() alone (an LTTng kernel trace: sched_switch): a
 * switch on a CPU ends the run of whatever task the previous switch on that
 * CPU started (switch to task 0, idle, ends it without starting one).  A
 * kernel trace's sched_switch also names the thread it switches from: a
 * CPU's first one, or its first after a loss, ends a run of that thread
 * from the CPU's first item (or the loss) on.  In a trace with the kernel's
 * records (record --sched) a thread task's runs are the kernel's instead:
 * from its switch in to its switch out, whatever else runs on the CPU, on
 * the CPU's kernel stream, @why saying how it left.  rtr_model.runs is grouped by task (see
 * rtr_model_task.run_first); rtr_model.cpu_runs lists the same runs by CPU.
 */
struct rtr_model_run {
	int64_t start;
	int64_t end;
	uint32_t task;
	uint32_t cpu;
	uint32_t thread;
	uint8_t why;
};

/**
 * enum rtr_run_why - how a run ended (struct rtr_model_run.why).
 * @RTR_RUN_SWITCH: another switch on its CPU (the task model's rtr_switch(),
 *	an LTTng sched_switch), or the end of what is known of its CPU.
 * @RTR_RUN_BLOCKED: the kernel's records (record --sched): the thread left
 *	the CPU to wait (a lock, a condition, I/O, a sleep).
 * @RTR_RUN_PREEMPTED: the kernel's records: it left the CPU runnable
 *	(preempted, or it yielded), so it waited for a CPU until its next run.
 */
enum rtr_run_why {
	RTR_RUN_SWITCH = 0,
	RTR_RUN_BLOCKED = 1,
	RTR_RUN_PREEMPTED = 2,
};

/*
 * A thread the kernel's records name (record --sched) that no thread task
 * of its trace stands for (the pthread wrapper's, which a ring switch
 * under the thread's own thread record names) gets a task of its own, of
 * kind thread: its id is RTR_MODEL_KTHREAD | the thread id.
 */
#define RTR_MODEL_KTHREAD	((uint64_t)1 << 51)

/**
 * struct rtr_model_sample - a counter's value from @ts on (a step function).
 * @ts: when it changed.
 * @value: the new value.
 * @task: the task running on the CPU that recorded the change (its last
 *	rtr_switch()), the one that changed it (mirage labels it name+delta),
 *	or RTR_MODEL_NONE if none ran there.
 */
struct rtr_model_sample {
	int64_t ts;
	int64_t value;
	uint32_t task;
};

/**
 * struct rtr_model_frame - a node of the call tree of the CPU samples
 * (record --sample): a function, called from its @parent node.  Frames of
 * one parent have distinct names: a frame is a call path.
 * @parent: the caller's frame index, RTR_MODEL_NONE for an outermost one.
 * @name: string: the function (reader/symbols.h, tr_syms_function()), or
 *	"[unknown]" where the trace's mappings name nothing (the vDSO, code
 *	made at run time, a file that changed).
 * @depth: 0 for an outermost frame, its parent's + 1 else.
 *
 * A frame's parent comes before it in rtr_model.frames.
 */
struct rtr_model_frame {
	uint32_t parent;
	uint32_t name;
	uint32_t depth;
};

/**
 * struct rtr_model_cpu_sample - thread task @task was running its own
 * code at @ts, in @frame (the innermost function of its stack).
 *
 * rtr_model.cpu_samples is sorted by time.
 */
struct rtr_model_cpu_sample {
	int64_t ts;
	uint32_t task;
	uint32_t frame;
};

/**
 * struct rtr_model_counter - one named counter of one trace.
 * @name: string: its registered name ("counter N" if the metadata does not
 *	name id N).
 * @trace: trace index.
 * @id: its id in that trace.
 * @group: index of the first counter (over all traces) whose name has the same
 *	prefix before '#' (the whole name if it has no '#'): counters of one
 *	group share a scale (mirage: "buflen#1", "buflen#2").
 * @sample_first: its samples are rtr_model.samples[sample_first .. +nsamples],
 *	in time order.
 * @nsamples: how many.
 * @min: smallest value.
 * @max: largest value.
 */
struct rtr_model_counter {
	uint32_t name;
	uint32_t trace;
	uint32_t id;
	uint32_t group;
	uint32_t sample_first;
	uint32_t nsamples;
	int64_t min;
	int64_t max;
};

/**
 * struct rtr_model_note - a note (rtr_note()): a marker.
 * @ts: when.
 * @cpu: index into rtr_model.cpus.
 * @thread: index into rtr_model.threads of the thread that wrote it (the
 *	trace's thread records), RTR_MODEL_NONE when unknown.
 * @text: string.
 * @len: its length in bytes.
 */
struct rtr_model_note {
	int64_t ts;
	uint32_t cpu;
	uint32_t thread;
	uint32_t text;
	uint32_t len;
};

/**
 * struct rtr_model_pause - a stall (rtr_pause()): a shaded region.
 * @start: @end minus the duration the event gives (clamped at the origin).
 * @end: the event's time: rtr_pause() is called once the stall is over.
 * @cpu: index into rtr_model.cpus.
 * @reason: string.
 * @len: its length in bytes.
 */
struct rtr_model_pause {
	int64_t start;
	int64_t end;
	uint32_t cpu;
	uint32_t reason;
	uint32_t len;
};

/**
 * enum rtr_loss_kind - struct rtr_model_loss.kind.
 * @RTR_LOSS_EVENTS: events the ring discarded (discard mode, ring full).
 * @RTR_LOSS_PACKETS: whole packets missing (overwritten, or not consumed).
 */
enum rtr_loss_kind {
	RTR_LOSS_EVENTS = 0,
	RTR_LOSS_PACKETS = 1,
};

/**
 * struct rtr_model_loss - where a CPU's stream lost data.
 * @ts: the beginning of the packet that reveals the loss: the lost data
 *	lies between the CPU's previous event and @ts.
 * @count: how many events or packets.
 * @cpu: index into rtr_model.cpus.
 * @kind: enum rtr_loss_kind.
 */
struct rtr_model_loss {
	int64_t ts;
	uint64_t count;
	uint32_t cpu;
	uint32_t kind;
};

/**
 * struct rtr_model_cpu - one stream file: one CPU of one trace.
 * @trace: trace index.
 * @cpu: the CPU number (the packets' cpu_id), RTR_MODEL_NONE if the stream
 *	has no valid packet.
 * @stream: the stream file's name within its trace directory (in a rotated
 *	trace, the files of that name in each chunk: one stream).
 * @first: time of its first item (0 when it has none).
 * @last: time of its last event, or of the end of its last packet,
 *	whichever is later.
 * @events: events read.
 * @events_lost: events discarded, in total.
 * @packets_lost: packets missing, in total.
 * @damaged: the stream is damaged: what follows the damage is not in the
 *	model (rtr_model.damage has the message).
 * @kernel: the kernel's records of CPU @cpu (record --sched): the runs of
 *	the traced threads that ran there, whatever else did.
 * @run_first: its runs are rtr_model.runs[cpu_runs[run_first .. +nruns]],
 *	in time order.
 * @nruns: how many.
 */
struct rtr_model_cpu {
	uint32_t trace;
	uint32_t cpu;
	uint32_t stream;
	int64_t first;
	int64_t last;
	uint64_t events;
	uint64_t events_lost;
	uint64_t packets_lost;
	bool damaged;
	bool kernel;
	uint32_t run_first;
	uint32_t nruns;
};

/**
 * struct rtr_model_class - an event class of a trace, and its events read.
 * @trace: trace index.
 * @name: string: "provider:event" (LTTng), "switch" (ringtrace's own).
 * @count: its events read.
 *
 * rtr_model.classes is grouped by trace, each trace's classes in metadata
 * order (the chunks of a rotated trace: each name once).  Every event of
 * every class is counted, the task model's too.
 */
struct rtr_model_class {
	uint32_t trace;
	uint32_t name;
	uint64_t count;
};

/**
 * struct rtr_model_thread - a thread the events name: ringtrace's thread
 * records, or LTTng's vtid (or tid) event context.
 * @trace: trace index.
 * @tid: its id, as the record or the context gives it.
 * @pid: its process's (the record's, or the vpid or pid context), 0 if unknown.
 * @name: string: the procname context of its latest event ("" if none).
 * @events: its events read.
 *
 * rtr_model.threads is sorted by trace, then thread id.
 */
struct rtr_model_thread {
	uint32_t trace;
	uint32_t name;
	uint64_t tid;
	uint64_t pid;
	uint64_t events;
};

/* The longest field text a marker keeps (longer text is cut, with "..."). */
#define RTR_MODEL_FIELDS_MAX	1024

/**
 * struct rtr_model_marker - an event the task model does not read (a typed
 * event of a ringtrace trace; every event of an LTTng trace but the
 * scheduler's events a kernel trace's task model reads): a mark on its
 * CPU's lane and its thread's, its fields on hover.
 * @ts: when.
 * @cpu: index into rtr_model.cpus.
 * @thread: index into rtr_model.threads, RTR_MODEL_NONE when no context
 *	names it.
 * @cls: index into rtr_model.classes.
 * @fields: string: its fields as `ringtrace dump` prints them ("a = 1,
 *	s = \"x\""), contexts first; "" unless loaded with RTR_MODEL_FIELDS.
 *
 * rtr_model.markers is sorted by time (kept only with RTR_MODEL_MARKERS).
 */
struct rtr_model_marker {
	int64_t ts;
	uint32_t cpu;
	uint32_t thread;
	uint32_t cls;
	uint32_t fields;
};

/**
 * struct rtr_model_trace - one trace: a directory, the chunks of a rotated
 *	one, or the stream on standard input.
 * @dir: string: the argument as given (a directory, or "-").
 * @hostname: string: the host it was recorded on ("" if unknown).
 * @vpid: the traced process's id (0 if unknown).
 * @offset_ns: the trace's clock offset: nanoseconds since the epoch of its
 *	clock's zero (metadata offset_s and offset).  A trace time t in cycles
 *	is at offset_ns + t * 1e9 / freq on the absolute axis.
 * @freq: its clock's frequency (cycles per second).
 * @first: time of its first item.
 * @last: time of its last item.
 * @events: events read.
 * @cpu_first: its CPUs are rtr_model.cpus[cpu_first .. +ncpus].
 * @ncpus: how many stream files (streams, in a rotated trace).
 * @nchunks: how many chunks it was read from (1: a plain trace directory).
 * @damaged: at least one of its streams is damaged, or it is @incomplete.
 * @incomplete: it came on standard input and the stream was cut or damaged:
 *	what came before is loaded (and listed as damage with no CPU).
 * @kernel: it has the kernel's records of its threads (record --sched): the
 *	runs of thread tasks are theirs, by thread, not the ring's switches
 *	by CPU (Documentation/reader.rst, "The kernel's view").
 */
struct rtr_model_trace {
	uint32_t dir;
	uint32_t hostname;
	uint32_t vpid;
	int64_t offset_ns;
	uint64_t freq;
	int64_t first;
	int64_t last;
	uint64_t events;
	uint32_t cpu_first;
	uint32_t ncpus;
	uint32_t nchunks;
	bool damaged;
	bool incomplete;
	bool kernel;
};

/**
 * struct rtr_model_damage - a damaged stream, as trace_reader reports it.
 * @trace: trace index.
 * @cpu: index into rtr_model.cpus: the damaged stream file (whose cpu is
 *	RTR_MODEL_NONE if not one packet of it was valid); or RTR_MODEL_NONE
 *	when the trace as a whole is incomplete (a cut stream on standard input).
 * @ts: time of the stream's last good item (0 if none).
 * @message: string: "DIR/FILE: offset N: what is wrong".
 */
struct rtr_model_damage {
	uint32_t trace;
	uint32_t cpu;
	int64_t ts;
	uint32_t message;
};

/**
 * struct rtr_model - everything rtr_model_load() rebuilt.
 * @origin_ns: nanoseconds since the epoch of time 0 (the earliest item).
 * @start: the earliest time (0 unless nothing was read).
 * @end: the latest time of all traces.
 * @events: events read, all traces.
 * @traces: the traces, in the order given; @ntraces of them.
 * @cpus: the stream files, grouped by trace, each trace's in file order;
 *	@ncpus.
 * @tasks: the tasks, grouped by trace, each trace's in order of first
 *	mention (so by @created, except tasks mentioned before their create
 *	event); @ntasks.
 * @arrows: sorted by time; @narrows.
 * @labels: grouped by task; @nlabels.
 * @runs: grouped by task; @nruns.
 * @cpu_runs: indices into @runs grouped by CPU (rtr_model_cpu.run_first),
 *	each CPU's in time order; @nruns of them.
 * @counters: grouped by trace, by id; @ncounters.
 * @samples: grouped by counter; @nsamples.
 * @notes: sorted by time; @nnotes.
 * @pauses: sorted by end time; @npauses.
 * @losses: sorted by time; @nlosses.
 * @damage: one per damaged stream; @ndamage.
 * @classes: every event class with its count, grouped by trace; @nclasses.
 * @threads: the threads event contexts name, by trace then id; @nthreads.
 * @markers: the events the task model does not read, by time; @nmarkers
 *	(RTR_MODEL_MARKERS).
 * @strs: the string pool: a string is @strs + offset, NUL-terminated.
 * @strs_len: bytes used in it.
 */
struct rtr_model {
	int64_t origin_ns;
	int64_t start;
	int64_t end;
	uint64_t events;
	struct rtr_model_trace *traces;
	uint32_t ntraces;
	struct rtr_model_cpu *cpus;
	uint32_t ncpus;
	struct rtr_model_task *tasks;
	uint32_t ntasks;
	struct rtr_model_arrow *arrows;
	uint32_t narrows;
	struct rtr_model_label *labels;
	uint32_t nlabels;
	struct rtr_model_run *runs;
	uint32_t *cpu_runs;
	uint32_t nruns;
	struct rtr_model_counter *counters;
	uint32_t ncounters;
	struct rtr_model_sample *samples;
	uint32_t nsamples;
	struct rtr_model_note *notes;
	uint32_t nnotes;
	struct rtr_model_pause *pauses;
	uint32_t npauses;
	struct rtr_model_loss *losses;
	uint32_t nlosses;
	struct rtr_model_damage *damage;
	uint32_t ndamage;
	struct rtr_model_class *classes;
	uint32_t nclasses;
	struct rtr_model_thread *threads;
	uint32_t nthreads;
	struct rtr_model_marker *markers;
	uint32_t nmarkers;
	struct rtr_model_frame *frames;
	uint32_t nframes;
	struct rtr_model_cpu_sample *cpu_samples;
	uint32_t ncpu_samples;
	struct rtr_model_hold *holds;
	uint32_t nholds;
	bool sliced;		/* a time range of the traces (rtr_model_load_slice()) */
	/* private: */
	char *strs;
	size_t strs_len;
	size_t strs_cap;
};

/* rtr_model_str() - the string at pool offset @off. */
static inline const char *rtr_model_str(const struct rtr_model *m, uint32_t off)
{
	return m->strs + off;
}

/**
 * rtr_model_load() - read the traces in @dirs into @m.
 * @m: the model to fill (its previous contents are not freed).
 * @dirs: the traces, as a user names them (reader/input.h): each a trace
 *	directory, a directory of rotated chunks (loaded as one trace), or
 *	"-" for the framed stream of `ringtrace record -o -` on standard input
 *	(spooled into a temporary directory, removed before the return); "-"
 *	at most once.
 * @ndirs: how many (at least 1).
 * @err: where to put the message of a fatal error.
 * @errlen: its size.
 *
 * A damaged stream does not stop the load: everything before the damage is
 * kept, and the damage is listed in @m->damage; so is a stream on standard
 * input that was cut (rtr_model_trace.incomplete).
 *
 * Return: 0, the whole of every trace loaded; 1, loaded with damage
 * (@m->ndamage > 0); -1, a trace could not be opened or memory ran out:
 * @err says which and why, and @m holds nothing (rtr_model_free() is still
 * safe).
 */
int rtr_model_load(struct rtr_model *m, char *const *dirs, int ndirs, char *err, size_t errlen);

/**
 * enum rtr_model_flags - what rtr_model_load_flags() keeps beyond the task
 * model, the classes' counts and the threads.
 * @RTR_MODEL_MARKERS: rtr_model.markers, an entry per event the task model
 *	does not read (32 bytes each).
 * @RTR_MODEL_FIELDS: their fields as text, too (the viewer's hover; up to
 *	RTR_MODEL_FIELDS_MAX bytes each).
 * @RTR_MODEL_LEAN: leave out what only drawings and the analyses read: the
 *	arrows (but the reads and try_reads of thread tasks), the counters'
 *	samples, notes, pauses, and the runs of the tasks that are not
 *	threads.  The tasks, their flags, times and names, classes, threads,
 *	CPUs, losses and damage are as a whole load's, and so are
 *	rtr_thread_times() (what `stats` tabulates).
 */
enum rtr_model_flags {
	RTR_MODEL_MARKERS = 1u << 0,
	RTR_MODEL_FIELDS = 1u << 1,
	RTR_MODEL_LEAN = 1u << 2,
};

/*
 * rtr_model_load_flags() - rtr_model_load() keeping what @flags (enum
 * rtr_model_flags) say; rtr_model_load() keeps everything.
 * Return: as rtr_model_load().
 */
int rtr_model_load_flags(struct rtr_model *m, char *const *dirs, int ndirs, unsigned flags,
			 char *err, size_t errlen);

/*
 * rtr_model_load_slice() - rtr_model_load_flags() of the time range
 * [@from_ns, @to_ns) of each trace (ns from its first event; @to_ns
 * UINT64_MAX: to its end): each stream read from the packet holding
 * @from_ns, found in the index beside the trace (reader/index.h, built
 * first when missing), up to @to_ns.  The model is that of the events in
 * the range (@m->sliced): a task created before it is one the trace never
 * saw created (RTR_TASK_PREEXISTING), and a should_resolve task not
 * resolved in it is not RTR_TASK_NEVER_RESOLVED (it may be after it).
 * Times count from the slice's first event.  Return: as rtr_model_load().
 */
int rtr_model_load_slice(struct rtr_model *m, char *const *dirs, int ndirs, unsigned flags,
			 uint64_t from_ns, uint64_t to_ns, char *err, size_t errlen);

/*
 * rtr_model_on_progress() - while this thread loads a model, call @fn
 * (@arg, events read so far) every 2^20 events read (NULL: none, the
 * default).  For a command's progress line on a long load; @fn must be
 * quick.
 */
void rtr_model_on_progress(void (*fn)(void *arg, uint64_t events), void *arg);

struct tr_input;
struct tr_follow_turn;

/**
 * rtr_model_load_turn() - one turn of following a recording
 * (reader/follow.h): load what @turn says may be read of @in now (its
 * chunks up to the one being written, that one within the whole packets
 * of the state file, the events before the watermark) into @m.
 * @m: the model to fill (its previous contents are not freed).
 * @in: the trace, opened live (tr_input_open()).
 * @turn: from tr_follow_poll().
 * @arg: the trace as the user named it (rtr_model_trace.dir).
 * @flags: enum rtr_model_flags.
 * @err: where to put the message of a fatal error.
 * @errlen: its size.
 *
 * Each turn loads the trace again, from its start: a model of the
 * recording so far, as rtr_model_load() would make of the trace if the
 * recording stopped there (Documentation/viewer.rst, "Following a recording").
 * Return: as rtr_model_load().
 */
int rtr_model_load_turn(struct rtr_model *m, const struct tr_input *in,
			const struct tr_follow_turn *turn, const char *arg, unsigned flags,
			char *err, size_t errlen);

/*
 * rtr_model_load_turn_tail() - rtr_model_load_turn() of the recording from
 * the absolute time @from_abs_ns (ns since the epoch) on: a slice of it
 * (@m->sliced, as rtr_model_load_slice() makes one), each stream read from
 * the packet holding that time, found in the index beside each chunk
 * (extended as the recording grows); INT64_MIN: the whole recording.
 * What following a long recording reads at each turn: its tail
 * (view/live.h).  Return: as rtr_model_load().
 */
int rtr_model_load_turn_tail(struct rtr_model *m, const struct tr_input *in,
			     const struct tr_follow_turn *turn, const char *arg, unsigned flags,
			     int64_t from_abs_ns, char *err, size_t errlen);

/* rtr_model_free() - free what rtr_model_load() allocated; @m is then empty. */
void rtr_model_free(struct rtr_model *m);

/*
 * rtr_model_last_task() - the task at the end of @task's becomes chain
 * (@task itself when it became nothing).  Cycles are cut.
 */
uint32_t rtr_model_last_task(const struct rtr_model *m, uint32_t task);

#endif /* RTR_READER_MODEL_H */
