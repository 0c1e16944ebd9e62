// SPDX-License-Identifier: MIT
/*
 * tests/pthread/test_pthread.c - libringtrace-pthread, preloaded by
 * `ringtrace record --pthread` into programs not built with ringtrace:
 * rtr-pthread-prog's scenarios (every event checked by
 * tests/pthread/check_pthread.py through babeltrace2), fork and signal
 * handlers that must not hang, and Debian's own multi-threaded programs
 * (xz -T2, sort --parallel=2) whose output must not change.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include "tests/helpers.h"

TestSuite(pthread_preload, .timeout = 300);

static char dir[64];

static const char *srcdir(void)
{
	const char *s = getenv("RTR_SRCDIR");

	return s ? s : ".";
}

static void setup(void)
{
	t_mkdtemp(dir, sizeof(dir), "pthread");
}

static void teardown(void)
{
	t_rm_rf(dir);
}

/* Record @prog (a shell command line) with --pthread into @dir/@name; its output in @dir/@name.out. */
static int record(const char *name, const char *prog, char **out)
{
	char cmd[2048];
	int st;

	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && %stimeout -s KILL 120 '%s/ringtrace' record --pthread -o '%s/%s' -- "
		 "%s >'%s/%s.out' 2>'%s/%s.err'; echo $?",
		 dir, T_PRELOAD_ENV, t_bindir(), dir, name, prog, dir, name, dir, name);
	*out = t_sh(cmd, &st);
	cr_assert_eq(st, 0, "%s", cmd);
	return atoi(*out);
}

static void show(const char *name)
{
	char cmd[512];
	int st;
	char *s;

	snprintf(cmd, sizeof(cmd), "cat '%s/%s.out' '%s/%s.err'", dir, name, dir, name);
	s = t_sh(cmd, &st);
	cr_log_error("%s", s);
	free(s);
}

static void checker(const char *args)
{
	char cmd[1024];
	int st;
	char *out;

	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 '%s/tests/pthread/check_pthread.py' %s 2>&1",
		 srcdir(), args);
	out = t_sh(cmd, &st);
	cr_assert_eq(st, 0, "%s:\n%s", cmd, out);
	free(out);
}

/* Record rtr-pthread-prog @scenario; it must end by itself with status 0. */
static void scenario(const char *name)
{
	char prog[512], *out;
	int ret;

	snprintf(prog, sizeof(prog), "'%s/rtr-pthread-prog' %s", t_bindir(), name);
	ret = record(name, prog, &out);
	if (ret)
		show(name);
	cr_assert_eq(ret, 0, "rtr-pthread-prog %s hung or failed", name);
	free(out);
}

Test(pthread_preload, sync_objects_and_threads_are_recorded_exactly, .init = setup,
     .fini = teardown)
{
	char args[512];

	scenario("sync");
	snprintf(args, sizeof(args), "sync '%s/sync' '%s/sync.out'", dir, dir);
	checker(args);
}

Test(pthread_preload, fork_while_threads_create_join_and_contend_never_hangs, .init = setup,
     .fini = teardown)
{
	char args[512];

#ifdef RTR_SANITIZE
	/*
	 * GCC 12's ASan runtime does not hold its allocator's locks across
	 * fork: a child of a multi-threaded ASan program can hang in it, with
	 * or without us (seen here, in AsanThread::Init).  The plain build's
	 * run of this test covers our locks.
	 */
	cr_skip_test("ASan's allocator is not fork-safe in multi-threaded programs");
#endif
	scenario("fork");
	/* Parent and children share the region; each child's ids are its own (issue 11). */
	snprintf(args, sizeof(args), "forks '%s/fork' 3", dir);
	checker(args);
}

Test(pthread_preload, signal_handlers_that_lock_never_hang, .init = setup, .fini = teardown)
{
	char cmd[512];
	int ret;

	scenario("signal");
	/* Millions of events: the fast reader checks them. */
	snprintf(cmd, sizeof(cmd), "'%s/ringtrace' check '%s/signal' >/dev/null", t_bindir(), dir);
	free(t_sh(cmd, &ret));
	cr_assert_eq(ret, 0, "ringtrace check on the trace");
}

/* @cmd's standard output and status, in @dir. */
static char *sh_in_dir(const char *cmd, int *st)
{
	char full[2048];

	snprintf(full, sizeof(full), "cd '%s' && %s", dir, cmd);
	return t_sh(full, st);
}

/* `ringtrace check` calls the trace @name ok (babeltrace2 reads it in the checker). */
static void check_ok(const char *name)
{
	char cmd[512], *out;
	int st;

	snprintf(cmd, sizeof(cmd), "'%s/ringtrace' check '%s/%s' 2>&1", t_bindir(), dir, name);
	out = t_sh(cmd, &st);
	cr_assert(st == 0 && strstr(out, "check: ok"), "%s", out);
	free(out);
}

/*
 * A Debian program under record --pthread: @input makes in.txt, @prog
 * (reading it, writing standard output) is recorded as @name, and @same
 * must print "same" (its output, @name.out, against its input and the
 * untraced run's); the trace checks clean, babeltrace2 reads it, it has at
 * least @threads thread tasks, every thread that ran named and none on two
 * CPUs at once (check_pthread.py threads).
 */
