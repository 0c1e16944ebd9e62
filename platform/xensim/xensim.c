// SPDX-License-Identifier: MIT
/*
 * platform/xensim/xensim.c - a simulated hypervisor behind platform/xen.h.
 *
 * The tables live in one file mapped MAP_SHARED by every process of the
 * simulation (xensim.h) and change only under its robust, process-shared
 * mutex.  What each part keeps of Xen's semantics:
 *
 *   grants     a reference names one page of the granting domain's memory
 *              file, for one grantee, read-only or writable.  A mapping of
 *              a read-only grant is a PROT_READ mapping of a file opened
 *              O_RDONLY: a write faults and mprotect() cannot lift it.
 *              References start at 8 (Xen reserves 0-7).  When the process
 *              that shared a page has died, its unmapped grants are gone,
 *              as gntalloc ends them at exit, unless the domain crashed
 *              and is preserved.
 *   channels   each port has a pending and a mask bit.  A send sets the
 *              remote port pending; an unmasked port that becomes pending
 *              is delivered once to its handle's queue, with its pending
 *              bit cleared and its mask bit set, as Linux's evtchn driver
 *              does; rtr_xen_wait() takes it and unmasks, which delivers
 *              again if it became pending meanwhile.  A send to a pending
 *              port is coalesced (edge-triggered).  Binding marks the new
 *              local port pending, as Xen does.
 *   exit       when a process dies its handles go: its ports close (the
 *              remote end becomes unbound) and the unmap notifications it
 *              registered fire (the byte is zeroed, the port notified), as
 *              the guest kernel's gntalloc and evtchn drivers do at exit.
 *              A crashed domain's kernel does nothing of the sort.  Death
 *              is noticed lazily, by whoever waits or maps next.
 *   xenstore   absolute paths and paths relative to /local/domain/<self>,
 *              xenstored's characters and permissions (owner, others,
 *              per-domain entries; dom0 may do anything; a node inherits
 *              its parent's permissions and belongs to the unprivileged
 *              domain that created it), multi-key writes applied at once,
 *              watches on a node and everything below it that fire once
 *              when set and for every change after.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "platform/platform.h"
#include "platform/xen.h"
#include "platform/xensim/xensim.h"
#include "format/error.h"

#define SIM_MAGIC	0x314d495358525452ULL	/* "RTRXSIM1" */
#define PAGE		4096u
#define MAX_DOMS	8u
#define MAX_GRANTS	16384u
#define FIRST_REF	8u
#define MAX_PORTS	64u
#define MAX_EVH		64u
#define EVQ		MAX_PORTS	/* a port is queued at most once: masked meanwhile */
#define MAX_NODES	512u
#define XS_PATH		128u
#define XS_VAL		1024u
#define XS_TOKEN	32u
#define MAX_WATCHES	64u
#define MAX_XSH		32u
#define XSQ		32u
#define MAX_UNOTIFY	16u
#define SLICE_MS	50

enum { P_FREE, P_UNBOUND, P_INTER };
enum { PERM_NONE = 0, PERM_R = 1, PERM_W = 2, PERM_RW = 3 };

struct grant {
	uint32_t in_use;
	uint32_t grantee;
	uint32_t readonly;
	uint32_t page;
	int32_t owner_pid;	/* -1: unshared while mapped */
	uint32_t mapped;
};

struct port {
	uint8_t state;
	uint8_t pending;
	uint8_t masked;
	uint8_t pad;
	uint32_t remote_dom;
	uint32_t remote_port;
	int32_t evh;
};

struct dom {
	uint32_t exists;
	uint32_t crashed;
	uint32_t paused;
	uint32_t pages;
	uint32_t next_ref;
	char name[64];
	uint64_t sent, delivered, coalesced;
	struct port port[MAX_PORTS];
	struct grant grant[MAX_GRANTS];
};

/* The first fields of a handle slot (struct evh, struct xsh): who holds it. */
struct slot {
	int32_t pid;
	uint32_t dom;
};

struct evh {
	int32_t pid;
	uint32_t dom;
	uint32_t seq;		/* futex */
	uint32_t head, tail;
	uint32_t q[EVQ];
};

struct xsev {
	char path[XS_PATH];
	char token[XS_TOKEN];
};

struct xsh {
	int32_t pid;
	uint32_t dom;
	uint32_t seq;		/* futex */
	uint32_t head, tail;
	uint64_t dropped;
	struct xsev q[XSQ];
};

struct watch {
	uint32_t used;
	int32_t xsh;
	char path[XS_PATH];
	char token[XS_TOKEN];
};

struct unotify {
	uint32_t used;
	uint32_t dom;
	uint32_t page;
	uint32_t off;
	uint32_t port;
	int32_t pid;
};

struct node {
	uint32_t used;
	uint16_t owner;
	uint8_t other;
	uint8_t nacl;
	uint16_t acl_dom[4];
	uint8_t acl_perm[4];
	uint32_t len;
	char path[XS_PATH];
	char val[XS_VAL];
};

struct hv {
	uint64_t magic;
	uint64_t size;
	pthread_mutex_t lock;
	struct dom dom[MAX_DOMS];
	struct evh evh[MAX_EVH];
	struct xsh xsh[MAX_XSH];
	struct watch watch[MAX_WATCHES];
	struct unotify un[MAX_UNOTIFY];
	struct node node[MAX_NODES];
};

/* A mapping this process made (shared or mapped), for unshare and unmap. */
struct mapping {
	struct mapping *next;
	void *addr;
	uint32_t count;
	uint32_t dom;
	bool mine;		/* shared by us, else mapped from @dom */
	uint32_t refs[];
};

struct sim {
	char dir[PATH_MAX];
	struct hv *hv;
	uint32_t self;
	int memfd;		/* our domain's memory file, opened on first share */
	int evh;		/* our event-channel handle, -1 until needed */
	int xsh;		/* our watch queue, -1 until needed */
	pthread_mutex_t mlock;	/* @maps, @memfd, @evh, @xsh */
	struct mapping *maps;
};

static struct sim *S(struct rtr_xen *x)
{
	return x->priv;
}

/* ---- the shared tables -------------------------------------------------- */

static void hv_lock(struct hv *hv)
{
	if (pthread_mutex_lock(&hv->lock) == EOWNERDEAD)
		pthread_mutex_consistent(&hv->lock);	/* a process died holding it */
}

static void hv_unlock(struct hv *hv)
{
	pthread_mutex_unlock(&hv->lock);
}

