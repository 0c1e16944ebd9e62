// SPDX-License-Identifier: MIT
/*
 * tools/export_sqlite.c - `ringtrace export --format sqlite -o FILE.db`: the
 * task model (reader/model.h) as SQLite tables, for SQL over a trace
 * (Documentation/analysis.rst has the schema and example queries).  One
 * transaction, prepared statements, the indexes made after the bulk load.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sqlite3.h>
#include "reader/model.h"
#include "reader/threads.h"
#include "tools/export_sqlite.h"

static const char schema[] =
	"CREATE TABLE meta(key TEXT PRIMARY KEY, value);\n"
	"CREATE TABLE trace(id INTEGER PRIMARY KEY, dir TEXT, host TEXT, pid INTEGER,"
	" offset_ns INTEGER, freq INTEGER, first_ns INTEGER, last_ns INTEGER, events INTEGER,"
	" chunks INTEGER, damaged INTEGER);\n"
	"CREATE TABLE cpu(id INTEGER PRIMARY KEY, trace_id INTEGER, cpu INTEGER, stream TEXT,"
	" first_ns INTEGER, last_ns INTEGER, events INTEGER, events_lost INTEGER,"
	" packets_lost INTEGER, damaged INTEGER);\n"
	"CREATE TABLE thread(id INTEGER PRIMARY KEY, trace_id INTEGER, tid INTEGER, pid INTEGER,"
	" name TEXT, events INTEGER);\n"
	"CREATE TABLE task(id INTEGER PRIMARY KEY, trace_id INTEGER, task_id INTEGER,"
	" kind INTEGER, kind_name TEXT, label TEXT, parent INTEGER, parent_task_id INTEGER,"
	" created_ns INTEGER, resolved_ns INTEGER, end_ns INTEGER, dur_ns INTEGER,"
	" created INTEGER, resolved INTEGER, failed INTEGER, should_resolve INTEGER,"
	" never_resolved INTEGER, becomes INTEGER, becomes_ns INTEGER, reason TEXT);\n"
	"CREATE TABLE label(task INTEGER, ts_ns INTEGER, text TEXT);\n"
	"CREATE TABLE edge(id INTEGER PRIMARY KEY, ts_ns INTEGER, from_ns INTEGER, kind TEXT,"
	" src INTEGER, dst INTEGER, failure INTEGER, hidden INTEGER, cpu_id INTEGER);\n"
	"CREATE TABLE run(id INTEGER PRIMARY KEY, task INTEGER, cpu_id INTEGER, thread_id INTEGER,"
	" start_ns INTEGER, end_ns INTEGER, dur_ns INTEGER, why TEXT);\n"
	"CREATE TABLE thread_state(task INTEGER, tid INTEGER, state TEXT, start_ns INTEGER,"
	" end_ns INTEGER, dur_ns INTEGER, run INTEGER, cpu_id INTEGER, blocked_on TEXT);\n"
	"CREATE TABLE counter(id INTEGER PRIMARY KEY, trace_id INTEGER, counter_id INTEGER,"
	" name TEXT, grp INTEGER, min INTEGER, max INTEGER);\n"
	"CREATE TABLE counter_value(counter INTEGER, ts_ns INTEGER, value INTEGER, task INTEGER);\n"
	"CREATE TABLE note(ts_ns INTEGER, cpu_id INTEGER, thread_id INTEGER, text TEXT);\n"
	"CREATE TABLE pause(start_ns INTEGER, end_ns INTEGER, cpu_id INTEGER, reason TEXT);\n"
	"CREATE TABLE loss(ts_ns INTEGER, cpu_id INTEGER, kind TEXT, count INTEGER);\n"
	"CREATE TABLE damage(trace_id INTEGER, cpu_id INTEGER, ts_ns INTEGER, message TEXT);\n"
	"CREATE TABLE event_class(id INTEGER PRIMARY KEY, trace_id INTEGER, name TEXT,"
	" count INTEGER);\n"
	"CREATE TABLE event(id INTEGER PRIMARY KEY, ts_ns INTEGER, cpu_id INTEGER,"
	" thread_id INTEGER, class INTEGER, fields TEXT);\n"
	"CREATE VIEW process AS SELECT trace_id, pid, count(*) AS threads, sum(events) AS events"
	" FROM thread GROUP BY trace_id, pid;\n"
	"CREATE VIEW lock AS SELECT * FROM task WHERE kind_name IN"
	" ('mutex', 'rwlock', 'semaphore');\n";

static const char indexes[] =
	"CREATE INDEX task_kind ON task(kind_name);\n"
	"CREATE INDEX task_label ON task(label);\n"
	"CREATE INDEX label_task ON label(task);\n"
	"CREATE INDEX edge_src ON edge(src, ts_ns);\n"
	"CREATE INDEX edge_dst ON edge(dst, ts_ns);\n"
	"CREATE INDEX run_task ON run(task, start_ns);\n"
	"CREATE INDEX run_cpu ON run(cpu_id, start_ns);\n"
	"CREATE INDEX thread_state_task ON thread_state(task, start_ns);\n"
	"CREATE INDEX counter_value_counter ON counter_value(counter, ts_ns);\n"
	"CREATE INDEX event_class_ts ON event(class, ts_ns);\n";

struct ins {
	sqlite3 *db;
	sqlite3_stmt *st;
	int rc;
};

/* ---- binding one row ---------------------------------------------------------------- */

