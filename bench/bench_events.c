// SPDX-License-Identifier: MIT
/*
 * bench/bench_events.c - ringtrace-events-bench: what the task model's calls
 * (include/ringtrace/ringtrace.h) and a typed event cost the traced program,
 * and what a realistic mix of them takes on disk.
 *
 * One thread, pinned to one CPU; best (minimum) of several repetitions, each
 * of which runs every figure once, so that noise hits them alike:
 *   floor      read the TSC and store a 24-byte record into a thread-local
 *              64 KiB ring (as ringtrace-bench): the least any tracer can do;
 *   empty_loop the measuring loop alone (a counter and a compiler barrier);
 *   disabled   the same loop around rtr_read() with tracing off: the check
 *              (these two make 16 times more calls, to last milliseconds);
 *   <call>     each task-model call with tracing on, overwrite mode, 32-bit
 *              ids (read64: ids above 2^32), and typed2x64, a typed event of
 *              two u64 fields through RTR_TRACE().
 * Then the task mix: an async server's events (per request: create, label,
 * switches, try_read, signal, read, resolve, counter_set, now and then a
 * note) in discard mode into a region large enough for all of them, stopped,
 * converted with rtr_convert() and read back: bytes per event on disk, with
 * and without the packet headers, and a check that every event is there.
 *
 * --callgrind CALL runs a fixed number of one call inside bench_cg_region(),
 * for `valgrind --tool=callgrind --toggle-collect=bench_cg_region`
 * (scripts/bench.sh): instructions/event.  --make-trace DIR leaves a larger
 * task mix as a CTF trace in DIR, for timing the trace readers.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <sys/sysinfo.h>
#include <unistd.h>
#include <ringtrace/ringtrace.h>
#include <ringtrace/event.h>
#include "consumer/convert.h"
#include "platform/platform.h"
#include "ringbuf/ring.h"
#include "bench/bench_common.h"

#define PROG		"ringtrace-events-bench"
#define DEF_EVENTS	4000000ull	/* per call and repetition */
#define DEF_REPS	5
#define WARMUP_EVENTS	200000ull	/* per call, before the first repetition */
#define CG_EVENTS	200000ull
#define CG_WARMUP	5000ull
#define MIX_REQUESTS	50000ull
#define TRACE_REQUESTS	300000ull	/* --make-trace: about 3.3 million events */
#define MIX_NOTE_EVERY	64		/* requests per note in the mix */
#define MIX_BOUND	16u		/* bytes per mix event (about 12.3): sizes the region */
#define HIGH		(1ull << 32)	/* ids from here take the 64-bit records */
#define PACKET_SIZE	65536u
#define PACKETS		8u

/* The typed event: two u64 fields. */
#define BENCH_TWO(F) F(u64, a) F(u64, b)
RTR_EVENT_DECLARE(bench, two, BENCH_TWO)
RTR_EVENT_DEFINE(bench, two, BENCH_TWO)

const char bench_prog[] = PROG;

static uint32_t counter;	/* for counter_set and the mix */
static char region[128];	/* the current session's region file */

/* ---- the measured loops ------------------------------------------------- */

/*
 * Each loop makes @n calls with arguments that change every time, then an
 * empty asm with a memory clobber: the compiler must reload rtr_on (and the
 * class's flag) on every call and cannot hoist, merge or drop calls.  Ids
 * stay below 2^31, so the 32-bit record forms are used, except in read64.
 */
#define ID_A(i) (((i) & 0x7fffffffull) + 1)
#define ID_B(i) (((i) & 0x7fffffffull) + 2)

#define RUN_LOOP(fn, call)							\
	static __attribute__((noinline)) void fn(uint64_t n)			\
	{									\
		for (uint64_t i = 0; i < n; i++) {				\
			call;							\
			BENCH_BARRIER();					\
		}								\
	}

