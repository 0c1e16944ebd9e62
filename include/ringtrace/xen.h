/* SPDX-License-Identifier: MIT */
/*
 * ringtrace/xen.h - a Xen guest's region as dom0 sees it, as an ABI.
 *
 * A guest shares three sets of pages with its backend domain (dom0):
 *
 *   the region      the ordinary region (ringtrace/region.h), page for page,
 *                   granted read-only: dom0 reads packets and the producer's
 *                   positions there and can write nothing;
 *   the ref pages   the grant references of the region's pages, 1024 to a
 *                   page, granted read-only;
 *   the control page  this struct, granted read-write: the ref pages' grant
 *                   references, the geometry, and the words the consumer
 *                   writes (its positions, its notify threshold, its flush
 *                   requests), which on unix live in the region itself.
 *
 * The control page's grant reference, the guest's event-channel port and
 * the geometry are published in xenstore under the guest's domain path
 * (RTR_XEN_XS_DIR, Documentation/xen.rst).  One interdomain event channel
 * serves both ways: the guest notifies when a packet completes and dom0
 * asked to be woken (@notify_at, the req_event of Xen's io/ring.h), or a
 * flush it asked for is done; dom0 notifies to ask for a flush.
 *
 * dom0 trusts nothing here: it copies the header and the references once,
 * checks them against xenstore and the limits below, maps exactly the pages
 * they name, and afterwards only writes its own words and reads the guest's
 * ones as hints.
 */
#ifndef RINGTRACE_XEN_H
#define RINGTRACE_XEN_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* "RTRXENC\0" as a little-endian u64; the guest writes it last. */
#define RTR_XEN_MAGIC		0x00434e4558525452ULL
#define RTR_XEN_ABI_MAJOR	1
#define RTR_XEN_ABI_MINOR	0

#define RTR_XEN_PAGE_SIZE	4096u
#define RTR_XEN_REFS_PER_PAGE	(RTR_XEN_PAGE_SIZE / 4u)
#define RTR_XEN_MAX_REF_PAGES	64u	/* 65536 region pages, 256 MiB */
#define RTR_XEN_MAX_PAGES	(RTR_XEN_MAX_REF_PAGES * RTR_XEN_REFS_PER_PAGE)
#define RTR_XEN_MAX_CPUS	128u

/* The guest's keys, under its domain path: /local/domain/<id>/data/ringtrace */
#define RTR_XEN_XS_DIR		"data/ringtrace"

/*
 * struct rtr_xen_cons - the consumer's words for one stream: the position
 * it has released (a packet boundary; writers may reuse what lies before
 * it) and the position at which it wants an event (0: none).  Same meaning
 * and layout as @cons and @notify_at in struct rtr_cpu_ctl.
 */
struct rtr_xen_cons {
	uint64_t cons;		/* dom0 writes */
	uint64_t notify_at;	/* dom0 writes; the guest exchanges it to 0 when it notifies */
};

/*
 * struct rtr_xen_ctl - the control page.  Fields up to @ref_page_refs are
 * written by the guest before @magic (a release store) and never change.
 */
struct rtr_xen_ctl {
	uint64_t magic;			/* RTR_XEN_MAGIC, written last */
	uint16_t abi_major;		/* dom0 refuses another major */
	uint16_t abi_minor;
	uint32_t page_size;		/* RTR_XEN_PAGE_SIZE */
	uint8_t uuid[16];		/* the region's trace UUID */
	uint32_t region_pages;		/* pages of the region, <= RTR_XEN_MAX_PAGES */
	uint32_t ref_pages;		/* ceil(region_pages / RTR_XEN_REFS_PER_PAGE) */
	uint32_t ncpus;			/* streams, <= RTR_XEN_MAX_CPUS, as in the region */
	uint32_t evtchn;		/* the guest's port (as in xenstore) */
	uint32_t backend_domid;		/* the domain the pages are granted to */
	uint32_t producer_pid;		/* the tracing process, inside the guest */
	uint8_t reserved0[8];
	uint32_t ref_page_refs[RTR_XEN_MAX_REF_PAGES];	/* grant refs of the ref pages */

	/* Run time.  The guest's line: */
	uint8_t guest_live __attribute__((aligned(64)));
				/* 1 while the producer's process lives: its
				 * kernel zeroes it and notifies the channel
				 * when the process's mapping goes */
	uint8_t reserved1[3];
	uint32_t heartbeat;	/* bumped by the guest's flusher at least every
				 * 200 ms; a dom0 that may not ask Xen for the
				 * domain's state takes 10 s of stillness as
				 * "not running" */
	uint8_t reserved2[56];
	/* dom0's line: */
	uint32_t flush_req __attribute__((aligned(64)));	/* bumped by dom0, then notify */
	uint32_t reserved3[15];
	/* dom0's words per stream, indexed by CPU */
	struct rtr_xen_cons cpu[RTR_XEN_MAX_CPUS] __attribute__((aligned(64)));
};

#ifdef __cplusplus
}
#endif
#endif /* RINGTRACE_XEN_H */
