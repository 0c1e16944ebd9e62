// SPDX-License-Identifier: MIT
/*
 * examples/stress/harness.c - see harness.h.  The writers run in this
 * process; the consumer runs in a forked child that maps the region file,
 * as a real consumer would.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <ringtrace/consumer.h>
#include "ringbuf/ring.h"
#include "platform/platform.h"
#include <ringtrace/ringtrace.h>
#include "events/classes.h"
#include "events/metadata.h"
#include "examples/stress/harness.h"

#define DROPPED_CPU	0xffffffffu

/* A run of consecutive events of one writer that went to the same place. */
struct run {
	uint64_t first_seq;
	uint64_t count;
	uint32_t cpu;		/* DROPPED_CPU: refused by the ring */
	uint64_t pkt;		/* packet index (position / packet size) */
};

struct writer {
	pthread_t t;
	uint32_t id;
	struct rtr_ring *_Atomic *slot;
	const struct stress_cfg *cfg;
	uint32_t packet_size;
	int *stop;
	struct run *runs;
	size_t nruns, cap;
	uint64_t seqs;
	uint64_t cpu_ns;
	int err;
};

struct payload {
	uint32_t writer;
	uint32_t pad;		/* the writer's tid: the thread records must say the same */
	uint64_t seq;
	uint64_t check;
};

static uint64_t thread_cpu_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int note(struct writer *w, uint64_t seq, uint32_t cpu, uint64_t pkt)
{
	struct run *r = w->nruns ? &w->runs[w->nruns - 1] : NULL;

	if (r && r->cpu == cpu && r->pkt == pkt && r->first_seq + r->count == seq) {
		r->count++;
		return 0;
	}
	if (w->nruns == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 4096;
		struct run *n = realloc(w->runs, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		w->runs = n;
		w->cap = cap;
	}
	w->runs[w->nruns++] = (struct run){ seq, 1, cpu, pkt };
	return 0;
}

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	uint64_t t0 = thread_cpu_ns();
	struct payload p = { .writer = w->id, .pad = (uint32_t)gettid() };

	for (uint64_t seq = 0; !__atomic_load_n(w->stop, __ATOMIC_RELAXED); seq++) {
		struct rtr_write_info info = { 0, 0 };
		int ret;

		if (w->cfg->max_events && seq == w->cfg->max_events)
			break;
		p.seq = seq;
		p.check = stress_checksum(w->id, seq);
		ret = rtr_ring_write_at(w->slot, STRESS_EVENT_ID, &p, sizeof(p), &info);
		if (ret == 0)
			ret = note(w, seq, info.cpu, info.pos / w->packet_size);
		else if (ret == -ENOBUFS || ret == -EBUSY)
			ret = note(w, seq, DROPPED_CPU, info.cpu);
		if (ret) {
			w->err = ret;
			break;
		}
		__atomic_store_n(&w->seqs, seq + 1, __ATOMIC_RELAXED);
	}
	w->cpu_ns = thread_cpu_ns() - t0;
	return NULL;
}

/* ---- consumer process ------------------------------------------------------ */


static const struct rtr_ctf_field stress_fields[] = {
	{ "writer", RTR_CTF_U32, NULL, 0 },
	{ "pad", RTR_CTF_U32, NULL, 0 },
	{ "seq", RTR_CTF_U64, NULL, 0 },
	{ "check", RTR_CTF_U64, NULL, 0 },
};

static const struct rtr_ctf_event stress_class = {
	"stress_event", STRESS_EVENT_ID, stress_fields, 4,
};

static int write_metadata(const char *dir, const struct rtr_region_hdr *h)
{
	char path[4096];
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "%s/trace/metadata", dir);
	f = fopen(path, "we");
	if (!f)
		return -errno;
	{
		/* the stress events, and the ring's thread records */
		const struct rtr_ctf_event cls[2] = { stress_class,
						      *rtr_event_builtin(RTR_EV_THREAD) };

		ret = rtr_ctf_write_metadata(f, h, NULL, cls, 2);
	}
	if (fclose(f) && !ret)
		ret = -EIO;
	return ret;
}

