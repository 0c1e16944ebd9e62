// SPDX-License-Identifier: MIT
/*
 * tools/why.c - `ringtrace why TRACE TASK`, `ringtrace why --slowest KIND
 * TRACE`: a task's critical path (reader/critpath.h) as text or JSON, the
 * segments adding up to its duration, each wait explained by the path of
 * what it waited for.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "reader/critpath.h"
#include "reader/model.h"
#include "tools/analysis.h"
#include "tools/cli.h"
#include "tools/commands.h"
#include "tools/json.h"

#define DEPTH_DEFAULT	3	/* levels of "why" the text shows */

struct opts {
	bool json;
	unsigned depth;
	const char *slowest;
	uint64_t n;
};

/* ---- text ---------------------------------------------------------------------------- */

static void print_segs(const struct rtr_model *m, const struct rtr_critpath *cp, uint32_t first,
		       uint32_t n, int64_t total, unsigned level, unsigned depth)
{
	char d[32];

	for (uint32_t i = 0; i < n; i++) {
		const struct rtr_cp_seg *s = &cp->segs[first + i];
		int64_t ns = s->end - s->start;

		printf("%12s %5.1f%%  %*s", an_dur(d, sizeof(d), ns),
		       total ? 100.0 * (double)ns / (double)total : 100.0, (int)(2 * level), "");
		switch (s->what) {
		case RTR_CP_RUNNING:
		case RTR_CP_NOT_RUNNING:
		case RTR_CP_RUNNABLE:
			printf("%s: ", rtr_cp_what_str(s->what));
			an_put_task(stdout, m, s->task);
			if (s->what == RTR_CP_RUNNING && s->cpu < m->ncpus &&
			    m->cpus[s->cpu].cpu != RTR_MODEL_NONE)
				printf(" on cpu %u", m->cpus[s->cpu].cpu);
			if (s->what == RTR_CP_RUNNABLE)
				printf(", its input ready");
			break;
		case RTR_CP_WAIT_TASK:
		case RTR_CP_WAIT_LOCK:
			printf("waiting for ");
			an_put_task(stdout, m, s->other);
			if (s->what == RTR_CP_WAIT_LOCK && s->by != RTR_MODEL_NONE) {
				printf(" held by ");
				an_put_task(stdout, m, s->by);
			} else if (s->by != RTR_MODEL_NONE) {
				printf(", woken by ");
				an_put_task(stdout, m, s->by);
			} else if (s->lost_by != RTR_MODEL_NONE) {
				printf(": signalled by ");
				an_put_task(stdout, m, s->lost_by);
				printf(" at %s, before the wait began, and never after: a lost wake-up",
				       an_dur(d, sizeof(d), s->lost_ts - m->start));
			} else {
				printf(", nothing recorded woke it");
			}
			break;
		case RTR_CP_RESOLVER:
			printf("waiting for its resolver, ");
			an_put_task(stdout, m, s->other);
			break;
		case RTR_CP_CREATOR:
			printf("not yet created by ");
			an_put_task(stdout, m, s->other);
			break;
		}
		printf("  [%s", an_dur(d, sizeof(d), s->start - m->start));
		printf(" .. %s]\n", an_dur(d, sizeof(d), s->end - m->start));
		if (s->nchildren && level + 1 < depth)
			print_segs(m, cp, s->child_first, s->nchildren, total, level + 1, depth);
	}
}

static void print_text(const struct rtr_model *m, const struct rtr_critpath *cp, unsigned depth)
{
	char a[32], b[32], c[32];

	an_put_task(stdout, m, cp->task);
	printf(": %s, from %s to %s%s\n", an_dur(a, sizeof(a), cp->end - cp->start),
	       an_dur(b, sizeof(b), cp->start - m->start), an_dur(c, sizeof(c), cp->end - m->start),
	       cp->resolved ? "" : m->tasks[cp->task].flags & RTR_TASK_NEVER_RESOLVED ?
	       " (never resolved: to the end of the trace)" : " (not resolved: to its last mention)");
	print_segs(m, cp, 0, cp->ntop, cp->end - cp->start, 0, depth);
	if (cp->truncated)
		printf("  (the path is cut: more than %u segments)\n", RTR_CP_SEGS_MAX);
}

