// SPDX-License-Identifier: MIT
/*
 * reader/merge.c - the streams of a trace, or of its chunks, in time order
 * (merge.h): a binary heap of the streams that have an item, keyed by
 * (timestamp, stream index).
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "reader/ctf_plan.h"
#include "reader/index.h"
#include "reader/merge.h"

enum {
	TR_MERGE_ENDED = 1,	/* the stream read its file to the end (not stopped at the limit) */
	TR_MERGE_KEEP = 2,	/* not read in this merge: its position stays as tr_merge_resume() had it */
};

/* The file named @name in @t, or UINT32_MAX. */
static uint32_t find_stream(const struct tr_trace *t, const char *name)
{
	for (uint32_t i = 0; i < t->nstreams; i++) {
		if (!strcmp(t->streams[i].name, name))
			return i;
	}
	return UINT32_MAX;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* One stream file, for grouping (tr_stream_files()). */
enum { KEY_NAME, KEY_INSTANCE, KEY_ALONE };

struct file_key {
	uint32_t trace, file;
	int kind;		/* KEY_*: grouped by name, by stream_instance_id, or alone */
	uint32_t owner;		/* the first trace of its trace's UUID */
	int32_t sclass;
	uint64_t instance;
	uint64_t first;		/* its first item's time */
	const char *name;
};

static int cmp_u64(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

static int cmp_key(const void *a, const void *b)
{
	const struct file_key *x = a, *y = b;
	int c;

	if (x->kind != y->kind)
		return x->kind - y->kind;
	if (x->kind == KEY_INSTANCE) {
		if ((c = cmp_u64(x->owner, y->owner)) || (c = cmp_u64((uint64_t)x->sclass,
								     (uint64_t)y->sclass)) ||
		    (c = cmp_u64(x->instance, y->instance)) || (c = cmp_u64(x->first, y->first)))
			return c;
	}
	if (x->kind == KEY_ALONE)
		return (c = cmp_u64(x->trace, y->trace)) ? c : cmp_u64(x->file, y->file);
	if (x->kind == KEY_NAME && (c = cmp_u64(x->owner, y->owner)))
		return c;
	c = strverscmp(x->name, y->name);
	return c ? c : cmp_u64(x->trace, y->trace);
}

static bool same_stream(const struct file_key *x, const struct file_key *y)
{
	if (x->kind != y->kind || x->kind == KEY_ALONE)
		return false;
	if (x->kind == KEY_NAME)
		return x->owner == y->owner && !strcmp(x->name, y->name);
	return x->owner == y->owner && x->sclass == y->sclass && x->instance == y->instance;
}

/* A stream, for ordering the streams: its first file's name, then trace. */
struct group_order {
	const char *name;
	uint32_t trace, file;
	struct tr_stream_files g;
};

static int cmp_group(const void *a, const void *b)
{
	const struct group_order *x = a, *y = b;
	int c = strverscmp(x->name, y->name);

	return c ? c : (c = cmp_u64(x->trace, y->trace)) ? c : cmp_u64(x->file, y->file);
}

/* The key of @t's file @f: its first packet read by @c (general CTF). */
static void key_of(const struct tr_trace *t, uint32_t i, uint32_t f, uint32_t owner,
		   struct tr_cursor *c, struct file_key *x)
{
	const struct tr_trace *tt = &t[i];

	memset(x, 0, sizeof(*x));
	x->trace = i;
	x->file = f;
	x->name = tt->streams[f].name;
	x->owner = owner;
	x->kind = !tt->md.own ? KEY_ALONE : KEY_NAME;
	if (tt->md.own)
		return;
	tr_cursor_init(c, tt, f);
	if (tr_next(c) > 0 && c->has_instance && c->sclass >= 0) {
		x->kind = KEY_INSTANCE;
		x->sclass = c->sclass;
		x->instance = c->instance;
		x->first = c->ts;
	}
}

/* Ringtrace's own traces always have a UUID; another producer's may not. */
static bool has_uuid(const struct tr_trace *t)
{
	return t->md.own || t->md.ctf->has_uuid;
}

void tr_stream_files_free(struct tr_stream_files *sf, uint32_t n)
{
	for (uint32_t i = 0; sf && i < n; i++)
		free(sf[i].f);
	free(sf);
}

int tr_stream_files(const struct tr_trace *t, uint32_t ntraces, struct tr_stream_files **out,
		    uint32_t *nout)
{
	uint32_t total = 0, n = 0, ng = 0;
	struct group_order *g = NULL;
	struct file_key *k;
	struct tr_cursor *c;

	*out = NULL;
	*nout = 0;
	for (uint32_t i = 0; i < ntraces; i++)
		total += t[i].nstreams;
	k = calloc((size_t)total + 1, sizeof(*k));
	c = malloc(sizeof(*c));
	if (!k || !c)
		goto nomem;
	for (uint32_t i = 0; i < ntraces; i++) {
		uint32_t owner = i;

		/*
		 * traces of one UUID are one trace (babeltrace2 merges them so;
		 * a rotated ringtrace recording's chunks share theirs)
		 */
		for (uint32_t j = 0; j < i && has_uuid(&t[i]); j++) {
			if (has_uuid(&t[j]) && !memcmp(t[j].md.uuid, t[i].md.uuid, 16)) {
				owner = j;
				break;
			}
		}
		for (uint32_t f = 0; f < t[i].nstreams; f++)
			key_of(t, i, f, owner, c, &k[n++]);
	}
	if (n > 1)
		qsort(k, n, sizeof(*k), cmp_key);
	g = calloc((size_t)n + 1, sizeof(*g));
	if (!g)
		goto nomem;
	for (uint32_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && same_stream(&k[i], &k[j]); j++)
			;
		g[ng].g.f = malloc((j - i) * sizeof(*g[ng].g.f));
		if (!g[ng].g.f)
			goto nomem;
		g[ng].g.n = j - i;
		g[ng].name = k[i].name;
		g[ng].trace = k[i].trace;
		g[ng].file = k[i].file;
		for (uint32_t m = i; m < j; m++) {
			g[ng].g.f[m - i].trace = k[m].trace;
			g[ng].g.f[m - i].file = k[m].file;
		}
		ng++;
	}
	if (ng > 1)
		qsort(g, ng, sizeof(*g), cmp_group);
	*out = calloc((size_t)ng + 1, sizeof(**out));
	if (!*out)
		goto nomem;
	for (uint32_t i = 0; i < ng; i++)
		(*out)[i] = g[i].g;
	*nout = ng;
	free(g);
	free(k);
	free(c);
	return 0;
nomem:
	for (uint32_t i = 0; g && i < ng; i++)
		free(g[i].g.f);
	free(g);
	free(k);
	free(c);
	return -ENOMEM;
}

int tr_merge_init_chunks(struct tr_merge *mg, const struct tr_trace *chunks, uint32_t nchunks)
{
	uint32_t n;

	memset(mg, 0, sizeof(*mg));
	if (tr_stream_files(chunks, nchunks, &mg->files, &mg->nstreams))
		return -ENOMEM;
	n = mg->nstreams ? mg->nstreams : 1;
	mg->c = calloc(n, sizeof(*mg->c));
	mg->item = calloc(n, sizeof(*mg->item));
	mg->heap = calloc(n, sizeof(*mg->heap));
	mg->chunk = calloc(n, sizeof(*mg->chunk));
	mg->flags = calloc(n, sizeof(*mg->flags));
	mg->at = calloc(n, sizeof(*mg->at));
	if (!mg->c || !mg->item || !mg->heap || !mg->chunk || !mg->flags || !mg->at) {
		tr_merge_free(mg);
		return -ENOMEM;
	}
	mg->chunks = chunks;
	mg->nchunks = nchunks;
	mg->moved = mg->advance = UINT32_MAX;
	mg->limit = UINT64_MAX;
	for (uint32_t i = 0; i < mg->nstreams; i++) {
		const struct tr_file_ref *f = &mg->files[i].f[0];

		tr_cursor_init(&mg->c[i], &chunks[f->trace], f->file);
		mg->chunk[i] = f->trace;
	}
	return 0;
}

int tr_merge_init(struct tr_merge *mg, const struct tr_trace *t)
{
	return tr_merge_init_chunks(mg, t, 1);
}

void tr_merge_free(struct tr_merge *mg)
{
	free(mg->c);
	free(mg->item);
	free(mg->heap);
	free(mg->chunk);
	free(mg->flags);
	free(mg->at);
	tr_stream_files_free(mg->files, mg->nstreams);
	memset(mg, 0, sizeof(*mg));
}

void tr_merge_set_limit(struct tr_merge *mg, uint64_t limit)
{
	mg->limit = limit;
}

void tr_stream_next_file(struct tr_cursor *c, const struct tr_trace *t, uint32_t file,
			 const struct tr_cursor *prev)
{
	tr_cursor_init(c, t, file);
	tr_cursor_continue(c, prev);
	c->packets = prev->packets;
	c->events = prev->events;
	c->threads = prev->threads;
	c->events_lost = prev->events_lost;
	c->packets_lost = prev->packets_lost;
	c->quirks = prev->quirks;
	memcpy(c->quirk, prev->quirk, sizeof(c->quirk));
}

/* Stream @i's cursor goes on in chunk @k's file @f, from where @prev stopped. */
static void chain_to(struct tr_merge *mg, uint32_t i, uint32_t k, uint32_t f,
		     const struct tr_cursor *prev)
{
	tr_stream_next_file(&mg->c[i], &mg->chunks[k], f, prev);
	mg->chunk[i] = k;
}

/*
 * Stream @i's cursor returned @r: at the end of its file, it goes on in the
 * next chunk that has the stream.  Return: the item it is on then.
 */
static int chain_on(struct tr_merge *mg, uint32_t i, int r)
{
	struct tr_cursor *c = &mg->c[i];

	/* the stream's next file after the one its cursor is in (tr_stream_files()) */
	while (r == TR_END) {
		const struct tr_stream_files *sf = &mg->files[i];
		struct tr_cursor prev;
		uint32_t a = mg->at[i];

		while (a < sf->n && (sf->f[a].trace != mg->chunk[i] ||
				     &mg->chunks[sf->f[a].trace].streams[sf->f[a].file] != c->s))
			a++;
		if (a + 1 >= sf->n)
			break;
		mg->at[i] = a + 1;
		memcpy(&prev, c, TR_CURSOR_STATE);
		chain_to(mg, i, sf->f[a + 1].trace, sf->f[a + 1].file, &prev);
		r = tr_next(c);
	}
	if (r == TR_END)
		mg->flags[i] |= TR_MERGE_ENDED;
	return r;
}

/*
 * The next item of stream @i, unless it lies past the limit: then the
 * cursor stays where it was (maybe in the chunk before), and the stream
 * ends for this merge.
 */
static int merge_step(struct tr_merge *mg, uint32_t i)
{
	struct tr_cursor saved;
	uint32_t chunk;
	int r;

	if (mg->limit == UINT64_MAX)
		return chain_on(mg, i, tr_next(&mg->c[i]));
	chunk = mg->chunk[i];
	memcpy(&saved, &mg->c[i], TR_CURSOR_STATE);
	r = chain_on(mg, i, tr_next(&mg->c[i]));
	if (r > 0 && mg->c[i].ts > mg->limit) {
		mg->chunk[i] = chunk;
		memcpy(&mg->c[i], &saved, TR_CURSOR_STATE);
		return TR_END;
	}
	return r;
}

/* The earliest item, to move on the next call (inline, unless there is a limit). */
static int merge_top(struct tr_merge *mg, uint32_t *stream)
{
	if (!mg->n)
		return TR_END;
	*stream = mg->moved = mg->heap[0];
	mg->advance = mg->limit == UINT64_MAX ? mg->moved : UINT32_MAX;
	return mg->item[mg->moved];
}

/* Stream @s, moved, is on item @r: back into the heap, or out of it; then the earliest. */
static int merge_moved(struct tr_merge *mg, uint32_t s, int r, uint32_t *stream)
{
	if (__builtin_expect(r > 0, 1)) {
		mg->item[s] = r;
		tr_merge__sift(mg);
	} else {
		mg->heap[0] = mg->heap[--mg->n];
		tr_merge__sift(mg);
		if (r == TR_ERROR) {
			*stream = s;
			return TR_ERROR;
		}
	}
	return merge_top(mg, stream);
}

int tr_merge__next_slow(struct tr_merge *mg, uint32_t *stream)
{
	uint32_t s;
	int r;

	if (mg->primed < mg->nstreams) {
		while (mg->primed < mg->nstreams) {
			uint32_t i = mg->primed++;

			if (mg->flags[i] & TR_MERGE_KEEP)
				continue;
			r = merge_step(mg, i);
			if (r == TR_ERROR) {
				*stream = i;
				return TR_ERROR;
			}
			if (r != TR_END) {
				mg->item[i] = r;
				mg->heap[mg->n++] = i;
			}
		}
		for (uint32_t i = mg->n / 2; i-- > 0;)
			tr_merge__sift_down(mg, i);
	}
	if (mg->moved == UINT32_MAX)
		return merge_top(mg, stream);
	s = mg->moved;
	mg->moved = mg->advance = UINT32_MAX;
	return merge_moved(mg, s, merge_step(mg, s), stream);
}

int tr_merge__next_end(struct tr_merge *mg, uint32_t *stream, int r)
{
	uint32_t s = mg->advance;

	mg->moved = mg->advance = UINT32_MAX;
	return merge_moved(mg, s, chain_on(mg, s, r), stream);
}

/* ---- following a trace being written -------------------------------------------- */

static int pos_find(const struct tr_merge_pos *pos, const char *name)
{
	for (uint32_t i = 0; i < pos->n; i++) {
		if (!strcmp(pos->s[i].name, name))
			return (int)i;
	}
	return -1;
}

void tr_merge_pos_free(struct tr_merge_pos *pos)
{
	for (uint32_t i = 0; i < pos->n; i++) {
		free(pos->s[i].name);
		free(pos->s[i].chunk);
	}
	free(pos->s);
	memset(pos, 0, sizeof(*pos));
}

int tr_merge_save(const struct tr_merge *mg, struct tr_merge_pos *pos, bool growing)
{
	struct tr_merge_pos_stream *s = calloc((size_t)mg->nstreams + pos->n + 1, sizeof(*s));
	uint32_t n = 0;

	if (!s)
		return -ENOMEM;
	for (uint32_t i = 0; i < mg->nstreams; i++, n++) {
		int p = mg->flags[i] & TR_MERGE_KEEP ? pos_find(pos, mg->c[i].s->name) : -1;

		s[n].name = strdup(mg->c[i].s->name);
		s[n].chunk = strdup(p >= 0 ? pos->s[p].chunk :
				    base_name(mg->chunks[mg->chunk[i]].dir));
		if (!s[n].name || !s[n].chunk) {
			free(s[n].name);
			free(s[n].chunk);
			goto nomem;
		}
		if (p >= 0) {
			s[n].c = pos->s[p].c;
			s[n].ended = pos->s[p].ended;
			continue;
		}
		s[n].c = mg->c[i];
		/* The end of a file still being written is not its end. */
		s[n].ended = (mg->flags[i] & TR_MERGE_ENDED) &&
			     !(growing && mg->chunk[i] == mg->nchunks - 1);
	}
	/* Streams this merge did not see (no file in its chunks) keep theirs. */
	for (uint32_t i = 0; i < pos->n; i++) {
		bool seen = false;

		for (uint32_t j = 0; j < mg->nstreams && !seen; j++)
			seen = !strcmp(pos->s[i].name, mg->c[j].s->name);
		if (seen)
			continue;
		s[n] = pos->s[i];
		pos->s[i].name = pos->s[i].chunk = NULL;
		n++;
	}
	tr_merge_pos_free(pos);
	pos->s = s;
	pos->n = n;
	return 0;
nomem:
	while (n--) {
		free(s[n].name);
		free(s[n].chunk);
	}
	free(s);
	return -ENOMEM;
}

void tr_merge_resume(struct tr_merge *mg, const struct tr_merge_pos *pos)
{
	for (uint32_t i = 0; i < mg->nstreams; i++) {
		struct tr_cursor *c = &mg->c[i];
		int p = pos_find(pos, c->s->name);
		const struct tr_merge_pos_stream *ps;
		uint32_t k, f = UINT32_MAX;

		if (p < 0)
			continue;
		ps = &pos->s[p];
		/* Its first file in a chunk not before the one its cursor is in. */
		for (k = mg->chunk[i]; !ps->c.failed && k < mg->nchunks; k++) {
			if (strcmp(base_name(mg->chunks[k].dir), ps->chunk) >= 0 &&
			    (f = find_stream(&mg->chunks[k], c->s->name)) != UINT32_MAX)
				break;
		}
		if (f == UINT32_MAX) {
			/*
			 * Damaged in an earlier merge, and reported then; or no
			 * file to go on in: read nothing, keep its position.
			 */
			mg->flags[i] |= TR_MERGE_KEEP;
			continue;
		}
		if (!strcmp(base_name(mg->chunks[k].dir), ps->chunk)) {
			/* The file its cursor is in: from where it stopped. */
			tr_cursor_init(c, &mg->chunks[k], f);
			mg->chunk[i] = k;
			tr_cursor_resume(c, &ps->c);
		} else {
			chain_to(mg, i, k, f, &ps->c);
		}
	}
}

uint32_t tr_merge_pos_first(const struct tr_merge_pos *pos, char *const *dirs, uint32_t ndirs,
			    uint32_t now)
{
	uint32_t first = now;

	if (!pos->n)
		return 0;
	for (uint32_t i = 0; i < pos->n; i++) {
		const struct tr_merge_pos_stream *ps = &pos->s[i];
		uint32_t j = 0, need;
		bool gone;

		if (ps->c.failed)
			continue;	/* read no more: its damage was reported */
		while (j < ndirs && strcmp(base_name(dirs[j]), ps->chunk) < 0)
			j++;
		gone = j == ndirs || strcmp(base_name(dirs[j]), ps->chunk);
		need = j + (!gone && ps->ended && j < now);
		if (need < first)
			first = need;
	}
	return first;
}

void tr_merge_pos_lost(const struct tr_merge_pos *pos, uint64_t *events, uint64_t *packets)
{
	*events = *packets = 0;
	for (uint32_t i = 0; i < pos->n; i++) {
		*events += pos->s[i].c.events_lost;
		*packets += pos->s[i].c.packets_lost;
	}
}

void tr_merge_seek(struct tr_merge *mg, const struct tr_index *ix, uint64_t ts)
{
	for (uint32_t i = 0; i < mg->nstreams; i++) {
		const struct tr_stream_files *sf = &mg->files[i];
		uint32_t j = 0, k = 0, fj = 0, fk = 0;
		bool found = false;

		/*
		 * The first entry with items at or after @ts, in the stream's
		 * first file that has one; failing that, its last entry (read,
		 * its items before @ts skipped by the caller).  A file with no
		 * index (NULL, or entries of another file) is read from its start.
		 */
		for (j = 0; j < sf->n && !found; j++) {
			const struct tr_file_ref *f = &sf->f[j];
			const struct tr_index_stream *s;

			if (!ix[f->trace].s || f->file >= ix[f->trace].nstreams)
				break;
			s = &ix[f->trace].s[f->file];
			if (strcmp(s->name, mg->chunks[f->trace].streams[f->file].name) || !s->n)
				break;
			k = tr_index_find(s, ts);
			found = k < s->n;
			fj = j;
			fk = found ? k : s->n - 1;
		}
		if (!found && j < sf->n)
			continue;	/* a file without an index before the time: from the start */
		/* The first entry of a later file goes on from the previous file: read that. */
		if (fk == 0 && fj > 0) {
			const struct tr_file_ref *p = &sf->f[fj - 1];

			fj--;
			fk = ix[p->trace].s[p->file].n - 1;
		}
		if (fk == 0)
			continue;
		{
			const struct tr_file_ref *f = &sf->f[fj];

			tr_cursor_init(&mg->c[i], &mg->chunks[f->trace], f->file);
			tr_cursor_seek(&mg->c[i], &ix[f->trace].s[f->file], fk);
			mg->chunk[i] = f->trace;
			mg->at[i] = fj;
		}
	}
}
