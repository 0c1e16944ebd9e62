// SPDX-License-Identifier: MIT
/*
 * platform/xen_region.c - a region in pages a Xen guest grants to dom0
 * (ringtrace/xen.h), and dom0's mapping of it, as struct rtr_region_mem.
 *
 * Guest: rtr_xen_region_create() allocates an unbound port for the backend
 * domain, shares the control page read-write with an unmap notification on
 * its @guest_live byte (so dom0 learns when the process dies), the region
 * and the ref pages read-only, and fills in the references; publish(), once
 * the ring has built the region, completes the control page, writes its
 * magic last and then the xenstore keys in one transaction.
 *
 * dom0: rtr_xen_region_attach() reads the keys, maps the control page
 * read-write, copies its header and checks it against the keys and the
 * limits, maps the ref pages read-only just long enough to copy the
 * references, maps the region read-only, and binds the channel.  It never
 * reads a reference, a count or a size twice.
 *
 * Wake-ups: one event channel.  The waiting side checks its word first; an
 * event sent between that check and the wait stays pending on the port,
 * so none is lost, and any event is only a hint to look again.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <ringtrace/region.h>
#include <ringtrace/xen.h>
#include "platform/platform.h"
#include "platform/xen.h"
#include "platform/compiler.h"
#include "format/error.h"

_Static_assert(sizeof(struct rtr_xen_ctl) <= RTR_XEN_PAGE_SIZE, "the control page is one page");
/* The offsets Documentation/xen.rst gives. */
_Static_assert(offsetof(struct rtr_xen_ctl, region_pages) == 32 &&
	       offsetof(struct rtr_xen_ctl, producer_pid) == 52 &&
	       offsetof(struct rtr_xen_ctl, ref_page_refs) == 64 &&
	       offsetof(struct rtr_xen_ctl, guest_live) == 320 &&
	       offsetof(struct rtr_xen_ctl, heartbeat) == 324 &&
	       offsetof(struct rtr_xen_ctl, flush_req) == 384 &&
	       offsetof(struct rtr_xen_ctl, cpu) == 448, "the control page's layout");
_Static_assert(offsetof(struct rtr_cpu_ctl, notify_at) == offsetof(struct rtr_cpu_ctl, cons) + 8 &&
	       offsetof(struct rtr_cons_words, notify_at) == 8 &&
	       offsetof(struct rtr_xen_cons, notify_at) == 8 &&
	       sizeof(struct rtr_xen_cons) == sizeof(struct rtr_cons_words),
	       "the consumer's words have one layout everywhere");

#define KEY_LEN 96

#define STALE_NS	(10000ull * 1000 * 1000)	/* heartbeat still this long: not running */

struct xen_region {
	struct rtr_xen *x;
	uint32_t domid;		/* the other side */
	uint32_t port;		/* ours */
	bool bound;
	struct rtr_xen_ctl *ctl;
	uint32_t ctl_ref;
	uint32_t *refpages;
	uint32_t nref;
	uint32_t npages;
	bool guest;
	uint32_t beat;		/* dom0: the heartbeat last seen */
	uint64_t beat_ns;	/* ... and when it last moved */
	bool asked;		/* the first "gone?" has been answered */
	int state;		/* the domain's, as last asked (enum rtr_xen_dom_state, -errno) */
	uint64_t state_ns;	/* when */
};

static struct xen_region *XR(struct rtr_region_mem *m)
{
	return m->priv;
}

static void xr_wake(struct rtr_region_mem *m, uint32_t *word)
{
	struct xen_region *r = XR(m);

	if (r->bound)
		rtr_xen_notify(r->x, r->port);
}

