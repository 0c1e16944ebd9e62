// SPDX-License-Identifier: MIT
/*
 * ringtrace-loadgen - ringtrace-server's client: C connections, each a
 * thread sending "GET N" and waiting for its "OK N HASH", R requests in
 * all, N drawn from a fixed seed; checks every reply against its own
 * computation of the hash and prints the rate and the latencies.  With
 * --quit it then tells the server to stop.
 *
 *   ringtrace-loadgen --port P [--connections C] [--requests R]
 *                     [--rounds MIN-MAX] [--quit]
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#define MAX_CONNS 64

static unsigned port, nconns = 4, nrequests = 1000;
static uint64_t rounds_min = 20000, rounds_max = 80000;

struct client {
	pthread_t t;
	unsigned id, n;
	uint64_t *lat;
	unsigned bad;
	int err;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The server's work (examples/server/server.c), to check its answers. */
static uint64_t work(uint64_t rounds)
{
	uint64_t x = rounds * 0x9e3779b97f4a7c15ull + 1;

	for (uint64_t i = 0; i < rounds; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	return x;
}

static int connect_local(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int one = 1, fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

/* Read one line into @buf (without its newline); 0, or -1 at EOF or error. */
static int read_line(int fd, char *buf, size_t cap, char *pend, size_t *plen)
{
	for (;;) {
		char *nl = memchr(pend, '\n', *plen);
		ssize_t n;

		if (nl) {
			size_t len = (size_t)(nl - pend);

			if (len >= cap)
				return -1;
			memcpy(buf, pend, len);
			buf[len] = 0;
			*plen -= len + 1;
			memmove(pend, nl + 1, *plen);
			return 0;
		}
		if (*plen == 4096)
			return -1;
		n = read(fd, pend + *plen, 4096 - *plen);
		if (n <= 0)
			return -1;
		*plen += (size_t)n;
	}
}

static void *run(void *arg)
{
	struct client *c = arg;
	uint64_t seed = 0x2545f4914f6cdd1dull * (c->id + 1);
	char pend[4096], line[128], req[64];
	size_t plen = 0;
	int fd = connect_local();

	if (fd < 0) {
		c->err = errno;
		return NULL;
	}
	for (unsigned i = 0; i < c->n; i++) {
		uint64_t rounds, t0, got_rounds, got_hash;
		int len;

		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		rounds = rounds_min + seed % (rounds_max - rounds_min + 1);
		len = snprintf(req, sizeof(req), "GET %llu\n", (unsigned long long)rounds);
		t0 = now_ns();
		if (write(fd, req, (size_t)len) != len || read_line(fd, line, sizeof(line), pend, &plen)) {
			c->err = errno ? errno : EPIPE;
			break;
		}
		c->lat[i] = now_ns() - t0;
		if (sscanf(line, "OK %llu %llx", (unsigned long long *)&got_rounds,
			   (unsigned long long *)&got_hash) != 2 || got_rounds != rounds ||
		    got_hash != work(rounds))
			c->bad++;
	}
	close(fd);
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: ringtrace-loadgen --port P [--connections C] [--requests R]\n"
		   "                         [--rounds MIN-MAX] [--quit]\n"
		   "  C connections (4) send R requests (1000) in all to 127.0.0.1:P, each of\n"
		   "  MIN to MAX rounds of work (20000-80000); --quit stops the server after\n");
}

int main(int argc, char **argv)
{
	struct client cl[MAX_CONNS];
	uint64_t *lat, t0, elapsed;
	unsigned done = 0, bad = 0;
	bool quit = false;
	int status = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--port") && i + 1 < argc) {
			port = (unsigned)strtoul(argv[++i], NULL, 10);
		} else if (!strcmp(argv[i], "--connections") && i + 1 < argc) {
			nconns = (unsigned)strtoul(argv[++i], NULL, 10);
		} else if (!strcmp(argv[i], "--requests") && i + 1 < argc) {
			nrequests = (unsigned)strtoul(argv[++i], NULL, 10);
		} else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) {
			unsigned long long lo, hi;

			if (sscanf(argv[++i], "%llu-%llu", &lo, &hi) != 2 || !lo || lo > hi) {
				fprintf(stderr, "ringtrace-loadgen: --rounds MIN-MAX, 0 < MIN <= MAX\n");
				return 2;
			}
			rounds_min = lo;
			rounds_max = hi;
		} else if (!strcmp(argv[i], "--quit")) {
			quit = true;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (!port || !nconns || nconns > MAX_CONNS || nrequests < nconns) {
		usage(stderr);
		return 2;
	}
	lat = calloc(nrequests, sizeof(*lat));
	if (!lat) {
		perror("calloc");
		return 1;
	}
	t0 = now_ns();
	for (unsigned i = 0; i < nconns; i++) {
		cl[i] = (struct client){ .id = i, .n = nrequests / nconns + (i < nrequests % nconns),
					 .lat = lat + done };
		done += cl[i].n;
		if (pthread_create(&cl[i].t, NULL, run, &cl[i])) {
			perror("pthread_create");
			return 1;
		}
	}
	for (unsigned i = 0; i < nconns; i++) {
		pthread_join(cl[i].t, NULL);
		bad += cl[i].bad;
		if (cl[i].err) {
			fprintf(stderr, "ringtrace-loadgen: connection %u: %s\n", i, strerror(cl[i].err));
			status = 1;
		}
	}
	elapsed = now_ns() - t0;
	qsort(lat, nrequests, sizeof(*lat), cmp_u64);
	printf("ringtrace-loadgen: %u requests on %u connections in %.3f s: %.0f requests/s, "
	       "latency p50 %.1f us, p99 %.1f us; %u wrong replies\n",
	       nrequests, nconns, (double)elapsed / 1e9, nrequests / ((double)elapsed / 1e9),
	       (double)lat[nrequests / 2] / 1e3, (double)lat[nrequests * 99 / 100] / 1e3, bad);
	if (bad)
		status = 1;
	if (quit) {
		int fd = connect_local();

		if (fd < 0 || write(fd, "QUIT\n", 5) != 5) {
			fprintf(stderr, "ringtrace-loadgen: cannot send QUIT: %s\n", strerror(errno));
			status = 1;
		}
		if (fd >= 0)
			close(fd);
	}
	free(lat);
	return status;
}
