// SPDX-License-Identifier: MIT
/*
 * tests/ringbuf/test_ring.c - the ring, one behaviour per test, on both the
 * rseq path and the portable path, in both modes where it matters.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include "platform/platform.h"
#include "tests/helpers.h"

#define P 4096u

struct variant {
	bool rseq;
	uint32_t mode;
};

static struct variant variants[] = {
	{ true, RTR_MODE_DISCARD },
	{ true, RTR_MODE_OVERWRITE },
	{ false, RTR_MODE_DISCARD },
	{ false, RTR_MODE_OVERWRITE },
};

static const char *mode_name(uint32_t m)
{
	return m == RTR_MODE_DISCARD ? "discard" : "overwrite";
}

TestSuite(ringbuf_ring, .timeout = 30);

/* Records fit a packet: (P - header) / (4 + 16) with the fast path's 11-byte slack. */
static uint64_t payload16[2];

static int put16(struct t_ring *t, uint32_t id, uint64_t a, uint64_t b, struct rtr_write_info *info)
{
	payload16[0] = a;
	payload16[1] = b;
	return rtr_ring_write_at(&t->slot, id, payload16, 16, info);
}

Test(ringbuf_ring, create_rejects_bad_geometry_and_existing_files)
{
	char dir[] = "/dev/shm/rtr-test-XXXXXX", path[96], link[96];
	struct rtr_ring_attr a = { .struct_size = sizeof(a), .mode = RTR_MODE_DISCARD };
	struct rtr_ring *r;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/region", dir);
	snprintf(link, sizeof(link), "%s/link", dir);
	a.path = path;
	a.packet_size = 1000;
	cr_expect_eq(rtr_ring_create(&r, &a), -EINVAL, "packet size not a power of two");
	a.packet_size = 2048;
	cr_expect_eq(rtr_ring_create(&r, &a), -EINVAL, "packet size below 4096");
	a.packet_size = P;
	a.packets_per_cpu = 3;
	cr_expect_eq(rtr_ring_create(&r, &a), -EINVAL, "packet count not a power of two");
	a.packets_per_cpu = 1;
	cr_expect_eq(rtr_ring_create(&r, &a), -EINVAL, "one packet");
	a.packets_per_cpu = 4;
	a.mode = 7;
	cr_expect_eq(rtr_ring_create(&r, &a), -EINVAL, "unknown mode");
	a.mode = RTR_MODE_OVERWRITE;
	a.struct_size = 4;
	cr_expect_eq(rtr_ring_create(&r, &a), -EINVAL, "short attr");
	a.struct_size = sizeof(a);
	cr_assert_eq(rtr_ring_create(&r, &a), 0);
	cr_expect_eq(rtr_ring_create(&r, &a), -EEXIST, "existing file is never overwritten");
	cr_assert_eq(symlink("/dev/shm/rtr-nonexistent-target", link), 0);
	a.path = link;
	cr_expect_eq(rtr_ring_create(&r, &a), -EEXIST, "a symlink is not followed");
	unlink(link);
	rtr_ring_destroy(r, true);
	/* rseq writers index buffers by CPU: fewer streams than CPUs is portable. */
	/* No path: a fresh file under /dev/shm. */
	a.path = NULL;
	a.ncpus = 0;
	cr_assert_eq(rtr_ring_create(&r, &a), 0);
	cr_expect_eq(strncmp(r->path, "/dev/shm/ringtrace-", 19), 0, "%s", r->path);
	cr_expect_eq(access(r->path, R_OK | W_OK), 0);
	{
		struct rtr_ring *r2;

		cr_assert_eq(rtr_ring_create(&r2, &a), 0);
		cr_expect_str_neq(r->path, r2->path, "each ring its own file");
		rtr_ring_destroy(r2, true);
	}
	rtr_ring_destroy(r, true);
	if (sysconf(_SC_NPROCESSORS_CONF) > 1) {
		a.path = path;
		a.ncpus = 1;
		cr_assert_eq(rtr_ring_create(&r, &a), 0);
		cr_expect_eq(r->use_rseq, false);
		cr_expect_eq(r->fast_ncpus, 0, "the fast path stays off");
		rtr_ring_destroy(r, true);
	}
	cr_expect_eq(access(path, F_OK), -1, "destroy(unlink) removes the file");
	rmdir(dir);
}

ParameterizedTestParameters(ringbuf_ring, records_round_trip_exactly)
{
	return cr_make_param_array(struct variant, variants, 4);
}

