// SPDX-License-Identifier: MIT
/*
 * tests/consumer/test_consumer.c - the consumer against bad regions, hostile
 * producers, sleeping and waking, and a producer killed while writing.
 */
#include <errno.h>
#include <fcntl.h>
#include <endian.h>
#include <inttypes.h>
#include <pthread.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include "tests/helpers.h"
#include "consumer/output.h"
#include "consumer/session.h"
#include "platform/platform.h"

#define P 4096u

TestSuite(consumer, .timeout = 60);

static uint64_t put16(struct t_ring *t, uint64_t a)
{
	uint64_t p[2] = { a, ~a };
	struct rtr_write_info info;

	cr_assert_eq(rtr_ring_write_at(&t->slot, 1, p, 16, &info), 0);
	return info.pos;
}

Test(consumer, region_check_names_each_bad_field)
{
	struct rtr_region_hdr good, h;
	struct t_ring t;
	uint64_t size;
	char why[200];

	t_ring_open(&t, RTR_MODE_DISCARD, P, 4, false);
	memcpy(&good, t.ring->hdr, sizeof(good));
	size = good.region_size;
	cr_assert_eq(rtr_region_check(&good, size, why, sizeof(why)), 0, "%s", why);

#define BREAK(field, value, word)						\
	do {									\
		h = good;							\
		h.field = value;						\
		cr_assert_eq(rtr_region_check(&h, size, why, sizeof(why)), -EPROTO, \
			     #field " = " #value " accepted");			\
		cr_expect_not_null(strstr(why, word), "%s: '%s'", #field, why); \
	} while (0)

	BREAK(magic, 0x1234, "magic");
	BREAK(endian, 0x04030201, "byte order");
	BREAK(abi_major, 2, "ABI");
	BREAK(region_size, size + 4096, "region_size");
	BREAK(mode, 9, "mode");
	BREAK(packet_size, 4097, "packet_size");
	BREAK(packet_size, 1u << 30, "packet_size");
	BREAK(packets_per_cpu, 0, "packets_per_cpu");
	BREAK(packets_per_cpu, 6, "packets_per_cpu");
	BREAK(ncpus, 0, "ncpus");
	BREAK(ncpus, good.ncpus + 1, "past the region");
	BREAK(ncpus, 1u << 20, "ncpus");
	BREAK(header_size, 100, "header size");
	BREAK(cpu_stride, good.cpu_stride + 4096, "cpu_stride");
	BREAK(cpu_off, 12, "cpu_off");
	BREAK(cpu_off, size + 64, "cpu_off");
	BREAK(cpu_off, good.cpu_off + 64, "past the region");
	BREAK(metadata_cap, 1u << 30, "metadata");
	BREAK(metadata_off, good.cpu_off, "metadata");
	BREAK(metadata_len, good.metadata_cap + 1, "metadata_len");
	BREAK(clock_freq, 0, "clock");
#undef BREAK
	/* a buffer too small for the reason: cut, terminated, never overrun */
	{
		char small[8] = "xxxxxxx";

		h = good;
		h.magic = 1;
		cr_assert_eq(rtr_region_check(&h, size, small, 4), -EPROTO);
		cr_expect_eq(strlen(small), 3);
		cr_expect_eq(small[4], 'x');
		cr_assert_eq(rtr_region_check(&h, size, NULL, 0), -EPROTO, "no buffer: said by the errno");
	}
	t_ring_close(&t);
}

static void write_file(const char *path, const void *data, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, data, n), (ssize_t)n);
	close(fd);
}

