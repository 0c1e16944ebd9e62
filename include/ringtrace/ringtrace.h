/* SPDX-License-Identifier: MIT */
/*
 * ringtrace/ringtrace.h - what a traced program calls: start and stop, and
 * the task model of mirage-profile (Documentation/events.rst).
 *
 * A *task* is any unit of concurrent work (a promise, a coroutine, a
 * request, a callback chain, a thread) named by a 64-bit id; 0 means "no
 * task" and stands for idle in rtr_switch().  Every call is safe from any
 * thread and from signal handlers; none blocks.  With tracing off a call
 * costs one load and one predictable branch; compiled with
 * -DRINGTRACE_DISABLE every call disappears.
 */
#ifndef RINGTRACE_RINGTRACE_H
#define RINGTRACE_RINGTRACE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <ringtrace/region.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * struct rtr_config - how rtr_start() traces.
 * @struct_size: sizeof(struct rtr_config).
 * @path: region file (NULL: /dev/shm/ringtrace-PID-RANDOM).
 * @mode: RTR_MODE_DISCARD (0 means it too) or RTR_MODE_OVERWRITE (a flight recorder).
 * @packet_size: bytes per packet, power of two (0: 64 KiB).
 * @packets_per_cpu: power of two (0: 8).
 * @flags: RTR_CONFIG_XEN: in a Xen guest, put the region in pages granted to
 *         dom0 and publish them in xenstore, for `ringtrace consume
 *         --xen-domain` (Documentation/xen.rst); @path is then unused.
 *         A program linked statically has it only when linked with
 *         -Wl,--undefined=rtr_xen_region_create, else rtr_start() returns
 *         -ENOSYS (Documentation/install.rst).
 *         A caller built before @flags existed passes a smaller @struct_size.
 *         RTR_CONFIG_NO_FOLLOW_FORKS: a forked child does not trace (it
 *         stops at fork(), and is counted as untraced in the region);
 *         without it, children trace into the same region (Documentation/
 *         events.rst, "Processes and fork").
 * @blocking_timeout_us: discard mode: how long a thread that finds the ring
 *        full waits for the consumer before it drops the event (0: never,
 *        the default; RTR_BLOCK_FOREVER: no limit).  Never in a nested write
 *        (a signal handler interrupting one): that one drops.
 */
struct rtr_config {
	uint32_t struct_size;
	const char *path;
	uint32_t mode;
	uint32_t packet_size;
	uint32_t packets_per_cpu;
	uint32_t flags;
	int64_t blocking_timeout_us;
};
#define RTR_CONFIG_XEN		0x1u
#define RTR_CONFIG_NO_FOLLOW_FORKS 0x2u
#define RTR_BLOCK_FOREVER	(-1)

/* Kinds of task for rtr_create(), as mirage-profile's thread types; extend from 64. */
enum rtr_task_kind {
	RTR_KIND_WAIT = 0, RTR_KIND_TASK = 1, RTR_KIND_BIND = 2, RTR_KIND_TRY = 3,
	RTR_KIND_CHOOSE = 4, RTR_KIND_PICK = 5, RTR_KIND_JOIN = 6, RTR_KIND_MAP = 7,
	RTR_KIND_CONDITION = 8, RTR_KIND_ON_SUCCESS = 9, RTR_KIND_ON_FAILURE = 10,
	RTR_KIND_ON_TERMINATION = 11, RTR_KIND_ON_ANY = 12, RTR_KIND_IGNORE_RESULT = 13,
	RTR_KIND_ASYNC = 14, RTR_KIND_PROMISE = 15, RTR_KIND_SEMAPHORE = 16,
	RTR_KIND_SWITCH = 17, RTR_KIND_STREAM = 18, RTR_KIND_MUTEX = 19,
	RTR_KIND_THREAD = 20, RTR_KIND_REQUEST = 21, RTR_KIND_BARRIER = 22,
	RTR_KIND_RWLOCK = 23,
	RTR_KIND_USER = 64,
};

/* Event ids of the task model: fixed, part of the trace format (Documentation/ctf.rst). */
enum rtr_event_id {
	RTR_EV_SWITCH = 0,	/* u32 task */
	RTR_EV_CREATE,		/* u32 parent, u32 child, u8 kind */
	RTR_EV_READ,		/* u32 reader, u32 input */
	RTR_EV_TRY_READ,	/* u32 reader, u32 input */
	RTR_EV_RESOLVE,		/* u32 resolver, u32 task */
	RTR_EV_BECOMES,		/* u32 input, u32 main */
	RTR_EV_SIGNAL,		/* u32 sender, u32 receiver */
	RTR_EV_SHOULD_RESOLVE,	/* u32 task */
	RTR_EV_COUNTER,		/* u32 counter, s64 value */
	RTR_EV_SWITCH64,	/* the same with u64 task ids, when one does not fit 32 bits */
	RTR_EV_CREATE64,
	RTR_EV_READ64,
	RTR_EV_TRY_READ64,
	RTR_EV_RESOLVE64,
	RTR_EV_BECOMES64,
	RTR_EV_SIGNAL64,
	RTR_EV_SHOULD_RESOLVE64,
	RTR_EV_FAIL,		/* u64 resolver, u64 task, string reason */
	RTR_EV_LABEL,		/* u64 task, string text */
	RTR_EV_NOTE,		/* string text */
	RTR_EV_PAUSE,		/* u64 duration_ns, string reason */
	RTR_EV_THREAD,		/* u32 pid, u32 tid: written by the ring (region.h) */
	RTR_EV_BUILTIN_COUNT,
};

