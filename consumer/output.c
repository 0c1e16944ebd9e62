// SPDX-License-Identifier: MIT
/*
 * consumer/output.c - write packets as a CTF trace directory, rotated into
 * chunks or not, as the framed stream of `-o -`, or to an lttng-relayd
 * (`-o net://`, consumer/relayd.c) (consumer/output.h).
 *
 * Invariants, whatever fails and whenever the process dies:
 *  - a stream file only ever ends on a packet boundary (a packet that
 *    could not be written whole is cut off again with ftruncate());
 *  - a chunk's metadata is written (to a temporary name, then renamed)
 *    before its first packet, so every chunk on disk is a trace;
 *  - nothing is created through a symlink, nothing existing is replaced
 *    unless asked (--force), and then only a ringtrace trace.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <endian.h>
#include <ringtrace/region.h>
#include "format/error.h"
#include "consumer/output.h"
#include "format/state.h"
#include "consumer/output_int.h"
#include "consumer/relayd.h"
#include "platform/platform.h"

/* Stop writing for good: the first error is the one reported. */
int out_fail(struct rtr_out *o, int ret, const char *fmt, ...)
{
	va_list ap;

	if (o->rep.failed)
		return ret;
	o->rep.failed = true;
	va_start(ap, fmt);
	rtr_verrf_at(o->rep.err, sizeof(o->rep.err), -ret, NULL, RTR_AT_NONE, 0, fmt, ap);
	va_end(ap);
	__atomic_store_n(&o->failed, true, __ATOMIC_RELEASE);	/* after the message */
	return ret;
}

#define fail out_fail

/* Write @iov whole at @off (a stream file: its end, a packet boundary). */
int out_pwritev_all(int fd, struct iovec *iov, int n, uint64_t off)
{
	while (n > 0) {
		ssize_t w = pwritev(fd, iov, n, (off_t)off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		if (w == 0)
			return -EIO;
		off += (uint64_t)w;
		rtr_iov_advance(&iov, &n, (size_t)w);
	}
	return 0;
}

static mode_t dir_mode(mode_t m)
{
	return m | ((m & 0444) >> 2);	/* r gives x */
}

/* Names a trace directory may hold, and nothing else, for --force. */
static bool trace_entry(const char *n, bool sub)
{
	if (!strcmp(n, "metadata") || !strncmp(n, "stream_", 7) ||
	    !strncmp(n, RTR_STATE_FILE, sizeof(RTR_STATE_FILE) - 1) || !strncmp(n, ".metadata", 9))
		return true;
	/* A chunk being made is ".NAME" until its metadata is in (open_chunk()). */
	if (!sub && n[0] == '.')
		n++;
	return !sub && (!strncmp(n, "chunk-", 6) || !strncmp(n, "snapshot-", 9));
}

/* Call @fn for each entry of directory @dfd but . and .., until one fails. */
static int each_entry(int dfd, int (*fn)(int dfd, const char *name, void *arg), void *arg)
{
	struct dirent *e;
	int ret = 0, fd = dup(dfd);
	DIR *d;

	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	rewinddir(d);	/* the dup shares its offset with @dfd: an earlier walk's end */
	while (!ret && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			ret = fn(dfd, e->d_name, arg);
	closedir(d);
	return ret;
}

/* --force: what may go, in a trace's top directory (@sub false) or a chunk's. */
struct trace_walk {
	bool sub;
	bool remove;		/* false: only check */
	char *bad;		/* the first name that may not go, its path under the top */
	size_t badlen;
};

static int walk_entry(int dfd, const char *name, void *arg);

/* Walk the chunk or snapshot directory @name of @dfd; a refused name is reported with it. */
static int walk_subdir(int dfd, const char *name, struct trace_walk *w)
{
	struct trace_walk sw = { true, w->remove, w->bad, w->badlen };
	int ret, sfd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (sfd < 0)
		return -errno;
	ret = each_entry(sfd, walk_entry, &sw);
	close(sfd);
	if (ret == -ENOTEMPTY) {
		char sub[256];

		snprintf(sub, sizeof(sub), "%s", w->bad);
		snprintf(w->bad, w->badlen, "%s/%s", name, sub);
	}
	return ret;
}

/*
 * @name in @dfd: a trace's file, or a chunk or snapshot directory of trace
 * files; anything else is refused.  With @w->remove, removed (checked
 * again as it goes).  Return: 0, -ENOTEMPTY with @w->bad set, or -errno.
 */
static int walk_entry(int dfd, const char *name, void *arg)
{
	struct trace_walk *w = arg;
	struct stat st;
	int ret;

	if (!trace_entry(name, w->sub)) {
		snprintf(w->bad, w->badlen, "%s", name);
		return -ENOTEMPTY;
	}
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return w->remove && unlinkat(dfd, name, 0) < 0 ? -errno : 0;
	/* Only chunks and snapshots are directories, and they hold only files. */
	if (w->sub || (strncmp(name, "chunk-", 6) && strncmp(name, "snapshot-", 9))) {
		snprintf(w->bad, w->badlen, "%s", name);
		return -ENOTEMPTY;
	}
	ret = walk_subdir(dfd, name, w);
	if (!ret && w->remove && unlinkat(dfd, name, AT_REMOVEDIR) < 0)
		ret = -errno;
	return ret;
}

/*
 * Remove a trace's files from @dfd, and its chunks'; refuse anything else.
 * Everything is checked first, chunks included, so that a refusal removes
 * nothing.
 */
static int empty_trace_dir(int dfd, char *bad, size_t badlen)
{
	struct trace_walk w = { false, false, bad, badlen };
	int ret = each_entry(dfd, walk_entry, &w);

	if (ret)
		return ret;
	w.remove = true;
	return each_entry(dfd, walk_entry, &w);
}

int rtr_mkdir_new(int at, const char *path, mode_t mode, bool force, char *err, size_t errlen)
{
	/* In a directory of ours: its last component there; the path is for messages. */
	const char *name = at == AT_FDCWD || !strrchr(path, '/') ? path : strrchr(path, '/') + 1;
	struct stat st;
	char bad[256] = "";
	int fd, ret;

	if (mkdirat(at, name, dir_mode(mode)) == 0)
		goto open;
	if (errno != EEXIST) {
		ret = -errno;
		return rtr_errf(err, errlen, -ret, "%s: cannot create the directory: %s", path,
				strerror(errno));
	}
	if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		ret = -errno;
		return rtr_errf(err, errlen, -ret, "%s: %s", path, strerror(errno));
	}
	if (S_ISLNK(st.st_mode))
		return rtr_errf(err, errlen, ELOOP,
				"%s: is a symbolic link; ringtrace does not write through one",
				path);
	if (!S_ISDIR(st.st_mode))
		return rtr_errf(err, errlen, EEXIST, "%s: exists and is not a directory", path);
	if (!force)
		return rtr_errf(err, errlen, EEXIST,
				"%s: exists; an existing trace is never overwritten "
				"(--force replaces it)",
				path);
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		return rtr_errf(err, errlen, -ret, "%s: %s", path, strerror(errno));
	}
	ret = empty_trace_dir(fd, bad, sizeof(bad));
	close(fd);
	if (ret == -ENOTEMPTY)
		return rtr_errf(err, errlen, -ret,
				"%s: holds '%s', which is not part of a ringtrace trace; "
				"not replaced even with --force",
				path, bad);
	if (ret)
		return rtr_errf(err, errlen, -ret, "%s: cannot empty it: %s", path, strerror(-ret));
open:
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		return rtr_errf(err, errlen, -ret, "%s: %s", path, strerror(errno));
	}
	return fd;
}