Test(consumer, open_refuses_what_is_not_a_region)
{
	char dir[] = "/dev/shm/rtr-test-XXXXXX", path[96], err[256];
	static uint8_t junk[3 * 4096];
	struct rtr_consumer *c;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/missing", dir);
	cr_expect_eq(rtr_consumer_open(&c, path, err, sizeof(err)), -ENOENT);
	cr_expect_not_null(strstr(err, path), "the error names the file: %s", err);
	cr_expect_eq(rtr_consumer_open(&c, dir, err, sizeof(err)), -EISDIR, "a directory");
	snprintf(path, sizeof(path), "%s/empty", dir);
	write_file(path, junk, 0);
	cr_expect_eq(rtr_consumer_open(&c, path, err, sizeof(err)), -ENODATA);
	snprintf(path, sizeof(path), "%s/small", dir);
	write_file(path, junk, 100);
	cr_expect_eq(rtr_consumer_open(&c, path, err, sizeof(err)), -EPROTO);
	cr_expect_not_null(strstr(err, "too small"), "%s", err);
	snprintf(path, sizeof(path), "%s/zeros", dir);
	write_file(path, junk, sizeof(junk));
	cr_expect_eq(rtr_consumer_open(&c, path, err, sizeof(err)), -EAGAIN, "magic not yet written");
	srand(42);
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (uint8_t)rand();
	snprintf(path, sizeof(path), "%s/random", dir);
	write_file(path, junk, sizeof(junk));
	cr_expect_eq(rtr_consumer_open(&c, path, err, sizeof(err)), -EPROTO);
	cr_expect_not_null(strstr(err, "magic"), "%s", err);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	cr_expect_eq(system(path), 0);
}

Test(consumer, damaged_packet_is_skipped_and_counted)
{
	struct rtr_consumer_packet pkt;
	struct rtr_consumer_stats st;
	uint64_t pos = 0;
	struct t_ring t;

	t_pin0();
	t_ring_open(&t, RTR_MODE_DISCARD, P, 4, false);
	for (uint64_t i = 0; pos / P < 2; i++)
		pos = put16(&t, i);
	/* A scribbler breaks packet 0's magic, then packet 1's size. */
	((struct rtr_packet_hdr *)rtr_ring_cpu_data(t.ring, 0))->magic = 0xdeadbeef;
	cr_assert_eq(rtr_consumer_get(t.c, 0, &pkt), 0);
	cr_expect_eq(pkt.seq, 1);
	cr_expect_eq(pkt.skipped, 1, "the damaged packet shows as a gap");
	rtr_consumer_get_stats(t.c, 0, &st);
	cr_expect_eq(st.damaged, 1);
	cr_expect_eq(t_ctl(&t, 0)->cons, P, "a damaged packet is released in discard mode");
	rtr_consumer_put(t.c, 0);
	t_ring_close(&t);
}

struct damage_log {
	int n;
	uint64_t seq;
	char why[160];
};

static void log_damage(void *arg, uint32_t cpu, uint64_t seq, const char *why)
{
	struct damage_log *d = arg;

	(void)cpu;
	if (!d->n++) {		/* the first one */
		d->seq = seq;
		snprintf(d->why, sizeof(d->why), "%s", why);
	}
}

/* A loss count no producer could reach, or one going down, is damage; the last good one stands. */
Test(consumer, implausible_loss_counts_are_damage_not_believed)
{
	struct damage_log d = { 0 };
	struct t_ring t;

	t_ring_open(&t, RTR_MODE_DISCARD, P, 4, false);
	rtr_consumer_on_damage(t.c, log_damage, &d);
	t_ctl(&t, 0)->lost_full = 7;
	t_ctl(&t, 0)->lost_busy = 5;
	cr_expect_eq(rtr_consumer_lost(t.c, 0), 12);
	cr_expect_eq(d.n, 0);
	t_ctl(&t, 0)->lost_big = UINT64_MAX - 3;	/* the sum wraps */
	cr_expect_eq(rtr_consumer_lost(t.c, 0), 12);
	cr_expect_eq(d.n, 1);
	cr_expect_not_null(strstr(d.why, "implausible loss counters"), "%s", d.why);
	t_ctl(&t, 0)->lost_big = 0;
	t_ctl(&t, 0)->lost_full = 2;		/* going down */
	cr_expect_eq(rtr_consumer_lost(t.c, 0), 12);
	cr_expect_eq(d.n, 1, "reported once per stream");
	t_ctl(&t, 0)->lost_full = 9;		/* sane again: believed */
	cr_expect_eq(rtr_consumer_lost(t.c, 0), 14);
	t_ring_close(&t);
}

