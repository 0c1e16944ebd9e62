// SPDX-License-Identifier: MIT
/*
 * reader/index.c - the index beside a trace (reader/index.h).
 *
 * The file, all little-endian:
 *   header (40 bytes): "RTRIDX01", u32 version, u32 streams, u64 the
 *     metadata file's length, u64 its hash, u64 the hash of all that follows;
 *   per stream: u32 name length, u32 entries, u64 ino, dev, done, cpu,
 *     instance, first_seq, first_events, i32 sclass, u8 kernel,
 *     has_instance, failed, 0; the name padded to 8 bytes; the entries,
 *     64 bytes each (struct tr_index_entry's members in order).
 * Hashes are FNV-1a 64: they catch damage and a stale file, not a forger;
 * what the index says is checked again where it is used (a cursor started
 * at a wrong offset fails as damage would).
 */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "format/error.h"
#include "reader/index.h"

#define MAGIC		"RTRIDX01"
#define VERSION		1
#define HEADER_SIZE	40
#define STREAM_SIZE	72
#define ENTRY_SIZE	64
#define MAX_THREADS	8

static uint64_t fnv(uint64_t h, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

#define FNV_BASIS 0xcbf29ce484222325ull

static void put32(uint8_t *p, uint32_t v)
{
	v = htole32(v);
	memcpy(p, &v, 4);
}

static void put64(uint8_t *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, 8);
}

/*
 * The metadata file's length and hash (with how the reader reads its
 * clocks: tr_traces_one_clock() changes the cursors' times) and mode (the
 * index gets the same); false if it cannot be read.
 */
static bool metadata_hash(const struct tr_trace *t, uint64_t *len, uint64_t *hash, mode_t *mode)
{
	const char *dir = t->dir;
	uint8_t ns = t->md.ns_clocks;
	struct stat st;
	char path[4096];
	uint8_t buf[65536];
	ssize_t r;
	int fd;

	if (snprintf(path, sizeof(path), "%s/metadata", dir) >= (int)sizeof(path))
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	*len = 0;
	*hash = fnv(FNV_BASIS, &ns, 1);
	*mode = !fstat(fd, &st) ? (st.st_mode & 0666) | 0600 : 0600;
	while ((r = read(fd, buf, sizeof(buf))) > 0) {
		*len += (uint64_t)r;
		*hash = fnv(*hash, buf, (size_t)r);
	}
	close(fd);
	return r == 0;
}

static void stream_reset(struct tr_index_stream *s)
{
	s->n = 0;
	s->events = 0;
	s->done = 0;
	s->failed = false;
}

static struct tr_index_entry *entry_add(struct tr_index_stream *s)
{
	if (s->n == s->cap) {
		uint32_t cap = s->cap ? s->cap * 2 : 64;
		struct tr_index_entry *e = realloc(s->e, cap * sizeof(*e));

		if (!e)
			return NULL;
		s->e = e;
		s->cap = cap;
	}
	memset(&s->e[s->n], 0, sizeof(s->e[0]));
	return &s->e[s->n++];
}

void tr_cursor_seek(struct tr_cursor *c, const struct tr_index_stream *s, uint32_t k)
{
	const struct tr_index_entry *e = &s->e[k];

	if (e->flags & TR_INDEX_FIRST)
		return;
	if (c->md->ctf && (s->sclass < 0 || (uint32_t)s->sclass >= c->md->ctf->nstreams))
		return;		/* not this metadata's: read from the start */
	c->started = true;
	c->cpu = s->cpu;
	c->kernel = s->kernel;
	c->has_instance = s->has_instance;
	c->instance = s->instance;
	c->first_seq = s->first_seq;
	c->first_events = s->first_events;
	c->sclass = s->sclass;
	c->seq = e->seq;
	c->discarded = e->discarded;
	c->ts_end = e->ts_end;
	c->clock = e->clock;
	c->pos = c->pkt_off = c->pkt_end = c->pkt_next = e->start;
	c->bit = 0;
	c->content_bits = 0;
}

