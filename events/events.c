// SPDX-License-Identifier: MIT
/*
 * events/events.c - the traced program's side: start and stop (from code or
 * from RINGTRACE_* variables at load), the out-of-line halves of the task
 * model's emitters, task ids, counters and the registry.
 *
 * The registry is the part of the trace that is not in any packet: the
 * names of counters (and, later, typed event classes).  It lives in the
 * region's metadata area as lines of text, appended under a mutex, so that a
 * consumer or `ringtrace convert` finds every name even after the packets
 * that used it were overwritten, and even if this process died.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fnmatch.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <ringtrace/ringtrace.h>
#include <ringtrace/event.h>
#include "events/registry.h"
#include "ringbuf/ring.h"
#include "format/error.h"

RTR_API int rtr_on;
RTR_API struct rtr_ring *_Atomic rtr_slot;

#define COUNTERS_MAX 4096
#define TASK_ID_BATCH 1024

static pthread_mutex_t control = PTHREAD_MUTEX_INITIALIZER;
static struct rtr_ring *ring;		/* the started ring, under @control */
static bool follow_forks = true;	/* under @control */
static uint64_t next_task_block = 1;	/* while no region gives ids */
static __thread uint64_t task_next __attribute__((tls_model("initial-exec")));
static __thread uint64_t task_end __attribute__((tls_model("initial-exec")));

/*
 * Typed event classes, in registration order; ids from RTR_REGISTRY_FIRST_ID,
 * right after the built-in ones, so that the first nine (22..30) take the
 * compact record header and the fast path.
 */
_Static_assert(RTR_REGISTRY_FIRST_ID == RTR_EV_BUILTIN_COUNT, "typed ids follow the task model's");
_Static_assert(RTR_EV_THREAD == RTR_EV_THREAD_ID, "the ring's thread record is the built-in class");
static struct rtr_event_class *classes;
static uint32_t next_class_id = RTR_REGISTRY_FIRST_ID;

/*
 * Counters: names kept here (to re-register into a new region) and values,
 * by the id rtr_counter_register() gave; @counter_rid is the id the region
 * knows it by (region-wide, since forked children register into it too).
 */
static char *counter_names[COUNTERS_MAX];
static int64_t counter_values[COUNTERS_MAX];
static uint32_t counter_rid[COUNTERS_MAX];
static uint32_t ncounters;

RTR_API int rtr_emit(uint32_t id, const void *payload, uint32_t len)
{
	return rtr_ring_write(&rtr_slot, id, payload, len);
}

/*
 * The task model's payloads have fixed sizes: with a constant length the
 * ring's fast path unrolls the copy and needs fewer registers.
 */
#define EMIT_FIXED(n)								\
	RTR_API int rtr_emit##n(uint32_t id, const void *payload)		\
	{									\
		return rtr_ring_write(&rtr_slot, id, payload, n);		\
	}
EMIT_FIXED(4)
EMIT_FIXED(8)
EMIT_FIXED(9)
EMIT_FIXED(12)
EMIT_FIXED(16)
EMIT_FIXED(17)

/*
 * rtr_emit_text() - @nids 64-bit ids (@a, then @b) and a NUL-terminated text
 * cut at RTR_TEXT_MAX bytes.  The buffer is 8-byte padded for the ring.
 */
RTR_API int rtr_emit_text(uint32_t id, uint64_t a, uint64_t b, int nids, const char *text)
{
	uint64_t buf[(16 + RTR_TEXT_MAX + 1 + 7) / 8];
	uint8_t *p = (uint8_t *)buf;
	size_t n = text ? strnlen(text, RTR_TEXT_MAX) : 0;

	memcpy(p, &a, 8);
	memcpy(p + 8, &b, 8);
	p += 8 * (size_t)nids;
	if (n)
		memcpy(p, text, n);
	p[n] = 0;
	return rtr_emit(id, buf, (uint32_t)(8 * (size_t)nids + n + 1));
}