ParameterizedTest(struct variant *v, ringbuf_ring, records_round_trip_exactly)
{
	struct rtr_consumer_packet pkt;
	struct rtr_write_info info;
	struct rtr_packet_hdr h;
	uint8_t odd[24];
	struct t_rec rec[8];
	struct t_ring t;
	int n;

	t_pin0();
	t_ring_open(&t, v->mode, P, 4, v->rseq);
	cr_assert_eq(put16(&t, 0, 0, UINT64_MAX, &info), 0);
	cr_expect_eq(info.cpu, 0);
	cr_expect_eq(info.pos, RTR_PACKET_HDR_SIZE, "first record right after the header");
	cr_assert_eq(put16(&t, 30, 1, 2, &info), 0, "largest compact id");
	cr_expect_eq(info.pos, RTR_PACKET_HDR_SIZE + 20);
	cr_assert_eq(put16(&t, 31, 3, 4, &info), 0, "first extended id");
	cr_assert_eq(put16(&t, 123456, 5, 6, &info), 0);
	cr_expect_eq(rtr_consumer_get(t.c, 0, &pkt), -EAGAIN, "open packet is not delivered");
	cr_assert_eq(rtr_ring_flush(t.ring), 0);
	cr_assert_eq(rtr_consumer_get(t.c, 0, &pkt), 0);
	memcpy(&h, pkt.data, sizeof(h));
	cr_expect_eq(h.magic, RTR_CTF_MAGIC);
	cr_expect_eq(memcmp(h.uuid, rtr_consumer_region(t.c)->uuid, 16), 0);
	cr_expect_eq(h.stream_instance_id, 0);
	cr_expect_eq(h.cpu_id, 0);
	cr_expect_eq(h.packet_seq_num, 0);
	cr_expect_eq(pkt.size, RTR_PACKET_HDR_SIZE + 2 * 20 + 2 * (RTR_EV_EXTENDED_SIZE + 16));
	cr_expect_eq(h.content_size, pkt.size * 8);
	cr_expect_eq(h.packet_size, h.content_size);
	cr_expect_eq(h.events_discarded, 0);
	n = t_parse(pkt.data, pkt.size, 16, rec, 8);
	cr_assert_eq(n, 4, "%s %s: parsed %d records", v->rseq ? "rseq" : "portable",
		     mode_name(v->mode), n);
	cr_expect_eq(rec[0].id, 0);
	cr_expect_eq(rec[1].id, 30);
	cr_expect_eq(rec[2].id, 31);
	cr_expect_eq(rec[3].id, 123456);
	for (int i = 0; i < 4; i++) {
		uint64_t p[2];

		memcpy(p, rec[i].payload, 16);
		cr_expect_eq(p[0], i == 0 ? 0 : (uint64_t)(2 * i - 1));
		cr_expect_eq(p[1], i == 0 ? UINT64_MAX : (uint64_t)(2 * i));
		cr_expect_geq(rec[i].ts, h.timestamp_begin);
		cr_expect_leq(rec[i].ts, h.timestamp_end);
		if (i)
			cr_expect_geq(rec[i].ts, rec[i - 1].ts, "timestamps go forward");
	}
	rtr_consumer_put(t.c, 0);

	/* Odd sizes and bytes, an empty payload, through the slow path too. */
	for (int i = 0; i < 24; i++)
		odd[i] = (uint8_t)(0xff - i * 11);
	cr_assert_eq(rtr_ring_write(&t.slot, 7, odd, 0), 0);
	cr_assert_eq(rtr_ring_write(&t.slot, 40, odd, 0), 0);
	cr_assert_eq(rtr_ring_flush(t.ring), 0);
	cr_assert_eq(rtr_consumer_get(t.c, 0, &pkt), 0);
	cr_expect_eq(pkt.seq, 1);
	cr_expect_eq(pkt.size, RTR_PACKET_HDR_SIZE + RTR_EV_COMPACT_SIZE + RTR_EV_EXTENDED_SIZE);
	n = t_parse(pkt.data, pkt.size, 0, rec, 8);
	cr_assert_eq(n, 2);
	cr_expect_eq(rec[0].id, 7);
	cr_expect_eq(rec[1].id, 40);
	rtr_consumer_put(t.c, 0);
	cr_assert_eq(rtr_ring_write(&t.slot, 3, odd, 19), 0);
	cr_assert_eq(rtr_ring_flush(t.ring), 0);
	cr_assert_eq(rtr_consumer_get(t.c, 0, &pkt), 0);
	cr_assert_eq(t_parse(pkt.data, pkt.size, 19, rec, 8), 1);
	cr_expect_eq(memcmp(rec[0].payload, odd, 19), 0, "payload bytes exact");
	t_ring_close(&t);
}