static void debian_program(const char *name, const char *input, const char *prog,
			   const char *same, int threads)
{
	char args[512], *out;
	int st, ret;

	free(sh_in_dir(input, &st));
	cr_assert_eq(st, 0, "%s", input);
	ret = record(name, prog, &out);
	if (ret)
		show(name);
	cr_assert_eq(ret, 0, "%s", prog);
	free(out);
	out = sh_in_dir(same, &st);
	cr_assert_str_eq(out, "same\n", "%s's output under the preload: %s", name, same);
	free(out);
	check_ok(name);
	snprintf(args, sizeof(args), "threads '%s/%s' %d", dir, name, threads);
	checker(args);
}

/* 21 MB of compressible text: zstd -T2 gives its jobs to two workers */
Test(pthread_preload, zstd_with_two_threads_is_traced_and_its_output_unchanged, .init = setup,
     .fini = teardown)
{
	debian_program("zstd", "seq 1 800000 | sed 's/$/ the quick brown fox/' > in.txt",
		       "zstd -1 -T2 --no-progress -c in.txt",
		       "zstd -dc zstd.out | cmp - in.txt && zstd -1 -T2 -q -c in.txt | "
		       "cmp - zstd.out && echo same", 2);
}

/* 10.7 MB of compressible text in 256 KiB blocks: work for both of xz's threads */
Test(pthread_preload, xz_with_two_threads_is_traced_and_its_output_unchanged, .init = setup,
     .fini = teardown)
{
	debian_program("xz", "seq 1 400000 | sed 's/$/ the quick brown fox/' > in.txt",
		       "xz -1 -T2 --block-size=256KiB -c in.txt",
		       "xz -dc xz.out | cmp - in.txt && xz -1 -T2 --block-size=256KiB -c in.txt | "
		       "cmp - xz.out && echo same", 3);
}

Test(pthread_preload, sort_parallel_is_traced_and_its_output_unchanged, .init = setup,
     .fini = teardown)
{
	debian_program("sort", "seq 1 150000 | shuf --random-source=/dev/zero > in.txt",
		       "sort --parallel=2 -n in.txt",
		       "seq 1 150000 | cmp - sort.out && sort --parallel=2 -n in.txt | "
		       "cmp - sort.out && echo same", 2);
}

/*
 * A program that writes its own events: a worker exits, and so unregisters
 * from urcu-bp, while the main thread holds urcu-bp's registry lock
 * (pt_own.c).  That wait and that unlock are libringtrace's: recorded, the
 * wait made a mutex task (every run, with the wrappers tracing it), and the
 * unlock's signal could register the exiting thread again under the lock.
 */
Test(pthread_preload, libringtrace_own_locks_are_not_traced, .init = setup, .fini = teardown)
{
	char prog[512], args[512], *out;
	int ret;

	snprintf(prog, sizeof(prog), "'%s/rtr-pthread-own'", t_bindir());
	ret = record("own", prog, &out);
	if (ret)
		show("own");
	cr_assert_eq(ret, 0, "rtr-pthread-own hung or failed");
	free(out);
	snprintf(args, sizeof(args), "own '%s/own'", dir);
	checker(args);
}

Test(pthread_preload, preloaded_without_tracing_changes_nothing, .init = setup, .fini = teardown)
{
	char cmd[1024], *out;
	int st;

	snprintf(cmd, sizeof(cmd),
		 "seq 1 200000 > in.txt && %s LD_PRELOAD=\"${LD_PRELOAD:+$LD_PRELOAD }%s/../lib/"
		 "libringtrace-pthread.so\" '%s/rtr-pthread-prog' sync >/dev/null && "
		 "%s LD_PRELOAD=\"${LD_PRELOAD:+$LD_PRELOAD }%s/../lib/libringtrace-pthread.so\" "
		 "xz -T2 --block-size=256KiB -c in.txt | xz -dc | cmp - in.txt && echo same",
		 T_PRELOAD_ENV, t_bindir(), t_bindir(), T_PRELOAD_ENV, t_bindir());
	out = sh_in_dir(cmd, &st);
	cr_assert_str_eq(out, "same\n", "%s", cmd);
	free(out);
}

Test(pthread_preload, a_program_with_its_own_static_copy_is_told_how_to_link, .init = setup,
     .fini = teardown)
{
	char prog[512], *out;
	int st;

	/* ringtrace-tasks links libringtrace.a: two tracers in one process */
	snprintf(prog, sizeof(prog), "'%s/ringtrace-tasks'", t_bindir());
	cr_assert_eq(record("static", prog, &out), 0);
	free(out);
	snprintf(prog, sizeof(prog), "cat '%s/static.err'", dir);
	out = t_sh(prog, &st);
	cr_assert(strstr(out, "has a copy of libringtrace of its own (linked statically)") &&
		  strstr(out, "-lringtrace"), "%s", out);
	free(out);
}
