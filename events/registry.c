// SPDX-License-Identifier: MIT
/* events/registry.c - see registry.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "format/ctf.h"
#include "events/registry.h"
#include "platform/compiler.h"
#include "format/error.h"

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


bool rtr_registry_ident_ok(const char *s)
{
	size_t n = s ? strnlen(s, 64) : 0;

	return n <= 63 && rtr_ctf_identifier(s, n);
}

#define LINE_MAX_ (64 + 130 + RTR_REGISTRY_FIELDS * 72 + 16384)

/* "a|b|c": 1..RTR_REGISTRY_LABELS identifiers. */
static bool labels_ok(const char *s)
{
	char label[64];
	uint32_t n = 0;

	while (*s) {
		size_t len = strcspn(s, "|");

		if (len == 0 || len >= sizeof(label) || ++n > RTR_REGISTRY_LABELS)
			return false;
		memcpy(label, s, len);
		label[len] = 0;
		if (!rtr_registry_ident_ok(label))
			return false;
		s += len;
		if (*s == '|' && !*++s)
			return false;
	}
	return n > 0;
}

/* The text before the length: a reader copies metadata_len bytes. */
static int append(struct rtr_region_hdr *h, const char *line, size_t n)
{
	char *area = (char *)h + h->metadata_off;
	uint32_t len = h->metadata_len;

	if (n > h->metadata_cap - len)
		return -ENOSPC;
	memcpy(area + len, line, n);
	rtr_store_release(&h->metadata_len, len + (uint32_t)n);
	return 0;
}

int rtr_registry_add_counter(struct rtr_region_hdr *h, uint32_t id, const char *name)
{
	char line[RTR_REGISTRY_NAME_MAX + 32];
	int n;

	if (!rtr_registry_name_ok(name) || id >= RTR_REGISTRY_COUNTERS)
		return -EINVAL;
	n = snprintf(line, sizeof(line), "counter %u %s\n", id, name);
	return append(h, line, (size_t)n);
}

/*
 * The id of the line "@kind <id>@rest" in the area (@rest: @n bytes, from the
 * space after the id to the newline included), or -1.  The area is this
 * trace's producers' own, read under the region's lock.
 */
static int64_t find(const struct rtr_region_hdr *h, const char *kind, const char *rest, size_t n)
{
	const char *area = (const char *)h + h->metadata_off;
	size_t len = h->metadata_len < h->metadata_cap ? h->metadata_len : h->metadata_cap;
	size_t k = strlen(kind);

	for (size_t pos = 0; pos < len;) {
		const char *l = area + pos, *nl = memchr(l, '\n', len - pos);
		unsigned long id;
		char *end;

		if (!nl)
			break;
		pos += (size_t)(nl + 1 - l);
		if ((size_t)(nl - l) <= k + 1 || memcmp(l, kind, k) || l[k] != ' ' ||
		    l[k + 1] < '0' || l[k + 1] > '9')
			continue;
		id = strtoul(l + k + 1, &end, 10);
		if ((size_t)(nl + 1 - end) == n && !memcmp(end, rest, n) && id <= UINT32_MAX)
			return (int64_t)id;
	}
	return -1;
}

int rtr_registry_counter_id(struct rtr_region_hdr *h, const char *name, uint32_t *id)
{
	char rest[RTR_REGISTRY_NAME_MAX + 3];
	int64_t found;
	int ret;

	if (!rtr_registry_name_ok(name))
		return -EINVAL;
	snprintf(rest, sizeof(rest), " %s\n", name);
	found = find(h, "counter", rest, strlen(rest));
	if (found >= 0) {
		*id = (uint32_t)found;
		return 0;
	}
	if (h->next_counter >= RTR_REGISTRY_COUNTERS)
		return -ENOSPC;
	ret = rtr_registry_add_counter(h, h->next_counter, name);
	if (!ret)
		*id = h->next_counter++;
	return ret;
}