ParameterizedTestParameters(ringbuf_ring, packet_switch_is_dense_and_exact)
{
	return cr_make_param_array(struct variant, variants, 4);
}

ParameterizedTest(struct variant *v, ringbuf_ring, packet_switch_is_dense_and_exact)
{
	/* (4096 - 84 - 11) / 20 = 200 records fit before the 11-byte slack bites. */
	const uint64_t per_packet = (P - RTR_PACKET_HDR_SIZE - 11) / 20 + 1;
	const uint64_t total = 10 * per_packet + 7;
	struct rtr_consumer_packet pkt;
	struct rtr_write_info info;
	uint64_t next = 0, seq = 0;
	struct t_rec rec[256];
	struct t_ring t;

	t_pin0();
	t_ring_open(&t, v->mode, P, 4, v->rseq);
	for (uint64_t i = 0; i < total; i++) {
		cr_assert_eq(put16(&t, 1, i, ~i, &info), 0, "record %lu", (unsigned long)i);
		while (rtr_consumer_get(t.c, 0, &pkt) == 0) {
			int n = t_parse(pkt.data, pkt.size, 16, rec, 256);

			cr_assert_eq(pkt.seq, seq++, "packet_seq_num dense");
			cr_assert_eq(pkt.skipped, 0);
			cr_assert_gt(n, 0);
			for (int j = 0; j < n; j++) {
				uint64_t p[2];

				memcpy(p, rec[j].payload, 16);
				cr_assert_eq(p[0], next, "record order");
				cr_assert_eq(p[1], ~next);
				next++;
			}
			/* The packet closed only because the next record did not fit. */
			cr_expect_gt(pkt.size + 20 + 11 + 1, P - 16, "packet %lu closed early at %lu",
				     (unsigned long)pkt.seq, (unsigned long)pkt.size);
			rtr_consumer_put(t.c, 0);
		}
	}
	cr_assert_eq(rtr_ring_detach(&t.slot), 0);
	cr_assert_eq(rtr_ring_stop(t.ring), 0);
	while (rtr_consumer_get(t.c, 0, &pkt) == 0) {
		int n = t_parse(pkt.data, pkt.size, 16, rec, 256);

		cr_assert_eq(pkt.seq, seq++);
		for (int j = 0; j < n; j++) {
			uint64_t p[2];

			memcpy(p, rec[j].payload, 16);
			cr_assert_eq(p[0], next++);
		}
		rtr_consumer_put(t.c, 0);
	}
	cr_expect_eq(next, total, "every record delivered after stop");
	cr_expect(rtr_consumer_stopped(t.c));
	cr_expect_eq(rtr_consumer_lost(t.c, 0), 0);
	t_ring_close(&t);
}

ParameterizedTestParameters(ringbuf_ring, discard_mode_drops_and_counts_exactly)
{
	static struct variant d[] = { { true, RTR_MODE_DISCARD }, { false, RTR_MODE_DISCARD } };

	return cr_make_param_array(struct variant, d, 2);
}

ParameterizedTest(struct variant *v, ringbuf_ring, discard_mode_drops_and_counts_exactly)
{
	struct rtr_consumer_packet pkt;
	struct rtr_write_info info;
	uint64_t written = 0, dropped = 0, seq = 0, got = 0;
	struct t_rec rec[256];
	struct t_ring t;
	int ret;

	t_pin0();
	t_ring_open(&t, RTR_MODE_DISCARD, P, 4, v->rseq);
	/* No consumer: four packets fill, then every write is refused. */
	while ((ret = put16(&t, 1, written, 0, &info)) == 0)
		written++;
	cr_assert_eq(ret, -ENOBUFS);
	cr_expect_eq(info.cpu, 0, "the refusing stream is reported");
	dropped = 1;
	for (int i = 0; i < 99; i++, dropped++)
		cr_assert_eq(put16(&t, 1, 0, 0, &info), -ENOBUFS);
	cr_expect_eq(t_ctl(&t, 0)->lost_full, dropped);
	cr_expect_eq(rtr_consumer_lost(t.c, 0), dropped);
	/* The consumer frees the slots: writing resumes, and the next packet
	 * tells how many events were discarded before it. */
	while (rtr_consumer_get(t.c, 0, &pkt) == 0) {
		cr_expect_eq(pkt.seq, seq++);
		cr_expect_eq(pkt.events_discarded, 0);
		got += (uint64_t)t_parse(pkt.data, pkt.size, 16, rec, 256);
		rtr_consumer_put(t.c, 0);
	}
	cr_expect_eq(seq, 4, "four full packets");
	cr_expect_eq(got, written);
	cr_assert_eq(put16(&t, 1, 0, 0, &info), 0);
	cr_assert_eq(rtr_ring_flush(t.ring), 0);
	cr_assert_eq(rtr_consumer_get(t.c, 0, &pkt), 0);
	cr_expect_eq(pkt.seq, 4, "no packet was skipped in discard mode");
	cr_expect_eq(pkt.events_discarded, dropped);
	t_ring_close(&t);
}

