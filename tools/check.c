// SPDX-License-Identifier: MIT
/*
 * tools/check.c - `ringtrace check DIR`: validate a trace without printing
 * its events.  The metadata must parse; every stream file is read to its
 * end by a cursor, which checks each packet header (magic, uuid, sizes,
 * cpu, sequence, losses, timestamps) and decodes each record in bounds.
 * Losses are reported but are not damage.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "reader/cursor.h"
#include "reader/input.h"
#include "reader/merge.h"
#include "tools/cli.h"
#include "tools/commands.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ringtrace check TRACE\n\n"
		"Validate the CTF trace TRACE without printing its events: the metadata, and\n"
		"in every stream file each packet (header fields, sizes, uuid, cpu, sequence\n"
		"numbers, loss counters, timestamps) and each record.  Prints per stream the\n"
		"packets, events, events lost, packets lost, and the first damage found;\n"
		"a quirk a known producer writes (an event before its packet's\n"
		"timestamp_begin or after its timestamp_end, a timestamp_end of 0) and\n"
		"an attribute of the metadata that is not read (as babeltrace2 warns) are\n"
		"warnings with their place, counted, and the check goes on.\n"
		"The ring's thread records are counted apart from the program's events.\n"
		"TRACE is a trace directory, a directory of rotated chunks (checked in order,\n"
		"sequence numbers continuing from chunk to chunk), a directory holding several\n"
		"traces (each found below it, a stream in several files read as one), or -\n"
		"for a stream on stdin.\n\n"
		"  -h, --help   this text\n\n"
		"exit status: 0 clean (losses and warnings alone are not damage), 1 damaged,\n"
		"2 usage\n");
}

/* The last cursor of each stream file name, for the next chunk to continue. */
struct carry {
	char name[64];
	struct tr_cursor c;
};

struct totals {
	uint64_t packets, events, lost_events, lost_packets, lost_first, threads;
	uint64_t warnings;	/* producers' quirks, read on (tr_cursor.quirks) */
	uint32_t damaged, streams;
	uint32_t unopened;	/* traces (chunks) whose metadata or directory failed */
	FILE *out;		/* where the report goes; NULL: nowhere (cli_check_written()) */
	char first[1024];	/* the first damage */
};

/* The report's lines, and the problems said on standard error, when there is a report. */
#define OUT(tot, ...) ((void)((tot)->out && fprintf((tot)->out, __VA_ARGS__)))
#define SAY(tot, ...) ((void)((tot)->out && fprintf(stderr, "ringtrace check: " __VA_ARGS__)))

/* A damage found: counted by the caller, the first kept for cli_check_written(). */
static void damage(struct totals *tot, const char *what)
{
	if (!tot->first[0])
		snprintf(tot->first, sizeof(tot->first), "%s", what);
	SAY(tot, "%s\n", what);
}

/* A trace's lines before its streams'. */
static void print_header(const struct tr_trace *t, const char *dir, struct totals *tot)
{
	OUT(tot, "trace     %s\n", dir);
	OUT(tot, "uuid      %s\n", t->md.uuid_str);
	OUT(tot, "host      %s%s", t->md.hostname, t->md.has_vpid ? "" : "\n");
	if (t->md.has_vpid)
		OUT(tot, ", pid %u\n", t->md.vpid);
	if (t->md.chunk_index)
		OUT(tot, "chunk     %" PRIu64 " of a rotated trace\n", t->md.chunk_index);
	OUT(tot, "clock     %" PRIu64 " Hz\n", t->md.freq);
	if (t->md.clockq.known) {
		char q[400];

		tr_clock_quality_text(&t->md.clockq, q, sizeof(q));
		OUT(tot, "          %s\n", q);
	}
	OUT(tot, "classes   %u event classes\n", t->md.nclasses);
	OUT(tot, "streams   %u files\n", t->nstreams);
	if (t->md.warnings) {
		SAY(tot, "warning: %s\n", t->md.warning);
		OUT(tot, "warnings  %u in the metadata, read on (the first: %s)\n", t->md.warnings,
		       t->md.warning);
		tot->warnings += t->md.warnings;
	}
	OUT(tot, "\n");
	OUT(tot, "%-16s %5s %10s %12s %12s %12s  %s\n", "stream", "cpu", "packets", "events",
	       "events-lost", "packets-lost", "status");
}

/* A stream's line, and what else it says; its damage and warnings counted in @tot. */
static void report_stream(const char *name, const struct tr_cursor *c, int r, bool first,
		  struct totals *tot)
{
	char cpu[24] = "-";

