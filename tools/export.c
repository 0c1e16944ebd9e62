// SPDX-License-Identifier: MIT
/*
 * tools/export.c - `ringtrace export --format chrome TRACE... [-o FILE]`
 * (--format sqlite: export_sqlite.c; --format perfetto: export_perfetto.c):
 * the task model (model.h) as Trace Event Format JSON, which Perfetto UI
 * and chrome://tracing open:
 *
 * - a process per trace ("M" process_name), a thread per CPU ("M"
 *   thread_name) on which the runs are complete events ("X"), the notes and
 *   losses instant events ("i"), and a thread for the pauses ("X");
 * - an async track per task ("b" at its creation, "e" at its end; cat
 *   "task", id the task's index in the model);
 * - an arrow per read, try_read (unless hidden), resolve, fail and signal:
 *   an async instant ("n") on each task's track, bound by flow v2 fields
 *   ("bind_id", "flow_out" on the source, "flow_in" on the target);
 * - counters ("C").
 *
 * Events are written in time order (ties: begins, flow sources, flow
 * targets, the rest, ends), so every track's timestamps are monotonic and
 * each flow's source comes before its target.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "reader/model.h"
#include "tools/cli.h"
#include "tools/commands.h"
#include "tools/export_items.h"
#include "reader/profile.h"
#include "tools/export_perfetto.h"
#include "tools/export_sqlite.h"
#include "tools/json.h"

/* What an output item is; the order breaks ties in time. */
enum item_type {
	IT_BEGIN = 0,		/* task: "b" */
	IT_FLOW_OUT,		/* arrow: "n" on the source task */
	IT_FLOW_IN,		/* arrow: "n" on the target task */
	IT_RUN,			/* run: "X" on a CPU thread */
	IT_PAUSE,		/* pause: "X" on the pauses thread */
	IT_SAMPLE,		/* counter sample: "C" */
	IT_NOTE,		/* note: "i" */
	IT_MARKER,		/* an event the task model does not read: "i" */
	IT_LOSS,		/* loss: "i" */
	IT_END,			/* task: "e" */
};

/* The thread ids: a CPU's is its number + 1; the pauses' is this; a thread's this + its index. */
#define TID_PAUSES	1000000u
#define TID_THREADS	2000000u

struct exp {
	const struct rtr_model *m;
	struct jw w;
	uint32_t *sample_counter;	/* counter of each sample */
	bool first;
};

static void sep(struct exp *e)
{
	jw_lit(&e->w, e->first ? "\n" : ",\n");
	e->first = false;
}

static uint32_t pid_of(uint32_t trace)
{
	return trace + 1;
}

static uint32_t tid_of(const struct rtr_model *m, uint32_t cpu)
{
	uint32_t c = m->cpus[cpu].cpu;

	/* a stream with no valid packet: a thread of its own past the real CPUs */
	return c == RTR_MODEL_NONE ? TID_PAUSES + 1 + cpu : c + 1;
}

/* The name of a task's track: its first label, else its kind and id. */
static void task_name(struct exp *e, const struct rtr_model_task *t)
{
	char b[320];

	jw_cstr(&e->w, ex_task_name(e->m, t, b, sizeof(b)));
}

/* ,"cat":"task","id":"N","pid":P,"ts":T */
static void task_track(struct exp *e, uint32_t task, int64_t ts)
{
	const struct rtr_model_task *t = &e->m->tasks[task];

	jw_lit(&e->w, ",\"cat\":\"task\",\"id\":\"");
	jw_u64(&e->w, task);
	jw_lit(&e->w, "\",\"pid\":");
	jw_u64(&e->w, pid_of(t->trace));
	jw_lit(&e->w, ",\"tid\":");
	jw_u64(&e->w, pid_of(t->trace));
	jw_lit(&e->w, ",\"ts\":");
	jw_us(&e->w, ts);
}

