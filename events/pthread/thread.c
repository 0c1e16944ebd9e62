// SPDX-License-Identifier: MIT
/*
 * events/pthread/thread.c - libringtrace-pthread's threads: each thread a
 * task (kind thread) created by the thread that called pthread_create(),
 * resolved when it ends, read by the thread that joins it; names as labels;
 * the real functions found; fork.  Documentation/pthread.rst; the locking
 * and recursion rules are in preload.h.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "events/pthread/preload.h"

struct rtp_real rtp_real;
struct rtp_range rtp_own[2];
int rtp_resolved;
__thread volatile int rtp_busy __attribute__((tls_model("initial-exec")));
__thread uint64_t rtp_self __attribute__((tls_model("initial-exec")));

/*
 * struct rtp_thread - a thread started through our pthread_create().
 * @task: its task.  @tid: its pthread_t, once known.
 * @ended: it has run its exit (rtp_thread_end()).  @detached: nobody will
 * join it: it frees itself at its end (if it is not in the table).
 * @how: 0 until it ends; RTP_RETURNED or RTP_EXITED, else it was cancelled.
 * Fields after @task are under table_lock.
 */
struct rtp_thread {
	void *(*fn)(void *);
	void *arg;
	uint64_t task;
	pthread_t tid;
	bool ended, detached, in_table;
	int how;
	struct rtp_thread *next;
};

enum { RTP_RETURNED = 1, RTP_EXITED = 2 };

/*
 * The joinable threads by pthread_t, for join, detach and setname of
 * another thread.  A pthread_t is reused once its thread is joined or its
 * detached thread ended, which is when it leaves the table.
 */
#define TABLE_BUCKETS 256
static struct rtp_thread *table[TABLE_BUCKETS];
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t exit_key;
static bool exit_key_ok;
static uint64_t main_task;

static void table_lock_take(void)
{
	rtp()->mutex_lock(&table_lock);
}

static void table_lock_drop(void)
{
	rtp()->mutex_unlock(&table_lock);
}

static unsigned bucket(pthread_t tid)
{
	uint64_t h = (uint64_t)tid * UINT64_C(0x9e3779b97f4a7c15);

	return (unsigned)(h >> 56) % TABLE_BUCKETS;
}

/* Under table_lock. */
static void table_put(struct rtp_thread *t)
{
	unsigned b = bucket(t->tid);

	t->next = table[b];
	table[b] = t;
	t->in_table = true;
}

/* Under table_lock: take @tid's thread out of the table (NULL if not ours). */
static struct rtp_thread *table_take(pthread_t tid)
{
	for (struct rtp_thread **p = &table[bucket(tid)]; *p; p = &(*p)->next) {
		struct rtp_thread *t = *p;

		if (pthread_equal(t->tid, tid)) {
			*p = t->next;
			t->in_table = false;
			return t;
		}
	}
	return NULL;
}

/* Under table_lock. */
static struct rtp_thread *table_find(pthread_t tid)
{
	for (struct rtp_thread *t = table[bucket(tid)]; t; t = t->next) {
		if (pthread_equal(t->tid, tid))
			return t;
	}
	return NULL;
}

/* dl_iterate_phdr(): the writable extent of the object that holds @arg->lo (a probe). */
static int find_data(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct rtp_range *r = arg;
	uintptr_t probe = r->lo, lo = UINTPTR_MAX, hi = 0;
	bool holds = false;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t a = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD)
			continue;
		if (probe >= a && probe - a < ph->p_memsz)
			holds = true;
		if (ph->p_flags & PF_W) {
			lo = a < lo ? a : lo;
			hi = a + ph->p_memsz > hi ? a + ph->p_memsz : hi;
		}
	}
	if (!holds)
		return 0;
	/* The program itself (its own copy, exported): its mutexes are the program's. */
	if (!info->dlpi_name || !info->dlpi_name[0])
		lo = hi = 0;
	r->lo = lo < hi ? lo : 0;
	r->hi = lo < hi ? hi : 0;
	return 1;
}

/* @r: the writable data (static mutexes included) of the object holding @probe; empty if none. */
static void own_data(struct rtp_range *r, const void *probe)
{
	struct rtp_range f = { (uintptr_t)probe, 0 };

	if (!probe || dl_iterate_phdr(find_data, &f) != 1)
		f.lo = f.hi = 0;
	__atomic_store_n(&r->lo, f.lo, __ATOMIC_RELAXED);
	__atomic_store_n(&r->hi, f.hi, __ATOMIC_RELAXED);
}

