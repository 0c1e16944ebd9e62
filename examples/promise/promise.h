/* SPDX-License-Identifier: MIT */
/*
 * examples/promise/promise.h - a small promise layer over an epoll loop,
 * traced with ringtrace's task model: what the examples' server and the
 * bug hunt (examples/arp/) are written with, and what a user's own async
 * layer would look like instrumented.
 *
 * One loop thread runs every callback; other threads hand work back with
 * pr_post(), and each posted event is handled whole (the binds it made
 * ready run) before the next one.  A promise is a task (its id is pr_task()): created with
 * create(parent, task, kind) and a label, resolved or failed once.
 *
 *   pr_wait()       a promise someone will resolve (kind given: wait,
 *                   request, ...)
 *   pr_then(p, f)   a bind: when p is settled, f runs as the bind's task and
 *                   returns a promise the bind becomes (rtr_becomes), or
 *                   NULL to resolve the bind with p's value; a failed p
 *                   fails the bind without calling f
 *   pr_readable()   resolved when a file descriptor is readable
 *   pr_cond_*()     a named condition: waiting makes a promise that the next
 *                   broadcast resolves; a broadcast nobody waits for is lost
 *                   (and traced as a signal to the condition's task)
 *
 * Events: a bind looks at its input when made (try_read if not ready) and
 * reads it when it runs; the loop switches to each task it runs and to
 * idle (0) before it sleeps in epoll_wait.  Memory: promises come from an
 * arena (pr_arena) freed all at once by its owner.
 */
#ifndef RTR_EXAMPLES_PROMISE_H
#define RTR_EXAMPLES_PROMISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pr_loop;
struct pr_arena;
struct pr_promise;

enum pr_state { PR_PENDING, PR_RESOLVED, PR_FAILED };

/* A callback of pr_then(): @p is settled (resolved); return what the bind becomes, or NULL. */
typedef struct pr_promise *(*pr_fn)(void *arg, struct pr_promise *p);

struct pr_arena *pr_arena_new(void);
void pr_arena_free(struct pr_arena *a);

/* pr_loop_new() - a loop whose own task (kind task) is labelled @name. */
struct pr_loop *pr_loop_new(const char *name);
void pr_loop_free(struct pr_loop *l);
/*
 * pr_loop_run() - run callbacks until @until is settled (NULL: until
 * pr_loop_stop()) or @timeout_ns passes (0: none).  Return: 0; -ETIMEDOUT.
 */
int pr_loop_run(struct pr_loop *l, struct pr_promise *until, uint64_t timeout_ns);
void pr_loop_stop(struct pr_loop *l);
/* pr_post() - from any thread: run @fn(@arg) in the loop, as the loop's task. */
void pr_post(struct pr_loop *l, void (*fn)(void *arg), void *arg);
/* pr_current() - the task the loop runs now (the loop's own between callbacks). */
uint64_t pr_current(struct pr_loop *l);
/*
 * pr_enter() - in the loop thread, run as @task (switched to) until
 * pr_leave() with what pr_enter() returned: what an event handler does.
 */
uint64_t pr_enter(struct pr_loop *l, uint64_t task);
void pr_leave(struct pr_loop *l, uint64_t prev);
/*
 * pr_creator() - the promises made from now on are created by @task (in
 * the trace: create(task, ...)) until it is called again with what it
 * returned; nothing else changes.  A connection that makes its reads and
 * requests from callbacks says so: they are the connection's, not each
 * the previous callback's child.
 */
uint64_t pr_creator(struct pr_loop *l, uint64_t task);
uint64_t pr_loop_task(struct pr_loop *l);

struct pr_promise *pr_wait(struct pr_arena *a, struct pr_loop *l, uint8_t kind, const char *label);
void pr_resolve(struct pr_promise *p, uint64_t resolver, intptr_t value);
/* pr_fail() - @reason must outlive the promise (a string literal, usually). */
void pr_fail(struct pr_promise *p, uint64_t resolver, const char *reason);
struct pr_promise *pr_then(struct pr_arena *a, struct pr_promise *p, pr_fn fn, void *arg,
			   const char *label);
struct pr_promise *pr_readable(struct pr_arena *a, struct pr_loop *l, int fd, const char *label);

uint64_t pr_task(const struct pr_promise *p);
enum pr_state pr_state(const struct pr_promise *p);
intptr_t pr_value(const struct pr_promise *p);
const char *pr_reason(const struct pr_promise *p);

/*
 * struct pr_cond - a named condition (mirage's named_condition): a task of
 * kind condition; each wait is a promise (kind wait) the next broadcast
 * resolves.  At most PR_COND_WAITERS wait at once.
 */
#define PR_COND_WAITERS 16
struct pr_cond {
	struct pr_loop *loop;
	uint64_t task;
	const char *label;
	struct pr_promise *waiters[PR_COND_WAITERS];
	unsigned nwaiters;
};

void pr_cond_init(struct pr_cond *c, struct pr_loop *l, const char *label);
struct pr_promise *pr_cond_wait(struct pr_arena *a, struct pr_cond *c);
/* pr_cond_broadcast() - resolve every waiter with @value; with none, the signal is lost. */
unsigned pr_cond_broadcast(struct pr_cond *c, intptr_t value);

#endif /* RTR_EXAMPLES_PROMISE_H */
