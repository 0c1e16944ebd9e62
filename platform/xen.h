/* SPDX-License-Identifier: MIT */
/*
 * platform/xen.h - the three Xen facilities the Xen region needs, as one
 * narrow interface: grants (share pages with a domain, map a domain's
 * grants), event channels (allocate an unbound port, bind to a remote one,
 * notify, wait) and xenstore (read, write, list, watch).
 *
 * Two implementations, each a struct rtr_xen_ops chosen at rtr_xen_open():
 *   platform/xen/     real Xen through Debian's libxen-dev: libxengntshr
 *                     (a Linux domU's gntalloc), libxengnttab (dom0's gntdev),
 *                     libxenevtchn, libxenstore, and libxenctrl for a
 *                     domain's state.  Built when CONFIG_XEN=y.
 *   platform/xensim/  a simulated hypervisor for tests: domains are processes
 *                     sharing a directory; grants, event channels and
 *                     xenstore keep Xen's semantics (read-only grants mapped
 *                     read-only, edge-triggered channels with pending and
 *                     mask bits and a pending bit at bind time, xenstore
 *                     paths, permissions and watches).  Built when
 *                     CONFIG_XENSIM=y; chosen when RINGTRACE_XENSIM names
 *                     the simulation's directory.
 * Documentation/xen.rst lists the Mini-OS and Unikraft calls that would be
 * a third.
 *
 * Threads: one handle may notify from any thread; rtr_xen_wait() and the
 * watch functions belong to one thread at a time (libxenevtchn's rule).
 * After fork() a child must not use its parent's handle.
 *
 * All functions return 0 (or a count) on success and -errno on failure.
 */
#ifndef RTR_PLATFORM_XEN_H
#define RTR_PLATFORM_XEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RTR_XEN_DOMID_SELF	0x7ff0u	/* DOMID_SELF */

struct rtr_xen;

/*
 * struct rtr_xen_ops - one implementation.  Each function takes the handle
 * first; see the rtr_xen_*() wrappers below for their meaning.
 */
struct rtr_xen_ops {
	const char *name;
	int (*open)(struct rtr_xen *x, char *err, size_t errlen);
	void (*close)(struct rtr_xen *x);
	int (*self)(struct rtr_xen *x, uint32_t *domid);
	int (*share)(struct rtr_xen *x, uint32_t domid, uint32_t count, bool writable,
		     uint32_t *refs, void **addr);
	int (*share_notify)(struct rtr_xen *x, uint32_t domid, bool writable,
			    uint32_t notify_off, uint32_t port, uint32_t *ref, void **addr);
	void (*unshare)(struct rtr_xen *x, void *addr, uint32_t count);
	int (*map)(struct rtr_xen *x, uint32_t domid, uint32_t count, const uint32_t *refs,
		   bool writable, void **addr);
	void (*unmap)(struct rtr_xen *x, void *addr, uint32_t count);
	int (*evtchn_alloc)(struct rtr_xen *x, uint32_t remote, uint32_t *port);
	int (*evtchn_bind)(struct rtr_xen *x, uint32_t domid, uint32_t remote_port,
			   uint32_t *port);
	int (*evtchn_unbind)(struct rtr_xen *x, uint32_t port);
	int (*notify)(struct rtr_xen *x, uint32_t port);
	int (*wait)(struct rtr_xen *x, int timeout_ms, uint32_t *port);
	int (*xs_read)(struct rtr_xen *x, const char *path, char *buf, size_t cap);
	int (*xs_write)(struct rtr_xen *x, const char *const *paths, const char *const *vals,
			unsigned n);
	int (*xs_rm)(struct rtr_xen *x, const char *path);
	int (*xs_list)(struct rtr_xen *x, const char *path, char ***names, unsigned *n);
	int (*xs_watch)(struct rtr_xen *x, const char *path, const char *token);
	int (*xs_unwatch)(struct rtr_xen *x, const char *path, const char *token);
	int (*xs_wait_watch)(struct rtr_xen *x, int timeout_ms, char *path, size_t cap);
	int (*domain_exists)(struct rtr_xen *x, uint32_t domid);
	int (*domain_state)(struct rtr_xen *x, uint32_t domid);
};

