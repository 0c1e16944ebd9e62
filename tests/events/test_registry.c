// SPDX-License-Identifier: MIT
/*
 * tests/events/test_registry.c - the registry parser takes what the
 * producer writes and refuses, naming the line, anything else (it reads a
 * region another process may have scribbled on).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include <ringtrace/ringtrace.h>
#include "events/classes.h"
#include "events/registry.h"

TestSuite(events_registry, .timeout = 10);

static const char good[] =
	"counter 0 requests \"in\" flight\n"
	"counter 7 other\n"
	"event 22 myapp:request 3 3:id 9:path 11:status=ok|not_found|error\n"
	"event 40 myapp:empty 0\n";

Test(events_registry, parses_what_the_producer_writes)
{
	struct rtr_registry reg;
	char err[160] = "";

	cr_assert_eq(rtr_registry_parse(good, strlen(good), &reg, err, sizeof(err)), 0, "%s", err);
	cr_expect_str_eq(reg.counters[0], "requests \"in\" flight");
	cr_expect_str_eq(reg.counters[7], "other");
	cr_expect_null(reg.counters[3]);
	cr_expect_eq(reg.ncounters, 8);
	cr_assert_eq(reg.nevents, 2);
	cr_expect_eq(reg.events[0].id, 22);
	cr_expect_str_eq(reg.events[0].name, "myapp:request");
	cr_expect_eq(reg.events[0].nfields, 3);
	cr_expect_str_eq(reg.events[0].fields[1].name, "path");
	cr_expect_eq(reg.events[0].fields[1].type, 9);
	cr_expect_str_eq(reg.events[0].fields[2].labels, "ok|not_found|error");
	cr_expect_eq(reg.events[1].nfields, 0);
	rtr_registry_free(&reg);
}

Test(events_registry, refuses_anything_else_naming_the_line)
{
	static const struct {
		const char *text;
		const char *why;
	} bad[] = {
		{ "counter 0 a\ncounter 0 b\n", "line 2: counter id registered twice" },
		{ "counter 0 a", "line 1: no newline" },
		{ "counter 4096 a\n", "bad counter id" },
		{ "counter x a\n", "bad counter id" },
		{ "counter 1 \x01\x02\x03\n", "not printable" },
		{ "gauge 1 a\n", "unknown entry" },
		{ "event 5 a:b 0\n", "bad event id" },
		{ "event 22 ab 0\n", "provider:name" },
		{ "event 22 a-b:c 0\n", "two identifiers" },
		{ "event 22 a:b 2 3:x\n", "missing field" },
		{ "event 22 a:b 1 3:x 3:y\n", "more fields" },
		{ "event 22 a:b 1 10:x\n", "bad field" },
		{ "event 22 a:b 2 3:x 3:x\n", "named twice" },
		{ "event 22 a:b 1 11:x\n", "enum labels" },
		{ "event 22 a:b 1 11:x=ok||no\n", "enum labels" },
		{ "event 22 a:b 1 11:x=ok|\n", "enum labels" },
		{ "event 22 a:b 1 11:x=o-k\n", "enum labels" },
		{ "event 22 a:b 1 3:x=ok\n", "enum labels" },
		{ "event 22 a:b 65 3:x\n", "field count" },
		{ "event 22 a:b 0\nevent 22 c:d 0\n", "line 2: event id registered twice" },
		/* a good line, then damage: what was allocated is freed (LSan) */
		{ "counter 1 ok\nevent 22 a:b 1 11:s=x|y\nevent 23 a:c 1 11:s=x|\n", "line 3" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct rtr_registry reg;
		char err[160] = "";

		cr_expect_eq(rtr_registry_parse(bad[i].text, strlen(bad[i].text), &reg, err,
						 sizeof(err)), -EPROTO, "accepted: %s", bad[i].text);
		cr_expect_not_null(strstr(err, bad[i].why), "case %zu: '%s' does not say '%s'", i,
				   err, bad[i].why);
		cr_expect_eq(reg.nevents, 0, "freed on failure");
	}
}

Test(events_registry, writer_refuses_what_the_parser_would)
{
	static char page[8192] __attribute__((aligned(64)));
	struct rtr_region_hdr *h = (struct rtr_region_hdr *)page;
	struct rtr_reg_field f[2] = { { "x", 11, (char *)"a|b" }, { "y", 3, NULL } };
	struct rtr_registry reg;
	char err[160];

	h->metadata_off = 4096;
	h->metadata_cap = 4096;
	cr_assert_eq(rtr_registry_add_event(h, 22, "p", "e", f, 2), 0);
	cr_expect_eq(rtr_registry_add_event(h, 5, "p", "e", f, 2), -EINVAL, "a task model id");
	f[0].labels = (char *)"a|";
	cr_expect_eq(rtr_registry_add_event(h, 22, "p", "e", f, 2), -EINVAL);
	f[0].labels = NULL;
	cr_expect_eq(rtr_registry_add_event(h, 22, "p", "e", f, 2), -EINVAL, "enum without labels");
	cr_expect_eq(rtr_registry_add_counter(h, 0, "c"), 0);
	cr_assert_eq(rtr_registry_parse(page + 4096, h->metadata_len, &reg, err, sizeof(err)), 0,
		     "%s", err);
	cr_expect_eq(reg.nevents, 1);
	cr_expect_str_eq(reg.events[0].fields[0].labels, "a|b");
	rtr_registry_free(&reg);
	for (int i = 0; i < 1000; i++) {
		if (rtr_registry_add_counter(h, (uint32_t)(i % 4096), "a counter name of some length"))
			break;
	}
	cr_expect_eq(rtr_registry_add_counter(h, 1, "c"), -ENOSPC, "a full area says so");
	cr_expect_leq(h->metadata_len, h->metadata_cap);
}