/* "event <id> <provider>:<name> <nfields>[ <type>:<field>[=labels]]...\n" into @line. */
static int format_event(char *line, size_t size, size_t *len, uint32_t id, const char *provider,
			const char *name, const struct rtr_reg_field *fields, uint32_t nfields)
{
	size_t o;

	if (!rtr_registry_ident_ok(provider) || !rtr_registry_ident_ok(name) ||
	    nfields > RTR_REGISTRY_FIELDS || id < RTR_REGISTRY_FIRST_ID)
		return -EINVAL;
	o = (size_t)snprintf(line, size, "event %u %s:%s %u", id, provider, name, nfields);
	for (uint32_t i = 0; i < nfields; i++) {
		if (!rtr_registry_ident_ok(fields[i].name) || !rtr_ctf_type_public(fields[i].type) ||
		    (fields[i].type == 11) != (fields[i].labels != NULL) ||
		    (fields[i].labels && !labels_ok(fields[i].labels)))
			return -EINVAL;
		o += (size_t)snprintf(line + o, size - o, " %u:%s%s%s", fields[i].type,
				      fields[i].name, fields[i].labels ? "=" : "",
				      fields[i].labels ? fields[i].labels : "");
		if (o >= size - 1)
			return -ENOSPC;
	}
	line[o++] = '\n';
	*len = o;
	return 0;
}

int rtr_registry_add_event(struct rtr_region_hdr *h, uint32_t id, const char *provider,
			   const char *name, const struct rtr_reg_field *fields, uint32_t nfields)
{
	static char line[LINE_MAX_];	/* callers serialise */
	size_t n;
	int ret = format_event(line, sizeof(line), &n, id, provider, name, fields, nfields);

	return ret ? ret : append(h, line, n);
}

int rtr_registry_event_id(struct rtr_region_hdr *h, const char *provider, const char *name,
			  const struct rtr_reg_field *fields, uint32_t nfields, uint32_t *id)
{
	static char line[LINE_MAX_];	/* callers serialise */
	const char *rest;
	int64_t found;
	size_t n;
	int ret;

	ret = format_event(line, sizeof(line), &n, RTR_REGISTRY_FIRST_ID, provider, name, fields,
			   nfields);
	if (ret)
		return ret;
	rest = strchr(line + 6, ' ');	/* after "event <id>" */
	found = find(h, "event", rest, n - (size_t)(rest - line));
	if (found >= 0) {
		*id = (uint32_t)found;
		return 0;
	}
	if (h->next_class < RTR_REGISTRY_FIRST_ID)
		return -EINVAL;	/* the region's counter says no id is left */
	ret = rtr_registry_add_event(h, h->next_class, provider, name, fields, nfields);
	if (!ret)
		*id = h->next_class++;
	return ret;
}

static int fail(char *err, size_t errlen, unsigned line, const char *why)
{
	return rtr_errf(err, errlen, EPROTO, "registry line %u: %s", line, why);
}

