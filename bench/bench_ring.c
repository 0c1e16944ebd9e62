// SPDX-License-Identifier: MIT
/*
 * bench/bench_ring.c - ringtrace-bench: what one event of two 64-bit fields
 * costs the writer.
 *
 * Measures, best (minimum) of several repetitions, each thread pinned to its
 * own CPU:
 *   floor      read the TSC and store a 24-byte record into a thread-local
 *              64 KiB ring: the least any tracer can do per event;
 *   overwrite  rtr_ring_write() of a 16-byte payload, 1 and 2 threads;
 *   discard    the same with a thread that releases packets without copying
 *              them, 1 and 2 threads, with the events the ring dropped;
 *   tid        overwrite mode with thread records (RTR_RING_THREADS, as
 *              rtr_start() makes its ring): 1 and 2 threads on their own
 *              CPUs, 2 threads sharing one CPU, and one thread posing as
 *              two that take turns at every event (the worst case: a
 *              thread record before every event); the time and the ring
 *              bytes each adds per event to the same figure without (the
 *              turns: to one thread's).
 * --callgrind MODE runs a fixed number of events of one kind inside
 * bench_cg_region(), for `valgrind --tool=callgrind
 * --toggle-collect=bench_cg_region` (scripts/bench.sh): instructions/event.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>
#include <sys/stat.h>
#include "platform/platform.h"
#include "platform/xensim/xensim.h"
#include "ringbuf/ring.h"
#include "bench/bench_common.h"

#define PROG		"ringtrace-bench"
#define DEF_EVENTS	20000000ull	/* per thread and repetition */
#define DEF_REPS	5
#define WARMUP_EVENTS	200000ull	/* per thread, before a ring's first repetition */
#define CG_EVENTS	200000ull
#define CG_WARMUP	5000ull
#define EVENT_ID	1
#define PAYLOAD_SIZE	16u
#define RELEASE_PAUSE_US 20

const char bench_prog[] = PROG;

enum kind { KIND_FLOOR, KIND_RING, KIND_RING_TURNS };

static struct rtr_ring *_Atomic slot;

/* ---- the measured loops ------------------------------------------------- */

/* The floor is bench_floor() (bench_common.c). */

/* Per event: one record {i, i ^ BENCH_SEED}; returns how many writes failed. */
static __attribute__((noinline)) uint64_t run_ring(uint64_t n)
{
	uint64_t fails = 0;

	for (uint64_t i = 0; i < n; i++) {
		uint64_t p[2] = { i, i ^ BENCH_SEED };

		fails += rtr_ring_write(&slot, EVENT_ID, p, PAYLOAD_SIZE) != 0;
	}
	return fails;
}

/*
 * The same, the thread posing as two threads that take turns at every
 * event (its cached tid switched between writes): the ring writes a thread
 * record before each event, on the slow path.
 */
static __attribute__((noinline)) uint64_t run_ring_turns(uint64_t n)
{
	uint32_t tids[2] = { (uint32_t)gettid(), (uint32_t)gettid() + (1u << 30) };
	uint64_t fails = 0;

	for (uint64_t i = 0; i < n; i++) {
		uint64_t p[2] = { i, i ^ BENCH_SEED };

		rtr_ring_tid = tids[i & 1];
		fails += rtr_ring_write(&slot, EVENT_ID, p, PAYLOAD_SIZE) != 0;
	}
	rtr_ring_tid = tids[0];
	return fails;
}

static uint64_t run_kind(enum kind k, uint64_t n)
{
	if (k == KIND_FLOOR) {
		bench_floor(n);
		return 0;
	}
	return k == KIND_RING_TURNS ? run_ring_turns(n) : run_ring(n);
}

/* What callgrind counts (--toggle-collect=bench_cg_region), callees included. */
static __attribute__((noinline, noclone, used)) uint64_t bench_cg_region(enum kind k,
									   uint64_t n)
{
	return run_kind(k, n);
}

/* ---- helpers ---------------------------------------------------------------- */

/* The simulated hypervisor of the xen.sim figure, and its guest domain. */
static char xensim_dir[64];