/* In discard mode no writer passes the consumer: a position that says so is damage, not lapping. */
Test(consumer, discard_mode_position_jump_is_damage)
{
	struct damage_log d = { 0 };
	struct rtr_consumer_packet pkt;
	struct rtr_consumer_stats st;
	struct t_ring t;

	t_pin0();
	t_ring_open(&t, RTR_MODE_DISCARD, P, 4, false);
	rtr_consumer_on_damage(t.c, log_damage, &d);
	for (uint64_t i = 0; i < 100; i++)
		put16(&t, i);
	t_ctl(&t, 0)->prod = 10 * (uint64_t)P + 100;
	while (rtr_consumer_get(t.c, 0, &pkt) == 0)
		rtr_consumer_put(t.c, 0);
	rtr_consumer_get_stats(t.c, 0, &st);
	cr_expect_eq(st.lapped, 0);
	cr_expect_gt(st.damaged, 0);
	cr_expect_gt(d.n, 0);
	cr_expect_not_null(strstr(d.why, "jumped"), "%s", d.why);
	t_ring_close(&t);
}

Test(consumer, lying_positions_cost_bounded_work)
{
	struct rtr_consumer_packet pkt;
	struct rtr_consumer_stats st;
	uint64_t lies[] = { UINT64_MAX, UINT64_MAX - 4096, 1ull << 62, 5 * P + 3, 3, 0 };
	struct t_ring t;

	t_pin0();
	t_ring_open(&t, RTR_MODE_OVERWRITE, P, 4, false);
	for (uint64_t i = 0; i < 1000; i++)
		put16(&t, i);
	for (size_t i = 0; i < sizeof(lies) / sizeof(lies[0]); i++) {
		int n = 0;

		t_ctl(&t, 0)->prod = lies[i];
		while (rtr_consumer_get(t.c, 0, &pkt) == 0) {
			cr_assert_leq(pkt.size, P);
			rtr_consumer_put(t.c, 0);
			cr_assert_lt(++n, 5, "a lie made the consumer hand out packets forever");
		}
	}
	rtr_consumer_get_stats(t.c, 0, &st);
	cr_expect_gt(st.damaged + st.bad_position + st.lapped, 0, "the lies were noticed");
	/* Going backwards is reported, never followed. */
	t_ctl(&t, 0)->prod = 0;
	cr_expect_eq(rtr_consumer_get(t.c, 0, &pkt), -EAGAIN);
	rtr_consumer_get_stats(t.c, 0, &st);
	cr_expect_gt(st.bad_position, 0);
	t_ring_close(&t);
}

/*
 * The hostile producer of the drain bound: after each damaged slot the
 * consumer skips, it moves @prod a buffer ahead of that slot; after every
 * N - 1 of them it leaves one good packet next.  Each rtr_consumer_get()
 * then walks N - 1 damaged slots and returns a packet, forever.  It is
 * the damage callback, so it keeps pace exactly.
 */
struct adversary {
	struct t_ring *t;
	uint32_t n;		/* packets per CPU */
	uint64_t calls;
};

static void adversary_on_damage(void *arg, uint32_t cpu, uint64_t seq, const char *why)
{
	struct adversary *a = arg;
	uint64_t B = (uint64_t)a->n * P, pos = seq * P;
	struct rtr_cpu_ctl *cb = t_ctl(a->t, cpu);

	(void)why;
	__atomic_store_n(&cb->prod, pos + B, __ATOMIC_RELEASE);
	if (++a->calls % (a->n - 1) == 0) {
		struct rtr_packet_hdr *h = (struct rtr_packet_hdr *)(rtr_ring_cpu_data(a->t->ring, cpu) +
								     ((pos + P) & (B - 1)));

		memset(h, 0, sizeof(*h));
		h->magic = RTR_CTF_MAGIC;
		memcpy(h->uuid, a->t->ring->hdr->uuid, sizeof(h->uuid));
		h->stream_instance_id = cpu;
		h->cpu_id = cpu;
		h->packet_seq_num = seq + 1;
		h->content_size = h->packet_size = RTR_PACKET_HDR_SIZE * 8;
	}
}