static int xr_wait(struct rtr_region_mem *m, uint32_t *word, uint32_t expected, int timeout_ms)
{
	struct xen_region *r = XR(m);
	int ret;

	/* The guest's flusher comes here at least every 200 ms: its heartbeat. */
	if (r->guest)
		rtr_add(&r->ctl->heartbeat, 1);
	if (rtr_load_acquire(word) != expected)
		return 0;
	if (!r->bound) {
		/* No channel (a read-only attach): poll the word. */
		usleep(timeout_ms < 0 || timeout_ms > 10 ? 10000 : (useconds_t)timeout_ms * 1000);
		return 0;
	}
	ret = rtr_xen_wait(r->x, timeout_ms, NULL);
	if (ret < 0)
		return ret;
	return ret ? 0 : -ETIMEDOUT;
}

static void xr_free(struct rtr_region_mem *m)
{
	struct xen_region *r = XR(m);

	free(m->name);
	m->name = NULL;
	if (r) {
		rtr_xen_close(r->x);
		free(r);
	}
	m->priv = NULL;
	m->base = NULL;
}

/* A region with its handle on this domain's Xen facilities, or -errno. */
static int xr_new(struct rtr_region_mem *m, char *err, size_t errlen)
{
	struct xen_region *r;
	int ret;

	memset(m, 0, sizeof(*m));
	m->fd = -1;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	ret = rtr_xen_open(&r->x, err, errlen);
	if (ret) {
		free(r);
		return ret;
	}
	m->priv = r;
	return 0;
}

/* ---- guest -------------------------------------------------------------- */

static int xr_publish(struct rtr_region_mem *m)
{
	struct xen_region *r = XR(m);
	const struct rtr_region_hdr *h = (const void *)m->base;
	char v[7][16];
	const char *paths[] = {
		RTR_XEN_XS_DIR "/region-pages", RTR_XEN_XS_DIR "/ref-pages",
		RTR_XEN_XS_DIR "/ncpus", RTR_XEN_XS_DIR "/pid", RTR_XEN_XS_DIR "/abi",
		RTR_XEN_XS_DIR "/event-channel",
		RTR_XEN_XS_DIR "/ring-ref",	/* last: a reader seeing it sees the rest */
	};
	const char *vals[7];

	memcpy(r->ctl->uuid, h->uuid, sizeof(r->ctl->uuid));
	r->ctl->ncpus = h->ncpus;
	r->ctl->producer_pid = (uint32_t)getpid();
	rtr_store_release(&r->ctl->magic, RTR_XEN_MAGIC);
	snprintf(v[0], 16, "%u", r->npages);
	snprintf(v[1], 16, "%u", r->nref);
	snprintf(v[2], 16, "%u", h->ncpus);
	snprintf(v[3], 16, "%u", (unsigned)getpid());
	snprintf(v[4], 16, "%u", RTR_XEN_ABI_MAJOR);
	snprintf(v[5], 16, "%u", r->port);
	snprintf(v[6], 16, "%u", r->ctl_ref);
	for (int i = 0; i < 7; i++)
		vals[i] = v[i];
	return rtr_xs_write(r->x, paths, vals, 7);
}

static bool xr_guest_gone(struct rtr_region_mem *m, uint32_t pid)
{
	return false;	/* the guest is the producer */
}

static void xr_guest_release(struct rtr_region_mem *m, bool unlink)
{
	struct xen_region *r = XR(m);
	uint32_t v;

	if (!r)
		return;
	/* Withdraw the keys, if they are still ours; dom0's mappings stay valid. */
	if (rtr_xs_read_u32(r->x, RTR_XEN_XS_DIR "/pid", UINT32_MAX, &v) == 0 &&
	    v == (uint32_t)getpid())
		rtr_xs_rm(r->x, RTR_XEN_XS_DIR);
	rtr_xen_unshare(r->x, m->base, r->npages);
	rtr_xen_unshare(r->x, r->refpages, r->nref);
	/* Last: the unmap notification tells dom0 the producer is gone. */
	rtr_xen_unshare(r->x, r->ctl, 1);
	if (r->bound)
		rtr_xen_evtchn_unbind(r->x, r->port);
	xr_free(m);
}

static const struct rtr_region_ops xen_guest_ops = {
	.wake = xr_wake,
	.wait = xr_wait,
	.publish = xr_publish,
	.producer_gone = xr_guest_gone,
	.release = xr_guest_release,
};

