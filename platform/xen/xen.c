// SPDX-License-Identifier: MIT
/*
 * platform/xen/xen.c - the Xen interface (platform/xen.h) on real Xen,
 * through Debian's libxen-dev: libxengntshr in a Linux domU (the
 * xen-gntalloc driver), libxengnttab in dom0 (xen-gntdev), libxenevtchn
 * (xen-evtchn) and libxenstore (/dev/xen/xenbus or xenstored's socket).
 *
 * The libraries log through xentoollog; ours logs only critical messages,
 * so that a hostile guest's bad grant references make errors we report,
 * not a flood on dom0's stderr.  The grant handles and libxenctrl's are
 * opened on first use: a guest never needs gntdev or privcmd, dom0 never
 * gntalloc.
 */
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <xenctrl.h>
#include <xenevtchn.h>
#include <xengnttab.h>
#include <xenstore.h>
#include <xentoollog.h>
#include "platform/xen.h"
#include "format/error.h"

/*
 * The Xen libraries are loaded when Xen is asked for (RINGTRACE_XEN=1,
 * RTR_CONFIG_XEN, --xen-domain), never linked: libringtrace.so is linked
 * into every traced program and must load on a host without them.  The
 * headers give the types; each function is looked up by name in the
 * library of the version ringtrace was built against (the Makefile takes
 * libxenctrl's soname, which names a Xen release, from the build machine).
 * A library that cannot be loaded is an error naming it and its Debian
 * package.  libxenctrl is loaded only by dom0's first question about a
 * domain's state: a guest never needs it.
 */
#ifndef RTR_XENCTRL_SONAME
#define RTR_XENCTRL_SONAME "libxenctrl.so.4.17"
#endif
#ifndef RTR_XENCTRL_PACKAGE
#define RTR_XENCTRL_PACKAGE "libxenmisc4.17"
#endif

enum { LIB_TOOLLOG, LIB_EVTCHN, LIB_GNTTAB, LIB_STORE, LIB_CTRL, NLIBS };

static const struct {
	const char *soname, *package;
} libs[NLIBS] = {
	[LIB_TOOLLOG] = { "libxentoollog.so.1", "libxentoollog1" },
	[LIB_EVTCHN] = { "libxenevtchn.so.1", "libxenevtchn1" },
	[LIB_GNTTAB] = { "libxengnttab.so.1", "libxengnttab1" },	/* xengntshr too */
	[LIB_STORE] = { "libxenstore.so.4", "libxenstore4" },
	[LIB_CTRL] = { RTR_XENCTRL_SONAME, RTR_XENCTRL_PACKAGE },
};

#define XEN_FUNCS(F) \
	F(LIB_TOOLLOG, xtl_createlogger_stdiostream) \
	F(LIB_TOOLLOG, xtl_logger_destroy) \
	F(LIB_EVTCHN, xenevtchn_open) \
	F(LIB_EVTCHN, xenevtchn_close) \
	F(LIB_EVTCHN, xenevtchn_fd) \
	F(LIB_EVTCHN, xenevtchn_notify) \
	F(LIB_EVTCHN, xenevtchn_bind_unbound_port) \
	F(LIB_EVTCHN, xenevtchn_bind_interdomain) \
	F(LIB_EVTCHN, xenevtchn_unbind) \
	F(LIB_EVTCHN, xenevtchn_pending) \
	F(LIB_EVTCHN, xenevtchn_unmask) \
	F(LIB_GNTTAB, xengntshr_open) \
	F(LIB_GNTTAB, xengntshr_close) \
	F(LIB_GNTTAB, xengntshr_share_pages) \
	F(LIB_GNTTAB, xengntshr_share_page_notify) \
	F(LIB_GNTTAB, xengntshr_unshare) \
	F(LIB_GNTTAB, xengnttab_open) \
	F(LIB_GNTTAB, xengnttab_close) \
	F(LIB_GNTTAB, xengnttab_map_domain_grant_refs) \
	F(LIB_GNTTAB, xengnttab_unmap) \
	F(LIB_STORE, xs_open) \
	F(LIB_STORE, xs_close) \
	F(LIB_STORE, xs_read) \
	F(LIB_STORE, xs_write) \
	F(LIB_STORE, xs_rm) \
	F(LIB_STORE, xs_directory) \
	F(LIB_STORE, xs_watch) \
	F(LIB_STORE, xs_unwatch) \
	F(LIB_STORE, xs_check_watch) \
	F(LIB_STORE, xs_fileno) \
	F(LIB_STORE, xs_transaction_start) \
	F(LIB_STORE, xs_transaction_end) \
	F(LIB_STORE, xs_is_domain_introduced) \
	F(LIB_CTRL, xc_interface_open) \
	F(LIB_CTRL, xc_interface_close) \
	F(LIB_CTRL, xc_domain_getinfo)

