// SPDX-License-Identifier: MIT
/*
 * examples/promise/promise.c - the promise layer of promise.h: an epoll
 * loop with a run queue, binds that read their input and become what their
 * callback returns, named conditions, and the task-model events of each.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>
#include <ringtrace/ringtrace.h>
#include "examples/promise/promise.h"

/*
 * struct pr_promise - a task.  @input, @fn, @arg: a bind's.  @waiters: the
 * binds waiting for it, linked by @next_waiter.  @became: what a bind
 * became (its waiters moved there).
 */
struct pr_promise {
	struct pr_loop *loop;
	uint64_t task;
	enum pr_state state;
	intptr_t value;
	const char *reason;
	struct pr_promise *became;
	struct pr_promise *waiters;
	struct pr_promise *next_waiter;
	struct pr_promise *input;
	pr_fn fn;
	void *arg;
};

struct pr_post_item {
	void (*fn)(void *arg);
	void *arg;
	struct pr_post_item *next;
};

struct pr_loop {
	int epfd, evfd;
	uint64_t task, cur;
	uint64_t creator;	/* pr_creator(): who creates promises, if not @cur */
	bool stopped;
	/* The run queue: binds whose input is settled, in order. */
	struct pr_promise **runq;
	size_t head, tail, cap;
	/* Posts from other threads, under @post_lock; @evfd wakes the loop. */
	pthread_mutex_t post_lock;
	struct pr_post_item *posts, **posts_tail;
};

/* ---- arena ------------------------------------------------------------------------- */

#define ARENA_CHUNK 65536

struct pr_arena {
	struct pr_chunk *chunks;
	size_t used;
};

struct pr_chunk {
	struct pr_chunk *next;
	_Alignas(16) unsigned char mem[ARENA_CHUNK];
};

struct pr_arena *pr_arena_new(void)
{
	return calloc(1, sizeof(struct pr_arena));
}

void pr_arena_free(struct pr_arena *a)
{
	while (a && a->chunks) {
		struct pr_chunk *c = a->chunks;

		a->chunks = c->next;
		free(c);
	}
	free(a);
}

static void *arena_alloc(struct pr_arena *a, size_t n)
{
	n = (n + 15) & ~(size_t)15;
	if (!a->chunks || a->used + n > ARENA_CHUNK) {
		struct pr_chunk *c = malloc(sizeof(*c));

		if (!c) {
			fprintf(stderr, "promise: out of memory\n");
			abort();
		}
		c->next = a->chunks;
		a->chunks = c;
		a->used = 0;
	}
	a->used += n;
	return memset(a->chunks->mem + a->used - n, 0, n);
}

/* ---- the loop ---------------------------------------------------------------------- */

static void run_posts(struct pr_loop *l);
static void bind_run(struct pr_promise *b);

static void die(const char *what)
{
	fprintf(stderr, "promise: %s: %s\n", what, strerror(errno));
	exit(1);
}

struct pr_loop *pr_loop_new(const char *name)
{
	struct pr_loop *l = calloc(1, sizeof(*l));
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };

	if (!l)
		die("calloc");
	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	l->evfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (l->epfd < 0 || l->evfd < 0 || epoll_ctl(l->epfd, EPOLL_CTL_ADD, l->evfd, &ev))
		die("epoll");
	pthread_mutex_init(&l->post_lock, NULL);
	l->posts_tail = &l->posts;
	l->task = rtr_task_id();
	rtr_create(0, l->task, RTR_KIND_TASK);
	rtr_label(l->task, name);
	l->cur = l->task;
	return l;
}

uint64_t pr_creator(struct pr_loop *l, uint64_t task)
{
	uint64_t prev = l->creator;

	l->creator = task;
	return prev;
}

/* What other threads posted and the loop did not run yet runs now: nothing leaks. */
void pr_loop_free(struct pr_loop *l)
{
	run_posts(l);
	rtr_resolve(l->task, l->task);
	close(l->epfd);
	close(l->evfd);
	pthread_mutex_destroy(&l->post_lock);
	free(l->runq);
	free(l);
}

uint64_t pr_current(struct pr_loop *l)
{
	return l->cur;
}

uint64_t pr_enter(struct pr_loop *l, uint64_t task)
{
	uint64_t prev = l->cur;

	l->cur = task;
	rtr_switch(task);
	return prev;
}

void pr_leave(struct pr_loop *l, uint64_t prev)
{
	l->cur = prev;
	rtr_switch(prev);
}