/*
 * Another live process of this guest traces into the keys: refuse rather
 * than take them over (one session per guest; Documentation/xen.rst).
 */
static int check_busy(struct rtr_xen *x, char *err, size_t errlen)
{
	uint32_t pid;

	if (rtr_xs_read_u32(x, RTR_XEN_XS_DIR "/pid", INT_MAX, &pid))
		return 0;
	if (pid == (uint32_t)getpid() || pid == 0 || (kill((pid_t)pid, 0) < 0 && errno == ESRCH))
		return 0;
	return rtr_errf(err, errlen, EBUSY,
			"process %u of this guest already traces into xenstore's %s "
			"(one session per guest)",
			pid, RTR_XEN_XS_DIR);
}

static uint32_t env_domid(const char *name, uint32_t def)
{
	const char *s = getenv(name);
	char *end;
	unsigned long v;

	if (!s || !*s)
		return def;
	v = strtoul(s, &end, 10);
	return *end || v >= RTR_XEN_DOMID_SELF ? def : (uint32_t)v;
}

int rtr_xen_region_create(struct rtr_region_mem *m, const char *path, uint64_t size,
			  uint32_t ncpus, char *err, size_t errlen)
{
	struct xen_region *r;
	uint32_t *refs = NULL;
	void *addr;
	int ret;

	if (size % RTR_XEN_PAGE_SIZE || size / RTR_XEN_PAGE_SIZE > RTR_XEN_MAX_PAGES) {
		return rtr_errf(err, errlen, E2BIG,
				"a %llu-byte region does not fit the %u pages a Xen guest "
				"may share (use smaller or fewer packets)",
				(unsigned long long)size, RTR_XEN_MAX_PAGES);
	}
	if (ncpus > RTR_XEN_MAX_CPUS) {
		return rtr_errf(err, errlen, E2BIG,
				"%u CPUs: a Xen guest's control page has room for %u streams",
				ncpus, RTR_XEN_MAX_CPUS);
	}
	ret = xr_new(m, err, errlen);
	if (ret)
		return ret;
	r = XR(m);
	r->guest = true;
	r->domid = env_domid("RINGTRACE_XEN_BACKEND", 0);
	r->npages = (uint32_t)(size / RTR_XEN_PAGE_SIZE);
	r->nref = (r->npages + RTR_XEN_REFS_PER_PAGE - 1) / RTR_XEN_REFS_PER_PAGE;
	ret = check_busy(r->x, err, errlen);
	if (ret)
		goto fail;
	ret = rtr_xen_evtchn_alloc(r->x, r->domid, &r->port);
	if (ret) {
		rtr_errf(err, errlen, 0, "allocating an event channel for domain %u: %s", r->domid,
			 strerror(-ret));
		goto fail;
	}
	r->bound = true;
	ret = rtr_xen_share_notify(r->x, r->domid, true, offsetof(struct rtr_xen_ctl, guest_live),
				   r->port, &r->ctl_ref, &addr);
	if (ret)
		goto fail_share;
	r->ctl = addr;
	refs = malloc(r->npages * sizeof(uint32_t));
	if (!refs) {
		ret = -ENOMEM;
		goto fail_share;
	}
	ret = rtr_xen_share(r->x, r->domid, r->npages, false, refs, &addr);
	if (ret)
		goto fail_share;
	m->base = addr;
	ret = rtr_xen_share(r->x, r->domid, r->nref, false, r->ctl->ref_page_refs, &addr);
	if (ret)
		goto fail_share;
	r->refpages = addr;
	memcpy(r->refpages, refs, r->npages * sizeof(uint32_t));
	free(refs);
	refs = NULL;

	r->ctl->abi_major = RTR_XEN_ABI_MAJOR;
	r->ctl->abi_minor = RTR_XEN_ABI_MINOR;
	r->ctl->page_size = RTR_XEN_PAGE_SIZE;
	r->ctl->region_pages = r->npages;
	r->ctl->ref_pages = r->nref;
	r->ctl->ncpus = ncpus;
	r->ctl->evtchn = r->port;
	r->ctl->backend_domid = r->domid;
	r->ctl->guest_live = 1;
	m->size = size;
	m->cons = (uint8_t *)r->ctl->cpu;
	m->cons_stride = sizeof(struct rtr_xen_cons);
	m->flush_req = &r->ctl->flush_req;
	m->max_cpus = RTR_XEN_MAX_CPUS;
	m->ops = &xen_guest_ops;
	{
		uint32_t self = 0;
		char name[64];

		rtr_xen_self(r->x, &self);
		snprintf(name, sizeof(name), "xen:/local/domain/%u/" RTR_XEN_XS_DIR, self);
		m->name = strdup(name);
	}
	return 0;

fail_share:
	if (ret == -ENOSPC)
		rtr_errf(err, errlen, 0,
			 "sharing %u pages with domain %u: no grant left (the "
			 "xen-gntalloc driver allows 1024 by default: raise "
			 "/sys/module/xen_gntalloc/parameters/limit, or trace into fewer or "
			 "smaller packets)",
			 r->npages + r->nref + 1, r->domid);
	else if (!err[0])
		rtr_errf(err, errlen, 0, "sharing %u pages with domain %u: %s",
			 r->npages + r->nref + 1, r->domid, strerror(-ret));
	free(refs);
	if (r->refpages)
		rtr_xen_unshare(r->x, r->refpages, r->nref);
	if (m->base)
		rtr_xen_unshare(r->x, m->base, r->npages);
	if (r->ctl)
		rtr_xen_unshare(r->x, r->ctl, 1);
	rtr_xen_evtchn_unbind(r->x, r->port);
fail:
	xr_free(m);
	return ret;
}

