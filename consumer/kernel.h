/* SPDX-License-Identifier: MIT */
/*
 * consumer/kernel.h - the kernel's view of a traced process tree
 * (`ringtrace record --sched`): perf events opened on the program before it
 * runs, inherited by its threads and children, report each thread's
 * context switches (in; out, blocked or preempted), forks, exits and names;
 * the recorder turns them into CTF packets of the trace's own layout, in
 * streams of their own (events/classes.h, RTR_KSTREAM_BASE + the CPU), on
 * the ring's clock.  Documentation/pthread.rst, "The kernel's view";
 * Documentation/ctf.rst, "The kernel's streams".
 *
 * One thread uses it: open before the program's exec, start once the
 * program's region (its clock) is known, drain from the consumer loop,
 * drain once more with @final after the program ended, close.
 */
#ifndef RTR_CONSUMER_KERNEL_H
#define RTR_CONSUMER_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <ringtrace/region.h>
#include "consumer/output.h"

struct rtr_kernel;

/**
 * struct rtr_kernel_report - what the kernel's streams hold.
 * @cpus: CPUs whose events were opened.
 * @switches: @forks: @exits: @comms: @mmaps: records written, by kind.
 * @lost: records the kernel dropped (its buffer was full), as the streams'
 *	events_discarded count them.
 * @samples: CPU samples written (record --sample).
 * @sample_hz: their rate, 0 if there are none (not asked, or refused).
 * @sample_refused: why --sample's events could not be opened ("" if they
 *	were, or were not asked for): the rest is recorded without them.
 * @packets: packets written.
 * @clock: how perf's times became the ring's: "CLOCK_MONOTONIC, as the
 *	ring's" or "CLOCK_MONOTONIC, converted to the TSC ...".
 */
struct rtr_kernel_report {
	uint32_t cpus;
	uint64_t switches;
	uint64_t forks;
	uint64_t exits;
	uint64_t comms;
	uint64_t mmaps;
	uint64_t samples;
	unsigned sample_hz;
	uint64_t lost;
	uint64_t packets;
	const char *clock;
	char sample_refused[300];
};

/*
 * rtr_kernel_open() - open the perf events of process @pid (not yet exec'd;
 * they are enabled at its exec) on every CPU, and map their buffers.
 * @comm: its name after the exec (the program's file name), until the
 * kernel says.  @sample_hz: with --sample, samples per second of each
 * thread's CPU time, 0 for none (if they are refused, the report says why).  Return: 0, or -errno with @err saying why in words a user
 * can act on (perf_event_paranoid, seccomp, the mlock limit).
 */
int rtr_kernel_open(struct rtr_kernel **k, pid_t pid, const char *comm, unsigned sample_hz,
		    char *err, size_t errlen);

/* rtr_kernel_paranoid() - /proc/sys/kernel/perf_event_paranoid, or INT32_MIN if unreadable. */
int rtr_kernel_paranoid(void);

/*
 * rtr_kernel_start() - the trace's region is known: its UUID goes in the
 * packets, its clock is the one perf's times are converted to.
 * Return: 0, or -ENOTSUP (said in @err) when that clock cannot be read here.
 */
int rtr_kernel_start(struct rtr_kernel *k, const struct rtr_region_hdr *h, char *err,
		     size_t errlen);

/*
 * rtr_kernel_drain() - turn what the kernel reported since the last call
 * into records; write the packets that are full, or older than @flush_ns,
 * or all of them with @final (the program ended).  The output must have
 * its metadata (with the kernel's classes) already.
 * Return: 0, or -errno from the output.
 */
int rtr_kernel_drain(struct rtr_kernel *k, struct rtr_out *out, uint64_t flush_ns, bool final);

void rtr_kernel_report(const struct rtr_kernel *k, struct rtr_kernel_report *r);

void rtr_kernel_close(struct rtr_kernel *k);

#endif /* RTR_CONSUMER_KERNEL_H */
