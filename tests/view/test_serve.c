// SPDX-License-Identifier: MIT
/*
 * tests/view/test_serve.c - `ringtrace view --serve` (tools/serve.c) as a
 * client sees it, over raw sockets: the page, the meta and the window query
 * answered; hostile requests (no or a wrong token, path traversal, other
 * methods, a foreign Host, huge or malformed ranges, garbage, a huge URL)
 * refused and the server still answering after them; loopback by default;
 * a clean exit (status 0, and no leak under ASan) on SIGINT and SIGTERM.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include "tests/helpers.h"

TestSuite(view_serve, .timeout = 180);

static char dir[64];
static char trace[128];

static void setup(void)
{
	char cmd[512];
	char *out;
	int st;

	t_mkdtemp(dir, sizeof(dir), "view-serve");
	snprintf(cmd, sizeof(cmd), "'%s/rtr-viewer-traces' '%s/t' 2>&1", t_bindir(), dir);
	out = t_sh(cmd, &st);
	cr_assert_eq(st, 0, "%s", out);
	free(out);
	snprintf(trace, sizeof(trace), "%s/t/basic", dir);
}

static void teardown(void)
{
	t_rm_rf(dir);
}

struct srv {
	pid_t pid;
	int out;		/* its standard output */
	unsigned port;
	char token[64];
	char url[160];
};

/* `ringtrace view --serve ARGS... TRACE`, up to its first line (the URL). */
static void start(struct srv *s, const char *const *args)
{
	char line[256] = "", bin[512];
	const char *argv[16];
	int p[2], n = 0, argc = 0;
	struct pollfd pfd;
	char *colon;

	snprintf(bin, sizeof(bin), "%s/ringtrace", t_bindir());
	argv[argc++] = bin;
	argv[argc++] = "view";
	argv[argc++] = "--serve";
	while (args && *args)
		argv[argc++] = *args++;
	argv[argc++] = trace;
	argv[argc] = NULL;
	cr_assert_eq(pipe(p), 0);
	s->pid = fork();
	cr_assert_geq(s->pid, 0);
	if (!s->pid) {
		char err[160];
		int fd;

		/* its messages kept beside the trace, out of the tests' output */
		snprintf(err, sizeof(err), "%s/server.err", dir);
		fd = open(err, O_WRONLY | O_CREAT | O_APPEND, 0600);
		if (fd >= 0)
			dup2(fd, 2);
		/* a test that fails before stop() leaves no server behind */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		execv(bin, (char *const *)argv);
		_exit(127);
	}
	close(p[1]);
	s->out = p[0];
	pfd = (struct pollfd){ .fd = p[0], .events = POLLIN };
	while (n < (int)sizeof(line) - 1 && !strchr(line, '\n')) {
		ssize_t r;

		cr_assert_eq(poll(&pfd, 1, 60000), 1, "no URL within 60 s");
		r = read(p[0], line + n, sizeof(line) - 1 - (size_t)n);
		cr_assert_gt(r, 0, "the server ended before printing its URL");
		n += (int)r;
		line[n] = 0;
	}
	*strchr(line, '\n') = 0;
	cr_assert_eq(strncmp(line, "http://127.0.0.1:", 17), 0, "%s", line);
	snprintf(s->url, sizeof(s->url), "%s", line);
	s->port = (unsigned)strtoul(line + 17, &colon, 10);
	cr_assert_eq(*colon, '/', "%s", line);
	cr_assert_eq(strlen(colon), 34, "a 128-bit token in hex: %s", line);
	snprintf(s->token, sizeof(s->token), "%.32s", colon + 1);
}

/* Stop it with @sig: it exits 0, promptly (under ASan: no leak either). */
static void stop(struct srv *s, int sig)
{
	int st;

	cr_assert_eq(kill(s->pid, sig), 0);
	st = t_wait_exit(s->pid, 30, "ringtrace view --serve");
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "after signal %d: status %#x", sig, st);
	close(s->out);
}