Test(consumer, a_drain_pass_does_bounded_work_against_an_adaptive_producer)
{
	const uint32_t n = 16;
	char dir[] = "/dev/shm/rtr-drain-XXXXXX", path[64], err[256], rm[96];
	struct rtr_out_opts opts = { .file_mode = 0600 };
	struct adversary a = { .n = n };
	struct rtr_consumer_stats st;
	struct rtr_session s;
	struct rtr_out *o;
	struct t_ring t;
	long taken;

	t_ring_open(&t, RTR_MODE_OVERWRITE, P, n, false);
	a.t = &t;
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/trace", dir);
	opts.path = path;
	cr_assert_eq(rtr_session_open(&s, t.path, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(rtr_out_open(&o, &opts, err, sizeof(err)), 0, "%s", err);
	/* Every slot garbage, a buffer of them ready. */
	memset(rtr_ring_cpu_data(t.ring, 0), 0xa5, (size_t)n * P);
	__atomic_store_n(&t_ctl(&t, 0)->prod, (uint64_t)n * P, __ATOMIC_RELEASE);
	rtr_consumer_on_damage(s.c, adversary_on_damage, &a);
	taken = rtr_session_drain(&s, o);
	rtr_consumer_get_stats(s.c, 0, &st);
	cr_expect_geq(taken, 1, "the adversary's good packet was taken");
	cr_expect_leq(st.damaged + st.packets, 2 * n + 2, "one pass walked %lu damaged slots "
		      "and took %lu packets (a buffer is %u)", (unsigned long)st.damaged,
		      (unsigned long)st.packets, n);
	rtr_out_close(o, false, NULL);
	rtr_session_close(&s);
	t_ring_close(&t);
	snprintf(rm, sizeof(rm), "rm -rf '%s'", dir);
	free(t_sh(rm, &(int){ 0 }));
}

/*
 * A child process scribbles random bytes over the control pages and the
 * packets while the consumer takes packets and waits: the consumer must
 * neither crash (ASan checks every access in CI) nor hang.
 */
Test(consumer, survives_a_scribbling_producer)
{
	struct rtr_consumer_packet pkt;
	struct rtr_consumer_stats st;
	uint64_t taken = 0, noticed = 0;
	struct timespec t0, t1;
	struct t_ring t;
	pid_t pid;
	int status;

	t_ring_open(&t, RTR_MODE_OVERWRITE, P, 4, false);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		struct rtr_ring *r = t.ring;
		uint64_t x = 88172645463325252ull;

		for (uint64_t i = 0;; i++) {
			uint32_t cpu;
			uint8_t *base;
			uint64_t span;

			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			cpu = (uint32_t)(x % r->ncpus);
			base = (uint8_t *)rtr_ring_cpu(r, cpu);
			span = RTR_CPU_CTL_SIZE + r->buf_mask + 1;
			if (i % 4 == 0) {
				/* positions: sometimes plausible, sometimes absurd */
				uint64_t v = x % 3 ? (x >> 20) % (64 * P) : x;

				__atomic_store_n(&((struct rtr_cpu_ctl *)base)->prod, v, __ATOMIC_RELAXED);
			} else {
				base[(x >> 16) % span] = (uint8_t)x;
			}
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (uint32_t cpu = 0; cpu < t.ring->ncpus; cpu++) {
			while (rtr_consumer_get(t.c, cpu, &pkt) == 0) {
				cr_assert_leq(pkt.size, P);
				cr_assert_geq(pkt.size, RTR_PACKET_HDR_SIZE);
				taken++;
				rtr_consumer_put(t.c, cpu);
			}
		}
		rtr_consumer_wait(t.c, 1);
		clock_gettime(CLOCK_MONOTONIC, &t1);
	} while (t1.tv_sec - t0.tv_sec < 2);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	for (uint32_t cpu = 0; cpu < t.ring->ncpus; cpu++) {
		rtr_consumer_get_stats(t.c, cpu, &st);
		noticed += st.damaged + st.bad_position + st.lapped;
	}
	cr_expect_gt(noticed, 0, "damage was seen and counted (%lu packets passed checks)",
		     (unsigned long)taken);
	t_ring_close(&t);
}

/* A consumer process asleep in rtr_consumer_wait() is woken by a packet. */
Test(consumer, sleeping_consumer_is_woken_by_a_completed_packet)
{
	struct t_ring t;
	pid_t pid;
	int status;

	t_pin0();
	t_ring_open(&t, RTR_MODE_DISCARD, P, 4, rtr_ring_rseq_available());
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		struct rtr_consumer_packet pkt;
		struct rtr_consumer *c;
		uint64_t t0 = rtr_monotonic_ns();
		int r;

		if (rtr_consumer_open(&c, t.path, NULL, 0))
			_exit(10);
		r = rtr_consumer_wait(c, 20000);
		if (r != 1)
			_exit(11);
		if (rtr_monotonic_ns() - t0 > 10000000000ull)
			_exit(12);
		if (rtr_consumer_get(c, 0, &pkt))
			_exit(13);
		_exit(pkt.seq == 0 ? 0 : 14);
	}
	/* Let the child go to sleep first (it would also be right if it did not). */
	usleep(200000);
	cr_expect_eq(t_ctl(&t, 0)->notify_at, P, "the consumer asked to be woken at packet 0's end");
	for (uint64_t i = 0; i < 300; i++)
		put16(&t, i);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status 0x%x", status);
	cr_expect_eq(t_ctl(&t, 0)->notify_at, 0, "the wake disarmed the request");
	t_ring_close(&t);
}

/*
 * Writers make no system call unless a consumer asked to be woken: a child
 * under a seccomp filter that kills it on any system call but exit writes
 * through hundreds of packet switches.  The control: the same child with a
 * wake-up requested dies at the first completed packet.  (Seccomp's strict
 * mode would not do: it also disables rdtsc.)
 */
static int forbid_syscalls(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_exit, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_exit_group, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

static void no_syscall_child(struct t_ring *t, bool armed)
{
	uint64_t p[2] = { 0, 0 };

	if (rtr_ring_write(&t->slot, 1, p, 16))	/* first write: urcu-bp registers */
		syscall(SYS_exit, 20);
	if (armed)
		__atomic_store_n(&t_ctl(t, 0)->notify_at, 1, __ATOMIC_SEQ_CST);
	if (forbid_syscalls())
		syscall(SYS_exit, 21);
	for (uint64_t i = 0; i < 500000; i++) {
		p[0] = i;
		rtr_ring_write(&t->slot, (uint32_t)(i % 40), p, 16);
	}
	syscall(SYS_exit, 0);
}

static void run_no_syscall(bool rseq)
{
	struct t_ring t;
	int status;
	pid_t pid;

	t_pin0();
	t_ring_open(&t, RTR_MODE_OVERWRITE, P, 4, rseq);
	pid = fork();
	if (pid == 0)
		no_syscall_child(&t, false);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "a writer made a system call (status 0x%x)", status);
	cr_expect_gt(t_ctl(&t, 0)->prod, 500 * P, "the child went through many packets");

	pid = fork();
	if (pid == 0)
		no_syscall_child(&t, true);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_expect(WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS,
		  "an armed wake-up must make the futex call (status 0x%x)", status);
	t_ring_close(&t);
}

Test(consumer, writers_make_no_syscall_unless_asked_rseq)
{
	run_no_syscall(true);
}

Test(consumer, writers_make_no_syscall_unless_asked_portable)
{
	run_no_syscall(false);
}

/*
 * A writer process is killed with SIGKILL at a random moment while it
 * writes as fast as it can.  The consumer delivers every packet completed
 * before the kill, and the committed prefix of the open one (what `recover`
 * salvages) is intact: one unbroken sequence of records, nothing torn.
 */
static void drain_checked(struct t_ring *t, uint64_t *next)
{
	struct rtr_consumer_packet pkt;
	struct t_rec rec[256];

	while (rtr_consumer_get(t->c, 0, &pkt) == 0) {
		int n = t_parse(pkt.data, pkt.size, 16, rec, 256);

		cr_assert_gt(n, 0);
		for (int j = 0; j < n; j++) {
			uint64_t q[2];

			memcpy(q, rec[j].payload, 16);
			cr_assert_eq(q[0], *next, "record %lu", (unsigned long)*next);
			cr_assert_eq(q[1], ~q[0], "torn");
			(*next)++;
		}
		rtr_consumer_put(t->c, 0);
	}
}

static void run_kill(bool rseq, unsigned trial)
{
	uint64_t next = 0, prod, until;
	struct t_rec rec[256];
	struct t_ring t;
	int status;
	pid_t pid;

	t_pin0();
	t_ring_open(&t, RTR_MODE_DISCARD, P, 16, rseq);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		for (uint64_t i = 0;; i++) {
			uint64_t p[2] = { i, ~i };

			while (rtr_ring_write(&t.slot, 1, p, 16) == -ENOBUFS)
				;
		}
	}
	/*
	 * Both pinned to CPU 0: the kill lands wherever the scheduler left the
	 * writer.  On a loaded machine the writer may not have run yet when the
	 * window ends: the window lasts until it has (10 s at most).
	 */
	until = rtr_monotonic_ns() + 20000000ull + (trial * 7919ull % 80) * 1000000ull;
	while (rtr_monotonic_ns() < until ||
	       (next <= 1000 && rtr_monotonic_ns() < until + 10000000000ull))
		drain_checked(&t, &next);
	kill(pid, SIGKILL);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFSIGNALED(status));
	drain_checked(&t, &next);
	/* The open packet's committed prefix, [packet start, prod), salvaged. */
	prod = t_ctl(&t, 0)->prod;
	if (prod % P) {
		struct rtr_consumer_packet pkt;
		int n;

		cr_assert_eq(rtr_consumer_salvage(t.c, 0, &pkt), 0);
		cr_expect_eq(pkt.size, prod % P);
		cr_expect_eq(pkt.seq, prod / P);
		cr_expect_eq(pkt.events_discarded, rtr_consumer_lost(t.c, 0));
		cr_expect_eq(pkt.timestamp_end, t_ctl(&t, 0)->last_ts);
		n = t_parse(pkt.data, pkt.size, 16, rec, 256);
		cr_assert_geq(n, 0, "the committed prefix parses");
		for (int j = 0; j < n; j++) {
			uint64_t q[2];

			memcpy(q, rec[j].payload, 16);
			cr_assert_eq(q[0], next++);
			cr_assert_eq(q[1], ~q[0]);
			cr_assert_leq(rec[j].ts, pkt.timestamp_end);
		}
		rtr_consumer_put(t.c, 0);
	} else {
		struct rtr_consumer_packet pkt;

		cr_expect_eq(rtr_consumer_salvage(t.c, 0, &pkt), -EAGAIN, "nothing open");
	}
	cr_expect_gt(next, 1000, "the writer ran (%lu records)", (unsigned long)next);
	t_ring_close(&t);
}