static int hv_map(const char *dir, struct hv **out)
{
	char path[PATH_MAX];
	struct stat st;
	void *p;
	int fd;

	if (snprintf(path, sizeof(path), "%s/hv", dir) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || (uint64_t)st.st_size != sizeof(struct hv)) {
		close(fd);
		return -EPROTO;
	}
	p = mmap(NULL, sizeof(struct hv), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -errno;
	if (__atomic_load_n(&((struct hv *)p)->magic, __ATOMIC_ACQUIRE) != SIM_MAGIC) {
		munmap(p, sizeof(struct hv));
		return -EPROTO;
	}
	*out = p;
	return 0;
}

static void hv_unmap(struct hv *hv)
{
	munmap(hv, sizeof(*hv));
}

/* A process is gone once it has exited, zombie or not: its files are closed. */
static bool alive(int32_t pid)
{
	char path[64], buf[256], *p;
	ssize_t n;
	int fd;

	if (pid <= 0)
		return false;
	if (kill(pid, 0) < 0 && errno == ESRCH)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno != ENOENT;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return true;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return !(p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X'));
}

static int mem_path(const char *dir, uint32_t dom, char *buf, size_t len)
{
	return snprintf(buf, len, "%s/mem-%u", dir, dom) >= (int)len ? -ENAMETOOLONG : 0;
}

/* ---- event channels ----------------------------------------------------- */

static void deliver(struct hv *hv, uint32_t d, uint32_t p)
{
	struct port *pt = &hv->dom[d].port[p];
	struct evh *e;

	if (pt->evh < 0 || !hv->evh[pt->evh].pid)
		return;
	e = &hv->evh[pt->evh];
	pt->masked = 1;		/* the driver masks, the upcall acknowledges */
	pt->pending = 0;
	e->q[e->tail++ % EVQ] = p;
	hv->dom[d].delivered++;
	__atomic_add_fetch(&e->seq, 1, __ATOMIC_RELEASE);
	rtr_futex_wake(&e->seq, INT_MAX);
}

/* Return: false if the port was already pending (the send coalesced). */
static bool set_pending(struct hv *hv, uint32_t d, uint32_t p)
{
	struct port *pt;

	if (d >= MAX_DOMS || p >= MAX_PORTS || !hv->dom[d].exists)
		return true;
	pt = &hv->dom[d].port[p];
	if (pt->state == P_FREE)
		return true;
	if (pt->pending)
		return false;
	pt->pending = 1;
	if (!pt->masked)
		deliver(hv, d, p);
	return true;
}

static void send_from(struct hv *hv, uint32_t d, uint32_t p)
{
	struct port *pt = &hv->dom[d].port[p];

	hv->dom[d].sent++;
	if (pt->state != P_INTER)
		return;		/* an unbound port drops the event, as Xen does */
	if (!set_pending(hv, pt->remote_dom, pt->remote_port))
		hv->dom[d].coalesced++;
}

static void close_port(struct hv *hv, uint32_t d, uint32_t p)
{
	struct port *pt = &hv->dom[d].port[p];

	if (pt->state == P_INTER && pt->remote_dom < MAX_DOMS && pt->remote_port < MAX_PORTS) {
		struct port *r = &hv->dom[pt->remote_dom].port[pt->remote_port];

		if (r->state == P_INTER && r->remote_dom == d && r->remote_port == p) {
			r->state = P_UNBOUND;
			r->remote_dom = d;
		}
	}
	memset(pt, 0, sizeof(*pt));
	pt->evh = -1;
}

static void close_evh(struct hv *hv, int idx)
{
	struct evh *e = &hv->evh[idx];

	for (uint32_t p = 1; p < MAX_PORTS; p++)
		if (hv->dom[e->dom].port[p].state != P_FREE && hv->dom[e->dom].port[p].evh == idx)
			close_port(hv, e->dom, p);
	memset(e, 0, sizeof(*e));
}

/*
 * What a dead process's kernel does at its exit: each page shared with an
 * unmap notification gets its byte zeroed and its port notified, then the
 * process's event-channel handles close.  Not in a crashed domain.
 */
static void reap(const char *dir, struct hv *hv)
{
	for (uint32_t i = 0; i < MAX_UNOTIFY; i++) {
		struct unotify *u = &hv->un[i];
		char path[PATH_MAX];
		int fd;

		if (u->used != 1 || hv->dom[u->dom].crashed || alive(u->pid))
			continue;
		if (!mem_path(dir, u->dom, path, sizeof(path))) {
			fd = open(path, O_WRONLY | O_CLOEXEC);
			if (fd >= 0) {
				if (pwrite(fd, "", 1, (off_t)u->page * PAGE + u->off) != 1) {
					/* the page is gone: nothing to clear */
				}
				close(fd);
			}
		}
		if (u->port < MAX_PORTS && hv->dom[u->dom].port[u->port].state != P_FREE)
			send_from(hv, u->dom, u->port);
		u->used = 0;
	}
	for (uint32_t i = 0; i < MAX_EVH; i++) {
		struct evh *e = &hv->evh[i];

		if (e->pid && !hv->dom[e->dom].crashed && !alive(e->pid))
			close_evh(hv, (int)i);
	}
	for (uint32_t i = 0; i < MAX_XSH; i++) {
		struct xsh *h = &hv->xsh[i];

		if (h->pid && !alive(h->pid)) {
			for (uint32_t w = 0; w < MAX_WATCHES; w++)
				if (hv->watch[w].used && hv->watch[w].xsh == (int32_t)i)
					memset(&hv->watch[w], 0, sizeof(hv->watch[w]));
			memset(h, 0, sizeof(*h));
		}
	}
}

/*
 * This process's handle slot in @table (@n slots of @size bytes, each
 * starting with a struct slot), claimed on first use and kept in *@mine.
 */
static int get_slot(struct sim *s, int *mine, void *table, uint32_t n, size_t size)
{
	struct hv *hv = s->hv;
	int ret = -EMFILE;

	pthread_mutex_lock(&s->mlock);
	if (*mine >= 0) {
		pthread_mutex_unlock(&s->mlock);
		return *mine;
	}
	hv_lock(hv);
	reap(s->dir, hv);
	for (uint32_t i = 0; i < n; i++) {
		struct slot *sl = (struct slot *)((char *)table + i * size);

		if (sl->pid)
			continue;
		memset(sl, 0, size);
		sl->pid = getpid();
		sl->dom = s->self;
		*mine = ret = (int)i;
		break;
	}
	hv_unlock(hv);
	pthread_mutex_unlock(&s->mlock);
	return ret;
}

static int get_evh(struct sim *s)
{
	return get_slot(s, &s->evh, s->hv->evh, MAX_EVH, sizeof(struct evh));
}

static int free_port(struct dom *d)
{
	for (uint32_t p = 1; p < MAX_PORTS; p++)	/* port 0 is never valid */
		if (d->port[p].state == P_FREE)
			return (int)p;
	return -ENOSPC;
}

static int sim_evtchn_alloc(struct rtr_xen *x, uint32_t remote, uint32_t *port)
{
	struct sim *s = S(x);
	int e = get_evh(s), p;

	if (e < 0)
		return e;
	if (remote >= MAX_DOMS)
		return -ESRCH;
	hv_lock(s->hv);
	p = free_port(&s->hv->dom[s->self]);
	if (p > 0) {
		struct port *pt = &s->hv->dom[s->self].port[p];

		memset(pt, 0, sizeof(*pt));
		pt->state = P_UNBOUND;
		pt->remote_dom = remote;
		pt->evh = e;
		*port = (uint32_t)p;
	}
	hv_unlock(s->hv);
	return p < 0 ? p : 0;
}

static int sim_evtchn_bind(struct rtr_xen *x, uint32_t domid, uint32_t remote_port,
			   uint32_t *port)
{
	struct sim *s = S(x);
	struct hv *hv = s->hv;
	int e = get_evh(s), p, ret = 0;

	if (e < 0)
		return e;
	hv_lock(hv);
	if (domid >= MAX_DOMS || !hv->dom[domid].exists) {
		ret = -ESRCH;
		goto out;
	}
	if (remote_port == 0 || remote_port >= MAX_PORTS ||
	    hv->dom[domid].port[remote_port].state != P_UNBOUND ||
	    hv->dom[domid].port[remote_port].remote_dom != s->self) {
		ret = -EINVAL;
		goto out;
	}
	p = free_port(&hv->dom[s->self]);
	if (p < 0) {
		ret = p;
		goto out;
	}
	hv->dom[s->self].port[p] = (struct port){ .state = P_INTER, .remote_dom = domid,
						  .remote_port = remote_port, .evh = e };
	hv->dom[domid].port[remote_port].state = P_INTER;
	hv->dom[domid].port[remote_port].remote_dom = s->self;
	hv->dom[domid].port[remote_port].remote_port = (uint32_t)p;
	/* Xen marks the new local port pending: an event sent before is not lost. */
	set_pending(hv, s->self, (uint32_t)p);
	*port = (uint32_t)p;
out:
	hv_unlock(hv);
	return ret;
}

/* The port must be one of this handle's. */
static struct port *my_port(struct sim *s, uint32_t port)
{
	struct port *pt;

	if (s->evh < 0 || port == 0 || port >= MAX_PORTS)
		return NULL;
	pt = &s->hv->dom[s->self].port[port];
	return pt->state != P_FREE && pt->evh == s->evh ? pt : NULL;
}

/* Do @op on @port, which must be one of this handle's. */
static int on_my_port(struct rtr_xen *x, uint32_t port, void (*op)(struct hv *, uint32_t, uint32_t))
{
	struct sim *s = S(x);
	int ret = -EINVAL;

	hv_lock(s->hv);
	if (my_port(s, port)) {
		op(s->hv, s->self, port);
		ret = 0;
	}
	hv_unlock(s->hv);
	return ret;
}

static int sim_evtchn_unbind(struct rtr_xen *x, uint32_t port)
{
	return on_my_port(x, port, close_port);
}

static int sim_notify(struct rtr_xen *x, uint32_t port)
{
	return on_my_port(x, port, send_from);
}

static void unmask(struct hv *hv, uint32_t d, uint32_t p)
{
	struct port *pt = &hv->dom[d].port[p];

	if (pt->state == P_FREE)
		return;
	pt->masked = 0;
	if (pt->pending)
		deliver(hv, d, p);
}

static uint64_t deadline_of(int timeout_ms)
{
	return timeout_ms < 0 ? UINT64_MAX : rtr_monotonic_ns() + (uint64_t)timeout_ms * 1000000u;
}

/* Sleep on @word (a futex in the tables) until it moves or the slice ends. */
static bool slice_wait(uint32_t *word, uint32_t seen, uint64_t deadline)
{
	uint64_t now = rtr_monotonic_ns();
	int ms = SLICE_MS;

	if (now >= deadline)
		return false;
	if (deadline - now < (uint64_t)SLICE_MS * 1000000u)
		ms = (int)((deadline - now) / 1000000u) + 1;
	rtr_futex_wait(word, seen, ms);
	return true;
}

static int sim_wait(struct rtr_xen *x, int timeout_ms, uint32_t *port)
{
	struct sim *s = S(x);
	struct hv *hv = s->hv;
	uint64_t deadline = deadline_of(timeout_ms);
	int e = get_evh(s);

	if (e < 0)
		return e;
	for (;;) {
		struct evh *h = &hv->evh[e];
		uint32_t seen;

		hv_lock(hv);
		reap(s->dir, hv);
		if (h->pid != getpid()) {
			hv_unlock(hv);	/* the domain was destroyed under us */
			return -ENODEV;
		}
		if (h->head != h->tail) {
			uint32_t p = h->q[h->head++ % EVQ];

			unmask(hv, s->self, p);
			hv_unlock(hv);
			*port = p;
			return 1;
		}
		seen = __atomic_load_n(&h->seq, __ATOMIC_ACQUIRE);
		hv_unlock(hv);
		if (!slice_wait(&h->seq, seen, deadline))
			return 0;
	}
}

/* ---- grants ------------------------------------------------------------- */

static int memfd_get(struct sim *s)
{
	char path[PATH_MAX];
	int ret;

	if (s->memfd >= 0)
		return s->memfd;
	ret = mem_path(s->dir, s->self, path, sizeof(path));
	if (ret)
		return ret;
	s->memfd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	return s->memfd >= 0 ? s->memfd : -errno;
}

static void remember(struct sim *s, struct mapping *m)
{
	pthread_mutex_lock(&s->mlock);
	m->next = s->maps;
	s->maps = m;
	pthread_mutex_unlock(&s->mlock);
}

static struct mapping *forget(struct sim *s, void *addr, bool mine)
{
	struct mapping **pp, *m = NULL;

	pthread_mutex_lock(&s->mlock);
	for (pp = &s->maps; *pp; pp = &(*pp)->next) {
		if ((*pp)->addr == addr && (*pp)->mine == mine) {
			m = *pp;
			*pp = m->next;
			break;
		}
	}
	pthread_mutex_unlock(&s->mlock);
	return m;
}

static int do_share(struct sim *s, uint32_t domid, uint32_t count, bool writable,
		    uint32_t *refs, void **addr, uint32_t *first_page)
{
	struct hv *hv = s->hv;
	struct dom *d = &hv->dom[s->self];
	struct mapping *m;
	uint32_t page0, found = 0;
	struct stat st;
	int fd, ret = 0;
	void *p;

	if (count > MAX_GRANTS || domid >= MAX_DOMS)
		return -EINVAL;
	m = calloc(1, sizeof(*m) + count * sizeof(uint32_t));
	if (!m)
		return -ENOMEM;
	pthread_mutex_lock(&s->mlock);
	fd = memfd_get(s);
	pthread_mutex_unlock(&s->mlock);
	if (fd < 0) {
		free(m);
		return fd;
	}
	hv_lock(hv);
	if (!d->exists) {
		ret = -ESRCH;
		goto out;
	}
	for (uint32_t i = 0, r = d->next_ref; i < MAX_GRANTS && found < count; i++, r++) {
		if (r >= MAX_GRANTS)
			r = FIRST_REF;
		if (r >= FIRST_REF && !d->grant[r].in_use)
			refs[found++] = r;
	}
	if (found < count) {
		ret = -ENOSPC;	/* gntalloc's answer when its limit is reached */
		goto out;
	}
	page0 = d->pages;
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		goto out;
	}
	if ((uint64_t)st.st_size < (uint64_t)(page0 + count) * PAGE &&
	    ftruncate(fd, (off_t)(page0 + count) * PAGE) < 0) {
		ret = -errno;
		goto out;
	}
	d->pages += count;
	for (uint32_t i = 0; i < count; i++)
		d->grant[refs[i]] = (struct grant){ .in_use = 1, .grantee = domid,
						    .readonly = !writable, .page = page0 + i,
						    .owner_pid = getpid() };
	d->next_ref = refs[count - 1] + 1;
out:
	hv_unlock(hv);
	if (ret) {
		free(m);
		return ret;
	}
	p = mmap(NULL, (size_t)count * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 (off_t)page0 * PAGE);
	if (p == MAP_FAILED) {
		ret = -errno;
		hv_lock(hv);
		for (uint32_t i = 0; i < count; i++)
			d->grant[refs[i]].in_use = 0;
		hv_unlock(hv);
		free(m);
		return ret;
	}
	m->addr = p;
	m->count = count;
	m->dom = s->self;
	m->mine = true;
	memcpy(m->refs, refs, count * sizeof(uint32_t));
	remember(s, m);
	*addr = p;
	if (first_page)
		*first_page = page0;
	return 0;
}

static int sim_share(struct rtr_xen *x, uint32_t domid, uint32_t count, bool writable,
		     uint32_t *refs, void **addr)
{
	return do_share(S(x), domid, count, writable, refs, addr, NULL);
}

static int sim_share_notify(struct rtr_xen *x, uint32_t domid, bool writable,
			    uint32_t notify_off, uint32_t port, uint32_t *ref, void **addr)
{
	struct sim *s = S(x);
	struct unotify *u = NULL;
	uint32_t page;
	int ret;

	hv_lock(s->hv);
	ret = my_port(s, port) ? -ENOSPC : -EINVAL;
	for (uint32_t i = 0; i < MAX_UNOTIFY && ret == -ENOSPC; i++) {
		if (s->hv->un[i].used)
			continue;
		u = &s->hv->un[i];
		u->used = 2;	/* reserved: not ours to fire until the page exists */
		u->pid = getpid();
		ret = 0;
	}
	hv_unlock(s->hv);
	if (ret)
		return ret;
	ret = do_share(s, domid, 1, writable, ref, addr, &page);
	hv_lock(s->hv);
	if (ret)
		memset(u, 0, sizeof(*u));
	else
		*u = (struct unotify){ .used = 1, .dom = s->self, .page = page, .off = notify_off,
				       .port = port, .pid = getpid() };
	hv_unlock(s->hv);
	return ret;
}

static void sim_unshare(struct rtr_xen *x, void *addr, uint32_t count)
{
	struct sim *s = S(x);
	struct mapping *m = forget(s, addr, true);
	struct dom *d = &s->hv->dom[s->self];

	if (!m)
		return;
	hv_lock(s->hv);
	for (uint32_t i = 0; i < m->count; i++) {
		struct grant *g = &d->grant[m->refs[i]];

		/* gntalloc sends a page's unmap notification when it lets it go. */
		for (uint32_t u = 0; u < MAX_UNOTIFY; u++) {
			struct unotify *n = &s->hv->un[u];

			if (n->used == 1 && n->dom == s->self && n->page == g->page) {
				((uint8_t *)m->addr)[(size_t)i * PAGE + n->off] = 0;
				if (n->port < MAX_PORTS && d->port[n->port].state != P_FREE)
					send_from(s->hv, s->self, n->port);
				n->used = 0;
			}
		}
		if (g->mapped)
			g->owner_pid = -1;	/* stays until the grantee unmaps */
		else
			memset(g, 0, sizeof(*g));
	}
	hv_unlock(s->hv);
	munmap(m->addr, (size_t)m->count * PAGE);
	free(m);
}

static int sim_map(struct rtr_xen *x, uint32_t domid, uint32_t count, const uint32_t *refs,
		   bool writable, void **addr)
{
	struct sim *s = S(x);
	struct hv *hv = s->hv;
	char path[PATH_MAX];
	struct mapping *m;
	uint32_t *pages;
	uint8_t *area;
	int fd, ret = 0;

	if (domid >= MAX_DOMS || count > MAX_GRANTS)
		return -EINVAL;
	m = calloc(1, sizeof(*m) + count * sizeof(uint32_t));
	pages = malloc(count * sizeof(uint32_t));
	if (!m || !pages) {
		free(m);
		free(pages);
		return -ENOMEM;
	}
	hv_lock(hv);
	reap(s->dir, hv);
	if (!hv->dom[domid].exists) {
		ret = -ESRCH;
		goto unlock;
	}
	for (uint32_t i = 0; i < count; i++) {
		struct grant *g;

		if (refs[i] < FIRST_REF || refs[i] >= MAX_GRANTS) {
			ret = -EINVAL;
			goto unlock;
		}
		g = &hv->dom[domid].grant[refs[i]];
		/* A dead sharer's unmapped grants went with it, unless its domain crashed. */
		if (!g->in_use || g->grantee != s->self ||
		    (!g->mapped && !hv->dom[domid].crashed && !alive(g->owner_pid))) {
			ret = -EINVAL;
			goto unlock;
		}
		if (writable && g->readonly) {
			ret = -EPERM;
			goto unlock;
		}
		pages[i] = g->page;
	}
	for (uint32_t i = 0; i < count; i++)
		hv->dom[domid].grant[refs[i]].mapped++;
unlock:
	hv_unlock(hv);
	if (ret)
		goto err;
	fd = -1;
	area = MAP_FAILED;
	ret = mem_path(s->dir, domid, path, sizeof(path));
	if (!ret) {
		fd = open(path, (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC);
		ret = fd < 0 ? -errno : 0;
	}
	/*
	 * Reserve a guard page on each side (PROT_NONE): a reader that strays
	 * out of what it mapped faults here, where on real Xen it might read
	 * some other mapping of its own.
	 */
	if (!ret) {
		area = mmap(NULL, (size_t)(count + 2) * PAGE, PROT_NONE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		ret = area == MAP_FAILED ? -errno : 0;
		if (!ret)
			area += PAGE;
	}
	/* One mmap per run of consecutive pages: a region shared at once is one. */
	for (uint32_t i = 0, run; !ret && i < count; i += run) {
		for (run = 1; i + run < count && pages[i + run] == pages[i] + run; run++)
			;
		if (mmap(area + (size_t)i * PAGE, (size_t)run * PAGE,
			 PROT_READ | (writable ? PROT_WRITE : 0), MAP_SHARED | MAP_FIXED, fd,
			 (off_t)pages[i] * PAGE) == MAP_FAILED)
			ret = -errno;
	}
	if (fd >= 0)
		close(fd);
	if (ret) {
		if (area != MAP_FAILED)
			munmap(area - PAGE, (size_t)(count + 2) * PAGE);
		goto undo;
	}
	m->addr = area;
	m->count = count;
	m->dom = domid;
	memcpy(m->refs, refs, count * sizeof(uint32_t));
	remember(s, m);
	free(pages);
	*addr = area;
	return 0;
undo:
	hv_lock(hv);
	for (uint32_t i = 0; i < count; i++)
		if (hv->dom[domid].grant[refs[i]].mapped)
			hv->dom[domid].grant[refs[i]].mapped--;
	hv_unlock(hv);
err:
	free(m);
	free(pages);
	return ret;
}

static void sim_unmap(struct rtr_xen *x, void *addr, uint32_t count)
{
	struct sim *s = S(x);
	struct mapping *m = forget(s, addr, false);

	if (!m)
		return;
	munmap((uint8_t *)m->addr - PAGE, (size_t)(m->count + 2) * PAGE);
	hv_lock(s->hv);
	for (uint32_t i = 0; i < m->count; i++) {
		struct grant *g = &s->hv->dom[m->dom].grant[m->refs[i]];

		if (g->in_use && g->mapped && --g->mapped == 0 && g->owner_pid == -1)
			memset(g, 0, sizeof(*g));
	}
	hv_unlock(s->hv);
	free(m);
}

/* ---- xenstore ----------------------------------------------------------- */

static bool valid_path_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '/' || c == '_' || c == '@';
}

/* Make @in absolute and check it as xenstored does. */
static int normalize(uint32_t self, const char *in, char *out, bool special_ok)
{
	size_t n;

	if (in[0] == '@') {
		if (!special_ok || strlen(in) >= XS_PATH)
			return -EINVAL;
		strcpy(out, in);
		return 0;
	}
	if (in[0] == '/')
		n = (size_t)snprintf(out, XS_PATH, "%s", in);
	else
		n = (size_t)snprintf(out, XS_PATH, "/local/domain/%u/%s", self, in);
	if (n >= XS_PATH)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!valid_path_char(out[i]) || (out[i] == '/' && out[i + 1] == '/'))
			return -EINVAL;
	if (n > 1 && out[n - 1] == '/')
		return -EINVAL;
	return 0;
}

static int find_node(struct hv *hv, const char *path)
{
	for (uint32_t i = 0; i < MAX_NODES; i++)
		if (hv->node[i].used && !strcmp(hv->node[i].path, path))
			return (int)i;
	return -1;
}

static int perm(const struct node *n, uint32_t dom)
{
	if (dom == 0 || n->owner == dom)
		return PERM_RW;
	for (uint32_t i = 0; i < n->nacl && i < 4; i++)
		if (n->acl_dom[i] == dom)
			return n->acl_perm[i];
	return n->other;
}

static void parent_of(const char *path, char *out)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash && slash != path ? (size_t)(slash - path) : 1;

	memcpy(out, path, n);
	out[n] = '\0';
}

