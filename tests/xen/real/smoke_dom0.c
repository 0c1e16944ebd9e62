// SPDX-License-Identifier: MIT
/*
 * tests/xen/real/smoke_dom0.c - the smoke test's dom0 side (see smoke.h).
 *
 * Reads the guest's grant reference and port from xenstore, maps the page
 * read-write and the read-only pages read-only (and checks that a writable
 * mapping of those, and a mapping of a reference the guest never granted,
 * are refused), binds the event channel (and reports whether the bind left
 * an event pending, as Xen does), then plays SMOKE_ROUNDS rounds of ping and
 * pong with the guest, one notification each way per round.  Prints its
 * figures; exits 0 only if every step worked; every wait is bounded.
 *
 *   rtr-xen-smoke-dom0 DOMID [TIMEOUT_S]
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <xenevtchn.h>
#include <xengnttab.h>
#include <xenstore.h>

#include "smoke.h"

static int fail(const char *what)
{
	return smoke_fail("smoke-dom0", what);
}

static int xs_get(struct xs_handle *xs, const char *dir, const char *key, unsigned long *v)
{
	char path[256], *s, *end;
	unsigned int len;

	snprintf(path, sizeof(path), "%s/%s", dir, key);
	s = xs_read(xs, XBT_NULL, path, &len);
	if (!s) {
		fprintf(stderr, "smoke-dom0: FAIL: xenstore read %s: %s\n", path, strerror(errno));
		return -1;
	}
	errno = 0;
	*v = strtoul(s, &end, 10);
	if (errno || end == s || *end) {
		fprintf(stderr, "smoke-dom0: FAIL: %s is '%s', not a number\n", path, s);
		free(s);
		return -1;
	}
	free(s);
	return 0;
}

/* Wait up to @ms for an event on @port; 1 if one came (and was unmasked). */
static int wait_event(xenevtchn_handle *xe, int port, int ms)
{
	struct pollfd pfd = { .fd = xenevtchn_fd(xe), .events = POLLIN };
	int n = poll(&pfd, 1, ms);

	if (n < 0)
		return errno == EINTR ? 0 : -1;
	if (n == 0)
		return 0;
	int p = xenevtchn_pending(xe);

	if (p < 0)
		return -1;
	if (p != port) {
		fprintf(stderr, "smoke-dom0: FAIL: event on port %d, ours is %d\n", p, port);
		errno = EPROTO;
		return -1;
	}
	if (xenevtchn_unmask(xe, port) < 0)
		return -1;
	return 1;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: rtr-xen-smoke-dom0 DOMID [TIMEOUT_S]\n");
		return 2;
	}
	uint32_t domid = strtoul(argv[1], NULL, 10);
	double timeout = argc > 2 ? atof(argv[2]) : 60;
	struct xs_handle *xs = xs_open(0);
	xenevtchn_handle *xe = xenevtchn_open(NULL, 0);
	xengnttab_handle *xg = xengnttab_open(NULL, 0);
	unsigned long ref, rport;
	char dir[128], *dompath;

	if (!xs)
		return fail("xs_open");
	if (!xe)
		return fail("xenevtchn_open (/dev/xen/evtchn: module xen-evtchn)");
	if (!xg)
		return fail("xengnttab_open (/dev/xen/gntdev: module xen-gntdev)");
	dompath = xs_get_domain_path(xs, domid);
	if (!dompath)
		return fail("xs_get_domain_path");
	snprintf(dir, sizeof(dir), "%s/%s", dompath, SMOKE_DIR);
	free(dompath);
	if (xs_get(xs, dir, "ring-ref", &ref) || xs_get(xs, dir, "event-channel", &rport))
		return 1;

	/* The read-write page. */
	struct smoke_page *pg = xengnttab_map_grant_ref(xg, domid, ref, PROT_READ | PROT_WRITE);

	if (!pg)
		return fail("xengnttab_map_grant_ref (the read-write page)");
	if (__atomic_load_n(&pg->magic, __ATOMIC_ACQUIRE) != SMOKE_MAGIC) {
		fprintf(stderr, "smoke-dom0: FAIL: magic %#x in the mapped page\n", pg->magic);
		return 1;
	}
	uint32_t nro = pg->ro_pages, ro_refs[SMOKE_RO_PAGES];

	if (nro != SMOKE_RO_PAGES) {
		fprintf(stderr, "smoke-dom0: FAIL: %u read-only pages announced, not %u\n", nro, SMOKE_RO_PAGES);
		return 1;
	}
	memcpy(ro_refs, pg->ro_refs, sizeof(ro_refs));

	/* The read-only pages: one contiguous mapping, the pattern checked. */
	uint8_t *ro = xengnttab_map_domain_grant_refs(xg, nro, domid, ro_refs, PROT_READ);

	if (!ro)
		return fail("xengnttab_map_domain_grant_refs (read-only pages, PROT_READ)");
	for (uint32_t p = 0; p < nro; p++)
		for (uint32_t o = 0; o < SMOKE_PAGE; o++)
			if (ro[p * SMOKE_PAGE + o] != smoke_pattern(p, o)) {
				fprintf(stderr, "smoke-dom0: FAIL: read-only page %u byte %u is %#x\n", p, o,
					ro[p * SMOKE_PAGE + o]);
				return 1;
			}
	/* What dom0 must not get: write access to a read-only grant, a page
	 * through a reference never granted. */
	void *bad = xengnttab_map_grant_ref(xg, domid, ro_refs[0], PROT_READ | PROT_WRITE);

	if (bad) {
		fprintf(stderr, "smoke-dom0: FAIL: a read-only grant was mapped writable\n");
		return 1;
	}
	int ro_errno = errno;

	bad = xengnttab_map_grant_ref(xg, domid, 1u << 20, PROT_READ);
	if (bad) {
		fprintf(stderr, "smoke-dom0: FAIL: reference %u (never granted) was mapped\n", 1u << 20);
		return 1;
	}
	int bogus_errno = errno;

	/* The event channel: the bind itself leaves the port pending. */
	double t0 = smoke_now();
	int port = xenevtchn_bind_interdomain(xe, domid, rport);

	if (port < 0)
		return fail("xenevtchn_bind_interdomain");
	int bind_pending = wait_event(xe, port, 1000);

	if (bind_pending < 0)
		return fail("waiting for the bind-time event");
	double t_bind = smoke_now() - t0;

	/*
	 * Ping-pong.  A round ends when the pong is on the page and its event
	 * has come: the guest's next notification cannot then merge with this
	 * one (an event channel is one pending bit), so every notification the
	 * guest sends is one event here, and an extra one is a spurious event.
	 */
	uint32_t events = 0, notifies = 0;
	double deadline = smoke_now() + timeout, t1 = smoke_now();

	for (uint32_t i = 1; i <= SMOKE_ROUNDS; i++) {
		__atomic_store_n(&pg->ping, i, __ATOMIC_RELEASE);
		if (xenevtchn_notify(xe, port) < 0)
			return fail("xenevtchn_notify");
		notifies++;
		for (uint32_t got = 0; !got || __atomic_load_n(&pg->pong, __ATOMIC_ACQUIRE) != i;) {
			double left = deadline - smoke_now();

			if (left <= 0) {
				fprintf(stderr, "smoke-dom0: FAIL: round %u not over after %.0f s (pong %u, %u events)\n",
					i, timeout, pg->pong, events);
				return 1;
			}
			int r = wait_event(xe, port, (int)(left * 1000) + 1);

			if (r < 0)
				return fail("waiting for a pong");
			got += r;
			events += r;
		}
	}
	double rtt = (smoke_now() - t1) / SMOKE_ROUNDS;

	__atomic_store_n(&pg->done, 1, __ATOMIC_RELEASE);
	if (xenevtchn_notify(xe, port) < 0)
		return fail("xenevtchn_notify (done)");
	notifies++;
	/* Nothing more may come. */
	int extra = wait_event(xe, port, 200);

	if (extra != 0 || events != SMOKE_ROUNDS) {
		fprintf(stderr, "smoke-dom0: FAIL: %u events (%s after the last round) for %u pongs\n", events,
			extra ? "one more" : "none", SMOKE_ROUNDS);
		return 1;
	}
	printf("smoke-dom0: OK: domain %u: page ref %lu mapped rw, %u ro pages mapped and checked\n",
	       domid, ref, nro);
	printf("smoke-dom0: refused as they must be: a writable map of a ro grant (%s), an ungranted ref (%s)\n",
	       strerror(ro_errno), strerror(bogus_errno));
	printf("smoke-dom0: remote port %lu bound as local port %d; event pending at bind: %s (%.3f s)\n",
	       rport, port, bind_pending ? "yes" : "no", t_bind);
	printf("smoke-dom0: %u rounds: %u notifications sent (the guest got %u events), %u received,"
	       " %.0f us per round trip\n", SMOKE_ROUNDS, notifies,
	       __atomic_load_n(&pg->guest_events, __ATOMIC_ACQUIRE), events, rtt * 1e6);
	xengnttab_unmap(xg, ro, nro);
	xengnttab_unmap(xg, pg, 1);
	xenevtchn_unbind(xe, port);
	xenevtchn_close(xe);
	xengnttab_close(xg);
	xs_close(xs);
	return 0;
}
