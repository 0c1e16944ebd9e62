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

static uint32_t named(const struct rtr_model *mm, const char *name)
{
	for (uint32_t t = 0; t < mm->ntasks; t++)
		if (!strcmp(rtr_model_str(mm, mm->tasks[t].name), name))
			return t;
	cr_assert_fail("no task %s", name);
	return RTR_MODEL_NONE;
}

Test(view_search, simplify_binds_draws_an_idle_bind_from_its_read, .init = setup, .fini = teardown)
{
	char trace[128], err[256], *dirs[1] = { trace };
	struct rtr_model b = { 0 };
	struct rtr_scene plain, simple;
	struct rtr_frame f = { 0 };
	uint32_t idle, awaited, input, create = RTR_MODEL_NONE;
	int64_t read = -1;

	/* the viewer tests' binds trace: "idle-bind" read "input" before anyone used it */
	snprintf(trace, sizeof(trace), "%s/t/binds", dir);
	cr_assert_eq(rtr_model_load(&b, dirs, 1, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(rtr_scene_build(&plain, &b, 0), 0);
	cr_assert_eq(rtr_scene_build(&simple, &b, RTR_SCENE_SIMPLIFY_BINDS), 0);
	idle = named(&b, "idle-bind");
	awaited = named(&b, "awaited-bind");
	input = named(&b, "input");
	for (uint32_t i = 0; i < b.narrows; i++)
		if (b.arrows[i].kind == RTR_ARROW_READ && b.arrows[i].to == idle && read < 0)
			read = b.arrows[i].ts;
	cr_assert_gt(read, b.tasks[idle].created);
	cr_assert_eq(simple.simplified, 1, "the awaited bind stays as it is");
	cr_assert_eq(simple.task_start[idle], read);
	cr_assert_eq(simple.task_start[awaited], b.tasks[awaited].created);
	cr_assert_eq(plain.task_start[idle], b.tasks[idle].created);
	for (uint32_t i = 0; i < simple.narrows; i++)
		if (simple.arrows[i].kind == RTR_SCENE_ARROW_CREATE && simple.arrows[i].to == idle)
			create = i;
	cr_assert_neq(create, RTR_MODEL_NONE);
	cr_assert_eq(simple.arrows[create].from, input, "its creation line comes from its input");
	cr_assert_eq(simple.arrows[create].tf, read);
	/* what the page carries, from the plain scene: the same one change */
	{
		struct rtr_scene_bind *bb;
		uint32_t nb;

		cr_assert_eq(rtr_scene_binds(&plain, &bb, &nb), 0);
		cr_assert_eq(nb, 1);
		cr_assert_eq(bb[0].task, idle);
		cr_assert_eq(bb[0].start, read);
		cr_assert_eq(bb[0].from, input);
		cr_assert_lt(bb[0].arrow, plain.narrows);
		cr_assert_eq(plain.arrows[bb[0].arrow].kind, RTR_SCENE_ARROW_CREATE);
		cr_assert_eq(plain.arrows[bb[0].arrow].to, idle,
			     "the arrow is the bind's creation");
		free(bb);
	}
	/* the rows are the same; the window query draws it from the read */
	cr_assert_eq(simple.task_row[idle], plain.task_row[idle]);
	{
		struct rtr_window w = { .t0 = b.start, .t1 = b.end + 1, .row0 = 0, .row1 = simple.nrows,
					.width = 1000 };
		double want = (double)(read - w.t0) * 1000 / (double)(w.t1 - w.t0);
		bool seen = false;

		cr_assert_eq(rtr_scene_window(&simple, &w, &f), 0);
		for (uint32_t i = 0; i < f.ntasks; i++)
			if (f.tasks[i].index == idle) {
				cr_assert_float_eq(f.tasks[i].x0, want, 1e-6);
				seen = true;
			}
		cr_assert(seen);
	}
	rtr_frame_free(&f);
	rtr_scene_free(&plain);
	rtr_scene_free(&simple);
	rtr_model_free(&b);
}