	if (c->started)
		snprintf(cpu, sizeof(cpu), "%" PRIu64, c->cpu);
	OUT(tot, "%-16s %5s %10" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64 "  %s\n",
	       name, cpu, c->packets, c->events - c->threads, c->events_lost,
	       c->packets_lost, r == TR_ERROR ? "DAMAGED" : "ok");
	if (first && (c->first_seq || c->first_events))
		OUT(tot, "  lost before its first packet: %" PRIu64 " packets and %" PRIu64
		       " events (overwritten by a flight recorder, or written before the "
		       "trace was joined)\n", c->first_seq, c->first_events);
	if (c->dips)
		OUT(tot, "  events_discarded went down in %" PRIu64 " packet%s (the first at "
		       "offset %" PRIu64 "): the producer's glitch, counted as no loss "
		       "(babeltrace2 counts 2^64 minus the drop)\n", c->dips,
		       c->dips == 1 ? "" : "s", c->dip_off);
	if (c->quirks) {
		SAY(tot, "warning: %s\n", c->quirk);
		OUT(tot, "  %" PRIu64 " warning%s, a producer's known quirk, read on (the "
		       "first: %s)\n", c->quirks, c->quirks == 1 ? "" : "s", c->quirk);
		tot->warnings += c->quirks;
	}
	if (r == TR_ERROR) {
		damage(tot, c->err);
		OUT(tot, "  damage: %s\n", c->err);
		tot->damaged++;
	}
	tot->streams++;
	tot->packets += c->packets;
	tot->events += c->events - c->threads;
	tot->threads += c->threads;
	tot->lost_events += c->events_lost;
	tot->lost_packets += c->packets_lost;
	if (first)
		tot->lost_first += c->first_seq;
}

static int check_trace(const char *dir, struct carry **carry, uint32_t *ncarry, struct totals *tot)
{
	struct tr_cursor *c;
	struct tr_trace t;
	char err[1024];

	if (tr_open(&t, dir, err, sizeof(err))) {
		damage(tot, err);
		OUT(tot, "%s: damaged: %s\n", dir, err);
		tot->unopened++;
		return 1;
	}
	print_header(&t, dir, tot);
	c = malloc(sizeof(*c));
	if (!c) {
		damage(tot, "out of memory");
		tot->unopened++;
		tr_close(&t);
		return 1;
	}
	for (uint32_t i = 0; i < t.nstreams; i++) {
		struct carry *k = NULL;
		int r;

		for (uint32_t j = 0; j < *ncarry; j++)
			if (!strcmp((*carry)[j].name, t.streams[i].name))
				k = &(*carry)[j];
		tr_cursor_init(c, &t, i);
		if (k)
			tr_cursor_continue(c, &k->c);
		while ((r = tr_next(c)) > 0)
			;
		report_stream(t.streams[i].name, c, r, !k, tot);
		if (!k) {
			struct carry *nk = realloc(*carry, (*ncarry + 1) * sizeof(*nk));

			if (!nk)
				continue;
			*carry = nk;
			k = &nk[(*ncarry)++];
			snprintf(k->name, sizeof(k->name), "%s", t.streams[i].name);
		}
		memcpy(&k->c, c, TR_CURSOR_STATE);
	}
	free(c);
	tr_close(&t);
	return 0;
}

/*
 * Check the traces @dirs (one trace, or the traces found in a directory) as
 * one: each stream, which may lie in several files (tr_stream_files(): one
 * stream_instance_id in LTTng's --tracefile-size files or a rotated
 * session's archives), read through its files in order.
 */
static void check_traces(char *const *dirs, uint32_t ndirs, const char *root, struct totals *tot)
{
	struct tr_trace *t = calloc(ndirs + 1, sizeof(*t));
	struct tr_stream_files *sf = NULL;
	struct tr_cursor *c = malloc(sizeof(*c)), *prev = malloc(sizeof(*prev));
	uint32_t opened = 0, nsf = 0;
	size_t rootlen = strlen(root);
	char err[1024];

	if (!t || !c || !prev) {
		SAY(tot, "out of memory\n");
		tot->unopened = ndirs;
		goto out;
	}
	for (uint32_t i = 0; i < ndirs; i++) {
		if (tr_open(&t[opened], dirs[i], err, sizeof(err))) {
			damage(tot, err);
			OUT(tot, "%s: damaged: %s\n", dirs[i], err);
			tot->unopened++;
			continue;
		}
		opened++;
	}
	if (tr_stream_files(t, opened, &sf, &nsf)) {
		SAY(tot, "out of memory\n");
		tot->unopened = ndirs;
		goto out;
	}
	for (uint32_t k = 0; k < opened; k++) {
		if (k || tot->unopened)
			OUT(tot, "\n");
		print_header(&t[k], t[k].dir, tot);
		for (uint32_t i = 0; i < nsf; i++) {
			const struct tr_file_ref *f = sf[i].f;
			const struct tr_stream *s = &t[f[0].trace].streams[f[0].file];
			char name[4096];
			int r = TR_END;

			/* each stream under the trace of its first file */
			if (f[0].trace != k)
				continue;
			for (uint32_t j = 0; j < sf[i].n; j++) {
				if (j)
					tr_stream_next_file(c, &t[f[j].trace], f[j].file, prev);
				else
					tr_cursor_init(c, &t[f[j].trace], f[j].file);
				while ((r = tr_next(c)) > 0)
					;
				if (r == TR_ERROR)
					break;
				memcpy(prev, c, TR_CURSOR_STATE);
			}
			/* named by its first file, under the directory given */
			snprintf(name, sizeof(name), "%s", ndirs > 1 && !strncmp(s->path, root,
				 rootlen) && s->path[rootlen] == '/' ? s->path + rootlen + 1 :
				 s->name);
			report_stream(name, c, r, true, tot);
			if (sf[i].n > 1)
				OUT(tot, "  in %u files, read one after the other (one "
				       "stream_instance_id)\n", sf[i].n);
		}
	}
out:
	tr_stream_files_free(sf, nsf);
	for (uint32_t k = 0; t && k < opened; k++)
		tr_close(&t[k]);
	free(t);
	free(c);
	free(prev);
}