static int xensim_start(void)
{
#ifdef RTR_HAVE_XENSIM
	uint32_t dom;
	char id[16];
	int ret;

	snprintf(xensim_dir, sizeof(xensim_dir), "/dev/shm/ringtrace-bench-xensim.%d",
		 (int)getpid());
	if (mkdir(xensim_dir, 0700) < 0)
		return -errno;
	ret = rtr_xensim_init(xensim_dir);
	if (!ret)
		ret = rtr_xensim_create(xensim_dir, "bench", &dom);
	if (ret)
		return ret;
	snprintf(id, sizeof(id), "%u", dom);
	setenv("RINGTRACE_XENSIM", xensim_dir, 1);
	setenv("RINGTRACE_XENSIM_DOMID", id, 1);
	return 0;
#else
	return -ENOSYS;
#endif
}

static void xensim_stop(void)
{
	char path[128];

	if (!xensim_dir[0])
		return;
	for (uint32_t d = 0; d < 8; d++) {
		snprintf(path, sizeof(path), "%s/mem-%u", xensim_dir, d);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/hv", xensim_dir);
	unlink(path);
	rmdir(xensim_dir);
}

/* @xen: in pages granted to dom0 (the simulated hypervisor), else a file; @flags: RTR_RING_*. */
static int ring_open_flags(struct rtr_ring **out, uint32_t mode, uint32_t packets, bool xen,
			   uint32_t flags)
{
	static unsigned int seq;
	char path[128], err[256] = "";
	struct rtr_ring_attr attr = {
		.struct_size = sizeof(attr), .path = path, .mode = mode,
		.packet_size = 65536, .packets_per_cpu = packets, .flags = flags,
		.create = xen ? rtr_xen_region_create : NULL, .err = err, .errlen = sizeof(err),
	};
	int ret;

	snprintf(path, sizeof(path), "/dev/shm/ringtrace-bench.%d.%u", (int)getpid(), seq++);
	ret = rtr_ring_create(out, &attr);
	if (ret) {
		fprintf(stderr, PROG ": cannot create the ring %s: %s\n", xen ? "in granted pages" : path,
			err[0] ? err : strerror(-ret));
		return ret;
	}
	__atomic_store_n(&slot, *out, __ATOMIC_RELEASE);
	return 0;
}

static int ring_open_in(struct rtr_ring **out, uint32_t mode, uint32_t packets, bool xen)
{
	return ring_open_flags(out, mode, packets, xen, 0);
}

static int ring_open(struct rtr_ring **out, uint32_t mode, uint32_t packets)
{
	return ring_open_in(out, mode, packets, false);
}

/* Bytes committed into @ring so far, every CPU (headers, thread records and all). */
static uint64_t ring_bytes(const struct rtr_ring *ring)
{
	uint64_t n = 0;

	for (uint32_t cpu = 0; cpu < ring->ncpus; cpu++)
		n += __atomic_load_n(&rtr_ring_cpu(ring, cpu)->prod, __ATOMIC_ACQUIRE);
	return n;
}

/* Detach and stop @ring, but keep it: a releaser may still be reading it. */
static void ring_stop(struct rtr_ring *ring)
{
	int ret;

	ret = rtr_ring_detach(&slot);
	if (ret)
		fprintf(stderr, PROG ": rtr_ring_detach: %s\n", strerror(-ret));
	ret = rtr_ring_stop(ring);
	if (ret)
		fprintf(stderr, PROG ": rtr_ring_stop: %s\n", strerror(-ret));
}

static void ring_close(struct rtr_ring *ring)
{
	ring_stop(ring);
	rtr_ring_destroy(ring, true);
}

/* ---- threads ---------------------------------------------------------------- */

struct worker {
	pthread_t t;
	int cpu;
	enum kind kind;
	uint64_t n;
	int nthreads;
	int *ready;		/* start barrier */
	uint64_t t0, t1;
	uint64_t fails;
	int err;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	w->err = bench_pin_self(w->cpu);
	__atomic_add_fetch(w->ready, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(w->ready, __ATOMIC_ACQUIRE) < w->nthreads)
		_mm_pause();
	w->t0 = rtr_monotonic_ns();
	w->fails = run_kind(w->kind, w->n);
	w->t1 = rtr_monotonic_ns();
	return NULL;
}

/*
 * run_threads() - @nthreads threads on @cpus run @n events each, started
 * together.  Return: wall ns from the first start to the last end, 0 on
 * error.  Failed writes are added to *@fails.
 */
static uint64_t run_threads(enum kind k, int nthreads, const int *cpus, uint64_t n,
			    uint64_t *fails)
{
	struct worker w[2];
	uint64_t t0 = UINT64_MAX, t1 = 0;
	int ready = 0, ret, bad = 0;

	for (int i = 0; i < nthreads; i++) {
		w[i] = (struct worker){ .cpu = cpus[i], .kind = k, .n = n,
					.nthreads = nthreads, .ready = &ready };
		ret = pthread_create(&w[i].t, NULL, worker_main, &w[i]);
		if (ret) {
			fprintf(stderr, PROG ": pthread_create: %s\n", strerror(ret));
			exit(1);
		}
	}
	for (int i = 0; i < nthreads; i++) {
		pthread_join(w[i].t, NULL);
		if (w[i].err) {
			fprintf(stderr, PROG ": cannot pin a thread to CPU %d: %s\n", w[i].cpu,
				strerror(-w[i].err));
			bad = 1;
		}
		t0 = w[i].t0 < t0 ? w[i].t0 : t0;
		t1 = w[i].t1 > t1 ? w[i].t1 : t1;
		if (fails)
			*fails += w[i].fails;
	}
	return bad ? 0 : t1 - t0;
}

/*
 * The discard-mode consumer: releases every closed packet of every CPU
 * without reading it, then pauses.
 */
struct releaser {
	pthread_t t;
	struct rtr_ring *ring;
	int cpu;
	int stop;
	int err;
	uint64_t passes;
};

static void *releaser_main(void *arg)
{
	struct releaser *r = arg;
	struct rtr_ring *ring = r->ring;
	struct timespec pause = { 0, RELEASE_PAUSE_US * 1000 };

	r->err = bench_pin_self(r->cpu);
	/* The default 50 us timer slack would make the pause 3-4 times longer. */
	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		for (uint32_t cpu = 0; cpu < ring->ncpus; cpu++) {
			struct rtr_cpu_ctl *cb = rtr_ring_cpu(ring, cpu);
			/* The consumer's words: in the control page, or Xen's. */
			struct rtr_cons_words *w = (void *)(ring->mem.cons +
							    cpu * ring->mem.cons_stride);
			uint64_t prod = __atomic_load_n(&cb->prod, __ATOMIC_ACQUIRE);

			__atomic_store_n(&w->cons, prod & ~(uint64_t)ring->packet_mask,
					 __ATOMIC_RELEASE);
		}
		r->passes++;
		nanosleep(&pause, NULL);
	}
	return NULL;
}