/* The nearest node at or above @path, which decides who may create @path. */
static int nearest(struct hv *hv, const char *path)
{
	char p[XS_PATH];
	int n;

	strcpy(p, path);
	for (;;) {
		n = find_node(hv, p);
		if (n >= 0 || !strcmp(p, "/"))
			return n;
		parent_of(p, p);
	}
}

static bool under(const char *path, const char *top)
{
	size_t n = strlen(top);

	if (!strcmp(top, "/"))
		return path[0] == '/';
	return !strncmp(path, top, n) && (path[n] == '\0' || path[n] == '/');
}

static void fire(struct hv *hv, const char *path)
{
	for (uint32_t i = 0; i < MAX_WATCHES; i++) {
		struct watch *w = &hv->watch[i];
		struct xsh *h;
		int n;

		if (!w->used)
			continue;
		if (path[0] == '@' ? strcmp(path, w->path) : !under(path, w->path))
			continue;
		h = &hv->xsh[w->xsh];
		if (!h->pid)
			continue;
		/* A watcher hears of nodes it may read (or that are gone). */
		n = path[0] == '@' ? -1 : find_node(hv, path);
		if (n >= 0 && !(perm(&hv->node[n], h->dom) & PERM_R))
			continue;
		if (h->tail - h->head >= XSQ) {
			h->dropped++;
			continue;
		}
		snprintf(h->q[h->tail % XSQ].path, XS_PATH, "%s", path);
		snprintf(h->q[h->tail % XSQ].token, XS_TOKEN, "%s", w->token);
		h->tail++;
		__atomic_add_fetch(&h->seq, 1, __ATOMIC_RELEASE);
		rtr_futex_wake(&h->seq, INT_MAX);
	}
}

