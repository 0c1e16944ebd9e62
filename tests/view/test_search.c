// SPDX-License-Identifier: MIT
/*
 * tests/view/test_search.c - the scene's search (rtr_scene_search()) on the
 * viewer tests' basic trace: labels, failure reasons and kinds, by
 * substring in any case or by regular expression; bad queries refused.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include "tests/helpers.h"
#include "view/scene.h"

TestSuite(view_search, .timeout = 120);

static char dir[64];
static struct rtr_model m;
static struct rtr_scene s;

static void setup(void)
{
	char cmd[512], trace[128], err[256], *out, *dirs[1] = { trace };
	int st;

	t_mkdtemp(dir, sizeof(dir), "view-search");
	snprintf(cmd, sizeof(cmd), "'%s/rtr-viewer-traces' '%s/t' 2>&1", t_bindir(), dir);
	out = t_sh(cmd, &st);
	cr_assert_eq(st, 0, "%s", out);
	free(out);
	snprintf(trace, sizeof(trace), "%s/t/basic", dir);
	memset(&m, 0, sizeof(m));
	cr_assert_eq(rtr_model_load(&m, dirs, 1, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(rtr_scene_build(&s, &m, 0), 0);
}

static void teardown(void)
{
	rtr_scene_free(&s);
	rtr_model_free(&m);
	t_rm_rf(dir);
}

/* The names (first labels) of the tasks @q finds, space-separated, in task order. */
static const char *found(const char *q)
{
	static char names[512];
	uint32_t t[64];
	int64_t n = rtr_scene_search(&s, q, t, 64);

	cr_assert_geq(n, 0, "%s: %ld", q, (long)n);
	cr_assert_leq(n, 64);
	names[0] = 0;
	for (int64_t i = 0; i < n; i++) {
		strcat(names, i ? " " : "");
		strcat(names, rtr_model_str(&m, m.tasks[t[i]].name));
	}
	return names;
}

Test(view_search, labels_reasons_and_kinds_by_substring_or_regex, .init = setup, .fini = teardown)
{
	char big[RTR_SCENE_SEARCH_MAX + 2];
	uint32_t one;

	cr_assert_str_eq(found("alpha"), "alpha");
	cr_assert_str_eq(found("ALPHA"), "alpha", "any case");
	cr_assert_str_eq(found("TimeOut"), "gamma", "a failure's reason");
	cr_assert_str_eq(found("/^(beta|worker)$/"), "beta worker");
	cr_assert_str_eq(found("/^ALPHA$/"), "");
	cr_assert_str_eq(found("/^ALPHA$/i"), "alpha");
	cr_assert_str_eq(found("/^d.*t$/"), "delta-short");
	cr_assert_str_eq(found("no such thing"), "");
	/* a kind: every task made by rtr_named_wait() is a wait */
	cr_assert_str_eq(found("/^wait$/"), "alpha gamma delta-short epsilon zeta");
	/* more matches than room: the count, and the first ones */
	cr_assert_eq(rtr_scene_search(&s, "/^wait$/", &one, 1), 5);
	cr_assert_str_eq(rtr_model_str(&m, m.tasks[one].name), "alpha");
	/* refused */
	cr_assert_eq(rtr_scene_search(&s, "", &one, 1), -EINVAL);
	cr_assert_eq(rtr_scene_search(&s, "/(/", &one, 1), -EINVAL);
	cr_assert_eq(rtr_scene_search(&s, "/a/g", &one, 1), -EINVAL);
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	cr_assert_eq(rtr_scene_search(&s, big, &one, 1), -EINVAL);
}