int rtr_xen_region_view(struct rtr_region_mem *m, struct rtr_xen_guest_view *v)
{
	struct xen_region *r;

	if (m->ops != &xen_guest_ops)
		return -EINVAL;
	r = XR(m);
	*v = (struct rtr_xen_guest_view){ .x = r->x, .ctl = r->ctl, .refs = r->refpages,
					  .nref = r->nref, .port = r->port };
	return 0;
}

/* ---- dom0 --------------------------------------------------------------- */

/*
 * The producer is gone when its kernel said so (@guest_live zeroed at the
 * process's exit), or when the hypervisor says the domain is destroyed,
 * dying, shut down or crashed.  A paused domain is not gone: it may run
 * again.  A starved guest is not gone either, however long its flusher
 * waits for a CPU: that is why the domain's state comes from Xen, not from
 * a timer.  Only where dom0 may not ask Xen (no privcmd) does a heartbeat
 * still for STALE_NS mean gone; the first question then waits for the
 * answer, later ones never wait.
 */
static bool xr_dom0_gone(struct rtr_region_mem *m, uint32_t pid)
{
	static const char *const why[] = {
		[RTR_XEN_DOM_GONE] = "the domain was destroyed",
		[RTR_XEN_DOM_SHUTDOWN] = "the domain shut down",
		[RTR_XEN_DOM_CRASHED] = "the domain crashed",
		[RTR_XEN_DOM_DYING] = "the domain is being destroyed",
	};
	struct xen_region *r = XR(m);
	uint64_t t = rtr_monotonic_ns();

	if (!rtr_load(&r->ctl->guest_live)) {
		m->gone_why = "the guest's tracing process exited";
		return true;
	}
	/* One hypercall (or xenstore round trip): ten times a second is enough. */
	if (!r->asked || t - r->state_ns >= 100000000ull) {
		r->state_ns = t;
		r->state = rtr_xen_domain_state(r->x, r->domid);
		if (r->state < 0 && rtr_xen_domain_exists(r->x, r->domid) == 0)
			r->state = RTR_XEN_DOM_GONE;
	}
	if (r->state >= 0) {
		r->asked = true;
		if (r->state == RTR_XEN_DOM_RUNNING || r->state == RTR_XEN_DOM_PAUSED)
			return false;
		m->gone_why = why[r->state];
		return true;
	}
	for (;;) {
		uint32_t beat = rtr_load(&r->ctl->heartbeat);
		uint64_t now = rtr_monotonic_ns();

		if (beat != r->beat) {
			r->beat = beat;
			r->beat_ns = now;
			r->asked = true;
			return false;
		}
		if (now - r->beat_ns >= STALE_NS) {
			m->gone_why = "the guest has not run for 10 s (crashed or hung: this domain "
				      "may not ask Xen)";
			return r->asked = true;
		}
		if (r->asked)
			return false;
		usleep(50000);
	}
}

