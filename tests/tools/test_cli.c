// SPDX-License-Identifier: MIT
/* tests/tools/test_cli.c - the ringtrace command, run as a user would. */
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include "tests/helpers.h"

TestSuite(tools_cli, .timeout = 30);

/* Run the ringtrace built beside this runner; return its exit status. */
static int run(const char *args, char *out, size_t len)
{
	char exe[PATH_MAX], cmd[PATH_MAX + 512];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	size_t got = 0;
	FILE *p;
	int st;

	cr_assert_gt(n, 0);
	exe[n] = 0;
	snprintf(cmd, sizeof(cmd), "%s/ringtrace %s 2>&1", dirname(exe), args);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (got + 1 < len && !feof(p))
		got += fread(out + got, 1, len - 1 - got, p);
	out[got] = 0;
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

Test(tools_cli, info_shows_positions_and_losses)
{
	static char out[8192];
	char args[256], line[128];
	struct t_ring t;

	t_pin0();
	t_ring_open(&t, RTR_MODE_DISCARD, 4096, 2, false);
	for (int i = 0; i < 1000; i++) {
		uint64_t p[2] = { 0, 0 };

		rtr_ring_write(&t.slot, 1, p, 16);
	}
	snprintf(args, sizeof(args), "info %s", t.path);
	cr_assert_eq(run(args, out, sizeof(out)), 0, "%s", out);
	cr_expect_not_null(strstr(out, "mode        discard"), "%s", out);
	cr_expect_not_null(strstr(out, "state       running"), "%s", out);
	snprintf(line, sizeof(line), "%14lu", (unsigned long)t_ctl(&t, 0)->prod);
	cr_expect_not_null(strstr(out, line), "CPU 0's position %s in:\n%s", line, out);
	snprintf(line, sizeof(line), "events lost in all: %lu", (unsigned long)t_ctl(&t, 0)->lost_full);
	cr_expect_gt(t_ctl(&t, 0)->lost_full, 0);
	cr_expect_not_null(strstr(out, line), "%s in:\n%s", line, out);
	t_ring_close(&t);
}

Test(tools_cli, bad_input_gets_a_clear_error)
{
	static char out[4096];

	cr_expect_eq(run("info /nonexistent/region", out, sizeof(out)), 1);
	cr_expect_not_null(strstr(out, "/nonexistent/region: No such file"), "%s", out);
	cr_expect_eq(run("info /etc/passwd", out, sizeof(out)), 1);
	cr_expect_not_null(strstr(out, "/etc/passwd"), "%s", out);
	cr_expect_eq(run("info", out, sizeof(out)), 2);
	cr_expect_not_null(strstr(out, "usage"), "%s", out);
	cr_expect_eq(run("frobnicate", out, sizeof(out)), 2);
	cr_expect_not_null(strstr(out, "unknown command 'frobnicate'"), "%s", out);
	cr_expect_eq(run("--help", out, sizeof(out)), 0);
	cr_expect_not_null(strstr(out, "info REGION"), "%s", out);
}
