// SPDX-License-Identifier: MIT
/*
 * ringtrace-xen-hostile - a Xen guest (simulated or real) that traces and,
 * meanwhile, attacks the dom0 consumer through everything dom0 reads from
 * it: the control page's header, grant references and dom0's own words,
 * the ref pages, the region's header, the xenstore keys, and spurious
 * event-channel notifications.  Every so often it puts the true values
 * back, so that dom0's attaches sometimes succeed and read a region that
 * moves under them.  tests/xen/test_xen.c runs it against `ringtrace`.
 *
 *   --seconds S     how long to attack (default 3): a deadline, whatever
 *                   the mutations cost (a xenstore write under emulation)
 *   --mutations N   how many mutations, spread over the time (default 3000)
 *   --seed N        the pseudo-random sequence
 *   --threads N     writer threads tracing meanwhile (default 2)
 *
 * SIGTERM or SIGINT ends the attack early and cleanly (exit 0): a test that
 * has seen what it needs stops the guest instead of guessing a duration.
 * Tracing is started with RTR_CONFIG_XEN; the simulation comes from
 * RINGTRACE_XENSIM and RINGTRACE_XENSIM_DOMID.  Prints "mutations N" (and
 * progress every 1000 on standard error).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <ringtrace/ringtrace.h>
#include <ringtrace/xen.h>
#include "platform/platform.h"
#include "platform/xen.h"
#include "ringbuf/ring.h"

static volatile int stop;
static volatile sig_atomic_t told_to_stop;

static void on_term(int sig)
{
	(void)sig;
	told_to_stop = 1;
}
static uint64_t rng;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void *writer(void *arg)
{
	uint32_t n = 0;

	while (!stop) {
		rtr_note("writer %u event %u", (unsigned)(uintptr_t)arg, n++);
		if (!(n % 64))
			usleep(100);
	}
	return NULL;
}

/* A value that is wrong in an interesting way. */
static uint32_t evil(uint32_t truth)
{
	switch (next() % 8) {
	case 0: return 0;
	case 1: return UINT32_MAX;
	case 2: return truth + 1;
	case 3: return truth - 1;
	case 4: return truth * 2;
	case 5: return 1u << (next() % 32);
	case 6: return (uint32_t)next() % 70000;
	default: return (uint32_t)next();
	}
}

static const char *keys[] = { "ring-ref", "event-channel", "region-pages", "ref-pages",
			      "ncpus", "abi", "pid" };

