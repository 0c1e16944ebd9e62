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
#define RTR_BYTES(p, n) ((struct rtr_bytes){ (p), (uint32_t)(n) })

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

/* RTR_ENUM(name, "label0", "label1", ...) - the labels of an enum field. */
#define RTR_ENUM(name, ...) static const char *const rtr_enum_##name[] = { __VA_ARGS__ }
#define RTR_ENUM_MAX 256

/**
 * struct rtr_event_class - one typed event; RTR_EVENT_DEFINE() makes it.
 * @on: read by the inline emitter: tracing is on and this event enabled.
 */
struct rtr_event_class {
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
#define RTR_LABELS_enum(e) rtr_enum_##e, (uint32_t)(sizeof(rtr_enum_##e) / sizeof(rtr_enum_##e[0]))

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

static inline uint8_t *rtr_pack_string(uint8_t *p, const char *s)
{
	size_t n = s ? RTR_STRNLEN_(s, RTR_TEXT_MAX) : 0;

	if (n)
		memcpy(p, s, n);
	p[n] = 0;
	return p + n + 1;
}

static inline uint8_t *rtr_pack_bytes(uint8_t *p, struct rtr_bytes b)
{
	uint32_t n = b.ptr ? (b.len < RTR_BYTES_MAX ? b.len : RTR_BYTES_MAX) : 0;

	memcpy(p, &n, 4);
	if (n)
		memcpy(p + 4, b.ptr, n);
	return p + 4 + n;
}

#define RTR_EVENT_MEMBER_(t, n, ...) RTR_CT_##t n;
#define RTR_EVENT_SIZE_(t, n, ...) + RTR_MAX_##t
#define RTR_EVENT_PACK_(t, n, ...) p_ = rtr_pack_##t(p_, a_.n);
#define RTR_EVENT_DESC_(t, n, ...) { #n, RTR_FT_##t, RTR_LABELS_##t(__VA_ARGS__) },
/* public: */

#ifndef RINGTRACE_DISABLE
#define RTR_EVENT_DECLARE(prov, name, FIELDS)					\
	struct rtr_args_##prov##_##name { FIELDS(RTR_EVENT_MEMBER_) };		\
	extern struct rtr_event_class rtr_class_##prov##_##name;		\
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
		0, 0, #prov, #name, rtr_fields_##prov##_##name,			\
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

/* RTR_TRACE(prov, name, .field = value, ...) - emit a typed event. */
#define RTR_TRACE(prov, name, ...)						\
	rtr_emit_##prov##_##name((struct rtr_args_##prov##_##name){ __VA_ARGS__ })

#ifdef __cplusplus
}
#endif
#endif /* RINGTRACE_EVENT_H */