static int alloc_node(struct hv *hv)
{
	for (uint32_t i = 0; i < MAX_NODES; i++)
		if (!hv->node[i].used)
			return (int)i;
	return -1;
}

/* Create @path and any missing parent, inheriting permissions downwards. */
static int create_node(struct hv *hv, const char *path, uint32_t dom)
{
	char parent[XS_PATH];
	int p, n;

	n = find_node(hv, path);
	if (n >= 0)
		return n;
	parent_of(path, parent);
	p = strcmp(path, "/") ? create_node(hv, parent, dom) : -1;
	if (strcmp(path, "/") && p < 0)
		return -ENOSPC;
	n = alloc_node(hv);
	if (n < 0)
		return -ENOSPC;
	if (p >= 0)
		hv->node[n] = hv->node[p];
	else
		memset(&hv->node[n], 0, sizeof(hv->node[n]));
	hv->node[n].used = 1;
	if (dom != 0)
		hv->node[n].owner = (uint16_t)dom;
	hv->node[n].len = 0;
	hv->node[n].val[0] = '\0';
	snprintf(hv->node[n].path, XS_PATH, "%s", path);
	return n;
}

static int node_count_missing(struct hv *hv, const char *path)
{
	char p[XS_PATH];
	int missing = 0;

	strcpy(p, path);
	while (find_node(hv, p) < 0) {
		missing++;
		if (!strcmp(p, "/"))
			break;
		parent_of(p, p);
	}
	return missing;
}

