// SPDX-License-Identifier: MIT
/*
 * reader/model.c - rebuild the task model (model.h) from trace arguments:
 * each names a trace directory, a directory of rotated chunks or '-'
 * (reader/input.h resolves it).  Each trace is read once, its streams merged
 * in time order (tr_merge; a rotated trace's chunks are one trace, each
 * stream continued from chunk to chunk), so that a task is seen created
 * before it is read and a try_read before the read that hides it.  Items go into growing flat arrays; task ids are found
 * through an open-addressing hash per trace.  Grouping (labels and runs by
 * task, samples by counter, runs by CPU) is done at the end with counting
 * sorts, and the traces' time-sorted arrays are merged with a natural merge
 * sort, so the load is linear in the events but for that merge.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/random.h>
#include <ringtrace/ringtrace.h>
#include "format/classes.h"
#include "reader/clock.h"
#include "reader/input.h"
#include "reader/follow.h"
#include "reader/index.h"
#include "reader/merge.h"
#include "reader/model.h"
#include "reader/symbols.h"
#include "reader/text.h"
#include "reader/ctf_plan.h"

/* What an event class means to the model, from its name and field types. */
enum op {
	OP_OTHER = 0,
	OP_SWITCH32, OP_SWITCH64,
	OP_CREATE32, OP_CREATE64,
	OP_READ32, OP_READ64,
	OP_TRY_READ32, OP_TRY_READ64,
	OP_RESOLVE32, OP_RESOLVE64,
	OP_BECOMES32, OP_BECOMES64,
	OP_SIGNAL32, OP_SIGNAL64,
	OP_SHOULD32, OP_SHOULD64,
	OP_COUNTER,
	OP_FAIL,
	OP_LABEL,
	OP_NOTE,
	OP_PAUSE,
	OP_THREAD,	/* read by the cursor: the thread of the records after it */
	/* LTTng kernel traces' scheduler events (sched_classes[]) */
	OP_SCHED_SWITCH,
	OP_SCHED_FORK,
	OP_SCHED_EXIT,
	OP_SCHED_WAKEUP,
	/* the kernel's records of a ringtrace trace (record --sched, events/classes.h) */
	OP_KSWITCH,
	OP_KFORK,
	OP_KEXIT,
	OP_KCOMM,
	OP_KMMAP,
	OP_KSAMPLE,
	OP_PHOLD,	/* the pthread wrapper's pthread:hold (a typed event) */
};

/* What each built-in class (events/classes.c has their schema) means. */
static const uint8_t builtin_op[RTR_EV_BUILTIN_COUNT] = {
	[RTR_EV_SWITCH] = OP_SWITCH32, [RTR_EV_SWITCH64] = OP_SWITCH64,
	[RTR_EV_CREATE] = OP_CREATE32, [RTR_EV_CREATE64] = OP_CREATE64,
	[RTR_EV_READ] = OP_READ32, [RTR_EV_READ64] = OP_READ64,
	[RTR_EV_TRY_READ] = OP_TRY_READ32, [RTR_EV_TRY_READ64] = OP_TRY_READ64,
	[RTR_EV_RESOLVE] = OP_RESOLVE32, [RTR_EV_RESOLVE64] = OP_RESOLVE64,
	[RTR_EV_BECOMES] = OP_BECOMES32, [RTR_EV_BECOMES64] = OP_BECOMES64,
	[RTR_EV_SIGNAL] = OP_SIGNAL32, [RTR_EV_SIGNAL64] = OP_SIGNAL64,
	[RTR_EV_SHOULD_RESOLVE] = OP_SHOULD32, [RTR_EV_SHOULD_RESOLVE64] = OP_SHOULD64,
	[RTR_EV_COUNTER] = OP_COUNTER,
	[RTR_EV_FAIL] = OP_FAIL,
	[RTR_EV_LABEL] = OP_LABEL,
	[RTR_EV_NOTE] = OP_NOTE,
	[RTR_EV_PAUSE] = OP_PAUSE,
	[RTR_EV_THREAD] = OP_THREAD,
};

/* uint64_t key (never 0) to uint32_t value, open addressing, linear probing. */
struct idmap {
	uint64_t *keys;
	uint32_t *vals;
	uint32_t mask;
	uint32_t n;
	uint64_t seed;		/* random: ids a trace chose cannot all collide */
};

/* What a stream file is doing while its trace is read. */
struct sstate {
	uint32_t cpu;		/* index into m->cpus */
	uint64_t lost_events, lost_packets;	/* the loss items read */
	/* pthread:hold: the hold the stream's next signal ends (the mutex's id, 0: none) */
	uint64_t hold_lock;
	int64_t hold_ns;
	uint32_t running;	/* task index, or RTR_MODEL_NONE */
	int64_t since;
	/* what runs is unknown (the stream's start, a loss) since @unknown_since */
	bool unknown;
	int64_t unknown_since;
	uint32_t run_thread;	/* the thread that switched to @running */
	uint32_t thread;	/* the current event's thread index, or RTR_MODEL_NONE */
	uint64_t tid, pid;	/* ... its ids (a ringtrace stream's, cached) */
	int64_t last;		/* time of the last item */
	bool any;		/* an item has been read */
};

enum cap {
	CAP_TASKS, CAP_ARROWS, CAP_LABELS, CAP_RUNS, CAP_COUNTERS, CAP_SAMPLES, CAP_NOTES,
	CAP_PAUSES, CAP_LOSSES, CAP_DAMAGE, CAP_CPUS, CAP_TRACES,
	CAP_TRY_HEAD, CAP_TRY_NEXT, CAP_SAMPLE_COUNTER, CAP_CLASSES, CAP_THREADS, CAP_MARKERS,
	CAP_COMM, CAP_KT, CAP_KRUNS, CAP_KLABELS, CAP_FRAMES, CAP_CPU_SAMPLES, CAP_RAWF,
	CAP_KSAMPLES, CAP_HOLDS,
	NCAPS
};

/* The top-level payload fields a scheduler event is read from (at most). */
#define SCHED_FIELDS	16

/*
 * Where the fields of a scheduler event class are, as top-level field
 * ordinals of its payload (-1: the class has none): the thread ids (both
 * for sched_switch and sched_process_fork, the first alone for the others)
 * and their comms.
 */
struct sched_fields {
	int8_t tid[2];
	int8_t comm[2];
	int8_t state;		/* sched_switch's prev_state, -1 if none */
	/* where the fields are when that does not depend on the values (sched_offsets()) */
	bool fixed;
	uint32_t op[SCHED_FIELDS];
	uint32_t off[SCHED_FIELDS];	/* bits from the payload's start */
};

/* A thread the kernel's records name (record --sched), while its trace is read. */
struct kthread {
	uint64_t tid, pid;
	uint32_t task;		/* the thread task a ring switch under its tid names, or NONE */
	uint32_t cpu;		/* its open run's CPU (model index) */
	int64_t in;		/* its open run's start, INT64_MIN when off CPU */
	int64_t first;		/* its first mention */
	int64_t forked;		/* INT64_MIN: not seen made */
	int64_t exited;		/* INT64_MIN: not seen end */
	uint64_t parent_tid;
};

/* A run the kernel's records give, its task known at the end of the trace. */
struct krun {
	int64_t start, end;
	uint32_t kt;
	uint32_t cpu;
	uint8_t why;
};

/* A CPU sample (kernel:sample), its task known at the end of the trace. */
struct ksample {
	int64_t ts;
	uint32_t kt;
	uint32_t raw;		/* its innermost raw frame */
};

/* A frame of a sampled stack before it is named: an address under its caller's. */
struct rawframe {
	uint64_t addr;
	uint32_t parent;	/* raw frame index, or RTR_MODEL_NONE */
	uint32_t pid;
};

/* An open-addressing table of indices + 1 (0: empty), its size a power of two. */
struct itable {
	uint32_t *slot;
	uint32_t mask;
	uint32_t n;
};

/* A name the kernel gives a thread (fork, exec, rename). */
struct klabel {
	int64_t ts;
	uint32_t kt;
	uint32_t text;
	uint32_t len;
	bool rename;
};

/* What the event classes of one chunk's metadata mean (chunks may add classes). */
struct chunk_ops {
	uint8_t *ops;		/* enum op per class */
	uint32_t *cls;		/* per class: its rtr_model.classes index */
	struct sched_fields *sched;	/* per class, for the OP_SCHED_* ones */
	const struct tr_field *kind_field;
	const struct tr_field *counter_field;
	bool kernel;		/* the kernel's switches are among its classes */
};

/*
 * A label "mutex 0x55d0c8a4e040 at 0x55d0c8a4b2c1 0x55d0c8a4b3e0" of the
 * trace being read (the call site, then its callers), and its process.
 */
#define OBJ_SITES 6
struct objlabel {
	uint32_t label;	/* rtr_model.labels index */
	uint32_t pid;
	uint64_t addr;
	uint64_t site[OBJ_SITES];
	uint8_t nsites;	/* 0: none */
	uint8_t what;	/* its first word's length */
};

/* rtr_model_on_progress(): this thread's */
static __thread void (*progress_fn)(void *arg, uint64_t events);
static __thread void *progress_arg;

void rtr_model_on_progress(void (*fn)(void *arg, uint64_t events), void *arg)
{
	progress_fn = fn;
	progress_arg = arg;
}

struct loader {
	struct rtr_model *m;
	uint64_t nread;		/* items read, for rtr_model_on_progress() */
	char *err;
	size_t errlen;
	uint32_t caps[NCAPS];	/* capacities of the arrays (enum cap) */
	/* per task: the latest try_read arrow not yet followed by a read */
	uint32_t *try_head;
	/* per arrow: the reader's previous pending try_read */
	uint32_t *try_next;
	/* per sample: its counter, until they are grouped */
	uint32_t *sample_counter;
	/* the trace being read */
	uint32_t trace;
	struct tr_clock clk;
	struct chunk_ops *chunk_ops;	/* per chunk */
	const struct chunk_ops *cur;	/* the chunk of the event being read */
	struct idmap tasks;
	struct idmap counters;
	uint32_t kind_names[256];	/* string per kind value, 0 not made yet */
	uint32_t preexisting;	/* the string "preexisting" */
	unsigned flags;		/* enum rtr_model_flags */
	struct idmap threads;	/* tid + 1 to rtr_model.threads index, the trace being read */
	uint32_t thread_kind;	/* the string "thread" */
	uint32_t *comm;		/* per task: its latest label (a pool string), 0 if none */
	uint32_t class_first;	/* the trace's first rtr_model.classes index */
	struct tr_text text;	/* a marker's fields, being made */
	/* the kernel's records of the trace being read (record --sched) */
	bool kernel;
	struct idmap ktids;	/* tid + 1 to @kt index */
	struct kthread *kt;
	uint32_t nkt;
	struct krun *kruns;
	uint32_t nkruns;
	struct klabel *klabels;
	uint32_t nklabels;
	/* the CPU samples (kernel:sample) of the trace being read, their stacks */
	struct ksample *ksamples;
	uint32_t nksamples;
	struct rawframe *rawf;
	uint32_t nrawf;
	struct itable rawtab;	/* (parent, addr, pid) to @rawf */
	struct itable frametab;	/* (parent, name) to rtr_model.frames, every trace's */
	struct itable nametab;	/* a function's name to a frame of it (its string) */
	/* the executable mappings (kernel:mmap), and the labels they may name */
	struct tr_syms *syms;
	struct objlabel *objlabels;
	uint32_t nobjlabels, objlabels_cap;
	/* following a recording (rtr_model_load_turn()): */
	uint64_t limit;		/* read the events before this clock value */
	const struct rtr_state *cap;	/* the last chunk's whole packets, or NULL */
	/* rtr_model_load_slice(): the range, ns from each trace's start; and as its clock */
	bool sliced;
	uint64_t slice_a, slice_b;
	uint64_t from;
	/* rtr_model_load_turn_tail(): the range from this time (ns since the epoch) on */
	bool slice_abs;
	int64_t slice_from_abs;
};


