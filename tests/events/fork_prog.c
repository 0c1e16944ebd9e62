// SPDX-License-Identifier: MIT
/*
 * tests/events/fork_prog.c - rtr-fork-prog, a traced program whose children
 * end every way a child can, for tests/events/test_fork.c: run under
 * `ringtrace record`, it forks children that trace and then exit(), _exit(),
 * are killed with SIGKILL, call rtr_stop(), run a thread, fork again, or
 * exec a program linked with libringtrace (itself, which joins the trace);
 * the parent traces on after every one has ended, and a last child traces on
 * after the parent has exited.  Each note says who wrote it:
 *
 *     <role> <pid> <n>          the n-th note of a process (n from 0)
 *     task <pid> <id>           a task id the process took (rtr_task_id())
 *     end <role> <pid> <count>  the last note: how many <role> notes it wrote
 *
 * Children also register a counter after the fork (the parent registers one
 * after them), and each process one called "shared", so that the registry's
 * ids are exercised across processes; each emits a typed event
 * forkprog:hello (pid, role), a class the exec'd program registers again.
 *
 *   rtr-fork-prog run N        parent and children, N notes each
 *   rtr-fork-prog exec N       what an exec'd program runs: N "exec" notes
 *   rtr-fork-prog linger N F   the parent's notes, and a child's that, once
 *                              the parent has exited, writes its pid to file F
 *                              and waits to be killed, tracing
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <ringtrace/event.h>
#include <ringtrace/ringtrace.h>

/* A typed event every process emits: the same class, registered by each at load. */
#define FORKPROG_HELLO(F) F(s32, pid) F(string, role)
RTR_EVENT_DECLARE(forkprog, hello, FORKPROG_HELLO)
RTR_EVENT_DEFINE(forkprog, hello, FORKPROG_HELLO)

static int nnotes;

static void notes(const char *role)
{
	int pid = (int)getpid();

	for (int i = 0; i < nnotes; i++)
		rtr_note("%s %d %d", role, pid, i);
	for (int i = 0; i < 3; i++)
		rtr_note("task %d %llu", pid, (unsigned long long)rtr_task_id());
	RTR_TRACE(forkprog, hello, .pid = pid, .role = role);
	rtr_note("end %s %d %d", role, pid, nnotes);
}

/* A counter of its own, and one every process registers by the same name. */
static void counter(const char *name)
{
	uint32_t id;

	if (rtr_counter_register(name, &id) == 0)
		rtr_counter_set(id, getpid());
	if (rtr_counter_register("shared", &id) == 0)
		rtr_counter_add(id, 1);
}

static void *thread_main(void *arg)
{
	notes(arg);
	return NULL;
}

/* In the child of @role: @p, a pipe whose read end tells an orphan its parent is gone. */
static void child(const char *role, const int p[2])
{
	int ready = p[1];
	char c;

	if (!strcmp(role, "orphan")) {
		close(p[1]);
		while (read(p[0], &c, 1) > 0)
			;	/* EOF: the parent is gone */
		notes(role);
		exit(0);
	}
	close(p[0]);
	notes(role);
	counter(role);
	if (!strcmp(role, "exit")) {
		exit(0);
	} else if (!strcmp(role, "_exit")) {
		_exit(0);
	} else if (!strcmp(role, "killed")) {
		/* Its events are in; the parent kills it while it traces on. */
		c = 1;
		if (write(ready, &c, 1) != 1)
			_exit(3);
		for (;;) {
			rtr_note("killed-spin %d", (int)getpid());
			usleep(100);
		}
	} else if (!strcmp(role, "stop")) {
		int r = rtr_stop();

		if (r && r != -ENODEV)	/* -ENODEV: a child not followed */
			_exit(4);
		rtr_note("after-stop %d", (int)getpid());	/* not traced */
		exit(0);
	} else if (!strcmp(role, "thread")) {
		pthread_t t;

		if (pthread_create(&t, NULL, thread_main, "threadchild") || pthread_join(t, NULL))
			_exit(5);
		exit(0);
	} else if (!strcmp(role, "forker")) {
		pid_t g = fork();
		int st;

		if (g == 0) {
			notes("grandchild");
			exit(0);
		}
		if (g < 0 || waitpid(g, &st, 0) != g || !WIFEXITED(st) || WEXITSTATUS(st))
			_exit(6);
		rtr_note("forker-after %d", (int)getpid());
		exit(0);
	} else if (!strcmp(role, "execer")) {
		char n[16];

		snprintf(n, sizeof(n), "%d", nnotes);
		execl("/proc/self/exe", "rtr-fork-prog", "exec", n, (char *)NULL);
		_exit(7);
	}
	_exit(2);
}

/*
 * Fork a child of @role; @fd: the parent's end of a pipe to it (the read end:
 * "killed" says it is ready; the write end: "orphan" waits for its close).
 */
static pid_t start(const char *role, int *fd)
{
	int p[2], mine = !strcmp(role, "orphan");
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0)
		child(role, p);
	close(p[!mine]);
	*fd = p[mine];
	return pid;
}

int main(int argc, char **argv)
{
	static const char *const roles[] = {
		"exit", "_exit", "killed", "stop", "thread", "forker", "execer",
	};
	int nroles = (int)(sizeof(roles) / sizeof(roles[0])), fail = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: rtr-fork-prog run|exec N, or linger N FILE\n");
		return 2;
	}
	nnotes = atoi(argv[2]);
	if (!strcmp(argv[1], "exec")) {
		notes("exec");
		counter("exec");
		return 0;
	}
	if (!strcmp(argv[1], "linger") && argc == 4 && rtr_tracing()) {
		pid_t parent = getpid();

		notes("parent");
		if (fork() == 0) {
			char tmp[4096];
			FILE *f;

			alarm(300);	/* a test that failed leaves nothing behind for long */
			notes("lingerer");
			while (getppid() == parent)
				usleep(1000);
			/* Written whole under another name, then renamed: the test
			 * polls for the file and must never read it half written. */
			snprintf(tmp, sizeof(tmp), "%s.tmp", argv[3]);
			f = fopen(tmp, "w");
			if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f) ||
			    rename(tmp, argv[3]))
				_exit(3);
			for (;;)
				pause();
		}
		return 0;
	}
	if (!rtr_tracing()) {
		fprintf(stderr, "rtr-fork-prog: not tracing (run it under ringtrace record)\n");
		return 2;
	}
	notes("parent");
	for (int i = 0; i < nroles; i++) {
		int fd, st;
		pid_t pid = start(roles[i], &fd);
		char c;

		if (pid < 0)
			return 1;
		if (!strcmp(roles[i], "killed")) {
			if (read(fd, &c, 1) != 1)
				fail = 1;
			kill(pid, SIGKILL);
		}
		close(fd);
		if (waitpid(pid, &st, 0) != pid)
			return 1;
		if (!strcmp(roles[i], "killed") ? !WIFSIGNALED(st) : !WIFEXITED(st) ||
		    WEXITSTATUS(st)) {
			fprintf(stderr, "rtr-fork-prog: child %s ended with status %#x\n", roles[i],
				st);
			fail = 1;
		}
		rtr_note("between %d %d", (int)getpid(), i);
	}
	counter("parent_late");
	/* After every child has ended, each of its own way: still traced. */
	notes("after");
	/* The last child traces after this process has exited: its events are in too. */
	{
		int fd;

		if (start("orphan", &fd) < 0)
			return 1;
	}
	return fail;
}
