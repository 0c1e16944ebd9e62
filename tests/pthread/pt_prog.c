// SPDX-License-Identifier: MIT
/*
 * tests/pthread/pt_prog.c - rtr-pthread-prog: a plain pthread program (not
 * built with ringtrace) that tests/pthread/test_pthread.c records with
 * libringtrace-pthread preloaded.  Each scenario makes one thing happen for
 * certain (a waiter is asleep before it is woken: its state is read from
 * /proc) and prints what the trace must show: "NAME 0xADDRESS" lines for
 * the objects, thread names set with pthread_setname_np.
 *
 *   rtr-pthread-prog sync      a contended mutex, a condition wait, a lost
 *                              signal, a semaphore, a barrier, an rwlock,
 *                              a recursive mutex, a quiet mutex; threads
 *                              joined, detached, exited, cancelled
 *   rtr-pthread-prog fork      forks while other threads create, join and
 *                              contend; each child makes and joins a thread
 *   rtr-pthread-prog signal    a signal handler that locks, sent while the
 *                              thread it interrupts is in the wrappers
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PT_NAME "rtr-pthread-prog"
#include "tests/pthread/pt_util.h"

static pthread_mutex_t contended = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t quiet = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t cond_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static pthread_cond_t lost = PTHREAD_COND_INITIALIZER;
static pthread_rwlock_t rwlock = PTHREAD_RWLOCK_INITIALIZER;
static pthread_barrier_t barrier;
static sem_t sem;
static int ready;
static volatile pid_t tid_of_waiter;

static void *contender(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "contender");
	tid_of_waiter = gettid_();
	CHECK(pthread_mutex_lock(&contended));
	CHECK(pthread_mutex_unlock(&contended));
	return NULL;
}

static void *cond_waiter(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "cond-waiter");
	CHECK(pthread_mutex_lock(&cond_lock));
	tid_of_waiter = gettid_();
	while (!ready)
		CHECK(pthread_cond_wait(&cond, &cond_lock));
	CHECK(pthread_mutex_unlock(&cond_lock));
	return NULL;
}

static void *sem_waiter(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "sem-waiter");
	tid_of_waiter = gettid_();
	while (sem_wait(&sem))
		CHECK(errno == EINTR ? 0 : errno);
	return NULL;
}

static void *rw_writer(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "rw-writer");
	tid_of_waiter = gettid_();
	CHECK(pthread_rwlock_wrlock(&rwlock));
	CHECK(pthread_rwlock_unlock(&rwlock));
	return NULL;
}

static void *barrier_party(void *arg)
{
	pthread_setname_np(pthread_self(), arg);
	pthread_barrier_wait(&barrier);
	return NULL;
}

static void *exiter(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "exiter");
	pthread_exit(NULL);
}

static void *cancelled(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "cancelled");
	for (;;)
		pause();
	return NULL;
}

static void *detached(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "detached");
	CHECK(sem_post(arg ? arg : &sem));
	return NULL;
}

static pthread_t start(void *(*fn)(void *), void *arg)
{
	pthread_t t;

	tid_of_waiter = 0;
	CHECK(pthread_create(&t, NULL, fn, arg));
	return t;
}

static void await_tid(void)
{
	while (!tid_of_waiter)
		usleep(100);
}

static int scenario_sync(void)
{
	pthread_mutexattr_t ra;
	pthread_mutex_t recursive;
	pthread_attr_t da;
	pthread_t t, t2;
	sem_t done;

	printf("contended %p\nquiet %p\ncond %p\nlost %p\nsem %p\nrwlock %p\nbarrier %p\n",
	       (void *)&contended, (void *)&quiet, (void *)&cond, (void *)&lost, (void *)&sem,
	       (void *)&rwlock, (void *)&barrier);
	fflush(stdout);

	/* Uncontended: nothing recorded. */
	for (int i = 0; i < 1000; i++) {
		CHECK(pthread_mutex_lock(&quiet));
		CHECK(pthread_mutex_unlock(&quiet));
	}
	CHECK(pthread_mutexattr_init(&ra));
	CHECK(pthread_mutexattr_settype(&ra, PTHREAD_MUTEX_RECURSIVE));
	CHECK(pthread_mutex_init(&recursive, &ra));
	printf("recursive %p\n", (void *)&recursive);
	CHECK(pthread_mutex_lock(&recursive));
	CHECK(pthread_mutex_lock(&recursive));
	CHECK(pthread_mutex_unlock(&recursive));
	CHECK(pthread_mutex_unlock(&recursive));

	/* A contended mutex: the contender sleeps on it, then we let go. */
	CHECK(pthread_mutex_lock(&contended));
	t = start(contender, NULL);
	await_tid();
	wait_asleep(tid_of_waiter);
	CHECK(pthread_mutex_unlock(&contended));
	CHECK(pthread_join(t, NULL));

	/* A signal nobody waits for, then a condition wait that is signalled. */
	CHECK(pthread_cond_signal(&lost));
	t = start(cond_waiter, NULL);
	await_tid();
	wait_asleep(tid_of_waiter);
	CHECK(pthread_mutex_lock(&cond_lock));
	ready = 1;
	CHECK(pthread_cond_signal(&cond));
	CHECK(pthread_mutex_unlock(&cond_lock));
	CHECK(pthread_join(t, NULL));

	/* A semaphore: the waiter sleeps; we post. */
	CHECK(sem_init(&sem, 0, 0));
	t = start(sem_waiter, NULL);
	await_tid();
	wait_asleep(tid_of_waiter);
	CHECK(sem_post(&sem));
	CHECK(pthread_join(t, NULL));

	/* An rwlock held for reading; the writer sleeps. */
	CHECK(pthread_rwlock_rdlock(&rwlock));
	t = start(rw_writer, NULL);
	await_tid();
	wait_asleep(tid_of_waiter);
	CHECK(pthread_rwlock_unlock(&rwlock));
	CHECK(pthread_join(t, NULL));

	/* A barrier of two. */
	CHECK(pthread_barrier_init(&barrier, NULL, 2));
	t = start(barrier_party, "party-1");
	t2 = start(barrier_party, "party-2");
	CHECK(pthread_join(t, NULL));
	CHECK(pthread_join(t2, NULL));

	/* pthread_exit(), cancellation, a detached thread. */
	t = start(exiter, NULL);
	CHECK(pthread_join(t, NULL));
	t = start(cancelled, NULL);
	CHECK(pthread_cancel(t));
	CHECK(pthread_join(t, NULL));
	CHECK(sem_init(&done, 0, 0));
	CHECK(pthread_attr_init(&da));
	CHECK(pthread_attr_setdetachstate(&da, PTHREAD_CREATE_DETACHED));
	CHECK(pthread_create(&t, &da, detached, &done));
	while (sem_wait(&done))
		;
	usleep(20000);	/* its end, after the post */
	printf("ok\n");
	return 0;
}