/* Longest text a label, note or reason keeps (longer text is cut, never lost whole). */
#define RTR_TEXT_MAX 255

#ifndef RINGTRACE_DISABLE

int rtr_start(const struct rtr_config *cfg);
int rtr_stop(void);
bool rtr_tracing(void);
const char *rtr_region_path(void);
uint64_t rtr_task_id(void);
int rtr_counter_register(const char *name, uint32_t *id);
void rtr_counter_add(uint32_t id, int64_t delta);
void rtr_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* private: what the inline emitters use */
extern int rtr_on;
int rtr_emit(uint32_t id, const void *payload, uint32_t len);
int rtr_emit4(uint32_t id, const void *payload);	/* fixed sizes: see events.c */
int rtr_emit8(uint32_t id, const void *payload);
int rtr_emit9(uint32_t id, const void *payload);
int rtr_emit12(uint32_t id, const void *payload);
int rtr_emit16(uint32_t id, const void *payload);
int rtr_emit17(uint32_t id, const void *payload);
int rtr_emit_text(uint32_t id, uint64_t a, uint64_t b, int nids, const char *text);
/* public: */

#define rtr_unlikely_(x) __builtin_expect(!!(x), 0)

/*
 * Two ids, in 32 bits each when both fit (12-byte record), else 64 (20).
 * The payload buffer is a multiple of 8 bytes: the ring copies in words.
 */
static inline void rtr_emit_pair_(uint32_t id32, uint32_t id64, uint64_t a, uint64_t b)
{
	if (((a | b) >> 32) == 0) {
		uint32_t p[2] = { (uint32_t)a, (uint32_t)b };

		rtr_emit8(id32, p);
	} else {
		uint64_t p[2] = { a, b };

		rtr_emit16(id64, p);
	}
}

static inline void rtr_emit_one_(uint32_t id32, uint32_t id64, uint64_t a)
{
	if ((a >> 32) == 0) {
		uint64_t p = (uint32_t)a;

		rtr_emit4(id32, &p);
	} else {
		rtr_emit8(id64, &a);
	}
}

/** rtr_switch() - @task now runs on this CPU (0: the CPU goes idle). */
static inline void rtr_switch(uint64_t task)
{
	if (rtr_unlikely_(rtr_on))
		rtr_emit_one_(RTR_EV_SWITCH, RTR_EV_SWITCH64, task);
}

/** rtr_create() - @parent created @child, a task of @kind (enum rtr_task_kind). */
static inline void rtr_create(uint64_t parent, uint64_t child, uint8_t kind)
{
	if (rtr_unlikely_(rtr_on)) {
		if (((parent | child) >> 32) == 0) {
			uint32_t p[4] = { (uint32_t)parent, (uint32_t)child, kind, 0 };

			rtr_emit9(RTR_EV_CREATE, p);
		} else {
			uint64_t p[3] = { parent, child, kind };

			rtr_emit17(RTR_EV_CREATE64, p);
		}
	}
}

/** rtr_read() - @reader took @input's result and runs. */
static inline void rtr_read(uint64_t reader, uint64_t input)
{
	if (rtr_unlikely_(rtr_on))
		rtr_emit_pair_(RTR_EV_READ, RTR_EV_READ64, reader, input);
}

/** rtr_try_read() - @reader looked at @input, which was not ready. */
static inline void rtr_try_read(uint64_t reader, uint64_t input)
{
	if (rtr_unlikely_(rtr_on))
		rtr_emit_pair_(RTR_EV_TRY_READ, RTR_EV_TRY_READ64, reader, input);
}

/** rtr_resolve() - @resolver resolved @task. */
static inline void rtr_resolve(uint64_t resolver, uint64_t task)
{
	if (rtr_unlikely_(rtr_on))
		rtr_emit_pair_(RTR_EV_RESOLVE, RTR_EV_RESOLVE64, resolver, task);
}

/** rtr_becomes() - @input merges into @main (bind simplification). */
static inline void rtr_becomes(uint64_t input, uint64_t main_task)
{
	if (rtr_unlikely_(rtr_on))
		rtr_emit_pair_(RTR_EV_BECOMES, RTR_EV_BECOMES64, input, main_task);
}

