// SPDX-License-Identifier: MIT
/*
 * tests/events/test_typed.c - user-defined typed events: every field type at
 * its limits through convert and babeltrace2, and switching events on and
 * off by name and glob.
 */
#include <float.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <ringtrace/event.h>
#include <ringtrace/consumer.h>
#include "consumer/convert.h"
#include "reader/tsdl.h"
#include "tests/helpers.h"

#define TEST_ALL(F) F(u8, a) F(u16, b) F(u32, c) F(u64, d) F(s8, e) F(s16, f) F(s32, g) \
	F(s64, h) F(f64, x) F(string, s) F(bytes, blob)
#define TEST_PAIR(F) F(u64, first) F(u64, second)
#define OTHER_PING(F) F(u32, n)
#define TEST_REPLY(F) F(u64, id) F(enum, status, test_status)

RTR_ENUM(test_status, "ok", "not_found", "error");
RTR_EVENT_DECLARE(test, reply, TEST_REPLY)
RTR_EVENT_DEFINE(test, reply, TEST_REPLY)

RTR_EVENT_DECLARE(test, all, TEST_ALL)
RTR_EVENT_DEFINE(test, all, TEST_ALL)
RTR_EVENT_DECLARE(test, pair, TEST_PAIR)
RTR_EVENT_DEFINE(test, pair, TEST_PAIR)
RTR_EVENT_DECLARE(other, ping, OTHER_PING)
RTR_EVENT_DEFINE(other, ping, OTHER_PING)

TestSuite(events_typed, .timeout = 60);

static char *trace_and_read_cfg(void (*emit)(void), uint32_t mode)
{
	char dir[] = "/dev/shm/rtr-typed-XXXXXX", region[96], trace[96], cmd[512];
	struct rtr_config cfg = { .struct_size = sizeof(cfg) };
	struct rtr_convert_report rep;
	const char *src = getenv("RTR_SRCDIR");
	size_t len = 0, cap = 1 << 20, n;
	char *out = malloc(cap);
	FILE *p;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(region, sizeof(region), "%s/region", dir);
	snprintf(trace, sizeof(trace), "%s/trace", dir);
	cfg.path = region;
	cfg.mode = mode;
	cr_assert_eq(rtr_start(&cfg), 0);
	emit();
	cr_assert_eq(rtr_stop(), 0);
	cr_assert_eq(rtr_convert(region, trace, &rep), 0, "%s", rep.err);
	snprintf(cmd, sizeof(cmd), "babeltrace2 '%s' 2>&1 >/dev/null", trace);
	p = popen(cmd, "r");
	n = fread(out, 1, cap - 1, p);
	out[n] = 0;
	cr_assert_eq(pclose(p), 0);
	if (mode == RTR_MODE_DISCARD)
		cr_expect_eq(n, 0, "babeltrace2 said: %s", out);
	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 '%s/tests/interop/bt2_read.py' events '%s'",
		 src ? src : ".", trace);
	p = popen(cmd, "r");
	while ((n = fread(out + len, 1, cap - len - 1, p)) > 0) {
		len += n;
		if (cap - len < 65536)
			out = realloc(out, cap *= 2);
	}
	out[len] = 0;
	cr_assert_eq(pclose(p), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_expect_eq(system(cmd), 0);
	return out;
}

static char *trace_and_read(void (*emit)(void))
{
	return trace_and_read_cfg(emit, RTR_MODE_DISCARD);
}

static void emit_all(void)
{
	static uint8_t blob[RTR_BYTES_MAX + 10];

	for (size_t i = 0; i < sizeof(blob); i++)
		blob[i] = (uint8_t)(i * 7);
	RTR_TRACE(test, all, .a = UINT8_MAX, .b = UINT16_MAX, .c = UINT32_MAX, .d = UINT64_MAX,
		  .e = INT8_MIN, .f = INT16_MIN, .g = INT32_MIN, .h = INT64_MIN, .x = -0.1,
		  .s = "quote\" back\\ \x01\xfe", .blob = RTR_BYTES(blob, 5));
	RTR_TRACE(test, all, .e = INT8_MAX, .f = INT16_MAX, .g = INT32_MAX, .h = INT64_MAX,
		  .x = DBL_MAX, .blob = RTR_BYTES(blob, sizeof(blob)));
	RTR_TRACE(test, pair, .first = 1, .second = 2);
	RTR_TRACE(test, reply, .id = 9, .status = 1);
	RTR_TRACE(test, reply, .id = 10, .status = 7);	/* no label: the number */
}