/*
 * @req sent as is to the server; the answer's status (0 if the server
 * closed without one), its body in @body (malloc'd, may be NULL).
 */
static size_t body_len;	/* the last answer's body, in bytes (a picture's are not text) */

static int http(const struct srv *s, const char *req, size_t len, char **body)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)s->port) };
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap + 1);
	int fd = socket(AF_INET, SOCK_STREAM, 0), status = 0;

	cr_assert(buf && fd >= 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	cr_assert_eq(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0, "%s", strerror(errno));
	for (size_t off = 0; off < len;) {
		ssize_t w = send(fd, req + off, len - off, MSG_NOSIGNAL);

		if (w <= 0)	/* the server may refuse before reading it all */
			break;
		off += (size_t)w;
	}
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t r;

		cr_assert_eq(poll(&pfd, 1, 30000), 1, "no answer within 30 s");
		r = recv(fd, buf + n, cap - n, 0);
		if (r <= 0)
			break;
		n += (size_t)r;
		if (n == cap) {
			cap *= 2;
			buf = realloc(buf, cap + 1);
			cr_assert_not_null(buf);
		}
	}
	close(fd);
	buf[n] = 0;
	if (n > 12 && !strncmp(buf, "HTTP/1.", 7))
		status = atoi(buf + 9);
	if (body) {
		char *b = strstr(buf, "\r\n\r\n");

		body_len = b ? n - (size_t)(b + 4 - buf) : 0;
		*body = malloc(body_len + 1);
		cr_assert_not_null(*body);
		memcpy(*body, b ? b + 4 : "", body_len);
		(*body)[body_len] = 0;
	}
	free(buf);
	return status;
}

/* GET @path (after the host), with the right Host unless @host. */
static int get(const struct srv *s, const char *method, const char *path, const char *host, char **body)
{
	char req[4096];
	int n = snprintf(req, sizeof(req), "%s %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n",
			 method, path, host ? host : "127.0.0.1");

	return http(s, req, (size_t)n, body);
}

/* '"count":C,' in a static buffer */
static const char *P_COUNT(long long c)
{
	static char b[48];

	snprintf(b, sizeof(b), "\"count\":%lld,", c);
	return b;
}

static char *path(const struct srv *s, const char *rest)
{
	static char p[2048];

	snprintf(p, sizeof(p), "/%s/%s", s->token, rest);
	return p;
}