static void emit_task(struct exp *e, uint32_t i, bool begin)
{
	const struct rtr_model *m = e->m;
	const struct rtr_model_task *t = &m->tasks[i];

	sep(e);
	jw_lit(&e->w, begin ? "{\"ph\":\"b\",\"name\":" : "{\"ph\":\"e\",\"name\":");
	task_name(e, t);
	task_track(e, i, begin ? t->created : t->end);
	if (!begin) {
		jw_lit(&e->w, "}");
		return;
	}
	jw_lit(&e->w, ",\"args\":{\"task\":");
	jw_u64(&e->w, t->id);
	jw_lit(&e->w, ",\"kind\":");
	jw_cstr(&e->w, rtr_model_str(m, t->kind_name));
	if (t->parent_id) {
		jw_lit(&e->w, ",\"parent\":");
		jw_u64(&e->w, t->parent_id);
	}
	if (t->becomes != RTR_MODEL_NONE) {
		jw_lit(&e->w, ",\"becomes\":");
		jw_u64(&e->w, m->tasks[t->becomes].id);
	}
	jw_lit(&e->w, ",\"state\":\"");
	jw_lit(&e->w, t->flags & RTR_TASK_FAILED ? "failed" :
		      t->flags & RTR_TASK_RESOLVED ? "resolved" :
		      t->flags & RTR_TASK_NEVER_RESOLVED ? "should_resolve never resolved" :
		      "unresolved");
	jw_lit(&e->w, "\"");
	if (t->flags & RTR_TASK_FAILED) {
		jw_lit(&e->w, ",\"reason\":");
		jw_cstr(&e->w, rtr_model_str(m, t->reason));
	}
	if (t->nlabels) {
		jw_lit(&e->w, ",\"labels\":[");
		for (uint32_t k = 0; k < t->nlabels; k++) {
			const struct rtr_model_label *l = &m->labels[t->label_first + k];

			if (k)
				jw_lit(&e->w, ",");
			jw_str(&e->w, rtr_model_str(m, l->text), l->len);
		}
		jw_lit(&e->w, "]");
	}
	jw_lit(&e->w, "}}");
}

static void emit_flow(struct exp *e, uint32_t i, bool out)
{
	const struct rtr_model *m = e->m;
	const struct rtr_model_arrow *a = &m->arrows[i];
	const char *name = ex_arrow_name(a);

	sep(e);
	jw_lit(&e->w, "{\"ph\":\"n\",\"name\":\"");
	jw_lit(&e->w, name);
	jw_lit(&e->w, "\"");
	task_track(e, out ? a->from : a->to, out ? a->t_from : a->ts);
	jw_lit(&e->w, ",\"bind_id\":");
	jw_u64(&e->w, (uint64_t)i + 1);
	jw_lit(&e->w, out ? ",\"flow_out\":true" : ",\"flow_in\":true");
	jw_lit(&e->w, ",\"args\":{\"from\":");
	jw_u64(&e->w, m->tasks[a->from].id);
	jw_lit(&e->w, ",\"to\":");
	jw_u64(&e->w, m->tasks[a->to].id);
	jw_lit(&e->w, "}}");
}

/*
 * ,"ts":S,"dur":D of a slice from @start to @end (ns).  A viewer adds ts and
 * dur as doubles, and the sum can round up past the next slice's ts:
 * back-to-back slices on a track then overlap (speedscope draws them as a
 * staircase).  The dur printed is the exact one, or 1 ns less where the sum
 * would round past @end, so that each slice ends, as read, no later than the
 * next one on its track begins.  "N.NNN" is read as the double nearest
 * N.NNN, which is (double)ns / 1000 for any ns below 2^53.
 */
static void slice_times(struct exp *e, int64_t start, int64_t end)
{
	int64_t dur = end - start;

	while (dur > 0 && (double)start / 1000 + (double)dur / 1000 > (double)end / 1000)
		dur--;
	jw_lit(&e->w, ",\"ts\":");
	jw_us(&e->w, start);
	jw_lit(&e->w, ",\"dur\":");
	jw_us(&e->w, dur);
}