static void b_i64(struct ins *s, int col, int64_t v)
{
	if (s->rc == SQLITE_OK)
		s->rc = sqlite3_bind_int64(s->st, col, v);
}

/* @v if @have, else NULL (every column of a row is bound: bindings are not cleared). */
static void b_opt(struct ins *s, int col, bool have, int64_t v)
{
	if (s->rc == SQLITE_OK)
		s->rc = have ? sqlite3_bind_int64(s->st, col, v) : sqlite3_bind_null(s->st, col);
}

/* An index of the model, NULL for RTR_MODEL_NONE. */
static void b_idx(struct ins *s, int col, uint32_t v)
{
	if (s->rc != SQLITE_OK)
		return;
	s->rc = v == RTR_MODEL_NONE ? sqlite3_bind_null(s->st, col) :
				      sqlite3_bind_int64(s->st, col, v);
}

static void b_str(struct ins *s, int col, const struct rtr_model *m, uint32_t off)
{
	if (s->rc == SQLITE_OK)
		s->rc = sqlite3_bind_text(s->st, col, rtr_model_str(m, off), -1, SQLITE_STATIC);
}

static void b_txt(struct ins *s, int col, const char *t)
{
	if (s->rc == SQLITE_OK)
		s->rc = sqlite3_bind_text(s->st, col, t, -1, SQLITE_STATIC);
}

static void row(struct ins *s)
{
	if (s->rc == SQLITE_OK) {
		int r = sqlite3_step(s->st);

		s->rc = r == SQLITE_DONE ? SQLITE_OK : r;
	}
	sqlite3_reset(s->st);
}

static int prep(struct ins *s, const char *sql)
{
	sqlite3_finalize(s->st);
	s->st = NULL;
	if (s->rc == SQLITE_OK)
		s->rc = sqlite3_prepare_v2(s->db, sql, -1, &s->st, NULL);
	return s->rc;
}

/* ---- the tables --------------------------------------------------------------------- */