Test(consumer, writer_killed_mid_write_loses_nothing_committed)
{
	/* The child writes into a full ring once the parent stops draining, so
	 * kill it at a random moment while it is still filling fresh packets. */
	for (unsigned trial = 0; trial < 4; trial++) {
		run_kill(rtr_ring_rseq_available(), trial);
		run_kill(false, trial);
	}
}

Test(consumer, a_consumer_position_past_the_producer_is_not_believed)
{
	struct rtr_consumer_packet pkt;
	struct rtr_consumer_stats st;
	struct rtr_consumer *c2;
	uint64_t pos = 0;
	struct t_ring t;

	t_pin0();
	t_ring_open(&t, RTR_MODE_DISCARD, P, 4, false);
	t_ctl(&t, 0)->cons = 1ull << 40;
	cr_assert_eq(rtr_consumer_open(&c2, t.path, NULL, 0), 0);
	rtr_consumer_get_stats(c2, 0, &st);
	cr_expect_eq(st.bad_position, 1);
	t_ctl(&t, 0)->cons = 0;
	for (uint64_t i = 0; pos / P < 1; i++)
		pos = put16(&t, i);
	cr_assert_eq(rtr_consumer_get(c2, 0, &pkt), 0, "reads from the producer's packet on");
	cr_expect_eq(pkt.seq, 0);
	rtr_consumer_close(c2);
	t_ring_close(&t);
}

