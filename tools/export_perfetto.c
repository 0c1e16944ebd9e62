// SPDX-License-Identifier: MIT
/*
 * tools/export_perfetto.c - `ringtrace export --format perfetto`: the task
 * model (model.h) as Perfetto's protobuf trace format, the messages of
 * tools/perfetto_trace.proto packed by protobuf-c, one TracePacket at a time
 * (Documentation/analysis.rst, "Perfetto's format"):
 *
 * - a process track per trace; a thread track per CPU, on which the runs are
 *   slices; the ring's threads, on which their notes and typed events are
 *   instants; a track for each CPU's pauses; a counter track per counter;
 * - the tasks as slices on "tasks" tracks under their trace's process, packed
 *   into lanes (a lane is reused once its last task has ended), with their
 *   id, kind, parent, state and labels as arguments;
 * - an arrow (read, try_read, resolve, fail, signal) as an instant on each of
 *   its two tasks' slices, joined by a flow.
 *
 * Size: every event packet is on one sequence, whose timestamps are deltas
 * on a clock of its own (64, incremental, declared equal to BOOTTIME at the
 * model's time 0 and to REALTIME at its origin), and whose event names and
 * argument names that repeat are interned; descriptors come first.  Events
 * are written in time order; at one time, a slice's end before the next
 * slice's begin on a CPU, a task's begin before its arrows and its end.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <zlib.h>
#include "perfetto_trace.pb-c.h"
#include "reader/model.h"
#include "tools/export_items.h"
#include "tools/export_perfetto.h"
#include "tools/json.h"

typedef Perfetto__Protos__TracePacket Packet;
typedef Perfetto__Protos__TrackEvent Event;
typedef Perfetto__Protos__TrackDescriptor Track;
typedef Perfetto__Protos__DebugAnnotation Arg;

#define TY_BEGIN	PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN
#define TY_END		PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END
#define TY_INSTANT	PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT
#define TY_COUNTER	PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_COUNTER
#define SEQ_ID		1	/* the events' trusted_packet_sequence_id */
#define CLOCK_DELTA	64	/* the sequence's own clock: deltas */
#define CLOCK_REALTIME	1
#define CLOCK_BOOTTIME	6
#define SEQ_CLEARED	1	/* SEQ_INCREMENTAL_STATE_CLEARED */
#define TID_CPUS	0x100000	/* a CPU's thread id: this + its index */
#define TID_THREADS	0x200000	/* a ring thread's: this + its index */
#define SINK_CAP	(1u << 16)
#define MAX_ARGS	7
#define SLOT_NAME	MAX_ARGS
#define SLOT_LABELS	(MAX_ARGS + 1)
#define SLOT_KIND	(MAX_ARGS + 2)
#define NSLOTS		(MAX_ARGS + 3)

/* What an item is; the order breaks ties in time (see the top). */
enum item_type {
	IT_RUN_END = 0,
	IT_PAUSE_END,
	IT_BEGIN,
	IT_FLOW_OUT,
	IT_FLOW_IN,
	IT_END,
	IT_RUN,			/* begin, or an instant if it lasted 0 ns */
	IT_PAUSE,		/* the same */
	IT_SAMPLE,
	IT_NOTE,
	IT_MARKER,
	IT_LOSS,
};

/* The arguments' names, interned as iid = index + 1. */
enum arg_name { A_TASK, A_PARENT, A_BECOMES, A_STATE, A_REASON, A_LABELS, A_FIELDS,
		A_COUNT, A_ENDED, NARGS };
static const char *const arg_names[NARGS] = {
	"task", "parent", "becomes", "state", "reason", "labels", "fields", "count", "ended",
};

/* An event name seen more than once: interned (@iid, 0 until written). */
struct name {
	const char *s;
	uint32_t count;
	uint32_t iid;
};

struct names {
	struct name *t;
	uint32_t cap, n, next_iid;
	uint64_t seed;
};

/* The output: raw protobuf, or gzip of it. */
struct sink {
	ProtobufCBuffer base;	/* first: protobuf-c's append() is given &base */
	FILE *f;
	bool gz, err;
	z_stream z;
	uint8_t *buf, *zbuf;
	size_t n;
};

struct exp {
	const struct rtr_model *m;
	struct sink s;
	struct names names;
	struct names kinds;	/* the tasks' kinds: categories, all interned */
	int64_t last_ts, shift;
	bool arg_said[NARGS];
	/* track uuids: CPU i is 1 + i; the rest from these bases */
	uint64_t lane0, proc0, pause0, thread0, counter0;
	uint32_t *lane;			/* per task: its lane */
	uint32_t *sample_counter;	/* per sample: its counter */
	/* valid UTF-8 copies of strings that were not: one per argument, the name's
	 * (SLOT_NAME), the joined labels' (SLOT_LABELS), the category's (SLOT_KIND) */
	char *scratch[NSLOTS];
	size_t scratch_len[NSLOTS];
};

