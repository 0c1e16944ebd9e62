// SPDX-License-Identifier: MIT
/*
 * tests/format/test_error.c - the read side's one error formatter
 * (format/error.h): its three shapes, the errno it returns, and a buffer
 * of every size from 0 up cut, NUL-terminated, never written past.
 */
#include <errno.h>
#include <string.h>
#include <criterion/criterion.h>
#include "format/error.h"

TestSuite(format_error);

Test(format_error, the_three_shapes_and_the_errno)
{
	char err[128];

	cr_assert_eq(rtr_errf_at(err, sizeof(err), EPROTO, "t/metadata", RTR_AT_LINE, 12,
				 "unknown type '%s'", "uint31_t"), -EPROTO);
	cr_assert_str_eq(err, "t/metadata: line 12: unknown type 'uint31_t'");
	cr_assert_eq(rtr_errf_at(err, sizeof(err), EIO, "t/stream_0", RTR_AT_OFFSET,
				 18446744073709551615ull, "cut"), -EIO);
	cr_assert_str_eq(err, "t/stream_0: offset 18446744073709551615: cut");
	cr_assert_eq(rtr_errf_at(err, sizeof(err), ENOENT, "t", RTR_AT_NONE, 7, "gone"), -ENOENT);
	cr_assert_str_eq(err, "t: gone");
	cr_assert_eq(rtr_errf(err, sizeof(err), ENOMEM, "out of %s", "memory"), -ENOMEM);
	cr_assert_str_eq(err, "out of memory");
}

Test(format_error, every_buffer_size_is_cut_and_never_overrun)
{
	const char *full = "a/file: offset 4096: bad magic 0xdeadbeef";
	size_t n = strlen(full);

	for (size_t size = 0; size <= n + 2; size++) {
		char buf[64];

		memset(buf, 'X', sizeof(buf));
		cr_assert_eq(rtr_errf_at(size ? buf : NULL, size, EPROTO, "a/file", RTR_AT_OFFSET,
					 4096, "bad magic 0x%x", 0xdeadbeefu), -EPROTO);
		if (!size)
			continue;
		cr_assert_eq(strlen(buf), size - 1 < n ? size - 1 : n, "size %zu: '%s'", size, buf);
		cr_assert_eq(strncmp(buf, full, strlen(buf)), 0, "size %zu: '%s'", size, buf);
		for (size_t i = size; i < sizeof(buf); i++)
			cr_assert_eq(buf[i], 'X', "size %zu: byte %zu written", size, i);
	}
}
