// SPDX-License-Identifier: MIT
/*
 * tests/events/test_fork.c - a traced process's forked children (issue 11):
 * rtr-fork-prog (tests/events/fork_prog.c) under `ringtrace record`, its
 * children ending by exit(), _exit(), SIGKILL, rtr_stop(), after a thread,
 * after a fork of their own, and by exec; the parent tracing on after them
 * and a last child after the parent.  Nothing a child does may stop or
 * damage the parent's trace; followed children's events are in it, each
 * attributed by the thread records to the process (and thread) that wrote
 * it, which the note's own getpid() confirms; task ids and counter ids
 * never collide, and record names the processes that ran untraced.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include "tests/helpers.h"

TestSuite(events_fork, .timeout = 300);

static char dir[64];

static void setup(void)
{
	t_mkdtemp(dir, sizeof(dir), "fork");
}

/*
 * The lingering test's recorder and child, while they run: a failed
 * assertion there must not leave them running, nor the recorder's region
 * in /dev/shm (a SIGTERM makes record remove it).
 */
static pid_t linger_rec, linger_child;

static void teardown(void)
{
	if (linger_rec > 0) {
		int st;

		kill(linger_rec, SIGTERM);
		for (int i = 0; i < 500 && waitpid(linger_rec, &st, WNOHANG) == 0; i++)
			usleep(10000);
		if (waitpid(linger_rec, &st, WNOHANG) == 0) {
			kill(linger_rec, SIGKILL);
			waitpid(linger_rec, &st, 0);
		}
	}
	if (linger_child > 0)
		kill(linger_child, SIGKILL);
	linger_rec = linger_child = 0;
	t_rm_rf(dir);
}

#define NOTES	200	/* per process and role */
#define MAXP	64

/* What one process wrote: its role's notes seen, and its task ids. */
struct proc {
	char role[16];
	int pid;
	int seen[NOTES];
	int end;		/* the count its "end" note gave, -1: none */
	unsigned long long tasks[16];
	int ntasks;
	int hello;		/* its forkprog:hello events */
};

struct trace {
	struct proc p[MAXP];
	int n;
	int between[8];
	int untraced_notes;	/* "after-stop", "exec", "killed-spin" are not counted here */
	char counters[32][32];	/* by region id */
	int counter_value[32];
	int nnotes;
};

static struct proc *proc_of(struct trace *t, const char *role, int pid)
{
	for (int i = 0; i < t->n; i++) {
		if (t->p[i].pid == pid && !strcmp(t->p[i].role, role))
			return &t->p[i];
	}
	cr_assert_lt(t->n, MAXP, "too many processes in the trace");
	snprintf(t->p[t->n].role, sizeof(t->p[0].role), "%s", role);
	t->p[t->n].pid = pid;
	t->p[t->n].end = -1;
	return &t->p[t->n++];
}

