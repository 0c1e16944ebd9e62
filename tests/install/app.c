// SPDX-License-Identifier: MIT
/*
 * tests/install/app.c - a program built against an installed ringtrace
 * (tests/install/installed.sh): pkg-config, <ringtrace/event.h>, nothing
 * from the source tree.  THREADS threads each write EVENTS typed events
 * inst:work carrying their gettid() and pid, and print "tid N" on stdout,
 * so that the test can match each thread's events to the thread.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <ringtrace/event.h>

#define THREADS 4
#define EVENTS 100

#define INST_WORK(F) F(u32, tid) F(u32, pid) F(u32, seq)
RTR_EVENT_DECLARE(inst, work, INST_WORK)
RTR_EVENT_DEFINE(inst, work, INST_WORK)

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg)
{
	uint32_t tid = (uint32_t)syscall(SYS_gettid);

	(void)arg;
	pthread_mutex_lock(&out_lock);
	printf("tid %u\n", tid);
	pthread_mutex_unlock(&out_lock);
	for (uint32_t i = 0; i < EVENTS; i++)
		RTR_TRACE(inst, work, .tid = tid, .pid = (uint32_t)getpid(), .seq = i);
	return NULL;
}

int main(void)
{
	pthread_t t[THREADS];

	if (!rtr_tracing())
		fprintf(stderr, "app: not tracing (run it under ringtrace record)\n");
	for (int i = 0; i < THREADS; i++) {
		if (pthread_create(&t[i], NULL, worker, NULL)) {
			fprintf(stderr, "app: pthread_create failed\n");
			return 1;
		}
	}
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	return 0;
}
