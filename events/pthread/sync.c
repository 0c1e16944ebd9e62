// SPDX-License-Identifier: MIT
/*
 * events/pthread/sync.c - libringtrace-pthread's synchronisation: what
 * waits is recorded, what does not wait is not.
 *
 *   lock, rdlock, wrlock, sem_wait   a try first; if it succeeds, nothing
 *                                    is written.  If busy: try_read(thread,
 *                                    object), switch to idle, the real call,
 *                                    switch back, read(thread, object).
 *   mutex unlock                     signal(thread, mutex) only when the
 *                                    mutex is marked contended (glibc), so
 *                                    that the unlock has a waiter to wake.
 *                                    With hold times on (record
 *                                    --hold-times), a pthread:hold event
 *                                    before that signal: how long the
 *                                    thread had held the mutex.
 *   cond wait, barrier wait          always block: try_read ... read.
 *   cond signal/broadcast, sem_post  always signal(thread, object): a
 *                                    signal nobody waits for is what a lost
 *                                    wake-up looks like.
 *
 * Documentation/pthread.rst has the costs; preload.h the locking rules.
 */
#include <errno.h>
#include <string.h>
#include <unwind.h>
#include <ringtrace/event.h>
#include "events/pthread/preload.h"

/*
 * The objects already created and labelled, by address: open addressing,
 * claimed with one compare-and-swap, never removed.  Full, an object is
 * still traced, unnamed.
 */
#define SEEN_SLOTS 16384
#define SEEN_PROBES 32
static uintptr_t seen[SEEN_SLOTS];

static bool first_sight(uintptr_t a)
{
	uint64_t h = (uint64_t)a * UINT64_C(0x9e3779b97f4a7c15);

	for (unsigned i = 0; i < SEEN_PROBES; i++) {
		uintptr_t *s = &seen[((h >> 40) + i) % SEEN_SLOTS];
		uintptr_t cur = __atomic_load_n(s, __ATOMIC_RELAXED);

		if (cur == a)
			return false;
		if (!cur) {
			if (__atomic_compare_exchange_n(s, &cur, a, false, __ATOMIC_RELAXED,
							__ATOMIC_RELAXED))
				return true;
			if (cur == a)
				return false;
		}
	}
	return false;
}

static char *hex(char *p, uintptr_t a)
{
	int shift = 60;

	*p++ = '0';
	*p++ = 'x';
	while (shift > 0 && !((a >> shift) & 0xf))
		shift -= 4;
	for (; shift >= 0; shift -= 4)
		*p++ = "0123456789abcdef"[(a >> shift) & 0xf];
	return p;
}

/*
 * The call site and its callers: a site inside code of a header that was
 * not inlined (std::unique_lock<std::mutex>::unlock() called from where
 * the program's own code let go) is named by the first caller in the
 * program's own code (reader/symbols.c).  Once per object (first_sight()),
 * so the unwinding's microseconds do not count; but the first unwinding in
 * a process sets libgcc's tables up, 0.1-1 ms measured here, which would
 * land inside the program's first wait (before the wait's event):
 * rtp_unwind_warm() pays it when tracing starts.  libgcc's unwinder finds
 * frames with glibc's _dl_find_object() (GCC 12 and glibc 2.35 on, as in
 * Debian 12), which takes no lock of the loader's: a first sight in a
 * signal handler (a sem_post()) cannot deadlock on a dlopen() it
 * interrupted.
 */
#define SITE_FRAMES 6

struct frames {
	uintptr_t site;
	uintptr_t pc[SITE_FRAMES];
	int n;
	int depth;
};

static _Unwind_Reason_Code frame_at(struct _Unwind_Context *c, void *arg)
{
	struct frames *f = arg;
	uintptr_t ip = (uintptr_t)_Unwind_GetIP(c);

	if (!f->n && ip != f->site)	/* the wrapper's own frames */
		return ++f->depth < 16 ? _URC_NO_REASON : _URC_END_OF_STACK;
	f->pc[f->n++] = ip;
	return f->n < SITE_FRAMES ? _URC_NO_REASON : _URC_END_OF_STACK;
}

