/* SPDX-License-Identifier: MIT */
/*
 * events/pthread/preload.h - libringtrace-pthread, the library that
 * `ringtrace record --pthread` preloads into an unmodified program to map
 * its threads and synchronisation onto the task model
 * (Documentation/pthread.rst).  Shared by thread.c (threads, start and
 * exit, fork) and sync.c (mutexes, rwlocks, conditions, semaphores,
 * barriers).
 *
 * Concurrency: every wrapper may run in any thread and, for the lock
 * calls, inside a signal handler.  None takes a lock of its own on the
 * path of a lock, unlock, wait or post: ids are computed, not looked up,
 * and the one shared table written there (the objects already named) is
 * lock-free.  Thread create, join, detach and exit take @table_lock, a
 * real mutex held for a few instructions, never across a call into the
 * program or the C library's blocking calls; fork holds it across the
 * fork so that the child finds it free.
 *
 * Recursion: libringtrace itself (and liburcu-bp under it) calls
 * pthread_mutex_lock(); those calls reach our wrappers.  rtp_busy, a
 * per-thread counter raised around every event we write, makes a wrapper
 * entered from inside another pass straight to the C library.  A signal
 * handler that interrupts a wrapper's event sees it raised too.
 * Calls that are not inside our events take those mutexes too: a thread's
 * first slow-path write (the program's own, or libringtrace's flusher
 * registering itself) registers it with urcu-bp under urcu-bp's mutexes,
 * and urcu-bp's key destructor takes them at every thread's exit, after it
 * unregistered the thread.  An event we wrote there could register the
 * thread again, under the mutex it holds: a mutex in liburcu-bp's or
 * libringtrace's own data is never traced (rtp_own_lock()).
 */
#ifndef RTR_EVENTS_PTHREAD_PRELOAD_H
#define RTR_EVENTS_PTHREAD_PRELOAD_H

#include <pthread.h>
#include <semaphore.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <ringtrace/ringtrace.h>
#include "platform/compiler.h"

