// SPDX-License-Identifier: MIT
/*
 * reader/spool.c - a framed stream written out as a trace directory
 * (reader/spool.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "format/error.h"
#include "format/state.h"
#include "reader/spool.h"

#define SPOOL_MODE 0600

struct tr_spool {
	struct rtr_frame_sink sink;
	char *dir;
	int dfd;
	char *md;		/* the metadata written last */
	size_t mdlen;
	int *fd;		/* stream_<i>'s descriptor, -1 before its first packet */
	uint64_t *size;		/* its bytes, whole packets */
	uint32_t nfd;
	uint64_t watermark;
	bool failed;
	char err[600];
};

static int fail(struct tr_spool *sp, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct tr_spool *sp, int ret, const char *fmt, ...)
{
	va_list ap;

	if (!sp->failed) {
		va_start(ap, fmt);
		rtr_verrf_at(sp->err, sizeof(sp->err), -ret, NULL, RTR_AT_NONE, 0, fmt, ap);
		va_end(ap);
	}
	sp->failed = true;
	return ret;
}

static int write_state(struct tr_spool *sp, enum rtr_state_kind kind)
{
	struct rtr_state st = { .kind = kind, .watermark = sp->watermark };
	int ret;

	/* As a recorder's without rotation: chunk "." once the metadata is in. */
	snprintf(st.chunk, sizeof(st.chunk), "%s", sp->md ? "." : "");
	st.streams = calloc(sp->nfd + 1, sizeof(*st.streams));
	if (!st.streams)
		return -ENOMEM;
	for (uint32_t i = 0; i < sp->nfd; i++)
		if (sp->fd[i] >= 0)
			st.streams[st.nstreams++] = (struct rtr_state_stream){ i, sp->size[i] };
	ret = rtr_state_write(sp->dfd, &st, SPOOL_MODE);
	free(st.streams);
	return ret;
}

static int spool_metadata(void *ctx, const char *text, size_t len)
{
	struct tr_spool *sp = ctx;
	char *md;
	int ret;

	if (sp->failed)
		return -EIO;
	if (sp->md && sp->mdlen == len && !memcmp(sp->md, text, len))
		return 0;
	md = malloc(len ? len : 1);
	if (!md)
		return fail(sp, -ENOMEM, "metadata: out of memory");
	if (len)	/* an empty frame's text may be NULL */
		memcpy(md, text, len);
	ret = rtr_file_replace(sp->dfd, "metadata", text, len, SPOOL_MODE, false);
	if (ret) {
		free(md);
		return fail(sp, ret, "%s/metadata: %s", sp->dir, strerror(-ret));
	}
	free(sp->md);
	sp->md = md;
	sp->mdlen = len;
	return 0;
}

static int stream_fd(struct tr_spool *sp, uint32_t stream)
{
	char name[32];

	if (stream >= sp->nfd) {
		uint32_t n = stream + 1 > 2 * sp->nfd ? stream + 1 : 2 * sp->nfd;
		int *fd = realloc(sp->fd, n * sizeof(*fd));
		uint64_t *size;

		if (!fd)
			return -ENOMEM;
		sp->fd = fd;
		size = realloc(sp->size, n * sizeof(*size));
		if (!size)
			return -ENOMEM;
		sp->size = size;
		for (uint32_t i = sp->nfd; i < n; i++) {
			sp->fd[i] = -1;
			sp->size[i] = 0;
		}
		sp->nfd = n;
	}
	if (sp->fd[stream] >= 0)
		return sp->fd[stream];
	snprintf(name, sizeof(name), "stream_%u", stream);
	sp->fd[stream] = openat(sp->dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
				SPOOL_MODE);
	return sp->fd[stream] >= 0 ? sp->fd[stream] : -errno;
}

static int spool_packet(void *ctx, uint32_t stream, const void *data, size_t len)
{
	struct tr_spool *sp = ctx;
	size_t done = 0;
	int fd;

	if (sp->failed)
		return -EIO;
	if (!sp->md)
		return fail(sp, -EPROTO, "%s: a packet came before the metadata", sp->dir);
	fd = stream_fd(sp, stream);
	if (fd < 0)
		return fail(sp, fd, "%s/stream_%u: %s", sp->dir, stream, strerror(-fd));
	while (done < len) {
		ssize_t n = pwrite(fd, (const char *)data + done, len - done,
				   (off_t)(sp->size[stream] + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int ret = n < 0 ? -errno : -EIO;
			/* Take back what part of the packet went out: files end on packets. */
			int tr = ftruncate(fd, (off_t)sp->size[stream]);

			return fail(sp, ret, "%s/stream_%u: %s%s", sp->dir, stream, strerror(-ret),
				    tr ? " (and the partial packet could not be cut off)" : "");
		}
		done += (size_t)n;
	}
	sp->size[stream] += len;
	return 0;
}

static int spool_progress(void *ctx, uint64_t watermark)
{
	struct tr_spool *sp = ctx;
	int ret;

	if (sp->failed)
		return -EIO;
	if (watermark > sp->watermark)
		sp->watermark = watermark;
	ret = write_state(sp, RTR_REC_RECORDING);
	return ret ? fail(sp, ret, "%s/%s: %s", sp->dir, RTR_STATE_FILE, strerror(-ret)) : 0;
}

static const char *spool_error(void *ctx)
{
	return ((struct tr_spool *)ctx)->err;
}

int tr_spool_open(struct tr_spool **out, const char *dir, char *err, size_t errlen)
{
	struct tr_spool *sp = calloc(1, sizeof(*sp));
	int ret;

	if (!sp || !(sp->dir = strdup(dir))) {
		free(sp);
		return rtr_errf(err, errlen, ENOMEM, "out of memory");
	}
	sp->sink = (struct rtr_frame_sink){
		.ctx = sp, .metadata = spool_metadata, .packet = spool_packet,
		.progress = spool_progress, .error = spool_error,
	};
	if (mkdir(dir, 0700) < 0 ||
	    (sp->dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		ret = rtr_errf(err, errlen, errno, "%s: cannot create the spool: %s", dir,
			       strerror(errno));
		free(sp->dir);
		free(sp);
		return ret;
	}
	/* At once: a follower knows a recording is under way, not a finished trace. */
	ret = write_state(sp, RTR_REC_RECORDING);
	if (ret) {
		rtr_errf(err, errlen, -ret, "%s/%s: %s", dir, RTR_STATE_FILE, strerror(-ret));
		close(sp->dfd);
		free(sp->dir);
		free(sp);
		return ret;
	}
	*out = sp;
	return 0;
}

const struct rtr_frame_sink *tr_spool_sink(struct tr_spool *sp)
{
	return &sp->sink;
}

int tr_spool_close(struct tr_spool *sp, bool complete)
{
	int ret;

	if (!sp)
		return 0;
	for (uint32_t i = 0; i < sp->nfd; i++) {
		if (sp->fd[i] >= 0)
			close(sp->fd[i]);
		sp->fd[i] = -1;	/* as a recorder's final state: no stream listed, read to the end */
	}
	/* After a failure (a full disk), the old state goes first, to make room. */
	if (sp->failed)
		unlinkat(sp->dfd, RTR_STATE_FILE, 0);
	ret = write_state(sp, sp->failed ? RTR_REC_FAILED : complete ? RTR_REC_DONE :
			  RTR_REC_STOPPED);
	unlinkat(sp->dfd, RTR_VIEWER_FILE, 0);
	close(sp->dfd);
	ret = sp->failed ? -EIO : ret;
	free(sp->fd);
	free(sp->size);
	free(sp->md);
	free(sp->dir);
	free(sp);
	return ret;
}