static int consumer_main(const char *dir, const char *region, uint32_t delay_us)
{
	struct rtr_consumer *c;
	char path[4096], err[256];
	int *fds, ret;
	uint32_t n;
	FILE *sum;

	ret = rtr_consumer_open(&c, region, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "stress consumer: %s\n", err);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/trace", dir);
	if (mkdir(path, 0700) && errno != EEXIST) {
		fprintf(stderr, "stress consumer: %s: %s\n", path, strerror(errno));
		return 1;
	}
	ret = write_metadata(dir, rtr_consumer_region(c));
	if (ret) {
		fprintf(stderr, "stress consumer: metadata: %s\n", strerror(-ret));
		return 1;
	}
	n = rtr_consumer_region(c)->ncpus;
	fds = calloc(n, sizeof(*fds));
	for (uint32_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/trace/stream_%u", dir, i);
		fds[i] = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fds[i] < 0) {
			fprintf(stderr, "stress consumer: %s: %s\n", path, strerror(errno));
			return 1;
		}
	}
	for (;;) {
		bool stopped = rtr_consumer_stopped(c);
		bool got = false;

		for (uint32_t i = 0; i < n; i++) {
			struct rtr_consumer_packet pkt;

			while (rtr_consumer_get(c, i, &pkt) == 0) {
				rtr_consumer_put(c, i);
				got = true;
				if (rtr_write_all(fds[i], pkt.data, pkt.size)) {
					fprintf(stderr, "stress consumer: write: %s\n", strerror(errno));
					return 1;
				}
				if (delay_us)
					usleep(delay_us);
			}
		}
		if (stopped && !got) {
			/* Stopped was seen before a pass that found nothing. */
			for (uint32_t i = 0; i < n; i++) {
				struct rtr_consumer_packet pkt;

				if (rtr_consumer_tail(c, i, &pkt) == 0) {
					rtr_consumer_put(c, i);
					if (rtr_write_all(fds[i], pkt.data, pkt.size))
						return 1;
				}
			}
			break;
		}
		if (!got)
			rtr_consumer_wait(c, 100);
	}
	snprintf(path, sizeof(path), "%s/summary", dir);
	sum = fopen(path, "we");
	if (!sum)
		return 1;
	for (uint32_t i = 0; i < n; i++) {
		struct rtr_consumer_stats st;

		rtr_consumer_get_stats(c, i, &st);
		fprintf(sum, "%u %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", i,
			rtr_consumer_lost(c, i), st.lapped, st.damaged, st.bad_position);
		close(fds[i]);
	}
	fclose(sum);
	free(fds);
	rtr_consumer_close(c);
	return 0;
}

/* ---- verification ------------------------------------------------------------ */

struct verify {
	const struct stress_cfg *cfg;
	struct stress_result *res;
	struct writer *w;
	uint32_t ncpus;
	uint32_t packet_size;
	uint8_t **got;		/* per writer: bitmap of received seqs */
	uint8_t **pkts;		/* per cpu: bitmap of received packets */
	uint64_t *npkts;	/* per cpu: bitmap size in packets */
	uint64_t *dropped;	/* per cpu, from the writers */
	uint64_t *discarded;	/* per cpu, the last packet's events_discarded */
	uint32_t pid;		/* the writers' process, as the thread records name it */
};

#define BAD(v, ...) do {							\
	if ((v)->res->ok) {							\
		snprintf((v)->res->why, sizeof((v)->res->why), __VA_ARGS__);	\
		(v)->res->ok = false;						\
	}									\
} while (0)

static const struct run *find_run(const struct writer *w, uint64_t seq)
{
	size_t lo = 0, hi = w->nruns;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct run *r = &w->runs[mid];

		if (seq < r->first_seq)
			hi = mid;
		else if (seq >= r->first_seq + r->count)
			lo = mid + 1;
		else
			return r;
	}
	return NULL;
}

