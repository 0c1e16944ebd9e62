// SPDX-License-Identifier: MIT
/*
 * tests/examples/test_story.c - the README tutorial's programs, recorded
 * as the tutorial records them: ringtrace-server under record --pthread
 * with ringtrace-loadgen's 1000 requests, and ringtrace-arp in its three
 * forms (the usual order; the race, which hangs; the race with the fix).
 * tests/examples/check_story.py checks each trace's tasks, arrows and
 * counters through babeltrace2.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include "tests/helpers.h"

TestSuite(examples_story, .timeout = 300);

static char dir[64];

static const char *srcdir(void)
{
	const char *s = getenv("RTR_SRCDIR");

	return s ? s : ".";
}

static void setup(void)
{
	t_mkdtemp(dir, sizeof(dir), "story");
}

static void teardown(void)
{
	t_rm_rf(dir);
}

static void checker(const char *args)
{
	char cmd[1024];
	int st;
	char *out;

	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 '%s/tests/examples/check_story.py' %s 2>&1",
		 srcdir(), args);
	out = t_sh(cmd, &st);
	cr_assert_eq(st, 0, "%s:\n%s", cmd, out);
	free(out);
}

Test(examples_story, the_server_under_load_is_traced_with_its_threads_and_its_tasks,
     .init = setup, .fini = teardown)
{
	char cmd[4096], args[256], *out;
	int st;

	/* The recorder in the background; the load once the server says its port. */
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && { %s'%s/ringtrace' record -q --pthread -o trace -- "
		 "'%s/ringtrace-server' --port-file port >server.out 2>&1 & } && "
		 "for i in $(seq 200); do [ -s port ] && break; sleep 0.05; done && "
		 "'%s/ringtrace-loadgen' --port $(cat port) --requests 1000 --connections 4 "
		 "--rounds 2000-8000 --quit && wait && grep -c 'ringtrace-server: done' server.out",
		 dir, T_PRELOAD_ENV, t_bindir(), t_bindir(), t_bindir());
	out = t_sh(cmd, &st);
	cr_assert_eq(st, 0, "%s\n%s", cmd, out);
	cr_assert(strstr(out, "0 wrong replies"), "%s", out);
	free(out);
	snprintf(args, sizeof(args), "server '%s/trace' 1000", dir);
	checker(args);
}

/* ringtrace-arp @flags recorded into @dir/@name; returns its exit status. */
static int arp(const char *name, const char *flags)
{
	char cmd[1024], *out;
	int st;

	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && '%s/ringtrace' record -q -o %s -- '%s/ringtrace-arp' %s >/dev/null; "
		 "echo $?", dir, t_bindir(), name, t_bindir(), flags);
	out = t_sh(cmd, &st);
	cr_assert_eq(st, 0, "%s", cmd);
	st = atoi(out);
	free(out);
	return st;
}

Test(examples_story, the_arp_race_hangs_and_its_fix_does_not, .init = setup, .fini = teardown)
{
	char args[256];

	cr_assert_eq(arp("good", ""), 0, "the usual order connects");
	snprintf(args, sizeof(args), "arp '%s/good' good", dir);
	checker(args);
	cr_assert_eq(arp("bad", "--race --timeout 300"), 1, "the race hangs (and gives up)");
	snprintf(args, sizeof(args), "arp '%s/bad' bad", dir);
	checker(args);
	cr_assert_eq(arp("fixed", "--race --fixed"), 0, "the fix connects in the same order");
	snprintf(args, sizeof(args), "arp '%s/fixed' fixed", dir);
	checker(args);
}

/* `ringtrace stats --hangs` on @name's trace: its output. */
static char *hangs(const char *name)
{
	char cmd[1024], *out;
	int st;

	snprintf(cmd, sizeof(cmd), "'%s/ringtrace' stats --hangs '%s/%s'", t_bindir(), dir, name);
	out = t_sh(cmd, &st);
	cr_assert_eq(st, 0, "%s\n%s", cmd, out);
	return out;
}

Test(examples_story, stats_hangs_names_the_task_that_never_resolved_and_the_lost_wakeup,
     .init = setup, .fini = teardown)
{
	static const char *const want[] = {
		"hangs: 1 should_resolve task never resolved\n  \"TCP connect\" (task ",
		", bind), created at ",
		", never resolved\n    it waits for \"ARP query\" (task ",
		", bind) since ",
		"\n    which became \"ARP response\" (task ",
		", wait) at ",
		"\n    which waits for \"ARP response\" (task ",
		", condition) since ",
		"\n    \"ARP response\" (task ",
		", condition) was signalled 1 time before that wait began and 0 after;\n"
		"    the last signal: at ",
		", by \"netif: rx ARP reply\" (task ",
		", task)\n    a wake-up sent before anyone waited, and none since: a lost wake-up\n",
	};
	char *out, *at;

	cr_assert_eq(arp("bad", "--race --timeout 300"), 1);
	out = hangs("bad");
	/* the pieces in order; between them, ids and times */
	at = out;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		char *p = strstr(at, want[i]);

		cr_assert_not_null(p, "no \"%s\" after \"%.40s\" in:\n%s", want[i], at, out);
		at = p + strlen(want[i]);
	}
	cr_assert_str_eq(at, "", "nothing more: %s", at);
	free(out);
	cr_assert_eq(arp("fixed", "--race --fixed"), 0);
	out = hangs("fixed");
	cr_assert_str_eq(out, "hangs: 0 should_resolve tasks never resolved\n");
	free(out);
}
