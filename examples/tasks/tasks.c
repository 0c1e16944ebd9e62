// SPDX-License-Identifier: MIT
/*
 * ringtrace-tasks - a small program that uses the task model: a main task
 * creates requests, each waits on a named condition, a worker thread
 * resolves them (one fails), counters follow the queue.  Run it with
 * RINGTRACE=1 (or RINGTRACE_PATH=FILE) and convert the region it prints.
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
#include <ringtrace/ringtrace.h>

#define REQUESTS 8

static uint64_t waits[REQUESTS];
static uint32_t queued;

static void *worker(void *arg)
{
	uint64_t me = rtr_task_id();

	(void)arg;
	rtr_label(me, "worker");
	for (int i = 0; i < REQUESTS; i++) {
		rtr_switch(me);
		usleep(1000);
		if (i == 5)
			rtr_fail(me, waits[i], "timeout");
		else
			rtr_resolve(me, waits[i]);
		rtr_counter_add(queued, -1);
	}
	rtr_switch(0);
	return NULL;
}

int main(void)
{
	uint64_t main_task = rtr_task_id();
	pthread_t t;

	rtr_counter_register("queued", &queued);
	rtr_label(main_task, "main");
	rtr_switch(main_task);
	for (int i = 0; i < REQUESTS; i++) {
		char name[32];

		snprintf(name, sizeof(name), "request %d", i);
		waits[i] = rtr_named_condition(main_task, name);
		rtr_counter_add(queued, 1);
		if (i == 3)
			rtr_should_resolve(waits[i]);
	}
	rtr_note("%d requests queued", REQUESTS);
	pthread_create(&t, NULL, worker, NULL);
	for (int i = 0; i < REQUESTS; i++)
		rtr_try_read(main_task, waits[i]);
	pthread_join(t, NULL);
	for (int i = 0; i < REQUESTS; i++)
		rtr_read(main_task, waits[i]);
	rtr_pause(1500000, "gc");
	if (rtr_tracing())
		printf("traced into %s\n", rtr_region_path());
	return 0;
}
