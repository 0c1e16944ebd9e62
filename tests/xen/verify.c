// SPDX-License-Identifier: MIT
/* tests/xen/verify.c - see verify.h. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include "tests/helpers.h"
#include "tests/xen/verify.h"
#include "reader/cursor.h"
#include "reader/trace.h"

void xv_init(struct xv *v, uint32_t nthreads, uint64_t cap)
{
	memset(v, 0, sizeof(*v));
	cr_assert_leq(nthreads, EMIT_MAX_THREADS);
	v->nthreads = nthreads;
	v->cap = cap;
	for (uint32_t t = 0; t < nthreads; t++) {
		v->seen[t] = calloc(cap, 1);
		cr_assert_not_null(v->seen[t]);
	}
}

void xv_free(struct xv *v)
{
	for (uint32_t t = 0; t < v->nthreads; t++)
		free(v->seen[t]);
}

static void one_event(struct xv *v, const struct tr_cursor *c, unsigned cpu,
		      struct xv_counts *n)
{
	uint32_t th;
	uint64_t seq, check;

	if (strcmp(c->cls->name, EMIT_EVENT_NAME)) {
		n->other++;
		return;
	}
	cr_assert_eq(c->len, EMIT_PAYLOAD_SIZE, "%s@%" PRIu64 ": %" PRIu64 "-byte payload",
		     c->s->path, c->off, c->len);
	th = ld32(c->payload);
	seq = ld64(c->payload + 8);
	check = ld64(c->payload + 16);
	cr_assert_lt(th, v->nthreads, "%s@%" PRIu64 ": thread %u", c->s->path, c->off, th);
	cr_assert_eq(check, emit_checksum(th, seq), "%s@%" PRIu64 ": thread %u seq %" PRIu64
		     ": bad checksum", c->s->path, c->off, th, seq);
	cr_assert_lt(seq, v->cap, "%s@%" PRIu64 ": thread %u seq %" PRIu64 " never emitted",
		     c->s->path, c->off, th, seq);
	cr_assert_eq(v->seen[th][seq], 0, "%s@%" PRIu64 ": thread %u seq %" PRIu64 " twice",
		     c->s->path, c->off, th, seq);
	v->seen[th][seq] = 1;
	cr_assert_gt(seq + 1, v->last[cpu][th], "%s@%" PRIu64 ": thread %u seq %" PRIu64
		     " after %" PRIu64 " in one stream", c->s->path, c->off, th, seq,
		     v->last[cpu][th] - 1);
	v->last[cpu][th] = seq + 1;
	v->per_thread[th]++;
	n->present++;
	n->digest += check;
}

void xv_read(struct xv *v, const char *dir, struct xv_counts *one)
{
	struct xv_counts n = { 0 };
	struct tr_trace t;
	char err[600];

	cr_assert_eq(tr_open(&t, dir, err, sizeof(err)), 0, "%s", err);
	for (uint32_t i = 0; i < t.nstreams; i++) {
		struct tr_cursor c;
		unsigned cpu;
		int item;

		cr_assert_eq(sscanf(t.streams[i].name, "stream_%u", &cpu), 1, "%s",
			     t.streams[i].path);
		cr_assert_lt(cpu, XV_MAXCPU);
		tr_cursor_init(&c, &t, i);
		while ((item = tr_next(&c)) != TR_END) {
			cr_assert_neq(item, TR_ERROR, "%s", c.err);
			if (item == TR_LOST_PACKETS)
				n.lost_packets += c.lost;
			else if (item == TR_LOST_EVENTS)
				n.lost_events += c.lost;
			else
				one_event(v, &c, cpu, &n);
		}
		n.packets += c.packets;
	}
	tr_close(&t);
	v->all.present += n.present;
	v->all.other += n.other;
	v->all.lost_events += n.lost_events;
	v->all.lost_packets += n.lost_packets;
	v->all.packets += n.packets;
	v->all.digest += n.digest;
	if (one)
		*one = n;
}

void xv_bt2_agrees(const char *dir, const struct xv_counts *one, bool mid_stream)
{
	const char *src = getenv("RTR_SRCDIR");
	char cmd[1024], *json;
	int st;

	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 '%s/tests/consumer/bt2_emit.py' '%s' 2>&1",
		 src ? src : ".", dir);
	json = t_sh(cmd, &st);
	cr_assert_eq(st, 0, "babeltrace2 cannot read %s:\n%s", dir, json);
	cr_expect_eq(t_json_u64(json, "emit_events"), one->present, "%s: %s", dir, json);
	cr_expect_eq(t_json_u64(json, "events"), one->present + one->other, "%s: %s", dir, json);
	cr_expect_eq(t_json_u64(json, "bad_checksums"), 0, "%s: %s", dir, json);
	cr_expect_eq(t_json_u64(json, "digest"), one->digest, "%s: babeltrace2 decoded other values",
		     dir);
	cr_expect_eq(t_json_u64(json, "packets"), one->packets, "%s: %s", dir, json);
	/* A trace that starts mid-stream gives its first loss count no baseline. */
	if (!mid_stream)
		cr_expect_eq(t_json_u64(json, "discarded_events_unknown"), 0, "%s: %s", dir, json);
	free(json);
}
