/* SPDX-License-Identifier: MIT */
/*
 * format/error.h - the one error type and its one formatter of every
 * library: the producer, the consumer, the read side
 * (Documentation/errors.rst).  The type: a negative errno returned, and a
 * message in the caller's buffer (char *err, size_t errlen) or in the
 * buffer of the object the work is on (struct tr_cursor.err), saying where
 * and what: "FILE: line N: what" for text (metadata), "FILE: offset N:
 * what" for bytes (a stream), "FILE: what" or "what" otherwise.  Every
 * library that reads or writes traces formats its messages here, so that
 * they have one shape a command prints after "ringtrace CMD: ".
 */
#ifndef RTR_FORMAT_ERROR_H
#define RTR_FORMAT_ERROR_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* Where in @file a problem is: nowhere in particular, a line, a byte offset. */
enum rtr_err_at {
	RTR_AT_NONE,
	RTR_AT_LINE,
	RTR_AT_OFFSET,
};

/**
 * rtr_verrf_at() - the one formatter: "@file: " (when @file is not NULL),
 * "line @pos: " or "offset @pos: " (as @at says), then @fmt's text, into
 * @err, at most @errlen bytes with the NUL (cut, never overflowing).
 * Return: -@code, for "return rtr_errf(err, errlen, EPROTO, ...);" (a
 * @code of 0 when the caller returns a code of its own after clean-up).
 * @err may be NULL or @errlen 0: nothing is written.
 */
int rtr_verrf_at(char *err, size_t errlen, int code, const char *file, enum rtr_err_at at,
		 uint64_t pos, const char *fmt, va_list ap) __attribute__((format(printf, 7, 0)));

/* The same with a variable argument list. */
int rtr_errf_at(char *err, size_t errlen, int code, const char *file, enum rtr_err_at at,
		uint64_t pos, const char *fmt, ...) __attribute__((format(printf, 7, 8)));

/* A message with no place: @fmt's text alone.  Return: -@code. */
int rtr_errf(char *err, size_t errlen, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif /* RTR_FORMAT_ERROR_H */