static void mark_packet(struct verify *v, uint32_t cpu, uint64_t pkt)
{
	if (pkt >= v->npkts[cpu]) {
		uint64_t n = (pkt + 1) * 2;
		uint8_t *b = realloc(v->pkts[cpu], (n + 7) / 8);

		memset(b + (v->npkts[cpu] + 7) / 8, 0, (n + 7) / 8 - (v->npkts[cpu] + 7) / 8);
		v->pkts[cpu] = b;
		v->npkts[cpu] = n;
	}
	v->pkts[cpu][pkt / 8] |= (uint8_t)(1u << (pkt % 8));
}

static bool packet_seen(const struct verify *v, uint32_t cpu, uint64_t pkt)
{
	return pkt < v->npkts[cpu] && (v->pkts[cpu][pkt / 8] >> (pkt % 8) & 1);
}

static void check_event(struct verify *v, uint32_t cpu, uint64_t pkt, const uint8_t *p,
			uint64_t *last_seq)
{
	struct payload e;
	const struct run *r;
	struct writer *w;

	memcpy(&e, p, sizeof(e));
	if (e.writer >= v->cfg->writers) {
		BAD(v, "stream %u packet %" PRIu64 ": torn event, writer %u", cpu, pkt, e.writer);
		return;
	}
	if (e.check != stress_checksum(e.writer, e.seq)) {
		BAD(v, "stream %u packet %" PRIu64 ": torn event (writer %u seq %" PRIu64 ")",
		    cpu, pkt, e.writer, e.seq);
		return;
	}
	w = &v->w[e.writer];
	if (e.seq >= w->seqs) {
		BAD(v, "writer %u seq %" PRIu64 " was never written", e.writer, e.seq);
		return;
	}
	if (v->got[e.writer][e.seq / 8] >> (e.seq % 8) & 1) {
		BAD(v, "writer %u seq %" PRIu64 " duplicated", e.writer, e.seq);
		return;
	}
	v->got[e.writer][e.seq / 8] |= (uint8_t)(1u << (e.seq % 8));
	if (last_seq[e.writer] != UINT64_MAX && e.seq <= last_seq[e.writer])
		BAD(v, "stream %u: writer %u seq %" PRIu64 " after %" PRIu64, cpu, e.writer,
		    e.seq, last_seq[e.writer]);
	last_seq[e.writer] = e.seq;
	r = find_run(w, e.seq);
	if (!r || r->cpu != cpu || r->pkt != pkt)
		BAD(v, "writer %u seq %" PRIu64 " found in stream %u packet %" PRIu64
		    ", committed to %u/%" PRIu64, e.writer, e.seq, cpu, pkt,
		    r ? r->cpu : 0, r ? r->pkt : 0);
	v->res->received++;
}