ParameterizedTestParameters(ringbuf_ring, overwrite_mode_keeps_the_newest_packets)
{
	static struct variant o[] = { { true, RTR_MODE_OVERWRITE }, { false, RTR_MODE_OVERWRITE } };

	return cr_make_param_array(struct variant, o, 2);
}

ParameterizedTest(struct variant *v, ringbuf_ring, overwrite_mode_keeps_the_newest_packets)
{
	struct rtr_consumer_packet pkt;
	struct rtr_write_info info;
	uint64_t last_pkt = 0, seq, next;
	struct t_rec rec[256];
	struct t_ring t;
	int first = 1;

	t_pin0();
	t_ring_open(&t, RTR_MODE_OVERWRITE, P, 4, v->rseq);
	/* Twenty packets' worth with no consumer: never refused. */
	for (uint64_t i = 0; last_pkt < 20; i++) {
		cr_assert_eq(put16(&t, 1, i, 0, &info), 0);
		last_pkt = info.pos / P;
	}
	cr_assert_eq(rtr_ring_detach(&t.slot), 0);
	cr_assert_eq(rtr_ring_stop(t.ring), 0);
	seq = 0;
	next = UINT64_MAX;
	while (rtr_consumer_get(t.c, 0, &pkt) == 0) {
		int n = t_parse(pkt.data, pkt.size, 16, rec, 256);

		if (first) {
			/* Packet 20 was closed at stop, so @prod is 21 packets in and
			 * writers may be entering slot 21 = slot 17: the consumer
			 * takes 18..20, the N - 1 packets no writer can touch. */
			cr_expect_eq(pkt.seq, 18, "first kept packet %lu", (unsigned long)pkt.seq);
			cr_expect_eq(pkt.skipped, 18, "the skipped count is exact (%lu)",
				     (unsigned long)pkt.skipped);
			first = 0;
		} else {
			cr_expect_eq(pkt.seq, seq + 1);
			cr_expect_eq(pkt.skipped, 0);
		}
		seq = pkt.seq;
		for (int j = 0; j < n; j++) {
			uint64_t p[2];

			memcpy(p, rec[j].payload, 16);
			if (next != UINT64_MAX)
				cr_assert_eq(p[0], next, "records continuous across kept packets");
			next = p[0] + 1;
		}
		rtr_consumer_put(t.c, 0);
	}
	cr_expect_eq(seq, 20);
	cr_expect_eq(rtr_consumer_lost(t.c, 0), 0, "overwrite loses packets, not events");
	t_ring_close(&t);
}

ParameterizedTestParameters(ringbuf_ring, flush_closes_only_non_empty_packets)
{
	return cr_make_param_array(struct variant, variants, 4);
}

ParameterizedTest(struct variant *v, ringbuf_ring, flush_closes_only_non_empty_packets)
{
	struct rtr_consumer_packet pkt;
	struct rtr_write_info info;
	struct t_ring t;

	t_pin0();
	t_ring_open(&t, v->mode, P, 4, v->rseq);
	cr_assert_eq(rtr_ring_flush(t.ring), 0);
	cr_expect_eq(rtr_consumer_get(t.c, 0, &pkt), -EAGAIN, "nothing was ever written");
	cr_assert_eq(put16(&t, 2, 1, 1, &info), 0);
	cr_assert_eq(rtr_ring_flush(t.ring), 0);
	cr_assert_eq(rtr_consumer_get(t.c, 0, &pkt), 0);
	cr_expect_eq(pkt.size, RTR_PACKET_HDR_SIZE + 20);
	rtr_consumer_put(t.c, 0);
	cr_assert_eq(rtr_ring_flush(t.ring), 0);
	cr_expect_eq(rtr_consumer_get(t.c, 0, &pkt), -EAGAIN, "a closed stream stays closed");
	t_ring_close(&t);
}

