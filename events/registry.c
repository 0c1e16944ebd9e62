// SPDX-License-Identifier: MIT
/* events/registry.c - see registry.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "events/registry.h"
#include "ringbuf/compiler.h"

bool rtr_registry_name_ok(const char *name)
{
	size_t n;

	if (!name)
		return false;
	n = strnlen(name, RTR_REGISTRY_NAME_MAX + 1);
	if (n == 0 || n > RTR_REGISTRY_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (name[i] < 0x20 || name[i] > 0x7e)
			return false;
	}
	return true;
}

int rtr_registry_add_counter(struct rtr_region_hdr *h, uint32_t id, const char *name)
{
	char *area = (char *)h + h->metadata_off;
	uint32_t len = h->metadata_len;
	char line[RTR_REGISTRY_NAME_MAX + 32];
	int n;

	if (!rtr_registry_name_ok(name) || id >= RTR_REGISTRY_COUNTERS)
		return -EINVAL;
	n = snprintf(line, sizeof(line), "counter %u %s\n", id, name);
	if (n < 0 || (uint32_t)n > h->metadata_cap - len)
		return -ENOSPC;
	memcpy(area + len, line, (size_t)n);
	/* The text before the length: a reader copies metadata_len bytes. */
	rtr_store_release(&h->metadata_len, len + (uint32_t)n);
	return 0;
}

static int fail(char *err, size_t errlen, unsigned line, const char *why)
{
	if (err && errlen)
		snprintf(err, errlen, "registry line %u: %s", line, why);
	return -EPROTO;
}

static int parse(const char *text, size_t len, struct rtr_registry *reg, char *err,
		 size_t errlen)
{
	unsigned lineno = 0;
	size_t pos = 0;

	memset(reg, 0, sizeof(*reg));
	while (pos < len) {
		const char *l = text + pos, *nl = memchr(l, '\n', len - pos);
		char name[RTR_REGISTRY_NAME_MAX + 1];
		size_t n;
		unsigned long id;
		char *end;

		lineno++;
		if (!nl)
			return fail(err, errlen, lineno, "no newline at the end");
		n = (size_t)(nl - l);
		pos += n + 1;
		if (n < 10 || memcmp(l, "counter ", 8))
			return fail(err, errlen, lineno, "unknown entry");
		id = strtoul(l + 8, &end, 10);
		if (end == l + 8 || end >= nl || *end != ' ' || id >= RTR_REGISTRY_COUNTERS)
			return fail(err, errlen, lineno, "bad counter id");
		n = (size_t)(nl - end - 1);
		if (n == 0 || n > RTR_REGISTRY_NAME_MAX)
			return fail(err, errlen, lineno, "bad counter name length");
		memcpy(name, end + 1, n);
		name[n] = 0;
		if (!rtr_registry_name_ok(name))
			return fail(err, errlen, lineno, "counter name not printable ASCII");
		if (reg->counters[id])
			return fail(err, errlen, lineno, "counter id registered twice");
		reg->counters[id] = strdup(name);
		if (!reg->counters[id])
			return -ENOMEM;
		if (id >= reg->ncounters)
			reg->ncounters = (uint32_t)id + 1;
	}
	return 0;
}

int rtr_registry_parse(const char *text, size_t len, struct rtr_registry *reg, char *err,
		       size_t errlen)
{
	int ret = parse(text, len, reg, err, errlen);

	if (ret)
		rtr_registry_free(reg);
	return ret;
}

void rtr_registry_free(struct rtr_registry *reg)
{
	for (uint32_t i = 0; i < reg->ncounters; i++)
		free(reg->counters[i]);
	memset(reg, 0, sizeof(*reg));
}
