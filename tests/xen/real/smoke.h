/* SPDX-License-Identifier: MIT */
/*
 * tests/xen/real/smoke.h - the real-Xen test bed's own smoke test: what the
 * guest (smoke_guest.c) and dom0 (smoke_dom0.c) programs share.  It proves
 * the mechanisms ringtrace's Xen mode stands on, on real Xen, without
 * ringtrace: a page granted read-write and pages granted read-only by a
 * domU's userspace (libxengntshr), an unbound event channel allocated by it
 * (libxenevtchn), their numbers published under the guest's xenstore domain
 * path (libxenstore), mapped and bound by dom0 (libxengnttab, libxenevtchn),
 * and notifications both ways.  When the ringtrace test fails and this one
 * passes, the fault is ringtrace's, not the bed's.
 */
#ifndef RTR_XEN_SMOKE_H
#define RTR_XEN_SMOKE_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define SMOKE_DIR	"data/rtr-smoke"	/* under the guest's domain path */
#define SMOKE_MAGIC	0x524b4d53u		/* "SMKR" */
#define SMOKE_RO_PAGES	16u			/* read-only pages, one patterned */
#define SMOKE_ROUNDS	200u			/* ping-pong notifications */
#define SMOKE_PAGE	4096u

/* The read-write page. Each field has one writer. */
struct smoke_page {
	uint32_t magic;		/* guest, before publishing */
	uint32_t ro_pages;	/* guest */
	uint32_t ro_refs[SMOKE_RO_PAGES];	/* guest: the read-only pages' refs */
	uint32_t ping;		/* dom0: round i asks */
	uint32_t pong;		/* guest: round i answered */
	uint32_t done;		/* dom0: no more rounds */
	uint32_t guest_events;	/* guest: events it received */
};

/* The byte at @off of read-only page @page. */
static inline uint8_t smoke_pattern(uint32_t page, uint32_t off)
{
	return (uint8_t)(page * 131u + off * 7u + 1u);
}

static inline double smoke_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Report that @what failed, with errno's text; the exit status 1. */
static inline int smoke_fail(const char *who, const char *what)
{
	fprintf(stderr, "%s: FAIL: %s: %s\n", who, what, strerror(errno));
	return 1;
}

#endif /* RTR_XEN_SMOKE_H */
