// SPDX-License-Identifier: MIT
/*
 * reader/trace.c - a trace directory, opened (trace.h): its metadata read
 * and parsed, each stream file mapped read-only.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "format/error.h"
#include "reader/trace.h"

#define METADATA_MAX	(64u << 20)



/*
 * Metadata packets (CTF 1.8, 7.1: the "packet-based" metadata LTTng
 * writes): a 37-byte header (magic, uuid, checksum, content and packet
 * sizes in bits, compression, encryption and checksum schemes, major,
 * minor), then text.  Their contents are joined in place at @text's start.
 */
#define TSDL_HDR	37u

static uint32_t ldbe32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int unpacketise(char *text, size_t len, size_t *outlen, const char *path, char *err,
		       size_t errlen)
{
	const uint8_t *p = (const uint8_t *)text;
	bool be = ld32(p) != RTR_CTF_METADATA_MAGIC;
	uint8_t uuid[16];
	size_t off = 0, o = 0;

	for (uint32_t k = 0; off < len; k++) {
		uint32_t magic, content, psize;

		if (len - off < TSDL_HDR)
			return rtr_errf(err, errlen, EPROTO, "%s: metadata packet %u at offset %zu: "
				    "truncated header (%zu of %u bytes)", path, k, off, len - off,
				    TSDL_HDR);
		magic = be ? ldbe32(p + off) : ld32(p + off);
		content = be ? ldbe32(p + off + 24) : ld32(p + off + 24);
		psize = be ? ldbe32(p + off + 28) : ld32(p + off + 28);
		if (magic != RTR_CTF_METADATA_MAGIC)
			return rtr_errf(err, errlen, EPROTO, "%s: metadata packet %u at offset %zu: bad "
				    "magic 0x%08x", path, k, off, magic);
		if (!k)
			memcpy(uuid, p + 4, 16);
		else if (memcmp(uuid, p + off + 4, 16))
			return rtr_errf(err, errlen, EPROTO, "%s: metadata packet %u at offset %zu: its "
				    "uuid differs from the first packet's", path, k, off);
		if (p[off + 32] || p[off + 33] || p[off + 34])
			return rtr_errf(err, errlen, EPROTO, "%s: metadata packet %u at offset %zu: "
				    "compressed, encrypted or checksummed (not read)", path, k, off);
		if (p[off + 35] != 1 || p[off + 36] != 8)
			return rtr_errf(err, errlen, EPROTO, "%s: metadata packet %u at offset %zu: "
				    "CTF %u.%u (only 1.8 is read)", path, k, off, p[off + 35],
				    p[off + 36]);
		if (content % 8 || psize % 8 || content < TSDL_HDR * 8 || psize < content ||
		    psize / 8 > len - off)
			return rtr_errf(err, errlen, EPROTO, "%s: metadata packet %u at offset %zu: bad "
				    "sizes (content %u, packet %u bits, %zu bytes left)", path, k, off,
				    content, psize, len - off);
		memmove(text + o, text + off + TSDL_HDR, content / 8 - TSDL_HDR);
		o += content / 8 - TSDL_HDR;
		off += psize / 8;
	}
	*outlen = o;
	return 0;
}

static int read_metadata(struct tr_trace *t, int dirfd, char *err, size_t errlen)
{
	char *path, *text = NULL;
	struct stat st;
	size_t got = 0;
	int fd, ret = -1;

	if (asprintf(&path, "%s/metadata", t->dir) < 0)
		return rtr_errf(err, errlen, ENOMEM, "%s: out of memory", t->dir);
	fd = openat(dirfd, "metadata", O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		ret = rtr_errf(err, errlen, errno, "%s: %s%s", path, strerror(errno),
		     errno == ENOENT ? " (not a CTF trace directory)" : "");
		goto out;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		ret = rtr_errf(err, errlen, EINVAL, "%s: not a regular file", path);
		goto out;
	}
	if (st.st_size > METADATA_MAX) {
		ret = rtr_errf(err, errlen, EFBIG, "%s: %lld bytes, more than metadata can be", path,
		     (long long)st.st_size);
		goto out;
	}
	text = malloc((size_t)st.st_size + 1);
	if (!text) {
		ret = rtr_errf(err, errlen, ENOMEM, "%s: out of memory", path);
		goto out;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, text + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = rtr_errf(err, errlen, n ? errno : EIO, "%s: %s", path,
				   n ? strerror(errno) : "file shrank");
			goto out;
		}
		got += (size_t)n;
	}
	if (got >= 4 && (ld32((const uint8_t *)text) == RTR_CTF_METADATA_MAGIC ||
			 ldbe32((const uint8_t *)text) == RTR_CTF_METADATA_MAGIC)) {
		/* LTTng's packetised metadata: the text is the packets' contents */
		size_t n = 0;

		ret = unpacketise(text, got, &n, path, err, errlen);
		if (!ret)
			ret = tr_parse_metadata_packets(&t->md, text, n, path, err, errlen);
	} else {
		ret = tr_parse_metadata(&t->md, text, got, path, err, errlen);
	}
