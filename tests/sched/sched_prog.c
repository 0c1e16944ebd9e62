// SPDX-License-Identifier: MIT
/*
 * tests/sched/sched_prog.c - rtr-sched-prog, a traced program whose
 * threads leave the CPU at known moments, for tests/sched/test_sched.c
 * (`ringtrace record --sched`):
 *
 *   rtr-sched-prog sleep N     N times: note "before I", sleep 2 ms (the
 *                              thread blocks), note "after I"; so each
 *                              kernel switch out and in lies between the
 *                              two notes, if the clocks agree
 *   rtr-sched-prog spin MS     two threads pinned to CPU 0 busy for MS ms
 *                              each (they preempt each other), then the
 *                              second moves to CPU 1 (if there is one) and
 *                              spins 20 ms more; a third thread renames
 *                              itself "renamed-t3" and ends
 *
 *   rtr-sched-prog contend N   a thread named "holder" takes the static
 *                              mutex queue_lock and holds it 30 ms, N times;
 *                              a thread named "waiter" asks for it 5 ms
 *                              after each take and prints "wait NS
 *                              preempted N", the time its
 *                              pthread_mutex_lock() took and how often it
 *                              was preempted meanwhile (ru_nivcsw); the
 *                              holder prints "hold NS", each hold's time
 *
 *   rtr-sched-prog burn MS     a thread named "burner" calls burn_three()
 *                              and burn_one() from burn_loop(), spinning
 *                              three times as long in the first, for MS
 *                              ms of CPU time in all, and prints "burn
 *                              burn_three NS burn_one NS", the CPU time
 *                              each took (CLOCK_THREAD_CPUTIME_ID): what
 *                              record --sample's samples must find (built
 *                              with frame pointers: tests/Kbuild)
 *
 * Each thread prints "thread TID cputime NS schedstat NS" just before it
 * ends: its CLOCK_THREAD_CPUTIME_ID and the first field of
 * /proc/self/task/TID/schedstat (the kernel's on-CPU time), to compare with
 * the trace's on-CPU intervals.
 */
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <ringtrace/ringtrace.h>

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t ns(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void report(void)
{
	char path[64], buf[128];
	uint64_t cpu = ns(CLOCK_THREAD_CPUTIME_ID), sched = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", (int)gettid());
	f = fopen(path, "re");
	if (f) {
		if (fgets(buf, sizeof(buf), f))
			sched = strtoull(buf, NULL, 10);
		fclose(f);
	}
	pthread_mutex_lock(&out_lock);
	printf("thread %d cputime %" PRIu64 " schedstat %" PRIu64 "\n", (int)gettid(), cpu, sched);
	fflush(stdout);
	pthread_mutex_unlock(&out_lock);
}

static void pin(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	sched_setaffinity(0, sizeof(s), &s);
}

static void spin_ms(uint64_t ms)
{
	uint64_t until = ns(CLOCK_THREAD_CPUTIME_ID) + ms * 1000000ull;
	volatile uint64_t x = 0;

	while (ns(CLOCK_THREAD_CPUTIME_ID) < until)
		for (int i = 0; i < 1000; i++)
			x += (uint64_t)i;
}

struct spinner {
	uint64_t ms;
	bool migrate;
};

static void *spinner(void *arg)
{
	const struct spinner *s = arg;

	pin(0);
	spin_ms(s->ms);
	if (s->migrate && sysconf(_SC_NPROCESSORS_ONLN) > 1) {
		pin(1);
		spin_ms(20);
	}
	report();
	return NULL;
}

static void *renamer(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "renamed-t3");
	usleep(1000);
	report();
	return NULL;
}

static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static int taken = -1, rounds;

static void sleep_ms(long ms)
{
	struct timespec d = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&d, &d))
		;
}

static void *holder(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "holder");
	uint64_t held[64];
	long preempted[64];

	for (int i = 0; i < rounds; i++) {
		struct rusage r0, r1;
		uint64_t t0;

		getrusage(RUSAGE_THREAD, &r0);
		pthread_mutex_lock(&queue_lock);
		t0 = ns(CLOCK_MONOTONIC);
		__atomic_store_n(&taken, i, __ATOMIC_RELEASE);
		sleep_ms(30);
		if (i < 64)
			held[i] = ns(CLOCK_MONOTONIC) - t0;
		pthread_mutex_unlock(&queue_lock);
		getrusage(RUSAGE_THREAD, &r1);
		if (i < 64)
			preempted[i] = r1.ru_nivcsw - r0.ru_nivcsw;
		sleep_ms(10);	/* the waiter takes it meanwhile */
	}
	/* at the end: out_lock taken while the waiter prints would be a third lock waited for */
	pthread_mutex_lock(&out_lock);
	for (int i = 0; i < rounds && i < 64; i++)
		printf("hold %" PRIu64 " preempted %ld\n", held[i], preempted[i]);
	pthread_mutex_unlock(&out_lock);
	return NULL;
}

