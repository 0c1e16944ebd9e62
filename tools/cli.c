// SPDX-License-Identifier: MIT
/* tools/cli.c - what the commands share (cli.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "reader/input.h"
#include "reader/model.h"
#include "tools/cli.h"

int cli_parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	}
	if (*end == 'i' && end[1] == 'B')
		end += 2;
	else if (*end == 'B')
		end++;
	if (*end)
		return -EINVAL;
	*out = v;
	return 0;
}

int cli_parse_time(const char *s, uint64_t *ns)
{
	char *end;
	double v = strtod(s, &end);
	double mul = 1e9;

	if (end == s || v < 0)
		return -EINVAL;
	if (!strcmp(end, "ms"))
		mul = 1e6;
	else if (!strcmp(end, "s") || !*end)
		mul = 1e9;
	else if (!strcmp(end, "m") || !strcmp(end, "min"))
		mul = 60e9;
	else if (!strcmp(end, "h"))
		mul = 3600e9;
	else if (!strcmp(end, "d"))
		mul = 86400e9;
	else
		return -EINVAL;
	if (v * mul > 1e18)
		return -EINVAL;
	*ns = (uint64_t)(v * mul);
	return 0;
}

void cli_human(char *buf, size_t n, uint64_t bytes)
{
	if (bytes >= (1ull << 30))
		snprintf(buf, n, "%.2f GiB", (double)bytes / (1 << 30));
	else if (bytes >= (1 << 20))
		snprintf(buf, n, "%.1f MiB", (double)bytes / (1 << 20));
	else
		snprintf(buf, n, "%.1f KiB", (double)bytes / 1024);
}

/* ---- signals ------------------------------------------------------------------- */

volatile sig_atomic_t cli_got_chld, cli_got_usr1, cli_got_term, cli_got_int;
volatile sig_atomic_t cli_got_stop;
sigjmp_buf cli_bus_jmp;
volatile sig_atomic_t cli_bus_armed;

static void on_sigbus(int sig)
{
	if (cli_bus_armed) {
		cli_bus_armed = 0;
		siglongjmp(cli_bus_jmp, 1);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

void cli_bus_message(const char *cmd, const char *region)
{
	fprintf(stderr, "\nringtrace %s: the region %s shrank while it was read (its file was "
		"truncated: a hostile or broken producer); stopped reading: what was written is a "
		"valid trace up to there\n", cmd, region);
}

static void on_signal(int sig)
{
	if (sig == SIGCHLD)
		cli_got_chld = 1;
	else if (sig == SIGUSR1)
		cli_got_usr1 = 1;
	else if (sig == SIGINT)
		cli_got_int = cli_got_stop = 1;
	else
		cli_got_term = sig, cli_got_stop = 1;
}

void cli_catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };
	int sigs[] = { SIGCHLD, SIGUSR1, SIGINT, SIGTERM, SIGHUP };

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	sa.sa_handler = on_sigbus;
	sigaction(SIGBUS, &sa, NULL);
}

/* ---- inputs and the model ---------------------------------------------------------- */

void cli_input_told(const struct tr_input *in)
{
	if (in->stream_failed)
		fprintf(stderr, "ringtrace: %s\n", in->stream_err);
}

int cli_input_close(struct tr_input *in)
{
	bool told = in->stream_failed;
	char err[sizeof(in->stream_err)];

	if (!tr_input_close(in, err, sizeof(err)))
		return 0;
	if (!told)
		fprintf(stderr, "ringtrace: %s\n", err);
	return 1;
}

int cli_traces_exist(const char *cmd, char *const *paths, int n)
{
	struct stat st;

	for (int i = 0; i < n; i++) {
		if (!strcmp(paths[i], "-") || !stat(paths[i], &st) ||
		    (errno != ENOENT && errno != ENOTDIR))
			continue;	/* what else is wrong, opening it says */
		fprintf(stderr, "ringtrace %s: no such trace: %s\n", cmd, paths[i]);
		return 2;
	}
	return 0;
}

int cli_model_load(const char *cmd, struct rtr_model *m, char *const *dirs, int ndirs,
		   unsigned flags)
{
	char err[1024];
	int r = rtr_model_load_flags(m, dirs, ndirs, flags, err, sizeof(err));

	if (r < 0)
		fprintf(stderr, "ringtrace %s: %s\n", cmd, err);
	return r;
}

void cli_model_damage(const char *cmd, const struct rtr_model *m)
{
	for (uint32_t i = 0; i < m->ndamage; i++)
		fprintf(stderr, "ringtrace %s: damaged: %s\n", cmd,
			rtr_model_str(m, m->damage[i].message));
}