Test(view_serve, answers_the_page_the_meta_and_the_window_query, .init = setup, .fini = teardown)
{
	struct srv s;
	char *body;

	start(&s, NULL);
	cr_assert_eq(get(&s, "GET", path(&s, ""), NULL, &body), 200);
	cr_assert(strstr(body, "<script src=\"serve.js\">"), "%s", body);
	free(body);
	cr_assert_eq(get(&s, "GET", path(&s, "serve.js"), NULL, &body), 200);
	cr_assert(strstr(body, "api/window"));
	free(body);
	cr_assert_eq(get(&s, "GET", path(&s, "api/meta"), NULL, &body), 200);
	cr_assert(strstr(body, "\"ntasks\":8,\"nrows\":5"), "%s", body);
	free(body);
	cr_assert_eq(get(&s, "GET", path(&s, "api/window?width=20"), NULL, &body), 200);
	/* the 8 tasks of the basic trace, every one in view */
	cr_assert(strstr(body, "\"tasks_in_view\":8,"), "%s", body);
	cr_assert(strstr(body, "\"detail\":\"exact\""), "%s", body);
	free(body);
	cr_assert_eq(get(&s, "GET", path(&s, "api/task?i=1"), NULL, &body), 200);
	cr_assert(strstr(body, "\"task\":1,"), "%s", body);
	free(body);
	cr_assert_eq(get(&s, "GET", path(&s, "api/search?q=%2F%5E(alpha%7Cbeta)%24%2F"), NULL, &body), 200);
	cr_assert(strstr(body, "\"count\":2,"), "%s", body);
	free(body);
	/* each task's critical path: its segments contiguous from its start to its end */
	for (int t = 0; t < 8; t++) {
		char q[32];
		const char *a, *b;
		long long start, end, prev;
		int n = 0;

		snprintf(q, sizeof(q), "api/path?i=%d", t);
		cr_assert_eq(get(&s, "GET", path(&s, q), NULL, &body), 200);
		cr_assert(strstr(body, "\"whats\":[\"running\",\"runnable\","), "%s", body);
		a = strstr(body, "\"start\":");
		b = strstr(body, "\"end\":");
		cr_assert(a && b, "%s", body);
		start = atoll(a + 8);
		end = atoll(b + 6);
		a = strstr(body, "\"t0\":[");
		b = strstr(body, "\"t1\":[");
		cr_assert(a && b, "%s", body);
		a += 6;
		b += 6;
		prev = start;
		while (*a != ']' && *b != ']') {
			char *ea, *eb;
			long long t0 = strtoll(a, &ea, 10), t1 = strtoll(b, &eb, 10);

			cr_assert_eq(t0, prev, "task %d: segment %d starts at %lld, not where the one "
				     "before ended (%lld):\n%s", t, n, t0, prev, body);
			cr_assert_gt(t1, t0, "%s", body);
			prev = t1;
			n++;
			a = ea + (*ea == ',');
			b = eb + (*eb == ',');
		}
		cr_assert_gt(n, 0, "task %d: no segment:\n%s", t, body);
		cr_assert_eq(prev, end, "task %d: the segments end at %lld, the path at %lld", t, prev,
			     end);
		free(body);
	}
	/*
	 * each task's kind's durations: buckets in order, their counts adding
	 * up to n, and each bucket's tasks (lo, hi) as many as it counts
	 */
	for (int t = 0; t < 8; t++) {
		char q[128], *bt;
		const char *lo, *hi, *cnt, *np;
		long long n, sum = 0;

		snprintf(q, sizeof(q), "api/hist?i=%d", t);
		cr_assert_eq(get(&s, "GET", path(&s, q), NULL, &body), 200);
		np = strstr(body, "\"n\":");
		lo = strstr(body, "\"lo\":[");
		hi = strstr(body, "\"hi\":[");
		cnt = strstr(body, "\"count\":[");
		cr_assert(np && lo && hi && cnt, "%s", body);
		n = atoll(np + 4);
		lo += 6;
		hi += 6;
		cnt += 9;
		while (*cnt != ']') {
			char *e1, *e2, *e3;
			long long l = strtoll(lo, &e1, 10), h = strtoll(hi, &e2, 10), c = strtoll(cnt, &e3, 10);

			cr_assert_lt(l, h, "%s", body);
			sum += c;
			snprintf(q, sizeof(q), "api/hist?i=%d&lo=%lld&hi=%lld", t, l, h);
			cr_assert_eq(get(&s, "GET", path(&s, q), NULL, &bt), 200);
			cr_assert(strstr(bt, P_COUNT(c)), "bucket %lld..%lld counts %lld: %s", l, h, c, bt);
			/* and its tasks are those: each one's duration (end - start) in [l, h) */
			{
				const char *ts = strstr(bt, "\"start\":["), *te = strstr(bt, "\"end\":[");
				long long k = 0;

				cr_assert(ts && te, "%s", bt);
				for (ts += 9, te += 7; *ts != ']' && *te != ']'; k++) {
					char *x, *y;
					long long d = -strtoll(ts, &x, 10) + strtoll(te, &y, 10);

					cr_assert(d >= l && d < h, "a task of %lld ns in bucket %lld..%lld: %s",
						  d, l, h, bt);
					ts = x + (*x == ',');
					te = y + (*y == ',');
				}
				cr_assert_eq(k, c, "%lld tasks listed, %lld counted: %s", k, c, bt);
			}
			free(bt);
			lo = e1 + (*e1 == ',');
			hi = e2 + (*e2 == ',');
			cnt = e3 + (*e3 == ',');
		}
		cr_assert_eq(sum, n, "task %d: the buckets count %lld of %lld durations:\n%s", t, sum, n,
			     body);
		free(body);
	}
	/* the basic trace's waits: 3 resolved (stats says the same) */
	{
		int waits = 0;

		for (int t = 0; t < 8; t++) {
			char q[32];

			snprintf(q, sizeof(q), "api/hist?i=%d", t);
			cr_assert_eq(get(&s, "GET", path(&s, q), NULL, &body), 200);
			waits += !!strstr(body, "\"kind\":\"wait\",\"n\":3,");
			free(body);
		}
		cr_assert_gt(waits, 0, "no task's kind is wait with 3 durations");
	}
	cr_assert_eq(get(&s, "HEAD", path(&s, "api/meta"), NULL, NULL), 200);
	stop(&s, SIGTERM);
}

