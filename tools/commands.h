/* SPDX-License-Identifier: MIT */
/*
 * tools/commands.h - the ringtrace commands, one table (tools/ringtrace.c)
 * that dispatches them and prints the usage.  Each command is a function of
 * its own file, takes argv[0] as its name and returns the exit status: 0 ok,
 * 1 failed (a damaged trace, an error), 2 usage.  Commands are the only code
 * that prints to the terminal and chooses an exit status
 * (Documentation/errors.rst).
 */
#ifndef RTR_TOOLS_COMMANDS_H
#define RTR_TOOLS_COMMANDS_H

/**
 * struct rtr_command - one line of `ringtrace --help` and what runs.
 * @name: the command's name.
 * @args: its arguments, as the usage shows them ("" if none).
 * @summary: what it does, lines separated by '\n'.
 * @run: the command; NULL for `help`.
 */
struct rtr_command {
	const char *name;
	const char *args;
	const char *summary;
	int (*run)(int argc, char **argv);
};

/* tools/record.c, consume.c, snapshot.c, recover.c: the commands that consume a region */
int rtr_cmd_record(int argc, char **argv);
int rtr_cmd_consume(int argc, char **argv);
int rtr_cmd_snapshot(int argc, char **argv);
int rtr_cmd_recover(int argc, char **argv);
/* tools/info.c, convert.c: a region looked at, a region to a CTF directory */
int rtr_cmd_info(int argc, char **argv);
int rtr_cmd_convert(int argc, char **argv);
/* tools/dump.c, check.c: a trace's events as text; a trace validated */
int rtr_cmd_dump(int argc, char **argv);
int rtr_cmd_check(int argc, char **argv);
int rtr_cmd_index(int argc, char **argv);
/*
 * cli_check_written() - what `check` checks, of the trace at @path, quietly.
 * Return: 0 clean, 1 damaged (the first damage in @damage).
 */
int cli_check_written(const char *path, char *damage, size_t len);
/* tools/stats.c, export.c, view.c: on the task model (reader/model.h) */
int rtr_cmd_stats(int argc, char **argv);
int rtr_cmd_export(int argc, char **argv);
int rtr_cmd_view(int argc, char **argv);
/* tools/why.c, diff.c: answers: a task's critical path, two runs compared */
int rtr_cmd_why(int argc, char **argv);
int rtr_cmd_diff(int argc, char **argv);
/* tools/gui.c: the window (GTK 4) */
int rtr_cmd_gui(int argc, char **argv);

#endif /* RTR_TOOLS_COMMANDS_H */