Test(events_typed, every_field_type_round_trips_at_its_limits)
{
	char *out = trace_and_read(emit_all), *l2, *l3;
	char blob_hex[2 * RTR_BYTES_MAX + 1];

	l2 = strchr(out, '\n');
	cr_assert_not_null(l2, "%s", out);
	*l2++ = 0;
	l3 = strchr(l2, '\n');
	cr_assert_not_null(l3);
	*l3++ = 0;
	cr_expect_not_null(strstr(out, "\"name\": \"test:all\""), "%s", out);
	cr_expect_not_null(strstr(out, "\"a\": 255, \"b\": 65535, \"c\": 4294967295, "
				       "\"d\": 18446744073709551615, \"e\": -128, \"f\": -32768, "
				       "\"g\": -2147483648, \"h\": -9223372036854775808, \"x\": -0.1, "
				       "\"s\": \"hex:71756f746522206261636b5c2001fe\", "
				       "\"blob_len\": 5, \"blob\": \"hex:00070e151c\""), "%s", out);
	for (int i = 0; i < RTR_BYTES_MAX; i++)
		sprintf(blob_hex + 2 * i, "%02x", (uint8_t)(i * 7));
	cr_expect_not_null(strstr(l2, "\"e\": 127, \"f\": 32767, \"g\": 2147483647, "
				      "\"h\": 9223372036854775807, \"x\": 1.7976931348623157e+308, "
				      "\"s\": \"hex:\", \"blob_len\": 1024"), "%s", l2);
	cr_expect_not_null(strstr(l2, blob_hex), "bytes cut at RTR_BYTES_MAX, intact");
	cr_expect_not_null(strstr(l3, "\"name\": \"test:pair\", ") &&
			   strstr(l3, "\"first\": 1, \"second\": 2"), "%s", l3);
	cr_expect_not_null(strstr(l3, "\"name\": \"test:reply\"") &&
			   strstr(l3, "\"id\": 9, \"status\": 1, \"status@labels\": [\"not_found\"]"),
			   "%s", l3);
	cr_expect_not_null(strstr(l3, "\"id\": 10, \"status\": 7, \"status@labels\": []"), "%s", l3);
	free(out);
}

static void emit_switched(void)
{
	cr_expect_eq(rtr_event_enable("test:*", false), 3);
	RTR_TRACE(test, pair, .first = 1);	/* off */
	RTR_TRACE(other, ping, .n = 1);		/* on */
	cr_expect_eq(rtr_event_enable("*:pair", true), 1);
	RTR_TRACE(test, pair, .first = 2);	/* on again */
	RTR_TRACE(test, all, .a = 3);		/* still off */
	cr_expect_eq(rtr_event_enable("nothing:matches", false), 0);
	cr_expect_eq(rtr_event_enable("*", true), 5);	/* with test_threads.c's */
	RTR_TRACE(test, all, .a = 4);
}

Test(events_typed, events_switch_on_and_off_by_name_and_glob)
{
	char *out = trace_and_read(emit_switched);
	const char *want[] = { "other:ping", "test:pair", "test:all" };
	int i = 0;

	for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n"), i++) {
		char name[64];

		cr_assert_lt(i, 3, "an event that was off was traced: %s", l);
		cr_assert_eq(sscanf(l, "{\"name\": \"%63[^\"]\"", name), 1);
		cr_expect_str_eq(name, want[i]);
	}
	cr_expect_eq(i, 3);
	free(out);
}

Test(events_typed, classes_are_off_when_tracing_is_off)
{
	cr_expect_eq(rtr_class_test_pair.on, 0);
	cr_expect_geq(rtr_class_test_pair.id, RTR_EV_BUILTIN_COUNT, "typed ids follow the task model's");
	cr_expect_leq(rtr_class_test_pair.id, RTR_EV_COMPACT_ID_MAX, "the first ones are compact");
	cr_expect_neq(rtr_class_test_pair.id, rtr_class_test_all.id);
	RTR_TRACE(test, pair, .first = 1);	/* no ring: nothing happens */
}

