// SPDX-License-Identifier: MIT
/*
 * platform/unix/region.c - a region in a file, its two sides woken through
 * futexes on words of the region (struct rtr_region_mem on unix).
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "platform/platform.h"
#include "format/error.h"

static void file_wake(struct rtr_region_mem *m, uint32_t *word)
{
	rtr_futex_wake(word, INT_MAX);
}

static int file_wait(struct rtr_region_mem *m, uint32_t *word, uint32_t expected, int timeout_ms)
{
	return rtr_futex_wait(word, expected, timeout_ms);
}

static int file_publish(struct rtr_region_mem *m)
{
	return 0;	/* the file is found by its path */
}

static bool file_producer_gone(struct rtr_region_mem *m, uint32_t pid)
{
	if (pid > 0 && pid <= INT_MAX && kill((pid_t)pid, 0) < 0 && errno == ESRCH) {
		m->gone_why = "the producer's process exited";
		return true;
	}
	return false;
}

/*
 * A pid the region lists may be anything (a scribbled region; a pid reused
 * after the writer died): it counts only while that process maps this very
 * file, as /proc/PID/maps says (device and inode).  A process we may not
 * look at is not ours: record runs its program as its own user.  A writer
 * that exec'd a program without libringtrace no longer maps it: gone too.
 */
static bool file_writer_gone(struct rtr_region_mem *m, uint32_t pid)
{
	char path[64], line[512];
	struct stat st;
	bool mapped = false;
	FILE *f;

	if (pid == 0 || pid > INT_MAX || file_producer_gone(m, pid))
		return true;
	if (m->fd < 0 || fstat(m->fd, &st))
		return false;	/* cannot tell: alive is what kill() said */
	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return true;
	while (!mapped && fgets(line, sizeof(line), f)) {
		unsigned int maj, min;
		unsigned long long ino;

		/* "start-end perms offset maj:min inode path"; a long line's rest fails the scan. */
		if (sscanf(line, "%*x-%*x %*s %*x %x:%x %llu", &maj, &min, &ino) == 3 &&
		    ino == (unsigned long long)st.st_ino && makedev(maj, min) == st.st_dev)
			mapped = true;
	}
	fclose(f);
	return !mapped;
}

static void file_release(struct rtr_region_mem *m, bool unlink_file)
{
	if (unlink_file && m->name)
		unlink(m->name);
	rtr_shm_unmap(m->base, m->size);
	if (m->fd >= 0)
		close(m->fd);
	free(m->name);
	m->base = NULL;
	m->name = NULL;
	m->fd = -1;
}

static const struct rtr_region_ops file_ops = {
	.wake = file_wake,
	.wait = file_wait,
	.publish = file_publish,
	.producer_gone = file_producer_gone,
	.writer_gone = file_writer_gone,
	.release = file_release,
};

/* Create (@create) or open the file at @path into @m. */
static int file_mem(struct rtr_region_mem *m, const char *path, bool create, uint64_t size)
{
	void *addr;
	int fd, ret;

	memset(m, 0, sizeof(*m));
	m->fd = -1;
	m->name = strdup(path);
	if (!m->name)
		return -ENOMEM;
	if (create)
		ret = rtr_shm_create(path, size, &fd, &addr);
	else
		ret = rtr_shm_open(path, true, &fd, &addr, &size);
	if (ret) {
		free(m->name);
		m->name = NULL;
		return ret;
	}
	m->base = addr;
	m->size = size;
	m->fd = fd;
	m->ops = &file_ops;
	return 0;
}

int rtr_region_file_create(struct rtr_region_mem *m, const char *path, uint64_t size,
			   uint32_t ncpus, char *err, size_t errlen)
{
	int ret = file_mem(m, path, true, size);

	if (ret)
		rtr_errf(err, errlen, -ret, "%s: %s", path, strerror(-ret));
	return ret;
}

int rtr_region_file_open(struct rtr_region_mem *m, const char *path)
{
	return file_mem(m, path, false, 0);
}