static void put_traces(struct ins *s, const struct rtr_model *m)
{
	prep(s, "INSERT INTO trace VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11)");
	for (uint32_t i = 0; i < m->ntraces && s->rc == SQLITE_OK; i++) {
		const struct rtr_model_trace *t = &m->traces[i];

		b_i64(s, 1, i);
		b_str(s, 2, m, t->dir);
		b_str(s, 3, m, t->hostname);
		b_i64(s, 4, t->vpid);
		b_i64(s, 5, t->offset_ns);
		b_i64(s, 6, (int64_t)t->freq);
		b_i64(s, 7, t->first);
		b_i64(s, 8, t->last);
		b_i64(s, 9, (int64_t)t->events);
		b_i64(s, 10, t->nchunks);
		b_i64(s, 11, t->damaged);
		row(s);
	}
	prep(s, "INSERT INTO cpu VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10)");
	for (uint32_t i = 0; i < m->ncpus && s->rc == SQLITE_OK; i++) {
		const struct rtr_model_cpu *c = &m->cpus[i];

		b_i64(s, 1, i);
		b_i64(s, 2, c->trace);
		b_idx(s, 3, c->cpu);
		b_str(s, 4, m, c->stream);
		b_i64(s, 5, c->first);
		b_i64(s, 6, c->last);
		b_i64(s, 7, (int64_t)c->events);
		b_i64(s, 8, (int64_t)c->events_lost);
		b_i64(s, 9, (int64_t)c->packets_lost);
		b_i64(s, 10, c->damaged);
		row(s);
	}
	prep(s, "INSERT INTO thread VALUES(?1,?2,?3,?4,?5,?6)");
	for (uint32_t i = 0; i < m->nthreads && s->rc == SQLITE_OK; i++) {
		const struct rtr_model_thread *t = &m->threads[i];

		b_i64(s, 1, i);
		b_i64(s, 2, t->trace);
		b_i64(s, 3, (int64_t)t->tid);
		b_i64(s, 4, (int64_t)t->pid);
		b_str(s, 5, m, t->name);
		b_i64(s, 6, (int64_t)t->events);
		row(s);
	}
	prep(s, "INSERT INTO damage VALUES(?1,?2,?3,?4)");
	for (uint32_t i = 0; i < m->ndamage && s->rc == SQLITE_OK; i++) {
		b_i64(s, 1, m->damage[i].trace);
		b_idx(s, 2, m->damage[i].cpu);
		b_i64(s, 3, m->damage[i].ts);
		b_str(s, 4, m, m->damage[i].message);
		row(s);
	}
}

static void put_tasks(struct ins *s, const struct rtr_model *m)
{
	static const char *const kinds[] = { "read", "try_read", "resolve", "signal" };

	prep(s, "INSERT INTO task VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,"
		"?17,?18,?19,?20)");
	for (uint32_t i = 0; i < m->ntasks && s->rc == SQLITE_OK; i++) {
		const struct rtr_model_task *t = &m->tasks[i];
		bool res = t->flags & RTR_TASK_RESOLVED;

		b_i64(s, 1, i);
		b_i64(s, 2, t->trace);
		b_i64(s, 3, (int64_t)t->id);
		b_idx(s, 4, t->kind);
		b_str(s, 5, m, t->kind_name);
		b_str(s, 6, m, t->name);
		b_idx(s, 7, t->parent);
		b_i64(s, 8, (int64_t)t->parent_id);
		b_i64(s, 9, t->created);
		b_opt(s, 10, res, t->resolved);
		b_i64(s, 11, t->end);
		b_opt(s, 12, res && (t->flags & RTR_TASK_CREATED), t->resolved - t->created);
		b_i64(s, 13, !!(t->flags & RTR_TASK_CREATED));
		b_i64(s, 14, res);
		b_i64(s, 15, !!(t->flags & RTR_TASK_FAILED));
		b_i64(s, 16, !!(t->flags & RTR_TASK_SHOULD_RESOLVE));
		b_i64(s, 17, !!(t->flags & RTR_TASK_NEVER_RESOLVED));
		b_idx(s, 18, t->becomes);
		b_opt(s, 19, t->becomes != RTR_MODEL_NONE, t->becomes_ts);
		b_str(s, 20, m, t->reason);
		row(s);
	}
	prep(s, "INSERT INTO label VALUES(?1,?2,?3)");
	for (uint32_t i = 0; i < m->nlabels && s->rc == SQLITE_OK; i++) {
		b_i64(s, 1, m->labels[i].task);
		b_i64(s, 2, m->labels[i].ts);
		b_str(s, 3, m, m->labels[i].text);
		row(s);
	}
	prep(s, "INSERT INTO edge VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9)");
	for (uint32_t i = 0; i < m->narrows && s->rc == SQLITE_OK; i++) {
		const struct rtr_model_arrow *a = &m->arrows[i];

		b_i64(s, 1, i);
		b_i64(s, 2, a->ts);
		b_i64(s, 3, a->t_from);
		b_txt(s, 4, a->kind < 4 ? kinds[a->kind] : "?");
		b_idx(s, 5, a->from);
		b_idx(s, 6, a->to);
		b_i64(s, 7, !!(a->flags & RTR_ARROW_FAILURE));
		b_i64(s, 8, !!(a->flags & RTR_ARROW_HIDDEN));
		b_idx(s, 9, a->cpu);
		row(s);
	}
	static const char *const whys[] = {
		[RTR_RUN_SWITCH] = "switch", [RTR_RUN_BLOCKED] = "blocked",
		[RTR_RUN_PREEMPTED] = "preempted",
	};

	prep(s, "INSERT INTO run VALUES(?1,?2,?3,?4,?5,?6,?7,?8)");
	for (uint32_t i = 0; i < m->nruns && s->rc == SQLITE_OK; i++) {
		const struct rtr_model_run *r = &m->runs[i];

		b_i64(s, 1, i);
		b_i64(s, 2, r->task);
		b_idx(s, 3, r->cpu);
		b_idx(s, 4, r->thread);
		b_i64(s, 5, r->start);
		b_i64(s, 6, r->end);
		b_i64(s, 7, r->end - r->start);
		b_txt(s, 8, r->why <= RTR_RUN_PREEMPTED ? whys[r->why] : "?");
		row(s);
	}
}

