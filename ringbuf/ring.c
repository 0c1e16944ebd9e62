// SPDX-License-Identifier: MIT
/*
 * ringbuf/ring.c - the ring's slow paths: region creation, packet open and
 * close, extended records, flush, detach (a grace period) and stop.
 *
 * Every change to a CPU's buffer, here as on the fast path, follows one rule:
 * write bytes at or past the packet start of @prod, then publish by storing
 * {prod, last_ts} in one instruction.  With rseq, the write and the store
 * form one restartable sequence that also checks @prod still holds the value
 * the C code computed from; without rseq (the portable path) a per-CPU
 * try-lock serialises writers instead.  Documentation/ringbuf.rst.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <urcu-bp.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include "ringbuf/ring.h"
#include "platform/platform.h"
#include "format/error.h"

#define METADATA_CAP		RTR_RING_METADATA_CAP
#define NEST_MAX		4
#define FLUSH_MIN_INTERVAL_NS	(10ull * 1000 * 1000)

#ifdef RTR_TSAN
int rtr_tsan_fence_word;
#endif
static __thread int rtr_nest __attribute__((tls_model("initial-exec")));
__thread uint32_t rtr_ring_tid __attribute__((tls_model("initial-exec")));
static uint32_t ring_pid;	/* getpid(), cached (reset in a fork's child) */
#ifdef RTR_HAVE_RSEQ_FASTPATH
static int rseq_emulated;	/* bench under valgrind: see rtr_ring_bench_emulate_rseq() */
#endif

_Static_assert(sizeof(struct rtr_region_hdr) <= RTR_REGION_HDR_SIZE, "the header fits its page");

#define ROUND8(x)	(((x) + 7) & ~(uint64_t)7)

#define COMMIT_TRIES	1000	/* bound against a peer that scribbles on @prod */

static inline uint64_t round8(uint64_t x)
{
	return ROUND8(x);
}

/* The calling thread's tid, asked of the kernel once per thread (and again after a fork). */
static uint32_t self_tid(void)
{
	if (rtr_unlikely(!rtr_ring_tid))
		rtr_ring_tid = (uint32_t)gettid();
	return rtr_ring_tid;
}

static uint32_t self_pid(void)
{
	uint32_t pid = __atomic_load_n(&ring_pid, __ATOMIC_RELAXED);

	if (rtr_unlikely(!pid)) {
		pid = (uint32_t)getpid();
		__atomic_store_n(&ring_pid, pid, __ATOMIC_RELAXED);
	}
	return pid;
}

/*
 * struct commit - one publication: copy @hlen header bytes (a 16-byte
 * buffer, written whole) and @len payload bytes (8-byte words) at @dst,
 * then store {@newpos, @newts} if @prod still equals @expect.
 */
struct commit {
	struct rtr_cpu_ctl *cb;
	uint32_t cpu;
	uint64_t expect;
	uint8_t *dst;
	const void *hdr;	/* 16 readable bytes */
	uint64_t hlen;
	const void *payload;	/* round8(len) readable bytes */
	uint64_t len;
	uint64_t newpos;
	uint64_t newts;
	uint32_t set_tid;	/* nonzero: store @tid in @last_tid once @prod is checked */
	uint32_t tid;
	bool locked;		/* portable path, or no writer left: plain stores */
};

/* RING_FULL: discard mode found no free packet, and the writer may wait for one. */
enum { COMMIT_DONE = 0, COMMIT_RETRY = 1, RING_FULL = 2 };

#ifdef RTR_HAVE_RSEQ_FASTPATH
/*
 * commit_rseq() - the slow path's restartable sequence.  Returns COMMIT_RETRY
 * when the thread is not on @c->cpu, @prod moved, or the kernel aborted the
 * sequence; the caller recomputes everything from a fresh @prod.  With
 * @c->set_tid, @last_tid is stored once @prod is known unchanged, before
 * the commit: a sequence aborted between the two leaves @last_tid at a
 * value that must therefore be true of the records up to @prod as they
 * are (RTR_TID_NONE always is; see append()).
 */
static int commit_rseq(const struct commit *c)
{
	struct rseq *rs = rtr_rseq_area();
	uint8_t *dst = c->dst;	/* advanced past the header inside the sequence */
	uint64_t st, t0, t1;

	__asm__ __volatile__(
		".pushsection __rseq_cs, \"aw\"\n\t"
		".balign 32\n\t"
		"3:\n\t"
		".long 0x0, 0x0\n\t"
		".quad 1f, (2f - 1f), 4f\n\t"
		".popsection\n\t"
		".pushsection __rseq_cs_ptr_array, \"aw\"\n\t"
		".quad 3b\n\t"
		".popsection\n\t"
		"leaq 3b(%%rip), %[t0]\n\t"
		"movq %[t0], 8(%[rs])\n\t"
		"1:\n\t"
		"movl $1, %k[st]\n\t"
		"cmpl 4(%[rs]), %k[cpu]\n\t"
		"jne 5f\n\t"
		"cmpq (%[cb]), %[expect]\n\t"
		"jne 5f\n\t"
		"cmpl $0, %c[o_set](%[c])\n\t"
		"je 8f\n\t"
		"movl %c[o_tidv](%[c]), %k[t0]\n\t"
		"movl %k[t0], %c[o_ltid](%[cb])\n\t"
		"8:\n\t"
		"movq (%[hdr]), %[t0]\n\t"
		"movq %[t0], (%[dst])\n\t"
		"movq 8(%[hdr]), %[t0]\n\t"
		"movq %[t0], 8(%[dst])\n\t"
		"addq %[hlen], %[dst]\n\t"
		"xorl %k[t1], %k[t1]\n\t"
		"cmpq %[len], %[t1]\n\t"
		"jae 7f\n\t"
		"6:\n\t"
		"movq (%[src], %[t1]), %[t0]\n\t"
		"movq %[t0], (%[dst], %[t1])\n\t"
		"addq $8, %[t1]\n\t"
		"cmpq %[len], %[t1]\n\t"
		"jb 6b\n\t"
		"7:\n\t"
		"movq %c[o_newpos](%[c]), %%xmm0\n\t"
		"movq %c[o_newts](%[c]), %%xmm1\n\t"
		"punpcklqdq %%xmm1, %%xmm0\n\t"
		"xorl %k[st], %k[st]\n\t"
		"movdqa %%xmm0, (%[cb])\n\t"
		"2:\n\t"
		"5:\n\t"
		".pushsection __rseq_failure, \"ax\"\n\t"
		".byte 0x0f, 0xb9, 0x3d\n\t"
		".long 0x53053053\n\t"
		"4:\n\t"
		"movl $1, %k[st]\n\t"
		"jmp 5b\n\t"
		".popsection\n\t"
		: [st] "=&r"(st), [t0] "=&r"(t0), [t1] "=&r"(t1), [dst] "+r"(dst)
		: [rs] "r"(rs), [cpu] "r"(c->cpu), [cb] "r"(c->cb), [expect] "r"(c->expect),
		  [hdr] "r"(c->hdr), [hlen] "r"(c->hlen),
		  [src] "r"(c->payload), [len] "r"(c->len), [c] "r"(c),
		  [o_newpos] "n"(offsetof(struct commit, newpos)),
		  [o_newts] "n"(offsetof(struct commit, newts)),
		  [o_set] "n"(offsetof(struct commit, set_tid)),
		  [o_tidv] "n"(offsetof(struct commit, tid)),
		  [o_ltid] "n"(offsetof(struct rtr_cpu_ctl, last_tid))
		: "xmm0", "xmm1", "memory", "cc");
	return (int)st;
}
#endif

/* The portable path's publication, under the CPU's lock. */
static int commit_locked(const struct commit *c)
{
	if (rtr_load(&c->cb->prod) != c->expect)
		return COMMIT_RETRY;
	if (c->set_tid)
		rtr_store(&c->cb->last_tid, c->tid);
	memcpy(c->dst, c->hdr, 16);
	memcpy(c->dst + c->hlen, c->payload, c->len);
	rtr_store(&c->cb->last_ts, c->newts);
	rtr_store_release(&c->cb->prod, c->newpos);
	return COMMIT_DONE;
}

