// SPDX-License-Identifier: MIT
/*
 * rtr-trigger-prog - a server's life in miniature for record --trigger
 * (tests/consumer/test_trigger.c): REQUESTS requests, one every 200 us,
 * each a task "GET /item/N" created, labelled, resolved, with the counter
 * "queue length" moving (N % 20) and a typed event app:request (u64 id,
 * s32 status, string path) for each; and the rare things the triggers are
 * to catch, each at the request number given:
 *   --slow N     request N takes 30 ms
 *   --spike N    the queue length is 1000 at request N
 *   --error N    request N has status 503
 *   --lost N     at request N, a should_resolve task "lost reply" that
 *                never resolves
 *   --tail MS    after the last request, MS ms more of requests-free
 *                running (a flusher's closes only)
 *   --scribble N from request N on, the program writes random bytes over
 *                its own ring's packets as it goes (an adversary of the
 *                recorder that reads them)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <ringtrace/region.h>
#include <ringtrace/ringtrace.h>
#include <ringtrace/event.h>

#define APP_REQUEST(F) F(u64, id) F(s32, status) F(string, path)
RTR_EVENT_DECLARE(app, request, APP_REQUEST)
RTR_EVENT_DEFINE(app, request, APP_REQUEST)

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, us % 1000000 * 1000 };

	nanosleep(&ts, NULL);
}

/* The ring's buffers, mapped writable: NULL if the region cannot be. */
static uint8_t *map_region(struct rtr_region_hdr *h)
{
	int fd = open(rtr_region_path(), O_RDWR);
	void *p;

	if (fd < 0 || pread(fd, h, sizeof(*h), 0) != (ssize_t)sizeof(*h)) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	p = mmap(NULL, h->region_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	return p == MAP_FAILED ? NULL : p;
}

/* 64 random bytes at 16 random places of the ring's buffers (never a control page). */
static void scribble(uint8_t *base, const struct rtr_region_hdr *h, unsigned *seed)
{
	uint64_t buf = (uint64_t)h->packet_size * h->packets_per_cpu;

	for (int i = 0; i < 16; i++) {
		uint32_t cpu = (uint32_t)rand_r(seed) % h->ncpus;
		uint64_t at = ((uint64_t)rand_r(seed) << 16 ^ (uint64_t)rand_r(seed)) % (buf - 64);
		uint8_t *p = base + h->cpu_off + cpu * h->cpu_stride + RTR_CPU_CTL_SIZE + at;

		for (int b = 0; b < 64; b++)
			p[b] = (uint8_t)rand_r(seed);
	}
}

int main(int argc, char **argv)
{
	long scribble_from = -1;
	unsigned seed = 1;
	struct rtr_region_hdr h;
	uint8_t *ring = NULL;
	long requests = 2000, slow = -1, spike = -1, error = -1, lost = -1, tail = 0;
	struct rtr_config cfg = { .struct_size = sizeof(cfg) };
	uint64_t main_task;
	uint32_t qlen;

	for (int i = 1; i + 1 < argc; i += 2) {
		long v = atol(argv[i + 1]);

		if (!strcmp(argv[i], "--requests"))
			requests = v;
		else if (!strcmp(argv[i], "--slow"))
			slow = v;
		else if (!strcmp(argv[i], "--spike"))
			spike = v;
		else if (!strcmp(argv[i], "--error"))
			error = v;
		else if (!strcmp(argv[i], "--lost"))
			lost = v;
		else if (!strcmp(argv[i], "--tail"))
			tail = v;
		else if (!strcmp(argv[i], "--scribble"))
			scribble_from = v;
		else {
			fprintf(stderr, "rtr-trigger-prog: unknown option %s\n", argv[i]);
			return 2;
		}
	}
	/* under ringtrace record, the library started from its environment */
	if (!rtr_tracing() && rtr_start(&cfg)) {
		fprintf(stderr, "rtr-trigger-prog: not traced\n");
		return 1;
	}
	main_task = rtr_task_id();
	rtr_switch(main_task);
	rtr_counter_register("queue length", &qlen);
	for (long n = 0; n < requests; n++) {
		uint64_t t = rtr_task_id();
		char label[40];

		snprintf(label, sizeof(label), "GET /item/%ld", n);
		rtr_create(main_task, t, RTR_KIND_REQUEST);
		rtr_label(t, label);
		rtr_counter_set(qlen, n == spike ? 1000 : n % 20);
		if (n == lost) {
			uint64_t w = rtr_named_wait(main_task, "lost reply");

			rtr_should_resolve(w);
		}
		if (n == scribble_from && !(ring = map_region(&h))) {
			fprintf(stderr, "rtr-trigger-prog: cannot map %s\n", rtr_region_path());
			return 1;
		}
		if (ring)
			scribble(ring, &h, &seed);
		sleep_us(n == slow ? 30000 : 200);
		RTR_TRACE(app, request, .id = (uint64_t)n, .status = n == error ? 503 : 200,
			  .path = label);
		rtr_resolve(main_task, t);
	}
	sleep_us(tail * 1000);
	rtr_stop();
	return 0;
}
