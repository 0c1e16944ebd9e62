// SPDX-License-Identifier: MIT
/*
 * tools/stats.c - `ringtrace stats TRACE...`: per task kind, how many tasks,
 * how long from creation to resolution (nearest-rank percentiles), how many
 * never resolved or failed; per CPU, the events, their rate and the losses.
 * A table by default, JSON with --json.  Built on the task model (model.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "reader/model.h"
#include "tools/analysis.h"
#include "tools/cli.h"
#include "tools/commands.h"
#include "tools/json.h"
#include "reader/waits.h"

/**
 * struct kind_stats - the figures of one task kind.
 * @name: the kind's name (a model string).
 * @count: tasks of the kind.
 * @resolved: resolved or failed.
 * @failed: failed.
 * @unresolved: not resolved by the end of the trace.
 * @should_fail: marked should_resolve and never resolved (nor their becomes chain).
 * @durs: creation to resolution of the tasks created and resolved in the
 *	trace, sorted; @ndurs of them.
 */
struct kind_stats {
	const char *name;
	uint64_t count, resolved, failed, unresolved, should_fail;
	int64_t *durs;
	uint64_t ndurs;
};

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_kind(const void *a, const void *b)
{
	const struct kind_stats *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Nearest rank: the smallest value with at least @p percent of the values at or below it. */
static int64_t percentile(const struct kind_stats *k, unsigned p)
{
	uint64_t rank = (k->ndurs * p + 99) / 100;

	return k->durs[rank ? rank - 1 : 0];
}

/* The kinds, sorted by count: *@nkinds of them (NULL when memory ran out). */
static struct kind_stats *collect(const struct rtr_model *m, uint32_t *nkinds)
{
	struct kind_stats *ks = NULL;
	uint32_t nk = 0, *of = malloc(((size_t)m->ntasks + 1) * sizeof(*of));
	uint32_t last_off = UINT32_MAX, last_k = 0;

	if (!of)
		return NULL;
	/* which kind each task is: kind names are few, so a linear search with a cache */
	for (uint32_t i = 0; i < m->ntasks; i++) {
		const struct rtr_model_task *t = &m->tasks[i];
		const char *name = rtr_model_str(m, t->kind_name);
		uint32_t k;

		if (t->kind_name == last_off) {
			of[i] = last_k;
			continue;
		}
		for (k = 0; k < nk && strcmp(ks[k].name, name); k++)
			;
		if (k == nk) {
			struct kind_stats *n = realloc(ks, (nk + 1) * sizeof(*ks));

			if (!n)
				goto fail;
			ks = n;
			ks[nk++] = (struct kind_stats){ .name = name };
		}
		of[i] = last_k = k;
		last_off = t->kind_name;
	}
	for (uint32_t i = 0; i < m->ntasks; i++) {
		const struct rtr_model_task *t = &m->tasks[i];
		struct kind_stats *k = &ks[of[i]];

		k->count++;
		k->resolved += !!(t->flags & RTR_TASK_RESOLVED);
		k->failed += !!(t->flags & RTR_TASK_FAILED);
		k->unresolved += !(t->flags & RTR_TASK_RESOLVED);
		k->should_fail += !!(t->flags & RTR_TASK_NEVER_RESOLVED);
	}
	for (uint32_t k = 0; k < nk; k++) {
		ks[k].durs = malloc((ks[k].resolved + 1) * sizeof(*ks[k].durs));
		if (!ks[k].durs)
			goto fail;
	}
	for (uint32_t i = 0; i < m->ntasks; i++) {
		const struct rtr_model_task *t = &m->tasks[i];
		struct kind_stats *k = &ks[of[i]];

		if ((t->flags & RTR_TASK_RESOLVED) && (t->flags & RTR_TASK_CREATED))
			k->durs[k->ndurs++] = t->resolved - t->created;
	}
	/* (qsort() of nothing: its array may be NULL, undefined behaviour) */
	for (uint32_t k = 0; k < nk; k++)
		if (ks[k].ndurs > 1)
			qsort(ks[k].durs, ks[k].ndurs, sizeof(*ks[k].durs), cmp_i64);
	if (nk > 1)
		qsort(ks, nk, sizeof(*ks), cmp_kind);
	free(of);
	*nkinds = nk;
	return ks;
fail:
	for (uint32_t k = 0; k < nk; k++)
		free(ks[k].durs);
	free(ks);
	free(of);
	return NULL;
}

/* Events per second over the span of @t (0 for an empty span). */
static double rate(uint64_t events, const struct rtr_model_trace *t)
{
	int64_t span = t->last - t->first;

	return span > 0 ? (double)events * 1e9 / (double)span : 0.0;
}

/*
 * Each kind's durations as a log-bucket histogram (tools/analysis.h: a
 * bucket at most a quarter of its value wide), the percentiles exact.
 */
static void print_histograms(const struct kind_stats *ks, uint32_t nk)
{
	char b[4][32];

	for (uint32_t k = 0; k < nk; k++) {
		const struct kind_stats *s = &ks[k];

		if (!s->ndurs)
			continue;
		printf("\n");
		an_put_clean(stdout, s->name, 0);
		printf(": %" PRIu64 " durations, creation to resolution: p50 %s, p99 %s, p99.9 %s, max %s\n",
		       s->ndurs, an_dur(b[0], 32, percentile(s, 50)),
		       an_dur(b[1], 32, percentile(s, 99)),
		       an_dur(b[2], 32, an_quantile(s->durs, s->ndurs, 0.999)),
		       an_dur(b[3], 32, s->durs[s->ndurs - 1]));
		an_hist_print(stdout, s->durs, s->ndurs, 40, 2);
	}
}

/* The histogram of @s as JSON: the non-empty buckets, [low, high) and count. */
static void json_histogram(struct jw *w, const struct kind_stats *s)
{
	jw_lit(w, ", \"p999_ns\": ");
	jw_i64(w, an_quantile(s->durs, s->ndurs, 0.999));
	jw_lit(w, ", \"histogram\": [");
	for (uint64_t i = 0, n = 0; i < s->ndurs; n++) {
		uint32_t bk = an_hist_bucket(s->durs[i]);
		uint64_t j = i;

		while (j < s->ndurs && an_hist_bucket(s->durs[j]) == bk)
			j++;
		jw_lit(w, n ? ", {\"low_ns\": " : "{\"low_ns\": ");
		jw_i64(w, an_hist_low(bk));
		jw_lit(w, ", \"high_ns\": ");
		jw_i64(w, an_hist_low(bk + 1));
		jw_lit(w, ", \"count\": ");
		jw_u64(w, j - i);
		jw_lit(w, "}");
		i = j;
	}
	jw_lit(w, "]");
}

static void print_table(const struct rtr_model *m, const struct kind_stats *ks, uint32_t nk)
{
	char b[4][32];

	for (uint32_t i = 0; i < m->ntraces; i++) {
		const struct rtr_model_trace *t = &m->traces[i];

		printf("trace %u: ", i);
		an_put_clean(stdout, rtr_model_str(m, t->dir), 0);
		printf(" (");
		if (t->nchunks > 1)
			printf("%u chunks, ", t->nchunks);
		printf("host ");
		an_put_clean(stdout, *rtr_model_str(m, t->hostname) ? rtr_model_str(m, t->hostname) :
			  "?", 0);
		printf(", pid %u): %" PRIu64 " events over %s%s\n", t->vpid, t->events,
		       an_dur(b[0], sizeof(b[0]), t->last - t->first),
		       t->damaged ? ", DAMAGED" : "");
	}
	printf("\n%-16s %9s %9s %7s %10s %12s %12s %12s %12s %12s\n", "kind", "tasks", "resolved",
	       "failed", "unresolved", "should-fail", "p50", "p90", "p99", "max");
	for (uint32_t k = 0; k < nk; k++) {
		const struct kind_stats *s = &ks[k];

		an_put_clean(stdout, s->name, 16);
		printf(" %9" PRIu64 " %9" PRIu64 " %7" PRIu64 " %10" PRIu64 " %12" PRIu64, s->count,
		       s->resolved, s->failed, s->unresolved, s->should_fail);
		if (s->ndurs)
			printf(" %12s %12s %12s %12s\n", an_dur(b[0], 32, percentile(s, 50)),
			       an_dur(b[1], 32, percentile(s, 90)),
			       an_dur(b[2], 32, percentile(s, 99)),
			       an_dur(b[3], 32, s->durs[s->ndurs - 1]));
		else
			printf(" %12s %12s %12s %12s\n", "-", "-", "-", "-");
	}
	if (!nk)
		printf("(no tasks)\n");
	print_histograms(ks, nk);
	printf("\n%-5s %5s %-16s %12s %14s %12s %12s\n", "trace", "cpu", "stream", "events",
	       "events/s", "events-lost", "packets-lost");
	for (uint32_t i = 0; i < m->ncpus; i++) {
		const struct rtr_model_cpu *c = &m->cpus[i];
		char cpu[16];

		if (c->cpu == RTR_MODEL_NONE)
			snprintf(cpu, sizeof(cpu), "?");
		else
			snprintf(cpu, sizeof(cpu), "%u", c->cpu);
		printf("%-5u %5s ", c->trace, cpu);
		an_put_clean(stdout, rtr_model_str(m, c->stream), 16);
		printf(" %12" PRIu64 " %14.0f %12" PRIu64 " %12" PRIu64 "%s\n", c->events,
		       rate(c->events, &m->traces[c->trace]), c->events_lost, c->packets_lost,
		       c->damaged ? "  damaged" : "");
	}
	printf("\n%-5s %-40s %12s %14s\n", "trace", "event class", "events", "events/s");
	for (uint32_t i = 0; i < m->nclasses; i++) {
		const struct rtr_model_class *k = &m->classes[i];

		if (!k->count)
			continue;
		printf("%-5u ", k->trace);
		an_put_clean(stdout, rtr_model_str(m, k->name), 40);
		printf(" %12" PRIu64 " %14.0f\n", k->count, rate(k->count, &m->traces[k->trace]));
	}
	if (!m->nthreads)
		return;
	printf("\n%-5s %10s %10s %-16s %12s\n", "trace", "tid", "pid", "name", "events");
	for (uint32_t i = 0; i < m->nthreads; i++) {
		const struct rtr_model_thread *t = &m->threads[i];

		printf("%-5u %10" PRIu64 " %10" PRIu64 " ", t->trace, t->tid, t->pid);
		an_put_clean(stdout, rtr_model_str(m, t->name), 16);
		printf(" %12" PRIu64 "\n", t->events);
	}
}

static void json_dur(struct jw *w, const char *key, int64_t v, bool comma)
{
	jw_lit(w, comma ? ", \"" : "\"");
	jw_lit(w, key);
	jw_lit(w, "\": ");
	jw_i64(w, v);
}

static void print_json(const struct rtr_model *m, const struct kind_stats *ks, uint32_t nk,
		       struct jw *w)
{
	jw_lit(w, "{\"traces\": [");
	for (uint32_t i = 0; i < m->ntraces; i++) {
		const struct rtr_model_trace *t = &m->traces[i];

		jw_lit(w, i ? ",\n  {\"dir\": " : "\n  {\"dir\": ");
		jw_cstr(w, rtr_model_str(m, t->dir));
		jw_lit(w, ", \"host\": ");
		jw_cstr(w, rtr_model_str(m, t->hostname));
		jw_lit(w, ", \"pid\": ");
		jw_u64(w, t->vpid);
		jw_lit(w, ", \"chunks\": ");
		jw_u64(w, t->nchunks);
		jw_lit(w, ", \"events\": ");
		jw_u64(w, t->events);
		json_dur(w, "span_ns", t->last - t->first, true);
		jw_lit(w, ", \"offset_ns\": ");
		jw_i64(w, t->offset_ns);
		jw_lit(w, t->damaged ? ", \"damaged\": true}" : ", \"damaged\": false}");
	}
	jw_lit(w, "],\n \"kinds\": [");
	for (uint32_t k = 0; k < nk; k++) {
		const struct kind_stats *s = &ks[k];

		jw_lit(w, k ? ",\n  {\"kind\": " : "\n  {\"kind\": ");
		jw_cstr(w, s->name);
		jw_lit(w, ", \"tasks\": ");
		jw_u64(w, s->count);
		jw_lit(w, ", \"resolved\": ");
		jw_u64(w, s->resolved);
		jw_lit(w, ", \"failed\": ");
		jw_u64(w, s->failed);
		jw_lit(w, ", \"unresolved\": ");
		jw_u64(w, s->unresolved);
		jw_lit(w, ", \"should_resolve_failures\": ");
		jw_u64(w, s->should_fail);
		jw_lit(w, ", \"durations\": ");
		jw_u64(w, s->ndurs);
		if (s->ndurs) {
			json_dur(w, "p50_ns", percentile(s, 50), true);
			json_dur(w, "p90_ns", percentile(s, 90), true);
			json_dur(w, "p99_ns", percentile(s, 99), true);
			json_dur(w, "max_ns", s->durs[s->ndurs - 1], true);
			json_histogram(w, s);
		}
		jw_lit(w, "}");
	}
	jw_lit(w, "],\n \"cpus\": [");
	for (uint32_t i = 0; i < m->ncpus; i++) {
		const struct rtr_model_cpu *c = &m->cpus[i];

		jw_lit(w, i ? ",\n  {\"trace\": " : "\n  {\"trace\": ");
		jw_u64(w, c->trace);
		jw_lit(w, ", \"cpu\": ");
		if (c->cpu == RTR_MODEL_NONE)
			jw_lit(w, "null");
		else
			jw_u64(w, c->cpu);
		jw_lit(w, ", \"stream\": ");
		jw_cstr(w, rtr_model_str(m, c->stream));
		jw_lit(w, ", \"events\": ");
		jw_u64(w, c->events);
		jw_lit(w, ", \"events_per_s\": ");
		jw_double(w, rate(c->events, &m->traces[c->trace]));
		jw_lit(w, ", \"events_lost\": ");
		jw_u64(w, c->events_lost);
		jw_lit(w, ", \"packets_lost\": ");
		jw_u64(w, c->packets_lost);
		jw_lit(w, c->damaged ? ", \"damaged\": true}" : ", \"damaged\": false}");
	}
	jw_lit(w, "],\n \"classes\": [");
	for (uint32_t i = 0, n = 0; i < m->nclasses; i++) {
		const struct rtr_model_class *k = &m->classes[i];

		if (!k->count)
			continue;
		jw_lit(w, n++ ? ",\n  {\"trace\": " : "\n  {\"trace\": ");
		jw_u64(w, k->trace);
		jw_lit(w, ", \"class\": ");
		jw_cstr(w, rtr_model_str(m, k->name));
		jw_lit(w, ", \"count\": ");
		jw_u64(w, k->count);
		jw_lit(w, "}");
	}
	jw_lit(w, "],\n \"threads\": [");
	for (uint32_t i = 0; i < m->nthreads; i++) {
		const struct rtr_model_thread *t = &m->threads[i];

		jw_lit(w, i ? ",\n  {\"trace\": " : "\n  {\"trace\": ");
		jw_u64(w, t->trace);
		jw_lit(w, ", \"tid\": ");
		jw_u64(w, t->tid);
		jw_lit(w, ", \"pid\": ");
		jw_u64(w, t->pid);
		jw_lit(w, ", \"name\": ");
		jw_cstr(w, rtr_model_str(m, t->name));
		jw_lit(w, ", \"count\": ");
		jw_u64(w, t->events);
		jw_lit(w, "}");
	}
	jw_lit(w, "],\n \"damage\": [");
	for (uint32_t i = 0; i < m->ndamage; i++) {
		jw_lit(w, i ? ", " : "");
		jw_cstr(w, rtr_model_str(m, m->damage[i].message));
	}
	jw_lit(w, "]}\n");
}

/* "name" (task ID, kind), quoted and cleaned. */
static void put_task(const struct rtr_model *m, uint32_t t)
{
	const struct rtr_model_task *k = &m->tasks[t];

	printf("\"");
	an_put_clean(stdout, *rtr_model_str(m, k->name) ? rtr_model_str(m, k->name) : "?", 0);
	printf("\" (task %" PRIu64 ", ", k->id);
	an_put_clean(stdout, rtr_model_str(m, k->kind_name), 0);
	printf(")");
}

/*
 * --hangs: each should_resolve task that never resolved, the chain of what
 * it waited for, and the wake-ups sent to the task at the chain's end.
 * Times from the start of the traces, as dump, view and export count them.
 */
static int print_hangs(const struct rtr_model *m)
{
	struct rtr_hang *hs;
	uint32_t n, total;
	char b[2][32];

	if (rtr_model_hangs(m, &hs, &n, &total))
		return -1;
	printf("hangs: %u should_resolve task%s never resolved\n", total, total == 1 ? "" : "s");
	for (uint32_t i = 0; i < n; i++) {
		const struct rtr_hang *h = &hs[i];
		const struct rtr_wait_step *last = &h->steps[h->nsteps - 1];

		printf("  ");
		put_task(m, h->steps[0].task);
		printf(", created at %s, never resolved\n",
		       an_dur(b[0], 32, h->steps[0].since - m->start));
		for (uint32_t j = 1; j < h->nsteps; j++) {
			const struct rtr_wait_step *st = &h->steps[j];

			printf("    %s ", j == 1 ? "it" : "which");
			if (st->how == RTR_WAIT_BECAME) {
				printf("became ");
				put_task(m, st->task);
				printf(" at %s\n", an_dur(b[0], 32, st->since - m->start));
			} else {
				printf("waits for ");
				put_task(m, st->task);
				printf(" since %s%s\n", an_dur(b[0], 32, st->since - m->start),
				       m->tasks[st->task].flags & RTR_TASK_RESOLVED ? " (resolved later: not read)" : "");
			}
		}
		if (h->nsteps > 1 && h->last_signal != RTR_MODEL_NONE) {
			const struct rtr_model_arrow *a = &m->arrows[h->last_signal];

			printf("    ");
			put_task(m, last->task);
			printf(" was signalled %u time%s before that wait began and %u after;\n"
			       "    the last signal: at %s, by ", h->signals_before,
			       h->signals_before == 1 ? "" : "s", h->signals_after,
			       an_dur(b[1], 32, a->ts - m->start));
			put_task(m, a->from);
			printf("\n");
			if (h->signals_before && !h->signals_after)
				printf("    a wake-up sent before anyone waited, and none since: a lost wake-up\n");
		} else if (h->nsteps > 1 && !(m->tasks[last->task].flags & RTR_TASK_RESOLVED)) {
			printf("    ");
			put_task(m, last->task);
			printf(" was never resolved, nor signalled\n");
		}
	}
	if (total > n)
		printf("  (%u more not explained)\n", total - n);
	free(hs);
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ringtrace stats [--json | --hangs] TRACE...\n\n"
		"Statistics of the CTF traces (several traces are read on one time axis):\n"
		"per task kind, how many tasks, how many resolved, failed, never resolved,\n"
		"marked should_resolve but never resolved, and the time from creation to\n"
		"resolution (p50, p90, p99, max: nearest rank, over the tasks both created\n"
		"and resolved in the trace); per CPU, the events, their rate over the\n"
		"trace's span, and the events and packets lost; per event class, the events\n"
		"and their rate (the ring's thread records counted in their class, not as\n"
		"the program's events); per thread (ringtrace's thread records, LTTng's vtid\n"
		"context), its process and its events; per kind, a histogram of the\n"
		"durations in log buckets (each at most a quarter of its value wide; the\n"
		"percentiles are exact, from the sorted durations).\n"
		"Each TRACE is a trace directory, a directory of rotated chunks (one trace),\n"
		"or - for the stream of `ringtrace record -o -` on standard input (once).\n\n"
		"  --json      the same as one JSON object (times in nanoseconds)\n"
		"  --hangs     instead: each should_resolve task that never resolved, the chain\n"
		"              of tasks it waited for, and the wake-ups the last one was sent\n"
		"  -h, --help  this text\n\n"
		"exit status: 0 done, 1 damaged trace (the figures cover what was read\n"
		"before the damage, which is reported on stderr), a stream on stdin cut short,\n"
		"or unreadable trace, 2 usage\n");
}

