// SPDX-License-Identifier: MIT
/*
 * tests/xen/test_xen.c - Xen guests on the simulated hypervisor
 * (platform/xensim), with the guest and dom0 in separate processes.
 *
 * xensim/: the simulation keeps Xen's semantics: read-only grants are
 *   read-only in dom0, a dead process's grants go unless its domain
 *   crashed, event channels are edge-triggered with pending and mask bits
 *   and a pending bit at bind time, a process's exit closes its ports and
 *   fires its unmap notifications, xenstore has paths, permissions and
 *   watches.
 * xen/: the guest (ringtrace-test-emit with RINGTRACE_XEN=1, every event
 *   checkable) traces while `ringtrace consume --xen-domain NAME` drains it in
 *   dom0;
 *   every event's content and every loss is checked, babeltrace2 reads the
 *   output; notifications are counted; a killed guest, a crashed one
 *   (recover), a consumer that stops and comes back, and a hostile guest.
 *
 * The programs are the ones built beside this runner (the ASan runner's are
 * ASan builds).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <ringtrace/consumer.h>
#include <ringtrace/ringtrace.h>
#include <ringtrace/xen.h>
#include "platform/platform.h"
#include "platform/xen.h"
#include "platform/xensim/xensim.h"
#include "ringbuf/ring.h"
#include "tests/helpers.h"
#include "tests/xen/verify.h"

/* ---- the simulation ------------------------------------------------------ */

static char sim[64];

static void sim_init(void)
{
	snprintf(sim, sizeof(sim), "/dev/shm/rtr-xensim-XXXXXX");
	cr_assert_not_null(mkdtemp(sim));
	cr_assert_eq(rtr_xensim_init(sim), 0);
	setenv("RINGTRACE_XENSIM", sim, 1);
	setenv("RINGTRACE_XENSIM_DOMID", "0", 1);
}

static void sim_fini(void)
{
	char cmd[128];
	int st;

	if (!sim[0])
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", sim);
	free(t_sh(cmd, &st));
}

TestSuite(xensim, .init = sim_init, .fini = sim_fini, .timeout = 60);
TestSuite(xen, .init = sim_init, .fini = sim_fini, .timeout = 300);

static uint32_t mkdom(const char *name)
{
	uint32_t d;

	cr_assert_eq(rtr_xensim_create(sim, name, &d), 0);
	return d;
}

/* A handle as domain @d (the simulation reads the domain at open). */
static struct rtr_xen *as(uint32_t d)
{
	struct rtr_xen *x;
	char id[16], err[256];

	snprintf(id, sizeof(id), "%u", d);
	setenv("RINGTRACE_XENSIM_DOMID", id, 1);
	cr_assert_eq(rtr_xen_open(&x, err, sizeof(err)), 0, "%s", err);
	setenv("RINGTRACE_XENSIM_DOMID", "0", 1);
	return x;
}

static struct rtr_xensim_stats stats(uint32_t d)
{
	struct rtr_xensim_stats st;

	cr_assert_eq(rtr_xensim_stats(sim, d, &st), 0);
	return st;
}

static __attribute__((unused)) double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Run @fn in a child; return the signal that killed it (0: it exited). */
static int dies_of(void (*fn)(void *), void *arg)
{
	pid_t pid = fork();
	int st;

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		fn(arg);
		_exit(0);
	}
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	return WIFSIGNALED(st) ? WTERMSIG(st) : 0;
}

/* The default action, even under ASan (which would catch the fault). */
static void write_byte(void *p)
{
	signal(SIGSEGV, SIG_DFL);
	*(volatile uint8_t *)p = 1;
}

static void read_byte(void *p)
{
	signal(SIGSEGV, SIG_DFL);
	(void)*(volatile uint8_t *)p;
}

/* ---- the simulated hypervisor's semantics ----------------------------------- */

Test(xensim, read_only_grants_are_read_only_and_only_for_their_grantee)
{
	uint32_t g = mkdom("g"), o = mkdom("other"), refs[3], wref, oref;
	struct rtr_xen *gx = as(g), *d0 = as(0);
	uint8_t *pages, *w, *ow, *m;
	void *p;

	cr_assert_eq(rtr_xen_share(gx, 0, 3, false, refs, &p), 0);
	pages = p;
	for (int i = 0; i < 3 * 4096; i++)
		pages[i] = (uint8_t)(i * 7);
	cr_assert_geq(refs[0], 8, "references 0-7 are Xen's");

	cr_assert_eq(rtr_xen_map(d0, g, 3, refs, false, &p), 0);
	m = p;
	cr_assert_eq(memcmp(m, pages, 3 * 4096), 0, "dom0 sees the guest's bytes");
	pages[5000] = 0xAB;
	cr_assert_eq(m[5000], 0xAB, "the same memory, not a copy");
	cr_assert_eq(dies_of(write_byte, m + 4096), SIGSEGV, "a read-only grant is read-only");
	cr_assert_eq(mprotect(m, 4096, PROT_READ | PROT_WRITE), -1, "and stays so");
	cr_assert_eq(dies_of(read_byte, m - 1), SIGSEGV, "a guard page before the mapping");
	cr_assert_eq(dies_of(read_byte, m + 3 * 4096), SIGSEGV, "and after it");
	rtr_xen_unmap(d0, m, 3);

	cr_assert_eq(rtr_xen_map(d0, g, 1, refs, true, &p), -EPERM, "no writable map of it");
	cr_assert_eq(rtr_xen_map(d0, g, 1, (uint32_t[]){ 3 }, false, &p), -EINVAL);
	cr_assert_eq(rtr_xen_map(d0, g, 1, (uint32_t[]){ refs[2] + 100 }, false, &p), -EINVAL,
		     "a reference never granted");
	cr_assert_eq(rtr_xen_map(d0, g, 1, (uint32_t[]){ UINT32_MAX }, false, &p), -EINVAL);
	cr_assert_eq(rtr_xen_share(gx, o, 1, false, &oref, &p), 0);
	cr_assert_eq(rtr_xen_map(d0, g, 1, &oref, false, &p), -EINVAL,
		     "a grant to another domain is not dom0's");

	cr_assert_eq(rtr_xen_share(gx, 0, 1, true, &wref, &p), 0);
	w = p;
	cr_assert_eq(rtr_xen_map(d0, g, 1, &wref, true, &p), 0);
	ow = p;
	ow[10] = 42;
	cr_assert_eq(w[10], 42, "a writable grant is writable");
	rtr_xen_unmap(d0, ow, 1);

	rtr_xen_unshare(gx, pages, 3);
	cr_assert_eq(rtr_xen_map(d0, g, 1, refs, false, &p), -EINVAL, "unshared: gone");
	rtr_xen_close(gx);
	rtr_xen_close(d0);
}

struct shared_ref {
	uint32_t dom;
	int go;		/* read end: the parent says "die" */
	int out;	/* write end: the reference */
};

/* A child process of domain @dom shares a page and dies without unsharing. */
static void share_and_die(void *arg)
{
	struct shared_ref *s = arg;
	struct rtr_xen *x = as(s->dom);
	uint32_t ref;
	void *p;
	char c;

	if (rtr_xen_share(x, 0, 1, false, &ref, &p))
		_exit(3);
	memset(p, 0x5A, 4096);
	if (write(s->out, &ref, sizeof(ref)) != sizeof(ref) || read(s->go, &c, 1) != 1)
		_exit(3);
	_exit(0);
}

Test(xensim, a_dead_processs_grants_go_unless_its_domain_crashed)
{
	uint32_t g = mkdom("g");
	struct rtr_xen *d0 = as(0);

	/* 0: plain death; 1: the domain crashed first; 2: dom0 mapped it first */
	for (int how = 0; how < 3; how++) {
		int a[2], b[2], st;
		struct shared_ref s;
		uint32_t ref;
		void *p = NULL;
		pid_t pid;

		cr_assert_eq(pipe(a), 0);
		cr_assert_eq(pipe(b), 0);
		s = (struct shared_ref){ .dom = g, .go = a[0], .out = b[1] };
		pid = fork();
		cr_assert_geq(pid, 0);
		if (pid == 0)
			share_and_die(&s);
		cr_assert_eq(read(b[0], &ref, sizeof(ref)), sizeof(ref));
		if (how == 1)
			cr_assert_eq(rtr_xensim_crash(sim, g), 0);
		if (how == 2)
			cr_assert_eq(rtr_xen_map(d0, g, 1, &ref, false, &p), 0);
		cr_assert_eq(write(a[1], "x", 1), 1);
		cr_assert_eq(waitpid(pid, &st, 0), pid);
		cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		if (how == 0) {
			cr_assert_eq(rtr_xen_map(d0, g, 1, &ref, false, &p), -EINVAL,
				     "gntalloc ends a dead process's grants");
		} else {
			if (how == 1)
				cr_assert_eq(rtr_xen_map(d0, g, 1, &ref, false, &p), 0,
					     "a crashed domain's grants stay mappable");
			cr_assert_eq(((uint8_t *)p)[4095], 0x5A, "and hold what it wrote");
			rtr_xen_unmap(d0, p, 1);
		}
		close(a[0]);
		close(a[1]);
		close(b[0]);
		close(b[1]);
		if (how == 1) {
			cr_assert_eq(rtr_xensim_destroy(sim, g), 0);
			g = mkdom("g");
		}
	}
	rtr_xen_close(d0);
}

