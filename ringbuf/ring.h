/* SPDX-License-Identifier: MIT */
/*
 * ringbuf/ring.h - the per-CPU packet ring: producer API and fast path.
 *
 * Design and proofs: Documentation/ringbuf.rst.  In short, each CPU's
 * buffer has one commit position, @prod.  A writer appends a record and
 * publishes it by storing {prod, last_ts} in one instruction, inside a
 * restartable sequence (rseq): the kernel restarts the sequence if the
 * thread is preempted, migrated or signalled before that store, so no
 * locked instruction is needed, a record is never half-published, and a
 * writer that dies leaves nothing behind.  Packet open/close and records
 * that need an extended header take ring.c's slow path, which uses the
 * same publication rule.  Where rseq is unavailable (old kernel, valgrind,
 * ThreadSanitizer builds, non-x86-64) the portable path takes a per-CPU
 * try-lock instead; the consumer sees the same protocol either way.
 *
 * Concurrency:
 *
 * =====================  ===========================  ==========================
 * operation              who                          synchronisation
 * =====================  ===========================  ==========================
 * rtr_ring_write()       any thread, signal handler   rseq on the CPU's buffer,
 *                                                     ring pointer read inside it
 * rtr_ring_flush()       any thread of the producer   pins itself to each CPU
 * rtr_ring_detach()      one control thread           membarrier(RSEQ) + RCU
 * rtr_ring_stop()        after detach                 no writers remain in this
 *                                                     process; the last process
 *                                                     of @procs stops the region
 * rtr_ring_forked()      a fork child, before it      atomics on @procs
 *                        writes
 * consumer get/put       the consumer (any process)   acquire @prod, release @cons
 * =====================  ===========================  ==========================
 */
#ifndef RTR_RINGBUF_RING_H
#define RTR_RINGBUF_RING_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <ringtrace/region.h>
#include "platform/compiler.h"
#include "platform/platform.h"

/**
 * struct rtr_ring - a producer's view of its region; read-only after
 * rtr_ring_create() except where noted.  The first line is what the fast
 * path reads.
 */
struct rtr_ring {
	uint8_t *cpus;			/* CPU 0's control page */
	uint64_t cpu_stride;
	uint32_t fast_ncpus;		/* ncpus when the fast path may run, else 0 */
	uint32_t packet_size;		/* P */
	uint64_t buf_mask;		/* N * P - 1 */
	uint32_t packet_mask;		/* P - 1 */
	uint32_t fast_limit;		/* P - 11: offset + len must not exceed it */
	uint32_t mode;			/* enum rtr_mode */
	uint32_t ncpus;
	bool use_rseq;			/* rseq fast and slow paths usable */
	bool threads;			/* RTR_RING_THREADS: write thread records */
	int64_t block_ns;		/* blocking mode: how long a writer waits (<0: no limit) */

	/* private: */
	struct rtr_region_hdr *hdr;
	uint64_t region_size;
	int fd;
	char *path;
	struct rtr_region_mem mem;	/* where the region lives, how to wake its consumer */
	bool fast_quiesced;		/* detach ended every fast-path use */
	int flusher_running;
	int flusher_stop;
	unsigned long flusher_thread;	/* pthread_t */
	uint64_t hold_max;		/* clock units: the longest a snapshot may hold writers */
	uint64_t flushes;		/* flush passes done by the flusher */
	uint64_t flush_skipped_cpus;	/* CPUs the flusher could not run on */
	uint32_t pid;			/* this process, in the region's @procs */
	int32_t fork_slot;		/* the entry reserved for a child being forked, or -1 */
};

