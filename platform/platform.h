/* SPDX-License-Identifier: MIT */
/*
 * platform/platform.h - the OS facilities the ring and the consumer use.
 * One interface, one implementation per platform directory (unix/ here;
 * Xen's grant/event-channel back-ends come with the Xen issue).  All
 * functions return 0 (or a value) on success and -errno on failure.
 */
#ifndef RTR_PLATFORM_H
#define RTR_PLATFORM_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

/* Shared region files (platform/unix/shm.c). */
int rtr_shm_create(const char *path, uint64_t size, int *fd, void **addr);
int rtr_shm_open(const char *path, bool writable, int *fd, void **addr, uint64_t *size);
void rtr_shm_unmap(void *addr, uint64_t size);
int rtr_write_all(int fd, const void *buf, size_t n);
/* Write the @n vectors whole (@iov is consumed); 0 or -errno. */
struct iovec;
int rtr_writev_all(int fd, struct iovec *iov, int n);

/* Futex words in shared memory (platform/unix/futex.c). */
int rtr_futex_wait(uint32_t *word, uint32_t expected, int timeout_ms);
int rtr_futex_wake(uint32_t *word, int nr);

/* Clock (platform/unix/clock.c). */
bool rtr_tsc_usable(void);
int rtr_clock_calibrate(uint64_t *freq, int64_t *offset_ns);
uint64_t rtr_clock_read(void);
uint64_t rtr_monotonic_ns(void);

/* CPUs (platform/unix/cpu.c). */
uint32_t rtr_cpu_possible(void);
int rtr_cpu_current(void);
int rtr_cpu_run_on(int cpu, int (*fn)(void *), void *arg);
int rtr_membarrier_rseq_register(void);
int rtr_membarrier_rseq(void);

#endif /* RTR_PLATFORM_H */
