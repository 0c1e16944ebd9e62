/* SPDX-License-Identifier: MIT */
/*
 * tests/interop/lttng/tp.h - an LTTng-UST 2.13 tracepoint provider for the
 * interop tests: every integer size and signedness, both byte orders and
 * every base LTTng writes, enumerations (values, ranges, automatic values,
 * a value no label holds), floats, strings with every escape, arrays and
 * sequences (of integers and of text), and an event of no fields.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER rtrtest

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "tests/interop/lttng/tp.h"

#if !defined(RTR_TESTS_INTEROP_LTTNG_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define RTR_TESTS_INTEROP_LTTNG_TP_H

#include <stdint.h>
#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_ENUM(rtrtest, color,
	LTTNG_UST_TP_ENUM_VALUES(
		lttng_ust_field_enum_value("RED", 0)
		lttng_ust_field_enum_range("GREEN", 1, 5)
		lttng_ust_field_enum_auto("BLUE")
		lttng_ust_field_enum_value("MINUS", -3)
	)
)

LTTNG_UST_TRACEPOINT_ENUM(rtrtest, state,
	LTTNG_UST_TP_ENUM_VALUES(
		lttng_ust_field_enum_value("idle", 0)
		lttng_ust_field_enum_value("busy", 1)
		lttng_ust_field_enum_range("gone", 200, 255)
	)
)

/* Every integer, both enumerations, both floats. */
LTTNG_UST_TRACEPOINT_EVENT(rtrtest, ints,
	LTTNG_UST_TP_ARGS(int64_t, i),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(int8_t, s8, (int8_t)(i * 37))
		lttng_ust_field_integer(uint8_t, u8, (uint8_t)(i * 37))
		lttng_ust_field_integer(int16_t, s16, (int16_t)(i * -4099))
		lttng_ust_field_integer(uint16_t, u16, (uint16_t)(i * 4099))
		lttng_ust_field_integer(int32_t, s32, (int32_t)(i * -268435459))
		lttng_ust_field_integer(uint32_t, u32, (uint32_t)(i * 268435459))
		lttng_ust_field_integer(int64_t, s64, i * -1152921504606846977LL)
		lttng_ust_field_integer(uint64_t, u64, (uint64_t)i * 1152921504606846977ULL)
		lttng_ust_field_integer_hex(uint32_t, x32, (uint32_t)(i * 2654435761u))
		lttng_ust_field_integer_hex(int64_t, x64, i * -7046029254386353131LL)
		lttng_ust_field_integer_network(uint16_t, n16, (uint16_t)(i * 257))
		lttng_ust_field_integer_network(int32_t, n32, (int32_t)(i * -16777259))
		lttng_ust_field_integer_network_hex(uint64_t, n64, (uint64_t)i * 0x0102030405060708ULL)
		lttng_ust_field_enum(rtrtest, color, int, color, (int)(i % 9) - 3)
		lttng_ust_field_enum(rtrtest, state, uint8_t, state, (uint8_t)(i * 29))
		lttng_ust_field_float(float, f32, (float)i / 3.0f - 1000.0f)
		lttng_ust_field_float(double, f64, (double)i * 1.0e-300 + (double)i / 7.0)
	)
)

/* Strings: empty, escapes, bytes past ASCII; text in arrays and sequences. */
LTTNG_UST_TRACEPOINT_EVENT(rtrtest, text,
	LTTNG_UST_TP_ARGS(int64_t, i, const char *, s, const char *, fixed),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_string(str, s)
		lttng_ust_field_string(empty, "")
		lttng_ust_field_array_text(char, fixed, fixed, 8)
		lttng_ust_field_sequence_text(char, var, s, uint32_t, (uint32_t)(i % 9))
		lttng_ust_field_integer(int64_t, i, i)
	)
)

/* Arrays and sequences of integers, lengths from 0. */
LTTNG_UST_TRACEPOINT_EVENT(rtrtest, seqs,
	LTTNG_UST_TP_ARGS(int64_t, i, const int32_t *, a, const uint16_t *, b),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_array(int32_t, arr, a, 4)
		lttng_ust_field_array_hex(uint16_t, hexarr, b, 3)
		lttng_ust_field_sequence(uint16_t, seq, b, size_t, (size_t)(i % 5))
		lttng_ust_field_sequence(int32_t, seq2, a, uint8_t, (uint8_t)(i % 4))
		lttng_ust_field_sequence_hex(uint16_t, hexseq, b, uint16_t, (uint16_t)(i % 3))
	)
)

LTTNG_UST_TRACEPOINT_EVENT(rtrtest, empty,
	LTTNG_UST_TP_ARGS(),
	LTTNG_UST_TP_FIELDS()
)

/* The benchmark's event: what a server traces per request. */
LTTNG_UST_TRACEPOINT_EVENT(rtrtest, request,
	LTTNG_UST_TP_ARGS(uint64_t, id, uint32_t, status, uint64_t, bytes, const char *, path),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, id, id)
		lttng_ust_field_integer(uint32_t, status, status)
		lttng_ust_field_integer(uint64_t, bytes, bytes)
		lttng_ust_field_string(path, path)
	)
)

#endif /* RTR_TESTS_INTEROP_LTTNG_TP_H */

#include <lttng/tracepoint-event.h>
