// SPDX-License-Identifier: MIT
/*
 * format/classes.c - the task model's event classes, as CTF sees them: the
 * built-in schema.  Their ids and layouts are fixed
 * (include/ringtrace/ringtrace.h, Documentation/ctf.rst): readers of old
 * traces depend on them.  The one copy of their schema: the writer
 * (events/classes.c) emits it, the reader (reader/tsdl.c, reader/model.c)
 * recognises the classes by it.
 */
#include <ringtrace/ringtrace.h>
#include <ringtrace/event.h>
#include "format/classes.h"

#define F(n, t) { n, RTR_CTF_##t, NULL, 0 }

static const struct rtr_ctf_enum_entry kinds[] = {
	{ "wait", 0 }, { "task", 1 }, { "bind", 2 }, { "try", 3 }, { "choose", 4 },
	{ "pick", 5 }, { "join", 6 }, { "map", 7 }, { "condition", 8 },
	{ "on_success", 9 }, { "on_failure", 10 }, { "on_termination", 11 },
	{ "on_any", 12 }, { "ignore_result", 13 }, { "async", 14 }, { "promise", 15 },
	{ "semaphore", 16 }, { "switch", 17 }, { "stream", 18 }, { "mutex", 19 },
	{ "thread", 20 }, { "request", 21 }, { "barrier", 22 }, { "rwlock", 23 },
};

static const struct rtr_ctf_field f_task32[] = { F("task", U32) };
static const struct rtr_ctf_field f_task64[] = { F("task", U64) };
static const struct rtr_ctf_field f_create32[] = {
	F("parent", U32), F("child", U32),
	{ "kind", RTR_CTF_ENUM_U8, kinds, sizeof(kinds) / sizeof(kinds[0]) },
};
static const struct rtr_ctf_field f_create64[] = {
	F("parent", U64), F("child", U64),
	{ "kind", RTR_CTF_ENUM_U8, kinds, sizeof(kinds) / sizeof(kinds[0]) },
};
static const struct rtr_ctf_field f_read32[] = { F("reader", U32), F("input", U32) };
static const struct rtr_ctf_field f_read64[] = { F("reader", U64), F("input", U64) };
static const struct rtr_ctf_field f_resolve32[] = { F("resolver", U32), F("task", U32) };
static const struct rtr_ctf_field f_resolve64[] = { F("resolver", U64), F("task", U64) };
static const struct rtr_ctf_field f_becomes32[] = { F("input", U32), F("main", U32) };
static const struct rtr_ctf_field f_becomes64[] = { F("input", U64), F("main", U64) };
static const struct rtr_ctf_field f_signal32[] = { F("sender", U32), F("receiver", U32) };
static const struct rtr_ctf_field f_signal64[] = { F("sender", U64), F("receiver", U64) };
static const struct rtr_ctf_field f_fail[] = {
	F("resolver", U64), F("task", U64), F("reason", STRING),
};
static const struct rtr_ctf_field f_label[] = { F("task", U64), F("text", STRING) };
static const struct rtr_ctf_field f_note[] = { F("text", STRING) };
static const struct rtr_ctf_field f_pause[] = { F("duration_ns", U64), F("reason", STRING) };
/* The ring's thread record (ringtrace/region.h): the thread of the records after it. */
static const struct rtr_ctf_field f_thread[] = { F("pid", U32), F("tid", U32) };
/* The counter names come from the registry (rtr_events_write_metadata()). */
static const struct rtr_ctf_field f_counter[] = { F("counter", ENUM_U32), F("value", S64) };

#define N(a) (uint32_t)(sizeof(a) / sizeof((a)[0]))

_Static_assert(RTR_EV_THREAD + 1 == RTR_EV_BUILTIN_COUNT, "the thread class is the last built-in");