/**
 * struct rtr_ring_attr - how to create a ring.
 * @struct_size: sizeof(struct rtr_ring_attr), for growth.
 * @path: region file; created O_EXCL, 0600, not following symlinks.  NULL:
 *        rtr_ring_default_path()'s.
 * @mode: RTR_MODE_DISCARD or RTR_MODE_OVERWRITE.
 * @packet_size: bytes per packet, power of two, 4096..64 MiB (0: 64 KiB).
 * @packets_per_cpu: power of two, 2..65536 (0: 8).
 * @ncpus: streams (0: every possible CPU).
 * @flags: RTR_RING_PORTABLE forces the portable (locked) path;
 *         RTR_RING_THREADS makes the ring write a thread record (region.h)
 *         wherever the thread writing into a CPU's stream changes, and at
 *         the start of each packet, so that every record can be attributed
 *         to its thread and process (Documentation/ringbuf.rst).
 * @create: where the region's memory comes from (platform.h), NULL: a file
 *          at @path (rtr_region_file_create()); rtr_xen_region_create() for
 *          pages granted to a Xen dom0.
 * @err, @errlen: a one-line reason when creation fails (may be NULL).
 * @blocking_timeout_us: discard mode: how long a writer that finds no free
 *        packet waits for the consumer before it drops the event (0: never
 *        waits, as discard mode does; RTR_RING_BLOCK_FOREVER: no limit).
 */
struct rtr_ring_attr {
	uint32_t struct_size;
	const char *path;
	uint32_t mode;
	uint32_t packet_size;
	uint32_t packets_per_cpu;
	uint32_t ncpus;
	uint32_t flags;
	rtr_region_create_fn create;
	char *err;
	size_t errlen;
	int64_t blocking_timeout_us;
};
#define RTR_RING_ATTR_SIZE_V0	offsetof(struct rtr_ring_attr, create)
#define RTR_RING_BLOCK_FOREVER	(-1)
#define RTR_RING_PORTABLE	0x1u
#define RTR_RING_THREADS	0x2u
#define RTR_RING_DEFAULT_DIR	"/dev/shm"

/**
 * struct rtr_write_info - where a record went (tests and tools use it).
 * @cpu: the stream.  @pos: the record's start position in that stream.
 */
struct rtr_write_info {
	uint32_t cpu;
	uint64_t pos;
};

/*
 * rtr_slot - where rtr_start() publishes the process's ring (events/events.c):
 * what rtr_emit*() write through.  Not in the public headers: the inline
 * emitters only read rtr_on, and C++ has no _Atomic.
 */
extern struct rtr_ring *_Atomic rtr_slot;

/* The metadata's room in a region, after its header page. */
#define RTR_RING_METADATA_CAP	(64u * 1024u)

/*
 * The bytes of a file region of @ncpus buffers of @npk packets of @psize
 * bytes: the header page, the metadata's room, and per CPU its control
 * page and buffer.  `ringtrace record` checks it against /dev/shm's room.
 */
static inline uint64_t rtr_ring_region_size(uint64_t psize, uint64_t npk, uint64_t ncpus)
{
	return RTR_REGION_HDR_SIZE + RTR_RING_METADATA_CAP + (RTR_CPU_CTL_SIZE + psize * npk) * ncpus;
}

int rtr_ring_create(struct rtr_ring **out, const struct rtr_ring_attr *attr);
int rtr_ring_join(struct rtr_ring **out, const struct rtr_ring_attr *attr);
int rtr_ring_detach(struct rtr_ring *_Atomic *slot);
int rtr_ring_flush(struct rtr_ring *ring);
int rtr_ring_stop(struct rtr_ring *ring);
void rtr_ring_destroy(struct rtr_ring *ring, bool unlink_file);
int rtr_ring_start_flusher(struct rtr_ring *ring);
void rtr_ring_atfork_init(void);
void rtr_ring_fork_prepare(struct rtr_ring *ring, bool follow);
void rtr_ring_fork_parent(struct rtr_ring *ring);
int rtr_ring_forked(struct rtr_ring *ring, bool follow);
void rtr_ring_untraced(struct rtr_region_hdr *h, uint32_t pid);
int rtr_region_taken(const char *path);
void rtr_region_lock(struct rtr_region_hdr *h);
void rtr_region_unlock(struct rtr_region_hdr *h);
int rtr_ring_write_slow(struct rtr_ring *_Atomic *slot, uint32_t id, const void *payload,
			uint32_t len, struct rtr_write_info *info);
bool rtr_ring_rseq_available(void);
/*
 * rtr_ring_default_path() - RTR_RING_DEFAULT_DIR/ringtrace-PID-RANDOM, 64
 * random bits: a name no other user can guess and create first.
 * Return: 0; -EIO without randomness; -ENAMETOOLONG.
 */