uint64_t pr_loop_task(struct pr_loop *l)
{
	return l->task;
}

void pr_loop_stop(struct pr_loop *l)
{
	l->stopped = true;
}

static void runq_push(struct pr_loop *l, struct pr_promise *b)
{
	if (l->tail - l->head == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		struct pr_promise **q = malloc(cap * sizeof(*q));

		if (!q)
			die("malloc");
		for (size_t i = 0; i < l->tail - l->head; i++)
			q[i] = l->runq[(l->head + i) % l->cap];
		free(l->runq);
		l->runq = q;
		l->tail -= l->head;
		l->head = 0;
		l->cap = cap;
	}
	l->runq[l->tail++ % l->cap] = b;
}

void pr_post(struct pr_loop *l, void (*fn)(void *arg), void *arg)
{
	struct pr_post_item *it = malloc(sizeof(*it));
	uint64_t one = 1;

	if (!it)
		die("malloc");
	it->fn = fn;
	it->arg = arg;
	it->next = NULL;
	pthread_mutex_lock(&l->post_lock);
	*l->posts_tail = it;
	l->posts_tail = &it->next;
	pthread_mutex_unlock(&l->post_lock);
	if (write(l->evfd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		die("eventfd");
}

static void run_posts(struct pr_loop *l)
{
	struct pr_post_item *it;
	uint64_t n;

	if (read(l->evfd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		die("eventfd");
	pthread_mutex_lock(&l->post_lock);
	it = l->posts;
	l->posts = NULL;
	l->posts_tail = &l->posts;
	pthread_mutex_unlock(&l->post_lock);
	/* Each event is handled whole, the binds it made ready included, before the next. */
	while (it) {
		struct pr_post_item *next = it->next;

		it->fn(it->arg);
		free(it);
		while (l->head != l->tail)
			bind_run(l->runq[l->head++ % l->cap]);
		it = next;
	}
}

/* ---- promises ---------------------------------------------------------------------- */

static struct pr_promise *follow(struct pr_promise *p)
{
	while (p->became)
		p = p->became;
	return p;
}

uint64_t pr_task(const struct pr_promise *p)
{
	return p->task;
}

enum pr_state pr_state(const struct pr_promise *p)
{
	while (p->became)
		p = p->became;
	return p->state;
}

intptr_t pr_value(const struct pr_promise *p)
{
	while (p->became)
		p = p->became;
	return p->value;
}

const char *pr_reason(const struct pr_promise *p)
{
	while (p->became)
		p = p->became;
	return p->reason ? p->reason : "";
}

static struct pr_promise *promise_new(struct pr_arena *a, struct pr_loop *l, uint8_t kind,
				      const char *label)
{
	struct pr_promise *p = arena_alloc(a, sizeof(*p));

	p->loop = l;
	p->task = rtr_task_id();
	rtr_create(l->creator ? l->creator : l->cur, p->task, kind);
	if (label)
		rtr_label(p->task, label);
	return p;
}

struct pr_promise *pr_wait(struct pr_arena *a, struct pr_loop *l, uint8_t kind, const char *label)
{
	return promise_new(a, l, kind, label);
}

/* Settled: the binds waiting for @p may run. */
static void wake_waiters(struct pr_promise *p)
{
	while (p->waiters) {
		struct pr_promise *w = p->waiters;

		p->waiters = w->next_waiter;
		w->next_waiter = NULL;
		runq_push(p->loop, w);
	}
}

void pr_resolve(struct pr_promise *p, uint64_t resolver, intptr_t value)
{
	if (p->state != PR_PENDING || p->became)
		return;
	p->state = PR_RESOLVED;
	p->value = value;
	rtr_resolve(resolver, p->task);
	wake_waiters(p);
}

void pr_fail(struct pr_promise *p, uint64_t resolver, const char *reason)
{
	if (p->state != PR_PENDING || p->became)
		return;
	p->state = PR_FAILED;
	p->reason = reason;
	rtr_fail(resolver, p->task, reason);
	wake_waiters(p);
}

static void add_waiter(struct pr_promise *p, struct pr_promise *b)
{
	b->input = p;
	b->next_waiter = p->waiters;
	p->waiters = b;
}

struct pr_promise *pr_then(struct pr_arena *a, struct pr_promise *p, pr_fn fn, void *arg,
			   const char *label)
{
	struct pr_loop *l = p->loop;
	struct pr_promise *b = promise_new(a, l, RTR_KIND_BIND, label);

	p = follow(p);
	b->fn = fn;
	b->arg = arg;
	if (p->state == PR_PENDING) {
		rtr_try_read(b->task, p->task);
		add_waiter(p, b);
	} else {
		b->input = p;
		runq_push(l, b);
	}
	return b;
}

/* A bind whose input is settled runs: it reads it, calls its callback, settles or becomes. */
static void bind_run(struct pr_promise *b)
{
	struct pr_loop *l = b->loop;
	struct pr_promise *p = follow(b->input), *q;

	l->cur = b->task;
	rtr_switch(b->task);
	rtr_read(b->task, p->task);
	if (p->state == PR_FAILED) {
		pr_fail(b, b->task, p->reason);
		goto out;
	}
	q = b->fn(b->arg, p);
	if (!q) {
		pr_resolve(b, b->task, p->value);
		goto out;
	}
	q = follow(q);
	if (q->state == PR_RESOLVED) {
		rtr_read(b->task, q->task);
		pr_resolve(b, b->task, q->value);
	} else if (q->state == PR_FAILED) {
		rtr_read(b->task, q->task);
		pr_fail(b, b->task, q->reason);
	} else {
		/* b goes on as q: its waiters now wait for q. */
		rtr_becomes(b->task, q->task);
		b->became = q;
		while (b->waiters) {
			struct pr_promise *w = b->waiters;

			b->waiters = w->next_waiter;
			add_waiter(q, w);
		}
	}
out:
	l->cur = l->task;
	rtr_switch(l->task);
}

/* ---- file descriptors -------------------------------------------------------------- */

struct pr_promise *pr_readable(struct pr_arena *a, struct pr_loop *l, int fd, const char *label)
{
	struct pr_promise *p = promise_new(a, l, RTR_KIND_WAIT, label);
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP | EPOLLONESHOT, .data.ptr = p };

	if (epoll_ctl(l->epfd, EPOLL_CTL_MOD, fd, &ev) && (errno != ENOENT ||
	    epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &ev)))
		die("epoll_ctl");
	return p;
}

/* ---- conditions -------------------------------------------------------------------- */

void pr_cond_init(struct pr_cond *c, struct pr_loop *l, const char *label)
{
	memset(c, 0, sizeof(*c));
	c->loop = l;
	c->label = label;
	c->task = rtr_named_condition(l->cur, label);
}

struct pr_promise *pr_cond_wait(struct pr_arena *a, struct pr_cond *c)
{
	struct pr_promise *w = promise_new(a, c->loop, RTR_KIND_WAIT, c->label);

	if (c->nwaiters == PR_COND_WAITERS) {
		pr_fail(w, c->task, "too many waiters");
		return w;
	}
	rtr_try_read(w->task, c->task);
	c->waiters[c->nwaiters++] = w;
	return w;
}

unsigned pr_cond_broadcast(struct pr_cond *c, intptr_t value)
{
	uint64_t me = c->loop->cur;
	unsigned n = c->nwaiters;

	rtr_signal(me, c->task);
	c->nwaiters = 0;
	for (unsigned i = 0; i < n; i++) {
		rtr_read(c->waiters[i]->task, c->task);
		pr_resolve(c->waiters[i], me, value);
	}
	return n;
}

/* ---- running ----------------------------------------------------------------------- */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static bool done(struct pr_loop *l, struct pr_promise *until)
{
	return l->stopped || (until && pr_state(until) != PR_PENDING);
}

int pr_loop_run(struct pr_loop *l, struct pr_promise *until, uint64_t timeout_ns)
{
	uint64_t deadline = timeout_ns ? now_ns() + timeout_ns : 0;

	l->stopped = false;
	rtr_switch(l->task);
	for (;;) {
		struct epoll_event evs[64];
		int n, ms = -1;

		while (l->head != l->tail && !done(l, until))
			bind_run(l->runq[l->head++ % l->cap]);
		if (done(l, until))
			return 0;
		if (deadline) {
			uint64_t now = now_ns();

			if (now >= deadline)
				return -ETIMEDOUT;
			ms = (int)((deadline - now + 999999) / 1000000);
		}
		rtr_switch(0);
		n = epoll_wait(l->epfd, evs, 64, ms);
		rtr_switch(l->task);
		if (n < 0 && errno != EINTR)
			die("epoll_wait");
		for (int i = 0; i < n; i++) {
			struct pr_promise *p = evs[i].data.ptr;

			if (!p)
				run_posts(l);
			else
				pr_resolve(p, l->task, (intptr_t)evs[i].events);
		}
	}
}
