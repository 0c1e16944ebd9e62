/* SPDX-License-Identifier: MIT */
/*
 * ringtrace/event.h - user-defined typed events (Documentation/events.rst).
 *
 * Declare an event once, in a header, with its fields:
 *
 *     #define MYAPP_REQUEST(F) F(u64, id) F(s32, status) F(string, path) F(f64, ms)
 *     RTR_EVENT_DECLARE(myapp, request, MYAPP_REQUEST)
 *
 * define it in one .c file:
 *
 *     RTR_EVENT_DEFINE(myapp, request, MYAPP_REQUEST)
 *
 * and emit it, with type-checked named fields (unnamed ones are 0 / NULL):
 *
 *     RTR_TRACE(myapp, request, .id = 7, .status = 200, .path = "/", .ms = 1.5);
 *
 * Field types: u8 u16 u32 u64 s8 s16 s32 s64 f64 string (cut at
 * RTR_TEXT_MAX bytes) bytes (struct rtr_bytes, cut at RTR_BYTES_MAX), and
 * enum, a u32 whose values name labels declared with RTR_ENUM():
 *
 *     RTR_ENUM(myapp_status, "ok", "not_found", "error");   (values 0, 1, 2)
 *     #define MYAPP_REPLY(F) F(u64, id) F(enum, status, myapp_status)
 *
 * The
 * event is registered at load time, described in the CTF metadata as
 * "myapp:request", and can be switched on and off by name or glob with
 * rtr_event_enable().  Off, a call costs one load and one branch; with
 * -DRINGTRACE_DISABLE it disappears.
 *
 * C++ (C++11 and later): the same macros, the same ".field = value" syntax,
 * fields in any order (C++20's own designated initializers would want the
 * declaration order: RTR_TRACE assigns each field to a zeroed struct
 * instead).  There RTR_TRACE is a statement, not an expression, every field
 * must be named, and a value must not hold a comma outside parentheses (a
 * brace list, template arguments): write RTR_BYTES(p, n) for a bytes field.
 */
#ifndef RINGTRACE_EVENT_H
#define RINGTRACE_EVENT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <ringtrace/ringtrace.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RTR_BYTES_MAX 1024

struct rtr_bytes {
	const void *ptr;
	uint32_t len;
};
#ifndef __cplusplus
#define RTR_BYTES(p, n) ((struct rtr_bytes){ (p), (uint32_t)(n) })
#else
#define RTR_BYTES(p, n) (::rtr_bytes{ (p), (uint32_t)(n) })
#endif

/* Field type codes: stable, they are written into the region registry. */
enum rtr_field_type {
	RTR_FT_u8 = 0, RTR_FT_u16 = 1, RTR_FT_u32 = 2, RTR_FT_u64 = 3,
	RTR_FT_s8 = 4, RTR_FT_s16 = 5, RTR_FT_s32 = 6, RTR_FT_s64 = 7,
	RTR_FT_f64 = 8, RTR_FT_string = 9, RTR_FT_enum = 11, RTR_FT_bytes = 12,
};

struct rtr_field_desc {
	const char *name;
	uint32_t type;		/* enum rtr_field_type */
	const char *const *labels;	/* enum: label of value i, identifiers */
	uint32_t nlabels;
};

/*
 * RTR_ENUM(name, "label0", "label1", ...) - the labels of an enum field; only
 * RTR_EVENT_DEFINE() uses them, so a file that only emits (or that is built
 * with -DRINGTRACE_DISABLE) leaves them unused.
 */
#define RTR_ENUM(name, ...)							\
	__attribute__((unused)) static const char *const rtr_enum_##name[] = { __VA_ARGS__ }
#define RTR_ENUM_MAX 256

/* The layout of struct rtr_event_class and struct rtr_field_desc; raised when either grows. */
#define RTR_EVENT_CLASS_VERSION 1

/**
 * struct rtr_event_class - one typed event; RTR_EVENT_DEFINE() makes it.
 * @version: RTR_EVENT_CLASS_VERSION, the layout of this struct and of
 *           struct rtr_field_desc the program was built with: the library
 *           reads a class by it, and refuses one newer than it knows.
 * @on: read by the inline emitter: tracing is on and this event enabled.
 */
struct rtr_event_class {
	uint32_t version;
	int on;
	uint32_t id;
	const char *provider;
	const char *name;
	const struct rtr_field_desc *fields;
	uint32_t nfields;
	/* private: */
	int enabled;
	struct rtr_event_class *next;
};

