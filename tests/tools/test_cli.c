// SPDX-License-Identifier: MIT
/* tests/tools/test_cli.c - the ringtrace command, run as a user would. */
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <string.h>
#include <sys/stat.h>
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
		"view", "view -o /dev/shm/rtr-nope.html", "view --format png -o /dev/shm/rtr-nope.png",
		"gui",
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
	cr_expect_neq(access("/dev/shm/rtr-nope.png", F_OK), 0);
	/* a file that is not a trace: unreadable (1), said so, no "1 of 0 streams" */
	cr_expect_eq(run("check /etc/passwd", out, sizeof(out)), 1);
	cr_expect_not_null(strstr(out, "check: DAMAGED: 1 of 1 trace could not be read"), "%s",
			   out);
}

/* A small trace of ringtrace-threads, recorded as DIR/trace. */
static void record_small(const char *dir)
{
	char cmd[PATH_MAX + 256], *out;
	int st;

	snprintf(cmd, sizeof(cmd), "'%s/ringtrace' record -q -o '%s/trace' -- "
		 "'%s/ringtrace-threads' --threads 2 --count 100 2>&1", t_bindir(), dir, t_bindir());
	out = t_sh(cmd, &st);
	cr_assert_eq(st, 0, "%s", out);
	free(out);
}

static void spit(const char *path, const char *text, mode_t mode)
{
	FILE *f;

	unlink(path);
	f = fopen(path, "w");
	cr_assert_not_null(f, "%s", path);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
	cr_assert_eq(chmod(path, mode), 0);
}

static bool holds(const char *path, const char *text)
{
	char buf[256] = "";
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return !strcmp(buf, text);
}

/* No file in @dir whose name has ".tmp" in it: a failed command leaves none behind. */
static void expect_no_temp(const char *dir, const char *after)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	cr_assert_not_null(d);
	while ((e = readdir(d)))
		cr_expect_null(strstr(e->d_name, ".tmp"), "%s left %s/%s", after, dir, e->d_name);
	closedir(d);
}

/*
 * export -o and view -o make their file as the recorder makes its files: new
 * (an existing one replaced only with --force), mode 0600, never through a
 * symbolic link (with or without --force), and no temporary file left when
 * they fail.
 */
Test(tools_cli, output_files_are_made_as_the_recorder_makes_them)
{
	static const char *const cmds[] = { "export --format chrome", "view", "view --format svg",
					    "view --format png" };
	char dir[] = "/dev/shm/rtr-out-XXXXXX", out[128], link[128], target[128], args[512];
	static char text[8192];
	struct stat st;

	cr_assert_not_null(mkdtemp(dir));
	record_small(dir);
	umask(022);
	snprintf(link, sizeof(link), "%s/link", dir);
	snprintf(target, sizeof(target), "%s/target", dir);
	cr_assert_eq(mkdir(strcat(strcpy(args, dir), "/empty"), 0700), 0);
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		const char *c = cmds[i];

		snprintf(out, sizeof(out), "%s/out%zu", dir, i);
		snprintf(args, sizeof(args), "%s -o '%s' '%s/trace'", c, out, dir);
		cr_expect_eq(run(args, text, sizeof(text)), 0, "%s: %s", args, text);
		cr_assert_eq(lstat(out, &st), 0, "%s", args);
		cr_expect(S_ISREG(st.st_mode));
		cr_expect_eq(st.st_mode & 07777, 0600, "%s: mode %o", args, st.st_mode & 07777);

		/* an existing file: kept without --force, replaced (a new file, 0600) with it */
		spit(out, "old", 0644);
		cr_expect_eq(run(args, text, sizeof(text)), 1, "%s: %s", args, text);
		cr_expect_not_null(strstr(text, "exists (--force replaces it)"), "%s: %s", args, text);
		cr_expect(holds(out, "old"), "%s replaced %s without --force", c, out);
		snprintf(args, sizeof(args), "%s --force -o '%s' '%s/trace'", c, out, dir);
		cr_expect_eq(run(args, text, sizeof(text)), 0, "%s: %s", args, text);
		cr_expect_not(holds(out, "old"), "%s --force did not replace %s", c, out);
		cr_assert_eq(lstat(out, &st), 0);
		cr_expect_eq(st.st_mode & 07777, 0600, "%s: mode %o", args, st.st_mode & 07777);

		/* a symbolic link: never written through, with or without --force */
		spit(target, "secret", 0644);
		unlink(link);
		cr_assert_eq(symlink(target, link), 0);
		for (int force = 0; force < 2; force++) {
			snprintf(args, sizeof(args), "%s %s-o '%s' '%s/trace'", c,
				 force ? "--force " : "", link, dir);
			cr_expect_eq(run(args, text, sizeof(text)), 1, "%s: %s", args, text);
			cr_expect_not_null(strstr(text, "is a symbolic link"), "%s: %s", args, text);
			cr_expect(holds(target, "secret"), "%s wrote through the link", args);
			cr_expect_eq(lstat(link, &st), 0);
			cr_expect(S_ISLNK(st.st_mode), "%s replaced the link", args);
		}

		/* a failure (no trace to read) leaves neither the file nor a temporary one */
		snprintf(out, sizeof(out), "%s/failed%zu", dir, i);
		snprintf(args, sizeof(args), "%s -o '%s' '%s/empty'", c, out, dir);
		cr_expect_eq(run(args, text, sizeof(text)), 1, "%s: %s", args, text);
		cr_expect_neq(access(out, F_OK), 0, "%s left %s", args, out);
		expect_no_temp(dir, args);
	}
	snprintf(args, sizeof(args), "rm -rf '%s'", dir);
	cr_expect_eq(system(args), 0);
}

