// SPDX-License-Identifier: MIT
/*
 * consumer/kernel.c - the kernel's view of a traced process tree (kernel.h):
 * perf events of the program, inherited by its threads and children, one
 * buffer per CPU, read by the recorder and written as CTF packets.
 *
 * perf: a software "dummy" event (it counts nothing) with context_switch,
 * task (fork, exit), comm and comm_exec records, mmap2 records of the
 * executable mappings (with the file's build id where the kernel has
 * them: Linux 5.12; the reader's symbols, reader/symbols.c), user space only
 * (exclude_kernel: what perf_event_paranoid 2 allows without privilege),
 * inherit, enable_on_exec, and every record's sample_id (pid, tid, time,
 * cpu) on CLOCK_MONOTONIC (use_clockid).  Inherited events must be mapped
 * per CPU, so there is one buffer per CPU: the records of the threads that
 * ran there, in order.
 *
 * --sample: a software task-clock event per CPU besides, sampling each
 * thread's own code HZ times a second of its CPU time (only while in user
 * space: exclude_kernel), with the kernel's walk of its user stack by
 * frame pointers (PERF_SAMPLE_CALLCHAIN); its records go into the dummy
 * event's buffer (PERF_EVENT_IOC_SET_OUTPUT), in order with the switches.
 *
 * Clock: the ring's is CLOCK_MONOTONIC in ns where the TSC is not invariant
 * (then perf's times are the ring's, exactly), else the TSC.  Then each
 * time is converted through (TSC, CLOCK_MONOTONIC) pairs read back to back
 * by the recorder before each drain: linear between the two pairs around
 * it, so the error is the pairs' own (the few tens of ns between two reads
 * of the TSC around clock_gettime), not a frequency's drift over the run.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "format/error.h"
#include "consumer/kernel.h"
#include "events/classes.h"
#include "platform/platform.h"

#define KPACKET		(64u * 1024)	/* bytes per packet of a kernel stream */
#define KPAIRS		1024		/* clock pairs kept */
#define COMM_LEN	16

struct kcpu {
	int fd;
	int sfd;			/* --sample's event, or -1 */
	struct perf_event_mmap_page *mp;
	size_t map_len;
	uint8_t *data;
	uint64_t data_size;
	uint8_t *pkt;			/* the packet being filled: header, then records */
	size_t len;
	uint64_t begin, last;		/* ring clock: first and last record of the packet */
	uint64_t prev_end;		/* the last packet's end */
	uint64_t opened_ns;		/* CLOCK_MONOTONIC when its first record came */
	uint64_t seq;
	uint64_t lost;			/* records the kernel dropped, cumulative */
	uint64_t lost_written;		/* ... as the last packet written says */
	bool any;			/* a packet was written */
};

struct comm_slot {
	uint32_t tid;			/* 0: empty */
	char comm[COMM_LEN];
};

struct pair {
	uint64_t mono;
	uint64_t clk;
};

struct rtr_kernel {
	uint32_t ncpus;
	struct kcpu *cpu;
	uint8_t uuid[16];
	bool started;
	bool tsc;			/* convert CLOCK_MONOTONIC to the TSC */
	uint64_t freq;			/* the ring's clock, per second */
	struct pair pairs[KPAIRS];
	uint32_t npairs;
	struct comm_slot *comms;
	uint32_t comm_mask;
	uint32_t ncomms;
	struct rtr_kernel_report rep;
};

static long perf_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
	return syscall(SYS_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

int rtr_kernel_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	int v = INT32_MIN;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = INT32_MIN;
		fclose(f);
	}
	return v;
}

/* Why perf_event_open() failed with @e, for a user. */
static void why_refused(int e, char *err, size_t errlen)
{
	int p = rtr_kernel_paranoid();
	char lvl[64];

	if (p == INT32_MIN)
		snprintf(lvl, sizeof(lvl), "perf_event_paranoid unreadable");
	else
		snprintf(lvl, sizeof(lvl), "perf_event_paranoid is %d", p);
	if (e == EACCES || e == EPERM) {
		if (p >= 3)
			rtr_errf(err, errlen, e,
				 "the kernel refuses perf events to users without "
				 "CAP_PERFMON (%s; 2 allows a user's own processes: sysctl "
				 "kernel.perf_event_paranoid=2)",
				 lvl);
		else
			rtr_errf(err, errlen, e,
				 "the kernel refused perf events (%s, which allows "
				 "them: a seccomp filter, a container's or a security module's "
				 "policy refuses perf_event_open)",
				 lvl);
	} else if (e == ENOSYS) {
		rtr_errf(err, errlen, e,
			 "perf_event_open is not available (a kernel without perf "
			 "events, or a seccomp filter that hides it)");
	} else if (e == EINVAL || e == ENOENT || e == EOPNOTSUPP) {
		rtr_errf(err, errlen, e,
			 "this kernel does not have the perf records needed "
			 "(context switches, clockid: Linux 4.3 and later): %s",
			 strerror(e));
	} else {
		rtr_errf(err, errlen, e, "perf_event_open: %s", strerror(e));
	}
}