/* Write @len bytes as @dfd/@name, atomically (format/state.h). */
static int write_file_atomic(int dfd, const char *name, const void *data, size_t len,
			     mode_t mode, bool sync)
{
	return rtr_file_replace(dfd, name, data, len, mode, sync);
}

/* A frame whose payload is @data, then @more (@len bytes in all), to @fd. */
static int frame_to(int fd, uint32_t type, uint32_t arg, const void *data, size_t dlen,
		    const void *more, uint64_t len, void (*almost)(void *), void *almost_arg)
{
	uint8_t hdr[RTR_FRAME_HDR];
	uint32_t t = htole32(type), a = htole32(arg);
	uint64_t l = htole64(len);
	struct iovec iov[3] = {
		{ hdr, sizeof(hdr) },
		{ (void *)data, dlen },
		{ (void *)more, len - dlen },
	};

	uint8_t *last;
	int n = 3, ret;

	memcpy(hdr, &t, 4);
	memcpy(hdr + 4, &a, 4);
	memcpy(hdr + 8, &l, 8);
	if (!almost)
		return rtr_writev_all(fd, iov, 3);
	/*
	 * All but the frame's last byte, then @almost, then that byte: a
	 * writer that dies before @almost has left a frame its reader drops.
	 */
	while (!iov[n - 1].iov_len)
		n--;
	last = (uint8_t *)iov[n - 1].iov_base + --iov[n - 1].iov_len;
	ret = rtr_writev_all(fd, iov, n);
	if (ret)
		return ret;
	almost(almost_arg);
	return rtr_write_all(fd, last, 1);
}

