// SPDX-License-Identifier: MIT
/*
 * tests/headers/use_api.c - a traced program that includes every public
 * header and calls the traced program's API: tasks, counters, a note and
 * typed events of every field type, their fields named out of order (and
 * in C++, an event of a namespace emitted from a template's lambda).
 * tests/headers/run.sh compiles it as C and as C++ in every standard and
 * with gcc and clang, so that each inline emitter is compiled, not only
 * declared; runs it under RINGTRACE_PATH; and reads the trace back.
 *
 *   use_api MODE     traces MODE (a string field) and prints "traced 1"
 */
#include <stdio.h>
#include <ringtrace/ringtrace.h>
#include <ringtrace/event.h>
#include <ringtrace/region.h>
#include <ringtrace/consumer.h>
#include <ringtrace/xen.h>

RTR_ENUM(hdr_color, "red", "green", "blue");
#define HDR_ALL(F) F(u8, a) F(u16, b) F(u32, c) F(u64, d) F(s8, e) F(s16, f) F(s32, g)	\
	F(s64, h) F(f64, x) F(string, s) F(bytes, body) F(enum, color, hdr_color)
RTR_EVENT_DECLARE(hdr, all, HDR_ALL)
RTR_EVENT_DEFINE(hdr, all, HDR_ALL)

#define HDR_ONE(F) F(u64, id)
RTR_EVENT_DECLARE(hdr, one, HDR_ONE)
RTR_EVENT_DEFINE(hdr, one, HDR_ONE)

/* In C++: an event declared in a namespace, emitted from a template and a lambda. */
#define HDR_TWICE(F) F(u32, v)
#ifdef __cplusplus
namespace hdr_ns {
RTR_EVENT_DECLARE(hdr, twice, HDR_TWICE)
RTR_EVENT_DEFINE(hdr, twice, HDR_TWICE)

template <typename T> void trace_twice(T v)
{
	auto emit = [&](T x) { RTR_TRACE(hdr, twice, .v = (uint32_t)x); };

	emit(v);
	emit(v + 1);
}
} // namespace hdr_ns
using hdr_ns::trace_twice;
#else
RTR_EVENT_DECLARE(hdr, twice, HDR_TWICE)
RTR_EVENT_DEFINE(hdr, twice, HDR_TWICE)

static void trace_twice(int v)
{
	RTR_TRACE(hdr, twice, .v = (uint32_t)v);
	RTR_TRACE(hdr, twice, .v = (uint32_t)v + 1);
}
#endif

#ifdef __cplusplus
#define HDR_LANG "c++"
#define HDR_STD ((long)__cplusplus)
#else
#define HDR_LANG "c"
#define HDR_STD ((long)__STDC_VERSION__)
#endif

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "none";
	uint64_t parent = rtr_task_id(), child = rtr_task_id(), wait;
	uint32_t counter;

	rtr_switch(parent);
	rtr_create(parent, child, RTR_KIND_TASK);
	rtr_label(child, mode);
	wait = rtr_named_wait(parent, "wait");
	rtr_try_read(parent, wait);
	rtr_resolve(child, wait);
	rtr_read(parent, wait);
	rtr_signal(child, parent);
	rtr_becomes(child, parent);
	rtr_should_resolve(child);
	rtr_fail(child, rtr_named_condition(parent, "cond"), "reason");
	rtr_pause(1000, "pause");
	if (rtr_counter_register("hdr counter", &counter) == 0) {
		rtr_counter_set(counter, 40);
		rtr_counter_add(counter, 2);
	}
	rtr_note("%s %ld", HDR_LANG, HDR_STD);

	/* Every field, out of declaration order; the string is not a constant. */
	RTR_TRACE(hdr, all, .s = mode, .color = 2, .body = RTR_BYTES("xyz", 3), .x = 1.5,
		  .h = -8, .g = -7, .f = -6, .e = -5, .d = 4, .c = 3, .b = 2, .a = 1);
	/* Fields left out are 0, NULL or empty. */
	RTR_TRACE(hdr, all, .c = 33);
	/* A string field from an array shorter than RTR_TEXT_MAX: no -Wstringop-overread. */
	{
		char small[16];

		snprintf(small, sizeof(small), "%s", mode);
		RTR_TRACE(hdr, all, .s = small);
	}
	RTR_TRACE(hdr, one, .id = (uint64_t)argc);
	rtr_event_enable("hdr:one", false);
	RTR_TRACE(hdr, one, .id = 999);		/* off: not recorded */
	trace_twice(5);
	rtr_switch(0);
	printf("traced %d\n", (int)rtr_tracing());
	return 0;
}