Test(xensim, event_channels_are_edge_triggered_and_pending_at_bind)
{
	uint32_t g = mkdom("g"), gp, dp, port;
	struct rtr_xen *gx = as(g), *d0 = as(0);
	struct rtr_xensim_stats st;

	cr_assert_eq(rtr_xen_evtchn_alloc(gx, 0, &gp), 0);
	cr_assert_eq(rtr_xen_notify(gx, gp), 0, "unbound: the event is dropped");
	cr_assert_eq(rtr_xen_evtchn_bind(d0, g, gp + 1, &dp), -EINVAL, "no such unbound port");
	cr_assert_eq(rtr_xen_evtchn_bind(d0, g, gp, &dp), 0);
	cr_assert_eq(rtr_xen_wait(d0, 1000, &port), 1, "Xen marks the port pending at bind");
	cr_assert_eq(port, dp);
	cr_assert_eq(rtr_xen_wait(d0, 0, &port), 0, "once");

	/*
	 * Edge-triggered: the first send is delivered and leaves the port
	 * masked until taken; the second finds it masked and sets it pending;
	 * the third finds it pending and coalesces.  The wait's unmask brings
	 * the pending one: two events for three sends.
	 */
	st = stats(g);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(rtr_xen_notify(gx, gp), 0);
	cr_assert_eq(rtr_xen_wait(d0, 1000, &port), 1);
	cr_assert_eq(rtr_xen_wait(d0, 1000, &port), 1, "the pending one, after the unmask");
	cr_assert_eq(rtr_xen_wait(d0, 0, &port), 0, "and no more");
	cr_assert_eq(stats(g).sent - st.sent, 3);
	cr_assert_eq(stats(g).coalesced - st.coalesced, 1);
	cr_assert_eq(stats(0).delivered, 3, "bind-time + 2");

	/* Both ways; only one's own ports. */
	cr_assert_eq(rtr_xen_notify(d0, dp), 0);
	cr_assert_eq(rtr_xen_wait(gx, 1000, &port), 1);
	cr_assert_eq(port, gp);
	cr_assert_eq(rtr_xen_notify(d0, dp + 5), -EINVAL, "not a port of dom0's");

	/* Closing one end leaves the other unbound, bindable again. */
	cr_assert_eq(rtr_xen_evtchn_unbind(d0, dp), 0);
	cr_assert_eq(rtr_xen_notify(gx, gp), 0);
	cr_assert_eq(rtr_xen_wait(d0, 100, &port), 0, "nothing reaches a closed port");
	cr_assert_eq(rtr_xen_evtchn_bind(d0, g, gp, &dp), 0);
	cr_assert_eq(rtr_xen_wait(d0, 1000, &port), 1, "pending at bind again");
	rtr_xen_close(gx);
	rtr_xen_close(d0);
}

struct notify_child {
	uint32_t dom;
	uint32_t port;
	uint32_t ref;
	int go;		/* read end: the parent says "die" */
	int out;	/* write end: port and ref */
};

/* A process that shares a page with an unmap notification, then dies. */
static void notify_then_die(void *arg)
{
	struct notify_child *n = arg;
	struct rtr_xen *x = as(n->dom);
	void *p;
	char c;

	if (rtr_xen_evtchn_alloc(x, 0, &n->port) ||
	    rtr_xen_share_notify(x, 0, true, 100, n->port, &n->ref, &p))
		_exit(3);
	((uint8_t *)p)[100] = 1;
	if (write(n->out, n, sizeof(*n)) != sizeof(*n) || read(n->go, &c, 1) != 1)
		_exit(3);
	_exit(0);	/* no unshare, no close: the kernel's exit does it */
}

Test(xensim, a_process_exit_fires_its_unmap_notification_unless_the_domain_crashed)
{
	for (int crash = 0; crash < 2; crash++) {
		uint32_t g = mkdom(crash ? "crashes" : "exits"), dp, port;
		struct rtr_xen *d0 = as(0);
		struct notify_child n = { .dom = g };
		int a[2], b[2], st;
		uint8_t *page;
		pid_t pid;
		void *p;

		cr_assert_eq(pipe(a), 0);
		cr_assert_eq(pipe(b), 0);
		n.go = a[0];
		n.out = b[1];
		pid = fork();
		cr_assert_geq(pid, 0);
		if (pid == 0)
			notify_then_die(&n);
		cr_assert_eq(read(b[0], &n, sizeof(n)), sizeof(n));
		cr_assert_eq(rtr_xen_evtchn_bind(d0, g, n.port, &dp), 0);
		cr_assert_eq(rtr_xen_map(d0, g, 1, &n.ref, true, &p), 0);
		page = p;
		cr_assert_eq(page[100], 1);
		cr_assert_eq(rtr_xen_wait(d0, 1000, &port), 1, "the bind-time event");
		if (crash)
			cr_assert_eq(rtr_xensim_crash(sim, g), 0);
		cr_assert_eq(write(a[1], "x", 1), 1);
		cr_assert_eq(waitpid(pid, &st, 0), pid);
		if (crash) {
			cr_assert_eq(rtr_xen_wait(d0, 300, &port), 0, "a crashed kernel sends nothing");
			cr_assert_eq(page[100], 1);
		} else {
			cr_assert_eq(rtr_xen_wait(d0, 2000, &port), 1, "the unmap notification");
			cr_assert_eq(page[100], 0, "its byte zeroed");
			cr_assert_eq(rtr_xen_notify(d0, dp), 0, "the guest's end closed: dropped");
		}
		rtr_xen_unmap(d0, page, 1);
		rtr_xen_close(d0);
		close(a[0]);
		close(a[1]);
		close(b[0]);
		close(b[1]);
	}
}