RTR_API void rtr_note(const char *fmt, ...)
{
	char text[RTR_TEXT_MAX + 1];
	va_list ap;

	if (!rtr_on)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	rtr_emit_text(RTR_EV_NOTE, 0, 0, 0, text);
}

/*
 * A block of TASK_ID_BATCH ids: from the region while tracing, so that the
 * processes writing into it (forked children) never share an id, else from
 * this process's counter.  rtr_stop() waits until no thread is here
 * (@task_users) before it unmaps the region: Dekker, with the slot emptied
 * before the wait.  No lock and no RCU read lock: the pthread preload asks
 * for task ids inside its wrappers, and urcu-bp's first read lock in a
 * thread takes a mutex, which the preload would see and trace, asking for
 * an id again.
 */
static unsigned long task_users;

static uint64_t task_block(void)
{
	struct rtr_ring *r;
	uint64_t b;

	__atomic_add_fetch(&task_users, 1, __ATOMIC_SEQ_CST);
	r = __atomic_load_n(&rtr_slot, __ATOMIC_SEQ_CST);
	if (r)
		b = __atomic_fetch_add(&r->hdr->next_task, TASK_ID_BATCH, __ATOMIC_RELAXED);
	else
		b = __atomic_fetch_add(&next_task_block, TASK_ID_BATCH, __ATOMIC_RELAXED);
	__atomic_sub_fetch(&task_users, 1, __ATOMIC_RELEASE);
	return b;
}

/*
 * rtr_task_id() - a unique task id, never 0, in the trace (every process
 * writing into the region) and in the process.  Each thread takes blocks
 * of 1024 from a counter: one atomic add per 1024 ids, and ids stay small,
 * so records use the 32-bit forms for the first 4 billion tasks.
 */
RTR_API uint64_t rtr_task_id(void)
{
	if (__builtin_expect(task_next == task_end, 0)) {
		task_next = task_block();
		task_end = task_next + TASK_ID_BATCH;
	}
	return task_next++;
}

RTR_API void rtr_counter_set(uint32_t id, int64_t value)
{
	struct {
		uint32_t id;
		int64_t value;
	} __attribute__((packed)) p = { id, value };
	uint64_t buf[2];

	if (id >= COUNTERS_MAX)
		return;
	__atomic_store_n(&counter_values[id], value, __ATOMIC_RELAXED);
	if (!rtr_on)
		return;
	p.id = __atomic_load_n(&counter_rid[id], __ATOMIC_RELAXED);
	memcpy(buf, &p, sizeof(p));
	rtr_emit12(RTR_EV_COUNTER, buf);
}

RTR_API void rtr_counter_add(uint32_t id, int64_t delta)
{
	if (id >= COUNTERS_MAX)
		return;
	rtr_counter_set(id, __atomic_add_fetch(&counter_values[id], delta, __ATOMIC_RELAXED));
}

/*
 * rtr_counter_register() - a counter called @name (printable ASCII, 1..200
 * bytes, no newline); the same name gives the same id.
 * Return: 0; -EINVAL for a bad name; -ENOSPC past COUNTERS_MAX counters or
 * when the region's metadata area is full.
 */
RTR_API int rtr_counter_register(const char *name, uint32_t *id)
{
	int ret = 0;

	if (!rtr_registry_name_ok(name))
		return -EINVAL;
	pthread_mutex_lock(&control);
	for (uint32_t i = 0; i < ncounters; i++) {
		if (!strcmp(counter_names[i], name)) {
			*id = i;
			goto out;
		}
	}
	if (ncounters == COUNTERS_MAX) {
		ret = -ENOSPC;
		goto out;
	}
	counter_names[ncounters] = strdup(name);
	if (!counter_names[ncounters]) {
		ret = -ENOMEM;
		goto out;
	}
	counter_rid[ncounters] = ncounters;
	if (ring) {
		/* Ids are the region's: other processes register into it too. */
		rtr_region_lock(ring->hdr);
		ret = rtr_registry_counter_id(ring->hdr, name, &counter_rid[ncounters]);
		rtr_region_unlock(ring->hdr);
	}
	if (ret) {
		free(counter_names[ncounters]);
		goto out;
	}
	*id = ncounters++;
out:
	pthread_mutex_unlock(&control);
	return ret;
}

