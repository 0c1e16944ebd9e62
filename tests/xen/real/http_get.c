// SPDX-License-Identifier: MIT
/*
 * tests/xen/real/http_get.c - an HTTP GET for the real-Xen test bed's dom0,
 * whose static busybox wget crashes (its glibc resolver, even for an
 * address): follow.sh reads `ringtrace view --serve`'s answers with it.
 *
 *   rtr-xen-http-get http://A.B.C.D:PORT/PATH FILE
 *
 * An IPv4 address only (no resolver), HTTP/1.0, 10 s at most.  Writes the
 * body to FILE; exits 0 for a 200, 1 otherwise (the status line, or what
 * failed, on stderr), 2 for a bad URL.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define LIMIT_MS 10000
#define MAX_ANSWER (64u << 20)

static long ms_left(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return LIMIT_MS - ((t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000);
}

/* Wait for @ev on @fd until the limit: 0, or -1 (timed out or failed). */
static int await(int fd, short ev, const struct timespec *t0)
{
	struct pollfd p = { .fd = fd, .events = ev };
	long left = ms_left(t0);

	return left > 0 && poll(&p, 1, (int)left) == 1 ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	char host[64], req[4096], *ans = NULL, *body, *path;
	const char *url = argc == 3 ? argv[1] : "";
	size_t len = 0, cap = 0;
	struct timespec t0;
	unsigned port;
	FILE *out;
	socklen_t elen = sizeof(int);
	int fd, n, err = 0;

	if (sscanf(url, "http://%63[0-9.]:%u%n", host, &port, &n) != 2 || port > 65535 ||
	    url[n] != '/' || inet_pton(AF_INET, host, &sa.sin_addr) != 1) {
		fprintf(stderr, "usage: rtr-xen-http-get http://A.B.C.D:PORT/PATH FILE\n");
		return 2;
	}
	path = (char *)url + n;
	sa.sin_port = htons((uint16_t)port);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) && errno != EINPROGRESS) ||
	    await(fd, POLLOUT, &t0) || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) || err) {
		fprintf(stderr, "rtr-xen-http-get: %s: cannot connect: %s\n", url,
			strerror(err ? err : errno));
		return 1;
	}
	n = snprintf(req, sizeof(req), "GET %s HTTP/1.0\r\nHost: %s:%u\r\n\r\n", path, host, port);
	if (n <= 0 || (size_t)n >= sizeof(req) || write(fd, req, (size_t)n) != n) {
		fprintf(stderr, "rtr-xen-http-get: %s: cannot send the request\n", url);
		return 1;
	}
	for (;;) {
		ssize_t r;

		if (len + 65536 > cap) {
			char *a = cap + 65536 > MAX_ANSWER ? NULL : realloc(ans, cap + 65537);

			if (!a) {
				fprintf(stderr, "rtr-xen-http-get: %s: an answer too long\n", url);
				return 1;
			}
			ans = a;
			cap += 65536;
		}
		if (await(fd, POLLIN, &t0)) {
			fprintf(stderr, "rtr-xen-http-get: %s: no whole answer within %d ms\n", url, LIMIT_MS);
			return 1;
		}
		r = read(fd, ans + len, cap - len);
		if (r < 0 && errno == EAGAIN)
			continue;
		if (r < 0) {
			fprintf(stderr, "rtr-xen-http-get: %s: %s\n", url, strerror(errno));
			return 1;
		}
		if (!r)
			break;
		len += (size_t)r;
	}
	close(fd);
	ans[len] = 0;
	body = strstr(ans, "\r\n\r\n");
	if (!body || strncmp(ans, "HTTP/1.", 7) || strncmp(ans + 8, " 200 ", 5)) {
		fprintf(stderr, "rtr-xen-http-get: %s: %.*s\n", url, (int)strcspn(ans, "\r\n"), ans);
		return 1;
	}
	body += 4;
	out = fopen(argv[2], "w");
	if (!out || fwrite(body, 1, len - (size_t)(body - ans), out) != len - (size_t)(body - ans) ||
	    fclose(out)) {
		fprintf(stderr, "rtr-xen-http-get: %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	free(ans);
	return 0;
}
