// SPDX-License-Identifier: MIT
/*
 * consumer/qfile.c - a dead recorder's write-behind queue (qfile.h), taken
 * into the trace that `ringtrace recover` writes.
 *
 * The rule, per stream: the packets the file holds up to the first one not
 * written whole are in the recorder's trace; that one and every later one
 * of the stream (written or not: with several writes in flight a later one
 * may be on disk while an earlier one is not) go into the new trace, in
 * order, before the ring's.  Where that first one had its place in a stream
 * file, the file is cut back to it, so the recorder's trace ends on a whole
 * packet and no packet is in both traces.  Documentation/consumer.rst,
 * "What survives what".
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <ringtrace/consumer.h>
#include "format/error.h"
#include "consumer/output.h"
#include "format/packet.h"
#include "consumer/qfile.h"
#include "consumer/session.h"

#define QFILE_CAP_MAX (1ull << 40)	/* --buffer-size's bound: a bigger one is refused */

struct live {
	struct rtr_qfile_slot v;	/* a copy of the descriptor, checked */
	uint64_t pos;
	const char *bad;		/* its packet's header does not check out: why */
	uint64_t seq;			/* its packet's packet_seq_num */
};

/* Check a packet as the consumer checks one from a ring; NULL if it passes. */
static const char *packet_bad(const struct rtr_region_hdr *rh, uint32_t cpu,
			      struct rtr_packet_hdr *p, uint64_t size)
{
	struct rtr_packet_rules r = {
		.cpu = cpu, .max_bytes = rh->packet_size, .freq = rh->clock_freq,
		.base_ns = rh->clock_offset_ns,
	};
	uint64_t bits = size * 8;

	/* packet_size: the padded size it was placed with; frames are not padded. */
	memcpy(&p->packet_size, &bits, sizeof(bits));
	return p->magic != RTR_CTF_MAGIC ? "bad magic" :
	       memcmp(p->uuid, rh->uuid, sizeof(p->uuid)) ? "uuid differs from the region's" :
	       p->content_size > bits ? "content_size runs past the packet" :
	       rtr_packet_check(p, &r);
}