__attribute__((format(printf, 2, 3)))
static int fatal(struct loader *l, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(l->err, l->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static int nomem(struct loader *l)
{
	return fatal(l, "out of memory");
}

/* Room for one more element in *@p (holding @n, capacity l->caps[@which]). */
static int grow(struct loader *l, void **p, uint32_t n, size_t size, enum cap which)
{
	uint32_t cap = l->caps[which];
	void *q;

	if (n < cap)
		return 0;
	if (cap >= UINT32_MAX / 2)
		return fatal(l, "the traces hold more than 2^31 items of one sort");
	cap = cap ? 2 * cap : 1024;
	q = realloc(*p, (size_t)cap * size);
	if (!q)
		return nomem(l);
	*p = q;
	l->caps[which] = cap;
	return 0;
}

/* Append an element to *@p (holding *@n): where it goes, or NULL. */
static void *push(struct loader *l, void **p, uint32_t *n, size_t size, enum cap which)
{
	if (grow(l, p, *n, size, which))
		return NULL;
	return (char *)*p + (size_t)(*n)++ * size;
}

#define PUSH(l, arr, n, which) \
	((__typeof__(&(arr)[0]))push((l), (void **)&(arr), &(n), sizeof(*(arr)), (which)))

/* ---- strings -------------------------------------------------------------------- */

/* Add @n bytes of @s (and a NUL) to the pool: its offset, or -1. */
static int64_t str_add(struct loader *l, const char *s, size_t n)
{
	struct rtr_model *m = l->m;
	size_t off = m->strs_len;

	if (m->strs_cap - m->strs_len < n + 1) {
		size_t cap = m->strs_cap ? m->strs_cap : 4096;
		char *p;

		while (cap - m->strs_len < n + 1)
			cap *= 2;
		if (cap > (size_t)UINT32_MAX + 1) {
			fatal(l, "the traces' strings exceed 4 GiB");
			return -1;
		}
		p = realloc(m->strs, cap);
		if (!p) {
			nomem(l);
			return -1;
		}
		m->strs = p;
		m->strs_cap = cap;
	}
	memcpy(m->strs + off, s, n);
	m->strs[off + n] = 0;
	m->strs_len += n + 1;
	return (int64_t)off;
}

__attribute__((format(printf, 2, 3)))
static int64_t str_fmt(struct loader *l, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	return str_add(l, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

/* ---- the id map ----------------------------------------------------------------- */

/* splitmix64's finaliser over the key and a secret seed: a trace's ids are chosen by its writer. */
static inline uint32_t idmap_slot(const struct idmap *h, uint64_t key)
{
	uint64_t x = key ^ h->seed;

	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return (uint32_t)x & h->mask;
}

static inline uint32_t idmap_find(const struct idmap *h, uint64_t key)
{
	uint32_t i = idmap_slot(h, key);

	while (h->keys[i]) {
		if (h->keys[i] == key)
			return h->vals[i];
		i = (i + 1) & h->mask;
	}
	return RTR_MODEL_NONE;
}

static int idmap_init(struct idmap *h)
{
	h->mask = 1023;
	h->n = 0;
	if (getrandom(&h->seed, sizeof(h->seed), 0) != sizeof(h->seed))
		h->seed = (uint64_t)(uintptr_t)h ^ ((uint64_t)time(NULL) << 20);
	h->keys = calloc(h->mask + 1, sizeof(*h->keys));
	h->vals = calloc(h->mask + 1, sizeof(*h->vals));
	return h->keys && h->vals ? 0 : -1;
}

static void idmap_free(struct idmap *h)
{
	free(h->keys);
	free(h->vals);
	memset(h, 0, sizeof(*h));
}

static void idmap_put_new(struct idmap *h, uint64_t key, uint32_t val)
{
	uint32_t i = idmap_slot(h, key);

	while (h->keys[i])
		i = (i + 1) & h->mask;
	h->keys[i] = key;
	h->vals[i] = val;
	h->n++;
}

/* Point @key (present) at @val instead. */
static void idmap_set(struct idmap *h, uint64_t key, uint32_t val)
{
	uint32_t i = idmap_slot(h, key);

	while (h->keys[i] != key)
		i = (i + 1) & h->mask;
	h->vals[i] = val;
}

/* Insert @key (not present); half full at most.  Return: 0 or -1. */
static int idmap_put(struct idmap *h, uint64_t key, uint32_t val)
{
	if (h->n + 1 > (h->mask + 1) / 2) {
		struct idmap g = { .mask = 2 * h->mask + 1, .seed = h->seed };

		if (g.mask == UINT32_MAX)
			return -1;
		g.keys = calloc((size_t)g.mask + 1, sizeof(*g.keys));
		g.vals = calloc((size_t)g.mask + 1, sizeof(*g.vals));
		if (!g.keys || !g.vals) {
			idmap_free(&g);
			return -1;
		}
		for (uint32_t i = 0; i <= h->mask; i++) {
			if (h->keys[i])
				idmap_put_new(&g, h->keys[i], h->vals[i]);
		}
		idmap_free(h);
		*h = g;
	}
	idmap_put_new(h, key, val);
	return 0;
}

/* ---- tasks ---------------------------------------------------------------------- */

/*
 * A new task @id of the trace being read, as preexisting (until its create);
 * @again: @id named another task before (a thread id the kernel reused),
 * and names this one from now on.
 */
static uint32_t task_new(struct loader *l, uint64_t id, int64_t ts, bool again)
{
	struct rtr_model *m = l->m;
	struct rtr_model_task *t;
	uint32_t i = m->ntasks;

	if (grow(l, (void **)&l->try_head, i, sizeof(*l->try_head), CAP_TRY_HEAD) ||
	    grow(l, (void **)&l->comm, i, sizeof(*l->comm), CAP_COMM) ||
	    !PUSH(l, m->tasks, m->ntasks, CAP_TASKS))
		return RTR_MODEL_NONE;
	if (again) {
		idmap_set(&l->tasks, id, i);
	} else if (idmap_put(&l->tasks, id, i)) {
		nomem(l);
		return RTR_MODEL_NONE;
	}
	l->try_head[i] = RTR_MODEL_NONE;
	l->comm[i] = 0;
	t = &m->tasks[i];
	*t = (struct rtr_model_task){
		.id = id, .trace = l->trace, .kind = RTR_MODEL_KIND_UNKNOWN,
		.kind_name = l->preexisting, .flags = RTR_TASK_PREEXISTING,
		.parent = RTR_MODEL_NONE, .created = ts, .end = ts,
		.becomes = RTR_MODEL_NONE, .became_from = RTR_MODEL_NONE,
	};
	return i;
}

/* The task @id of the trace being read, made (as preexisting) if new. */
static uint32_t task_get(struct loader *l, uint64_t id, int64_t ts)
{
	uint32_t i = idmap_find(&l->tasks, id);

	if (__builtin_expect(i != RTR_MODEL_NONE, 1)) {
		struct rtr_model_task *t = &l->m->tasks[i];

		if (ts > t->end)
			t->end = ts;
		return i;
	}
	return task_new(l, id, ts, false);
}

static uint32_t kind_name(struct loader *l, uint8_t kind)
{
	const struct tr_label *lb;
	int64_t s = -1;

	if (l->kind_names[kind])
		return l->kind_names[kind];
	lb = tr_field_label(l->cur->kind_field, kind);
	if (lb)
		s = str_add(l, lb->label, lb->len);
	if (s < 0)
		s = str_fmt(l, "kind %u", kind);
	if (s < 0)
		return 0;
	return l->kind_names[kind] = (uint32_t)s;
}

static int on_create(struct loader *l, uint64_t parent, uint64_t child, uint8_t kind, int64_t ts)
{
	struct rtr_model *m = l->m;
	uint32_t p = RTR_MODEL_NONE, c;
	struct rtr_model_task *t;

	if (parent) {
		p = task_get(l, parent, ts);
		if (p == RTR_MODEL_NONE)
			return -1;
	}
	if (!child)
		return 0;
	c = task_get(l, child, ts);
	if (c == RTR_MODEL_NONE)
		return -1;
	t = &m->tasks[c];
	if (t->flags & RTR_TASK_CREATED)
		return 0;	/* created twice: the first one stands */
	t->flags = (t->flags & ~RTR_TASK_PREEXISTING) | RTR_TASK_CREATED;
	t->kind = kind;
	t->kind_name = kind_name(l, kind);
	t->parent = p == c ? RTR_MODEL_NONE : p;
	t->parent_id = parent;
	if (!t->kind_name)
		return -1;
	return 0;
}

static int add_arrow(struct loader *l, uint32_t from, uint32_t to, int kind, int flags, int64_t ts,
		     uint32_t cpu)
{
	struct rtr_model *m = l->m;
	struct rtr_model_arrow *a;
	uint32_t i = m->narrows;

	/* Lean: only a thread's waits, which say what it was blocked on (reader/threads.c). */
	if ((l->flags & RTR_MODEL_LEAN) &&
	    ((kind != RTR_ARROW_READ && kind != RTR_ARROW_TRY_READ) ||
	     m->tasks[to].kind != RTR_KIND_THREAD))
		return 0;
	if (grow(l, (void **)&l->try_next, i, sizeof(*l->try_next), CAP_TRY_NEXT))
		return -1;
	a = PUSH(l, m->arrows, m->narrows, CAP_ARROWS);
	if (!a)
		return -1;
	*a = (struct rtr_model_arrow){ .ts = ts, .t_from = ts, .from = from, .to = to,
				       .kind = (uint8_t)kind, .flags = (uint8_t)flags, .cpu = cpu };
	l->try_next[i] = RTR_MODEL_NONE;
	if (kind == RTR_ARROW_TRY_READ) {
		l->try_next[i] = l->try_head[to];
		l->try_head[to] = i;
	} else if (kind == RTR_ARROW_READ) {
		const struct rtr_model_task *in = &m->tasks[from];
		uint32_t *pp = &l->try_head[to];
		int walk = 0;

		if ((in->flags & RTR_TASK_RESOLVED) && in->resolved <= ts)
			a->t_from = in->resolved;
		/* hide this reader's pending try_reads of the same input (a bounded walk) */
		while (*pp != RTR_MODEL_NONE && walk++ < 64) {
			if (m->arrows[*pp].from == from) {
				m->arrows[*pp].flags |= RTR_ARROW_HIDDEN;
				*pp = l->try_next[*pp];
			} else {
				pp = &l->try_next[*pp];
			}
		}
	}
	return 0;
}

/* An interaction: @a acts on @b (for reads, @a is the reader). */
static int on_pair(struct loader *l, enum op op, uint64_t a, uint64_t b, int64_t ts, uint32_t cpu)
{
	struct rtr_model *m = l->m;
	uint32_t ia = RTR_MODEL_NONE, ib = RTR_MODEL_NONE;
	struct rtr_model_task *t;

	if (a && (ia = task_get(l, a, ts)) == RTR_MODEL_NONE)
		return -1;
	if (b && (ib = task_get(l, b, ts)) == RTR_MODEL_NONE)
		return -1;
	switch (op) {
	case OP_READ32:
	case OP_READ64:
		return a && b ? add_arrow(l, ib, ia, RTR_ARROW_READ, 0, ts, cpu) : 0;
	case OP_TRY_READ32:
	case OP_TRY_READ64:
		return a && b ? add_arrow(l, ib, ia, RTR_ARROW_TRY_READ, 0, ts, cpu) : 0;
	case OP_RESOLVE32:
	case OP_RESOLVE64:
		if (!b)
			return 0;
		t = &m->tasks[ib];
		if (!(t->flags & RTR_TASK_RESOLVED)) {
			t->flags |= RTR_TASK_RESOLVED;
			t->resolved = ts;
		}
		return a ? add_arrow(l, ia, ib, RTR_ARROW_RESOLVE, 0, ts, cpu) : 0;
	case OP_BECOMES32:
	case OP_BECOMES64:
		if (!a || !b || ia == ib)
			return 0;
		t = &m->tasks[ia];
		t->flags |= RTR_TASK_BECAME;
		t->becomes = ib;
		t->becomes_ts = ts;
		m->tasks[ib].became_from = ia;
		return 0;
	case OP_SIGNAL32:
	case OP_SIGNAL64:
		return a && b ? add_arrow(l, ia, ib, RTR_ARROW_SIGNAL, 0, ts, cpu) : 0;
	default:
		return 0;
	}
}

/*
 * A signal: its arrow, and the hold it ends where a pthread:hold came just
 * before it on the same stream (the wrapper writes both, in that order, in
 * one call: other streams' events may come between in the merge).
 */
static int on_signal(struct loader *l, struct sstate *ss, enum op op, uint64_t a, uint64_t b,
		     int64_t ts)
{
	struct rtr_model_hold *h;
	uint64_t lock = ss->hold_lock;

	ss->hold_lock = 0;
	if (on_pair(l, op, a, b, ts, ss->cpu))
		return -1;
	if (!lock || lock != b || !a)
		return 0;
	if (!(h = PUSH(l, l->m->holds, l->m->nholds, CAP_HOLDS)))
		return -1;
	/* both tasks exist: on_pair() made them */
	*h = (struct rtr_model_hold){ .ts = ts, .holder = task_get(l, a, ts),
				      .lock = task_get(l, b, ts), .held_ns = ss->hold_ns };
	return 0;
}

static int on_fail(struct loader *l, uint64_t resolver, uint64_t task, const uint8_t *reason,
		   int64_t ts, uint32_t cpu)
{
	struct rtr_model *m = l->m;
	uint32_t ia = RTR_MODEL_NONE, ib;
	struct rtr_model_task *t;

	if (!task)
		return 0;
	if (resolver && (ia = task_get(l, resolver, ts)) == RTR_MODEL_NONE)
		return -1;
	if ((ib = task_get(l, task, ts)) == RTR_MODEL_NONE)
		return -1;
	t = &m->tasks[ib];
	if (!(t->flags & RTR_TASK_RESOLVED)) {
		int64_t s = str_add(l, (const char *)reason, strlen((const char *)reason));

		if (s < 0)
			return -1;
		t = &m->tasks[ib];
		t->flags |= RTR_TASK_RESOLVED | RTR_TASK_FAILED;
		t->resolved = ts;
		t->reason = (uint32_t)s;
	}
	return resolver ? add_arrow(l, ia, ib, RTR_ARROW_RESOLVE, RTR_ARROW_FAILURE, ts, cpu) : 0;
}

/* Label task @i with @n bytes of @text at @ts (the first label names it). */
static int add_label(struct loader *l, uint32_t i, const char *text, size_t n, int64_t ts)
{
	struct rtr_model *m = l->m;
	struct rtr_model_label *lb;
	int64_t s;

	if ((s = str_add(l, text, n)) < 0)
		return -1;
	lb = PUSH(l, m->labels, m->nlabels, CAP_LABELS);
	if (!lb)
		return -1;
	*lb = (struct rtr_model_label){ .ts = ts, .task = i, .text = (uint32_t)s,
					.len = (uint32_t)n };
	if (!m->tasks[i].name)
		m->tasks[i].name = (uint32_t)s;
	l->comm[i] = (uint32_t)s;
	return 0;
}

/* "0x" and hex digits at *@s, to *@v; *@s moved past them.  Return: false if none. */
static bool hex_at(const char **s, uint64_t *v)
{
	char *end;

	if (strncmp(*s, "0x", 2) || !isxdigit((unsigned char)(*s)[2]))
		return false;
	errno = 0;
	*v = strtoull(*s + 2, &end, 16);
	*s = end;
	return !errno;
}

/*
 * libringtrace-pthread's label of an object: "mutex 0xADDR", then " at
 * 0xSITE", and up to five callers " 0xCALLER" (cond, rwlock, semaphore,
 * barrier as well): into @o, its address, sites and first word's length;
 * false if not such a label.
 */
static bool obj_word(const char *s, struct objlabel *o)
{
	static const char *const words[] = { "mutex", "cond", "rwlock", "semaphore", "barrier" };

	for (size_t w = 0; w < sizeof(words) / sizeof(words[0]); w++) {
		size_t n = strlen(words[w]);
		const char *p = s + n + 1;

		if (strncmp(s, words[w], n) || s[n] != ' ' || !hex_at(&p, &o->addr))
			continue;
		o->nsites = 0;
		if (!strncmp(p, " at ", 4)) {
			p += 3;	/* the space before the first site */
			while (*p == ' ') {
				p++;
				if (o->nsites == OBJ_SITES || !hex_at(&p, &o->site[o->nsites]))
					return false;
				o->nsites++;
			}
		}
		o->what = (uint8_t)n;
		return !*p;
	}
	return false;
}

static int on_label(struct loader *l, uint64_t task, const uint8_t *text, int64_t ts,
		    const struct sstate *ss)
{
	size_t n = strlen((const char *)text);
	struct objlabel ob;
	uint32_t i;

	if (!task)
		return 0;
	if ((i = task_get(l, task, ts)) == RTR_MODEL_NONE)
		return -1;
	if (add_label(l, i, (const char *)text, n, ts))
		return -1;
	if (ss->pid && obj_word((const char *)text, &ob)) {
		if (l->nobjlabels == l->objlabels_cap) {
			uint32_t cap = l->objlabels_cap ? 2 * l->objlabels_cap : 64;
			struct objlabel *o = realloc(l->objlabels, cap * sizeof(*o));

			if (!o)
				return nomem(l);
			l->objlabels = o;
			l->objlabels_cap = cap;
		}
		ob.label = l->m->nlabels - 1;
		ob.pid = (uint32_t)ss->pid;
		l->objlabels[l->nobjlabels++] = ob;
	}
	return 0;
}

/* ---- runs ----------------------------------------------------------------------- */

/* End the run on @ss's CPU at @ts, if one is open. */
static int run_end(struct loader *l, struct sstate *ss, int64_t ts)
{
	struct rtr_model *m = l->m;
	struct rtr_model_run *r;
	struct rtr_model_task *t;

	if (ss->running == RTR_MODEL_NONE)
		return 0;
	if ((l->flags & RTR_MODEL_LEAN) && m->tasks[ss->running].kind != RTR_KIND_THREAD) {
		t = &m->tasks[ss->running];
		if (ts > t->end)
			t->end = ts;
		ss->running = RTR_MODEL_NONE;
		return 0;
	}
	r = PUSH(l, m->runs, m->nruns, CAP_RUNS);
	if (!r)
		return -1;
	if (ts < ss->since)
		ts = ss->since;
	*r = (struct rtr_model_run){ .start = ss->since, .end = ts, .task = ss->running,
				     .cpu = ss->cpu, .thread = ss->run_thread };
	t = &m->tasks[ss->running];
	if (ts > t->end)
		t->end = ts;
	ss->running = RTR_MODEL_NONE;
	return 0;
}

static uint32_t kt_get(struct loader *l, uint64_t tid, uint64_t pid, int64_t ts);

static int on_switch(struct loader *l, struct sstate *ss, uint64_t task, int64_t ts)
{
	uint32_t i = RTR_MODEL_NONE;

	if (task && (i = task_get(l, task, ts)) == RTR_MODEL_NONE)
		return -1;
	/*
	 * With the kernel's records, a thread task's runs are theirs: the ring's
	 * switch to it only says which thread it is (the thread record's).
	 */
	if (l->kernel && i != RTR_MODEL_NONE && l->m->tasks[i].kind == RTR_KIND_THREAD) {
		if (ss->thread != RTR_MODEL_NONE) {
			uint32_t k = kt_get(l, ss->tid, ss->pid, ts);

			if (k == RTR_MODEL_NONE)
				return -1;
			if (l->kt[k].task == RTR_MODEL_NONE)
				l->kt[k].task = i;
		}
		i = RTR_MODEL_NONE;
	}
	if (i == ss->running)
		return 0;
	if (run_end(l, ss, ts))
		return -1;
	ss->running = i;
	ss->since = ts;
	ss->run_thread = ss->thread;
	return 0;
}

/* ---- counters, notes, pauses ---------------------------------------------------- */

static int on_counter(struct loader *l, struct sstate *ss, uint32_t id, int64_t value, int64_t ts)
{
	struct rtr_model *m = l->m;
	struct rtr_model_counter *c;
	struct rtr_model_sample *s;
	uint32_t i = idmap_find(&l->counters, (uint64_t)id + 1);

	if (i == RTR_MODEL_NONE) {
		const struct tr_label *lb = tr_field_label(l->cur->counter_field, id);
		int64_t name = -1;

		if (lb)
			name = str_add(l, lb->label, lb->len);
		if (name < 0)
			name = str_fmt(l, "counter %u", id);
		if (name < 0)
			return -1;
		i = m->ncounters;
		c = PUSH(l, m->counters, m->ncounters, CAP_COUNTERS);
		if (!c)
			return -1;
		if (idmap_put(&l->counters, (uint64_t)id + 1, i))
			return nomem(l);
		*c = (struct rtr_model_counter){ .name = (uint32_t)name, .trace = l->trace,
						 .id = id, .group = i, .min = value,
						 .max = value };
	}
	c = &m->counters[i];
	if (value < c->min)
		c->min = value;
	if (value > c->max)
		c->max = value;
	if (l->flags & RTR_MODEL_LEAN)
		return 0;
	c->nsamples++;
	if (grow(l, (void **)&l->sample_counter, m->nsamples, sizeof(*l->sample_counter),
		 CAP_SAMPLE_COUNTER))
		return -1;
	l->sample_counter[m->nsamples] = i;
	s = PUSH(l, m->samples, m->nsamples, CAP_SAMPLES);
	if (!s)
		return -1;
	*s = (struct rtr_model_sample){ .ts = ts, .value = value, .task = ss->running };
	return 0;
}

static int on_note(struct loader *l, const uint8_t *text, int64_t ts, const struct sstate *ss)
{
	struct rtr_model *m = l->m;
	size_t n = strlen((const char *)text);
	struct rtr_model_note *no;
	int64_t s;

	if (l->flags & RTR_MODEL_LEAN)
		return 0;
	s = str_add(l, (const char *)text, n);
	if (s < 0 || !(no = PUSH(l, m->notes, m->nnotes, CAP_NOTES)))
		return -1;
	*no = (struct rtr_model_note){ .ts = ts, .cpu = ss->cpu, .thread = ss->thread,
				       .text = (uint32_t)s, .len = (uint32_t)n };
	return 0;
}

static int on_pause(struct loader *l, uint64_t dur, const uint8_t *reason, int64_t ts,
		    uint32_t cpu)
{
	struct rtr_model *m = l->m;
	size_t n = strlen((const char *)reason);
	struct rtr_model_pause *p;
	int64_t s, start;

	if (l->flags & RTR_MODEL_LEAN)
		return 0;
	s = str_add(l, (const char *)reason, n);
	if (s < 0 || !(p = PUSH(l, m->pauses, m->npauses, CAP_PAUSES)))
		return -1;
	if (__builtin_sub_overflow(ts, dur > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)dur,
				   &start))
		start = INT64_MIN;
	*p = (struct rtr_model_pause){ .start = start, .end = ts, .cpu = cpu,
				       .reason = (uint32_t)s, .len = (uint32_t)n };
	return 0;
}

/* ---- classes, threads, markers ---------------------------------------------------- */

/* The model class of each of @md's classes (a rotated trace's chunks share names). */
static int setup_classes(struct loader *l, struct chunk_ops *co, const struct tr_metadata *md)
{
	struct rtr_model *m = l->m;

	for (uint32_t i = 0; i < md->nclasses; i++) {
		const char *name = md->classes[i].name;
		uint32_t k;
		int64_t str;

		for (k = l->class_first; k < m->nclasses; k++)
			if (!strcmp(rtr_model_str(m, m->classes[k].name), name))
				break;
		if (k == m->nclasses) {
			struct rtr_model_class *mc;

			if ((str = str_add(l, name, strlen(name))) < 0 ||
			    !(mc = PUSH(l, m->classes, m->nclasses, CAP_CLASSES)))
				return -1;
			*mc = (struct rtr_model_class){ .trace = l->trace, .name = (uint32_t)str };
		}
		co->cls[i] = k;
	}
	return 0;
}

/*
 * The rtr_model.threads index of thread @tid of the trace being read, made
 * on its first event; its event counted, its pid (@pid, unless NULL) and
 * name (@name, @namelen bytes, unless NULL: its latest, for a thread
 * renamed or an exec) updated.  The one hook for every source of thread
 * identity: LTTng's contexts (thread_of()), ringtrace's thread records.
 * Return: the index, or UINT32_MAX - 1 when out of memory (said).
 */
static uint32_t thread_index(struct loader *l, uint64_t tid, const uint64_t *pid,
			     const char *name, size_t namelen)
{
	struct rtr_model *m = l->m;
	struct rtr_model_thread *t;
	uint32_t i;
	int64_t str;

	if (tid == UINT64_MAX)
		return RTR_MODEL_NONE;
	i = idmap_find(&l->threads, tid + 1);
	if (i == RTR_MODEL_NONE) {
		if (!(t = PUSH(l, m->threads, m->nthreads, CAP_THREADS)))
			return UINT32_MAX - 1;
		if (idmap_put(&l->threads, tid + 1, m->nthreads - 1)) {
			nomem(l);
			return UINT32_MAX - 1;
		}
		*t = (struct rtr_model_thread){ .trace = l->trace, .tid = tid };
		i = m->nthreads - 1;
	}
	t = &m->threads[i];
	t->events++;
	if (pid)
		t->pid = *pid;
	if (name) {
		const char *cur = rtr_model_str(m, t->name);

		if (strlen(cur) != namelen || memcmp(cur, name, namelen)) {
			if ((str = str_add(l, name, namelen)) < 0)
				return UINT32_MAX - 1;
			m->threads[i].name = (uint32_t)str;
		}
	}
	return i;
}

/* The thread @c's event contexts name (LTTng's vtid, vpid, procname), or RTR_MODEL_NONE. */
static uint32_t thread_of(struct loader *l, const struct tr_cursor *c)
{
	size_t n = 0;

	if (!c->has_tid)
		return RTR_MODEL_NONE;
	if (c->procname)
		n = strnlen(c->procname, c->procname_max < 256 ? c->procname_max : 256);
	return thread_index(l, c->tid, c->has_pid ? &c->pid : NULL, c->procname, n);
}

/* @c's fields as dump prints them, at most RTR_MODEL_FIELDS_MAX bytes: a pool string. */
static int64_t fields_of(struct loader *l, const struct tr_cursor *c)
{
	struct tr_text *t = &l->text;

	t->len = 0;
	if (!c->md->own) {
		const struct tr_stream_class *sc = &c->md->ctf->streams[c->sclass];
		const struct tr_plan *plan[3] = { &sc->event_context, c->cls->context,
						  c->cls->payload };
		const uint64_t at[3] = { c->sctx_bit, c->ctx_bit, c->pl_bit };
		struct tr_walk w;

		w.pkt = c->s->data + c->pkt_off;
		w.end = (c->pkt_end - c->pkt_off) * 8;
		w.regs = c->md->ctf->regs;
		for (int i = 0; i < 3; i++) {
			w.bit = at[i];
			w.budget = tr_walk_budget(w.end - w.bit);
			tr_text_plan(t, plan[i], &w, !t->len);
		}
	} else {
		tr_text_fields(t, c->cls, c->payload, c->len);
	}
	if (t->failed)
		return -1;
	if (t->len > RTR_MODEL_FIELDS_MAX) {
		t->len = RTR_MODEL_FIELDS_MAX - 3;
		memcpy(tr_text_room(t, 3), "...", 3);
		t->len += 3;
	}
	return str_add(l, t->buf, t->len);
}

static int add_marker(struct loader *l, struct sstate *ss, const struct tr_cursor *c, int64_t ts,
		      uint32_t cls, uint32_t thread)
{
	struct rtr_model *m = l->m;
	struct rtr_model_marker *mk;
	int64_t fields = 0;

	if ((l->flags & RTR_MODEL_FIELDS) && (fields = fields_of(l, c)) < 0)
		return nomem(l);
	if (!(mk = PUSH(l, m->markers, m->nmarkers, CAP_MARKERS)))
		return -1;
	*mk = (struct rtr_model_marker){ .ts = ts, .cpu = ss->cpu, .thread = thread, .cls = cls,
					 .fields = (uint32_t)fields };
	return 0;
}

/* A thread and its index before sorting. */
struct thread_at {
	struct rtr_model_thread t;
	uint32_t old;
};

static int cmp_thread(const void *a, const void *b)
{
	const struct rtr_model_thread *x = &((const struct thread_at *)a)->t;
	const struct rtr_model_thread *y = &((const struct thread_at *)b)->t;

	if (x->trace != y->trace)
		return x->trace < y->trace ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* The threads by trace, then thread id; the markers' indices follow. */
static int sort_threads(struct rtr_model *m)
{
	struct thread_at *tmp;
	uint32_t *to;

	if (m->nthreads < 2)
		return 0;
	tmp = malloc(m->nthreads * sizeof(*tmp));
	to = malloc(m->nthreads * sizeof(*to));
	if (!tmp || !to) {
		free(tmp);
		free(to);
		return -1;
	}
	for (uint32_t i = 0; i < m->nthreads; i++)
		tmp[i] = (struct thread_at){ .t = m->threads[i], .old = i };
	qsort(tmp, m->nthreads, sizeof(*tmp), cmp_thread);
	for (uint32_t i = 0; i < m->nthreads; i++) {
		m->threads[i] = tmp[i].t;
		to[tmp[i].old] = i;
	}
	for (uint32_t i = 0; i < m->nmarkers; i++)
		if (m->markers[i].thread != RTR_MODEL_NONE)
			m->markers[i].thread = to[m->markers[i].thread];
	for (uint32_t i = 0; i < m->nruns; i++)
		if (m->runs[i].thread != RTR_MODEL_NONE)
			m->runs[i].thread = to[m->runs[i].thread];
	for (uint32_t i = 0; i < m->nnotes; i++)
		if (m->notes[i].thread != RTR_MODEL_NONE)
			m->notes[i].thread = to[m->notes[i].thread];
	free(tmp);
	free(to);
	return 0;
}

/* ---- LTTng kernel traces' scheduler events --------------------------------------- */

/*
 * The classes of an LTTng kernel trace the model reads (lttng-modules'
 * instrumentation/events/sched.h), by name; their fields by name and type:
 * a thread id an integer (not an enumeration), a comm an array of bytes or
 * a string.  A class whose thread ids are missing or of another type stays
 * a marker; a missing comm only leaves the thread unnamed.
 */
static const struct {
	const char *name;
	uint8_t op;
	const char *tid[2];
	const char *comm[2];
	const char *state;
} sched_classes[] = {
	{ "sched_switch", OP_SCHED_SWITCH, { "prev_tid", "next_tid" },
	  { "prev_comm", "next_comm" }, "prev_state" },
	{ "sched_process_fork", OP_SCHED_FORK, { "parent_tid", "child_tid" },
	  { "parent_comm", "child_comm" }, NULL },
	{ "sched_process_exit", OP_SCHED_EXIT, { "tid", NULL }, { "comm", NULL }, NULL },
	{ "sched_process_free", OP_SCHED_EXIT, { "tid", NULL }, { "comm", NULL }, NULL },
	{ "sched_waking", OP_SCHED_WAKEUP, { "tid", NULL }, { "comm", NULL }, NULL },
	{ "sched_wakeup", OP_SCHED_WAKEUP, { "tid", NULL }, { "comm", NULL }, NULL },
	{ "sched_wakeup_new", OP_SCHED_WAKEUP, { "tid", NULL }, { "comm", NULL }, NULL },
};

/* What a scheduler event's field is read as (sched_field()). */
enum sched_use {
	SF_TID,		/* an integer */
	SF_COMM,	/* text: a string, or an array of bytes */
	SF_STATE,	/* an integer or an enumeration */
};

/*
 * The ordinal of @c's top-level payload field @name (among the first
 * SCHED_FIELDS) if its type fits @use, else -1.
 */
static int8_t sched_field(const struct tr_class *c, const char *name, enum sched_use use)
{
	const struct tr_plan *p = c->payload;
	uint32_t i = 0;

	if (!name || !p)
		return -1;
	for (int8_t k = 0; i < p->nops && k < SCHED_FIELDS; k++) {
		const struct tr_op *op = &p->ops[i];
		const struct tr_ctype *t = op->type;

		if (op->namelen == strlen(name) && !memcmp(op->name, name, op->namelen)) {
			if (!t)
				return -1;
			if (use == SF_STATE)
				return op->code == TR_OP_INT &&
				       (t->kind == TR_TK_INT || t->kind == TR_TK_ENUM) ? k : -1;
			if (use == SF_TID)
				return op->code == TR_OP_INT && t->kind == TR_TK_INT ? k : -1;
			if (op->code == TR_OP_STRING)
				return k;
			return op->code == TR_OP_ARRAY && t->elem && t->elem->kind == TR_TK_INT &&
			       t->elem->size == 8 && !(t->elem->align % 8) ? k : -1;
		}
		i = op->code >= TR_OP_STRUCT ? op->next : i + 1;
	}
	return -1;
}

/*
 * Where @c's top-level fields up to ordinal @upto are, in @f, when that does
 * not depend on the values: every field before it an integer or float, or
 * an array of them, of whole bytes aligned to a byte at most (lttng-modules'
 * sched events on x86, where the ring buffer packs its fields).  Then a
 * record's fields are read without a walk.  Return: whether they are.
 */
static bool sched_offsets(const struct tr_class *c, struct sched_fields *f, int upto)
{
	const struct tr_plan *p = c->payload;
	uint64_t bit = 0;
	uint32_t i = 0;

	for (int k = 0; k < SCHED_FIELDS; k++)
		f->op[k] = UINT32_MAX;
	if (!p || p->align > 8)
		return false;
	for (int k = 0; i < p->nops && k <= upto; k++) {
		const struct tr_op *op = &p->ops[i];
		uint64_t size;

		f->op[k] = i;
		f->off[k] = (uint32_t)bit;
		if (k == upto)
			return true;
		if (op->align > 8)
			return false;
		if (op->code == TR_OP_INT || op->code == TR_OP_FLOAT)
			size = op->size;
		else if (op->code == TR_OP_ARRAY && op->next == i + 2 && op->arg <= UINT16_MAX &&
			 p->ops[i + 1].code == TR_OP_INT && p->ops[i + 1].align <= 8)
			size = op->arg * p->ops[i + 1].size;
		else
			return false;
		if (size % 8 || bit + size > UINT32_MAX)
			return false;
		bit += size;
		i = op->code >= TR_OP_STRUCT ? op->next : i + 1;
	}
	return false;
}

/*
 * The scheduler classes among @md's (general CTF): their op and fields.
 * sched_waking is where the waker runs; when a trace has it, sched_wakeup
 * (the same wake-up, later, maybe on the woken thread's CPU) stays a marker.
 */
static void setup_sched(struct chunk_ops *co, const struct tr_metadata *md)
{
	bool waking = false;

	for (uint32_t i = 0; i < md->nclasses; i++) {
		const struct tr_class *c = &md->classes[i];

		for (size_t k = 0; k < sizeof(sched_classes) / sizeof(sched_classes[0]); k++) {
			struct sched_fields f = { .fixed = false };
			int upto = -1;

			if (strcmp(c->name, sched_classes[k].name))
				continue;
			for (int j = 0; j < 2; j++) {
				f.tid[j] = sched_field(c, sched_classes[k].tid[j], SF_TID);
				f.comm[j] = sched_field(c, sched_classes[k].comm[j], SF_COMM);
			}
			f.state = sched_field(c, sched_classes[k].state, SF_STATE);
			if (f.tid[0] < 0 || (sched_classes[k].tid[1] && f.tid[1] < 0))
				break;
			for (int j = 0; j < 2; j++) {
				upto = f.tid[j] > upto ? f.tid[j] : upto;
				upto = f.comm[j] > upto ? f.comm[j] : upto;
			}
			upto = f.state > upto ? f.state : upto;
			f.fixed = sched_offsets(c, &f, upto);
			co->ops[i] = sched_classes[k].op;
			co->sched[i] = f;
			waking |= !strcmp(c->name, "sched_waking");
			break;
		}
	}
	for (uint32_t i = 0; waking && i < md->nclasses; i++) {
		if (!strcmp(md->classes[i].name, "sched_wakeup"))
			co->ops[i] = OP_OTHER;
	}
}

/* The fields of a scheduler event, walked: where each top-level field is. */
struct sched_event {
	const struct tr_cursor *c;
	const uint8_t *pkt;
	const uint32_t *op;	/* the fields' ops: struct sched_fields', or @walk_op */
	const uint32_t *off;	/* their bits from @base: sched_fields', or @walk_at */
	uint64_t base;
	uint32_t walk_op[SCHED_FIELDS];
	uint64_t walk_at[SCHED_FIELDS];
};

/* Where field @k is, in bits from the packet's start. */
static inline uint64_t sched_at(const struct sched_event *e, int k)
{
	return e->off ? e->base + e->off[k] : e->walk_at[k];
}

/* The thread id in field @k: 0 when none, or not a positive id (0 is the idle thread). */
static uint64_t sched_tid(const struct sched_event *e, int k)
{
	const struct tr_op *o;
	uint64_t v;

	if (k < 0 || e->op[k] == UINT32_MAX)
		return 0;
	o = &e->c->cls->payload->ops[e->op[k]];
	v = tr_read_bits(e->pkt, sched_at(e, k), o->size, o->be);
	if (o->sign && (v >> (o->size - 1)) & 1)
		return 0;
	return v;
}

/*
 * How a thread left its CPU, from sched_switch's prev_state field @k
 * (lttng-modules' __trace_sched_switch_state()): RTR_RUN_PREEMPTED for 0
 * (TASK_RUNNING) or a value with none of the kernel's waiting and stopped
 * states (the low 7 bits) but not 0x80: the mark lttng-modules gives a
 * preempted thread, TASK_REPORT_MAX (0x100 since Linux 4.14) or
 * TASK_STATE_MAX (0x800 to 0x1000 before).  0x80 is TASK_REPORT_IDLE (an
 * idle kernel thread's wait) since 4.14, TASK_DEAD (its last run) before.
 * Anything else waited: RTR_RUN_BLOCKED.  RTR_RUN_SWITCH when the event
 * has no such field.
 */
static uint8_t sched_left(const struct sched_event *e, int k)
{
	const struct tr_op *o;
	uint64_t v;

	if (k < 0 || e->op[k] == UINT32_MAX)
		return RTR_RUN_SWITCH;
	o = &e->c->cls->payload->ops[e->op[k]];
	v = tr_read_bits(e->pkt, sched_at(e, k), o->size, o->be);
	if (o->sign && (v >> (o->size - 1)) & 1)
		return RTR_RUN_BLOCKED;	/* negative: no state the kernel gives */
	return !v || (!(v & 0x7f) && v != 0x80) ? RTR_RUN_PREEMPTED : RTR_RUN_BLOCKED;
}

/* The comm in field @k: its bytes up to a NUL (at most 256), *@s set; 0 when none. */
static size_t sched_comm(const struct sched_event *e, int k, const char **s)
{
	const struct tr_cursor *c = e->c;
	const struct tr_op *o;
	uint64_t max, at;

	if (k < 0 || e->op[k] == UINT32_MAX || (at = sched_at(e, k)) % 8)
		return 0;
	o = &c->cls->payload->ops[e->op[k]];
	/* the cursor checked the record: an array's bytes, a string's NUL, are in the packet */
	max = o->code == TR_OP_ARRAY ? o->arg : (c->pkt_end - c->pkt_off) - at / 8;
	*s = (const char *)e->pkt + at / 8;
	return strnlen(*s, max < 256 ? (size_t)max : 256);
}

/* The task of thread @tid: of kind thread, even when it ran before the trace. */
static uint32_t thread_task(struct loader *l, uint64_t tid, int64_t ts)
{
	uint32_t i = task_get(l, tid, ts);

	if (i != RTR_MODEL_NONE && l->m->tasks[i].kind == RTR_MODEL_KIND_UNKNOWN) {
		l->m->tasks[i].kind = RTR_KIND_THREAD;
		l->m->tasks[i].kind_name = l->thread_kind;
	}
	return i;
}

/*
 * A scheduler event on @ss's CPU: sched_switch ends the run there (prev_tid's:
 * the first switch of a CPU, or the first after a loss, ends a run of
 * prev_tid from where the CPU's stream starts again) and starts next_tid's
 * (tid 0, idle: none); sched_process_fork creates child_tid; exit (or free,
 * whichever comes first) resolves tid; a wake-up is a signal from the thread
 * running on the CPU to tid.  Each thread is labelled with its comm, again
 * when it changes (exec).
 */
static int on_sched(struct loader *l, struct sstate *ss, const struct tr_cursor *c, int64_t ts,
		    enum op op)
{
	const struct sched_fields *f = &l->cur->sched[c->cls - c->md->classes];
	const struct tr_plan *pl = c->cls->payload;
	uint32_t t[2] = { RTR_MODEL_NONE, RTR_MODEL_NONE };
	struct rtr_model *m = l->m;
	struct sched_event e;
	uint64_t tid[2];
	uint32_t nruns;

	e.c = c;
	e.pkt = c->s->data + c->pkt_off;
	e.base = pl->align > 1 ? (c->pl_bit + pl->align - 1) & ~(uint64_t)(pl->align - 1) :
		 c->pl_bit;
	if (f->fixed && !(e.base % 8)) {
		/* the cursor checked the record: its fields are inside the packet */
		e.op = f->op;
		e.off = f->off;
	} else {
		struct tr_walk w;
		char err[128];

		w.pkt = e.pkt;
		w.bit = c->pl_bit;
		w.end = (c->pkt_end - c->pkt_off) * 8;
		w.regs = c->md->ctf->regs;
		w.roles = 0;
		w.budget = tr_walk_budget(w.end - w.bit);
		w.clock = 0;
		w.err = err;
		w.errlen = sizeof(err);
		/* the cursor walked this payload already: this cannot fail; if it did, skip */
		if (tr_walk_fields(pl, &w, e.walk_op, e.walk_at, SCHED_FIELDS))
			return 0;
		e.op = e.walk_op;
		e.off = NULL;
	}
	for (int k = 0; k < 2; k++) {
		const char *s;
		size_t n;

		tid[k] = sched_tid(&e, f->tid[k]);
		if (!tid[k])
			continue;
		/* a child whose thread id ended before: the kernel reused it, a new thread */
		if (op == OP_SCHED_FORK && k == 1 &&
		    (t[k] = idmap_find(&l->tasks, tid[k])) != RTR_MODEL_NONE &&
		    (m->tasks[t[k]].flags & RTR_TASK_RESOLVED) &&
		    task_new(l, tid[k], ts, true) == RTR_MODEL_NONE)
			return -1;
		if ((t[k] = thread_task(l, tid[k], ts)) == RTR_MODEL_NONE)
			return -1;
		n = sched_comm(&e, f->comm[k], &s);
		if (n && (!l->comm[t[k]] || strlen(rtr_model_str(m, l->comm[t[k]])) != n ||
			  memcmp(rtr_model_str(m, l->comm[t[k]]), s, n)) &&
		    add_label(l, t[k], s, n, ts))
			return -1;
	}
	switch (op) {
	case OP_SCHED_SWITCH:
		if (ss->unknown && ss->running == RTR_MODEL_NONE && t[0] != RTR_MODEL_NONE) {
			struct rtr_model_task *p = &m->tasks[t[0]];

			ss->running = t[0];
			ss->since = ss->unknown_since < ts ? ss->unknown_since : ts;
			ss->run_thread = RTR_MODEL_NONE;
			if ((p->flags & RTR_TASK_PREEXISTING) && ss->since < p->created)
				p->created = ss->since;
		}
		ss->unknown = false;
		nruns = m->nruns;
		if (on_switch(l, ss, tid[1], ts))
			return -1;
		/* the run it ended (prev_tid's): how it ended */
		if (m->nruns > nruns && m->runs[nruns].task == t[0])
			m->runs[nruns].why = sched_left(&e, f->state);
		/* the event's context names prev_tid, not the thread that runs: the task is it */
		ss->run_thread = RTR_MODEL_NONE;
		return 0;
	case OP_SCHED_FORK:
		return on_create(l, tid[0], tid[1], RTR_KIND_THREAD, ts);
	case OP_SCHED_EXIT:
		return on_pair(l, OP_RESOLVE64, 0, tid[0], ts, ss->cpu);
	case OP_SCHED_WAKEUP:
		if (ss->running == RTR_MODEL_NONE || t[0] == RTR_MODEL_NONE || ss->running == t[0])
			return 0;
		return add_arrow(l, ss->running, t[0], RTR_ARROW_SIGNAL, 0, ts, ss->cpu);
	default:
		return 0;
	}
}

/* ---- the kernel's records of a ringtrace trace (record --sched) ------------------- */

static int sort_i64(void *base, size_t n, size_t size, size_t key);

/* The kernel thread @tid of the trace being read, made if new. */
static uint32_t kt_get(struct loader *l, uint64_t tid, uint64_t pid, int64_t ts)
{
	uint32_t i = idmap_find(&l->ktids, tid + 1);
	struct kthread *k;

	if (i != RTR_MODEL_NONE)
		return i;
	if (!(k = PUSH(l, l->kt, l->nkt, CAP_KT)))
		return RTR_MODEL_NONE;
	i = l->nkt - 1;
	if (idmap_put(&l->ktids, tid + 1, i)) {
		nomem(l);
		return RTR_MODEL_NONE;
	}
	*k = (struct kthread){ .tid = tid, .pid = pid, .task = RTR_MODEL_NONE,
			       .cpu = RTR_MODEL_NONE, .in = INT64_MIN, .first = ts,
			       .forked = INT64_MIN, .exited = INT64_MIN };
	return i;
}

static int krun_add(struct loader *l, uint32_t k, uint32_t cpu, int64_t start, int64_t end,
		    uint8_t why)
{
	struct krun *r = PUSH(l, l->kruns, l->nkruns, CAP_KRUNS);

	if (!r)
		return -1;
	*r = (struct krun){ .start = start, .end = end < start ? start : end, .kt = k, .cpu = cpu,
			    .why = why };
	return 0;
}

static int klabel_add(struct loader *l, uint32_t k, const uint8_t *text, int64_t ts, bool rename)
{
	size_t n = strlen((const char *)text);
	int64_t str = str_add(l, (const char *)text, n);
	struct klabel *lb;

	if (str < 0 || !(lb = PUSH(l, l->klabels, l->nklabels, CAP_KLABELS)))
		return -1;
	*lb = (struct klabel){ .ts = ts, .kt = k, .text = (uint32_t)str, .len = (uint32_t)n,
			       .rename = rename };
	return 0;
}

/*
 * kernel:switch: a thread came onto @ss's CPU, or left it (blocked or
 * preempted): its runs are from each in to the next out, by thread.
 */
static int on_kswitch(struct loader *l, struct sstate *ss, const uint8_t *pl, int64_t ts)
{
	uint32_t k = kt_get(l, ld32(pl + 4), ld32(pl), ts);
	struct kthread *t;

	if (k == RTR_MODEL_NONE)
		return -1;
	t = &l->kt[k];
	if (pl[8] == RTR_KSWITCH_IN) {
		/* in again without an out between: the out was lost */
		if (t->in != INT64_MIN &&
		    krun_add(l, k, t->cpu, t->in, ts, RTR_RUN_SWITCH))
			return -1;
		t = &l->kt[k];
		t->in = ts;
		t->cpu = ss->cpu;
		return 0;
	}
	/*
	 * Out with no in: it ran when the records began (the program's exec):
	 * since its first mention, or its CPU stream's first item.
	 */
	if (t->in == INT64_MIN) {
		t->in = t->first < ts ? t->first : ts;
		t->cpu = ss->cpu;
	}
	if (krun_add(l, k, ss->cpu, t->in, ts,
		     pl[8] == RTR_KSWITCH_PREEMPTED ? RTR_RUN_PREEMPTED : RTR_RUN_BLOCKED))
		return -1;
	l->kt[k].in = INT64_MIN;
	return 0;
}

static int on_kfork(struct loader *l, const uint8_t *pl, int64_t ts)
{
	uint32_t k = kt_get(l, ld32(pl + 12), ld32(pl + 8), ts), parent;

	if (k == RTR_MODEL_NONE)
		return -1;
	l->kt[k].forked = ts;
	l->kt[k].parent_tid = ld32(pl + 4);
	parent = kt_get(l, ld32(pl + 4), ld32(pl), ts);
	if (parent == RTR_MODEL_NONE)
		return -1;
	/*
	 * No comm: the recorder wrote the fork before it read its parent's
	 * (another CPU's buffer); the thread starts with its parent's name,
	 * the latest given it so far (looked for among the last names only).
	 */
	if (!pl[16])
		for (uint32_t i = l->nklabels, seen = 0; i-- > 0 && seen < 4096; seen++)
			if (l->klabels[i].kt == parent && l->klabels[i].ts <= ts) {
				char name[256];	/* a copy: adding a string may move the pool */

				snprintf(name, sizeof(name), "%s",
					 rtr_model_str(l->m, l->klabels[i].text));
				return klabel_add(l, k, (const uint8_t *)name, ts, false);
			}
	return klabel_add(l, k, pl + 16, ts, false);
}

/* ---- CPU samples (kernel:sample) ------------------------------------------------- */

static uint32_t mix(uint64_t a, uint64_t b)
{
	uint64_t h = (a * 0x9e3779b97f4a7c15ull) ^ (b + 0x632be59bd9b4e019ull + (a >> 29));

	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ull;
	return (uint32_t)(h ^ (h >> 32));
}

/*
 * The slot of @t holding the entry @eq says is @key, or the empty slot
 * where it would go; the table grown first (through @rehash's hashes of
 * the entries) if it would be over half full.  Return: the slot, or NULL
 * without memory.
 */
static uint32_t *itable_slot(struct itable *t, uint32_t h, bool (*eq)(const void *, uint32_t),
			     const void *key, uint32_t (*rehash)(const void *, uint32_t),
			     const void *ctx)
{
	uint32_t i;

	if (2 * (t->n + 1) > t->mask + 1) {
		uint32_t size = t->mask ? 2 * (t->mask + 1) : 1024;
		uint32_t *slot = calloc(size, sizeof(*slot));

		if (!slot)
			return NULL;
		for (uint32_t j = 0; t->mask && j <= t->mask; j++) {
			if (!t->slot[j])
				continue;
			i = rehash(ctx, t->slot[j] - 1) & (size - 1);
			while (slot[i])
				i = (i + 1) & (size - 1);
			slot[i] = t->slot[j];
		}
		free(t->slot);
		t->slot = slot;
		t->mask = size - 1;
	}
	for (i = h & t->mask; t->slot[i]; i = (i + 1) & t->mask)
		if (eq(key, t->slot[i] - 1))
			break;
	return &t->slot[i];
}

static void itable_free(struct itable *t)
{
	free(t->slot);
	*t = (struct itable){ 0 };
}

struct rawkey {
	const struct loader *l;
	struct rawframe f;
};

static uint32_t raw_hash(const struct rawframe *f)
{
	return mix(f->addr, ((uint64_t)f->parent << 32) | f->pid);
}

static bool raw_eq(const void *key, uint32_t i)
{
	const struct rawkey *k = key;
	const struct rawframe *f = &k->l->rawf[i];

	return f->addr == k->f.addr && f->parent == k->f.parent && f->pid == k->f.pid;
}

static uint32_t raw_rehash(const void *ctx, uint32_t i)
{
	return raw_hash(&((const struct loader *)ctx)->rawf[i]);
}

/* The raw frame of @addr called from raw frame @parent in process @pid, made if new. */
static uint32_t raw_get(struct loader *l, uint32_t pid, uint32_t parent, uint64_t addr)
{
	struct rawkey k = { l, { addr, parent, pid } };
	uint32_t *slot = itable_slot(&l->rawtab, raw_hash(&k.f), raw_eq, &k, raw_rehash, l);
	struct rawframe *f;

	if (!slot) {
		nomem(l);
		return RTR_MODEL_NONE;
	}
	if (*slot)
		return *slot - 1;
	if (!(f = PUSH(l, l->rawf, l->nrawf, CAP_RAWF)))
		return RTR_MODEL_NONE;
	*f = k.f;
	*slot = l->nrawf;
	l->rawtab.n++;
	return l->nrawf - 1;
}

/*
 * kernel:sample: u32 pid, tid, then the stack (u32 length, then u64
 * addresses, innermost first; the cursor checked the length against the
 * payload's).  A length that is not whole addresses keeps the whole ones;
 * an empty stack is no sample.
 */
static int on_ksample(struct loader *l, const uint8_t *pl, int64_t ts)
{
	uint32_t pid = ld32(pl), k = kt_get(l, ld32(pl + 4), pid, ts), n = ld32(pl + 8) / 8;
	uint32_t raw = RTR_MODEL_NONE;
	struct ksample *s;

	if (k == RTR_MODEL_NONE)
		return -1;
	/* the outermost return address 0: where the frame pointers' walk ended */
	while (n && !ld64(pl + 12 + 8 * (size_t)(n - 1)))
		n--;
	if (!n)
		return 0;
	for (uint32_t j = n; j-- > 0;)
		if ((raw = raw_get(l, pid, raw, ld64(pl + 12 + 8 * (size_t)j))) == RTR_MODEL_NONE)
			return -1;
	if (!(s = PUSH(l, l->ksamples, l->nksamples, CAP_KSAMPLES)))
		return -1;
	*s = (struct ksample){ .ts = ts, .kt = k, .raw = raw };
	return 0;
}

struct framekey {
	const struct rtr_model *m;
	uint32_t parent;
	const char *name;
};

static uint32_t frame_hash(uint32_t parent, const char *name)
{
	uint64_t h = 1469598103934665603ull;

	for (const char *c = name; *c; c++)
		h = (h ^ (uint8_t)*c) * 1099511628211ull;
	return mix(h, parent);
}

static bool frame_eq(const void *key, uint32_t i)
{
	const struct framekey *k = key;
	const struct rtr_model_frame *f = &k->m->frames[i];

	return f->parent == k->parent && !strcmp(rtr_model_str(k->m, f->name), k->name);
}

static uint32_t frame_rehash(const void *ctx, uint32_t i)
{
	const struct rtr_model *m = ctx;

	return frame_hash(m->frames[i].parent, rtr_model_str(m, m->frames[i].name));
}

static bool name_eq(const void *key, uint32_t i)
{
	const struct framekey *k = key;

	return !strcmp(rtr_model_str(k->m, k->m->frames[i].name), k->name);
}

static uint32_t name_rehash(const void *ctx, uint32_t i)
{
	const struct rtr_model *m = ctx;

	return frame_hash(0, rtr_model_str(m, m->frames[i].name));
}

/*
 * The trace is read: its raw frames named through its mappings (a return
 * address looked up one byte back, in its call instruction) and merged by
 * name into rtr_model.frames (each name's string made once); its samples
 * given their threads' tasks.  After kernel_finish(): every thread has
 * its task.
 */
static int samples_finish(struct loader *l)
{
	struct rtr_model *m = l->m;
	uint32_t *named = malloc(((size_t)l->nrawf + 1) * sizeof(*named));
	char name[256];
	int ret = -1;

	if (!named)
		return nomem(l);
	for (uint32_t i = 0; i < l->nrawf; i++) {
		const struct rawframe *f = &l->rawf[i];
		uint32_t parent = f->parent == RTR_MODEL_NONE ? RTR_MODEL_NONE : named[f->parent];
		struct framekey k = { m, parent, name };
		uint32_t *slot, str;
		struct rtr_model_frame *fr;
		int64_t s;

		if (!l->syms || !tr_syms_function(l->syms, f->pid,
						  f->addr - (f->parent != RTR_MODEL_NONE), name,
						  sizeof(name)))
			snprintf(name, sizeof(name), "[unknown]");
		if (!(slot = itable_slot(&l->frametab, frame_hash(parent, name), frame_eq, &k,
					 frame_rehash, m)))
			goto nomem;
		if (*slot) {
			named[i] = *slot - 1;
			continue;
		}
		/* a new call path: its name's string, made only the first time */
		if (!(slot = itable_slot(&l->nametab, frame_hash(0, name), name_eq, &k, name_rehash,
					 m)))
			goto nomem;
		if (*slot) {
			str = m->frames[*slot - 1].name;
		} else {
			if ((s = str_add(l, name, strlen(name))) < 0)
				goto out;
			str = (uint32_t)s;
		}
		if (!(fr = PUSH(l, m->frames, m->nframes, CAP_FRAMES)))
			goto out;
		*fr = (struct rtr_model_frame){ .parent = parent, .name = str,
						.depth = parent == RTR_MODEL_NONE ? 0 :
							 m->frames[parent].depth + 1 };
		named[i] = m->nframes - 1;
		if (!*slot) {
			*slot = m->nframes;
			l->nametab.n++;
		}
		/* found again: the name table's growth did not move it, but be plain */
		if (!(slot = itable_slot(&l->frametab, frame_hash(parent, name), frame_eq, &k,
					 frame_rehash, m)))
			goto nomem;
		*slot = m->nframes;
		l->frametab.n++;
	}
	for (uint32_t j = 0; j < l->nksamples; j++) {
		const struct ksample *ks = &l->ksamples[j];
		struct rtr_model_cpu_sample *cs = PUSH(l, m->cpu_samples, m->ncpu_samples,
						       CAP_CPU_SAMPLES);

		if (!cs)
			goto out;
		*cs = (struct rtr_model_cpu_sample){ .ts = ks->ts, .task = l->kt[ks->kt].task,
						     .frame = named[ks->raw] };
	}
	ret = 0;
	goto out;
nomem:
	nomem(l);
out:
	free(named);
	l->nrawf = l->nksamples = 0;
	itable_free(&l->rawtab);
	return ret;
}

/* kernel:mmap: an executable mapping of a file, kept for the objects' names. */
static int on_kmmap(struct loader *l, const uint8_t *pl)
{
	const char *bid = (const char *)pl + 32;

	if (!l->syms && !(l->syms = tr_syms_new()))
		return nomem(l);
	if (tr_syms_map(l->syms, ld32(pl), ld64(pl + 8), ld64(pl + 16), ld64(pl + 24), bid,
			bid + strlen(bid) + 1))
		return nomem(l);
	return 0;
}

/*
 * The objects the pthread wrapper labelled by address, named by the symbol
 * there ("mutex queue_lock": a static one), else by where the program
 * first waited on it or signalled it ("mutex 0x55d0c8a4e040 at
 * worker+0x4c (pool.c:88)"), where the trace's mappings and the files say.
 * The task's name and its label both.
 */
static int name_objects(struct loader *l)
{
	struct rtr_model *m = l->m;
	char sym[256], text[320];

	for (uint32_t j = 0; l->syms && j < l->nobjlabels; j++) {
		const struct objlabel *o = &l->objlabels[j];
		struct rtr_model_label *lb = &m->labels[o->label];
		struct rtr_model_task *t = &m->tasks[lb->task];
		int64_t s;
		int n;

		if (tr_syms_name(l->syms, o->pid, o->addr, sym, sizeof(sym)))
			n = snprintf(text, sizeof(text), "%.*s %s", o->what, rtr_model_str(m, lb->text),
				     sym);
		else if (tr_syms_site(l->syms, o->pid, o->site, o->nsites, sym, sizeof(sym)))
			n = snprintf(text, sizeof(text), "%.*s 0x%" PRIx64 " at %s", o->what,
				     rtr_model_str(m, lb->text), o->addr, sym);
		else
			continue;
		if (n < 0 || (size_t)n >= sizeof(text) || (s = str_add(l, text, (size_t)n)) < 0)
			continue;
		/* str_add() may move the pool, not the labels */
		lb = &m->labels[o->label];
		if (t->name == lb->text)
			t->name = (uint32_t)s;
		if (l->comm[lb->task] == lb->text)
			l->comm[lb->task] = (uint32_t)s;
		lb->text = (uint32_t)s;
		lb->len = (uint32_t)n;
	}
	l->nobjlabels = 0;
	return 0;
}

static int on_kexit(struct loader *l, const uint8_t *pl, int64_t ts)
{
	uint32_t k = kt_get(l, ld32(pl + 4), ld32(pl), ts);

	if (k == RTR_MODEL_NONE)
		return -1;
	l->kt[k].exited = ts;
	/* the kernel reports no switch out after a thread's exit: its last run ends here */
	if (l->kt[k].in != INT64_MIN) {
		if (krun_add(l, k, l->kt[k].cpu, l->kt[k].in, ts, RTR_RUN_SWITCH))
			return -1;
		l->kt[k].in = INT64_MIN;
	}
	return 0;
}

static int on_kcomm(struct loader *l, const uint8_t *pl, int64_t ts)
{
	uint32_t k = kt_get(l, ld32(pl + 4), ld32(pl), ts);

	if (k == RTR_MODEL_NONE)
		return -1;
	return klabel_add(l, k, pl + 9, ts, pl[8] == 0);
}

/*
 * The trace is read: each kernel thread's task is the thread task a ring
 * switch under its thread id named (the pthread wrapper's), else a task of
 * its own (RTR_MODEL_KTHREAD | tid) created and resolved where the kernel
 * says; its runs and names go to that task.  A run still open ends at its
 * CPU stream's last time.  A rename names the task (the latest one); the
 * model's thread (struct rtr_model_thread) takes the kernel's name too.
 */
static int kernel_finish(struct loader *l, uint32_t label_start)
{
	struct rtr_model *m = l->m;

	for (uint32_t k = 0; k < l->nkt; k++) {
		struct kthread *t = &l->kt[k];

		if (t->in != INT64_MIN && t->cpu != RTR_MODEL_NONE &&
		    krun_add(l, k, t->cpu, t->in, m->cpus[t->cpu].last, RTR_RUN_SWITCH))
			return -1;
		t = &l->kt[k];
		if (t->task == RTR_MODEL_NONE) {
			uint32_t i = thread_task(l, RTR_MODEL_KTHREAD | t->tid, t->first);

			if (i == RTR_MODEL_NONE)
				return -1;
			t = &l->kt[k];
			t->task = i;
			if (t->forked != INT64_MIN) {
				m->tasks[i].flags = (m->tasks[i].flags & ~RTR_TASK_PREEXISTING) |
						    RTR_TASK_CREATED;
				m->tasks[i].created = t->forked;
			}
			if (t->exited != INT64_MIN) {
				m->tasks[i].flags |= RTR_TASK_RESOLVED;
				m->tasks[i].resolved = t->exited;
				if (t->exited > m->tasks[i].end)
					m->tasks[i].end = t->exited;
			}
			/* parent_tid's task, set below once every task is known */
			m->tasks[i].parent_id = t->parent_tid;
		}
	}
	for (uint32_t k = 0; k < l->nkt; k++) {
		struct rtr_model_task *t = &m->tasks[l->kt[k].task];
		uint32_t p;

		if (t->id != (RTR_MODEL_KTHREAD | l->kt[k].tid))
			continue;
		p = t->parent_id ? idmap_find(&l->ktids, t->parent_id + 1) : RTR_MODEL_NONE;
		t->parent_id = 0;
		if (p != RTR_MODEL_NONE && l->kt[p].task != l->kt[k].task) {
			t->parent = l->kt[p].task;
			t->parent_id = m->tasks[t->parent].id;
		}
	}
	for (uint32_t j = 0; j < l->nkruns; j++) {
		const struct krun *kr = &l->kruns[j];
		const struct kthread *t = &l->kt[kr->kt];
		struct rtr_model_run *r = PUSH(l, m->runs, m->nruns, CAP_RUNS);
		struct rtr_model_task *tk;

		if (!r)
			return -1;
		*r = (struct rtr_model_run){ .start = kr->start, .end = kr->end, .task = t->task,
					     .cpu = kr->cpu,
					     .thread = idmap_find(&l->threads, t->tid + 1),
					     .why = kr->why };
		tk = &m->tasks[t->task];
		if (kr->end > tk->end)
			tk->end = kr->end;
		if ((tk->flags & RTR_TASK_PREEXISTING) && kr->start < tk->created)
			tk->created = kr->start;
	}
	for (uint32_t j = 0; j < l->nklabels; j++) {
		const struct klabel *kl = &l->klabels[j];
		const struct kthread *t = &l->kt[kl->kt];
		struct rtr_model_label *lb = PUSH(l, m->labels, m->nlabels, CAP_LABELS);
		struct rtr_model_task *tk = &m->tasks[t->task];
		uint32_t th = idmap_find(&l->threads, t->tid + 1);

		if (!lb)
			return -1;
		*lb = (struct rtr_model_label){ .ts = kl->ts, .task = t->task, .text = kl->text,
						.len = kl->len };
		if (!tk->name || kl->rename)
			tk->name = kl->text;
		if (th != RTR_MODEL_NONE)
			m->threads[th].name = kl->text;
	}
	/* each task's labels in time order: the kernel's came last */
	if (m->nlabels > label_start &&
	    sort_i64(m->labels + label_start, m->nlabels - label_start, sizeof(*m->labels),
		     offsetof(struct rtr_model_label, ts)))
		return nomem(l);
	return 0;
}

/* ---- one event ------------------------------------------------------------------ */

static int on_event(struct loader *l, struct sstate *ss, const struct tr_cursor *c, int64_t ts)
{
	const uint8_t *pl = c->payload;
	enum op op = l->cur->ops[c->cls - c->md->classes];

	switch (op) {
	case OP_OTHER:
	case OP_THREAD:
		return 0;
	case OP_SWITCH32:
		return on_switch(l, ss, ld32(pl), ts);
	case OP_SWITCH64:
		return on_switch(l, ss, ld64(pl), ts);
	case OP_CREATE32:
		return on_create(l, ld32(pl), ld32(pl + 4), pl[8], ts);
	case OP_CREATE64:
		return on_create(l, ld64(pl), ld64(pl + 8), pl[16], ts);
	case OP_READ32:
	case OP_TRY_READ32:
	case OP_RESOLVE32:
	case OP_BECOMES32:
		return on_pair(l, op, ld32(pl), ld32(pl + 4), ts, ss->cpu);
	case OP_READ64:
	case OP_TRY_READ64:
	case OP_RESOLVE64:
	case OP_BECOMES64:
		return on_pair(l, op, ld64(pl), ld64(pl + 8), ts, ss->cpu);
	case OP_SIGNAL32:
		return on_signal(l, ss, op, ld32(pl), ld32(pl + 4), ts);
	case OP_SIGNAL64:
		return on_signal(l, ss, op, ld64(pl), ld64(pl + 8), ts);
	case OP_SHOULD32:
	case OP_SHOULD64: {
		uint64_t id = op == OP_SHOULD32 ? ld32(pl) : ld64(pl);
		uint32_t i;

		if (!id)
			return 0;
		if ((i = task_get(l, id, ts)) == RTR_MODEL_NONE)
			return -1;
		l->m->tasks[i].flags |= RTR_TASK_SHOULD_RESOLVE;
		return 0;
	}
	case OP_COUNTER:
		return on_counter(l, ss, ld32(pl), (int64_t)ld64(pl + 4), ts);
	case OP_FAIL:
		return on_fail(l, ld64(pl), ld64(pl + 8), pl + 16, ts, ss->cpu);
	case OP_LABEL:
		return on_label(l, ld64(pl), pl + 8, ts, ss);
	case OP_NOTE:
		return on_note(l, pl, ts, ss);
	case OP_PAUSE:
		return on_pause(l, ld64(pl), pl + 8, ts, ss->cpu);
	case OP_SCHED_SWITCH:
	case OP_SCHED_FORK:
	case OP_SCHED_EXIT:
	case OP_SCHED_WAKEUP:
		return on_sched(l, ss, c, ts, op);
	case OP_KSWITCH:
		return on_kswitch(l, ss, pl, ts);
	case OP_KFORK:
		return on_kfork(l, pl, ts);
	case OP_KEXIT:
		return on_kexit(l, pl, ts);
	case OP_KCOMM:
		return on_kcomm(l, pl, ts);
	case OP_KMMAP:
		return on_kmmap(l, pl);
	case OP_KSAMPLE:
		return on_ksample(l, pl, ts);
	case OP_PHOLD:
		ss->hold_lock = ld64(pl);
		ss->hold_ns = ld64(pl + 8) > INT64_MAX ? INT64_MAX : (int64_t)ld64(pl + 8);
		return 0;
	}
	return 0;
}

/* ---- one trace ------------------------------------------------------------------ */

/*
 * A class means to the model what the built-in class of its name and field
 * types means (the ids are the writer's business: a class is known by its
 * name and layout).
 */
static void setup_ops(struct chunk_ops *co, const struct tr_metadata *md)
{
	for (uint32_t i = 0; i < md->nclasses; i++) {
		const struct tr_class *c = &md->classes[i];

		co->ops[i] = OP_OTHER;
		for (uint32_t k = 0; k < RTR_EV_BUILTIN_COUNT; k++) {
			uint8_t op = builtin_op[k];

			if (!tr_class_is(c, rtr_event_builtin(k)))
				continue;
			co->ops[i] = op;
			if ((op == OP_CREATE32 || op == OP_CREATE64) && !co->kind_field)
				co->kind_field = &c->fields[2];
			if (op == OP_COUNTER)
				co->counter_field = &c->fields[0];
			break;
		}
		if (co->ops[i] == OP_OTHER && tr_class_is(c, rtr_event_pthread_hold()))
			co->ops[i] = OP_PHOLD;
	}
	for (uint32_t i = 0; md->own && i < md->nclasses; i++) {
		static const uint8_t kop[RTR_KEV_COUNT] = { OP_KSWITCH, OP_KFORK, OP_KEXIT, OP_KCOMM,
							   OP_KMMAP, OP_KSAMPLE };

		for (uint32_t k = 0; k < RTR_KEV_COUNT; k++) {
			if (tr_class_is(&md->classes[i], rtr_event_kernel(k))) {
				co->ops[i] = kop[k];
				co->kernel |= k == RTR_KEV_SWITCH;
			}
		}
	}
	if (!md->own)
		setup_sched(co, md);
}

/* Cycles of the trace's clock to nanoseconds since the epoch (saturated). */
static inline int64_t abs_ns(struct loader *l, uint64_t cycles)
{
	int64_t sec, ns;
	uint32_t nsec;

	tr_clock_ns(&l->clk, cycles, &sec, &nsec);
	if (__builtin_mul_overflow(sec, 1000000000, &ns) || __builtin_add_overflow(ns, nsec, &ns))
		return sec < 0 ? INT64_MIN : INT64_MAX;
	return ns;
}

static int add_loss(struct loader *l, struct sstate *ss, const struct tr_cursor *c, int item,
		    int64_t ts)
{
	struct rtr_model *m = l->m;
	struct rtr_model_loss *lo = PUSH(l, m->losses, m->nlosses, CAP_LOSSES);

	if (!lo)
		return -1;
	*lo = (struct rtr_model_loss){ .ts = ts, .count = c->lost, .cpu = ss->cpu,
				       .kind = item == TR_LOST_EVENTS ? RTR_LOSS_EVENTS :
				       RTR_LOSS_PACKETS };
	/* a slice's: the losses in it (its cursors' totals count their first packets whole) */
	*(item == TR_LOST_EVENTS ? &ss->lost_events : &ss->lost_packets) += c->lost;
	/* what ran across the gap is unknown: the run ends with the last event seen */
	ss->unknown = true;
	ss->unknown_since = ts;
	return run_end(l, ss, ss->any ? ss->last : ts);
}

static int add_damage(struct loader *l, struct sstate *ss, const struct tr_cursor *c)
{
	struct rtr_model *m = l->m;
	struct rtr_model_damage *d;
	int64_t s = str_add(l, c->err, strlen(c->err));

	if (s < 0 || !(d = PUSH(l, m->damage, m->ndamage, CAP_DAMAGE)))
		return -1;
	*d = (struct rtr_model_damage){ .trace = l->trace, .cpu = ss->cpu,
					.ts = ss->any ? ss->last : INT64_MIN,
					.message = (uint32_t)s };
	m->cpus[ss->cpu].damaged = true;
	m->traces[l->trace].damaged = true;
	return run_end(l, ss, ss->any ? ss->last : 0);
}

/* A chunk that is not of the same recording as the first: its uuid or clock differs. */
static int check_chunk(struct loader *l, const struct tr_trace *first, const struct tr_trace *t)
{
	if (memcmp(t->md.uuid, first->md.uuid, sizeof(t->md.uuid)))
		return fatal(l, "%s: uuid %s differs from %s's %s: not a chunk of the same "
			     "recording", t->dir, t->md.uuid_str, first->dir, first->md.uuid_str);
	if (t->md.freq != first->md.freq || t->md.offset_s != first->md.offset_s ||
	    t->md.offset != first->md.offset)
		return fatal(l, "%s: its clock differs from %s's: not a chunk of the same "
			     "recording", t->dir, first->dir);
	return 0;
}

/* A trace as a whole could not be read to its end (a cut stream): damage with no CPU. */
static int add_trace_damage(struct loader *l, const char *msg)
{
	struct rtr_model *m = l->m;
	struct rtr_model_trace *tr = &m->traces[l->trace];
	struct rtr_model_damage *d;
	int64_t s = str_add(l, msg, strlen(msg));

	if (s < 0 || !(d = PUSH(l, m->damage, m->ndamage, CAP_DAMAGE)))
		return -1;
	*d = (struct rtr_model_damage){ .trace = l->trace, .cpu = RTR_MODEL_NONE,
					.ts = tr->last == INT64_MIN ? INT64_MIN : tr->last,
					.message = (uint32_t)s };
	tr->damaged = true;
	tr->incomplete = true;
	return 0;
}

/* Read one trace: @t[0 .. @nchunks], a directory or the chunks of a rotated one, in order. */
static int load_trace(struct loader *l, const struct tr_trace *t, uint32_t nchunks,
		      const char *dir)
{
	struct rtr_model *m = l->m;
	struct rtr_model_trace *tr;
	struct sstate *ss = NULL;
	struct tr_merge mg;
	uint32_t s, label_start;
	int64_t str;
	int r, ret = -1;

	for (uint32_t k = 1; k < nchunks; k++) {
		if (check_chunk(l, &t[0], &t[k]))
			return -1;
	}
	l->trace = m->ntraces;
	memset(l->kind_names, 0, sizeof(l->kind_names));
	if (!t->md.own)
		l->kind_names[RTR_KIND_THREAD] = l->thread_kind;
	tr_clock_init(&l->clk, &t->md);
	if (!(tr = PUSH(l, m->traces, m->ntraces, CAP_TRACES)))
		return -1;
	*tr = (struct rtr_model_trace){ .vpid = t->md.vpid, .freq = t->md.freq,
					.cpu_first = m->ncpus, .nchunks = nchunks,
					.first = INT64_MAX, .last = INT64_MIN };
	tr->offset_ns = abs_ns(l, 0);
	if ((str = str_add(l, dir, strlen(dir))) < 0)
		return -1;
	m->traces[l->trace].dir = (uint32_t)str;
	if ((str = str_add(l, t->md.hostname, strlen(t->md.hostname))) < 0)
		return -1;
	m->traces[l->trace].hostname = (uint32_t)str;

	l->chunk_ops = calloc(nchunks, sizeof(*l->chunk_ops));
	if (!l->chunk_ops || idmap_init(&l->tasks) || idmap_init(&l->counters) ||
	    idmap_init(&l->threads) || idmap_init(&l->ktids) ||
	    tr_merge_init_chunks(&mg, t, nchunks)) {
		free(l->chunk_ops);
		l->chunk_ops = NULL;
		idmap_free(&l->tasks);
		idmap_free(&l->counters);
		idmap_free(&l->threads);
		idmap_free(&l->ktids);
		return nomem(l);
	}
	l->kernel = false;
	l->nkt = l->nkruns = l->nklabels = 0;
	label_start = m->nlabels;
	tr_merge_set_limit(&mg, l->limit);
	l->from = 0;
	if (l->sliced) {
		struct tr_index *ix = calloc(nchunks, sizeof(*ix));
		uint64_t to;

		if (!ix || tr_index_slice(t, nchunks, ix, l->slice_a, l->slice_b, &l->from, &to)) {
			free(ix);
			nomem(l);
			goto out;
		}
		if (l->slice_abs) {
			/* from an absolute time: l->from is the earliest item's (slice_a 0) */
			int64_t first = abs_ns(l, l->from);
			uint64_t rel = l->slice_from_abs > first ? (uint64_t)(l->slice_from_abs - first) : 0;
			long double k = !t->md.ns_clocks && t->md.freq ?
					(long double)t->md.freq / 1e9L : 1.0L;

			l->from += (uint64_t)((long double)rel * k);
		}
		tr_merge_seek(&mg, ix, l->from);
		if (to && to - 1 < l->limit)
			tr_merge_set_limit(&mg, to - 1);
		for (uint32_t k = 0; k < nchunks; k++)
			tr_index_free(&ix[k]);
		free(ix);
	}
	ss = calloc(mg.nstreams + 1, sizeof(*ss));
	if (!ss) {
		nomem(l);
		goto out;
	}
	l->class_first = m->nclasses;
	for (uint32_t k = 0; k < nchunks; k++) {
		if (!(l->chunk_ops[k].ops = calloc(t[k].md.nclasses + 1, 1)) ||
		    !(l->chunk_ops[k].cls = calloc(t[k].md.nclasses + 1, sizeof(uint32_t))) ||
		    !(l->chunk_ops[k].sched = calloc(t[k].md.nclasses + 1,
						     sizeof(struct sched_fields)))) {
			nomem(l);
			goto out;
		}
		setup_ops(&l->chunk_ops[k], &t[k].md);
		l->kernel |= l->chunk_ops[k].kernel;
		if (setup_classes(l, &l->chunk_ops[k], &t[k].md))
			goto out;
	}
	m->traces[l->trace].kernel = l->kernel;
	m->traces[l->trace].ncpus = mg.nstreams;
	for (uint32_t i = 0; i < mg.nstreams; i++) {
		const char *name = mg.c[i].s->name;
		struct rtr_model_cpu *cpu = PUSH(l, m->cpus, m->ncpus, CAP_CPUS);

		if (!cpu || (str = str_add(l, name, strlen(name))) < 0)
			goto out;
		cpu = &m->cpus[m->ncpus - 1];
		*cpu = (struct rtr_model_cpu){ .trace = l->trace, .cpu = RTR_MODEL_NONE,
					       .stream = (uint32_t)str, .first = INT64_MIN,
					       .last = INT64_MIN };
		ss[i] = (struct sstate){ .cpu = m->ncpus - 1, .running = RTR_MODEL_NONE,
					 .run_thread = RTR_MODEL_NONE, .thread = RTR_MODEL_NONE };
	}

	while ((r = tr_merge_next(&mg, &s)) != TR_END) {
		const struct tr_cursor *c = &mg.c[s];
		struct sstate *st = &ss[s];
		struct rtr_model_cpu *cpu = &m->cpus[st->cpu];
		int64_t ts;

		if (__builtin_expect(!(++l->nread & ((1u << 20) - 1)), 0) && progress_fn)
			progress_fn(progress_arg, l->nread);
		if (r == TR_ERROR) {
			if (c->started)
				cpu->cpu = (uint32_t)c->cpu;
			if (add_damage(l, st, c))
				goto out;
			continue;
		}
		if (__builtin_expect(!st->any, 0) && c->ts < l->from)
			continue;	/* a slice's first packet, before it (a stream's first items) */
		ts = abs_ns(l, c->ts);
		if (__builtin_expect(!st->any, 0)) {
			st->any = true;
			st->unknown = true;
			st->unknown_since = ts;
			cpu->first = ts;
			cpu->cpu = (uint32_t)c->cpu;
			cpu->kernel = c->kernel;
			if (ts < m->traces[l->trace].first)
				m->traces[l->trace].first = ts;
		}
		st->last = ts;
		if (__builtin_expect(r == TR_EVENT, 1)) {
			uint32_t k, th = RTR_MODEL_NONE;

			l->cur = &l->chunk_ops[mg.chunk[s]];
			k = l->cur->cls[c->cls - c->md->classes];
			m->classes[k].count++;
			/*
			 * A thread record is the ring's, not the program's: its class
			 * is counted, the events are the program's (the cursor holds
			 * the thread it names for the records after it).
			 */
			if (__builtin_expect(c->cls == c->md->thread, 0))
				continue;
			cpu->events++;
			if (!c->md->own) {
				if ((th = thread_of(l, c)) == UINT32_MAX - 1)
					goto out;
			} else if (c->has_tid) {
				/* ringtrace's thread records: the same thread for a run of records */
				if (st->thread != RTR_MODEL_NONE && st->tid == c->tid &&
				    st->pid == c->pid) {
					th = st->thread;
					m->threads[th].events++;
				} else if ((th = thread_index(l, c->tid, &c->pid, NULL, 0)) ==
					   UINT32_MAX - 1) {
					goto out;
				}
				st->tid = c->tid;
				st->pid = c->pid;
			}
			st->thread = th;
			if (l->cur->ops[c->cls - c->md->classes] == OP_OTHER &&
			    (l->flags & RTR_MODEL_MARKERS) && add_marker(l, st, c, ts, k, th))
				goto out;
			if (on_event(l, st, c, ts))
				goto out;
		} else if (add_loss(l, st, c, r, ts)) {
			goto out;
		}
	}
	for (uint32_t i = 0; i < mg.nstreams; i++) {
		const struct tr_cursor *c = &mg.c[i];
		struct rtr_model_cpu *cpu = &m->cpus[ss[i].cpu];

		cpu->events_lost = l->sliced ? ss[i].lost_events : c->events_lost;
		cpu->packets_lost = l->sliced ? ss[i].lost_packets : c->packets_lost;
		if (!ss[i].any)
			continue;
		cpu->last = ss[i].last;
		if (!c->failed && c->started) {
			int64_t e = abs_ns(l, c->ts_end);

			if (e > cpu->last)
				cpu->last = e;
		}
		if (run_end(l, &ss[i], cpu->last))
			goto out;
		tr = &m->traces[l->trace];
		tr->events += cpu->events;
		if (cpu->last > tr->last)
			tr->last = cpu->last;
	}
	/* before kernel_finish() sorts the labels: the indices are the events' order */
	if (name_objects(l) || (l->nkt && kernel_finish(l, label_start)) ||
	    (l->nksamples && samples_finish(l)))
		goto out;
	tr_syms_free(l->syms);
	l->syms = NULL;
	m->events += m->traces[l->trace].events;
	ret = 0;
out:
	tr_merge_free(&mg);
	for (uint32_t k = 0; k < nchunks; k++) {
		free(l->chunk_ops[k].ops);
		free(l->chunk_ops[k].cls);
		free(l->chunk_ops[k].sched);
	}
	free(l->chunk_ops);
	l->chunk_ops = NULL;
	l->cur = NULL;
	free(ss);
	idmap_free(&l->tasks);
	idmap_free(&l->counters);
	idmap_free(&l->threads);
	idmap_free(&l->ktids);
	return ret;
}

/* ---- finishing ------------------------------------------------------------------ */

static inline int64_t key_at(const char *p, size_t i, size_t size, size_t key)
{
	int64_t v;

	memcpy(&v, p + i * size + key, sizeof(v));
	return v;
}

/* The end of the ascending run that starts at @i. */
static size_t run_from(const char *p, size_t i, size_t n, size_t size, size_t key)
{
	for (i++; i < n && key_at(p, i - 1, size, key) <= key_at(p, i, size, key); i++)
		;
	return i;
}

/*
 * Sort @n elements of @size bytes at @base by the int64_t at offset @key,
 * stably: a natural merge sort, so that the traces' sorted runs cost one
 * pass per doubling, and a single trace's arrays no copy at all.
 */
static int sort_i64(void *base, size_t n, size_t size, size_t key)
{
	char *src = base, *dst, *buf;

	if (n < 2 || run_from(src, 0, n, size, key) == n)
		return 0;
	buf = malloc(n * size);
	if (!buf)
		return -1;
	dst = buf;
	for (;;) {
		size_t i = 0, o = 0, runs = 0;
		char *tmp;

		while (i < n) {
			size_t mid = run_from(src, i, n, size, key), e, p, q;

			e = mid < n ? run_from(src, mid, n, size, key) : n;
			for (p = i, q = mid; p < mid && q < e;) {
				bool left = key_at(src, p, size, key) <= key_at(src, q, size, key);

				memcpy(dst + o++ * size, src + (left ? p++ : q++) * size, size);
			}
			memcpy(dst + o * size, src + p * size, (mid - p) * size);
			o += mid - p;
			memcpy(dst + o * size, src + q * size, (e - q) * size);
			o += e - q;
			i = e;
			runs++;
		}
		tmp = src;
		src = dst;
		dst = tmp;
		if (runs == 1)
			break;
	}
	if (src != base)
		memcpy(base, src, n * size);
	free(buf);
	return 0;
}

/*
 * Group @n elements by their @keys (each < @nkeys), stably: a counting sort.
 * The grouped order (old indices) goes to @order; on return @first[k] is
 * where group k begins, @first[@nkeys] == @n.
 */
static void group_by(uint32_t n, uint32_t nkeys, const uint32_t *keys, uint32_t *order,
		    uint32_t *first)
{
	memset(first, 0, (size_t)(nkeys + 1) * sizeof(*first));
	for (uint32_t i = 0; i < n; i++)
		first[keys[i] + 1]++;
	for (uint32_t k = 0; k < nkeys; k++)
		first[k + 1] += first[k];
	for (uint32_t i = 0; i < n; i++)
		order[first[keys[i]]++] = i;
	/* first[k] now ends group k: shift back */
	memmove(first + 1, first, (size_t)nkeys * sizeof(*first));
	first[0] = 0;
}

/* Reorder @n elements of @size at @base as @order says. */
static int permute(void *base, uint32_t n, size_t size, const uint32_t *order)
{
	char *tmp;

	if (!n)
		return 0;
	tmp = malloc((size_t)n * size);
	if (!tmp)
		return -1;
	for (uint32_t i = 0; i < n; i++)
		memcpy(tmp + (size_t)i * size, (char *)base + (size_t)order[i] * size, size);
	memcpy(base, tmp, (size_t)n * size);
	free(tmp);
	return 0;
}

/*
 * A signal to a synchronisation object (the pthread wrapper's: an unlock
 * of a contended mutex, a post, a condition's signal or broadcast) is
 * RTR_ARROW_HIDDEN unless a wait on the object ended (its read) before the
 * next signal to it: the picture draws an arrow only where a release ended
 * a wait, not one per unlock (pigz's view was a wall of them).  The arrows
 * stay in the model (dump, stats and the details list them).
 */
static int quiet_signals(struct rtr_model *m)
{
	uint32_t *last = malloc(((size_t)m->ntasks + 1) * sizeof(*last));

	if (!last)
		return -1;
	for (uint32_t i = 0; i < m->ntasks; i++)
		last[i] = RTR_MODEL_NONE;
	for (uint32_t i = 0; i < m->narrows; i++) {
		struct rtr_model_arrow *a = &m->arrows[i];
		uint32_t obj = a->kind == RTR_ARROW_SIGNAL ? a->to : a->from;
		uint32_t k;

		if (obj >= m->ntasks)
			continue;
		k = m->tasks[obj].kind;
		if (k != RTR_KIND_MUTEX && k != RTR_KIND_CONDITION && k != RTR_KIND_SEMAPHORE &&
		    k != RTR_KIND_BARRIER && k != RTR_KIND_RWLOCK)
			continue;
		if (a->kind == RTR_ARROW_SIGNAL) {
			a->flags |= RTR_ARROW_HIDDEN;
			last[obj] = i;
		} else if (a->kind == RTR_ARROW_READ && last[obj] != RTR_MODEL_NONE) {
			m->arrows[last[obj]].flags &= (uint8_t)~RTR_ARROW_HIDDEN;
			last[obj] = RTR_MODEL_NONE;
		}
	}
	free(last);
	return 0;
}

/* Group labels and runs by task, samples by counter, runs by CPU. */
static int group_all(struct loader *l)
{
	struct rtr_model *m = l->m;
	uint32_t most = m->nlabels > m->nruns ? m->nlabels : m->nruns;
	uint32_t nk = m->ntasks > m->ncpus ? m->ntasks : m->ncpus;
	uint32_t *keys, *order, *first;
	int ret = -1;

	if (m->nsamples > most)
		most = m->nsamples;
	if (m->ncounters > nk)
		nk = m->ncounters;
	keys = malloc(((size_t)most + 1) * sizeof(*keys));
	order = malloc(((size_t)most + 1) * sizeof(*order));
	first = malloc(((size_t)nk + 2) * sizeof(*first));
	m->cpu_runs = malloc(((size_t)m->nruns + 1) * sizeof(*m->cpu_runs));
	if (!keys || !order || !first || !m->cpu_runs)
		goto out;

	for (uint32_t i = 0; i < m->nlabels; i++)
		keys[i] = m->labels[i].task;
	group_by(m->nlabels, m->ntasks, keys, order, first);
	if (permute(m->labels, m->nlabels, sizeof(*m->labels), order))
		goto out;
	for (uint32_t k = 0; k < m->ntasks; k++) {
		m->tasks[k].label_first = first[k];
		m->tasks[k].nlabels = first[k + 1] - first[k];
	}

	/* runs by CPU first: closed in time order per CPU, which the stable sort keeps */
	for (uint32_t i = 0; i < m->nruns; i++)
		keys[i] = m->runs[i].cpu;
	group_by(m->nruns, m->ncpus, keys, m->cpu_runs, first);
	for (uint32_t k = 0; k < m->ncpus; k++) {
		m->cpus[k].run_first = first[k];
		m->cpus[k].nruns = first[k + 1] - first[k];
	}
	for (uint32_t i = 0; i < m->nruns; i++)
		keys[i] = m->runs[i].task;
	group_by(m->nruns, m->ntasks, keys, order, first);
	if (permute(m->runs, m->nruns, sizeof(*m->runs), order))
		goto out;
	for (uint32_t k = 0; k < m->ntasks; k++) {
		m->tasks[k].run_first = first[k];
		m->tasks[k].nruns = first[k + 1] - first[k];
	}
	/* where each run went: keys[old index] = new index */
	for (uint32_t i = 0; i < m->nruns; i++)
		keys[order[i]] = i;
	for (uint32_t i = 0; i < m->nruns; i++)
		m->cpu_runs[i] = keys[m->cpu_runs[i]];

	group_by(m->nsamples, m->ncounters, l->sample_counter, order, first);
	if (permute(m->samples, m->nsamples, sizeof(*m->samples), order))
		goto out;
	for (uint32_t k = 0; k < m->ncounters; k++)
		m->counters[k].sample_first = first[k];
	ret = 0;
out:
	free(keys);
	free(order);
	free(first);
	return ret;
}

static const char *prefix_end(const char *s)
{
	const char *h = strchr(s, '#');

	return h ? h : s + strlen(s);
}

/* qsort_r() order of counter indices by name prefix, then index (@arg: the model) */
static int cmp_counter_prefix(const void *a, const void *b, void *arg)
{
	const struct rtr_model *m = arg;
	const char *sa = rtr_model_str(m, m->counters[*(const uint32_t *)a].name);
	const char *sb = rtr_model_str(m, m->counters[*(const uint32_t *)b].name);
	size_t na = (size_t)(prefix_end(sa) - sa), nb = (size_t)(prefix_end(sb) - sb);
	int c = memcmp(sa, sb, na < nb ? na : nb);

	if (c)
		return c;
	if (na != nb)
		return na < nb ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

static int counter_groups(struct rtr_model *m)
{
	uint32_t *idx = malloc(((size_t)m->ncounters + 1) * sizeof(*idx));

	if (!idx)
		return -1;
	for (uint32_t i = 0; i < m->ncounters; i++)
		idx[i] = i;
	if (m->ncounters > 1)
		qsort_r(idx, m->ncounters, sizeof(*idx), cmp_counter_prefix, m);
	for (uint32_t i = 1; i < m->ncounters; i++) {
		const char *a = rtr_model_str(m, m->counters[idx[i - 1]].name);
		const char *b = rtr_model_str(m, m->counters[idx[i]].name);
		size_t na = (size_t)(prefix_end(a) - a), nb = (size_t)(prefix_end(b) - b);

		if (na == nb && !memcmp(a, b, na))
			m->counters[idx[i]].group = m->counters[idx[i - 1]].group;
	}
	free(idx);
	return 0;
}

uint32_t rtr_model_last_task(const struct rtr_model *m, uint32_t task)
{
	for (uint32_t steps = 0; steps < m->ntasks && m->tasks[task].becomes != RTR_MODEL_NONE;
	     steps++)
		task = m->tasks[task].becomes;
	return task;
}

/*
 * The end of every task's becomes chain at once, in time linear in the
 * tasks (one walk per chain, shared by the tasks on it; a cycle, which only
 * a damaged or hostile trace makes, ends where it closes).  NULL without
 * memory.
 */
static uint32_t *chain_ends(const struct rtr_model *m)
{
	const uint32_t visiting = RTR_MODEL_NONE - 1;
	uint32_t *end = malloc(((size_t)m->ntasks + 1) * sizeof(*end));
	uint32_t *path = malloc(((size_t)m->ntasks + 1) * sizeof(*path));

	if (!end || !path) {
		free(end);
		free(path);
		return NULL;
	}
	for (uint32_t i = 0; i < m->ntasks; i++)
		end[i] = RTR_MODEL_NONE;
	for (uint32_t i = 0; i < m->ntasks; i++) {
		uint32_t t = i, k = 0, e;

		while (end[t] == RTR_MODEL_NONE) {
			end[t] = visiting;
			path[k++] = t;
			if (m->tasks[t].becomes == RTR_MODEL_NONE || m->tasks[t].becomes >= m->ntasks)
				break;
			t = m->tasks[t].becomes;
		}
		e = end[t] == visiting ? t : end[t];
		while (k)
			end[path[--k]] = e;
	}
	free(path);
	return end;
}

static inline int64_t rel(int64_t t, int64_t origin)
{
	int64_t r;

	if (__builtin_sub_overflow(t, origin, &r))
		return t < 0 ? INT64_MIN : INT64_MAX;
	return r;
}

/* Times relative to the origin; task ends; should_resolve failures. */
static void finish(struct rtr_model *m)
{
	int64_t o = INT64_MAX, end = INT64_MIN;
	uint32_t *ends = NULL;	/* of the becomes chains, once one is needed */

	for (uint32_t i = 0; i < m->ntraces; i++) {
		if (m->traces[i].first < o)
			o = m->traces[i].first;
	}
	if (o == INT64_MAX)
		o = 0;
	m->origin_ns = o;
	for (uint32_t i = 0; i < m->ntraces; i++) {
		struct rtr_model_trace *t = &m->traces[i];

		if (t->first == INT64_MAX) {
			t->first = t->last = 0;
			continue;
		}
		t->first = rel(t->first, o);
		t->last = rel(t->last, o);
		if (t->last > end)
			end = t->last;
	}
	m->start = 0;
	m->end = end == INT64_MIN ? 0 : end;
	for (uint32_t i = 0; i < m->ncpus; i++) {
		struct rtr_model_cpu *c = &m->cpus[i];

		c->first = c->first == INT64_MIN ? 0 : rel(c->first, o);
		c->last = c->last == INT64_MIN ? 0 : rel(c->last, o);
	}
	for (uint32_t i = 0; i < m->ntasks; i++) {
		struct rtr_model_task *t = &m->tasks[i];

		t->created = rel(t->created, o);
		t->end = rel(t->end, o);
		if (t->flags & RTR_TASK_RESOLVED)
			t->resolved = rel(t->resolved, o);
		if (t->flags & RTR_TASK_BECAME)
			t->becomes_ts = rel(t->becomes_ts, o);
	}
	for (uint32_t i = 0; i < m->ntasks; i++) {
		struct rtr_model_task *t = &m->tasks[i];
		uint32_t last;

		if (t->flags & RTR_TASK_RESOLVED) {
			t->end = t->resolved;
		} else if (t->flags & RTR_TASK_SHOULD_RESOLVE && !m->sliced) {
			if (!ends)
				ends = chain_ends(m);
			last = ends ? ends[i] : rtr_model_last_task(m, i);
			if (!(m->tasks[last].flags & RTR_TASK_RESOLVED)) {
				t->flags |= RTR_TASK_NEVER_RESOLVED;
				t->end = m->traces[t->trace].last;
			}
		}
		if (t->end < t->created)
			t->end = t->created;
	}
	free(ends);
	for (uint32_t i = 0; i < m->narrows; i++) {
		m->arrows[i].ts = rel(m->arrows[i].ts, o);
		m->arrows[i].t_from = rel(m->arrows[i].t_from, o);
	}
	for (uint32_t i = 0; i < m->nlabels; i++)
		m->labels[i].ts = rel(m->labels[i].ts, o);
	for (uint32_t i = 0; i < m->nruns; i++) {
		m->runs[i].start = rel(m->runs[i].start, o);
		m->runs[i].end = rel(m->runs[i].end, o);
	}
	for (uint32_t i = 0; i < m->nsamples; i++)
		m->samples[i].ts = rel(m->samples[i].ts, o);
	for (uint32_t i = 0; i < m->nnotes; i++)
		m->notes[i].ts = rel(m->notes[i].ts, o);
	for (uint32_t i = 0; i < m->npauses; i++) {
		struct rtr_model_pause *p = &m->pauses[i];

		p->end = rel(p->end, o);
		p->start = p->start < o ? 0 : rel(p->start, o);
	}
	for (uint32_t i = 0; i < m->nlosses; i++)
		m->losses[i].ts = rel(m->losses[i].ts, o);
	for (uint32_t i = 0; i < m->nmarkers; i++)
		m->markers[i].ts = rel(m->markers[i].ts, o);
	for (uint32_t i = 0; i < m->ncpu_samples; i++)
		m->cpu_samples[i].ts = rel(m->cpu_samples[i].ts, o);
	for (uint32_t i = 0; i < m->nholds; i++)
		m->holds[i].ts = rel(m->holds[i].ts, o);
	for (uint32_t i = 0; i < m->ndamage; i++)
		m->damage[i].ts = m->damage[i].ts == INT64_MIN ? 0 : rel(m->damage[i].ts, o);
}

/* Open @in's directories (the chunks in order) and load them as one trace named @arg. */
/* @in's first @ndirs chunks (the last capped to l->cap's whole packets, if any). */
static int load_input(struct loader *l, const struct tr_input *in, uint32_t ndirs, const char *arg)
{
	struct tr_trace *t = calloc(ndirs ? ndirs : 1, sizeof(*t));
	uint32_t opened = 0;
	int ret = -1;

	if (!t)
		return nomem(l);
	for (; opened < ndirs; opened++) {
		if ((l->sliced ? tr_open_lazy : tr_open)(&t[opened], in->dirs[opened], l->err, l->errlen))
			goto out;
	}
	if (l->cap && opened)
		tr_follow_cap(&t[opened - 1], l->cap);
	if (load_trace(l, t, ndirs, arg))
		goto out;
	if (in->stream_failed) {
		char msg[800];

		snprintf(msg, sizeof(msg), "standard input: the stream ended early or was damaged "
			 "(%s): the trace holds what came before", in->stream_err);
		if (add_trace_damage(l, msg))
			goto out;
	}
	ret = 0;
out:
	for (uint32_t i = 0; i < opened; i++)
		tr_close(&t[i]);
	free(t);
	return ret;
}

int rtr_model_load(struct rtr_model *m, char *const *dirs, int ndirs, char *err, size_t errlen)
{
	return rtr_model_load_flags(m, dirs, ndirs, RTR_MODEL_MARKERS | RTR_MODEL_FIELDS, err,
				    errlen);
}

/* Before the first trace: the model empty, the strings every model has. */
static int model_begin(struct loader *l)
{
	int64_t s;

	memset(l->m, 0, sizeof(*l->m));
	l->limit = UINT64_MAX;
	/* offset 0 is the empty string */
	if (tr_text_init(&l->text, NULL, 4096) || str_add(l, "", 0) < 0 ||
	    (s = str_add(l, "preexisting", 11)) < 0)
		return -1;
	l->preexisting = (uint32_t)s;
	if ((s = str_add(l, "thread", 6)) < 0)
		return -1;
	l->thread_kind = (uint32_t)s;
	return 0;
}

/* A label "xid send 0xID" (@dir 's') or "xid recv 0xID" ('r'): its id, or false. */
static bool xid_of(const char *s, char *dir, uint64_t *id)
{
	if (strncmp(s, "xid ", 4) || (strncmp(s + 4, "send ", 5) && strncmp(s + 4, "recv ", 5)))
		return false;
	*dir = s[4];
	s += 9;
	return hex_at(&s, id) && !*s;
}

struct xid_end {
	uint64_t id;
	uint32_t label;
};

#define XID_SENDS	8	/* senders joined to one receipt, at most */

static int cmp_xid(const void *a, const void *b)
{
	const struct xid_end *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * Links between traces (Documentation/network.rst, "A request from one host
 * to another"): a task labelled "xid recv 0xID" read each task labelled "xid
 * send 0xID", in any trace of the model: a read arrow from the sender's
 * label to the receiver's (RTR_ARROW_REMOTE: drawn in its own colour).  On one
 * time axis (--align clock) only: a trace moved to its start moves the
 * receiver's end of the arrow.
 */
static int xid_links(struct loader *l)
{
	struct rtr_model *m = l->m;
	struct xid_end *send = NULL, *recv = NULL;
	uint32_t ns = 0, nr = 0, *cpu_of = NULL;
	int ret = -1;

	for (uint32_t i = 0; i < m->nlabels; i++) {
		const char *s = rtr_model_str(m, m->labels[i].text);
		struct xid_end **v;
		uint32_t *n;
		uint64_t id;
		char dir;

		if (s[0] != 'x' || !xid_of(s, &dir, &id))
			continue;
		v = dir == 's' ? &send : &recv;
		n = dir == 's' ? &ns : &nr;
		if (!(*n & (*n + 1))) {
			/* 0, 1, 3, 7, ...: room for twice as many */
			struct xid_end *p = realloc(*v, 2 * ((size_t)*n + 1) * sizeof(**v));

			if (!p)
				goto out;
			*v = p;
		}
		(*v)[(*n)++] = (struct xid_end){ .id = id, .label = i };
	}
	if (!ns || !nr) {
		ret = 0;
		goto out;
	}
	/* each trace's first CPU: the receiver's end of the arrow is on its trace */
	if (!(cpu_of = malloc((m->ntraces ? m->ntraces : 1) * sizeof(*cpu_of))))
		goto out;
	for (uint32_t t = 0; t < m->ntraces; t++)
		cpu_of[t] = RTR_MODEL_NONE;
	for (uint32_t c = m->ncpus; c-- > 0;)
		if (m->cpus[c].trace < m->ntraces)
			cpu_of[m->cpus[c].trace] = c;
	qsort(send, ns, sizeof(*send), cmp_xid);
	for (uint32_t r = 0; r < nr; r++) {
		const struct rtr_model_label *to = &m->labels[recv[r].label];
		uint32_t cpu = cpu_of[m->tasks[to->task].trace], lo = 0, hi = ns, joined = 0;

		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (send[mid].id < recv[r].id)
				lo = mid + 1;
			else
				hi = mid;
		}
		/* at most XID_SENDS senders a receipt: a hostile trace's arrows stay linear */
		for (; cpu != RTR_MODEL_NONE && lo < ns && send[lo].id == recv[r].id &&
		       joined < XID_SENDS; lo++) {
			const struct rtr_model_label *from = &m->labels[send[lo].label];
			struct rtr_model_arrow *a;

			if (from->task == to->task)
				continue;
			if (!(a = PUSH(l, m->arrows, m->narrows, CAP_ARROWS)))
				goto out;
			*a = (struct rtr_model_arrow){ .ts = to->ts, .t_from = from->ts,
						       .from = from->task, .to = to->task,
						       .kind = RTR_ARROW_READ,
						       .flags = RTR_ARROW_REMOTE, .cpu = cpu };
			to = &m->labels[recv[r].label];
			joined++;
		}
	}
	ret = 0;
out:
	free(cpu_of);
	free(send);
	free(recv);
	return ret;
}

/* After the last trace (@ok: they all loaded): sorted, grouped; the loader freed. */
static int model_end(struct loader *l, bool ok)
{
	struct rtr_model *m = l->m;
	int ret = -1;

	if (!ok)
		goto out;
	m->sliced = l->sliced;
	finish(m);
	if (xid_links(l) ||
	    sort_i64(m->arrows, m->narrows, sizeof(*m->arrows),
		     offsetof(struct rtr_model_arrow, ts)) ||
	    sort_i64(m->notes, m->nnotes, sizeof(*m->notes), offsetof(struct rtr_model_note, ts)) ||
	    sort_i64(m->pauses, m->npauses, sizeof(*m->pauses),
		     offsetof(struct rtr_model_pause, end)) ||
	    sort_i64(m->losses, m->nlosses, sizeof(*m->losses),
		     offsetof(struct rtr_model_loss, ts)) ||
	    sort_i64(m->markers, m->nmarkers, sizeof(*m->markers),
		     offsetof(struct rtr_model_marker, ts)) ||
	    sort_i64(m->cpu_samples, m->ncpu_samples, sizeof(*m->cpu_samples),
		     offsetof(struct rtr_model_cpu_sample, ts)) ||
	    sort_i64(m->holds, m->nholds, sizeof(*m->holds), offsetof(struct rtr_model_hold, ts)) ||
	    sort_threads(m) || group_all(l) || counter_groups(m) || quiet_signals(m)) {
		nomem(l);
		goto out;
	}
	ret = m->ndamage ? 1 : 0;
out:
	free(l->try_head);
	free(l->kt);
	free(l->kruns);
	free(l->klabels);
	free(l->ksamples);
	free(l->rawf);
	itable_free(&l->rawtab);
	itable_free(&l->frametab);
	itable_free(&l->nametab);
	free(l->objlabels);
	tr_syms_free(l->syms);
	free(l->comm);
	free(l->try_next);
	free(l->sample_counter);
	tr_text_free(&l->text);
	if (ret < 0)
		rtr_model_free(m);
	return ret;
}

static int load_dirs(struct loader *l, char *const *dirs, int ndirs);

int rtr_model_load_flags(struct rtr_model *m, char *const *dirs, int ndirs, unsigned flags,
			 char *err, size_t errlen)
{
	struct loader l = { .m = m, .err = err, .errlen = errlen, .flags = flags };

	return load_dirs(&l, dirs, ndirs);
}

int rtr_model_load_slice(struct rtr_model *m, char *const *dirs, int ndirs, unsigned flags,
			 uint64_t from_ns, uint64_t to_ns, char *err, size_t errlen)
{
	struct loader l = { .m = m, .err = err, .errlen = errlen, .flags = flags, .sliced = true,
			    .slice_a = from_ns, .slice_b = to_ns };

	return load_dirs(&l, dirs, ndirs);
}

static int load_dirs(struct loader *lp, char *const *dirs, int ndirs)
{
	struct loader l = *lp;
	struct rtr_model *m = l.m;
	int nstdin = 0;
	bool ok = false;
	struct tr_input in;

	memset(m, 0, sizeof(*m));
	if (ndirs < 1)
		return fatal(&l, "no trace given");
	for (int i = 0; i < ndirs; i++)
		nstdin += !strcmp(dirs[i], "-");
	if (nstdin > 1)
		return fatal(&l, "'-' (standard input) given %d times: it holds one trace", nstdin);
	if (model_begin(&l))
		goto out;
	for (int i = 0; i < ndirs; i++) {
		int r = tr_input_open(&in, dirs[i], false, l.err, l.errlen);

		if (!r)
			r = load_input(&l, &in, in.ndirs, dirs[i]);
		tr_input_close(&in, NULL, 0);
		if (r)
			goto out;
	}
	ok = true;
out:
	return model_end(&l, ok);
}

int rtr_model_load_turn(struct rtr_model *m, const struct tr_input *in,
			const struct tr_follow_turn *turn, const char *arg, unsigned flags,
			char *err, size_t errlen)
{
	return rtr_model_load_turn_tail(m, in, turn, arg, flags, INT64_MIN, err, errlen);
}

int rtr_model_load_turn_tail(struct rtr_model *m, const struct tr_input *in,
			     const struct tr_follow_turn *turn, const char *arg, unsigned flags,
			     int64_t from_abs_ns, char *err, size_t errlen)
{
	struct loader l = { .m = m, .err = err, .errlen = errlen, .flags = flags,
			    .sliced = from_abs_ns != INT64_MIN, .slice_b = UINT64_MAX,
			    .slice_abs = from_abs_ns != INT64_MIN, .slice_from_abs = from_abs_ns };
	bool ok = false;

	memset(m, 0, sizeof(*m));
	if (!in->ndirs || turn->now >= in->ndirs)
		return fatal(&l, "%s: no trace yet", arg);
	if (model_begin(&l))
		goto out;
	l.limit = turn->limit;
	l.cap = turn->done ? NULL : &turn->st;
	ok = !load_input(&l, in, turn->now + 1, arg);
out:
	return model_end(&l, ok);
}

void rtr_model_free(struct rtr_model *m)
{
	free(m->traces);
	free(m->cpus);
	free(m->tasks);
	free(m->arrows);
	free(m->labels);
	free(m->runs);
	free(m->cpu_runs);
	free(m->counters);
	free(m->samples);
	free(m->notes);
	free(m->pauses);
	free(m->losses);
	free(m->damage);
	free(m->classes);
	free(m->threads);
	free(m->markers);
	free(m->frames);
	free(m->cpu_samples);
	free(m->holds);
	free(m->strs);
	memset(m, 0, sizeof(*m));
}