Test(ringbuf_ring, consumer_flush_request_is_served_by_the_flusher)
{
	struct rtr_consumer_packet pkt;
	struct rtr_write_info info;
	struct t_ring t;

	t_pin0();
	t_ring_open(&t, RTR_MODE_DISCARD, P, 4, rtr_ring_rseq_available());
	cr_assert_eq(put16(&t, 2, 1, 1, &info), 0);
	cr_expect_eq(rtr_consumer_flush(t.c, 100), -ETIMEDOUT, "no flusher running yet");
	cr_assert_eq(rtr_ring_start_flusher(t.ring), 0);
	cr_assert_eq(rtr_consumer_flush(t.c, 5000), 0);
	cr_assert_eq(rtr_consumer_get(t.c, 0, &pkt), 0);
	cr_expect_eq(pkt.size, RTR_PACKET_HDR_SIZE + 20);
	/* Stop ends the flusher first: it must not publish beside stop's plain stores. */
	cr_assert_eq(rtr_ring_detach(&t.slot), 0);
	cr_assert_eq(rtr_ring_stop(t.ring), 0);
	cr_expect_eq(t.ring->flusher_running, 0);
	cr_expect_eq(rtr_consumer_flush(t.c, 100), -ETIMEDOUT, "nobody serves flushes after stop");
	t_ring_close(&t);
}

ParameterizedTestParameters(ringbuf_ring, oversized_record_is_refused_and_counted)
{
	return cr_make_param_array(struct variant, variants, 4);
}

ParameterizedTest(struct variant *v, ringbuf_ring, oversized_record_is_refused_and_counted)
{
	static uint8_t big[2 * P];
	struct rtr_consumer_packet pkt;
	struct rtr_write_info info;
	struct t_ring t;

	t_pin0();
	t_ring_open(&t, v->mode, P, 4, v->rseq);
	cr_expect_eq(rtr_ring_write(&t.slot, 1, big, P), -ENOSPC);
	cr_expect_eq(rtr_ring_write(&t.slot, 1, big, P - RTR_PACKET_HDR_SIZE - 8), -ENOSPC);
	cr_expect_eq(t_ctl(&t, 0)->lost_big, 2);
	/* The largest record that fits a fresh packet: the slow path writes a
	 * 16-byte header buffer and the payload in 8-byte words. */
	cr_expect_eq(rtr_ring_write(&t.slot, 1, big, ((P - RTR_PACKET_HDR_SIZE - 16) & ~7u) + 1),
		     -ENOSPC);
	cr_expect_eq(rtr_ring_write(&t.slot, 1, big, (P - RTR_PACKET_HDR_SIZE - 16) & ~7u), 0);
	cr_expect_eq(t_ctl(&t, 0)->lost_big, 3);
	cr_assert_eq(put16(&t, 1, 0, 0, &info), 0);
	cr_assert_eq(rtr_ring_flush(t.ring), 0);
	cr_assert_eq(rtr_consumer_get(t.c, 0, &pkt), 0);
	cr_expect_eq(pkt.events_discarded, 3);
	t_ring_close(&t);
}

ParameterizedTestParameters(ringbuf_ring, detached_ring_takes_no_writes)
{
	return cr_make_param_array(struct variant, variants, 4);
}

ParameterizedTest(struct variant *v, ringbuf_ring, detached_ring_takes_no_writes)
{
	struct rtr_write_info info;
	struct t_ring t;

	t_ring_open(&t, v->mode, P, 4, v->rseq);
	cr_assert_eq(put16(&t, 1, 0, 0, &info), 0);
	cr_assert_eq(rtr_ring_detach(&t.slot), 0);
	cr_expect_eq(put16(&t, 1, 0, 0, &info), -ENODEV);
	cr_expect_eq(put16(&t, 99, 0, 0, &info), -ENODEV, "slow path too");
	cr_expect_eq(rtr_ring_detach(&t.slot), -ENODEV);
	t_ring_close(&t);
}

ParameterizedTestParameters(ringbuf_ring, stop_reports_losses_after_the_last_packet)
{
	static struct variant d[] = { { true, RTR_MODE_DISCARD }, { false, RTR_MODE_DISCARD } };

	return cr_make_param_array(struct variant, d, 2);
}