static int commit(const struct rtr_ring *ring, const struct commit *c)
{
#ifdef RTR_HAVE_RSEQ_FASTPATH
	if (!c->locked)
		return commit_rseq(c);
#endif
	return commit_locked(c);
}

static uint64_t lost_total(struct rtr_cpu_ctl *cb)
{
	return rtr_load(&cb->lost_full) + rtr_load(&cb->lost_big) + rtr_load(&cb->lost_busy);
}

/*
 * The consumer's words of @cpu: {cons, notify_at} in the CPU's control page
 * (unix), or in the Xen control page dom0 may write (ringtrace/xen.h).
 */
static struct rtr_cons_words *cons_words(const struct rtr_ring *ring, uint32_t cpu)
{
	return (struct rtr_cons_words *)(ring->mem.cons + (uint64_t)cpu * ring->mem.cons_stride);
}

static void wake_consumer(struct rtr_ring *ring)
{
	rtr_add(&ring->hdr->wake_seq, 1);
	ring->mem.ops->wake(&ring->mem, &ring->hdr->wake_seq);
}

/*
 * Wake the consumer if it asked to be woken once @prod reached @pos: Xen's
 * io/ring.h rule with @notify_at as req_event, exchanged to 0 so that one
 * request brings one wake-up however many writers pass it.
 */
static void notify(struct rtr_ring *ring, uint32_t cpu, uint64_t pos)
{
	uint64_t *word = &cons_words(ring, cpu)->notify_at;
	uint64_t at;

	rtr_smp_mb();	/* @prod store before @notify_at load; pairs with the consumer */
	at = rtr_load(word);
	if (rtr_likely(!at || pos < at))
		return;
	if (rtr_xchg(word, 0) == 0)
		return;
	wake_consumer(ring);
}

/*
 * struct cursor - a snapshot of one CPU's buffer that the slow path acts on.
 */
struct cursor {
	uint32_t cpu;
	struct rtr_cpu_ctl *cb;
	uint64_t pos;
	uint64_t last_ts;
	uint64_t ts;
	uint32_t last_tid;
	bool locked;
	bool may_block;		/* blocking mode, outermost write: a full ring is RING_FULL */
};

static void cursor_load(const struct rtr_ring *ring, struct cursor *k, uint32_t cpu,
			bool locked)
{
	uint64_t now;

	k->locked = locked || !ring->use_rseq;
	k->may_block = false;
	k->cpu = cpu;
	k->cb = rtr_ring_cpu(ring, cpu);
	k->pos = rtr_load_acquire(&k->cb->prod);
	k->last_ts = rtr_load(&k->cb->last_ts);
	k->last_tid = rtr_load(&k->cb->last_tid);
	now = rtr_clock_read();
	/* Another CPU's clock (flush, stop) or a TSC step must not go back. */
	k->ts = now > k->last_ts ? now : k->last_ts;
}

static uint8_t *slot_addr(const struct rtr_ring *ring, uint32_t cpu, uint64_t pos)
{
	return rtr_ring_cpu_data(ring, cpu) + (pos & ring->buf_mask);
}

/*
 * slot_free() - may the packet at k->pos (a boundary) be written?  In
 * discard mode once the consumer released the slot's previous contents.  In
 * overwrite mode unless a snapshot reader holds that previous packet (it is
 * copying the ring from @hold on): then only until @hold_until, and never
 * more than a second ahead, so a reader that died holding costs a second of
 * drops at most.  An adversarial @cons or @hold only makes us drop: neither
 * ever becomes an address.  The loads come before the commit that opens
 * the packet (program order; TSO, or the portable path's release), so a
 * reader that stores @hold, fences, and then finds @prod below the slot's
 * next use knows every later opener sees the hold (ringbuf.rst, "Snapshots").
 */
static bool slot_free(const struct rtr_ring *ring, const struct cursor *k)
{
	uint64_t cons, until, B = ring->buf_mask + 1;

	if (ring->mode != RTR_MODE_DISCARD) {
		/* A Xen dom0 cannot write these (its mapping is read-only): never held. */
		until = rtr_load_acquire(&k->cb->hold_until);
		if (rtr_likely(!until || k->ts >= until || until - k->ts > ring->hold_max))
			return true;
		return k->pos - rtr_load(&k->cb->hold) < B;
	}
	cons = rtr_load_acquire(&cons_words(ring, k->cpu)->cons);
	return k->pos - cons <= B - ring->packet_size;
}

/*
 * open_packet() - start the packet at k->pos (a packet boundary).  Discard
 * mode refuses a slot the consumer has not released.
 * Return: COMMIT_DONE, COMMIT_RETRY, -ENOBUFS (counted in lost_full), or
 * RING_FULL (not counted: the writer may wait, rtr_ring_write_slow()).
 */
static int open_packet(struct rtr_ring *ring, const struct cursor *k)
{
	union {
		struct rtr_packet_hdr h;
		uint8_t b[ROUND8(sizeof(struct rtr_packet_hdr))];
	} p;
	struct commit c;

	if (!slot_free(ring, k)) {
		if (k->may_block)
			return RING_FULL;
		rtr_add(&k->cb->lost_full, 1);
		return -ENOBUFS;
	}
	memset(&p, 0, sizeof(p));
	p.h.magic = RTR_CTF_MAGIC;
	memcpy(p.h.uuid, ring->hdr->uuid, sizeof(p.h.uuid));
	p.h.stream_id = 0;
	p.h.stream_instance_id = k->cpu;
	p.h.timestamp_begin = k->ts;
	p.h.packet_seq_num = k->pos / ring->packet_size;
	p.h.cpu_id = k->cpu;
	p.h.timestamp_end = k->ts;
	p.h.content_size = (uint64_t)ring->packet_size * 8;
	p.h.packet_size = (uint64_t)ring->packet_size * 8;
	p.h.events_discarded = lost_total(k->cb);

	c = (struct commit){
		.cb = k->cb, .cpu = k->cpu, .expect = k->pos,
		.dst = slot_addr(ring, k->cpu, k->pos),
		.hdr = p.b, .hlen = 16,
		.payload = p.b + 16, .len = sizeof(p) - 16,
		.newpos = k->pos + RTR_PACKET_HDR_SIZE, .newts = k->ts, .locked = k->locked,
		/* A packet begins with no thread: its first record is a thread record. */
		.set_tid = 1, .tid = RTR_TID_NONE,
	};
	return commit(ring, &c);
}

/*
 * close_packet() - fill the end fields of the open packet and move @prod to
 * the next boundary, which publishes the packet to the consumer.
 */
static int close_packet(struct rtr_ring *ring, const struct cursor *k)
{
	uint64_t start = k->pos & ~(uint64_t)ring->packet_mask;
	uint64_t content = k->pos - start;
	struct rtr_packet_end e[2];	/* 16-byte header buffer + 16 payload bytes */
	struct commit c;
	int ret;

	memset(e, 0, sizeof(e));
	e[0].timestamp_end = k->ts;
	e[0].content_size = content * 8;
	e[0].packet_size = content * 8;
	e[0].events_discarded = lost_total(k->cb);
	c = (struct commit){
		.cb = k->cb, .cpu = k->cpu, .expect = k->pos,
		.dst = slot_addr(ring, k->cpu, start) + RTR_PACKET_END_OFF,
		.hdr = e, .hlen = 16,
		.payload = (uint8_t *)e + 16, .len = 16,
		.newpos = start + ring->packet_size, .newts = k->ts, .locked = k->locked,
	};
	ret = commit(ring, &c);
	if (ret == COMMIT_DONE)
		notify(ring, k->cpu, c.newpos);
	return ret;
}