/* "a|b|c" from an enum field's labels, or NULL; -EINVAL for a bad label. */
static int join_labels(const struct rtr_field_desc *d, char **out)
{
	size_t len = 0, o = 0;
	char *s;

	*out = NULL;
	if (d->type != RTR_FT_enum)
		return d->labels ? -EINVAL : 0;
	if (!d->labels || d->nlabels == 0 || d->nlabels > RTR_REGISTRY_LABELS)
		return -EINVAL;
	for (uint32_t i = 0; i < d->nlabels; i++) {
		if (!rtr_registry_ident_ok(d->labels[i]))
			return -EINVAL;
		len += strlen(d->labels[i]) + 1;
	}
	s = malloc(len);
	if (!s)
		return -ENOMEM;
	for (uint32_t i = 0; i < d->nlabels; i++)
		o += (size_t)sprintf(s + o, "%s%s", i ? "|" : "", d->labels[i]);
	*out = s;
	return 0;
}

/*
 * Describe @c in @r's registry: with its own id (a region this process
 * created), or (@region_id) with the id the region gives it, under the
 * region's lock: the id of the same class another process registered, or
 * a new one.
 */
static int registry_add_class(struct rtr_ring *r, struct rtr_event_class *c, bool region_id)
{
	struct rtr_reg_field f[RTR_REGISTRY_FIELDS];
	int ret = 0;

	if (c->nfields > RTR_REGISTRY_FIELDS)
		return -EINVAL;
	memset(f, 0, sizeof(f));
	for (uint32_t i = 0; i < c->nfields && !ret; i++) {
		snprintf(f[i].name, sizeof(f[i].name), "%s", c->fields[i].name);
		f[i].type = c->fields[i].type;
		ret = join_labels(&c->fields[i], &f[i].labels);
	}
	if (!ret && region_id)
		ret = rtr_registry_event_id(r->hdr, c->provider, c->name, f, c->nfields, &c->id);
	else if (!ret)
		ret = rtr_registry_add_event(r->hdr, c->id, c->provider, c->name, f, c->nfields);
	for (uint32_t i = 0; i < c->nfields; i++)
		free(f[i].labels);
	if (!ret && c->id >= next_class_id)
		next_class_id = c->id + 1;
	return ret;
}

/* Under @control: make each class's inline flag follow tracing and its switch. */
static void update_classes(void)
{
	for (struct rtr_event_class *c = classes; c; c = c->next)
		__atomic_store_n(&c->on, rtr_on && c->enabled, __ATOMIC_RELEASE);
}

/**
 * rtr_event_register() - make a typed event known (RTR_EVENT_DEFINE() calls
 * it at load): give it an id, describe it in the region's registry, and
 * turn it on if tracing.  Registering twice is harmless.
 * Return: 0; -EINVAL for names that are not identifiers or a bad field;
 * -EPROTO for a class of a layout this library does not know (@version 0,
 * or a program built with a newer <ringtrace/event.h>); -ENOSPC when the
 * registry is full.
 */