Test(xensim, xenstore_has_paths_permissions_and_watches)
{
	uint32_t g = mkdom("guest"), o = mkdom("other"), id;
	struct rtr_xen *gx = as(g), *ox = as(o), *d0 = as(0);
	char buf[64], path[64], err[200];
	const char *p1[] = { "data/x" }, *v1[] = { "1" };
	const char *p2[] = { "data/ok", "name" }, *v2[] = { "a", "b" };
	char **names;
	unsigned n;

	cr_assert_eq(rtr_xs_write(gx, p1, v1, 1), 0, "relative to the domain's home");
	snprintf(path, sizeof(path), "/local/domain/%u/data/x", g);
	cr_assert_eq(rtr_xs_read(d0, path, buf, sizeof(buf)), 1);
	cr_assert_str_eq(buf, "1");
	cr_assert_eq(rtr_xs_read(gx, "name", buf, sizeof(buf)), 5, "its name, readable");
	cr_assert_eq(rtr_xs_read(gx, "name", buf, 3), -E2BIG);
	cr_assert_eq(rtr_xs_write(gx, (const char *[]){ "name" }, (const char *[]){ "evil" }, 1),
		     -EACCES, "but not its to write");
	cr_assert_eq(rtr_xs_read(ox, path, buf, sizeof(buf)), -EACCES, "another guest's key");
	snprintf(path, sizeof(path), "/local/domain/%u/data/y", o);
	cr_assert_eq(rtr_xs_write(gx, (const char *[]){ path }, v1, 1), -EACCES);
	cr_assert_eq(rtr_xs_write(gx, p2, v2, 2), -EACCES, "all or nothing");
	cr_assert_eq(rtr_xs_read(gx, "data/ok", buf, sizeof(buf)), -ENOENT, "nothing");
	cr_assert_eq(rtr_xs_read(gx, "data/a b", buf, sizeof(buf)), -EINVAL);
	cr_assert_eq(rtr_xs_read(gx, "data//x", buf, sizeof(buf)), -EINVAL);
	cr_assert_eq(rtr_xs_read(gx, "data/x/", buf, sizeof(buf)), -EINVAL);

	/* Watches fire once when set, then for each change at or below the path. */
	snprintf(path, sizeof(path), "/local/domain/%u/data", g);
	cr_assert_eq(rtr_xs_watch(d0, path, "tok"), 0);
	cr_assert_eq(rtr_xs_wait_watch(d0, 1000, buf, sizeof(buf)), 1);
	cr_assert_str_eq(buf, path);
	cr_assert_eq(rtr_xs_wait_watch(d0, 50, buf, sizeof(buf)), 0);
	cr_assert_eq(rtr_xs_write(gx, (const char *[]){ "data/x/y" }, v1, 1), 0);
	cr_assert_eq(rtr_xs_wait_watch(d0, 1000, buf, sizeof(buf)), 1);
	cr_assert_eq(strcmp(buf + strlen(path), "/x/y"), 0, "%s", buf);
	snprintf(path, sizeof(path), "/local/domain/%u/datum", g);
	cr_assert_eq(rtr_xs_write(d0, (const char *[]){ path }, v1, 1), 0);
	cr_assert_eq(rtr_xs_wait_watch(d0, 50, buf, sizeof(buf)), 0, "a sibling is not below");
	snprintf(path, sizeof(path), "/local/domain/%u", g);
	cr_assert_eq(rtr_xs_watch(ox, path, "spy"), 0);
	cr_assert_eq(rtr_xs_wait_watch(ox, 1000, buf, sizeof(buf)), 1, "the first event");
	cr_assert_eq(rtr_xs_write(gx, (const char *[]){ "data/z" }, v1, 1), 0);
	cr_assert_eq(rtr_xs_wait_watch(ox, 100, buf, sizeof(buf)), 0, "no news of what it can't read");
	cr_assert_eq(rtr_xs_wait_watch(d0, 1000, buf, sizeof(buf)), 1);
	cr_assert_eq(rtr_xs_rm(gx, "data/x"), 0);
	cr_assert_eq(rtr_xs_wait_watch(d0, 1000, buf, sizeof(buf)), 1, "a removal fires");
	cr_assert_eq(rtr_xs_read(gx, "data/x/y", buf, sizeof(buf)), -ENOENT, "with its subtree");
	snprintf(path, sizeof(path), "/local/domain/%u/data", g);
	cr_assert_eq(rtr_xs_list(d0, path, &names, &n), 0);
	cr_assert_eq(n, 1);
	cr_assert_str_eq(names[0], "z");
	free(names);

	/* Finding a domain, strictly. */
	cr_assert_eq(rtr_xen_find_domain(d0, "guest", &id, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(id, g);
	snprintf(buf, sizeof(buf), "%u", o);
	cr_assert_eq(rtr_xen_find_domain(d0, buf, &id, err, sizeof(err)), 0);
	cr_assert_eq(id, o);
	cr_assert_eq(rtr_xen_find_domain(d0, "nobody", &id, err, sizeof(err)), -ENOENT);
	cr_assert_eq(rtr_xen_find_domain(d0, "7", &id, err, sizeof(err)), -ENOENT);
	mkdom("guest");
	cr_assert_eq(rtr_xen_find_domain(d0, "guest", &id, err, sizeof(err)), -EEXIST);
	cr_assert_eq(rtr_xs_write(gx, (const char *[]){ "data/n" }, (const char *[]){ "12a" }, 1), 0);
	cr_assert_eq(rtr_xs_read_u32(gx, "data/n", 100, &id), -EINVAL);
	cr_assert_eq(rtr_xs_write(gx, (const char *[]){ "data/n" }, (const char *[]){ "101" }, 1), 0);
	cr_assert_eq(rtr_xs_read_u32(gx, "data/n", 100, &id), -ERANGE);
	cr_assert_eq(rtr_xs_read_u32(gx, "data/n", 101, &id), 0);
	cr_assert_eq(id, 101);
	rtr_xen_close(gx);
	rtr_xen_close(ox);
	rtr_xen_close(d0);
}

/* ---- guest and dom0 as processes ------------------------------------------ */

/*
 * "@dir/@name" in a buffer of its own for the rest of the test (a test
 * names a few dozen files at most).  The buffers are never reused: a loop
 * that named a file on each turn once wrapped around and turned the
 * hostile test's log into the path of the ringtrace binary, which the next
 * turn unlinked.  Loops name their files in buffers of their own.
 */
static char *path_in(const char *dir, const char *name)
{
	static char pool[128][PATH_MAX];
	static unsigned next;

	cr_assert_lt(next, 128, "path_in(): more than 128 names in one test");
	snprintf(pool[next], PATH_MAX, "%s/%s", dir, name);
	return pool[next++];
}

static char *prog(const char *name)
{
	return path_in(t_bindir(), name);
}

/*
 * Start @argv as domain @dom (-1: leave the environment as it is) with
 * the extra variables @env (NULL-ended), its output and errors into @log.
 */
static pid_t spawn(int dom, const char *const env[], const char *log, char *const argv[])
{
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);
		char id[16];

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		if (dom >= 0) {
			snprintf(id, sizeof(id), "%d", dom);
			setenv("RINGTRACE_XENSIM_DOMID", id, 1);
		}
		for (int i = 0; env && env[i]; i++)
			putenv((char *)env[i]);
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

static char *slurp(const char *path)
{
	char cmd[PATH_MAX + 16];
	int st;

	snprintf(cmd, sizeof(cmd), "cat '%s'", path);
	return t_sh(cmd, &st);
}

static void expect_ok(int st, const char *what, const char *log)
{
	char *text = slurp(log);

	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: status 0x%x\n%s", what, st, text);
	free(text);
}

/* No crash, no sanitizer report: 0, or 1 with a message. */
static __attribute__((unused)) void survived(int st, const char *what, const char *log)
{
	char *text = slurp(log);

	cr_assert(WIFEXITED(st), "%s crashed (signal %d):\n%s", what,
		  WIFSIGNALED(st) ? WTERMSIG(st) : 0, text);
	cr_assert(WEXITSTATUS(st) <= 1, "%s: exit %d\n%s", what, WEXITSTATUS(st), text);
	if (WEXITSTATUS(st) == 1)
		cr_expect(strlen(text) > 0, "%s failed without a word", what);
	cr_assert_null(strstr(text, "AddressSanitizer"), "%s:\n%s", what, text);
	cr_assert_null(strstr(text, "runtime error"), "%s:\n%s", what, text);
	free(text);
}

/* Until the guest @dom has published its region (the guest side is up). */
static void wait_published(uint32_t dom, double secs)
{
	struct rtr_xen *d0 = as(0);
	char path[96], buf[32];
	double t0 = now();

	snprintf(path, sizeof(path), "/local/domain/%u/" RTR_XEN_XS_DIR "/ring-ref", dom);
	while (rtr_xs_read(d0, path, buf, sizeof(buf)) < 0) {
		cr_assert_lt(now() - t0, secs, "domain %u never published its region", dom);
		usleep(10000);
	}
	rtr_xen_close(d0);
}

static void touch(const char *dir, const char *name)
{
	char p[PATH_MAX];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	fd = open(p, O_WRONLY | O_CREAT, 0600);
	cr_assert_geq(fd, 0, "%s", p);
	close(fd);
}

static void wait_file(const char *dir, const char *name)
{
	char p[PATH_MAX];
	double t0 = now();

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	while (access(p, F_OK)) {
		cr_assert_lt(now() - t0, 60, "no %s", p);
		usleep(10000);
	}
}

/* The test's directory (its own buffer: path_in()'s are reused). */
static char *workdir(void)
{
	static char d[PATH_MAX];

	snprintf(d, sizeof(d), "%s/work", sim);
	cr_assert_eq(mkdir(d, 0700), 0);
	return d;
}

/* `ringtrace CMD --xen-domain NAME -o OUT ARGS...` in dom0, in the background. */
static pid_t dom0_cmd(const char *cmd, const char *name, const char *out, const char *log,
		      const char *extra)
{
	char rt[PATH_MAX];

	snprintf(rt, sizeof(rt), "%s/ringtrace", t_bindir());
	return spawn(0, NULL, log, (char *const[]){ rt, (char *)cmd, "--xen-domain", (char *)name,
						    "-o", (char *)out,
						    (char *)(extra ? extra : "--force"), NULL });
}

/* `ringtrace consume --xen-domain NAME`, once it has attached (its first line). */
static pid_t start_consume(const char *name, const char *out, const char *log)
{
	pid_t pid = dom0_cmd("consume", name, out, log, NULL);
	double t0 = now();

	for (;;) {
		char *text = slurp(log);
		bool up = strstr(text, "stop with Ctrl-C") != NULL;

		free(text);
		if (up)
			return pid;
		if (waitpid(pid, NULL, WNOHANG) == pid) {
			text = slurp(log);
			cr_assert_fail("consume ended before attaching:\n%s", text);
		}
		cr_assert_lt(now() - t0, 20, "consume never attached");
		usleep(20000);
	}
}

/*
 * The guest's events, all accounted for: in discard mode each one of the
 * @threads x @events is in the trace or counted lost, exactly.
 */
static void expect_every_event(const struct xv *v, uint64_t total)
{
	cr_expect_eq(v->all.present + v->all.lost_events, total,
		     "%" PRIu64 " events in the trace + %" PRIu64 " counted lost != %" PRIu64
		     " emitted", v->all.present, v->all.lost_events, total);
	cr_expect_eq(v->all.lost_packets, 0, "discard mode loses events, not packets");
}

/*
 * Several guest threads at full speed while dom0 consumes: every event's
 * content checked, losses exact, babeltrace2 reads the output, and at most
 * one notification per completed packet.
 */
Test(xen, dom0_consumes_a_guest_tracing_at_full_speed)
{
	uint32_t g = mkdom("busy");
	char *w = workdir(), *out = path_in(w, "trace"), *glog = path_in(w, "guest.log");
	char *clog = path_in(w, "consume.log"), *emit = prog("ringtrace-test-emit");
	const uint32_t threads = 4;
	const uint64_t events = 60000;
	struct rtr_xensim_stats gs, ds;
	struct xv_counts one;
	struct xv v;
	pid_t gp, cp;

	gp = spawn((int)g, (const char *[]){ "RINGTRACE_XEN=1", "RINGTRACE_PACKET_SIZE=16k",
					     NULL },
		   glog, (char *const[]){ emit, "--threads", "4", "--events", "60000", "--sync", w,
					  NULL });
	wait_published(g, 20);
	cp = start_consume("busy", out, clog);
	touch(w, "go.0");
	expect_ok(t_wait_exit(gp, 120, "the guest"), "the guest", glog);
	expect_ok(t_wait_exit(cp, 30, "consume"), "ringtrace consume", clog);

	xv_init(&v, threads, events);
	xv_read(&v, out, &one);
	expect_every_event(&v, threads * events);
	xv_bt2_agrees(out, &one, false);
	gs = stats(g);
	ds = stats(0);
	cr_expect_leq(gs.sent, one.packets + 1, "%" PRIu64 " notifications for %" PRIu64
		      " packets (+1 at stop)", gs.sent, one.packets);
	cr_expect_leq(ds.delivered, gs.sent + 1, "dom0 woke more often than notified (+1 at bind)");
	cr_log_info("xen: %" PRIu64 " events, %" PRIu64 " lost, %" PRIu64 " packets, %" PRIu64
		    " notifications", one.present, one.lost_events, one.packets, gs.sent);
	xv_free(&v);
}

/* The guest's progress file: thread t emitted progress[t] events. */
static uint64_t *map_progress(const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT, 0600);
	void *p;

	cr_assert_geq(fd, 0);
	cr_assert_eq(ftruncate(fd, EMIT_MAX_THREADS * 8), 0);
	p = mmap(NULL, EMIT_MAX_THREADS * 8, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	cr_assert_neq(p, MAP_FAILED);
	close(fd);
	return p;
}

/*
 * Every event a killed guest had emitted is in the trace or counted lost:
 * progress[t] is stored after each event, so a thread may have emitted one
 * more than it says.
 */
static void expect_emitted(const struct xv *v, const uint64_t *progress, uint32_t threads)
{
	uint64_t emitted = 0;

	for (uint32_t t = 0; t < threads; t++) {
		emitted += progress[t];
		for (uint64_t s = 0; s < progress[t] && !v->all.lost_events; s++)
			cr_assert(v->seen[t][s], "thread %u seq %" PRIu64 " lost and not counted",
				  t, s);
	}
	cr_expect_geq(v->all.present + v->all.lost_events, emitted,
		      "%" PRIu64 " + %" PRIu64 " lost < %" PRIu64 " emitted", v->all.present,
		      v->all.lost_events, emitted);
	cr_expect_leq(v->all.present + v->all.lost_events, emitted + threads);
	cr_expect_gt(v->all.present, 0);
}

/*
 * A guest killed mid-trace, or whose domain crashed: the live dom0 consumer
 * notices by itself (the unmap notification; the domain's state, or where
 * dom0 may not ask Xen, the stopped heartbeat), says so, drains, and
 * salvages every event the guest had emitted.
 */
enum death { KILLED, CRASHED, CRASHED_UNASKED };

static void killed_mid_trace(enum death how)
{
	static const char *const said[] = {
		[KILLED] = "tracing process exited", [CRASHED] = "the domain crashed",
		[CRASHED_UNASKED] = "has not run for 10 s",
	};
	uint32_t g = mkdom("doomed");
	char *w = workdir(), *out = path_in(w, "trace"), *glog = path_in(w, "guest.log");
	char *clog = path_in(w, "consume.log"), *emit = prog("ringtrace-test-emit");
	char *prog_file = path_in(w, "progress"), *text;
	uint64_t *progress = map_progress(prog_file);
	struct xv v;
	pid_t gp, cp;

	gp = spawn((int)g, (const char *[]){ "RINGTRACE_XEN=1", "RINGTRACE_PACKET_SIZE=16k",
					     NULL },
		   glog, (char *const[]){ emit, "--threads", "3", "--events", "0", "--pace", "10:100",
					  "--progress", prog_file, NULL });
	wait_published(g, 20);
	if (how == CRASHED_UNASKED)	/* a dom0 without privcmd: no domain state */
		setenv("RINGTRACE_XENSIM_NOSTATE", "1", 1);
	cp = start_consume("doomed", out, clog);
	unsetenv("RINGTRACE_XENSIM_NOSTATE");
	usleep(1200000);
	if (how != KILLED)
		cr_assert_eq(rtr_xensim_crash(sim, g), 0);
	kill(gp, SIGKILL);
	waitpid(gp, NULL, 0);
	expect_ok(t_wait_exit(cp, 30, "consume after the guest died"), "ringtrace consume", clog);
	text = slurp(clog);
	cr_assert_not_null(strstr(text, said[how]), "%s", text);
	free(text);
	xv_init(&v, 3, 2000000);
	xv_read(&v, out, NULL);
	expect_emitted(&v, progress, 3);
	xv_free(&v);
}

Test(xen, a_killed_guest_loses_nothing_it_emitted)
{
	killed_mid_trace(KILLED);
}

Test(xen, a_guest_that_crashes_ends_consume_by_itself)
{
	killed_mid_trace(CRASHED);
}

Test(xen, without_the_domain_state_a_crash_ends_consume_after_10_s)
{
	killed_mid_trace(CRASHED_UNASKED);
}

/*
 * Where dom0 may not ask Xen, a guest still for 10 s is gone; when it runs
 * again (it was only starved), the answer stays "gone": consume, which
 * ends its loop on that answer and asks again to choose how to finish,
 * must not hear "running" the second time (it then ended without a word,
 * its trace marked unfinished: xenimg's real-Xen overwrite run).
 */
Test(xen, a_guest_said_gone_stays_gone)
{
	uint32_t g = mkdom("starved");
	char *w = workdir(), *glog = path_in(w, "guest.log"), *emit = prog("ringtrace-test-emit");
	struct rtr_consumer *c;
	char err[256];
	bool gone = false;
	pid_t gp;

	gp = spawn((int)g, (const char *[]){ "RINGTRACE_XEN=1", NULL }, glog,
		   (char *const[]){ emit, "--threads", "1", "--events", "0", "--pace", "10:1000",
				    NULL });
	wait_published(g, 20);
	setenv("RINGTRACE_XENSIM_NOSTATE", "1", 1);	/* a dom0 without privcmd */
	cr_assert_eq(rtr_consumer_open_xen(&c, "starved", err, sizeof(err)), 0, "%s", err);
	cr_assert_not(rtr_consumer_producer_gone(c), "a running guest is not gone");
	cr_assert_eq(rtr_xensim_stop(sim, gp), 0);
	for (int i = 0; i < 300 && !gone; i++) {
		gone = rtr_consumer_producer_gone(c);
		if (!gone)
			usleep(100000);
	}
	cr_assert(gone, "a guest still for 30 s is not gone");
	cr_assert_not_null(strstr(rtr_consumer_gone_why(c), "10 s"), "%s",
			   rtr_consumer_gone_why(c));
	/* It runs again: its flusher's heartbeat moves (every 200 ms at least). */
	kill(gp, SIGCONT);
	usleep(1000000);
	cr_assert(rtr_consumer_producer_gone(c), "gone, then running again");
	rtr_consumer_close(c);
	unsetenv("RINGTRACE_XENSIM_NOSTATE");
	kill(gp, SIGKILL);
	waitpid(gp, NULL, 0);
}

/*
 * A guest paused (or starved: its flusher cannot run) for longer than any
 * timer would allow is not gone: consume waits, and when it runs again
 * takes every event.  `ringtrace info` looks on meanwhile.
 */
Test(xen, a_paused_guest_is_waited_for)
{
	uint32_t g = mkdom("sleepy");
	char *w = workdir(), *out = path_in(w, "trace"), *glog = path_in(w, "guest.log");
	char *clog = path_in(w, "consume.log"), *emit = prog("ringtrace-test-emit");
	char *rt = prog("ringtrace"), cmd[2 * PATH_MAX], *text;
	struct xv_counts one;
	struct xv v;
	pid_t gp, cp;
	int st;

	gp = spawn((int)g, (const char *[]){ "RINGTRACE_XEN=1", "RINGTRACE_PACKET_SIZE=16k",
					     NULL },
		   glog, (char *const[]){ emit, "--threads", "2", "--events", "200000", "--pace",
					  "100:1000", "--phases", "2", "--sync", w, NULL });
	wait_published(g, 20);
	cp = start_consume("sleepy", out, clog);
	touch(w, "go.0");
	usleep(300000);	/* in the middle of phase 0 (a second or more) */
	cr_assert_eq(rtr_xensim_pause(sim, g, true), 0);
	cr_assert_eq(rtr_xensim_stop(sim, gp), 0);
	sleep(3);
	cr_assert_eq(waitpid(cp, &st, WNOHANG), 0, "consume gave up on a paused guest");
	snprintf(cmd, sizeof(cmd), "'%s' info --xen-domain sleepy 2>&1", rt);
	text = t_sh(cmd, &st);
	cr_assert_eq(st, 0, "%s", text);
	cr_assert_not_null(strstr(text, "lost-busy"), "%s", text);
	cr_assert_not_null(strstr(text, "in the guest"), "%s", text);
	free(text);
	cr_assert_eq(rtr_xensim_pause(sim, g, false), 0);
	kill(gp, SIGCONT);
	touch(w, "go.1");
	expect_ok(t_wait_exit(gp, 120, "the guest"), "the guest", glog);
	expect_ok(t_wait_exit(cp, 30, "consume"), "ringtrace consume", clog);
	xv_init(&v, 2, 200000);
	xv_read(&v, out, &one);
	expect_every_event(&v, 2 * 200000);
	xv_free(&v);
}

/*
 * A crashed, preserved guest (on_crash='preserve'): `ringtrace recover`
 * reads its still-granted pages and gets every committed event back.  While
 * the guest runs, recover refuses.
 */
Test(xen, recover_reads_a_crashed_guest)
{
	uint32_t g = mkdom("crashy");
	char *w = workdir(), *out = path_in(w, "trace"), *glog = path_in(w, "guest.log");
	char *rlog = path_in(w, "recover.log"), *emit = prog("ringtrace-test-emit");
	char *prog_file = path_in(w, "progress"), *text;
	uint64_t *progress = map_progress(prog_file);
	struct xv v;
	pid_t gp;
	int st;

	gp = spawn((int)g, (const char *[]){ "RINGTRACE_XEN=1", "RINGTRACE_PACKET_SIZE=16k",
					     "RINGTRACE_PACKETS=16", NULL },
		   glog, (char *const[]){ emit, "--threads", "2", "--events", "0", "--pace", "10:100",
					  "--progress", prog_file, NULL });
	wait_published(g, 20);
	usleep(300000);
	st = t_wait_exit(dom0_cmd("recover", "crashy", out, rlog, NULL), 20, "recover");
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 1, "recover of a running guest: 0x%x", st);
	text = slurp(rlog);
	cr_assert_not_null(strstr(text, "still running"), "%s", text);
	free(text);

	usleep(700000);
	cr_assert_eq(rtr_xensim_crash(sim, g), 0);
	kill(gp, SIGKILL);
	waitpid(gp, NULL, 0);
	unlink(rlog);
	st = t_wait_exit(dom0_cmd("recover", "crashy", out, rlog, NULL), 30, "recover");
	expect_ok(st, "ringtrace recover", rlog);
	xv_init(&v, 2, 2000000);
	xv_read(&v, out, NULL);
	expect_emitted(&v, progress, 2);
	cr_expect_gt(v.all.lost_events, 0, "no consumer: the ring filled, and said so");
	xv_free(&v);
}

/*
 * The dom0 consumer stops and comes back while the guest goes on: the
 * second consumer takes over where the first stopped, and what the guest
 * dropped meanwhile (discard mode) is counted.
 */
Test(xen, a_consumer_that_stops_and_comes_back_counts_the_loss)
{
	uint32_t g = mkdom("steady");
	char *w = workdir(), *out1 = path_in(w, "one"), *out2 = path_in(w, "two");
	char *glog = path_in(w, "guest.log"), *log1 = path_in(w, "c1.log");
	char *log2 = path_in(w, "c2.log"), *emit = prog("ringtrace-test-emit");
	const uint64_t events = 150000;
	struct xv_counts one, two;
	struct xv v;
	pid_t gp, cp;

	/* Three phases: consumed, not consumed (the ring fills), consumed again. */
	gp = spawn((int)g, (const char *[]){ "RINGTRACE_XEN=1", "RINGTRACE_PACKET_SIZE=16k",
					     NULL },
		   glog, (char *const[]){ emit, "--threads", "2", "--events", "150000", "--pace",
					  "100:100", "--phases", "3", "--sync", w, NULL });
	wait_published(g, 20);
	cp = start_consume("steady", out1, log1);
	touch(w, "go.0");
	wait_file(w, "done.0");
	kill(cp, SIGINT);
	expect_ok(t_wait_exit(cp, 20, "the first consume"), "the first consume", log1);
	touch(w, "go.1");
	wait_file(w, "done.1");
	cp = start_consume("steady", out2, log2);
	touch(w, "go.2");
	expect_ok(t_wait_exit(gp, 120, "the guest"), "the guest", glog);
	expect_ok(t_wait_exit(cp, 30, "the second consume"), "the second consume", log2);

	xv_init(&v, 2, events);
	xv_read(&v, out1, &one);
	xv_read(&v, out2, &two);
	cr_expect_gt(one.present, 0);
	cr_expect_gt(two.lost_events, one.lost_events, "the gap's loss is counted");
	/* Cumulative counts: the second trace's loss includes the first's. */
	cr_expect_eq(one.present + two.present + two.lost_events, 2 * events,
		     "%" PRIu64 " + %" PRIu64 " + %" PRIu64 " lost != %" PRIu64, one.present,
		     two.present, two.lost_events, 2 * events);
	xv_bt2_agrees(out2, &two, true);
	xv_free(&v);
}

/* Overwrite mode: consume (lapped packets counted) and snapshots. */
Test(xen, an_overwrite_mode_guest_is_consumed_and_snapshot)
{
	uint32_t g = mkdom("recorder");
	char *w = workdir(), *out = path_in(w, "trace"), *snap = path_in(w, "snap");
	char *glog = path_in(w, "guest.log"), *clog = path_in(w, "consume.log");
	char *slog = path_in(w, "snap.log"), *emit = prog("ringtrace-test-emit");
	const uint64_t events = 100000;
	struct xv_counts one;
	struct xv v, sv;
	pid_t gp, cp;

	gp = spawn((int)g, (const char *[]){ "RINGTRACE_XEN=1", "RINGTRACE_MODE=overwrite",
					     "RINGTRACE_PACKET_SIZE=16k", NULL },
		   glog, (char *const[]){ emit, "--threads", "3", "--events", "100000", "--pace",
					  "100:100", "--phases", "2", "--sync", w, NULL });
	wait_published(g, 20);
	touch(w, "go.0");
	usleep(300000);
	expect_ok(t_wait_exit(dom0_cmd("snapshot", "recorder", snap, slog, NULL), 20, "snapshot"),
		  "ringtrace snapshot", slog);
	cp = start_consume("recorder", out, clog);
	touch(w, "go.1");
	expect_ok(t_wait_exit(gp, 120, "the guest"), "the guest", glog);
	expect_ok(t_wait_exit(cp, 30, "consume"), "ringtrace consume", clog);

	xv_init(&sv, 3, events);
	xv_read(&sv, snap, &one);
	cr_expect_gt(one.present, 0, "the snapshot holds the latest events");
	xv_free(&sv);
	xv_init(&v, 3, events);
	xv_read(&v, out, &one);
	cr_expect_gt(one.present, 0);
	cr_expect_leq(one.present, 3 * events);
	cr_expect(one.present == 3 * events || one.lost_packets > 0,
		  "events missing (%" PRIu64 " of %" PRIu64 ") and no packet counted lost",
		  one.present, 3 * events);
	xv_bt2_agrees(out, &one, false);
	xv_free(&v);
}

/* ---- notifications, counted ------------------------------------------------ */

#define N_ID	30u
#define N_FAST	8000u	/* records of phase A (about 40 packets of 4 KiB) */
#define N_SLOW	8000u	/* records of phase B */
#define N_SPURIOUS 50u

struct n_rec {
	uint64_t seq;
	uint64_t check;
};

/*
 * The guest, in a child process: tracing into 4 KiB packets, it does what
 * the parent writes on @cmd ('A' records at full speed, 'B' records with
 * pauses, 'S' spurious notifications, 'E' stop), answering each on @ack.
 */
static void notif_guest(uint32_t dom, int cmd, int ack)
{
	struct rtr_config cfg = { .struct_size = sizeof(cfg), .flags = RTR_CONFIG_XEN,
				  .packet_size = 4096, .packets_per_cpu = 16 };
	struct rtr_xen_guest_view v;
	uint64_t seq = 0;
	char id[16], c;

	snprintf(id, sizeof(id), "%u", dom);
	setenv("RINGTRACE_XENSIM_DOMID", id, 1);
	if (rtr_start(&cfg) || rtr_xen_region_view(&rtr_slot->mem, &v))
		_exit(3);
	while (read(cmd, &c, 1) == 1) {
		uint32_t n = c == 'A' ? N_FAST : c == 'B' ? N_SLOW : 0;

		for (uint32_t i = 0; i < n; i++, seq++) {
			struct n_rec r = { seq, seq * 0x9E3779B97F4A7C15ull };

			rtr_ring_write(&rtr_slot, N_ID, &r, sizeof(r));
			if (c == 'B' && i % 50 == 49)
				usleep(2000);
		}
		for (uint32_t i = 0; c == 'S' && i < N_SPURIOUS; i++) {
			rtr_xen_notify(v.x, v.port);
			usleep(2000);
		}
		if (c == 'E') {
			rtr_stop();
			_exit(0);
		}
		if (write(ack, &c, 1) != 1)
			_exit(3);
	}
	_exit(3);
}

struct notif {
	struct rtr_consumer *c;
	uint8_t *seen;
	uint64_t taken;		/* records */
	uint64_t packets;
};

/* Take every complete packet; check each record.  Return: packets taken. */
static uint64_t drain(struct notif *n)
{
	const struct rtr_region_hdr *h = rtr_consumer_region(n->c);
	struct t_rec recs[4096 / 20 + 1];
	uint64_t got = 0;

	for (uint32_t cpu = 0; cpu < h->ncpus; cpu++) {
		struct rtr_consumer_packet pkt;

		while (rtr_consumer_get(n->c, cpu, &pkt) == 0) {
			/* rtr_start()'s ring: thread records among the records */
			int k = t_parse_threads(pkt.data, pkt.size, sizeof(struct n_rec), recs,
						4096 / 20 + 1, true);

			cr_assert_geq(k, 0, "cpu %u packet %" PRIu64 " does not parse", cpu, pkt.seq);
			for (int i = 0; i < k; i++) {
				struct n_rec r;

				memcpy(&r, recs[i].payload, sizeof(r));
				cr_assert_eq(recs[i].id, N_ID);
				cr_assert_lt(r.seq, N_FAST + N_SLOW);
				cr_assert_eq(r.check, r.seq * 0x9E3779B97F4A7C15ull);
				cr_assert_eq(n->seen[r.seq], 0, "record %" PRIu64 " twice", r.seq);
				n->seen[r.seq] = 1;
				n->taken++;
			}
			rtr_consumer_put(n->c, cpu);
			got++;
		}
	}
	n->packets += got;
	return got;
}

static bool acked(int fd)
{
	char c;

	return read(fd, &c, 1) == 1;
}

/*
 * At most one notification per completed packet, none while dom0 drains
 * without sleeping; spurious events (the bind-time one, and a guest that
 * notifies for nothing) only make dom0 look again.
 */
Test(xen, notifications_only_when_dom0_asked_and_at_most_one_per_packet)
{
	uint32_t g = mkdom("notify");
	int cmd[2], ack[2];
	struct notif n = { 0 };
	uint64_t lost = 0, s0, sent_b, pk_b, wakes = 0;
	char err[256];
	double t0;
	pid_t pid;
	int st;

	cr_assert_eq(pipe(cmd), 0);
	cr_assert_eq(pipe(ack), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		close(cmd[1]);
		close(ack[0]);
		notif_guest(g, cmd[0], ack[1]);
	}
	close(cmd[0]);
	close(ack[1]);
	fcntl(ack[0], F_SETFL, O_NONBLOCK);
	n.seen = calloc(N_FAST + N_SLOW, 1);
	wait_published(g, 20);
	cr_assert_eq(rtr_consumer_open_xen(&n.c, "notify", err, sizeof(err)), 0, "%s", err);

	/* The bind-time event: a wake-up with nothing to take. */
	t0 = now();
	cr_assert_eq(rtr_consumer_wait(n.c, 5000), 1);
	cr_assert_lt(now() - t0, 2.0, "the channel was pending at bind");
	cr_assert_eq(drain(&n), 0);

	/* A: dom0 drains without sleeping, so it never asks to be woken. */
	cr_assert_eq(write(cmd[1], "A", 1), 1);
	while (!acked(ack[0]))
		drain(&n);
	drain(&n);
	cr_assert_eq(stats(g).sent, 0, "the guest notified a dom0 that never slept");
	cr_assert_gt(n.packets, 10);

	/* S: events for nothing wake dom0, which finds nothing and goes on. */
	s0 = n.taken;
	cr_assert_eq(write(cmd[1], "S", 1), 1);
	while (!acked(ack[0])) {
		wakes += rtr_consumer_wait(n.c, 100) == 1;
		drain(&n);
	}
	cr_assert_eq(stats(g).sent, N_SPURIOUS);
	cr_assert_gt(wakes, 0);
	cr_assert_eq(n.taken, s0, "nothing came with them");

	/* B: dom0 sleeps between packets: woken at most once per packet. */
	s0 = stats(g).sent;
	pk_b = n.packets;
	cr_assert_eq(write(cmd[1], "B", 1), 1);
	while (!acked(ack[0])) {
		drain(&n);
		rtr_consumer_wait(n.c, 200);
	}
	drain(&n);
	sent_b = stats(g).sent - s0;
	pk_b = n.packets - pk_b;
	cr_expect_leq(sent_b, pk_b, "%" PRIu64 " notifications for %" PRIu64 " packets", sent_b,
		      pk_b);
	cr_expect_geq(sent_b, 1, "a sleeping dom0 was never woken");
	cr_log_info("notifications: %" PRIu64 " for %" PRIu64 " packets (%.2f per packet)", sent_b,
		    pk_b, (double)sent_b / (double)pk_b);

	/* E: the guest stops; every record is here or counted lost. */
	cr_assert_eq(write(cmd[1], "E", 1), 1);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	while (!rtr_consumer_stopped(n.c))
		rtr_consumer_wait(n.c, 100);
	drain(&n);
	for (uint32_t cpu = 0; cpu < rtr_consumer_region(n.c)->ncpus; cpu++)
		lost += rtr_consumer_lost(n.c, cpu);
	cr_expect_eq(n.taken + lost, N_FAST + N_SLOW, "%" PRIu64 " taken + %" PRIu64 " lost",
		     n.taken, lost);
	rtr_consumer_close(n.c);
	free(n.seen);
}

/* ---- a hostile guest ------------------------------------------------------ */

/*
 * How many mutations the running hostile guest has made so far: its
 * progress lines ("...: N mutations", every 1000) on standard error.
 */
static unsigned long mutations_so_far(const char *log)
{
	char *text = slurp(log), *p = text;
	unsigned long n = 0;

	while ((p = strstr(p, "ringtrace-xen-hostile: ")) != NULL) {
		p += strlen("ringtrace-xen-hostile: ");
		if (*p >= '0' && *p <= '9')
			n = strtoul(p, NULL, 10);
	}
	free(text);
	return n;
}

/*
 * Stop the hostile guest once the test has what it needs (it ends on
 * SIGTERM, cleanly): the tests run as long as the machine's load makes
 * them, never a fixed duration that a loaded machine cannot meet.
 */
static void hostile_enough(pid_t gp, int *told, int enough)
{
	if (enough && !*told) {
		kill(gp, SIGTERM);
		*told = 1;
	}
}

/* The "mutations N" ringtrace-xen-hostile ends with: at least 2000. */
static unsigned long mutations_of(const char *log)
{
	char *text = slurp(log);
	const char *p = strstr(text, "\nmutations ");
	unsigned long n;

	if (p)
		p++;
	else if (!strncmp(text, "mutations ", 10))
		p = text;
	cr_assert_not_null(p, "the hostile guest did not finish:\n%s", text);
	n = strtoul(p + 10, NULL, 10);
	free(text);
	cr_assert_geq(n, 2000, "only %lu mutations", n);
	return n;
}

/*
 * The guest scribbles on everything dom0 reads (ringtrace-xen-hostile)
 * while dom0 consumes, recovers and snapshots it over and over: dom0 never
 * crashes, hangs or trips a sanitizer, and what it writes reads back.
 */
Test(xen, a_hostile_guest_cannot_hurt_dom0)
{
	uint32_t g = mkdom("hostile");
	/*
	 * Copies: path_in()'s pool of 128 is reused by the loop's commands, and
	 * a "-o" path that became the ringtrace binary's would replace it.
	 */
	char *w = workdir(), *glog = strdup(path_in(w, "guest.log"));
	char *hostile = strdup(prog("ringtrace-xen-hostile")), *rt = strdup(prog("ringtrace"));
	char *out = strdup(path_in(w, "c")), *log = strdup(path_in(w, "run.log"));
	char *snap = strdup(path_in(w, "s")), *clog = strdup(path_in(w, "consume.log"));
	unsigned runs = 0, consumes = 0;
	unsigned long mutations;
	pid_t gp, cp = 0;
	int st;

	int told = 0;

	/* ~1 mutation per ms, until the test has seen enough (hostile_enough). */
	gp = spawn((int)g, NULL, glog, (char *const[]){ hostile, "--seconds", "200", "--mutations",
							"200000", "--seed", "7", NULL });
	wait_published(g, 20);
	while (waitpid(gp, &st, WNOHANG) == 0) {
		hostile_enough(gp, &told, runs >= 4 && consumes >= 2 &&
				   mutations_so_far(glog) >= 3000);
		if (!cp) {
			unlink(clog);
			cp = dom0_cmd("consume", "hostile", out, clog, NULL);
			consumes++;
		} else if (waitpid(cp, &st, WNOHANG) == cp) {
			survived(st, "consume", clog);
			cp = 0;
		}
		unlink(log);
		st = t_wait_exit(dom0_cmd(runs % 2 ? "recover" : "snapshot", "hostile", snap, log,
					  NULL), 20, "recover/snapshot");
		survived(st, runs % 2 ? "recover" : "snapshot", log);
		runs++;
	}
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the hostile guest: 0x%x", st);
	if (cp)
		survived(t_wait_exit(cp, 30, "consume after the guest"), "consume", clog);
	mutations = mutations_of(glog);
	/*
	 * What consume wrote is a trace (damage reported, not a crash).  The
	 * last consume may have refused the guest's scribbled xenstore before
	 * writing anything (its log says why): then there is nothing to check.
	 */
	if (access(out, F_OK) == 0) {
		char cmd[512], *l;

		snprintf(cmd, sizeof(cmd), "'%s' check '%s/c' >'%s/check.log' 2>&1", rt, w, w);
		free(t_sh(cmd, &st));
		if (st != 0 && st != 1) {
			snprintf(cmd, sizeof(cmd), "tail -c 4000 '%s/check.log'", w);
			l = t_sh(cmd, &st);
			cr_assert_fail("ringtrace check crashed on dom0's output:\n%s", l);
		}
	}
	cr_log_info("hostile guest: %lu mutations, %u consumes, %u recover/snapshot runs",
		    mutations, consumes, runs);
	cr_expect_geq(runs, 4);
	free(glog);
	free(hostile);
	free(rt);
	free(out);
	free(log);
	free(snap);
	free(clog);
}

/*
 * Thousands of attaches to a guest that scribbles meanwhile, in this
 * process (so a sanitizer or a guard page sees every access): each either
 * fails with a reason or gives a consumer that reads without harm.
 */
Test(xen, thousands_of_attaches_to_a_hostile_guest)
{
	uint32_t g = mkdom("fuzz");
	char *w = workdir(), *glog = path_in(w, "guest.log"), *hostile = prog("ringtrace-xen-hostile");
	unsigned ok = 0, refused = 0;
	pid_t gp;
	int st, told = 0;

	/* ~2.5 mutations per ms, until the test has seen enough (hostile_enough). */
	gp = spawn((int)g, NULL, glog, (char *const[]){ hostile, "--seconds", "200", "--mutations",
							"500000", "--seed", "11", NULL });
	wait_published(g, 20);
	while (waitpid(gp, &st, WNOHANG) == 0) {
		struct rtr_consumer *c;
		char err[256];
		size_t len;
		char *md;

		if ((ok + refused) % 64 == 0)
			hostile_enough(gp, &told, ok > 0 && refused > 0 && ok + refused >= 1000 &&
					   mutations_so_far(glog) >= 3000);

		if (rtr_consumer_open_xen(&c, "fuzz", err, sizeof(err))) {
			cr_assert_gt(strlen(err), 0, "a refusal without a reason");
			refused++;
			continue;
		}
		ok++;
		for (uint32_t cpu = 0; cpu < rtr_consumer_region(c)->ncpus; cpu++) {
			struct rtr_consumer_packet pkt;
			struct rtr_consumer_cpu info;

			for (int k = 0; k < 4 && rtr_consumer_get(c, cpu, &pkt) == 0; k++)
				rtr_consumer_put(c, cpu);
			rtr_consumer_cpu_info(c, cpu, &info);
		}
		if (rtr_consumer_metadata(c, &md, &len, NULL, err, sizeof(err)) == 0)
			free(md);
		rtr_consumer_wait(c, 0);
		rtr_consumer_close(c);
	}
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the hostile guest: 0x%x", st);
	cr_log_info("attaches: %u succeeded, %u refused, %lu mutations", ok, refused,
		    mutations_of(glog));
	cr_expect_gt(ok, 0);
	cr_expect_gt(refused, 0);
	cr_expect_geq(ok + refused, 1000);
}

/* ---- the real implementation, where there is no Xen --------------------------- */

TestSuite(xenreal, .timeout = 60);

/*
 * The DT_NEEDED entries of the ELF file @path, each followed by a space
 * ("" when it has none): read from the file, as the dynamic loader would.
 */
static char *needed_of(const char *path)
{
	char *img = slurp(path), *out = calloc(1, 4096);
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img;
	const Elf64_Phdr *ph;
	const Elf64_Dyn *dyn = NULL;
	uint64_t strtab = 0, stroff = 0;

	cr_assert_not_null(out);
	cr_assert(!memcmp(eh->e_ident, ELFMAG, SELFMAG) && eh->e_ident[EI_CLASS] == ELFCLASS64,
		  "%s: not a 64-bit ELF file", path);
	ph = (const Elf64_Phdr *)(img + eh->e_phoff);
	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_DYNAMIC)
			dyn = (const Elf64_Dyn *)(img + ph[i].p_offset);
	cr_assert_not_null(dyn, "%s: no dynamic section", path);
	for (const Elf64_Dyn *d = dyn; d->d_tag != DT_NULL; d++)
		if (d->d_tag == DT_STRTAB)
			strtab = d->d_un.d_ptr;
	/* DT_STRTAB is an address: the file offset is in the PT_LOAD holding it. */
	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && strtab >= ph[i].p_vaddr &&
		    strtab < ph[i].p_vaddr + ph[i].p_filesz)
			stroff = strtab - ph[i].p_vaddr + ph[i].p_offset;
	cr_assert_gt(stroff, 0, "%s: no string table", path);
	for (const Elf64_Dyn *d = dyn; d->d_tag != DT_NULL; d++)
		if (d->d_tag == DT_NEEDED) {
			strncat(out, img + stroff + d->d_un.d_val, 4096 - strlen(out) - 2);
			strcat(out, " ");
		}
	free(img);
	return out;
}