int rtr_ring_default_path(char *buf, size_t len);
/* Bench only: pretend the kernel registered rseq on CPU 0 (valgrind). */
void rtr_ring_bench_emulate_rseq(void);

/*
 * rtr_ring_tid - the calling thread's tid, cached by its first slow-path
 * write (0 before that, which matches no stream's @last_tid) and reset in
 * a fork's child.  The fast path compares it with the CPU's @last_tid.
 */
extern __thread uint32_t rtr_ring_tid __attribute__((tls_model("initial-exec")));

static inline struct rtr_cpu_ctl *rtr_ring_cpu(const struct rtr_ring *ring, uint32_t cpu)
{
	return (struct rtr_cpu_ctl *)(ring->cpus + (uint64_t)cpu * ring->cpu_stride);
}

static inline uint8_t *rtr_ring_cpu_data(const struct rtr_ring *ring, uint32_t cpu)
{
	return ring->cpus + (uint64_t)cpu * ring->cpu_stride + RTR_CPU_CTL_SIZE;
}

#define RTR_RING_MAX_PAYLOAD	(64u * 1024u * 1024u)

#if defined(__x86_64__) && !defined(RTR_TSAN)
#define RTR_HAVE_RSEQ_FASTPATH 1
#include <sys/rseq.h>

/*
 * rtr_rseq_area() - this thread's struct rseq, registered by glibc.  When
 * registration failed, cpu_id reads RSEQ_CPU_ID_REGISTRATION_FAILED, which
 * is out of every ring's CPU range, so the fast path falls to the slow path.
 */
static inline struct rseq *rtr_rseq_area(void)
{
	return (struct rseq *)((char *)__builtin_thread_pointer() + __rseq_offset);
}

/*
 * The fast path, one restartable sequence.  Between labels 1 and 2 it loads
 * the ring from *slot (so that detach is a grace period: see ring.c), finds
 * this CPU's control page, checks that this thread wrote the stream's last
 * thread record (@last_tid: else the slow path writes one first), that
 * the open packet has room and that the
 * compact header fits, reads the TSC, writes the record and commits it with
 * a single 16-byte store of {prod, last_ts}.  Any other case leaves the
 * sequence for the slow path (or reports a NULL ring).  The payload is
 * copied in 8-byte words, unrolled when its length is a constant; the room
 * check accounts for the rounding, so the bytes past the record stay inside
 * the open packet, past @prod, where nobody reads them.
 */
