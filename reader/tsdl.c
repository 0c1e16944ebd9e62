// SPDX-License-Identifier: MIT
/*
 * reader/tsdl.c - a trace's metadata (tsdl.h).  One TSDL parser reads every
 * trace's text (reader/ctf_parse.c); ringtrace's own is then held to its
 * profile: the packet header and context and the event header compared,
 * type for type, with the fixed parts format/ctf.h holds (parsed by the
 * same parser), every event field one of the table's types, nothing the
 * writer does not write (an unknown attribute refused, not warned about).
 * Its classes become lists of typed fields, the cursors' fast path.
 * Anything else is general CTF 1.8, compiled into plans (ctf_plan.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ringtrace/ringtrace.h>
#include "format/classes.h"
#include "format/ctf.h"
#include "format/error.h"
#include "reader/ctf_plan.h"
#include "reader/ctf_internal.h"
#include "reader/tsdl.h"

/* The profile's failure: "FNAME: [line N: ]what" in @err. */
__attribute__((format(printf, 5, 6)))
static int pfail(char *err, size_t errlen, const char *fname, uint32_t line, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = rtr_verrf_at(err, errlen, EPROTO, fname, line ? RTR_AT_LINE : RTR_AT_NONE, line, fmt,
			 ap);
	va_end(ap);
	return r;
}

static int cmp_label(const void *a, const void *b)
{
	const struct tr_label *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	/* stable: labels were numbered by position in @len's place */
	return x->len < y->len ? -1 : x->len > y->len;
}

