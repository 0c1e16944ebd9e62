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
#include "reader/profile.h"
#include "reader/threads.h"
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
		struct kind_stats *k = &ks[of[i]];

		if (an_task_duration(m, i, &k->durs[k->ndurs]))
			k->ndurs++;
	}
	/* (qsort() of nothing: its array may be NULL, undefined behaviour) */
	for (uint32_t k = 0; k < nk; k++)
		if (ks[k].ndurs > 1)
			qsort(ks[k].durs, ks[k].ndurs, sizeof(*ks[k].durs), an_cmp_i64);
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

/* The task's name, or "#ID" (a kernel thread's: its tid). */
static const char *task_name(const struct rtr_model *m, uint32_t t, char *b, size_t n)
{
	const char *s = rtr_model_str(m, m->tasks[t].name);

	if (*s)
		return s;
	snprintf(b, n, "#%" PRIu64, m->tasks[t].id & ~RTR_MODEL_KTHREAD);
	return b;
}

/* With the kernel's records: where each thread's time went. */
static void print_thread_times(const struct rtr_model *m, const struct rtr_thread_time *tt,
			       uint32_t n)
{
	char b[4][32];

	if (!n)
		return;
	printf("\n%-5s %10s %-16s %12s %12s %12s %6s %9s %10s  %s\n", "trace", "tid",
	       "thread", "on-cpu", "runnable", "blocked", "runs", "preempted", "migrations",
	       "blocked on");
	for (uint32_t i = 0; i < n; i++) {
		const struct rtr_thread_time *t = &tt[i];

		printf("%-5u %10" PRIu64 " ", m->tasks[t->task].trace, t->tid);
		an_put_clean(stdout, task_name(m, t->task, b[0], sizeof(b[0])), 16);
		printf(" %12s %12s %12s %6u %9u %10u ", an_dur(b[1], 32, t->on_cpu),
		       an_dur(b[2], 32, t->runnable), an_dur(b[3], 32, t->blocked), t->runs,
		       t->preempted, t->migrations);
		for (uint32_t k = 0; k < t->nwhy; k++)
			printf("%s%s %s", k ? ", " : " ", t->why[k].kind,
			       an_dur(b[0], 32, t->why[k].ns));
		putchar('\n');
	}
}