/*
 * struct rtr_xen - a handle: the implementation's ops and its private
 * state.  Callers use the wrappers; implementations keep what they need
 * behind @priv.
 */
struct rtr_xen {
	const struct rtr_xen_ops *ops;
	void *priv;
};

extern const struct rtr_xen_ops rtr_xen_real_ops;	/* platform/xen/xen.c */
extern const struct rtr_xen_ops rtr_xen_sim_ops;	/* platform/xensim/xensim.c */

/*
 * The real implementation loads Debian's Xen libraries when it is first
 * opened (libxenctrl on dom0's first question about a domain's state):
 * nothing links them, so libringtrace loads on hosts without Xen.
 * rtr_xen_real_load() loads them all now; rtr_xen_dlopen() is its one
 * library: -ELIBACC with @err naming @soname and its Debian @package.
 * (platform/xen/xen.c; only with CONFIG_XEN.)
 */
int rtr_xen_real_load(char *err, size_t errlen);
int rtr_xen_dlopen(const char *soname, const char *package, void **handle, char *err,
		   size_t errlen);

/**
 * rtr_xen_open() - a handle on the Xen facilities of this domain: the
 * simulated ones when RINGTRACE_XENSIM is set, else the real ones.
 * Return: 0; -ENOSYS when the build has neither; -ELIBACC when a Xen
 * library is missing; -errno from the drivers (-ENOENT: /dev/xen/... missing: not a Xen domain, or the xen-evtchn,
 * xen-gntalloc / xen-gntdev and xenfs drivers are not loaded) with @err.
 */
int rtr_xen_open(struct rtr_xen **out, char *err, size_t errlen);
void rtr_xen_close(struct rtr_xen *x);
const char *rtr_xen_backend(const struct rtr_xen *x);

/* This domain's id (xenstore's "domid" key; 0 in dom0). */
int rtr_xen_self(struct rtr_xen *x, uint32_t *domid);

/*
 * Guest side: allocate @count pages, grant them to @domid (read-only unless
 * @writable), map them here read-write and contiguous at *@addr, and
 * write their grant references to @refs.  rtr_xen_share_notify() shares
 * one page, and asks this domain's kernel, when the mapping goes (the
 * process exits or dies), to zero the byte at @notify_off and to notify
 * @port (a port of this handle).
 */
int rtr_xen_share(struct rtr_xen *x, uint32_t domid, uint32_t count, bool writable,
		  uint32_t *refs, void **addr);
int rtr_xen_share_notify(struct rtr_xen *x, uint32_t domid, bool writable,
			 uint32_t notify_off, uint32_t port, uint32_t *ref, void **addr);
void rtr_xen_unshare(struct rtr_xen *x, void *addr, uint32_t count);

/*
 * dom0 side: map @count grants of domain @domid, contiguous, all or none,
 * read-only unless @writable (which fails on a read-only grant).
 * Return: 0; -EINVAL/-EPERM/-ENOENT for a reference the domain did not
 * grant us (as the driver reports it), -ENOMEM.
 */
int rtr_xen_map(struct rtr_xen *x, uint32_t domid, uint32_t count, const uint32_t *refs,
		bool writable, void **addr);
void rtr_xen_unmap(struct rtr_xen *x, void *addr, uint32_t count);

/*
 * Event channels.  rtr_xen_evtchn_alloc(): an unbound port that domain
 * @remote may bind (the guest side).  rtr_xen_evtchn_bind(): bind a local
 * port to @domid's @remote_port (dom0 side); Xen marks it pending, so the
 * first wait may return at once.  rtr_xen_wait(): wait up to @timeout_ms
 * (-1: no limit) for one of this handle's ports to fire, then unmask it.
 * Return (wait): 1 with *@port set, 0 on timeout, -errno.
 */
