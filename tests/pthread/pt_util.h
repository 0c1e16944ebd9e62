/* SPDX-License-Identifier: MIT */
/*
 * tests/pthread/pt_util.h - what the programs that tests/pthread/ records
 * share (rtr-pthread-prog, rtr-pthread-own): checked calls and waiting
 * until a thread sleeps.  Each defines PT_NAME, its name in messages.
 */
#ifndef RTR_TESTS_PTHREAD_PT_UTIL_H
#define RTR_TESTS_PTHREAD_PT_UTIL_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#define CHECK(x)                                                                    \
	do {                                                                        \
		int r_ = (x);                                                       \
		if (r_) {                                                           \
			fprintf(stderr, "%s: %s: %s (line %d)\n", PT_NAME, #x,      \
				strerror(r_ > 0 ? r_ : errno), __LINE__);           \
			exit(1);                                                    \
		}                                                                   \
	} while (0)

static inline pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* Wait until thread @tid sleeps (state S in /proc): it is blocked in the kernel. */
static inline void wait_asleep(pid_t tid)
{
	char path[64], buf[256];

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	for (int i = 0; i < 20000; i++) {
		FILE *f = fopen(path, "r");
		char *p;

		if (f) {
			size_t n = fread(buf, 1, sizeof(buf) - 1, f);

			fclose(f);
			buf[n] = 0;
			p = strrchr(buf, ')');
			if (p && p[1] == ' ' && p[2] == 'S')
				return;
		}
		usleep(1000);
	}
	fprintf(stderr, "%s: thread %d never slept\n", PT_NAME, (int)tid);
	exit(1);
}

#endif /* RTR_TESTS_PTHREAD_PT_UTIL_H */
