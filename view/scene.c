// SPDX-License-Identifier: MIT
/*
 * view/scene.c - building the scene (view/scene.h) from a task model: the
 * rows, the arrows in length classes, --align start, the sleeping regions,
 * and the level-of-detail summaries the window query (view/window.c) walks.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "view/scene.h"
#include "view/scene_internal.h"

/* The index key of an item of @rank (0 to 2) lasting @len ns: rank first, then length. */
static uint64_t lod_key(unsigned rank, int64_t len)
{
	const int64_t max = ((int64_t)1 << 62) - 1;

	return (uint64_t)rank << 62 | (uint64_t)(len < 0 ? 0 : len > max ? max : len);
}

/* ---- rows: mirage's arrangement, tasks that do not overlap in time share a row ------ */

/*
 * A min-tree over the rows' end times finds, for a task starting at @start,
 * the first row at or after its parent's whose last task ended before
 * @start: O(log^2 n) a task.
 */
struct rowtree {
	int64_t *t;		/* 2 * size nodes, leaves from size */
	uint32_t size;
};

static uint32_t rowtree_find(const struct rowtree *rt, uint32_t node, uint32_t lo, uint32_t hi,
			     uint32_t k, int64_t start)
{
	uint32_t mid, r;

	if (hi <= k || rt->t[node] >= start)
		return UINT32_MAX;
	if (hi - lo == 1)
		return lo;
	mid = lo + (hi - lo) / 2;
	r = rowtree_find(rt, 2 * node, lo, mid, k, start);
	return r != UINT32_MAX ? r : rowtree_find(rt, 2 * node + 1, mid, hi, k, start);
}

static void rowtree_set(struct rowtree *rt, uint32_t row, int64_t end)
{
	uint32_t n = rt->size + row;

	rt->t[n] = end;
	for (n /= 2; n; n /= 2)
		rt->t[n] = rt->t[2 * n] < rt->t[2 * n + 1] ? rt->t[2 * n] : rt->t[2 * n + 1];
}