/* /proc/sys/kernel/perf_event_max_sample_rate, or 0 if unreadable. */
static long max_sample_rate(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "re");
	long v = 0;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

/*
 * --sample: CPU @i's sampling event, its records into the dummy event's
 * buffer.  Return: 0, or -errno with @err saying why.
 */
static int open_sampler(struct kcpu *c, const struct perf_event_attr *dummy, pid_t pid,
			uint32_t i, unsigned hz, char *err, size_t errlen)
{
	struct perf_event_attr a = *dummy;
	long fd, max;

	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	/*
	 * task-clock counts ns of the thread's CPU time: a fixed period of
	 * 1e9 / HZ of them is HZ samples a second exactly, without the
	 * kernel's adjustment of a frequency at every tick
	 */
	a.freq = 0;
	a.sample_period = 1000000000u / hz;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			PERF_SAMPLE_CALLCHAIN;
	a.exclude_callchain_kernel = 1;
	a.comm = a.comm_exec = a.task = a.mmap = a.mmap2 = a.build_id = 0;
	a.context_switch = 0;
	fd = perf_open(&a, pid, (int)i);
	if (fd < 0) {
		int e = errno;

		max = max_sample_rate();
		if (e == EINVAL && max > 0 && hz > (unsigned long)max)
			rtr_errf(err, errlen, e,
				 "--sample=%u: the kernel allows at most %ld samples a "
				 "second (perf_event_max_sample_rate)",
				 hz, max);
		else
			why_refused(e, err, errlen);
		return -e;
	}
	if (ioctl((int)fd, PERF_EVENT_IOC_SET_OUTPUT, c->fd)) {
		int e = errno;

		close((int)fd);
		return rtr_errf(err, errlen, e,
				"the samples of CPU %u could not share its buffer: %s", i,
				strerror(e));
	}
	c->sfd = (int)fd;
	return 0;
}

/* ---- thread names ---------------------------------------------------------------- */

static struct comm_slot *comm_slot(struct rtr_kernel *k, uint32_t tid, bool add)
{
	uint32_t i;

	if (!tid)
		return NULL;
	if (add && 2 * (k->ncomms + 1) > k->comm_mask + 1) {
		uint32_t n = 2 * (k->comm_mask + 1);
		struct comm_slot *t = calloc(n, sizeof(*t));

		if (!t)
			return NULL;
		for (uint32_t j = 0; j <= k->comm_mask; j++) {
			if (!k->comms[j].tid)
				continue;
			i = (k->comms[j].tid * 2654435761u) & (n - 1);
			while (t[i].tid)
				i = (i + 1) & (n - 1);
			t[i] = k->comms[j];
		}
		free(k->comms);
		k->comms = t;
		k->comm_mask = n - 1;
	}
	i = (tid * 2654435761u) & k->comm_mask;
	while (k->comms[i].tid && k->comms[i].tid != tid)
		i = (i + 1) & k->comm_mask;
	if (k->comms[i].tid == tid)
		return &k->comms[i];
	if (!add)
		return NULL;
	k->comms[i].tid = tid;
	k->comms[i].comm[0] = 0;
	k->ncomms++;
	return &k->comms[i];
}

static void comm_set(struct rtr_kernel *k, uint32_t tid, const char *comm, size_t n)
{
	struct comm_slot *s = comm_slot(k, tid, true);

	if (!s)
		return;
	if (n >= COMM_LEN)
		n = COMM_LEN - 1;
	memcpy(s->comm, comm, n);
	s->comm[n] = 0;
}

static const char *comm_of(struct rtr_kernel *k, uint32_t tid)
{
	struct comm_slot *s = comm_slot(k, tid, false);

	return s ? s->comm : "";
}

