// SPDX-License-Identifier: MIT
/*
 * tests/view/test_columns.c - the page's columns are the table's
 * (view/columns.h): every column of the table in the page's header, with its
 * kind, and no other; the model's constants in the header too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include "reader/model.h"
#include "tests/helpers.h"
#include "view/columns.h"

TestSuite(view_columns, .timeout = 120);

Test(view_columns, the_pages_columns_are_the_tables_and_only_those)
{
	char dir[64], cmd[1024], *out, *cols, *end;
	int st, n = 0;

	t_mkdtemp(dir, sizeof(dir), "view-columns");
	snprintf(cmd, sizeof(cmd), "'%s/rtr-viewer-traces' '%s/t' >/dev/null && '%s/ringtrace' view -o "
		 "'%s/p.html' '%s/t/basic' >/dev/null && sed -n 's/.*id=\"rtr-meta\">//p' '%s/p.html'",
		 t_bindir(), dir, t_bindir(), dir, dir, dir);
	out = t_sh(cmd, &st);
	cr_assert_eq(st, 0, "%s", out);
	cols = strstr(out, "\"columns\":{");
	cr_assert_not_null(cols, "%s", out);
	end = strchr(cols, '}');
	cr_assert_not_null(end);
	*end = 0;
	for (int c = 0; c < RTR_PAGE_NCOLUMNS; c++) {
		const struct rtr_page_column_def *d = &rtr_page_columns[c];
		char key[64], *at, *kind;

		snprintf(key, sizeof(key), "\"%s\":[", d->name);
		at = strstr(cols, key);
		cr_assert_not_null(at, "column %s is not in the page", d->name);
		kind = strchr(at, ']');
		cr_assert_not_null(kind);
		cr_assert(kind - at > (long)strlen(d->kind) + 2 &&
			  !strncmp(kind - strlen(d->kind) - 1, d->kind, strlen(d->kind)),
			  "column %s: not of kind %s: %.60s", d->name, d->kind, at);
	}
	for (char *p = cols; (p = strstr(p, "\":[")); p++)
		n++;
	cr_assert_eq(n, RTR_PAGE_NCOLUMNS, "the page has %d columns, the table %d", n, RTR_PAGE_NCOLUMNS);
	/* the constants the page reads instead of typing them */
	*end = '}';
	snprintf(cmd, sizeof(cmd), "\"task_flags\":{\"resolved\":%u,\"failed\":%u,\"never_resolved\":%u,"
		 "\"created\":%u}", RTR_TASK_RESOLVED, RTR_TASK_FAILED, RTR_TASK_NEVER_RESOLVED,
		 RTR_TASK_CREATED);
	cr_assert_not_null(strstr(out, cmd), "%s", out);
	cr_assert_not_null(strstr(out, "\"arrow_kinds\":[\"read\",\"try_read\",\"resolve\",\"signal\","
				      "\"create\",\"becomes\"]"));
	free(out);
	t_rm_rf(dir);
}

Test(view_columns, a_page_too_big_to_open_quickly_points_to_serve, .timeout = 300)
{
	char dir[64], cmd[1024], *out;
	int st;

	/*
	 * ~2.7 M events: about 95 MB of columns, gzipped into a page of about
	 * 29 MB: quiet at the default threshold (320 MB of data), written with
	 * the advice at 50 MB (RINGTRACE_VIEW_SLOW_MB), never refused.
	 */
	t_mkdtemp(dir, sizeof(dir), "view-big");
	snprintf(cmd, sizeof(cmd),
		 "'%s/rtr-viewer-traces' --events 2700000 '%s/t' >/dev/null && "
		 "'%s/ringtrace' view -o '%s/p.html' '%s/t' 2>&1 >/dev/null; echo \"status $?\"; "
		 "RINGTRACE_VIEW_SLOW_MB=50 '%s/ringtrace' view --force -o '%s/p.html' '%s/t' "
		 "2>&1 >/dev/null; echo \"status $?\"; stat -c 'size %%s' '%s/p.html'; "
		 "/usr/bin/python3 -c 'import base64, gzip, re, sys\n"
		 "h = open(sys.argv[1]).read()\n"
		 "z = base64.b64decode(re.search(r\"id=.rtr-data. data-encoding=.gzip.>(.*?)<\", "
		 "h, re.S).group(1))\n"
		 "print(\"inflated\", len(gzip.decompress(z)))' '%s/p.html'",
		 t_bindir(), dir, t_bindir(), dir, dir, t_bindir(), dir, dir, dir, dir);
	out = t_sh(cmd, &st);
	cr_assert_eq(st, 0, "%s", out);
	cr_assert_eq(strncmp(out, "status 0\n", 9), 0, "quiet by default: %s", out);
	cr_assert(strstr(out, "MB of data: a browser takes many seconds to open it, and as much "
			      "memory; `ringtrace view --serve "),
		  "%s", out);
	cr_assert(strstr(out, "\nstatus 0\n"), "%s", out);
	{
		const char *sz = strstr(out, "size ");

		cr_assert_not_null(sz, "%s", out);
		cr_assert_lt(strtoull(sz + 5, NULL, 10), 50ull << 20, "the page is gzipped: %s",
			     out);
	}
	{
		/* deflated in pieces at once (over 4 MB each), joined: one gzip stream, its CRC
		 * right */
		const char *inf = strstr(out, "inflated ");

		cr_assert_not_null(inf, "%s", out);
		cr_assert_gt(strtoull(inf + 9, NULL, 10), 50ull << 20, "%s", out);
	}
	free(out);
	t_rm_rf(dir);
}