RUN_LOOP(run_empty, (void)0)
RUN_LOOP(run_disabled, rtr_read(ID_A(i), ID_B(i)))
RUN_LOOP(run_switch, rtr_switch(ID_A(i)))
RUN_LOOP(run_create, rtr_create(ID_A(i), ID_B(i), RTR_KIND_TASK))
RUN_LOOP(run_read, rtr_read(ID_A(i), ID_B(i)))
RUN_LOOP(run_read64, rtr_read(ID_A(i) | HIGH, ID_B(i) | HIGH))
RUN_LOOP(run_try_read, rtr_try_read(ID_A(i), ID_B(i)))
RUN_LOOP(run_resolve, rtr_resolve(ID_A(i), ID_B(i)))
RUN_LOOP(run_becomes, rtr_becomes(ID_A(i), ID_B(i)))
RUN_LOOP(run_signal, rtr_signal(ID_A(i), ID_B(i)))
RUN_LOOP(run_should_resolve, rtr_should_resolve(ID_A(i)))
RUN_LOOP(run_counter_set, rtr_counter_set(counter, (int64_t)i))
RUN_LOOP(run_label, rtr_label(ID_A(i), "GET /api/items"))
RUN_LOOP(run_note, rtr_note("request %d", (int)i))
RUN_LOOP(run_pause, rtr_pause(i, "gc"))
RUN_LOOP(run_fail, rtr_fail(ID_A(i), ID_B(i), "timeout"))
RUN_LOOP(run_typed2x64, RTR_TRACE(bench, two, .a = i, .b = i ^ BENCH_SEED))

/*
 * struct call - one measured figure: events.<name>.ns, and the --callgrind
 * mode of the same name.  @traced: measured with tracing on.  @scale: the
 * timed run makes @scale times more calls (the sub-ns loops, so that a run
 * lasts milliseconds).
 */
struct call {
	const char *name;
	void (*run)(uint64_t n);
	bool traced;
	unsigned int scale;
};

static const struct call calls[] = {
	{ "floor", bench_floor, false, 1 },	/* bench_common.c */
	{ "empty_loop", run_empty, false, 16 },
	{ "disabled", run_disabled, false, 16 },
	{ "switch", run_switch, true, 1 },
	{ "create", run_create, true, 1 },
	{ "read", run_read, true, 1 },
	{ "read64", run_read64, true, 1 },
	{ "try_read", run_try_read, true, 1 },
	{ "resolve", run_resolve, true, 1 },
	{ "becomes", run_becomes, true, 1 },
	{ "signal", run_signal, true, 1 },
	{ "should_resolve", run_should_resolve, true, 1 },
	{ "counter_set", run_counter_set, true, 1 },
	{ "label", run_label, true, 1 },
	{ "note", run_note, true, 1 },
	{ "pause", run_pause, true, 1 },
	{ "fail", run_fail, true, 1 },
	{ "typed2x64", run_typed2x64, true, 1 },
};
#define NCALLS ((int)(sizeof(calls) / sizeof(calls[0])))

/* What callgrind counts (--toggle-collect=bench_cg_region), callees included. */
static __attribute__((noinline, noclone, used)) void bench_cg_region(const struct call *c,
								      uint64_t n)
{
	c->run(n);
}

/*
 * run_mix() - @nreq requests of an async server on one event loop, ids from
 * rtr_task_id().  Return: the events emitted.
 */
static __attribute__((noinline)) uint64_t run_mix(uint64_t nreq)
{
	static const char *const paths[4] = {
		"GET /", "GET /api/items", "POST /api/orders", "GET /static/app.js",
	};
	uint64_t loop = rtr_task_id(), ev = 2;

	rtr_create(0, loop, RTR_KIND_THREAD);
	rtr_label(loop, "event loop");
	for (uint64_t r = 0; r < nreq; r++) {
		uint64_t req = rtr_task_id(), io = rtr_task_id();

		rtr_switch(loop);
		rtr_create(loop, req, RTR_KIND_REQUEST);
		rtr_label(req, paths[r & 3]);
		rtr_switch(req);
		rtr_try_read(req, io);		/* the request body is not there yet */
		rtr_switch(0);			/* idle until the poller wakes */
		rtr_signal(loop, req);
		rtr_switch(req);
		rtr_read(req, io);
		rtr_resolve(req, req);
		rtr_counter_set(counter, (int64_t)(r & 63));
		ev += 11;
		if (r % MIX_NOTE_EVERY == 0) {
			rtr_note("served %d requests", (int)r);
			ev++;
		}
	}
	return ev;
}

