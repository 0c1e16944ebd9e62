// SPDX-License-Identifier: MIT
/*
 * reader/ctf_plan.c - general CTF metadata compiled (ctf.h): the parsed
 * types resolved (byte orders, clocks, the paths of sequence lengths and
 * variant tags), each layout flattened into a plan, the roles of the
 * headers' fields found, the event classes indexed per stream; and the
 * walk of a plan over a packet's bytes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <endian.h>
#include "format/error.h"
#include "reader/ctf_plan.h"
#include "reader/ctf_internal.h"
#include "reader/text.h"
#include "reader/tsdl.h"

#define MAX_OPS		(1u << 20)	/* ops of one plan */
#define MAX_DENSE_IDS	65536u		/* event ids looked up by index below this */

/* ---- compiling --------------------------------------------------------------- */

enum root {
	R_PACKET_HEADER,
	R_PACKET_CONTEXT,
	R_EVENT_HEADER,
	R_STREAM_EVENT_CONTEXT,
	R_EVENT_CONTEXT,
	R_EVENT_FIELDS,
	NROOTS
};

static const char *const root_names[NROOTS] = {
	"trace.packet.header", "stream.packet.context", "stream.event.header",
	"stream.event.context", "event.context", "event.fields",
};

/* A field compiled, by its path, for the references that follow it. */
struct sym {
	char *path;		/* "stream.event.header.v.extended.id" */
	struct tr_plan *plan;
	uint32_t op;
};

struct compiler {
	const char *fname;
	char *err;
	size_t errlen;
	uint32_t line;		/* of the block being compiled */
	struct tr_arena **arena;
	const struct tr_ctf_parsed *in;
	struct tr_ctf *ctf;
	bool trace_be;
	struct sym *syms;
	uint32_t nsyms, csyms;
	/* the plan being built */
	struct tr_plan *plan;
	uint32_t cops;
	enum root root;
	int depth;
	bool nomem;
};

__attribute__((format(printf, 2, 3)))
static int cfail(struct compiler *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rtr_verrf_at(c->err, c->errlen, EPROTO, c->fname, RTR_AT_LINE, c->line, fmt, ap);
	va_end(ap);
	return -EPROTO;
}

static int cnomem(struct compiler *c)
{
	c->nomem = true;
	return cfail(c, "out of memory");
}

static int add_sym(struct compiler *c, const char *path, uint32_t op)
{
	if (c->nsyms == c->csyms) {
		struct sym *n = realloc(c->syms, (c->csyms = c->csyms ? 2 * c->csyms : 64) *
					sizeof(*n));

		if (!n)
			return cnomem(c);
		c->syms = n;
	}
	c->syms[c->nsyms].path = strdup(path);
	if (!c->syms[c->nsyms].path)
		return cnomem(c);
	c->syms[c->nsyms].plan = c->plan;
	c->syms[c->nsyms].op = op;
	c->nsyms++;
	return 0;
}

static void drop_syms(struct compiler *c, uint32_t keep)
{
	while (c->nsyms > keep)
		free(c->syms[--c->nsyms].path);
}

/* The latest symbol with @path, or NULL. */
static struct sym *find_sym(struct compiler *c, const char *path)
{
	for (uint32_t i = c->nsyms; i-- > 0;) {
		if (!strcmp(c->syms[i].path, path))
			return &c->syms[i];
	}
	return NULL;
}

/*
 * The field a sequence's length or a variant's tag names, from the field at
 * @where ("event.fields.a.b", its enclosing structure's path): an absolute
 * path, or a relative one looked up from the innermost structure outwards,
 * then in the scopes decoded before this one.
 */
static struct sym *resolve(struct compiler *c, const char *where, const char *ref)
{
	char path[1024];
	struct sym *s;

	for (int r = 0; r < NROOTS; r++) {
		size_t n = strlen(root_names[r]);

		if (!strncmp(ref, root_names[r], n) && ref[n] == '.')
			return find_sym(c, ref);
	}
	snprintf(path, sizeof(path), "%s", where);
	for (;;) {
		char full[2048];
		char *dot;

		snprintf(full, sizeof(full), "%s.%s", path, ref);
		if ((s = find_sym(c, full)))
			return s;
		dot = strrchr(path, '.');
		if (!dot)
			break;
		*dot = 0;
	}
	for (int r = (int)c->root; r >= 0; r--) {
		char full[2048];

		snprintf(full, sizeof(full), "%s.%s", root_names[r], ref);
		if ((s = find_sym(c, full)))
			return s;
	}
	return NULL;
}

static struct tr_op *emit(struct compiler *c, uint8_t code)
{
	struct tr_plan *p = c->plan;
	struct tr_op *op;

	if (p->nops == c->cops) {
		struct tr_op *n;

		if (c->cops >= MAX_OPS) {
			cfail(c, "a layout of more than %u fields", MAX_OPS);
			return NULL;
		}
		c->cops = c->cops ? 2 * c->cops : 16;
		n = realloc(p->ops, c->cops * sizeof(*n));
		if (!n) {
			cnomem(c);
			return NULL;
		}
		p->ops = n;
	}
	op = &p->ops[p->nops++];
	memset(op, 0, sizeof(*op));
	op->code = code;
	op->reg = -1;
	op->align = 1;
	return op;
}

static bool name_is(const char *name, const char *want)
{
	return !strcmp(name, want) || (name[0] == '_' && !strcmp(name + 1, want));
}