static int free_nodes(struct hv *hv)
{
	int n = 0;

	for (uint32_t i = 0; i < MAX_NODES; i++)
		n += !hv->node[i].used;
	return n;
}

static int xs_write_locked(struct hv *hv, uint32_t dom, const char (*abs)[XS_PATH],
			   const char *const *vals, unsigned count)
{
	int need = 0;

	for (unsigned i = 0; i < count; i++) {
		int n = nearest(hv, abs[i]);

		if (strlen(vals[i]) >= XS_VAL)
			return -E2BIG;
		if (n < 0 || !(perm(&hv->node[n], dom) & PERM_W))
			return -EACCES;
		need += node_count_missing(hv, abs[i]);
	}
	if (need > free_nodes(hv))
		return -ENOSPC;	/* xenstored's quota answer */
	for (unsigned i = 0; i < count; i++) {
		int n = create_node(hv, abs[i], dom);

		if (n < 0)
			return n;
		hv->node[n].len = (uint32_t)strlen(vals[i]);
		memcpy(hv->node[n].val, vals[i], hv->node[n].len + 1);
		fire(hv, abs[i]);
	}
	return 0;
}

/*
 * Find @path (made absolute in @abs) for an access needing @need: the
 * node's index with the tables locked, or -errno and unlocked.
 */