/*
 * The producer library every traced program links, the consumer's and
 * the tools need no Xen library to load: platform/xen/xen.c loads them
 * when Xen is asked for.  (The guest's and dom0's use of them is tested
 * below and on real Xen.)
 */
Test(xenreal, no_library_or_program_needs_libxen_to_load)
{
	static const char *const files[] = { "../lib/libringtrace.so", "../lib/libringtrace-consumer.so",
					     "ringtrace", "ringtrace-test-emit" };

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *path = prog(files[i]), *needed = needed_of(path);

		cr_log_info("%s needs: %s", files[i], needed);
		cr_assert_not_null(strstr(needed, "libc.so.6 "), "%s: %s", path, needed);
		cr_assert_null(strstr(needed, "libxen"), "%s needs %s", path, needed);
		free(needed);
	}
}

/* A Xen library that is not there: an error naming it and its package. */
Test(xenreal, a_missing_xen_library_is_named_with_its_package)
{
	char err[512];
	void *h = NULL;
	int ret;

#ifndef RTR_HAVE_XEN
	cr_skip_test("built without Xen (CONFIG_XEN=n)");
#endif
	ret = rtr_xen_dlopen("libxenabsent.so.9", "libxenabsent9", &h, err, sizeof(err));
	cr_assert_eq(ret, -ELIBACC);
	cr_assert_null(h);
	cr_assert_not_null(strstr(err, "libxenabsent.so.9"), "%s", err);
	cr_assert_not_null(strstr(err, "Debian package libxenabsent9"), "%s", err);
	/* libxen-dev's run-time libraries are here (scripts/deps.sh): all load. */
	ret = rtr_xen_real_load(err, sizeof(err));
	cr_assert_eq(ret, 0, "%s", err);
}

