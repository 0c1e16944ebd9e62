// SPDX-License-Identifier: MIT
/*
 * tests/tools/test_sqlite.c - `ringtrace export --format sqlite`: the
 * seeds' ARP program recorded twice (the usual order, the race), both
 * exported into one database; tests/tools/check_sqlite.py holds it against
 * `ringtrace stats --json` of the same traces (counts, sums, percentiles
 * exactly) and runs every SQL block of Documentation/analysis.rst on it;
 * usage errors, an existing file kept.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include "tests/helpers.h"

TestSuite(tools_sqlite, .timeout = 120);

static char dir[PATH_MAX];

static void setup(void)
{
	t_mkdtemp(dir, sizeof(dir), "sqlite");
}

static void teardown(void)
{
	t_rm_rf(dir);
}

static char *sh(const char *fmt, const char *arg, int *st)
{
	char cmd[4 * PATH_MAX], c2[4 * PATH_MAX];

	snprintf(c2, sizeof(c2), fmt, arg);
	snprintf(cmd, sizeof(cmd), "cd '%s' && R='%s/ringtrace' && %s 2>&1", dir, t_bindir(), c2);
	return t_sh(cmd, st);
}

Test(tools_sqlite, tables_agree_with_stats_and_the_documented_queries_run, .init = setup,
     .fini = teardown)
{
	const char *src = t_srcdir();
	char *out;
	int st;

	out = sh("$R record -q -o good -- \"$(dirname $R)/ringtrace-arp\" >/dev/null && "
		 "{ $R record -q -o bad -- \"$(dirname $R)/ringtrace-arp\" --race --timeout 50 "
		 ">/dev/null; [ $? = 1 ]; }%s", "", &st);
	cr_assert_eq(st, 0, "recording: %s", out);
	free(out);
	out = sh("S='%s' && $R export --format sqlite -o t.db good bad && "
		 "$R stats --json good bad > s.json && "
		 "/usr/bin/python3 \"$S/tests/tools/check_sqlite.py\" t.db s.json "
		 "\"$S/Documentation/analysis.rst\"", src ? src : ".", &st);
	cr_assert_eq(st, 0, "%s", out);
	cr_assert_not_null(strstr(out, "ok"), "%s", out);
	free(out);
	/* the file is there: kept without --force, replaced with it; nothing else left beside it */
	out = sh("$R export --format sqlite -o t.db good%s", "", &st);
	cr_assert_eq(st, 1, "%s", out);
	cr_assert_not_null(strstr(out, "t.db exists (--force replaces it)"), "%s", out);
	free(out);
	out = sh("$R export --format sqlite --force -o t.db good && ls -A | tr '\\n' ' '%s", "", &st);
	cr_assert_eq(st, 0, "%s", out);
	cr_assert_str_eq(out, "bad good s.json t.db ");
	free(out);
	out = sh("$R export --format sqlite good%s", "", &st);
	cr_assert_eq(st, 2, "%s", out);
	cr_assert_not_null(strstr(out, "--format sqlite writes a file: -o FILE.db is needed"), "%s", out);
	free(out);
	out = sh("$R export --format sqlite -o - good%s", "", &st);
	cr_assert_eq(st, 2, "%s", out);
	free(out);
	out = sh("$R export --format sqlite -o nodir/t.db good%s", "", &st);
	cr_assert_eq(st, 1, "%s", out);
	cr_assert_not_null(strstr(out, "nodir"), "%s", out);
	free(out);

	/*
	 * A damaged copy (bytes of its streams overwritten, at a few places
	 * each): why, diff and both exports say so and exit 1, or find it
	 * whole, never crash; the JSON they print is valid.
	 */
	for (int round = 0; round < 8; round++) {
		char cmd[256];

		snprintf(cmd, sizeof(cmd),
			 "rm -rf dmg && cp -r bad dmg && for f in dmg/stream_*; do "
			 "n=$(stat -c %%s $f); for k in 1 2 3; do "
			 "dd if=/dev/urandom of=$f bs=1 count=%d seek=$(( (n * (k * 7 + %d)) / 32 %% n )) "
			 "conv=notrunc status=none; done; done", 4 + round * 3, round);
		out = sh("%s", cmd, &st);
		cr_assert_eq(st, 0, "%s", out);
		free(out);
		static const char *const cmds[] = {
			"$R why --json dmg 'TCP connect' >o.json",
			"$R why --slowest bind dmg >/dev/null",
			"$R diff --json good dmg >o.json",
			"$R export --format sqlite --force -o d.db dmg",
			"$R stats dmg >/dev/null",
		};
		for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
			char c2[512];

			/* its status; what it printed, if it printed JSON and succeeded, parsed */
			snprintf(c2, sizeof(c2), "rm -f o.json; { %s; } 2>/dev/null; s=$?; if [ $s = 0 ] && [ -s o.json ]; then "
				 "/usr/bin/python3 -c 'import json,sys; json.load(open(\"o.json\"))' || s=json; "
				 "fi; echo \"status $s\"", cmds[i]);
			out = sh("%s", c2, &st);
			cr_assert(strstr(out, "status 0") || strstr(out, "status 1"),
				  "round %d, %s: %s", round, cmds[i], out);
			cr_assert_null(strstr(out, "Sanitizer"), "%s", out);
			free(out);
		}
	}
}