int rtr_xen_evtchn_alloc(struct rtr_xen *x, uint32_t remote, uint32_t *port);
int rtr_xen_evtchn_bind(struct rtr_xen *x, uint32_t domid, uint32_t remote_port,
			uint32_t *port);
int rtr_xen_evtchn_unbind(struct rtr_xen *x, uint32_t port);
int rtr_xen_notify(struct rtr_xen *x, uint32_t port);
int rtr_xen_wait(struct rtr_xen *x, int timeout_ms, uint32_t *port);

/*
 * Xenstore.  A path without a leading '/' is relative to this domain's
 * home, /local/domain/<self>.  rtr_xs_read() copies the value, NUL ended,
 * and returns its length (-ENOENT: no such node; -E2BIG: longer than
 * @cap - 1, nothing copied).  rtr_xs_write() writes @n nodes at once (one
 * transaction, retried while xenstored reports a conflict).  rtr_xs_list()
 * returns the children's names in one malloc()ed block (free(*names)).
 * rtr_xs_wait_watch(): 1 with the fired path, 0 on timeout.
 */
int rtr_xs_read(struct rtr_xen *x, const char *path, char *buf, size_t cap);
int rtr_xs_write(struct rtr_xen *x, const char *const *paths, const char *const *vals,
		 unsigned n);
int rtr_xs_rm(struct rtr_xen *x, const char *path);
int rtr_xs_list(struct rtr_xen *x, const char *path, char ***names, unsigned *n);
int rtr_xs_watch(struct rtr_xen *x, const char *path, const char *token);
int rtr_xs_unwatch(struct rtr_xen *x, const char *path, const char *token);
int rtr_xs_wait_watch(struct rtr_xen *x, int timeout_ms, char *path, size_t cap);

/* 1 if domain @domid exists (it may be paused or crashed), 0 if not. */
int rtr_xen_domain_exists(struct rtr_xen *x, uint32_t domid);

/*
 * rtr_xen_domain_state() - what the hypervisor says of domain @domid (in
 * dom0: libxenctrl's xc_domain_getinfo(), which needs /dev/xen/privcmd).
 * Return: an enum rtr_xen_dom_state, or -errno when this domain may not ask
 * (a guest, a driver domain without privcmd): callers fall back on what
 * xenstore and the guest's own pages tell.
 */
enum rtr_xen_dom_state {
	RTR_XEN_DOM_GONE = 0,	/* no such domain */
	RTR_XEN_DOM_RUNNING,	/* running or blocked: its programs may run */
	RTR_XEN_DOM_PAUSED,	/* paused: it may run again */
	RTR_XEN_DOM_SHUTDOWN,	/* shut down (poweroff, reboot) and kept */
	RTR_XEN_DOM_CRASHED,	/* crashed and kept (on_crash = 'preserve') */
	RTR_XEN_DOM_DYING,	/* being destroyed */
};
int rtr_xen_domain_state(struct rtr_xen *x, uint32_t domid);

/*
 * rtr_xs_read_u32() - a xenstore value as a decimal number, strictly:
 * digits only, no sign, no spaces, at most @max.  -ENOENT, -EINVAL, -ERANGE.
 */
int rtr_xs_read_u32(struct rtr_xen *x, const char *path, uint32_t max, uint32_t *out);

/*
 * rtr_xen_find_domain() - @name is a domain id ("5") or a name, looked up
 * in /local/domain/<id>/name.  Return: 0; -ENOENT (no such domain, @err
 * says which); -EEXIST (two domains have that name).
 */
int rtr_xen_find_domain(struct rtr_xen *x, const char *name, uint32_t *domid, char *err,
			size_t errlen);

#endif /* RTR_PLATFORM_XEN_H */