static void releaser_start(struct releaser *r, struct rtr_ring *ring, int cpu)
{
	int ret;

	r->ring = ring;
	r->cpu = cpu;
	r->stop = 0;
	ret = pthread_create(&r->t, NULL, releaser_main, r);
	if (ret) {
		fprintf(stderr, PROG ": pthread_create: %s\n", strerror(ret));
		exit(1);
	}
}

static void releaser_stop(struct releaser *r)
{
	__atomic_store_n(&r->stop, 1, __ATOMIC_RELEASE);
	pthread_join(r->t, NULL);
	if (r->err) {
		fprintf(stderr, PROG ": cannot pin the releaser to CPU %d: %s\n", r->cpu,
			strerror(-r->err));
		exit(1);
	}
}

/* ---- the timed run ------------------------------------------------------------ */

/* The first two CPUs this thread may run on; both the same if only one. */
static int pick_cpus(int cpus[2])
{
	int n = bench_usable_cpus(cpus, 2);

	if (n <= 0)
		return -1;
	if (n == 1) {
		cpus[1] = cpus[0];
		fprintf(stderr, PROG ": only CPU %d is usable: the 2-thread figures share it\n",
			cpus[0]);
	}
	return 0;
}

/*
 * struct scenario - one measured figure: @nthreads threads on their own CPUs
 * write @n events each, into @ring (NULL: the floor), with the releaser
 * running when @release.  @best: the fastest repetition's wall time.
 */