/*
 * This machine is no Xen domain: the real implementation fails to open
 * with a reason that names what is missing, the traced program runs on
 * untraced and says why, and dom0's commands fail cleanly.  (Real Xen runs
 * the rest: make check-xen.)
 */
Test(xenreal, without_xen_every_side_says_what_is_missing)
{
	char *emit = prog("ringtrace-test-emit"), *rt = prog("ringtrace"), *text;
	char err[512], log[] = "/tmp/rtr-xenreal-XXXXXX";
	struct rtr_xen *x;
	int fd, st, ret;

	if (!access("/dev/xen/evtchn", F_OK))
		cr_skip_test("this machine is a Xen domain");
	unsetenv("RINGTRACE_XENSIM");
	ret = rtr_xen_open(&x, err, sizeof(err));
	if (ret == -ENOSYS)
		cr_skip_test("built without Xen (CONFIG_XEN=n)");
	cr_assert_lt(ret, 0);
	cr_assert_not_null(strstr(err, "xen-evtchn"), "%s", err);

	fd = mkstemp(log);
	cr_assert_geq(fd, 0);
	close(fd);
	st = t_wait_exit(spawn(-1, (const char *[]){ "RINGTRACE_XEN=1", NULL }, log,
			       (char *const[]){ emit, "--threads", "1", "--events", "100", NULL }),
			 30, "the guest");
	text = slurp(log);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the program must run on: %s", text);
	cr_assert_not_null(strstr(text, "cannot start tracing"), "%s", text);
	cr_assert_not_null(strstr(text, "/dev/xen/evtchn"), "%s", text);
	free(text);

	truncate(log, 0);
	st = t_wait_exit(spawn(-1, NULL, log, (char *const[]){ rt, "consume", "--xen-domain", "guest",
							      "-o", "/tmp/rtr-xenreal-never", NULL }),
			 30, "consume");
	text = slurp(log);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 1, "0x%x: %s", st, text);
	cr_assert_not_null(strstr(text, "xen-evtchn"), "%s", text);
	cr_assert_eq(access("/tmp/rtr-xenreal-never", F_OK), -1, "no output without a guest");
	free(text);
	unlink(log);
}