/* Walk one stream file: packet headers, then every record in each packet. */
static void check_stream(struct verify *v, uint32_t cpu, const uint8_t *d, size_t n)
{
	uint64_t *last_seq = malloc(v->cfg->writers * sizeof(*last_seq));
	uint64_t prev_seq = UINT64_MAX, prev_disc = 0, prev_end = 0;
	size_t off = 0;

	for (uint32_t i = 0; i < v->cfg->writers; i++)
		last_seq[i] = UINT64_MAX;
	while (off < n && v->res->ok) {
		struct rtr_packet_hdr h;
		uint64_t size, pos, ts;
		uint32_t tid;

		if (n - off < RTR_PACKET_HDR_SIZE) {
			BAD(v, "stream %u: truncated packet header at %zu", cpu, off);
			break;
		}
		memcpy(&h, d + off, sizeof(h));
		size = h.content_size / 8;
		if (h.magic != RTR_CTF_MAGIC || size < RTR_PACKET_HDR_SIZE || size > n - off ||
		    size > v->packet_size || h.cpu_id != cpu) {
			BAD(v, "stream %u: bad packet at %zu", cpu, off);
			break;
		}
		if (prev_seq != UINT64_MAX) {
			if (h.packet_seq_num <= prev_seq)
				BAD(v, "stream %u: packet_seq_num %" PRIu64 " after %" PRIu64, cpu,
				    h.packet_seq_num, prev_seq);
			v->res->lost_packets += h.packet_seq_num - prev_seq - 1;
			if (h.timestamp_begin < prev_end)
				BAD(v, "stream %u: packet %" PRIu64 " begins before the previous end",
				    cpu, h.packet_seq_num);
		} else {
			v->res->lost_packets += h.packet_seq_num;
			v->res->lost_first_packets += h.packet_seq_num;
		}
		if (h.events_discarded < prev_disc)
			BAD(v, "stream %u: events_discarded went down", cpu);
		prev_seq = h.packet_seq_num;
		prev_disc = h.events_discarded;
		prev_end = h.timestamp_end;
		mark_packet(v, cpu, h.packet_seq_num);
		v->res->packets++;
		ts = h.timestamp_begin;
		tid = 0;	/* a packet names its threads itself */
		for (pos = RTR_PACKET_HDR_SIZE; pos < size && v->res->ok;) {
			uint32_t w, id, ids[2];
			uint64_t t;

			if (size - pos < 4) {
				BAD(v, "stream %u packet %" PRIu64 ": partial record", cpu, h.packet_seq_num);
				break;
			}
			memcpy(&w, d + off + pos, 4);
			if ((w & 31) == RTR_EV_EXTENDED) {
				if (size - pos < RTR_EV_EXTENDED_SIZE) {
					BAD(v, "stream %u: partial extended header", cpu);
					break;
				}
				memcpy(&id, d + off + pos + 1, 4);
				memcpy(&t, d + off + pos + 5, 8);
				pos += RTR_EV_EXTENDED_SIZE;
			} else {
				uint64_t low = w >> 5, mask = (1ull << RTR_EV_TS_BITS) - 1;

				id = w & 31;
				t = (ts & ~mask) | low;
				if (t < ts)
					t += 1ull << RTR_EV_TS_BITS;
				pos += 4;
			}
			if (t < ts || t > h.timestamp_end)
				BAD(v, "stream %u packet %" PRIu64 ": timestamp out of order", cpu,
				    h.packet_seq_num);
			ts = t;
			if (id == RTR_EV_THREAD_ID && size - pos >= RTR_EV_THREAD_SIZE) {
				/* u32 pid, u32 tid: the thread of the records after it */
				memcpy(ids, d + off + pos, sizeof(ids));
				if (ids[0] != v->pid || !ids[1])
					BAD(v, "stream %u packet %" PRIu64 ": thread record of pid %u "
					    "tid %u", cpu, h.packet_seq_num, ids[0], ids[1]);
				tid = ids[1];
				pos += RTR_EV_THREAD_SIZE;
				continue;
			}
			if (id != STRESS_EVENT_ID || size - pos < sizeof(struct payload)) {
				BAD(v, "stream %u packet %" PRIu64 ": bad record id %u", cpu,
				    h.packet_seq_num, id);
				break;
			}
			memcpy(&w, d + off + pos + offsetof(struct payload, pad), 4);
			if (w != tid)
				BAD(v, "stream %u packet %" PRIu64 ": an event of thread %u attributed "
				    "to %u", cpu, h.packet_seq_num, w, tid);
			check_event(v, cpu, h.packet_seq_num, d + off + pos, last_seq);
			pos += sizeof(struct payload);
		}
		off += size;
	}
	v->discarded[cpu] = prev_disc;
	free(last_seq);
}

static int read_file(const char *path, uint8_t **data, size_t *len)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t r;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return -errno;
	}
	*data = malloc((size_t)st.st_size + 1);
	*len = 0;
	if (!*data) {
		close(fd);
		return -ENOMEM;
	}
	while ((r = read(fd, *data + *len, (size_t)st.st_size - *len)) > 0)
		*len += (size_t)r;
	close(fd);
	return r < 0 ? -errno : 0;
}