/* "event <id> <provider>:<name> <nfields>[ <type>:<field>]...", in @buf (cut up). */
static int parse_event_in(char *buf, struct rtr_registry *reg, char *err, size_t errlen,
			  unsigned lineno)
{
	char *tok, *save, *colon, *eq;
	struct rtr_reg_event *ev, *grown;
	unsigned long v;
	char *end;

	if (reg->nevents == RTR_REGISTRY_EVENTS)
		return fail(err, errlen, lineno, "too many event classes");
	grown = realloc(reg->events, (reg->nevents + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	reg->events = grown;
	ev = &reg->events[reg->nevents];
	memset(ev, 0, sizeof(*ev));
	strtok_r(buf, " ", &save);	/* "event" */
	tok = strtok_r(NULL, " ", &save);
	v = tok ? strtoul(tok, &end, 10) : 0;
	/* 21: a typed event of a region made before the thread record took that id */
	if (!tok || *end || v < RTR_REGISTRY_FIRST_ID - 1 || v > UINT32_MAX)
		return fail(err, errlen, lineno, "bad event id");
	ev->id = (uint32_t)v;
	for (uint32_t i = 0; i < reg->nevents; i++) {
		if (reg->events[i].id == ev->id)
			return fail(err, errlen, lineno, "event id registered twice");
	}
	reg->nevents++;	/* from here, rtr_registry_free() frees what it holds */
	tok = strtok_r(NULL, " ", &save);
	colon = tok ? strchr(tok, ':') : NULL;
	if (!colon)
		return fail(err, errlen, lineno, "event name is not provider:name");
	*colon = 0;
	if (!rtr_registry_ident_ok(tok) || !rtr_registry_ident_ok(colon + 1))
		return fail(err, errlen, lineno, "event name is not two identifiers");
	snprintf(ev->name, sizeof(ev->name), "%s:%s", tok, colon + 1);
	tok = strtok_r(NULL, " ", &save);
	v = tok ? strtoul(tok, &end, 10) : RTR_REGISTRY_FIELDS + 1;
	if (!tok || *end || v > RTR_REGISTRY_FIELDS)
		return fail(err, errlen, lineno, "bad field count");
	ev->nfields = (uint32_t)v;
	for (uint32_t i = 0; i < ev->nfields; i++) {
		tok = strtok_r(NULL, " ", &save);
		colon = tok ? strchr(tok, ':') : NULL;
		if (!colon)
			return fail(err, errlen, lineno, "missing field");
		v = strtoul(tok, &end, 10);
		eq = strchr(colon + 1, '=');
		if (eq)
			*eq++ = 0;
		if (end != colon || !rtr_ctf_type_public((uint32_t)v) || !rtr_registry_ident_ok(colon + 1))
			return fail(err, errlen, lineno, "bad field");
		if ((v == 11) != (eq != NULL) || (eq && !labels_ok(eq)))
			return fail(err, errlen, lineno, "bad enum labels");
		if (eq) {
			ev->fields[i].labels = strdup(eq);
			if (!ev->fields[i].labels)
				return -ENOMEM;
		}
		for (uint32_t k = 0; k < i; k++) {
			if (!strcmp(ev->fields[k].name, colon + 1))
				return fail(err, errlen, lineno, "field named twice");
		}
		ev->fields[i].type = (uint32_t)v;
		snprintf(ev->fields[i].name, sizeof(ev->fields[i].name), "%s", colon + 1);
	}
	if (strtok_r(NULL, " ", &save))
		return fail(err, errlen, lineno, "more fields than announced");
	return 0;
}

/*
 * The line @l of @n bytes, copied to the heap: a thread-local buffer of
 * the longest line (21 KiB) made every thread of every traced program
 * carry it, in static TLS, which also kept libringtrace.so from loading
 * with dlopen() ("cannot allocate memory in static TLS block").
 */
static int parse_event(const char *l, size_t n, struct rtr_registry *reg, char *err,
		       size_t errlen, unsigned lineno)
{
	char *buf;
	int ret;

	if (n >= LINE_MAX_)
		return fail(err, errlen, lineno, "event line too long");
	buf = malloc(n + 1);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, l, n);
	buf[n] = 0;
	ret = parse_event_in(buf, reg, err, errlen, lineno);
	free(buf);
	return ret;
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
		if (n > 6 && !memcmp(l, "event ", 6)) {
			int ret = parse_event(l, n, reg, err, errlen, lineno);

			if (ret)
				return ret;
			continue;
		}
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
	for (uint32_t i = 0; i < reg->nevents; i++) {
		for (uint32_t j = 0; j < reg->events[i].nfields; j++)
			free(reg->events[i].fields[j].labels);
	}
	free(reg->events);
	memset(reg, 0, sizeof(*reg));
}