/* dom0 streams a guest's trace through a pipe (-o -) into another ringtrace. */
Test(xen, a_guest_streams_through_a_pipe)
{
	uint32_t g = mkdom("piped");
	char *w = workdir(), *out = path_in(w, "trace"), *glog = path_in(w, "guest.log");
	char *clog = path_in(w, "consume.log"), *emit = prog("ringtrace-test-emit");
	char *rt = prog("ringtrace"), cmd[4 * PATH_MAX], *text;
	struct xv_counts one;
	struct xv v;
	pid_t gp, cp;

	gp = spawn((int)g, (const char *[]){ "RINGTRACE_XEN=1", "RINGTRACE_PACKET_SIZE=16k",
					     NULL },
		   glog, (char *const[]){ emit, "--threads", "2", "--events", "40000", "--pace",
					  "100:100", "--sync", w, NULL });
	wait_published(g, 20);
	snprintf(cmd, sizeof(cmd), "'%s' consume --xen-domain piped -o - | '%s' consume - -o '%s'",
		 rt, rt, out);
	cp = spawn(0, NULL, clog, (char *const[]){ "/bin/sh", "-c", cmd, NULL });
	for (double t0 = now();;) {
		text = slurp(clog);
		if (strstr(text, "stop with Ctrl-C"))
			break;
		cr_assert_lt(now() - t0, 20, "consume never attached: %s", text);
		free(text);
		usleep(20000);
	}
	free(text);
	touch(w, "go.0");
	expect_ok(t_wait_exit(gp, 120, "the guest"), "the guest", glog);
	expect_ok(t_wait_exit(cp, 30, "the pipeline"), "consume | consume -", clog);
	xv_init(&v, 2, 40000);
	xv_read(&v, out, &one);
	expect_every_event(&v, 2 * 40000);
	xv_bt2_agrees(out, &one, false);
	xv_free(&v);
}

