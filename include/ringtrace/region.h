/* SPDX-License-Identifier: MIT */
/*
 * ringtrace/region.h - the shared region, as an ABI.
 *
 * One region holds a whole trace: a header page, then per CPU a control
 * page and the CPU's packet slots.  Everything is found through offsets
 * from the region's start, never pointers, so that a consumer in another
 * process (or domain) can map it anywhere.  Documentation/region.rst is the
 * reference; this header is its C form.  Readers must bounds-check every
 * value they read here: see rtr_region_check().
 */
#ifndef RINGTRACE_REGION_H
#define RINGTRACE_REGION_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* "RINGTRC\0" as a little-endian u64; the producer writes it last. */
#define RTR_REGION_MAGIC	0x00435254474e4952ULL
#define RTR_REGION_ABI_MAJOR	1
#define RTR_REGION_ABI_MINOR	3
/* Stored as written; a reader seeing 0x04030201 has the other byte order. */
#define RTR_REGION_ENDIAN	0x01020304u

#define RTR_REGION_HDR_SIZE	4096u	/* the header page */
#define RTR_CPU_CTL_SIZE	4096u	/* each CPU's control page */
#define RTR_METADATA_MAX	(1u << 20) /* metadata text area capacity limit */

/*
 * The geometry a region may have: the producer creates only these, every
 * reader refuses anything else (rtr_region_check()), the tools' options
 * take only these.  Packet size and packets per CPU are powers of two.
 */
#define RTR_PACKET_SIZE_MIN	4096u
#define RTR_PACKET_SIZE_MAX	(64u << 20)
#define RTR_PACKETS_PER_CPU_MIN	2u
#define RTR_PACKETS_PER_CPU_MAX	65536u
#define RTR_NCPUS_MAX		65536u

/*
 * rtr_region_geometry_bad() - the one check of a geometry against the
 * bounds above (the producer's, the consumer's, the tools' options'):
 * NULL if a region may have it, else the field out of them
 * ("packet_size", "packets_per_cpu" or "ncpus").
 */
static inline const char *rtr_region_geometry_bad(uint64_t packet_size, uint64_t packets_per_cpu,
						  uint64_t ncpus)
{
	if (packet_size < RTR_PACKET_SIZE_MIN || packet_size > RTR_PACKET_SIZE_MAX ||
	    (packet_size & (packet_size - 1)))
		return "packet_size";
	if (packets_per_cpu < RTR_PACKETS_PER_CPU_MIN || packets_per_cpu > RTR_PACKETS_PER_CPU_MAX ||
	    (packets_per_cpu & (packets_per_cpu - 1)))
		return "packets_per_cpu";
	if (ncpus == 0 || ncpus > RTR_NCPUS_MAX)
		return "ncpus";
	return 0;	/* no NULL: the header includes no <stddef.h> */
}

/* ABI 1.2: processes writing into one region at once, and untraced pids kept. */
#define RTR_REGION_PROCS	256u
#define RTR_REGION_UNTRACED_PIDS 8u

/* CTF 1.8 packet header magic, first field of every packet. */
#define RTR_CTF_MAGIC		0xC1FC1FC1u

enum rtr_mode {
	RTR_MODE_DISCARD = 1,	/* never overwrite unconsumed packets; drop and count */
	RTR_MODE_OVERWRITE = 2,	/* flight recorder: oldest packets are overwritten */
};

enum rtr_region_state {
	RTR_STATE_INIT = 0,	/* being built; readers must wait or give up */
	RTR_STATE_RUNNING = 1,
	RTR_STATE_STOPPED = 2,	/* final packets closed: drain, then done */
};

/* @clock_sync of the region header (ABI 1.3): the host's realtime when the clock was measured. */
enum rtr_clock_sync {
	RTR_CLOCK_SYNC_UNKNOWN = 0,	/* not asked (a region before 1.3), or adjtimex() failed */
	RTR_CLOCK_SYNC_YES = 1,		/* synchronized (adjtimex(): TIME_OK, ...) */
	RTR_CLOCK_SYNC_NO = 2,		/* not synchronized (TIME_ERROR): the error is unbounded */
};

/*
 * struct rtr_region_hdr - the first page of the region.
 *
 * Fields up to @metadata_len are written once by the producer before
 * @magic.  The notification words below are shared and change all the time.
 */