static int by_created(const void *a, const void *b, void *arg)
{
	const struct rtr_model *m = arg;
	const struct rtr_model_task *x = &m->tasks[*(const uint32_t *)a];
	const struct rtr_model_task *y = &m->tasks[*(const uint32_t *)b];

	if (x->created != y->created)
		return x->created < y->created ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/*
 * layout() - a row for every task (s->task_row), each trace's rows after the
 * previous trace's and one empty row; s->row_task lists the tasks by row,
 * then time; s->row_off[r] is where row r starts in it.
 */
static int layout(struct rtr_scene *s)
{
	const struct rtr_model *m = s->m;
	uint32_t *row = s->task_row, *sorted, base = 0, first = 0, *off, *fill;
	struct rowtree rt = { 0 };

	for (uint32_t i = 0; i < m->ntasks; i++)
		row[i] = UINT32_MAX;
	sorted = malloc(((size_t)m->ntasks + 1) * sizeof(*sorted));
	for (rt.size = 1; rt.size < m->ntasks + 1; rt.size *= 2)
		;
	rt.t = malloc(2 * (size_t)rt.size * sizeof(*rt.t));
	if (!sorted || !rt.t) {
		free(sorted);
		free(rt.t);
		return -ENOMEM;
	}
	for (uint32_t tr = 0; tr < m->ntraces; tr++) {
		uint32_t last = first, used = 0;

		while (last < m->ntasks && m->tasks[last].trace == tr)
			last++;
		for (uint32_t i = first; i < last; i++)
			sorted[i - first] = i;
		if (last - first > 1)
			qsort_r(sorted, last - first, sizeof(*sorted), by_created, (void *)m);
		for (uint32_t i = 0; i < 2 * rt.size; i++)
			rt.t[i] = INT64_MIN;
		for (uint32_t i = 0; i < last - first; i++) {
			const struct rtr_model_task *t = &m->tasks[sorted[i]];
			uint32_t k = 0, r;

			if (t->parent != RTR_MODEL_NONE && t->parent >= first && t->parent < last &&
			    t->parent != sorted[i] && row[t->parent] != UINT32_MAX)
				k = row[t->parent] - base + 1;
			r = rowtree_find(&rt, 1, 0, rt.size, k, t->created);
			if (r == UINT32_MAX)	/* cannot happen: rows >= tasks + 1 */
				r = used;
			row[sorted[i]] = base + r;
			used = r + 1 > used ? r + 1 : used;
			rowtree_set(&rt, r, t->end);
		}
		s->trace_row[tr] = base;
		base += used + (tr + 1 < m->ntraces);
		for (uint32_t i = first; i < last; i++)
			if (row[i] == UINT32_MAX)
				row[i] = base;
		first = last;
	}
	s->trace_row[m->ntraces] = base;
	free(rt.t);
	s->nrows = base;
	off = calloc((size_t)base + 2, sizeof(*off));
	fill = malloc(((size_t)base + 1) * sizeof(*fill));
	if (!off || !fill) {
		free(sorted);
		free(off);
		free(fill);
		return -ENOMEM;
	}
	/* by row, then time: a stable counting sort of the tasks by start time */
	for (uint32_t i = 0; i < m->ntasks; i++)
		sorted[i] = i;
	if (m->ntasks > 1)
		qsort_r(sorted, m->ntasks, sizeof(*sorted), by_created, (void *)m);
	for (uint32_t i = 0; i < m->ntasks; i++)
		off[row[i] + 1]++;
	for (uint32_t r = 0; r < base; r++)
		off[r + 1] += off[r];
	memcpy(fill, off, ((size_t)base + 1) * sizeof(*fill));
	for (uint32_t i = 0; i < m->ntasks; i++)
		s->row_task[fill[row[sorted[i]]]++] = sorted[i];
	free(fill);
	free(sorted);
	s->row_off = off;
	return 0;
}

/* ---- arrows, with the create and becomes lines, by length class then start ------ */

static int arrow_cmp(const void *a, const void *b)
{
	const struct rtr_scene_arrow *x = a, *y = b;

	if (x->cls != y->cls)
		return x->cls < y->cls ? -1 : 1;
	if (x->tf != y->tf)
		return x->tf < y->tf ? -1 : 1;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

static uint8_t length_class(int64_t tf, int64_t ts)
{
	uint64_t l = ts > tf ? (uint64_t)ts - (uint64_t)tf : 0;

	return l ? (uint8_t)(64 - __builtin_clzll(l)) : 0;
}

static int collect_arrows(struct rtr_scene *s)
{
	const struct rtr_model *m = s->m;
	struct rtr_scene_arrow *a = malloc(((size_t)m->narrows + 2 * (size_t)m->ntasks + 1) * sizeof(*a));
	uint32_t k = 0;

	if (!a)
		return -ENOMEM;
	for (uint32_t i = 0; i < m->narrows; i++) {
		const struct rtr_model_arrow *x = &m->arrows[i];

		a[k++] = (struct rtr_scene_arrow){ .tf = x->t_from, .ts = x->ts, .from = x->from,
			.to = x->to, .kind = x->kind, .flags = x->flags };
	}
	for (uint32_t i = 0; i < m->ntasks; i++) {
		const struct rtr_model_task *t = &m->tasks[i];

		if ((t->flags & RTR_TASK_CREATED) && t->parent != RTR_MODEL_NONE)
			a[k++] = (struct rtr_scene_arrow){ .tf = t->created, .ts = t->created,
				.from = t->parent, .to = i, .kind = RTR_SCENE_ARROW_CREATE };
		if (t->becomes != RTR_MODEL_NONE)
			a[k++] = (struct rtr_scene_arrow){ .tf = t->becomes_ts, .ts = t->becomes_ts,
				.from = i, .to = t->becomes, .kind = RTR_SCENE_ARROW_BECOMES };
	}
	for (uint32_t i = 0; i < k; i++)
		a[i].cls = length_class(a[i].tf, a[i].ts);
	if (k > 1)
		qsort(a, k, sizeof(*a), arrow_cmp);
	memset(s->class_off, 0, sizeof(s->class_off));
	for (uint32_t i = 0; i < k; i++)
		s->class_off[a[i].cls + 1]++;
	for (int b = 0; b < RTR_SCENE_NCLASSES; b++)
		s->class_off[b + 1] += s->class_off[b];
	s->arrows = a;
	s->narrows = k;
	return 0;
}

/* ---- simplify_binds (mirage's): an idle bind drawn from its first read -------------------- */

static bool bind_like(const char *kind)
{
	static const char *const names[] = { "bind", "try", "map", "ignore_result", "on_success",
					     "on_failure", "on_termination", "on_any" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(kind, names[i]))
			return true;
	return false;
}

static int by_start(const void *a, const void *b)
{
	const struct rtr_scene_arrow *x = a, *y = b;

	if (x->tf != y->tf)
		return x->tf < y->tf ? -1 : 1;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/*
 * A bind-like task read before anyone used it (waited for it or read it)
 * sat idle until its input was ready: its line starts at that read, its
 * creation line comes from the input at that time.
 */
int rtr_scene_binds(const struct rtr_scene *s, struct rtr_scene_bind **out, uint32_t *nout)
{
	const struct rtr_model *m = s->m;
	uint32_t n = m->ntasks, nb = 0;
	int64_t *read_at = malloc(((size_t)n + 1) * sizeof(*read_at));
	int64_t *used_at = malloc(((size_t)n + 1) * sizeof(*used_at));
	uint32_t *read_from = malloc(((size_t)n + 1) * sizeof(*read_from));
	uint32_t *created = malloc(((size_t)n + 1) * sizeof(*created));
	struct rtr_scene_bind *b = NULL;
	int ret = -ENOMEM;

	*out = NULL;
	*nout = 0;
	if (!read_at || !used_at || !read_from || !created)
		goto out;
	for (uint32_t t = 0; t < n; t++) {
		read_at[t] = used_at[t] = INT64_MAX;
		read_from[t] = created[t] = RTR_MODEL_NONE;
	}
	for (uint32_t i = 0; i < s->narrows; i++) {
		const struct rtr_scene_arrow *a = &s->arrows[i];

		if (a->from >= n || a->to >= n)
			continue;
		if (a->kind == RTR_ARROW_READ && a->ts < read_at[a->to]) {
			read_at[a->to] = a->ts;
			read_from[a->to] = a->from;
		}
		if ((a->kind == RTR_ARROW_READ || a->kind == RTR_ARROW_TRY_READ) && a->ts < used_at[a->from])
			used_at[a->from] = a->ts;
		if (a->kind == RTR_SCENE_ARROW_CREATE)
			created[a->to] = i;
	}
	/* used as a mark: which tasks are simplified, counted first */
	for (uint32_t t = 0; t < n; t++) {
		const struct rtr_model_task *k = &m->tasks[t];
		int64_t r = read_at[t];

		if (read_from[t] == RTR_MODEL_NONE || created[t] == RTR_MODEL_NONE ||
		    used_at[t] < r || r <= k->created || r > k->end ||
		    !bind_like(rtr_model_str(m, k->kind_name)))
			read_from[t] = RTR_MODEL_NONE;
		else
			nb++;
	}
	b = malloc(((size_t)nb + 1) * sizeof(*b));
	if (!b)
		goto out;
	nb = 0;
	for (uint32_t t = 0; t < n; t++) {
		if (read_from[t] != RTR_MODEL_NONE)
			b[nb++] = (struct rtr_scene_bind){.task = t,
							  .arrow = created[t],
							  .from = read_from[t],
							  .start = read_at[t]};
	}
	*out = b;
	*nout = nb;
	ret = 0;
out:
	free(read_at);
	free(used_at);
	free(read_from);
	free(created);
	return ret;
}

/* rtr_scene_binds() applied; the create lines are of length 0 (class 0): that class sorted again.
 */
static int simplify_binds(struct rtr_scene *s)
{
	struct rtr_scene_bind *b;
	uint32_t n;

	if (rtr_scene_binds(s, &b, &n))
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		struct rtr_scene_arrow *c = &s->arrows[b[i].arrow];

		s->task_start[b[i].task] = b[i].start;
		c->from = b[i].from;
		c->tf = c->ts = b[i].start;
	}
	s->simplified = n;
	free(b);
	if (s->simplified && s->class_off[1] > s->class_off[0] + 1)
		qsort(s->arrows + s->class_off[0], s->class_off[1] - s->class_off[0],
		      sizeof(*s->arrows), by_start);
	return 0;
}

bool rtr_scene_arrow_failed(const struct rtr_scene *s, const struct rtr_scene_arrow *a)
{
	if (a->kind == RTR_ARROW_READ)
		return a->from < s->m->ntasks && (s->m->tasks[a->from].flags & RTR_TASK_FAILED);
	return a->kind == RTR_ARROW_RESOLVE && (a->flags & RTR_ARROW_FAILURE);
}

bool rtr_scene_arrow_remote(const struct rtr_scene_arrow *a)
{
	return a->kind == RTR_ARROW_READ && (a->flags & RTR_ARROW_REMOTE);
}

bool rtr_scene_arrow_hidden(const struct rtr_scene_arrow *a)
{
	return (a->kind == RTR_ARROW_TRY_READ || a->kind == RTR_ARROW_SIGNAL) &&
	       (a->flags & RTR_ARROW_HIDDEN);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The summaries of the arrows: an index keeping the best of any range
 * (by class then start, as s->arrows), the visible arrows' ends by kind then
 * time (counted per pixel when there are too many to draw), and the list of
 * failures in the arrows' order (each drawn, whatever the zoom).
 */
static int arrow_summaries(struct rtr_scene *s)
{
	uint32_t n = s->narrows, fill[RTR_SCENE_ARROW_KINDS];

	uint64_t *key = malloc(((size_t)n + 1) * sizeof(*key));

	s->arrow_rank = malloc((size_t)n + 1);
	s->arrow_tf = malloc(((size_t)n + 1) * sizeof(*s->arrow_tf));
	s->kind_ts = malloc(((size_t)n + 1) * sizeof(*s->kind_ts));
	s->failed = malloc(((size_t)n + 1) * sizeof(*s->failed));
	if (!key || !s->arrow_rank || !s->arrow_tf || !s->kind_ts || !s->failed) {
		free(key);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < n; i++) {
		s->arrow_rank[i] = rtr_scene_arrow_hidden(&s->arrows[i]) ? 0 :
				   rtr_scene_arrow_failed(s, &s->arrows[i]) ? 2 : 1;
		key[i] = lod_key(s->arrow_rank[i], s->arrows[i].ts - s->arrows[i].tf);
		s->arrow_tf[i] = s->arrows[i].tf;
	}
	if (rtr_lod_build(&s->arrow_idx, key, n))
		return -ENOMEM;
	memset(s->kind_off, 0, sizeof(s->kind_off));
	for (uint32_t i = 0; i < n; i++)
		if (!rtr_scene_arrow_hidden(&s->arrows[i]) && s->arrows[i].kind < RTR_SCENE_ARROW_KINDS)
			s->kind_off[s->arrows[i].kind + 1]++;
	for (int k = 0; k < RTR_SCENE_ARROW_KINDS; k++)
		s->kind_off[k + 1] += s->kind_off[k];
	memcpy(fill, s->kind_off, sizeof(fill));
	s->nfailed = 0;
	for (uint32_t i = 0; i < n; i++) {
		const struct rtr_scene_arrow *a = &s->arrows[i];

		if (!rtr_scene_arrow_hidden(a) && a->kind < RTR_SCENE_ARROW_KINDS)
			s->kind_ts[fill[a->kind]++] = a->ts;
		if (rtr_scene_arrow_failed(s, a))
			s->failed[s->nfailed++] = i;
	}
	for (int k = 0; k < RTR_SCENE_ARROW_KINDS; k++)
		qsort(s->kind_ts + s->kind_off[k], s->kind_off[k + 1] - s->kind_off[k],
		      sizeof(*s->kind_ts), cmp_i64);
	return 0;
}

/* ---- --align start: each trace on its own time origin ---------------------------- */

static int cmp_note(const void *a, const void *b)
{
	const struct rtr_model_note *x = a, *y = b;

	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

static int cmp_pause(const void *a, const void *b)
{
	const struct rtr_model_pause *x = a, *y = b;

	return x->end < y->end ? -1 : x->end > y->end;
}

static int cmp_loss(const void *a, const void *b)
{
	const struct rtr_model_loss *x = a, *y = b;

	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

static int cmp_cpu_sample(const void *a, const void *b)
{
	const struct rtr_model_cpu_sample *x = a, *y = b;

	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

static int cmp_hold(const void *a, const void *b)
{
	const struct rtr_model_hold *x = a, *y = b;

	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* by time, then CPU, then reading order (where fields are kept: the pool only grows) */
static int cmp_marker(const void *a, const void *b)
{
	const struct rtr_model_marker *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->fields < y->fields ? -1 : x->fields > y->fields;
}

/*
 * align_starts() - move every trace of @m in time so that each begins where
 * the earliest does.  What is sorted by time across traces is sorted again.
 */
static int align_starts(struct rtr_model *m)
{
	int64_t *d = calloc(m->ntraces ? m->ntraces : 1, sizeof(*d)), end = m->start;

	if (!d)
		return -ENOMEM;
	for (uint32_t i = 0; i < m->ntraces; i++) {
		struct rtr_model_trace *t = &m->traces[i];

		d[i] = t->events ? t->first - m->start : 0;
		t->first -= d[i];
		t->last -= d[i];
		if (t->last > end)
			end = t->last;
	}
#define CPU_D(c) d[m->cpus[(c)].trace]
	for (uint32_t i = 0; i < m->ntasks; i++) {
		struct rtr_model_task *t = &m->tasks[i];

		t->created -= d[t->trace];
		t->end -= d[t->trace];
		if (t->flags & RTR_TASK_RESOLVED)
			t->resolved -= d[t->trace];
		if (t->becomes != RTR_MODEL_NONE)
			t->becomes_ts -= d[t->trace];
	}
	for (uint32_t i = 0; i < m->nlabels; i++)
		m->labels[i].ts -= d[m->tasks[m->labels[i].task].trace];
	for (uint32_t i = 0; i < m->nruns; i++) {
		m->runs[i].start -= CPU_D(m->runs[i].cpu);
		m->runs[i].end -= CPU_D(m->runs[i].cpu);
	}
	for (uint32_t i = 0; i < m->narrows; i++) {
		m->arrows[i].ts -= CPU_D(m->arrows[i].cpu);
		m->arrows[i].t_from -= CPU_D(m->arrows[i].cpu);
	}
	for (uint32_t i = 0; i < m->ncounters; i++) {
		const struct rtr_model_counter *k = &m->counters[i];

		for (uint32_t j = k->sample_first; j < k->sample_first + k->nsamples; j++)
			m->samples[j].ts -= d[k->trace];
	}
	for (uint32_t i = 0; i < m->nnotes; i++)
		m->notes[i].ts -= CPU_D(m->notes[i].cpu);
	for (uint32_t i = 0; i < m->npauses; i++) {
		m->pauses[i].start -= CPU_D(m->pauses[i].cpu);
		m->pauses[i].end -= CPU_D(m->pauses[i].cpu);
	}
	for (uint32_t i = 0; i < m->nlosses; i++)
		m->losses[i].ts -= CPU_D(m->losses[i].cpu);
	for (uint32_t i = 0; i < m->ndamage; i++)
		if (m->damage[i].ts)
			m->damage[i].ts -= d[m->damage[i].trace];
	for (uint32_t i = 0; i < m->nmarkers; i++)
		m->markers[i].ts -= CPU_D(m->markers[i].cpu);
	for (uint32_t i = 0; i < m->ncpu_samples; i++)
		m->cpu_samples[i].ts -= d[m->tasks[m->cpu_samples[i].task].trace];
	for (uint32_t i = 0; i < m->nholds; i++)
		m->holds[i].ts -= d[m->tasks[m->holds[i].lock].trace];
	for (uint32_t i = 0; i < m->ncpus; i++) {
		if (m->cpus[i].first || m->cpus[i].last) {
			m->cpus[i].first -= CPU_D(i);
			m->cpus[i].last -= CPU_D(i);
		}
	}
#undef CPU_D
	if (m->nnotes > 1)
		qsort(m->notes, m->nnotes, sizeof(*m->notes), cmp_note);
	if (m->npauses > 1)
		qsort(m->pauses, m->npauses, sizeof(*m->pauses), cmp_pause);
	if (m->nlosses > 1)
		qsort(m->losses, m->nlosses, sizeof(*m->losses), cmp_loss);
	if (m->nmarkers > 1)
		qsort(m->markers, m->nmarkers, sizeof(*m->markers), cmp_marker);
	if (m->ncpu_samples > 1)
		qsort(m->cpu_samples, m->ncpu_samples, sizeof(*m->cpu_samples), cmp_cpu_sample);
	if (m->nholds > 1)
		qsort(m->holds, m->nholds, sizeof(*m->holds), cmp_hold);
	m->end = end;
	free(d);
	return 0;
}

/* ---- sleeping regions: where no task of a trace runs ------------------------------- */

static int push_pair(int64_t **out, size_t *n, size_t *cap, int64_t a, int64_t b)
{
	if (*n + 2 > *cap) {
		int64_t *p = realloc(*out, 2 * *cap * sizeof(**out));

		if (!p)
			return -ENOMEM;
		*out = p;
		*cap *= 2;
	}
	(*out)[(*n)++] = a;
	(*out)[(*n)++] = b;
	return 0;
}

/*
 * Between a trace's first and last item, where none of its CPUs runs a task:
 * the union of its runs, swept over their sorted starts and ends; the gaps
 * are the sleeping regions.  A trace with no runs has none.
 */
static int sleeping(struct rtr_scene *s)
{
	const struct rtr_model *m = s->m;
	size_t cap = 16, n = 0;
	int64_t *S = malloc(((size_t)m->nruns + 1) * sizeof(*S));
	int64_t *E = malloc(((size_t)m->nruns + 1) * sizeof(*E));
	int64_t *out = malloc(cap * sizeof(*out));

	s->sleep_off = calloc((size_t)m->ntraces + 1, sizeof(*s->sleep_off));
	if (!S || !E || !out || !s->sleep_off)
		goto oom;
	for (uint32_t tr = 0; tr < m->ntraces; tr++) {
		const struct rtr_model_trace *t = &m->traces[tr];
		int64_t first = INT64_MAX, last = INT64_MIN, at;
		uint32_t k = 0, a = 0, b = 0, active = 0;

		s->sleep_off[tr] = (uint32_t)(n / 2);
		for (uint32_t c = t->cpu_first; c < t->cpu_first + t->ncpus && c < m->ncpus; c++) {
			const struct rtr_model_cpu *cpu = &m->cpus[c];

			first = cpu->first < first ? cpu->first : first;
			last = cpu->last > last ? cpu->last : last;
			for (uint32_t j = cpu->run_first; j < cpu->run_first + cpu->nruns && j < m->nruns;
			     j++, k++) {
				S[k] = m->runs[m->cpu_runs[j]].start;
				E[k] = m->runs[m->cpu_runs[j]].end;
			}
		}
		if (!k)
			continue;
		qsort(S, k, sizeof(*S), cmp_i64);
		qsort(E, k, sizeof(*E), cmp_i64);
		at = first;
		while (a < k || b < k) {
			if (a < k && (b >= k || S[a] <= E[b])) {
				if (!active && S[a] > at && push_pair(&out, &n, &cap, at, S[a]))
					goto oom;
				active++;
				a++;
			} else {
				if (active && --active == 0)
					at = E[b];
				b++;
			}
		}
		if (last > at && push_pair(&out, &n, &cap, at, last))
			goto oom;
	}
	s->sleep_off[m->ntraces] = (uint32_t)(n / 2);
	s->sleep = out;
	free(S);
	free(E);
	return 0;
oom:
	free(S);
	free(E);
	free(out);
	return -ENOMEM;
}

/* ---- the level-of-detail summaries --------------------------------------------------- */

/* The arrays by position: the caller has set n, nlanes, off, item. */
static int lod_alloc(struct rtr_scene_lod *l)
{
	size_t n = (size_t)l->n + 1;

	l->start = malloc(n * sizeof(*l->start));
	l->end = malloc(n * sizeof(*l->end));
	l->mark = calloc(n, sizeof(*l->mark));
	return l->start && l->end && l->mark ? 0 : -ENOMEM;
}

static int lod_index(struct rtr_scene_lod *l)
{
	uint64_t *key = malloc(((size_t)l->n + 1) * sizeof(*key));

	if (!key)
		return -ENOMEM;
	for (uint32_t i = 0; i < l->n; i++)
		key[i] = lod_key(l->mark[i], l->end[i] - l->start[i]);
	return rtr_lod_build(&l->idx, key, l->n);
}

static void lod_free(struct rtr_scene_lod *l)
{
	free(l->start);
	free(l->end);
	free(l->mark);
	rtr_lod_free(&l->idx);
	memset(l, 0, sizeof(*l));
}

/* The markers' lanes in @l: @lane_of(marker) (RTR_MODEL_NONE: none), @nlanes of them. */
static int marker_lod(struct rtr_scene *s, struct rtr_scene_lod *l, uint32_t nlanes, bool by_thread,
		      uint32_t *off, uint32_t *item)
{
	const struct rtr_model *m = s->m;
	uint32_t n = 0;

	memset(off, 0, ((size_t)nlanes + 1) * sizeof(*off));
	for (uint32_t i = 0; i < m->nmarkers; i++) {
		uint32_t lane = by_thread ? m->markers[i].thread : m->markers[i].cpu;

		if (lane < nlanes)
			off[lane + 1]++;
	}
	for (uint32_t i = 0; i < nlanes; i++)
		off[i + 1] += off[i];
	n = off[nlanes];
	/* by lane, each lane's in time order (the markers are by time): a counting sort */
	{
		uint32_t *fill = malloc(((size_t)nlanes + 1) * sizeof(*fill));

		if (!fill)
			return -ENOMEM;
		memcpy(fill, off, ((size_t)nlanes + 1) * sizeof(*fill));
		for (uint32_t i = 0; i < m->nmarkers; i++) {
			uint32_t lane = by_thread ? m->markers[i].thread : m->markers[i].cpu;

			if (lane < nlanes)
				item[fill[lane]++] = i;
		}
		free(fill);
	}
	*l = (struct rtr_scene_lod){ .n = n, .nlanes = nlanes, .off = off, .item = item };
	if (lod_alloc(l))
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		l->start[i] = l->end[i] = m->markers[item[i]].ts;
	return lod_index(l);
}

/* The markers on their CPUs' lanes and on their threads'. */
static int marker_lanes(struct rtr_scene *s)
{
	const struct rtr_model *m = s->m;
	size_t nc = (size_t)m->ncpus + 1, nt = (size_t)m->nthreads + 1, nm = (size_t)m->nmarkers;
	uint32_t *b = malloc((nc + nt + 2 * nm + 1) * sizeof(*b));

	if (!b)
		return -ENOMEM;
	s->mark_buf = b;
	if (marker_lod(s, &s->cpu_marks, m->ncpus, false, b, b + nc) ||
	    marker_lod(s, &s->thread_marks, m->nthreads, true, b + nc + nm, b + nc + nm + nt))
		return -ENOMEM;
	return 0;
}

static int summaries(struct rtr_scene *s)
{
	const struct rtr_model *m = s->m;
	struct rtr_scene_lod *r = &s->rows, *c = &s->lanes;
	uint32_t *lane_off;

	*r = (struct rtr_scene_lod){ .n = m->ntasks, .nlanes = s->nrows, .off = s->row_off,
				     .item = s->row_task };
	if (lod_alloc(r))
		return -ENOMEM;
	for (uint32_t i = 0; i < m->ntasks; i++) {
		const struct rtr_model_task *t = &m->tasks[s->row_task[i]];

		r->start[i] = s->task_start[s->row_task[i]];
		r->end[i] = t->end;
		r->mark[i] = (t->flags & RTR_TASK_NEVER_RESOLVED) ? 2 : (t->flags & RTR_TASK_FAILED) ? 1 : 0;
	}
	if (lod_index(r))
		return -ENOMEM;

	lane_off = malloc(((size_t)m->ncpus + 1) * sizeof(*lane_off));
	if (!lane_off)
		return -ENOMEM;
	*c = (struct rtr_scene_lod){ .n = m->nruns, .nlanes = m->ncpus, .off = lane_off,
				     .item = m->cpu_runs };
	lane_off[0] = 0;
	for (uint32_t i = 0; i < m->ncpus; i++) {
		/* each CPU's runs are cpu_runs[run_first .. +nruns], CPUs in order */
		uint32_t e = m->cpus[i].run_first + m->cpus[i].nruns;

		lane_off[i + 1] = e > m->nruns || e < lane_off[i] ? lane_off[i] : e;
	}
	if (lod_alloc(c))
		return -ENOMEM;
	for (uint32_t i = 0; i < m->nruns; i++) {
		const struct rtr_model_run *run = &m->runs[m->cpu_runs[i]];

		c->start[i] = run->start;
		c->end[i] = run->end;
	}
	if (lod_index(c))
		return -ENOMEM;
	return marker_lanes(s);
}

/*
 * The counters' samples: two segment trees (the smallest and the largest
 * value of any range, O(log n)), over all counters' samples at once (each
 * counter's are contiguous).
 */
static int sample_trees(struct rtr_scene *s)
{
	const struct rtr_model *m = s->m;
	uint32_t n = m->nsamples;

	s->sample_min = malloc(2 * ((size_t)n + 1) * sizeof(*s->sample_min));
	s->sample_max = malloc(2 * ((size_t)n + 1) * sizeof(*s->sample_max));
	if (!s->sample_min || !s->sample_max)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		s->sample_min[n + i] = s->sample_max[n + i] = m->samples[i].value;
	for (uint32_t p = n - 1; n && p >= 1; p--) {
		int64_t a = s->sample_min[2 * p], b = s->sample_min[2 * p + 1];
		int64_t c = s->sample_max[2 * p], d = s->sample_max[2 * p + 1];

		s->sample_min[p] = a < b ? a : b;
		s->sample_max[p] = c > d ? c : d;
	}
	return 0;
}

void rtr_scene_sample_range(const struct rtr_scene *s, uint32_t lo, uint32_t hi, int64_t *min,
			    int64_t *max)
{
	uint32_t n = s->m->nsamples;

	for (lo += n, hi += n; lo < hi; lo /= 2, hi /= 2) {
		if (lo & 1) {
			*min = s->sample_min[lo] < *min ? s->sample_min[lo] : *min;
			*max = s->sample_max[lo] > *max ? s->sample_max[lo] : *max;
			lo++;
		}
		if (hi & 1) {
			hi--;
			*min = s->sample_min[hi] < *min ? s->sample_min[hi] : *min;
			*max = s->sample_max[hi] > *max ? s->sample_max[hi] : *max;
		}
	}
}

/* The locks' holds (rtr_lock_holds(), by start), grouped by lock: a stable counting sort. */
static int lock_holds(struct rtr_scene *s)
{
	const struct rtr_model *m = s->m;
	struct rtr_lock_hold *h, *by;
	uint32_t n, *first = calloc((size_t)m->ntasks + 2, sizeof(*first));

	if (!first)
		return -ENOMEM;
	if (rtr_lock_holds(m, &h, &n)) {
		free(first);
		return -ENOMEM;
	}
	if (!(by = malloc(((size_t)n + 1) * sizeof(*by)))) {
		free(h);
		free(first);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < n; i++)
		first[h[i].lock + 2]++;
	for (uint32_t k = 0; k < m->ntasks; k++)
		first[k + 2] += first[k + 1];
	for (uint32_t i = 0; i < n; i++)
		by[first[h[i].lock + 1]++] = h[i];
	free(h);
	s->holds = by;
	s->nholds = n;
	s->hold_first = first;	/* first[k] .. first[k + 1]: lock k's */
	return 0;
}

/* The CPU samples' times by task (rtr_model.cpu_samples is by time): a counting sort. */
static int cpu_samples(struct rtr_scene *s)
{
	const struct rtr_model *m = s->m;
	uint32_t *first = calloc((size_t)m->ntasks + 2, sizeof(*first));
	int64_t *ts = malloc(((size_t)m->ncpu_samples + 1) * sizeof(*ts));

	if (!first || !ts) {
		free(first);
		free(ts);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < m->ncpu_samples; i++)
		if (m->cpu_samples[i].task < m->ntasks)
			first[m->cpu_samples[i].task + 2]++;
	for (uint32_t k = 0; k < m->ntasks; k++)
		first[k + 2] += first[k + 1];
	for (uint32_t i = 0; i < m->ncpu_samples; i++)
		if (m->cpu_samples[i].task < m->ntasks)
			ts[first[m->cpu_samples[i].task + 1]++] = m->cpu_samples[i].ts;
	s->cpu_sample_ts = ts;
	s->cpu_sample_first = first;	/* first[k] .. first[k + 1]: task k's */
	return 0;
}

int rtr_scene_build(struct rtr_scene *s, struct rtr_model *m, unsigned flags)
{
	int ret = -ENOMEM;

	memset(s, 0, sizeof(*s));
	s->m = m;
	s->aligned = flags & RTR_SCENE_ALIGN_START;
	if (s->aligned && align_starts(m))
		goto fail;
	s->task_row = malloc(((size_t)m->ntasks + 1) * sizeof(*s->task_row));
	s->row_task = malloc(((size_t)m->ntasks + 1) * sizeof(*s->row_task));
	s->trace_row = malloc(((size_t)m->ntraces + 1) * sizeof(*s->trace_row));
	s->task_start = malloc(((size_t)m->ntasks + 1) * sizeof(*s->task_start));
	if (!s->task_row || !s->row_task || !s->trace_row || !s->task_start)
		goto fail;
	for (uint32_t i = 0; i < m->ntasks; i++)
		s->task_start[i] = m->tasks[i].created;
	if ((ret = layout(s)) || (ret = collect_arrows(s)) ||
	    ((flags & RTR_SCENE_SIMPLIFY_BINDS) && (ret = simplify_binds(s))) || (ret = arrow_summaries(s)) ||
	    (ret = sleeping(s)) || (ret = summaries(s)) || (ret = sample_trees(s)) ||
	    (ret = lock_holds(s)) || (ret = cpu_samples(s)))
		goto fail;
	return 0;
fail:
	rtr_scene_free(s);
	return ret;
}

void rtr_scene_free(struct rtr_scene *s)
{
	free(s->task_row);
	free(s->row_off);
	free(s->row_task);
	free(s->trace_row);
	free(s->task_start);
	free(s->arrows);
	free(s->sleep);
	free(s->sleep_off);
	lod_free(&s->rows);
	free((void *)s->lanes.off);
	lod_free(&s->lanes);
	lod_free(&s->cpu_marks);
	lod_free(&s->thread_marks);
	free(s->mark_buf);
	rtr_lod_free(&s->arrow_idx);
	free(s->arrow_rank);
	free(s->arrow_tf);
	free(s->sample_min);
	free(s->sample_max);
	free(s->kind_ts);
	free(s->failed);
	free(s->holds);
	free(s->hold_first);
	free(s->cpu_sample_ts);
	free(s->cpu_sample_first);
	memset(s, 0, sizeof(*s));
}

const char *rtr_scene_arrow_kind_name(unsigned kind)
{
	static const char *const names[RTR_SCENE_ARROW_KINDS] = {
		"read", "try_read", "resolve", "signal", "create", "becomes",
	};

	return kind < RTR_SCENE_ARROW_KINDS ? names[kind] : "unknown";
}

const char *rtr_scene_task_name(const struct rtr_scene *s, uint32_t task, char *buf, size_t len)
{
	const struct rtr_model_task *t = &s->m->tasks[task];
	const char *name = rtr_model_str(s->m, t->name);

	if (*name)
		return name;
	snprintf(buf, len, "#%" PRIu64, t->id);
	return buf;
}