#ifndef RINGTRACE_DISABLE
int rtr_event_register(struct rtr_event_class *cls);
int rtr_event_enable(const char *glob, bool enable);
#else
static inline int rtr_event_register(struct rtr_event_class *c) { (void)c; return 0; }
static inline int rtr_event_enable(const char *g, bool e) { (void)g; (void)e; return 0; }
#endif

/* private: packing, one helper per type; @p advances past the bytes written */
#define RTR_CT_u8 uint8_t
#define RTR_CT_u16 uint16_t
#define RTR_CT_u32 uint32_t
#define RTR_CT_u64 uint64_t
#define RTR_CT_s8 int8_t
#define RTR_CT_s16 int16_t
#define RTR_CT_s32 int32_t
#define RTR_CT_s64 int64_t
#define RTR_CT_f64 double
#define RTR_CT_string const char *
#define RTR_CT_bytes struct rtr_bytes
#define RTR_CT_enum uint32_t
#define RTR_MAX_u8 1
#define RTR_MAX_u16 2
#define RTR_MAX_u32 4
#define RTR_MAX_u64 8
#define RTR_MAX_s8 1
#define RTR_MAX_s16 2
#define RTR_MAX_s32 4
#define RTR_MAX_s64 8
#define RTR_MAX_f64 8
#define RTR_MAX_string (RTR_TEXT_MAX + 1)
#define RTR_MAX_bytes (4 + RTR_BYTES_MAX)
#define RTR_MAX_enum 4
#define RTR_LABELS_NONE_ (const char *const *)0, 0
#define RTR_LABELS_u8(...) RTR_LABELS_NONE_
#define RTR_LABELS_u16(...) RTR_LABELS_NONE_
#define RTR_LABELS_u32(...) RTR_LABELS_NONE_
#define RTR_LABELS_u64(...) RTR_LABELS_NONE_
#define RTR_LABELS_s8(...) RTR_LABELS_NONE_
#define RTR_LABELS_s16(...) RTR_LABELS_NONE_
#define RTR_LABELS_s32(...) RTR_LABELS_NONE_
#define RTR_LABELS_s64(...) RTR_LABELS_NONE_
#define RTR_LABELS_f64(...) RTR_LABELS_NONE_
#define RTR_LABELS_string(...) RTR_LABELS_NONE_
#define RTR_LABELS_bytes(...) RTR_LABELS_NONE_
#define RTR_LABELS_enum(e, ...)							\
	rtr_enum_##e, (uint32_t)(sizeof(rtr_enum_##e) / sizeof(rtr_enum_##e[0]))

#define RTR_PACK_SCALAR_(t)							\
	static inline uint8_t *rtr_pack_##t(uint8_t *p, RTR_CT_##t v)		\
	{									\
		memcpy(p, &v, sizeof(v));					\
		return p + sizeof(v);						\
	}
RTR_PACK_SCALAR_(u8)
RTR_PACK_SCALAR_(u16)
RTR_PACK_SCALAR_(u32)
RTR_PACK_SCALAR_(u64)
RTR_PACK_SCALAR_(s8)
RTR_PACK_SCALAR_(s16)
RTR_PACK_SCALAR_(s32)
RTR_PACK_SCALAR_(s64)
RTR_PACK_SCALAR_(f64)
RTR_PACK_SCALAR_(enum)

/*
 * strnlen is POSIX, undeclared in strict C (-std=c99): gcc's builtin calls
 * it all the same (the code of gnu11's strnlen); elsewhere memchr, which
 * stops at the first match (C11 7.24.5.1), so a shorter string is never read
 * past its end.
 */
#if defined(__has_builtin)
#if __has_builtin(__builtin_strnlen)
#define RTR_STRNLEN_(s, n) __builtin_strnlen(s, n)
#endif
#endif
#ifndef RTR_STRNLEN_
static inline size_t rtr_strnlen_(const char *s, size_t max)
{
	const char *e = (const char *)memchr(s, 0, max);
	size_t n = e ? (size_t)(e - s) : max;

	if (n > max)
		__builtin_unreachable();	/* lets the copy below be inlined */
	return n;
}
#define RTR_STRNLEN_(s, n) rtr_strnlen_(s, n)
#endif

/*
 * gcc 11 on warns (-Wstringop-overread) when a string field is given a
 * char array shorter than the bound, though strnlen stops at its NUL: not
 * in the user's build, which includes this header.
 */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overread"
#endif
static inline uint8_t *rtr_pack_string(uint8_t *p, const char *s)
{
	size_t n = s ? RTR_STRNLEN_(s, RTR_TEXT_MAX) : 0;

	if (n)
		memcpy(p, s, n);
	p[n] = 0;
	return p + n + 1;
}
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#pragma GCC diagnostic pop
#endif