const struct tr_label *tr_field_label(const struct tr_field *f, uint32_t value)
{
	uint32_t lo = 0, hi = f ? f->nlabels : 0;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (f->labels[mid].value == value)
			return &f->labels[mid];
		if (f->labels[mid].value < value)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Sort by value, keep the first label written for each value. */
static int sort_labels(struct tr_field *f)
{
	uint32_t *lens = malloc((f->nlabels ? f->nlabels : 1) * sizeof(*lens));
	uint32_t n = 0;

	if (!lens)
		return -1;
	for (uint32_t i = 0; i < f->nlabels; i++) {
		lens[i] = f->labels[i].len;
		f->labels[i].len = i;
	}
	if (f->nlabels)
		qsort(f->labels, f->nlabels, sizeof(*f->labels), cmp_label);
	for (uint32_t i = 0; i < f->nlabels; i++) {
		struct tr_label l = f->labels[i];

		l.len = lens[l.len];
		if (n && f->labels[n - 1].value == l.value) {
			free(l.label);
			continue;
		}
		f->labels[n++] = l;
	}
	f->nlabels = n;
	free(lens);
	return 0;
}

static void free_field(struct tr_field *f)
{
	for (uint32_t i = 0; i < f->nlabels; i++)
		free(f->labels[i].label);
	free(f->labels);
	free(f->name);
}

static void free_class(struct tr_class *c)
{
	for (uint32_t i = 0; i < c->nfields; i++)
		free_field(&c->fields[i]);
	free(c->fields);
	free(c->name);
}

static int cmp_class(const void *a, const void *b)
{
	const struct tr_class *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

void tr_metadata_free(struct tr_metadata *md)
{
	tr_ctf_free(md);
	for (uint32_t i = 0; i < md->nclasses; i++)
		free_class(&md->classes[i]);
	free(md->classes);
	free(md->hostname);
	memset(md, 0, sizeof(*md));
}


/* ---- ringtrace's profile ----------------------------------------------------- */

/*
 * The reference: the fixed parts of format/ctf.h as a TSDL text, with one
 * event whose field N is declared with type N's name (an enum's container,
 * a byte sequence's element), parsed by the same parser as the trace.
 */
static char *reference_text(size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	if (!f)
		return NULL;
	fprintf(f, "%s\n", RTR_CTF_SIGNATURE);
	for (uint32_t i = 0; rtr_ctf_typealiases[i]; i++)
		fprintf(f, "%s\n", rtr_ctf_typealiases[i]);
	fprintf(f, "trace {\n");
	for (uint32_t i = 0; rtr_ctf_trace_fixed[i]; i++)
		fprintf(f, "%s\n", rtr_ctf_trace_fixed[i]);
	fprintf(f, "\tpacket.header := struct {\n");
	for (uint32_t i = 0; rtr_ctf_packet_header[i]; i++)
		fprintf(f, "%s\n", rtr_ctf_packet_header[i]);
	fprintf(f, "};\nclock {\n%s\n\tfreq = 1000000000;\n};\nstream {\n",
		RTR_CTF_CLOCK_NAME_LINE);
	for (uint32_t i = 0; rtr_ctf_stream_block[i]; i++)
		fprintf(f, "%s\n", rtr_ctf_stream_block[i]);
	fprintf(f, "%s\n\tname = \"types\";\n\tid = 0;\n%s\n%s\n", RTR_CTF_EVENT_OPEN,
		RTR_CTF_EVENT_STREAM, RTR_CTF_EVENT_FIELDS);
	for (uint32_t t = 0; t < RTR_CTF_NTYPES; t++)
		fprintf(f, "\t\t%s _t%u;\n", rtr_ctf_types[t].tsdl, t);
	fprintf(f, "%s\n%s\n", RTR_CTF_EVENT_FIELDS_END, RTR_CTF_BLOCK_END);
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

static bool str_eq(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Two parsed types alike in every property the decoders read. */
static bool ctype_eq(const struct tr_ctype *a, const struct tr_ctype *b, unsigned depth)
{
	if (a == b)
		return true;
	if (!a || !b || depth > 16)
		return false;
	if (a->kind != b->kind || a->align != b->align || a->size != b->size ||
	    a->sign != b->sign || a->text != b->text || a->order != b->order ||
	    a->base != b->base || !str_eq(a->clock, b->clock) || a->exp_dig != b->exp_dig ||
	    a->mant_dig != b->mant_dig || a->nmaps != b->nmaps || a->nfields != b->nfields ||
	    !str_eq(a->tag, b->tag) || a->length != b->length ||
	    !str_eq(a->length_ref, b->length_ref) ||
	    !ctype_eq(a->container, b->container, depth + 1) ||
	    !ctype_eq(a->elem, b->elem, depth + 1))
		return false;
	for (uint32_t i = 0; i < a->nmaps; i++) {
		if (a->maps[i].lo != b->maps[i].lo || a->maps[i].hi != b->maps[i].hi ||
		    a->maps[i].len != b->maps[i].len ||
		    memcmp(a->maps[i].label, b->maps[i].label, a->maps[i].len))
			return false;
	}
	for (uint32_t i = 0; i < a->nfields; i++) {
		if (!str_eq(a->fields[i].name, b->fields[i].name) ||
		    !ctype_eq(a->fields[i].type, b->fields[i].type, depth + 1))
			return false;
	}
	return true;
}

struct profile {
	const struct tr_ctf_parsed *in, *ref;
	const struct tr_ctype *types;	/* the reference event's fields: type N's */
	const char *fname;
	char *err;
	size_t errlen;
	bool nomem;
};

static const struct tr_ctype *ref_type(const struct profile *p, enum rtr_ctf_type t)
{
	return p->types->fields[t].type;
}

/* @t's labels, each one value of the container, printable ASCII, into @f. */
static int own_labels(struct profile *p, const struct tr_ctf_pevent *e, const char *fname,
		      const struct tr_ctype *t, uint64_t max, struct tr_field *f)
{
	f->labels = calloc(t->nmaps ? t->nmaps : 1, sizeof(*f->labels));
	if (!f->labels) {
		p->nomem = true;
		return pfail(p->err, p->errlen, p->fname, e->line, "out of memory");
	}
	for (uint32_t i = 0; i < t->nmaps; i++) {
		const struct tr_enum_map *m = &t->maps[i];
		struct tr_label *l = &f->labels[f->nlabels];

		if (m->lo != m->hi || m->lo < 0 || (uint64_t)m->lo > max)
			return pfail(p->err, p->errlen, p->fname, e->line,
				     "event '%s': enum field '%s': bad enum value (one value "
				     "from 0 to %" PRIu64 " a label)", e->name, fname, max);
		for (uint32_t k = 0; k < m->len; k++) {
			if (m->label[k] < 0x20 || m->label[k] > 0x7e)
				return pfail(p->err, p->errlen, p->fname, e->line,
					     "event '%s': enum field '%s': bad enum label "
					     "(printable ASCII only)", e->name, fname);
		}
		l->label = strndup(m->label, m->len);
		if (!l->label) {
			p->nomem = true;
			return pfail(p->err, p->errlen, p->fname, e->line, "out of memory");
		}
		l->len = m->len;
		l->value = (uint32_t)m->lo;
		f->nlabels++;
	}
	if (sort_labels(f)) {
		p->nomem = true;
		return pfail(p->err, p->errlen, p->fname, e->line, "out of memory");
	}
	return 0;
}

/*
 * One field of an event's payload, as the writer declares it: a type of the
 * table by name, an enum of a u8 or u32, or "uint8_t _x[_x_len];" right
 * after "uint32_t _x_len;" (that field becomes the byte sequence).
 */
static int own_field(struct profile *p, const struct tr_ctf_pevent *e, struct tr_class *c,
		     const struct tr_cfield *cf)
{
	const struct tr_ctype *t = cf->type;
	struct tr_field f = { 0 };
	const char *name = cf->name;
	size_t nn;

	if (!t || !name || name[0] != '_' || !rtr_ctf_identifier(name + 1, strlen(name + 1)))
		return pfail(p->err, p->errlen, p->fname, e->line,
			     "event '%s': bad field name '%s' (the writer's are _ and an "
			     "identifier)", e->name, name ? name : "");
	name++;
	nn = strlen(name);
	if (t->kind == TR_TK_SEQ) {
		struct tr_field *prev = c->nfields ? &c->fields[c->nfields - 1] : NULL;
		size_t rn = t->length_ref ? strlen(t->length_ref) : 0;

		if (!ctype_eq(t->elem, ref_type(p, RTR_CTF_BYTES), 0) || rn != nn + 5 ||
		    t->length_ref[0] != '_' || memcmp(t->length_ref + 1, name, nn) ||
		    memcmp(t->length_ref + 1 + nn, "_len", 4) || !prev ||
		    prev->type != RTR_CTF_U32 || strlen(prev->name) != nn + 4 ||
		    memcmp(prev->name, t->length_ref + 1, nn + 4))
			return pfail(p->err, p->errlen, p->fname, e->line,
				     "event '%s': a byte sequence must follow its length field "
				     "'uint32_t _%s_len;' (field '%s')", e->name, name, name);
		prev->type = RTR_CTF_BYTES;
		prev->name[nn] = 0;
		return 0;
	}
	if (t->kind == TR_TK_ENUM) {
		uint64_t max;

		if (ctype_eq(t->container, ref_type(p, RTR_CTF_ENUM_U8), 0)) {
			f.type = RTR_CTF_ENUM_U8;
			max = UINT8_MAX;
		} else if (ctype_eq(t->container, ref_type(p, RTR_CTF_ENUM_U32), 0)) {
			f.type = RTR_CTF_ENUM_U32;
			max = UINT32_MAX;
		} else {
			return pfail(p->err, p->errlen, p->fname, e->line,
				     "event '%s': bad enum type of field '%s' (uint8_t or "
				     "uint32_t)", e->name, name);
		}
		if (own_labels(p, e, name, t, max, &f))
			goto fail;
	} else {
		uint32_t i;

		/* The types a field is declared with by name: the integers, double, string. */
		for (i = RTR_CTF_U8; i <= RTR_CTF_STRING; i++) {
			if (ctype_eq(t, ref_type(p, (enum rtr_ctf_type)i), 0))
				break;
		}
		if (i > RTR_CTF_STRING)
			return pfail(p->err, p->errlen, p->fname, e->line,
				     "event '%s': unknown field type of field '%s' (not one "
				     "ringtrace writes)", e->name, name);
		f.type = (enum rtr_ctf_type)i;
	}
	f.name = strndup(name, nn);
	if (!f.name) {
		p->nomem = true;
		pfail(p->err, p->errlen, p->fname, e->line, "out of memory");
		goto fail;
	}
	c->fields[c->nfields++] = f;
	return 0;
fail:
	free_field(&f);
	return -EPROTO;
}

static int own_event(struct profile *p, const struct tr_ctf_pevent *e, struct tr_class *c)
{
	const struct tr_ctype *fs = e->fields;

	memset(c, 0, sizeof(*c));
	c->line = e->line;
	if (!e->name || !rtr_ctf_event_name_ok(e->name))
		return pfail(p->err, p->errlen, p->fname, e->line,
			     "event name is neither an identifier nor provider:name: '%s'",
			     e->name ? e->name : "");
	c->name = strdup(e->name);
	if (!c->name) {
		p->nomem = true;
		return pfail(p->err, p->errlen, p->fname, e->line, "out of memory");
	}
	if (!e->has_id || e->id > UINT32_MAX)
		return pfail(p->err, p->errlen, p->fname, e->line,
			     "event '%s': expected the event's 'id = N;' (below 2^32)", e->name);
	c->id = (uint32_t)e->id;
	if (!e->has_stream_id || e->stream_id != 0)
		return pfail(p->err, p->errlen, p->fname, e->line, "event '%s': expected '%s'",
			     e->name, RTR_CTF_EVENT_STREAM + 1);
	if (e->context || !fs || fs->kind != TR_TK_STRUCT ||
	    fs->align != p->types->align)
		return pfail(p->err, p->errlen, p->fname, e->line,
			     "event '%s': expected '%s' ... '%s' and no context", e->name,
			     RTR_CTF_EVENT_FIELDS + 1, RTR_CTF_EVENT_FIELDS_END + 1);
	c->fields = calloc(fs->nfields ? fs->nfields : 1, sizeof(*c->fields));
	if (!c->fields) {
		p->nomem = true;
		return pfail(p->err, p->errlen, p->fname, e->line, "out of memory");
	}
	for (uint32_t i = 0; i < fs->nfields; i++) {
		if (own_field(p, e, c, &fs->fields[i]))
			return -EPROTO;
	}
	c->fixed = true;
	for (uint32_t i = 0; i < c->nfields; i++) {
		uint32_t sz = rtr_ctf_types[c->fields[i].type].size;

		if (!sz)
			c->fixed = false;
		c->size += sz;
	}
	if (!c->fixed)
		c->size = 0;
	return 0;
}

/* The trace, clock and stream blocks: the reference's layouts, one clock, the values read. */
static int own_blocks(struct profile *p, struct tr_metadata *md)
{
	const struct tr_ctf_parsed *in = p->in, *ref = p->ref;
	const struct tr_ctf_pclock *ck = in->nclocks ? &in->clocks[0] : NULL;
	__int128 base;

	uint32_t tline = in->trace_line ? in->trace_line : 1;

	if (!in->has_uuid || in->order != ref->order || !in->has_major || !in->has_minor)
		return pfail(p->err, p->errlen, p->fname, tline,
			     "the trace block lacks %s", !in->has_uuid ? "its uuid" :
			     in->order != ref->order ? "byte_order = le" :
			     !in->has_major ? "major = 1" : "minor = 8");
	if (!ctype_eq(in->packet_header, ref->packet_header, 0))
		return pfail(p->err, p->errlen, p->fname,
			     in->packet_header_line ? in->packet_header_line : tline,
			     "packet.header: not the one ringtrace writes (format/ctf.h)");
	if (in->nstreams != 1 || !in->streams[0].has_id || in->streams[0].id != 0 ||
	    in->streams[0].event_context ||
	    !ctype_eq(in->streams[0].packet_context, ref->streams[0].packet_context, 0) ||
	    !ctype_eq(in->streams[0].event_header, ref->streams[0].event_header, 0))
		return pfail(p->err, p->errlen, p->fname, in->nstreams ? in->streams[0].line : tline,
			     "the stream block: not the one ringtrace writes (format/ctf.h)");
	if (in->nclocks != 1 || !str_eq(ck->name, RTR_CTF_CLOCK_NAME) || !ck->freq ||
	    ck->offset < 0)
		return pfail(p->err, p->errlen, p->fname, ck ? ck->line : tline,
			     "the clock block: one clock, %s, with its freq and an offset of "
			     "0 or more", RTR_CTF_CLOCK_NAME_LINE + 1);
	md->freq = ck->freq;
	md->offset_s = ck->offset_s;
	md->offset = (uint64_t)ck->offset;
	memcpy(md->uuid, in->uuid, sizeof(md->uuid));
	rtr_ctf_uuid_text(md->uuid_str, md->uuid);
	/* Times a reader can convert to ns (region.h's bounds), as babeltrace2 must. */
	if (md->freq < RTR_CLOCK_FREQ_MIN || md->freq > RTR_CLOCK_FREQ_MAX)
		return pfail(p->err, p->errlen, p->fname, ck->line,
			     "clock frequency %" PRIu64 " Hz: not a clock ringtrace writes "
			     "(1 MHz to 100 GHz)", md->freq);
	base = (__int128)md->offset_s * 1000000000 + (__int128)md->offset * 1000000000 / md->freq;
	if (base <= -RTR_TIME_NS_MAX || base >= RTR_TIME_NS_MAX)
		return pfail(p->err, p->errlen, p->fname, ck->line,
			     "clock offset beyond any time in 64-bit nanoseconds");
	md->base_ns = (int64_t)base;
	md->vpid = in->vpid;
	md->has_vpid = in->has_vpid;
	md->clockq = in->clockq;
	md->chunk_index = in->chunk_index;
	return 0;
}

/*
 * The plans every trace is decoded with (ctf_plan.c), compiled from the
 * same parse, each class then given its typed fields from @own (sorted by
 * id, as the compiler sorts a stream's classes).  @own's fields move.
 */
static int own_plans(struct profile *p, struct tr_metadata *md, struct tr_arena **arena,
		     struct tr_class *own, uint32_t nown)
{
	uint64_t freq = md->freq, offset = md->offset;
	int64_t offset_s = md->offset_s;
	int r;

	r = tr_ctf_metadata_parsed(md, p->in, arena, p->fname, p->err, p->errlen);
	if (r) {
		p->nomem = r == -ENOMEM;
		return r;
	}
	/* the clock as the profile read it (the compiler normalises the offset) */
	md->freq = freq;
	md->offset = offset;
	md->offset_s = offset_s;
	if (md->nclasses != nown)
		return pfail(p->err, p->errlen, p->fname, 0,
			     "the plans have %u classes, the profile %u", md->nclasses, nown);
	for (uint32_t i = 0; i < nown; i++) {
		struct tr_class *c = &md->classes[i];

		if (c->id != own[i].id)
			return pfail(p->err, p->errlen, p->fname, own[i].line,
				     "event id %u: not where the plans have it", own[i].id);
		c->fields = own[i].fields;
		c->nfields = own[i].nfields;
		c->fixed = own[i].fixed;
		c->size = own[i].size;
		own[i].fields = NULL;
		own[i].nfields = 0;
	}
	md->own = true;
	return 0;
}

/* ringtrace's own metadata, parsed into @in, held to the profile and read into @md. */
static int own_metadata(struct tr_metadata *md, const struct tr_ctf_parsed *in,
			struct tr_arena **arena, const char *fname, char *err, size_t errlen)
{
	struct tr_arena *rarena = NULL;
	struct tr_ctf_parsed ref;
	struct profile p = { .in = in, .ref = &ref, .fname = fname, .err = err, .errlen = errlen };
	struct tr_class *own = NULL;
	uint32_t nown = 0;
	size_t rlen = 0;
	char *rtext = reference_text(&rlen), rerr[256];
	int r = -EPROTO;

	if (!rtext) {
		p.nomem = true;
		pfail(err, errlen, fname, 0, "out of memory");
		goto out;
	}
	r = tr_ctf_parse_text(&ref, rtext, rlen, "format/ctf.h", &rarena, rerr, sizeof(rerr));
	if (r || ref.nevents != 1 || ref.nstreams != 1 || !ref.events[0].fields ||
	    ref.events[0].fields->nfields != RTR_CTF_NTYPES) {
		/* a broken invariant: the tables do not parse */
		pfail(err, errlen, fname, 0, "the format's own tables do not parse: %s",
		      r ? rerr : "wrong shape");
		p.nomem = r == -ENOMEM;
		r = -EPROTO;
		goto out;
	}
	p.types = ref.events[0].fields;
	r = -EPROTO;
	/* What the writer does not write is refused here, not warned about. */
	if (in->nwarnings) {
		rtr_errf(err, errlen, 0, "%s (not in the metadata ringtrace writes)", in->warning);
		goto out;
	}
	if (own_blocks(&p, md))
		goto out;
	own = calloc(in->nevents ? in->nevents : 1, sizeof(*own));
	if (!own) {
		p.nomem = true;
		pfail(err, errlen, fname, 0, "out of memory");
		goto out;
	}
	for (uint32_t i = 0; i < in->nevents; i++) {
		if (own_event(&p, &in->events[i], &own[nown++]))
			goto out;
	}
	if (nown)
		qsort(own, nown, sizeof(*own), cmp_class);
	for (uint32_t i = 1; i < nown; i++) {
		if (own[i].id == own[i - 1].id) {
			pfail(err, errlen, fname,
			      own[i].line > own[i - 1].line ? own[i].line : own[i - 1].line,
			      "event id %u is used twice", own[i].id);
			goto out;
		}
	}
	if (own_plans(&p, md, arena, own, nown))
		goto out;
	for (uint32_t i = 0; i < md->nclasses; i++) {
		if (md->classes[i].id < 64)
			md->by_id[md->classes[i].id] = (int32_t)i;
		if (tr_class_is(&md->classes[i], rtr_event_builtin(RTR_EV_THREAD)))
			md->thread = &md->classes[i];
	}
	r = 0;
out:
	for (uint32_t i = 0; i < nown; i++)
		free_class(&own[i]);
	free(own);
	free(rtext);
	tr_arena_free(rarena);
	return r ? (p.nomem ? -ENOMEM : -EPROTO) : 0;
}

static int parse_metadata(struct tr_metadata *md, const char *text, size_t len,
			  const char *fname, bool packets, char *err, size_t errlen)
{
	struct tr_arena *arena = NULL;
	struct tr_ctf_parsed in;
	const char *nl, *nul;
	size_t n;
	bool signed_;
	int r;

	memset(md, 0, sizeof(*md));
	for (int i = 0; i < 64; i++)
		md->by_id[i] = -1;
	nul = memchr(text, 0, len);
	if (nul) {
		uint32_t line = 1;

		for (const char *s = text; s < nul; s++)
			line += *s == '\n';
		return pfail(err, errlen, fname, line, "NUL byte in the metadata text");
	}
	/*
	 * Text metadata starts with its signature, "/" "* CTF 1.8", a comment
	 * that may close on a later line (CTF 1.8, 7.1); packets carry the
	 * version in their headers, and their text need not start so.
	 */
	nl = memchr(text, '\n', len);
	n = nl ? (size_t)(nl - text) : len;
	if (n && text[n - 1] == '\r')
		n--;
	signed_ = n >= 10 && !memcmp(text, "/* CTF 1.8", 10) &&
		  (n == 10 || text[10] == ' ' || text[10] == '\t' || text[10] == '*' ||
		   text[10] == '\r');
	if (!signed_ && !packets)
		return pfail(err, errlen, fname, 1,
			     "not ringtrace's CTF 1.8 text metadata, nor any CTF 1.8 metadata "
			     "(text must start with \"/* CTF 1.8\", packets with the magic "
			     "0x%08x)", RTR_CTF_METADATA_MAGIC);
	r = tr_ctf_parse_text(&in, text, len, fname, &arena, err, errlen);
	if (r) {
		tr_arena_free(arena);
		return r;
	}
	/* Anything but ringtrace's own TSDL: general CTF 1.8 (reader/ctf_plan.h). */
	if (!str_eq(in.tracer, RTR_CTF_TRACER_NAME)) {
		r = tr_ctf_metadata_parsed(md, &in, &arena, fname, err, errlen);
		if (r)
			tr_metadata_free(md);
		return r;
	}
	/* ringtrace's own: its signature is one line, as events/metadata.c writes it */
	if (!signed_ || n != strlen(RTR_CTF_SIGNATURE) || memcmp(text, RTR_CTF_SIGNATURE, n)) {
		r = pfail(err, errlen, fname, 1, "ringtrace's metadata must start with its "
			  "one-line signature \"%s\"", RTR_CTF_SIGNATURE);
	} else {
		r = own_metadata(md, &in, &arena, fname, err, errlen);
	}
	tr_arena_free(arena);
	if (r)
		tr_metadata_free(md);
	return r;
}

int tr_parse_metadata(struct tr_metadata *md, const char *text, size_t len, const char *fname,
		      char *err, size_t errlen)
{
	return parse_metadata(md, text, len, fname, false, err, errlen);
}

int tr_parse_metadata_packets(struct tr_metadata *md, const char *text, size_t len,
			      const char *fname, char *err, size_t errlen)
{
	return parse_metadata(md, text, len, fname, true, err, errlen);
}

bool tr_class_is(const struct tr_class *c, const struct rtr_ctf_event *b)
{
	if (strcmp(c->name, b->name) || c->nfields != b->nfields)
		return false;
	for (uint32_t j = 0; j < c->nfields; j++) {
		if (c->fields[j].type != b->fields[j].type)
			return false;
	}
	return true;
}

const struct tr_class *tr_class_find(const struct tr_metadata *md, uint32_t id)
{
	uint32_t lo = 0, hi = md->nclasses;

	if (id < 64)
		return md->by_id[id] < 0 ? NULL : &md->classes[md->by_id[id]];
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (md->classes[mid].id == id)
			return &md->classes[mid];
		if (md->classes[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}


void tr_clock_quality_text(const struct tr_clock_quality *q, char *buf, size_t len)
{
	char host[160];

	if (!q->known) {
		snprintf(buf, len, "how well its offset is known is not said (a recording "
			 "before ringtrace 0.1's region ABI 1.3, or another tracer's)");
		return;
	}
	if (q->sync == RTR_CLOCK_SYNC_YES)
		snprintf(host, sizeof(host), "synchronized, estimated error %" PRIu32 " us, at "
			 "most %" PRIu32 " us", q->esterror_us, q->maxerror_us);
	else if (q->sync == RTR_CLOCK_SYNC_NO)
		snprintf(host, sizeof(host), "not synchronized: its error is unbounded");
	else
		snprintf(host, sizeof(host), "its synchronization unknown");
	snprintf(buf, len, "realtime within +-%" PRIu32 " ns of the host's at the start (and %"
		 PRIu32 " ns a second since); the host's realtime %s", q->window_ns, q->freq_ppb,
		 host);
}