RTR_API int rtr_event_register(struct rtr_event_class *cls)
{
	int ret = 0;

	if (cls->version == 0 || cls->version > RTR_EVENT_CLASS_VERSION)
		return -EPROTO;
	if (!rtr_registry_ident_ok(cls->provider) || !rtr_registry_ident_ok(cls->name) ||
	    cls->nfields > RTR_REGISTRY_FIELDS)
		return -EINVAL;
	for (uint32_t i = 0; i < cls->nfields; i++) {
		char *labels;

		if (!rtr_registry_ident_ok(cls->fields[i].name) ||
		    join_labels(&cls->fields[i], &labels))
			return -EINVAL;
		free(labels);
	}
	pthread_mutex_lock(&control);
	for (struct rtr_event_class *c = classes; c; c = c->next) {
		if (c == cls)
			goto out;
	}
	if (ring) {
		/* Ids are the region's: other processes register into it too. */
		rtr_region_lock(ring->hdr);
		ret = registry_add_class(ring, cls, true);
		rtr_region_unlock(ring->hdr);
		if (ret)
			goto out;
	} else {
		cls->id = next_class_id++;
	}
	cls->next = classes;
	classes = cls;
	update_classes();
out:
	pthread_mutex_unlock(&control);
	return ret;
}

/**
 * rtr_event_enable() - switch the typed events whose "provider:name"
 * matches @glob (fnmatch(3): "myapp:*", "*:request") on or off.
 * Return: how many events matched.
 */
RTR_API int rtr_event_enable(const char *glob, bool enable)
{
	char full[160];
	int n = 0;

	pthread_mutex_lock(&control);
	for (struct rtr_event_class *c = classes; c; c = c->next) {
		snprintf(full, sizeof(full), "%s:%s", c->provider, c->name);
		if (fnmatch(glob, full, 0) == 0) {
			c->enabled = enable;
			n++;
		}
	}
	update_classes();
	pthread_mutex_unlock(&control);
	return n;
}

RTR_API bool rtr_tracing(void)
{
	return __atomic_load_n(&rtr_on, __ATOMIC_RELAXED) != 0;
}

RTR_API const char *rtr_region_path(void)
{
	const char *p;

	pthread_mutex_lock(&control);
	p = ring ? ring->path : NULL;
	pthread_mutex_unlock(&control);
	return p;
}

/*
 * fork(): @control is held across it, so that the child finds it free and
 * the region's state consistent.  The child (its only thread is the one
 * that forked) follows: it writes on into the same region, an entry of its
 * own in the region's @procs, fresh task ids (the forking thread's block
 * is the parent's too); or, not following, it stops tracing at once and is
 * counted as untraced.  Registered at load, after urcu-bp's handlers
 * (ring.c), so that its prepare runs first and its child handler after
 * urcu-bp's, and before those of any library loaded after libringtrace
 * (the pthread preload's child handler takes a task id: a fresh one).
 */

static void fork_prepare(void)
{
	pthread_mutex_lock(&control);
	if (ring)
		rtr_ring_fork_prepare(ring, follow_forks);
}

static void fork_parent(void)
{
	if (ring)
		rtr_ring_fork_parent(ring);
	pthread_mutex_unlock(&control);
}

/* An untraced fork child's ring, kept: see fork_child(). */
static struct rtr_ring *volatile forsaken;

static void fork_child(void)
{
	task_next = 0;
	task_end = 0;
	if (ring && rtr_ring_forked(ring, follow_forks)) {
		/*
		 * Not traced: no writer remains (this is the only thread), so
		 * no grace period is needed.  The ring and its mapping stay
		 * (freeing is not async-signal-safe), never used again: kept
		 * in @forsaken, not lost (LeakSanitizer said so at every such
		 * child's exit).
		 */
		forsaken = ring;
		__atomic_store_n(&rtr_on, 0, __ATOMIC_RELEASE);
		__atomic_store_n(&rtr_slot, NULL, __ATOMIC_RELEASE);
		ring = NULL;
		update_classes();
	}
	pthread_mutex_unlock(&control);
}

static void atfork_register(void)
{
	rtr_ring_atfork_init();
	pthread_atfork(fork_prepare, fork_parent, fork_child);
}

/* Why the last rtr_start() failed, when the platform said more than an errno. */
static char start_err[256];