static _Unwind_Reason_Code frame_none(struct _Unwind_Context *c, void *arg)
{
	(void)c;
	(void)arg;
	return _URC_END_OF_STACK;
}

void rtp_unwind_warm(void)
{
	_Unwind_Backtrace(frame_none, NULL);
}

/*
 * "@what 0x@addr at 0x@site 0x@caller..." without stdio: this may run in a
 * signal handler.  The reader names the object by the symbol at @addr (a
 * static one), else by the call site (reader/symbols.c).
 */
static void obj_label(uint64_t id, const char *what, uintptr_t a, uintptr_t site)
{
	struct frames f = { .site = site };
	char text[24 + 19 + 4 + SITE_FRAMES * 19 + 1], *p = text;

	while (*what && p < text + 24)
		*p++ = *what++;
	*p++ = ' ';
	p = hex(p, a);
	if (site) {
		_Unwind_Backtrace(frame_at, &f);
		if (!f.n)	/* not found on the stack (a tail call): the site alone */
			f.pc[f.n++] = site;
		memcpy(p, " at ", 4);
		p += 4;
		for (int i = 0; i < f.n; i++) {
			if (i)
				*p++ = ' ';
			p = hex(p, f.pc[i]);
		}
	}
	*p = 0;
	rtr_label(id, text);
}

uint64_t rtp_obj(const void *p, uint8_t kind, const char *what, const void *site)
{
	uint64_t id = rtp_obj_id(p);

	if (rtr_unlikely(first_sight((uintptr_t)p))) {
		rtp_enter();
		rtr_create(0, id, kind);
		obj_label(id, what, (uintptr_t)p, (uintptr_t)site);
		rtp_leave();
	}
	return id;
}

/* The wrapper's caller: where the program waited, or signalled (the call site of a name). */
#define SITE __builtin_return_address(0)

/* ---- hold times (record --hold-times: RINGTRACE_PTHREAD_HOLD=1) ---------------- */

/*
 * pthread:hold, before the signal of a contended unlock: the mutex's task
 * and how long this thread held it (format/classes.h has the layout the
 * readers know it by).
 */
#define RTP_HOLD_FIELDS(F) F(u64, lock) F(u64, held_ns)
RTR_EVENT_DECLARE(pthread, hold, RTP_HOLD_FIELDS)
RTR_EVENT_DEFINE(pthread, hold, RTP_HOLD_FIELDS)

bool rtp_hold;

/*
 * The mutexes this thread holds and since when (hold_now()), the
 * latest last: a lock pushes, an unlock takes the latest entry of its
 * mutex (a recursive one's last unlock takes its first lock's).  Past
 * RTP_HELD the oldest is forgotten: its unlock says no hold time.  A
 * signal handler's lock and unlock in the middle of a push or a take may
 * cost a hold its time, never write outside the table: the count is read
 * once, bounded, and stored last.
 */
#define RTP_HELD 16
struct rtp_held {
	const void *m;
	uint64_t since;
};
static __thread struct rtp_held held[RTP_HELD] __attribute__((tls_model("initial-exec")));
static __thread unsigned nheld __attribute__((tls_model("initial-exec")));

static inline uint64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/*
 * The clock of the holds: the TSC where it is invariant (x86-64, CPUID
 * 0x80000007 EDX bit 8): a read is a few ns where clock_gettime() costs
 * 20-40 (kvm-clock here); converted to ns only when a hold is written,
 * through the TSC's rate against CLOCK_MONOTONIC since rtp_hold_init().
 * Else CLOCK_MONOTONIC itself.
 */
static bool hold_tsc;
static uint64_t tsc0, mono0;

#if defined(__x86_64__)
#include <cpuid.h>
#include <x86intrin.h>

static inline uint64_t hold_now(void)
{
	return hold_tsc ? __rdtsc() : mono_ns();
}