/* The record header for @id at k->ts: compact when it may be, else extended.  Return: its size. */
static uint64_t record_hdr(const struct cursor *k, uint32_t id, uint64_t hdr[2])
{
	hdr[1] = 0;
	if (id > RTR_EV_COMPACT_ID_MAX || k->ts - k->last_ts >= (1ull << RTR_EV_TS_BITS)) {
		uint8_t *b = (uint8_t *)hdr;

		b[0] = RTR_EV_EXTENDED;
		memcpy(b + 1, &id, 4);
		memcpy(b + 5, &k->ts, 8);
		return RTR_EV_EXTENDED_SIZE;
	}
	hdr[0] = ((uint32_t)k->ts << 5) | id;
	return RTR_EV_COMPACT_SIZE;
}

/*
 * struct writer - who writes: the thread's ids, and where its own thread
 * record ends when it has just committed one (0: it has not).
 */
struct writer {
	uint32_t pid;
	uint32_t tid;
	uint32_t thread_cpu;
	uint64_t thread_at;
};

/* Room a thread record may take: its 16-byte header buffer is written whole, then its ids. */
#define THREAD_ROOM	24u

/*
 * append() - one step of a write on CPU k->cpu: open a packet, close a full
 * one, write the thread record, or append the record.  Return: COMMIT_DONE
 * when the record is in, COMMIT_RETRY to take another step, or a negative
 * errno.
 *
 * Thread records (RTR_RING_THREADS): @last_tid says which thread's record
 * is the last one in the open packet, and the fast path writes only when
 * it is the writer's.  It must never name a thread that is not the last
 * one, so it changes only in a commit's sequence, after @prod is checked:
 * to RTR_TID_NONE by a packet's opening and by a thread record's commit
 * (the record is not yet committed when the store happens), and to the
 * writer's tid by the commit of the record that follows the writer's own
 * thread record, when @prod is still where that thread record ended
 * (@w->thread_at).  A sequence aborted after the store and before the
 * commit leaves a value that is true either way.  Anything else that came
 * in between (another thread, a signal handler) moved @prod: the next step
 * sees another @last_tid and writes a new thread record.
 */
static int append(struct rtr_ring *ring, const struct cursor *k, uint32_t id,
		  const void *payload, uint32_t len, struct rtr_write_info *info,
		  struct writer *w)
{
	uint64_t off = k->pos & ring->packet_mask;
	uint64_t hdr[2], hlen, need;
	bool mine = k->last_tid == w->tid ||
		    (w->thread_at && k->pos == w->thread_at && k->cpu == w->thread_cpu);
	struct commit c;
	int ret;

	info->cpu = k->cpu;
	if (off == 0) {
		ret = open_packet(ring, k);
		return ret == COMMIT_DONE ? COMMIT_RETRY : ret;
	}
	/* The header buffer is written whole (16 bytes), the payload in words. */
	need = 16 + round8(len);
	if (ring->threads && !mine)
		need += THREAD_ROOM;
	if (off + need > ring->packet_size) {
		ret = close_packet(ring, k);
		return ret == COMMIT_DONE ? COMMIT_RETRY : ret;
	}
	if (ring->threads && !mine) {
		uint32_t ids[2] = { w->pid, w->tid };

		hlen = record_hdr(k, RTR_EV_THREAD_ID, hdr);
		c = (struct commit){
			.cb = k->cb, .cpu = k->cpu, .expect = k->pos,
			.dst = slot_addr(ring, k->cpu, k->pos),
			.hdr = hdr, .hlen = hlen, .payload = ids, .len = RTR_EV_THREAD_SIZE,
			.newpos = k->pos + hlen + RTR_EV_THREAD_SIZE, .newts = k->ts,
			.set_tid = 1, .tid = RTR_TID_NONE, .locked = k->locked,
		};
		ret = commit(ring, &c);
		if (ret == COMMIT_DONE) {
			w->thread_at = c.newpos;
			w->thread_cpu = k->cpu;
			ret = COMMIT_RETRY;
		}
		return ret;
	}
	hlen = record_hdr(k, id, hdr);
	c = (struct commit){
		.cb = k->cb, .cpu = k->cpu, .expect = k->pos,
		.dst = slot_addr(ring, k->cpu, k->pos),
		.hdr = hdr, .hlen = hlen, .payload = payload, .len = round8(len),
		.newpos = k->pos + hlen + len, .newts = k->ts, .locked = k->locked,
		/* Without thread records @last_tid only lets this thread's next record go fast. */
		.set_tid = k->last_tid != w->tid, .tid = w->tid,
	};
	ret = commit(ring, &c);
	if (ret == COMMIT_DONE) {
		info->cpu = k->cpu;
		info->pos = k->pos;
	}
	return ret;
}

/*
 * The portable path's lock word holds its owner's pid: processes that share
 * the region after a fork share the locks, and one killed while holding a
 * lock is found dead (steal_lock()).
 */
static bool try_lock(const struct rtr_ring *ring, struct rtr_cpu_ctl *cb)
{
	uint32_t free_ = 0;

	return __atomic_compare_exchange_n(&cb->lock, &free_, ring->pid, false, __ATOMIC_ACQUIRE,
					   __ATOMIC_RELAXED);
}

static bool pid_dead(uint32_t pid)
{
	return pid > 0 && pid <= INT_MAX && kill((pid_t)pid, 0) < 0 && errno == ESRCH;
}

/* A lock whose owner process died: take it (its write never committed). */
static bool steal_lock(const struct rtr_ring *ring, struct rtr_cpu_ctl *cb)
{
	uint32_t owner = rtr_load(&cb->lock);

	return owner != ring->pid && pid_dead(owner) &&
	       __atomic_compare_exchange_n(&cb->lock, &owner, ring->pid, false, __ATOMIC_ACQUIRE,
					   __ATOMIC_RELAXED);
}

static void unlock(struct rtr_cpu_ctl *cb)
{
	__atomic_store_n(&cb->lock, 0, __ATOMIC_RELEASE);
}

/*
 * write_locked() - the portable path: this CPU's buffer if its lock is free,
 * else the next free one (so a preempted lock holder costs no event).
 */
static int write_locked(struct rtr_ring *ring, uint32_t id, const void *payload,
			uint32_t len, struct rtr_write_info *info, bool may_block,
			struct writer *w)
{
	uint32_t first = (uint32_t)rtr_cpu_current() % ring->ncpus;

	for (uint32_t i = 0; i < ring->ncpus; i++) {
		uint32_t cpu = (first + i) % ring->ncpus;
		struct rtr_cpu_ctl *cb = rtr_ring_cpu(ring, cpu);
		struct cursor k;
		int ret;

		if (!try_lock(ring, cb))
			continue;
		for (int n = 0;; n++) {
			cursor_load(ring, &k, cpu, true);
			k.may_block = may_block;
			ret = append(ring, &k, id, payload, len, info, w);
			if (ret != COMMIT_RETRY)
				break;
			if (n == COMMIT_TRIES) {
				rtr_add(&cb->lost_busy, 1);
				ret = -EBUSY;
				break;
			}
		}
		unlock(cb);
		return ret;
	}
	rtr_add(&rtr_ring_cpu(ring, first)->lost_busy, 1);
	info->cpu = first;
	return -EBUSY;
}

#ifdef RTR_HAVE_RSEQ_FASTPATH
static int write_rseq(struct rtr_ring *ring, uint32_t id, const void *payload,
		      uint32_t len, struct rtr_write_info *info, bool may_block,
		      struct writer *w)
{
	struct rseq *rs = rtr_rseq_area();
	struct cursor k;
	int ret;