/* ---- the window on a guest: ringtrace gui --xen-domain -------------------------- */

static bool have_xvfb(void)
{
	return !system("command -v xvfb-run >/dev/null 2>&1 && command -v Xvfb >/dev/null 2>&1");
}

/* `ringtrace gui --xen-domain NAME --screenshot W/shot.png` in dom0 under xvfb-run. */
static pid_t gui_on(const char *name, const char *w, const char *log)
{
	static char tmpdir[PATH_MAX + 8];

	snprintf(tmpdir, sizeof(tmpdir), "TMPDIR=%s", w);
	return spawn(0, (const char *[]){ "GSK_RENDERER=cairo", "NO_AT_BRIDGE=1", tmpdir, NULL },
		     log, (char *const[]){ "/usr/bin/xvfb-run", "-a", "-s", "-screen 0 1280x800x24",
					   prog("ringtrace"), "gui", "--xen-domain", (char *)name,
					   "--size", "800x300", "--screenshot", path_in(w, "shot.png"),
					   NULL });
}

/* What the window's log says, or a skip if no X display could be made. */
static char *gui_log(const char *log)
{
	char *text = slurp(log);

	if (strstr(text, "no display could be opened") || strstr(text, "xvfb-run: error")) {
		free(text);
		cr_skip_test("no X display could be made under xvfb-run");
	}
	return text;
}

/* Nothing the window made is left in @w: its spool, consume's message file. */
static void expect_no_leftovers(const char *w)
{
	char cmd[PATH_MAX + 64], *left;
	int st;

	snprintf(cmd, sizeof(cmd), "ls -a '%s' | grep -e ringtrace-stdin -e -xen-", w);
	left = t_sh(cmd, &st);
	cr_expect_eq(left[0], 0, "left behind: %s", left);
	free(left);
}

/* A paced guest in domain @g: @threads x @events (0: until killed), 10 events each 10 ms. */
static pid_t paced_guest(uint32_t g, const char *threads, const char *events, const char *glog)
{
	pid_t gp = spawn((int)g, (const char *[]){ "RINGTRACE_XEN=1", "RINGTRACE_PACKET_SIZE=16k",
						   NULL },
			 glog, (char *const[]){ prog("ringtrace-test-emit"), "--threads",
						(char *)threads, "--events", (char *)events,
						"--pace", "10:10000", NULL });

	wait_published(g, 20);
	return gp;
}

/* Until the window's log @log says it follows the guest (within 30 s). */
static void wait_following(const char *log)
{
	char *text = NULL;

	for (double t0 = now();; usleep(50000)) {
		free(text);
		text = gui_log(log);
		if (strstr(text, "following the guest"))
			break;
		cr_assert_lt(now() - t0, 30, "the window never followed the guest:\n%s", text);
	}
	free(text);
}

/*
 * The seeds' `mirage-trace-viewer -d NAME`: the window follows a guest from
 * dom0 (consume --xen-domain run by the window, its stream followed) and,
 * when the guest's program ends, draws its last scene: every event.
 */
Test(xen, gui_follows_a_guest_from_dom0)
{
	uint32_t g = mkdom("viewed");
	char *w = workdir(), *glog = path_in(w, "guest.log"), *log = path_in(w, "gui.log");
	char *text, *at;
	pid_t gp, wp;
	int st;

	if (!have_xvfb())
		cr_skip_test("xvfb-run missing (Debian's xvfb): the window is not tested");
	/* 2 threads x 1500 events, 10 every 10 ms: 1.5 s of a trace arriving */
	gp = paced_guest(g, "2", "1500", glog);
	wp = gui_on("viewed", w, log);
	expect_ok(t_wait_exit(gp, 60, "the guest"), "the guest", glog);
	st = t_wait_exit(wp, 120, "ringtrace gui --xen-domain");
	text = gui_log(log);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "gui: status 0x%x\n%s", st, text);
	at = strstr(text, "the recording ended: ");
	cr_assert_not_null(at, "%s", text);
	cr_expect_eq(strtoull(at + strlen("the recording ended: "), NULL, 10), 3000,
		     "not every event of the guest: %s", text);
	cr_expect_not_null(strstr(text, "following the guest"), "%s", text);
	cr_expect_not_null(strstr(text, "ringtrace consume:"), "consume's messages not passed on: %s",
			   text);
	cr_expect_eq(access(path_in(w, "shot.png"), F_OK), 0, "no screenshot: %s", text);
	expect_no_leftovers(w);
	free(text);
}

/* A guest whose domain crashes while the window follows it: said, never a crash. */
Test(xen, gui_on_a_guest_whose_domain_crashes_says_so)
{
	uint32_t g = mkdom("fleeting");
	char *w = workdir(), *glog = path_in(w, "guest.log"), *log = path_in(w, "gui.log");
	char *text = NULL;
	pid_t gp, wp;
	int st;

	if (!have_xvfb())
		cr_skip_test("xvfb-run missing (Debian's xvfb): the window is not tested");
	gp = paced_guest(g, "1", "0", glog);
	wp = gui_on("fleeting", w, log);
	wait_following(log);
	usleep(500000);
	cr_assert_eq(rtr_xensim_crash(sim, g), 0);
	kill(gp, SIGKILL);
	waitpid(gp, NULL, 0);
	st = t_wait_exit(wp, 60, "ringtrace gui --xen-domain, its guest crashed");
	text = gui_log(log);
	survived(st, "ringtrace gui --xen-domain, its guest crashed", log);
	cr_log_info("the window's log:\n%s", text);
	if (getenv("RTR_KEEP_SHOT")) {	/* to look at it */
		char cmd[3 * PATH_MAX];

		snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", path_in(w, "shot.png"), getenv("RTR_KEEP_SHOT"));
		free(t_sh(cmd, &st));
	}
	cr_expect_not_null(strstr(text, "the domain crashed"), "not said: %s", text);
	cr_expect_not_null(strstr(text, "the recording ended: "), "its last scene not drawn: %s",
			   text);
	cr_expect_eq(access(path_in(w, "shot.png"), F_OK), 0, "no screenshot: %s", text);
	expect_no_leftovers(w);
	free(text);
}