struct scenario {
	enum kind kind;
	struct rtr_ring *ring;
	int nthreads;
	bool release;
	uint64_t best;
	uint64_t events;	/* over all repetitions */
	uint64_t lost;		/* from the control pages */
	uint64_t fails;		/* writes that returned non-zero */
	uint64_t bytes;		/* committed into the ring, over all repetitions */
	bool share;		/* the threads share the first CPU */
};

static void run_scenario(struct scenario *sc, const int cpus[2], uint64_t n,
			 struct releaser *rel)
{
	const int shared[2] = { cpus[0], cpus[0] };
	uint64_t lost0 = 0, bytes0 = 0, ns;

	if (sc->ring) {
		/* No writer runs between repetitions: switching rings is safe. */
		__atomic_store_n(&slot, sc->ring, __ATOMIC_RELEASE);
		lost0 = bench_ring_lost(sc->ring);
		bytes0 = ring_bytes(sc->ring);
	}
	if (sc->release)
		releaser_start(rel, sc->ring, cpus[1]);
	ns = run_threads(sc->kind, sc->nthreads, sc->share ? shared : cpus, n, &sc->fails);
	if (sc->release)
		releaser_stop(rel);
	if (!ns)
		exit(1);
	if (sc->ring) {
		sc->lost += bench_ring_lost(sc->ring) - lost0;
		sc->bytes += ring_bytes(sc->ring) - bytes0;
	}
	sc->events += (uint64_t)sc->nthreads * n;
	sc->best = ns < sc->best ? ns : sc->best;
}

static double mevs(uint64_t events, uint64_t ns)
{
	return (double)events * 1e3 / (double)ns;
}