/* ---- JSON ---------------------------------------------------------------------------- */

static void json_task(struct jw *w, const struct rtr_model *m, const char *key, uint32_t t,
		      const char *label_key)
{
	if (t >= m->ntasks)
		return;
	jw_lit(w, ", \"");
	jw_lit(w, key);
	jw_lit(w, "\": ");
	jw_u64(w, m->tasks[t].id);
	jw_lit(w, ", \"");
	jw_lit(w, label_key);
	jw_lit(w, "\": ");
	jw_cstr(w, rtr_model_str(m, m->tasks[t].name));
}

static void json_segs(struct jw *w, const struct rtr_model *m, const struct rtr_critpath *cp,
		      uint32_t first, uint32_t n)
{
	jw_lit(w, "[");
	for (uint32_t i = 0; i < n; i++) {
		const struct rtr_cp_seg *s = &cp->segs[first + i];

		jw_lit(w, i ? ", {\"what\": " : "{\"what\": ");
		jw_cstr(w, rtr_cp_what_str(s->what));
		jw_lit(w, ", \"ns\": ");
		jw_i64(w, s->end - s->start);
		jw_lit(w, ", \"start_ns\": ");
		jw_i64(w, s->start - m->start);
		if (s->other != RTR_MODEL_NONE) {
			json_task(w, m, "task", s->other, "label");
			json_task(w, m, "of", s->task, "of_label");
		} else {
			json_task(w, m, "task", s->task, "label");
		}
		if (s->by != RTR_MODEL_NONE)
			json_task(w, m, "by", s->by, "by_label");
		if (s->lost_by != RTR_MODEL_NONE) {
			jw_lit(w, ", \"lost_wakeup\": true");
			json_task(w, m, "signalled_by", s->lost_by, "signalled_by_label");
			jw_lit(w, ", \"signal_ns\": ");
			jw_i64(w, s->lost_ts - m->start);
		}
		if (s->cpu < m->ncpus && m->cpus[s->cpu].cpu != RTR_MODEL_NONE) {
			jw_lit(w, ", \"cpu\": ");
			jw_u64(w, m->cpus[s->cpu].cpu);
		}
		if (s->nchildren) {
			jw_lit(w, ", \"why\": ");
			json_segs(w, m, cp, s->child_first, s->nchildren);
		}
		jw_lit(w, "}");
	}
	jw_lit(w, "]");
}

static void json_path(struct jw *w, const struct rtr_model *m, const struct rtr_critpath *cp)
{
	const struct rtr_model_task *t = &m->tasks[cp->task];

	jw_lit(w, "{\"task\": ");
	jw_u64(w, t->id);
	jw_lit(w, ", \"label\": ");
	jw_cstr(w, rtr_model_str(m, t->name));
	jw_lit(w, ", \"kind\": ");
	jw_cstr(w, rtr_model_str(m, t->kind_name));
	jw_lit(w, ", \"trace\": ");
	jw_cstr(w, rtr_model_str(m, m->traces[t->trace].dir));
	jw_lit(w, ", \"start_ns\": ");
	jw_i64(w, cp->start - m->start);
	jw_lit(w, ", \"duration_ns\": ");
	jw_i64(w, cp->end - cp->start);
	jw_lit(w, cp->resolved ? ", \"resolved\": true" : ", \"resolved\": false");
	jw_lit(w, cp->truncated ? ", \"truncated\": true" : ", \"truncated\": false");
	jw_lit(w, ",\n  \"segments\": ");
	json_segs(w, m, cp, 0, cp->ntop);
	jw_lit(w, "}");
}

/* ---- choosing the tasks -------------------------------------------------------------- */

struct cand {
	uint32_t task;
	int64_t dur;
};

static int cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->dur != y->dur)
		return x->dur > y->dur ? -1 : 1;
	return x->task < y->task ? -1 : x->task > y->task;
}

/*
 * The tasks to explain, slowest first, into *@out (*@n): with --slowest,
 * the resolved tasks of that kind; else the task whose id is @spec, or
 * those a label of which matches @spec (fnmatch).  Return: 0; -ENOMEM.
 */