struct span_out {
	struct ins *s;
	const struct rtr_model *m;
};

static int put_span(const struct rtr_thread_span *sp, void *arg)
{
	static const char *const states[] = {
		[RTR_THREAD_RUNNING] = "running", [RTR_THREAD_RUNNABLE] = "runnable",
		[RTR_THREAD_BLOCKED] = "blocked",
	};
	const struct span_out *o = arg;
	struct ins *s = o->s;
	bool on_cpu = sp->state == RTR_THREAD_RUNNING;

	b_i64(s, 1, sp->task);
	b_i64(s, 2, (int64_t)sp->tid);
	b_txt(s, 3, states[sp->state]);
	b_i64(s, 4, sp->start);
	b_i64(s, 5, sp->end);
	b_i64(s, 6, sp->end - sp->start);
	b_i64(s, 7, sp->run);
	b_opt(s, 8, on_cpu, o->m->runs[sp->run].cpu);
	b_txt(s, 9, sp->on);	/* NULL binds NULL */
	row(s);
	return s->rc == SQLITE_OK ? 0 : 1;
}

/* The kernel's records (record --sched): each thread's time, running, runnable or blocked. */
static void put_states(struct ins *s, const struct rtr_model *m)
{
	struct span_out o = { s, m };

	if (prep(s, "INSERT INTO thread_state VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9)") != SQLITE_OK)
		return;
	if (rtr_thread_spans(m, put_span, &o) == -ENOMEM && s->rc == SQLITE_OK)
		s->rc = SQLITE_NOMEM;
}

