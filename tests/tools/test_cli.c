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

/* Run @prog (ringtrace, by default) built beside this runner; return its exit status. */
static int run_prog(const char *prog, const char *args, char *out, size_t len)
{
	char exe[PATH_MAX], cmd[PATH_MAX + 512];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	size_t got = 0;
	FILE *p;
	int st;

	cr_assert_gt(n, 0);
	exe[n] = 0;
	snprintf(cmd, sizeof(cmd), "%s/%s %s 2>&1", dirname(exe), prog, args);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (got + 1 < len && !feof(p))
		got += fread(out + got, 1, len - 1 - got, p);
	out[got] = 0;
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int run(const char *args, char *out, size_t len)
{
	return run_prog("ringtrace", args, out, len);
}

/* The documentation's examples (examples/api/tour.c) run and make a trace babeltrace2 reads. */
Test(tools_cli, the_api_tour_traces_and_converts)
{
	char dir[] = "/dev/shm/rtr-tour-XXXXXX", args[256], cmd[256];
	static char out[8192];
	FILE *p;
	size_t n;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(args, sizeof(args), "%s/region", dir);
	cr_assert_eq(run_prog("ringtrace-tour", args, out, sizeof(out)), 0, "%s", out);
	cr_expect_not_null(strstr(out, "trace region: "), "%s", out);
	snprintf(args, sizeof(args), "convert %s/region -o %s/trace", dir, dir);
	cr_assert_eq(run(args, out, sizeof(out)), 0, "%s", out);
	snprintf(cmd, sizeof(cmd), "babeltrace2 %s/trace 2>&1", dir);
	p = popen(cmd, "r");
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = 0;
	cr_assert_eq(pclose(p), 0, "%s", out);
	cr_expect_not_null(strstr(out, "myapp:request: { cpu_id = "), "%s", out);
	cr_expect_not_null(strstr(out, "path = \"/index.html\""), "%s", out);
	cr_expect_not_null(strstr(out, "counter = ( \"queue length\" : container = 0 ), value = 2"),
			   "%s", out);
	cr_expect_null(strstr(out, "WARNING"), "%s", out);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_expect_eq(system(cmd), 0);
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

/*
 * Every command `ringtrace --help` lists takes --help: its usage on standard
 * output, nothing on standard error, exit 0.  The list is read from the help
 * itself, so that a new command without --help fails here.
 */
Test(tools_cli, every_command_takes_help)
{
	char cmd[PATH_MAX + 128], name[32];
	char *out, *line, *next, *help;
	int st, ncmds = 0;
	bool in_list = false;

	snprintf(cmd, sizeof(cmd), "'%s/ringtrace' --help", t_bindir());
	help = t_sh(cmd, &st);
	cr_assert_eq(st, 0, "%s", help);
	for (line = help; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		if (!strcmp(line, "commands:")) {
			in_list = true;
			continue;
		}
		if (!in_list)
			continue;
		if (!*line)
			break;
		/* "  NAME ARGS  summary"; a summary's next lines are indented further */
		if (line[0] != ' ' || line[1] != ' ' || line[2] == ' ')
			continue;
		cr_assert_eq(sscanf(line + 2, "%31[a-z-]", name), 1, "%s", line);
		ncmds++;
		snprintf(cmd, sizeof(cmd), "'%s/ringtrace' %s --help 2>&1 >/dev/null", t_bindir(),
			 name);
		out = t_sh(cmd, &st);
		cr_expect_eq(st, 0, "ringtrace %s --help: exit %d", name, st);
		cr_expect_str_empty(out, "ringtrace %s --help wrote on stderr: %s", name, out);
		free(out);
		snprintf(cmd, sizeof(cmd), "'%s/ringtrace' %s --help 2>/dev/null", t_bindir(), name);
		out = t_sh(cmd, &st);
		cr_expect_eq(strncmp(out, "usage: ringtrace ", 17), 0, "ringtrace %s --help: %s", name,
			     out);
		if (strcmp(name, "help"))
			cr_expect_eq(strncmp(out + 17, name, strlen(name)), 0,
				     "ringtrace %s --help: %s", name, out);
		free(out);
	}
	cr_expect_geq(ncmds, 12, "commands found in:\n%s", help);
	free(help);
}

/* A path that does not exist is named as such by every reader, exit 2 (not "DAMAGED"). */
Test(tools_cli, a_missing_trace_is_named)
{
	static const char *const cmds[] = {
		"check", "dump", "dump --follow", "stats", "stats --json", "export --format chrome",
		"view", "view -o /dev/shm/rtr-nope.html",
	};
	static char out[4096];
	char args[256];

	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		snprintf(args, sizeof(args), "%s /nonexistent/rtr-nope", cmds[i]);
		cr_expect_eq(run(args, out, sizeof(out)), 2, "%s: %s", args, out);
		cr_expect_not_null(strstr(out, "no such trace: /nonexistent/rtr-nope\n"), "%s: %s",
				   args, out);
		cr_expect_null(strstr(out, "DAMAGED"), "%s: %s", args, out);
	}
	cr_expect_neq(access("/dev/shm/rtr-nope.html", F_OK), 0);
	/* a file that is not a trace: unreadable (1), said so, no "1 of 0 streams" */
	cr_expect_eq(run("check /etc/passwd", out, sizeof(out)), 1);
	cr_expect_not_null(strstr(out, "check: DAMAGED: 1 of 1 trace could not be read"), "%s",
			   out);
}