ParameterizedTest(struct variant *v, ringbuf_ring, stop_reports_losses_after_the_last_packet)
{
	struct rtr_consumer_packet pkt;
	struct rtr_write_info info;
	uint64_t last_disc = 0, n = 0;
	struct t_ring t;

	t_pin0();
	t_ring_open(&t, RTR_MODE_DISCARD, P, 2, v->rseq);
	while (put16(&t, 1, 0, 0, &info) == 0)
		;
	for (int i = 0; i < 9; i++)
		cr_assert_eq(put16(&t, 1, 0, 0, &info), -ENOBUFS);
	/* Ten drops happened with no packet open to carry them. */
	cr_assert_eq(rtr_ring_detach(&t.slot), 0);
	while (rtr_consumer_get(t.c, 0, &pkt) == 0)
		rtr_consumer_put(t.c, 0);
	cr_assert_eq(rtr_ring_stop(t.ring), 0);
	while (rtr_consumer_get(t.c, 0, &pkt) == 0) {
		last_disc = pkt.events_discarded;
		n++;
		cr_expect_eq(pkt.size, RTR_PACKET_HDR_SIZE, "an empty packet carries the count");
		rtr_consumer_put(t.c, 0);
	}
	cr_expect_eq(n, 1);
	cr_expect_eq(last_disc, 10);
	t_ring_close(&t);
}

/* ---- nesting: a signal handler that traces while the thread traces ---- */

#define SIG_MAX (1u << 22)
static struct t_ring *sig_ring;
static volatile uint64_t sig_seq, sig_drop;
static uint8_t sig_seen[SIG_MAX / 8];

static void on_alarm(int sig)
{
	struct rtr_write_info info;
	uint64_t p[2] = { 1ull << 63 | sig_seq, ~(1ull << 63 | sig_seq) };

	(void)sig;
	if (rtr_ring_write_at(&sig_ring->slot, 2, p, 16, &info) == 0)
		sig_seq++;
	else
		sig_drop++;
}

/* Drain every stream: main-line records in order on stream 0, handler
 * records anywhere (the portable path moves on when a lock is held), each once. */
static void drain_nested(struct t_ring *t, uint64_t *main_next, uint64_t *sig_got)
{
	struct rtr_consumer_packet pkt;
	struct t_rec rec[256];

	for (uint32_t cpu = 0; cpu < rtr_consumer_region(t->c)->ncpus; cpu++) {
		while (rtr_consumer_get(t->c, cpu, &pkt) == 0) {
			int n = t_parse(pkt.data, pkt.size, 16, rec, 256);

			cr_assert_gt(n, 0);
			for (int j = 0; j < n; j++) {
				uint64_t q[2], s;

				memcpy(q, rec[j].payload, 16);
				cr_assert_eq(q[1], ~q[0], "torn record");
				if (q[0] >> 63) {
					s = q[0] & ~(1ull << 63);
					cr_assert_eq(rec[j].id, 2);
					cr_assert_lt(s, SIG_MAX);
					cr_assert_eq(sig_seen[s / 8] >> (s % 8) & 1, 0, "duplicate");
					sig_seen[s / 8] |= (uint8_t)(1u << (s % 8));
					(*sig_got)++;
				} else {
					cr_assert_eq(cpu, 0);
					cr_assert_eq(rec[j].id, 1);
					cr_assert_eq(q[0], (*main_next)++, "main-line order");
				}
			}
			rtr_consumer_put(t->c, cpu);
		}
	}
}

ParameterizedTestParameters(ringbuf_ring, signal_handler_writes_nest_safely)
{
	static struct variant d[] = { { true, RTR_MODE_DISCARD }, { false, RTR_MODE_DISCARD } };

	return cr_make_param_array(struct variant, d, 2);
}

ParameterizedTest(struct variant *v, ringbuf_ring, signal_handler_writes_nest_safely)
{
	struct itimerval it = { { 0, 50 }, { 0, 50 } };
	uint64_t main_seq = 0, main_next = 0, sig_got = 0, main_drop = 0, lost = 0;
	struct sigaction sa;
	struct t_ring t;

	t_pin0();
	t_ring_open(&t, RTR_MODE_DISCARD, P, 64, v->rseq);
	sig_ring = &t;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	cr_assert_eq(sigaction(SIGALRM, &sa, NULL), 0);
	cr_assert_eq(setitimer(ITIMER_REAL, &it, NULL), 0);
	while (main_seq < 2000000 && sig_seq < SIG_MAX - 1000) {
		struct rtr_write_info info;
		uint64_t p[2] = { main_seq, ~main_seq };

		if (rtr_ring_write_at(&t.slot, 1, p, 16, &info) == 0)
			main_seq++;
		else
			main_drop++;
		if ((main_seq & 255) == 0)
			drain_nested(&t, &main_next, &sig_got);
	}
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	cr_assert_eq(rtr_ring_detach(&t.slot), 0);
	cr_assert_eq(rtr_ring_stop(t.ring), 0);
	drain_nested(&t, &main_next, &sig_got);
	cr_expect_eq(main_next, main_seq, "every main-line record delivered");
	cr_expect_eq(sig_got, sig_seq, "every handler record delivered");
	cr_expect_gt(sig_seq, 10, "the handler did run (%lu records)", (unsigned long)sig_seq);
	for (uint32_t cpu = 0; cpu < rtr_consumer_region(t.c)->ncpus; cpu++)
		lost += rtr_consumer_lost(t.c, cpu);
	cr_expect_eq(main_drop + sig_drop, lost, "drops counted exactly");
	t_ring_close(&t);
}