/* A domain that is not there: consume's reason, exit 1, nothing left behind. */
Test(xen, gui_on_a_domain_that_is_not_there_says_why)
{
	char *w = workdir(), *log = path_in(w, "gui.log"), *text;
	int st;

	if (!have_xvfb())
		cr_skip_test("xvfb-run missing (Debian's xvfb): the window is not tested");
	st = t_wait_exit(gui_on("nosuch", w, log), 60, "ringtrace gui --xen-domain nosuch");
	text = gui_log(log);
	survived(st, "ringtrace gui --xen-domain nosuch", log);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 1, "status 0x%x: %s", st, text);
	cr_expect_not_null(strstr(text, "ringtrace consume --xen-domain nosuch exited with status"),
			   "%s", text);
	cr_expect_not_null(strstr(text, "nosuch"), "%s", text);
	expect_no_leftovers(w);
	free(text);
}

/*
 * The window closed (its screenshot taken on SIGUSR1) while the guest still
 * traces: consume is stopped as Ctrl-C stops it, and ends cleanly, nothing
 * kept (no queue file for `recover`); the guest goes on.
 */
Test(xen, gui_closed_while_the_guest_traces_stops_consume_cleanly)
{
	uint32_t g = mkdom("lasting");
	char *w = workdir(), *glog = path_in(w, "guest.log"), *log = path_in(w, "gui.log");
	char *pidf = path_in(w, "gui.pid"), *text = NULL, cmd[4 * PATH_MAX];
	pid_t gp, wp;
	int st;

	if (!have_xvfb())
		cr_skip_test("xvfb-run missing (Debian's xvfb): the window is not tested");
	gp = paced_guest(g, "1", "0", glog);
	/* the window's own pid in gui.pid: xvfb-run runs a shell that execs it */
	snprintf(cmd, sizeof(cmd), "echo $$ >'%s'; exec \"$0\" \"$@\"", pidf);
	{
		static char tmpdir[PATH_MAX + 8];

		snprintf(tmpdir, sizeof(tmpdir), "TMPDIR=%s", w);
		wp = spawn(0, (const char *[]){ "GSK_RENDERER=cairo", "NO_AT_BRIDGE=1", tmpdir, NULL },
			   log, (char *const[]){ "/usr/bin/xvfb-run", "-a", "-s", "-screen 0 1280x800x24",
						 "/bin/sh", "-c", cmd, prog("ringtrace"), "gui",
						 "--xen-domain", "lasting", "--size", "600x300",
						 "--screenshot", path_in(w, "shot.png"), "--on-signal",
						 NULL });
	}
	wait_following(log);
	usleep(500000);
	text = slurp(pidf);
	cr_assert_eq(kill((pid_t)atoi(text), SIGUSR1), 0, "the window's pid: %s", text);
	free(text);
	st = t_wait_exit(wp, 60, "ringtrace gui --xen-domain, closed early");
	text = gui_log(log);
	expect_ok(st, "ringtrace gui --xen-domain, closed early", log);
	cr_expect_eq(waitpid(gp, NULL, WNOHANG), 0, "the guest stopped too: %s", text);
	cr_expect_not_null(strstr(text, "ringtrace consume:"), "consume's messages: %s", text);
	cr_expect_null(strstr(text, "exited with status"), "consume did not end cleanly: %s", text);
	cr_expect_null(strstr(text, "kept in"), "consume kept its queue: %s", text);
	cr_expect_eq(access("/dev/shm/ringtrace-xen-lasting.queue", F_OK), -1,
		     "consume's queue file is left: %s", text);
	expect_no_leftovers(w);
	free(text);
	kill(gp, SIGKILL);
	waitpid(gp, NULL, 0);
}

/*
 * view --serve --follow --xen-domain: the server follows a guest from dom0
 * as the window does; once the guest's program ends, api/meta says the
 * recording is done with every event; SIGINT stops it cleanly.
 */
/*
 * dom0 streams a guest's trace to a stock lttng-relayd (issue 24's
 * `consume --xen-domain ... -o net://`): the relayd's copy is a trace that
 * `check` and babeltrace2 read, with every event of the guest.
 */
Test(xen, consume_streams_a_guest_into_a_relayd)
{
	uint32_t g = mkdom("relayed");
	char *w = workdir(), *glog = path_in(w, "guest.log"), *log = path_in(w, "consume.log");
	char *rlog = path_in(w, "relayd.log"), *out, cmd[4 * PATH_MAX], url[96], env[PATH_MAX + 16];
	char ctl[48], data[48], live[48], odir[PATH_MAX];
	int port[3], st;
	pid_t rp, gp, cp;

	if (access("/usr/bin/lttng-relayd", X_OK))
		cr_skip_test("lttng-relayd missing (Debian's lttng-tools)");
	out = t_sh("python3 -c 'import socket\ns = [socket.socket() for _ in range(3)]\n"
		   "for x in s: x.bind((\"127.0.0.1\", 0))\n"
		   "print(\" \".join(str(x.getsockname()[1]) for x in s))'", &st);
	cr_assert(sscanf(out, "%d %d %d", &port[0], &port[1], &port[2]) == 3, "%s", out);
	free(out);
	snprintf(ctl, sizeof(ctl), "tcp://127.0.0.1:%d", port[0]);
	snprintf(data, sizeof(data), "tcp://127.0.0.1:%d", port[1]);
	snprintf(live, sizeof(live), "tcp://127.0.0.1:%d", port[2]);
	snprintf(odir, sizeof(odir), "%s/out", w);
	snprintf(env, sizeof(env), "LTTNG_HOME=%s", w);
	rp = spawn(-1, (const char *[]){ env, NULL }, rlog,
		   (char *const[]){ "/usr/bin/lttng-relayd", "-o", odir, "-C", ctl, "-D", data,
				    "-L", live, NULL });
	snprintf(cmd, sizeof(cmd), "for i in $(seq 100); do python3 -c 'import socket; "
		 "socket.create_connection((\"127.0.0.1\", %d), 1)' 2>/dev/null && echo up && "
		 "break; sleep 0.1; done", port[0]);
	out = t_sh(cmd, &st);
	cr_assert_not_null(strstr(out, "up"), "the relayd did not listen:\n%s", slurp(rlog));
	free(out);
	gp = paced_guest(g, "2", "1500", glog);
	snprintf(url, sizeof(url), "net://127.0.0.1:%d:%d", port[0], port[1]);
	cp = spawn(0, NULL, log, (char *const[]){ prog("ringtrace"), "consume", "--xen-domain",
						  "relayed", "-o", url, NULL });
	expect_ok(t_wait_exit(gp, 60, "the guest"), "the guest", glog);
	expect_ok(t_wait_exit(cp, 60, "consume --xen-domain -o net://"),
		  "consume --xen-domain -o net://", log);
	/* The relayd's copy: OUT/HOST/SESSION/ringtrace, whole and readable. */
	snprintf(cmd, sizeof(cmd), "t=$(ls -d '%s'/*/*/ringtrace) && '%s' check \"$t\" >/dev/null "
		 "&& '%s' dump \"$t\" 2>&1 | tail -n 1 && babeltrace2 \"$t\" | "
		 "sed -E 's/^[^]]*] \\(\\+[^)]*\\) [^ ]+ ([^:]+):.*/\\1/' | sort | uniq -c",
		 odir, prog("ringtrace"), prog("ringtrace"));
	out = t_sh(cmd, &st);
	cr_expect_eq(st, 0, "%s\nconsume:\n%s", out, slurp(log));
	cr_expect_not_null(strstr(out, "dump: 3000 events, 0 events lost"), "%s", out);
	/* babeltrace2's events by name: the program's 3000, and the threads' own */
	cr_expect_not_null(strstr(out, " 3000 rtrtest\n"), "babeltrace2 did not read the 3000 "
			   "events: %s", out);
	free(out);
	kill(rp, SIGTERM);
	t_wait_exit(rp, 30, "lttng-relayd");
}

Test(xen, serve_follows_a_guest_from_dom0)
{
	uint32_t g = mkdom("served");
	char *w = workdir(), *glog = path_in(w, "guest.log"), *log = path_in(w, "view.log");
	char *text = NULL, *url, cmd[2 * PATH_MAX], *meta = NULL;
	static char tmpdir[PATH_MAX + 8];
	pid_t gp, vp;
	int st;

	gp = paced_guest(g, "2", "1500", glog);
	snprintf(tmpdir, sizeof(tmpdir), "TMPDIR=%s", w);
	vp = spawn(0, (const char *[]){ tmpdir, NULL }, log,
		   (char *const[]){ prog("ringtrace"), "view", "--serve", "--follow", "--xen-domain",
				    "served", NULL });
	for (double t0 = now();; usleep(50000)) {
		free(text);
		text = slurp(log);
		if (strstr(text, "http://"))
			break;
		cr_assert_lt(now() - t0, 30, "no URL from the server:\n%s", text);
		cr_assert_eq(waitpid(vp, &st, WNOHANG), 0, "the server ended:\n%s", text);
	}
	url = strstr(text, "http://");
	url[strcspn(url, "\n")] = 0;
	expect_ok(t_wait_exit(gp, 60, "the guest"), "the guest", glog);
	for (double t0 = now();; usleep(200000)) {
		free(meta);
		snprintf(cmd, sizeof(cmd), "python3 -c 'import urllib.request; print(urllib.request."
			 "urlopen(\"%sapi/meta\").read().decode())'", url);
		meta = t_sh(cmd, &st);
		if (strstr(meta, "\"done\":true"))
			break;
		cr_assert_lt(now() - t0, 60, "the server never saw the guest's trace end: %s", meta);
	}
	cr_expect_not_null(strstr(meta, "\"events\":3000,"), "not every event of the guest: %s", meta);
	kill(vp, SIGINT);
	expect_ok(t_wait_exit(vp, 30, "view --serve --xen-domain"), "view --serve --xen-domain", log);
	free(text);
	text = slurp(log);
	cr_expect_not_null(strstr(text, "ringtrace consume:"), "consume's messages: %s", text);
	cr_expect_null(strstr(text, "exited with status"), "%s", text);
	expect_no_leftovers(w);
	free(meta);
	free(text);
}