static struct {
#define F(lib, fn) __typeof__(fn) *fn;
	XEN_FUNCS(F)
#undef F
} X;

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static bool loaded[NLIBS];

int rtr_xen_dlopen(const char *soname, const char *package, void **handle, char *err,
		   size_t errlen)
{
	void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		const char *why = dlerror();

		return rtr_errf(err, errlen, ELIBACC,
				"cannot load %s, needed for Xen (Debian package %s): %s", soname,
				package, why ? why : "not found");
	}
	*handle = h;
	return 0;
}

/* Load the libraries in @mask (1 << LIB_x) and look their functions up, once. */
static int load(unsigned mask, char *err, size_t errlen)
{
	int ret = 0;

	pthread_mutex_lock(&load_lock);
	for (int lib = 0; lib < NLIBS && !ret; lib++) {
		void *h = NULL, *sym;

		if (!(mask & 1u << lib) || loaded[lib])
			continue;
		ret = rtr_xen_dlopen(libs[lib].soname, libs[lib].package, &h, err, errlen);
		if (ret)
			break;
#define F(l, fn)                                                                                   \
	if (l == lib && !ret) {                                                                    \
		sym = dlsym(h, #fn);                                                               \
		if (!sym) {                                                                        \
			rtr_errf(err, errlen, 0,                                                   \
				 "%s has no %s: not the Xen libraries ringtrace "                  \
				 "was built for (" RTR_XENCTRL_SONAME ")",                         \
				 libs[lib].soname, #fn);                                           \
			ret = -ELIBBAD;                                                            \
		}                                                                                  \
		memcpy(&X.fn, &sym, sizeof(sym));                                                  \
	}
		XEN_FUNCS(F)
#undef F
		if (ret)
			dlclose(h);	/* and X's pointers into it are never used */
		else
			loaded[lib] = true;	/* kept for the process's life */
	}
	pthread_mutex_unlock(&load_lock);
	return ret;
}

int rtr_xen_real_load(char *err, size_t errlen)
{
	return load((1u << NLIBS) - 1, err, errlen);
}

struct real {
	xentoollog_logger_stdiostream *log;
	xenevtchn_handle *xce;
	struct xs_handle *xsh;
	pthread_mutex_t lock;		/* the lazily opened grant handles */
	xengntshr_handle *xgs;
	xengnttab_handle *xgt;
	xc_interface *xch;
	int xch_err;		/* why X.xc_interface_open() failed, once */
};

static struct real *R(struct rtr_xen *x)
{
	return x->priv;
}

static int real_open(struct rtr_xen *x, char *err, size_t errlen)
{
	struct real *r = calloc(1, sizeof(*r));
	int ret;

	if (!r)
		return -ENOMEM;
	ret = load(1u << LIB_TOOLLOG | 1u << LIB_EVTCHN | 1u << LIB_GNTTAB | 1u << LIB_STORE,
		   err, errlen);
	if (ret) {
		free(r);
		return ret;
	}
	pthread_mutex_init(&r->lock, NULL);
	r->log = X.xtl_createlogger_stdiostream(stderr, XTL_CRITICAL, 0);
	r->xce = X.xenevtchn_open((struct xentoollog_logger *)r->log, 0);
	if (!r->xce) {
		ret = -errno;
		rtr_errf(err, errlen, 0,
			 "cannot open the event-channel device /dev/xen/evtchn: %s "
			 "(not a Xen domain, or the xen-evtchn driver is not loaded)",
			 strerror(errno));
		goto fail;
	}
	r->xsh = X.xs_open(0);
	if (!r->xsh) {
		ret = -(errno ? errno : ENOENT);
		rtr_errf(err, errlen, 0,
			 "cannot connect to xenstore: %s (/dev/xen/xenbus needs "
			 "xenfs mounted on /proc/xen or the xenbus device; in dom0, xenstored)",
			 strerror(-ret));
		goto fail;
	}
	x->priv = r;
	return 0;
fail:
	if (r->xce)
		X.xenevtchn_close(r->xce);
	X.xtl_logger_destroy((struct xentoollog_logger *)r->log);
	pthread_mutex_destroy(&r->lock);
	free(r);
	return ret;
}

static void real_close(struct rtr_xen *x)
{
	struct real *r = R(x);

	if (r->xgs)
		X.xengntshr_close(r->xgs);
	if (r->xgt)
		X.xengnttab_close(r->xgt);
	if (r->xch)
		X.xc_interface_close(r->xch);
	X.xs_close(r->xsh);
	X.xenevtchn_close(r->xce);
	X.xtl_logger_destroy((struct xentoollog_logger *)r->log);
	pthread_mutex_destroy(&r->lock);
	free(r);
}

static xengntshr_handle *gntshr(struct real *r)
{
	pthread_mutex_lock(&r->lock);
	if (!r->xgs)
		r->xgs = X.xengntshr_open((struct xentoollog_logger *)r->log, 0);
	pthread_mutex_unlock(&r->lock);
	return r->xgs;
}

static xengnttab_handle *gnttab(struct real *r)
{
	pthread_mutex_lock(&r->lock);
	if (!r->xgt)
		r->xgt = X.xengnttab_open((struct xentoollog_logger *)r->log, 0);
	pthread_mutex_unlock(&r->lock);
	return r->xgt;
}

static int real_xs_read(struct rtr_xen *x, const char *path, char *buf, size_t cap)
{
	unsigned int len = 0;
	char *v = X.xs_read(R(x)->xsh, XBT_NULL, path, &len);

	if (!v)
		return -(errno ? errno : ENOENT);
	if (len >= cap) {
		free(v);
		return -E2BIG;
	}
	memcpy(buf, v, len);
	buf[len] = '\0';
	free(v);
	return (int)len;
}

static int real_self(struct rtr_xen *x, uint32_t *domid)
{
	char buf[16], *end;
	unsigned long v;
	int ret = real_xs_read(x, "domid", buf, sizeof(buf));

	if (ret < 0)
		return ret;
	v = strtoul(buf, &end, 10);
	if (end == buf || *end || v >= RTR_XEN_DOMID_SELF)
		return -EINVAL;
	*domid = (uint32_t)v;
	return 0;
}

static int real_share(struct rtr_xen *x, uint32_t domid, uint32_t count, bool writable,
		      uint32_t *refs, void **addr)
{
	xengntshr_handle *h = gntshr(R(x));
	void *p;

	if (!h)
		return -errno;
	p = X.xengntshr_share_pages(h, domid, (int)count, refs, writable);
	if (!p)
		return -(errno ? errno : ENOMEM);
	*addr = p;
	return 0;
}

static int real_share_notify(struct rtr_xen *x, uint32_t domid, bool writable,
			     uint32_t notify_off, uint32_t port, uint32_t *ref, void **addr)
{
	xengntshr_handle *h = gntshr(R(x));
	void *p;

	if (!h)
		return -errno;
	p = X.xengntshr_share_page_notify(h, domid, ref, writable, (int)notify_off, port);
	if (!p)
		return -(errno ? errno : ENOMEM);
	*addr = p;
	return 0;
}

static void real_unshare(struct rtr_xen *x, void *addr, uint32_t count)
{
	if (R(x)->xgs)
		X.xengntshr_unshare(R(x)->xgs, addr, count);
}

static int real_map(struct rtr_xen *x, uint32_t domid, uint32_t count, const uint32_t *refs,
		    bool writable, void **addr)
{
	xengnttab_handle *h = gnttab(R(x));
	void *p;

	if (!h)
		return -errno;
	p = X.xengnttab_map_domain_grant_refs(h, count, domid, (uint32_t *)refs,
					    PROT_READ | (writable ? PROT_WRITE : 0));
	if (!p)
		return -(errno ? errno : EINVAL);
	*addr = p;
	return 0;
}

static void real_unmap(struct rtr_xen *x, void *addr, uint32_t count)
{
	if (R(x)->xgt)
		X.xengnttab_unmap(R(x)->xgt, addr, count);
}

static int real_evtchn_alloc(struct rtr_xen *x, uint32_t remote, uint32_t *port)
{
	xenevtchn_port_or_error_t p = X.xenevtchn_bind_unbound_port(R(x)->xce, remote);

	if (p < 0)
		return -errno;
	*port = (uint32_t)p;
	return 0;
}

static int real_evtchn_bind(struct rtr_xen *x, uint32_t domid, uint32_t remote_port,
			    uint32_t *port)
{
	xenevtchn_port_or_error_t p = X.xenevtchn_bind_interdomain(R(x)->xce, domid, remote_port);

	if (p < 0)
		return -errno;
	*port = (uint32_t)p;
	return 0;
}

static int real_evtchn_unbind(struct rtr_xen *x, uint32_t port)
{
	return X.xenevtchn_unbind(R(x)->xce, port) < 0 ? -errno : 0;
}

static int real_notify(struct rtr_xen *x, uint32_t port)
{
	return X.xenevtchn_notify(R(x)->xce, port) < 0 ? -errno : 0;
}

/*
 * poll() first, as libxenevtchn asks (a non-blocking fd may still block in
 * xenevtchn_pending), then take the port and unmask it: an event sent
 * from now on is delivered again.
 */
static int real_wait(struct rtr_xen *x, int timeout_ms, uint32_t *port)
{
	struct pollfd pfd = { .fd = X.xenevtchn_fd(R(x)->xce), .events = POLLIN };
	xenevtchn_port_or_error_t p;
	int n = poll(&pfd, 1, timeout_ms);

	if (n < 0)
		return -errno;
	if (n == 0)
		return 0;
	p = X.xenevtchn_pending(R(x)->xce);
	if (p < 0)
		return -errno;
	if (X.xenevtchn_unmask(R(x)->xce, (evtchn_port_t)p) < 0)
		return -errno;
	*port = (uint32_t)p;
	return 1;
}

static int real_xs_write(struct rtr_xen *x, const char *const *paths, const char *const *vals,
			 unsigned n)
{
	struct xs_handle *h = R(x)->xsh;

	/* xenstored ends a transaction that raced another with EAGAIN: retry. */
	for (int attempt = 0; attempt < 100; attempt++) {
		xs_transaction_t t = X.xs_transaction_start(h);
		int ret = 0;

		if (t == XBT_NULL)
			return -errno;
		for (unsigned i = 0; i < n && !ret; i++)
			if (!X.xs_write(h, t, paths[i], vals[i], (unsigned)strlen(vals[i])))
				ret = -errno;
		if (ret) {
			X.xs_transaction_end(h, t, true);
			return ret;
		}
		if (X.xs_transaction_end(h, t, false))
			return 0;
		if (errno != EAGAIN)
			return -errno;
	}
	return -EAGAIN;
}

static int real_xs_rm(struct rtr_xen *x, const char *path)
{
	return X.xs_rm(R(x)->xsh, XBT_NULL, path) ? 0 : -errno;
}

static int real_xs_list(struct rtr_xen *x, const char *path, char ***names, unsigned *n)
{
	unsigned int num = 0;
	char **v = X.xs_directory(R(x)->xsh, XBT_NULL, path, &num);

	if (!v)
		return -(errno ? errno : ENOENT);
	*names = v;	/* one block, as libxenstore allocates it */
	*n = num;
	return 0;
}

static int real_xs_watch(struct rtr_xen *x, const char *path, const char *token)
{
	return X.xs_watch(R(x)->xsh, path, token) ? 0 : -errno;
}

static int real_xs_unwatch(struct rtr_xen *x, const char *path, const char *token)
{
	return X.xs_unwatch(R(x)->xsh, path, token) ? 0 : -errno;
}

static int real_xs_wait_watch(struct rtr_xen *x, int timeout_ms, char *path, size_t cap)
{
	struct xs_handle *h = R(x)->xsh;
	struct pollfd pfd = { .fd = X.xs_fileno(h), .events = POLLIN };
	char **v;
	int n;

	for (;;) {
		v = X.xs_check_watch(h);
		if (v)
			break;
		if (errno != EAGAIN)
			return -errno;
		n = poll(&pfd, 1, timeout_ms);
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
	}
	snprintf(path, cap, "%s", v[XS_WATCH_PATH]);
	free(v);
	return 1;
}

static int real_domain_exists(struct rtr_xen *x, uint32_t domid)
{
	return X.xs_is_domain_introduced(R(x)->xsh, domid) ? 1 : 0;
}

static int real_domain_state(struct rtr_xen *x, uint32_t domid)
{
	struct real *r = R(x);
	xc_dominfo_t info;
	int n;

	pthread_mutex_lock(&r->lock);
	if (!r->xch && !r->xch_err) {
		char why[256];

		/* Without libxenctrl, the heartbeat answers instead (xen_region.c). */
		if (load(1u << LIB_CTRL, why, sizeof(why))) {
			r->xch_err = ELIBACC;
		} else {
			r->xch = X.xc_interface_open((struct xentoollog_logger *)r->log,
						     (struct xentoollog_logger *)r->log, 0);
			if (!r->xch)
				r->xch_err = errno ? errno : EACCES;
		}
	}
	pthread_mutex_unlock(&r->lock);
	if (!r->xch)
		return -r->xch_err;
	n = X.xc_domain_getinfo(r->xch, domid, 1, &info);
	if (n < 0)
		return -errno;
	if (n == 0 || info.domid != domid)
		return RTR_XEN_DOM_GONE;
	if (info.dying)
		return RTR_XEN_DOM_DYING;
	if (info.crashed)
		return RTR_XEN_DOM_CRASHED;
	if (info.shutdown)
		return RTR_XEN_DOM_SHUTDOWN;
	if (info.paused)
		return RTR_XEN_DOM_PAUSED;
	return RTR_XEN_DOM_RUNNING;
}

const struct rtr_xen_ops rtr_xen_real_ops = {
	.name = "xen",
	.open = real_open,
	.close = real_close,
	.self = real_self,
	.share = real_share,
	.share_notify = real_share_notify,
	.unshare = real_unshare,
	.map = real_map,
	.unmap = real_unmap,
	.evtchn_alloc = real_evtchn_alloc,
	.evtchn_bind = real_evtchn_bind,
	.evtchn_unbind = real_evtchn_unbind,
	.notify = real_notify,
	.wait = real_wait,
	.xs_read = real_xs_read,
	.xs_write = real_xs_write,
	.xs_rm = real_xs_rm,
	.xs_list = real_xs_list,
	.xs_watch = real_xs_watch,
	.xs_unwatch = real_xs_unwatch,
	.xs_wait_watch = real_xs_wait_watch,
	.domain_exists = real_domain_exists,
	.domain_state = real_domain_state,
};
