// SPDX-License-Identifier: MIT
/*
 * ringtrace-tour - one use of every call of the API, each between markers
 * that Documentation/events.rst includes, so that every example in the
 * documentation is compiled (and run by `make check`).
 */
#include <stdio.h>
#include <string.h>
#include <ringtrace/ringtrace.h>
#include <ringtrace/event.h>

/* [declare] */
#define MYAPP_REQUEST(F) F(u64, id) F(s32, status) F(string, path) F(f64, ms) F(bytes, body)
RTR_EVENT_DECLARE(myapp, request, MYAPP_REQUEST)
/* [/declare] */

/* [define] */
RTR_EVENT_DEFINE(myapp, request, MYAPP_REQUEST)
/* [/define] */

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : NULL;
	uint64_t main_task, child, wait, worker;
	uint32_t queue_len;
	int ret;

	/* [start] */
	struct rtr_config cfg = {
		.struct_size = sizeof(cfg),
		.path = path,			/* NULL: /dev/shm/ringtrace-PID-N */
		.mode = RTR_MODE_OVERWRITE,	/* a flight recorder */
	};

	ret = rtr_start(&cfg);
	if (ret)
		fprintf(stderr, "tracing off: %s\n", strerror(-ret));
	/* [/start] */

	/* [task_id] */
	main_task = rtr_task_id();
	child = rtr_task_id();
	/* [/task_id] */

	/* [switch] */
	rtr_switch(main_task);	/* main_task runs on this CPU */
	/* [/switch] */

	/* [create] */
	rtr_create(main_task, child, RTR_KIND_TASK);
	/* [/create] */

	/* [label] */
	rtr_label(child, "parse request");
	/* [/label] */

	/* [named_wait] */
	wait = rtr_named_wait(main_task, "read from disk");
	/* [/named_wait] */

	/* [should_resolve] */
	rtr_should_resolve(wait);	/* drawn red if it never resolves */
	/* [/should_resolve] */

	/* [try_read] */
	rtr_try_read(main_task, wait);	/* not ready: main_task will sleep */
	/* [/try_read] */

	/* [switch_idle] */
	rtr_switch(0);			/* nothing runs: the CPU is idle */
	/* [/switch_idle] */

	/* [named_condition] */
	worker = rtr_named_condition(main_task, "queue not empty");
	/* [/named_condition] */

	/* [signal] */
	rtr_signal(worker, main_task);	/* worker wakes main_task */
	/* [/signal] */

	/* [resolve] */
	rtr_resolve(worker, wait);
	/* [/resolve] */

	/* [read] */
	rtr_read(main_task, wait);	/* main_task takes the result and runs */
	/* [/read] */

	/* [becomes] */
	rtr_becomes(child, main_task);	/* child's work continues as main_task */
	/* [/becomes] */

	/* [fail] */
	rtr_fail(worker, child, "connection reset");
	/* [/fail] */

	/* [counter] */
	rtr_counter_register("queue length", &queue_len);
	rtr_counter_set(queue_len, 3);
	rtr_counter_add(queue_len, -1);	/* records the new value, 2 */
	/* [/counter] */

	/* [note] */
	rtr_note("cache hit ratio %.2f", 0.93);
	/* [/note] */

	/* [pause] */
	rtr_pause(1500000, "gc");	/* the program stalled 1.5 ms */
	/* [/pause] */

	/* [trace] */
	RTR_TRACE(myapp, request, .id = 7, .status = 200, .path = "/index.html", .ms = 1.25,
		  .body = RTR_BYTES("hi", 2));
	/* [/trace] */

	/* [enable] */
	rtr_event_enable("myapp:*", false);	/* off, by glob */
	rtr_event_enable("myapp:request", true);
	/* [/enable] */

	/* [stop] */
	if (rtr_tracing()) {
		printf("trace region: %s\n", rtr_region_path());
		rtr_stop();	/* every event is in a closed packet */
	}
	/* [/stop] */
	return 0;
}
