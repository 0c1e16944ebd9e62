/* SPDX-License-Identifier: MIT */
/* platform/compiler.h - attributes and atomics, for every layer (the lowest one holds it). */
#ifndef RTR_PLATFORM_COMPILER_H
#define RTR_PLATFORM_COMPILER_H

#define RTR_API		__attribute__((visibility("default")))
#define rtr_likely(x)	__builtin_expect(!!(x), 1)
#define rtr_unlikely(x)	__builtin_expect(!!(x), 0)
#define rtr_notrace	__attribute__((no_instrument_function))

/*
 * Shared-memory accesses use the compiler's C11-model builtins rather than
 * liburcu 0.13's inline-asm uatomic_*(): ThreadSanitizer sees these, and
 * the ring's stress test runs under it (Documentation/ringbuf.rst).
 */
#define rtr_load(p)		__atomic_load_n((p), __ATOMIC_RELAXED)
#define rtr_load_acquire(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define rtr_store(p, v)		__atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define rtr_store_release(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define rtr_add(p, v)		__atomic_add_fetch((p), (v), __ATOMIC_RELAXED)
#define rtr_xchg(p, v)		__atomic_exchange_n((p), (v), __ATOMIC_SEQ_CST)
#ifndef RTR_TSAN
#define rtr_smp_mb()		__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define rtr_smp_rmb()		__atomic_thread_fence(__ATOMIC_ACQUIRE)
#else
/*
 * GCC's ThreadSanitizer does not model fences.  A sequentially consistent
 * read-modify-write of one shared word is a full barrier on the hardware
 * and a synchronisation TSan understands (it may hide a few races across
 * unrelated fences, never report false ones).
 */
extern int rtr_tsan_fence_word;
#define rtr_smp_mb()		((void)__atomic_fetch_add(&rtr_tsan_fence_word, 0, __ATOMIC_SEQ_CST))
#define rtr_smp_rmb()		rtr_smp_mb()
#endif

#endif /* RTR_PLATFORM_COMPILER_H */