/** rtr_signal() - @sender wakes @receiver. */
static inline void rtr_signal(uint64_t sender, uint64_t receiver)
{
	if (rtr_unlikely_(rtr_on))
		rtr_emit_pair_(RTR_EV_SIGNAL, RTR_EV_SIGNAL64, sender, receiver);
}

/** rtr_should_resolve() - hint: @task must finish (drawn red if it never does). */
static inline void rtr_should_resolve(uint64_t task)
{
	if (rtr_unlikely_(rtr_on))
		rtr_emit_one_(RTR_EV_SHOULD_RESOLVE, RTR_EV_SHOULD_RESOLVE64, task);
}

/** rtr_fail() - @resolver failed @task, because of @reason. */
static inline void rtr_fail(uint64_t resolver, uint64_t task, const char *reason)
{
	if (rtr_unlikely_(rtr_on))
		rtr_emit_text(RTR_EV_FAIL, resolver, task, 2, reason);
}

/** rtr_label() - name @task; the text travels with the event (survives overwrite). */
static inline void rtr_label(uint64_t task, const char *text)
{
	if (rtr_unlikely_(rtr_on))
		rtr_emit_text(RTR_EV_LABEL, task, 0, 1, text);
}

/** rtr_pause() - the program stalled @duration_ns (GC, allocator, I/O) because of @reason. */
static inline void rtr_pause(uint64_t duration_ns, const char *reason)
{
	if (rtr_unlikely_(rtr_on))
		rtr_emit_text(RTR_EV_PAUSE, duration_ns, 0, 1, reason);
}

/** rtr_counter_set() - the counter @id (rtr_counter_register()) is now @value. */
void rtr_counter_set(uint32_t id, int64_t value);

/** rtr_named_wait() - a new task of kind wait, labelled @name, created by @parent. */
static inline uint64_t rtr_named_wait(uint64_t parent, const char *name)
{
	uint64_t t = rtr_task_id();

	if (rtr_unlikely_(rtr_on)) {
		rtr_create(parent, t, RTR_KIND_WAIT);
		rtr_label(t, name);
	}
	return t;
}

/** rtr_named_condition() - the same for a condition variable's wait. */
static inline uint64_t rtr_named_condition(uint64_t parent, const char *name)
{
	uint64_t t = rtr_task_id();

	if (rtr_unlikely_(rtr_on)) {
		rtr_create(parent, t, RTR_KIND_CONDITION);
		rtr_label(t, name);
	}
	return t;
}

#else /* RINGTRACE_DISABLE: every call compiles to nothing */

static inline void rtr_switch(uint64_t t) { (void)t; }
static inline void rtr_create(uint64_t p, uint64_t c, uint8_t k) { (void)p; (void)c; (void)k; }
static inline void rtr_read(uint64_t a, uint64_t b) { (void)a; (void)b; }
static inline void rtr_try_read(uint64_t a, uint64_t b) { (void)a; (void)b; }
static inline void rtr_resolve(uint64_t a, uint64_t b) { (void)a; (void)b; }
static inline void rtr_becomes(uint64_t a, uint64_t b) { (void)a; (void)b; }
static inline void rtr_signal(uint64_t a, uint64_t b) { (void)a; (void)b; }
static inline void rtr_should_resolve(uint64_t t) { (void)t; }
static inline void rtr_fail(uint64_t a, uint64_t b, const char *r) { (void)a; (void)b; (void)r; }
static inline void rtr_label(uint64_t t, const char *s) { (void)t; (void)s; }
static inline void rtr_pause(uint64_t d, const char *r) { (void)d; (void)r; }
static inline void rtr_counter_set(uint32_t id, int64_t v) { (void)id; (void)v; }
static inline uint64_t rtr_named_wait(uint64_t p, const char *n) { (void)p; (void)n; return 0; }
static inline uint64_t rtr_named_condition(uint64_t p, const char *n) { (void)p; (void)n; return 0; }
static inline int rtr_start(const struct rtr_config *c) { (void)c; return 0; }
static inline int rtr_stop(void) { return 0; }
static inline bool rtr_tracing(void) { return false; }
static inline const char *rtr_region_path(void) { return (const char *)0; }
static inline uint64_t rtr_task_id(void) { return 0; }
static inline int rtr_counter_register(const char *n, uint32_t *id) { (void)n; *id = 0; return 0; }
static inline void rtr_counter_add(uint32_t id, int64_t d) { (void)id; (void)d; }
static inline __attribute__((format(printf, 1, 2))) void rtr_note(const char *f, ...) { (void)f; }

#endif /* RINGTRACE_DISABLE */

#ifdef __cplusplus
}
#endif
#endif /* RINGTRACE_RINGTRACE_H */