/* ---- output ------------------------------------------------------------------------- */

static void sink_drain(struct sink *s, bool finish)
{
	if (!s->gz) {
		if (s->n && fwrite(s->buf, 1, s->n, s->f) != s->n)
			s->err = true;
		s->n = 0;
		return;
	}
	s->z.next_in = s->buf;
	s->z.avail_in = (uInt)s->n;
	for (;;) {
		int r;
		size_t k;

		s->z.next_out = s->zbuf;
		s->z.avail_out = SINK_CAP;
		r = deflate(&s->z, finish ? Z_FINISH : Z_NO_FLUSH);
		if (r == Z_STREAM_ERROR) {
			s->err = true;
			break;
		}
		k = SINK_CAP - s->z.avail_out;
		if (k && fwrite(s->zbuf, 1, k, s->f) != k)
			s->err = true;
		if (finish ? r == Z_STREAM_END : s->z.avail_out != 0)
			break;
	}
	s->n = 0;
}

static void sink_append(ProtobufCBuffer *b, size_t len, const uint8_t *data)
{
	struct sink *s = (struct sink *)b;

	while (len) {
		size_t k = SINK_CAP - s->n < len ? SINK_CAP - s->n : len;

		memcpy(s->buf + s->n, data, k);
		s->n += k;
		data += k;
		len -= k;
		if (s->n == SINK_CAP)
			sink_drain(s, false);
	}
}