/* ---- helpers ---------------------------------------------------------------- */

/* The first CPU this thread may run on, or -1. */
static int first_cpu(void)
{
	int cpu;

	return bench_usable_cpus(&cpu, 1) == 1 ? cpu : -1;
}

/* ---- tracing sessions ------------------------------------------------------- */

/* Start tracing into a new region under /dev/shm (its path in @region). */
static int session_start(uint32_t mode, uint32_t packets)
{
	static unsigned int seq;
	struct rtr_config cfg = {
		.struct_size = sizeof(cfg), .path = region, .mode = mode,
		.packet_size = PACKET_SIZE, .packets_per_cpu = packets,
	};
	int ret;

	snprintf(region, sizeof(region), "/dev/shm/" PROG ".%d.%u", (int)getpid(), seq++);
	ret = rtr_start(&cfg);
	if (ret)
		fprintf(stderr, PROG ": rtr_start %s: %s\n", region, strerror(-ret));
	return ret;
}

/* Events the running session's ring dropped so far (control pages). */
static uint64_t session_lost(void)
{
	struct rtr_ring *ring = __atomic_load_n(&rtr_slot, __ATOMIC_ACQUIRE);

	return ring ? bench_ring_lost(ring) : 0;
}

static bool session_rseq(void)
{
	struct rtr_ring *ring = __atomic_load_n(&rtr_slot, __ATOMIC_ACQUIRE);

	return ring && ring->use_rseq;
}

/* Stop tracing; remove the region unless @keep. */
static int session_stop(bool keep)
{
	int ret = rtr_stop();

	if (ret)
		fprintf(stderr, PROG ": rtr_stop: %s\n", strerror(-ret));
	if (!keep && unlink(region))
		fprintf(stderr, PROG ": %s: %s\n", region, strerror(errno));
	return ret;
}

/* ---- reading a converted trace back ------------------------------------------ */

/* Payload bytes before the string, or -1: the task model's records. */
static const int8_t fixed_len[RTR_EV_BUILTIN_COUNT] = {
	[RTR_EV_SWITCH] = 4, [RTR_EV_CREATE] = 9, [RTR_EV_READ] = 8,
	[RTR_EV_TRY_READ] = 8, [RTR_EV_RESOLVE] = 8, [RTR_EV_BECOMES] = 8,
	[RTR_EV_SIGNAL] = 8, [RTR_EV_SHOULD_RESOLVE] = 4, [RTR_EV_COUNTER] = 12,
	[RTR_EV_SWITCH64] = 8, [RTR_EV_CREATE64] = 17, [RTR_EV_READ64] = 16,
	[RTR_EV_TRY_READ64] = 16, [RTR_EV_RESOLVE64] = 16, [RTR_EV_BECOMES64] = 16,
	[RTR_EV_SIGNAL64] = 16, [RTR_EV_SHOULD_RESOLVE64] = 8, [RTR_EV_FAIL] = 16,
	[RTR_EV_LABEL] = 8, [RTR_EV_NOTE] = 0, [RTR_EV_PAUSE] = 8,
	[RTR_EV_THREAD] = RTR_EV_THREAD_SIZE,
};

/* Size of the record at @p (header, payload, string), or 0 if not one of ours; its id in *@idp. */
static size_t record_size(const uint8_t *p, size_t room, uint32_t *idp)
{
	size_t hl = RTR_EV_COMPACT_SIZE, n;
	uint32_t id;

	if (room < RTR_EV_COMPACT_SIZE)
		return 0;
	id = p[0] & 31;
	if (id == RTR_EV_EXTENDED) {
		if (room < RTR_EV_EXTENDED_SIZE)
			return 0;
		memcpy(&id, p + 1, 4);
		hl = RTR_EV_EXTENDED_SIZE;
	}
	if (id >= RTR_EV_BUILTIN_COUNT || hl + (size_t)fixed_len[id] > room)
		return 0;
	*idp = id;
	n = hl + (size_t)fixed_len[id];
	if (id >= RTR_EV_FAIL && id <= RTR_EV_PAUSE) {
		const uint8_t *nul = memchr(p + n, 0, room - n);

		if (!nul)
			return 0;
		n = (size_t)(nul - p) + 1;
	}
	return n;
}

