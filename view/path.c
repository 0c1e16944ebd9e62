// SPDX-License-Identifier: MIT
/* view/path.c - a task's critical path, flattened for drawing (view/path.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "view/path.h"

/* The leaves under list segs[first .. +n], in time order, appended to @p. */
static void leaves(const struct rtr_critpath *cp, uint32_t first, uint32_t n, struct rtr_path *p,
		   int depth)
{
	for (uint32_t i = first; i < first + n; i++) {
		const struct rtr_cp_seg *sg = &cp->segs[i];

		if (sg->nchildren && depth < RTR_CP_DEPTH + 1) {
			leaves(cp, sg->child_first, sg->nchildren, p, depth + 1);
			continue;
		}
		if (sg->end <= sg->start)
			continue;
		p->segs[p->n++] = (struct rtr_path_seg){ .t0 = sg->start, .t1 = sg->end,
							 .task = sg->task, .what = sg->what };
	}
}

int rtr_path_build(const struct rtr_scene *s, uint32_t task, struct rtr_path *p)
{
	struct rtr_cp_index ix;
	int ret;

	memset(p, 0, sizeof(*p));
	if (task >= s->m->ntasks)
		return -EINVAL;
	ret = rtr_cp_index_build(s->m, &ix);
	if (ret)
		return ret;
	ret = rtr_critpath(s->m, &ix, task, &p->cp);
	rtr_cp_index_free(&ix);
	if (ret)
		return ret;
	/* at most one leaf a segment */
	p->segs = malloc(((size_t)p->cp.nsegs + 1) * sizeof(*p->segs));
	if (!p->segs) {
		rtr_critpath_free(&p->cp);
		return -ENOMEM;
	}
	leaves(&p->cp, 0, p->cp.ntop, p, 0);
	return 0;
}

void rtr_path_free(struct rtr_path *p)
{
	free(p->segs);
	rtr_critpath_free(&p->cp);
	memset(p, 0, sizeof(*p));
}