/* Thread @tid of process @pid's name as /proc says it now ("" if gone). */
static void proc_comm(uint32_t pid, uint32_t tid, char comm[COMM_LEN])
{
	char path[64];
	ssize_t n;
	int fd;

	comm[0] = 0;
	snprintf(path, sizeof(path), "/proc/%u/task/%u/comm", pid, tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, comm, COMM_LEN - 1);
	close(fd);
	if (n <= 0)
		n = 0;
	comm[n] = 0;
	comm[strcspn(comm, "\n")] = 0;
}

/* ---- open ------------------------------------------------------------------------ */

static int map_cpu(struct kcpu *c, char *err, size_t errlen, uint32_t cpu)
{
	long page = sysconf(_SC_PAGESIZE);

	/*
	 * 1024 pages (4 MiB: 0.4 s of 300,000 records a second, more than the
	 * recorder is ever kept from its loop), else fewer: a user's perf
	 * buffers are limited to perf_event_mlock_kb (516 KiB) per CPU beyond
	 * RLIMIT_MEMLOCK.
	 */
	for (size_t pages = 1024; pages >= 8; pages /= 2) {
		void *p = mmap(NULL, (pages + 1) * (size_t)page, PROT_READ | PROT_WRITE, MAP_SHARED,
			       c->fd, 0);

		if (p != MAP_FAILED) {
			c->mp = p;
			c->map_len = (pages + 1) * (size_t)page;
			c->data = (uint8_t *)p + page;
			c->data_size = pages * (uint64_t)page;
			return 0;
		}
		if (errno != EPERM && errno != ENOMEM)
			break;
	}
	return rtr_errf(err, errlen, errno,
			"the buffer of CPU %u's perf events could not be "
			"mapped (%s: the perf_event_mlock_kb limit)",
			cpu, strerror(errno));
}

int rtr_kernel_open(struct rtr_kernel **kp, pid_t pid, const char *comm, unsigned sample_hz,
		    char *err, size_t errlen)
{
	struct perf_event_attr a;
	struct rtr_kernel *k;
	long n = sysconf(_SC_NPROCESSORS_CONF);
	int ret = 0;

	*kp = NULL;
	if (n < 1)
		n = 1;
	k = calloc(1, sizeof(*k));
	if (!k || !(k->cpu = calloc((size_t)n, sizeof(*k->cpu))) ||
	    !(k->comms = calloc(64, sizeof(*k->comms)))) {
		if (k)
			free(k->cpu);
		free(k);
		return rtr_errf(err, errlen, ENOMEM, "out of memory");
	}
	k->comm_mask = 63;
	k->ncpus = (uint32_t)n;
	/* no descriptor yet: a failure below closes only what it opened (not fd 0) */
	for (uint32_t i = 0; i < k->ncpus; i++)
		k->cpu[i].fd = k->cpu[i].sfd = -1;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	a.disabled = 1;
	a.inherit = 1;
	a.enable_on_exec = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.comm = 1;
	a.comm_exec = 1;
	a.task = 1;
	a.mmap = 1;
	a.mmap2 = 1;
	a.build_id = 1;
	a.context_switch = 1;
	a.sample_id_all = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	for (uint32_t i = 0; i < k->ncpus; i++) {
		struct kcpu *c = &k->cpu[i];
		long fd = perf_open(&a, pid, (int)i);

		if (fd < 0 && errno == EINVAL && a.build_id) {
			/* A kernel before 5.12: the mappings without build ids. */
			a.build_id = 0;
			fd = perf_open(&a, pid, (int)i);
		}
		c->fd = -1;
		c->sfd = -1;
		if (fd < 0 && errno == ENODEV)
			continue;	/* offline */
		if (fd < 0) {
			ret = -errno;
			why_refused(errno, err, errlen);
			break;
		}
		c->fd = (int)fd;
		if ((ret = map_cpu(c, err, errlen, i)))
			break;
		if (!(c->pkt = malloc(KPACKET))) {
			ret = rtr_errf(err, errlen, ENOMEM, "out of memory");
			break;
		}
		c->len = RTR_PACKET_HDR_SIZE;
		k->rep.cpus++;
		if (sample_hz && !k->rep.sample_refused[0] &&
		    open_sampler(c, &a, pid, i, sample_hz, k->rep.sample_refused,
				 sizeof(k->rep.sample_refused)))
			for (uint32_t j = 0; j < i; j++) {
				/* all CPUs or none: a partial profile would mislead */
				if (k->cpu[j].sfd >= 0)
					close(k->cpu[j].sfd);
				k->cpu[j].sfd = -1;
			}
	}
	if (!ret && !k->rep.cpus) {
		ret = rtr_errf(err, errlen, ENODEV, "no CPU took perf events");
	}
	if (ret) {
		rtr_kernel_close(k);
		return ret;
	}
	if (sample_hz && !k->rep.sample_refused[0])
		k->rep.sample_hz = sample_hz;
	comm_set(k, (uint32_t)pid, comm, strlen(comm));
	*kp = k;
	return 0;
}