static int sink_open(struct sink *s, FILE *f, bool gz)
{
	memset(s, 0, sizeof(*s));
	s->base.append = sink_append;
	s->f = f;
	s->gz = gz;
	s->buf = malloc(SINK_CAP);
	s->zbuf = gz ? malloc(SINK_CAP) : NULL;
	if (!s->buf || (gz && !s->zbuf))
		return -ENOMEM;
	/* 15 + 16: a gzip header and trailer, which Perfetto recognises */
	if (gz && deflateInit2(&s->z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		s->gz = false;
		return -ENOMEM;
	}
	return 0;
}

static int sink_close(struct sink *s)
{
	sink_drain(s, true);
	if (s->gz)
		deflateEnd(&s->z);
	if (fflush(s->f))
		s->err = true;
	free(s->buf);
	free(s->zbuf);
	return s->err ? -EIO : 0;
}

/* @p as field 1 of Trace: its tag, its length, its bytes. */
static void put(struct exp *e, const Packet *p)
{
	uint8_t hdr[11];
	size_t len = perfetto__protos__trace_packet__get_packed_size(p), k = 0;

	hdr[k++] = 0x0a;
	do {
		hdr[k++] = (uint8_t)((len & 0x7f) | (len > 0x7f ? 0x80 : 0));
		len >>= 7;
	} while (len);
	sink_append(&e->s.base, k, hdr);
	perfetto__protos__trace_packet__pack_to_buffer(p, &e->s.base);
}

/* @s, or a copy of it in scratch @slot with each invalid UTF-8 byte made U+FFFD. */
static const char *utf8(struct exp *e, const char *s, int slot)
{
	const uint8_t *p = (const uint8_t *)s;
	size_t n = strlen(s), i, k, need = 0;
	char *o;

	for (i = 0; i < n; i += k) {
		k = jw_utf8_len(p + i, n - i);
		need += k ? k : 3;
		if (!k)
			k = 1;
	}
	if (need == n)
		return s;
	if (e->scratch_len[slot] < need + 1) {
		o = realloc(e->scratch[slot], need + 1);
		if (!o)
			return "";
		e->scratch[slot] = o;
		e->scratch_len[slot] = need + 1;
	}
	o = e->scratch[slot];
	for (i = 0; i < n; i += k) {
		k = jw_utf8_len(p + i, n - i);
		if (k) {
			memcpy(o, s + i, k);
			o += k;
		} else {
			memcpy(o, "\xef\xbf\xbd", 3);
			o += 3;
			k = 1;
		}
	}
	*o = 0;
	return e->scratch[slot];
}

/* ---- the event names: counted first, then the repeated ones interned ------------------ */

static uint64_t name_hash(const struct names *ns, const char *s)
{
	uint64_t h = ns->seed;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	/* splitmix64's finaliser: the strings are chosen by the traced program */
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebull;
	return h ^ (h >> 31);
}

static struct name *name_find(struct names *ns, const char *s, bool add)
{
	uint32_t i;

	if (add && 2 * (ns->n + 1) > ns->cap) {
		struct names b = *ns;

		b.cap = ns->cap ? ns->cap * 2 : 1024;
		b.t = calloc(b.cap, sizeof(*b.t));
		if (!b.t)
			return NULL;
		b.n = 0;
		for (uint32_t j = 0; j < ns->cap; j++) {
			if (!ns->t[j].s)
				continue;
			for (i = (uint32_t)name_hash(&b, ns->t[j].s) & (b.cap - 1); b.t[i].s;
			     i = (i + 1) & (b.cap - 1))
				;
			b.t[i] = ns->t[j];
			b.n++;
		}
		free(ns->t);
		*ns = b;
	}
	if (!ns->cap)
		return NULL;
	for (i = (uint32_t)name_hash(ns, s) & (ns->cap - 1); ns->t[i].s; i = (i + 1) & (ns->cap - 1)) {
		if (!strcmp(ns->t[i].s, s))
			return &ns->t[i];
	}
	if (!add)
		return NULL;
	ns->t[i].s = s;
	ns->n++;
	return &ns->t[i];
}

/* ---- the items, the lanes ---------------------------------------------------------- */

/* Every item in time order.  Return: the array (*@n items), or NULL. */
static struct ex_item *items(const struct rtr_model *m, size_t *n)
{
	static const struct ex_types ty = {
		.begin = IT_BEGIN, .end = IT_END, .flow_out = IT_FLOW_OUT, .flow_in = IT_FLOW_IN,
		.sample = IT_SAMPLE, .note = IT_NOTE, .loss = IT_LOSS, .marker = IT_MARKER,
	};
	size_t cap = 2 * ((size_t)m->ntasks + m->narrows + m->nruns + m->npauses) + m->nsamples +
		     m->nnotes + m->nlosses + m->nmarkers + 1, k = 0;
	struct ex_item *it = malloc(cap * sizeof(*it));

	if (!it)
		return NULL;
	ex_items(m, it, &k, &ty);
	for (uint32_t i = 0; i < m->nruns; i++) {
		it[k++] = (struct ex_item){ m->runs[i].start, IT_RUN, i };
		if (m->runs[i].end > m->runs[i].start)
			it[k++] = (struct ex_item){ m->runs[i].end, IT_RUN_END, i };
	}
	for (uint32_t i = 0; i < m->npauses; i++) {
		it[k++] = (struct ex_item){ m->pauses[i].start, IT_PAUSE, i };
		if (m->pauses[i].end > m->pauses[i].start)
			it[k++] = (struct ex_item){ m->pauses[i].end, IT_PAUSE_END, i };
	}
	if (k > 1)
		qsort(it, k, sizeof(*it), ex_item_cmp);
	*n = k;
	return it;
}

struct lane_end {
	int64_t end;
	uint32_t lane;
};

static void heap_down(struct lane_end *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, s = i;

		if (l < n && h[l].end < h[s].end)
			s = l;
		if (l + 1 < n && h[l + 1].end < h[s].end)
			s = l + 1;
		if (s == i)
			return;
		struct lane_end t = h[i];

		h[i] = h[s];
		h[s] = t;
		i = s;
	}
}