static int lookup(struct sim *s, const char *path, char *abs, int need)
{
	int n = normalize(s->self, path, abs, false);

	if (n)
		return n;
	hv_lock(s->hv);
	n = find_node(s->hv, abs);
	if (n >= 0 && (perm(&s->hv->node[n], s->self) & need) != need)
		n = -EACCES;
	else if (n < 0)
		n = -ENOENT;
	if (n < 0)
		hv_unlock(s->hv);
	return n;
}

static int sim_xs_read(struct rtr_xen *x, const char *path, char *buf, size_t cap)
{
	struct sim *s = S(x);
	char abs[XS_PATH];
	int n = lookup(s, path, abs, PERM_R), ret;

	if (n < 0)
		return n;
	if (s->hv->node[n].len >= cap)
		ret = -E2BIG;
	else {
		memcpy(buf, s->hv->node[n].val, s->hv->node[n].len + 1);
		ret = (int)s->hv->node[n].len;
	}
	hv_unlock(s->hv);
	return ret;
}

static int sim_xs_write(struct rtr_xen *x, const char *const *paths, const char *const *vals,
			unsigned n)
{
	struct sim *s = S(x);
	char (*abs)[XS_PATH] = calloc(n ? n : 1, XS_PATH);
	int ret = abs ? 0 : -ENOMEM;

	for (unsigned i = 0; i < n && !ret; i++)
		ret = normalize(s->self, paths[i], abs[i], false);
	if (!ret) {
		hv_lock(s->hv);
		ret = xs_write_locked(s->hv, s->self, (const char (*)[XS_PATH])abs, vals, n);
		hv_unlock(s->hv);
	}
	free(abs);
	return ret;
}

static void rm_locked(struct hv *hv, const char *abs)
{
	for (uint32_t i = 0; i < MAX_NODES; i++)
		if (hv->node[i].used && under(hv->node[i].path, abs))
			hv->node[i].used = 0;
	fire(hv, abs);
}

static int sim_xs_rm(struct rtr_xen *x, const char *path)
{
	struct sim *s = S(x);
	char abs[XS_PATH];
	int n = lookup(s, path, abs, PERM_W);

	if (n < 0)
		return n;
	rm_locked(s->hv, abs);
	hv_unlock(s->hv);
	return 0;
}

static int sim_xs_list(struct rtr_xen *x, const char *path, char ***names, unsigned *count)
{
	struct sim *s = S(x);
	char abs[XS_PATH];
	size_t alen, bytes = 0;
	unsigned k = 0;
	char **v, *str;
	int n = lookup(s, path, abs, PERM_R);

	if (n < 0)
		return n;
	alen = strcmp(abs, "/") ? strlen(abs) : 0;
	for (uint32_t i = 0; i < MAX_NODES; i++) {
		const char *p = s->hv->node[i].path;

		if (s->hv->node[i].used && !strncmp(p, abs, alen) && p[alen] == '/' && p[alen + 1] &&
		    !strchr(p + alen + 1, '/')) {
			k++;
			bytes += strlen(p + alen + 1) + 1;
		}
	}
	v = malloc((k + 1) * sizeof(char *) + bytes);
	if (!v) {
		hv_unlock(s->hv);
		return -ENOMEM;
	}
	str = (char *)(v + k + 1);
	k = 0;
	for (uint32_t i = 0; i < MAX_NODES; i++) {
		const char *p = s->hv->node[i].path;

		if (s->hv->node[i].used && !strncmp(p, abs, alen) && p[alen] == '/' && p[alen + 1] &&
		    !strchr(p + alen + 1, '/')) {
			v[k++] = str;
			str = stpcpy(str, p + alen + 1) + 1;
		}
	}
	v[k] = NULL;
	hv_unlock(s->hv);
	*names = v;
	*count = k;
	return 0;
}

static int get_xsh(struct sim *s)
{
	return get_slot(s, &s->xsh, s->hv->xsh, MAX_XSH, sizeof(struct xsh));
}

static int sim_xs_watch(struct rtr_xen *x, const char *path, const char *token)
{
	struct sim *s = S(x);
	char abs[XS_PATH];
	int h = get_xsh(s), ret;

	if (h < 0)
		return h;
	ret = normalize(s->self, path, abs, true);
	if (ret)
		return ret;
	if (strlen(token) >= XS_TOKEN)
		return -EINVAL;
	hv_lock(s->hv);
	ret = -ENOSPC;
	for (uint32_t i = 0; i < MAX_WATCHES; i++) {
		struct watch *w = &s->hv->watch[i];
		struct xsh *q = &s->hv->xsh[h];

		if (w->used)
			continue;
		w->used = 1;
		w->xsh = h;
		strcpy(w->path, abs);
		strcpy(w->token, token);
		/* A new watch fires once at once, as xenstored's does. */
		if (q->tail - q->head < XSQ) {
			strcpy(q->q[q->tail % XSQ].path, abs);
			strcpy(q->q[q->tail % XSQ].token, token);
			q->tail++;
			__atomic_add_fetch(&q->seq, 1, __ATOMIC_RELEASE);
			rtr_futex_wake(&q->seq, INT_MAX);
		}
		ret = 0;
		break;
	}
	hv_unlock(s->hv);
	return ret;
}

static int sim_xs_unwatch(struct rtr_xen *x, const char *path, const char *token)
{
	struct sim *s = S(x);
	char abs[XS_PATH];
	int ret;

	if (s->xsh < 0)
		return -ENOENT;
	ret = normalize(s->self, path, abs, true);
	if (ret)
		return ret;
	ret = -ENOENT;
	hv_lock(s->hv);
	for (uint32_t i = 0; i < MAX_WATCHES; i++) {
		struct watch *w = &s->hv->watch[i];

		if (w->used && w->xsh == s->xsh && !strcmp(w->path, abs) && !strcmp(w->token, token)) {
			memset(w, 0, sizeof(*w));
			ret = 0;
			break;
		}
	}
	hv_unlock(s->hv);
	return ret;
}

