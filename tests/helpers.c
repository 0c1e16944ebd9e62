// SPDX-License-Identifier: MIT
/* tests/helpers.c - see helpers.h. */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include "tests/helpers.h"

void t_pin0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	cr_assert_eq(pthread_setaffinity_np(pthread_self(), sizeof(set), &set), 0);
}

void t_ring_open(struct t_ring *t, uint32_t mode, uint32_t psize, uint32_t npk, bool rseq)
{
	t_ring_open_blocking(t, mode, psize, npk, rseq, 0);
}

void t_ring_open_blocking(struct t_ring *t, uint32_t mode, uint32_t psize, uint32_t npk,
			  bool rseq, int64_t timeout_us)
{
	t_ring_open_flags(t, mode, psize, npk, rseq, timeout_us, 0);
}

void t_ring_open_flags(struct t_ring *t, uint32_t mode, uint32_t psize, uint32_t npk,
		       bool rseq, int64_t timeout_us, uint32_t flags)
{
	struct rtr_ring_attr attr = {
		.struct_size = sizeof(attr), .mode = mode, .packet_size = psize,
		.packets_per_cpu = npk, .flags = flags | (rseq ? 0 : RTR_RING_PORTABLE),
		.blocking_timeout_us = timeout_us,
	};
	char err[256];
	int ret;

	if (rseq && !rtr_ring_rseq_available())
		cr_skip_test("rseq is not available here");
	memset(t, 0, sizeof(*t));
	strcpy(t->dir, "/dev/shm/rtr-test-XXXXXX");
	cr_assert_not_null(mkdtemp(t->dir));
	snprintf(t->path, sizeof(t->path), "%s/region", t->dir);
	attr.path = t->path;
	ret = rtr_ring_create(&t->ring, &attr);
	cr_assert_eq(ret, 0, "rtr_ring_create: %s", strerror(-ret));
	cr_assert_eq(t->ring->use_rseq, rseq);
	__atomic_store_n(&t->slot, t->ring, __ATOMIC_RELEASE);
	ret = rtr_consumer_open(&t->c, t->path, err, sizeof(err));
	cr_assert_eq(ret, 0, "rtr_consumer_open: %s", err);
}

void t_ring_close(struct t_ring *t)
{
	if (__atomic_load_n(&t->slot, __ATOMIC_ACQUIRE))
		rtr_ring_detach(&t->slot);
	rtr_consumer_close(t->c);
	rtr_ring_destroy(t->ring, true);
	rmdir(t->dir);
}

struct rtr_cpu_ctl *t_ctl(struct t_ring *t, uint32_t cpu)
{
	return rtr_ring_cpu(t->ring, cpu);
}

int t_parse(const uint8_t *pkt, uint64_t size, uint64_t plen, struct t_rec *out, int max)
{
	return t_parse_threads(pkt, size, plen, out, max, false);
}

int t_parse_threads(const uint8_t *pkt, uint64_t size, uint64_t plen, struct t_rec *out, int max,
		    bool skip_threads)
{
	struct rtr_packet_hdr h;
	uint64_t pos = RTR_PACKET_HDR_SIZE, ts;
	int n = 0;

	memcpy(&h, pkt, sizeof(h));
	ts = h.timestamp_begin;
	while (pos < size) {
		uint32_t w;
		struct t_rec r;

		if (n == max || size - pos < 4)
			return -1;
		memcpy(&w, pkt + pos, 4);
		if ((w & 31) == RTR_EV_EXTENDED) {
			if (size - pos < RTR_EV_EXTENDED_SIZE)
				return -1;
			memcpy(&r.id, pkt + pos + 1, 4);
			memcpy(&r.ts, pkt + pos + 5, 8);
			pos += RTR_EV_EXTENDED_SIZE;
		} else {
			uint64_t mask = (1ull << RTR_EV_TS_BITS) - 1;

			r.id = w & 31;
			r.ts = (ts & ~mask) | (w >> 5);
			if (r.ts < ts)
				r.ts += 1ull << RTR_EV_TS_BITS;
			pos += 4;
		}
		ts = r.ts;
		if (skip_threads && r.id == RTR_EV_THREAD_ID) {
			if (size - pos < RTR_EV_THREAD_SIZE)
				return -1;
			pos += RTR_EV_THREAD_SIZE;
			continue;
		}
		if (size - pos < plen)
			return -1;
		r.payload = pkt + pos;
		r.len = plen;
		pos += plen;
		out[n++] = r;
	}
	return n;
}