Test(view_serve, hostile_requests_are_refused_and_the_server_goes_on, .init = setup, .fini = teardown)
{
	static const struct {
		const char *method, *path;
		int status;
	} cases[] = {
		{ "GET", "/", 403 },
		{ "GET", "/api/meta", 403 },
		{ "GET", "/00000000000000000000000000000000/api/meta", 403 },
		{ "GET", "/../../../../etc/passwd", 403 },
		{ "GET", "/%s/../../../../etc/passwd", 404 },
		{ "GET", "/%s/%2e%2e/%2e%2e/etc/passwd", 404 },
		{ "GET", "/%s/..%2f..%2fetc%2fpasswd", 404 },
		{ "GET", "/%s/api/meta/../../x", 404 },
		{ "GET", "/%s/api/window?t0=-9223372036854775808&t1=9223372036854775807", 400 },
		{ "GET", "/%s/api/window?t0=0&t1=1152921504606846976", 400 },
		{ "GET", "/%s/api/window?t0=5&t1=5", 400 },
		{ "GET", "/%s/api/window?width=100000", 400 },
		{ "GET", "/%s/api/window?width=0", 400 },
		{ "GET", "/%s/api/window?width=12abc", 400 },
		{ "GET", "/%s/api/window?width=", 400 },
		{ "GET", "/%s/api/window?row0=7&row1=3", 400 },
		{ "GET", "/%s/api/window?row0=-1", 400 },
		{ "GET", "/%s/api/window?arrows=99999999", 400 },
		{ "GET", "/%s/api/task?i=8", 400 },
		{ "GET", "/%s/api/task?i=-1", 400 },
		{ "GET", "/%s/api/task", 400 },
		{ "GET", "/%s/api/path?i=8", 400 },
		{ "GET", "/%s/api/hist?i=8", 400 },
		{ "GET", "/%s/api/hist?i=1&lo=5", 400 },
		{ "GET", "/%s/api/hist?i=1&lo=5&hi=5", 400 },
		{ "GET", "/%s/api/hist?i=1&lo=-1&hi=5", 400 },
		{ "GET", "/%s/api/path", 400 },
		{ "GET", "/%s/api/search", 400 },
		{ "GET", "/%s/api/search?q=", 400 },
		{ "GET", "/%s/api/search?q=/(/", 400 },
		{ "GET", "/%s/api/search?q=a&max=0", 400 },
		{ "GET", "/%s/api/search?q=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 400 },
		{ "POST", "/%s/api/meta", 405 },
		{ "PUT", "/%s/", 405 },
		{ "DELETE", "/%s/", 405 },
		{ "OPTIONS", "/%s/", 405 },
	};
	struct srv s;
	char p[512], *body, *big;
	int st;

	start(&s, NULL);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(p, sizeof(p), cases[i].path, s.token);
		st = get(&s, cases[i].method, p, NULL, &body);
		cr_assert_eq(st, cases[i].status, "%s %s: %d, not %d: %s", cases[i].method, p, st,
			     cases[i].status, body);
		cr_assert_null(strstr(body, "root:"), "%s", p);
		free(body);
	}
	/* the token's right length but one digit off */
	snprintf(p, sizeof(p), "/%s/api/meta", s.token);
	p[1] = p[1] == 'a' ? 'b' : 'a';
	cr_assert_eq(get(&s, "GET", p, NULL, NULL), 403);
	/* a page of another site that resolves to 127.0.0.1 (DNS rebinding) */
	cr_assert_eq(get(&s, "GET", path(&s, "api/meta"), "evil.example", NULL), 403);
	cr_assert_eq(get(&s, "GET", path(&s, "api/meta"), "127.0.0.1:1", NULL), 403);
	/* a body on a GET, garbage, a huge URL: no 200 */
	snprintf(p, sizeof(p), "GET /%s/api/meta HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\n"
		 "Connection: close\r\n\r\nhello", s.token);
	cr_assert_neq(http(&s, p, strlen(p), NULL), 200);
	cr_assert_neq(http(&s, "\x01\x02 garbage\r\n\r\n", 14, NULL), 200);
	big = malloc(200000);
	cr_assert_not_null(big);
	memset(big, 'a', 200000);
	memcpy(big, "GET /", 5);
	memcpy(big + 200000 - 40, " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n\0", 31);
	cr_assert_neq(http(&s, big, strlen(big), NULL), 200);
	free(big);
	/* still there, still right */
	cr_assert_eq(get(&s, "GET", path(&s, "api/meta"), NULL, &body), 200);
	cr_assert(strstr(body, "\"ntasks\":8,"));
	free(body);
	stop(&s, SIGINT);
}