/* ---- the write-behind queue's arena ------------------------------------ */

struct slow_reader {
	int fd;
	uint8_t *buf;
	size_t len, cap;
	unsigned seed;
};

/* Reads the pipe to its end, pausing up to 3 ms after every 64 KiB or less. */
static void *slow_read(void *arg)
{
	struct slow_reader *r = arg;

	for (;;) {
		ssize_t n;

		if (r->cap - r->len < 65536) {
			r->cap *= 2;
			r->buf = realloc(r->buf, r->cap);
			if (!r->buf)
				return NULL;
		}
		n = read(r->fd, r->buf + r->len, 1 + rand_r(&r->seed) % 65536);
		if (n <= 0)
			return NULL;
		r->len += (size_t)n;
		if (rand_r(&r->seed) % 4 == 0)
			usleep(rand_r(&r->seed) % 3000);
	}
}

static uint8_t pattern(uint32_t i, size_t j)
{
	return (uint8_t)(i * 2654435761u >> 24) ^ (uint8_t)(j * 31 + (j >> 8));
}

/*
 * Packets of every size from a header's to 60 KiB, through a 1 MiB queue
 * into a pipe whose reader keeps pausing, the drain side waiting for room
 * as record's does: the queue is full again and again, its arena reused
 * from every gap.  Every packet comes out whole, in order: one placed over
 * another not yet written would show here.
 */
