// SPDX-License-Identifier: MIT
/*
 * tests/tools/test_index.c - the index beside a trace (reader/index.h):
 * a cursor started at any entry reads what a read from the start reads
 * from there; an index extended while a trace grows equals one built
 * afterwards; a damaged or stale index is rebuilt; dump --slice prints
 * exactly the full dump's lines of its range.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include "examples/stress/harness.h"
#include "reader/cursor.h"
#include "reader/index.h"
#include "reader/model.h"
#include "reader/trace.h"
#include "tests/helpers.h"
#include "view/overview.h"

/* A trace of two streams with losses (a slow consumer in discard mode), made once. */
static char work[] = "/dev/shm/rtr-index-XXXXXX";
static char trace[PATH_MAX];

static void make_trace(void)
{
	struct stress_cfg cfg = {
		.mode = RTR_MODE_DISCARD, .packet_size = 4096, .packets = 16, .writers = 2,
		.seconds = 30, .max_events = 60000, .consumer_delay_us = 5, .quiet = true,
	};
	struct stress_result res;

	cr_assert_not_null(mkdtemp(work));
	cfg.dir = work;
	cr_assert_eq(stress_run(&cfg, &res), 0, "%s", res.why);
	cr_assert(res.ok, "%s", res.why);
	snprintf(trace, sizeof(trace), "%s/trace", work);
}

static void drop_trace(void)
{
	t_rm_rf(work);
}