/*
 * Weak: a program linked statically with libringtrace.a takes the Xen
 * region, and the dlopen() of Xen's libraries behind it (with glibc's
 * warning about dlopen in static programs), only when it asks for it at
 * link time (-Wl,--undefined=rtr_xen_region_create: README, install.rst).
 * libringtrace.so always has it.
 */
#pragma weak rtr_xen_region_create

/*
 * Create a region and trace into it; or (@join) trace into the running one
 * at @cfg->path, another process's of the same trace (rtr_ring_join()),
 * with the ids it gives this process's counters and classes.
 */
static int start(const struct rtr_config *cfg, bool join)
{
	/* Thread records: every event is attributed to its thread and process. */
	struct rtr_ring_attr attr = { .struct_size = sizeof(attr), .mode = RTR_MODE_DISCARD,
				      .flags = RTR_RING_THREADS,
				      .err = start_err, .errlen = sizeof(start_err) };
	struct rtr_ring *r;
	int ret;

	if (cfg) {
		if (cfg->struct_size < offsetof(struct rtr_config, flags))
			return -EINVAL;
		attr.path = cfg->path;
		if (cfg->mode)
			attr.mode = cfg->mode;
		attr.packet_size = cfg->packet_size;
		attr.packets_per_cpu = cfg->packets_per_cpu;
		if (cfg->struct_size >= offsetof(struct rtr_config, flags) + sizeof(cfg->flags) &&
		    (cfg->flags & RTR_CONFIG_XEN)) {
			if (!rtr_xen_region_create) {
				return rtr_errf(
					start_err, sizeof(start_err), ENOSYS,
					"this program was linked statically without Xen: link it "
					"with -Wl,--undefined=rtr_xen_region_create");
			}
			attr.create = rtr_xen_region_create;
		}
		if (cfg->struct_size >= sizeof(*cfg))
			attr.blocking_timeout_us = cfg->blocking_timeout_us;
	}
	pthread_mutex_lock(&control);
	if (ring) {
		ret = -EALREADY;
		goto out;
	}
	if (join) {
		ret = rtr_ring_join(&r, &attr);
		if (ret)
			goto out;
		rtr_region_lock(r->hdr);
		for (uint32_t i = 0; i < ncounters && !ret; i++)
			ret = rtr_registry_counter_id(r->hdr, counter_names[i], &counter_rid[i]);
		for (struct rtr_event_class *c = classes; c && !ret; c = c->next)
			ret = registry_add_class(r, c, true);
		rtr_region_unlock(r->hdr);
		if (ret) {
			/* Out of the region's list: the ring is no writer's any more. */
			rtr_ring_stop(r);
			rtr_ring_destroy(r, false);
			goto out;
		}
	} else {
		ret = rtr_ring_create(&r, &attr);
		if (ret)
			goto out;
		/* The region hands out the ids from here on: after ours. */
		r->hdr->next_task = __atomic_load_n(&next_task_block, __ATOMIC_RELAXED);
		r->hdr->next_counter = ncounters;
		r->hdr->next_class = next_class_id;
		for (uint32_t i = 0; i < ncounters && !ret; i++) {
			counter_rid[i] = i;
			ret = rtr_registry_add_counter(r->hdr, i, counter_names[i]);
		}
		for (struct rtr_event_class *c = classes; c && !ret; c = c->next)
			ret = registry_add_class(r, c, false);
		if (!ret)
			ret = rtr_ring_start_flusher(r);
		if (ret) {
			rtr_ring_destroy(r, true);
			goto out;
		}
	}
	ring = r;
	follow_forks = !(cfg && cfg->struct_size >= offsetof(struct rtr_config, flags) +
			 sizeof(cfg->flags) && (cfg->flags & RTR_CONFIG_NO_FOLLOW_FORKS));
	__atomic_store_n(&rtr_slot, r, __ATOMIC_RELEASE);
	__atomic_store_n(&rtr_on, 1, __ATOMIC_RELEASE);
	update_classes();
out:
	pthread_mutex_unlock(&control);
	return ret;
}