/*
 * Overwrite mode: the packets that first used a counter name and a typed
 * event are overwritten many times over; the events that remain still
 * carry their names (from the registry, not from any packet).
 */
static uint32_t survivor;

static void emit_overwritten(void)
{
	cr_assert_eq(rtr_counter_register("survivor", &survivor), 0);
	rtr_counter_set(survivor, 1);
	RTR_TRACE(test, reply, .id = 1, .status = 2);
	for (uint64_t i = 0; i < 2000000; i++)	/* ~24 MB through a 1 MiB ring */
		rtr_read(i & 0xffff, 1);
	rtr_counter_set(survivor, 2);
	RTR_TRACE(test, reply, .id = 2, .status = 0);
}

Test(events_typed, names_survive_their_first_packets_being_overwritten)
{
	char *out;

	t_pin0();	/* one stream: the overwrite is certain */
	out = trace_and_read_cfg(emit_overwritten, RTR_MODE_OVERWRITE);
	cr_expect_null(strstr(out, "\"id\": 1, "), "the first events were overwritten");
	cr_expect_not_null(strstr(out, "\"counter@labels\": [\"survivor\"]"), "counter name lost");
	cr_expect_not_null(strstr(out, "\"name\": \"test:reply\"") &&
			   strstr(out, "\"id\": 2, \"status\": 0, \"status@labels\": [\"ok\"]"),
			   "typed event or enum label lost");
	free(out);
}

/*
 * rtr_consumer_metadata(): the TSDL of the region as its registry is now,
 * through the public consumer API: our own reader parses it and finds the
 * typed classes and the counter name; a damaged registry gives the text
 * without the names (and says why), which still parses.
 */
Test(events_typed, the_consumer_library_gives_the_metadata)
{
	char dir[] = "/dev/shm/rtr-md-XXXXXX", region[96], err[200];
	struct rtr_config cfg = { .struct_size = sizeof(cfg) };
	struct rtr_consumer *c;
	struct tr_metadata md;
	uint32_t counter, rlen = 0;
	size_t len = 0;
	char *text;
	FILE *f;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(region, sizeof(region), "%s/region", dir);
	cfg.path = region;
	cr_assert_eq(rtr_counter_register("md.test.counter", &counter), 0);
	cr_assert_eq(rtr_start(&cfg), 0);
	RTR_TRACE(test, pair, .first = 1, .second = 2);
	cr_assert_eq(rtr_stop(), 0);

	cr_assert_eq(rtr_consumer_open(&c, region, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(rtr_consumer_metadata(c, &text, &len, &rlen, err, sizeof(err)), 0);
	cr_assert_not_null(text);
	cr_expect_eq(err[0], 0, "%s", err);
	cr_expect_eq(rlen, rtr_consumer_metadata_len(c));
	cr_expect_not_null(strstr(text, "md.test.counter"));
	cr_assert_eq(tr_parse_metadata(&md, text, len, "metadata", err, sizeof(err)), 0, "%s", err);
	{
		bool pair = false;

		for (uint32_t i = 0; i < md.nclasses; i++)
			pair |= !strcmp(md.classes[i].name, "test:pair");
		cr_expect(pair, "no test:pair class");
	}
	tr_metadata_free(&md);
	free(text);
	rtr_consumer_close(c);

	/* Scribble over the registry: names gone, the layout still there. */
	f = fopen(region, "r+");
	cr_assert_not_null(f);
	{
		struct rtr_region_hdr h;

		cr_assert_eq(fread(&h, sizeof(h), 1, f), 1);
		fseek(f, (long)h.metadata_off, SEEK_SET);
		fputs("event 99 garbage here\n\x01\x02", f);
	}
	fclose(f);
	cr_assert_eq(rtr_consumer_open(&c, region, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(rtr_consumer_metadata(c, &text, &len, NULL, err, sizeof(err)), 0);
	cr_assert_not_null(text);
	cr_expect_neq(err[0], 0, "a damaged registry must be reported");
	cr_expect_null(strstr(text, "md.test.counter"));
	cr_assert_eq(tr_parse_metadata(&md, text, len, "metadata", err, sizeof(err)), 0, "%s", err);
	tr_metadata_free(&md);
	free(text);
	rtr_consumer_close(c);
	unlink(region);
	rmdir(dir);
}