struct rtr_region_hdr {
	uint64_t magic;			/* RTR_REGION_MAGIC, written last at creation */
	uint16_t abi_major;		/* readers refuse another major */
	uint16_t abi_minor;		/* readers accept any minor >= theirs' fields */
	uint32_t endian;		/* RTR_REGION_ENDIAN */
	uint32_t word_size;		/* sizeof(long) of the producer */
	uint32_t page_size;
	uint64_t region_size;		/* bytes, must equal the mapped file size */
	uint8_t uuid[16];		/* trace UUID, copied into every packet */
	uint32_t ncpus;			/* per-CPU streams */
	uint32_t mode;			/* enum rtr_mode */
	uint32_t packet_size;		/* P, bytes, power of two >= 4096 */
	uint32_t packets_per_cpu;	/* N, power of two >= 2; buffer B = N * P */
	uint64_t cpu_off;		/* offset of CPU 0's control page */
	uint64_t cpu_stride;		/* RTR_CPU_CTL_SIZE + B */
	uint64_t clock_freq;		/* timestamp units per second */
	int64_t clock_offset_ns;	/* realtime ns at timestamp 0 (CTF clock offset) */
	uint64_t metadata_off;		/* CTF metadata text area (events/ fills it) */
	uint32_t metadata_cap;
	uint32_t metadata_len;		/* bytes of text currently valid */
	uint32_t producer_pid;
	uint32_t header_size;		/* CTF packet header+context bytes, H */
	/*
	 * ABI 1.3: how well the clock is known (all 0 in a region before it):
	 * @clock_offset_ns within +-@clock_window_ns of the host's realtime
	 * when it was measured, @clock_freq within @clock_freq_ppb parts per
	 * billion; the host's own realtime as adjtimex() gave it then:
	 * @clock_sync enum rtr_clock_sync, its estimated and maximum error.
	 */
	uint32_t clock_window_ns;
	uint32_t clock_freq_ppb;
	uint32_t clock_sync;
	uint32_t clock_esterror_us;
	uint32_t clock_maxerror_us;
	uint8_t reserved0[108];

	/* Shared, cache-line aligned: written by both sides at run time. */
	uint32_t state __attribute__((aligned(64))); /* enum rtr_region_state */
	uint32_t wake_seq;		/* futex: bumped by a writer that wakes the consumer */
	uint32_t flush_req;		/* futex: consumer bumps to ask for a flush */
	uint32_t flush_done;		/* futex: producer sets to flush_req when done */
	uint32_t consumer_pid;		/* ABI 1.1: the consumer attached, 0 if none (blocking mode) */

	/*
	 * ABI 1.2: the processes writing into the region (a traced process's
	 * forked children write into it too: Documentation/events.rst,
	 * "Processes and fork").  Written by the producers only, with atomics.
	 */
	uint32_t nprocs __attribute__((aligned(64))); /* entries of @procs in use */
	uint32_t followed;		/* processes that joined after the first, cumulative */
	uint32_t untraced;		/* processes that could not or would not join, cumulative */
	uint32_t untraced_exec;		/* of them, programs exec'd that found the region taken */
	uint32_t reg_lock;		/* the metadata area's lock: its holder's pid, 0 = free */
	uint32_t next_counter;		/* the next counter id, region-wide */
	uint32_t next_class;		/* the next typed-event class id, region-wide */
	uint32_t pad0;
	uint64_t next_task;		/* the next block of task ids, region-wide */
	uint32_t untraced_pids[RTR_REGION_UNTRACED_PIDS]; /* the first of @untraced */
	/*
	 * Pids writing now; 0: a free entry; bit 31 set: reserved by the pid
	 * in the low bits for a child it is forking (the child claims it).
	 */
	uint32_t procs[RTR_REGION_PROCS];
};

/*
 * struct rtr_cpu_ctl - one CPU's control page.
 *
 * Line 0 is the producer's hot line: the commit position @prod and the
 * timestamp of the last committed record, stored together by one 16-byte
 * store (see ringbuf/ring.h).  Line 1: loss counters (producer, atomic adds).
 * Line 2: the consumer's line.
 */
struct rtr_cpu_ctl {
	/* producer, hot */
	uint64_t prod __attribute__((aligned(64))); /* bytes committed, free-running */
	uint64_t last_ts;			/* timestamp of the record ending at @prod */
	/*
	 * ABI 1.2, the producer's own: the thread whose thread record is the
	 * last one before @prod in the open packet, or RTR_TID_NONE (stored
	 * when a packet opens); writers compare it with their own tid.
	 * Readers ignore it: the records say the same.
	 */
	uint32_t last_tid;

	/* producer, cold: events lost, cumulative */
	uint64_t lost_full __attribute__((aligned(64))); /* discard mode, no free packet */
	uint64_t lost_big;		/* record larger than a packet can hold */
	uint64_t lost_busy;		/* portable path: buffer locked, or nested too deep */
	uint32_t lock;			/* portable path only: owner marker, 0 = free */
	uint32_t waiting;		/* ABI 1.1: writers blocked for room (blocking mode) */

	/* consumer */
	uint64_t cons __attribute__((aligned(64))); /* bytes released, free-running */
	uint64_t notify_at;		/* wake the consumer when @prod reaches this; 0 = don't */
	/*
	 * ABI 1.1, overwrite mode: a snapshot reader copying the packets from
	 * @hold on; until the clock reaches @hold_until (0: no hold, and at
	 * most a second ahead) writers open no packet over one of them, and
	 * drop instead (lost_full).  Written by the consumer only.
	 */
	uint64_t hold;
	uint64_t hold_until;
};

