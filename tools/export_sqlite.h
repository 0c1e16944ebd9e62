/* SPDX-License-Identifier: MIT */
/*
 * tools/export_sqlite.h - the task model as an SQLite database (`ringtrace
 * export --format sqlite`); the schema is in Documentation/analysis.rst.
 */
#ifndef RTR_TOOLS_EXPORT_SQLITE_H
#define RTR_TOOLS_EXPORT_SQLITE_H

#include <stddef.h>

struct rtr_model;

/*
 * rtr_export_sqlite() - write @m into the database file @path, which exists
 * and is empty.  Return: 0; -ENOMEM; -EIO, with SQLite's message in @err.
 */
int rtr_export_sqlite(const struct rtr_model *m, const char *path, char *err, size_t errlen);

#endif /* RTR_TOOLS_EXPORT_SQLITE_H */