static void put_others(struct ins *s, const struct rtr_model *m)
{
	prep(s, "INSERT INTO counter VALUES(?1,?2,?3,?4,?5,?6,?7)");
	for (uint32_t i = 0; i < m->ncounters && s->rc == SQLITE_OK; i++) {
		const struct rtr_model_counter *c = &m->counters[i];

		b_i64(s, 1, i);
		b_i64(s, 2, c->trace);
		b_i64(s, 3, c->id);
		b_str(s, 4, m, c->name);
		b_i64(s, 5, c->group);
		b_i64(s, 6, c->min);
		b_i64(s, 7, c->max);
		row(s);
	}
	prep(s, "INSERT INTO counter_value VALUES(?1,?2,?3,?4)");
	for (uint32_t i = 0; i < m->ncounters && s->rc == SQLITE_OK; i++)
		for (uint32_t j = 0; j < m->counters[i].nsamples && s->rc == SQLITE_OK; j++) {
			const struct rtr_model_sample *v = &m->samples[m->counters[i].sample_first + j];

			b_i64(s, 1, i);
			b_i64(s, 2, v->ts);
			b_i64(s, 3, v->value);
			b_idx(s, 4, v->task);
			row(s);
		}
	prep(s, "INSERT INTO note VALUES(?1,?2,?3,?4)");
	for (uint32_t i = 0; i < m->nnotes && s->rc == SQLITE_OK; i++) {
		b_i64(s, 1, m->notes[i].ts);
		b_idx(s, 2, m->notes[i].cpu);
		b_idx(s, 3, m->notes[i].thread);
		b_str(s, 4, m, m->notes[i].text);
		row(s);
	}
	prep(s, "INSERT INTO pause VALUES(?1,?2,?3,?4)");
	for (uint32_t i = 0; i < m->npauses && s->rc == SQLITE_OK; i++) {
		b_i64(s, 1, m->pauses[i].start);
		b_i64(s, 2, m->pauses[i].end);
		b_idx(s, 3, m->pauses[i].cpu);
		b_str(s, 4, m, m->pauses[i].reason);
		row(s);
	}
	prep(s, "INSERT INTO loss VALUES(?1,?2,?3,?4)");
	for (uint32_t i = 0; i < m->nlosses && s->rc == SQLITE_OK; i++) {
		b_i64(s, 1, m->losses[i].ts);
		b_idx(s, 2, m->losses[i].cpu);
		b_txt(s, 3, m->losses[i].kind == RTR_LOSS_EVENTS ? "events" : "packets");
		b_i64(s, 4, (int64_t)m->losses[i].count);
		row(s);
	}
	prep(s, "INSERT INTO event_class VALUES(?1,?2,?3,?4)");
	for (uint32_t i = 0; i < m->nclasses && s->rc == SQLITE_OK; i++) {
		b_i64(s, 1, i);
		b_i64(s, 2, m->classes[i].trace);
		b_str(s, 3, m, m->classes[i].name);
		b_i64(s, 4, (int64_t)m->classes[i].count);
		row(s);
	}
	prep(s, "INSERT INTO event VALUES(?1,?2,?3,?4,?5,?6)");
	for (uint32_t i = 0; i < m->nmarkers && s->rc == SQLITE_OK; i++) {
		const struct rtr_model_marker *k = &m->markers[i];

		b_i64(s, 1, i);
		b_i64(s, 2, k->ts);
		b_idx(s, 3, k->cpu);
		b_idx(s, 4, k->thread);
		b_idx(s, 5, k->cls);
		b_str(s, 6, m, k->fields);
		row(s);
	}
}

static int exec(struct ins *s, const char *sql)
{
	if (s->rc == SQLITE_OK)
		s->rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);
	return s->rc;
}

int rtr_export_sqlite(const struct rtr_model *m, const char *path, char *err, size_t errlen)
{
	struct ins s = { .rc = SQLITE_OK };
	char meta[128];

	/*
	 * One connection in one thread: SQLite's mutexes and its memory
	 * statistics cost a third of the inserts' time (perf).  Both calls fail,
	 * harmlessly, where SQLite was already initialised in this process.
	 */
	sqlite3_config(SQLITE_CONFIG_SINGLETHREAD);
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	/* the file exists, empty (cli_out made it): no journal beside it, nothing in /tmp */
	s.rc = sqlite3_open_v2(path, &s.db, SQLITE_OPEN_READWRITE, NULL);
	exec(&s, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA temp_store=MEMORY;"
		 "PRAGMA page_size=65536;");
	exec(&s, schema);
	exec(&s, "BEGIN");
	snprintf(meta, sizeof(meta), "INSERT INTO meta VALUES('origin_ns', %lld),"
		 "('schema_version', 2);", (long long)m->origin_ns);
	exec(&s, meta);
	put_traces(&s, m);
	put_tasks(&s, m);
	put_states(&s, m);
	put_others(&s, m);
	sqlite3_finalize(s.st);
	s.st = NULL;
	exec(&s, indexes);
	exec(&s, "COMMIT");
	if (s.rc != SQLITE_OK)
		snprintf(err, errlen, "%s", s.db ? sqlite3_errmsg(s.db) : sqlite3_errstr(s.rc));
	if (sqlite3_close(s.db) != SQLITE_OK && s.rc == SQLITE_OK) {
		snprintf(err, errlen, "closing the database failed");
		s.rc = SQLITE_ERROR;
	}
	return s.rc == SQLITE_OK ? 0 : s.rc == SQLITE_NOMEM ? -ENOMEM : -EIO;
}