void rtr_kernel_close(struct rtr_kernel *k)
{
	if (!k)
		return;
	for (uint32_t i = 0; i < k->ncpus; i++) {
		if (k->cpu[i].mp)
			munmap(k->cpu[i].mp, k->cpu[i].map_len);
		if (k->cpu[i].sfd >= 0)
			close(k->cpu[i].sfd);
		if (k->cpu[i].fd >= 0)
			close(k->cpu[i].fd);
		free(k->cpu[i].pkt);
	}
	free(k->cpu);
	free(k->comms);
	free(k);
}

/* ---- the clock ------------------------------------------------------------------- */

/* A (ring clock, CLOCK_MONOTONIC) pair, the best of 5 reads. */
static void add_pair(struct rtr_kernel *k)
{
	uint64_t best = UINT64_MAX;
	struct pair p = { 0, 0 };

	for (int i = 0; i < 5; i++) {
		uint64_t a = rtr_clock_read(), m = rtr_monotonic_ns(), b = rtr_clock_read();

		if (b - a < best) {
			best = b - a;
			p.mono = m;
			p.clk = a + (b - a) / 2;
		}
	}
	if (k->npairs && p.mono <= k->pairs[k->npairs - 1].mono)
		return;
	if (k->npairs == KPAIRS) {
		memmove(k->pairs, k->pairs + KPAIRS / 2, (KPAIRS / 2) * sizeof(k->pairs[0]));
		k->npairs = KPAIRS / 2;
	}
	k->pairs[k->npairs++] = p;
}

/* CLOCK_MONOTONIC ns @t to the ring's clock. */
static uint64_t to_clock(const struct rtr_kernel *k, uint64_t t)
{
	const struct pair *a, *b;
	uint32_t lo = 0, hi = k->npairs;
	__int128 d;

	if (!k->tsc || !k->npairs)
		return t;
	/* the last pair at or before @t */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (k->pairs[mid].mono <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || lo == k->npairs) {
		/* before the first pair or after the last: the ring's frequency */
		a = &k->pairs[lo ? lo - 1 : 0];
		d = ((__int128)t - (__int128)a->mono) * (__int128)k->freq / 1000000000;
	} else {
		a = &k->pairs[lo - 1];
		b = &k->pairs[lo];
		d = ((__int128)t - (__int128)a->mono) * (__int128)(b->clk - a->clk) /
		    (__int128)(b->mono - a->mono);
	}
	d += a->clk;
	return d < 0 ? 0 : (uint64_t)d;
}

int rtr_kernel_start(struct rtr_kernel *k, const struct rtr_region_hdr *h, char *err,
		     size_t errlen)
{
	memcpy(k->uuid, h->uuid, sizeof(k->uuid));
	k->freq = h->clock_freq;
	/* The producer's choice (platform/unix/clock.c), made on this machine too. */
	k->tsc = h->clock_freq != 1000000000u;
	if (k->tsc && !rtr_tsc_usable())
		return rtr_errf(err, errlen, ENOTSUP,
				"the trace's clock runs at %" PRIu64 " Hz, and this recorder "
				"cannot read it to convert the kernel's times",
				h->clock_freq);
	k->rep.clock = k->tsc ? "CLOCK_MONOTONIC, converted to the ring's TSC through pairs of "
				"reads made at each drain" :
				"CLOCK_MONOTONIC, the ring's own clock";
	k->started = true;
	add_pair(k);
	return 0;
}

/* ---- records --------------------------------------------------------------------- */