#define REAL(field, name)                                                     \
	do {                                                                  \
		void *f_ = dlsym(RTLD_NEXT, name);                            \
		if (!f_)                                                      \
			goto missing;                                         \
		memcpy(&r.field, &f_, sizeof(f_));                            \
	} while (0)

/*
 * rtp_resolve() - find the C library's functions.  It may run before our
 * constructor (libringtrace's own constructor locks a mutex); dlsym()
 * takes the loader's lock, which is recursive, so it can.  Threads that
 * race here find the same pointers.  Without one of them the process
 * cannot work at all: we say which, and stop it.  Also where liburcu-bp's
 * and libringtrace's own mutexes live (rtp_own_lock()).
 */
void rtp_resolve(void)
{
	struct rtp_real r;
	const char *name = NULL;

#define R(field, sym) name = sym; REAL(field, sym)
	R(create, "pthread_create");
	R(join, "pthread_join");
	R(tryjoin_np, "pthread_tryjoin_np");
	R(timedjoin_np, "pthread_timedjoin_np");
	R(detach, "pthread_detach");
	R(exit, "pthread_exit");
	R(setname_np, "pthread_setname_np");
	R(mutex_lock, "pthread_mutex_lock");
	R(mutex_trylock, "pthread_mutex_trylock");
	R(mutex_timedlock, "pthread_mutex_timedlock");
	R(mutex_clocklock, "pthread_mutex_clocklock");
	R(mutex_unlock, "pthread_mutex_unlock");
	R(rwlock_rdlock, "pthread_rwlock_rdlock");
	R(rwlock_tryrdlock, "pthread_rwlock_tryrdlock");
	R(rwlock_wrlock, "pthread_rwlock_wrlock");
	R(rwlock_trywrlock, "pthread_rwlock_trywrlock");
	R(cond_wait, "pthread_cond_wait");
	R(cond_timedwait, "pthread_cond_timedwait");
	R(cond_clockwait, "pthread_cond_clockwait");
	R(cond_signal, "pthread_cond_signal");
	R(cond_broadcast, "pthread_cond_broadcast");
	R(sem_wait, "sem_wait");
	R(sem_trywait, "sem_trywait");
	R(sem_timedwait, "sem_timedwait");
	R(sem_clockwait, "sem_clockwait");
	R(sem_post, "sem_post");
	R(barrier_wait, "pthread_barrier_wait");
#undef R
	/* The same pointers whoever stores them: no torn struct can be seen as a whole. */
	memcpy(&rtp_real, &r, sizeof(r));
	own_data(&rtp_own[0], dlsym(RTLD_DEFAULT, "urcu_bp_read_lock"));
	own_data(&rtp_own[1], &rtr_on);
	__atomic_store_n(&rtp_resolved, 1, __ATOMIC_RELEASE);
	return;
missing: {
	static const char msg[] = "libringtrace-pthread: the C library has no ";

	/* write(2) only: stdio may be what is missing its locks. */
	if (write(2, msg, sizeof(msg) - 1) < 0 || write(2, name, strlen(name)) < 0 ||
	    write(2, "\n", 1) < 0)
		_exit(127);
	_exit(127);
}
}

/* The thread's name as the kernel knows it (comm, 15 bytes). */
static void label_with_comm(uint64_t task)
{
	char name[17] = "";

	if (prctl(PR_GET_NAME, (unsigned long)name, 0, 0, 0) == 0 && name[0])
		rtr_label(task, name);
}

/*
 * rtp_self_slow() - a task for a thread we did not see start: the main
 * thread before our constructor, threads made before tracing started or by
 * clone(2).  Its parent is unknown (0); it is labelled with its name.
 */
uint64_t rtp_self_slow(void)
{
	uint64_t t = rtr_task_id();

	rtp_self = t;
	rtp_enter();
	rtr_create(0, t, RTR_KIND_THREAD);
	label_with_comm(t);
	rtp_leave();
	return t;
}

void rtp_block(uint64_t self, uint64_t obj)
{
	rtp_enter();
	rtr_try_read(self, obj);
	rtr_switch(0);
	rtp_leave();
}

/* rtp_wake() - back from blocking on @obj: running again, and @got it (a read). */
void rtp_wake(uint64_t self, uint64_t obj, bool got)
{
	rtp_enter();
	rtr_switch(self);
	if (got)
		rtr_read(self, obj);
	rtp_leave();
}