int out_frame(int fd, uint32_t type, uint32_t arg, const void *data, uint64_t len)
{
	return frame_to(fd, type, arg, data, len, NULL, len, NULL, NULL);
}

/* A frame on the stream's descriptor; a failure is the output's. */
static int write_frame2(struct rtr_out *o, uint32_t type, uint32_t arg, const void *data,
			size_t dlen, const void *more, uint64_t len)
{
	int ret;

	if (o->rep.failed)
		return -EIO;
	ret = frame_to(o->o.fd, type, arg, data, dlen, more, len,
		       type == RTR_FRAME_PACKET ? o->frame_almost : NULL, o->frame_almost_arg);
	if (ret)
		return fail(o, ret, "standard output: %s%s", strerror(-ret),
			    ret == -EPIPE ? " (the reader has gone)" : "");
	return 0;
}

static int write_state(struct rtr_out *o, enum rtr_state_kind kind);

static int write_frame(struct rtr_out *o, uint32_t type, uint32_t arg, const void *data,
		       uint64_t len)
{
	return write_frame2(o, type, arg, data, len, NULL, len);
}

/* -o net://...: connect to the relayd and create the session (consumer/relayd.c). */
static int net_open(struct rtr_out *o, char *err, size_t errlen)
{
	struct rtr_relayd_opts ro = {
		.url = o->o.path,
		.program = o->o.program,
		.ncpus = o->o.ncpus,
		.live_timer_us = o->o.live_timer_us,
		.retry_ms = o->o.net_retry_ms,
	};
	int ret;

	if (o->o.rotate_size || o->o.rotate_ns)
		return rtr_errf(err, errlen, EINVAL,
				"rotation needs an output directory, not %s (the relayd "
				"keeps the session's files)",
				o->o.path);
	o->stream = true;	/* no directory of ours: packets go out in order, as to '-' */
	o->o.direct = false;
	ret = rtr_relayd_open(&o->relayd, &ro, err, errlen);
	if (!ret) {
		snprintf(o->rep.net_session, sizeof(o->rep.net_session), "%s",
			 rtr_relayd_stats(o->relayd)->session);
		o->rep.net_minor = rtr_relayd_stats(o->relayd)->minor;
	}
	return ret;
}

/* The relayd's figures into the report. */
static void net_report(struct rtr_out *o)
{
	const struct rtr_relayd_stats *st = rtr_relayd_stats(o->relayd);

	o->rep.net_beacons = st->beacons;
	o->rep.net_empty = st->empty;
	o->rep.net_reconnects = st->reconnects;
	o->rep.net_resent = st->resent;
	snprintf(o->rep.net_session, sizeof(o->rep.net_session), "%s", st->session);
	snprintf(o->rep.net_outage, sizeof(o->rep.net_outage), "%s", st->outage);
}

/* A relayd call's result: its failure is the output's. */
static int net_check(struct rtr_out *o, int ret)
{
	if (ret)
		return fail(o, ret, "%s", rtr_relayd_error(o->relayd));
	return 0;
}

int rtr_out_open(struct rtr_out **out, const struct rtr_out_opts *opts, char *err, size_t errlen)
{
	struct rtr_out *o = calloc(1, sizeof(*o));

	if (!o)
		return -ENOMEM;
	o->o = *opts;
	if (!o->o.file_mode)
		o->o.file_mode = 0600;
	if (!o->o.chunk_prefix)
		o->o.chunk_prefix = "chunk";
	o->topfd = o->chunkfd = -1;
	o->stream = !strcmp(opts->path, "-");
	if (!strncmp(opts->path, RTR_RELAYD_SCHEME, strlen(RTR_RELAYD_SCHEME))) {
		int ret = net_open(o, err, errlen);

		if (ret) {
			free(o);
			return ret;
		}
	}
	if (o->o.direct && !o->stream && posix_memalign((void **)&o->bounce, DIRECT_ALIGN,
							 2 * DIRECT_ALIGN))
		o->bounce = NULL;	/* buffered writes, then */
	o->rotating = opts->rotate_size || opts->rotate_ns;
	if (o->relayd) {
		/* Connected, the session created: nothing to write before the metadata. */
	} else if (o->stream) {
		uint8_t pro[RTR_STREAM_PROLOGUE] = RTR_STREAM_MAGIC;
		uint32_t v = htole32(RTR_STREAM_VERSION);
		int ret;

		if (o->rotating) {
			free(o);
			return rtr_errf(err, errlen, EINVAL,
					"rotation needs an output directory, not '-'");
		}
		memcpy(pro + 8, &v, 4);
		ret = rtr_write_all(o->o.fd, pro, sizeof(pro));
		if (ret) {
			free(o);
			return rtr_errf(err, errlen, -ret, "standard output: %s", strerror(-ret));
		}
	} else {
		o->topfd = rtr_mkdir_new(opts->parent_fd > 0 ? opts->parent_fd : AT_FDCWD, opts->path,
					 o->o.file_mode, opts->force, err, errlen);
		if (o->topfd < 0) {
			int ret = o->topfd;

			free(o);
			return ret;
		}
		/* At once: a follower knows a recording is under way, not a finished trace. */
		write_state(o, RTR_REC_RECORDING);
	}
	if (o->o.buffer_size) {
		int ret = rtr_queue_open(o, err, errlen);

		if (ret) {
			if (!o->stream)
				close(o->topfd);
			rtr_relayd_free(o->relayd);
			free(o->bounce);
			free(o);
			return ret;
		}
	}
	*out = o;
	return 0;
}