static void *waiter(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "waiter");
	for (int i = 0; i < rounds; i++) {
		struct rusage r0, r1;
		uint64_t t0, t1;

		while (__atomic_load_n(&taken, __ATOMIC_ACQUIRE) != i)
			usleep(100);
		sleep_ms(5);
		getrusage(RUSAGE_THREAD, &r0);
		t0 = ns(CLOCK_MONOTONIC);
		pthread_mutex_lock(&queue_lock);
		t1 = ns(CLOCK_MONOTONIC);
		getrusage(RUSAGE_THREAD, &r1);
		pthread_mutex_unlock(&queue_lock);
		pthread_mutex_lock(&out_lock);
		printf("wait %" PRIu64 " preempted %ld\n", t1 - t0, r1.ru_nivcsw - r0.ru_nivcsw);
		pthread_mutex_unlock(&out_lock);
	}
	fflush(stdout);
	return NULL;
}

/* A mutex on the heap, waited for once: named by where (the line printed). */
static pthread_mutex_t *heap_lock;

static void *heap_holder(void *arg)
{
	uint64_t t0, held;

	(void)arg;
	pthread_mutex_lock(heap_lock);
	t0 = ns(CLOCK_MONOTONIC);
	__atomic_store_n(&taken, -2, __ATOMIC_RELEASE);
	sleep_ms(20);
	held = ns(CLOCK_MONOTONIC) - t0;
	pthread_mutex_unlock(heap_lock);
	printf("heap_hold %" PRIu64 "\n", held);
	return NULL;
}

static void *heap_waiter(void *arg)
{
	(void)arg;
	while (__atomic_load_n(&taken, __ATOMIC_ACQUIRE) != -2)
		usleep(100);
	sleep_ms(5);
	printf("heap_site %d\n", __LINE__ + 1);
	pthread_mutex_lock(heap_lock);
	pthread_mutex_unlock(heap_lock);
	return NULL;
}

/* --sample's known profile: noinline, so that each is a frame of its own */
static volatile uint64_t sink;

static __attribute__((noinline)) uint64_t spin_for(uint64_t cpu_ns)
{
	uint64_t t0 = ns(CLOCK_THREAD_CPUTIME_ID), t;

	/* the clock is a system call: rarely, so that most samples land in user code */
	do {
		for (int i = 0; i < 100000; i++)
			sink += (uint64_t)i * 2654435761u;
		t = ns(CLOCK_THREAD_CPUTIME_ID);
	} while (t - t0 < cpu_ns);
	return t - t0;
}

static __attribute__((noinline)) uint64_t burn_three(void)
{
	uint64_t d = spin_for(3000000);

	sink++;		/* not a tail call: burn_three stays on the stack */
	return d;
}

static __attribute__((noinline)) uint64_t burn_one(void)
{
	uint64_t d = spin_for(1000000);

	sink++;
	return d;
}

static __attribute__((noinline)) void burn_loop(uint64_t ms, uint64_t *three, uint64_t *one)
{
	while (*three + *one < ms * 1000000) {
		*three += burn_three();
		*one += burn_one();
	}
	sink++;
}

static void *burner(void *arg)
{
	uint64_t three = 0, one = 0;

	prctl(PR_SET_NAME, "burner");
	burn_loop(*(uint64_t *)arg, &three, &one);
	pthread_mutex_lock(&out_lock);
	printf("burn burn_three %" PRIu64 " burn_one %" PRIu64 "\n", three, one);
	pthread_mutex_unlock(&out_lock);
	report();
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "burn")) {
		uint64_t ms = (uint64_t)atoi(argv[2]);
		pthread_t t;

		pthread_create(&t, NULL, burner, &ms);
		pthread_join(t, NULL);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "contend")) {
		pthread_t h, w;

		rounds = atoi(argv[2]);
		pthread_create(&h, NULL, holder, NULL);
		pthread_create(&w, NULL, waiter, NULL);
		pthread_join(h, NULL);
		pthread_join(w, NULL);
		heap_lock = malloc(sizeof(*heap_lock));
		if (!heap_lock)
			return 1;
		pthread_mutex_init(heap_lock, NULL);
		pthread_create(&h, NULL, heap_holder, NULL);
		pthread_create(&w, NULL, heap_waiter, NULL);
		pthread_join(h, NULL);
		pthread_join(w, NULL);
		free(heap_lock);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "sleep")) {
		int n = atoi(argv[2]);
		char text[32];

		for (int i = 0; i < n; i++) {
			struct timespec d = { 0, 2000000 };

			snprintf(text, sizeof(text), "before %d", i);
			rtr_note(text);
			nanosleep(&d, NULL);
			snprintf(text, sizeof(text), "after %d", i);
			rtr_note(text);
		}
		report();
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "spin")) {
		struct spinner a = { (uint64_t)atoi(argv[2]), false };
		struct spinner b = { (uint64_t)atoi(argv[2]), true };
		pthread_t t[3];

		pthread_create(&t[0], NULL, spinner, &a);
		pthread_create(&t[1], NULL, spinner, &b);
		pthread_create(&t[2], NULL, renamer, NULL);
		for (int i = 0; i < 3; i++)
			pthread_join(t[i], NULL);
		report();
		return 0;
	}
	fprintf(stderr, "usage: rtr-sched-prog sleep N | spin MS | contend N | burn MS\n");
	return 2;
}
