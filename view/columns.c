// SPDX-License-Identifier: MIT
/*
 * view/columns.c - the page's column table (view/columns.h).
 */
#include <string.h>
#include "view/columns.h"

const struct rtr_page_column_def rtr_page_columns[RTR_PAGE_NCOLUMNS] = {
#define RTR_COL_DEF(name, kind, size, what) { #name, #kind, size, what },
	RTR_PAGE_COLUMNS(RTR_COL_DEF)
#undef RTR_COL_DEF
};

const struct rtr_page_column_def *rtr_page_column_find(const char *name)
{
	for (int i = 0; i < RTR_PAGE_NCOLUMNS; i++)
		if (!strcmp(rtr_page_columns[i].name, name))
			return &rtr_page_columns[i];
	return NULL;
}