/* Every note and counter of `ringtrace dump @trace`, checked for form as it is read. */
static void read_trace(const char *trace, struct trace *t)
{
	char cmd[512], *out, *line, *save;
	int st;

	memset(t, 0, sizeof(*t));
	snprintf(cmd, sizeof(cmd), "'%s/ringtrace' dump '%s' 2>/dev/null", t_bindir(), trace);
	out = t_sh(cmd, &st);
	cr_assert_eq(st, 0, "ringtrace dump %s", trace);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char role[16], name[32], *q, *w;
		int pid, n, id, v, wpid, wtid;
		unsigned long long task;

		if ((q = strstr(line, " forkprog:hello: { pid = "))) {
			w = strstr(line, " pid ");
			cr_assert(w && w < q && sscanf(w, " pid %d tid %d", &wpid, &wtid) == 2, "%s",
				  line);
			cr_assert_eq(sscanf(q, " forkprog:hello: { pid = %d, role = \"%15[^\"]\" }", &pid,
					    role), 2, "%s", line);
			cr_assert_eq(pid, wpid, "written by pid %d: %s", wpid, line);
			proc_of(t, role, pid)->hello++;
			continue;
		}
		if ((q = strstr(line, " counter: { counter = "))) {
			cr_assert_eq(sscanf(q, " counter: { counter = %31s (%d), value = %d }", name,
					    &id, &v), 3, "counter line: %s", line);
			cr_assert(id >= 0 && id < 32, "counter id %d", id);
			cr_assert(!t->counters[id][0] || !strcmp(t->counters[id], name),
				  "counter id %d is both %s and %s", id, t->counters[id], name);
			snprintf(t->counters[id], sizeof(t->counters[id]), "%s", name);
			t->counter_value[id] = v;
			continue;
		}
		q = strstr(line, " note: { text = \"");
		if (!q)
			continue;
		/* The thread records say which process wrote each event: dump prints it. */
		w = strstr(line, " pid ");
		cr_assert(w && w < q && sscanf(w, " pid %d tid %d", &wpid, &wtid) == 2,
			  "a note without its thread: %s", line);
		q += strlen(" note: { text = \"");
		t->nnotes++;
		if (sscanf(q, "task %d %llu", &pid, &task) == 2) {
			struct proc *p = NULL;

			/* The task notes follow the role's notes: the process's last entry. */
			for (int i = t->n - 1; i >= 0 && !p; i--)
				p = t->p[i].pid == pid ? &t->p[i] : NULL;
			cr_assert_not_null(p, "task note before its process's notes: %s", line);
			cr_assert_eq(wpid, pid, "written by pid %d: %s", wpid, line);
			cr_assert_lt(p->ntasks, 16);
			p->tasks[p->ntasks++] = task;
		} else if (sscanf(q, "end %15s %d %d", role, &pid, &n) == 3) {
			cr_assert_eq(wpid, pid, "written by pid %d: %s", wpid, line);
			proc_of(t, role, pid)->end = n;
		} else if (sscanf(q, "between %d %d", &pid, &n) == 2) {
			cr_assert(n >= 0 && n < 8, "%s", line);
			cr_assert_eq(wpid, pid, "written by pid %d: %s", wpid, line);
			t->between[n]++;
		} else if (sscanf(q, "%15s %d %d", role, &pid, &n) == 3) {
			cr_assert(n >= 0 && n < NOTES, "%s", line);
			cr_assert_eq(wpid, pid, "written by pid %d: %s", wpid, line);
			/* Only the thread child's notes come from a thread not its process's main. */
			cr_assert_eq(wtid == wpid, strcmp(role, "threadchild") != 0, "tid %d: %s", wtid,
				     line);
			proc_of(t, role, pid)->seen[n]++;
		} else {
			t->untraced_notes++;
		}
	}
	free(out);
}

static struct proc *find_role(struct trace *t, const char *role)
{
	struct proc *found = NULL;

	for (int i = 0; i < t->n; i++) {
		if (!strcmp(t->p[i].role, role)) {
			cr_assert_null(found, "two processes wrote %s notes", role);
			found = &t->p[i];
		}
	}
	return found;
}

/* @role's process wrote each of its notes exactly once, and its end. */
static struct proc *complete(struct trace *t, const char *role)
{
	struct proc *p = find_role(t, role);

	cr_assert_not_null(p, "no %s notes in the trace", role);
	for (int i = 0; i < NOTES; i++)
		cr_assert_eq(p->seen[i], 1, "%s %d: note %d seen %d times", role, p->pid, i,
			     p->seen[i]);
	cr_assert_eq(p->end, NOTES, "%s %d: its end note", role, p->pid);
	cr_assert_eq(p->ntasks, 3, "%s %d: its task ids", role, p->pid);
	cr_assert_eq(p->hello, 1, "%s %d: its typed event", role, p->pid);
	return p;
}