static inline uint8_t *rtr_pack_bytes(uint8_t *p, struct rtr_bytes b)
{
	uint32_t n = b.ptr ? (b.len < RTR_BYTES_MAX ? b.len : RTR_BYTES_MAX) : 0;

	memcpy(p, &n, 4);
	if (n)
		memcpy(p + 4, b.ptr, n);
	return p + 4 + n;
}

/*
 * F(t, n) and F(enum, n, labels): a field is (t, ...) here, and the second
 * macro gets a trailing empty argument, because ISO C before C23 (and C++
 * before C++20) wants at least one argument for a "...".  The type is pasted
 * at once, before an argument is expanded (a program may #define u64).
 */
#define RTR_EVENT_MEMBER_(t, ...) RTR_EVENT_MEMBER2_(RTR_CT_##t, __VA_ARGS__, )
#define RTR_EVENT_MEMBER2_(ct, n, ...) ct n;
#define RTR_EVENT_SIZE_(t, ...) + RTR_MAX_##t
#define RTR_EVENT_PACK_(t, ...) RTR_EVENT_PACK2_(rtr_pack_##t, __VA_ARGS__, )
#define RTR_EVENT_PACK2_(pack, n, ...) p_ = pack(p_, a_.n);
#define RTR_EVENT_DESC_(t, ...) RTR_EVENT_DESC2_(RTR_FT_##t, RTR_LABELS_##t, __VA_ARGS__, )
#define RTR_EVENT_DESC2_(ft, labels, n, ...) { #n, ft, labels(__VA_ARGS__) },

#ifdef __cplusplus
#define RTR_EXTERN_C_ extern "C"
#else
#define RTR_EXTERN_C_ extern
#endif
/* public: */

#ifndef RINGTRACE_DISABLE
#define RTR_EVENT_DECLARE(prov, name, FIELDS)					\
	struct rtr_args_##prov##_##name { FIELDS(RTR_EVENT_MEMBER_) };		\
	RTR_EXTERN_C_ struct rtr_event_class rtr_class_##prov##_##name;	\
	static inline void rtr_emit_##prov##_##name(struct rtr_args_##prov##_##name a_) \
	{									\
		if (rtr_unlikely_(rtr_class_##prov##_##name.on)) {		\
			uint64_t buf_[(0 FIELDS(RTR_EVENT_SIZE_) + 7) / 8 + 1];	\
			uint8_t *p_ = (uint8_t *)buf_;				\
			FIELDS(RTR_EVENT_PACK_)					\
			rtr_emit(rtr_class_##prov##_##name.id, buf_,		\
				 (uint32_t)(p_ - (uint8_t *)buf_));		\
		}								\
	}
#else
#define RTR_EVENT_DECLARE(prov, name, FIELDS)					\
	struct rtr_args_##prov##_##name { FIELDS(RTR_EVENT_MEMBER_) };		\
	static inline void rtr_emit_##prov##_##name(struct rtr_args_##prov##_##name a_) \
	{									\
		(void)a_;							\
	}
#endif

#ifndef RINGTRACE_DISABLE
#define RTR_EVENT_DEFINE(prov, name, FIELDS)					\
	static const struct rtr_field_desc rtr_fields_##prov##_##name[] = {	\
		FIELDS(RTR_EVENT_DESC_) { (const char *)0, 0, RTR_LABELS_NONE_ }	\
	};									\
	struct rtr_event_class rtr_class_##prov##_##name = {			\
		RTR_EVENT_CLASS_VERSION, 0, 0, #prov, #name, rtr_fields_##prov##_##name, \
		sizeof(rtr_fields_##prov##_##name) / sizeof(struct rtr_field_desc) - 1, \
		1, (struct rtr_event_class *)0,					\
	};									\
	__attribute__((constructor)) static void rtr_register_##prov##_##name(void) \
	{									\
		rtr_event_register(&rtr_class_##prov##_##name);		\
	}
#else
#define RTR_EVENT_DEFINE(prov, name, FIELDS)
#endif

#ifdef __cplusplus
/*
 * C++ has no compound literal, and its designated initializers (C++20) must
 * follow the declaration order: there RTR_TRACE() assigns each ".field =
 * value" to a zeroed struct, in any order, in every C++ version.
 * RTR_EACH_(m, a, b, ...) is m(a) m(b) ..., for up to 64 arguments (the
 * most fields an event has).
 */
#define RTR_NARGS_(...) RTR_NARGS2_(__VA_ARGS__, 64, 63, 62, 61, 60, 59, 58, 57, 56, 55, 54, \
	53, 52, 51, 50, 49, 48, 47, 46, 45, 44, 43, 42, 41, 40, 39, 38, 37, 36, 35, 34, 33, \
	32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, \
	11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define RTR_NARGS2_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, \
	_17, _18, _19, _20, _21, _22, _23, _24, _25, _26, _27, _28, _29, _30, _31, _32, _33, \
	_34, _35, _36, _37, _38, _39, _40, _41, _42, _43, _44, _45, _46, _47, _48, _49, _50, \
	_51, _52, _53, _54, _55, _56, _57, _58, _59, _60, _61, _62, _63, _64, n, ...) n