static int put_packet(struct rtr_kernel *k, struct kcpu *c, uint32_t cpu, struct rtr_out *out)
{
	struct rtr_packet_hdr *p = (struct rtr_packet_hdr *)c->pkt;
	int ret;

	if (c->len == RTR_PACKET_HDR_SIZE) {
		/* empty: only to carry losses, at the end */
		c->begin = c->last = c->prev_end;
	}
	*p = (struct rtr_packet_hdr){
		.magic = RTR_CTF_MAGIC, .stream_id = 0,
		.stream_instance_id = RTR_KSTREAM_BASE + cpu, .timestamp_begin = c->begin,
		.packet_seq_num = c->seq, .cpu_id = cpu, .timestamp_end = c->last,
		.content_size = (uint64_t)c->len * 8, .packet_size = (uint64_t)c->len * 8,
		.events_discarded = c->lost,
	};
	memcpy(p->uuid, k->uuid, sizeof(p->uuid));
	for (int tries = 0;; tries++) {
		ret = rtr_out_packetv(out, RTR_KSTREAM_BASE + cpu, c->pkt,
				      c->pkt + RTR_PACKET_HDR_SIZE, c->len);
		if (ret != -ENOBUFS || tries >= 600)
			break;
		rtr_out_wait(out, 100);		/* the queue makes room */
	}
	if (ret)
		return ret;
	rtr_out_publish(out);
	k->rep.packets++;
	c->seq++;
	c->prev_end = c->last;
	c->lost_written = c->lost;
	c->len = RTR_PACKET_HDR_SIZE;
	c->any = true;
	return 0;
}

/*
 * Room for a record of @size bytes at ring time @ts in @c's packet (the
 * full one written first); the time kept from going back within the stream.
 */
static uint8_t *reserve(struct rtr_kernel *k, struct kcpu *c, uint32_t cpu, struct rtr_out *out,
			uint32_t id, uint64_t ts, size_t size, int *ret)
{
	uint8_t *r;

	*ret = 0;
	if (c->len + 13 + size > KPACKET && (*ret = put_packet(k, c, cpu, out)))
		return NULL;
	if (ts < c->prev_end)
		ts = c->prev_end;
	if (c->len == RTR_PACKET_HDR_SIZE) {
		c->begin = ts;
		c->opened_ns = rtr_monotonic_ns();
	} else if (ts < c->last) {
		ts = c->last;
	}
	c->last = ts;
	r = c->pkt + c->len;
	r[0] = RTR_EV_EXTENDED;
	memcpy(r + 1, &id, 4);
	memcpy(r + 5, &ts, 8);
	c->len += 13 + size;
	return r + 13;
}

/* The sample_id at the end of a record: pid, tid, time (ns), cpu. */
struct sample_id {
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu, res;
};

/*
 * A sample: ip; pid, tid; time; cpu; the callchain (nr, then nr
 * addresses, the kernel's context markers among them).  Written as
 * kernel:sample with the user addresses only, the sampled one first.
 */
static int on_sample(struct rtr_kernel *k, struct kcpu *c, uint32_t cpu, struct rtr_out *out,
		     const uint8_t *rec, size_t size)
{
	const size_t fixed = sizeof(struct perf_event_header) + 8 + 8 + 8 + 8 + 8;
	uint64_t ip, t, nr, a;
	uint32_t v[2], n = 0, len;
	bool chain;
	uint8_t *p;
	int ret = 0;

	if (size < fixed)
		return 0;
	memcpy(&ip, rec + 8, 8);
	memcpy(v, rec + 16, 8);
	memcpy(&t, rec + 24, 8);
	memcpy(&nr, rec + 40, 8);
	if (nr > (size - fixed) / 8)
		nr = (size - fixed) / 8;
	/* the frames the record has, markers dropped; the ip first even without a chain */
	for (uint64_t j = 0; j < nr; j++) {
		memcpy(&a, rec + fixed + 8 * j, 8);
		if (a < PERF_CONTEXT_MAX)
			n++;
	}
	chain = n > 0;
	if (!chain)
		n = 1;
	len = 8 * n;
	p = reserve(k, c, cpu, out, RTR_KEV_ID_BASE + RTR_KEV_SAMPLE, to_clock(k, t), 12 + len,
		    &ret);
	if (!p)
		return ret;
	memcpy(p, &v[0], 4);
	memcpy(p + 4, &v[1], 4);
	memcpy(p + 8, &len, 4);
	p += 12;
	if (!chain) {
		memcpy(p, &ip, 8);	/* no user frame in the chain: the sampled address */
	} else {
		for (uint64_t j = 0; j < nr; j++) {
			memcpy(&a, rec + fixed + 8 * j, 8);
			if (a < PERF_CONTEXT_MAX) {
				memcpy(p, &a, 8);
				p += 8;
			}
		}
	}
	k->rep.samples++;
	return 0;
}