void rtp_hold_init(void)
{
	unsigned a, b, c, d;
	struct timespec w = { 0, 2000000 };

	if (__get_cpuid(0x80000000, &a, &b, &c, &d) && a >= 0x80000007 &&
	    __get_cpuid(0x80000007, &a, &b, &c, &d) && (d & (1u << 8))) {
		tsc0 = __rdtsc();
		mono0 = mono_ns();
		nanosleep(&w, NULL);	/* a first rate, from 2 ms */
		hold_tsc = true;
	}
}
#else
static inline uint64_t hold_now(void)
{
	return mono_ns();
}

void rtp_hold_init(void)
{
}
#endif

/* The time since @since (hold_now()), in ns. */
static uint64_t hold_ns(uint64_t since)
{
	uint64_t now = hold_now(), m, t;

	if (!hold_tsc)
		return now - since;
	m = mono_ns();
	t = hold_now();
	if (m <= mono0 || t <= tsc0 || now < since)
		return 0;
	return (uint64_t)((double)(now - since) * (double)(m - mono0) / (double)(t - tsc0));
}

static unsigned held_count(void)
{
	unsigned n = __atomic_load_n(&nheld, __ATOMIC_RELAXED);

	return n < RTP_HELD ? n : RTP_HELD;
}

static void held_push(const void *m)
{
	unsigned n = held_count();

	if (n == RTP_HELD) {
		memmove(held, held + 1, (RTP_HELD - 1) * sizeof(held[0]));
		n--;
	}
	held[n].m = m;
	held[n].since = hold_now();
	__atomic_store_n(&nheld, n + 1, __ATOMIC_RELAXED);
}

/* @m's latest entry taken out: since when it was held, or 0 if not known. */
static uint64_t held_pop(const void *m)
{
	unsigned n = held_count();

	for (unsigned i = n; i-- > 0;) {
		uint64_t since;

		if (held[i].m != m)
			continue;
		since = held[i].since;
		memmove(held + i, held + i + 1, (n - i - 1) * sizeof(held[0]));
		__atomic_store_n(&nheld, n - 1, __ATOMIC_RELAXED);
		return since;
	}
	return 0;
}

/* A condition's wait gave @m back and took it again: held from now. */
static void held_again(const void *m)
{
	for (unsigned i = held_count(); i-- > 0;) {
		if (held[i].m == m) {
			held[i].since = hold_now();
			return;
		}
	}
	held_push(m);
}

/* ---- mutexes ---------------------------------------------------------------- */

/*
 * Does unlocking @m wake a waiter?  glibc's lock word: 0 free, 1 held, 2
 * held and contended (a waiter may sleep on it), for the normal, recursive,
 * error-checking and adaptive kinds, and under the priority ceiling in its
 * low bits; a robust or priority-inheritance mutex holds the owner's tid
 * and FUTEX_WAITERS.  Read by the owner, before it lets go.
 */
static inline bool mutex_contended(pthread_mutex_t *m)
{
#ifdef __GLIBC__
	int kind = __atomic_load_n(&m->__data.__kind, __ATOMIC_RELAXED);
	unsigned lock = (unsigned)__atomic_load_n(&m->__data.__lock, __ATOMIC_RELAXED);

	if (kind & (16 | 32))		/* PTHREAD_MUTEX_ROBUST_NORMAL_NP, PRIO_INHERIT_NP */
		return lock & 0x80000000u;
	return (lock & 0x7ffff) > 1;
#else
	(void)m;
	return false;
#endif
}

/* The slow half of a lock: the try found it busy. */
static __attribute__((noinline)) int mutex_wait(pthread_mutex_t *m, int (*lock)(pthread_mutex_t *, clockid_t,
						       const struct timespec *),
		      clockid_t clk, const struct timespec *abstime, const void *site)
{
	uint64_t self = rtp_self_task(), id = rtp_obj(m, RTR_KIND_MUTEX, "mutex", site);
	int ret;

	rtp_block(self, id);
	ret = lock(m, clk, abstime);
	rtp_wake(self, id, ret == 0 || ret == EOWNERDEAD);
	return ret;
}