static void verify(struct verify *v)
{
	char path[4096];
	FILE *sum;

	for (uint32_t i = 0; i < v->ncpus && v->res->ok; i++) {
		uint8_t *d = NULL;
		size_t n = 0;

		snprintf(path, sizeof(path), "%s/trace/stream_%u", v->cfg->dir, i);
		if (read_file(path, &d, &n)) {
			BAD(v, "%s: cannot read", path);
			free(d);
			break;
		}
		v->res->bytes += n;
		check_stream(v, i, d, n);
		free(d);
	}
	/* Every committed event missing from the files must be in a lost packet. */
	for (uint32_t wi = 0; wi < v->cfg->writers && v->res->ok; wi++) {
		struct writer *w = &v->w[wi];

		for (size_t r = 0; r < w->nruns && v->res->ok; r++) {
			const struct run *run = &w->runs[r];

			if (run->cpu == DROPPED_CPU) {
				v->dropped[run->pkt] += run->count;
				continue;
			}
			for (uint64_t s = run->first_seq; s < run->first_seq + run->count; s++) {
				if (v->got[wi][s / 8] >> (s % 8) & 1)
					continue;
				if (packet_seen(v, run->cpu, run->pkt)) {
					BAD(v, "writer %u seq %" PRIu64 " missing from stream %u packet %"
					    PRIu64 ", which was delivered", wi, s, run->cpu, run->pkt);
					break;
				}
				v->res->in_lost_packets++;
			}
		}
	}
	snprintf(path, sizeof(path), "%s/summary", v->cfg->dir);
	sum = fopen(path, "re");
	if (!sum) {
		BAD(v, "the consumer left no summary");
		return;
	}
	for (uint32_t i = 0; i < v->ncpus; i++) {
		unsigned cpu;
		uint64_t lost, lapped, damaged, badpos;

		if (fscanf(sum, "%u %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64, &cpu, &lost,
			   &lapped, &damaged, &badpos) != 5 || cpu != i) {
			BAD(v, "bad consumer summary");
			break;
		}
		v->res->events_discarded += v->discarded[i];
		if (v->dropped[i] != v->discarded[i] || lost != v->discarded[i])
			BAD(v, "stream %u: writers dropped %" PRIu64 ", trace says %" PRIu64
			    " discarded, producer counted %" PRIu64, i, v->dropped[i],
			    v->discarded[i], lost);
		if (damaged || badpos)
			BAD(v, "stream %u: consumer saw %" PRIu64 " damaged packets", i, damaged);
		if (v->cfg->mode == RTR_MODE_DISCARD && lapped)
			BAD(v, "stream %u: packets lost in discard mode", i);
	}
	fclose(sum);
	if (v->res->ok && v->res->written != v->res->received + v->res->in_lost_packets)
		BAD(v, "%" PRIu64 " committed, %" PRIu64 " received + %" PRIu64 " in lost packets",
		    v->res->written, v->res->received, v->res->in_lost_packets);
}

