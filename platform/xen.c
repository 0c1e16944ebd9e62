// SPDX-License-Identifier: MIT
/*
 * platform/xen.c - choosing a Xen implementation (platform/xen.h), the
 * thin wrappers over its ops, and the helpers both sides build on them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "platform/xen.h"
#include "format/error.h"

/* The Makefile defines these from CONFIG_XEN and CONFIG_XENSIM (platform/Kbuild). */
#ifdef RTR_HAVE_XEN
#define REAL_OPS (&rtr_xen_real_ops)
#else
#define REAL_OPS NULL

int rtr_xen_real_load(char *err, size_t errlen)
{
	return rtr_errf(err, errlen, ENOSYS,
			"this ringtrace was built without Xen support (CONFIG_XEN=n)");
}

int rtr_xen_dlopen(const char *soname, const char *package, void **handle, char *err,
		   size_t errlen)
{
	return rtr_xen_real_load(err, errlen);
}
#endif
#ifdef RTR_HAVE_XENSIM
#define SIM_OPS (&rtr_xen_sim_ops)
#else
#define SIM_OPS NULL
#endif

int rtr_xen_open(struct rtr_xen **out, char *err, size_t errlen)
{
	const char *sim = getenv("RINGTRACE_XENSIM");
	const struct rtr_xen_ops *ops;
	struct rtr_xen *x;
	int ret;

	if (err && errlen)
		err[0] = '\0';
	ops = sim && *sim ? SIM_OPS : REAL_OPS;
	if (!ops) {
		return rtr_errf(err, errlen, ENOSYS,
				"this ringtrace was built without %s (CONFIG_%s=n)",
				sim && *sim ? "the simulated Xen" : "Xen support",
				sim && *sim ? "XENSIM" : "XEN");
	}
	x = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	x->ops = ops;
	ret = ops->open(x, err, errlen);
	if (ret) {
		free(x);
		return ret;
	}
	*out = x;
	return 0;
}

void rtr_xen_close(struct rtr_xen *x)
{
	if (!x)
		return;
	x->ops->close(x);
	free(x);
}

const char *rtr_xen_backend(const struct rtr_xen *x)
{
	return x->ops->name;
}

int rtr_xen_self(struct rtr_xen *x, uint32_t *domid)
{
	return x->ops->self(x, domid);
}

int rtr_xen_share(struct rtr_xen *x, uint32_t domid, uint32_t count, bool writable,
		  uint32_t *refs, void **addr)
{
	if (!count)
		return -EINVAL;
	return x->ops->share(x, domid, count, writable, refs, addr);
}

int rtr_xen_share_notify(struct rtr_xen *x, uint32_t domid, bool writable, uint32_t notify_off,
			 uint32_t port, uint32_t *ref, void **addr)
{
	if (notify_off >= 4096)
		return -EINVAL;
	return x->ops->share_notify(x, domid, writable, notify_off, port, ref, addr);
}

void rtr_xen_unshare(struct rtr_xen *x, void *addr, uint32_t count)
{
	if (addr)
		x->ops->unshare(x, addr, count);
}

int rtr_xen_map(struct rtr_xen *x, uint32_t domid, uint32_t count, const uint32_t *refs,
		bool writable, void **addr)
{
	if (!count)
		return -EINVAL;
	return x->ops->map(x, domid, count, refs, writable, addr);
}

void rtr_xen_unmap(struct rtr_xen *x, void *addr, uint32_t count)
{
	if (addr)
		x->ops->unmap(x, addr, count);
}

int rtr_xen_evtchn_alloc(struct rtr_xen *x, uint32_t remote, uint32_t *port)
{
	return x->ops->evtchn_alloc(x, remote, port);
}

int rtr_xen_evtchn_bind(struct rtr_xen *x, uint32_t domid, uint32_t remote_port, uint32_t *port)
{
	return x->ops->evtchn_bind(x, domid, remote_port, port);
}

int rtr_xen_evtchn_unbind(struct rtr_xen *x, uint32_t port)
{
	return x->ops->evtchn_unbind(x, port);
}

int rtr_xen_notify(struct rtr_xen *x, uint32_t port)
{
	return x->ops->notify(x, port);
}

