/* SPDX-License-Identifier: MIT */
/*
 * platform/platform.h - the OS facilities the ring and the consumer use.
 * One interface, one implementation per platform directory: unix/ here,
 * the Xen facilities in xen.h (xen/ real, xensim/ simulated).  All
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
/* Skip @done bytes of the *@n vectors at *@iov (after a partial write). */
void rtr_iov_advance(struct iovec **iov, int *n, size_t done);

/*
 * TCP (platform/unix/net.c): rtr_tcp_connect() connects to @host:@port
 * within @timeout_ms and bounds every later send and receive by it too
 * (SO_SNDTIMEO, SO_RCVTIMEO): the descriptor, or -errno with @err set.
 * rtr_send_all() sends @iov whole (consumed; no SIGPIPE), rtr_recv_all()
 * receives @n bytes: 0, or -errno: -EAGAIN the timeout passed, -ENODATA
 * the peer closed first.
 */
int rtr_tcp_connect(const char *host, uint16_t port, int timeout_ms, char *err, size_t errlen);
int rtr_send_all(int fd, struct iovec *iov, int n);
int rtr_recv_all(int fd, void *buf, size_t n);

/*
 * struct rtr_region_mem - where a region's memory comes from and how its
 * producer and consumer wake each other: a file and futexes on unix
 * (platform/unix/region.c), granted pages and an event channel on Xen
 * (platform/xen_region.c).  The ring and the consumer use nothing else, so
 * they are the same code on both.
 *
 * @base, @size: the region, mapped (read-only in a Xen dom0).
 * @fd: the region file (unix), or -1.
 * @name: what to call it in messages: the file's path, or "xen:DOMAIN".
 * @cons, @cons_stride: the consumer's words of CPU i (struct rtr_cons_words,
 *   laid out as in struct rtr_cpu_ctl) at @cons + i * @cons_stride; NULL: in the
 *   region's own control pages (unix), filled in once the geometry is known.
 * @flush_req: the consumer's flush-request word; NULL: the region header's.
 * @max_cpus: streams @cons has room for (0: any).
 * @gone_why: set by producer_gone() when it says yes, for the user.
 * @producer_seen: the producer pid once seen mapping the region (unix).
 */
struct rtr_region_mem;
struct rtr_cons_words {
	uint64_t cons;
	uint64_t notify_at;
};
struct rtr_region_ops {
	/* Wake the other side after changing @word (a word of the region). */
	void (*wake)(struct rtr_region_mem *m, uint32_t *word);
	/* Sleep until @word may differ from @expected, or @timeout_ms (-1: no
	 * limit).  Spurious returns are allowed.  0, -ETIMEDOUT, -EINTR. */
	int (*wait)(struct rtr_region_mem *m, uint32_t *word, uint32_t expected, int timeout_ms);
	/* Producer: the region is built (magic written); let consumers find it. */
	int (*publish)(struct rtr_region_mem *m);
	/* Consumer: true once the producer's process is gone. */
	bool (*producer_gone)(struct rtr_region_mem *m, uint32_t pid);
	/*
	 * Consumer: true unless process @pid (a pid the region lists as writing
	 * into it, untrusted) exists and maps the region.  NULL: producer_gone().
	 */
	bool (*writer_gone)(struct rtr_region_mem *m, uint32_t pid);
	/* Unmap (and, producer side, withdraw; @unlink: remove the file). */
	void (*release)(struct rtr_region_mem *m, bool unlink);
};

struct rtr_region_mem {
	uint8_t *base;
	uint64_t size;
	int fd;
	char *name;
	uint8_t *cons;
	uint64_t cons_stride;
	uint32_t *flush_req;
	uint32_t max_cpus;
	const char *gone_why;
	uint32_t producer_seen;
	const struct rtr_region_ops *ops;
	void *priv;
};

/* Producer: make the memory for a region of @size bytes and @ncpus streams. */
typedef int (*rtr_region_create_fn)(struct rtr_region_mem *m, const char *path, uint64_t size,
				    uint32_t ncpus, char *err, size_t errlen);
/* platform/unix/region.c: a file at @path, created as rtr_shm_create() does. */
int rtr_region_file_create(struct rtr_region_mem *m, const char *path, uint64_t size,
			   uint32_t ncpus, char *err, size_t errlen);
/* Consumer: map the region file at @path read-write. */
int rtr_region_file_open(struct rtr_region_mem *m, const char *path);
/* platform/xen_region.c: the guest's granted pages; dom0's mapping of them. */
int rtr_xen_region_create(struct rtr_region_mem *m, const char *path, uint64_t size,
			  uint32_t ncpus, char *err, size_t errlen);
int rtr_xen_region_attach(struct rtr_region_mem *m, const char *domain, char *err,
			  size_t errlen);

/*
 * Tests only: a Xen guest region's own view of what it shares, so that a
 * hostile guest can scribble on it (tests/xen/hostile.c).
 */
struct rtr_xen;
struct rtr_xen_ctl;
struct rtr_xen_guest_view {
	struct rtr_xen *x;
	struct rtr_xen_ctl *ctl;
	uint32_t *refs;		/* the ref pages */
	uint32_t nref;
	uint32_t port;
};
int rtr_xen_region_view(struct rtr_region_mem *m, struct rtr_xen_guest_view *v);

/* Futex words in shared memory (platform/unix/futex.c). */
int rtr_futex_wait(uint32_t *word, uint32_t expected, int timeout_ms);
int rtr_futex_wake(uint32_t *word, int nr);

/* Clock (platform/unix/clock.c). */
bool rtr_tsc_usable(void);
/* How well the clock is known: region.h's ABI 1.3 fields, as they are named there. */
struct rtr_clock_quality {
	uint32_t window_ns, freq_ppb, sync, esterror_us, maxerror_us;
};
int rtr_clock_calibrate(uint64_t *freq, int64_t *offset_ns, struct rtr_clock_quality *q);
uint64_t rtr_clock_read(void);
uint64_t rtr_monotonic_ns(void);

/* CPUs (platform/unix/cpu.c). */
uint32_t rtr_cpu_possible(void);
int rtr_cpu_current(void);
int rtr_cpu_run_on(int cpu, int (*fn)(void *), void *arg);
int rtr_membarrier_rseq_register(void);
int rtr_membarrier_rseq(void);

#endif /* RTR_PLATFORM_H */
