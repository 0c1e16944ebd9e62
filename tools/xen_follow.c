// SPDX-License-Identifier: MIT
/* tools/xen_follow.c - a viewer following a Xen guest from dom0 (xen_follow.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "tools/xen_follow.h"

int xen_follow_start(struct xen_follow *x, const char *cmd, const char *dom)
{
	const char *tmp = getenv("TMPDIR");
	char tpl[4096];
	int p[2];

	*x = (struct xen_follow){ .cmd = cmd, .dom = dom, .err = -1 };
	snprintf(tpl, sizeof(tpl), "%s/ringtrace-%s-xen-XXXXXX", tmp && *tmp ? tmp : "/tmp", cmd);
	x->err = mkostemp(tpl, O_CLOEXEC);
	if (x->err < 0 || pipe2(p, O_CLOEXEC)) {
		fprintf(stderr, "ringtrace %s: --xen-domain %s: %s: %s\n", cmd, dom,
			x->err < 0 ? tpl : "a pipe", strerror(errno));
		return -1;
	}
	unlink(tpl);
	x->pid = fork();
	if (x->pid < 0) {
		fprintf(stderr, "ringtrace %s: --xen-domain %s: fork: %s\n", cmd, dom, strerror(errno));
		x->pid = 0;
		return -1;
	}
	if (!x->pid) {
		sigset_t none;

		/* a viewer may block the signals it waits for: consume needs them */
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		dup2(p[1], STDOUT_FILENO);
		dup2(x->err, STDERR_FILENO);
		execl("/proc/self/exe", "ringtrace", "consume", "--xen-domain", dom, "-o", "-",
		      (char *)NULL);
		fprintf(stderr, "ringtrace %s: cannot run ringtrace consume: %s\n", cmd,
			strerror(errno));
		_exit(127);
	}
	if (dup2(p[0], STDIN_FILENO) < 0) {
		fprintf(stderr, "ringtrace %s: --xen-domain %s: %s\n", cmd, dom, strerror(errno));
		return -1;
	}
	close(p[0]);
	close(p[1]);
	return 0;
}

/* consume has not ended (it is not waited for: its status stays) */
static bool xen_follow_running(const struct xen_follow *x)
{
	siginfo_t si = { 0 };

	/* WNOWAIT: not reaped, xen_follow_end() gets its status */
	return x->pid > 0 && !waitid(P_PID, (id_t)x->pid, &si, WEXITED | WNOHANG | WNOWAIT) &&
	       !si.si_pid;
}

bool xen_follow_end(struct xen_follow *x, int ms, char *msg, size_t len)
{
	char buf[4096], said[2][512], *tail;
	off_t size, from;
	ssize_t n;
	int st = 0, lines = 0;

	if (x->pid <= 0)
		return false;
	for (int waited = 0; waitpid(x->pid, &st, WNOHANG) == 0; waited += 10) {
		if (waited == ms)
			kill(x->pid, SIGINT);	/* it ends its stream, as on Ctrl-C */
		if (waited == ms + 10000)
			kill(x->pid, SIGKILL);
		nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
	}
	x->pid = 0;
	x->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	size = lseek(x->err, 0, SEEK_END);
	for (off_t off = 0; off < size; off += n)
		if ((n = pread(x->err, buf, sizeof(buf), off)) <= 0 ||
		    fwrite(buf, 1, (size_t)n, stderr) != (size_t)n)
			break;
	from = size > (off_t)sizeof(buf) - 1 ? size - (off_t)sizeof(buf) + 1 : 0;
	n = size > 0 ? pread(x->err, buf, (size_t)(size - from), from) : 0;
	buf[n > 0 ? n : 0] = 0;
	/* what it said, not its figures: its last two "ringtrace consume: " lines, but the first */
	for (char *l = buf, *nl; *l; l = nl + !!*nl) {
		nl = l + strcspn(l, "\n");
		if (strncmp(l, "ringtrace consume: ", 19) ||
		    memmem(l, (size_t)(nl - l), "stop with Ctrl-C", 16))
			continue;
		if (lines == 2)
			memmove(said[0], said[1], sizeof(said[0]));
		snprintf(said[lines < 2 ? lines : 1], sizeof(said[0]), "%.*s", (int)(nl - l - 19),
			 l + 19);
		lines += lines < 2;
	}
	snprintf(tail = buf, sizeof(buf), "%s%s%s", lines ? said[0] : "", lines > 1 ? "; " : "",
		 lines > 1 ? said[1] : "");
	if (x->status)
		snprintf(msg, len, "ringtrace consume --xen-domain %s exited with status %d%s%s",
			 x->dom, x->status, *tail ? ": " : "", tail);
	else
		snprintf(msg, len, "%s", tail);
	return true;
}

bool xen_follow_stop(struct xen_follow *x, char *msg, size_t len)
{
	char buf[65536];
	struct timespec t0, t;

	if (x->pid <= 0)
		return false;
	kill(x->pid, SIGINT);
	fcntl(STDIN_FILENO, F_SETFL, O_NONBLOCK);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		ssize_t n = read(STDIN_FILENO, buf, sizeof(buf));

		clock_gettime(CLOCK_MONOTONIC, &t);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR) ||
		    t.tv_sec - t0.tv_sec > 10)
			break;
		if (n < 0)
			nanosleep(&(struct timespec){ 0, 5000000 }, NULL);
	}
	close(STDIN_FILENO);
	return xen_follow_end(x, 0, msg, len);
}

bool xen_follow_finish(struct xen_follow *x, char *msg, size_t len)
{
	return xen_follow_running(x) ? xen_follow_stop(x, msg, len) : xen_follow_end(x, 0, msg, len);
}

void xen_follow_free(struct xen_follow *x)
{
	if (x->err >= 0)
		close(x->err);
	x->err = -1;
}