static void xr_dom0_release(struct rtr_region_mem *m, bool unlink)
{
	struct xen_region *r = XR(m);

	if (!r)
		return;
	rtr_xen_unmap(r->x, m->base, r->npages);
	rtr_xen_unmap(r->x, r->ctl, 1);
	if (r->bound)
		rtr_xen_evtchn_unbind(r->x, r->port);
	xr_free(m);
}

static int dom0_publish(struct rtr_region_mem *m)
{
	return -EINVAL;
}

static const struct rtr_region_ops xen_dom0_ops = {
	.wake = xr_wake,
	.wait = xr_wait,
	.publish = dom0_publish,
	.producer_gone = xr_dom0_gone,
	.release = xr_dom0_release,
};

struct keys {
	uint32_t ring_ref, port, pages, nref, ncpus, abi;
};

static int read_keys(struct rtr_xen *x, uint32_t domid, struct keys *k, char *err, size_t errlen)
{
	static const struct {
		const char *name;
		uint32_t max;
		size_t off;
	} want[] = {
		{ "ring-ref", UINT32_MAX, offsetof(struct keys, ring_ref) },
		{ "event-channel", INT32_MAX, offsetof(struct keys, port) },
		{ "region-pages", RTR_XEN_MAX_PAGES, offsetof(struct keys, pages) },
		{ "ref-pages", RTR_XEN_MAX_REF_PAGES, offsetof(struct keys, nref) },
		{ "ncpus", RTR_XEN_MAX_CPUS, offsetof(struct keys, ncpus) },
		{ "abi", UINT16_MAX, offsetof(struct keys, abi) },
	};
	char path[KEY_LEN];

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		int ret;

		snprintf(path, sizeof(path), "/local/domain/%u/" RTR_XEN_XS_DIR "/%s", domid,
			 want[i].name);
		ret = rtr_xs_read_u32(x, path, want[i].max, (uint32_t *)((char *)k + want[i].off));
		if (ret == -ENOENT && i == 0) {
			return rtr_errf(err, errlen, ENOENT,
					"domain %u does not trace (no %s in xenstore: is "
					"its program running with RINGTRACE_XEN=1?)",
					domid, path);
		}
		if (ret) {
			rtr_errf(err, errlen, 0, "domain %u: xenstore's %s: %s", domid, path,
				 ret == -ERANGE	  ? "out of range"
				 : ret == -EINVAL ? "not a decimal number"
						  : strerror(-ret));
			return ret == -EACCES ? ret : -EPROTO;
		}
	}
	if (k->abi != RTR_XEN_ABI_MAJOR) {
		return rtr_errf(err, errlen, EPROTO,
				"domain %u traces with Xen ABI %u, this dom0 knows %u", domid,
				k->abi, RTR_XEN_ABI_MAJOR);
	}
	if (k->pages == 0 || k->ncpus == 0 ||
	    k->nref != (k->pages + RTR_XEN_REFS_PER_PAGE - 1) / RTR_XEN_REFS_PER_PAGE) {
		return rtr_errf(err, errlen, EPROTO,
				"domain %u: inconsistent geometry in xenstore (%u pages, "
				"%u ref pages, %u CPUs)",
				domid, k->pages, k->nref, k->ncpus);
	}
	return 0;
}