/* No task id was taken twice, in one process or across them. */
static void tasks_unique(const struct trace *t)
{
	for (int i = 0; i < t->n; i++)
		for (int a = 0; a < t->p[i].ntasks; a++)
			for (int j = i; j < t->n; j++)
				for (int b = j == i ? a + 1 : 0; b < t->p[j].ntasks; b++)
					cr_assert_neq(t->p[i].tasks[a], t->p[j].tasks[b],
						      "task id %llu taken by %s %d and %s %d",
						      t->p[i].tasks[a], t->p[i].role, t->p[i].pid,
						      t->p[j].role, t->p[j].pid);
}

static char *slurp(const char *path);
static void readers_agree(const char *trace, const struct trace *t);

/*
 * Record the program with record's @opts into @dir/trace, read it into @t, and
 * check that the parent's notes are all there.  Return: record's messages.
 */
static char *record(const char *opts, struct trace *t, struct proc **parent)
{
	char cmd[1024], trace[128], log[128], *out;
	int st;

	snprintf(trace, sizeof(trace), "%s/trace", dir);
	snprintf(log, sizeof(log), "%s/log", dir);
	snprintf(cmd, sizeof(cmd), "'%s/ringtrace' record %s -o '%s' '%s/rtr-fork-prog' run %d "
		 ">'%s' 2>&1", t_bindir(), opts, trace, t_bindir(), NOTES, log);
	out = t_sh(cmd, &st);
	free(out);
	if (st) {
		snprintf(cmd, sizeof(cmd), "cat '%s' >&2", log);
		free(t_sh(cmd, &st));
	}
	cr_assert_eq(st, 0, "record (or the program, or a child) failed");
	read_trace(trace, t);
	/* The parent's events after its children ended: before the fix, lost with none counted. */
	*parent = complete(t, "parent");
	cr_assert_eq(complete(t, "after")->pid, (*parent)->pid);
	for (int i = 0; i < 7; i++)
		cr_assert_eq(t->between[i], 1, "the parent's note after child %d", i);
	tasks_unique(t);
	readers_agree(trace, t);
	return slurp(log);
}

static char *slurp(const char *path)
{
	char cmd[256];
	int st;

	snprintf(cmd, sizeof(cmd), "cat '%s'", path);
	return t_sh(cmd, &st);
}

/* `ringtrace check` is clean and babeltrace2 reads as many notes as dump. */
static void readers_agree(const char *trace, const struct trace *t)
{
	char cmd[512], *out;
	int st;

	snprintf(cmd, sizeof(cmd), "'%s/ringtrace' check '%s' >/dev/null", t_bindir(), trace);
	free(t_sh(cmd, &st));
	cr_assert_eq(st, 0, "ringtrace check %s", trace);
	snprintf(cmd, sizeof(cmd), "babeltrace2 '%s' | grep -c ' note: .*text = \"'", trace);
	out = t_sh(cmd, &st);
	cr_assert_eq(atoi(out), t->nnotes, "babeltrace2 reads %d notes, dump %d", atoi(out),
		     t->nnotes);
	free(out);
}

Test(events_fork, children_trace_into_the_parents_trace_and_never_stop_it, .init = setup,
     .fini = teardown)
{
	static const char *const followed[] = {
		"exit", "_exit", "killed", "stop", "threadchild", "forker", "grandchild",
		"execer", "orphan", "exec",
	};
	static struct trace t;
	struct proc *parent, *execer;
	char *msg;

	msg = record("", &t, &parent);
	for (size_t i = 0; i < sizeof(followed) / sizeof(followed[0]); i++) {
		struct proc *p = complete(&t, followed[i]);

		cr_assert_neq(p->pid, parent->pid, "%s wrote with its own pid", followed[i]);
	}
	/* The program the child exec'd traces on, in the same process. */
	execer = find_role(&t, "execer");
	cr_assert_eq(find_role(&t, "exec")->pid, execer->pid);
	cr_assert_null(find_role(&t, "after-stop"));
	/*
	 * Counters registered after the fork, by children and parent, and by the
	 * exec'd program: one id each; "shared", registered by every process, one
	 * id in all.
	 */
	for (int id = 0; id < 32; id++) {
		struct proc *p;

		if (!t.counters[id][0])
			continue;
		for (int j = 0; j < id; j++)
			cr_assert(strcmp(t.counters[j], t.counters[id]), "counter %s twice",
				  t.counters[id]);
		if (!strcmp(t.counters[id], "shared"))
			continue;
		p = find_role(&t, !strcmp(t.counters[id], "parent_late") ? "after" :
				  !strcmp(t.counters[id], "thread") ? "threadchild" : t.counters[id]);
		cr_assert_not_null(p, "counter %s of no process", t.counters[id]);
		cr_assert_eq(t.counter_value[id], p->pid, "counter %s's value", t.counters[id]);
	}
	for (int id = 0; id < 10; id++)
		cr_assert(t.counters[id][0], "counter id %d: every process's counter is in", id);
	cr_assert(strstr(msg, "9 other processes (forked, or exec'd and joined) traced into the "
			  "same trace"), "%s", msg);
	cr_assert_null(strstr(msg, "untraced"), "%s", msg);
	free(msg);
}