/* ---- fork ------------------------------------------------------------------------- */

static volatile int stop;

static void *nothing(void *arg)
{
	return arg;
}

static void *churn(void *arg)
{
	(void)arg;
	while (!stop) {
		pthread_t t;

		if (pthread_create(&t, NULL, nothing, NULL) == 0)
			pthread_join(t, NULL);
		pthread_mutex_lock(&contended);
		pthread_mutex_unlock(&contended);
	}
	return NULL;
}

static int scenario_fork(void)
{
	pthread_t churners[2];

	for (int i = 0; i < 2; i++)
		CHECK(pthread_create(&churners[i], NULL, churn, NULL));
	for (int i = 0; i < 50; i++) {
		pid_t pid = fork();
		int st;

		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0) {
			pthread_t t;

			alarm(20);
			if (pthread_create(&t, NULL, nothing, NULL) || pthread_join(t, NULL))
				_exit(3);
			pthread_cond_signal(&lost);
			_exit(0);
		}
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
			fprintf(stderr, "rtr-pthread-prog: child %d of fork %d: status %#x\n", (int)pid,
				i, st);
			return 1;
		}
	}
	stop = 1;
	for (int i = 0; i < 2; i++)
		CHECK(pthread_join(churners[i], NULL));
	printf("ok\n");
	return 0;
}

/* ---- signal handlers that lock ---------------------------------------------------- */

static pthread_mutex_t handler_lock = PTHREAD_MUTEX_INITIALIZER;
static volatile unsigned long handled;

static void on_usr1(int sig)
{
	(void)sig;
	/* Not async-signal-safe by POSIX; programs do it, and it must not hang in us. */
	pthread_mutex_lock(&handler_lock);
	handled++;
	pthread_mutex_unlock(&handler_lock);
}

static void *victim(void *arg)
{
	(void)arg;
	for (unsigned long i = 0; !stop; i++) {
		pthread_mutex_lock(&contended);
		pthread_mutex_unlock(&contended);
		if (i % 64 == 0) {
			pthread_mutex_lock(&cond_lock);
			pthread_cond_signal(&cond);
			pthread_mutex_unlock(&cond_lock);
		}
	}
	return NULL;
}

/* Takes the handler's lock with the signal blocked, as a correct program must. */
static void *rival(void *arg)
{
	sigset_t usr1, old;

	(void)arg;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	while (!stop) {
		pthread_mutex_lock(&contended);
		pthread_mutex_unlock(&contended);
		pthread_sigmask(SIG_BLOCK, &usr1, &old);
		pthread_mutex_lock(&handler_lock);
		usleep(10);
		pthread_mutex_unlock(&handler_lock);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	return NULL;
}

static int scenario_signal(void)
{
	struct sigaction sa;
	pthread_t v, r;
	struct timespec end, now;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_RESTART;
	CHECK(sigaction(SIGUSR1, &sa, NULL));
	CHECK(pthread_create(&v, NULL, victim, NULL));
	CHECK(pthread_create(&r, NULL, rival, NULL));
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_nsec += 500000000;
	if (end.tv_nsec >= 1000000000) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000;
	}
	do {
		pthread_kill(v, SIGUSR1);
		usleep(50);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec < end.tv_sec ||
		 (now.tv_sec == end.tv_sec && now.tv_nsec < end.tv_nsec));
	stop = 1;
	CHECK(pthread_join(v, NULL));
	CHECK(pthread_join(r, NULL));
	printf("handled %lu\nok\n", handled);
	return handled ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "sync"))
		return scenario_sync();
	if (argc == 2 && !strcmp(argv[1], "fork"))
		return scenario_fork();
	if (argc == 2 && !strcmp(argv[1], "signal"))
		return scenario_signal();
	fprintf(stderr, "usage: rtr-pthread-prog sync|fork|signal\n");
	return 2;
}