static int timed_main(const char *json, uint64_t n, int reps)
{
	enum { FLOOR1, OW1, D1, FLOOR2, OW2, D2, T1, T2, OWS, TS, TT, XD1, NSCEN };
	struct scenario sc[NSCEN] = {
		[FLOOR1] = { .kind = KIND_FLOOR, .nthreads = 1 },
		[OW1] = { .kind = KIND_RING, .nthreads = 1 },
		[D1] = { .kind = KIND_RING, .nthreads = 1, .release = true },
		[FLOOR2] = { .kind = KIND_FLOOR, .nthreads = 2 },
		[OW2] = { .kind = KIND_RING, .nthreads = 2 },
		[D2] = { .kind = KIND_RING, .nthreads = 2, .release = true },
		/* thread records: 1 and 2 threads, 2 sharing a CPU, turns at every event */
		[T1] = { .kind = KIND_RING, .nthreads = 1 },
		[T2] = { .kind = KIND_RING, .nthreads = 2 },
		[OWS] = { .kind = KIND_RING, .nthreads = 2, .share = true },
		[TS] = { .kind = KIND_RING, .nthreads = 2, .share = true },
		[TT] = { .kind = KIND_RING_TURNS, .nthreads = 1 },
		/* discard mode in a Xen guest's granted pages (simulated hypervisor) */
		[XD1] = { .kind = KIND_RING, .nthreads = 1, .release = true },
	};
	double floor_ns, floor_mevs, floor2_mevs, ow_ns, ow_mevs, ow2_mevs, d_ns, d2_mevs, xd_ns;
	struct rtr_ring *ow, *dis, *tid, *xdis = NULL;
	int nscen = NSCEN;
	struct releaser rel = { 0 };
	char model[256];
	int cpus[2];
	bool rseq;

	if (pick_cpus(cpus))
		return 1;
	bench_cpu_model(model, sizeof(model));
	/* The main thread only waits; keep it off the first measuring CPU. */
	bench_pin_self(cpus[1]);

	if (ring_open(&ow, RTR_MODE_OVERWRITE, 8))
		return 1;
	if (ring_open(&dis, RTR_MODE_DISCARD, 8)) {
		__atomic_store_n(&slot, ow, __ATOMIC_RELEASE);
		ring_close(ow);
		return 1;
	}
	if (ring_open_flags(&tid, RTR_MODE_OVERWRITE, 8, false, RTR_RING_THREADS)) {
		__atomic_store_n(&slot, ow, __ATOMIC_RELEASE);
		ring_close(ow);
		__atomic_store_n(&slot, dis, __ATOMIC_RELEASE);
		ring_close(dis);
		return 1;
	}
	rseq = ow->use_rseq && dis->use_rseq;
	sc[OW1].ring = sc[OW2].ring = sc[OWS].ring = ow;
	sc[T1].ring = sc[T2].ring = sc[TS].ring = sc[TT].ring = tid;
	sc[D1].ring = sc[D2].ring = dis;
	if (xensim_start() || ring_open_in(&xdis, RTR_MODE_DISCARD, 8, true)) {
		fprintf(stderr, PROG ": no xen.sim figure: the simulated hypervisor is not here\n");
		xdis = NULL;
		nscen = XD1;
	}
	sc[XD1].ring = xdis;

	/* Warm up: fault in the rings and the floor's array, open packets. */
	run_threads(KIND_FLOOR, 2, cpus, WARMUP_EVENTS, NULL);
	__atomic_store_n(&slot, ow, __ATOMIC_RELEASE);
	run_threads(KIND_RING, 2, cpus, WARMUP_EVENTS, NULL);
	__atomic_store_n(&slot, tid, __ATOMIC_RELEASE);
	run_threads(KIND_RING, 2, cpus, WARMUP_EVENTS, NULL);
	__atomic_store_n(&slot, dis, __ATOMIC_RELEASE);
	releaser_start(&rel, dis, cpus[1]);
	run_threads(KIND_RING, 2, cpus, WARMUP_EVENTS, NULL);
	releaser_stop(&rel);
	rel.passes = 0;

	/* Each round runs every figure once, so that noise hits them alike. */
	for (int r = 0; r < reps; r++)
		for (int i = 0; i < nscen; i++) {
			if (!r)
				sc[i].best = UINT64_MAX;
			run_scenario(&sc[i], cpus, n, &rel);
		}

	__atomic_store_n(&slot, ow, __ATOMIC_RELEASE);
	ring_close(ow);
	__atomic_store_n(&slot, tid, __ATOMIC_RELEASE);
	ring_close(tid);
	__atomic_store_n(&slot, dis, __ATOMIC_RELEASE);
	/* A tail loss is carried by a packet the releaser must make room for. */
	/* ... and runs until the ring is stopped, not destroyed: it reads the ring. */
	releaser_start(&rel, dis, cpus[1]);
	ring_stop(dis);
	releaser_stop(&rel);
	rtr_ring_destroy(dis, true);
	if (xdis) {
		__atomic_store_n(&slot, xdis, __ATOMIC_RELEASE);
		releaser_start(&rel, xdis, cpus[1]);
		ring_stop(xdis);
		releaser_stop(&rel);
		rtr_ring_destroy(xdis, true);
	}
	xensim_stop();

	for (int i = D1; i < NSCEN; i += D2 - D1)
		if (sc[i].fails != sc[i].lost)
			fprintf(stderr, PROG ": discard %dt: %" PRIu64 " writes failed but the"
				" control pages count %" PRIu64 "\n", sc[i].nthreads, sc[i].fails,
				sc[i].lost);

	if (xdis && sc[XD1].fails != sc[XD1].lost)
		fprintf(stderr, PROG ": xen discard: %" PRIu64 " writes failed but the control pages"
			" count %" PRIu64 "\n", sc[XD1].fails, sc[XD1].lost);

	floor_ns = (double)sc[FLOOR1].best / (double)n;
	floor_mevs = mevs(n, sc[FLOOR1].best);
	floor2_mevs = mevs(2 * n, sc[FLOOR2].best);
	ow_ns = (double)sc[OW1].best / (double)n;
	ow_mevs = mevs(n, sc[OW1].best);
	ow2_mevs = mevs(2 * n, sc[OW2].best);
	d_ns = (double)sc[D1].best / (double)n;
	d2_mevs = mevs(2 * n, sc[D2].best);

	bench_add("floor.ns", floor_ns, "ns/event", -1);
	bench_add("floor.mevents_per_s", floor_mevs, "Mevents/s", -1);
	bench_add("floor.2t.mevents_per_s", floor2_mevs, "Mevents/s", -1);
	bench_add("floor.2t.scaling", floor2_mevs / floor_mevs, "x 1t", -1);
	bench_add("ring.overwrite.1t.ns", ow_ns, "ns/event", ow_ns / floor_ns);
	bench_add("ring.overwrite.1t.mevents_per_s", ow_mevs, "Mevents/s", floor_mevs / ow_mevs);
	bench_add("ring.overwrite.1t.ratio_to_floor", ow_ns / floor_ns, "x floor", -1);
	bench_add("ring.overwrite.2t.mevents_per_s", ow2_mevs, "Mevents/s", floor2_mevs / ow2_mevs);
	bench_add("ring.overwrite.2t.scaling", ow2_mevs / ow_mevs, "x 1t", -1);
	bench_add("ring.discard.1t.ns", d_ns, "ns/event", d_ns / floor_ns);
	bench_add("ring.discard.1t.mevents_per_s", mevs(n, sc[D1].best), "Mevents/s",
	    d_ns / floor_ns);
	bench_add("ring.discard.1t.ratio_to_floor", d_ns / floor_ns, "x floor", -1);
	bench_add("ring.discard.1t.events", (double)sc[D1].events, "events", -1);
	bench_add("ring.discard.1t.events_lost", (double)sc[D1].lost, "events", -1);
	bench_add("ring.discard.2t.mevents_per_s", d2_mevs, "Mevents/s", floor2_mevs / d2_mevs);
	bench_add("ring.discard.2t.events", (double)sc[D2].events, "events", -1);
	bench_add("ring.discard.2t.events_lost", (double)sc[D2].lost, "events", -1);
	if (xdis) {
		xd_ns = (double)sc[XD1].best / (double)n;
		bench_add("xen.sim.ns", xd_ns, "ns/event", xd_ns / floor_ns);
		bench_add("xen.sim.ratio_to_unix", xd_ns / d_ns, "x unix", -1);
		bench_add("xen.sim.events_lost", (double)sc[XD1].lost, "events", -1);
	}
	/*
	 * Thread records: each figure against the same one without them, in
	 * ns/event and in ring bytes/event (records, thread records, packet
	 * headers: what @prod moved).
	 */
	{
		static const struct { const char *name; int with, without; } t[] = {
			{ "1t", T1, OW1 }, { "2t", T2, OW2 }, { "2t_1cpu", TS, OWS },
			{ "turns", TT, OW1 },
		};
		static char names[4][4][48];

		for (int i = 0; i < 4; i++) {
			const struct scenario *w = &sc[t[i].with], *o = &sc[t[i].without];
			/* CPU time per event: the threads on their own CPUs run at once */
			double evw = (double)n * (w->share ? w->nthreads : 1);
			double ns = (double)w->best / evw;
			double added = ns - (double)o->best / evw;
			double bw = (double)w->bytes / (double)w->events;
			double bo = (double)o->bytes / (double)o->events;

			snprintf(names[i][0], 48, "ring.tid.%s.ns", t[i].name);
			snprintf(names[i][1], 48, "ring.tid.%s.added_ns", t[i].name);
			snprintf(names[i][2], 48, "ring.tid.%s.bytes_per_event", t[i].name);
			snprintf(names[i][3], 48, "ring.tid.%s.added_bytes_per_event", t[i].name);
			bench_add(names[i][0], ns, "ns/event", ns / floor_ns);
			bench_add(names[i][1], added, "ns/event", -1);
			bench_add(names[i][2], bw, "bytes/event", -1);
			bench_add(names[i][3], bw - bo, "bytes/event", -1);
		}
	}
	bench_add("ring.rseq", rseq, "bool", -1);

	printf("ringtrace-bench: %s, CPUs %d and %d, %s path, best of %d x %" PRIu64
	       " events per thread\n", model, cpus[0], cpus[1], rseq ? "rseq" : "portable",
	       reps, n);
	printf("  (discard: a releaser on CPU %d frees packets every %d us, %" PRIu64
	       " passes in all)\n", cpus[1], RELEASE_PAUSE_US, rel.passes);
	bench_print_table();
	if (json && bench_write_json(json))
		return 1;
	return 0;
}