static void emit_run(struct exp *e, uint32_t i)
{
	const struct rtr_model *m = e->m;
	const struct rtr_model_run *r = &m->runs[i];
	const struct rtr_model_task *t = &m->tasks[r->task];

	sep(e);
	jw_lit(&e->w, "{\"ph\":\"X\",\"cat\":\"run\",\"name\":");
	task_name(e, t);
	jw_lit(&e->w, ",\"pid\":");
	jw_u64(&e->w, pid_of(m->cpus[r->cpu].trace));
	jw_lit(&e->w, ",\"tid\":");
	jw_u64(&e->w, tid_of(m, r->cpu));
	slice_times(e, r->start, r->end);
	jw_lit(&e->w, ",\"args\":{\"task\":");
	jw_u64(&e->w, t->id);
	if (ex_run_ended(r)) {
		jw_lit(&e->w, ",\"ended\":\"");
		jw_lit(&e->w, ex_run_ended(r));
		jw_lit(&e->w, "\"");
	}
	jw_lit(&e->w, "}}");
}

static void emit_pause(struct exp *e, uint32_t i)
{
	const struct rtr_model *m = e->m;
	const struct rtr_model_pause *p = &m->pauses[i];

	sep(e);
	jw_lit(&e->w, "{\"ph\":\"X\",\"cat\":\"pause\",\"name\":");
	jw_str(&e->w, rtr_model_str(m, p->reason), p->len);
	jw_lit(&e->w, ",\"pid\":");
	jw_u64(&e->w, pid_of(m->cpus[p->cpu].trace));
	jw_lit(&e->w, ",\"tid\":");
	jw_u64(&e->w, TID_PAUSES);
	slice_times(e, p->start, p->end);
	jw_lit(&e->w, "}");
}

static void emit_sample(struct exp *e, uint32_t i)
{
	const struct rtr_model *m = e->m;
	const struct rtr_model_counter *c = &m->counters[e->sample_counter[i]];

	sep(e);
	jw_lit(&e->w, "{\"ph\":\"C\",\"name\":");
	jw_cstr(&e->w, rtr_model_str(m, c->name));
	jw_lit(&e->w, ",\"pid\":");
	jw_u64(&e->w, pid_of(c->trace));
	jw_lit(&e->w, ",\"ts\":");
	jw_us(&e->w, m->samples[i].ts);
	jw_lit(&e->w, ",\"args\":{\"value\":");
	jw_i64(&e->w, m->samples[i].value);
	jw_lit(&e->w, "}}");
}

/* ,"pid":P,"tid":T,"ts":X,"s":"t" */
static void cpu_instant(struct exp *e, uint32_t cpu, int64_t ts)
{
	jw_lit(&e->w, ",\"cat\":\"trace\",\"pid\":");
	jw_u64(&e->w, pid_of(e->m->cpus[cpu].trace));
	jw_lit(&e->w, ",\"tid\":");
	jw_u64(&e->w, tid_of(e->m, cpu));
	jw_lit(&e->w, ",\"ts\":");
	jw_us(&e->w, ts);
	jw_lit(&e->w, ",\"s\":\"t\"");
}

/* An instant on the track of the thread that wrote it, else on its CPU's. */
static void instant(struct exp *e, uint32_t cpu, uint32_t thread, int64_t ts)
{
	if (thread == RTR_MODEL_NONE) {
		cpu_instant(e, cpu, ts);
		return;
	}
	jw_lit(&e->w, ",\"cat\":\"trace\",\"pid\":");
	jw_u64(&e->w, pid_of(e->m->cpus[cpu].trace));
	jw_lit(&e->w, ",\"tid\":");
	jw_u64(&e->w, TID_THREADS + thread);
	jw_lit(&e->w, ",\"ts\":");
	jw_us(&e->w, ts);
	jw_lit(&e->w, ",\"s\":\"t\"");
}