/**
 * rtr_start() - create a region and start tracing into it.
 * Return: 0; -EALREADY if tracing; -EINVAL for a bad config; -errno from
 * creating the region (-EEXIST: the file exists, -ENOSPC: no room).
 */
RTR_API int rtr_start(const struct rtr_config *cfg)
{
	return start(cfg, false);
}

/**
 * rtr_stop() - stop tracing: writers see tracing off, every event written
 * is in a closed packet, the region is marked stopped and left in place
 * (the consumer, or `ringtrace convert`, reads it).  Safe while other
 * threads trace.  Return: 0; -ENODEV if not tracing; -errno from the ring.
 */
RTR_API int rtr_stop(void)
{
	int ret;

	pthread_mutex_lock(&control);
	if (!ring) {
		ret = -ENODEV;
		goto out;
	}
	__atomic_store_n(&rtr_on, 0, __ATOMIC_RELEASE);
	update_classes();
	ret = rtr_ring_detach(&rtr_slot);
	if (ret)
		goto out;	/* the ring cannot be freed safely: keep it */
	while (__atomic_load_n(&task_users, __ATOMIC_SEQ_CST))
		sched_yield();	/* a task_block() that saw the ring */
	/* Later ids (untraced) stay clear of those the region gave this process. */
	{
		uint64_t rt = __atomic_load_n(&ring->hdr->next_task, __ATOMIC_RELAXED);

		if (rt > __atomic_load_n(&next_task_block, __ATOMIC_RELAXED))
			__atomic_store_n(&next_task_block, rt, __ATOMIC_RELAXED);
	}
	ret = rtr_ring_stop(ring);
	rtr_ring_destroy(ring, false);
	ring = NULL;
out:
	pthread_mutex_unlock(&control);
	return ret;
}

static uint32_t env_u32(const char *name, uint32_t def)
{
	const char *s = getenv(name);
	char *end;
	unsigned long v;

	if (!s || !*s)
		return def;
	v = strtoul(s, &end, 0);
	if (*end == 'k' || *end == 'K')
		v <<= 10, end++;
	else if (*end == 'm' || *end == 'M')
		v <<= 20, end++;
	if (*end || v > 0xffffffffUL) {
		fprintf(stderr, "ringtrace: %s=%s is not a number; using %u\n", name, s, def);
		return def;
	}
	return (uint32_t)v;
}

/* Is another libringtrace loaded in this process (a static copy here, the shared one there)? */
static bool another_copy(void)
{
	void *other = dlsym(RTLD_DEFAULT, "rtr_start");
	int (*mine)(const struct rtr_config *) = rtr_start;
	void *self;

	memcpy(&self, &mine, sizeof(self));
	return other && other != self;
}

static void stop_at_exit(void)
{
	rtr_stop();
}

/*
 * At load: the fork handlers, traced or not (a program may start tracing
 * later, from any thread).  RINGTRACE=1 (or RINGTRACE_PATH) starts
 * tracing, so that `ringtrace record` drives any linked program without
 * code changes.
 *   RINGTRACE_PATH         region file (default /dev/shm/ringtrace-PID-RANDOM)
 *   RINGTRACE_MODE         discard (default) or overwrite
 *   RINGTRACE_PACKET_SIZE  bytes, power of two (k/M suffixes)
 *   RINGTRACE_PACKETS      packets per CPU, power of two
 *   RINGTRACE_XEN=1        in a Xen guest: the region in pages granted to
 *                          dom0 (RTR_CONFIG_XEN), and tracing starts
 *   RINGTRACE_BLOCKING_TIMEOUT  microseconds a writer waits for room (discard
 *                          mode; "inf": no limit; default 0, never)
 *   RINGTRACE_FOLLOW_FORKS=0  forked children do not trace (default 1: they
 *                          write into the same region)
 * Problems are reported on stderr once; the program runs on untraced.
 */
