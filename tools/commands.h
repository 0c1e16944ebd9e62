/* SPDX-License-Identifier: MIT */
/*
 * tools/commands.h - the ringtrace subcommands.  Each takes argv[0] as the
 * command's name and returns the exit status (0 ok, 1 failed, 2 usage).
 */
#ifndef RTR_TOOLS_COMMANDS_H
#define RTR_TOOLS_COMMANDS_H

int rtr_cmd_record(int argc, char **argv);
int rtr_cmd_consume(int argc, char **argv);
int rtr_cmd_snapshot(int argc, char **argv);
int rtr_cmd_recover(int argc, char **argv);
/* tools/view.c: the traces as one HTML page */
int rtr_cmd_view(int argc, char **argv);

#endif /* RTR_TOOLS_COMMANDS_H */