const char *t_srcdir(void)
{
	static char path[PATH_MAX];
	const char *s = getenv("RTR_SRCDIR");

	if (!path[0] && !realpath(s && *s ? s : ".", path))
		snprintf(path, sizeof(path), "%s", s && *s ? s : ".");
	return path;
}

void t_compare_bt2(const char *trace, const char *losses)
{
	char cmd[PATH_MAX * 3 + 256], *out;
	int st;

	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 '%s/tests/interop/lttng/compare.py' '%s' "
		 "'%s/ringtrace' 2>&1", t_srcdir(), trace, t_bindir());
	out = t_sh(cmd, &st);
	cr_expect_eq(st, 0, "%s", out);
	cr_expect_not_null(strstr(out, " events alike"), "%s", out);
	if (losses)
		cr_expect_not_null(strstr(out, losses), "%s", out);
	free(out);
}

const char *t_bindir(void)
{
	static char dir[PATH_MAX];
	char exe[PATH_MAX];
	ssize_t n;

	if (dir[0])
		return dir;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	cr_assert_gt(n, 0);
	exe[n] = 0;
	snprintf(dir, sizeof(dir), "%s", dirname(exe));
	return dir;
}

char *t_sh(const char *cmd, int *status)
{
	size_t len = 0, cap = 1 << 16, n;
	char *out = malloc(cap);
	FILE *p;
	int st;

	cr_assert_not_null(out);
	/* Under a kill timeout: a test that times out leaves no command running. */
	cr_assert_eq(setenv("RTR_T_SH_CMD", cmd, 1), 0);
	p = popen("timeout -s KILL 300 /bin/sh -c \"$RTR_T_SH_CMD\"", "r");
	cr_assert_not_null(p, "%s", cmd);
	while ((n = fread(out + len, 1, cap - len - 1, p)) > 0) {
		len += n;
		if (cap - len < 4096) {
			out = realloc(out, cap *= 2);
			cr_assert_not_null(out);
		}
	}
	out[len] = 0;
	st = pclose(p);
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	return out;
}

uint64_t t_json_u64(const char *json, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\": ", key);
	p = strstr(json, pat);
	cr_assert_not_null(p, "no %s in %s", key, json);
	return strtoull(p + strlen(pat), NULL, 10);
}

int t_wait_exit(int pid, double secs, const char *what)
{
	struct timespec t0, t;
	int st;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid)
			return st;
		cr_assert_eq(r, 0, "waitpid %s: %s", what, strerror(errno));
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 > secs) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			cr_assert_fail("%s hung (%.0f s)", what, secs);
		}
		usleep(10000);
	}
}

void t_mkdtemp(char *dir, size_t len, const char *name)
{
	snprintf(dir, len, "/tmp/rtr-%s-XXXXXX", name);
	cr_assert_not_null(mkdtemp(dir), "mkdtemp %s: %s", dir, strerror(errno));
}

void t_rm_rf(const char *dir)
{
	char cmd[PATH_MAX + 16];
	int st;

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	free(t_sh(cmd, &st));
}

void t_record_locks(const char *trace)
{
	char cmd[2048], *out;
	int st;

	snprintf(cmd, sizeof(cmd), T_PRELOAD_ENV "'%s/ringtrace' record -q --pthread --hold-times "
		 "-o '%s' -- '%s/rtr-sched-prog' contend 4 >/dev/null 2>&1; echo $?", t_bindir(),
		 trace, t_bindir());
	out = t_sh(cmd, &st);
	cr_assert_eq(atoi(out), 0, "recording the locks of rtr-sched-prog contend: %s", out);
	free(out);
}