/* view on a damaged trace: the page is written, drawn up to the damage, which stderr names; exit 1. */
Test(tools_cli, view_of_a_damaged_trace_exits_1)
{
	char dir[] = "/dev/shm/rtr-dmg-XXXXXX", path[160], args[512];
	static char text[8192];
	unsigned char junk[64];
	struct dirent *e;
	off_t target = 0;
	struct stat st;
	DIR *d;
	FILE *f;

	cr_assert_not_null(mkdtemp(dir));
	record_small(dir);
	/*
	 * 64 bytes of 0xff into the records of a packet that has 200 bytes of
	 * them at least: a packet closed early by the flush timer may hold
	 * fewer, and with O_DIRECT its 4 KiB on disk are padding after them.
	 */
	snprintf(path, sizeof(path), "%s/trace", dir);
	d = opendir(path);
	cr_assert_not_null(d);
	while (!target && (e = readdir(d))) {
		if (strncmp(e->d_name, "stream_", 7))
			continue;
		snprintf(args, sizeof(args), "%s/trace/%s", dir, e->d_name);
		f = fopen(args, "r");
		cr_assert_not_null(f, "%s", args);
		for (off_t at = 0; !target; ) {
			struct rtr_packet_hdr h;

			if (fseeko(f, at, SEEK_SET) || fread(&h, sizeof(h), 1, f) != 1 ||
			    h.packet_size < 8 * sizeof(h))
				break;
			if (h.content_size / 8 >= RTR_PACKET_HDR_SIZE + 200 + sizeof(junk)) {
				snprintf(path, sizeof(path), "%s", args);
				target = at + RTR_PACKET_HDR_SIZE + 200;
			}
			at += (off_t)(h.packet_size / 8);
		}
		fclose(f);
	}
	closedir(d);
	cr_assert_gt(target, 0, "no packet with 264 bytes of records");
	f = fopen(path, "r+");
	cr_assert_not_null(f, "%s", path);
	memset(junk, 0xff, sizeof(junk));
	cr_assert_eq(fseeko(f, target, SEEK_SET), 0);
	cr_assert_eq(fwrite(junk, 1, sizeof(junk), f), sizeof(junk));
	cr_assert_eq(fclose(f), 0);
	snprintf(args, sizeof(args), "view -o '%s/page.html' '%s/trace'", dir, dir);
	cr_expect_eq(run(args, text, sizeof(text)), 1, "%s", text);
	cr_expect_not_null(strstr(text, "ringtrace view: damaged: "), "%s", text);
	cr_expect_not_null(strstr(text, "(drawn up to there)"), "%s", text);
	snprintf(path, sizeof(path), "%s/page.html", dir);
	cr_expect_eq(stat(path, &st), 0, "the page is written all the same");
	cr_expect_gt(st.st_size, 1000);
	snprintf(args, sizeof(args), "rm -rf '%s'", dir);
	cr_expect_eq(system(args), 0);
}