/* The numbers of the JSON array after @key in @body, up to @max: how many (-1: no such key). */
static int numbers(const char *body, const char *key, long long *v, int max)
{
	const char *p = strstr(body, key);
	int n = 0;

	if (!p)
		return -1;
	p += strlen(key);
	while (*p && *p != ']' && n < max) {
		char *e;

		v[n++] = strtoll(p, &e, 10);
		if (e == p)
			return -1;
		p = e + (*e == ',');
	}
	return n;
}

/*
 * A lock's holds in the window's answer: "holds", each by a thread; the
 * queue lock's four on its row, by the thread the program named "holder"
 * (record --pthread --hold-times of rtr-sched-prog contend 4).
 */
Test(view_serve, the_window_says_who_held_each_lock, .init = setup, .fini = teardown)
{
	char q[64], *body;
	long long rows[64], holders[64];
	int nr, nh, by_holder = 0;
	struct srv s;

	snprintf(trace, sizeof(trace), "%s/locks", dir);
	t_record_locks(trace);
	start(&s, NULL);
	cr_assert_eq(get(&s, "GET", path(&s, "api/window?width=1000&row1=100"), NULL, &body), 200);
	cr_assert(strstr(body, "\"holds\":{\"x0\":["), "no holds in the answer: %s", body);
	nr = numbers(strstr(body, "\"holds\":"), "\"row\":[", rows, 64);
	nh = numbers(strstr(body, "\"holds\":"), "\"holder\":[", holders, 64);
	cr_assert(nr >= 4 && nh == nr, "%d rows, %d holders: %s", nr, nh, body);
	free(body);
	for (int i = 0; i < nh; i++) {
		snprintf(q, sizeof(q), "api/task?i=%lld", holders[i]);
		cr_assert_eq(get(&s, "GET", path(&s, q), NULL, &body), 200);
		cr_expect(strstr(body, "\"kind\":\"thread\""), "hold %d's holder, task %lld: %s", i,
			  holders[i], body);
		/* the queue lock's four: on one row, the thread "holder"'s */
		if (strstr(body, "\"name\":\"holder\"")) {
			cr_expect_eq(rows[i], rows[0], "the holds on two rows: %lld, %lld", rows[0],
				     rows[i]);
			by_holder++;
		}
		free(body);
	}
	cr_expect_eq(by_holder, 4, "%d holds by the thread \"holder\"", by_holder);
	stop(&s, SIGTERM);
}

/*
 * The CPU samples in the window's answer (record --sample of
 * rtr-sched-prog burn: a thread "burner" on a CPU 0.3 s): a tick a pixel
 * at most on each thread's row, more than 100 on the burner's.
 */