#define RTR_FAST_ASM(COPY, ADVANCE)						\
		".pushsection __rseq_cs, \"aw\"\n\t"				\
		".balign 32\n\t"						\
		"3:\n\t"							\
		".long 0x0, 0x0\n\t"						\
		".quad 1f, (2f - 1f), 4f\n\t"					\
		".popsection\n\t"						\
		".pushsection __rseq_cs_ptr_array, \"aw\"\n\t"			\
		".quad 3b\n\t"							\
		".popsection\n\t"						\
		"0:\n\t"							\
		"leaq 3b(%%rip), %[t0]\n\t"					\
		"movq %[t0], 8(%[rs])\n\t"	/* rs->rseq_cs = &desc */	\
		"1:\n\t"							\
		"movl 4(%[rs]), %k[cpu]\n\t"	/* rs->cpu_id */		\
		"testl %k[cpu], %k[cpu]\n\t"	/* < 0: rseq not registered, */	\
		"js %l[slow]\n\t"		/* so do not touch the ring */	\
		"movq (%[slot]), %[t1]\n\t"	/* ring = *slot */		\
		"testq %[t1], %[t1]\n\t"					\
		"jz %l[off]\n\t"						\
		"cmpl %c[o_ncpus](%[t1]), %k[cpu]\n\t"				\
		"jae %l[slow]\n\t"						\
		"movq %[cpu], %[cb]\n\t"					\
		"imulq %c[o_stride](%[t1]), %[cb]\n\t"				\
		"addq %c[o_cpus](%[t1]), %[cb]\n\t"	/* control page */	\
		"movq (%[cb]), %[pos]\n\t"		/* prod */		\
		"cmpl %c[o_tid](%[cb]), %k[tid]\n\t"				\
		"jne %l[slow]\n\t"		/* another thread wrote last */	\
		"movl %k[pos], %k[t0]\n\t"					\
		"andl %c[o_pmask](%[t1]), %k[t0]\n\t"	/* offset in packet */	\
		"jz %l[slow]\n\t"			/* no open packet */	\
		"addq %[len], %[t0]\n\t"					\
		"cmpl %c[o_limit](%[t1]), %k[t0]\n\t"				\
		"ja %l[slow]\n\t"			/* does not fit */	\
		"movq %[pos], %[t0]\n\t"					\
		"andq %c[o_bmask](%[t1]), %[t0]\n\t"				\
		"leaq %c[ctl](%[cb], %[t0]), %[t1]\n\t"	/* record address */	\
		"rdtsc\n\t"							\
		"shlq $32, %%rdx\n\t"						\
		"orq %%rdx, %%rax\n\t"			/* rax = ts */		\
		"movq %%rax, %%rdx\n\t"						\
		"subq 8(%[cb]), %%rdx\n\t"		/* ts - last_ts */	\
		"cmpq %[tsmax], %%rdx\n\t"					\
		"jae %l[slow]\n\t"		/* needs a full timestamp */	\
		"movl %%eax, %k[w]\n\t"						\
		"shll $5, %k[w]\n\t"						\
		"orl %[id], %k[w]\n\t"						\
		"movl %k[w], (%[t1])\n\t"		/* compact header */	\
		COPY								\
		ADVANCE								\
		"movq %[pos], %%xmm0\n\t"					\
		"movq %%rax, %%xmm1\n\t"					\
		"punpcklqdq %%xmm1, %%xmm0\n\t"					\
		"movdqa %%xmm0, (%[cb])\n\t"	/* commit {prod, last_ts} */	\
		"2:\n\t"							\
		".pushsection __rseq_failure, \"ax\"\n\t"			\
		".byte 0x0f, 0xb9, 0x3d\n\t"					\
		".long 0x53053053\n\t"		/* RSEQ_SIG before the abort ip */ \
		"4:\n\t"							\
		"jmp 0b\n\t"							\
		".popsection\n\t"

/* A payload of any length: a loop of 8-byte words. */
#define RTR_COPY_LOOP								\
		"xorl %k[t0], %k[t0]\n\t"					\
		"cmpq %[len], %[t0]\n\t"					\
		"jae 7f\n\t"							\
		"6:\n\t"							\
		"movq (%[src], %[t0]), %[w]\n\t"				\
		"movq %[w], 4(%[t1], %[t0])\n\t"				\
		"addq $8, %[t0]\n\t"						\
		"cmpq %[len], %[t0]\n\t"					\
		"jb 6b\n\t"							\
		"7:\n\t"

/* A payload of constant length: the words unrolled by the assembler. */
#define RTR_COPY_UNROLLED							\
		".set .Lrtr_off, 0\n\t"						\
		".rept (%c[len] + 7) / 8\n\t"					\
		"movq .Lrtr_off(%[src]), %[w]\n\t"				\
		"movq %[w], 4 + .Lrtr_off(%[t1])\n\t"				\
		".set .Lrtr_off, .Lrtr_off + 8\n\t"				\
		".endr\n\t"

#define RTR_FAST_OPERANDS(LEN_CONSTRAINT)					\
		: [cpu] "=&r"(cpu), [cb] "=&r"(cb), [pos] "=&r"(pos),		\
		  [t0] "=&r"(t0), [t1] "=&r"(t1), [w] "=&r"(w)			\
		: [rs] "r"(rs), [slot] "r"(slot), [src] "r"(payload),		\
		  [tid] "r"(tid),						\
		  [o_tid] "n"(offsetof(struct rtr_cpu_ctl, last_tid)),		\
		  [id] "rn"(id), [len] LEN_CONSTRAINT((uint64_t)len),		\
		  [tsmax] "n"((1ull << RTR_EV_TS_BITS)),			\
		  [ctl] "n"(RTR_CPU_CTL_SIZE),					\
		  [o_ncpus] "n"(offsetof(struct rtr_ring, fast_ncpus)),		\
		  [o_stride] "n"(offsetof(struct rtr_ring, cpu_stride)),	\
		  [o_cpus] "n"(offsetof(struct rtr_ring, cpus)),		\
		  [o_pmask] "n"(offsetof(struct rtr_ring, packet_mask)),	\
		  [o_limit] "n"(offsetof(struct rtr_ring, fast_limit)),		\
		  [o_bmask] "n"(offsetof(struct rtr_ring, buf_mask))		\
		: "rax", "rdx", "xmm0", "xmm1", "memory", "cc"			\
		: slow, off