/* The role of a header's field, by its name, its depth and its type. */
static uint8_t role_of(const struct compiler *c, const char *name, const struct tr_ctype *t,
		       int depth)
{
	static const struct {
		enum root root;
		const char *name;
		enum tr_role role;
	} roles[] = {
		{ R_PACKET_HEADER, "magic", TR_ROLE_MAGIC },
		{ R_PACKET_HEADER, "stream_id", TR_ROLE_STREAM_ID },
		{ R_PACKET_HEADER, "stream_instance_id", TR_ROLE_STREAM_INSTANCE },
		{ R_PACKET_CONTEXT, "timestamp_begin", TR_ROLE_TS_BEGIN },
		{ R_PACKET_CONTEXT, "timestamp_end", TR_ROLE_TS_END },
		{ R_PACKET_CONTEXT, "content_size", TR_ROLE_CONTENT_SIZE },
		{ R_PACKET_CONTEXT, "packet_size", TR_ROLE_PACKET_SIZE },
		{ R_PACKET_CONTEXT, "packet_seq_num", TR_ROLE_SEQ_NUM },
		{ R_PACKET_CONTEXT, "events_discarded", TR_ROLE_DISCARDED },
		{ R_PACKET_CONTEXT, "cpu_id", TR_ROLE_CPU },
	};

	if ((c->root == R_STREAM_EVENT_CONTEXT || c->root == R_EVENT_CONTEXT) && depth == 1) {
		if ((t->kind == TR_TK_STRING || (t->kind == TR_TK_ARRAY && t->text)) &&
		    name_is(name, "procname"))
			return TR_ROLE_PROCNAME;
		if (t->kind == TR_TK_INT && (name_is(name, "vtid") || name_is(name, "tid")))
			return TR_ROLE_TID;
		if (t->kind == TR_TK_INT && (name_is(name, "vpid") || name_is(name, "pid")))
			return TR_ROLE_PID;
		return TR_ROLE_NONE;
	}
	if (t->kind != TR_TK_INT && t->kind != TR_TK_ENUM)
		return TR_ROLE_NONE;
	if (c->root == R_EVENT_HEADER) {
		if (name_is(name, "id"))
			return TR_ROLE_EVENT_ID;
		if (name_is(name, "timestamp") || t->clock)
			return TR_ROLE_TS;
		return TR_ROLE_NONE;
	}
	if (depth != 1)
		return TR_ROLE_NONE;
	for (size_t i = 0; i < sizeof(roles) / sizeof(roles[0]); i++) {
		if (roles[i].root == c->root && name_is(name, roles[i].name))
			return (uint8_t)roles[i].role;
	}
	return TR_ROLE_NONE;
}

static bool resolve_be(const struct compiler *c, uint8_t order)
{
	return order == TR_ORDER_NATIVE ? c->trace_be : order == TR_ORDER_BE;
}

static int set_name(struct compiler *c, struct tr_op *op, const char *name)
{
	char *lead;

	/* CTF's leading underscore is not part of the name users see */
	if (name[0] == '_' && name[1])
		name++;
	op->name = name;
	op->namelen = (uint32_t)strlen(name);
	/* ", name = ", room to be copied 32 bytes at a time (reader/text.h) */
	lead = tr_arena_alloc(c->arena, op->namelen + 6 + 32);
	if (!lead)
		return cnomem(c);
	if (op->namelen)
		op->leadn = (uint32_t)sprintf(lead, ", %s = ", name);
	else
		op->leadn = (uint32_t)sprintf(lead, ", ");
	op->lead = lead;
	return 0;
}

static int compile_type(struct compiler *c, const struct tr_ctype *t, const char *name,
			const char *parent, int depth);

/* The members of a structure, under @path. */
static int compile_members(struct compiler *c, const struct tr_ctype *t, const char *path,
			   int depth)
{
	for (uint32_t i = 0; i < t->nfields; i++) {
		if (compile_type(c, t->fields[i].type, t->fields[i].name, path, depth + 1))
			return -EPROTO;
	}
	return 0;
}