static const struct rtr_ctf_event builtin[RTR_EV_BUILTIN_COUNT] = {
	[RTR_EV_SWITCH] = { "switch", RTR_EV_SWITCH, f_task32, 1 },
	[RTR_EV_CREATE] = { "create", RTR_EV_CREATE, f_create32, 3 },
	[RTR_EV_READ] = { "read", RTR_EV_READ, f_read32, 2 },
	[RTR_EV_TRY_READ] = { "try_read", RTR_EV_TRY_READ, f_read32, 2 },
	[RTR_EV_RESOLVE] = { "resolve", RTR_EV_RESOLVE, f_resolve32, 2 },
	[RTR_EV_BECOMES] = { "becomes", RTR_EV_BECOMES, f_becomes32, 2 },
	[RTR_EV_SIGNAL] = { "signal", RTR_EV_SIGNAL, f_signal32, 2 },
	[RTR_EV_SHOULD_RESOLVE] = { "should_resolve", RTR_EV_SHOULD_RESOLVE, f_task32, 1 },
	[RTR_EV_COUNTER] = { "counter", RTR_EV_COUNTER, f_counter, 2 },
	[RTR_EV_SWITCH64] = { "switch64", RTR_EV_SWITCH64, f_task64, 1 },
	[RTR_EV_CREATE64] = { "create64", RTR_EV_CREATE64, f_create64, 3 },
	[RTR_EV_READ64] = { "read64", RTR_EV_READ64, f_read64, 2 },
	[RTR_EV_TRY_READ64] = { "try_read64", RTR_EV_TRY_READ64, f_read64, 2 },
	[RTR_EV_RESOLVE64] = { "resolve64", RTR_EV_RESOLVE64, f_resolve64, 2 },
	[RTR_EV_BECOMES64] = { "becomes64", RTR_EV_BECOMES64, f_becomes64, 2 },
	[RTR_EV_SIGNAL64] = { "signal64", RTR_EV_SIGNAL64, f_signal64, 2 },
	[RTR_EV_SHOULD_RESOLVE64] = { "should_resolve64", RTR_EV_SHOULD_RESOLVE64, f_task64, 1 },
	[RTR_EV_FAIL] = { "fail", RTR_EV_FAIL, f_fail, N(f_fail) },
	[RTR_EV_LABEL] = { "label", RTR_EV_LABEL, f_label, N(f_label) },
	[RTR_EV_NOTE] = { "note", RTR_EV_NOTE, f_note, N(f_note) },
	[RTR_EV_PAUSE] = { "pause", RTR_EV_PAUSE, f_pause, N(f_pause) },
	[RTR_EV_THREAD] = { "thread", RTR_EV_THREAD, f_thread, N(f_thread) },
};

const struct rtr_ctf_event *rtr_event_builtin(uint32_t id)
{
	return id < RTR_EV_BUILTIN_COUNT ? &builtin[id] : NULL;
}

/*
 * The kernel's events (record --sched, consumer/kernel.c): what perf
 * reports about the traced threads, in streams of their own.
 */
static const struct rtr_ctf_enum_entry switch_why[] = {
	{ "in", RTR_KSWITCH_IN }, { "blocked", RTR_KSWITCH_BLOCKED },
	{ "preempted", RTR_KSWITCH_PREEMPTED },
};
static const struct rtr_ctf_enum_entry comm_how[] = {
	{ "rename", 0 }, { "exec", 1 },
};
static const struct rtr_ctf_field f_kswitch[] = {
	F("pid", U32), F("tid", U32), { "what", RTR_CTF_ENUM_U8, switch_why, N(switch_why) },
};
static const struct rtr_ctf_field f_kfork[] = {
	F("parent_pid", U32), F("parent_tid", U32), F("pid", U32), F("tid", U32),
	F("comm", STRING),
};
static const struct rtr_ctf_field f_kexit[] = { F("pid", U32), F("tid", U32) };
static const struct rtr_ctf_field f_kcomm[] = {
	F("pid", U32), F("tid", U32), { "how", RTR_CTF_ENUM_U8, comm_how, N(comm_how) },
	F("comm", STRING),
};
static const struct rtr_ctf_field f_kmmap[] = {
	F("pid", U32), F("tid", U32), F("start", U64), F("len", U64), F("pgoff", U64),
	F("build_id", STRING), F("filename", STRING),
};

static const struct rtr_ctf_field f_ksample[] = {
	F("pid", U32), F("tid", U32), F("stack", BYTES),
};

static const struct rtr_ctf_event kernel[RTR_KEV_COUNT] = {
	{ "kernel:switch", RTR_KEV_ID_BASE + RTR_KEV_SWITCH, f_kswitch, N(f_kswitch) },
	{ "kernel:fork", RTR_KEV_ID_BASE + RTR_KEV_FORK, f_kfork, N(f_kfork) },
	{ "kernel:exit", RTR_KEV_ID_BASE + RTR_KEV_EXIT, f_kexit, N(f_kexit) },
	{ "kernel:comm", RTR_KEV_ID_BASE + RTR_KEV_COMM, f_kcomm, N(f_kcomm) },
	{ "kernel:mmap", RTR_KEV_ID_BASE + RTR_KEV_MMAP, f_kmmap, N(f_kmmap) },
	{ "kernel:sample", RTR_KEV_ID_BASE + RTR_KEV_SAMPLE, f_ksample, N(f_ksample) },
};

static const struct rtr_ctf_field f_phold[] = { F("lock", U64), F("held_ns", U64) };
static const struct rtr_ctf_event phold = { "pthread:hold", 0, f_phold, N(f_phold) };

const struct rtr_ctf_event *rtr_event_pthread_hold(void)
{
	return &phold;
}

const struct rtr_ctf_event *rtr_event_kernel(uint32_t k)
{
	return k < RTR_KEV_COUNT ? &kernel[k] : NULL;
}