/*
 * rtp_thread_end() - the key's destructor: the thread ends, however it
 * ends (return, pthread_exit(), cancellation), after its thread_local
 * destructors.  Its task is resolved (by itself) or failed if cancelled.
 */
static void rtp_thread_end(void *p)
{
	struct rtp_thread *t = p;
	bool free_it;

	if (rtr_tracing()) {
		rtp_enter();
		if (t->how)
			rtr_resolve(t->task, t->task);
		else
			rtr_fail(t->task, t->task, "cancelled");
		rtr_switch(0);
		rtp_leave();
	}
	table_lock_take();
	t->ended = true;
	free_it = t->detached && !t->in_table;
	table_lock_drop();
	if (free_it)
		free(t);
}

static void *rtp_thread_start(void *p)
{
	struct rtp_thread *t = p;
	void *ret;

	rtp_self = t->task;
	if (exit_key_ok)
		pthread_setspecific(exit_key, t);
	if (rtp_on()) {
		rtp_enter();
		rtr_switch(t->task);
		rtp_leave();
	}
	ret = t->fn(t->arg);
	t->how = RTP_RETURNED;
	if (!exit_key_ok)
		rtp_thread_end(t);
	return ret;
}

/* The start routine's name, when the loader knows exactly that symbol. */
static void label_with_symbol(uint64_t task, void *(*fn)(void *))
{
	Dl_info info;
	void *addr;

	memcpy(&addr, &fn, sizeof(addr));
	if (dladdr(addr, &info) && info.dli_sname && info.dli_saddr == addr)
		rtr_label(task, info.dli_sname);
}

RTR_API int pthread_create(pthread_t *tid, const pthread_attr_t *attr, void *(*fn)(void *),
			   void *arg)
{
	struct rtp_thread *t;
	uint64_t self;
	int detach = PTHREAD_CREATE_JOINABLE, ret;
	bool detached;

	if (!rtp_on())
		return rtp()->create(tid, attr, fn, arg);
	t = calloc(1, sizeof(*t));
	if (!t)
		return EAGAIN;
	t->fn = fn;
	t->arg = arg;
	t->task = rtr_task_id();
	if (attr)
		pthread_attr_getdetachstate(attr, &detach);
	/* Read from here on, never from @t: a detached thread frees it when it ends. */
	t->detached = detached = detach == PTHREAD_CREATE_DETACHED;
	self = rtp_self_task();
	rtp_enter();
	rtr_create(self, t->task, RTR_KIND_THREAD);
	label_with_symbol(t->task, fn);
	rtp_leave();
	/*
	 * A detached thread is never in the table: it frees itself.  A
	 * joinable one is put there before anyone can join it (the caller
	 * learns its pthread_t from us), and after it started: it may have
	 * ended already, which rtp_thread_end() marked under the lock.
	 */
	if (!detached)
		table_lock_take();
	ret = rtp()->create(tid, attr, rtp_thread_start, t);
	if (ret) {
		if (!detached)
			table_lock_drop();
		rtp_enter();
		rtr_fail(self, t->task, "pthread_create failed");
		rtp_leave();
		free(t);
		return ret;
	}
	if (!detached) {
		t->tid = *tid;
		table_put(t);
		table_lock_drop();
	}
	return 0;
}

/*
 * join_end() - @t was joined by the caller (@ret from the C library):
 * the read, and the thread's record freed.  On failure it goes back to the
 * table (EDEADLK, EINVAL: still joinable or not ours to judge).
 */
static int join_end(struct rtp_thread *t, uint64_t self, bool blocked, int ret)
{
	if (ret) {
		if (blocked)
			rtp_wake(self, t->task, false);
		table_lock_take();
		table_put(t);
		table_lock_drop();
		return ret;
	}
	if (blocked) {
		rtp_wake(self, t->task, true);
	} else {
		rtp_enter();
		rtr_read(self, t->task);
		rtp_leave();
	}
	free(t);
	return 0;
}

/* Take @tid's thread out of the table for a join; whether it had ended. */
static struct rtp_thread *join_begin(pthread_t tid, bool *ended)
{
	struct rtp_thread *t;

	table_lock_take();
	t = table_take(tid);
	*ended = t && t->ended;
	table_lock_drop();
	return t;
}

