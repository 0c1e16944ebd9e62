// SPDX-License-Identifier: MIT
/*
 * ringtrace-server - a small multi-threaded server on loopback, the one the
 * README's tutorial records: an accept loop (thread "acceptor"), worker
 * threads ("worker-N") behind a queue, and an epoll loop (the main thread)
 * that owns the connections, written with the promise layer of
 * examples/promise/ and so traced with the task model: a task per
 * connection ("conn N"), per read, per request ("GET n") and per reply;
 * counters "queue length", "bytes sent" and "connections".  Under
 * `ringtrace record --pthread` its threads, the queue's mutex and
 * condition variable join the same trace.
 *
 * Protocol, one request per line: "GET N" -> "OK N HASH" (N rounds of a
 * hash, computed by a worker); "QUIT" stops the server once every
 * connection is closed.  ringtrace-loadgen is its client.
 *
 *   ringtrace-server [--port P] [--port-file F] [--workers N]
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <ringtrace/ringtrace.h>
#include "examples/promise/promise.h"

#define MAX_WORKERS 16
#define LINE_MAX_ 128

static struct pr_loop *loop;
static uint32_t c_queue, c_bytes, c_conns;
static int listen_fd = -1;
static unsigned nconns;
static bool quitting;

/* ---- the work queue and its workers ------------------------------------------------ */

struct conn;

struct job {
	struct conn *conn;
	struct pr_promise *req;
	uint64_t rounds, hash;
	struct job *next;
};

static pthread_mutex_t q_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t q_cond = PTHREAD_COND_INITIALIZER;
static struct job *q_head, **q_tail = &q_head;
static bool q_stop;

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

static void job_done(void *arg);

static void *worker(void *arg)
{
	char name[16];

	snprintf(name, sizeof(name), "worker-%d", (int)(intptr_t)arg);
	pthread_setname_np(pthread_self(), name);
	for (;;) {
		struct job *j;

		pthread_mutex_lock(&q_lock);
		while (!q_head && !q_stop)
			pthread_cond_wait(&q_cond, &q_lock);
		j = q_head;
		if (j) {
			q_head = j->next;
			if (!q_head)
				q_tail = &q_head;
			rtr_counter_add(c_queue, -1);
		}
		pthread_mutex_unlock(&q_lock);
		if (!j)
			return NULL;
		/* The request runs here, on this worker's CPU. */
		rtr_switch(pr_task(j->req));
		j->hash = work(j->rounds);
		rtr_switch(0);
		pr_post(loop, job_done, j);
	}
}

static void submit(struct job *j)
{
	pthread_mutex_lock(&q_lock);
	j->next = NULL;
	*q_tail = j;
	q_tail = &j->next;
	rtr_counter_add(c_queue, 1);
	pthread_cond_signal(&q_cond);
	pthread_mutex_unlock(&q_lock);
}

/* ---- connections, in the loop ------------------------------------------------------ */

/*
 * struct conn - one client.  Its promises live in @arena, freed when it
 * closes; @task stands for the whole connection.  @pending: requests not
 * yet answered; @eof: the client is done sending.
 */
struct conn {
	int fd;
	unsigned id;
	struct pr_arena *arena;
	struct pr_promise *task;
	char in[4096];
	size_t inlen;
	unsigned pending;
	bool eof;
};

static void read_more(struct conn *c);

/* After the callback that closed it: its promises, the running one among them, live till then. */
static void conn_free(void *arg)
{
	struct conn *c = arg;

	pr_arena_free(c->arena);
	free(c);
}

static void conn_close(struct conn *c)
{
	close(c->fd);
	pr_resolve(c->task, pr_current(loop), 0);
	pr_post(loop, conn_free, c);
	nconns--;
	rtr_counter_add(c_conns, -1);
	if (quitting && !nconns)
		pr_loop_stop(loop);
}