static int plain_lock(pthread_mutex_t *m, clockid_t clk, const struct timespec *t)
{
	(void)clk;
	(void)t;
	return rtp()->mutex_lock(m);
}

static int timed_lock(pthread_mutex_t *m, clockid_t clk, const struct timespec *t)
{
	(void)clk;
	return rtp()->mutex_timedlock(m, t);
}

static int clock_lock(pthread_mutex_t *m, clockid_t clk, const struct timespec *t)
{
	return rtp()->mutex_clocklock(m, clk, t);
}

/*
 * Is @m held now?  A look, not a claim: glibc's trylock costs about three
 * times its lock, so the traced fast path looks at the lock word and, if
 * the mutex is free, calls the real lock at once; only a mutex seen held
 * takes the exact path (a try, then the wait).  A wait that begins in the
 * few instructions between the look and the lock's own compare-and-swap is
 * not recorded (Documentation/pthread.rst).
 */
static inline bool mutex_held(pthread_mutex_t *m)
{
#ifdef __GLIBC__
	return __atomic_load_n(&m->__data.__lock, __ATOMIC_RELAXED) != 0;
#else
	(void)m;
	return true;
#endif
}

/* The mutex looked held: a try (a recursive mutex we own succeeds), then the wait. */
static __attribute__((noinline)) int mutex_lock_slow(pthread_mutex_t *m, const void *site)
{
	int ret;

	if (rtp_own_lock(m))
		return rtp()->mutex_lock(m);
	ret = rtp()->mutex_trylock(m);
	if (ret != EBUSY)
		return ret;
	return mutex_wait(m, plain_lock, 0, NULL, site);
}

/* With hold times: the lock as below, then when it was taken. */
static __attribute__((noinline)) int mutex_lock_hold(pthread_mutex_t *m, const void *site)
{
	int ret = mutex_held(m) ? mutex_lock_slow(m, site) : rtp()->mutex_lock(m);

	if (!ret)
		held_push(m);
	return ret;
}

RTR_API int pthread_mutex_lock(pthread_mutex_t *m)
{
	if (rtr_likely(!rtp_on()))
		return rtp()->mutex_lock(m);
	if (rtr_unlikely(rtp_hold))
		return mutex_lock_hold(m, SITE);
	if (rtr_likely(!mutex_held(m)))
		return rtp()->mutex_lock(m);
	return mutex_lock_slow(m, SITE);
}

RTR_API int pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *abstime)
{
	int ret;

	if (!rtp_on() || !mutex_held(m) || rtp_own_lock(m))
		ret = rtp()->mutex_timedlock(m, abstime);
	else if ((ret = rtp()->mutex_trylock(m)) == EBUSY)
		ret = mutex_wait(m, timed_lock, 0, abstime, SITE);
	if (rtr_unlikely(rtp_hold) && !ret && rtp_on())
		held_push(m);
	return ret;
}

RTR_API int pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t clk,
				    const struct timespec *abstime)
{
	int ret;

	if (!rtp_on() || !mutex_held(m) || rtp_own_lock(m))
		ret = rtp()->mutex_clocklock(m, clk, abstime);
	else if ((ret = rtp()->mutex_trylock(m)) == EBUSY)
		ret = mutex_wait(m, clock_lock, clk, abstime, SITE);
	if (rtr_unlikely(rtp_hold) && !ret && rtp_on())
		held_push(m);
	return ret;
}

/* @since: when this thread took @m (hold times), 0 if not known. */
static __attribute__((noinline)) void mutex_unlock_signal(pthread_mutex_t *m, uint64_t since,
							   const void *site)
{
	uint64_t self = rtp_self_task(), id = rtp_obj(m, RTR_KIND_MUTEX, "mutex", site);

	rtp_enter();
	if (since)
		RTR_TRACE(pthread, hold, .lock = id, .held_ns = hold_ns(since));
	rtr_signal(self, id);
	rtp_leave();
}