RTR_API int pthread_join(pthread_t tid, void **retval)
{
	struct rtp_thread *t;
	uint64_t self;
	bool ended;

	if (!rtp_on())
		return rtp()->join(tid, retval);
	t = join_begin(tid, &ended);
	if (!t)
		return rtp()->join(tid, retval);
	self = rtp_self_task();
	if (!ended)
		rtp_block(self, t->task);
	return join_end(t, self, !ended, rtp()->join(tid, retval));
}

RTR_API int pthread_tryjoin_np(pthread_t tid, void **retval)
{
	struct rtp_thread *t;
	bool ended;

	if (!rtp_on())
		return rtp()->tryjoin_np(tid, retval);
	t = join_begin(tid, &ended);
	if (!t)
		return rtp()->tryjoin_np(tid, retval);
	return join_end(t, rtp_self_task(), false, rtp()->tryjoin_np(tid, retval));
}

RTR_API int pthread_timedjoin_np(pthread_t tid, void **retval, const struct timespec *abstime)
{
	struct rtp_thread *t;
	uint64_t self;
	bool ended;

	if (!rtp_on())
		return rtp()->timedjoin_np(tid, retval, abstime);
	t = join_begin(tid, &ended);
	if (!t)
		return rtp()->timedjoin_np(tid, retval, abstime);
	self = rtp_self_task();
	if (!ended)
		rtp_block(self, t->task);
	return join_end(t, self, !ended, rtp()->timedjoin_np(tid, retval, abstime));
}

RTR_API int pthread_detach(pthread_t tid)
{
	struct rtp_thread *t;
	bool free_it = false;
	int ret;

	/* Whether tracing or not: a thread in the table must learn it is detached. */
	table_lock_take();
	t = table_take(tid);
	if (t) {
		t->detached = true;
		free_it = t->ended;
	}
	table_lock_drop();
	ret = rtp()->detach(tid);
	if (free_it)
		free(t);
	return ret;
}

RTR_API void pthread_exit(void *retval)
{
	/* Our thread's record is the key's value: mark how it ended. */
	struct rtp_thread *t = exit_key_ok ? pthread_getspecific(exit_key) : NULL;

	if (t)
		t->how = RTP_EXITED;
	rtp()->exit(retval);
}

RTR_API int pthread_setname_np(pthread_t tid, const char *name)
{
	uint64_t task = 0;
	int ret = rtp()->setname_np(tid, name);

	if (ret || !rtp_on())
		return ret;
	if (pthread_equal(tid, pthread_self())) {
		task = rtp_self_task();
	} else {
		struct rtp_thread *t;

		table_lock_take();
		t = table_find(tid);
		if (t)
			task = t->task;
		table_lock_drop();
	}
	if (task) {
		rtp_enter();
		rtr_label(task, name);
		rtp_leave();
	}
	return 0;
}

static void main_exit(void)
{
	if (!main_task || !rtp_on())
		return;
	rtp_enter();
	rtr_resolve(rtp_self ? rtp_self : main_task, main_task);
	rtp_leave();
}

/* fork: table_lock is free in the child; the child's thread is a new task, its main. */
static void fork_prepare(void)
{
	table_lock_take();
}

static void fork_parent(void)
{
	table_lock_drop();
}

static void fork_child(void)
{
	uint64_t parent = rtp_self;

	table_lock_drop();
	if (!rtp_on())
		return;
	main_task = rtr_task_id();
	rtp_self = main_task;
	rtp_enter();
	rtr_create(parent, main_task, RTR_KIND_THREAD);
	label_with_comm(main_task);
	rtr_switch(main_task);
	rtp_leave();
}

/*
 * Tracing starts in libringtrace's constructor, which ran before this one
 * (it is our dependency): the main thread becomes a task now, resolved at
 * exit, before libringtrace's atexit handler (registered earlier, run
 * later) stops tracing.
 */
__attribute__((constructor)) static void rtp_init(void)
{
	const char *hold = getenv("RINGTRACE_PTHREAD_HOLD");

	rtp();
	if (hold && !strcmp(hold, "1")) {
		rtp_hold_init();
		rtp_hold = true;
	}
	exit_key_ok = pthread_key_create(&exit_key, rtp_thread_end) == 0;
	pthread_atfork(fork_prepare, fork_parent, fork_child);
	if (!rtp_on())
		return;
	rtp_unwind_warm();
	main_task = rtp_self_task();
	rtp_enter();
	rtr_switch(main_task);
	rtp_leave();
	atexit(main_exit);
}
