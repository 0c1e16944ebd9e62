// SPDX-License-Identifier: MIT
/*
 * view/search.c - the scene's search (view/scene.h, rtr_scene_search()):
 * the tasks whose kind, labels or failure reason match, as the page's search
 * box has always matched them, computed in C for every front end.
 */
#include <errno.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include "view/scene.h"

struct matcher {
	const char *needle;	/* a substring, any case; or */
	regex_t re;		/* a regular expression */
	bool is_re;
};

static bool match(const struct matcher *mt, const char *s)
{
	if (mt->is_re)
		return regexec(&mt->re, s, 0, NULL, 0) == 0;
	return strcasestr(s, mt->needle) != NULL;
}

/* "/re/flags" (flags: i) is a regular expression; anything else a substring. */
static int compile(struct matcher *mt, const char *q)
{
	const char *end = strrchr(q, '/');
	int cflags = REG_EXTENDED | REG_NOSUB;
	char *re;
	int ret;

	memset(mt, 0, sizeof(*mt));
	if (q[0] != '/' || end == q) {
		mt->needle = q;
		return 0;
	}
	for (const char *f = end + 1; *f; f++) {
		if (*f != 'i')
			return -EINVAL;
		cflags |= REG_ICASE;
	}
	re = strndup(q + 1, (size_t)(end - q - 1));
	if (!re)
		return -ENOMEM;
	ret = regcomp(&mt->re, re, cflags);
	free(re);
	if (ret)
		return ret == REG_ESPACE ? -ENOMEM : -EINVAL;
	mt->is_re = true;
	return 0;
}

int64_t rtr_scene_search(const struct rtr_scene *s, const char *query, uint32_t *out, uint32_t max)
{
	const struct rtr_model *m = s->m;
	struct matcher mt;
	int64_t n = 0;
	int ret;

	if (!*query || strlen(query) > RTR_SCENE_SEARCH_MAX)
		return -EINVAL;
	if ((ret = compile(&mt, query)))
		return ret;
	for (uint32_t t = 0; t < m->ntasks; t++) {
		const struct rtr_model_task *k = &m->tasks[t];
		bool hit = match(&mt, rtr_model_str(m, k->kind_name)) ||
			   ((k->flags & RTR_TASK_FAILED) && match(&mt, rtr_model_str(m, k->reason)));

		for (uint32_t l = k->label_first; !hit && l < k->label_first + k->nlabels && l < m->nlabels; l++)
			hit = match(&mt, rtr_model_str(m, m->labels[l].text));
		if (!hit)
			continue;
		if (n < max)
			out[n] = t;
		n++;
	}
	if (mt.is_re)
		regfree(&mt.re);
	return n;
}