static void print_table(const struct rtr_model *m, const struct kind_stats *ks, uint32_t nk,
			const struct rtr_thread_time *tt, uint32_t ntt)
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
	if (m->sliced) {
		printf("slice: from %s", an_dur(b[1], sizeof(b[1]), (int64_t)cli_slice.from));
		if (cli_slice.to == UINT64_MAX)
			printf(" to the end");
		else
			printf(" to %s", an_dur(b[2], sizeof(b[2]), (int64_t)cli_slice.to));
		printf(" of each trace: the figures are those of the events in it\n");
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
	print_thread_times(m, tt, ntt);
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

/* A thread's times, as fields of its object. */
static void json_times(struct jw *w, const struct rtr_model *m, const struct rtr_thread_time *t)
{
	char b[32];

	jw_lit(w, ", \"task\": ");
	jw_cstr(w, task_name(m, t->task, b, sizeof(b)));
	json_dur(w, "on_cpu_ns", t->on_cpu, true);
	json_dur(w, "runnable_ns", t->runnable, true);
	json_dur(w, "blocked_ns", t->blocked, true);
	jw_lit(w, ", \"runs\": ");
	jw_u64(w, t->runs);
	jw_lit(w, ", \"preempted\": ");
	jw_u64(w, t->preempted);
	jw_lit(w, ", \"migrations\": ");
	jw_u64(w, t->migrations);
	jw_lit(w, ", \"blocked_on\": {");
	for (uint32_t k = 0; k < t->nwhy; k++) {
		jw_lit(w, k ? ", " : "");
		jw_cstr(w, t->why[k].kind);
		jw_lit(w, ": ");
		jw_i64(w, t->why[k].ns);
	}
	jw_lit(w, "}");
}

static void print_json(const struct rtr_model *m, const struct kind_stats *ks, uint32_t nk,
		       const struct rtr_thread_time *tt, uint32_t ntt, bool *used, struct jw *w)
{
	if (m->sliced) {
		jw_lit(w, "{\"slice\": {\"from_ns\": ");
		jw_u64(w, cli_slice.from);
		jw_lit(w, ", \"to_ns\": ");
		if (cli_slice.to == UINT64_MAX)
			jw_lit(w, "null");
		else
			jw_u64(w, cli_slice.to);
		jw_lit(w, "},\n \"traces\": [");
	} else {
		jw_lit(w, "{\"traces\": [");
	}
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
		for (uint32_t k = 0; k < ntt; k++) {
			if (tt[k].tid == t->tid && m->tasks[tt[k].task].trace == t->trace) {
				json_times(w, m, &tt[k]);
				used[k] = true;
				break;
			}
		}
		jw_lit(w, "}");
	}
	/* threads the kernel saw that wrote no event of their own */
	for (uint32_t k = 0, n = m->nthreads; k < ntt; k++) {
		char b[32];

		if (used[k])
			continue;
		jw_lit(w, n++ ? ",\n  {\"trace\": " : "\n  {\"trace\": ");
		jw_u64(w, m->tasks[tt[k].task].trace);
		jw_lit(w, ", \"tid\": ");
		jw_u64(w, tt[k].tid);
		jw_lit(w, ", \"pid\": null, \"name\": ");
		jw_cstr(w, task_name(m, tt[k].task, b, sizeof(b)));
		jw_lit(w, ", \"count\": 0");
		json_times(w, m, &tt[k]);
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

/* Nearest rank over @n sorted values. */
static int64_t pct(const int64_t *v, uint32_t n, unsigned p)
{
	uint64_t rank = ((uint64_t)n * p + 99) / 100;

	return v[rank ? rank - 1 : 0];
}

/* The names of up to 4 tasks, and how many more, in @b. */
static const char *task_list(const struct rtr_model *m, const uint32_t *t, uint32_t n, char *b,
			     size_t len)
{
	size_t at = 0;

	b[0] = 0;
	for (uint32_t i = 0; i < n && i < 4 && at < len; i++) {
		char nb[32];

		at += (size_t)snprintf(b + at, len - at, "%s%s", i ? ", " : "",
				       task_name(m, t[i], nb, sizeof(nb)));
	}
	if (n > 4 && at < len)
		snprintf(b + at, len - at, " and %u more", n - 4);
	return b;
}

/*
 * --locks: per synchronisation object that was waited for, the waits and
 * how long (total, p50, p99, max), who waited and whose release ended the
 * waits (the pthread wrapper's try_read, read and signal arrows).
 */
static int print_locks(const struct rtr_model *m, bool json)
{
	struct rtr_lock_wait *w;
	uint32_t n;
	char b[7][32], who[200], rel[200];
	bool held = false;
	int width = 24;

	if (rtr_lock_waits(m, &w, &n))
		return -1;
	if (json) {
		struct jw jw;

		if (jw_init(&jw, stdout)) {
			rtr_lock_waits_free(w, n);
			return -1;
		}
		jw_lit(&jw, "{\"locks\": [");
		for (uint32_t i = 0; i < n; i++) {
			const struct rtr_lock_wait *l = &w[i];

			jw_lit(&jw, i ? ",\n  {\"name\": " : "\n  {\"name\": ");
			jw_cstr(&jw, task_name(m, l->task, b[0], sizeof(b[0])));
			jw_lit(&jw, ", \"kind\": ");
			jw_cstr(&jw, rtr_model_str(m, m->tasks[l->task].kind_name));
			jw_lit(&jw, ", \"trace\": ");
			jw_u64(&jw, m->tasks[l->task].trace);
			jw_lit(&jw, ", \"waits\": ");
			jw_u64(&jw, l->waits);
			json_dur(&jw, "wait_ns_total", l->total, true);
			json_dur(&jw, "wait_ns_p50", pct(l->ns, l->waits, 50), true);
			json_dur(&jw, "wait_ns_p99", pct(l->ns, l->waits, 99), true);
			json_dur(&jw, "wait_ns_max", l->ns[l->waits - 1], true);
			if (l->holds) {
				jw_lit(&jw, ", \"holds\": ");
				jw_u64(&jw, l->holds);
				json_dur(&jw, "hold_ns_p50", pct(l->hold_ns, l->holds, 50), true);
				json_dur(&jw, "hold_ns_max", l->hold_ns[l->holds - 1], true);
			}
			jw_lit(&jw, ", \"waiters\": ");
			jw_cstr(&jw, task_list(m, l->waiter, l->waiters, who, sizeof(who)));
			jw_lit(&jw, ", \"released_by\": ");
			jw_cstr(&jw, task_list(m, l->releaser, l->releasers, rel, sizeof(rel)));
			jw_lit(&jw, "}");
		}
		jw_lit(&jw, "]}\n");
		rtr_lock_waits_free(w, n);
		return jw_close(&jw);
	}
	/* The name column as wide as the longest name ("mutex 0x... at f+0x4c (f.c:88)"). */
	for (uint32_t i = 0; i < n; i++) {
		size_t len = strlen(task_name(m, w[i].task, b[0], sizeof(b[0])));

		if (len > (size_t)width)
			width = len < 96 ? (int)len : 96;
	}
	for (uint32_t i = 0; i < n; i++)
		held |= w[i].holds > 0;
	printf("%-*s %-10s %7s %12s %12s %12s %12s", width, "lock", "kind", "waits", "total", "p50",
	       "p99", "max");
	if (held)
		printf(" %12s %12s", "held p50", "held max");
	printf("  %s\n", "waiters; released by");
	for (uint32_t i = 0; i < n; i++) {
		const struct rtr_lock_wait *l = &w[i];

		an_put_clean(stdout, task_name(m, l->task, b[0], sizeof(b[0])), width);
		printf(" %-10s %7u %12s %12s %12s %12s ",
		       rtr_model_str(m, m->tasks[l->task].kind_name), l->waits,
		       an_dur(b[1], 32, l->total), an_dur(b[2], 32, pct(l->ns, l->waits, 50)),
		       an_dur(b[3], 32, pct(l->ns, l->waits, 99)),
		       an_dur(b[4], 32, l->ns[l->waits - 1]));
		if (held && l->holds)
			printf("%12s %12s ", an_dur(b[5], 32, pct(l->hold_ns, l->holds, 50)),
			       an_dur(b[6], 32, l->hold_ns[l->holds - 1]));
		else if (held)
			printf("%12s %12s ", "-", "-");
		putchar(' ');
		an_put_clean(stdout, task_list(m, l->waiter, l->waiters, who, sizeof(who)), 0);
		printf("; ");
		an_put_clean(stdout, l->releasers ? task_list(m, l->releaser, l->releasers, rel,
							   sizeof(rel)) : "-", 0);
		putchar('\n');
	}
	if (!n)
		printf("(no waits for a lock, condition, semaphore, barrier or rwlock)\n");
	rtr_lock_waits_free(w, n);
	return 0;
}

/*
 * --samples: per function, the CPU samples in it (self) and under it
 * (total), most self first: where the threads' own code spent its time.
 */
static int print_samples(const struct rtr_model *m, bool json)
{
	struct rtr_profile_fn *fn;
	uint64_t total;
	uint32_t n;

	if (rtr_profile_functions(m, INT64_MIN, INT64_MAX, &fn, &n, &total))
		return -1;
	if (json) {
		struct jw jw;

		if (jw_init(&jw, stdout)) {
			free(fn);
			return -1;
		}
		jw_lit(&jw, "{\"samples\": ");
		jw_u64(&jw, total);
		jw_lit(&jw, ", \"functions\": [");
		for (uint32_t i = 0; i < n; i++) {
			jw_lit(&jw, i ? ",\n  {\"name\": " : "\n  {\"name\": ");
			jw_cstr(&jw, rtr_model_str(m, fn[i].name));
			jw_lit(&jw, ", \"self\": ");
			jw_u64(&jw, fn[i].self);
			jw_lit(&jw, ", \"total\": ");
			jw_u64(&jw, fn[i].total);
			jw_lit(&jw, "}");
		}
		jw_lit(&jw, "]}\n");
		free(fn);
		return jw_close(&jw);
	}
	if (!total) {
		printf("(no CPU samples: record --sample takes them)\n");
		free(fn);
		return 0;
	}
	printf("%" PRIu64 " CPU samples of the threads' own code\n", total);
	printf("%8s %7s %8s %7s  %s\n", "self", "", "total", "", "function");
	for (uint32_t i = 0; i < n; i++) {
		printf("%8" PRIu64 " %6.2f%% %8" PRIu64 " %6.2f%%  ", fn[i].self,
		       100.0 * (double)fn[i].self / (double)total, fn[i].total,
		       100.0 * (double)fn[i].total / (double)total);
		an_put_clean(stdout, rtr_model_str(m, fn[i].name), 0);
		putchar('\n');
	}
	free(fn);
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ringtrace stats [--json | --hangs | --locks [--json] |\n"
		"                        --samples [--json]] TRACE...\n\n"
		"Statistics of the CTF traces (several traces are read on one time axis):\n"
		"per task kind, how many tasks, how many resolved, failed, never resolved,\n"
		"marked should_resolve but never resolved, and the time from creation to\n"
		"resolution (p50, p90, p99, max: nearest rank, over the tasks both created\n"
		"and resolved in the trace); per CPU, the events, their rate over the\n"
		"trace's span, and the events and packets lost; per event class, the events\n"
		"and their rate (the ring's thread records counted in their class, not as\n"
		"the program's events); per thread (ringtrace's thread records, LTTng's vtid\n"
		"context), its process and its events; with the kernel's records (record\n"
		"--sched), per thread task its time on a CPU, runnable and blocked, and on\n"
		"what it was blocked; per kind, a histogram of the durations in log buckets\n"
		"(each at most a quarter of its value wide; the percentiles are exact, from\n"
		"the sorted durations).\n"
		"Each TRACE is a trace directory, a directory of rotated chunks (one trace),\n"
		"or - for the stream of `ringtrace record -o -` on standard input (once).\n\n"
		"  --json      the same as one JSON object (times in nanoseconds)\n"
		"  --hangs     instead: each should_resolve task that never resolved, the chain\n"
		"              of tasks it waited for, and the wake-ups the last one was sent\n"
		"  --locks     instead: per mutex, condition, semaphore, barrier or rwlock\n"
		"              waited for (record --pthread), the waits, their total, p50, p99\n"
		"              and max, the threads that waited and whose release ended the\n"
		"              waits (with --json: an object per lock); with record\n"
		"              --hold-times, how long the releasing thread had held it\n"
		"  --samples   instead: per function, the CPU samples of record --sample in\n"
		"              it (self) and under it (total), most self first (with\n"
		"              --json: \"samples\", and \"functions\" with name, self, total)\n"
		"  --slice T0..T1 read that time range of each trace only (T0.., ..T1:\n"
		"              from its start, to its end; times from its first event),\n"
		"              through the index beside it (built if missing)\n"
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
	bool json = false, hangs = false, locks = false, samples = false, lean, *used = NULL;
	struct rtr_thread_time *tt = NULL;
	uint32_t nk = 0, ntt = 0;

	dirs = calloc((size_t)argc + 1, sizeof(*dirs));
	if (!dirs) {
		fprintf(stderr, "ringtrace stats: out of memory\n");
		return 1;
	}
	int sl;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			free(dirs);
			return 0;
		} else if (!strcmp(argv[i], "--json")) {
			json = true;
		} else if (!strcmp(argv[i], "--hangs")) {
			hangs = true;
		} else if (!strcmp(argv[i], "--locks")) {
			locks = true;
		} else if (!strcmp(argv[i], "--samples")) {
			samples = true;
		} else if (!strcmp(argv[i], "--")) {
			while (++i < argc)
				dirs[ndirs++] = argv[i];
		} else if ((sl = cli_slice_arg("stats", argc, argv, &i))) {
			if (sl < 0) {
				free(dirs);
				return 2;
			}
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
	/* The tables need only the tasks, classes, threads and CPUs (and threads' runs). */
	lean = !hangs && !locks && !samples;
	if (cli_model_fits("stats", dirs, ndirs,
			   lean ? CLI_LEAN_BYTES_PER_EVENT : CLI_STATS_BYTES_PER_EVENT)) {
		free(dirs);
		return 1;
	}
	r = cli_model_load("stats", &m, dirs, ndirs, lean ? RTR_MODEL_LEAN : 0);
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
	if (rtr_thread_times(&m, &tt, &ntt) || !(used = calloc((size_t)ntt + 1, 1))) {
		fprintf(stderr, "ringtrace stats: out of memory\n");
		free(tt);
		free(ks);
		rtr_model_free(&m);
		return 1;
	}
	if (samples) {
		if (print_samples(&m, json)) {
			fprintf(stderr, "ringtrace stats: out of memory\n");
			status = 1;
		}
	} else if (locks) {
		if (print_locks(&m, json)) {
			fprintf(stderr, "ringtrace stats: out of memory\n");
			status = 1;
		}
	} else if (hangs) {
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
			print_json(&m, ks, nk, tt, ntt, used, &w);
			if (jw_close(&w))
				status = 1;
		}
	} else {
		print_table(&m, ks, nk, tt, ntt);
	}
	if (fflush(stdout)) {
		fprintf(stderr, "ringtrace stats: writing the output failed\n");
		status = 1;
	}
	cli_model_damage("stats", &m);
	for (uint32_t k = 0; k < nk; k++)
		free(ks[k].durs);
	free(ks);
	free(tt);
	free(used);
	rtr_model_free(&m);
	return status;
}
