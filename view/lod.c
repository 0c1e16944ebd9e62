// SPDX-License-Identifier: MIT
/*
 * view/lod.c - the blocked index of the largest key of any range (view/lod.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "view/lod.h"

int rtr_lod_build(struct rtr_lod *l, uint64_t *key, uint32_t n)
{
	memset(l, 0, sizeof(*l));
	l->n = n;
	l->key[0] = key;
	l->len[0] = n;
	l->nlevels = 1;
	while (l->len[l->nlevels - 1] > RTR_LOD_FANOUT && l->nlevels < RTR_LOD_LEVELS) {
		unsigned lv = l->nlevels;
		uint32_t below = l->len[lv - 1], len = (below + RTR_LOD_FANOUT - 1) / RTR_LOD_FANOUT;

		l->key[lv] = malloc((size_t)len * sizeof(*l->key[lv]));
		l->pos[lv] = malloc((size_t)len * sizeof(*l->pos[lv]));
		l->nlevels++;
		if (!l->key[lv] || !l->pos[lv]) {
			rtr_lod_free(l);
			return -ENOMEM;
		}
		l->len[lv] = len;
		for (uint32_t b = 0; b < len; b++) {
			uint32_t i = b * RTR_LOD_FANOUT, e = i + RTR_LOD_FANOUT < below ? i + RTR_LOD_FANOUT : below;
			uint32_t best = i;

			for (uint32_t j = i + 1; j < e; j++)
				if (l->key[lv - 1][j] > l->key[lv - 1][best])
					best = j;
			l->key[lv][b] = l->key[lv - 1][best];
			l->pos[lv][b] = lv == 1 ? best : l->pos[lv - 1][best];
		}
	}
	return 0;
}

struct found {
	uint64_t key;
	uint32_t pos;
};

/* Entries [@lo, @hi) of level @lv, one by one. */
static void scan(const struct rtr_lod *l, unsigned lv, uint32_t lo, uint32_t hi, struct found *f)
{
	const uint64_t *k = l->key[lv];

	for (uint32_t i = lo; i < hi; i++) {
		uint32_t p = lv ? l->pos[lv][i] : i;

		if (k[i] > f->key || (k[i] == f->key && p < f->pos)) {
			f->key = k[i];
			f->pos = p;
		}
	}
}

/* Entries [@lo, @hi) of level @lv: the whole blocks among them a level up. */
static void best_at(const struct rtr_lod *l, unsigned lv, uint32_t lo, uint32_t hi, struct found *f)
{
	if (lv + 1 < l->nlevels && hi - lo > RTR_LOD_FANOUT) {
		uint32_t a = (lo + RTR_LOD_FANOUT - 1) / RTR_LOD_FANOUT, b = hi / RTR_LOD_FANOUT;

		if (a < b) {
			scan(l, lv, lo, a * RTR_LOD_FANOUT, f);
			best_at(l, lv + 1, a, b, f);
			scan(l, lv, b * RTR_LOD_FANOUT, hi, f);
			return;
		}
	}
	scan(l, lv, lo, hi, f);
}

uint32_t rtr_lod_best(const struct rtr_lod *l, uint32_t lo, uint32_t hi)
{
	struct found f = { .key = l->key[0][lo], .pos = lo };

	best_at(l, 0, lo + 1, hi, &f);
	return f.pos;
}

void rtr_lod_free(struct rtr_lod *l)
{
	for (unsigned i = 0; i < RTR_LOD_LEVELS; i++) {
		free(l->key[i]);
		free(l->pos[i]);
	}
	memset(l, 0, sizeof(*l));
}