int rtr_xen_wait(struct rtr_xen *x, int timeout_ms, uint32_t *port)
{
	uint32_t p;

	return x->ops->wait(x, timeout_ms, port ? port : &p);
}

int rtr_xs_read(struct rtr_xen *x, const char *path, char *buf, size_t cap)
{
	if (!cap)
		return -E2BIG;
	return x->ops->xs_read(x, path, buf, cap);
}

int rtr_xs_write(struct rtr_xen *x, const char *const *paths, const char *const *vals, unsigned n)
{
	return x->ops->xs_write(x, paths, vals, n);
}

int rtr_xs_rm(struct rtr_xen *x, const char *path)
{
	return x->ops->xs_rm(x, path);
}

int rtr_xs_list(struct rtr_xen *x, const char *path, char ***names, unsigned *n)
{
	return x->ops->xs_list(x, path, names, n);
}

int rtr_xs_watch(struct rtr_xen *x, const char *path, const char *token)
{
	return x->ops->xs_watch(x, path, token);
}

int rtr_xs_unwatch(struct rtr_xen *x, const char *path, const char *token)
{
	return x->ops->xs_unwatch(x, path, token);
}

int rtr_xs_wait_watch(struct rtr_xen *x, int timeout_ms, char *path, size_t cap)
{
	return x->ops->xs_wait_watch(x, timeout_ms, path, cap);
}

int rtr_xen_domain_exists(struct rtr_xen *x, uint32_t domid)
{
	int st = x->ops->domain_state(x, domid);

	if (st >= 0)
		return st != RTR_XEN_DOM_GONE;
	return x->ops->domain_exists(x, domid);	/* xenstore's view */
}

int rtr_xen_domain_state(struct rtr_xen *x, uint32_t domid)
{
	return x->ops->domain_state(x, domid);
}

/* Digits only, at most @max: what a decimal xenstore value must be. */
static int parse_u32(const char *s, uint32_t max, uint32_t *out)
{
	uint64_t v = 0;

	if (!*s || strlen(s) > 10)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	if (v > max)
		return -ERANGE;
	*out = (uint32_t)v;
	return 0;
}

int rtr_xs_read_u32(struct rtr_xen *x, const char *path, uint32_t max, uint32_t *out)
{
	char buf[16];
	int ret = rtr_xs_read(x, path, buf, sizeof(buf));

	if (ret == -E2BIG)
		return -EINVAL;
	if (ret < 0)
		return ret;
	return parse_u32(buf, max, out);
}

int rtr_xen_find_domain(struct rtr_xen *x, const char *name, uint32_t *domid, char *err,
			size_t errlen)
{
	char **ids = NULL, path[64], buf[256];
	unsigned n = 0, found = 0;
	uint32_t id;
	int ret;

	if (parse_u32(name, 0x7fef, &id) == 0) {
		ret = rtr_xen_domain_exists(x, id);
		if (ret < 0) {
			return rtr_errf(err, errlen, -ret, "domain %u: %s", id, strerror(-ret));
		}
		if (!ret) {
			return rtr_errf(err, errlen, ENOENT, "no domain has id %u", id);
		}
		*domid = id;
		return 0;
	}
	ret = rtr_xs_list(x, "/local/domain", &ids, &n);
	if (ret) {
		return rtr_errf(err, errlen, -ret, "listing /local/domain in xenstore: %s",
				strerror(-ret));
	}
	for (unsigned i = 0; i < n; i++) {
		if (parse_u32(ids[i], 0x7fef, &id))
			continue;
		snprintf(path, sizeof(path), "/local/domain/%u/name", id);
		if (rtr_xs_read(x, path, buf, sizeof(buf)) < 0 || strcmp(buf, name))
			continue;
		if (found++) {
			rtr_errf(err, errlen, 0,
				 "two domains are named '%s' (%u and %u): give an id", name, *domid,
				 id);
			free(ids);
			return -EEXIST;
		}
		*domid = id;
	}
	free(ids);
	if (!found) {
		return rtr_errf(err, errlen, ENOENT,
				"no domain is named '%s' (xl list shows the names)", name);
	}
	return 0;
}