/*
 * With hold times: the held table's entry taken out, the hold written if
 * the unlock wakes a waiter, then the unlock.  Out of line: its registers
 * would otherwise cost every unlock a prologue.
 */
static __attribute__((noinline)) int mutex_unlock_hold(pthread_mutex_t *m, const void *site)
{
	uint64_t since = held_pop(m);

	if (mutex_contended(m) && !rtp_own_lock(m))
		mutex_unlock_signal(m, since, site);
	return rtp()->mutex_unlock(m);
}

RTR_API int pthread_mutex_unlock(pthread_mutex_t *m)
{
	/* Before the unlock: the waiter's read comes after this signal. */
	if (rtr_unlikely(rtp_on())) {
		if (rtr_unlikely(rtp_hold))
			return mutex_unlock_hold(m, SITE);
		if (mutex_contended(m) && !rtp_own_lock(m))
			mutex_unlock_signal(m, 0, SITE);
	}
	return rtp()->mutex_unlock(m);
}

/* ---- rwlocks ---------------------------------------------------------------- */

static int rwlock_wait(pthread_rwlock_t *l, int (*lock)(pthread_rwlock_t *), const void *site)
{
	uint64_t self = rtp_self_task(), id = rtp_obj(l, RTR_KIND_RWLOCK, "rwlock", site);
	int ret;

	rtp_block(self, id);
	ret = lock(l);
	rtp_wake(self, id, ret == 0);
	return ret;
}

RTR_API int pthread_rwlock_rdlock(pthread_rwlock_t *l)
{
	int ret;

	if (!rtp_on())
		return rtp()->rwlock_rdlock(l);
	ret = rtp()->rwlock_tryrdlock(l);
	if (ret != EBUSY)
		return ret;
	return rwlock_wait(l, rtp()->rwlock_rdlock, SITE);
}

RTR_API int pthread_rwlock_wrlock(pthread_rwlock_t *l)
{
	int ret;

	if (!rtp_on())
		return rtp()->rwlock_wrlock(l);
	ret = rtp()->rwlock_trywrlock(l);
	if (ret != EBUSY)
		return ret;
	return rwlock_wait(l, rtp()->rwlock_wrlock, SITE);
}

/* ---- condition variables ------------------------------------------------------ */

RTR_API int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	uint64_t self, id;
	int ret;

	if (!rtp_on())
		return rtp()->cond_wait(c, m);
	self = rtp_self_task();
	id = rtp_obj(c, RTR_KIND_CONDITION, "cond", SITE);
	rtp_block(self, id);
	ret = rtp()->cond_wait(c, m);
	rtp_wake(self, id, ret == 0);
	if (rtr_unlikely(rtp_hold))
		held_again(m);	/* taken again, even after a timeout */
	return ret;
}

RTR_API int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
				   const struct timespec *abstime)
{
	uint64_t self, id;
	int ret;

	if (!rtp_on())
		return rtp()->cond_timedwait(c, m, abstime);
	self = rtp_self_task();
	id = rtp_obj(c, RTR_KIND_CONDITION, "cond", SITE);
	rtp_block(self, id);
	ret = rtp()->cond_timedwait(c, m, abstime);
	rtp_wake(self, id, ret == 0);
	if (rtr_unlikely(rtp_hold))
		held_again(m);	/* taken again, even after a timeout */
	return ret;
}

RTR_API int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clk,
				   const struct timespec *abstime)
{
	uint64_t self, id;
	int ret;

	if (!rtp_on())
		return rtp()->cond_clockwait(c, m, clk, abstime);
	self = rtp_self_task();
	id = rtp_obj(c, RTR_KIND_CONDITION, "cond", SITE);
	rtp_block(self, id);
	ret = rtp()->cond_clockwait(c, m, clk, abstime);
	rtp_wake(self, id, ret == 0);
	if (rtr_unlikely(rtp_hold))
		held_again(m);	/* taken again, even after a timeout */
	return ret;
}