/*
 * The region is prefaulted at creation: writers filling a 16 MiB buffer
 * take no page fault in it (4096 of them if its pages were mapped on first
 * touch, about 8 ns an event over a 10 M-event run).
 */
Test(ringbuf_ring, writers_take_no_page_fault_in_the_region)
{
	bool rseq = rtr_ring_rseq_available();
	struct rusage r0, r1;
	struct t_ring t;
	uint64_t events = (16u << 20) / 20, faults;

#ifdef RTR_SANITIZE
	/* The portable path's memcpy() reads ASan's shadow of the region: faults of its own. */
	if (!rseq)
		cr_skip_test("portable path under a sanitizer");
#endif
	t_pin0();
	t_ring_open(&t, RTR_MODE_DISCARD, 64 * 1024, 256, rseq);
	put16(&t, 1, 0, 0, NULL);	/* the thread's first slow path registers it (allocates) */
	getrusage(RUSAGE_THREAD, &r0);
	for (uint64_t i = 0; i < events; i++)
		put16(&t, 1, i, i, NULL);
	getrusage(RUSAGE_THREAD, &r1);
	faults = (uint64_t)(r1.ru_minflt - r0.ru_minflt) + (uint64_t)(r1.ru_majflt - r0.ru_majflt);
	cr_expect_lt(faults, 16, "%llu page faults writing %llu events into a 16 MiB buffer",
		     (unsigned long long)faults, (unsigned long long)events);
	cr_expect_gt(t_ctl(&t, 0)->prod, 15u << 20, "the buffer was not filled");
	t_ring_close(&t);
}

/* ---- blocking mode ------------------------------------------------------- */

static struct t_ring *alarm_ring;
static volatile int alarm_ret = 1;
static volatile uint64_t alarm_ns;

/* A nested write, from a signal handler interrupting a blocked one: it drops at once. */
static void on_alarm_nested(int sig)
{
	uint64_t t0 = rtr_monotonic_ns(), p[2] = { 7, 7 };

	(void)sig;
	alarm_ret = rtr_ring_write(&alarm_ring->slot, 2, p, 16);
	alarm_ns = rtr_monotonic_ns() - t0;
}

/*
 * Fill the 4 packets of stream 0 but for the room of one more record: the
 * next write must close the last packet and open a fifth, which has no slot.
 */
static void fill(struct t_ring *t, uint64_t packets)
{
	for (uint64_t i = 0;; i++) {
		uint64_t prod = t_ctl(t, 0)->prod;

		if (prod >= (packets - 1) * P && (prod & (P - 1)) + 16 + 16 > P)
			return;
		cr_assert_eq(put16(t, 1, i, i, NULL), 0, "write %llu", (unsigned long long)i);
	}
}

/*
 * A full ring in blocking mode: the outermost write waits for the
 * consumer, the timeout it was given and no more, then drops, counted;
 * a write nested in it (a signal handler) drops without waiting.
 */
ParameterizedTestParameters(ringbuf_ring, blocking_waits_for_its_timeout_and_nested_writes_drop)
{
	static bool rseq[] = { true, false };

	return cr_make_param_array(bool, rseq, 2);
}