static void heap_up(struct lane_end *h, size_t i)
{
	while (i && h[(i - 1) / 2].end > h[i].end) {
		struct lane_end t = h[i];

		h[i] = h[(i - 1) / 2];
		h[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

/*
 * Each task's lane: the tasks of a trace in order of creation, each in the
 * lane that ended longest ago if that was before it began (never at the
 * same time: a lane's slices neither overlap nor touch), else a new one.
 * @lane_trace gets each lane's trace.  Return: the number of lanes, or -1.
 */
static int64_t lanes(const struct rtr_model *m, const struct ex_item *it, size_t n, uint32_t *lane,
		     uint32_t **lane_trace)
{
	struct lane_end *heap = malloc(((size_t)m->ntasks + 1) * sizeof(*heap));
	size_t *nheap = calloc((size_t)m->ntraces + 1, sizeof(*nheap)), off = 0;
	uint32_t *lt = malloc(((size_t)m->ntasks + 1) * sizeof(*lt)), nl = 0;
	size_t *base = calloc((size_t)m->ntraces + 1, sizeof(*base));

	if (!heap || !nheap || !lt || !base) {
		free(heap);
		free(nheap);
		free(lt);
		free(base);
		return -1;
	}
	/* each trace's heap in its own part of @heap: a trace has at most its tasks' lanes */
	for (uint32_t i = 0; i < m->ntasks; i++)
		nheap[m->tasks[i].trace]++;
	for (uint32_t t = 0; t < m->ntraces; t++) {
		base[t] = off;
		off += nheap[t];
		nheap[t] = 0;
	}
	for (size_t i = 0; i < n; i++) {
		const struct rtr_model_task *t;
		struct lane_end *h;
		size_t *hn;

		if (it[i].type != IT_BEGIN)
			continue;
		t = &m->tasks[it[i].idx];
		h = heap + base[t->trace];
		hn = &nheap[t->trace];
		if (*hn && h[0].end < t->created) {
			lane[it[i].idx] = h[0].lane;
			h[0].end = t->end;
			heap_down(h, *hn, 0);
			continue;
		}
		lt[nl] = t->trace;
		lane[it[i].idx] = nl;
		h[*hn] = (struct lane_end){ t->end, nl++ };
		heap_up(h, (*hn)++);
	}
	free(heap);
	free(nheap);
	free(base);
	*lane_trace = lt;
	return nl;
}

/* ---- packets ----------------------------------------------------------------------- */

/* A TrackEvent packet being filled in. */
struct pk {
	Packet p;
	Event e;
	Perfetto__Protos__InternedData in;
	Perfetto__Protos__EventName en, *enp[1];
	Perfetto__Protos__EventCategory ec, *ecp[1];
	uint64_t cat;
	Perfetto__Protos__DebugAnnotationName an[MAX_ARGS], *anp[MAX_ARGS];
	Arg a[MAX_ARGS], *ap[MAX_ARGS];
	uint64_t flow;
	bool has_in;
};

static void pk_init(struct exp *e, struct pk *k, int64_t ts, uint64_t track, int type)
{
	int64_t t = ts + e->shift;

	memset(k, 0, sizeof(*k));
	perfetto__protos__trace_packet__init(&k->p);
	perfetto__protos__track_event__init(&k->e);
	perfetto__protos__interned_data__init(&k->in);
	k->p.has_timestamp = 1;
	k->p.timestamp = t > e->last_ts ? (uint64_t)(t - e->last_ts) : 0;
	if (t > e->last_ts)
		e->last_ts = t;
	k->p.optional_trusted_packet_sequence_id_case =
		PERFETTO__PROTOS__TRACE_PACKET__OPTIONAL_TRUSTED_PACKET_SEQUENCE_ID_TRUSTED_PACKET_SEQUENCE_ID;
	k->p.trusted_packet_sequence_id = SEQ_ID;
	k->p.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_EVENT;
	k->p.track_event = &k->e;
	k->e.has_type = 1;
	k->e.type = (Perfetto__Protos__TrackEvent__Type)type;
	k->e.has_track_uuid = 1;
	k->e.track_uuid = track;
	k->e.debug_annotations = k->ap;
}

/* The event's name: interned if it repeats (@internable: it may). */
static void pk_name(struct exp *e, struct pk *k, const char *s, bool internable)
{
	struct name *nm = internable ? name_find(&e->names, s, false) : NULL;

	if (!nm || nm->count < 2) {
		k->e.name_field_case = PERFETTO__PROTOS__TRACK_EVENT__NAME_FIELD_NAME;
		k->e.name = (char *)utf8(e, s, SLOT_NAME);
		return;
	}
	if (!nm->iid) {
		nm->iid = ++e->names.next_iid;
		perfetto__protos__event_name__init(&k->en);
		k->en.has_iid = 1;
		k->en.iid = nm->iid;
		k->en.name = (char *)utf8(e, s, SLOT_NAME);
		k->enp[0] = &k->en;
		k->in.n_event_names = 1;
		k->in.event_names = k->enp;
		k->has_in = true;
	}
	k->e.name_field_case = PERFETTO__PROTOS__TRACK_EVENT__NAME_FIELD_NAME_IID;
	k->e.name_iid = nm->iid;
}

/* Task @i of the model: its kind as the event's category, its index as its correlation id. */
static void pk_task(struct exp *e, struct pk *k, uint32_t i)
{
	const struct rtr_model_task *t = &e->m->tasks[i];
	const char *kind = rtr_model_str(e->m, t->kind_name);
	struct name *nm = name_find(&e->kinds, kind, true);

	k->e.correlation_id_field_case =
		PERFETTO__PROTOS__TRACK_EVENT__CORRELATION_ID_FIELD_CORRELATION_ID;
	k->e.correlation_id = (uint64_t)i + 1;
	if (!nm)
		return;		/* out of memory: no category */
	if (!nm->iid) {
		nm->iid = ++e->kinds.next_iid;
		perfetto__protos__event_category__init(&k->ec);
		k->ec.has_iid = 1;
		k->ec.iid = nm->iid;
		k->ec.name = (char *)utf8(e, kind, SLOT_KIND);
		k->ecp[0] = &k->ec;
		k->in.n_event_categories = 1;
		k->in.event_categories = k->ecp;
		k->has_in = true;
	}
	k->cat = nm->iid;
	k->e.n_category_iids = 1;
	k->e.category_iids = &k->cat;
}

static Arg *pk_arg(struct exp *e, struct pk *k, enum arg_name name)
{
	Arg *a = &k->a[k->e.n_debug_annotations];

	perfetto__protos__debug_annotation__init(a);
	a->name_field_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__NAME_FIELD_NAME_IID;
	a->name_iid = (uint64_t)name + 1;
	k->ap[k->e.n_debug_annotations++] = a;
	if (!e->arg_said[name]) {
		Perfetto__Protos__DebugAnnotationName *an = &k->an[k->in.n_debug_annotation_names];

		e->arg_said[name] = true;
		perfetto__protos__debug_annotation_name__init(an);
		an->has_iid = 1;
		an->iid = (uint64_t)name + 1;
		an->name = (char *)arg_names[name];
		k->anp[k->in.n_debug_annotation_names++] = an;
		k->in.debug_annotation_names = k->anp;
		k->has_in = true;
	}
	return a;
}

static void pk_u64(struct exp *e, struct pk *k, enum arg_name name, uint64_t v)
{
	Arg *a = pk_arg(e, k, name);

	a->value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_UINT_VALUE;
	a->uint_value = v;
}

static void pk_str(struct exp *e, struct pk *k, enum arg_name name, const char *s)
{
	Arg *a = pk_arg(e, k, name);

	a->value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_STRING_VALUE;
	a->string_value = (char *)utf8(e, s, (int)k->e.n_debug_annotations - 1);
}

static void pk_put(struct exp *e, struct pk *k)
{
	if (k->has_in)
		k->p.interned_data = &k->in;
	if (k->flow) {
		/* bit 63: the flow ends here (its target) */
		if (k->flow >> 63) {
			k->flow &= ~(1ull << 63);
			k->e.n_terminating_flow_ids = 1;
			k->e.terminating_flow_ids = &k->flow;
		} else {
			k->e.n_flow_ids = 1;
			k->e.flow_ids = &k->flow;
		}
	}
	put(e, &k->p);
}

/* ---- what each item is ------------------------------------------------------------- */

/* The name of the event an item writes (NULL: none), in @b if made. */
static const char *item_name(const struct rtr_model *m, const struct ex_item *it, char *b,
			     size_t len, bool *internable)
{
	*internable = true;
	switch (it->type) {
	case IT_BEGIN:
	case IT_RUN: {
		const struct rtr_model_task *t =
			&m->tasks[it->type == IT_BEGIN ? it->idx : m->runs[it->idx].task];

		/* a label may repeat; "KIND ID" does not */
		*internable = t->name != 0;
		return ex_task_name(m, t, b, len);
	}
	case IT_FLOW_OUT:
	case IT_FLOW_IN:
		return ex_arrow_name(&m->arrows[it->idx]);
	case IT_PAUSE:
		return rtr_model_str(m, m->pauses[it->idx].reason);
	case IT_NOTE:
		return rtr_model_str(m, m->notes[it->idx].text);
	case IT_MARKER:
		return rtr_model_str(m, m->classes[m->markers[it->idx].cls].name);
	case IT_LOSS: {
		const struct rtr_model_loss *l = &m->losses[it->idx];

		*internable = false;	/* made in @b, which does not last */
		snprintf(b, len, "lost %" PRIu64 " %s", l->count,
			 l->kind == RTR_LOSS_EVENTS ? "events" : "packets");
		return b;
	}
	default:
		return NULL;
	}
}

static uint64_t cpu_track(const struct exp *e, uint32_t cpu)
{
	(void)e;
	return 1 + (uint64_t)cpu;
}

/* An instant's track: the ring thread that wrote it, else its CPU. */
static uint64_t writer_track(const struct exp *e, uint32_t cpu, uint32_t thread)
{
	return thread == RTR_MODEL_NONE ? cpu_track(e, cpu) : e->thread0 + thread;
}

static void emit_begin(struct exp *e, struct pk *k, const struct rtr_model_task *t)
{
	const struct rtr_model *m = e->m;

	pk_u64(e, k, A_TASK, t->id);
	if (t->parent_id)
		pk_u64(e, k, A_PARENT, t->parent_id);
	if (t->becomes != RTR_MODEL_NONE)
		pk_u64(e, k, A_BECOMES, m->tasks[t->becomes].id);
	if (!(t->flags & RTR_TASK_RESOLVED) || (t->flags & RTR_TASK_FAILED))
		pk_str(e, k, A_STATE, t->flags & RTR_TASK_FAILED ? "failed" :
			      t->flags & RTR_TASK_NEVER_RESOLVED ? "should_resolve never resolved" :
			      "unresolved");
	if (t->flags & RTR_TASK_FAILED)
		pk_str(e, k, A_REASON, rtr_model_str(m, t->reason));
	if (t->nlabels > 1) {
		/* every label, one per line */
		size_t need = 1;
		char *b;

		for (uint32_t i = 0; i < t->nlabels; i++)
			need += m->labels[t->label_first + i].len + 1;
		b = realloc(e->scratch[SLOT_LABELS], need);
		if (!b)
			return;
		e->scratch[SLOT_LABELS] = b;
		e->scratch_len[SLOT_LABELS] = need;
		for (uint32_t i = 0; i < t->nlabels; i++) {
			const struct rtr_model_label *l = &m->labels[t->label_first + i];

			memcpy(b, rtr_model_str(m, l->text), l->len);
			b += l->len;
			*b++ = '\n';
		}
		b[-1] = 0;
		pk_str(e, k, A_LABELS, e->scratch[SLOT_LABELS]);
	}
}

static void emit(struct exp *e, const struct ex_item *it)
{
	const struct rtr_model *m = e->m;
	const char *name;
	struct pk k;
	char b[320];
	bool internable;
	int ty = TY_INSTANT;
	uint64_t track;

	name = item_name(m, it, b, sizeof(b), &internable);
	switch (it->type) {
	case IT_BEGIN:
		pk_init(e, &k, it->ts, e->lane0 + e->lane[it->idx], TY_BEGIN);
		pk_name(e, &k, name, internable);
		pk_task(e, &k, it->idx);
		emit_begin(e, &k, &m->tasks[it->idx]);
		break;
	case IT_END:
		pk_init(e, &k, it->ts, e->lane0 + e->lane[it->idx], TY_END);
		break;
	case IT_FLOW_OUT:
	case IT_FLOW_IN: {
		const struct rtr_model_arrow *a = &m->arrows[it->idx];
		uint32_t task = it->type == IT_FLOW_OUT ? a->from : a->to;

		pk_init(e, &k, it->ts, e->lane0 + e->lane[task], ty);
		pk_name(e, &k, name, true);
		k.flow = ((uint64_t)it->idx + 1) | (it->type == IT_FLOW_IN ? 1ull << 63 : 0);
		break;
	}
	case IT_RUN: {
		const struct rtr_model_run *r = &m->runs[it->idx];

		if (r->end > r->start)
			ty = TY_BEGIN;
		pk_init(e, &k, it->ts, cpu_track(e, r->cpu), ty);
		pk_name(e, &k, name, internable);
		pk_task(e, &k, r->task);
		if (ex_run_ended(r))
			pk_str(e, &k, A_ENDED, ex_run_ended(r));
		break;
	}
	case IT_RUN_END:
		pk_init(e, &k, it->ts, cpu_track(e, m->runs[it->idx].cpu),
			TY_END);
		break;
	case IT_PAUSE: {
		const struct rtr_model_pause *p = &m->pauses[it->idx];

		if (p->end > p->start)
			ty = TY_BEGIN;
		pk_init(e, &k, it->ts, e->pause0 + p->cpu, ty);
		pk_name(e, &k, name, true);
		break;
	}
	case IT_PAUSE_END:
		pk_init(e, &k, it->ts, e->pause0 + m->pauses[it->idx].cpu,
			TY_END);
		break;
	case IT_SAMPLE:
		pk_init(e, &k, it->ts, e->counter0 + e->sample_counter[it->idx],
			TY_COUNTER);
		k.e.counter_value_field_case = PERFETTO__PROTOS__TRACK_EVENT__COUNTER_VALUE_FIELD_COUNTER_VALUE;
		k.e.counter_value = m->samples[it->idx].value;
		break;
	case IT_NOTE: {
		const struct rtr_model_note *n = &m->notes[it->idx];

		pk_init(e, &k, it->ts, writer_track(e, n->cpu, n->thread), ty);
		pk_name(e, &k, name, true);
		break;
	}
	case IT_MARKER: {
		const struct rtr_model_marker *mk = &m->markers[it->idx];

		pk_init(e, &k, it->ts, writer_track(e, mk->cpu, mk->thread), ty);
		pk_name(e, &k, name, true);
		if (*rtr_model_str(m, mk->fields))
			pk_str(e, &k, A_FIELDS, rtr_model_str(m, mk->fields));
		break;
	}
	case IT_LOSS:
		track = cpu_track(e, m->losses[it->idx].cpu);
		pk_init(e, &k, it->ts, track, ty);
		pk_name(e, &k, name, false);
		pk_u64(e, &k, A_COUNT, m->losses[it->idx].count);
		break;
	default:
		return;
	}
	pk_put(e, &k);
}

/* ---- descriptors ------------------------------------------------------------------- */

static void put_track(struct exp *e, Track *t)
{
	Packet p = PERFETTO__PROTOS__TRACE_PACKET__INIT;

	p.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_DESCRIPTOR;
	p.track_descriptor = t;
	put(e, &p);
}

static void descriptors(struct exp *e, uint32_t nlanes, const uint32_t *lane_trace)
{
	const struct rtr_model *m = e->m;
	bool *paused = calloc((size_t)m->ncpus + 1, 1);
	char buf[1100];

	for (uint32_t i = 0; i < m->ntraces; i++) {
		Track td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
		Perfetto__Protos__ProcessDescriptor pd = PERFETTO__PROTOS__PROCESS_DESCRIPTOR__INIT;

		td.has_uuid = 1;
		td.uuid = e->proc0 + i;
		pd.has_pid = 1;
		pd.pid = (int32_t)i + 1;
		pd.process_name = (char *)utf8(e, ex_process_name(m, i, buf, sizeof(buf)), 0);
		td.process = &pd;
		put_track(e, &td);
	}
	for (uint32_t i = 0; i < m->ncpus; i++) {
		const struct rtr_model_cpu *c = &m->cpus[i];
		Track td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
		Perfetto__Protos__ThreadDescriptor th = PERFETTO__PROTOS__THREAD_DESCRIPTOR__INIT;

		if (c->cpu == RTR_MODEL_NONE)
			snprintf(buf, sizeof(buf), "%.1000s", rtr_model_str(m, c->stream));
		else
			snprintf(buf, sizeof(buf), "cpu %u", c->cpu);
		td.has_uuid = 1;
		td.uuid = cpu_track(e, i);
		th.has_pid = th.has_tid = 1;
		th.pid = (int32_t)c->trace + 1;
		th.tid = (int32_t)(TID_CPUS + i);
		th.thread_name = (char *)utf8(e, buf, 0);
		td.thread = &th;
		put_track(e, &td);
	}
	for (uint32_t i = 0; i < nlanes; i++) {
		Track td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;

		td.has_uuid = td.has_parent_uuid = 1;
		td.uuid = e->lane0 + i;
		td.parent_uuid = e->proc0 + lane_trace[i];
		td.name = (char *)"tasks";
		put_track(e, &td);
	}
	for (uint32_t i = 0; paused && i < m->npauses; i++)
		paused[m->pauses[i].cpu] = true;
	for (uint32_t i = 0; paused && i < m->ncpus; i++) {
		Track td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;

		if (!paused[i])
			continue;
		if (m->cpus[i].cpu == RTR_MODEL_NONE)
			snprintf(buf, sizeof(buf), "pauses: %.1000s", rtr_model_str(m, m->cpus[i].stream));
		else
			snprintf(buf, sizeof(buf), "pauses: cpu %u", m->cpus[i].cpu);
		td.has_uuid = td.has_parent_uuid = 1;
		td.uuid = e->pause0 + i;
		td.parent_uuid = e->proc0 + m->cpus[i].trace;
		td.name = (char *)utf8(e, buf, 0);
		put_track(e, &td);
	}
	free(paused);
	for (uint32_t i = 0; i < m->nthreads; i++) {
		Track td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
		Perfetto__Protos__ThreadDescriptor th = PERFETTO__PROTOS__THREAD_DESCRIPTOR__INIT;

		td.has_uuid = 1;
		td.uuid = e->thread0 + i;
		th.has_pid = th.has_tid = 1;
		th.pid = (int32_t)m->threads[i].trace + 1;
		th.tid = (int32_t)(TID_THREADS + i);
		th.thread_name = (char *)utf8(e, ex_thread_name(m, i, buf, sizeof(buf)), 0);
		td.thread = &th;
		put_track(e, &td);
	}
	for (uint32_t i = 0; i < m->ncounters; i++) {
		Track td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
		Perfetto__Protos__CounterDescriptor cd = PERFETTO__PROTOS__COUNTER_DESCRIPTOR__INIT;

		td.has_uuid = td.has_parent_uuid = 1;
		td.uuid = e->counter0 + i;
		td.parent_uuid = e->proc0 + m->counters[i].trace;
		td.name = (char *)utf8(e, rtr_model_str(m, m->counters[i].name), 0);
		td.counter = &cd;
		put_track(e, &td);
	}
}

/*
 * The sequence's first packet: its state cleared, its clock 64 (deltas)
 * equal to BOOTTIME at time 0 and to REALTIME at the origin, the default
 * clock of its packets.
 */
static void clocks(struct exp *e)
{
	Packet p = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	Perfetto__Protos__ClockSnapshot cs = PERFETTO__PROTOS__CLOCK_SNAPSHOT__INIT;
	Perfetto__Protos__ClockSnapshot__Clock c[3], *cp[3];
	Perfetto__Protos__TracePacketDefaults d = PERFETTO__PROTOS__TRACE_PACKET_DEFAULTS__INIT;
	static const uint32_t ids[3] = { CLOCK_DELTA, CLOCK_BOOTTIME, CLOCK_REALTIME };

	for (int i = 0; i < 3; i++) {
		perfetto__protos__clock_snapshot__clock__init(&c[i]);
		c[i].has_clock_id = c[i].has_timestamp = 1;
		c[i].clock_id = ids[i];
		cp[i] = &c[i];
	}
	c[0].has_is_incremental = 1;
	c[0].is_incremental = 1;
	/* REALTIME: the origin, which is after the epoch for any real trace */
	c[2].timestamp = e->m->origin_ns > e->shift ? (uint64_t)(e->m->origin_ns - e->shift) : 0;
	cs.n_clocks = 3;
	cs.clocks = cp;
	d.has_timestamp_clock_id = 1;
	d.timestamp_clock_id = CLOCK_DELTA;
	p.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_CLOCK_SNAPSHOT;
	p.clock_snapshot = &cs;
	p.optional_trusted_packet_sequence_id_case =
		PERFETTO__PROTOS__TRACE_PACKET__OPTIONAL_TRUSTED_PACKET_SEQUENCE_ID_TRUSTED_PACKET_SEQUENCE_ID;
	p.trusted_packet_sequence_id = SEQ_ID;
	p.has_sequence_flags = 1;
	p.sequence_flags = SEQ_CLEARED;
	p.trace_packet_defaults = &d;
	put(e, &p);
}

int rtr_export_perfetto(const struct rtr_model *m, FILE *f, bool gzip)
{
	struct exp e = { .m = m };
	struct ex_item *it = NULL;
	uint32_t *lane_trace = NULL;
	int64_t nlanes = 0;
	size_t n = 0;
	int ret = -ENOMEM;

	if (getrandom(&e.names.seed, sizeof(e.names.seed), 0) != sizeof(e.names.seed))
		e.names.seed = (uint64_t)(uintptr_t)&e ^ 0xcbf29ce484222325ull;
	e.kinds.seed = e.names.seed;
	e.lane = malloc(((size_t)m->ntasks + 1) * sizeof(*e.lane));
	e.sample_counter = malloc(((size_t)m->nsamples + 1) * sizeof(*e.sample_counter));
	if (!e.lane || !e.sample_counter || !(it = items(m, &n)) ||
	    (nlanes = lanes(m, it, n, e.lane, &lane_trace)) < 0)
		goto out;
	for (uint32_t c = 0; c < m->ncounters; c++) {
		for (uint32_t s = 0; s < m->counters[c].nsamples; s++)
			e.sample_counter[m->counters[c].sample_first + s] = c;
	}
	/* the names that repeat: counted before any is written */
	for (size_t i = 0; i < n; i++) {
		char b[320];
		bool internable;
		const char *s = item_name(m, &it[i], b, sizeof(b), &internable);
		struct name *nm;

		if (!s || !internable)
			continue;
		if (!(nm = name_find(&e.names, s, true)))
			goto out;
		nm->count++;
	}
	e.lane0 = 1 + (uint64_t)m->ncpus;
	e.proc0 = e.lane0 + (uint64_t)nlanes;
	e.pause0 = e.proc0 + m->ntraces;
	e.thread0 = e.pause0 + m->ncpus;
	e.counter0 = e.thread0 + m->nthreads;
	e.shift = n && it[0].ts < 0 ? -it[0].ts : 0;
	if ((ret = sink_open(&e.s, f, gzip)))
		goto out_sink;
	descriptors(&e, (uint32_t)nlanes, lane_trace);
	clocks(&e);
	for (size_t i = 0; i < n; i++)
		emit(&e, &it[i]);
out_sink:
	if (!ret) {
		ret = sink_close(&e.s);
	} else {
		free(e.s.buf);
		free(e.s.zbuf);
	}
out:
	for (int i = 0; i < NSLOTS; i++)
		free(e.scratch[i]);
	free(e.names.t);
	free(e.kinds.t);
	free(lane_trace);
	free(e.lane);
	free(e.sample_counter);
	free(it);
	return ret;
}