static int on_record(struct rtr_kernel *k, struct kcpu *c, uint32_t cpu, struct rtr_out *out,
		     const uint8_t *rec, size_t size)
{
	struct perf_event_header eh;
	struct sample_id sid;
	uint64_t ts;
	uint8_t *p;
	uint32_t v[4];
	int ret = 0;

	memcpy(&eh, rec, sizeof(eh));
	if (eh.type == PERF_RECORD_SAMPLE)
		return on_sample(k, c, cpu, out, rec, size);
	if (size < sizeof(eh) + sizeof(sid))
		return 0;
	memcpy(&sid, rec + size - sizeof(sid), sizeof(sid));
	ts = to_clock(k, sid.time);
	switch (eh.type) {
	case PERF_RECORD_SWITCH: {
		uint8_t what = !(eh.misc & PERF_RECORD_MISC_SWITCH_OUT) ? RTR_KSWITCH_IN :
			       (eh.misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) ?
			       RTR_KSWITCH_PREEMPTED : RTR_KSWITCH_BLOCKED;

		p = reserve(k, c, cpu, out, RTR_KEV_ID_BASE + RTR_KEV_SWITCH, ts, 9, &ret);
		if (!p)
			return ret;
		memcpy(p, &sid.pid, 4);
		memcpy(p + 4, &sid.tid, 4);
		p[8] = what;
		k->rep.switches++;
		return 0;
	}
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT: {
		char comm[COMM_LEN];
		size_t n;

		if (size < sizeof(eh) + 16 + sizeof(sid))
			return 0;
		memcpy(v, rec + sizeof(eh), 16);	/* pid, ppid, tid, ptid */
		if (eh.type == PERF_RECORD_EXIT) {
			p = reserve(k, c, cpu, out, RTR_KEV_ID_BASE + RTR_KEV_EXIT, ts, 8, &ret);
			if (!p)
				return ret;
			memcpy(p, &v[0], 4);
			memcpy(p + 4, &v[2], 4);
			k->rep.exits++;
			return 0;
		}
		/*
		 * A copy: comm_set() below may grow the table, and the parent's
		 * slot would move under a pointer into it (names of freed bytes).
		 */
		snprintf(comm, sizeof(comm), "%s", comm_of(k, v[3]));
		/*
		 * The parent's fork may be in another CPU's buffer, not read yet
		 * (each buffer is drained in turn): its process's name, which a
		 * thread starts with unless renamed; else the kernel's now.
		 */
		if (!comm[0])
			snprintf(comm, sizeof(comm), "%s", comm_of(k, v[1]));
		if (!comm[0])
			proc_comm(v[0], v[2], comm);
		n = strlen(comm);
		p = reserve(k, c, cpu, out, RTR_KEV_ID_BASE + RTR_KEV_FORK, ts, 16 + n + 1, &ret);
		if (!p)
			return ret;
		memcpy(p, &v[1], 4);
		memcpy(p + 4, &v[3], 4);
		memcpy(p + 8, &v[0], 4);
		memcpy(p + 12, &v[2], 4);
		memcpy(p + 16, comm, n + 1);
		comm_set(k, v[2], comm, n);
		k->rep.forks++;
		return 0;
	}
	case PERF_RECORD_COMM: {
		const char *s = (const char *)rec + sizeof(eh) + 8;
		size_t max = size - sizeof(eh) - 8 - sizeof(sid), n;

		if (size < sizeof(eh) + 8 + sizeof(sid))
			return 0;
		memcpy(v, rec + sizeof(eh), 8);
		n = strnlen(s, max < COMM_LEN ? max : COMM_LEN - 1);
		p = reserve(k, c, cpu, out, RTR_KEV_ID_BASE + RTR_KEV_COMM, ts, 9 + n + 1, &ret);
		if (!p)
			return ret;
		memcpy(p, &v[0], 4);
		memcpy(p + 4, &v[1], 4);
		p[8] = (eh.misc & PERF_RECORD_MISC_COMM_EXEC) ? 1 : 0;
		memcpy(p + 9, s, n);
		p[9 + n] = 0;
		comm_set(k, v[1], s, n);
		k->rep.comms++;
		return 0;
	}
	case PERF_RECORD_MMAP2: {
		/* pid, tid, addr, len, pgoff, 24 bytes of ids or build id, prot, flags, name */
		const size_t fixed = sizeof(eh) + 8 + 24 + 24 + 8;
		const char *name = (const char *)rec + fixed;
		char bid[41] = "";
		uint64_t q[3];
		size_t n, max;

		if (size < fixed + sizeof(sid))
			return 0;
		max = size - fixed - sizeof(sid);
		n = strnlen(name, max);
		if (n == max || name[0] != '/')
			return 0;	/* [vdso], //anon, memfd: no file to read symbols from */
		memcpy(v, rec + sizeof(eh), 8);
		memcpy(q, rec + sizeof(eh) + 8, 24);
		if (eh.misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			const uint8_t *b = rec + sizeof(eh) + 32;
			size_t bn = b[0] < 20 ? b[0] : 20;

			for (size_t i = 0; i < bn; i++)
				snprintf(bid + 2 * i, 3, "%02x", b[4 + i]);
		}
		p = reserve(k, c, cpu, out, RTR_KEV_ID_BASE + RTR_KEV_MMAP, ts,
			    32 + strlen(bid) + 1 + n + 1, &ret);
		if (!p)
			return ret;
		memcpy(p, &v[0], 4);
		memcpy(p + 4, &v[1], 4);
		memcpy(p + 8, q, 24);
		memcpy(p + 32, bid, strlen(bid) + 1);
		memcpy(p + 32 + strlen(bid) + 1, name, n);
		p[32 + strlen(bid) + 1 + n] = 0;
		k->rep.mmaps++;
		return 0;
	}
	case PERF_RECORD_LOST: {
		uint64_t lost;

		if (size < sizeof(eh) + 16 + sizeof(sid))
			return 0;
		memcpy(&lost, rec + sizeof(eh) + 8, 8);
		c->lost += lost;
		k->rep.lost += lost;
		return 0;
	}
	default:
		return 0;
	}
}

