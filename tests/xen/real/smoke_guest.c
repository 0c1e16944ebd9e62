// SPDX-License-Identifier: MIT
/*
 * tests/xen/real/smoke_guest.c - the smoke test's domU side (see smoke.h).
 *
 * Shares one page read-write and SMOKE_RO_PAGES pages read-only with dom0,
 * allocates an unbound event channel for dom0, publishes the page's grant
 * reference and the port under <domain path>/data/rtr-smoke, then answers
 * each of dom0's pings with a pong and a notification until dom0 says done.
 * Exits 0 only if every step worked; every wait is bounded.
 *
 *   rtr-xen-smoke-guest [TIMEOUT_S]
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <xenevtchn.h>
#include <xengnttab.h>
#include <xenstore.h>

#include "smoke.h"

static int die(const char *what)
{
	return smoke_fail("smoke-guest", what);
}

static int xs_put(struct xs_handle *xs, const char *key, const char *fmt, unsigned long v)
{
	char path[128], val[32];

	snprintf(path, sizeof(path), "%s/%s", SMOKE_DIR, key);
	snprintf(val, sizeof(val), fmt, v);
	if (!xs_write(xs, XBT_NULL, path, val, strlen(val))) {
		fprintf(stderr, "smoke-guest: FAIL: xenstore write %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	double timeout = argc > 1 ? atof(argv[1]) : 60;
	struct xs_handle *xs = xs_open(0);
	xenevtchn_handle *xe = xenevtchn_open(NULL, 0);
	xengntshr_handle *xg = xengntshr_open(NULL, 0);
	uint32_t ref, ro_refs[SMOKE_RO_PAGES];
	struct smoke_page *pg;
	uint8_t *ro;
	unsigned int len;
	char *domid;
	int port;

	if (!xs)
		return die("xs_open (/dev/xen/xenbus)");
	if (!xe)
		return die("xenevtchn_open (/dev/xen/evtchn: module xen-evtchn)");
	if (!xg)
		return die("xengntshr_open (/dev/xen/gntalloc: module xen-gntalloc)");
	domid = xs_read(xs, XBT_NULL, "domid", &len);
	if (!domid)
		return die("xenstore read domid");

	pg = xengntshr_share_pages(xg, 0, 1, &ref, 1);
	if (!pg)
		return die("xengntshr_share_pages (1 page, writable)");
	ro = xengntshr_share_pages(xg, 0, SMOKE_RO_PAGES, ro_refs, 0);
	if (!ro)
		return die("xengntshr_share_pages (read-only pages)");
	for (uint32_t p = 0; p < SMOKE_RO_PAGES; p++)
		for (uint32_t o = 0; o < SMOKE_PAGE; o++)
			ro[p * SMOKE_PAGE + o] = smoke_pattern(p, o);
	memset(pg, 0, sizeof(*pg));
	pg->ro_pages = SMOKE_RO_PAGES;
	memcpy(pg->ro_refs, ro_refs, sizeof(ro_refs));
	__atomic_store_n(&pg->magic, SMOKE_MAGIC, __ATOMIC_RELEASE);

	port = xenevtchn_bind_unbound_port(xe, 0);
	if (port < 0)
		return die("xenevtchn_bind_unbound_port (remote domain 0)");

	if (xs_put(xs, "ring-ref", "%lu", ref) || xs_put(xs, "event-channel", "%lu", (unsigned long)port) ||
	    xs_put(xs, "ready", "%lu", 1))
		return 1;
	printf("smoke-guest: domain %s shares page ref %" PRIu32 " (rw) and %u pages from ref %" PRIu32
	       " (ro), port %d\n", domid, ref, SMOKE_RO_PAGES, ro_refs[0], port);
	fflush(stdout);

	/* Answer dom0's pings until it is done. */
	double deadline = smoke_now() + timeout;
	uint32_t events = 0, answered = 0;
	struct pollfd pfd = { .fd = xenevtchn_fd(xe), .events = POLLIN };

	while (!__atomic_load_n(&pg->done, __ATOMIC_ACQUIRE)) {
		double left = deadline - smoke_now();

		if (left <= 0) {
			fprintf(stderr, "smoke-guest: FAIL: dom0 not done after %.0f s (%u events, %u answered)\n",
				timeout, events, answered);
			return 1;
		}
		int n = poll(&pfd, 1, (int)(left * 1000) + 1);

		if (n < 0 && errno != EINTR)
			return die("poll on the event channel");
		if (n <= 0)
			continue;
		int p = xenevtchn_pending(xe);

		if (p < 0)
			return die("xenevtchn_pending");
		if (p != port) {
			fprintf(stderr, "smoke-guest: FAIL: event on port %d, ours is %d\n", p, port);
			return 1;
		}
		events++;
		if (xenevtchn_unmask(xe, port) < 0)
			return die("xenevtchn_unmask");
		uint32_t ping = __atomic_load_n(&pg->ping, __ATOMIC_ACQUIRE);

		if (ping != pg->pong) {
			if (ping != pg->pong + 1) {
				fprintf(stderr, "smoke-guest: FAIL: ping %u after pong %u\n", ping, pg->pong);
				return 1;
			}
			__atomic_store_n(&pg->pong, ping, __ATOMIC_RELEASE);
			answered++;
			if (xenevtchn_notify(xe, port) < 0)
				return die("xenevtchn_notify");
		}
		__atomic_store_n(&pg->guest_events, events, __ATOMIC_RELEASE);
	}
	if (answered != SMOKE_ROUNDS) {
		fprintf(stderr, "smoke-guest: FAIL: answered %u pings of %u\n", answered, SMOKE_ROUNDS);
		return 1;
	}
	xs_put(xs, "result", "%lu", answered);
	printf("smoke-guest: OK: %u pings answered, %u events received\n", answered, events);
	xengntshr_unshare(xg, ro, SMOKE_RO_PAGES);
	xengntshr_unshare(xg, pg, 1);
	xenevtchn_close(xe);
	xengntshr_close(xg);
	free(domid);
	xs_close(xs);
	return 0;
}
