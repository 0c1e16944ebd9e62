// SPDX-License-Identifier: MIT
/*
 * platform/unix/net.c - TCP for the relayd's two sides (consumer/relayd.c,
 * reader/live.c): a connection within a timeout, whole sends and receives
 * each bounded by it (platform/platform.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>
#include "platform/platform.h"
#include "format/error.h"

int rtr_tcp_connect(const char *host, uint16_t port, int timeout_ms, char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV };
	struct timeval tv = { timeout_ms / 1000, (timeout_ms % 1000) * 1000 };
	struct addrinfo *ai, *a;
	char ps[8];
	int fd = -1, ret, one = 1;

	snprintf(ps, sizeof(ps), "%u", port);
	ret = getaddrinfo(host, ps, &hints, &ai);
	if (ret) {
		return rtr_errf(err, errlen, EHOSTUNREACH, "%s", gai_strerror(ret));
	}
	ret = -ECONNREFUSED;
	for (a = ai; a; a = a->ai_next) {
		struct pollfd pfd;
		socklen_t len = sizeof(int);
		int soerr = 0;

		fd = socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd < 0) {
			ret = -errno;
			continue;
		}
		if (connect(fd, a->ai_addr, a->ai_addrlen) < 0 && errno != EINPROGRESS) {
			ret = -errno;
			goto next;
		}
		pfd = (struct pollfd){ .fd = fd, .events = POLLOUT };
		do
			ret = poll(&pfd, 1, timeout_ms);
		while (ret < 0 && errno == EINTR);
		if (ret == 0) {
			ret = -ETIMEDOUT;
			goto next;
		}
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) < 0 || soerr) {
			ret = -(soerr ? soerr : errno);
			goto next;
		}
		if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0 ||
		    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0 ||
		    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0) {
			ret = -errno;
			goto next;
		}
		/* Commands wait for their answers: no Nagle delay on them. */
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		freeaddrinfo(ai);
		return fd;
next:
		close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	return rtr_errf(err, errlen, -ret, "%s",
			ret == -ETIMEDOUT ? "no answer within the timeout" : strerror(-ret));
}

int rtr_send_all(int fd, struct iovec *iov, int n)
{
	while (n > 0) {
		struct msghdr m = { .msg_iov = iov, .msg_iovlen = (size_t)n };
		ssize_t w = sendmsg(fd, &m, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return errno == EWOULDBLOCK ? -EAGAIN : -errno;
		rtr_iov_advance(&iov, &n, (size_t)w);
	}
	return 0;
}

int rtr_recv_all(int fd, void *buf, size_t n)
{
	uint8_t *p = buf;

	while (n) {
		ssize_t got = recv(fd, p, n, 0);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return errno == EWOULDBLOCK ? -EAGAIN : -errno;
		if (got == 0)
			return -ENODATA;
		p += got;
		n -= (size_t)got;
	}
	return 0;
}