int rtr_cmd_stats(int argc, char **argv)
{
	struct kind_stats *ks;
	struct rtr_model m;
	char **dirs;
	int ndirs = 0, r, status;
	bool json = false, hangs = false;
	uint32_t nk = 0;

	dirs = calloc((size_t)argc + 1, sizeof(*dirs));
	if (!dirs) {
		fprintf(stderr, "ringtrace stats: out of memory\n");
		return 1;
	}
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			free(dirs);
			return 0;
		} else if (!strcmp(argv[i], "--json")) {
			json = true;
		} else if (!strcmp(argv[i], "--hangs")) {
			hangs = true;
		} else if (!strcmp(argv[i], "--")) {
			while (++i < argc)
				dirs[ndirs++] = argv[i];
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "ringtrace stats: unknown option '%s'\n", argv[i]);
			usage(stderr);
			free(dirs);
			return 2;
		} else {
			dirs[ndirs++] = argv[i];
		}
	}
	if (!ndirs) {
		usage(stderr);
		free(dirs);
		return 2;
	}
	if (cli_traces_exist("stats", dirs, ndirs)) {
		free(dirs);
		return 2;
	}
	r = cli_model_load("stats", &m, dirs, ndirs, 0);
	free(dirs);
	if (r < 0)
		return 1;
	status = r ? 1 : 0;
	ks = collect(&m, &nk);
	if (!ks && m.ntasks) {
		fprintf(stderr, "ringtrace stats: out of memory\n");
		rtr_model_free(&m);
		return 1;
	}
	if (hangs) {
		if (print_hangs(&m)) {
			fprintf(stderr, "ringtrace stats: out of memory\n");
			status = 1;
		}
	} else if (json) {
		struct jw w;

		if (jw_init(&w, stdout)) {
			fprintf(stderr, "ringtrace stats: out of memory\n");
			status = 1;
		} else {
			print_json(&m, ks, nk, &w);
			if (jw_close(&w))
				status = 1;
		}
	} else {
		print_table(&m, ks, nk);
	}
	if (fflush(stdout)) {
		fprintf(stderr, "ringtrace stats: writing the output failed\n");
		status = 1;
	}
	cli_model_damage("stats", &m);
	for (uint32_t k = 0; k < nk; k++)
		free(ks[k].durs);
	free(ks);
	rtr_model_free(&m);
	return status;
}