static int sim_xs_wait_watch(struct rtr_xen *x, int timeout_ms, char *path, size_t cap)
{
	struct sim *s = S(x);
	uint64_t deadline = deadline_of(timeout_ms);
	int h = get_xsh(s);

	if (h < 0)
		return h;
	for (;;) {
		struct xsh *q = &s->hv->xsh[h];
		uint32_t seen;

		hv_lock(s->hv);
		if (q->head != q->tail) {
			snprintf(path, cap, "%s", q->q[q->head % XSQ].path);
			q->head++;
			hv_unlock(s->hv);
			return 1;
		}
		seen = __atomic_load_n(&q->seq, __ATOMIC_ACQUIRE);
		hv_unlock(s->hv);
		if (!slice_wait(&q->seq, seen, deadline))
			return 0;
	}
}

static int sim_domain_exists(struct rtr_xen *x, uint32_t domid)
{
	struct sim *s = S(x);
	int ret;

	if (domid >= MAX_DOMS)
		return 0;
	hv_lock(s->hv);
	ret = s->hv->dom[domid].exists ? 1 : 0;
	hv_unlock(s->hv);
	return ret;
}

/*
 * RINGTRACE_XENSIM_NOSTATE=1 plays a domain that may not ask the hypervisor
 * (no privcmd), so the callers' fallback runs in the tests too.
 */
static int sim_domain_state(struct rtr_xen *x, uint32_t domid)
{
	struct sim *s = S(x);
	const char *no = getenv("RINGTRACE_XENSIM_NOSTATE");
	int ret;

	if (no && *no && strcmp(no, "0"))
		return -EACCES;
	if (domid >= MAX_DOMS)
		return RTR_XEN_DOM_GONE;
	hv_lock(s->hv);
	if (!s->hv->dom[domid].exists)
		ret = RTR_XEN_DOM_GONE;
	else if (s->hv->dom[domid].crashed)
		ret = RTR_XEN_DOM_CRASHED;
	else if (s->hv->dom[domid].paused)
		ret = RTR_XEN_DOM_PAUSED;
	else
		ret = RTR_XEN_DOM_RUNNING;
	hv_unlock(s->hv);
	return ret;
}

static int sim_self(struct rtr_xen *x, uint32_t *domid)
{
	*domid = S(x)->self;
	return 0;
}

/* ---- open and close ----------------------------------------------------- */

static int sim_open(struct rtr_xen *x, char *err, size_t errlen)
{
	const char *dir = getenv("RINGTRACE_XENSIM"), *id = getenv("RINGTRACE_XENSIM_DOMID");
	struct sim *s = calloc(1, sizeof(*s));
	char *end;
	int ret;

	if (!s)
		return -ENOMEM;
	s->memfd = -1;
	s->evh = -1;
	s->xsh = -1;
	pthread_mutex_init(&s->mlock, NULL);
	snprintf(s->dir, sizeof(s->dir), "%s", dir);
	ret = hv_map(s->dir, &s->hv);
	if (ret) {
		rtr_errf(err, errlen, 0, "simulated Xen in %s: %s", s->dir,
			 ret == -EPROTO ? "not a simulation (run ringtrace-xensim init)"
					: strerror(-ret));
		goto fail;
	}
	s->self = 0;
	if (id && *id) {
		unsigned long v = strtoul(id, &end, 10);

		if (*end || v >= MAX_DOMS) {
			rtr_errf(err, errlen, 0,
				 "RINGTRACE_XENSIM_DOMID=%s: not a domain id (0-%u)", id,
				 MAX_DOMS - 1);
			ret = -EINVAL;
			goto fail_unmap;
		}
		s->self = (uint32_t)v;
	}
	if (!sim_domain_exists(&(struct rtr_xen){ .priv = s }, s->self)) {
		rtr_errf(err, errlen, 0, "simulated Xen in %s: domain %u does not exist", s->dir,
			 s->self);
		ret = -ESRCH;
		goto fail_unmap;
	}
	x->priv = s;
	return 0;
fail_unmap:
	hv_unmap(s->hv);
fail:
	pthread_mutex_destroy(&s->mlock);
	free(s);
	return ret;
}

static void sim_close(struct rtr_xen *x)
{
	struct sim *s = S(x);
	struct hv *hv = s->hv;

	while (s->maps) {
		struct mapping *m = s->maps;

		if (m->mine)
			sim_unshare(x, m->addr, m->count);
		else
			sim_unmap(x, m->addr, m->count);
	}
	hv_lock(hv);
	if (s->evh >= 0 && hv->evh[s->evh].pid == getpid())
		close_evh(hv, s->evh);
	if (s->xsh >= 0 && hv->xsh[s->xsh].pid == getpid()) {
		for (uint32_t w = 0; w < MAX_WATCHES; w++)
			if (hv->watch[w].used && hv->watch[w].xsh == s->xsh)
				memset(&hv->watch[w], 0, sizeof(hv->watch[w]));
		memset(&hv->xsh[s->xsh], 0, sizeof(hv->xsh[0]));
	}
	hv_unlock(hv);
	if (s->memfd >= 0)
		close(s->memfd);
	hv_unmap(hv);
	pthread_mutex_destroy(&s->mlock);
	free(s);
}

const struct rtr_xen_ops rtr_xen_sim_ops = {
	.name = "xensim",
	.open = sim_open,
	.close = sim_close,
	.self = sim_self,
	.share = sim_share,
	.share_notify = sim_share_notify,
	.unshare = sim_unshare,
	.map = sim_map,
	.unmap = sim_unmap,
	.evtchn_alloc = sim_evtchn_alloc,
	.evtchn_bind = sim_evtchn_bind,
	.evtchn_unbind = sim_evtchn_unbind,
	.notify = sim_notify,
	.wait = sim_wait,
	.xs_read = sim_xs_read,
	.xs_write = sim_xs_write,
	.xs_rm = sim_xs_rm,
	.xs_list = sim_xs_list,
	.xs_watch = sim_xs_watch,
	.xs_unwatch = sim_xs_unwatch,
	.xs_wait_watch = sim_xs_wait_watch,
	.domain_exists = sim_domain_exists,
	.domain_state = sim_domain_state,
};

/* ---- the toolstack's side (xensim.h) ------------------------------------ */

static void set_node(struct hv *hv, const char *path, const char *val, uint16_t owner,
		     uint8_t other, uint16_t reader)
{
	int n = create_node(hv, path, 0);

	if (n < 0)
		return;
	hv->node[n].owner = owner;
	hv->node[n].other = other;
	hv->node[n].nacl = reader ? 1 : 0;
	hv->node[n].acl_dom[0] = reader;
	hv->node[n].acl_perm[0] = PERM_R;
	hv->node[n].len = (uint32_t)strlen(val);
	memcpy(hv->node[n].val, val, hv->node[n].len + 1);
	fire(hv, path);
}