uint32_t tr_index_find(const struct tr_index_stream *s, uint64_t ts)
{
	uint32_t lo = 0, hi = s->n;

	/* last_ts grows along a stream (a cursor fails on time going back) */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (s->e[mid].last_ts < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool same_entry(const struct tr_index_entry *a, const struct tr_index_entry *b)
{
	return a->start == b->start && a->first_ts == b->first_ts && a->last_ts == b->last_ts &&
	       a->seq == b->seq && a->discarded == b->discarded && a->ts_end == b->ts_end &&
	       a->clock == b->clock && a->events == b->events && a->flags == b->flags;
}

/*
 * Read stream file @file of @t into @s: from its last entry when it has
 * entries (read again and compared: -ESTALE if it differs), else from the
 * start.  Return: 0, -ESTALE, or -ENOMEM.
 */
static int walk(const struct tr_trace *t, uint32_t file, struct tr_index_stream *s)
{
	struct tr_index_entry old, *e = NULL;
	struct tr_cursor c;
	uint64_t pkt = UINT64_MAX, start, seq, discarded, ts_end, clock = 0;
	bool check = s->n > 0, first;
	uint32_t k = 0;

	tr_cursor_init(&c, t, file);
	if (check) {
		k = s->n - 1;
		old = s->e[k];
		tr_cursor_seek(&c, s, k);
		if (!(old.flags & TR_INDEX_FIRST) && !c.started)
			return -ESTALE;		/* its stream class is not this metadata's */
		s->n = k;
		s->events -= old.events;
	}
	start = c.pos;
	seq = c.seq;
	discarded = c.discarded;
	ts_end = c.ts_end;
	clock = c.clock;
	first = !c.started;
	for (;;) {
		uint64_t threads = c.threads;
		int r = tr_next(&c);

		if (r == TR_END || r == TR_ERROR)
			break;
		if (c.pkt_off != pkt) {
			if (check && e && !same_entry(e, &old))
				return -ESTALE;
			check = check && !e;
			if (!(e = entry_add(s)))
				return -ENOMEM;
			e->start = start;
			e->first_ts = c.ts;
			e->seq = seq;
			e->discarded = discarded;
			e->ts_end = ts_end;
			e->clock = clock;
			e->flags = (first ? TR_INDEX_FIRST : 0) | (r != TR_EVENT ? TR_INDEX_LOSS : 0);
			if (first) {
				s->cpu = c.cpu;
				s->instance = c.instance;
				s->has_instance = c.has_instance;
				s->kernel = c.kernel;
				s->first_seq = c.first_seq;
				s->first_events = c.first_events;
				s->sclass = c.sclass;
				first = false;
			}
			pkt = c.pkt_off;
			start = c.pkt_next;
			seq = c.seq;
			discarded = c.discarded;
			ts_end = c.ts_end;
		}
		if (r == TR_EVENT && c.threads == threads) {
			e->events++;
			s->events++;
		}
		e->last_ts = c.ts;
		clock = c.clock;
	}
	/* @start: the end of the last packet with items read */
	s->done = start;
	s->failed = c.failed;
	if (c.failed && e && c.pkt_off == pkt) {
		/* its packet is not whole (a record failed in it): read it again next time */
		s->events -= e->events;
		s->n--;
		s->done = e->start;
		e = NULL;
	}
	if (check && (!e || !same_entry(e, &old)))
		return -ESTALE;
	return 0;
}

struct job {
	const struct tr_trace *t;
	struct tr_index *ix;
	int *ret;		/* per stream: walk()'s, -ESTALE when it was read again from the start */
	atomic_uint next;
};

static void *worker(void *arg)
{
	struct job *j = arg;
	uint32_t i;

	while ((i = atomic_fetch_add(&j->next, 1)) < j->ix->nstreams) {
		struct tr_index_stream *s = &j->ix->s[i];
		int r = walk(j->t, i, s);

		if (r == -ESTALE) {
			stream_reset(s);
			r = walk(j->t, i, s);
			j->ret[i] = r ? r : -ESTALE;
		} else {
			j->ret[i] = r;
		}
	}
	return NULL;
}

/*
 * Read every stream on from its last entry, on up to one thread per CPU.
 * Return: 0 or -ENOMEM; *@stale: the streams read again from the start,
 * the first one's name in @ix->why.
 */
static int walk_all(const struct tr_trace *t, struct tr_index *ix, uint32_t *stale)
{
	pthread_t th[MAX_THREADS];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	uint32_t nth = 0;
	struct job j = { .t = t, .ix = ix };
	int ret = 0;

	if (!ix->nstreams)
		return 0;
	if (!(j.ret = calloc(ix->nstreams, sizeof(*j.ret))))
		return -ENOMEM;
	atomic_init(&j.next, 0);
	while (nth + 1 < ix->nstreams && nth + 1 < (cpus > 0 ? (uint32_t)cpus : 1) &&
	       nth < MAX_THREADS && !pthread_create(&th[nth], NULL, worker, &j))
		nth++;
	worker(&j);
	for (uint32_t i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
	for (uint32_t i = 0; i < ix->nstreams; i++) {
		if (j.ret[i] == -ENOMEM)
			ret = -ENOMEM;
		if (j.ret[i] == -ESTALE && !(*stale)++)
			rtr_errf(ix->why, sizeof(ix->why), 0, "%s changed since it was indexed",
				 ix->s[i].name);
	}
	free(j.ret);
	return ret;
}

/* ---- the file ---- */

struct reader {
	const uint8_t *p;
	size_t n, at;
};

static bool take(struct reader *r, void *out, size_t n)
{
	if (r->n - r->at < n)
		return false;
	memcpy(out, r->p + r->at, n);
	r->at += n;
	return true;
}

static uint64_t take64(struct reader *r, bool *ok)
{
	uint8_t b[8];

	if (!take(r, b, 8)) {
		*ok = false;
		return 0;
	}
	return ld64(b);
}

static uint32_t take32(struct reader *r, bool *ok)
{
	uint8_t b[4];

	if (!take(r, b, 4)) {
		*ok = false;
		return 0;
	}
	return ld32(b);
}

/* Read the whole file at @path into *@buf (malloc'ed).  Return: its length, or -1. */
static ssize_t slurp(int dirfd, uint8_t **buf)
{
	struct stat st;
	ssize_t got = 0;
	int fd = openat(dirfd, TR_INDEX_FILE, O_RDONLY | O_CLOEXEC);

	*buf = NULL;
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size < HEADER_SIZE ||
	    st.st_size > (off_t)1 << 34 || !(*buf = malloc((size_t)st.st_size))) {
		close(fd);
		return -1;
	}
	while (got < st.st_size) {
		ssize_t r = read(fd, *buf + got, (size_t)(st.st_size - got));

		if (r <= 0)
			break;
		got += r;
	}
	close(fd);
	if (got != st.st_size) {
		free(*buf);
		*buf = NULL;
		return -1;
	}
	return got;
}

/*
 * Parse the file's bytes into @ix, whose streams are @t's (named, nothing
 * indexed).  A stream of the file that @t does not have is ignored; one of
 * @t that the file does not have stays empty.  Return: true, or false with
 * @why saying what is wrong (@ix's streams then emptied again).
 */
static bool parse(struct tr_index *ix, const struct tr_trace *t, const uint8_t *b, size_t n,
		  uint64_t mlen, uint64_t mhash, char *why, size_t whylen)
{
	struct reader r = { .p = b, .n = n, .at = HEADER_SIZE };
	bool ok = true;
	uint32_t ns;

	if (memcmp(b, MAGIC, 8) || ld32(b + 8) != VERSION) {
		rtr_errf(why, whylen, 0, "not an index of this version");
		return false;
	}
	if (ld64(b + 16) != mlen || ld64(b + 24) != mhash) {
		rtr_errf(why, whylen, 0, "the metadata, or how its clocks are read, changed");
		return false;
	}
	if (ld64(b + 32) != fnv(FNV_BASIS, b + HEADER_SIZE, n - HEADER_SIZE)) {
		rtr_errf(why, whylen, 0, "its checksum does not match: damaged");
		return false;
	}
	ns = ld32(b + 12);
	for (uint32_t i = 0; i < ns && ok; i++) {
		struct tr_index_stream tmp = { 0 }, *s = NULL;
		uint32_t namelen = take32(&r, &ok), ne = take32(&r, &ok);
		uint8_t tail[8];
		char name[256];

		tmp.ino = take64(&r, &ok);
		tmp.dev = take64(&r, &ok);
		tmp.done = take64(&r, &ok);
		tmp.cpu = take64(&r, &ok);
		tmp.instance = take64(&r, &ok);
		tmp.first_seq = take64(&r, &ok);
		tmp.first_events = take64(&r, &ok);
		ok = ok && take(&r, tail, 8);
		if (!ok || !namelen || namelen >= sizeof(name) || !take(&r, name, namelen) ||
		    !take(&r, (uint8_t[8]){ 0 }, (8 - namelen % 8) % 8) ||
		    (uint64_t)ne * ENTRY_SIZE > r.n - r.at) {
			ok = false;
			break;
		}
		name[namelen] = '\0';
		tmp.sclass = (int32_t)ld32(tail);
		tmp.kernel = tail[4];
		tmp.has_instance = tail[5];
		tmp.failed = tail[6];
		for (uint32_t k = 0; k < ix->nstreams; k++) {
			if (!strcmp(ix->s[k].name, name))
				s = &ix->s[k];
		}
		if (!s || s->n) {
			r.at += (size_t)ne * ENTRY_SIZE;	/* a file gone (or named twice) */
			continue;
		}
		s->ino = tmp.ino;
		s->dev = tmp.dev;
		s->done = tmp.done;
		s->cpu = tmp.cpu;
		s->instance = tmp.instance;
		s->first_seq = tmp.first_seq;
		s->first_events = tmp.first_events;
		s->sclass = tmp.sclass;
		s->kernel = tmp.kernel;
		s->has_instance = tmp.has_instance;
		s->failed = tmp.failed;
		for (uint32_t k = 0; k < ne; k++) {
			struct tr_index_entry *e = entry_add(s);

			if (!e) {
				ok = false;
				break;
			}
			e->start = take64(&r, &ok);
			e->first_ts = take64(&r, &ok);
			e->last_ts = take64(&r, &ok);
			e->seq = take64(&r, &ok);
			e->discarded = take64(&r, &ok);
			e->ts_end = take64(&r, &ok);
			e->clock = take64(&r, &ok);
			e->events = take32(&r, &ok);
			e->flags = take32(&r, &ok);
			s->events += e->events;
		}
	}
	if (ok && r.at != r.n)
		ok = false;
	if (!ok) {
		rtr_errf(why, whylen, 0, "it is cut short or its sizes do not add up: damaged");
		goto fail;
	}
	/* Everything in order, inside its file, and the first entry a file's first. */
	for (uint32_t i = 0; i < ix->nstreams; i++) {
		struct tr_index_stream *s = &ix->s[i];

		for (uint32_t k = 0; k < s->n; k++) {
			const struct tr_index_entry *e = &s->e[k], *p = k ? &s->e[k - 1] : NULL;

			if ((k == 0) != !!(e->flags & TR_INDEX_FIRST) || e->flags & ~3u ||
			    e->first_ts > e->last_ts || e->start >= s->done ||
			    (p && (e->start <= p->start || e->first_ts < p->last_ts ||
				   e->seq < p->seq))) {
				rtr_errf(why, whylen, 0, "%s: entry %" PRIu32 " is out of order: damaged",
					 s->name, k);
				goto fail;
			}
		}
		if (s->done > t->streams[i].size) {
			rtr_errf(why, whylen, 0, "%s is shorter than when it was indexed", s->name);
			goto fail;
		}
	}
	return true;
fail:
	for (uint32_t i = 0; i < ix->nstreams; i++)
		stream_reset(&ix->s[i]);
	return false;
}

static int save(const struct tr_index *ix, int dirfd, uint64_t mlen, uint64_t mhash, mode_t mode)
{
	size_t n = HEADER_SIZE, at = HEADER_SIZE;
	char tmp[64];
	uint8_t *b;
	int fd, ret = 0;

	for (uint32_t i = 0; i < ix->nstreams; i++)
		n += STREAM_SIZE + (strlen(ix->s[i].name) + 7) / 8 * 8 +
		     (size_t)ix->s[i].n * ENTRY_SIZE;
	if (!(b = calloc(1, n)))
		return -ENOMEM;
	memcpy(b, MAGIC, 8);
	put32(b + 8, VERSION);
	put32(b + 12, ix->nstreams);
	put64(b + 16, mlen);
	put64(b + 24, mhash);
	for (uint32_t i = 0; i < ix->nstreams; i++) {
		const struct tr_index_stream *s = &ix->s[i];
		size_t nl = strlen(s->name);
		uint64_t v[] = { s->ino, s->dev, s->done, s->cpu, s->instance, s->first_seq,
				 s->first_events };

		put32(b + at, (uint32_t)nl);
		put32(b + at + 4, s->n);
		at += 8;
		for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++, at += 8)
			put64(b + at, v[k]);
		put32(b + at, (uint32_t)s->sclass);
		b[at + 4] = s->kernel;
		b[at + 5] = s->has_instance;
		b[at + 6] = s->failed;
		at += 8;
		memcpy(b + at, s->name, nl);
		at += (nl + 7) / 8 * 8;
		for (uint32_t k = 0; k < s->n; k++) {
			const struct tr_index_entry *e = &s->e[k];
			uint64_t w[] = { e->start, e->first_ts, e->last_ts, e->seq, e->discarded,
					 e->ts_end, e->clock };

			for (size_t q = 0; q < sizeof(w) / sizeof(w[0]); q++, at += 8)
				put64(b + at, w[q]);
			put32(b + at, e->events);
			put32(b + at + 4, e->flags);
			at += 8;
		}
	}
	put64(b + 32, fnv(FNV_BASIS, b + HEADER_SIZE, n - HEADER_SIZE));
	snprintf(tmp, sizeof(tmp), "%s.%ld", TR_INDEX_FILE, (long)getpid());
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (fd < 0) {
		ret = -errno;
	} else {
		size_t done = 0;

		while (done < n) {
			ssize_t r = write(fd, b + done, n - done);

			if (r <= 0) {
				ret = r < 0 ? -errno : -EIO;
				break;
			}
			done += (size_t)r;
		}
		if (close(fd) && !ret)
			ret = -errno;
		if (!ret && renameat(dirfd, tmp, dirfd, TR_INDEX_FILE))
			ret = -errno;
		if (ret)
			unlinkat(dirfd, tmp, 0);
	}
	free(b);
	return ret;
}

void tr_index_free(struct tr_index *ix)
{
	for (uint32_t i = 0; i < ix->nstreams; i++) {
		free(ix->s[i].name);
		free(ix->s[i].e);
	}
	free(ix->s);
	memset(ix, 0, sizeof(*ix));
}

int tr_index_open(struct tr_index *ix, const struct tr_trace *t)
{
	uint64_t mlen = 0, mhash = 0, *done0 = NULL;
	mode_t mode = 0600;
	uint32_t stale = 0, *n0 = NULL;
	uint8_t *buf = NULL;
	bool changed, have_md, loaded = false;
	ssize_t n;
	int dirfd = -1, ret = -ENOMEM;
	size_t ns = t->nstreams ? t->nstreams : 1;

	memset(ix, 0, sizeof(*ix));
	ix->first_ts = UINT64_MAX;
	ix->how = TR_INDEX_BUILT;
	if (!(ix->s = calloc(ns, sizeof(*ix->s))) || !(done0 = calloc(ns, sizeof(*done0))) ||
	    !(n0 = calloc(ns, sizeof(*n0))))
		goto out;
	ix->nstreams = t->nstreams;
	for (uint32_t i = 0; i < t->nstreams; i++) {
		if (!(ix->s[i].name = strdup(t->streams[i].name)))
			goto out;
	}
	have_md = metadata_hash(t, &mlen, &mhash, &mode);
	dirfd = open(t->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	n = dirfd >= 0 && have_md ? slurp(dirfd, &buf) : -1;
	if (n < 0)
		rtr_errf(ix->why, sizeof(ix->why), 0, "no index yet");
	else
		loaded = parse(ix, t, buf, (size_t)n, mlen, mhash, ix->why, sizeof(ix->why));
	free(buf);
	/* A stream file replaced since (another inode) is read from its start. */
	for (uint32_t i = 0; i < t->nstreams; i++) {
		struct tr_index_stream *s = &ix->s[i];
		struct stat st;

		if (dirfd < 0 || fstatat(dirfd, s->name, &st, 0)) {
			st.st_ino = 0;
			st.st_dev = 0;
		}
		if (s->n && (s->ino != (uint64_t)st.st_ino || s->dev != (uint64_t)st.st_dev)) {
			stream_reset(s);
			if (!stale++)
				rtr_errf(ix->why, sizeof(ix->why), 0, "%s was replaced since it was "
					 "indexed", s->name);
		}
		s->ino = (uint64_t)st.st_ino;
		s->dev = (uint64_t)st.st_dev;
		done0[i] = s->done;
		n0[i] = s->n;
	}
	/* Every stream read on from its last entry, which is read again and compared. */
	if ((ret = walk_all(t, ix, &stale)))
		goto out;
	changed = !loaded || stale;
	for (uint32_t i = 0; i < ix->nstreams; i++) {
		const struct tr_index_stream *s = &ix->s[i];

		changed |= s->done != done0[i] || s->n != n0[i];
		ix->events += s->events;
		ix->packets += s->n;
		if (s->n && s->e[0].first_ts < ix->first_ts)
			ix->first_ts = s->e[0].first_ts;
		if (s->n && s->e[s->n - 1].last_ts > ix->last_ts)
			ix->last_ts = s->e[s->n - 1].last_ts;
	}
	ix->how = !loaded ? TR_INDEX_BUILT : changed ? TR_INDEX_EXTENDED : TR_INDEX_REUSED;
	ix->saved = !changed;
	if (changed && (!have_md || dirfd < 0))
		rtr_errf(ix->why, sizeof(ix->why), 0, "%s: %s could not be read: not saved", t->dir,
			 dirfd < 0 ? "the directory" : "the metadata file");
	if (changed && have_md && dirfd >= 0) {
		int r = save(ix, dirfd, mlen, mhash, mode);

		if (r == -ENOMEM) {
			ret = r;
			goto out;
		}
		ix->saved = !r;
		if (r)
			rtr_errf(ix->why, sizeof(ix->why), 0, "%s/%s: not saved: %s", t->dir,
				 TR_INDEX_FILE, strerror(-r));
	}
out:
	if (dirfd >= 0)
		close(dirfd);
	free(done0);
	free(n0);
	if (ret)
		tr_index_free(ix);
	return ret;
}

int tr_index_slice(const struct tr_trace *t, uint32_t n, struct tr_index *ix, uint64_t from_ns,
		   uint64_t to_ns, uint64_t *from, uint64_t *to)
{
	uint64_t first = UINT64_MAX;
	long double k;
	int r;

	for (uint32_t i = 0; i < n; i++) {
		if ((r = tr_index_open(&ix[i], &t[i]))) {
			while (i--)
				tr_index_free(&ix[i]);
			return r;
		}
		if (ix[i].first_ts < first)
			first = ix[i].first_ts;
	}
	if (first == UINT64_MAX)
		first = 0;
	/* the cursors' times: ns with several clocks, else the first trace's cycles */
	k = n && !t[0].md.ns_clocks && t[0].md.freq ? (long double)t[0].md.freq / 1e9L : 1.0L;
	*from = first + (uint64_t)((long double)from_ns * k);
	*to = to_ns == UINT64_MAX || (long double)to_ns * k >= (long double)(UINT64_MAX - first) ?
	      UINT64_MAX : first + (uint64_t)((long double)to_ns * k);
	return 0;
}