/* Run the shell command @fmt...; its output (stdout and what it sends there). */
__attribute__((format(printf, 2, 3)))
static char *sh(int *status, const char *fmt, ...)
{
	char cmd[4 * PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return t_sh(cmd, status);
}

TestSuite(tools_index, .init = make_trace, .fini = drop_trace, .timeout = 300);

struct item {
	int64_t r;		/* no padding: items are compared with memcmp */
	uint64_t ts, off, lost, pkt;
};

/* Every item of stream @i of @t from @c's position on. */
static struct item *read_all(struct tr_cursor *c, size_t *n)
{
	size_t cap = 1024;
	struct item *v = malloc(cap * sizeof(*v));
	int r;

	cr_assert_not_null(v);
	*n = 0;
	while ((r = tr_next(c)) != TR_END) {
		if (*n == cap)
			cr_assert_not_null(v = realloc(v, (cap *= 2) * sizeof(*v)));
		v[(*n)++] = (struct item){ r, c->ts, r == TR_EVENT ? c->off : 0,
					   r == TR_EVENT ? 0 : c->lost, c->pkt_off };
		if (r == TR_ERROR)
			break;
	}
	return v;
}

static void copy_file(const char *from, const char *to, uint64_t len)
{
	char cmd[3 * PATH_MAX];

	snprintf(cmd, sizeof(cmd), "head -c %" PRIu64 " '%s' > '%s'", len, from, to);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
}

static void expect_same_index(const struct tr_index *a, const struct tr_index *b)
{
	cr_assert_eq(a->nstreams, b->nstreams);
	cr_expect_eq(a->events, b->events);
	for (uint32_t i = 0; i < a->nstreams; i++) {
		cr_assert_eq(a->s[i].n, b->s[i].n, "%s: %u entries, not %u", a->s[i].name,
			     a->s[i].n, b->s[i].n);
		cr_expect_eq(a->s[i].done, b->s[i].done);
		cr_expect(!a->s[i].n || !memcmp(a->s[i].e, b->s[i].e, a->s[i].n * sizeof(a->s[i].e[0])),
			  "%s: entries differ", a->s[i].name);
	}
}

Test(tools_index, a_cursor_started_at_any_entry_reads_as_from_the_start)
{
	struct tr_trace t;
	struct tr_index ix;
	char err[512];
	uint64_t lost = 0;

	cr_assert_eq(tr_open(&t, trace, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(tr_index_open(&ix, &t), 0);
	cr_assert_eq(ix.how, TR_INDEX_BUILT, "%d", ix.how);
	cr_assert(ix.saved, "%s", ix.why);
	cr_assert_eq(ix.nstreams, 2);
	for (uint32_t i = 0; i < t.nstreams; i++) {
		const struct tr_index_stream *s = &ix.s[i];
		struct tr_cursor c;
		struct item *all;
		size_t n, at = 0;
		uint64_t events = 0;

		tr_cursor_init(&c, &t, i);
		all = read_all(&c, &n);
		if (!n) {
			cr_expect_eq(s->n, 0, "%s: empty, %u entries", s->name, s->n);
			free(all);
			continue;	/* a CPU no writer ran on */
		}
		cr_assert(all[n - 1].r != TR_ERROR);
		cr_expect(!s->failed);
		for (size_t q = 0; q < n; q++) {
			events += all[q].r == TR_EVENT;
			lost += all[q].r != TR_EVENT ? all[q].lost : 0;
		}
		cr_expect_eq(s->events, events - c.threads, "%s", s->name);
		for (uint32_t k = 0; k < s->n; k++) {
			struct tr_cursor d;
			struct item *part;
			size_t m;

			/* entry k's first item: the first of the next packet with items */
			while (k && at < n && all[at].pkt == all[at > 0 ? at - 1 : 0].pkt)
				at++;
			cr_assert_lt(at, n);
			cr_expect_eq(s->e[k].first_ts, all[at].ts, "%s entry %u", s->name, k);
			tr_cursor_init(&d, &t, i);
			tr_cursor_seek(&d, s, k);
			part = read_all(&d, &m);
			cr_assert_eq(m, n - at, "%s entry %u: %zu items, not %zu", s->name, k, m,
				     n - at);
			for (size_t q = 0; q < m; q++) {
				const struct item *x = &part[q], *y = &all[at + q];

				cr_assert(!memcmp(x, y, sizeof(*x)),
					  "%s entry %u (of %u), item %zu: %d ts %" PRIu64 " off %" PRIu64
					  " lost %" PRIu64 " pkt %" PRIu64 ", not %d ts %" PRIu64
					  " off %" PRIu64 " lost %" PRIu64 " pkt %" PRIu64, s->name, k,
					  s->n, q, (int)x->r, x->ts, x->off, x->lost, x->pkt, (int)y->r,
					  y->ts, y->off, y->lost, y->pkt);
			}
			free(part);
			if (k + 1 < s->n)
				at++;
		}
		free(all);
	}
	/* the trace's shape depends on the host's load: said, not failed */
	if (!lost || ix.packets < 20)
		cr_log_warn("a weaker check: %" PRIu64 " events lost, %" PRIu64 " entries", lost,
			    ix.packets);
	/* found again: reused, unchanged */
	{
		struct tr_index again;

		cr_assert_eq(tr_index_open(&again, &t), 0);
		cr_expect_eq(again.how, TR_INDEX_REUSED, "%d: %s", again.how, again.why);
		expect_same_index(&ix, &again);
		tr_index_free(&again);
	}
	tr_index_free(&ix);
	tr_close(&t);
}

/* A copy of the trace whose stream files are cut to @frac of their sizes (any byte). */
static void grow_copy(const char *dst, const struct tr_trace *full, double frac)
{
	char from[PATH_MAX + 64], to[PATH_MAX + 64];

	snprintf(from, sizeof(from), "%s/metadata", trace);
	snprintf(to, sizeof(to), "%s/metadata", dst);
	copy_file(from, to, UINT64_MAX / 2);
	for (uint32_t i = 0; i < full->nstreams; i++) {
		uint64_t len = (uint64_t)((double)full->streams[i].size * frac) + 13 * i;
		int fd;

		if (len > full->streams[i].size)
			len = full->streams[i].size;
		snprintf(to, sizeof(to), "%s/%s", dst, full->streams[i].name);
		/* appended to in place, as a recorder does: the same inode */
		fd = open(to, O_WRONLY | O_CREAT | O_APPEND, 0600);
		cr_assert_geq(fd, 0);
		{
			struct stat st;
			uint64_t have;

			cr_assert_eq(fstat(fd, &st), 0);
			have = (uint64_t)st.st_size;
			if (len > have)
				cr_assert_eq(write(fd, full->streams[i].data + have, len - have),
					     (ssize_t)(len - have));
		}
		close(fd);
	}
}

Test(tools_index, extended_while_growing_equals_built_afterwards)
{
	char grow[PATH_MAX + 16], err[512];
	struct tr_trace full, t;
	struct tr_index ix, fresh;
	int extended = 0;

	cr_assert_eq(tr_open(&full, trace, err, sizeof(err)), 0, "%s", err);
	snprintf(grow, sizeof(grow), "%s/grow", work);
	cr_assert_eq(mkdir(grow, 0700), 0);
	for (int step = 1; step <= 8; step++) {
		grow_copy(grow, &full, step / 8.0 - (step < 8 ? 0.01 * step : 0));
		cr_assert_eq(tr_open(&t, grow, err, sizeof(err)), 0, "%s", err);
		cr_assert_eq(tr_index_open(&ix, &t), 0);
		cr_expect(ix.how == (step == 1 ? TR_INDEX_BUILT : TR_INDEX_EXTENDED),
			  "step %d: %d (%s)", step, ix.how, ix.why);
		extended += ix.how == TR_INDEX_EXTENDED;
		/* a packet cut in two is not indexed yet, and said */
		if (step < 8) {
			bool any = false;

			for (uint32_t i = 0; i < ix.nstreams; i++)
				any |= ix.s[i].failed;
			cr_expect(any, "step %d: a stream ends inside a packet", step);
		}
		tr_index_free(&ix);
		tr_close(&t);
	}
	cr_expect_eq(extended, 7);
	/* the grown copy's index, reused, against one built on the whole trace */
	cr_assert_eq(tr_open(&t, grow, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(tr_index_open(&ix, &t), 0);
	cr_expect_eq(ix.how, TR_INDEX_REUSED, "%d: %s", ix.how, ix.why);
	unlink(strcat(strcpy(err, trace), "/" TR_INDEX_FILE));
	cr_assert_eq(tr_index_open(&fresh, &full), 0);
	cr_expect_eq(fresh.how, TR_INDEX_BUILT);
	expect_same_index(&ix, &fresh);
	for (uint32_t i = 0; i < ix.nstreams; i++)
		cr_expect(!ix.s[i].failed);
	tr_index_free(&ix);
	tr_index_free(&fresh);
	tr_close(&t);
	tr_close(&full);
}

/* Open @dir's index: it must be built again (not trusted) with @why in its reason, and right. */
static void expect_rebuilt(const char *dir, const struct tr_index *good, const char *why)
{
	struct tr_trace t;
	struct tr_index ix;
	char err[512];

	cr_assert_eq(tr_open(&t, dir, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(tr_index_open(&ix, &t), 0);
	cr_expect(ix.how != TR_INDEX_REUSED, "%s: reused", why);
	cr_expect_not_null(strstr(ix.why, why), "'%s' in '%s'", why, ix.why);
	if (good)
		expect_same_index(&ix, good);
	tr_index_free(&ix);
	tr_close(&t);
}

static void patch_file(const char *path, long at, int whence, uint8_t x)
{
	FILE *f = fopen(path, "r+b");
	int c;

	cr_assert_not_null(f, "%s", path);
	cr_assert_eq(fseek(f, at, whence), 0);
	c = fgetc(f);
	cr_assert_eq(fseek(f, -1, SEEK_CUR), 0);
	fputc(c ^ x, f);
	fclose(f);
}

Test(tools_index, a_damaged_or_stale_index_is_built_again)
{
	char path[PATH_MAX + 64], err[512], copy[PATH_MAX + 16], cmd[3 * PATH_MAX];
	struct tr_trace t;
	struct tr_index good;
	int big;

	snprintf(copy, sizeof(copy), "%s/stale", work);
	snprintf(cmd, sizeof(cmd), "cp -a '%s' '%s' && rm -f '%s/%s'", trace, copy, copy,
		 TR_INDEX_FILE);
	cr_assert_eq(system(cmd), 0);
	cr_assert_eq(tr_open(&t, copy, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(tr_index_open(&good, &t), 0);
	tr_close(&t);
	snprintf(path, sizeof(path), "%s/%s", copy, TR_INDEX_FILE);

	/* a byte of an entry flipped: the checksum */
	patch_file(path, -30, SEEK_END, 0x40);
	expect_rebuilt(copy, &good, "checksum");
	/* cut short */
	cr_assert_eq(truncate(path, 100), 0);
	expect_rebuilt(copy, &good, "checksum");
	/* not an index */
	patch_file(path, 0, SEEK_SET, 0x20);
	expect_rebuilt(copy, &good, "version");
	/* the metadata changed (a comment added): stale */
	snprintf(cmd, sizeof(cmd), "printf '\\n/* edited */\\n' >> '%s/metadata'", copy);
	cr_assert_eq(system(cmd), 0);
	expect_rebuilt(copy, NULL, "metadata");
	/* the stream with the most packets replaced by a copy of itself: another inode */
	big = good.s[1].n > good.s[0].n;
	snprintf(cmd, sizeof(cmd), "cd '%s' && cp stream_%d s && mv s stream_%d", copy, big, big);
	cr_assert_eq(system(cmd), 0);
	expect_rebuilt(copy, NULL, "replaced");
	/* a stream file cut in place below what was indexed: shorter */
	snprintf(cmd, sizeof(cmd), "truncate -s 8192 '%s/stream_%d'", copy, big);
	cr_assert_eq(system(cmd), 0);
	expect_rebuilt(copy, NULL, "shorter");
	/* rewritten in place, as long: its last packet read again differs */
	{
		struct tr_index now;

		cr_assert_eq(tr_open(&t, copy, err, sizeof(err)), 0, "%s", err);
		cr_assert_eq(tr_index_open(&now, &t), 0);
		cr_assert_eq(now.how, TR_INDEX_REUSED, "%s", now.why);
		if (now.s[!big].n)
			big = !big;	/* the other one, not cut, when it has packets */
		cr_assert_gt(now.s[big].n, 0);
		snprintf(path, sizeof(path), "%s/stream_%d", copy, big);
		/* a timestamp byte of the last packet's first record */
		patch_file(path, (long)now.s[big].e[now.s[big].n - 1].start + 64 + 2, SEEK_SET, 0x01);
		tr_index_free(&now);
		tr_close(&t);
	}
	snprintf(cmd, sizeof(cmd), "stream_%d changed", big);
	expect_rebuilt(copy, NULL, cmd);
	tr_index_free(&good);
}

/* The time of a dump --clock-seconds line "[SECONDS.nnnnnnnnn] ...", ns since the epoch. */
static int64_t line_ns(const char *l)
{
	long long sec;
	unsigned long ns;

	if (sscanf(l, "[%lld.%9lu]", &sec, &ns) != 2)
		return -1;
	return sec * 1000000000ll + (int64_t)ns;
}

Test(tools_index, dump_slice_prints_the_full_dumps_lines_of_its_range)
{
	char cmd[PATH_MAX + 256], err[512], *full, *part, *l, *dirs[] = { trace };
	struct rtr_model m;
	int64_t origin, t13 = 0, t23 = 0;
	size_t nl = 0, q = 0, want_len;
	char *want;
	int st;

	/* times count from the trace's first item (a thread record or a loss too): the model's origin */
	cr_assert_geq(rtr_model_load_flags(&m, dirs, 1, 0, err, sizeof(err)), 0, "%s", err);
	origin = m.origin_ns;
	rtr_model_free(&m);
	full = sh(&st, "'%s/ringtrace' dump --no-delta --clock-seconds '%s' 2>/dev/null",
		 t_bindir(), trace);
	cr_assert_eq(st, 0);
	for (l = full; *l && strchr(l, '\n'); l = strchr(l, '\n') + 1)
		nl++;
	cr_assert_gt(nl, 300);
	/*
	 * The boundaries in the middle of a gap of 4 ns or more between two
	 * lines, past a third and two thirds of them: a slice is exact to the
	 * clock's resolution (its cycles to ns, rounded), so a boundary within
	 * a nanosecond of an event could fall either side of it.
	 */
	{
		int64_t prev = -1;

		for (l = full; *l && strchr(l, '\n'); l = strchr(l, '\n') + 1, q++) {
			int64_t t = line_ns(l);

			cr_assert_geq(t, origin, "%.80s", l);
			if (q > nl / 3 && !t13 && prev >= 0 && t - prev >= 4)
				t13 = prev - origin + (t - prev) / 2;
			if (q > nl / 3 * 2 && !t23 && prev >= 0 && t - prev >= 4)
				t23 = prev - origin + (t - prev) / 2;
			prev = t;
		}
	}
	cr_assert_gt(t23, t13);
	/* three slices: a middle one, from the start, to the end */
	for (int k = 0; k < 3; k++) {
		int64_t a = k == 1 ? 0 : t13, b = k == 2 ? INT64_MAX : t23;

		want = malloc(strlen(full) + 1);
		cr_assert_not_null(want);
		want_len = 0;
		for (l = full; *l && strchr(l, '\n'); l = strchr(l, '\n') + 1) {
			int64_t t = line_ns(l) - origin;
			size_t n = (size_t)(strchr(l, '\n') + 1 - l);

			if (t >= a && t < b) {
				memcpy(want + want_len, l, n);
				want_len += n;
			}
		}
		want[want_len] = '\0';
		if (b == INT64_MAX)
			snprintf(cmd, sizeof(cmd), "'%s/ringtrace' dump --no-delta --clock-seconds "
				 "--slice %" PRId64 "ns.. '%s' 2>/dev/null", t_bindir(), a, trace);
		else
			snprintf(cmd, sizeof(cmd), "'%s/ringtrace' dump --no-delta --clock-seconds "
				 "--slice=%" PRId64 "ns..%" PRId64 "ns '%s' 2>/dev/null", t_bindir(),
				 a, b, trace);
		part = t_sh(cmd, &st);
		cr_assert_eq(st, 0, "%s", cmd);
		cr_assert_gt(want_len, 100);
		cr_expect_eq(strlen(part), want_len, "%s: %zu bytes, not %zu", cmd, strlen(part),
			     want_len);
		if (strcmp(part, want)) {
			FILE *f = fopen("/tmp/rtr-index-want.txt", "w");

			fputs(want, f);
			fclose(f);
			f = fopen("/tmp/rtr-index-got.txt", "w");
			fputs(part, f);
			fclose(f);
			cr_expect_fail("%s: the lines differ (/tmp/rtr-index-want.txt, -got.txt)", cmd);
		}
		free(part);
		free(want);
	}
	free(full);
	/* a wrong range is a usage error, said */
	part = sh(&st, "'%s/ringtrace' dump --slice 5ms..2ms '%s' 2>&1", t_bindir(),
		 trace);
	cr_expect_eq(st, 2, "%s", part);
	cr_expect_not_null(strstr(part, "T0 must come before T1"), "%s", part);
	free(part);
	/* a range after the trace's end: nothing, said */
	part = sh(&st, "'%s/ringtrace' dump --slice 1000s.. '%s' 2>&1", t_bindir(),
		 trace);
	cr_expect_eq(st, 0, "%s", part);
	cr_expect_not_null(strstr(part, "dump: 0 events"), "%s", part);
	cr_expect_not_null(strstr(part, "warning: --slice: nothing in that time range"), "%s", part);
	/* ... and how long the trace is, to choose another */
	cr_expect_not_null(strstr(part, "first event; it is 0."), "%s", part);
	free(part);
}

Test(tools_index, a_model_slice_of_everything_is_the_whole_model)
{
	struct rtr_model whole, sl, part;
	char err[512], *dirs[] = { trace };

	cr_assert_geq(rtr_model_load_flags(&whole, dirs, 1, RTR_MODEL_MARKERS, err, sizeof(err)), 0,
		      "%s", err);
	cr_assert_geq(rtr_model_load_slice(&sl, dirs, 1, RTR_MODEL_MARKERS, 0, UINT64_MAX, err,
					   sizeof(err)), 0, "%s", err);
	cr_expect(sl.sliced);
	cr_expect_eq(sl.events, whole.events);
	cr_expect_eq(sl.origin_ns, whole.origin_ns);
	/* the stress events, each at its time on its CPU and thread */
	cr_assert_gt(whole.nmarkers, 1000);
	cr_assert_eq(sl.nmarkers, whole.nmarkers);
	for (uint32_t i = 0; i < whole.nmarkers; i++) {
		const struct rtr_model_marker *a = &sl.markers[i], *b = &whole.markers[i];

		cr_assert(a->ts == b->ts && a->cpu == b->cpu && a->thread == b->thread &&
			  a->cls == b->cls, "marker %u: %" PRId64 " cpu %u, not %" PRId64 " cpu %u",
			  i, a->ts, a->cpu, b->ts, b->cpu);
	}
	cr_assert_eq(sl.nlosses, whole.nlosses);
	for (uint32_t i = 0; i < whole.nlosses; i++)
		cr_expect(sl.losses[i].ts == whole.losses[i].ts &&
			  sl.losses[i].count == whole.losses[i].count, "loss %u", i);
	for (uint32_t i = 0; i < whole.ncpus && i < sl.ncpus; i++) {
		cr_expect_eq(sl.cpus[i].events_lost, whole.cpus[i].events_lost, "cpu %u", i);
		cr_expect_eq(sl.cpus[i].packets_lost, whole.cpus[i].packets_lost, "cpu %u", i);
	}
	cr_expect_eq(sl.ntasks, whole.ntasks);
	cr_expect_eq(sl.nlosses, whole.nlosses);
	cr_expect_eq(sl.end, whole.end);
	/* the second half: fewer events, ending where the whole does */
	cr_assert_geq(rtr_model_load_slice(&part, dirs, 1, RTR_MODEL_MARKERS,
					   (uint64_t)whole.end / 2, UINT64_MAX, err, sizeof(err)), 0,
		      "%s", err);
	/* (its items may be losses alone: a slow consumer's last packets) */
	cr_expect_gt(part.events + part.nlosses, 0, "end %" PRId64 " events %" PRIu64, whole.end,
		     whole.events);
	cr_expect_lt(part.events, whole.events);
	{
		uint64_t in_part = 0, counted = 0;

		for (uint32_t i = 0; i < part.nlosses; i++)
			in_part += part.losses[i].kind == RTR_LOSS_EVENTS ? part.losses[i].count : 0;
		for (uint32_t i = 0; i < part.ncpus; i++)
			counted += part.cpus[i].events_lost;
		cr_expect_eq(counted, in_part, "a slice counts the losses in it");
	}
	cr_expect_eq(part.origin_ns + part.end, whole.origin_ns + whole.end);
	cr_expect_geq(part.origin_ns, whole.origin_ns + whole.end / 2);
	/* its markers: exactly the whole's from its origin on */
	{
		uint32_t at = 0;

		while (at < whole.nmarkers &&
		       whole.origin_ns + whole.markers[at].ts < part.origin_ns)
			at++;
		cr_expect_eq(part.nmarkers, whole.nmarkers - at);
		for (uint32_t i = 0; i < part.nmarkers && at + i < whole.nmarkers; i++)
			cr_assert_eq(part.origin_ns + part.markers[i].ts,
				     whole.origin_ns + whole.markers[at + i].ts, "marker %u", i);
	}
	rtr_model_free(&whole);
	rtr_model_free(&sl);
	rtr_model_free(&part);
}

Test(tools_index, a_view_too_large_points_to_a_slice)
{
	char page[PATH_MAX + 16], *out;
	struct stat st;
	int status;

	snprintf(page, sizeof(page), "%s/p.html", work);
	out = sh(&status, "RINGTRACE_VIEW_MAX_EVENTS=100 '%s/ringtrace' view -o '%s' '%s' "
		 "2>&1", t_bindir(), page, trace);
	cr_expect_eq(status, 1, "%s", out);
	cr_expect_not_null(strstr(out, "events (the index beside it says), more than "
				  "RINGTRACE_VIEW_MAX_EVENTS (100)"), "%s", out);
	cr_expect_not_null(strstr(out, "--slice 0.."), "%s", out);
	cr_expect_neq(stat(page, &st), 0, "no page written");
	free(out);
	/* the same as a picture: refused before any loading, no file */
	out = sh(&status, "RINGTRACE_VIEW_MAX_EVENTS=100 '%s/ringtrace' view -o '%s.png' "
		 "'%s' 2>&1", t_bindir(), page, trace);
	cr_expect_eq(status, 1, "%s", out);
	cr_expect_not_null(strstr(out, "--slice"), "%s", out);
	free(out);
	/* a slice of it is drawn */
	out = sh(&status, "RINGTRACE_VIEW_MAX_EVENTS=100 '%s/ringtrace' view -o '%s' "
		 "--slice 0..200us '%s' 2>&1", t_bindir(), page, trace);
	cr_expect_eq(status, 0, "%s", out);
	cr_expect_eq(stat(page, &st), 0, "%s", out);
	free(out);
	/* stats says it reads a slice, in its JSON too */
	out = sh(&status, "'%s/ringtrace' stats --json --slice 100us.. '%s' 2>&1",
		 t_bindir(), trace);
	cr_expect_eq(status, 0, "%s", out);
	cr_expect_not_null(strstr(out, "{\"slice\": {\"from_ns\": 100000, \"to_ns\": null},"),
			   "%.200s", out);
	free(out);
	/* babeltrace2 reads the trace with its index beside it, as without */
	out = sh(&status, "test -f '%s/%s' && babeltrace2 '%s' >/dev/null 2>&1", trace,
		 TR_INDEX_FILE, trace);
	cr_expect_eq(status, 0, "babeltrace2 with the index there: %s", out);
	free(out);
	/* a cap that is not a number */
	out = sh(&status, "RINGTRACE_VIEW_MAX_EVENTS=many '%s/ringtrace' view -o '%s' "
		 "--force '%s' 2>&1", t_bindir(), page, trace);
	cr_expect_eq(status, 1, "%s", out);
	cr_expect_not_null(strstr(out, "is not a number of events"), "%s", out);
	free(out);
}

/*
 * stats, export, why and diff refuse, before loading it, a trace whose
 * model would not fit in the memory available (here made 1 MB), pointing to
 * a slice, which they then read; a wrong value of the knob is said.
 */
Test(tools_index, a_model_larger_than_memory_is_refused_before_loading)
{
	static const char *const cmds[] = { "stats", "export --format chrome -o -",
					     "why --slowest request", "diff" };
	char big[PATH_MAX], *out;
	int status;

	/* ~22,000 events of the task mix: a model of some 2 MB */
	snprintf(big, sizeof(big), "%s/mix", work);
	out = sh(&status, "'%s/ringtrace-events-bench' --make-trace '%s' --events 2000 2>&1",
		 t_bindir(), big);
	cr_assert_eq(status, 0, "%s", out);
	free(out);
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		out = sh(&status, "RINGTRACE_MEM_AVAILABLE_MB=1 '%s/ringtrace' %s '%s'%s%s 2>&1",
			 t_bindir(), cmds[i], big, i == 3 ? " " : "", i == 3 ? big : "");
		cr_expect_eq(status, 1, "%s: %s", cmds[i], out);
		cr_expect_not_null(strstr(out, "more than the 1 MB this machine has available"),
				   "%s: %s", cmds[i], out);
		cr_expect_not_null(strstr(out, "--slice 0.."), "%s: %s", cmds[i], out);
		free(out);
	}
	/* a slice of it is read */
	out = sh(&status, "RINGTRACE_MEM_AVAILABLE_MB=1 '%s/ringtrace' stats --slice 0..100us '%s' "
		 "2>&1", t_bindir(), big);
	cr_expect_eq(status, 0, "%s", out);
	cr_expect_not_null(strstr(out, "slice: from"), "%s", out);
	free(out);
	/* enough memory: read whole */
	out = sh(&status, "RINGTRACE_MEM_AVAILABLE_MB=100000 '%s/ringtrace' stats '%s' >/dev/null "
		 "2>&1; echo rc=$?", t_bindir(), big);
	cr_expect_not_null(strstr(out, "rc=0"), "%s", out);
	free(out);
	out = sh(&status, "RINGTRACE_MEM_AVAILABLE_MB=lots '%s/ringtrace' stats '%s' 2>&1 >/dev/null",
		 t_bindir(), big);
	cr_expect_eq(status, 0, "%s", out);
	cr_expect_not_null(strstr(out, "RINGTRACE_MEM_AVAILABLE_MB 'lots' is not a number"), "%s", out);
	free(out);
}

/*
 * The overview (view/overview.h): every event of the index counted, each
 * in the lane of its stream and in the pixel column of its time, to within
 * the packets that straddle the column's edges (a packet's events are
 * spread evenly over its span: where exactly is known only by reading it).
 */
Test(tools_index, an_overview_counts_every_event_in_its_lane_and_column)
{
	enum { W = 64 };
	struct rtr_overview ov;
	struct rtr_model m;
	struct tr_trace t;
	struct tr_index ix;
	char err[512], *dirs[] = { trace };
	double d[W], sum = 0;
	uint64_t ix_events = 0;
	uint32_t ix_lanes = 0;

	cr_assert_eq(rtr_overview_build(&ov, trace, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(tr_open(&t, trace, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(tr_index_open(&ix, &t), 0);
	cr_assert_geq(rtr_model_load_flags(&m, dirs, 1, RTR_MODEL_MARKERS, err, sizeof(err)), 0,
		      "%s", err);
	/* the lanes: the index's streams with entries, by name, with their events */
	for (uint32_t i = 0; i < ix.nstreams; i++) {
		ix_events += ix.s[i].events;
		ix_lanes += ix.s[i].n > 0;
	}
	cr_expect_eq(ov.events, ix_events);
	cr_expect_eq(ov.events, ix.events);
	/* a lane per stream with packets: one per CPU the two writers ran on */
	cr_assert_geq(ix_lanes, 1);
	cr_assert_eq(ov.nlanes, ix_lanes);
	for (uint32_t l = 0; l < ov.nlanes; l++) {
		const struct rtr_overview_lane *ln = &ov.lanes[l];
		uint64_t e = 0;
		bool found = false;

		if (l)
			cr_expect_lt(strcmp(ov.lanes[l - 1].name, ln->name), 0);
		for (uint32_t i = 0; i < ix.nstreams; i++)
			if (!strcmp(ix.s[i].name, ln->name)) {
				found = true;
				cr_expect_eq(ln->events, ix.s[i].events, "%s", ln->name);
				cr_expect_eq(ln->n, ix.s[i].n, "%s", ln->name);
			}
		cr_expect(found, "lane %s", ln->name);
		for (uint32_t b = ln->first; b < ln->first + ln->n; b++) {
			cr_expect_leq(ov.b[b].t0, ov.b[b].t1);
			if (b > ln->first)
				cr_expect_geq(ov.b[b].t0, ov.b[b - 1].t1, "%s: buckets in order", ln->name);
			e += ov.b[b].events;
		}
		cr_expect_eq(e, ln->events);
	}
	/*
	 * its times are the model's: the same origin; its end the last item's
	 * (the model's may be a packet's end after it)
	 */
	cr_expect_eq(ov.origin_ns, m.origin_ns);
	cr_expect_leq(ov.end, m.end);
	cr_expect_geq(ov.end, m.markers[m.nmarkers - 1].ts);
	cr_expect_eq(rtr_overview_events(&ov, 0, ov.end + 1), ov.events);
	/* the whole trace at W columns, lane by lane, against the events the model read */
	for (uint32_t l = 0; l < ov.nlanes; l++) {
		const struct rtr_overview_lane *ln = &ov.lanes[l];
		int64_t t1 = ov.end + 1;
		uint64_t actual[W] = { 0 }, lo[W] = { 0 }, hi[W] = { 0 };
		uint32_t cpu = RTR_MODEL_NONE;

		for (uint32_t c = 0; c < m.ncpus; c++)
			if (!strcmp(rtr_model_str(&m, m.cpus[c].stream), ln->name))
				cpu = c;
		cr_assert_neq(cpu, RTR_MODEL_NONE, "%s: a stream of the model", ln->name);
		sum += rtr_overview_density(&ov, l, 0, t1, W, d);
		for (uint32_t i = 0; i < m.nmarkers; i++)
			if (m.markers[i].cpu == cpu && strcmp(rtr_model_str(&m, m.classes[m.markers[i].cls].name), "thread"))
				actual[m.markers[i].ts * W / t1]++;
		for (uint32_t b = ln->first; b < ln->first + ln->n; b++) {
			uint32_t c0 = (uint32_t)(ov.b[b].t0 * W / t1), c1 = (uint32_t)(ov.b[b].t1 * W / t1);

			for (uint32_t c = c0; c <= c1; c++)
				hi[c] += ov.b[b].events;
			if (c0 == c1)
				lo[c0] += ov.b[b].events;
		}
		for (uint32_t c = 0; c < W; c++) {
			cr_expect_geq(d[c] + 1e-6, (double)lo[c], "%s column %u", ln->name, c);
			cr_expect_leq(d[c], (double)hi[c] + 1e-6, "%s column %u", ln->name, c);
			cr_expect_geq(actual[c], lo[c], "%s column %u: %" PRIu64 " events", ln->name, c,
				      actual[c]);
			cr_expect_leq(actual[c], hi[c], "%s column %u: %" PRIu64 " events", ln->name, c,
				      actual[c]);
		}
	}
	cr_expect_lt(sum > (double)ov.events ? sum - ov.events : ov.events - sum, 1e-3 * ov.events,
		     "the columns hold every event: %.1f of %" PRIu64, sum, ov.events);
	/* a range's events: halves add up to the whole */
	{
		int64_t mid = ov.b[ov.lanes[0].first + ov.lanes[0].n / 2].t0;
		uint64_t a = rtr_overview_events(&ov, 0, mid), b = rtr_overview_events(&ov, mid, ov.end + 1);

		cr_expect_leq(a + b > ov.events ? a + b - ov.events : ov.events - a - b, ov.nlanes,
			      "%" PRIu64 " + %" PRIu64 " of %" PRIu64, a, b, ov.events);
		cr_expect_gt(a, 0);
		cr_expect_gt(b, 0);
	}
	rtr_model_free(&m);
	tr_index_free(&ix);
	tr_close(&t);
	rtr_overview_free(&ov);
	cr_expect_eq(rtr_overview_build(&ov, "-", err, sizeof(err)), -1);
	cr_expect_not_null(strstr(err, "standard input"), "%s", err);
	{
		char gone[PATH_MAX];

		snprintf(gone, sizeof(gone), "%s/nothing-here", work);
		cr_expect_eq(rtr_overview_build(&ov, gone, err, sizeof(err)), -1);
		cr_expect_not_null(strstr(err, "nothing-here"), "%s", err);
	}
}
