// SPDX-License-Identifier: MIT
/* platform/unix/futex.c - futex words shared between processes. */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "platform/platform.h"

/*
 * Shared (not FUTEX_PRIVATE) operations: the word lives in a MAP_SHARED
 * file mapped by the producer and the consumer.
 * Return: 0 when woken or the word differed, -ETIMEDOUT, -EINTR.
 */
int rtr_futex_wait(uint32_t *word, uint32_t expected, int timeout_ms)
{
	struct timespec ts, *tsp = NULL;

	if (timeout_ms >= 0) {
		ts.tv_sec = timeout_ms / 1000;
		ts.tv_nsec = (long)(timeout_ms % 1000) * 1000000L;
		tsp = &ts;
	}
	if (syscall(SYS_futex, word, FUTEX_WAIT, expected, tsp, NULL, 0) < 0) {
		if (errno == EAGAIN)
			return 0;
		return -errno;
	}
	return 0;
}

int rtr_futex_wake(uint32_t *word, int nr)
{
	long ret = syscall(SYS_futex, word, FUTEX_WAKE, nr, NULL, NULL, 0);

	return ret < 0 ? -errno : (int)ret;
}
