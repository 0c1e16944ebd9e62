/* SPDX-License-Identifier: MIT */
/*
 * tools/trigger.h - `record --mode overwrite --trigger EXPR`: conditions the
 * recorder watches for in the packets of the ring it records, each met one
 * a snapshot, with no code in the traced program.  Documentation/analysis.rst,
 * "Triggers".
 *
 * The watch reads the ring as a second, read-only consumer: every complete
 * packet once, and each CPU's open packet as far as it is committed (again
 * at the next turn, from where it stopped), through the reader's cursor,
 * which checks every record before it is believed (the ring is the traced
 * program's memory).  It keeps what the conditions need and nothing else:
 * the tasks alive (id, creation time, which conditions may concern them),
 * the counters' last sides.  A packet the writers overwrite before the
 * watch reads it is counted, never read half.
 */
#ifndef RTR_TOOLS_TRIGGER_H
#define RTR_TOOLS_TRIGGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TRIG_MAX 8		/* --trigger given at most this many times */

enum trig_kind {
	TRIG_SLOW,		/* slow(PATTERN) > T */
	TRIG_UNRESOLVED,	/* unresolved(PATTERN) > T */
	TRIG_COUNTER,		/* counter(NAME) OP V */
	TRIG_EVENT,		/* event(NAME)[.FIELD OP V] */
};

enum trig_op { TRIG_GT, TRIG_GE, TRIG_LT, TRIG_LE, TRIG_EQ, TRIG_NE };

/**
 * struct trig - one trigger, parsed.
 * @name: what its snapshots are named after (NAME=..., or "triggerN").
 * @text: the expression as given, for messages.
 * @pattern: slow, unresolved: a fnmatch(3) pattern for the task's label, or
 *	with @by_kind the kind's name; counter: the counter's name; event: a
 *	pattern for the class's name ("myapp:*").
 * @field: event: the field tested, "" for none.
 * @str: @num: the value compared with (@is_str: a string, a pattern for
 *	== and !=); slow and unresolved: @ns.
 * @met: times met; @taken: snapshots taken for it; @over: met while the
 *	limit held snapshots back (or one was being taken).
 */
struct trig {
	char name[33];
	char text[256];
	enum trig_kind kind;
	char pattern[128];
	bool by_kind;
	char field[64];
	enum trig_op op;
	bool is_str;
	char str[128];
	long double num;
	uint64_t ns;
	uint64_t met, taken, over;
};

/*
 * trig_parse() - @spec into @t, the @index'th trigger (named "trigger<index+1>"
 * unless @spec says NAME=).  Return: 0, or -EINVAL with @err saying what
 * is wrong and what was expected.
 */
int trig_parse(const char *spec, unsigned index, struct trig *t, char *err, size_t errlen);

struct trig_watch;

/*
 * trig_watch_open() - watch the overwrite-mode region at @path for the @n
 * triggers @t (kept by the caller for the watch's life).  Return: 0, or
 * -errno with @err set.
 */
int trig_watch_open(struct trig_watch **w, const char *path, struct trig *t, unsigned n,
		    char *err, size_t errlen);

/*
 * trig_watch_poll() - read what the writers committed since the last call
 * and test it.  Return: the index of the first trigger met (its @met
 * counted, what met it in @why), or -1 when none was (call again for the
 * rest: a call stops at the first one met).
 */
int trig_watch_poll(struct trig_watch *w, char *why, size_t whylen);

/* What the watch read and missed, for the recorder's summary. */
struct trig_watch_report {
	uint64_t events;	/* records tested */
	uint64_t missed;	/* packets the writers overwrote before the watch read them */
	uint64_t damaged;	/* packets whose header or records did not check (not believed) */
	uint64_t untracked;	/* tasks not watched: the table was full */
};
void trig_watch_report(const struct trig_watch *w, struct trig_watch_report *r);
void trig_watch_close(struct trig_watch *w);

#endif /* RTR_TOOLS_TRIGGER_H */