Test(consumer, the_queue_keeps_every_packet_whole_through_stalls, .timeout = 120)
{
	const uint32_t n = 4000;
	struct slow_reader r = { .cap = 1 << 20, .seed = 7 };
	struct rtr_out_opts opts = { .path = "-", .buffer_size = 1 << 20 };
	struct rtr_out_report rep;
	uint8_t *pkt = malloc(61440);
	unsigned seed = 11;
	char err[256];
	struct rtr_out *o;
	pthread_t th;
	uint32_t seen = 0;
	size_t off;
	int pfd[2];

	cr_assert_not_null(pkt);
	cr_assert_eq(pipe(pfd), 0);
	r.fd = pfd[0];
	r.buf = malloc(r.cap);
	cr_assert_not_null(r.buf);
	opts.fd = pfd[1];
	cr_assert_eq(pthread_create(&th, NULL, slow_read, &r), 0);
	cr_assert_eq(rtr_out_open(&o, &opts, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(rtr_out_metadata(o, "/* CTF 1.8 */", 13), 0);
	for (uint32_t i = 0; i < n; i++) {
		size_t size = RTR_PACKET_HDR_SIZE + rand_r(&seed) % (61440 - RTR_PACKET_HDR_SIZE + 1);

		if (i % 7 == 0)
			size = 4096 * (1 + rand_r(&seed) % 15);	/* whole blocks */
		for (size_t j = 0; j < size; j++)
			pkt[j] = pattern(i, j);
		while (!rtr_out_room(o, size))
			rtr_out_wait(o, 100);
		cr_assert_eq(rtr_out_packet(o, i % 4, pkt, size), 0, "packet %u", i);
	}
	cr_assert_eq(rtr_out_close(o, true, &rep), 0);
	cr_expect_gt(rep.queue_full, 0, "the queue was never full: the test tests nothing");
	close(pfd[1]);
	pthread_join(th, NULL);
	close(pfd[0]);
	cr_assert_not_null(r.buf);
	/* The prologue, the metadata's frame, then each packet's, in order. */
	cr_assert_geq(r.len, RTR_STREAM_PROLOGUE);
	off = RTR_STREAM_PROLOGUE;
	seed = 11;
	while (off + RTR_FRAME_HDR <= r.len) {
		uint32_t type, arg, i = seen;
		uint64_t len;

		memcpy(&type, r.buf + off, 4);
		memcpy(&arg, r.buf + off + 4, 4);
		memcpy(&len, r.buf + off + 8, 8);
		type = le32toh(type);
		arg = le32toh(arg);
		len = le64toh(len);
		off += RTR_FRAME_HDR;
		cr_assert_leq(off + len, r.len, "frame at %zu runs past the stream", off);
		if (type == RTR_FRAME_PACKET) {
			size_t size = RTR_PACKET_HDR_SIZE +
				      rand_r(&seed) % (61440 - RTR_PACKET_HDR_SIZE + 1);
			size_t bad = 0;

			if (i % 7 == 0)
				size = 4096 * (1 + rand_r(&seed) % 15);
			cr_assert_lt(i, n, "more packets than were written");
			cr_assert_eq(len, size, "packet %u: %" PRIu64 " bytes, not %zu", i, len, size);
			cr_assert_eq(arg, i % 4, "packet %u: stream %u", i, arg);
			for (size_t j = 0; j < size; j++)
				bad += r.buf[off + j] != pattern(i, j);
			cr_assert_eq(bad, 0, "packet %u: %zu of its %zu bytes overwritten", i, bad, size);
			seen++;
		}
		off += len;
	}
	cr_expect_eq(seen, n, "%u packets of %u in the stream", seen, n);
	cr_expect_eq(rep.packets, n);
	free(r.buf);
	free(pkt);
}

/*
 * The consumer loop's wait (rtr_session_wait_ms()): until the next flush
 * is due, never the whole interval again (a wait of 100 ms begun 1 ms
 * before a flush was due made it 99 ms late: the live lag's 200-300 ms);
 * 1 ms while a flush is asked for and not answered, then a quarter of the
 * time it has not been (12 ms after 50 ms); the caller's bound without a
 * flush timer.
 */
Test(consumer, the_loop_wakes_when_the_next_flush_is_due)
{
	struct rtr_session s;
	uint64_t now;
	int ms;

	memset(&s, 0, sizeof(s));
	cr_expect_eq(rtr_session_wait_ms(&s, 100), 100, "no flush timer: the caller's bound");
	s.flush_ms = 100;
	now = rtr_monotonic_ns();
	s.next_flush_ns = now + 30000000;	/* due in 30 ms */
	ms = rtr_session_wait_ms(&s, 100);
	cr_expect(ms >= 1 && ms <= 30, "a flush due in 30 ms: a wait of %d ms", ms);
	s.next_flush_ns = now + 500000;		/* in half a millisecond: 1 */
	ms = rtr_session_wait_ms(&s, 100);
	cr_expect(ms <= 1, "a flush due in 0.5 ms: a wait of %d ms", ms);
	s.next_flush_ns = now - 1;		/* due: no wait */
	cr_expect_eq(rtr_session_wait_ms(&s, 100), 0);
	s.next_flush_ns = now + 5000000000ull;	/* far: the caller's bound */
	cr_expect_eq(rtr_session_wait_ms(&s, 100), 100);
	s.flush_pending = true;
	s.flush_sent_ns = rtr_monotonic_ns();
	cr_expect_eq(rtr_session_wait_ms(&s, 100), 1, "a flush just asked for: 1 ms");
	s.flush_sent_ns = rtr_monotonic_ns() - 50000000;
	ms = rtr_session_wait_ms(&s, 100);
	cr_expect(ms >= 12 && ms <= 13, "unanswered for 50 ms: a wait of %d ms, not 12", ms);
	cr_expect_eq(rtr_session_wait_ms(&s, 5), 5, "and never past the caller's bound");
	s.flush_sent_ns = rtr_monotonic_ns() - 10000000000ull;
	cr_expect_eq(rtr_session_wait_ms(&s, 100), 100, "unanswered for 10 s: the caller's bound");
}
