// SPDX-License-Identifier: MIT
/*
 * ringtrace-test-emit - a multi-threaded traced program for the consumer
 * tests (tests/consumer/test_record.c).  Each thread emits rtrtest:ev
 * events numbered 0, 1, 2... with a checksum (emit.h).  Tracing starts from
 * the RINGTRACE_* variables (ringtrace record, or RINGTRACE_PATH).
 *
 *   --threads N       writer threads (default 4)
 *   --events N        per thread, over all phases; 0: until killed
 *   --pin             pin thread i to the i-th allowed CPU (round robin)
 *   --phases P        split the events into P phases (default 1)
 *   --sync DIR        write DIR/pid at start; before phase p wait for the
 *                     file DIR/go.p, after it write DIR/done.p; at the end
 *                     write DIR/report ("attempted N")
 *   --hold            after the last phase, wait for DIR/go.P before exiting
 *   --progress FILE   thread i stores at u64 slot i the number of its events
 *                     emitted so far, after each one (a shared mapping that
 *                     outlives a SIGKILL)
 *   --pace K:US       sleep US microseconds after every K events
 *   --counters N      thread 0 registers counter "cK" and sets it to K, for
 *                     K = 0..N-1, evenly over its events: names that appear
 *                     while the trace is being consumed
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <ringtrace/ringtrace.h>
#include <ringtrace/event.h>
#include "tests/consumer/emit.h"

#define RTRTEST_EV(F) F(u32, thread) F(u32, cpu) F(u64, seq) F(u64, check)
RTR_EVENT_DECLARE(rtrtest, ev, RTRTEST_EV)
RTR_EVENT_DEFINE(rtrtest, ev, RTRTEST_EV)

static uint32_t nthreads = 4, nphases = 1, pace_every, pace_us, ncounters;
static uint64_t counter_every;	/* thread 0's events between two new counters */
static uint64_t nevents = 100000;
static bool pin, hold;
static const char *sync_dir;
static uint64_t *progress;
static pthread_barrier_t barrier;
static int cpus[CPU_SETSIZE], ncpus;

static void die(const char *what)
{
	fprintf(stderr, "ringtrace-test-emit: %s: %s\n", what, strerror(errno));
	exit(3);
}

static void put_file(const char *name, const char *text)
{
	char path[4096], tmp[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", sync_dir, name);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) || rename(tmp, path))
		die(path);
}

static void wait_file(const char *name)
{
	char path[4096];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", sync_dir, name);
	while (stat(path, &st) < 0)
		usleep(1000);
}

/* Counter "c@k", registered now, set to @k. */
static void new_counter(uint32_t k)
{
	char name[16];
	uint32_t c;

	snprintf(name, sizeof(name), "c%u", k);
	if (rtr_counter_register(name, &c))
		die("rtr_counter_register");
	rtr_counter_set(c, k);
}

static void *writer(void *arg)
{
	uint32_t id = (uint32_t)(uintptr_t)arg, cpu = EMIT_NO_CPU;
	uint64_t seq = 0, per_phase = nevents / nphases;

	if (pin && ncpus) {
		cpu_set_t set;

		cpu = (uint32_t)cpus[id % (uint32_t)ncpus];
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set))
			die("pthread_setaffinity_np");
	}
	for (uint32_t p = 0; p < nphases; p++) {
		uint64_t end = p + 1 == nphases ? nevents : seq + per_phase;

		pthread_barrier_wait(&barrier);
		while (!nevents || seq < end) {
			RTR_TRACE(rtrtest, ev, .thread = id, .cpu = cpu, .seq = seq,
				  .check = emit_checksum(id, seq));
			seq++;
			if (progress)
				__atomic_store_n(&progress[id], seq, __ATOMIC_RELEASE);
			if (pace_every && seq % pace_every == 0)
				usleep(pace_us);
			if (id == 0 && counter_every && seq % counter_every == 0 &&
			    seq / counter_every <= ncounters)
				new_counter((uint32_t)(seq / counter_every) - 1);
		}
		pthread_barrier_wait(&barrier);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[EMIT_MAX_THREADS];
	char text[64];
	cpu_set_t set;

	/* A test that failed half-way leaves no writer behind. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";

		if (!strcmp(a, "--pin")) {
			pin = true;
		} else if (!strcmp(a, "--hold")) {
			hold = true;
		} else if (!strcmp(a, "--threads") && ++i) {
			nthreads = (uint32_t)strtoul(v, NULL, 0);
		} else if (!strcmp(a, "--events") && ++i) {
			nevents = strtoull(v, NULL, 0);
		} else if (!strcmp(a, "--phases") && ++i) {
			nphases = (uint32_t)strtoul(v, NULL, 0);
		} else if (!strcmp(a, "--sync") && ++i) {
			sync_dir = v;
		} else if (!strcmp(a, "--counters") && ++i) {
			ncounters = (uint32_t)strtoul(v, NULL, 0);
		} else if (!strcmp(a, "--pace") && ++i) {
			if (sscanf(v, "%u:%u", &pace_every, &pace_us) != 2)
				pace_every = 0;
		} else if (!strcmp(a, "--progress") && ++i) {
			int fd = open(v, O_RDWR | O_CREAT, 0600);

			if (fd < 0 || ftruncate(fd, EMIT_MAX_THREADS * 8) < 0)
				die(v);
			progress = mmap(NULL, EMIT_MAX_THREADS * 8, PROT_READ | PROT_WRITE,
					MAP_SHARED, fd, 0);
			if (progress == MAP_FAILED)
				die("mmap");
			close(fd);
		} else {
			fprintf(stderr, "ringtrace-test-emit: unknown argument '%s'\n", a);
			return 2;
		}
	}
	if (!nthreads || nthreads > EMIT_MAX_THREADS || !nphases || (hold && !sync_dir)) {
		fprintf(stderr, "ringtrace-test-emit: bad arguments\n");
		return 2;
	}
	if (ncounters && nevents)
		counter_every = nevents / ncounters ? nevents / ncounters : 1;
	if (sched_getaffinity(0, sizeof(set), &set))
		die("sched_getaffinity");
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			cpus[ncpus++] = c;
	if (sync_dir) {
		snprintf(text, sizeof(text), "%d\n", (int)getpid());
		put_file("pid", text);
	}
	pthread_barrier_init(&barrier, NULL, nthreads + 1);
	for (uint32_t i = 0; i < nthreads; i++)
		if (pthread_create(&th[i], NULL, writer, (void *)(uintptr_t)i))
			die("pthread_create");
	for (uint32_t p = 0; p < nphases; p++) {
		if (sync_dir) {
			snprintf(text, sizeof(text), "go.%u", p);
			wait_file(text);
		}
		pthread_barrier_wait(&barrier);
		pthread_barrier_wait(&barrier);
		if (sync_dir) {
			char name[32];

			snprintf(name, sizeof(name), "done.%u", p);
			put_file(name, "\n");
		}
	}
	for (uint32_t i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	if (sync_dir) {
		snprintf(text, sizeof(text), "attempted %llu\n",
			 (unsigned long long)nevents * nthreads);
		put_file("report", text);
		if (hold) {
			snprintf(text, sizeof(text), "go.%u", nphases);
			wait_file(text);
		}
	}
	return 0;
}