struct trace_stats {
	uint64_t file_bytes;	/* all stream files */
	uint64_t record_bytes;	/* the same less every packet's header */
	uint64_t packets;
	uint64_t events;	/* records decoded, but the thread records */
	uint64_t threads;	/* the ring's thread records */
	bool undecoded;		/* some record was not one of the task model's */
};

/* Add one stream file's packets and records to @st.  Return: 0 or -1. */
static int scan_stream(const char *path, struct trace_stats *st)
{
	FILE *f = fopen(path, "re");
	uint8_t *buf = NULL;
	size_t size, off = 0;
	long end;
	int ret = -1;

	if (!f) {
		fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (fseek(f, 0, SEEK_END) || (end = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		goto out;
	size = (size_t)end;
	buf = malloc(size ? size : 1);
	if (!buf || fread(buf, 1, size, f) != size)
		goto out;
	st->file_bytes += size;
	while (off < size) {
		struct rtr_packet_hdr h;
		uint64_t content;
		size_t pos;

		if (size - off < RTR_PACKET_HDR_SIZE)
			goto bad;
		memcpy(&h, buf + off, sizeof(h));
		content = h.content_size / 8;
		if (h.magic != RTR_CTF_MAGIC || content < RTR_PACKET_HDR_SIZE ||
		    content > size - off || h.packet_size / 8 < content ||
		    h.packet_size / 8 > size - off)
			goto bad;
		st->packets++;
		st->record_bytes += content - RTR_PACKET_HDR_SIZE;
		for (pos = off + RTR_PACKET_HDR_SIZE; pos < off + content && !st->undecoded;) {
			uint32_t id;
			size_t n = record_size(buf + pos, off + content - pos, &id);

			if (!n) {
				st->undecoded = true;
				break;
			}
			if (id == RTR_EV_THREAD)
				st->threads++;
			else
				st->events++;
			pos += n;
		}
		off += h.packet_size / 8;
	}
	ret = 0;
	goto out;
bad:
	fprintf(stderr, PROG ": %s: bad packet at offset %zu\n", path, off);
out:
	if (ret && !feof(f) && ferror(f))
		fprintf(stderr, PROG ": %s: read error\n", path);
	free(buf);
	fclose(f);
	return ret;
}

static int scan_trace(const char *dir, uint32_t ncpus, struct trace_stats *st)
{
	char path[4096];

	*st = (struct trace_stats){ 0 };
	for (uint32_t cpu = 0; cpu < ncpus; cpu++) {
		snprintf(path, sizeof(path), "%s/stream_%u", dir, cpu);
		/* A CPU that wrote no packet has no stream file. */
		if (access(path, F_OK) && errno == ENOENT)
			continue;
		if (scan_stream(path, st))
			return -1;
	}
	return 0;
}

/* Remove a trace directory this program made (plain files only). */
static void remove_trace(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
	if (rmdir(dir))
		fprintf(stderr, PROG ": %s: %s\n", dir, strerror(errno));
}

/*
 * struct mix - a task mix traced, stopped and converted into @dir.
 * @events: emitted.  @lost: the ring's own count while tracing.
 */
struct mix {
	uint64_t events;
	uint64_t lost;
	struct rtr_convert_report rep;
	struct trace_stats st;
};

/*
 * make_mix() - trace @nreq requests of the task mix in discard mode, into a
 * region that holds them all with no consumer, convert it into @dir and read
 * it back.  Return: 0 (losses are for the caller to judge), -1 on error.
 */
static int make_mix(const char *dir, uint64_t nreq, struct mix *m)
{
	uint64_t bound = (nreq * 12 + 2) * MIX_BOUND;
	uint32_t packets = bench_pow2_at_least(bound / (PACKET_SIZE - 256) + 3);
	uint64_t need = (uint64_t)get_nprocs_conf() * packets * PACKET_SIZE;
	struct statvfs fs;
	int ret;

	memset(m, 0, sizeof(*m));
	/* The region is allocated whole, for every possible CPU. */
	if (!statvfs("/dev/shm", &fs) && need > fs.f_bavail * fs.f_frsize / 2) {
		fprintf(stderr, PROG ": %" PRIu64 " requests need a region of %" PRIu64
			" MiB, more than half of what /dev/shm has free: use fewer\n", nreq,
			need >> 20);
		return -1;
	}
	if (session_start(RTR_MODE_DISCARD, packets))
		return -1;
	m->events = run_mix(nreq);
	m->lost = session_lost();
	if (session_stop(true)) {
		unlink(region);
		return -1;
	}
	ret = rtr_convert(region, dir, &m->rep);
	unlink(region);
	if (ret) {
		fprintf(stderr, PROG ": rtr_convert: %s\n", m->rep.err);
		return -1;
	}
	if (scan_trace(dir, m->rep.ncpus, &m->st))
		return -1;
	return 0;
}

/* Say loudly when the trace is not every event emitted.  Return: true if whole. */
static bool mix_whole(const struct mix *m)
{
	bool ok = true;

	if (m->lost || m->rep.events_lost || m->rep.lost_packets || m->rep.damaged) {
		fprintf(stderr, PROG ": *** EVENTS LOST in the task mix: ring %" PRIu64
			", convert events_lost %" PRIu64 ", lost_packets %" PRIu64
			", damaged %" PRIu64 ": the bytes/event figures are wrong ***\n",
			m->lost, m->rep.events_lost, m->rep.lost_packets, m->rep.damaged);
		ok = false;
	}
	if (m->st.undecoded)
		fprintf(stderr, PROG ": the task mix holds a record this bench cannot decode:"
			" events not counted\n");
	else if (m->st.events != m->events) {
		fprintf(stderr, PROG ": *** the task mix emitted %" PRIu64 " events but the"
			" trace holds %" PRIu64 " ***\n", m->events, m->st.events);
		ok = false;
	}
	return ok;
}

/* ---- the timed run ------------------------------------------------------------ */

static uint64_t time_call(const struct call *c, uint64_t n)
{
	uint64_t t0 = rtr_monotonic_ns();

	c->run(n);
	return rtr_monotonic_ns() - t0;
}

/* Run every call of one state (tracing on or off) once; keep the best times. */
static void run_round(bool traced, uint64_t n, uint64_t *best)
{
	for (int i = 0; i < NCALLS; i++) {
		uint64_t ns;

		if (calls[i].traced != traced)
			continue;
		ns = time_call(&calls[i], n * calls[i].scale);
		best[i] = ns < best[i] ? ns : best[i];
	}
}

static int timed_main(const char *json, uint64_t n, int reps)
{
	static char names[NCALLS][48];
	uint64_t best[NCALLS], lost = 0;
	char model[256], dir[160];
	double floor_ns;
	struct mix m;
	bool rseq = true, whole;
	int cpu;

	cpu = first_cpu();
	if (cpu < 0 || bench_pin_self(cpu)) {
		fprintf(stderr, PROG ": cannot pin to a CPU\n");
		return 1;
	}
	bench_cpu_model(model, sizeof(model));

	/* Warm up: fault in the floor's array, the code, a first region. */
	for (int i = 0; i < NCALLS; i++)
		if (!calls[i].traced)
			calls[i].run(WARMUP_EVENTS);
	if (session_start(RTR_MODE_OVERWRITE, PACKETS))
		return 1;
	for (int i = 0; i < NCALLS; i++)
		if (calls[i].traced)
			calls[i].run(WARMUP_EVENTS);
	session_stop(false);

	for (int i = 0; i < NCALLS; i++)
		best[i] = UINT64_MAX;
	for (int r = 0; r < reps; r++) {
		if (rtr_tracing()) {
			fprintf(stderr, PROG ": tracing is on: the disabled figure is wrong\n");
			return 1;
		}
		run_round(false, n, best);
		if (session_start(RTR_MODE_OVERWRITE, PACKETS))
			return 1;
		rseq = rseq && session_rseq();
		/* Fault the new region in: every packet, before the clock runs. */
		run_switch(PACKETS * PACKET_SIZE / 4);
		run_round(true, n, best);
		lost += session_lost();
		if (session_stop(false))
			return 1;
	}
	if (lost)
		fprintf(stderr, PROG ": *** overwrite mode lost %" PRIu64 " events: the"
			" figures are not of the fast path ***\n", lost);

	snprintf(dir, sizeof(dir), "/dev/shm/" PROG ".%d.trace", (int)getpid());
	if (make_mix(dir, MIX_REQUESTS, &m)) {
		remove_trace(dir);
		return 1;
	}
	remove_trace(dir);
	whole = mix_whole(&m);

	floor_ns = (double)best[0] / (double)n;
	for (int i = 0; i < NCALLS; i++) {
		double ns = (double)best[i] / (double)(n * calls[i].scale);

		snprintf(names[i], sizeof(names[i]), "events.%s.ns", calls[i].name);
		bench_add(names[i], ns, "ns/event", i ? ns / floor_ns : -1);
	}
	for (int i = 0; i < NCALLS; i++) {
		if (!strcmp(calls[i].name, "read"))
			bench_add("events.read.ratio_to_floor", (double)best[i] / (double)best[0],
			    "x floor", -1);
		if (!strcmp(calls[i].name, "typed2x64"))
			bench_add("events.typed2x64.ratio_to_floor", (double)best[i] / (double)best[0],
			    "x floor", -1);
	}
	bench_add("events.overwrite.events_lost", (double)lost, "events", -1);
	bench_add("events.rseq", rseq, "bool", -1);
	bench_add("events.task_mix.events", (double)m.events, "events", -1);
	bench_add("events.task_mix.events_in_trace", (double)m.st.events, "events", -1);
	bench_add("events.task_mix.events_lost",
	    (double)(m.lost + m.rep.events_lost + (m.events > m.st.events ?
						   m.events - m.st.events : 0)),
	    "events", -1);
	bench_add("events.task_mix.packets", (double)m.st.packets, "packets", -1);
	/* in the bytes per event below: one at each packet's start here (one thread) */
	bench_add("events.task_mix.thread_records", (double)m.st.threads, "records", -1);
	bench_add("events.task_mix.bytes_per_event", (double)m.st.record_bytes / (double)m.events,
	    "bytes/event", -1);
	bench_add("events.task_mix.file_bytes_per_event", (double)m.st.file_bytes / (double)m.events,
	    "bytes/event", -1);

	printf("ringtrace-events-bench: %s, CPU %d, %s path, best of %d x %" PRIu64
	       " calls each\n", model, cpu, rseq ? "rseq" : "portable", reps, n);
	printf("  (tracing on: overwrite mode, %u x %u KiB packets per CPU; task mix: %llu"
	       " requests, discard mode, converted)\n", PACKETS, PACKET_SIZE / 1024,
	       MIX_REQUESTS);
	bench_print_table();
	if (!whole)
		printf("  *** the task mix lost events: see above ***\n");
	if (json && bench_write_json(json))
		return 1;
	return whole && !lost ? 0 : 1;
}

/* ---- --make-trace ------------------------------------------------------------ */

static int make_trace_main(const char *dir, uint64_t nreq)
{
	struct mix m;
	int cpu = first_cpu();

	if (cpu >= 0)
		bench_pin_self(cpu);
	if (make_mix(dir, nreq, &m))
		return 1;
	printf("%s: %" PRIu64 " events, %" PRIu64 " packets, %" PRIu64 " bytes\n", dir,
	       m.st.events, m.st.packets, m.st.file_bytes);
	return mix_whole(&m) ? 0 : 1;
}

/* ---- callgrind mode ------------------------------------------------------------ */

/*
 * cg_session_start() - start tracing under valgrind, which has no rseq:
 * rtr_ring_bench_emulate_rseq() makes the ring take its rseq path with this
 * thread on CPU 0.  But glibc's pthread_create() asks for rseq in a new
 * thread when its creator's cpu_id looks registered, and aborts when that
 * fails ("rseq registration failed"): so the flusher thread that
 * rtr_start() creates is created while cpu_id says "not registered", and
 * the pretence resumes after.
 */
static int cg_session_start(void)
{
	int ret;

	rtr_ring_bench_emulate_rseq();
#ifdef RTR_HAVE_RSEQ_FASTPATH
	if (__rseq_size == 0)
		rtr_rseq_area()->cpu_id = RSEQ_CPU_ID_REGISTRATION_FAILED;
#endif
	ret = session_start(RTR_MODE_OVERWRITE, PACKETS);
	rtr_ring_bench_emulate_rseq();
	return ret;
}

static int callgrind_main(const char *mode, uint64_t n)
{
	const struct call *c = NULL;
	uint64_t lost = 0;
	bool rseq = false;

	for (int i = 0; i < NCALLS; i++)
		if (!strcmp(calls[i].name, mode))
			c = &calls[i];
	if (!c) {
		fprintf(stderr, PROG ": --callgrind: '%s' is not one of:", mode);
		for (int i = 0; i < NCALLS; i++)
			fprintf(stderr, " %s", calls[i].name);
		fprintf(stderr, "\n");
		return 2;
	}
	if (c->traced) {
		if (cg_session_start())
			return 1;
		rseq = session_rseq();
	}
	c->run(CG_WARMUP);
	bench_cg_region(c, n);
	if (c->traced) {
		lost = session_lost();
		if (session_stop(false))
			return 1;
	}
	printf("callgrind %s: %" PRIu64 " calls measured, tracing %s%s, %" PRIu64 " lost\n",
	       mode, n, c->traced ? "on" : "off",
	       c->traced ? (rseq ? ", rseq path" : ", portable path") : "", lost);
	if (lost) {
		fprintf(stderr, PROG ": --callgrind %s: events lost: the count is not of the"
			" fast path\n", mode);
		return 1;
	}
	return 0;
}

/* ---- main ------------------------------------------------------------------------ */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " [options]\n"
		"Measure what the task model's calls and a typed event cost: with tracing\n"
		"off (the check), and on, each against the floor (a TSC read and a store);\n"
		"then the bytes per event of an async server's mix, on disk.  Prints a table.\n\n"
		"  -j, --json FILE       also write the figures to FILE as JSON\n"
		"  -n, --events N        calls per figure and repetition (default %llu;\n"
		"                        with --callgrind: measured calls, default %llu;\n"
		"                        with --make-trace: requests, default %llu)\n"
		"  -r, --reps N          repetitions, the best is kept (default %d)\n"
		"  -c, --callgrind CALL  run N calls of CALL (disabled, read, typed2x64, ...)\n"
		"                        in bench_cg_region(), for valgrind --tool=callgrind\n"
		"                        --toggle-collect=bench_cg_region\n"
		"  -t, --make-trace DIR  trace N requests of the task mix into the new CTF\n"
		"                        directory DIR, and print its event count\n"
		"  -h, --help            this text\n",
		DEF_EVENTS, CG_EVENTS, TRACE_REQUESTS, DEF_REPS);
}

int main(int argc, char **argv)
{
	struct bench_args a = { .reps = DEF_REPS };
	int ret;

	/* Ids stay in 31 bits (ID_A), and so do the mix's. */
	ret = bench_parse_args(argc, argv, true, 1ull << 30, usage, &a);
	if (ret >= 0)
		return ret;
	ret = rtr_counter_register("bench.inflight", &counter);
	if (ret) {
		fprintf(stderr, PROG ": rtr_counter_register: %s\n", strerror(-ret));
		return 1;
	}
	if (a.callgrind)
		return callgrind_main(a.callgrind, a.n ? a.n : CG_EVENTS);
	if (a.trace)
		return make_trace_main(a.trace, a.n ? a.n : TRACE_REQUESTS);
	return timed_main(a.json, a.n ? a.n : DEF_EVENTS, (int)a.reps);
}