/* ---- callgrind mode ------------------------------------------------------------ */

static int callgrind_main(const char *mode, uint64_t n)
{
	uint32_t rmode = 0, packets = 8, flags = 0;
	struct rtr_ring *ring = NULL;
	uint64_t fails, lost = 0;
	bool xen = !strcmp(mode, "xen-discard");
	enum kind k;

	if (!strcmp(mode, "floor")) {
		k = KIND_FLOOR;
	} else if (!strcmp(mode, "discard") || xen) {
		uint64_t bytes = (CG_WARMUP + n) * (RTR_EV_COMPACT_SIZE + PAYLOAD_SIZE);

		k = KIND_RING;
		rmode = RTR_MODE_DISCARD;
		/* Room for every event with no consumer: nothing may be dropped. */
		packets = bench_pow2_at_least(bytes / (65536 - 256) + 3);
	} else if (!strcmp(mode, "overwrite")) {
		k = KIND_RING;
		rmode = RTR_MODE_OVERWRITE;
	} else if (!strcmp(mode, "tid") || !strcmp(mode, "turns")) {
		/* thread records; turns: a thread record before every event */
		k = !strcmp(mode, "tid") ? KIND_RING : KIND_RING_TURNS;
		rmode = RTR_MODE_OVERWRITE;
		flags = RTR_RING_THREADS;
	} else {
		fprintf(stderr, PROG ": --callgrind: '%s' is not floor, discard, overwrite, tid, "
			"turns or xen-discard\n", mode);
		return 2;
	}
	if (xen && xensim_start()) {
		fprintf(stderr, PROG ": --callgrind xen-discard: no simulated hypervisor\n");
		return 1;
	}
	if (k != KIND_FLOOR) {
		/* valgrind has no rseq: pretend we are registered, on CPU 0. */
		rtr_ring_bench_emulate_rseq();
		if (ring_open_flags(&ring, rmode, packets, xen, flags)) {
			xensim_stop();
			return 1;
		}
	}
	fails = run_kind(k, CG_WARMUP);
	fails += bench_cg_region(k, n);
	if (ring) {
		lost = bench_ring_lost(ring);
		printf("callgrind %s: %" PRIu64 " events measured, %s path, %u packets per CPU,"
		       " %" PRIu64 " writes failed, %" PRIu64 " lost\n", mode, n,
		       ring->use_rseq ? "rseq" : "portable", packets, fails, lost);
		ring_close(ring);
	} else {
		printf("callgrind %s: %" PRIu64 " events measured\n", mode, n);
	}
	xensim_stop();
	if (fails || lost) {
		fprintf(stderr, PROG ": --callgrind %s: writes failed: the count is not of"
			" the fast path\n", mode);
		return 1;
	}
	return 0;
}