/* The C library's functions, found with dlsym(RTLD_NEXT) (rtp_resolve()). */
struct rtp_real {
	int (*create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
	int (*join)(pthread_t, void **);
	int (*tryjoin_np)(pthread_t, void **);
	int (*timedjoin_np)(pthread_t, void **, const struct timespec *);
	int (*detach)(pthread_t);
	void (*exit)(void *) __attribute__((noreturn));
	int (*setname_np)(pthread_t, const char *);
	int (*mutex_lock)(pthread_mutex_t *);
	int (*mutex_trylock)(pthread_mutex_t *);
	int (*mutex_timedlock)(pthread_mutex_t *, const struct timespec *);
	int (*mutex_clocklock)(pthread_mutex_t *, clockid_t, const struct timespec *);
	int (*mutex_unlock)(pthread_mutex_t *);
	int (*rwlock_rdlock)(pthread_rwlock_t *);
	int (*rwlock_tryrdlock)(pthread_rwlock_t *);
	int (*rwlock_wrlock)(pthread_rwlock_t *);
	int (*rwlock_trywrlock)(pthread_rwlock_t *);
	int (*cond_wait)(pthread_cond_t *, pthread_mutex_t *);
	int (*cond_timedwait)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
	int (*cond_clockwait)(pthread_cond_t *, pthread_mutex_t *, clockid_t,
			      const struct timespec *);
	int (*cond_signal)(pthread_cond_t *);
	int (*cond_broadcast)(pthread_cond_t *);
	int (*sem_wait)(sem_t *);
	int (*sem_trywait)(sem_t *);
	int (*sem_timedwait)(sem_t *, const struct timespec *);
	int (*sem_clockwait)(sem_t *, clockid_t, const struct timespec *);
	int (*sem_post)(sem_t *);
	int (*barrier_wait)(pthread_barrier_t *);
};

extern struct rtp_real rtp_real;
extern int rtp_resolved;
extern __thread volatile int rtp_busy __attribute__((tls_model("initial-exec")));
extern __thread uint64_t rtp_self __attribute__((tls_model("initial-exec")));

void rtp_resolve(void) __attribute__((cold));
/* rtp_hold - time each hold of a mutex (RINGTRACE_PTHREAD_HOLD=1, record --hold-times). */
extern bool rtp_hold;
/* rtp_hold_init() - the clock of the holds, chosen and calibrated (2 ms), before rtp_hold is set. */
void rtp_hold_init(void) __attribute__((cold));
/* rtp_unwind_warm() - one unwinding, so that the first object's costs microseconds (sync.c). */
void rtp_unwind_warm(void) __attribute__((cold));
uint64_t rtp_self_slow(void);

/* rtp_on() - trace this call: tracing is on and we are not inside our own event. */
static inline bool rtp_on(void)
{
	return rtr_unlikely(__atomic_load_n(&rtr_on, __ATOMIC_RELAXED)) && !rtp_busy;
}

/* The real functions, found before the first call even from a constructor. */
static inline const struct rtp_real *rtp(void)
{
	if (rtr_unlikely(!__atomic_load_n(&rtp_resolved, __ATOMIC_ACQUIRE)))
		rtp_resolve();
	return &rtp_real;
}

/* rtp_enter()/rtp_leave() - around the events a wrapper writes (see Recursion). */
static inline void rtp_enter(void)
{
	rtp_busy++;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

static inline void rtp_leave(void)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	rtp_busy--;
}

/*
 * The writable data of liburcu-bp and of libringtrace, [@lo, @hi) each,
 * where their own static mutexes live (see Recursion above); found by
 * rtp_resolve().
 */
struct rtp_range {
	uintptr_t lo, hi;
};

extern struct rtp_range rtp_own[2];

/* rtp_own_lock() - @p is libringtrace's or liburcu-bp's mutex, not the program's: not traced. */
static inline bool rtp_own_lock(const void *p)
{
	uintptr_t a = (uintptr_t)p;

	rtp();
	return (a >= __atomic_load_n(&rtp_own[0].lo, __ATOMIC_RELAXED) &&
		a < __atomic_load_n(&rtp_own[0].hi, __ATOMIC_RELAXED)) ||
	       (a >= __atomic_load_n(&rtp_own[1].lo, __ATOMIC_RELAXED) &&
		a < __atomic_load_n(&rtp_own[1].hi, __ATOMIC_RELAXED));
}

/* rtp_self_task() - the calling thread's task, created on first use. */
static inline uint64_t rtp_self_task(void)
{
	return rtr_likely(rtp_self) ? rtp_self : rtp_self_slow();
}

/*
 * A synchronisation object is a task whose id is made from its address:
 * no table to look up (or lock) on the path of a lock.  Bit 52 keeps these
 * ids apart from rtr_task_id()'s small ones and below 2^53, exact in the
 * viewer's JavaScript numbers.  An object freed and another made at the
 * same address are the same task.
 */
#define RTP_OBJ_BIT (UINT64_C(1) << 52)

static inline uint64_t rtp_obj_id(const void *p)
{
	return ((uint64_t)(uintptr_t)p & (RTP_OBJ_BIT - 1)) | RTP_OBJ_BIT;
}

/*
 * rtp_obj() - @p's task; the first time it is seen, created (@kind) and
 * labelled "@what 0xADDR at 0xSITE", @site the program's call of the
 * wrapper (0: none).
 */
uint64_t rtp_obj(const void *p, uint8_t kind, const char *what, const void *site);

/* Blocking: the thread leaves its CPU (switch to idle) and comes back. */
void rtp_block(uint64_t self, uint64_t obj);
void rtp_wake(uint64_t self, uint64_t obj, bool got);

#endif /* RTR_EVENTS_PTHREAD_PRELOAD_H */