static int by_pos(const void *a, const void *b)
{
	const struct live *x = a, *y = b;

	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static int by_order(const void *a, const void *b)
{
	const struct live *x = a, *y = b;

	return x->v.order < y->v.order ? -1 : x->v.order > y->v.order;
}

static int refuse(char *err, size_t errlen, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int refuse(char *err, size_t errlen, const char *path, const char *fmt, ...)
{
	char why[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return rtr_errf(err, errlen, EINVAL,
			"%s: %s: not a write-behind queue ringtrace can take; it is left as "
			"it is",
			path, why);
}

/* A chunk's name as the output makes them: ".", or letters, digits, '-' and '_'. */
static bool chunk_name_ok(const char *n)
{
	if (!strcmp(n, "."))
		return true;
	if (!*n || !strcmp(n, ".."))
		return false;
	for (; *n; n++)
		if (!((*n >= 'a' && *n <= 'z') || (*n >= 'A' && *n <= 'Z') ||
		      (*n >= '0' && *n <= '9') || *n == '-' || *n == '_'))
			return false;
	return true;
}

/*
 * Cut stream @cpu of the recorder's trace back to @off, after checking that
 * the file is that trace's (its first packet names the same trace).
 * Return: 1 if cut, 0 if it ended there already, or -errno with @warn.
 */
static int cut_stream(const struct rtr_qfile_hdr *h, uint32_t cpu, uint64_t off,
		      const uint8_t *uuid, char *warn, size_t wlen)
{
	struct rtr_packet_hdr first;
	char name[32];
	struct stat st;
	int dfd, cfd, fd, ret = 0;

	if (!chunk_name_ok(h->chunk)) {
		snprintf(warn, wlen, "%s: chunk '%.64s' is no name a recorder gives: not cut",
			 h->path, h->chunk);
		return -EINVAL;
	}
	dfd = open(h->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0) {
		ret = -errno;
		snprintf(warn, wlen, "%s: %s", h->path, strerror(errno));
		return ret;
	}
	cfd = !strcmp(h->chunk, ".") ? dfd :
	      openat(dfd, h->chunk, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (cfd < 0) {
		ret = -errno;
		snprintf(warn, wlen, "%s/%s: %s", h->path, h->chunk, strerror(errno));
		close(dfd);
		return ret;
	}
	snprintf(name, sizeof(name), "stream_%u", cpu);
	fd = openat(cfd, name, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		ret = fd < 0 ? -errno : -EINVAL;
		snprintf(warn, wlen, "%s/%s/%s: %s", h->path, h->chunk, name,
			 fd < 0 ? strerror(errno) : "not a regular file");
		goto out;
	}
	if ((uint64_t)st.st_size <= off)
		goto out;
	if (pread(fd, &first, sizeof(first), 0) != (ssize_t)sizeof(first) ||
	    first.magic != RTR_CTF_MAGIC || memcmp(first.uuid, uuid, sizeof(first.uuid))) {
		ret = -EINVAL;
		snprintf(warn, wlen, "%s/%s/%s: not the stream of this trace (its first packet "
			 "names another): not cut", h->path, h->chunk, name);
		goto out;
	}
	/* ftruncate() waits for direct writes still in flight to the file. */
	if (ftruncate(fd, (off_t)off) < 0 || fsync(fd) < 0) {
		ret = -errno;
		snprintf(warn, wlen, "%s/%s/%s: cannot cut it back to %" PRIu64 " bytes: %s",
			 h->path, h->chunk, name, off, strerror(errno));
		goto out;
	}
	ret = 1;
out:
	if (fd >= 0)
		close(fd);
	if (cfd != dfd)
		close(cfd);
	close(dfd);
	return ret;
}

/*
 * The descriptors to read, extent by extent: a hole in the table was never
 * written, and reads as FREE; a terabyte queue's table is not read through.
 */
struct slot_iter {
	int fd;
	uint64_t nslots, i, end;
};

static bool next_slot(struct slot_iter *it, uint64_t *idx)
{
	const uint64_t sz = sizeof(struct rtr_qfile_slot);

	if (it->i >= it->end) {
		off_t d = lseek(it->fd, (off_t)(RTR_QFILE_HDR + it->i * sz), SEEK_DATA);

		if (d < 0 && errno == ENXIO)
			return false;	/* holes to the end */
		if (d < 0) {
			it->end = it->nslots;	/* no SEEK_DATA here: all of it */
		} else {
			off_t h = lseek(it->fd, d, SEEK_HOLE);

			it->i = ((uint64_t)d - RTR_QFILE_HDR) / sz;
			it->end = h < d ? it->nslots : ((uint64_t)h - RTR_QFILE_HDR + sz - 1) / sz;
			if (it->end > it->nslots)
				it->end = it->nslots;
		}
		if (it->i >= it->end)
			return false;
	}
	*idx = it->i++;
	return true;
}

/* A packet the queue would take for @cpu, from @from on, is damaged. */
static bool cpu_bad(const struct live *lv, uint64_t from, uint64_t n, uint32_t cpu)
{
	for (uint64_t i = from; i < n; i++)
		if (lv[i].v.cpu == cpu && lv[i].bad)
			return true;
	return false;
}

static void warn_add(struct rtr_qfile_report *rep, const char *w)
{
	size_t n = strlen(rep->warn);

	if (n + 2 < sizeof(rep->warn))
		snprintf(rep->warn + n, sizeof(rep->warn) - n, "%s%s", n ? "\n" : "", w);
}

int rtr_qfile_look(const char *qpath, struct rtr_qfile_info *info)
{
	struct rtr_qfile_hdr h;
	struct stat st;
	int fd = open(qpath, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	int ret = 0;
	uint64_t i;

	memset(info, 0, sizeof(*info));
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
	    memcmp(h.magic, RTR_QFILE_MAGIC, sizeof(h.magic)) || h.version != RTR_QFILE_VERSION ||
	    !h.cap || h.cap % RTR_QFILE_BLOCK || h.cap > QFILE_CAP_MAX ||
	    h.arena_off != rtr_qfile_arena_off(h.cap) ||
	    (uint64_t)st.st_size < h.arena_off + h.cap) {
		ret = -EINVAL;
		goto out;
	}
	info->pid = h.pid;
	info->bytes = (uint64_t)st.st_blocks * 512;
	info->running = flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK;
	h.path[sizeof(h.path) - 1] = 0;
	snprintf(info->trace, sizeof(info->trace), "%s", h.stream ? "-" : h.path);
	for (struct slot_iter it = { fd, h.cap / RTR_QFILE_BLOCK, 0, 0 }; next_slot(&it, &i);) {
		struct rtr_qfile_slot sl;

		if (pread(fd, &sl, sizeof(sl), RTR_QFILE_HDR + i * sizeof(sl)) != (ssize_t)sizeof(sl))
			break;
		info->held += sl.state == RTR_QSLOT_QUEUED || sl.state == RTR_QSLOT_PLACED ||
			      sl.state == RTR_QSLOT_ALMOST;
	}
out:
	close(fd);
	return ret;
}

int rtr_qfile_recover(const char *qpath, struct rtr_session *s, struct rtr_out *o,
		      struct rtr_qfile_report *rep, char *err, size_t errlen)
{
	const struct rtr_region_hdr *rh = rtr_consumer_region(s->c);
	struct rtr_qfile_hdr h;
	struct live *lv = NULL;
	uint64_t si, lvcap = 0;
	uint8_t *map = MAP_FAILED, *buf = NULL;
	uint64_t n = 0, maplen = 0;
	struct stat st;
	bool *cut_done = NULL;
	int fd, ret = 0;

	memset(rep, 0, sizeof(*rep));
	fd = open(qpath, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		return rtr_errf(err, errlen, errno, "%s: %s", qpath, strerror(errno));
	}
	rep->found = true;
	/* Its recorder holds a lock on it while it lives. */
	if (flock(fd, LOCK_SH | LOCK_NB) < 0) {
		ret = rtr_errf(err, errlen, errno, "%s: %s", qpath,
			       errno == EWOULDBLOCK
				       ? "its recorder is still running: it is not taken"
				       : strerror(errno));
		goto out;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(h) ||
	    pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h)) {
		ret = refuse(err, errlen, qpath, "not a regular file of a queue's size");
		goto out;
	}
	h.chunk[sizeof(h.chunk) - 1] = 0;
	h.path[sizeof(h.path) - 1] = 0;
	if (memcmp(h.magic, RTR_QFILE_MAGIC, sizeof(h.magic))) {
		ret = refuse(err, errlen, qpath, "no queue's magic");
		goto out;
	}
	if (h.version != RTR_QFILE_VERSION) {
		ret = refuse(err, errlen, qpath, "version %u (this ringtrace reads %u)", h.version,
			     RTR_QFILE_VERSION);
		goto out;
	}
	if (!h.cap || h.cap % RTR_QFILE_BLOCK || h.cap > QFILE_CAP_MAX)
		ret = refuse(err, errlen, qpath, "a capacity of %" PRIu64 " bytes", h.cap);
	else if (h.nslots != h.cap / RTR_QFILE_BLOCK)
		ret = refuse(err, errlen, qpath, "%" PRIu64 " descriptors for its capacity",
			     h.nslots);
	else if (h.arena_off != rtr_qfile_arena_off(h.cap) ||
		 (uint64_t)st.st_size < h.arena_off + h.cap)
		ret = refuse(err, errlen, qpath, "a size of %" PRIu64 " bytes for its capacity",
			     (uint64_t)st.st_size);
	else if (h.stream > 2)
		ret = refuse(err, errlen, qpath, "an output of kind %u", h.stream);
	else if (h.state != RTR_QFILE_WRITING && h.state != RTR_QFILE_FAILED)
		ret = refuse(err, errlen, qpath, "state %u", h.state);
	else if (!h.stream && h.path[0] != '/')
		ret = refuse(err, errlen, qpath, "a trace directory that is not an absolute path");
	if (ret)
		goto out;
	maplen = h.arena_off + h.cap;
	map = mmap(NULL, maplen, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		ret = rtr_errf(err, errlen, errno, "%s: mmap: %s", qpath, strerror(errno));
		goto out;
	}
	/* The packets there: each checked, none overlapping another. */
	for (struct slot_iter it = { fd, h.nslots, 0, 0 }; next_slot(&it, &si);) {
		const struct rtr_qfile_slot *sl = (const void *)(map + RTR_QFILE_HDR) + si * sizeof(*sl);
		struct rtr_qfile_slot v;

		memcpy(&v, sl, sizeof(v));
		if (v.state == RTR_QSLOT_FREE)
			continue;
		if (n == lvcap) {
			struct live *nlv = realloc(lv, (lvcap = lvcap ? 2 * lvcap : 64) * sizeof(*lv));

			if (!nlv) {
				ret = rtr_errf(err, errlen, ENOMEM, "%s: out of memory", qpath);
				goto out;
			}
			lv = nlv;
		}
		if (v.state > RTR_QSLOT_ALMOST || v.cpu >= s->ncpus || !v.order ||
		    v.size < RTR_PACKET_HDR_SIZE || v.size > rh->packet_size ||
		    v.room % RTR_QFILE_BLOCK || v.room < v.size ||
		    v.room > h.cap - si * RTR_QFILE_BLOCK) {
			ret = refuse(err, errlen, qpath, "descriptor %" PRIu64 " is damaged", si);
			goto out;
		}
		lv[n].v = v;
		lv[n++].pos = si * RTR_QFILE_BLOCK;
	}
	if (n)
		qsort(lv, n, sizeof(*lv), by_pos);
	for (uint64_t i = 1; i < n; i++)
		if (lv[i - 1].pos + lv[i - 1].v.room > lv[i].pos) {
			ret = refuse(err, errlen, qpath, "two packets overlap at arena byte %" PRIu64,
				     lv[i].pos);
			goto out;
		}
	if (n)
		qsort(lv, n, sizeof(*lv), by_order);
	for (uint64_t i = 1; i < n; i++)
		if (lv[i - 1].v.order == lv[i].v.order) {
			ret = refuse(err, errlen, qpath, "two packets numbered %" PRIu64,
				     lv[i].v.order);
			goto out;
		}
	rep->ncpus = s->ncpus;
	rep->first = calloc(s->ncpus, sizeof(*rep->first));
	rep->last = calloc(s->ncpus, sizeof(*rep->last));
	cut_done = calloc(s->ncpus, sizeof(*cut_done));
	buf = malloc(rh->packet_size);
	if (!rep->first || !rep->last || !cut_done || !buf) {
		ret = rtr_errf(err, errlen, ENOMEM, "%s: out of memory", qpath);
		goto out;
	}
	snprintf(rep->path, sizeof(rep->path), "%s", h.stream ? "" : h.path);
	for (uint64_t i = 0; i < n; i++) {
		memcpy(buf, map + h.arena_off + lv[i].pos, lv[i].v.size);
		lv[i].bad = packet_bad(rh, lv[i].v.cpu, (struct rtr_packet_hdr *)buf, lv[i].v.size);
		lv[i].seq = ((struct rtr_packet_hdr *)buf)->packet_seq_num;
	}
	/*
	 * The queue's order of a CPU's packets is their ring's: a descriptor
	 * whose number puts its packet after a later one of the same CPU is
	 * damaged, and the stream it would make, out of order, too.
	 */
	for (uint64_t i = 0; i < n; i++) {
		uint32_t cpu = lv[i].v.cpu;

		if (lv[i].bad)
			continue;
		if (cut_done[cpu] && lv[i].seq <= rep->last[cpu]) {
			ret = refuse(err, errlen, qpath, "descriptor %" PRIu64 " puts packet %" PRIu64
				     " of cpu %u after packet %" PRIu64, lv[i].pos / RTR_QFILE_BLOCK,
				     lv[i].seq, cpu, rep->last[cpu]);
			goto out;
		}
		cut_done[cpu] = true;
		rep->last[cpu] = lv[i].seq;
	}
	memset(cut_done, 0, s->ncpus * sizeof(*cut_done));
	/* Each stream's packets up to its first not written whole stay where they are. */
	for (uint32_t cpu = 0; cpu < s->ncpus; cpu++) {
		rep->last[cpu] = 0;
		rep->first[cpu] = 1;
		for (uint64_t i = 0; i < n && !cut_done[cpu]; i++) {
			if (lv[i].v.cpu != cpu)
				continue;
			if (lv[i].v.state == RTR_QSLOT_DONE) {
				rep->on_disk++;
				lv[i].v.state = RTR_QSLOT_FREE;	/* not taken */
				continue;
			}
			cut_done[cpu] = true;
			/*
			 * A pipe's frame all but its last byte; a packet sent to a
			 * relayd (whose answer may have been on its way).
			 */
			if ((lv[i].v.state == RTR_QSLOT_ALMOST && h.stream == 1) ||
			    (lv[i].v.state == RTR_QSLOT_PLACED && h.stream == 2))
				rep->maybe_twice++;
			else if (lv[i].v.ondisk && !h.stream && !cpu_bad(lv, i, n, cpu)) {
				/* Placed in a file (and perhaps, in part, written): cut it there. */
				char w[700];
				const struct rtr_packet_hdr *p = (const void *)(map + h.arena_off +
										lv[i].pos);
				int r = cut_stream(&h, cpu, lv[i].v.off, p->uuid, w, sizeof(w));

				if (r > 0)
					rep->cut++;
				else if (r < 0)
					warn_add(rep, w);
			} else if (lv[i].v.ondisk && !h.stream) {
				char w[300];

				snprintf(w, sizeof(w), "cpu %u: a packet the queue holds is damaged: "
					 "stream_%u of the recorder's trace is not cut", cpu, cpu);
				warn_add(rep, w);
			}
		}
		for (uint64_t i = 0; i < n; i++)
			if (lv[i].v.cpu == cpu && lv[i].v.state != RTR_QSLOT_FREE)
				lv[i].v.state = RTR_QSLOT_QUEUED;	/* taken */
	}
	/* The packets taken, in the queue's order, each as the consumer checks one. */
	for (uint64_t i = 0; i < n; i++) {
		struct rtr_packet_hdr *p = (struct rtr_packet_hdr *)buf;
		uint32_t cpu = lv[i].v.cpu;

		if (lv[i].v.state != RTR_QSLOT_QUEUED)
			continue;
		if (lv[i].bad) {
			char w[300];

			snprintf(w, sizeof(w), "%s: a packet of cpu %u is damaged (%s): not taken",
				 qpath, cpu, lv[i].bad);
			warn_add(rep, w);
			continue;
		}
		memcpy(buf, map + h.arena_off + lv[i].pos, lv[i].v.size);
		packet_bad(rh, cpu, p, lv[i].v.size);	/* its packet_size, as checked */
		ret = rtr_session_put_saved(s, o, cpu, buf, lv[i].v.size);
		if (ret) {
			rtr_errf(err, errlen, -ret, "%s: writing its packets: %s", qpath,
				 strerror(-ret));
			goto out;
		}
		if (rep->first[cpu] > rep->last[cpu])
			rep->first[cpu] = p->packet_seq_num;
		rep->last[cpu] = p->packet_seq_num;
		rep->packets++;
		rep->bytes += lv[i].v.size;
	}
out:
	free(buf);
	free(cut_done);
	free(lv);
	if (map != MAP_FAILED)
		munmap(map, maplen);
	close(fd);
	return ret;
}

void rtr_qfile_report_free(struct rtr_qfile_report *rep)
{
	free(rep->first);
	free(rep->last);
	rep->first = rep->last = NULL;
}