out:
	if (fd >= 0)
		close(fd);
	free(text);
	free(path);
	return ret;
}

static int cmp_stream(const void *a, const void *b)
{
	const struct tr_stream *x = a, *y = b;

	return strverscmp(x->name, y->name);
}

static int map_stream(struct tr_trace *t, int dirfd, const char *name, char *err, size_t errlen)
{
	struct tr_stream *s, *ns;
	struct stat st;
	int fd;

	if (fstatat(dirfd, name, &st, 0) || !S_ISREG(st.st_mode))
		return 0;	/* not a regular file (or gone): not a stream */
	ns = realloc(t->streams, (t->nstreams + 1) * sizeof(*ns));
	if (!ns)
		return rtr_errf(err, errlen, ENOMEM, "%s: out of memory", t->dir);
	t->streams = ns;
	s = &t->streams[t->nstreams];
	memset(s, 0, sizeof(*s));
	s->name = strdup(name);
	if (!s->name || asprintf(&s->path, "%s/%s", t->dir, name) < 0) {
		free(s->name);
		return rtr_errf(err, errlen, ENOMEM, "%s: out of memory", t->dir);
	}
	t->nstreams++;
	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return rtr_errf(err, errlen, errno, "%s: %s", s->path, strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return rtr_errf(err, errlen, EINVAL, "%s: not a regular file", s->path);
	}
	s->size = (uint64_t)st.st_size;
	if (s->size) {
		void *p = mmap(NULL, s->size, PROT_READ,
			       MAP_PRIVATE | (t->lazy ? 0 : MAP_POPULATE), fd, 0);

		if (p == MAP_FAILED) {
			int e = errno;

			close(fd);
			s->size = 0;
			return rtr_errf(err, errlen, e, "%s: mmap: %s", s->path, strerror(e));
		}
		madvise(p, s->size, MADV_SEQUENTIAL);
		s->data = p;
		s->mapped = s->size;
	}
	close(fd);
	return 0;
}

static int open_trace(struct tr_trace *t, const char *dir, bool lazy, char *err, size_t errlen)
{
	struct dirent *de;
	int dirfd, ret;
	DIR *d;

	memset(t, 0, sizeof(*t));
	t->lazy = lazy;
	t->dir = strdup(dir);
	if (!t->dir)
		return rtr_errf(err, errlen, ENOMEM, "%s: out of memory", dir);
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0) {
		ret = rtr_errf(err, errlen, errno, "%s: %s", dir, strerror(errno));
		goto fail;
	}
	ret = read_metadata(t, dirfd, err, errlen);
	if (ret) {
		close(dirfd);
		goto fail;
	}
	d = fdopendir(dirfd);
	if (!d) {
		ret = rtr_errf(err, errlen, errno, "%s: %s", dir, strerror(errno));
		close(dirfd);
		goto fail;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || !strcmp(de->d_name, "metadata"))
			continue;
		ret = map_stream(t, dirfd, de->d_name, err, errlen);
		if (ret) {
			closedir(d);
			goto fail;
		}
	}
	closedir(d);
	if (t->nstreams)
		qsort(t->streams, t->nstreams, sizeof(*t->streams), cmp_stream);
	return 0;
fail:
	tr_close(t);
	return ret;
}

int tr_open(struct tr_trace *t, const char *dir, char *err, size_t errlen)
{
	return open_trace(t, dir, false, err, errlen);
}

int tr_open_lazy(struct tr_trace *t, const char *dir, char *err, size_t errlen)
{
	return open_trace(t, dir, true, err, errlen);
}

void tr_close(struct tr_trace *t)
{
	for (uint32_t i = 0; i < t->nstreams; i++) {
		if (t->streams[i].data)
			munmap((void *)t->streams[i].data, t->streams[i].mapped);
		free(t->streams[i].name);
		free(t->streams[i].path);
	}
	free(t->streams);
	tr_metadata_free(&t->md);
	free(t->dir);
	memset(t, 0, sizeof(*t));
}

void tr_traces_one_clock(struct tr_trace *t, uint32_t n)
{
	bool differ = false;

	for (uint32_t i = 1; i < n; i++)
		differ |= t[i].md.freq != t[0].md.freq || t[i].md.offset_s != t[0].md.offset_s ||
			  t[i].md.offset != t[0].md.offset || t[i].md.ns_clocks != t[0].md.ns_clocks;
	for (uint32_t i = 0; differ && i < n; i++) {
		if (t[i].md.own)
			continue;
		t[i].md.ns_clocks = true;	/* reader/cursor.c: times in ns since the epoch */
		t[i].md.freq = 1000000000u;
		t[i].md.offset_s = 0;
		t[i].md.offset = 0;
	}
}