ParameterizedTest(bool *rseq, ringbuf_ring, blocking_waits_for_its_timeout_and_nested_writes_drop)
{
	struct sigaction sa = { .sa_handler = on_alarm_nested };
	struct itimerval it = { .it_value = { 0, 100000 } };
	struct t_ring t;
	uint64_t t0, waited;
	int ret;

	t_pin0();
	t_ring_open_blocking(&t, RTR_MODE_DISCARD, P, 4, *rseq, 600000);	/* 0.6 s */
	fill(&t, 4);
	alarm_ring = &t;
	sigemptyset(&sa.sa_mask);
	cr_assert_eq(sigaction(SIGALRM, &sa, NULL), 0);
	cr_assert_eq(setitimer(ITIMER_REAL, &it, NULL), 0);
	t0 = rtr_monotonic_ns();
	/* No consumer puts a packet back: this one waits its 0.6 s, then drops. */
	ret = put16(&t, 1, 1, 1, NULL);
	waited = rtr_monotonic_ns() - t0;
	signal(SIGALRM, SIG_DFL);
	cr_expect_eq(ret, -ENOBUFS);
	cr_expect_geq(waited, 600000000ull, "dropped after %llu ns, before its timeout",
		      (unsigned long long)waited);
	cr_expect_lt(waited, 30000000000ull, "waited %llu ns", (unsigned long long)waited);
	cr_expect_eq(alarm_ret, -ENOBUFS, "the nested write: %d", alarm_ret);
	cr_expect_lt(alarm_ns, 300000000ull, "the nested write waited %llu ns",
		     (unsigned long long)alarm_ns);
	cr_expect_eq(t_ctl(&t, 0)->lost_full, 2, "both counted");
	cr_expect_eq(t_ctl(&t, 0)->waiting, 0);
	t_ring_close(&t);
}

/*
 * Blocking with no limit: a consumer that releases a packet wakes the
 * writer, which writes; a consumer that dies (SIGKILL) makes it give up,
 * dropping, instead of hanging.
 */
/*
 * A Xen guest's writers could not see their dom0 consumer die (it cannot
 * write consumer_pid into the guest's pages): blocking mode is refused
 * there, with the reason, before any Xen facility is asked for.
 */
Test(ringbuf_ring, blocking_mode_is_refused_for_a_xen_region)
{
	char err[160] = "";
	struct rtr_ring_attr a = { .struct_size = sizeof(a), .mode = RTR_MODE_DISCARD,
				   .packet_size = P, .packets_per_cpu = 4,
				   .create = rtr_xen_region_create, .err = err,
				   .errlen = sizeof(err), .blocking_timeout_us = 1000 };
	struct rtr_ring *r = NULL;

	cr_assert_eq(rtr_ring_create(&r, &a), -EINVAL);
	cr_assert_null(r);
	cr_assert_not_null(strstr(err, "blocking mode"), "%s", err);
	a.blocking_timeout_us = RTR_RING_BLOCK_FOREVER;
	err[0] = '\0';
	cr_assert_eq(rtr_ring_create(&r, &a), -EINVAL);
	cr_assert_not_null(strstr(err, "Xen"), "%s", err);
}

Test(ringbuf_ring, blocking_writers_wake_on_release_and_give_up_on_a_dead_consumer)
{
	struct rtr_consumer_packet pkt;
	struct t_ring t;
	uint64_t t0, took;
	int st, pfd[2];
	pid_t pid;
	char c;

	t_pin0();
	t_ring_open_blocking(&t, RTR_MODE_DISCARD, P, 4, false, -1);
	fill(&t, 4);
	/* A consumer process: it attaches, releases one packet 0.3 s from now, then waits. */
	cr_assert_eq(pipe(pfd), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		struct rtr_consumer *c2;

		if (rtr_consumer_open(&c2, t.path, NULL, 0))
			_exit(1);
		rtr_consumer_wait(c2, 0);	/* claims the region */
		if (write(pfd[1], "x", 1) != 1)
			_exit(1);
		usleep(300000);
		if (rtr_consumer_get(c2, 0, &pkt) == 0)
			rtr_consumer_put(c2, 0);
		for (;;)
			pause();
	}
	cr_assert_eq(read(pfd[0], &c, 1), 1);
	t0 = rtr_monotonic_ns();
	cr_expect_eq(put16(&t, 1, 1, 1, NULL), 0, "woken by the release, written");
	took = rtr_monotonic_ns() - t0;
	cr_expect_lt(took, 20000000000ull);
	/* Fill the released packet; then the consumer dies while the writer waits. */
	fill(&t, 5);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	t0 = rtr_monotonic_ns();
	cr_expect_eq(put16(&t, 1, 3, 3, NULL), -ENOBUFS, "a dead consumer: dropped");
	took = rtr_monotonic_ns() - t0;
	cr_expect_lt(took, 20000000000ull, "waited %llu ns for a dead consumer",
		     (unsigned long long)took);
	cr_expect_eq(t_ctl(&t, 0)->lost_full, 1);
	close(pfd[0]);
	close(pfd[1]);
	t_ring_close(&t);
}
