// SPDX-License-Identifier: MIT
/* platform/unix/shm.c - region files: created safely, mapped MAP_SHARED. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include "platform/platform.h"

/*
 * The file is created exclusively (an existing file or a symlink at @path is
 * an error, never followed), 0600, and its blocks are allocated up front:
 * a full tmpfs then fails here with -ENOSPC instead of sending SIGBUS to a
 * writer on its first touch of a page.
 */
int rtr_shm_create(const char *path, uint64_t size, int *fd, void **addr)
{
	int f, ret;
	void *p;

	f = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (f < 0)
		return -errno;
	ret = posix_fallocate(f, 0, (off_t)size);
	if (ret) {
		unlink(path);
		close(f);
		return -ret;
	}
	/* Prefaulted: no page fault lands in the writers' path (MAP_POPULATE). */
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, f, 0);
	if (p == MAP_FAILED) {
		ret = -errno;
		unlink(path);
		close(f);
		return ret;
	}
	*fd = f;
	*addr = p;
	return 0;
}

int rtr_shm_open(const char *path, bool writable, int *fd, void **addr, uint64_t *size)
{
	struct stat st;
	int f, ret;
	void *p;

	f = open(path, (writable ? O_RDWR : O_RDONLY) | O_NOFOLLOW | O_CLOEXEC);
	if (f < 0)
		return -errno;
	if (fstat(f, &st) < 0) {
		ret = -errno;
		goto err;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = -EINVAL;
		goto err;
	}
	if (st.st_size <= 0) {
		ret = -ENODATA;
		goto err;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ | (writable ? PROT_WRITE : 0),
		 MAP_SHARED, f, 0);
	if (p == MAP_FAILED) {
		ret = -errno;
		goto err;
	}
	*fd = f;
	*addr = p;
	*size = (uint64_t)st.st_size;
	return 0;
err:
	close(f);
	return ret;
}

/* write(2) until all of @buf is written; -errno (-ENOSPC: disk full). */
int rtr_write_all(int fd, const void *buf, size_t n)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = n };

	return rtr_writev_all(fd, &iov, 1);
}

int rtr_writev_all(int fd, struct iovec *iov, int n)
{
	while (n) {
		ssize_t w = writev(fd, iov, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		rtr_iov_advance(&iov, &n, (size_t)w);
	}
	return 0;
}

void rtr_iov_advance(struct iovec **iov, int *n, size_t done)
{
	/* Skip what went out; a partial write leaves the rest of one vector. */
	while (*n && done >= (*iov)->iov_len) {
		done -= (*iov)->iov_len;
		(*iov)++;
		(*n)--;
	}
	if (*n) {
		(*iov)->iov_base = (uint8_t *)(*iov)->iov_base + done;
		(*iov)->iov_len -= done;
	}
}

void rtr_shm_unmap(void *addr, uint64_t size)
{
	if (addr)
		munmap(addr, size);
}