static int choose(const struct rtr_model *m, const struct rtr_cp_index *ix, const struct opts *o,
		  const char *spec,
		  struct cand **out, uint32_t *n)
{
	struct cand *c = malloc(((size_t)m->ntasks + 1) * sizeof(*c));
	uint32_t k = 0;
	char *end;
	unsigned long long id;

	if (!c)
		return -ENOMEM;
	errno = 0;
	id = spec ? strtoull(spec, &end, 10) : 0;
	bool by_id = spec && !errno && end != spec && !*end;

	for (uint32_t i = 0; i < m->ntasks; i++) {
		const struct rtr_model_task *t = &m->tasks[i];
		bool res, pick;
		int64_t e = rtr_cp_end(m, ix, i, &res);

		if (o->slowest)
			pick = res && !strcmp(rtr_model_str(m, t->kind_name), o->slowest);
		else if (by_id)
			pick = t->id == id;
		else
			pick = an_task_matches(m, i, spec);
		if (pick)
			c[k++] = (struct cand){ i, e - t->created };
	}
	/* a number that is no task's id may be a label */
	if (!k && by_id && !o->slowest)
		for (uint32_t i = 0; i < m->ntasks; i++)
			if (an_task_matches(m, i, spec))
				c[k++] = (struct cand){ i, rtr_cp_end(m, ix, i, NULL) - m->tasks[i].created };
	if (k > 1)
		qsort(c, k, sizeof(*c), cmp_cand);
	*out = c;
	*n = k;
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ringtrace why [--json] [--depth N] TRACE TASK\n"
		"       ringtrace why [--json] [--depth N] --slowest KIND [-n N] TRACE\n\n"
		"Why a task took as long as it did: its critical path, walked back from its\n"
		"resolution to its creation through the reads, try_reads, resolves and\n"
		"signals of the task model and the runs on the CPUs, as segments that add\n"
		"up to its duration: running, runnable (its input ready, not yet running),\n"
		"waiting for a task (and, below it, why that task was late), waiting for a\n"
		"lock held by a thread (and what that thread did meanwhile), waiting for its\n"
		"resolver, not yet created (its creator's path), not running (nothing\n"
		"recorded says why).  Documentation/analysis.rst gives the rules.\n\n"
		"TASK is a task id, or a label (a fnmatch pattern: 'GET /item/*'); when\n"
		"several tasks match, the slowest is explained.\n\n"
		"  --slowest KIND  the slowest resolved tasks of kind KIND ('bind',\n"
		"                  'request', 'thread', ...), each explained\n"
		"  -n N            how many with --slowest (default 1)\n"
		"  --depth N       levels of explanation the text shows (default %d;\n"
		"                  --json has them all)\n"
		"  --json          one JSON object: task, label, kind, duration_ns,\n"
		"                  segments [{what, ns, start_ns, task, label, why: [...]}];\n"
		"                  with --slowest, {\"kind\", \"paths\": [...]}\n"
		"  -h, --help      this text\n\n"
		"exit status: 0 explained, 1 no such task, a damaged or unreadable trace\n"
		"(damage is said on stderr; the path covers what was read), 2 usage\n",
		DEPTH_DEFAULT);
}

static int parse(int argc, char **argv, struct opts *o, const char **trace, const char **spec)
{
	const char *pos[2];
	int npos = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		char *end;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--json")) {
			o->json = true;
		} else if (!strcmp(a, "--slowest") || !strcmp(a, "--depth") || !strcmp(a, "-n")) {
			unsigned long long v;

			if (i + 1 >= argc) {
				fprintf(stderr, "ringtrace why: %s needs a value\n", a);
				return 2;
			}
			if (!strcmp(a, "--slowest")) {
				o->slowest = argv[++i];
				continue;
			}
			errno = 0;
			v = strtoull(argv[++i], &end, 10);
			if (errno || end == argv[i] || *end || !v || v > 1000000 ||
			    argv[i][0] == '-') {
				fprintf(stderr, "ringtrace why: %s: not a count from 1 to 1000000: '%s'\n",
					a, argv[i]);
				return 2;
			}
			if (!strcmp(a, "-n"))
				o->n = v;
			else
				o->depth = (unsigned)v;
		} else if (!strcmp(a, "--")) {
			while (++i < argc && npos < 2)
				pos[npos++] = argv[i];
			if (i < argc)
				npos = 3;
			break;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "ringtrace why: unknown option '%s'\n", a);
			usage(stderr);
			return 2;
		} else if (npos < 2) {
			pos[npos++] = a;
		} else {
			npos = 3;
		}
	}
	if (npos != (o->slowest ? 1 : 2)) {
		fprintf(stderr, "ringtrace why: %s\n", o->slowest ?
			"--slowest takes one TRACE and no TASK" : "give one TRACE and one TASK");
		usage(stderr);
		return 2;
	}
	*trace = pos[0];
	*spec = o->slowest ? NULL : pos[1];
	return -1;
}