/* Write all of @buf; under back-pressure the loop waits here (the client reads). */
static int send_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EAGAIN) {
			struct pollfd p = { .fd = fd, .events = POLLOUT };

			poll(&p, 1, 1000);
			continue;
		}
		if (n <= 0)
			return -1;
		rtr_counter_add(c_bytes, n);
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

static struct pr_promise *send_reply(void *arg, struct pr_promise *req)
{
	struct job *j = arg;
	struct conn *c = j->conn;
	char line[LINE_MAX_];
	int n;

	n = snprintf(line, sizeof(line), "OK %llu %016llx\n", (unsigned long long)j->rounds,
		     (unsigned long long)j->hash);
	if (send_all(c->fd, line, (size_t)n))
		c->eof = true;
	(void)req;
	free(j);
	if (--c->pending == 0 && c->eof)
		conn_close(c);
	return NULL;
}

/* A worker finished @arg (a struct job): its request resolves, its reply follows. */
static void job_done(void *arg)
{
	struct job *j = arg;

	pr_resolve(j->req, pr_loop_task(loop), (intptr_t)j->hash);
}

static void start_request(struct conn *c, uint64_t rounds)
{
	struct job *j = calloc(1, sizeof(*j));
	uint64_t prev;
	char label[40];

	if (!j) {
		perror("calloc");
		exit(1);
	}
	snprintf(label, sizeof(label), "GET %llu", (unsigned long long)rounds);
	j->conn = c;
	j->rounds = rounds;
	prev = pr_creator(loop, pr_task(c->task));
	j->req = pr_wait(c->arena, loop, RTR_KIND_REQUEST, label);
	c->pending++;
	pr_then(c->arena, j->req, send_reply, j, "reply");
	pr_creator(loop, prev);
	submit(j);
}

static void handle_line(struct conn *c, char *line)
{
	unsigned long long rounds;

	if (sscanf(line, "GET %llu", &rounds) == 1 && rounds <= 100000000ull) {
		start_request(c, rounds);
	} else if (!strcmp(line, "QUIT")) {
		quitting = true;
		if (listen_fd >= 0)
			shutdown(listen_fd, SHUT_RDWR);	/* the acceptor's accept() returns */
		c->eof = true;
	} else {
		rtr_note("conn %u: bad request", c->id);
		c->eof = true;
	}
}

static struct pr_promise *on_readable(void *arg, struct pr_promise *ready)
{
	struct conn *c = arg;
	ssize_t n;
	char *nl;

	(void)ready;
	n = read(c->fd, c->in + c->inlen, sizeof(c->in) - c->inlen - 1);
	if (n < 0 && errno == EAGAIN)
		goto more;
	if (n <= 0)
		c->eof = true;
	else
		c->inlen += (size_t)n;
	c->in[c->inlen] = 0;
	while ((nl = strchr(c->in, '\n'))) {
		*nl = 0;
		if (nl > c->in && nl[-1] == '\r')
			nl[-1] = 0;
		if (!c->eof)
			handle_line(c, c->in);
		c->inlen -= (size_t)(nl + 1 - c->in);
		memmove(c->in, nl + 1, c->inlen + 1);
	}
	if (c->inlen == sizeof(c->in) - 1)
		c->eof = true;	/* a line longer than any request */
	if (c->eof) {
		if (!c->pending)
			conn_close(c);
		return NULL;
	}
more:
	read_more(c);
	return NULL;
}

/* The connection's reads and requests are its own: created by its task. */
static void read_more(struct conn *c)
{
	uint64_t prev = pr_creator(loop, pr_task(c->task));

	pr_then(c->arena, pr_readable(c->arena, loop, c->fd, "readable"), on_readable, c, "read");
	pr_creator(loop, prev);
}

