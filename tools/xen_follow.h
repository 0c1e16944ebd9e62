/* SPDX-License-Identifier: MIT */
/*
 * tools/xen_follow.h - following a Xen guest from dom0 in a viewer (`gui
 * --xen-domain`, `view --serve --follow --xen-domain`): the viewer runs
 * `ringtrace consume --xen-domain D -o -` and follows its stream on its
 * own standard input, as it follows `-` (Documentation/viewer.rst,
 * "Following a recording").  consume's messages are kept until it ends,
 * then passed on.
 */
#ifndef RTR_TOOLS_XEN_FOLLOW_H
#define RTR_TOOLS_XEN_FOLLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/**
 * struct xen_follow - the consume process.
 * @cmd: the viewer's command, for messages ("gui").
 * @dom: the domain, a name or an id.
 * @pid: running, or 0 once waited for.
 * @err: its standard error, an unlinked temporary file.
 * @status: its exit status once waited for (128 + N: killed by signal N).
 */
struct xen_follow {
	const char *cmd;
	const char *dom;
	pid_t pid;
	int err;
	int status;
};

/*
 * xen_follow_start() - run consume, its stream on our standard input.
 * Return: 0, or -1 (said on standard error).
 */
int xen_follow_start(struct xen_follow *x, const char *cmd, const char *dom);

/*
 * xen_follow_end() - wait up to @ms for consume's end (then ask it to end:
 * SIGINT, and SIGKILL 10 s later); keep its status, pass its messages on to
 * our standard error, and put in @msg the last two things it said (not its
 * figures), after its failure if it failed.  Return: false if it was
 * waited for already (nothing in @msg).
 */
bool xen_follow_end(struct xen_follow *x, int ms, char *msg, size_t len);

/*
 * xen_follow_stop() - the viewer stops before the guest's trace ended:
 * consume is asked to end as Ctrl-C would and what it still sends is read
 * and dropped, so that it finishes as it does on its own and keeps nothing
 * for `recover` (a reader that went would make it keep its queue); then
 * xen_follow_end() with @msg.  Our standard input is closed.  A consume
 * that was ending on its own (its stream closed, not yet exited) keeps its
 * own status: a failure is still one.
 */
bool xen_follow_stop(struct xen_follow *x, char *msg, size_t len);

/*
 * xen_follow_finish() - the viewer ends: xen_follow_stop() if consume still
 * runs, else xen_follow_end() at once.  Return: true if there was anything
 * to wait for; @msg then says why consume failed if x->status is not 0.
 */
bool xen_follow_finish(struct xen_follow *x, char *msg, size_t len);

/* Its messages file closed (after the end). */
void xen_follow_free(struct xen_follow *x);

#endif /* RTR_TOOLS_XEN_FOLLOW_H */