int rtr_cmd_why(int argc, char **argv)
{
	struct opts o = { .depth = DEPTH_DEFAULT, .n = 1 };
	const char *trace, *spec;
	struct rtr_cp_index ix = { 0 };
	struct rtr_model m;
	struct cand *c = NULL;
	uint32_t nc = 0;
	struct jw w;
	int r, status;

	r = parse(argc, argv, &o, &trace, &spec);
	if (r >= 0)
		return r;
	if (cli_traces_exist("why", (char *const *)&trace, 1))
		return 2;
	if (cli_model_fits("why", (char *const *)&trace, 1, CLI_STATS_BYTES_PER_EVENT))
		return 1;
	r = cli_model_load("why", &m, (char *const *)&trace, 1, 0);
	if (r < 0)
		return 1;
	status = r ? 1 : 0;
	if (rtr_cp_index_build(&m, &ix) || choose(&m, &ix, &o, spec, &c, &nc)) {
		fprintf(stderr, "ringtrace why: out of memory\n");
		status = 1;
		goto out;
	}
	if (!nc) {
		if (o.slowest) {
			fprintf(stderr, "ringtrace why: no resolved task of kind '");
			an_put_clean(stderr, o.slowest, 0);
		} else {
			fprintf(stderr, "ringtrace why: no task with the id or a label '");
			an_put_clean(stderr, spec, 0);
		}
		fprintf(stderr, "' in %s\n", trace);
		status = 1;
		goto out;
	}
	if (!o.slowest && nc > 1)
		fprintf(stderr, "ringtrace why: %u tasks match '%s': the slowest explained\n", nc,
			spec);
	if (!o.slowest || o.n > nc)
		o.n = o.slowest ? nc : 1;
	if (o.json && jw_init(&w, stdout)) {
		fprintf(stderr, "ringtrace why: out of memory\n");
		status = 1;
		goto out;
	}
	if (o.json && o.slowest) {
		jw_lit(&w, "{\"kind\": ");
		jw_cstr(&w, o.slowest);
		jw_lit(&w, ", \"tasks\": ");
		jw_u64(&w, nc);
		jw_lit(&w, ", \"paths\": [\n ");
	}
	if (!o.json && o.slowest)
		printf("the %" PRIu64 " slowest of %u resolved tasks of kind %s\n\n", o.n, nc,
		       o.slowest);
	for (uint64_t i = 0; i < o.n; i++) {
		struct rtr_critpath cp;

		if (rtr_critpath(&m, &ix, c[i].task, &cp)) {
			fprintf(stderr, "ringtrace why: out of memory\n");
			status = 1;
			break;
		}
		if (o.json) {
			if (i)
				jw_lit(&w, ",\n ");
			json_path(&w, &m, &cp);
		} else {
			if (i)
				printf("\n");
			print_text(&m, &cp, o.depth);
		}
		rtr_critpath_free(&cp);
	}
	if (o.json) {
		jw_lit(&w, o.slowest ? "]}\n" : "\n");
		if (jw_close(&w))
			status = 1;
	}
	if (fflush(stdout)) {
		fprintf(stderr, "ringtrace why: writing the output failed\n");
		status = 1;
	}
out:
	cli_model_damage("why", &m);
	free(c);
	rtr_cp_index_free(&ix);
	rtr_model_free(&m);
	return status;
}