/*
 * record's progress does not mix with the program's output: on a terminal
 * (script(1) gives it one, shared with the program, as a shell does) no line
 * is redrawn with \r; the summary comes at the end.  Not on a terminal, no \r
 * at all.
 */
Test(tools_cli, record_progress_keeps_off_the_programs_terminal)
{
	char dir[] = "/dev/shm/rtr-tty-XXXXXX", cmd[PATH_MAX + 512], *out;
	int st;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "script -qec \"'%s/ringtrace' record -o '%s/tty' -- "
		 "'%s/ringtrace-threads' --threads 1 --seconds 1.5 --rate 1000\" /dev/null "
		 "</dev/null", t_bindir(), dir, t_bindir());
	out = t_sh(cmd, &st);
	cr_expect_eq(st, 0, "%s", out);
	cr_expect_not_null(strstr(out, "attempted "), "the program's output: %s", out);
	cr_expect_not_null(strstr(out, "tty: "), "the summary: %s", out);
	cr_expect_null(strstr(out, "\rringtrace"), "a line redrawn: %s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), "'%s/ringtrace' record -o '%s/pipe' -- '%s/ringtrace-threads' "
		 "--threads 1 --seconds 1.2 --rate 1000 2>&1", t_bindir(), dir, t_bindir());
	out = t_sh(cmd, &st);
	cr_expect_eq(st, 0, "%s", out);
	cr_expect_not_null(strstr(out, "pipe: "), "the summary: %s", out);
	cr_expect_null(strchr(out, '\r'), "%s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_expect_eq(system(cmd), 0);
}

/* The number of times @needle occurs in @s. */
static int count_of(const char *s, const char *needle)
{
	int n = 0;

	for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/*
 * A real program's typed events (ringtrace-threads: RTR_TRACE(threads, tick)),
 * recorded, in every tool: counted per class in stats, an instant each with
 * its fields in export, a marker each in view's page.
 */
Test(tools_cli, a_programs_typed_events_are_in_every_tool)
{
	char dir[] = "/dev/shm/rtr-typed-XXXXXX", cmd[PATH_MAX + 512], *out;
	const char *p;
	unsigned n = 0;
	int st;

	cr_assert_not_null(mkdtemp(dir));
	record_small(dir);	/* 2 threads x 100 ticks */
	snprintf(cmd, sizeof(cmd), "'%s/ringtrace' stats --json '%s/trace'", t_bindir(), dir);
	out = t_sh(cmd, &st);
	cr_expect_eq(st, 0, "%s", out);
	cr_expect_not_null(strstr(out, "\"class\": \"threads:tick\", \"count\": 200}"), "%s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), "'%s/ringtrace' export --format chrome '%s/trace'", t_bindir(),
		 dir);
	out = t_sh(cmd, &st);
	cr_expect_eq(st, 0, "%s", out);
	cr_expect_eq(count_of(out, "{\"ph\":\"i\",\"name\":\"threads:tick\""), 200, "%.2000s", out);
	cr_expect_not_null(strstr(out, "\"fields\":\"thread = 1, seq = 99\",\"thread\":1,\"seq\":99}"),
			   "%.2000s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), "'%s/ringtrace' view -o '%s/page.html' '%s/trace' >/dev/null && "
		 "cat '%s/page.html'", t_bindir(), dir, dir, dir);
	out = t_sh(cmd, &st);
	cr_expect_eq(st, 0, "%.2000s", out);
	p = strstr(out, "\"marker_ts\":[");
	cr_assert_not_null(p, "no markers in the page: %.2000s", out);
	cr_expect_eq(sscanf(p, "\"marker_ts\":[%*u,%u", &n), 1, "%.100s", p);
	cr_expect_eq(n, 200, "%.100s", p);
	free(out);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_expect_eq(system(cmd), 0);
}
