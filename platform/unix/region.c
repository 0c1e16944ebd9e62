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

enum { MAPS_NOT_OURS = -2, MAPS_UNKNOWN = -1, MAPS_NO = 0, MAPS_YES = 1 };

/*
 * Whether process @pid maps this very region file, as /proc/PID/maps says
 * (device and inode): MAPS_YES, MAPS_NO, MAPS_NOT_OURS (its maps are not
 * ours to read: another user's process, or an undumpable one), or
 * MAPS_UNKNOWN (the region file cannot be looked at).
 */
static int maps_region(const struct rtr_region_mem *m, uint32_t pid)
{
	char path[64], line[512];
	struct stat st;
	int mapped = MAPS_NO;
	FILE *f;

	if (m->fd < 0 || fstat(m->fd, &st))
		return MAPS_UNKNOWN;
	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return errno == EACCES || errno == EPERM ? MAPS_NOT_OURS : MAPS_NO;
	while (!mapped && fgets(line, sizeof(line), f)) {
		unsigned int maj, min;
		unsigned long long ino;

		/* "start-end perms offset maj:min inode path"; a long line's rest fails the scan. */
		if (sscanf(line, "%*x-%*x %*s %*x %x:%x %llu", &maj, &min, &ino) == 3 &&
		    ino == (unsigned long long)st.st_ino && makedev(maj, min) == st.st_dev)
			mapped = MAPS_YES;
	}
	fclose(f);
	return mapped;
}

/*
 * Whether @pid is a process (not one of another's threads: kill() takes
 * those too) one of whose users (real, effective, saved, filesystem: a
 * setuid program's file is its effective user's) owns the region file, as
 * /proc/PID/status says, which anyone may read: the producer made the file.
 */
static bool owner_process(const struct rtr_region_mem *m, uint32_t pid)
{
	char path[64], line[256];
	unsigned long tgid = 0;
	bool owner = false;
	struct stat st;
	FILE *f;

	if (m->fd < 0 || fstat(m->fd, &st))
		return true;	/* cannot tell */
	snprintf(path, sizeof(path), "/proc/%u/status", pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Tgid:", 5)) {
			tgid = strtoul(line + 5, NULL, 10);
		} else if (!strncmp(line, "Uid:", 4)) {
			char *p = line + 4, *end;

			for (int i = 0; i < 4; i++, p = end) {
				unsigned long uid = strtoul(p, &end, 10);

				if (end == p)
					break;
				owner |= uid == st.st_uid;
			}
		}
	}
	fclose(f);
	return tgid == pid && owner;
}

static bool exited(struct rtr_region_mem *m, uint32_t pid)
{
	if (pid == 0 || pid > INT_MAX || (kill((pid_t)pid, 0) < 0 && errno == ESRCH)) {
		m->gone_why = "the producer's process exited";
		return true;
	}
	return false;
}

/*
 * The pid is the region header's, untrusted like the rest of it: a
 * scribbled header may name any process, this one included, and a
 * consumer waiting for that one to exit would wait for ever.  It counts
 * once that process is seen to map this very file (then, as long as it
 * exists: /proc is read once, not at every turn of a consumer's loop).
 * A consumer is not its own producer.  The forked writers the region
 * lists (writer_gone()) keep a consumer going on their own.
 */
static bool file_producer_gone(struct rtr_region_mem *m, uint32_t pid)
{
	int mapped;

	if (exited(m, pid))
		return true;
	if (m->producer_seen == pid)
		return false;
	/*
	 * One whose maps we may not read (an undumpable program; a sandbox's
	 * own processes, even to root) counts if it is a process of the
	 * file's owner.
	 */
	mapped = pid == (uint32_t)getpid() ? MAPS_NO : maps_region(m, pid);
	if (mapped == MAPS_NO || (mapped == MAPS_NOT_OURS && !owner_process(m, pid))) {
		m->gone_why = "the region's producer pid names a process that does not map it "
			      "(a damaged header, or a pid reused since the producer exited)";
		return true;
	}
	m->producer_seen = pid;
	return false;
}

/*
 * A pid the region lists may be anything (a scribbled region; a pid reused
 * after the writer died): it counts only while that process maps this very
 * file.  A process we may not look at is not ours: the forked writers of a
 * program are its user's (a sandbox's own processes may be unreadable even
 * to root).  A writer that exec'd a program without libringtrace no longer
 * maps it: gone too.  Nor is this process one of them.
 */
static bool file_writer_gone(struct rtr_region_mem *m, uint32_t pid)
{
	int mapped;

	if (exited(m, pid) || pid == (uint32_t)getpid())
		return true;
	mapped = maps_region(m, pid);
	/* The file cannot be looked at: alive is what kill() said. */
	return mapped == MAPS_NO || mapped == MAPS_NOT_OURS;
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