	for (int n = 0; n < COMMIT_TRIES; n++) {
		uint32_t cpu = __atomic_load_n(&rs->cpu_id, __ATOMIC_RELAXED);

		if (cpu >= ring->ncpus) {
			/*
			 * This thread has no rseq registration (a raw clone()),
			 * since the ring covers every possible CPU.  Taking the
			 * portable path here would mix two protocols on buffers
			 * that rseq writers own: drop and count instead.
			 */
			uint32_t c = (uint32_t)rtr_cpu_current() % ring->ncpus;

			rtr_add(&rtr_ring_cpu(ring, c)->lost_busy, 1);
			info->cpu = c;
			return -EBUSY;
		}
		cursor_load(ring, &k, cpu, false);
		k.may_block = may_block;
		ret = append(ring, &k, id, payload, len, info, w);
		if (ret != COMMIT_RETRY)
			return ret;
	}
	rtr_add(&k.cb->lost_busy, 1);
	info->cpu = k.cpu;
	return -EBUSY;
}
#endif

/* The futex word a blocked writer sleeps on: the low half of @cons, which every put moves. */
static uint32_t *cons_word(const struct rtr_ring *ring, uint32_t cpu)
{
	return (uint32_t *)&cons_words(ring, cpu)->cons + (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
}

/* The consumer attached to the region has died (blocking for it is pointless). */
static bool consumer_dead(const struct rtr_ring *ring)
{
	pid_t pid = (pid_t)rtr_load(&ring->hdr->consumer_pid);

	return pid > 0 && kill(pid, 0) < 0 && errno == ESRCH;
}

#define BLOCK_SLICE_MS	100	/* a blocked writer looks at the world this often */

/*
 * wait_room() - blocking mode: sleep until the consumer releases a packet of
 * stream @cpu, @deadline passes (monotonic ns), the ring is detached, or
 * the consumer dies.  The writer stays in the RCU read-side section (the
 * ring cannot go away), and looks again every BLOCK_SLICE_MS: a detach waits
 * no longer than that for it.  Dekker with rtr_consumer_put(): the writer
 * counts itself in @waiting, fences, then looks at @cons; the consumer
 * stores @cons, fences, then wakes if @waiting is not 0.
 * Return: 0 room (or something changed: try again); -ETIMEDOUT; -EPIPE the
 * consumer is gone; -ENODEV the ring was detached.
 */
static int wait_room(struct rtr_ring *ring, struct rtr_ring *_Atomic *slot, uint32_t cpu,
		     uint64_t deadline)
{
	struct rtr_cpu_ctl *cb = rtr_ring_cpu(ring, cpu);
	struct rtr_cons_words *cw = cons_words(ring, cpu);
	uint64_t B = ring->buf_mask + 1;

	for (;;) {
		uint32_t seen = rtr_load(cons_word(ring, cpu));
		uint64_t prod, now;
		int ms;

		rtr_add(&cb->waiting, 1);
		rtr_smp_mb();	/* @waiting before @cons; pairs with the consumer's put */
		prod = rtr_load_acquire(&cb->prod);
		if ((prod & ring->packet_mask) || prod - rtr_load_acquire(&cw->cons) <= B -
		    ring->packet_size) {
			rtr_add(&cb->waiting, -1);
			return 0;
		}
		now = rtr_monotonic_ns();
		ms = now >= deadline ? 0 : deadline - now > BLOCK_SLICE_MS * 1000000ull ?
		     BLOCK_SLICE_MS : (int)((deadline - now + 999999) / 1000000);
		if (ms)
			ring->mem.ops->wait(&ring->mem, cons_word(ring, cpu), seen, ms);
		rtr_add(&cb->waiting, -1);
		if (__atomic_load_n(slot, __ATOMIC_ACQUIRE) != ring)
			return -ENODEV;
		if (rtr_monotonic_ns() >= deadline)
			return -ETIMEDOUT;
		if (consumer_dead(ring))
			return -EPIPE;
	}
}

int rtr_ring_write_slow(struct rtr_ring *_Atomic *slot, uint32_t id, const void *payload,
			uint32_t len, struct rtr_write_info *info)
{
	struct rtr_write_info dummy;
	struct writer w = { 0 };
	struct rtr_ring *ring;
	uint64_t deadline = 0;
	bool may_block;
	int ret;

	if (!info)
		info = &dummy;
	if (rtr_unlikely(rtr_nest >= NEST_MAX)) {
		/* The outer levels registered this thread: the read lock is safe here. */
		urcu_bp_read_lock();
		ring = __atomic_load_n(slot, __ATOMIC_CONSUME);
		if (ring) {
			info->cpu = (uint32_t)rtr_cpu_current() % ring->ncpus;
			rtr_add(&rtr_ring_cpu(ring, info->cpu)->lost_busy, 1);
		}
		urcu_bp_read_unlock();
		return ring ? -EBUSY : -ENODEV;
	}
	rtr_nest++;
	urcu_bp_read_lock();
	ring = __atomic_load_n(slot, __ATOMIC_CONSUME);
	if (!ring) {
		ret = -ENODEV;
		goto out;
	}
	if ((uint64_t)RTR_PACKET_HDR_SIZE + 16 + round8(len) + (ring->threads ? THREAD_ROOM : 0) >
	    ring->packet_size || len > RTR_RING_MAX_PAYLOAD) {
		info->cpu = (uint32_t)rtr_cpu_current() % ring->ncpus;
		rtr_add(&rtr_ring_cpu(ring, info->cpu)->lost_big, 1);
		ret = -ENOSPC;
		goto out;
	}
	/*
	 * Blocking mode: a full ring makes the outermost write wait for the
	 * consumer; a nested one (a signal handler interrupting a write) drops,
	 * as discard mode does, since the write it interrupted may be the one
	 * the consumer needs to make progress on this thread.
	 */
	may_block = ring->block_ns && ring->mode == RTR_MODE_DISCARD && rtr_nest == 1;
	w.tid = self_tid();
	w.pid = self_pid();
	for (;;) {
#ifdef RTR_HAVE_RSEQ_FASTPATH
		if (ring->use_rseq)
			ret = write_rseq(ring, id, payload, len, info, may_block, &w);
		else
#endif
			ret = write_locked(ring, id, payload, len, info, may_block, &w);
		if (ret != RING_FULL)
			break;
		if (!deadline)
			deadline = ring->block_ns > 0 ? rtr_monotonic_ns() + (uint64_t)ring->block_ns :
				   UINT64_MAX;
		ret = wait_room(ring, slot, info->cpu, deadline);
		if (ret == 0)
			continue;
		if (ret != -ENODEV) {
			/* Waited long enough, or the consumer is gone: dropped, as discard mode. */
			rtr_add(&rtr_ring_cpu(ring, info->cpu)->lost_full, 1);
			ret = -ENOBUFS;
		}
		break;
	}
out:
	urcu_bp_read_unlock();
	rtr_nest--;
	return ret;
}

bool rtr_ring_rseq_available(void)
{
#ifdef RTR_HAVE_RSEQ_FASTPATH
	static int membarrier_ok;	/* 0 unknown, 1 yes, -1 no */

	if (rseq_emulated)
		return true;
	if (__rseq_size == 0 || !rtr_tsc_usable())
		return false;
	if (!membarrier_ok)
		membarrier_ok = rtr_membarrier_rseq_register() == 0 ? 1 : -1;
	return membarrier_ok > 0;
#else
	return false;
#endif
}

void rtr_ring_bench_emulate_rseq(void)
{
#ifdef RTR_HAVE_RSEQ_FASTPATH
	if (__rseq_size == 0) {
		struct rseq *rs = rtr_rseq_area();

		rs->cpu_id_start = 0;
		rs->cpu_id = 0;
		rseq_emulated = 1;
	}
#endif
}

int rtr_ring_default_path(char *buf, size_t len)
{
	uint64_t rnd;

	/* /dev/shm is everyone's: a name another user could guess, they could create first. */
	if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
		return -EIO;
	if ((size_t)snprintf(buf, len, RTR_RING_DEFAULT_DIR "/ringtrace-%d-%016llx", (int)getpid(),
			     (unsigned long long)rnd) >= len)
		return -ENAMETOOLONG;
	return 0;
}

/*
 * Writers run under urcu-bp's read lock, and a thread's first write
 * registers it under urcu-bp's registry lock.  A fork while another thread
 * held that lock would leave it held in the child, whose first new thread
 * would then hang on its first event: urcu-bp asks to be told of forks.
 */
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

/* The child's one thread is a new thread of a new process: it asks for its ids again. */
static void after_fork_child(void)
{
	urcu_bp_after_fork_child();
	rtr_ring_tid = 0;
	__atomic_store_n(&ring_pid, 0, __ATOMIC_RELAXED);
}

static void atfork_register(void)
{
	pthread_atfork(urcu_bp_before_fork, urcu_bp_after_fork_parent, after_fork_child);
}

/**
 * rtr_ring_atfork_init() - register urcu-bp's fork handlers now (once).  A
 * caller that holds a lock of its own across fork() registers its handlers
 * after this, so that its prepare handler runs first: urcu-bp's lock is
 * taken inside ours, as rtr_ring_detach() takes it.
 */
void rtr_ring_atfork_init(void)
{
	pthread_once(&atfork_once, atfork_register);
}

/* The producer's view of the region at ring->mem (header filled in), as @attr asks. */
static void ring_setup(struct rtr_ring *ring, const struct rtr_ring_attr *attr)
{
	struct rtr_region_hdr *h = (struct rtr_region_hdr *)ring->mem.base;

	ring->cpus = (uint8_t *)h + h->cpu_off;
	ring->cpu_stride = h->cpu_stride;
	ring->packet_size = h->packet_size;
	ring->packet_mask = h->packet_size - 1;
	ring->buf_mask = (uint64_t)h->packet_size * h->packets_per_cpu - 1;
	ring->fast_limit = h->packet_size - 11;
	ring->mode = h->mode;
	ring->ncpus = h->ncpus;
	ring->hold_max = h->clock_freq;	/* a snapshot's hold lasts a second at most */
	if (attr->struct_size >= offsetof(struct rtr_ring_attr, blocking_timeout_us) +
				 sizeof(attr->blocking_timeout_us))
		ring->block_ns = attr->blocking_timeout_us < 0 ? -1 :
				 attr->blocking_timeout_us > INT64_MAX / 1000 ? -1 :
				 attr->blocking_timeout_us * 1000;
	/* rseq writers index buffers by CPU number: every CPU needs one. */
	ring->threads = attr->flags & RTR_RING_THREADS;
	ring->use_rseq = !(attr->flags & RTR_RING_PORTABLE) && rtr_ring_rseq_available() &&
			 h->ncpus >= rtr_cpu_possible();
	/* The fast path compares the CPU with fast_ncpus: 0 sends it all here. */
	ring->fast_ncpus = ring->use_rseq ? h->ncpus : 0;
	ring->hdr = h;
	ring->region_size = h->region_size;
	ring->fd = ring->mem.fd;
	ring->pid = (uint32_t)getpid();
	ring->fork_slot = -1;
	/* The consumer's words: in the control pages unless the platform keeps them. */
	if (!ring->mem.cons) {
		ring->mem.cons = ring->cpus + offsetof(struct rtr_cpu_ctl, cons);
		ring->mem.cons_stride = h->cpu_stride;
	}
	if (!ring->mem.flush_req)
		ring->mem.flush_req = &h->flush_req;
}

int rtr_ring_create(struct rtr_ring **out, const struct rtr_ring_attr *attr)
{
	uint32_t psize, npk, ncpus;
	uint64_t buf, size, cpu_off, stride;
	rtr_region_create_fn create = rtr_region_file_create;
	char dummy[1], *err = dummy;
	size_t errlen = sizeof(dummy);
	struct rtr_region_hdr *h;
	struct rtr_ring *ring;
	void *addr;
	int ret;

	/* Without @blocking_timeout_us: a caller built before it (never blocks). */
	if (!out || !attr || attr->struct_size < RTR_RING_ATTR_SIZE_V0)
		return -EINVAL;
	if (attr->struct_size >= offsetof(struct rtr_ring_attr, errlen) + sizeof(attr->errlen)) {
		if (attr->create)
			create = attr->create;
		if (attr->err && attr->errlen) {
			err = attr->err;
			errlen = attr->errlen;
		}
	}
	err[0] = '\0';
	if (attr->mode != RTR_MODE_DISCARD && attr->mode != RTR_MODE_OVERWRITE)
		return -EINVAL;
	/*
	 * Blocking mode needs a consumer whose death the writers can see
	 * (consumer_pid): a local one.  A Xen dom0 cannot say it is there.
	 */
	if (create != rtr_region_file_create &&
	    attr->struct_size >= offsetof(struct rtr_ring_attr, blocking_timeout_us) +
				 sizeof(attr->blocking_timeout_us) && attr->blocking_timeout_us) {
		return rtr_errf(err, errlen, EINVAL,
				"blocking mode is for a local consumer: not with a Xen region");
	}
	psize = attr->packet_size ? attr->packet_size : 64 * 1024;
	npk = attr->packets_per_cpu ? attr->packets_per_cpu : 8;
	ncpus = attr->ncpus ? attr->ncpus : rtr_cpu_possible();
	if (rtr_region_geometry_bad(psize, npk, ncpus))
		return -EINVAL;
	buf = (uint64_t)psize * npk;
	stride = RTR_CPU_CTL_SIZE + buf;
	cpu_off = RTR_REGION_HDR_SIZE + METADATA_CAP;
	size = rtr_ring_region_size(psize, npk, ncpus);
	if (buf > (1ull << 36) || size > (1ull << 40))
		return -E2BIG;

	rtr_ring_atfork_init();
	ring = calloc(1, sizeof(*ring));
	if (!ring)
		return -ENOMEM;
	if (attr->path) {
		ring->path = strdup(attr->path);
	} else {
		char name[64];

		ret = rtr_ring_default_path(name, sizeof(name));
		if (ret)
			goto err_free;
		ring->path = strdup(name);
	}
	if (!ring->path) {
		ret = -ENOMEM;
		goto err_free;
	}
	ret = create(&ring->mem, ring->path, size, ncpus, err, errlen);
	if (ret)
		goto err_free;
	if (ring->mem.max_cpus && ncpus > ring->mem.max_cpus) {
		ret = -E2BIG;
		goto err_unmap;
	}
	addr = ring->mem.base;
	if (ring->mem.name && strcmp(ring->mem.name, ring->path)) {
		free(ring->path);
		ring->path = strdup(ring->mem.name);	/* "xen:..." */
		if (!ring->path) {
			ret = -ENOMEM;
			goto err_unmap;
		}
	}

	h = addr;
	h->abi_major = RTR_REGION_ABI_MAJOR;
	h->abi_minor = RTR_REGION_ABI_MINOR;
	h->endian = RTR_REGION_ENDIAN;
	h->word_size = sizeof(long);
	h->page_size = (uint32_t)sysconf(_SC_PAGESIZE);
	h->region_size = size;
	if (getrandom(h->uuid, sizeof(h->uuid), 0) != sizeof(h->uuid)) {
		ret = -EIO;
		goto err_unmap;
	}
	h->uuid[6] = (h->uuid[6] & 0x0f) | 0x40;	/* RFC 4122 version 4 */
	h->uuid[8] = (h->uuid[8] & 0x3f) | 0x80;
	h->ncpus = ncpus;
	h->mode = attr->mode;
	h->packet_size = psize;
	h->packets_per_cpu = npk;
	h->cpu_off = cpu_off;
	h->cpu_stride = stride;
	{
		struct rtr_clock_quality q;

		ret = rtr_clock_calibrate(&h->clock_freq, &h->clock_offset_ns, &q);
		if (ret)
			goto err_unmap;
		h->clock_window_ns = q.window_ns;
		h->clock_freq_ppb = q.freq_ppb;
		h->clock_sync = q.sync;
		h->clock_esterror_us = q.esterror_us;
		h->clock_maxerror_us = q.maxerror_us;
	}
	h->metadata_off = RTR_REGION_HDR_SIZE;
	h->metadata_cap = METADATA_CAP;
	h->metadata_len = 0;
	h->producer_pid = (uint32_t)getpid();
	h->procs[0] = h->producer_pid;
	h->nprocs = 1;
	h->header_size = RTR_PACKET_HDR_SIZE;
	h->state = RTR_STATE_RUNNING;
	ring_setup(ring, attr);
	/* Everything above is visible before a consumer can see the magic. */
	rtr_store_release(&h->magic, RTR_REGION_MAGIC);
	ret = ring->mem.ops->publish(&ring->mem);
	if (ret) {
		rtr_errf(err, errlen, 0, "%s: publishing the region: %s", ring->path,
			 strerror(-ret));
		goto err_unmap;
	}
	*out = ring;
	return 0;

err_unmap:
	ring->mem.ops->release(&ring->mem, true);
err_free:
	free(ring->path);
	free(ring);
	return ret;
}

/*
 * rtr_ring_detach() - unpublish the ring in @slot and wait until no writer
 * can still be using it.  The fast path reads *slot inside its restartable
 * sequence (threads without rseq registration never read it), so restarting
 * every sequence in the process (membarrier RSEQ) ends its uses; the slow
 * paths run under urcu-bp's read lock, so a grace period ends theirs.
 * Afterwards the ring may be stopped, flushed and destroyed.
 * Return: 0; -ENODEV if the slot was already empty; -errno from membarrier
 * for a ring that uses rseq, in which case the ring must not be destroyed.
 */
int rtr_ring_detach(struct rtr_ring *_Atomic *slot)
{
	struct rtr_ring *ring = __atomic_exchange_n(slot, NULL, __ATOMIC_SEQ_CST);

	if (!ring)
		return -ENODEV;
	ring->fast_quiesced = true;
#ifdef RTR_HAVE_RSEQ_FASTPATH
	if (__rseq_size > 0 && !rseq_emulated) {
		/* Even a portable ring is read by registered threads' fast path. */
		int ret = rtr_membarrier_rseq_register();

		if (!ret)
			ret = rtr_membarrier_rseq();
		if (ret) {
			ring->fast_quiesced = false;
			if (ring->use_rseq)
				return ret;
		}
	}
#endif
	urcu_bp_synchronize_rcu();
	return 0;
}

struct flush_arg {
	struct rtr_ring *ring;
	uint32_t cpu;
	bool include_empty;
	bool locked;
};

/* Close CPU @a->cpu's open packet; with rseq, runs on that CPU. */
static int flush_cpu(void *arg)
{
	struct flush_arg *a = arg;
	struct rtr_ring *ring = a->ring;
	struct cursor k;
	int ret;

	for (int n = 0; n < COMMIT_TRIES; n++) {
		cursor_load(ring, &k, a->cpu, a->locked);
		if ((k.pos & ring->packet_mask) == 0)
			return 0;	/* no open packet */
		if (!a->include_empty &&
		    (k.pos & ring->packet_mask) == RTR_PACKET_HDR_SIZE)
			return 0;	/* header only: nothing to deliver */
		ret = close_packet(ring, &k);
		if (ret != COMMIT_RETRY)
			return ret;
	}
	return -EAGAIN;
}

static int flush_all(struct rtr_ring *ring, bool include_empty, bool writers_gone)
{
	int err = 0;

	for (uint32_t cpu = 0; cpu < ring->ncpus; cpu++) {
		struct flush_arg a = { ring, cpu, include_empty, writers_gone || !ring->use_rseq };
		struct rtr_cpu_ctl *cb = rtr_ring_cpu(ring, cpu);
		int ret;

		if (writers_gone || !ring->use_rseq) {
			/* Portable path writers (if any) hold the lock while writing. */
			int spins = 0;

			while (!try_lock(ring, cb)) {
				if (++spins > 1000) {
					if (steal_lock(ring, cb))
						break;
					err = -EBUSY;
					goto next;
				}
				sched_yield();
			}
			ret = flush_cpu(&a);
			unlock(cb);
		} else {
			ret = rtr_cpu_run_on((int)cpu, flush_cpu, &a);
			if (ret == -EINVAL) {
				ring->flush_skipped_cpus++;
				continue;
			}
		}
		if (ret)
			err = ret;
next:;
	}
	return err;
}

/**
 * rtr_ring_flush() - close every CPU's open, non-empty packet so that the
 * consumer can take it now.  Safe while writers run: with rseq it runs on
 * each CPU in turn (pinning the calling thread) and publishes like a writer;
 * a CPU the thread may not run on is skipped and counted in
 * @flush_skipped_cpus.
 * Return: 0; -EBUSY if the portable path found a CPU locked for long;
 * -EAGAIN if @prod kept changing under 1000 attempts.
 */
int rtr_ring_flush(struct rtr_ring *ring)
{
	return flush_all(ring, false, false);
}

static void stop_flusher(struct rtr_ring *ring);

/*
 * carry_tail_loss() - at stop, when events were dropped after the last
 * packet closed (discard mode, buffer full), write one empty packet whose
 * events_discarded carries the final count, so that the trace itself tells
 * the whole loss.  If no slot is free, it does not wait (a program exits
 * through here, with or without a consumer): the count stays in the
 * control page and the consumer carries it (rtr_consumer_tail()).
 */
static int carry_tail_loss(struct rtr_ring *ring, uint32_t cpu)
{
	struct cursor k;
	uint64_t reported = 0;
	int ret;

	cursor_load(ring, &k, cpu, true);
	if (k.pos & ring->packet_mask)
		return 0;	/* flush_all() left no packet open */
	if (k.pos) {
		const struct rtr_packet_hdr *prev =
			(const void *)slot_addr(ring, cpu, k.pos - ring->packet_size);

		reported = prev->events_discarded;
	}
	if (lost_total(k.cb) <= reported)
		return 0;
	if (!slot_free(ring, &k))
		return 0;
	ret = open_packet(ring, &k);
	if (ret)
		return ret < 0 ? ret : -EAGAIN;
	cursor_load(ring, &k, cpu, true);
	return close_packet(ring, &k) ? -EAGAIN : 0;
}

/*
 * The processes writing into the region (struct rtr_region_hdr @procs): the
 * creator, then each forked child that follows.  @nprocs counts the entries
 * in use; it is raised before an entry is taken and lowered after one is
 * freed, so it never reads 0 while a process writes, and the process whose
 * decrement brings it to 0 stops the region.  A fork reserves the child's
 * entry in the parent, before fork() (RTR_PROC_FORKING | parent's pid), and
 * the parent waits for the child to claim it (rtr_ring_fork_parent()):
 * a parent that exits at once must not leave the region looking finished
 * while its child is about to write.  A process that died without leaving
 * (killed, _exit) is freed by whoever leaves next, or by nobody: the
 * consumer then sees every pid dead.
 */
#define RTR_PROC_FORKING	0x80000000u
#define FORK_CLAIM_WAIT_NS	(1000ull * 1000 * 1000)

static void untrack(struct rtr_region_hdr *h, uint32_t i, uint32_t entry, bool *last)
{
	if (__atomic_compare_exchange_n(&h->procs[i], &entry, 0, false, __ATOMIC_ACQ_REL,
					__ATOMIC_RELAXED) &&
	    __atomic_sub_fetch(&h->nprocs, 1, __ATOMIC_ACQ_REL) == 0)
		*last = true;
}

/*
 * This process leaves @procs, with the entries it reserved for children that
 * never claimed them, and frees dead processes' entries.
 * Return: whether it was last.
 */
static bool leave(struct rtr_ring *ring)
{
	struct rtr_region_hdr *h = ring->hdr;
	bool last = false;

	for (uint32_t i = 0; i < RTR_REGION_PROCS; i++) {
		uint32_t e = rtr_load(&h->procs[i]);

		if ((e & ~RTR_PROC_FORKING) == ring->pid || (e && pid_dead(e & ~RTR_PROC_FORKING)))
			untrack(h, i, e, &last);
	}
	return last;
}

/**
 * rtr_ring_untraced() - count process @pid as one that runs untraced
 * although the region was meant for it (not followed, no room in @procs,
 * or a second program that found the region taken), for the consumer's
 * report.
 */
void rtr_ring_untraced(struct rtr_region_hdr *h, uint32_t pid)
{
	uint32_t n = __atomic_fetch_add(&h->untraced, 1, __ATOMIC_RELAXED);

	if (n < RTR_REGION_UNTRACED_PIDS)
		__atomic_store_n(&h->untraced_pids[n], pid, __ATOMIC_RELAXED);
}

/**
 * rtr_region_taken() - this process was to create the region at @path and
 * found it there: a region another process of the same trace created (a
 * program exec'd by a traced one, under `ringtrace record`).  Count this
 * process as untraced in it, and if it was itself writing into it before
 * an exec (a followed child), leave it.  Anything else at @path is left
 * alone.
 * Return: 0 when it is a live region (counted in); -errno otherwise.
 */
int rtr_region_taken(const char *path)
{
	struct rtr_region_hdr *h;
	struct stat st;
	bool last = false;
	uint32_t self = (uint32_t)getpid();
	int fd, ret = 0;

	fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    st.st_size < RTR_REGION_HDR_SIZE) {
		close(fd);
		return -EINVAL;
	}
	h = mmap(NULL, RTR_REGION_HDR_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (h == MAP_FAILED)
		return -errno;
	if (rtr_load_acquire(&h->magic) != RTR_REGION_MAGIC || h->abi_major != RTR_REGION_ABI_MAJOR ||
	    h->abi_minor < 2 || rtr_load(&h->state) != RTR_STATE_RUNNING) {
		ret = -EINVAL;
		goto out;
	}
	for (uint32_t i = 0; i < RTR_REGION_PROCS; i++) {
		uint32_t e = rtr_load(&h->procs[i]);

		/* Its own, and any it reserved for a child before the exec. */
		if ((e & ~RTR_PROC_FORKING) == self)
			untrack(h, i, e, &last);
	}
	/* The last writer exec'd without stopping: the consumer finds every pid gone. */
	for (uint32_t i = 0; i < RTR_REGION_UNTRACED_PIDS; i++) {
		if (rtr_load(&h->untraced_pids[i]) == self)
			goto out;	/* a child not followed, counted at fork */
	}
	__atomic_add_fetch(&h->untraced_exec, 1, __ATOMIC_RELAXED);
	rtr_ring_untraced(h, self);
out:
	munmap(h, RTR_REGION_HDR_SIZE);
	return ret;
}

/* A live region this library could have made: the layout rtr_ring_create() writes. */
static bool joinable(const struct rtr_region_hdr *h, uint64_t size)
{
	uint64_t stride = RTR_CPU_CTL_SIZE + (uint64_t)h->packet_size * h->packets_per_cpu;

	return size >= RTR_REGION_HDR_SIZE && rtr_load_acquire(&h->magic) == RTR_REGION_MAGIC &&
	       h->abi_major == RTR_REGION_ABI_MAJOR && h->abi_minor == RTR_REGION_ABI_MINOR &&
	       h->endian == RTR_REGION_ENDIAN && h->word_size == sizeof(long) &&
	       h->header_size == RTR_PACKET_HDR_SIZE &&
	       (h->mode == RTR_MODE_DISCARD || h->mode == RTR_MODE_OVERWRITE) &&
	       !rtr_region_geometry_bad(h->packet_size, h->packets_per_cpu, h->ncpus) &&
	       h->cpu_off == RTR_REGION_HDR_SIZE + METADATA_CAP &&
	       h->metadata_off == RTR_REGION_HDR_SIZE && h->metadata_cap == METADATA_CAP &&
	       h->cpu_stride == stride && h->region_size == size &&
	       h->cpu_off + stride * h->ncpus == size && h->clock_freq;
}

/**
 * rtr_ring_join() - write into the running region at @attr->path that
 * another process of the trace created (a program exec'd by a traced one,
 * under `ringtrace record`), as a forked child does: an entry of @procs,
 * no flusher (the creator's serves every CPU).  Only a region of this
 * library's layout, of this user, still running, is joined; a region
 * whose processes have all left (@nprocs 0: it is being stopped) is not.
 * A process that exec'd from a followed child keeps the entry it has.
 * Return: 0; -EEXIST when @path is no region this process may join;
 * -ENOSPC when @procs is full; -errno from opening it.
 */
int rtr_ring_join(struct rtr_ring **out, const struct rtr_ring_attr *attr)
{
	struct rtr_region_hdr *h;
	struct rtr_ring *ring;
	struct stat st;
	bool listed = false;
	uint32_t self = (uint32_t)getpid(), n;
	int ret;

	if (!out || !attr || attr->struct_size < RTR_RING_ATTR_SIZE_V0 || !attr->path)
		return -EINVAL;
	rtr_ring_atfork_init();
	ring = calloc(1, sizeof(*ring));
	if (!ring)
		return -ENOMEM;
	ring->path = strdup(attr->path);
	if (!ring->path) {
		ret = -ENOMEM;
		goto err_free;
	}
	ret = rtr_region_file_open(&ring->mem, ring->path);
	if (ret)
		goto err_free;
	h = (struct rtr_region_hdr *)ring->mem.base;
	ret = -EEXIST;
	if (fstat(ring->mem.fd, &st) || st.st_uid != geteuid() || !joinable(h, ring->mem.size) ||
	    rtr_load(&h->state) != RTR_STATE_RUNNING)
		goto err_unmap;
	for (uint32_t i = 0; i < RTR_REGION_PROCS && !listed; i++)
		listed = rtr_load(&h->procs[i]) == self;
	if (!listed) {
		/* Counted in only while someone is: at 0 the last one is stopping it. */
		n = rtr_load(&h->nprocs);
		do {
			if (!n)
				goto err_unmap;
		} while (!__atomic_compare_exchange_n(&h->nprocs, &n, n + 1, false, __ATOMIC_ACQ_REL,
						      __ATOMIC_RELAXED));
		ret = -ENOSPC;
		for (uint32_t i = 0; i < RTR_REGION_PROCS && !listed; i++) {
			uint32_t free_ = 0;

			listed = __atomic_compare_exchange_n(&h->procs[i], &free_, self, false,
							     __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
		}
		if (!listed) {
			__atomic_sub_fetch(&h->nprocs, 1, __ATOMIC_ACQ_REL);
			goto err_unmap;
		}
		__atomic_add_fetch(&h->followed, 1, __ATOMIC_RELAXED);
	}
	ring_setup(ring, attr);
	*out = ring;
	return 0;

err_unmap:
	ring->mem.ops->release(&ring->mem, false);
err_free:
	free(ring->path);
	free(ring);
	return ret;
}

/**
 * rtr_ring_fork_prepare() - before fork(), in the parent (pthread_atfork()'s
 * prepare handler, one fork at a time): reserve an entry of @procs for the
 * child, if it is to @follow.  No room: the child will not trace.
 */
void rtr_ring_fork_prepare(struct rtr_ring *ring, bool follow)
{
	struct rtr_region_hdr *h = ring->hdr;

	ring->fork_slot = -1;
	if (!follow)
		return;
	__atomic_add_fetch(&h->nprocs, 1, __ATOMIC_ACQ_REL);
	for (uint32_t i = 0; i < RTR_REGION_PROCS; i++) {
		uint32_t free_ = 0;

		if (__atomic_compare_exchange_n(&h->procs[i], &free_, RTR_PROC_FORKING | ring->pid,
						false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
			ring->fork_slot = (int32_t)i;
			return;
		}
	}
	__atomic_sub_fetch(&h->nprocs, 1, __ATOMIC_ACQ_REL);
}

/**
 * rtr_ring_fork_parent() - after fork(), in the parent: wait until the child
 * has claimed its entry (a context switch, against the cost of a fork), for
 * a second at most: fork() may have failed, and then the entry stays
 * reserved until this process leaves.
 */
void rtr_ring_fork_parent(struct rtr_ring *ring)
{
	uint32_t *w, res = RTR_PROC_FORKING | ring->pid;
	uint64_t end;

	if (ring->fork_slot < 0)
		return;
	w = &ring->hdr->procs[ring->fork_slot];
	ring->fork_slot = -1;
	end = rtr_monotonic_ns() + FORK_CLAIM_WAIT_NS;
	while (rtr_load_acquire(w) == res && rtr_monotonic_ns() < end)
		rtr_futex_wait(w, res, 10);
}

/**
 * rtr_ring_forked() - in a child just forked from a process tracing into
 * @ring, before it writes: claim the entry its parent reserved, or not
 * follow.  The child has no flusher (the thread stayed in the parent).
 * Only async-signal-safe calls: it runs in pthread_atfork()'s child handler.
 * Return: 0 when the child writes on; -EPERM when not @follow, -ENOSPC
 * when there was no room (or the parent gave the entry up), both counted
 * as untraced: the caller must stop writing and never use @ring again.
 */
int rtr_ring_forked(struct rtr_ring *ring, bool follow)
{
	struct rtr_region_hdr *h = ring->hdr;
	uint32_t res = RTR_PROC_FORKING | ring->pid;
	int32_t slot = ring->fork_slot;

	ring->flusher_running = 0;
	ring->flusher_stop = 0;
	ring->fork_slot = -1;
	ring->pid = (uint32_t)getpid();
	if (follow && slot >= 0 &&
	    __atomic_compare_exchange_n(&h->procs[slot], &res, ring->pid, false, __ATOMIC_ACQ_REL,
					__ATOMIC_RELAXED)) {
		__atomic_add_fetch(&h->followed, 1, __ATOMIC_RELAXED);
		rtr_futex_wake(&h->procs[slot], INT_MAX);
		return 0;
	}
	rtr_ring_untraced(h, ring->pid);
	return follow ? -ENOSPC : -EPERM;
}

/**
 * rtr_region_lock() - the lock of the region's metadata area and id
 * counters, shared by the processes writing into it: @reg_lock holds its
 * owner's pid; one that died holding it is taken over.
 */
void rtr_region_lock(struct rtr_region_hdr *h)
{
	uint32_t self = (uint32_t)getpid();

	for (int spins = 0;; spins++) {
		uint32_t owner = 0;

		if (__atomic_compare_exchange_n(&h->reg_lock, &owner, self, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return;
		if (spins > 100 && pid_dead(owner)) {
			if (__atomic_compare_exchange_n(&h->reg_lock, &owner, self, false,
							__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
				return;
		}
		if (spins > 100)
			usleep(100);
		else
			sched_yield();
	}
}

void rtr_region_unlock(struct rtr_region_hdr *h)
{
	__atomic_store_n(&h->reg_lock, 0, __ATOMIC_RELEASE);
}

/**
 * rtr_ring_stop() - after rtr_ring_detach(): this process leaves the
 * region.  While other processes write into it (forked children), its open
 * packets are closed as the flusher closes them, and the region goes on.
 * The last process closes every open packet, even an empty one (it carries
 * the final events_discarded), marks the region stopped and wakes the
 * consumer so it drains and finishes.
 */
int rtr_ring_stop(struct rtr_ring *ring)
{
	int ret;

	/* The flusher publishes with rseq; from here on only plain stores. */
	stop_flusher(ring);
	if (!leave(ring)) {
		ret = flush_all(ring, false, false);
		wake_consumer(ring);
		return ret;
	}
	ret = flush_all(ring, true, true);
	for (uint32_t cpu = 0; cpu < ring->ncpus; cpu++) {
		int r = carry_tail_loss(ring, cpu);

		if (r)
			ret = r;
	}
	rtr_store_release(&ring->hdr->state, RTR_STATE_STOPPED);
	wake_consumer(ring);
	return ret;
}

/* What rtr_ring_start_flusher() hands its thread, on the starter's stack. */
struct flusher_start {
	struct rtr_ring *ring;
	int ready;
};

static void *flusher_main(void *arg)
{
	struct flusher_start *start = arg;
	struct rtr_ring *ring = start->ring;
	struct rtr_region_hdr *h = ring->hdr;
	uint64_t last = 0;

	urcu_bp_register_thread();
#ifdef __linux__
	/*
	 * Named for the kernel's view (record --sched): the tracer's thread,
	 * not the program's.  prctl, not pthread_setname_np: --pthread's
	 * wrapper would record a label for it.
	 */
	prctl(PR_SET_NAME, "ringtrace-flush", 0, 0, 0);
#endif
	/* From here the starter's stack is gone. */
	__atomic_store_n(&start->ready, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&ring->flusher_stop, __ATOMIC_ACQUIRE)) {
		uint32_t req = rtr_load_acquire(ring->mem.flush_req);

		if (req != rtr_load(&h->flush_done)) {
			uint64_t now = rtr_monotonic_ns();

			/* The consumer is untrusted: at most one flush per 10 ms. */
			if (now - last < FLUSH_MIN_INTERVAL_NS) {
				struct timespec d = { 0, (long)(FLUSH_MIN_INTERVAL_NS - (now - last)) };

				nanosleep(&d, NULL);
			}
			flush_all(ring, false, false);
			last = rtr_monotonic_ns();
			__atomic_add_fetch(&ring->flushes, 1, __ATOMIC_RELAXED);
			rtr_store_release(&h->flush_done, req);
			ring->mem.ops->wake(&ring->mem, &h->flush_done);
			continue;
		}
		ring->mem.ops->wait(&ring->mem, ring->mem.flush_req, req, 200);
	}
	urcu_bp_unregister_thread();
	return NULL;
}

/**
 * rtr_ring_start_flusher() - start the thread that serves the consumer's
 * flush requests (struct rtr_region_hdr @flush_req / @flush_done).
 *
 * Returns once the thread has registered with urcu-bp, which takes
 * urcu-bp's registry lock: before tracing is on (rtr_start() starts the
 * flusher first), so that a preloaded pthread wrapper (``record
 * --pthread``) never sees the tracer's own thread wait for that lock and
 * record it as a thread of the program.
 */
int rtr_ring_start_flusher(struct rtr_ring *ring)
{
	struct flusher_start start = { ring, 0 };
	pthread_t t;
	int ret;

	if (ring->flusher_running)
		return -EALREADY;
	ret = pthread_create(&t, NULL, flusher_main, &start);
	if (ret)
		return -ret;
	while (!__atomic_load_n(&start.ready, __ATOMIC_ACQUIRE))
		sched_yield();
	ring->flusher_thread = (unsigned long)t;
	ring->flusher_running = 1;
	return 0;
}

static void stop_flusher(struct rtr_ring *ring)
{
	if (!ring->flusher_running)
		return;
	__atomic_store_n(&ring->flusher_stop, 1, __ATOMIC_RELEASE);
	/* On Xen the flusher waits on the channel: up to its 200 ms timeout. */
	rtr_futex_wake(ring->mem.flush_req, INT_MAX);
	pthread_join((pthread_t)ring->flusher_thread, NULL);
	ring->flusher_running = 0;
}

/**
 * rtr_ring_destroy() - unmap the region (after detach) and free the ring.
 * The file stays, a complete record of the trace, unless @unlink_file.
 */
void rtr_ring_destroy(struct rtr_ring *ring, bool unlink_file)
{
	if (!ring)
		return;
	stop_flusher(ring);
	ring->mem.ops->release(&ring->mem, unlink_file);
	free(ring->path);
	/*
	 * Without a membarrier RSEQ (kernels before 5.10) a registered thread's
	 * fast path may still load this struct once: keep its few bytes.
	 */
	if (ring->fast_quiesced)
		free(ring);
}
