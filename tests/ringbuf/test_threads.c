// SPDX-License-Identifier: MIT
/*
 * tests/ringbuf/test_threads.c - thread records (RTR_RING_THREADS): every
 * record read back is attributed, by the thread record before it in its
 * packet, to the thread that wrote it.  Writers share CPU 0 (pinned) and
 * yield to each other so that the stream changes hands often; others run
 * anywhere; a signal handler traces on top of them; both paths (rseq and
 * the portable lock), both modes (overwrite losing most packets).
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include "tests/helpers.h"

#define PINNED		4
#define FREE		2
#define WRITERS		(PINNED + FREE)
#define EVENTS		20000
#define FROM_HANDLER	0x80000000u

/* Each event's payload: the writer's own idea of its tid, and a sequence number. */
struct ev {
	uint32_t tid;
	uint32_t seq;
};

static struct rtr_ring *_Atomic *slot;
static __thread uint32_t my_tid;
static __thread uint32_t handler_seq;
static volatile int writers_done;
static int finished, release;	/* a writer outlives the signals sent to it */
static uint64_t written;	/* records the ring took (0 returned) */

static void on_signal(int sig)
{
	struct ev e = { my_tid, FROM_HANDLER | handler_seq++ };

	(void)sig;
	/* a writer that has said who it is */
	if (my_tid && rtr_ring_write(slot, 1, &e, sizeof(e)) == 0)
		__atomic_add_fetch(&written, 1, __ATOMIC_RELAXED);
}

struct writer {
	pthread_t t;
	bool pinned;
	uint32_t tid;
};

static void *writer_main(void *arg)
{
	struct writer *w = arg;

	if (w->pinned)
		t_pin0();
	w->tid = (uint32_t)gettid();
	__atomic_store_n(&my_tid, w->tid, __ATOMIC_RELAXED);
	/* at least EVENTS, and on until a signal handler of this thread traced */
	for (uint32_t i = 0; i < EVENTS || (!handler_seq && i < 100 * EVENTS); i++) {
		struct ev e = { w->tid, i };

		if (rtr_ring_write(slot, 1, &e, sizeof(e)) == 0)
			__atomic_add_fetch(&written, 1, __ATOMIC_RELAXED);
		if (i % 64 == 63)
			sched_yield();	/* the next writer of CPU 0 takes over */
	}
	__atomic_add_fetch(&finished, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&release, __ATOMIC_ACQUIRE))
		usleep(1000);
	return NULL;
}

/* Signals the writers until they are done: records written from a handler, nested or not. */
static void *signaller_main(void *arg)
{
	struct writer *w = arg;

	while (!__atomic_load_n(&writers_done, __ATOMIC_ACQUIRE)) {
		for (int k = 0; k < WRITERS; k++)
			pthread_kill(w[k].t, SIGUSR1);
		usleep(200);
	}
	return NULL;
}

struct mode {
	bool rseq;
	uint32_t mode;
};

ParameterizedTestParameters(ringbuf_threads, every_record_is_attributed_to_its_writer)
{
	static struct mode modes[] = {
		{ true, RTR_MODE_DISCARD }, { true, RTR_MODE_OVERWRITE },
		{ false, RTR_MODE_DISCARD }, { false, RTR_MODE_OVERWRITE },
	};

	return cr_make_param_array(struct mode, modes, sizeof(modes) / sizeof(modes[0]));
}

ParameterizedTest(struct mode *m, ringbuf_threads, every_record_is_attributed_to_its_writer,
		  .timeout = 120)
{
	struct writer w[WRITERS];
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };
	uint64_t events = 0, handled = 0, threads = 0, skipped = 0, unattributed = 0;
	uint32_t ncpus, pid = (uint32_t)getpid();
	static struct t_rec recs[4096];
	struct rtr_consumer_packet pkt;
	pthread_t sig;
	struct t_ring t;

	/* Overwrite: a few packets per CPU, so that most are lost before they are read. */
	t_ring_open_flags(&t, m->mode, 4096, m->mode == RTR_MODE_OVERWRITE ? 4 : 2048, m->rseq,
			  0, RTR_RING_THREADS);
	slot = &t.slot;
	cr_assert_eq(sigaction(SIGUSR1, &sa, NULL), 0);
	writers_done = 0;
	written = 0;
	finished = release = 0;
	for (int k = 0; k < WRITERS; k++) {
		w[k] = (struct writer){ .pinned = k < PINNED };
		cr_assert_eq(pthread_create(&w[k].t, NULL, writer_main, &w[k]), 0);
	}
	cr_assert_eq(pthread_create(&sig, NULL, signaller_main, w), 0);
	while (__atomic_load_n(&finished, __ATOMIC_ACQUIRE) < WRITERS)
		usleep(1000);
	__atomic_store_n(&writers_done, 1, __ATOMIC_RELEASE);
	pthread_join(sig, NULL);
	__atomic_store_n(&release, 1, __ATOMIC_RELEASE);
	for (int k = 0; k < WRITERS; k++)
		pthread_join(w[k].t, NULL);
	cr_assert_eq(rtr_ring_detach(&t.slot), 0);
	cr_assert_eq(rtr_ring_stop(t.ring), 0);

	ncpus = rtr_consumer_region(t.c)->ncpus;
	for (uint32_t cpu = 0; cpu < ncpus; cpu++) {
		while (rtr_consumer_get(t.c, cpu, &pkt) == 0) {
			int n = t_parse(pkt.data, pkt.size, sizeof(struct ev), recs, 4096);
			uint32_t cur = 0;	/* a packet starts with no thread */

			cr_assert_geq(n, 0, "cpu %u packet %" PRIu64 " does not parse", cpu, pkt.seq);
			skipped += pkt.skipped;
			for (int i = 0; i < n; i++) {
				struct ev e;

				memcpy(&e, recs[i].payload, sizeof(e));
				if (recs[i].id == RTR_EV_THREAD_ID) {
					/* u32 pid, u32 tid */
					cr_assert_eq(e.tid, pid, "pid %u in a thread record", e.tid);
					cur = e.seq;
					cr_assert_neq(cur, 0);
					threads++;
					continue;
				}
				cr_assert_eq(recs[i].id, 1);
				if (!cur) {
					unattributed++;
					continue;
				}
				cr_assert_eq(cur, e.tid, "cpu %u packet %" PRIu64 " record %d (seq %#x) "
					     "written by thread %u is attributed to %u", cpu, pkt.seq,
					     i, e.seq, e.tid, cur);
				events++;
				handled += !!(e.seq & FROM_HANDLER);
			}
			rtr_consumer_put(t.c, cpu);
		}
	}
	cr_expect_eq(unattributed, 0, "records before their packet's first thread record");
	if (m->mode == RTR_MODE_OVERWRITE) {
		/* the last few packets remain, the handlers' records maybe not among them */
		cr_expect_gt(skipped, 0, "overwrite mode lost packets");
		cr_expect_gt(events, 0);
	} else {
		cr_expect_eq(skipped, 0);
		cr_expect_eq(events, written, "every record the ring took is read");
		cr_expect_gt(events, (uint64_t)WRITERS * EVENTS / 2);
		cr_expect_gt(handled, 0, "the signal handler traced");
		/* Written when the writer changes, not with every record. */
		cr_expect_lt(threads * 4, events, "%" PRIu64 " thread records for %" PRIu64
			     " events", threads, events);
	}
	t_ring_close(&t);
}
