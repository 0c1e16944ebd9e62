// SPDX-License-Identifier: MIT
/*
 * tests/interop/test_corpus.c - the reader over a corpus nobody here wrote:
 * babeltrace's own CTF test traces (../shared/reference/babeltrace-ctf-traces,
 * or $RTR_CTF_CORPUS), babeltrace2 the oracle.  tests/interop/corpus.py does
 * the work: every succeed/ trace read by dump exactly as babeltrace2 reads
 * it (events, values, times, losses) and called readable by check; every
 * fail/ trace refused by both with a message that names the file and the
 * line or offset; 4 mutated copies of each succeed/ trace reported, not
 * crashed on; no sanitizer report.  Without the corpus the test skips,
 * saying so; the gaps it found are covered by traces made here
 * (tests/interop/test_ctf_gaps.c), which need no corpus.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <criterion/criterion.h>
#include "tests/helpers.h"

TestSuite(interop_corpus, .timeout = 600);

/*
 * The traces the reader does not read as it should yet, each with its
 * cause (issue 21); corpus.py fails if one of them reads right.
 */
static const char *const not_yet[] = {
	NULL
};

Test(interop_corpus, babeltrace_traces_read_as_babeltrace2_reads_them)
{
	char corpus[PATH_MAX], cmd[PATH_MAX * 3 + 4096], *out;
	const char *env = getenv("RTR_CTF_CORPUS");
	struct stat st;
	size_t n;
	int status;

	if (env && *env)
		snprintf(corpus, sizeof(corpus), "%s", env);
	else
		snprintf(corpus, sizeof(corpus), "%s/../shared/reference/babeltrace-ctf-traces",
			 t_srcdir());
	if (stat(corpus, &st) || !S_ISDIR(st.st_mode)) {
		cr_skip_test("no CTF corpus at '%s' (babeltrace's tests/data/ctf-traces; "
			     "RTR_CTF_CORPUS names another place)", corpus);
	}
	n = (size_t)snprintf(cmd, sizeof(cmd), "/usr/bin/python3 '%s/tests/interop/corpus.py' "
			     "'%s' '%s/ringtrace' --mutants 4 2>&1", t_srcdir(), corpus, t_bindir());
	for (size_t i = 0; not_yet[i] && n < sizeof(cmd); i++)
		n += (size_t)snprintf(cmd + n, sizeof(cmd) - n, " --not-yet '%s'", not_yet[i]);
	cr_assert_lt(n, sizeof(cmd));
	out = t_sh(cmd, &status);
	cr_expect_eq(status, 0, "%s", out);
	cr_expect_not_null(strstr(out, "corpus: "), "%s", out);
	cr_expect_not_null(strstr(out, " none crashed"), "the mutated copies: %s", out);
	free(out);
}