int stress_run(const struct stress_cfg *cfg, struct stress_result *res)
{
	struct rtr_ring_attr attr = {
		.struct_size = sizeof(attr), .mode = cfg->mode,
		.packet_size = cfg->packet_size, .packets_per_cpu = cfg->packets,
		.flags = (cfg->portable ? RTR_RING_PORTABLE : 0) | RTR_RING_THREADS,
	};
	static struct rtr_ring *_Atomic slot;
	struct verify v = { .cfg = cfg, .res = res, .pid = (uint32_t)getpid() };
	char region[4096];
	struct rtr_ring *ring;
	struct writer *w;
	int stop = 0;
	uint64_t cpu_ns = 0;
	double t0;
	pid_t pid;
	int ret, status;

	memset(res, 0, sizeof(*res));
	res->ok = true;
	snprintf(region, sizeof(region), "%s/region", cfg->dir);
	unlink(region);
	attr.path = region;
	ret = rtr_ring_create(&ring, &attr);
	if (ret) {
		snprintf(res->why, sizeof(res->why), "%s: %s", region, strerror(-ret));
		res->ok = false;
		return ret;
	}
	res->used_rseq = ring->use_rseq;
	fflush(NULL);	/* the child must not inherit unwritten output */
	pid = fork();
	if (pid == 0)
		_exit(consumer_main(cfg->dir, region, cfg->consumer_delay_us));
	if (pid < 0) {
		ret = -errno;
		goto out_ring;
	}
	__atomic_store_n(&slot, ring, __ATOMIC_RELEASE);

	w = calloc(cfg->writers, sizeof(*w));
	t0 = now_s();
	for (uint32_t i = 0; i < cfg->writers; i++) {
		w[i] = (struct writer){ .id = i, .slot = &slot, .cfg = cfg,
					.packet_size = ring->packet_size, .stop = &stop };
		pthread_create(&w[i].t, NULL, writer_main, &w[i]);
	}
	while (now_s() - t0 < cfg->seconds) {
		bool all_done = cfg->max_events != 0;

		for (uint32_t i = 0; i < cfg->writers; i++)
			all_done &= __atomic_load_n(&w[i].seqs, __ATOMIC_RELAXED) == cfg->max_events;
		if (all_done)
			break;
		usleep(10000);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (uint32_t i = 0; i < cfg->writers; i++) {
		pthread_join(w[i].t, NULL);
		if (w[i].err)
			snprintf(res->why, sizeof(res->why), "writer %u: %s", i, strerror(-w[i].err));
		cpu_ns += w[i].cpu_ns;
		for (size_t r = 0; r < w[i].nruns; r++) {
			if (w[i].runs[r].cpu == DROPPED_CPU)
				res->dropped += w[i].runs[r].count;
			else
				res->written += w[i].runs[r].count;
		}
	}
	res->seconds = now_s() - t0;
	res->ns_per_event = (double)cpu_ns / (double)(res->written + res->dropped ? res->written + res->dropped : 1);
	rtr_ring_detach(&slot);
	rtr_ring_stop(ring);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		snprintf(res->why, sizeof(res->why), "consumer process failed (status 0x%x)", status);
		res->ok = false;
	}

	v.w = w;
	v.ncpus = ring->ncpus;
	v.packet_size = ring->packet_size;
	v.got = calloc(cfg->writers, sizeof(*v.got));
	for (uint32_t i = 0; i < cfg->writers; i++)
		v.got[i] = calloc(w[i].seqs / 8 + 1, 1);
	v.pkts = calloc(v.ncpus, sizeof(*v.pkts));
	v.npkts = calloc(v.ncpus, sizeof(*v.npkts));
	v.dropped = calloc(v.ncpus, sizeof(*v.dropped));
	v.discarded = calloc(v.ncpus, sizeof(*v.discarded));
	if (res->ok)
		verify(&v);
	for (uint32_t i = 0; i < cfg->writers; i++) {
		free(v.got[i]);
		free(w[i].runs);
	}
	for (uint32_t i = 0; i < v.ncpus; i++)
		free(v.pkts[i]);
	free(v.got);
	free(v.pkts);
	free(v.npkts);
	free(v.dropped);
	free(v.discarded);
	free(w);
	ret = res->ok ? 0 : -EPROTO;
out_ring:
	rtr_ring_destroy(ring, true);
	return ret;
}

void stress_print(const struct stress_cfg *cfg, const struct stress_result *res)
{
	uint64_t attempts = res->written + res->dropped;

	printf("  mode            %s, %u writers, %u x %u KiB packets per CPU, %s path\n",
	       cfg->mode == RTR_MODE_DISCARD ? "discard" : "overwrite", cfg->writers,
	       cfg->packets, cfg->packet_size / 1024, res->used_rseq ? "rseq" : "portable");
	printf("  events          %" PRIu64 " attempted in %.2f s (%.1f M/s), %.1f ns/event of writer CPU\n",
	       attempts, res->seconds, (double)attempts / res->seconds / 1e6, res->ns_per_event);
	printf("  delivered       %" PRIu64 " events in %" PRIu64 " packets, %.1f MiB\n",
	       res->received, res->packets, (double)res->bytes / 1048576.0);
	printf("  lost            %" PRIu64 " dropped by the ring (trace says %" PRIu64
	       " discarded), %" PRIu64 " in %" PRIu64 " overwritten packets\n",
	       res->dropped, res->events_discarded, res->in_lost_packets, res->lost_packets);
	printf("  verified        %s%s\n", res->ok ? "every event: content, place, order, and every loss accounted for" : "FAILED: ",
	       res->ok ? "" : res->why);
}