/*
 * struct rtr_packet_hdr - the CTF packet header and context at the start of
 * every packet (Documentation/region.rst).  Packed: events are byte-aligned.
 * The four end fields are contiguous so a packet is closed by one copy.
 */
struct rtr_packet_hdr {
	uint32_t magic;			/* RTR_CTF_MAGIC */
	uint8_t uuid[16];
	uint32_t stream_id;		/* 0 */
	uint64_t stream_instance_id;	/* the CPU */
	uint64_t timestamp_begin;
	uint64_t packet_seq_num;	/* packet start position / packet_size */
	uint32_t cpu_id;
	/* end fields, written when the packet is closed */
	uint64_t timestamp_end;
	uint64_t content_size;		/* bits, header included */
	uint64_t packet_size;		/* bits; equals content_size (no padding written) */
	uint64_t events_discarded;	/* cumulative lost_full+lost_big+lost_busy */
} __attribute__((packed));

struct rtr_packet_end {
	uint64_t timestamp_end;
	uint64_t content_size;
	uint64_t packet_size;
	uint64_t events_discarded;
} __attribute__((packed));

#define RTR_PACKET_HDR_SIZE	((uint32_t)sizeof(struct rtr_packet_hdr))
#define RTR_PACKET_END_OFF	((uint32_t)__builtin_offsetof(struct rtr_packet_hdr, timestamp_end))

/*
 * Record header, LTTng's compact form: one little-endian u32 with the event
 * id in bits 0-4 and the low 27 bits of the timestamp in bits 5-31.  Id 31
 * means extended: byte 0 is 31 (bits 5-7 zero), then a u32 id at byte 1 and
 * a u64 full timestamp at byte 5, 13 bytes in all (byte-aligned, so CTF
 * needs no padding field to describe it).  The 27-bit form
 * is used only when the timestamp is less than 2^27 after the previous
 * record's (or the packet's timestamp_begin), so readers rebuild it exactly.
 */
#define RTR_EV_COMPACT_ID_MAX	30u
#define RTR_EV_EXTENDED		31u
#define RTR_EV_TS_BITS		27u
#define RTR_EV_COMPACT_SIZE	4u
#define RTR_EV_EXTENDED_SIZE	13u

/*
 * The thread record (ABI 1.2): written by the ring itself, in a ring
 * created with RTR_RING_THREADS, before a thread's first record in a
 * packet and whenever the thread writing into a CPU's stream changes.
 * Payload: u32 pid, u32 tid (gettid()).  Every record after it in the
 * packet, up to the next thread record, was written by that thread; a
 * record before the packet's first thread record has no known thread.
 * The CTF class is "thread" (Documentation/ctf.rst).
 */
#define RTR_EV_THREAD_ID	21u
#define RTR_EV_THREAD_SIZE	8u
#define RTR_TID_NONE		0xffffffffu	/* @last_tid: no thread record yet */

/*
 * Plausibility bounds.  No producer reaches them, so every reader of a
 * region or a trace (the consumer, `ringtrace check`) treats a value beyond
 * one as damage, never believes it, and never writes it into a trace:
 *  - a stream position (@prod, @cons): 2^60 bytes, 18 years at 2 GB/s;
 *  - a loss count (the lost_* counters, events_discarded): 2^56 events, two
 *    years at a billion a second;
 *  - the clock: 1 MHz to 100 GHz, and a timestamp converted to nanoseconds
 *    since the epoch as CTF readers do it (offset + ts * 1e9 / freq) below
 *    2^62 (the year 2116).  babeltrace2 refuses a trace whose times do not
 *    fit in 64 bits, and version 2.0.4 aborts on one loss record's.
 */
#define RTR_POS_MAX		(1ull << 60)
#define RTR_LOST_MAX		(1ull << 56)
#define RTR_CLOCK_FREQ_MIN	1000000ull
#define RTR_CLOCK_FREQ_MAX	100000000000ull
#define RTR_TIME_NS_MAX		(1ll << 62)

/*
 * rtr_ts_fits() - whether timestamp @ts of a clock of @freq Hz whose zero is
 * @base_ns nanoseconds after the epoch converts to a time below the bound.
 */
static inline int rtr_ts_fits(uint64_t freq, int64_t base_ns, uint64_t ts)
{
	__extension__ typedef __int128 rtr_i128;	/* no warning under -pedantic */
	rtr_i128 ns;

	if (freq < RTR_CLOCK_FREQ_MIN || freq > RTR_CLOCK_FREQ_MAX ||
	    base_ns <= -RTR_TIME_NS_MAX || base_ns >= RTR_TIME_NS_MAX)
		return 0;
	ns = (rtr_i128)base_ns + (rtr_i128)ts * 1000000000 / freq;
	return ns > -RTR_TIME_NS_MAX && ns < RTR_TIME_NS_MAX;
}

#ifdef __cplusplus
}
#endif
#endif /* RINGTRACE_REGION_H */