/*
 * rtr_ring_write_fast() - Return: 0 when the record is in (and @info, if
 * given, says where), 1 when the slow path must take it, -ENODEV when *slot
 * is NULL.
 */
static inline __attribute__((always_inline)) int
rtr_ring_write_fast(struct rtr_ring *_Atomic *slot, uint32_t id, const void *payload,
		    uint32_t len, struct rtr_write_info *info)
{
	struct rseq *rs = rtr_rseq_area();
	uint32_t tid = rtr_ring_tid;
	uint64_t cpu, cb, pos, t0, t1, w;

	if (__builtin_constant_p(len) && len <= 64)
		__asm__ __volatile__ goto(RTR_FAST_ASM(RTR_COPY_UNROLLED,
						     "addq $4 + %c[len], %[pos]\n\t")
					RTR_FAST_OPERANDS("n"));
	else
		__asm__ __volatile__ goto(RTR_FAST_ASM(RTR_COPY_LOOP,
						     "addq %[len], %[pos]\n\t"
						     "addq $4, %[pos]\n\t")
					RTR_FAST_OPERANDS("rn"));
	if (info) {
		info->cpu = (uint32_t)cpu;
		info->pos = pos - RTR_EV_COMPACT_SIZE - len;
	}
	return 0;
slow:
	return 1;
off:
	return -ENODEV;
}
#endif /* __x86_64__ && !RTR_TSAN */

/**
 * rtr_ring_write_at() - append one record to the calling CPU's stream.
 * @slot: where the ring is published (NULL: tracing is off).
 * @id: event id, 0..RTR_EV_COMPACT_ID_MAX take the compact header; larger
 *      ids (up to UINT32_MAX) the extended one.
 * @payload: @len bytes, copied as they are.  The fast path copies 8-byte
 *           words: @payload must be readable up to @len rounded up to 8
 *           (events/ builds records in such a buffer).
 * @info: filled with the stream and position on success, and with the
 *        stream that counted the loss on failure; may be NULL.
 *
 * Never blocks, allocates or makes a system call, except one futex wake
 * when this record completes a packet that a sleeping consumer waits for,
 * a thread's first slow-path call, which registers the thread with urcu-bp
 * (that allocates and makes system calls once), and, in blocking mode, the
 * wait for a free packet (ring.c's wait_room(), outermost writes only).
 *
 * Return: 0 on success; -ENODEV when @slot holds no ring; -ENOBUFS when
 * discard mode found no free packet, in blocking mode not within the
 * timeout, or overwrite mode a snapshot's hold (counted in lost_full); -ENOSPC when
 * the record can never fit in a packet (lost_big); -EBUSY (lost_busy) when
 * the portable path found every buffer locked, nesting was too deep, the
 * thread has no rseq registration while the ring uses rseq, or @prod kept
 * changing under 1000 attempts (a peer scribbling on the region).
 */
static inline int rtr_ring_write_at(struct rtr_ring *_Atomic *slot, uint32_t id,
				    const void *payload, uint32_t len,
				    struct rtr_write_info *info)
{
#ifdef RTR_HAVE_RSEQ_FASTPATH
	if (rtr_likely(id <= RTR_EV_COMPACT_ID_MAX && len <= RTR_RING_MAX_PAYLOAD)) {
		int st = rtr_ring_write_fast(slot, id, payload, len, info);

		if (rtr_likely(st <= 0))
			return st;
	}
#endif
	return rtr_ring_write_slow(slot, id, payload, len, info);
}

static inline int rtr_ring_write(struct rtr_ring *_Atomic *slot, uint32_t id,
				 const void *payload, uint32_t len)
{
	return rtr_ring_write_at(slot, id, payload, len, NULL);
}

#endif /* RTR_RINGBUF_RING_H */