int main(int argc, char **argv)
{
	struct rtr_config cfg = { .struct_size = sizeof(cfg), .flags = RTR_CONFIG_XEN,
				  .packet_size = 4096, .packets_per_cpu = 4 };
	double secs = 3;
	unsigned long mutations = 3000, threads = 2, done = 0;
	struct rtr_xen_guest_view v;
	struct rtr_xen_ctl saved;
	struct rtr_region_hdr hsaved;
	struct rtr_ring *ring;
	uint32_t *refs_saved;
	char vals[7][16];
	pthread_t t[16];
	uint64_t deadline;
	int ret;

	rng = 0x9E3779B97F4A7C15ull;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			secs = atof(argv[++i]);
		else if (!strcmp(argv[i], "--mutations") && i + 1 < argc)
			mutations = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			rng ^= strtoull(argv[++i], NULL, 0) * 0xff51afd7ed558ccdull;
		else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
			threads = strtoul(argv[++i], NULL, 0);
		else {
			fprintf(stderr, "usage: ringtrace-xen-hostile [--seconds S] [--mutations N] "
				"[--seed N] [--threads N]\n");
			return 2;
		}
	}
	if (threads > 16)
		threads = 16;
	{
		struct sigaction sa = { .sa_handler = on_term };

		sigemptyset(&sa.sa_mask);
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGINT, &sa, NULL);
	}
	ret = rtr_start(&cfg);
	if (ret) {
		fprintf(stderr, "ringtrace-xen-hostile: rtr_start: %s\n", strerror(-ret));
		return 1;
	}
	ring = __atomic_load_n(&rtr_slot, __ATOMIC_ACQUIRE);
	if (rtr_xen_region_view(&ring->mem, &v)) {
		fprintf(stderr, "ringtrace-xen-hostile: not tracing into granted pages\n");
		return 1;
	}
	memcpy(&saved, v.ctl, sizeof(saved));
	memcpy(&hsaved, ring->hdr, sizeof(hsaved));
	refs_saved = malloc((size_t)v.nref * RTR_XEN_REFS_PER_PAGE * 4);
	if (!refs_saved)
		return 1;
	memcpy(refs_saved, v.refs, (size_t)v.nref * RTR_XEN_REFS_PER_PAGE * 4);
	for (int i = 0; i < 7; i++) {
		char path[64];

		snprintf(path, sizeof(path), RTR_XEN_XS_DIR "/%s", keys[i]);
		if (rtr_xs_read(v.x, path, vals[i], sizeof(vals[i])) < 0)
			vals[i][0] = '\0';
	}
	for (unsigned long i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, writer, (void *)(uintptr_t)i);

	deadline = rtr_monotonic_ns() + (uint64_t)(secs * 1e9);
	for (; done < mutations && rtr_monotonic_ns() < deadline && !told_to_stop; done++) {
		struct rtr_xen_ctl *c = v.ctl;

		if (done && done % 1000 == 0)
			fprintf(stderr, "ringtrace-xen-hostile: %lu mutations\n", done);
		uint32_t cpu = (uint32_t)next() % RTR_XEN_MAX_CPUS;

		switch (next() % 12) {
		case 0:
			c->magic ^= 1ull << (next() % 64);
			break;
		case 1:
			c->region_pages = evil(saved.region_pages);
			break;
		case 2:
			c->ref_pages = evil(saved.ref_pages);
			c->ncpus = evil(saved.ncpus);
			break;
		case 3:
			c->evtchn = evil(saved.evtchn);
			c->abi_major = (uint16_t)evil(saved.abi_major);
			break;
		case 4:
			c->ref_page_refs[next() % RTR_XEN_MAX_REF_PAGES] = evil(saved.ref_page_refs[0]);
			break;
		case 5: {
			uint32_t i = (uint32_t)(next() % ((uint64_t)v.nref * RTR_XEN_REFS_PER_PAGE));

			v.refs[i] = evil(refs_saved[i]);
			break;
		}
		case 6:
			__atomic_store_n(&c->cpu[cpu].cons, next() % 2 ? next() : next() % 65536,
					 __ATOMIC_RELAXED);
			__atomic_store_n(&c->cpu[cpu].notify_at, next(), __ATOMIC_RELAXED);
			break;
		case 7: {
			int k = (int)(next() % 7);
			char path[64], val[32];
			const char *p[1] = { path }, *w[1] = { val };

			snprintf(path, sizeof(path), RTR_XEN_XS_DIR "/%s", keys[k]);
			switch (next() % 5) {
			case 0: snprintf(val, sizeof(val), "%u", evil(0)); break;
			case 1: snprintf(val, sizeof(val), "%s", "12junk"); break;
			case 2: val[0] = '\0'; break;
			case 3: snprintf(val, sizeof(val), "%s", "-1"); break;
			default: snprintf(val, sizeof(val), "%s", "99999999999999"); break;
			}
			rtr_xs_write(v.x, p, w, 1);
			break;
		}
		case 8:
			switch (next() % 4) {
			case 0: ring->hdr->ncpus = evil(hsaved.ncpus); break;
			case 1: ring->hdr->cpu_off = evil((uint32_t)hsaved.cpu_off); break;
			case 2: ring->hdr->packet_size = evil(hsaved.packet_size); break;
			default: ring->hdr->region_size = evil((uint32_t)hsaved.region_size); break;
			}
			break;
		case 9:
			for (int k = (int)(next() % 8); k >= 0; k--)
				rtr_xen_notify(v.x, v.port);
			break;
		case 10:
			c->guest_live = (uint8_t)(next() % 2);
			break;
		default:
			/* The truth again: attaches succeed, then meet the next mutations. */
			memcpy(c, &saved, offsetof(struct rtr_xen_ctl, guest_live));
			c->guest_live = 1;
			memcpy(v.refs, refs_saved, (size_t)v.nref * RTR_XEN_REFS_PER_PAGE * 4);
			ring->hdr->ncpus = hsaved.ncpus;
			ring->hdr->cpu_off = hsaved.cpu_off;
			ring->hdr->packet_size = hsaved.packet_size;
			ring->hdr->region_size = hsaved.region_size;
			for (int k = 0; k < 7; k++) {
				char path[64];
				const char *p[1] = { path }, *w[1] = { vals[k] };

				snprintf(path, sizeof(path), RTR_XEN_XS_DIR "/%s", keys[k]);
				rtr_xs_write(v.x, p, w, 1);
			}
			break;
		}
		/* Spread what is left over the time left. */
		{
			uint64_t now = rtr_monotonic_ns();

			if (now < deadline && mutations > done + 1)
				usleep((useconds_t)((deadline - now) / 1000 / (mutations - done)));
		}
	}
	stop = 1;
	for (unsigned long i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	/* Leave the truth behind, so that the last attach can finish the trace. */
	memcpy(v.ctl, &saved, offsetof(struct rtr_xen_ctl, guest_live));
	v.ctl->guest_live = 1;
	memcpy(v.refs, refs_saved, (size_t)v.nref * RTR_XEN_REFS_PER_PAGE * 4);
	memcpy(ring->hdr, &hsaved, offsetof(struct rtr_region_hdr, metadata_len));
	free(refs_saved);
	rtr_stop();
	printf("mutations %lu\n", done);
	fflush(stdout);
	return 0;
}