/* Check the trace (or traces) at @dir, reporting to @tot->out.  Return: the exit status. */
static int check_path(const char *dir, struct totals *tot)
{
	struct carry *carry = NULL;
	uint32_t ncarry = 0, ndirs;
	struct tr_input in;
	char err[1024];
	bool cut, found;

	if (tr_input_open(&in, dir, false, err, sizeof(err))) {
		damage(tot, err);
		OUT(tot, "%s: damaged: %s\n", dir, err);
		tr_input_close(&in, NULL, 0);
		return 1;
	}
	if (tot->out)
		cli_input_told(&in);
	if (in.found || in.ndirs == 1) {
		check_traces(in.dirs, in.ndirs, in.root, tot);
	} else {
		for (uint32_t i = 0; i < in.ndirs; i++) {
			if (i)
				OUT(tot, "\n");
			check_trace(in.dirs[i], &carry, &ncarry, tot);
		}
	}
	free(carry);
	if (in.found)
		OUT(tot, "\n%u trace%s found in %s, read as one\n", in.ndirs,
		    in.ndirs == 1 ? "" : "s", in.root);
	else if (in.ndirs > 1)
		OUT(tot, "\n%u chunks\n", in.ndirs);
	if (tot->threads)
		OUT(tot, "\n%" PRIu64 " thread records (each names the process and thread of the "
		    "events after it in its packet)", tot->threads);
	OUT(tot, "\n%" PRIu64 " packets, %" PRIu64 " events, %" PRIu64 " events lost, %" PRIu64
	    " packets lost (%" PRIu64 " of them before the streams' first packets)\n",
	    tot->packets, tot->events, tot->lost_events, tot->lost_packets, tot->lost_first);
	if (tot->warnings)
		OUT(tot, "%" PRIu64 " warning%s: what producers write that CTF 1.8 does not ask "
		    "for, read on\n", tot->warnings, tot->warnings == 1 ? "" : "s");
	ndirs = in.ndirs;
	found = in.found;
	cut = (tot->out ? cli_input_close(&in) : tr_input_close(&in, err, sizeof(err))) != 0;
	if (tot->unopened)
		OUT(tot, "check: DAMAGED: %u of %u %s not be read%s\n", tot->unopened, ndirs,
		    ndirs == 1 ? "trace could" : found ? "traces could" : "chunks could",
		    tot->damaged ? ", and streams of the others are damaged" : "");
	else if (tot->damaged)
		OUT(tot, "check: DAMAGED: %u of %u streams\n", tot->damaged, tot->streams);
	else if (cut)
		OUT(tot, "check: INCOMPLETE: the stream on standard input was cut or damaged; what "
		    "came before is checked above\n");
	else
		OUT(tot, "check: ok%s%s\n", tot->lost_events || tot->lost_packets ?
		    " (with losses)" : "", tot->warnings ? " (with warnings)" : "");
	return tot->damaged || tot->unopened || cut ? 1 : 0;
}

int cli_check_written(const char *path, char *what, size_t len)
{
	struct totals tot = { .out = NULL };
	int ret = check_path(path, &tot);

	snprintf(what, len, "%s", tot.first);
	return ret;
}

int rtr_cmd_check(int argc, char **argv)
{
	struct totals tot = { .out = stdout };
	const char *dir = NULL;
	int ret;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "ringtrace check: unknown option '%s'\n", argv[i]);
			usage(stderr);
			return 2;
		} else if (!dir) {
			dir = argv[i];
		} else {
			fprintf(stderr, "ringtrace check: unexpected argument '%s'\n", argv[i]);
			return 2;
		}
	}
	if (!dir) {
		usage(stderr);
		return 2;
	}
	if (cli_traces_exist("check", (char **)&dir, 1))
		return 2;
	ret = check_path(dir, &tot);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "ringtrace check: standard output: %s\n", strerror(errno));
		return 1;
	}
	return ret;
}
