// SPDX-License-Identifier: MIT
/* platform/unix/cpu.c - CPU numbering, pinning, and the rseq membarrier. */
#include <errno.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <unistd.h>
#include "platform/platform.h"

uint32_t rtr_cpu_possible(void)
{
	int n = get_nprocs_conf();

	return n > 0 ? (uint32_t)n : 1;
}

int rtr_cpu_current(void)
{
	int c = sched_getcpu();

	return c < 0 ? 0 : c;
}

/*
 * rtr_cpu_run_on() - run @fn(@arg) on CPU @cpu: pin the calling thread there,
 * call, restore its affinity.  The kernel migrates the caller before
 * sched_setaffinity returns.  Return: @fn's result, or -EINVAL when the
 * thread may not run on @cpu (offline, or outside its cpuset).
 */
int rtr_cpu_run_on(int cpu, int (*fn)(void *), void *arg)
{
	cpu_set_t saved, set;
	int ret;

	if (cpu < 0 || cpu >= CPU_SETSIZE)
		return -EINVAL;
	if (pthread_getaffinity_np(pthread_self(), sizeof(saved), &saved))
		return -EINVAL;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set))
		return -EINVAL;
	ret = sched_getcpu() == cpu ? fn(arg) : -EINVAL;
	pthread_setaffinity_np(pthread_self(), sizeof(saved), &saved);
	return ret;
}

static long membarrier(int cmd, unsigned int flags)
{
	return syscall(__NR_membarrier, cmd, flags, 0);
}

int rtr_membarrier_rseq_register(void)
{
	long cmds = membarrier(MEMBARRIER_CMD_QUERY, 0);

	if (cmds < 0)
		return -errno;
	if (!(cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ))
		return -ENOSYS;
	if (membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ, 0) < 0)
		return -errno;
	return 0;
}

/*
 * Restart every restartable sequence running in this process, on every CPU:
 * after it returns, a sequence that had loaded an old ring pointer has either
 * committed or been aborted and will re-read the pointer.
 */
int rtr_membarrier_rseq(void)
{
	return membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ, 0) < 0 ? -errno : 0;
}