Test(view_serve, the_window_gives_a_threads_cpu_samples_a_tick_a_pixel, .init = setup,
     .fini = teardown)
{
	char cmd[1024], *out, *body;
	long long xs[1200], rows[1200];
	int st, nx, nr, most = 0;
	struct srv s;

	snprintf(trace, sizeof(trace), "%s/burn", dir);
	snprintf(cmd, sizeof(cmd), "'%s/ringtrace' record -q --sample=1999 -o '%s' -- "
		 "'%s/rtr-sched-prog' burn 300 >/dev/null 2>&1; echo $?", t_bindir(), trace,
		 t_bindir());
	out = t_sh(cmd, &st);
	cr_assert_eq(atoi(out), 0, "recording: %s", out);
	free(out);
	start(&s, NULL);
	cr_assert_eq(get(&s, "GET", path(&s, "api/window?width=1000&row1=100"), NULL, &body), 200);
	cr_assert(strstr(body, "\"samples\":{\"x\":["), "no samples in the answer: %s", body);
	nx = numbers(strstr(body, "\"samples\":"), "\"x\":[", xs, 1200);
	nr = numbers(strstr(body, "\"samples\":"), "\"row\":[", rows, 1200);
	cr_assert(nx > 100 && nx == nr, "%d ticks, %d rows: %s", nx, nr, body);
	/* a row's ticks (a thread's) one a pixel, left to right; the burner's row has most */
	for (int i = 1, run = 1; i <= nx; i++) {
		if (i < nx && rows[i] == rows[i - 1]) {
			cr_assert_gt(xs[i], xs[i - 1], "two ticks in pixel %lld", xs[i]);
			run++;
			continue;
		}
		most = run > most ? run : most;
		run = 1;
	}
	cr_expect_gt(most, 100, "the burner's row has %d ticks", most);
	free(body);
	stop(&s, SIGTERM);
}

Test(view_serve, binds_loopback_by_default, .init = setup, .fini = teardown)
{
	struct srv s;
	char cmd[256], want[32], *out;
	int st;

	start(&s, NULL);
	/* /proc/net/tcp: local address 0100007F (127.0.0.1), state 0A (listening) */
	snprintf(cmd, sizeof(cmd), "awk '$2 ~ /:%04X$/ && $4 == \"0A\" { print $2 }' /proc/net/tcp "
		 "/proc/net/tcp6", s.port);
	out = t_sh(cmd, &st);
	cr_assert_eq(st, 0);
	snprintf(want, sizeof(want), "0100007F:%04X\n", s.port);
	cr_assert_str_eq(out, want, "listening on %s", out);
	free(out);
	stop(&s, SIGTERM);
}

Test(view_serve, a_given_port_and_address_are_used, .init = setup, .fini = teardown)
{
	static const char *const args[] = { "--bind", "127.0.0.1", "--port", "0", NULL };
	struct srv s;

	start(&s, args);
	cr_assert_gt(s.port, 0);
	cr_assert_eq(get(&s, "GET", path(&s, "api/meta"), NULL, NULL), 200);
	stop(&s, SIGINT);
}

/*
 * A trace over the cap (RINGTRACE_VIEW_MAX_EVENTS, half its events): the
 * window of the whole trace is its overview, every event in a column; a
 * narrow window asks for its slice, which comes as a new turn and then
 * answers with its tasks; hostile windows are refused as before; the
 * server stops cleanly with its loader (no leak under ASan).
 */
