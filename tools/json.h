/* SPDX-License-Identifier: MIT */
/*
 * tools/json.h - a buffered JSON writer for the commands that export:
 * strings from traces are arbitrary bytes, so every string is escaped
 * (quotes, backslashes, control characters) and made valid UTF-8 (each byte
 * of an invalid sequence becomes U+FFFD).
 */
#ifndef RTR_TOOLS_JSON_H
#define RTR_TOOLS_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/**
 * struct jw - output buffered in memory, written to @f when full.
 * @f: where the output goes.
 * @buf: the buffer, @len bytes used of @cap.
 * @failed: a write failed (or memory ran out); the output is incomplete.
 */
struct jw {
	FILE *f;
	char *buf;
	size_t len, cap;
	bool failed;
};

/* Return: 0, or -ENOMEM. */
int jw_init(struct jw *w, FILE *f);
/* Write out what is buffered.  Return: 0, or -1 if any write failed. */
int jw_flush(struct jw *w);
/* Flush and free the buffer.  Return: as jw_flush(). */
int jw_close(struct jw *w);

void jw_raw(struct jw *w, const char *s, size_t n);
/* A NUL-terminated literal (not escaped). */
void jw_lit(struct jw *w, const char *s);
/* @n bytes of @s as a quoted, escaped, valid UTF-8 JSON string. */
void jw_str(struct jw *w, const char *s, size_t n);
/* Length of the valid UTF-8 sequence at @s (of @n > 0 bytes), 0 if invalid. */
size_t jw_utf8_len(const uint8_t *s, size_t n);
/* A NUL-terminated string, as jw_str(). */
void jw_cstr(struct jw *w, const char *s);
void jw_u64(struct jw *w, uint64_t v);
void jw_i64(struct jw *w, int64_t v);
/* Nanoseconds as microseconds with three decimals: "1234.567" (the Trace Event "ts"). */
void jw_us(struct jw *w, int64_t ns);
/* A double, "%.17g"-exact, or null if not finite. */
void jw_double(struct jw *w, double v);

#endif /* RTR_TOOLS_JSON_H */