#define RTR_EACH_(m, ...) RTR_EACH2_(RTR_NARGS_(__VA_ARGS__), m, __VA_ARGS__)
#define RTR_EACH2_(n, m, ...) RTR_EACH3_(n, m, __VA_ARGS__)
#define RTR_EACH3_(n, m, ...) RTR_EACH_##n(m, __VA_ARGS__)
#define RTR_EACH_1(m, a) m(a)
#define RTR_EACH_2(m, a, ...) m(a) RTR_EACH_1(m, __VA_ARGS__)
#define RTR_EACH_3(m, a, ...) m(a) RTR_EACH_2(m, __VA_ARGS__)
#define RTR_EACH_4(m, a, ...) m(a) RTR_EACH_3(m, __VA_ARGS__)
#define RTR_EACH_5(m, a, ...) m(a) RTR_EACH_4(m, __VA_ARGS__)
#define RTR_EACH_6(m, a, ...) m(a) RTR_EACH_5(m, __VA_ARGS__)
#define RTR_EACH_7(m, a, ...) m(a) RTR_EACH_6(m, __VA_ARGS__)
#define RTR_EACH_8(m, a, ...) m(a) RTR_EACH_7(m, __VA_ARGS__)
#define RTR_EACH_9(m, a, ...) m(a) RTR_EACH_8(m, __VA_ARGS__)
#define RTR_EACH_10(m, a, ...) m(a) RTR_EACH_9(m, __VA_ARGS__)
#define RTR_EACH_11(m, a, ...) m(a) RTR_EACH_10(m, __VA_ARGS__)
#define RTR_EACH_12(m, a, ...) m(a) RTR_EACH_11(m, __VA_ARGS__)
#define RTR_EACH_13(m, a, ...) m(a) RTR_EACH_12(m, __VA_ARGS__)
#define RTR_EACH_14(m, a, ...) m(a) RTR_EACH_13(m, __VA_ARGS__)
#define RTR_EACH_15(m, a, ...) m(a) RTR_EACH_14(m, __VA_ARGS__)
#define RTR_EACH_16(m, a, ...) m(a) RTR_EACH_15(m, __VA_ARGS__)
#define RTR_EACH_17(m, a, ...) m(a) RTR_EACH_16(m, __VA_ARGS__)
#define RTR_EACH_18(m, a, ...) m(a) RTR_EACH_17(m, __VA_ARGS__)
#define RTR_EACH_19(m, a, ...) m(a) RTR_EACH_18(m, __VA_ARGS__)
#define RTR_EACH_20(m, a, ...) m(a) RTR_EACH_19(m, __VA_ARGS__)
#define RTR_EACH_21(m, a, ...) m(a) RTR_EACH_20(m, __VA_ARGS__)
#define RTR_EACH_22(m, a, ...) m(a) RTR_EACH_21(m, __VA_ARGS__)
#define RTR_EACH_23(m, a, ...) m(a) RTR_EACH_22(m, __VA_ARGS__)
#define RTR_EACH_24(m, a, ...) m(a) RTR_EACH_23(m, __VA_ARGS__)
#define RTR_EACH_25(m, a, ...) m(a) RTR_EACH_24(m, __VA_ARGS__)
#define RTR_EACH_26(m, a, ...) m(a) RTR_EACH_25(m, __VA_ARGS__)
#define RTR_EACH_27(m, a, ...) m(a) RTR_EACH_26(m, __VA_ARGS__)
#define RTR_EACH_28(m, a, ...) m(a) RTR_EACH_27(m, __VA_ARGS__)
#define RTR_EACH_29(m, a, ...) m(a) RTR_EACH_28(m, __VA_ARGS__)
#define RTR_EACH_30(m, a, ...) m(a) RTR_EACH_29(m, __VA_ARGS__)
#define RTR_EACH_31(m, a, ...) m(a) RTR_EACH_30(m, __VA_ARGS__)
#define RTR_EACH_32(m, a, ...) m(a) RTR_EACH_31(m, __VA_ARGS__)
#define RTR_EACH_33(m, a, ...) m(a) RTR_EACH_32(m, __VA_ARGS__)
#define RTR_EACH_34(m, a, ...) m(a) RTR_EACH_33(m, __VA_ARGS__)
#define RTR_EACH_35(m, a, ...) m(a) RTR_EACH_34(m, __VA_ARGS__)
#define RTR_EACH_36(m, a, ...) m(a) RTR_EACH_35(m, __VA_ARGS__)
#define RTR_EACH_37(m, a, ...) m(a) RTR_EACH_36(m, __VA_ARGS__)
#define RTR_EACH_38(m, a, ...) m(a) RTR_EACH_37(m, __VA_ARGS__)
#define RTR_EACH_39(m, a, ...) m(a) RTR_EACH_38(m, __VA_ARGS__)
#define RTR_EACH_40(m, a, ...) m(a) RTR_EACH_39(m, __VA_ARGS__)
#define RTR_EACH_41(m, a, ...) m(a) RTR_EACH_40(m, __VA_ARGS__)
#define RTR_EACH_42(m, a, ...) m(a) RTR_EACH_41(m, __VA_ARGS__)
#define RTR_EACH_43(m, a, ...) m(a) RTR_EACH_42(m, __VA_ARGS__)
#define RTR_EACH_44(m, a, ...) m(a) RTR_EACH_43(m, __VA_ARGS__)
#define RTR_EACH_45(m, a, ...) m(a) RTR_EACH_44(m, __VA_ARGS__)
#define RTR_EACH_46(m, a, ...) m(a) RTR_EACH_45(m, __VA_ARGS__)
#define RTR_EACH_47(m, a, ...) m(a) RTR_EACH_46(m, __VA_ARGS__)
#define RTR_EACH_48(m, a, ...) m(a) RTR_EACH_47(m, __VA_ARGS__)
#define RTR_EACH_49(m, a, ...) m(a) RTR_EACH_48(m, __VA_ARGS__)
#define RTR_EACH_50(m, a, ...) m(a) RTR_EACH_49(m, __VA_ARGS__)
#define RTR_EACH_51(m, a, ...) m(a) RTR_EACH_50(m, __VA_ARGS__)
#define RTR_EACH_52(m, a, ...) m(a) RTR_EACH_51(m, __VA_ARGS__)
#define RTR_EACH_53(m, a, ...) m(a) RTR_EACH_52(m, __VA_ARGS__)
#define RTR_EACH_54(m, a, ...) m(a) RTR_EACH_53(m, __VA_ARGS__)
#define RTR_EACH_55(m, a, ...) m(a) RTR_EACH_54(m, __VA_ARGS__)
#define RTR_EACH_56(m, a, ...) m(a) RTR_EACH_55(m, __VA_ARGS__)
#define RTR_EACH_57(m, a, ...) m(a) RTR_EACH_56(m, __VA_ARGS__)
#define RTR_EACH_58(m, a, ...) m(a) RTR_EACH_57(m, __VA_ARGS__)
#define RTR_EACH_59(m, a, ...) m(a) RTR_EACH_58(m, __VA_ARGS__)
#define RTR_EACH_60(m, a, ...) m(a) RTR_EACH_59(m, __VA_ARGS__)
#define RTR_EACH_61(m, a, ...) m(a) RTR_EACH_60(m, __VA_ARGS__)
#define RTR_EACH_62(m, a, ...) m(a) RTR_EACH_61(m, __VA_ARGS__)
#define RTR_EACH_63(m, a, ...) m(a) RTR_EACH_62(m, __VA_ARGS__)
#define RTR_EACH_64(m, a, ...) m(a) RTR_EACH_63(m, __VA_ARGS__)
#define RTR_TRACE_SET_(f) (void)(rtr_a_ f);
#endif

/*
 * RTR_TRACE(prov, name, .field = value, ...) - emit a typed event.  In C++
 * the fields are named too, in any order; a statement there, not an
 * expression.
 */
#ifndef __cplusplus
#define RTR_TRACE(prov, name, ...)						\
	rtr_emit_##prov##_##name((struct rtr_args_##prov##_##name){ __VA_ARGS__ })
#else
#define RTR_TRACE(prov, name, ...)						\
	do {									\
		rtr_args_##prov##_##name rtr_a_ = rtr_args_##prov##_##name();	\
		RTR_EACH_(RTR_TRACE_SET_, __VA_ARGS__)				\
		rtr_emit_##prov##_##name(rtr_a_);				\
	} while (0)
#endif

#ifdef __cplusplus
}
#endif
#endif /* RINGTRACE_EVENT_H */