Test(view_serve, a_trace_too_large_is_served_as_its_overview_and_slices, .init = setup,
     .fini = teardown)
{
	struct srv s;
	char *body, q[256];
	long long lo = 0, hi = 0, turn = -1;
	double sum = 0;
	const char *p;

	snprintf(trace, sizeof(trace), "%s/t/requests", dir);
	setenv("RINGTRACE_VIEW_MAX_EVENTS", "7000", 1);
	start(&s, NULL);
	unsetenv("RINGTRACE_VIEW_MAX_EVENTS");
	cr_assert_eq(get(&s, "GET", path(&s, "api/meta"), NULL, &body), 200);
	cr_assert(strstr(body, "\"overview\":{\"events\":14006,\"slice_max\":3500,"), "%s", body);
	cr_assert(strstr(body, "\"turn\":0,") && strstr(body, "\"done\":false,") &&
		  strstr(body, "\"sliced\":true,"), "%s", body);
	cr_assert_eq(numbers(body, "\"start\":", &lo, 1), 1);
	cr_assert_eq(numbers(body, "\"end\":", &hi, 1), 1);
	free(body);
	cr_assert_eq(get(&s, "GET", path(&s, "api/window?width=100"), NULL, &body), 200);
	cr_assert(strstr(body, "\"overview\":{\"loading\":false,\"events_in_view\":14006,"), "%.300s",
		  body);
	cr_assert(strstr(body, "\"tasks_in_view\":0,"));
	p = strstr(body, "\"lanes\":[[");
	cr_assert_not_null(p);
	for (p += 10; *p && *p != ']'; p++) {
		char *e;

		sum += strtod(p, &e);
		p = e;
		if (*p == ']')
			break;
	}
	cr_assert(sum > 14006 - 0.5 && sum < 14006 + 0.5, "every event in a column: %.2f", sum);
	free(body);
	/* an eighth from a quarter in: asked for, then loaded as turn 1 */
	snprintf(q, sizeof(q), "api/window?width=500&t0=%lld&t1=%lld", lo + (hi - lo) / 4,
		 lo + (hi - lo) / 4 + (hi - lo) / 8);
	cr_assert_eq(get(&s, "GET", path(&s, q), NULL, &body), 200);
	cr_assert(strstr(body, "\"overview\":{\"loading\":true,"), "%.300s", body);
	free(body);
	for (int i = 0; i < 300 && turn < 1; i++) {
		cr_assert_eq(get(&s, "GET", path(&s, "api/meta"), NULL, &body), 200);
		numbers(body, "\"turn\":", &turn, 1);
		if (turn < 1)
			usleep(20000);
		else if (numbers(body, "\"start\":", &lo, 1) != 1 ||	/* the slice's times now */
			 numbers(body, "\"end\":", &hi, 1) != 1)
			cr_assert_fail("no start and end: %s", body);
		free(body);
	}
	cr_assert_eq(turn, 1, "the slice loaded within 6 s");
	snprintf(q, sizeof(q), "api/window?width=500&t0=%lld&t1=%lld", lo + (hi - lo) / 4,
		 lo + (hi - lo) / 4 + (hi - lo) / 8);
	cr_assert_eq(get(&s, "GET", path(&s, q), NULL, &body), 200);
	cr_assert(strstr(body, "\"overview\":null}"), "%.300s", body);
	cr_assert_null(strstr(body, "\"tasks_in_view\":0,"), "%.300s", body);
	free(body);
	/* a picture of the slice's window is drawn; of the overview's, refused */
	snprintf(q, sizeof(q), "api/picture?format=png&width=500&height=200&t0=%lld&t1=%lld",
		 lo + (hi - lo) / 4, lo + (hi - lo) / 4 + (hi - lo) / 8);
	cr_assert_eq(get(&s, "GET", path(&s, q), NULL, &body), 200);
	cr_assert(body_len > 8 && !memcmp(body, "\x89PNG", 4));
	free(body);
	cr_assert_eq(get(&s, "GET", path(&s, "api/picture?format=png&width=500"), NULL, &body), 409);
	cr_expect(strstr(body, "overview"), "%s", body);
	free(body);
	/* the limits stand: too wide, a backwards range */
	cr_assert_eq(get(&s, "GET", path(&s, "api/window?width=9000"), NULL, &body), 400);
	free(body);
	cr_assert_eq(get(&s, "GET", path(&s, "api/window?t0=5&t1=4"), NULL, &body), 400);
	free(body);
	cr_assert_eq(get(&s, "GET", path(&s, "api/window?width=8192"), NULL, &body), 200);
	free(body);
	stop(&s, SIGINT);
	snprintf(trace, sizeof(trace), "%s/t/basic", dir);
}