/* The metadata of chunk @idx: the TSDL with the chunk's index in its env. */
static int write_chunk_metadata(struct rtr_out *o)
{
	static const char env[] = "\nenv {\n";
	const char *at = o->rotating ? memmem(o->md, o->mdlen, env, sizeof(env) - 1) : NULL;
	char line[64];
	char *text;
	size_t n, len;
	int ret;

	if (!at)
		return write_file_atomic(o->chunkfd, "metadata", o->md, o->mdlen, o->o.file_mode,
					 true);
	n = (size_t)(at - o->md) + sizeof(env) - 1;
	len = (size_t)snprintf(line, sizeof(line), "\tchunk_index = %" PRIu64 ";\n",
			       o->chunk_index - 1);
	text = malloc(o->mdlen + len);
	if (!text)
		return -ENOMEM;
	memcpy(text, o->md, n);
	memcpy(text + n, line, len);
	memcpy(text + n + len, o->md + n, o->mdlen - n);
	ret = write_file_atomic(o->chunkfd, "metadata", text, o->mdlen + len, o->o.file_mode, true);
	free(text);
	return ret;
}

static void close_streams(struct rtr_out *o)
{
	for (uint32_t i = 0; i < o->nsfd; i++) {
		if (o->sfd[i] >= 0) {
			if (fsync(o->sfd[i]) < 0 && !o->rep.failed)
				fail(o, -errno, "%s/%s/stream_%u: fsync: %s", o->o.path,
				     o->chunk_name, i, strerror(errno));
			close(o->sfd[i]);
		}
		o->sfd[i] = -1;
		o->ssize[i] = 0;
	}
}

static void close_chunk(struct rtr_out *o)
{
	if (!o->chunk_open)
		return;
	close_streams(o);
	if (o->rotating && o->chunkfd >= 0)
		close(o->chunkfd);
	o->chunkfd = -1;
	o->chunk_open = false;
	o->rep.chunks++;
}

