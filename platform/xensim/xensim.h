/* SPDX-License-Identifier: MIT */
/*
 * platform/xensim/xensim.h - the simulated hypervisor's control side: what
 * a toolstack (xl) does to it.  The guest and dom0 side is platform/xen.h,
 * selected with RINGTRACE_XENSIM=DIR; RINGTRACE_XENSIM_DOMID says which
 * domain the process is (default 0, dom0).
 *
 * State lives in DIR: "hv", the hypervisor's tables (domains, grant tables,
 * event channels, xenstore), mapped by every process of the simulation
 * under one robust process-shared lock; "mem-<domid>", each domain's
 * granted pages.  A domain is not a process: any number of processes may
 * act as one domain, and it outlives them, as a domU outlives its
 * programs.  What the simulation does and does not model:
 * Documentation/xen.rst, "The simulated hypervisor".
 */
#ifndef RTR_PLATFORM_XENSIM_H
#define RTR_PLATFORM_XENSIM_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Create the simulation in @dir (which must exist), with dom0 in it. */
int rtr_xensim_init(const char *dir);

/*
 * rtr_xensim_create() - a new domain called @name, and the xenstore nodes
 * xl makes for it: /local/domain/<id> (dom0's, readable by the domain),
 * its name and domid keys, and data/ (the domain's own).
 */
int rtr_xensim_create(const char *dir, const char *name, uint32_t *domid);

/*
 * rtr_xensim_crash() - the domain crashed and is preserved (on_crash =
 * 'preserve'): its grants stay mappable, its ports stay bound, and its
 * kernel no longer runs (no unmap notifications for its processes).
 */
int rtr_xensim_crash(const char *dir, uint32_t domid);

/*
 * rtr_xensim_pause() - the domain's paused flag, as `xl pause` and `xl
 * unpause` set it.  The simulation cannot stop the domain's processes:
 * whoever pauses a domain stops them too (SIGSTOP).
 */
int rtr_xensim_pause(const char *dir, uint32_t domid, bool paused);

/*
 * rtr_xensim_stop() - SIGSTOP the domain's process @pid as Xen pauses a
 * domain's vCPUs: never inside a hypercall.  The simulated hypervisor's
 * state is behind one mutex its callers share; a process stopped while it
 * held it would stop every other one.  So the mutex is held until each of
 * @pid's threads is seen stopped.  Return: 0, -ESRCH, -ETIMEDOUT (not all
 * stopped within 5 s: it is continued again).
 */
int rtr_xensim_stop(const char *dir, pid_t pid);

/* rtr_xensim_destroy() - the domain is gone: grants, ports, xenstore home. */
int rtr_xensim_destroy(const char *dir, uint32_t domid);

/*
 * struct rtr_xensim_stats - a domain's event-channel counters: @sent,
 * notify calls on its ports; @delivered, events that reached one of its
 * handles (an upcall); @coalesced, sends that found the remote port
 * already pending.
 */
struct rtr_xensim_stats {
	uint64_t sent;
	uint64_t delivered;
	uint64_t coalesced;
};
int rtr_xensim_stats(const char *dir, uint32_t domid, struct rtr_xensim_stats *st);

#endif /* RTR_PLATFORM_XENSIM_H */
