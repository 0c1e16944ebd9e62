// SPDX-License-Identifier: MIT
/*
 * tests/events/test_docs.c - Documentation/events.rst shows its examples as
 * text, and that text is the compiled examples' (examples/api/tour.c,
 * examples/cpp/pool.cc): scripts/doc-examples.py finds no difference, and
 * finds the one made in a copy of the page.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include "tests/helpers.h"

TestSuite(events_docs, .timeout = 60);

static const char *srcdir(void)
{
	const char *s = getenv("RTR_SRCDIR");

	return s ? s : ".";
}

Test(events_docs, events_rst_shows_the_code_of_the_compiled_examples)
{
	char cmd[1024], page[] = "/tmp/rtr-docs-XXXXXX";
	char *out;
	int st, fd;

	snprintf(cmd, sizeof(cmd), "python3 '%s/scripts/doc-examples.py' 2>&1", srcdir());
	out = t_sh(cmd, &st);
	cr_expect_eq(st, 0, "%s", out);
	cr_expect_str_eq(out, "");
	free(out);

	/* A copy of the page with one line of the RTR_TRACE example changed. */
	fd = mkstemp(page);
	cr_assert_geq(fd, 0);
	snprintf(cmd, sizeof(cmd),
		 "sed 's/\\.status = 200, \\.path/.status = 404, .path/' '%s/Documentation/events.rst' "
		 "> '%s' && grep -c 'status = 404' '%s'", srcdir(), page, page);
	out = t_sh(cmd, &st);
	cr_assert_eq(st, 0, "the example is no longer in the page: %s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), "python3 '%s/scripts/doc-examples.py' '%s' 2>&1", srcdir(), page);
	out = t_sh(cmd, &st);
	cr_expect_eq(st, 1, "%s", out);
	cr_expect_not_null(strstr(out, "the code from examples/api/tour.c [trace] differs"), "%s",
			   out);
	cr_expect_not_null(strstr(out, "1 block(s) differ"), "%s", out);
	free(out);
	unlink(page);
}