/* The acceptor handed over @arg, a connected socket. */
static void on_accept(void *arg)
{
	static unsigned next_id;
	struct conn *c = calloc(1, sizeof(*c));
	char label[32];

	if (!c) {
		perror("calloc");
		exit(1);
	}
	c->fd = (int)(intptr_t)arg;
	c->id = ++next_id;
	c->arena = pr_arena_new();
	snprintf(label, sizeof(label), "conn %u", c->id);
	c->task = pr_wait(c->arena, loop, RTR_KIND_TASK, label);
	nconns++;
	rtr_counter_add(c_conns, 1);
	read_more(c);
}

static void *acceptor(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "acceptor");
	for (;;) {
		int one = 1, fd = accept4(listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return NULL;	/* shut down (QUIT) */
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		pr_post(loop, on_accept, (void *)(intptr_t)fd);
	}
}

/* ---- main ---------------------------------------------------------------------------- */

static int listen_on(unsigned port, unsigned *bound)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	socklen_t len = sizeof(a);
	int one = 1, fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 128) ||
	    getsockname(fd, (struct sockaddr *)&a, &len)) {
		fprintf(stderr, "ringtrace-server: 127.0.0.1:%u: %s\n", port, strerror(errno));
		return -1;
	}
	*bound = ntohs(a.sin_port);
	return fd;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: ringtrace-server [--port P] [--port-file FILE] [--workers N]\n"
		   "  listens on 127.0.0.1:P (0, the default: any free port, printed and written\n"
		   "  to FILE); N worker threads (2); requests \"GET ROUNDS\", \"QUIT\" to stop\n");
}

int main(int argc, char **argv)
{
	pthread_t workers[MAX_WORKERS], acc;
	unsigned port = 0, bound, nworkers = 2;
	const char *port_file = NULL;
	int ret;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--port") && i + 1 < argc) {
			port = (unsigned)strtoul(argv[++i], NULL, 10);
		} else if (!strcmp(argv[i], "--port-file") && i + 1 < argc) {
			port_file = argv[++i];
		} else if (!strcmp(argv[i], "--workers") && i + 1 < argc) {
			nworkers = (unsigned)strtoul(argv[++i], NULL, 10);
			if (!nworkers || nworkers > MAX_WORKERS) {
				fprintf(stderr, "ringtrace-server: --workers: 1 to %d\n", MAX_WORKERS);
				return 2;
			}
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
	}
	signal(SIGPIPE, SIG_IGN);
	rtr_counter_register("queue length", &c_queue);
	rtr_counter_register("bytes sent", &c_bytes);
	rtr_counter_register("connections", &c_conns);
	listen_fd = listen_on(port, &bound);
	if (listen_fd < 0)
		return 1;
	loop = pr_loop_new("event loop");
	for (unsigned i = 0; i < nworkers; i++) {
		ret = pthread_create(&workers[i], NULL, worker, (void *)(intptr_t)(i + 1));
		if (ret) {
			fprintf(stderr, "ringtrace-server: pthread_create: %s\n", strerror(ret));
			return 1;
		}
	}
	ret = pthread_create(&acc, NULL, acceptor, NULL);
	if (ret) {
		fprintf(stderr, "ringtrace-server: pthread_create: %s\n", strerror(ret));
		return 1;
	}
	printf("ringtrace-server: listening on 127.0.0.1:%u, %u workers\n", bound, nworkers);
	fflush(stdout);
	if (port_file) {
		FILE *f = fopen(port_file, "w");

		if (!f || fprintf(f, "%u\n", bound) < 0 || fclose(f)) {
			fprintf(stderr, "ringtrace-server: %s: %s\n", port_file, strerror(errno));
			return 1;
		}
	}
	pr_loop_run(loop, NULL, 0);

	pthread_join(acc, NULL);
	pthread_mutex_lock(&q_lock);
	q_stop = true;
	pthread_cond_broadcast(&q_cond);
	pthread_mutex_unlock(&q_lock);
	for (unsigned i = 0; i < nworkers; i++)
		pthread_join(workers[i], NULL);
	close(listen_fd);
	pr_loop_free(loop);
	printf("ringtrace-server: done\n");
	return 0;
}