__attribute__((constructor)) static void start_from_env(void)
{
	const char *on = getenv("RINGTRACE"), *path = getenv("RINGTRACE_PATH");
	const char *mode = getenv("RINGTRACE_MODE"), *xen = getenv("RINGTRACE_XEN");
	struct rtr_config cfg = { .struct_size = sizeof(cfg) };
	char defpath[64];
	int ret;

	atfork_register();
	if (xen && *xen && strcmp(xen, "0"))
		cfg.flags |= RTR_CONFIG_XEN;
	if (!(on && *on && strcmp(on, "0")) && !(path && *path) && !cfg.flags)
		return;
	cfg.path = path && *path ? path : NULL;
	/* Ours, so that a failure names it. */
	if (!cfg.path && rtr_ring_default_path(defpath, sizeof(defpath)) == 0)
		cfg.path = defpath;
	cfg.mode = RTR_MODE_DISCARD;
	if (mode && !strcmp(mode, "overwrite"))
		cfg.mode = RTR_MODE_OVERWRITE;
	else if (mode && *mode && strcmp(mode, "discard"))
		fprintf(stderr, "ringtrace: RINGTRACE_MODE=%s: use discard or overwrite; using discard\n",
			mode);
	{
		const char *f = getenv("RINGTRACE_FOLLOW_FORKS");

		if (f && !strcmp(f, "0"))
			cfg.flags |= RTR_CONFIG_NO_FOLLOW_FORKS;
		else if (f && *f && strcmp(f, "1"))
			fprintf(stderr, "ringtrace: RINGTRACE_FOLLOW_FORKS=%s: use 0 or 1; following "
				"forks\n", f);
	}
	cfg.packet_size = env_u32("RINGTRACE_PACKET_SIZE", 0);
	cfg.packets_per_cpu = env_u32("RINGTRACE_PACKETS", 0);
	{
		const char *b = getenv("RINGTRACE_BLOCKING_TIMEOUT");
		char *end;

		if (b && !strcmp(b, "inf")) {
			cfg.blocking_timeout_us = RTR_BLOCK_FOREVER;
		} else if (b && *b) {
			long long v = strtoll(b, &end, 10);

			if (*end || v < 0)
				fprintf(stderr, "ringtrace: RINGTRACE_BLOCKING_TIMEOUT=%s: microseconds "
					"or inf; not blocking\n", b);
			else
				cfg.blocking_timeout_us = v;
		}
	}
	ret = rtr_start(&cfg);
	/*
	 * The region is there: a program exec'd by a traced one (under
	 * `ringtrace record`) traces into it as a forked child does, unless
	 * children are not followed, or this process has two copies of us.
	 */
	if (ret == -EEXIST && cfg.path && !(cfg.flags & (RTR_CONFIG_NO_FOLLOW_FORKS |
	    RTR_CONFIG_XEN)) && !another_copy() && start(&cfg, true) == 0) {
		atexit(stop_at_exit);
		return;
	}
	if (ret == -EEXIST && another_copy()) {
		fprintf(stderr, "ringtrace: this program has a copy of libringtrace of its own (linked "
			"statically), and another one traces the process (`record --pthread` preloads it): "
			"the program's own events are not recorded; link it with the shared library "
			"(-lringtrace) to record both\n");
		return;
	}
	if (ret == -EEXIST && cfg.path && rtr_region_taken(cfg.path) == 0) {
		fprintf(stderr, "ringtrace: %s is the region of another process of this trace "
			"(this program was exec'd by a traced one): this one, pid %d, runs untraced\n",
			cfg.path, (int)getpid());
		return;
	}
	if (ret) {
		if (start_err[0])
			fprintf(stderr, "ringtrace: cannot start tracing: %s\n", start_err);
		else
			fprintf(stderr, "ringtrace: cannot start tracing%s%s: %s\n",
				cfg.path ? " into " : "", cfg.path ? cfg.path : "", strerror(-ret));
		return;
	}
	atexit(stop_at_exit);
}