/* ---- main ------------------------------------------------------------------------ */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " [options]\n"
		"Measure what writing one event (two 64-bit fields) costs: a TSC read and\n"
		"a store into a thread-local array (the floor), then rtr_ring_write() in\n"
		"overwrite and discard mode, on 1 and 2 pinned threads, and with thread\n"
		"records (ring.tid.*: added ns and bytes per event).  Prints a table.\n\n"
		"  -j, --json FILE       also write the figures to FILE as JSON\n"
		"  -n, --events N        events per thread and repetition (default %llu;\n"
		"                        with --callgrind: measured events, default %llu)\n"
		"  -r, --reps N          repetitions, the best is kept (default %d)\n"
		"  -c, --callgrind MODE  run N events of MODE (floor, discard, overwrite, tid:\n"
		"                        overwrite with thread records, turns: the same with a\n"
		"                        thread record before every event, xen-discard)\n"
		"                        in bench_cg_region(), for valgrind --tool=callgrind\n"
		"                        --toggle-collect=bench_cg_region\n"
		"  -h, --help            this text\n",
		DEF_EVENTS, CG_EVENTS, DEF_REPS);
}

int main(int argc, char **argv)
{
	struct bench_args a = { .reps = DEF_REPS };
	int ret;

	ret = bench_parse_args(argc, argv, false, 1ull << 40, usage, &a);
	if (ret >= 0)
		return ret;
	if (a.callgrind)
		return callgrind_main(a.callgrind, a.n ? a.n : CG_EVENTS);
	return timed_main(a.json, a.n ? a.n : DEF_EVENTS, (int)a.reps);
}