static int cmp_vopt(const void *a, const void *b)
{
	const struct tr_vopt *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int compile_variant(struct compiler *c, const struct tr_ctype *t, const char *name,
			   const char *parent, const char *path, int depth)
{
	struct sym *tag;
	const struct tr_ctype *tt;
	struct tr_op *op;
	uint32_t at, first, *opt_op;
	struct tr_vopt *opts;
	uint32_t nopts = 0;

	if (!t->tag)
		return cfail(c, "the variant '%s' has no tag", name);
	tag = resolve(c, parent, t->tag);
	if (!tag)
		return cfail(c, "the variant '%s': its tag '%s' is no field before it", name, t->tag);
	tt = tag->plan->ops[tag->op].type;
	if (!tt || tt->kind != TR_TK_ENUM)
		return cfail(c, "the variant '%s': its tag '%s' is not an enumeration", name,
			     t->tag);
	if (tag->plan->ops[tag->op].reg < 0)
		tag->plan->ops[tag->op].reg = (int32_t)c->ctf->nregs++;
	at = c->plan->nops;
	op = emit(c, TR_OP_VARIANT);
	if (!op)
		return -EPROTO;
	op->arg = (uint64_t)tag->plan->ops[tag->op].reg;
	op->type = t;
	if (set_name(c, op, name))
		return -EPROTO;
	opt_op = calloc(t->nfields, sizeof(*opt_op));
	if (!opt_op)
		return cnomem(c);
	first = c->plan->nops;
	for (uint32_t i = 0; i < t->nfields; i++) {
		opt_op[i] = c->plan->nops;
		if (compile_type(c, t->fields[i].type, t->fields[i].name, path, depth + 1)) {
			free(opt_op);
			return -EPROTO;
		}
	}
	(void)first;
	opts = tr_arena_alloc(c->arena, (tt->nmaps + 1) * sizeof(*opts));
	if (!opts) {
		free(opt_op);
		return cnomem(c);
	}
	for (uint32_t m = 0; m < tt->nmaps; m++) {
		const struct tr_enum_map *map = &tt->maps[m];

		for (uint32_t i = 0; i < t->nfields; i++) {
			const char *on = t->fields[i].name;

			if (!strcmp(on, map->label) || (on[0] == '_' && !strcmp(on + 1, map->label)) ||
			    (map->label[0] == '_' && !strcmp(on, map->label + 1))) {
				opts[nopts++] = (struct tr_vopt){ map->lo, map->hi, opt_op[i] };
				break;
			}
		}
	}
	free(opt_op);
	qsort(opts, nopts, sizeof(*opts), cmp_vopt);
	op = &c->plan->ops[at];
	op->opts = opts;
	op->nopts = nopts;
	op->next = c->plan->nops;
	return 0;
}

static int compile_type(struct compiler *c, const struct tr_ctype *t, const char *name,
			const char *parent, int depth)
{
	char path[2048];
	struct tr_op *op;
	uint32_t at = c->plan->nops;

	if (++c->depth > 64) {
		c->depth--;
		return cfail(c, "types nested more than 64 deep");
	}
	snprintf(path, sizeof(path), "%s.%s", parent, name);
	switch (t->kind) {
	case TR_TK_INT:
	case TR_TK_ENUM:
		if (!(op = emit(c, TR_OP_INT)))
			goto fail;
		op->size = (uint16_t)t->size;
		op->align = t->align;
		op->sign = t->sign;
		op->be = resolve_be(c, t->order);
		op->base = t->base;
		op->text = t->text;
		op->type = t;
		op->role = role_of(c, name, t, depth);
		if (set_name(c, op, name))
		goto fail;
		if (add_sym(c, path, at))
			goto fail;
		break;
	case TR_TK_FLOAT:
		if (!(op = emit(c, TR_OP_FLOAT)))
			goto fail;
		op->size = (uint16_t)t->size;
		op->align = t->align;
		op->be = resolve_be(c, t->order);
		op->type = t;
		if (set_name(c, op, name))
		goto fail;
		break;
	case TR_TK_STRING:
		if (!(op = emit(c, TR_OP_STRING)))
			goto fail;
		op->align = 8;
		op->type = t;
		op->role = role_of(c, name, t, depth);
		if (set_name(c, op, name))
		goto fail;
		break;
	case TR_TK_STRUCT:
		if (!(op = emit(c, TR_OP_STRUCT)))
			goto fail;
		op->align = t->align;
		op->type = t;
		if (set_name(c, op, name))
		goto fail;
		if (compile_members(c, t, path, depth))
			goto fail;
		c->plan->ops[at].next = c->plan->nops;
		break;
	case TR_TK_VARIANT:
		if (compile_variant(c, t, name, parent, path, depth))
			goto fail;
		break;
	case TR_TK_ARRAY:
	case TR_TK_SEQ:
		if (!(op = emit(c, t->kind == TR_TK_ARRAY ? TR_OP_ARRAY : TR_OP_SEQ)))
			goto fail;
		op->align = t->align;
		op->type = t;
		op->text = t->text;
		if (set_name(c, op, name))
		goto fail;
		if (t->kind == TR_TK_ARRAY) {
			op->arg = t->length;
			op->role = role_of(c, name, t, depth);
			/* the packet header's uuid: 16 bytes */
			if (c->root == R_PACKET_HEADER && depth == 1 && name_is(name, "uuid") &&
			    t->length == 16 && t->elem->kind == TR_TK_INT && t->elem->size == 8)
				op->role = TR_ROLE_UUID;
		} else {
			struct sym *len = resolve(c, parent, t->length_ref);
			const struct tr_op *lo;

			if (!len)
				return cfail(c, "the sequence '%s': its length '%s' is no field "
					     "before it", name, t->length_ref);
			lo = &len->plan->ops[len->op];
			if (lo->code != TR_OP_INT || lo->sign)
				return cfail(c, "the sequence '%s': its length '%s' is not an "
					     "unsigned integer", name, t->length_ref);
			if (len->plan->ops[len->op].reg < 0)
				len->plan->ops[len->op].reg = (int32_t)c->ctf->nregs++;
			c->plan->ops[at].arg = (uint64_t)len->plan->ops[len->op].reg;
		}
		/* the elements: nameless, their members under the array's path */
		{
			uint32_t keep = c->nsyms;

			if (compile_type(c, t->elem, "", path, depth + 1))
				goto fail;
			/* an element's fields are not references for what follows the array */
			drop_syms(c, keep);
		}
		c->plan->ops[at].next = c->plan->nops;
		break;
	}
	c->depth--;
	return 0;
fail:
	c->depth--;
	return -EPROTO;
}

/* A root scope's struct into @p. */
static int compile_root(struct compiler *c, struct tr_plan *p, enum root r,
			const struct tr_ctype *t)
{
	memset(p, 0, sizeof(*p));
	p->align = 1;
	if (!t)
		return 0;
	if (t->kind != TR_TK_STRUCT)
		return cfail(c, "%s is not a structure", root_names[r]);
	c->plan = p;
	c->cops = 0;
	c->root = r;
	p->align = t->align;
	/* the root's members, at depth 1, under its name */
	return compile_members(c, t, root_names[r], 0);
}

/* Whether @p can be skipped by its size (or its skip steps), and the roles it sets. */
static int finish_plan(struct compiler *c, struct tr_plan *p)
{
	uint64_t bits = 0;
	bool skippable = p->align <= 8;
	uint32_t nskip = 0;

	p->fixed = true;
	p->roles = 0;
	for (uint32_t i = 0; i < p->nops; i++) {
		struct tr_op *op = &p->ops[i];

		op->plain = op->code == TR_OP_INT && op->type->kind == TR_TK_INT && op->base == 10 &&
			    !op->be && op->align <= 8 && op->reg < 0 &&
			    (op->size == 8 || op->size == 16 || op->size == 32 || op->size == 64);
		if (op->plain)
			op->put = (uint8_t)((op->sign ? TR_PUT_S8 : TR_PUT_U8) +
					    __builtin_ctz(op->size / 8));
		else
			op->put = op->code == TR_OP_STRING ? TR_PUT_STRING : TR_PUT_NONE;

		p->roles |= 1u << op->role;
		if (op->reg >= 0 || op->role != TR_ROLE_NONE)
			p->fixed = skippable = false;
		if (op->code == TR_OP_INT || op->code == TR_OP_FLOAT) {
			if (op->size % 8 || (op->align != 1 && op->align != 8))
				p->fixed = skippable = false;
			bits += op->size;
		} else if (op->code == TR_OP_STRING) {
			p->fixed = false;
			nskip++;
		} else {
			p->fixed = skippable = false;
		}
	}
	if (p->align > 8)
		p->fixed = false;
	if (p->fixed && bits / 8 <= UINT32_MAX)
		p->bytes = (uint32_t)(bits / 8);
	else
		p->fixed = false;
	if (!skippable || !p->nops || bits / 8 > UINT32_MAX)
		return 0;
	p->skip = calloc(nskip + 1, sizeof(*p->skip));
	if (!p->skip)
		return cnomem(c);
	for (uint32_t i = 0; i < p->nops; i++) {
		if (p->ops[i].code == TR_OP_STRING)
			p->skip[p->nskip++].string = true;
		else
			p->skip[p->nskip].bytes += p->ops[i].size / 8;
		/* ", name = " and a number (a float's at most 48 bytes), an enumeration's label */
		p->room += p->ops[i].leadn + 96;
		if (p->ops[i].type->kind == TR_TK_ENUM) {
			uint32_t longest = 0;

			for (uint32_t m = 0; m < p->ops[i].type->nmaps; m++)
				if (p->ops[i].type->maps[m].len > longest)
					longest = p->ops[i].type->maps[m].len;
			p->room += longest;
		}
	}
	if (p->skip[p->nskip].bytes)
		p->nskip++;
	return 0;
}

/*
 * LTTng's event headers (lttng-ust and lttng-modules: struct
 * event_header_compact and event_header_large), recognised in @sc's plan:
 * an enumeration id whose values below its largest select a "compact"
 * struct of one timestamp, and its largest an "extended" one of a 32-bit id
 * and a 64-bit timestamp.
 */
static void fast_header(struct tr_stream_class *sc)
{
	const struct tr_plan *p = &sc->event_header;
	const struct tr_op *o = p->ops, *v, *cs, *es;
	uint64_t ext;

	memset(&sc->fast, 0, sizeof(sc->fast));
	if (p->nops != 7 || p->align != 8 || o[0].code != TR_OP_INT ||
	    o[0].role != TR_ROLE_EVENT_ID || o[0].size > 16 || o[0].sign || o[0].align > 8)
		return;
	v = &o[1];
	ext = (1ull << o[0].size) - 1;
	if (v->code != TR_OP_VARIANT || v->arg != (uint64_t)o[0].reg || v->nopts != 2 ||
	    v->opts[0].lo != 0 || (uint64_t)v->opts[0].hi != ext - 1 ||
	    (uint64_t)v->opts[1].lo != ext || (uint64_t)v->opts[1].hi != ext)
		return;
	cs = &o[v->opts[0].op];
	es = &o[v->opts[1].op];
	if (cs->code != TR_OP_STRUCT || cs->next != v->opts[0].op + 2 ||
	    cs[1].code != TR_OP_INT || cs[1].role != TR_ROLE_TS || cs[1].align != cs->align ||
	    cs[1].be != o[0].be || cs[1].sign)
		return;
	if (es->code != TR_OP_STRUCT || es->align != 8 || es->next != v->opts[1].op + 3 ||
	    es[1].code != TR_OP_INT || es[1].role != TR_ROLE_EVENT_ID || es[1].size != 32 ||
	    es[1].align != 8 || es[2].code != TR_OP_INT || es[2].role != TR_ROLE_TS ||
	    es[2].size != 64 || es[2].align != 8 || es[1].be != o[0].be || es[2].be != o[0].be ||
	    es[1].sign || es[2].sign)
		return;
	sc->fast = (struct tr_fast_header){
		.on = true, .be = o[0].be, .id_bits = (uint8_t)o[0].size,
		.ts_bits = (uint8_t)cs[1].size, .ts_align = cs->align, .ext = ext,
	};
}

static int cmp_class(const void *a, const void *b)
{
	const struct tr_class *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static int cmp_class_ptr(const void *a, const void *b)
{
	const struct tr_class *x = *(const struct tr_class *const *)a;
	const struct tr_class *y = *(const struct tr_class *const *)b;

	return x->id < y->id ? -1 : x->id > y->id;
}

const struct tr_stream_class *tr_ctf_stream(const struct tr_ctf *ctf, uint64_t id)
{
	for (uint32_t i = 0; i < ctf->nstreams; i++) {
		if (ctf->streams[i].id == id)
			return &ctf->streams[i];
	}
	return NULL;
}

const struct tr_class *tr_ctf_class(const struct tr_stream_class *sc, uint64_t id)
{
	uint32_t lo = 0, hi = sc->nsorted;

	if (id < sc->nids)
		return sc->classes[id];
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (sc->sorted[mid]->id == id)
			return sc->sorted[mid];
		if (sc->sorted[mid]->id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Normalise a clock's offset to 0 <= offset < freq cycles and whole seconds. */
static void clock_offset(struct tr_clock_class *k, int64_t offset_s, int64_t offset)
{
	int64_t s = offset / (int64_t)(k->freq > INT64_MAX ? INT64_MAX : k->freq);
	int64_t r = offset - s * (int64_t)k->freq;

	if (k->freq > INT64_MAX) {
		s = offset < 0 ? -1 : 0;
		r = offset;
	}
	if (r < 0) {
		r += (int64_t)k->freq;
		s--;
	}
	k->offset_s = offset_s + s;
	k->offset = (uint64_t)r;
}

/* The index of the clock @name, or -1. */
static int32_t clock_index(const struct tr_ctf *ctf, const char *name)
{
	for (uint32_t i = 0; i < ctf->nclocks; i++) {
		if (ctf->clocks[i].name && !strcmp(ctf->clocks[i].name, name))
			return (int32_t)i;
	}
	return -1;
}

/* The clock a plan's timestamps map to: -2 none, -1 unknown name, else the index. */
static int32_t plan_clock(const struct tr_ctf *ctf, const struct tr_plan *p, enum tr_role role)
{
	for (uint32_t i = 0; i < p->nops; i++) {
		if (p->ops[i].role == role && p->ops[i].type && p->ops[i].type->clock)
			return clock_index(ctf, p->ops[i].type->clock);
	}
	return -2;
}

/* tr_ctf_compile()'s work; its callers free the symbols, whatever it returns. */
static int compile(struct compiler *c, struct tr_metadata *md, const struct tr_ctf_parsed *in)
{
	struct tr_ctf *ctf;
	uint32_t keep, ncls = 0;
	int32_t used_clock = -2;
	bool several = false;
	/*
	 * Metadata without a stream block has one stream class, id 0, with
	 * no packet context, event header nor event context (CTF 1.8 leaves
	 * them all optional; babeltrace2 reads such traces).
	 */
	static const struct tr_ctf_pstream implicit = { .line = 1 };
	const struct tr_ctf_pstream *streams = in->nstreams ? in->streams : &implicit;
	uint32_t nstreams = in->nstreams ? in->nstreams : 1;

	ctf = tr_arena_alloc(c->arena, sizeof(*ctf));
	if (!ctf)
		return cnomem(c);
	md->ctf = ctf;
	c->ctf = ctf;
	if (!in->have_trace)
		return cfail(c, "metadata without a trace block");
	ctf->be = in->order == TR_ORDER_BE;
	c->trace_be = ctf->be;
	ctf->has_uuid = in->has_uuid;
	ctf->domain = in->domain;
	ctf->tracer = in->tracer;
	ctf->procname = in->procname;
	memcpy(md->uuid, in->uuid, 16);
	if (in->has_uuid)
		rtr_ctf_uuid_text(md->uuid_str, md->uuid);
	/* the clocks */
	ctf->clocks = tr_arena_alloc(c->arena, (in->nclocks + 1) * sizeof(*ctf->clocks));
	if (!ctf->clocks)
		return cnomem(c);
	for (uint32_t i = 0; i < in->nclocks; i++) {
		struct tr_clock_class *k = &ctf->clocks[i];

		k->name = in->clocks[i].name;
		k->freq = in->clocks[i].freq ? in->clocks[i].freq : 1000000000u;
		clock_offset(k, in->clocks[i].offset_s, in->clocks[i].offset);
		if (!k->name) {
			c->line = in->clocks[i].line;
			return cfail(c, "a clock without its name");
		}
	}
	ctf->nclocks = in->nclocks;
	/* the packet header */
	c->line = 1;
	if (compile_root(c, &ctf->packet_header, R_PACKET_HEADER, in->packet_header))
		goto fail;
	/* the streams: one by default when there is no stream block */
	ctf->nstreams = nstreams;
	ctf->streams = tr_arena_alloc(c->arena, (nstreams + 1) * sizeof(*ctf->streams));
	if (!ctf->streams)
		return cnomem(c);
	for (uint32_t s = 0; s < nstreams; s++) {
		struct tr_stream_class *sc = &ctf->streams[s];
		const struct tr_ctf_pstream *ps = &streams[s];

		c->line = ps->line;
		if (!ps->has_id && nstreams > 1)
			return cfail(c, "a stream block without its id, among several");
		sc->id = ps->id;
		for (uint32_t t = 0; t < s; t++)
			if (ctf->streams[t].id == sc->id)
				return cfail(c, "stream id %" PRIu64 " is used twice", sc->id);
	}
	md->classes = calloc(in->nevents + 1, sizeof(*md->classes));
	if (!md->classes)
		return cnomem(c);
	for (uint32_t s = 0; s < nstreams; s++) {
		struct tr_stream_class *sc = &ctf->streams[s];
		const struct tr_ctf_pstream *ps = &streams[s];
		uint64_t maxid = 0;
		uint32_t n = 0;

		c->line = ps->line;
		keep = c->nsyms;
		if (compile_root(c, &sc->packet_context, R_PACKET_CONTEXT, ps->packet_context) ||
		    compile_root(c, &sc->event_header, R_EVENT_HEADER, ps->event_header) ||
		    compile_root(c, &sc->event_context, R_STREAM_EVENT_CONTEXT,
				 ps->event_context))
			goto fail;
		sc->clock = plan_clock(ctf, &sc->event_header, TR_ROLE_TS);
		if (sc->clock == -2)
			sc->clock = plan_clock(ctf, &sc->packet_context, TR_ROLE_TS_BEGIN);
		if (sc->clock == -1)
			return cfail(c, "a timestamp maps to a clock no clock block declares");
		if (sc->clock >= 0) {
			if (used_clock >= 0 && used_clock != sc->clock)
				several = true;
			used_clock = sc->clock;
		}
		/* the stream's events */
		for (uint32_t e = 0; e < in->nevents; e++) {
			const struct tr_ctf_pevent *pe = &in->events[e];
			struct tr_class *cl;
			uint32_t ekeep;

			if (pe->has_stream_id ? pe->stream_id != sc->id :
			    (nstreams > 1 && s != 0))
				continue;
			c->line = pe->line;
			if (!pe->name)
				return cfail(c, "an event block without its name");
			cl = &md->classes[ncls++];
			/* counted at once: a failure after this frees it (tr_metadata_free()) */
			md->nclasses = ncls;
			cl->name = strdup(pe->name);
			if (!cl->name)
				return cnomem(c);
			cl->line = pe->line;
			cl->id = (uint32_t)(pe->has_id ? pe->id : 0);
			if (pe->has_id && pe->id > UINT32_MAX)
				return cfail(c, "event id %" PRIu64 " is larger than 32 bits", pe->id);
			cl->stream = s;
			cl->loglevel = (int32_t)pe->loglevel;
			cl->context = tr_arena_alloc(c->arena, sizeof(*cl->context));
			cl->payload = tr_arena_alloc(c->arena, sizeof(*cl->payload));
			if (!cl->context || !cl->payload)
				return cnomem(c);
			ekeep = c->nsyms;
			if (compile_root(c, (struct tr_plan *)cl->context, R_EVENT_CONTEXT,
					 pe->context) ||
			    compile_root(c, (struct tr_plan *)cl->payload, R_EVENT_FIELDS,
					 pe->fields))
				goto fail;
			drop_syms(c, ekeep);
			if (cl->id > maxid)
				maxid = cl->id;
			n++;
		}
		drop_syms(c, keep);
		/* the stream's classes by id (tr_metadata.classes), then indexed */
		qsort(&md->classes[ncls - n], n, sizeof(*md->classes), cmp_class);
		/* index them: dense below MAX_DENSE_IDS, the rest sorted */
		sc->nids = (uint32_t)(n ? (maxid < MAX_DENSE_IDS ? maxid + 1 : MAX_DENSE_IDS) : 0);
		sc->classes = tr_arena_alloc(c->arena, (sc->nids + 1) * sizeof(*sc->classes));
		sc->sorted = tr_arena_alloc(c->arena, (n + 1) * sizeof(*sc->sorted));
		if (!sc->classes || !sc->sorted)
			return cnomem(c);
		for (uint32_t i = ncls - n; i < ncls; i++)
			sc->sorted[sc->nsorted++] = &md->classes[i];
		qsort(sc->sorted, sc->nsorted, sizeof(*sc->sorted), cmp_class_ptr);
		for (uint32_t i = 0; i < sc->nsorted; i++) {
			if (i && sc->sorted[i]->id == sc->sorted[i - 1]->id) {
				c->line = sc->sorted[i]->line;
				return cfail(c, "event id %u is used twice in stream %" PRIu64,
					     sc->sorted[i]->id, sc->id);
			}
			if (sc->sorted[i]->id < sc->nids)
				sc->classes[sc->sorted[i]->id] = sc->sorted[i];
		}
	}
	md->nclasses = ncls;
	for (uint32_t i = 0; i < in->nevents; i++) {
		const struct tr_ctf_pevent *pe = &in->events[i];
		bool found = false;

		for (uint32_t s = 0; s < nstreams; s++)
			found |= pe->has_stream_id ? pe->stream_id == ctf->streams[s].id :
				 (nstreams == 1 || s == 0);
		if (!found) {
			c->line = pe->line;
			return cfail(c, "the event '%s' names stream %" PRIu64 ", which no stream "
				     "block declares", pe->name ? pe->name : "?", pe->stream_id);
		}
	}
	/* every plan's final shape, now that every reference is resolved */
	if (finish_plan(c, &ctf->packet_header))
		goto fail;
	for (uint32_t s = 0; s < ctf->nstreams; s++) {
		if (finish_plan(c, &ctf->streams[s].packet_context) ||
		    finish_plan(c, &ctf->streams[s].event_header) ||
		    finish_plan(c, &ctf->streams[s].event_context))
			goto fail;
		fast_header(&ctf->streams[s]);
	}
	for (uint32_t i = 0; i < md->nclasses; i++) {
		if (finish_plan(c, (struct tr_plan *)md->classes[i].context) ||
		    finish_plan(c, (struct tr_plan *)md->classes[i].payload))
			goto fail;
	}
	/* the clock the cursors give times in: the one the streams use, or ns */
	if (!several && used_clock >= 0) {
		md->freq = ctf->clocks[used_clock].freq;
		md->offset_s = ctf->clocks[used_clock].offset_s;
		md->offset = ctf->clocks[used_clock].offset;
	} else if (!several && ctf->nclocks == 1) {
		md->freq = ctf->clocks[0].freq;
		md->offset_s = ctf->clocks[0].offset_s;
		md->offset = ctf->clocks[0].offset;
	} else {
		md->freq = 1000000000u;	/* several clocks: times in ns since the epoch */
		md->ns_clocks = several;
	}
	ctf->nregs = ctf->nregs ? ctf->nregs : 1;
	return 0;
fail:
	return -EPROTO;
}

int tr_ctf_compile(struct tr_metadata *md, const struct tr_ctf_parsed *in, struct tr_arena **arena,
		   const char *fname, char *err, size_t errlen)
{
	struct compiler c = {
		.fname = fname, .err = err, .errlen = errlen, .arena = arena, .in = in,
	};
	int ret = compile(&c, md, in);

	/* every return of compile(), the early ones too: a hostile metadata leaked them */
	drop_syms(&c, 0);
	free(c.syms);
	return ret && c.nomem ? -ENOMEM : ret;
}

/* ---- walking ------------------------------------------------------------------ */

uint64_t tr_read_bits_slow(const uint8_t *base, uint64_t bit, unsigned size, bool be)
{
	const uint8_t *p = base + bit / 8;
	unsigned shift = (unsigned)(bit % 8), need = (shift + size + 7) / 8;
	uint8_t b[8] = { 0 };
	uint64_t x;

	if (need > 8) {
		/* 9 bytes: a 57- to 64-bit field that starts mid-byte */
		unsigned __int128 w = 0;

		if (!be) {
			for (unsigned i = need; i-- > 0;)
				w = w << 8 | p[i];
			w >>= shift;
		} else {
			for (unsigned i = 0; i < need; i++)
				w = w << 8 | p[i];
			w >>= need * 8 - shift - size;
		}
		x = (uint64_t)w;
		return size < 64 ? x & ((1ull << size) - 1) : x;
	}
	memcpy(b, p, need);
	memcpy(&x, b, 8);
	if (!be) {
		x = le64toh(x) >> shift;
		return size < 64 ? x & ((1ull << size) - 1) : x;
	}
	x = be64toh(x) << shift;
	return x >> (64 - size);
}

__attribute__((format(printf, 3, 4), cold))
static int wfail(struct tr_walk *w, const struct tr_op *op, const char *fmt, ...)
{
	size_t o = 0;
	va_list ap;

	w->fail_bit = w->bit;
	if (op && op->namelen)
		o = (size_t)snprintf(w->err, w->errlen, "field '%s': ", op->name);
	if (o >= w->errlen)
		return -EPROTO;
	va_start(ap, fmt);
	rtr_verrf_at(w->err + o, w->errlen - o, EPROTO, NULL, RTR_AT_NONE, 0, fmt, ap);
	va_end(ap);
	return -EPROTO;
}

static inline bool align_to(struct tr_walk *w, uint32_t align)
{
	uint64_t b = (w->bit + align - 1) & ~(uint64_t)(align - 1);

	if (b > w->end)
		return false;
	w->bit = b;
	return true;
}


/*
 * The one walker of a plan.  Without @t it checks: every field inside the
 * content, the registers and roles set, an unreferenced field skipped by
 * its size, and the first problem said in @w->err.  With @t it also prints
 * each field, "name = value" (reader/text.h), in the walk that reads it;
 * the record was checked by a walk without @t first, so a failure then is
 * only -EPROTO (@w->err is not the printer's to write).
 */
#define WFAIL(...) (t ? -EPROTO : wfail(w, op, __VA_ARGS__))

static int walk_range(const struct tr_op *ops, uint32_t i, uint32_t end, struct tr_walk *w,
		      struct tr_text *t, bool first, int depth);

static int walk_one(const struct tr_op *ops, uint32_t i, struct tr_walk *w, struct tr_text *t,
		    int depth)
{
	const struct tr_op *op = &ops[i];

	if (__builtin_expect(w->budget-- == 0, 0))
		return WFAIL("the layout costs more work than its bytes can hold");
	switch (op->code) {
	case TR_OP_INT: {
		uint64_t v;

		if (!align_to(w, op->align) || w->end - w->bit < op->size)
			return WFAIL("runs past the packet's content");
		if (!t && op->reg < 0 && !op->role) {
			/* nothing refers to it: its size is enough */
			w->bit += op->size;
			return 0;
		}
		v = tr_read_bits(w->pkt, w->bit, op->size, op->be);
		if (op->sign && op->size < 64 && (v >> (op->size - 1)) & 1)
			v |= ~0ull << op->size;
		w->bit += op->size;
		if (op->reg >= 0)
			w->regs[op->reg] = v;
		if (t) {
			tr_text_int(t, op, v);
		} else if (op->role) {
			if (op->role == TR_ROLE_TS)
				w->clock = tr_clock_update(w->clock, v, op->size);
			else if (op->role == TR_ROLE_TS_BEGIN)
				w->clock = v;
			w->role[op->role] = v;
			w->role_at[op->role] = w->bit - op->size;
			w->roles |= 1u << op->role;
		}
		return 0;
	}
	case TR_OP_FLOAT:
		if (!align_to(w, op->align) || w->end - w->bit < op->size)
			return WFAIL("runs past the packet's content");
		if (t)
			tr_text_float(t, op->size, tr_read_bits(w->pkt, w->bit, op->size, op->be));
		w->bit += op->size;
		return 0;
	case TR_OP_STRING: {
		const uint8_t *s, *z;

		if (!align_to(w, 8))
			return WFAIL("runs past the packet's content");
		s = w->pkt + w->bit / 8;
		z = t ? tr_text_cstring(t, s, w->pkt + w->end / 8) :
		    memchr(s, 0, (size_t)((w->end - w->bit) / 8));
		if (!z)
			return WFAIL("a string without its NUL before the packet's end");
		if (!t && op->role) {
			w->role[op->role] = w->bit;
			w->roles |= 1u << op->role;
		}
		w->bit += (uint64_t)(z - s + 1) * 8;
		return 0;
	}
	case TR_OP_STRUCT: {
		int r;

		if (!align_to(w, op->align))
			return WFAIL("runs past the packet's content");
		if (!t)
			return walk_range(ops, i + 1, op->next, w, NULL, true, depth + 1);
		if (op->next == i + 1) {
			tr_text_lit(t, "{ }", 3);
			return 0;
		}
		tr_text_lit(t, "{ ", 2);
		r = walk_range(ops, i + 1, op->next, w, t, true, depth + 1);
		tr_text_lit(t, " }", 2);
		return r;
	}
	case TR_OP_ARRAY:
	case TR_OP_SEQ: {
		uint64_t n = op->code == TR_OP_ARRAY ? op->arg : w->regs[op->arg];

		if (!t && op->role == TR_ROLE_UUID) {
			if (!align_to(w, 8) || w->end - w->bit < 128)
				return WFAIL("runs past the packet's content");
			w->role[TR_ROLE_UUID] = w->bit;
			w->roles |= 1u << TR_ROLE_UUID;
			w->bit += 128;
			return 0;
		}
		if (!align_to(w, op->align))
			return WFAIL("runs past the packet's content");
		if (t && op->text && !(w->bit % 8)) {
			/* text: up to its first NUL, in its whole room */
			const uint8_t *s = w->pkt + w->bit / 8, *z;

			if (n > (w->end - w->bit) / 8)
				return -EPROTO;
			z = memchr(s, 0, (size_t)n);
			tr_text_string(t, s, z ? (size_t)(z - s) : (size_t)n);
			w->bit += n * 8;
			return 0;
		}
		if (!t && op->role == TR_ROLE_PROCNAME) {
			w->role[TR_ROLE_PROCNAME] = w->bit;
			w->roles |= 1u << TR_ROLE_PROCNAME;
		}
		/*
		 * Elements of whole bytes that nothing refers to (a comm, a byte
		 * buffer): contiguous, their size is enough.
		 */
		if (!t && op->next == i + 2 && ops[i + 1].code == TR_OP_INT && ops[i + 1].reg < 0 &&
		    !ops[i + 1].role && !(ops[i + 1].size % 8) && ops[i + 1].align <= 8 &&
		    !(w->bit % ops[i + 1].align)) {
			if (n > (w->end - w->bit) / ops[i + 1].size)
				return WFAIL(
					"%s of %" PRIu64 " elements runs past the packet's content",
					op->code == TR_OP_ARRAY ? "an array" : "a sequence", n);
			w->bit += n * ops[i + 1].size;
			return 0;
		}
		if (t && !n) {
			tr_text_lit(t, "[ ]", 3);
			return 0;
		}
		if (t)
			tr_text_lit(t, "[ ", 2);
		/* every element costs an op of the budget: no length makes this loop long */
		for (uint64_t k = 0; k < n; k++) {
			int r;

			if (t && k)
				tr_text_lit(t, ", ", 2);
			r = walk_range(ops, i + 1, op->next, w, t, true, depth + 1);
			if (r)
				return r;
		}
		if (t)
			tr_text_lit(t, " ]", 2);
		return 0;
	}
	case TR_OP_VARIANT: {
		int64_t tag = (int64_t)w->regs[op->arg];

		for (uint32_t k = 0; k < op->nopts; k++) {
			uint32_t o = op->opts[k].op;
			int r;

			if (tag < op->opts[k].lo || tag > op->opts[k].hi)
				continue;
			if (!t)
				return walk_one(ops, o, w, NULL, depth + 1);
			/* the option chosen, "{ name = value }" */
			tr_text_lit(t, "{ ", 2);
			r = walk_range(ops, o, ops[o].code >= TR_OP_STRUCT ? ops[o].next : o + 1, w, t,
				       true, depth + 1);
			tr_text_lit(t, " }", 2);
			return r;
		}
		return WFAIL("the tag's value %" PRId64 " selects no option", tag);
	}
	}
	return WFAIL("a bad plan");
}

/*
 * The ops [@i, @end) at one level: each top-level op, its body skipped by
 * @next; with @t, each as "name = value", separated by ", " (not before
 * the first if @first).
 */
static int walk_range(const struct tr_op *ops, uint32_t i, uint32_t end, struct tr_walk *w,
		      struct tr_text *t, bool first, int depth)
{
	if (depth > 64)
		return t ? -EPROTO : wfail(w, NULL, "layout nested too deep");
	while (i < end) {
		const struct tr_op *op = &ops[i];
		int r;

		if (t) {
			char *p = tr_text_room(t, op->leadn + 96);

			/* ", name = " (without ", " first): one copy */
			p = first ? tr_put_pad(p, op->lead + 2, op->leadn - 2) :
			    tr_put_pad(p, op->lead, op->leadn);
			first = false;
			if (op->plain && !(w->bit % 8) && w->end - w->bit >= op->size) {
				/* the common integer: a whole little-endian number in decimal */
				uint64_t v = tr_read_bits(w->pkt, w->bit, op->size, false);

				if (op->sign && op->size < 64 && (v >> (op->size - 1)) & 1)
					v |= ~0ull << op->size;
				p = op->sign ? tr_put_s64(p, (int64_t)v) : tr_put_u64(p, v);
				w->bit += op->size;
				t->len = (size_t)(p - t->buf);
				if (w->budget-- == 0)
					return -EPROTO;
				i++;
				continue;
			}
			t->len = (size_t)(p - t->buf);
		}
		r = walk_one(ops, i, w, t, depth);
		if (r)
			return r;
		i = op->code >= TR_OP_STRUCT ? op->next : i + 1;
	}
	return 0;
}

int tr_walk_plan(const struct tr_plan *p, struct tr_walk *w)
{
	if (!p->nops)
		return 0;
	/* a structure starts on its largest member's alignment (CTF 1.8, 4.2.1) */
	if (!align_to(w, p->align))
		return wfail(w, NULL, "the layout's alignment runs past the packet's content");
	return walk_range(p->ops, 0, p->nops, w, NULL, true, 0);
}

int tr_walk_text(const struct tr_plan *p, struct tr_walk *w, struct tr_text *t, bool first)
{
	if (!p->nops)
		return 0;
	if (!align_to(w, p->align))
		return -EPROTO;
	return walk_range(p->ops, 0, p->nops, w, t, first, 0);
}

int tr_walk_text_op(const struct tr_plan *p, uint32_t i, struct tr_walk *w, struct tr_text *t)
{
	return walk_one(p->ops, i, w, t, 0);
}

int tr_walk_fields(const struct tr_plan *p, struct tr_walk *w, uint32_t *op, uint64_t *at,
		   uint32_t n)
{
	uint32_t i = 0, k = 0;

	for (uint32_t j = 0; j < n; j++)
		op[j] = UINT32_MAX;
	if (!p->nops)
		return 0;
	if (!align_to(w, p->align))
		return wfail(w, NULL, "the layout's alignment runs past the packet's content");
	while (i < p->nops) {
		int r;

		if (k < n) {
			uint32_t a = p->ops[i].code == TR_OP_STRING ? 8 : p->ops[i].align;

			op[k] = i;
			at[k] = (w->bit + a - 1) & ~(uint64_t)(a - 1);
		}
		k++;
		r = walk_one(p->ops, i, w, NULL, 0);
		if (r)
			return r;
		i = p->ops[i].code >= TR_OP_STRUCT ? p->ops[i].next : i + 1;
	}
	return 0;
}

/* ---- the entry ----------------------------------------------------------------- */

static void free_plan(struct tr_plan *p)
{
	if (p) {
		free(p->ops);
		free(p->skip);
		p->ops = NULL;
		p->skip = NULL;
		p->nops = p->nskip = 0;
	}
}

void tr_ctf_free(struct tr_metadata *md)
{
	struct tr_ctf *ctf = md->ctf;

	if (!ctf)
		return;
	free_plan(&ctf->packet_header);
	for (uint32_t s = 0; s < ctf->nstreams; s++) {
		free_plan(&ctf->streams[s].packet_context);
		free_plan(&ctf->streams[s].event_header);
		free_plan(&ctf->streams[s].event_context);
	}
	for (uint32_t i = 0; i < md->nclasses; i++) {
		free_plan((struct tr_plan *)md->classes[i].context);
		free_plan((struct tr_plan *)md->classes[i].payload);
	}
	free(ctf->regs);
	tr_arena_free(ctf->arena);
	md->ctf = NULL;
}

int tr_ctf_metadata_parsed(struct tr_metadata *md, const struct tr_ctf_parsed *in,
			   struct tr_arena **arena, const char *fname, char *err, size_t errlen)
{
	int r;

	r = tr_ctf_compile(md, in, arena, fname, err, errlen);
	if (!r) {
		md->warnings = in->nwarnings;
		memcpy(md->warning, in->warning, sizeof(md->warning));
	}
	if (md->ctf) {
		md->ctf->arena = *arena;
		*arena = NULL;
	} else {
		tr_arena_free(*arena);
		*arena = NULL;
		return r ? r : -EPROTO;
	}
	if (r)
		return r;
	md->ctf->regs = calloc(md->ctf->nregs, sizeof(*md->ctf->regs));
	md->hostname = strdup(in->hostname ? in->hostname : "");
	if (!md->ctf->regs || !md->hostname) {
		return rtr_errf(err, errlen, ENOMEM, "%s: out of memory", fname);
	}
	md->vpid = in->vpid;
	md->has_vpid = in->has_vpid;
	md->clockq = in->clockq;
	return 0;
}

int tr_ctf_metadata(struct tr_metadata *md, const char *text, size_t len, const char *fname,
		    char *err, size_t errlen)
{
	struct tr_arena *arena = NULL;
	struct tr_ctf_parsed in;
	int r;

	r = tr_ctf_parse_text(&in, text, len, fname, &arena, err, errlen);
	if (r) {
		tr_arena_free(arena);
		return r;
	}
	return tr_ctf_metadata_parsed(md, &in, &arena, fname, err, errlen);
}