/*
 * api/picture: the page's view drawn by the one renderer, the same bytes
 * as `view --format png` of that range and size; SVG and PDF too; bad
 * formats, sizes and tasks refused.
 */
Test(view_serve, a_picture_of_the_view_is_the_renderers, .init = setup, .fini = teardown)
{
	struct srv s;
	char *body, q[256], cmd[1024], file[160], *out, *want;
	long long lo = 0, hi = 0;
	size_t n;
	FILE *f;
	int st;

	start(&s, NULL);
	cr_assert_eq(get(&s, "GET", path(&s, "api/meta"), NULL, &body), 200);
	cr_assert_eq(numbers(body, "\"start\":", &lo, 1), 1);
	cr_assert_eq(numbers(body, "\"end\":", &hi, 1), 1);
	free(body);
	snprintf(q, sizeof(q), "api/picture?format=png&t0=%lld&t1=%lld&width=640&height=300", lo,
		 hi + 1);
	cr_assert_eq(get(&s, "GET", path(&s, q), NULL, &body), 200);
	cr_assert(body_len > 8 && !memcmp(body, "\x89PNG\r\n\x1a\n", 8), "not a PNG: %.40s", body);
	snprintf(file, sizeof(file), "%s/view.png", dir);
	snprintf(cmd, sizeof(cmd), "'%s/ringtrace' view --format png -o '%s' --size 640x300 "
		 "--range 0..%lldns '%s' 2>&1", t_bindir(), file, hi + 1 - lo, trace);
	out = t_sh(cmd, &st);
	cr_assert_eq(st, 0, "%s", out);
	free(out);
	want = malloc(body_len + 2);
	cr_assert_not_null(f = fopen(file, "rb"));
	n = fread(want, 1, body_len + 1, f);
	fclose(f);
	cr_expect(n == body_len && !memcmp(want, body, n), "the served picture (%zu bytes) is not "
		  "view --format's (%zu bytes)", body_len, n);
	free(want);
	free(body);
	snprintf(q, sizeof(q), "api/picture?format=svg&t0=%lld&t1=%lld&width=640&selected=1", lo,
		 hi + 1);
	cr_assert_eq(get(&s, "GET", path(&s, q), NULL, &body), 200);
	cr_expect(strstr(body, "<svg") && strstr(body, "width=\"640pt\""), "%.200s", body);
	free(body);
	cr_assert_eq(get(&s, "GET", path(&s, "api/picture?format=pdf"), NULL, &body), 200);
	cr_expect(!strncmp(body, "%PDF-", 5), "%.20s", body);
	free(body);
	static const char *const bad[] = {
		"api/picture", "api/picture?format=bmp", "api/picture?format=png&width=9000",
		"api/picture?format=png&width=8192&height=16384", "api/picture?format=png&height=0",
		"api/picture?format=svg&selected=100000", "api/picture?format=svg&t0=5&t1=4",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_expect_eq(get(&s, "GET", path(&s, bad[i]), NULL, &body), 400, "%s: %s", bad[i], body);
		free(body);
	}
	stop(&s, SIGINT);
}

Test(view_serve, usage_errors_exit_2)
{
	static const char *const bad[] = {
		"view --serve --port abc /nonexistent",
		"view --serve --port 70000 /nonexistent",
		"view --serve --port",
		"view --bind 127.0.0.1 /nonexistent",
		"view --port 8080 /nonexistent",
		"view --serve -o x.html /nonexistent",
	};
	char cmd[1024], *out;
	int st;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(cmd, sizeof(cmd), "'%s/ringtrace' %s 2>&1", t_bindir(), bad[i]);
		out = t_sh(cmd, &st);
		cr_assert_eq(st, 2, "%s: %d\n%s", bad[i], st, out);
		free(out);
	}
}
