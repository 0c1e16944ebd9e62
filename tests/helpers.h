/* SPDX-License-Identifier: MIT */
/* tests/helpers.h - rings in temporary files, and a record parser. */
#ifndef RTR_TESTS_HELPERS_H
#define RTR_TESTS_HELPERS_H

#include <stdbool.h>
#include <stdint.h>
#include <ringtrace/consumer.h>
#include "ringbuf/ring.h"

struct t_ring {
	char dir[64];
	char path[96];
	struct rtr_ring *ring;
	struct rtr_ring *_Atomic slot;
	struct rtr_consumer *c;
};

/* A record as parsed back from a packet. */
struct t_rec {
	uint32_t id;
	uint64_t ts;
	const uint8_t *payload;
	uint64_t len;		/* bytes up to the next record or the packet end */
};

/* Create a ring (and a consumer on it); skips the test if @rseq is wanted but unavailable. */
void t_ring_open(struct t_ring *t, uint32_t mode, uint32_t psize, uint32_t npk, bool rseq);
/* The same with blocking mode: writers wait up to @timeout_us for room (-1: no limit). */
void t_ring_open_blocking(struct t_ring *t, uint32_t mode, uint32_t psize, uint32_t npk,
			  bool rseq, int64_t timeout_us);
/* The same with more RTR_RING_* @flags (RTR_RING_THREADS). */
void t_ring_open_flags(struct t_ring *t, uint32_t mode, uint32_t psize, uint32_t npk,
		       bool rseq, int64_t timeout_us, uint32_t flags);
void t_ring_close(struct t_ring *t);
/* Pin the calling thread to CPU 0 so every record goes to stream 0. */
void t_pin0(void);
/* Parse every record of a packet whose records all carry @plen-byte payloads. */
int t_parse(const uint8_t *pkt, uint64_t size, uint64_t plen, struct t_rec *out, int max);
/* The same, leaving out the ring's thread records (RTR_RING_THREADS) when @skip_threads. */
int t_parse_threads(const uint8_t *pkt, uint64_t size, uint64_t plen, struct t_rec *out, int max,
		    bool skip_threads);
struct rtr_cpu_ctl *t_ctl(struct t_ring *t, uint32_t cpu);
/* The source tree, absolute ($RTR_SRCDIR, else the working directory): where tests/ scripts are. */
const char *t_srcdir(void);
/*
 * tests/interop/lttng/compare.py over @trace: ringtrace dump's events, values,
 * times and losses are babeltrace2's ("N events alike" expected); @losses,
 * if not NULL, in its report ("losses alike: E events, P packets").
 */
void t_compare_bt2(const char *trace, const char *losses);
/* The directory of the running test binary (where the ringtrace programs are). */
const char *t_bindir(void);
/*
 * T_PRELOAD_ENV - what a shell command that preloads the tree's libraries
 * into a program (record --pthread's wrapper, Python's ctypes) starts
 * with: in a sanitizer's build, its runtime first, and the program's own
 * leaks not ours to report; else nothing.
 */
#ifdef RTR_SANITIZE
#define T_PRELOAD_ENV "LD_PRELOAD=$(gcc -print-file-name=libasan.so) " \
	"ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0 "
#else
#define T_PRELOAD_ENV ""
#endif
/*
 * t_record_locks() - `ringtrace record --pthread --hold-times` of
 * rtr-sched-prog contend 4 into @trace: the thread "holder" holds
 * queue_lock 30 ms 4 times while "waiter" waits.  Fails the test if the
 * recording does.
 */
void t_record_locks(const char *trace);
/*
 * Run @cmd through the shell, killed (with its children) after 300 s: its
 * standard output (malloc'd) and exit status (-1: killed).
 */
char *t_sh(const char *cmd, int *status);
/* The number after "KEY": in @json (one line of a bt2_*.py script); fails if absent. */
uint64_t t_json_u64(const char *json, const char *key);
/* Wait up to @secs for child @pid; one that runs longer has hung: kill it, fail. */
int t_wait_exit(int pid, double secs, const char *what);
/* A new directory /tmp/rtr-@name-XXXXXX, its path in @dir; t_rm_rf() removes it and all in it. */
void t_mkdtemp(char *dir, size_t len, const char *name);
void t_rm_rf(const char *dir);

#endif /* RTR_TESTS_HELPERS_H */
