// SPDX-License-Identifier: MIT
/*
 * tests/events/disabled_unit.c - every call of the API, compiled with
 * -DRINGTRACE_DISABLE (tests/Kbuild): test_events.c checks that nothing of
 * them is left in this object.
 */
#include <ringtrace/ringtrace.h>

void all_calls(void);

void all_calls(void)
{
	struct rtr_config cfg = { .struct_size = sizeof(cfg) };
	uint32_t id;
	uint64_t t;

	rtr_start(&cfg);
	rtr_counter_register("c", &id);
	t = rtr_task_id();
	rtr_switch(t);
	rtr_create(1, t, RTR_KIND_TASK);
	rtr_read(1, 2);
	rtr_try_read(1, 2);
	rtr_resolve(1, 2);
	rtr_fail(1, 2, "reason");
	rtr_becomes(1, 2);
	rtr_signal(1, 2);
	rtr_label(t, "label");
	rtr_should_resolve(t);
	rtr_counter_set(id, 1);
	rtr_counter_add(id, 1);
	rtr_note("%d", 1);
	rtr_pause(1, "gc");
	rtr_named_wait(1, "w");
	rtr_named_condition(1, "c");
	if (rtr_tracing())
		rtr_stop();
}