static void signal_obj(const void *p, uint8_t kind, const char *what, const void *site)
{
	uint64_t self = rtp_self_task(), id = rtp_obj(p, kind, what, site);

	rtp_enter();
	rtr_signal(self, id);
	rtp_leave();
}

RTR_API int pthread_cond_signal(pthread_cond_t *c)
{
	if (rtp_on())
		signal_obj(c, RTR_KIND_CONDITION, "cond", SITE);
	return rtp()->cond_signal(c);
}

RTR_API int pthread_cond_broadcast(pthread_cond_t *c)
{
	if (rtp_on())
		signal_obj(c, RTR_KIND_CONDITION, "cond", SITE);
	return rtp()->cond_broadcast(c);
}

/* ---- semaphores and barriers ------------------------------------------------------ */

/* sem_wait() and friends report through errno; the try's EAGAIN must not leak out. */
static int sem_wait_slow(sem_t *s, int (*wait)(sem_t *, clockid_t, const struct timespec *),
			 clockid_t clk, const struct timespec *abstime, int saved_errno,
			 const void *site)
{
	uint64_t self = rtp_self_task(), id = rtp_obj(s, RTR_KIND_SEMAPHORE, "semaphore", site);
	int ret;

	errno = saved_errno;
	rtp_block(self, id);
	ret = wait(s, clk, abstime);
	saved_errno = errno;
	rtp_wake(self, id, ret == 0);
	errno = saved_errno;
	return ret;
}

static int sem_plain(sem_t *s, clockid_t clk, const struct timespec *t)
{
	(void)clk;
	(void)t;
	return rtp()->sem_wait(s);
}

static int sem_timed(sem_t *s, clockid_t clk, const struct timespec *t)
{
	(void)clk;
	return rtp()->sem_timedwait(s, t);
}

static int sem_clock(sem_t *s, clockid_t clk, const struct timespec *t)
{
	return rtp()->sem_clockwait(s, clk, t);
}

/* The try: 0 got it, 1 busy (go slow), -1 another error (errno set). */
static int sem_try(sem_t *s, int *saved_errno)
{
	*saved_errno = errno;
	if (rtp()->sem_trywait(s) == 0)
		return 0;
	if (errno == EAGAIN)
		return 1;
	return -1;
}

RTR_API int sem_wait(sem_t *s)
{
	int e, r;

	if (!rtp_on())
		return rtp()->sem_wait(s);
	r = sem_try(s, &e);
	if (r <= 0)
		return r;
	return sem_wait_slow(s, sem_plain, 0, NULL, e, SITE);
}

RTR_API int sem_timedwait(sem_t *s, const struct timespec *abstime)
{
	int e, r;

	if (!rtp_on())
		return rtp()->sem_timedwait(s, abstime);
	r = sem_try(s, &e);
	if (r <= 0)
		return r;
	return sem_wait_slow(s, sem_timed, 0, abstime, e, SITE);
}

RTR_API int sem_clockwait(sem_t *s, clockid_t clk, const struct timespec *abstime)
{
	int e, r;

	if (!rtp_on())
		return rtp()->sem_clockwait(s, clk, abstime);
	r = sem_try(s, &e);
	if (r <= 0)
		return r;
	return sem_wait_slow(s, sem_clock, clk, abstime, e, SITE);
}

RTR_API int sem_post(sem_t *s)
{
	if (rtp_on())
		signal_obj(s, RTR_KIND_SEMAPHORE, "semaphore", SITE);
	return rtp()->sem_post(s);
}

RTR_API int pthread_barrier_wait(pthread_barrier_t *b)
{
	uint64_t self, id;
	int ret;

	if (!rtp_on())
		return rtp()->barrier_wait(b);
	self = rtp_self_task();
	id = rtp_obj(b, RTR_KIND_BARRIER, "barrier", SITE);
	rtp_block(self, id);
	ret = rtp()->barrier_wait(b);
	rtp_wake(self, id, ret == 0 || ret == PTHREAD_BARRIER_SERIAL_THREAD);
	return ret;
}