static void init_dom(struct hv *hv, uint32_t d, const char *name)
{
	struct dom *dm = &hv->dom[d];
	char path[XS_PATH], num[16];

	memset(dm, 0, sizeof(*dm));
	for (uint32_t p = 0; p < MAX_PORTS; p++)
		dm->port[p].evh = -1;
	dm->exists = 1;
	dm->next_ref = FIRST_REF;
	snprintf(dm->name, sizeof(dm->name), "%s", name);
	snprintf(num, sizeof(num), "%u", d);
	/* As xl: the home is dom0's and readable by the domain; data/ is the domain's. */
	snprintf(path, sizeof(path), "/local/domain/%u", d);
	set_node(hv, path, "", 0, PERM_NONE, (uint16_t)d);
	snprintf(path, sizeof(path), "/local/domain/%u/name", d);
	set_node(hv, path, name, 0, PERM_NONE, (uint16_t)d);
	snprintf(path, sizeof(path), "/local/domain/%u/domid", d);
	set_node(hv, path, num, 0, PERM_NONE, (uint16_t)d);
	snprintf(path, sizeof(path), "/local/domain/%u/data", d);
	set_node(hv, path, "", (uint16_t)d, PERM_NONE, 0);
}

int rtr_xensim_init(const char *dir)
{
	pthread_mutexattr_t a;
	char path[PATH_MAX];
	struct hv *hv;
	int fd;

	if (snprintf(path, sizeof(path), "%s/hv", dir) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, sizeof(struct hv)) < 0) {
		int ret = -errno;

		close(fd);
		unlink(path);
		return ret;
	}
	hv = mmap(NULL, sizeof(*hv), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (hv == MAP_FAILED)
		return -errno;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	pthread_mutex_init(&hv->lock, &a);
	pthread_mutexattr_destroy(&a);
	hv->size = sizeof(*hv);
	set_node(hv, "/local/domain", "", 0, PERM_NONE, 0);
	init_dom(hv, 0, "Domain-0");
	__atomic_store_n(&hv->magic, SIM_MAGIC, __ATOMIC_RELEASE);
	hv_unmap(hv);
	return 0;
}

int rtr_xensim_create(const char *dir, const char *name, uint32_t *domid)
{
	char path[PATH_MAX];
	struct hv *hv;
	int ret = hv_map(dir, &hv);

	if (ret)
		return ret;
	hv_lock(hv);
	ret = -ENOSPC;
	for (uint32_t d = 1; d < MAX_DOMS; d++) {
		if (hv->dom[d].exists)
			continue;
		if (!mem_path(dir, d, path, sizeof(path)))
			unlink(path);	/* a destroyed domain's pages: mappings keep them */
		init_dom(hv, d, name);
		fire(hv, "@introduceDomain");
		*domid = d;
		ret = 0;
		break;
	}
	hv_unlock(hv);
	hv_unmap(hv);
	return ret;
}

/* Set the flag at @off in struct dom of domain @domid (not dom0's). */
static int dom_flag(const char *dir, uint32_t domid, size_t off, uint32_t v)
{
	struct hv *hv;
	int ret = hv_map(dir, &hv);

	if (ret)
		return ret;
	hv_lock(hv);
	if (domid == 0 || domid >= MAX_DOMS || !hv->dom[domid].exists)
		ret = -ESRCH;
	else
		*(uint32_t *)((char *)&hv->dom[domid] + off) = v;
	hv_unlock(hv);
	hv_unmap(hv);
	return ret;
}

int rtr_xensim_crash(const char *dir, uint32_t domid)
{
	return dom_flag(dir, domid, offsetof(struct dom, crashed), 1);
}

int rtr_xensim_pause(const char *dir, uint32_t domid, bool paused)
{
	return dom_flag(dir, domid, offsetof(struct dom, paused), paused);
}

/* Every thread of @pid is stopped (state T or t in /proc/PID/task/TID/stat). */
static bool all_stopped(pid_t pid)
{
	char path[64], line[512];
	struct dirent *d;
	bool all = true;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return false;
	while (all && (d = readdir(dir)) != NULL) {
		FILE *f;
		char *p;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.20s/stat", (int)pid, d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;	/* the thread ended */
		p = fgets(line, sizeof(line), f) ? strrchr(line, ')') : NULL;
		all = p && p[1] == ' ' && (p[2] == 'T' || p[2] == 't');
		fclose(f);
	}
	closedir(dir);
	return all;
}

int rtr_xensim_stop(const char *dir, pid_t pid)
{
	struct timespec t0, t;
	struct hv *hv;
	int ret = hv_map(dir, &hv);

	if (ret)
		return ret;
	hv_lock(hv);
	if (kill(pid, SIGSTOP)) {
		ret = -errno;
	} else {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		while (!all_stopped(pid)) {
			clock_gettime(CLOCK_MONOTONIC, &t);
			if (t.tv_sec - t0.tv_sec > 5) {
				kill(pid, SIGCONT);
				ret = -ETIMEDOUT;
				break;
			}
			usleep(1000);
		}
	}
	hv_unlock(hv);
	hv_unmap(hv);
	return ret;
}

int rtr_xensim_destroy(const char *dir, uint32_t domid)
{
	char path[PATH_MAX];
	struct hv *hv;
	int ret = hv_map(dir, &hv);

	if (ret)
		return ret;
	hv_lock(hv);
	if (domid == 0 || domid >= MAX_DOMS || !hv->dom[domid].exists) {
		ret = -ESRCH;
	} else {
		for (uint32_t p = 1; p < MAX_PORTS; p++)
			if (hv->dom[domid].port[p].state != P_FREE)
				close_port(hv, domid, p);
		for (uint32_t i = 0; i < MAX_EVH; i++)
			if (hv->evh[i].pid && hv->evh[i].dom == domid)
				memset(&hv->evh[i], 0, sizeof(hv->evh[i]));
		for (uint32_t i = 0; i < MAX_UNOTIFY; i++)
			if (hv->un[i].dom == domid)
				hv->un[i].used = 0;
		hv->dom[domid].exists = 0;
		snprintf(path, sizeof(path), "/local/domain/%u", domid);
		rm_locked(hv, path);
		fire(hv, "@releaseDomain");
		if (!mem_path(dir, domid, path, sizeof(path)))
			unlink(path);
	}
	hv_unlock(hv);
	hv_unmap(hv);
	return ret;
}

int rtr_xensim_stats(const char *dir, uint32_t domid, struct rtr_xensim_stats *st)
{
	struct hv *hv;
	int ret = hv_map(dir, &hv);

	if (ret)
		return ret;
	if (domid >= MAX_DOMS) {
		hv_unmap(hv);
		return -ESRCH;
	}
	hv_lock(hv);
	st->sent = hv->dom[domid].sent;
	st->delivered = hv->dom[domid].delivered;
	st->coalesced = hv->dom[domid].coalesced;
	hv_unlock(hv);
	hv_unmap(hv);
	return 0;
}