static int open_chunk(struct rtr_out *o)
{
	char tmp[sizeof(o->chunk_name) + 1];
	int ret;

	if (!o->md)
		return fail(o, -EINVAL, "%s: a packet came before the metadata", o->o.path);
	if (o->rotating) {
		snprintf(o->chunk_name, sizeof(o->chunk_name), "%s-%06" PRIu64, o->o.chunk_prefix,
			 o->chunk_index);
		/*
		 * Made as ".NAME" and renamed once its metadata is in: a chunk
		 * directory is a trace from the moment it exists, even if the
		 * recorder dies between the two.
		 */
		snprintf(tmp, sizeof(tmp), ".%s", o->chunk_name);
		if (mkdirat(o->topfd, tmp, dir_mode(o->o.file_mode)) < 0)
			return fail(o, -errno, "%s/%s: cannot create the chunk: %s", o->o.path,
				    o->chunk_name, strerror(errno));
		o->chunkfd = openat(o->topfd, tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (o->chunkfd < 0) {
			ret = fail(o, -errno, "%s/%s: %s", o->o.path, o->chunk_name,
				   strerror(errno));
			unlinkat(o->topfd, tmp, AT_REMOVEDIR);
			return ret;
		}
	} else {
		snprintf(o->chunk_name, sizeof(o->chunk_name), ".");
		o->chunkfd = o->topfd;
	}
	o->chunk_index++;
	ret = write_chunk_metadata(o);
	if (ret) {
		fail(o, ret, "%s/%s/metadata: %s", o->o.path, o->chunk_name, strerror(-ret));
		if (o->rotating) {
			/* A chunk with no metadata would not be a trace: remove it. */
			close(o->chunkfd);
			unlinkat(o->topfd, tmp, AT_REMOVEDIR);
		}
		o->chunkfd = -1;
		return ret;
	}
	if (o->rotating && renameat(o->topfd, tmp, o->topfd, o->chunk_name) < 0) {
		ret = fail(o, -errno, "%s/%s: cannot name the chunk: %s", o->o.path, o->chunk_name,
			   strerror(errno));
		unlinkat(o->chunkfd, "metadata", 0);
		close(o->chunkfd);
		unlinkat(o->topfd, tmp, AT_REMOVEDIR);
		o->chunkfd = -1;
		return ret;
	}
	o->chunk_open = true;
	o->chunk_bytes = 0;
	o->chunk_start_ns = rtr_monotonic_ns();
	return 0;
}

int rtr_out_metadata(struct rtr_out *o, const char *text, size_t len)
{
	if (o->q)
		return rtr_queue_metadata(o, text, len);
	return out_metadata_sync(o, text, len);
}

int out_metadata_sync(struct rtr_out *o, const char *text, size_t len)
{
	char *md;

	if (o->rep.failed)
		return -EIO;
	if (o->md && o->mdlen == len && !memcmp(o->md, text, len))
		return 0;
	md = malloc(len ? len : 1);
	if (!md)
		return fail(o, -ENOMEM, "metadata: out of memory");
	if (len)	/* an empty frame's text may be NULL */
		memcpy(md, text, len);
	free(o->md);
	o->md = md;
	o->mdlen = len;
	if (o->relayd)
		return net_check(o, rtr_relayd_metadata(o->relayd, text, len));
	if (o->stream)
		return write_frame(o, RTR_FRAME_METADATA, 0, text, len);
	if (!o->chunk_open) {
		/* Without rotation the directory is the trace: metadata at once. */
		return o->rotating ? 0 : open_chunk(o);
	}
	{
		int ret = write_chunk_metadata(o);

		if (ret)
			return fail(o, ret, "%s/%s/metadata: %s", o->o.path, o->chunk_name,
				    strerror(-ret));
	}
	return 0;
}

static bool rotate_due(const struct rtr_out *o)
{
	if (!o->rotating || !o->chunk_open || !o->chunk_bytes)
		return false;
	if (o->o.rotate_size && o->chunk_bytes >= o->o.rotate_size)
		return true;
	return o->o.rotate_ns && rtr_monotonic_ns() - o->chunk_start_ns >= o->o.rotate_ns;
}

static int stream_fd(struct rtr_out *o, uint32_t cpu)
{
	char name[32];

	if (cpu >= o->nsfd) {
		uint32_t n = cpu + 1 > 2 * o->nsfd ? cpu + 1 : 2 * o->nsfd;
		int *sfd = realloc(o->sfd, n * sizeof(*sfd));
		uint64_t *ssize;
		bool *sdirect;

		if (!sfd)
			return -ENOMEM;
		o->sfd = sfd;
		ssize = realloc(o->ssize, n * sizeof(*ssize));
		if (!ssize)
			return -ENOMEM;
		o->ssize = ssize;
		sdirect = realloc(o->sdirect, n * sizeof(*sdirect));
		if (!sdirect)
			return -ENOMEM;
		o->sdirect = sdirect;
		for (uint32_t i = o->nsfd; i < n; i++) {
			o->sfd[i] = -1;
			o->ssize[i] = 0;
			o->sdirect[i] = false;
		}
		o->nsfd = n;
	}
	if (o->sfd[cpu] >= 0)
		return o->sfd[cpu];
	snprintf(name, sizeof(name), "stream_%u", cpu);
	o->sfd[cpu] = openat(o->chunkfd, name,
			     O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			     o->o.file_mode);
	if (o->sfd[cpu] < 0)
		return -errno;
	o->ssize[cpu] = 0;
	o->sdirect[cpu] = false;
	/* O_DIRECT where the file system has it; buffered writes otherwise. */
	if (o->o.direct && o->bounce) {
		int fl = fcntl(o->sfd[cpu], F_GETFL);

		o->sdirect[cpu] = fl >= 0 && fcntl(o->sfd[cpu], F_SETFL, fl | O_DIRECT) == 0;
	}
	return o->sfd[cpu];
}

/*
 * A packet padded to DIRECT_ALIGN, its packet_size saying so, written with
 * O_DIRECT: the first block (with the header) and the last partial one go
 * through the aligned bounce buffer, the whole blocks between straight from
 * @body when they are aligned (a region's slots are), else all through memory.
 */
static int write_direct(struct rtr_out *o, int fd, uint64_t off, const void *hdr,
			const uint8_t *body, size_t size, size_t *written)
{
	size_t padded = (size + DIRECT_ALIGN - 1) & ~(size_t)(DIRECT_ALIGN - 1);
	size_t first = size < DIRECT_ALIGN ? size : DIRECT_ALIGN;
	size_t whole = size & ~(size_t)(DIRECT_ALIGN - 1);
	const uint8_t *start = body - RTR_PACKET_HDR_SIZE;	/* where the packet would begin */
	uint64_t bits = (uint64_t)padded * 8;
	struct iovec iov[3];
	uint8_t *b0 = o->bounce, *b1 = o->bounce + DIRECT_ALIGN, *all = NULL;
	int n = 0, ret;

	if (((uintptr_t)start & (DIRECT_ALIGN - 1)) && size > DIRECT_ALIGN) {
		/* Not aligned in memory: the whole packet through one aligned buffer. */
		if (posix_memalign((void **)&all, DIRECT_ALIGN, padded))
			return -ENOMEM;
		memcpy(all, hdr, RTR_PACKET_HDR_SIZE);
		memcpy(all + RTR_PACKET_HDR_SIZE, body, size - RTR_PACKET_HDR_SIZE);
		memset(all + size, 0, padded - size);
		memcpy(all + offsetof(struct rtr_packet_hdr, packet_size), &bits, 8);
		iov[n++] = (struct iovec){ all, padded };
	} else {
		memcpy(b0, hdr, RTR_PACKET_HDR_SIZE);
		memcpy(b0 + RTR_PACKET_HDR_SIZE, body, first - RTR_PACKET_HDR_SIZE);
		memset(b0 + first, 0, DIRECT_ALIGN - first);
		memcpy(b0 + offsetof(struct rtr_packet_hdr, packet_size), &bits, 8);
		iov[n++] = (struct iovec){ b0, DIRECT_ALIGN };
		if (whole > DIRECT_ALIGN)
			iov[n++] = (struct iovec){ (void *)(start + DIRECT_ALIGN), whole - DIRECT_ALIGN };
		if (size > DIRECT_ALIGN && size > whole) {
			memcpy(b1, start + whole, size - whole);
			memset(b1 + size - whole, 0, DIRECT_ALIGN - (size - whole));
			iov[n++] = (struct iovec){ b1, DIRECT_ALIGN };
		}
	}
	ret = out_pwritev_all(fd, iov, n, off);
	if (ret == -EINVAL) {
		/* The file system took O_DIRECT at open, not for this write: go buffered. */
		int fl = fcntl(fd, F_GETFL);

		if (fl >= 0 && fcntl(fd, F_SETFL, fl & ~O_DIRECT) == 0) {
			free(all);
			return 1;
		}
	}
	free(all);
	*written = padded;
	return ret;
}

/* The stream file of @cpu for the next packet: the chunk rotated or opened first. */
static int stream_for(struct rtr_out *o, uint32_t cpu)
{
	int fd, ret;

	if (rotate_due(o))
		close_chunk(o);
	if (!o->chunk_open && (ret = open_chunk(o)))
		return ret;
	fd = stream_fd(o, cpu);
	if (fd < 0)
		return fail(o, fd, "%s/%s/stream_%u: %s", o->o.path, o->chunk_name, cpu,
			    strerror(-fd));
	return fd;
}

int out_packet_sync(struct rtr_out *o, uint32_t cpu, const void *hdr, const void *body,
		    size_t size)
{
	struct iovec iov[2] = {
		{ (void *)hdr, RTR_PACKET_HDR_SIZE },
		{ (void *)body, size - RTR_PACKET_HDR_SIZE },
	};
	size_t ondisk;
	int fd, ret;

	if (o->rep.failed)
		return -EIO;
	if (cpu > 65535 || size < RTR_PACKET_HDR_SIZE)
		return fail(o, -EINVAL, "packet of stream %u, %zu bytes: not a packet", cpu, size);
	if (o->relayd) {
		ret = net_check(o, rtr_relayd_packet(o->relayd, cpu, hdr, body, size, false));
		goto done;
	}
	if (o->stream) {
		ret = write_frame2(o, RTR_FRAME_PACKET, cpu, hdr, RTR_PACKET_HDR_SIZE, body, size);
		goto done;
	}
	fd = stream_for(o, cpu);
	if (fd < 0)
		return fd;
	ondisk = size;
	ret = o->sdirect[cpu] ? write_direct(o, fd, o->ssize[cpu], hdr, body, size, &ondisk) : 1;
	if (ret == 1) {
		o->sdirect[cpu] = false;
		ondisk = size;
		ret = out_pwritev_all(fd, iov, 2, o->ssize[cpu]);
	}
	if (ret) {
		/* Take back what part of the packet went out: files end on packets. */
		int tr = ftruncate(fd, (off_t)o->ssize[cpu]);

		return fail(o, ret, "%s/%s/stream_%u: %s%s", o->o.path, o->chunk_name, cpu,
			    strerror(-ret), tr ? " (and the partial packet could not be cut off)" : "");
	}
	o->ssize[cpu] += ondisk;
	o->chunk_bytes += ondisk;
	size = ondisk;
done:
	if (!ret) {
		o->rep.packets++;
		o->rep.bytes += size;
	}
	return ret;
}

int out_net_packet(struct rtr_out *o, uint32_t cpu, const void *hdr, const void *body,
		   size_t size)
{
	if (o->rep.failed)
		return -EIO;
	return net_check(o, rtr_relayd_packet(o->relayd, cpu, hdr, body, size, true));
}

int out_net_confirmed(struct rtr_out *o, bool wait)
{
	int n;

	if (o->rep.failed)
		return -EIO;
	n = rtr_relayd_confirmed(o->relayd, wait);
	return n < 0 ? net_check(o, n) : n;
}

int rtr_out_packetv(struct rtr_out *o, uint32_t cpu, const void *hdr, const void *body,
		    size_t size)
{
	if (o->q)
		return rtr_queue_packet(o, cpu, hdr, body, size);
	return out_packet_sync(o, cpu, hdr, body, size);
}

void rtr_out_publish(struct rtr_out *o)
{
	if (o->q)
		rtr_queue_publish(o);
}

bool rtr_out_followed(struct rtr_out *o)
{
	uint64_t now;

	if (!o || o->stream || o->topfd < 0)
		return false;
	now = rtr_monotonic_ns();
	if (now - o->viewer_checked_ns >= 250000000ull) {
		o->viewer_checked_ns = now;
		o->followed = rtr_viewer_fresh(o->topfd);
	}
	return o->followed;
}

bool rtr_out_room(struct rtr_out *o, size_t size)
{
	return !o->q || rtr_queue_room(o, size);
}

int rtr_out_wait(struct rtr_out *o, int timeout_ms)
{
	return o->q ? rtr_queue_wait(o, timeout_ms) : 1;
}

bool out_rotate_due(const struct rtr_out *o)
{
	return rotate_due(o);
}

int out_place(struct rtr_out *o, uint32_t cpu, size_t size, uint64_t *off, size_t *ondisk,
	      bool *direct)
{
	int fd;

	*direct = false;
	if (o->rep.failed)
		return -EIO;
	if (o->stream)
		return 0;
	fd = stream_for(o, cpu);
	if (fd < 0)
		return fd;
	*direct = o->sdirect[cpu];
	*off = o->ssize[cpu];
	*ondisk = *direct ? (size + DIRECT_ALIGN - 1) & ~(size_t)(DIRECT_ALIGN - 1) : size;
	o->ssize[cpu] += *ondisk;
	o->chunk_bytes += *ondisk;
	return fd;
}

void out_written(struct rtr_out *o, size_t ondisk)
{
	o->rep.packets++;
	o->rep.bytes += ondisk;
}

void out_write_failed(struct rtr_out *o, uint32_t cpu, uint64_t off, int ret)
{
	int tr = ftruncate(o->sfd[cpu], (off_t)off);

	o->ssize[cpu] = off;
	fail(o, ret, "%s/%s/stream_%u: %s%s", o->o.path, o->chunk_name, cpu, strerror(-ret),
	     tr ? " (and the partial packet could not be cut off)" : "");
}

int rtr_out_packet(struct rtr_out *o, uint32_t cpu, const void *data, size_t size)
{
	return rtr_out_packetv(o, cpu, data, (const uint8_t *)data + RTR_PACKET_HDR_SIZE, size);
}

/* The state file: for `dump --follow`, how far each stream file is whole. */
static int write_state(struct rtr_out *o, enum rtr_state_kind kind)
{
	struct rtr_state st = { .kind = kind, .watermark = o->watermark };
	int ret;

	snprintf(st.chunk, sizeof(st.chunk), "%s", o->chunk_name);
	st.streams = calloc(o->nsfd + 1, sizeof(*st.streams));
	if (!st.streams)
		return -ENOMEM;
	for (uint32_t i = 0; o->chunk_open && i < o->nsfd; i++)
		if (o->sfd[i] >= 0)
			st.streams[st.nstreams++] = (struct rtr_state_stream){ i, o->ssize[i] };
	ret = rtr_state_write(o->topfd, &st, o->o.file_mode);
	free(st.streams);
	return ret;
}

int rtr_out_progress(struct rtr_out *o, uint64_t watermark)
{
	if (o->q)
		return rtr_queue_progress(o, watermark);
	return out_progress_sync(o, watermark);
}

int out_progress_sync(struct rtr_out *o, uint64_t watermark)
{
	uint64_t w = htole64(watermark);
	int ret;

	if (o->rep.failed)
		return -EIO;
	if (watermark > o->watermark)
		o->watermark = watermark;
	if (o->relayd)
		return net_check(o, rtr_relayd_progress(o->relayd, watermark));
	if (o->stream)
		return write_frame(o, RTR_FRAME_PROGRESS, 0, &w, sizeof(w));
	ret = write_state(o, RTR_REC_RECORDING);
	if (ret)
		return fail(o, ret, "%s/%s: %s", o->o.path, RTR_STATE_FILE, strerror(-ret));
	return 0;
}

bool rtr_out_failed(const struct rtr_out *o)
{
	return __atomic_load_n(&o->failed, __ATOMIC_ACQUIRE);
}

const struct rtr_out_report *rtr_out_report(const struct rtr_out *o)
{
	return &o->rep;
}

static void out_free(struct rtr_out *o)
{
	rtr_relayd_free(o->relayd);
	free(o->sfd);
	free(o->ssize);
	free(o->sdirect);
	free(o->bounce);
	free(o->md);
	free(o);
}

void rtr_out_abandon(struct rtr_out *o, const char *path)
{
	bool empty;

	if (!o)
		return;
	rtr_queue_close(o);
	empty = !o->stream && !o->rep.packets;
	if (!o->stream)
		close_chunk(o);
	if (empty) {
		unlinkat(o->topfd, "metadata", 0);
		unlinkat(o->topfd, RTR_STATE_FILE, 0);
	}
	if (!o->stream)
		close(o->topfd);
	if (empty)
		rmdir(path);
	out_free(o);
}

/* Remove directory @path (in @at, as rtr_mkdir_new() names it): a trace's files only. */
static int remove_trace_at(int at, const char *path, int dfd)
{
	const char *name = at != AT_FDCWD && strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	char bad[256];
	int ret = empty_trace_dir(dfd, bad, sizeof(bad));

	if (!ret && unlinkat(at, name, AT_REMOVEDIR) < 0)
		ret = -errno;
	return ret;
}

int rtr_trace_remove(int at, const char *path)
{
	const char *name = at != AT_FDCWD && strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	int ret, dfd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (dfd < 0)
		return -errno;
	ret = remove_trace_at(at, path, dfd);
	close(dfd);
	return ret;
}

int rtr_out_remove(struct rtr_out *o, struct rtr_out_report *rep)
{
	int ret;

	if (!o || o->stream)
		return rtr_out_close(o, false, rep);
	rtr_queue_close(o);
	close_chunk(o);
	ret = remove_trace_at(o->o.parent_fd > 0 ? o->o.parent_fd : AT_FDCWD, o->o.path, o->topfd);
	if (ret) {
		/* What could not go says it failed: a reader is not misled. */
		unlinkat(o->topfd, RTR_STATE_FILE, 0);
		write_state(o, RTR_REC_FAILED);
	}
	close(o->topfd);
	if (rep)
		*rep = o->rep;
	out_free(o);
	return ret;
}

int rtr_out_close(struct rtr_out *o, bool complete, struct rtr_out_report *rep)
{
	int ret = 0;

	if (!o)
		return 0;
	rtr_queue_close(o);	/* everything queued written (or kept), the writer stopped */
	if (o->relayd) {
		if (!o->rep.failed)
			net_check(o, rtr_relayd_close(o->relayd));
		net_report(o);
	} else if (o->stream) {
		if (!o->rep.failed)
			write_frame(o, RTR_FRAME_END, complete ? 0 : 1, NULL, 0);
	} else {
		/* A trace with no packet at all is still a trace: its metadata. */
		if (!o->chunk_open && !o->rep.failed && o->md && !o->rep.chunks && !o->rotating)
			open_chunk(o);
		close_chunk(o);
		/*
		 * The state file stays: `dump --follow` learns the trace is complete.
		 * After a failure (a full disk), the old one goes first, to make room.
		 */
		if (o->rep.failed)
			unlinkat(o->topfd, RTR_STATE_FILE, 0);
		ret = write_state(o, o->rep.failed ? RTR_REC_FAILED : complete ? RTR_REC_DONE :
				  RTR_REC_STOPPED);
		if (ret && !o->rep.failed)
			fail(o, ret, "%s/%s: %s", o->o.path, RTR_STATE_FILE, strerror(-ret));
		/* followers' marks, once they can read that it ended: nothing to follow */
		unlinkat(o->topfd, RTR_VIEWER_FILE, 0);
		if (fsync(o->topfd) < 0 && !o->rep.failed)
			fail(o, -errno, "%s: fsync: %s", o->o.path, strerror(errno));
		close(o->topfd);
	}
	ret = o->rep.failed ? -EIO : 0;
	if (rep)
		*rep = o->rep;
	out_free(o);
	return ret;
}