/*
 * A region made before the thread record took id 21 gave it to its first
 * typed event: the registry still reads, and the trace's metadata has that
 * class at 21 and no thread class (such a region has no thread records).
 */
Test(events_registry, a_region_from_before_the_thread_record_keeps_its_id_21)
{
	static const char old[] = "event 21 old:first 1 3:x\nevent 22 old:second 0\n";
	struct rtr_region_hdr h = { .clock_freq = 1000000000, .producer_pid = 1,
				    .mode = RTR_MODE_DISCARD };
	struct rtr_registry reg;
	char err[160] = "", *text = NULL;
	size_t len = 0;
	FILE *f;

	cr_assert_eq(rtr_registry_parse(old, strlen(old), &reg, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(reg.events[0].id, RTR_EV_THREAD);
	f = open_memstream(&text, &len);
	cr_assert_not_null(f);
	cr_assert_eq(rtr_events_write_metadata(f, &h, &reg, "host"), 0);
	fclose(f);
	cr_expect_not_null(strstr(text, "name = \"old:first\";\n\tid = 21;"), "%s", text);
	cr_expect_null(strstr(text, "name = \"thread\""), "no thread class");
	cr_expect_not_null(strstr(text, "name = \"pause\";"), "the task model's classes");
	free(text);
	rtr_registry_free(&reg);
	cr_expect_eq(rtr_registry_parse("event 20 a:b 0\n", 15, &reg, err, sizeof(err)), -EPROTO,
		     "a task model id");
}

/*
 * Processes sharing a region (fork, exec under record) register through the
 * region's counters: a name, or a class field for field, that is already
 * there keeps its id; anything else takes the next one.
 */
Test(events_registry, processes_sharing_a_region_get_one_id_per_name)
{
	static char page[8192] __attribute__((aligned(64)));
	struct rtr_region_hdr *h = (struct rtr_region_hdr *)page;
	struct rtr_reg_field f[2] = { { "x", 11, (char *)"a|b" }, { "y", 3, NULL } };
	struct rtr_registry reg;
	uint32_t a, b, c, d;
	char err[160];

	h->metadata_off = 4096;
	h->metadata_cap = 4096;
	h->next_counter = 2;
	h->next_class = 23;
	cr_assert_eq(rtr_registry_add_counter(h, 0, "zero"), 0);
	cr_assert_eq(rtr_registry_add_counter(h, 1, "one"), 0);
	cr_assert_eq(rtr_registry_add_event(h, 22, "p", "e", f, 2), 0);
	cr_assert_eq(rtr_registry_counter_id(h, "one", &a), 0);
	cr_expect_eq(a, 1, "a name already there keeps its id");
	cr_assert_eq(rtr_registry_counter_id(h, "on", &b), 0);
	cr_expect_eq(b, 2, "a prefix is another name");
	cr_assert_eq(rtr_registry_counter_id(h, "on", &c), 0);
	cr_expect_eq(c, 2);
	cr_expect_eq(h->next_counter, 3);
	cr_assert_eq(rtr_registry_event_id(h, "p", "e", f, 2, &a), 0);
	cr_expect_eq(a, 22, "the same class keeps its id");
	cr_assert_eq(rtr_registry_event_id(h, "p", "e", f, 1, &b), 0);
	cr_expect_eq(b, 23, "fewer fields: another class");
	f[0].labels = (char *)"a|c";
	cr_assert_eq(rtr_registry_event_id(h, "p", "e", f, 2, &c), 0);
	cr_expect_eq(c, 24, "other labels: another class");
	cr_assert_eq(rtr_registry_event_id(h, "p", "e", f, 2, &d), 0);
	cr_expect_eq(d, 24);
	cr_expect_eq(h->next_class, 25);
	cr_assert_eq(rtr_registry_parse(page + 4096, h->metadata_len, &reg, err, sizeof(err)), 0,
		     "%s", err);
	cr_expect_eq(reg.nevents, 3);
	cr_expect_str_eq(reg.counters[2], "on");
	rtr_registry_free(&reg);
}
