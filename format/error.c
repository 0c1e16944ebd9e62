// SPDX-License-Identifier: MIT
/*
 * format/error.c - the one error formatter of every library (format/error.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "format/error.h"

int rtr_verrf_at(char *err, size_t errlen, int code, const char *file, enum rtr_err_at at,
		 uint64_t pos, const char *fmt, va_list ap)
{
	size_t o = 0;
	int n = 0;

	if (!err || !errlen)
		return -code;
	err[0] = 0;
	if (file)
		n = snprintf(err, errlen, "%s: ", file);
	if (n > 0)
		o = (size_t)n < errlen ? (size_t)n : errlen - 1;
	if (at != RTR_AT_NONE) {
		n = snprintf(err + o, errlen - o, "%s %" PRIu64 ": ",
			     at == RTR_AT_LINE ? "line" : "offset", pos);
		if (n > 0)
			o += (size_t)n < errlen - o ? (size_t)n : errlen - o - 1;
	}
	vsnprintf(err + o, errlen - o, fmt, ap);
	return -code;
}

int rtr_errf_at(char *err, size_t errlen, int code, const char *file, enum rtr_err_at at,
		uint64_t pos, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = rtr_verrf_at(err, errlen, code, file, at, pos, fmt, ap);
	va_end(ap);
	return r;
}

int rtr_errf(char *err, size_t errlen, int code, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = rtr_verrf_at(err, errlen, code, NULL, RTR_AT_NONE, 0, fmt, ap);
	va_end(ap);
	return r;
}