/* The records of CPU @cpu's buffer, up to what the kernel has written. */
static int drain_cpu(struct rtr_kernel *k, uint32_t cpu, struct rtr_out *out)
{
	struct kcpu *c = &k->cpu[cpu];
	uint64_t head = __atomic_load_n(&c->mp->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = c->mp->data_tail;
	uint8_t rec[65536];
	int ret = 0;

	while (tail < head && !ret) {
		struct perf_event_header eh;
		uint64_t off = tail % c->data_size;
		size_t first;

		if (head - tail < sizeof(eh))
			break;
		for (size_t i = 0; i < sizeof(eh); i++)
			((uint8_t *)&eh)[i] = c->data[(off + i) % c->data_size];
		if (eh.size < sizeof(eh) || eh.size > head - tail) {
			/* not a record: skip what is there (the kernel's, so not expected) */
			tail = head;
			break;
		}
		first = c->data_size - off < eh.size ? (size_t)(c->data_size - off) : eh.size;
		memcpy(rec, c->data + off, first);
		memcpy(rec + first, c->data, eh.size - first);
		ret = on_record(k, c, cpu, out, rec, eh.size);
		tail += eh.size;
	}
	__atomic_store_n(&c->mp->data_tail, tail, __ATOMIC_RELEASE);
	return ret;
}

int rtr_kernel_drain(struct rtr_kernel *k, struct rtr_out *out, uint64_t flush_ns, bool final)
{
	uint64_t now;
	int ret;

	if (!k->started)
		return 0;
	/* A pair after every record to be read: each is converted between two. */
	add_pair(k);
	for (uint32_t i = 0; i < k->ncpus; i++) {
		struct kcpu *c = &k->cpu[i];

		if (c->fd < 0)
			continue;
		if ((ret = drain_cpu(k, i, out)))
			return ret;
		/* after the drain: a packet it opened is not older than now */
		now = rtr_monotonic_ns();
		if (c->len > RTR_PACKET_HDR_SIZE &&
		    (final || (flush_ns && now - c->opened_ns >= flush_ns)) &&
		    (ret = put_packet(k, c, i, out)))
			return ret;
		/* losses after the last record: a packet with no record says them */
		if (final && c->lost != c->lost_written && (ret = put_packet(k, c, i, out)))
			return ret;
	}
	return 0;
}

void rtr_kernel_report(const struct rtr_kernel *k, struct rtr_kernel_report *r)
{
	*r = k->rep;
	if (!r->clock)
		r->clock = "";
}
