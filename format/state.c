// SPDX-License-Identifier: MIT
/* format/state.c - the recorder's state file, written and parsed (state.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "format/state.h"

#define STATE_MAX	(64u << 20)	/* far above 65536 streams' lines */

void rtr_viewer_touch(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return;
	if (utimensat(fd, RTR_VIEWER_FILE, NULL, AT_SYMLINK_NOFOLLOW) && errno == ENOENT) {
		int f = openat(fd, RTR_VIEWER_FILE, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
			       0644);

		if (f >= 0)
			close(f);
	}
	close(fd);
}

bool rtr_viewer_fresh(int dirfd)
{
	struct timespec now;
	struct stat st;
	int64_t age_ms;

	if (fstatat(dirfd, RTR_VIEWER_FILE, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
		return false;
	clock_gettime(CLOCK_REALTIME, &now);
	age_ms = ((int64_t)now.tv_sec - (int64_t)st.st_mtim.tv_sec) * 1000 +
		 ((int64_t)now.tv_nsec - (int64_t)st.st_mtim.tv_nsec) / 1000000;
	/* a mark from the future (a clock stepped back) counts as fresh only a moment */
	return age_ms < RTR_VIEWER_FRESH_MS && age_ms > -RTR_VIEWER_FRESH_MS;
}

static const char *const kind_names[] = {
	[RTR_REC_RECORDING] = "recording",
	[RTR_REC_DONE] = "done",
	[RTR_REC_STOPPED] = "stopped",
	[RTR_REC_FAILED] = "failed",
};

int rtr_state_format(const struct rtr_state *st, char **text, size_t *len)
{
	/* A line per stream: "stream N SIZE\n" takes at most 37 bytes. */
	size_t cap = 160 + (size_t)st->nstreams * 40, n;
	char *buf;

	if ((unsigned)st->kind > RTR_REC_FAILED)
		return -EINVAL;
	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	n = (size_t)snprintf(buf, cap, "ringtrace-state 1\nstate %s\nchunk %s\nwatermark %" PRIu64
			     "\n", kind_names[st->kind], st->chunk[0] ? st->chunk : "-",
			     st->watermark);
	for (uint32_t i = 0; i < st->nstreams; i++)
		n += (size_t)snprintf(buf + n, cap - n, "stream %u %" PRIu64 "\n",
				      st->streams[i].cpu, st->streams[i].size);
	*text = buf;
	*len = n;
	return 0;
}

void rtr_state_free(struct rtr_state *st)
{
	free(st->streams);
	memset(st, 0, sizeof(*st));
}

int rtr_state_parse(struct rtr_state *st, const char *text, size_t len)
{
	char *buf, *line, *save = NULL, word[32];
	uint32_t cap = 0;
	int ret = -EPROTO;

	memset(st, 0, sizeof(*st));
	if (len < 18 || strncmp(text, "ringtrace-state 1\n", 18) || memchr(text, 0, len))
		return -EPROTO;
	buf = strndup(text, len);
	if (!buf)
		return -ENOMEM;
	st->present = true;
	for (line = strtok_r(buf + 18, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned cpu;
		uint64_t v;

		if (sscanf(line, "state %31s", word) == 1) {
			st->kind = RTR_REC_STOPPED;	/* a word of a later version: over */
			for (unsigned k = 0; k <= RTR_REC_FAILED; k++)
				if (!strcmp(word, kind_names[k]))
					st->kind = (enum rtr_state_kind)k;
			st->done = strcmp(word, "recording") != 0;
		} else if (sscanf(line, "chunk %63s", st->chunk) == 1) {
			if (!strcmp(st->chunk, "-"))
				st->chunk[0] = 0;
		} else if (sscanf(line, "watermark %" SCNu64, &v) == 1) {
			st->watermark = v;
		} else if (sscanf(line, "stream %u %" SCNu64, &cpu, &v) == 2) {
			if (st->nstreams == cap) {
				struct rtr_state_stream *ns;

				cap = cap ? 2 * cap : 64;
				ns = realloc(st->streams, cap * sizeof(*ns));
				if (!ns) {
					ret = -ENOMEM;
					goto fail;
				}
				st->streams = ns;
			}
			st->streams[st->nstreams++] = (struct rtr_state_stream){ cpu, v };
		} else {
			goto fail;
		}
	}
	free(buf);
	return 0;
fail:
	free(buf);
	rtr_state_free(st);
	return ret;
}

int rtr_file_replace(int dfd, const char *name, const void *data, size_t len, mode_t mode,
		     bool sync)
{
	char tmp[300];
	size_t done = 0;
	int fd, ret = 0;

	if (snprintf(tmp, sizeof(tmp), ".%s.tmp", name) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	unlinkat(dfd, tmp, 0);
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0)
		return -errno;
	while (done < len) {
		ssize_t n = write(fd, (const char *)data + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = n < 0 ? -errno : -EIO;
			break;
		}
		done += (size_t)n;
	}
	if (!ret && sync && fsync(fd) < 0)
		ret = -errno;
	close(fd);
	if (!ret && renameat(dfd, tmp, dfd, name) < 0)
		ret = -errno;
	if (ret)
		unlinkat(dfd, tmp, 0);
	return ret;
}

int rtr_state_write(int dfd, const struct rtr_state *st, mode_t mode)
{
	size_t n;
	char *buf;
	int ret = rtr_state_format(st, &buf, &n);

	if (ret)
		return ret;
	ret = rtr_file_replace(dfd, RTR_STATE_FILE, buf, n, mode, false);
	free(buf);
	return ret;
}

int rtr_state_read(const char *dir, struct rtr_state *st)
{
	char path[4096], *buf = NULL;
	size_t got = 0, cap = 0;
	int fd, ret;

	memset(st, 0, sizeof(*st));
	if (snprintf(path, sizeof(path), "%s/%s", dir, RTR_STATE_FILE) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	for (;;) {
		ssize_t n;

		if (got == cap) {
			char *nb;

			cap = cap ? 2 * cap : 4096;
			if (cap > STATE_MAX || !(nb = realloc(buf, cap))) {
				ret = cap > STATE_MAX ? -EPROTO : -ENOMEM;
				goto out;
			}
			buf = nb;
		}
		n = read(fd, buf + got, cap - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			goto out;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	ret = got ? rtr_state_parse(st, buf, got) : -EPROTO;
out:
	close(fd);
	free(buf);
	return ret;
}