static void emit_note(struct exp *e, uint32_t i)
{
	const struct rtr_model_note *n = &e->m->notes[i];

	sep(e);
	jw_lit(&e->w, "{\"ph\":\"i\",\"name\":");
	jw_str(&e->w, rtr_model_str(e->m, n->text), n->len);
	instant(e, n->cpu, n->thread, n->ts);
	jw_lit(&e->w, "}");
}

/* @n bytes at @s are a JSON number a viewer reads exactly (integers up to 15 digits). */
static bool json_number(const char *s, size_t n)
{
	size_t i = s[0] == '-', digits = 0;

	if (i == n || (s[i] == '0' && i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '9'))
		return false;
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
		digits++;
	if (!digits)
		return false;
	if (i < n && s[i] == '.') {
		if (++i == n || s[i] < '0' || s[i] > '9')
			return false;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
	} else if (i == n) {
		return digits <= 15;	/* beyond 2^53 a double rounds it: text */
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		if (++i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		if (i == n || s[i] < '0' || s[i] > '9')
			return false;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
	}
	return i == n;
}

/* The quoted string @s .. @end (quotes included) as dump escapes it, as a JSON string. */
static void field_string(struct exp *e, const char *s, const char *end)
{
	char b[RTR_MODEL_FIELDS_MAX];
	size_t n = 0;

	for (s++, end--; s < end && n < sizeof(b); s++) {
		if (*s != '\\' || s + 1 == end) {
			b[n++] = *s;
			continue;
		}
		switch (*++s) {
		case 'n': b[n++] = '\n'; break;
		case 't': b[n++] = '\t'; break;
		case 'x':
			if (end - s > 2 && sscanf(s + 1, "%2hhx", (unsigned char *)&b[n]) == 1) {
				n++;
				s += 2;
				break;
			}
			/* fall through */
		default: b[n++] = *s; break;
		}
	}
	jw_str(&e->w, b, n);
}

/*
 * Each top-level "name = value" of a marker's fields (as dump prints them),
 * an arg of its own: a number as a number, a string as the string, the rest
 * (enums, structs, arrays, big integers) as their text.  The names "cpu"
 * and "fields" are the instant's own.  A field the text was cut in
 * (RTR_MODEL_FIELDS_MAX bytes, then "...") is left out.
 */
static void field_args(struct exp *e, const char *s)
{
	size_t len = strlen(s);
	bool cut = len >= RTR_MODEL_FIELDS_MAX - 3 && !strcmp(s + len - 3, "...");

	while (*s) {
		const char *eq = strstr(s, " = "), *v, *end;
		bool quoted = false;
		int depth = 0;

		if (!eq)
			return;
		v = eq + 3;
		for (end = v; *end; end++) {
			if (quoted) {
				if (*end == '\\' && end[1])
					end++;
				else if (*end == '"')
					quoted = false;
			} else if (*end == '"') {
				quoted = true;
			} else if (*end == '{' || *end == '[') {
				depth++;
			} else if ((*end == '}' || *end == ']') && depth) {
				depth--;
			} else if (!depth && *end == ',' && end[1] == ' ') {
				break;
			}
		}
		if (!*end && (cut || quoted || depth))
			return;
		if ((eq - s != 3 || memcmp(s, "cpu", 3)) && (eq - s != 6 || memcmp(s, "fields", 6))) {
			jw_lit(&e->w, ",");
			jw_str(&e->w, s, (size_t)(eq - s));
			jw_lit(&e->w, ":");
			if (json_number(v, (size_t)(end - v)))
				jw_raw(&e->w, v, (size_t)(end - v));
			else if (*v == '"' && end - v >= 2 && end[-1] == '"')
				field_string(e, v, end);
			else
				jw_str(&e->w, v, (size_t)(end - v));
		}
		s = *end ? end + 2 : end;
	}
}

/* A typed event, an LTTng event: an instant on its thread's track (else its CPU's), its fields. */
static void emit_marker(struct exp *e, uint32_t i)
{
	const struct rtr_model *m = e->m;
	const struct rtr_model_marker *k = &m->markers[i];

	sep(e);
	jw_lit(&e->w, "{\"ph\":\"i\",\"name\":");
	jw_cstr(&e->w, rtr_model_str(m, m->classes[k->cls].name));
	instant(e, k->cpu, k->thread, k->ts);
	jw_lit(&e->w, ",\"args\":{\"cpu\":");
	if (m->cpus[k->cpu].cpu == RTR_MODEL_NONE)
		jw_lit(&e->w, "null");
	else
		jw_u64(&e->w, m->cpus[k->cpu].cpu);
	jw_lit(&e->w, ",\"fields\":");
	jw_cstr(&e->w, rtr_model_str(m, k->fields));
	field_args(e, rtr_model_str(m, k->fields));
	jw_lit(&e->w, "}}");
}

static void emit_loss(struct exp *e, uint32_t i)
{
	const struct rtr_model_loss *l = &e->m->losses[i];

	sep(e);
	jw_lit(&e->w, "{\"ph\":\"i\",\"name\":\"lost ");
	jw_u64(&e->w, l->count);
	jw_lit(&e->w, l->kind == RTR_LOSS_EVENTS ? " events\"" : " packets\"");
	cpu_instant(e, l->cpu, l->ts);
	jw_lit(&e->w, ",\"args\":{\"count\":");
	jw_u64(&e->w, l->count);
	jw_lit(&e->w, "}}");
}

static void emit_metadata(struct exp *e)
{
	const struct rtr_model *m = e->m;
	char b[96], buf[1024];

	for (uint32_t i = 0; i < m->ntraces; i++) {
		sep(e);
		jw_lit(&e->w, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":");
		jw_u64(&e->w, pid_of(i));
		jw_lit(&e->w, ",\"args\":{\"name\":");
		/* "HOST pid N: DIR", escaped as a whole (cut at 1 KiB) */
		jw_cstr(&e->w, ex_process_name(m, i, buf, sizeof(buf)));
		jw_lit(&e->w, "}}");
		sep(e);
		jw_lit(&e->w, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":");
		jw_u64(&e->w, pid_of(i));
		jw_lit(&e->w, ",\"tid\":");
		jw_u64(&e->w, TID_PAUSES);
		jw_lit(&e->w, ",\"args\":{\"name\":\"pauses\"}}");
	}
	for (uint32_t i = 0; i < m->ncpus; i++) {
		const struct rtr_model_cpu *c = &m->cpus[i];

		sep(e);
		jw_lit(&e->w, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":");
		jw_u64(&e->w, pid_of(c->trace));
		jw_lit(&e->w, ",\"tid\":");
		jw_u64(&e->w, tid_of(m, i));
		if (c->cpu == RTR_MODEL_NONE) {
			jw_lit(&e->w, ",\"args\":{\"name\":");
			jw_cstr(&e->w, rtr_model_str(m, c->stream));
		} else {
			snprintf(b, sizeof(b), ",\"args\":{\"name\":\"cpu %u\"", c->cpu);
			jw_lit(&e->w, b);
		}
		jw_lit(&e->w, "}}");
		sep(e);
		jw_lit(&e->w, "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":");
		jw_u64(&e->w, pid_of(c->trace));
		jw_lit(&e->w, ",\"tid\":");
		jw_u64(&e->w, tid_of(m, i));
		jw_lit(&e->w, ",\"args\":{\"sort_index\":");
		jw_u64(&e->w, tid_of(m, i));
		jw_lit(&e->w, "}}");
	}
	for (uint32_t i = 0; i < m->nthreads; i++) {
		sep(e);
		jw_lit(&e->w, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":");
		jw_u64(&e->w, pid_of(m->threads[i].trace));
		jw_lit(&e->w, ",\"tid\":");
		jw_u64(&e->w, TID_THREADS + i);
		/* "NAME TID" (its procname and thread id), escaped as a whole (cut at 1 KiB) */
		jw_lit(&e->w, ",\"args\":{\"name\":");
		jw_cstr(&e->w, ex_thread_name(m, i, buf, sizeof(buf)));
		jw_lit(&e->w, "}}");
	}
}

/* Every item in time order.  Return: the array (*@n items), or NULL. */
static struct ex_item *items(const struct rtr_model *m, size_t *n)
{
	static const struct ex_types ty = {
		.begin = IT_BEGIN, .end = IT_END, .flow_out = IT_FLOW_OUT, .flow_in = IT_FLOW_IN,
		.sample = IT_SAMPLE, .note = IT_NOTE, .loss = IT_LOSS, .marker = IT_MARKER,
	};
	size_t cap = 2 * (size_t)m->ntasks + 2 * (size_t)m->narrows + m->nruns + m->npauses +
		     m->nsamples + m->nnotes + m->nlosses + m->nmarkers + 1, k = 0;
	struct ex_item *it = malloc(cap * sizeof(*it));

	if (!it)
		return NULL;
	ex_items(m, it, &k, &ty);
	for (uint32_t i = 0; i < m->nruns; i++)
		it[k++] = (struct ex_item){ m->runs[i].start, IT_RUN, i };
	for (uint32_t i = 0; i < m->npauses; i++)
		it[k++] = (struct ex_item){ m->pauses[i].start, IT_PAUSE, i };
	if (k > 1)
		qsort(it, k, sizeof(*it), ex_item_cmp);
	*n = k;
	return it;
}

static int export_chrome(const struct rtr_model *m, FILE *f)
{
	struct exp e = { .m = m, .first = true };
	struct ex_item *it;
	size_t n = 0;
	int ret;

	e.sample_counter = malloc(((size_t)m->nsamples + 1) * sizeof(*e.sample_counter));
	it = items(m, &n);
	if (!e.sample_counter || !it || jw_init(&e.w, f)) {
		free(e.sample_counter);
		free(it);
		return -ENOMEM;
	}
	for (uint32_t c = 0; c < m->ncounters; c++) {
		for (uint32_t s = 0; s < m->counters[c].nsamples; s++)
			e.sample_counter[m->counters[c].sample_first + s] = c;
	}
	jw_lit(&e.w, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"origin_ns\":");
	jw_i64(&e.w, m->origin_ns);
	jw_lit(&e.w, ",\"damaged\":");
	jw_lit(&e.w, m->ndamage ? "true" : "false");
	jw_lit(&e.w, "},\"traceEvents\":[");
	emit_metadata(&e);
	for (size_t i = 0; i < n; i++) {
		switch (it[i].type) {
		case IT_BEGIN:
		case IT_END:
			emit_task(&e, it[i].idx, it[i].type == IT_BEGIN);
			break;
		case IT_FLOW_OUT:
		case IT_FLOW_IN:
			emit_flow(&e, it[i].idx, it[i].type == IT_FLOW_OUT);
			break;
		case IT_RUN:
			emit_run(&e, it[i].idx);
			break;
		case IT_PAUSE:
			emit_pause(&e, it[i].idx);
			break;
		case IT_SAMPLE:
			emit_sample(&e, it[i].idx);
			break;
		case IT_NOTE:
			emit_note(&e, it[i].idx);
			break;
		case IT_MARKER:
			emit_marker(&e, it[i].idx);
			break;
		case IT_LOSS:
			emit_loss(&e, it[i].idx);
			break;
		}
	}
	jw_lit(&e.w, "\n]}\n");
	ret = jw_close(&e.w) ? -EIO : 0;
	free(e.sample_counter);
	free(it);
	return ret;
}

/*
 * --format sqlite: the database written into @o's temporary file (by its
 * path: SQLite opens files by name), which then takes its name.  Frees @m.
 * Return: the exit status (@status, or 1 on failure).
 */
static int export_sqlite_file(struct rtr_model *m, struct cli_out *o, const char *out, int status)
{
	const char *slash = strrchr(out, '/');
	char tmp[4096 + 320], err[512] = "";
	int r;

	snprintf(tmp, sizeof(tmp), "%.*s%s", slash ? (int)(slash - out + 1) : 0, out, o->tmp);
	r = rtr_export_sqlite(m, tmp, err, sizeof(err));
	if (r) {
		fprintf(stderr, "ringtrace export: %s: %s\n", out, r == -ENOMEM ? "out of memory" : err);
		cli_out_abort(o);
		status = 1;
	} else if (cli_out_commit(o)) {
		status = 1;
	}
	cli_model_damage("export", m);
	rtr_model_free(m);
	return status;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ringtrace export --format chrome [-o FILE] [--force] TRACE...\n"
		"       ringtrace export --format sqlite -o FILE.db [--force] TRACE...\n"
		"       ringtrace export --format perfetto [--gzip] [-o FILE] [--force] TRACE...\n"
		"       ringtrace export --format folded [-o FILE] [--force] TRACE...\n\n"
		"Write the CTF traces (several are put on one time axis) as Trace Event\n"
		"Format JSON, which Perfetto UI (ui.perfetto.dev) and chrome://tracing open:\n"
		"a process per trace, a thread per CPU showing which task ran when, an async\n"
		"track per task from its creation to its resolution, flow arrows for read,\n"
		"try_read, resolve, fail and signal, counters, notes, pauses and losses.\n"
		"Each TRACE is a trace directory, a directory of rotated chunks (one trace),\n"
		"or - for the stream of `ringtrace record -o -` on standard input (once).\n\n"
		"  --format chrome  the output format: Trace Event JSON\n"
		"  --format sqlite  an SQLite database: tables task, edge, run,\n"
		"                   thread_state, label, counter, counter_value, thread,\n"
		"                   process, lock, cpu, event, event_class, note, pause,\n"
		"                   loss, damage, trace\n"
		"                   (Documentation/analysis.rst has the schema)\n"
		"  --format perfetto  Perfetto's protobuf trace (ui.perfetto.dev,\n"
		"                   trace_processor): the same tracks and flows, about 34\n"
		"                   bytes an event (JSON: 160); the messages are those of\n"
		"                   tools/perfetto_trace.proto, installed beside the man pages\n"
		"  --format folded  the CPU samples of `record --sample` as folded stacks, a\n"
		"                   line \"THREAD;OUTER;...;INNER COUNT\" per stack: the input\n"
		"                   of flamegraph.pl, inferno and speedscope\n"
		"  --gzip           (perfetto) compress it as gzip (6-7 bytes an event), which\n"
		"                   Perfetto opens as it is; the default for -o FILE.gz\n"
		"  -o FILE          write to FILE instead of standard output (- is stdout);\n"
		"                   a new file, mode 0600 (a symbolic link is not followed)\n"
		"  --force          replace FILE if it exists\n"
		"  --slice T0..T1   read that time range of each trace only (T0.., ..T1:\n"
		"                   from its start, to its end; times from its first event),\n"
		"                   through the index beside it (built if missing)\n"
		"  -h, --help       this text\n\n"
		"exit status: 0 done, 1 damaged trace (what was read before the damage is\n"
		"exported, the damage reported on stderr), a stream on stdin cut short,\n"
		"unreadable trace or failed write, 2 usage\n");
}

int rtr_cmd_export(int argc, char **argv)
{
	const char *out = "-", *format = NULL;
	struct rtr_model m;
	struct cli_out o;
	char **dirs;
	int ndirs = 0, r, status;
	bool force = false, to_file, sqlite, perfetto, folded, gzip = false;
	FILE *f;

	dirs = calloc((size_t)argc + 1, sizeof(*dirs));
	if (!dirs) {
		fprintf(stderr, "ringtrace export: out of memory\n");
		return 1;
	}
	int sl;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			free(dirs);
			return 0;
		} else if (!strcmp(a, "--format") || !strcmp(a, "-o")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "ringtrace export: %s needs a value\n", a);
				free(dirs);
				return 2;
			}
			if (a[1] == 'o')
				out = argv[++i];
			else
				format = argv[++i];
		} else if (!strcmp(a, "--force")) {
			force = true;
		} else if (!strcmp(a, "--gzip")) {
			gzip = true;
		} else if (!strncmp(a, "--format=", 9)) {
			format = a + 9;
		} else if (!strcmp(a, "--")) {
			while (++i < argc)
				dirs[ndirs++] = argv[i];
		} else if ((sl = cli_slice_arg("export", argc, argv, &i))) {
			if (sl < 0) {
				free(dirs);
				return 2;
			}
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "ringtrace export: unknown option '%s'\n", a);
			usage(stderr);
			free(dirs);
			return 2;
		} else {
			dirs[ndirs++] = argv[i];
		}
	}
	if (!format || (strcmp(format, "chrome") && strcmp(format, "sqlite") &&
			strcmp(format, "perfetto") && strcmp(format, "folded"))) {
		if (format)
			fprintf(stderr, "ringtrace export: unknown format '%s' (known: chrome, sqlite, "
				"perfetto, folded)\n", format);
		else
			fprintf(stderr, "ringtrace export: --format chrome, sqlite, perfetto or folded "
				"is needed\n");
		free(dirs);
		return 2;
	}
	sqlite = !strcmp(format, "sqlite");
	perfetto = !strcmp(format, "perfetto");
	folded = !strcmp(format, "folded");
	/* -o FILE.gz: compressed, as its name says */
	if (perfetto && strlen(out) > 3 && !strcmp(out + strlen(out) - 3, ".gz"))
		gzip = true;
	if (gzip && !perfetto) {
		fprintf(stderr, "ringtrace export: --gzip is for --format perfetto\n");
		free(dirs);
		return 2;
	}
	if (perfetto && !strcmp(out, "-") && isatty(STDOUT_FILENO)) {
		fprintf(stderr, "ringtrace export: --format perfetto is binary: give -o FILE, or send "
			"standard output to a file or a pipe\n");
		free(dirs);
		return 2;
	}
	if (sqlite && !strcmp(out, "-")) {
		fprintf(stderr, "ringtrace export: --format sqlite writes a file: -o FILE.db is needed\n");
		free(dirs);
		return 2;
	}
	if (!ndirs) {
		usage(stderr);
		free(dirs);
		return 2;
	}
	if (cli_traces_exist("export", dirs, ndirs)) {
		free(dirs);
		return 2;
	}
	to_file = strcmp(out, "-") != 0;
	/* the output first: a file that is there (without --force) costs no work */
	if (to_file && cli_out_open(&o, "export", out, force)) {
		free(dirs);
		return 1;
	}
	if (cli_model_fits("export", dirs, ndirs, CLI_MODEL_BYTES_PER_EVENT))
		r = -1;
	else
		r = cli_model_load("export", &m, dirs, ndirs, RTR_MODEL_MARKERS | RTR_MODEL_FIELDS);
	free(dirs);
	if (r < 0) {
		if (to_file)
			cli_out_abort(&o);
		return 1;
	}
	status = r ? 1 : 0;
	if (sqlite)
		return export_sqlite_file(&m, &o, out, status);
	f = to_file ? fdopen(dup(o.fd), "w") : stdout;
	if (!f) {
		fprintf(stderr, "ringtrace export: %s: %s\n", out, strerror(errno));
		cli_out_abort(&o);
		rtr_model_free(&m);
		return 1;
	}
	if (folded && !m.ncpu_samples)
		fprintf(stderr, "ringtrace export: the traces hold no CPU samples (record --sample "
			"takes them): the output is empty\n");
	r = perfetto ? rtr_export_perfetto(&m, f, gzip) : folded ? rtr_profile_folded(&m, f) :
	    export_chrome(&m, f);
	if (to_file && fclose(f) && !r)
		r = -EIO;
	if (r) {
		fprintf(stderr, "ringtrace export: %s\n", r == -ENOMEM ? "out of memory" :
			"writing the output failed");
		status = 1;
	}
	if (to_file && r)
		cli_out_abort(&o);
	else if (to_file && cli_out_commit(&o))
		status = 1;
	cli_model_damage("export", &m);
	rtr_model_free(&m);
	return status;
}