Test(events_fork, children_not_followed_stop_tracing_and_are_named, .init = setup,
     .fini = teardown)
{
	static struct trace t;
	struct proc *parent;
	char *msg;

	msg = record("--no-follow-forks", &t, &parent);
	cr_assert_eq(t.n, 2, "only the parent's notes (%d processes')", t.n);
	cr_assert_eq(t.untraced_notes, 0);
	cr_assert(strstr(msg, "8 processes ran untraced: pid "), "%s", msg);
	cr_assert(strstr(msg, "8 forked children not followed (--no-follow-forks)"), "%s", msg);
	cr_assert_null(strstr(msg, "processes (forked"), "%s", msg);
	free(msg);
}

Test(events_fork, record_waits_for_a_child_that_outlives_the_program_until_told_to_stop,
     .init = setup, .fini = teardown)
{
	static struct trace t;
	char trace[128], log[128], file[128], prog[PATH_MAX], rt[PATH_MAX], n[16], *msg;
	FILE *f;
	int st, child = 0;
	pid_t rec;

	snprintf(trace, sizeof(trace), "%s/trace", dir);
	snprintf(log, sizeof(log), "%s/log", dir);
	snprintf(file, sizeof(file), "%s/lingerer", dir);
	snprintf(prog, sizeof(prog), "%s/rtr-fork-prog", t_bindir());
	snprintf(rt, sizeof(rt), "%s/ringtrace", t_bindir());
	snprintf(n, sizeof(n), "%d", NOTES);
	rec = fork();
	cr_assert_geq(rec, 0);
	if (rec == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(126);
		execl(rt, "ringtrace", "record", "-o", trace, prog, "linger", n, file, (char *)NULL);
		_exit(127);
	}
	linger_rec = rec;
	/* The child writes the file once the program has exited. */
	for (int i = 0; !(f = fopen(file, "r")); i++) {
		cr_assert_eq(waitpid(rec, &st, WNOHANG), 0, "record ended before the child was ready");
		cr_assert_lt(i, 60 * 100, "the child never said it was ready");
		usleep(10000);
	}
	cr_assert_eq(fscanf(f, "%d", &child), 1);
	fclose(f);
	cr_assert_gt(child, 1);
	linger_child = child;
	cr_assert_eq(waitpid(rec, &st, WNOHANG), 0, "record waits while the child traces");
	kill(rec, SIGTERM);
	st = t_wait_exit(rec, 60, "record after SIGTERM");
	linger_rec = 0;
	kill(child, SIGKILL);
	linger_child = 0;
	cr_assert_eq(st, 0, "record exits with the program's status");
	read_trace(trace, &t);
	complete(&t, "parent");
	cr_assert_neq(complete(&t, "lingerer")->pid, find_role(&t, "parent")->pid);
	msg = slurp(log);
	cr_assert(strstr(msg, "interrupted while 1 process still traced"), "%s", msg);
	free(msg);
}