/* The copied header must say what xenstore says. */
static const char *check_ctl(const struct rtr_xen_ctl *c, const struct keys *k)
{
	if (c->magic != RTR_XEN_MAGIC)
		return "the control page has no magic (not ringtrace's, or not built yet)";
	if (c->abi_major != RTR_XEN_ABI_MAJOR)
		return "the control page has another ABI major";
	if (c->page_size != RTR_XEN_PAGE_SIZE)
		return "the control page's page size is not 4096";
	if (c->region_pages != k->pages || c->ref_pages != k->nref || c->ncpus != k->ncpus)
		return "the control page's geometry differs from xenstore's";
	if (c->evtchn != k->port)
		return "the control page's event channel differs from xenstore's";
	return NULL;
}

int rtr_xen_region_attach(struct rtr_region_mem *m, const char *domain, char *err, size_t errlen)
{
	struct rtr_xen_ctl copy;
	struct xen_region *r;
	uint32_t *refs = NULL;
	const char *why;
	struct keys k;
	void *addr;
	int ret;

	ret = xr_new(m, err, errlen);
	if (ret)
		return ret;
	r = XR(m);
	ret = rtr_xen_find_domain(r->x, domain, &r->domid, err, errlen);
	if (ret)
		goto fail;
	ret = read_keys(r->x, r->domid, &k, err, errlen);
	if (ret)
		goto fail;
	ret = rtr_xen_map(r->x, r->domid, 1, &k.ring_ref, true, &addr);
	if (ret) {
		rtr_errf(err, errlen, 0, "domain %u: mapping its control page (grant %u): %s",
			 r->domid, k.ring_ref, strerror(-ret));
		goto fail;
	}
	r->ctl = addr;
	/* Copy, then check the copy: the guest may change the page meanwhile. */
	memcpy(&copy, r->ctl, offsetof(struct rtr_xen_ctl, guest_live));
	why = check_ctl(&copy, &k);
	if (why) {
		rtr_errf(err, errlen, 0, "domain %u: %s", r->domid, why);
		ret = -EPROTO;
		goto fail_unmap;
	}
	r->npages = k.pages;
	r->nref = k.nref;
	ret = rtr_xen_map(r->x, r->domid, k.nref, copy.ref_page_refs, false, &addr);
	if (ret) {
		rtr_errf(err, errlen, 0, "domain %u: mapping its %u pages of grant references: %s",
			 r->domid, k.nref, strerror(-ret));
		goto fail_unmap;
	}
	refs = malloc((size_t)k.pages * sizeof(uint32_t));
	if (refs)
		memcpy(refs, addr, (size_t)k.pages * sizeof(uint32_t));
	rtr_xen_unmap(r->x, addr, k.nref);
	if (!refs) {
		ret = -ENOMEM;
		goto fail_unmap;
	}
	ret = rtr_xen_map(r->x, r->domid, k.pages, refs, false, &addr);
	free(refs);
	if (ret) {
		rtr_errf(err, errlen, 0, "domain %u: mapping its %u region pages read-only: %s",
			 r->domid, k.pages, strerror(-ret));
		goto fail_unmap;
	}
	m->base = addr;
	ret = rtr_xen_evtchn_bind(r->x, r->domid, k.port, &r->port);
	/* Without a channel (a crashed guest's may be gone) waits poll the words. */
	r->bound = ret == 0;
	m->size = (uint64_t)k.pages * RTR_XEN_PAGE_SIZE;
	m->cons = (uint8_t *)r->ctl->cpu;
	m->cons_stride = sizeof(struct rtr_xen_cons);
	m->flush_req = &r->ctl->flush_req;
	m->max_cpus = k.ncpus;
	m->ops = &xen_dom0_ops;
	r->beat = rtr_load(&r->ctl->heartbeat);
	r->beat_ns = rtr_monotonic_ns();
	{
		char name[80];

		snprintf(name, sizeof(name), "xen:%s", domain);
		m->name = strdup(name);
	}
	return 0;

fail_unmap:
	rtr_xen_unmap(r->x, r->ctl, 1);
fail:
	xr_free(m);
	return ret;
}
