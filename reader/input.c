// SPDX-License-Identifier: MIT
/* reader/input.c - trace arguments: directories, chunks, '-' (input.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "format/stream.h"
#include "reader/spool.h"
#include "reader/input.h"
#include "reader/live.h"
#include "format/error.h"

struct spool {
	pthread_t thread;
	int fd;			/* the framed stream: standard input, or the live client's pipe */
	/* net://: the live client, writing the stream into the pipe */
	pthread_t live_thread;
	bool live_started;
	volatile bool live_stop;
	char *url;
	int live_fd;
	int live_ret;
	char live_err[600];
	struct tr_spool *files;	/* the trace directory it is written into */
	struct rtr_stream_report rep;
	int ret;
	pthread_mutex_t lock;
	pthread_cond_t ended_cond;
	bool ended;		/* the stream is copied whole (or failed): nothing more comes */
	bool copied;		/* its reading is over, its closing (the state file) under way */
	/* a follower stopped before the stream's end: the copy is cut (stop_copy()) */
	volatile sig_atomic_t stop;
};

static void *live_main(void *arg)
{
	struct spool *sp = arg;

	sp->live_ret = tr_live_copy(sp->url, sp->live_fd, &sp->live_stop, sp->live_err,
				    sizeof(sp->live_err));
	close(sp->live_fd);	/* the spool sees the stream's end (or its cut) */
	return NULL;
}

/* net://...: the live client in a thread of its own, writing into a pipe the spool reads. */
static int live_start(struct spool *sp, const char *url, char *err, size_t errlen)
{
	int pfd[2], ret;

	sp->url = strdup(url);
	if (!sp->url || pipe2(pfd, O_CLOEXEC) < 0) {
		return rtr_errf(err, errlen, ENOMEM, "cannot start the live client: %s",
				strerror(errno));
	}
	sp->fd = pfd[0];
	sp->live_fd = pfd[1];
	ret = pthread_create(&sp->live_thread, NULL, live_main, sp);
	if (ret) {
		rtr_errf(err, errlen, 0, "cannot start the live client: %s", strerror(ret));
		close(pfd[1]);
		return -ret;
	}
	sp->live_started = true;
	return 0;
}

/* Wait for the live client's end; what it failed with, over the spool's. */
static void live_join(struct spool *sp)
{
	if (!sp->live_started)
		return;
	pthread_join(sp->live_thread, NULL);
	sp->live_started = false;
	if (sp->live_ret && !sp->live_stop) {
		sp->ret = sp->live_ret;
		snprintf(sp->rep.err, sizeof(sp->rep.err), "%s", sp->live_err);
	}
}

static void *spool_main(void *arg)
{
	struct spool *sp = arg;

	sp->ret = rtr_frames_copy(sp->fd, tr_spool_sink(sp->files), sp->url ? NULL : &sp->stop,
				  &sp->rep);
	/*
	 * A follower may see the final state file before @ended: closing then
	 * must wait for the thread, not stop it, or the stream's cut would be
	 * taken for the follower's (and not said).
	 */
	pthread_mutex_lock(&sp->lock);
	sp->copied = true;
	pthread_mutex_unlock(&sp->lock);
	live_join(sp);	/* its error, not the stream's cut, says what went wrong */
	tr_spool_close(sp->files, sp->ret == 0 && !sp->rep.writer_stopped_early);
	pthread_mutex_lock(&sp->lock);
	sp->ended = true;
	pthread_cond_broadcast(&sp->ended_cond);
	pthread_mutex_unlock(&sp->lock);
	return NULL;
}

void tr_input_wait(struct tr_input *in, int ms)
{
	struct spool *sp = in->priv;
	struct timespec until;

	if (!sp || !in->spooling) {
		usleep((useconds_t)ms * 1000);
		return;
	}
	/* A live session: look again soon, each packet's lag is what it is read for. */
	if (sp->url && ms > 20)
		ms = 20;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += ms / 1000;
	until.tv_nsec += (long)(ms % 1000) * 1000000;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&sp->lock);
	while (!sp->ended && pthread_cond_timedwait(&sp->ended_cond, &sp->lock, &until) == 0)
		;
	pthread_mutex_unlock(&sp->lock);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_dirs(struct tr_input *in)
{
	for (uint32_t i = 0; i < in->ndirs; i++)
		free(in->dirs[i]);
	free(in->dirs);
	in->dirs = NULL;
	in->ndirs = 0;
}

/* The input is the one trace directory @in->root. */
static int root_only(struct tr_input *in, char *err, size_t errlen)
{
	in->dirs = malloc(sizeof(*in->dirs));
	if (!in->dirs || !(in->dirs[0] = strdup(in->root))) {
		return rtr_errf(err, errlen, ENOMEM, "out of memory");
	}
	in->ndirs = 1;
	return 0;
}

#define FIND_DEPTH	8	/* how deep traces are searched for below a directory */
#define FIND_MAX	65536	/* and how many */

/* Add @path to @in->dirs.  Return: 0, or -ENOMEM. */
static int add_dir(struct tr_input *in, uint32_t *cap, const char *path)
{
	if (in->ndirs == *cap) {
		char **nd = realloc(in->dirs, (*cap = *cap ? 2 * *cap : 16) * sizeof(*nd));

		if (!nd)
			return -ENOMEM;
		in->dirs = nd;
	}
	if (!(in->dirs[in->ndirs] = strdup(path)))
		return -ENOMEM;
	in->ndirs++;
	return 0;
}

/*
 * The traces below @dir (each directory with a regular file "metadata";
 * not searched further down), @depth levels deep at most, as babeltrace2
 * finds them; symbolic links to directories are not followed.
 * Return: 0, or -ENOMEM.
 */
static int find_traces(struct tr_input *in, uint32_t *cap, const char *dir, int depth)
{
	char path[4096];
	struct dirent *e;
	struct stat st;
	int ret = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%s/metadata", dir);
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
		return add_dir(in, cap, dir);
	if (depth >= FIND_DEPTH || !(d = opendir(dir)))
		return 0;
	while (!ret && in->ndirs < FIND_MAX && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		/* a symbolic link is not followed: no loop, no tour of the file system */
		if (snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >= (int)sizeof(path) ||
		    lstat(path, &st) || !S_ISDIR(st.st_mode))
			continue;
		ret = find_traces(in, cap, path, depth + 1);
	}
	closedir(d);
	return ret;
}

int tr_input_rescan(struct tr_input *in, char *err, size_t errlen)
{
	char path[4096];
	struct dirent *e;
	uint32_t cap = 0, nsnap = 0;
	DIR *d;

	free_dirs(in);
	in->found = false;
	snprintf(path, sizeof(path), "%s/metadata", in->root);
	if (access(path, F_OK) == 0 || !(d = opendir(in->root))) {
		/* A trace directory (or not a directory: tr_open() says what is wrong). */
		return root_only(in, err, errlen);
	}
	while ((e = readdir(d))) {
		if (!strncmp(e->d_name, "snapshot-", 9))
			nsnap++;
		if (strncmp(e->d_name, "chunk-", 6))
			continue;
		if (in->ndirs == cap) {
			char **nd = realloc(in->dirs, (cap = cap ? 2 * cap : 16) * sizeof(*nd));

			if (!nd)
				break;
			in->dirs = nd;
		}
		snprintf(path, sizeof(path), "%s/%s", in->root, e->d_name);
		if (!(in->dirs[in->ndirs] = strdup(path)))
			break;
		in->ndirs++;
	}
	closedir(d);
	if (!in->ndirs && !nsnap) {
		/* no chunks: the traces below it, if any (babeltrace2 reads them so) */
		if (find_traces(in, &cap, in->root, 0)) {
			return rtr_errf(err, errlen, ENOMEM, "out of memory");
		}
		in->found = in->ndirs > 0;
	}
	if (!in->ndirs) {
		if (nsnap) {
			return rtr_errf(err, errlen, EISDIR,
					"%s: holds %u snapshots, each a trace: name one "
					"(%s/snapshot-000000 ...)",
					in->root, nsnap, in->root);
		}
		return rtr_errf(err, errlen, ENOENT,
				"%s/metadata: %s (not a CTF trace directory, nor a "
				"directory of chunks or of traces)",
				in->root, strerror(ENOENT));
	}
	qsort(in->dirs, in->ndirs, sizeof(*in->dirs), cmp_str);
	return 0;
}

int tr_input_open(struct tr_input *in, const char *arg, bool live, char *err, size_t errlen)
{
	const char *tmp = getenv("TMPDIR");
	struct spool *sp;
	char tpl[4096];
	int ret;

	memset(in, 0, sizeof(*in));
	if (strcmp(arg, "-") && strncmp(arg, TR_LIVE_SCHEME, strlen(TR_LIVE_SCHEME))) {
		in->root = strdup(arg);
		if (!in->root) {
			return rtr_errf(err, errlen, ENOMEM, "out of memory");
		}
		return tr_input_rescan(in, err, errlen);
	}
	snprintf(tpl, sizeof(tpl), "%s/ringtrace-stdin-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(tpl)) {
		ret = -errno;
		return rtr_errf(err, errlen, -ret, "%s: cannot create a spool directory: %s", tpl,
				strerror(-ret));
	}
	in->spool = strdup(tpl);
	snprintf(tpl + strlen(tpl), sizeof(tpl) - strlen(tpl), "/trace");
	in->root = strdup(tpl);
	sp = calloc(1, sizeof(*sp));
	if (!in->spool || !in->root || !sp) {
		free(sp);
		return rtr_errf(err, errlen, ENOMEM, "out of memory");
	}
	in->priv = sp;
	sp->fd = STDIN_FILENO;
	pthread_mutex_init(&sp->lock, NULL);
	pthread_cond_init(&sp->ended_cond, NULL);
	ret = tr_spool_open(&sp->files, in->root, err, errlen);
	if (ret)
		return ret;
	if (strcmp(arg, "-")) {
		ret = live_start(sp, arg, err, errlen);
		if (ret) {
			tr_spool_close(sp->files, false);
			return ret;
		}
	}
	if (live) {
		ret = pthread_create(&sp->thread, NULL, spool_main, sp);
		if (ret) {
			rtr_errf(err, errlen, 0, "cannot start the spooling thread: %s",
				 strerror(ret));
			tr_spool_close(sp->files, false);
			return -ret;
		}
		in->spooling = true;
		/* The trace directory exists at once; its metadata comes first in the stream. */
		return root_only(in, err, errlen);
	}
	spool_main(sp);
	if (tr_input_rescan(in, err, errlen)) {
		return rtr_errf(err, errlen, EPROTO, "%s",
				sp->ret ? sp->rep.err : "standard input: no trace");
	}
	/* What came before the problem is still read: the caller says so and goes on. */
	if (sp->ret) {
		snprintf(in->stream_err, sizeof(in->stream_err), "%s", sp->rep.err);
		in->stream_failed = true;
	}
	return 0;
}

/* Remove a spool directory: our own files only, one level of chunks. */
static void remove_tree(const char *dir, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[4096];

	if (!d)
		return;
	while ((e = readdir(d))) {
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && depth < 3)
			remove_tree(path, depth + 1);
		else
			unlink(path);
	}
	closedir(d);
	rmdir(dir);
}

bool tr_input_ended(struct tr_input *in)
{
	struct spool *sp = in->priv;
	bool ended;

	if (!sp || !in->spooling)
		return true;
	pthread_mutex_lock(&sp->lock);
	ended = sp->ended;
	pthread_mutex_unlock(&sp->lock);
	/* the spooling thread is done with the report: read it here */
	if (ended && sp->ret && !sp->stop && !in->stream_failed) {
		snprintf(in->stream_err, sizeof(in->stream_err), "%s", sp->rep.err);
		in->stream_failed = true;
	}
	return ended;
}

static void on_stop_signal(int sig)
{
	(void)sig;	/* only to cut the spool's blocked read short (EINTR) */
}

/*
 * A follower closing before the stream on standard input ended (a window
 * closed while the program still runs): the copy is stopped, its read cut
 * short by SIGURG (ignored by default; a handler without SA_RESTART is
 * installed for it, doing nothing), sent again until the thread has ended
 * (it may not have been blocked in read() yet).
 */
static void stop_copy(struct spool *sp)
{
	struct sigaction sa = { .sa_handler = on_stop_signal };
	bool ended;

	pthread_mutex_lock(&sp->lock);
	ended = sp->ended || sp->copied;
	pthread_mutex_unlock(&sp->lock);
	if (ended || sp->url)
		return;	/* it ends by itself: joined */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGURG, &sa, NULL);
	sp->stop = 1;
	for (;;) {
		struct timespec until;

		pthread_kill(sp->thread, SIGURG);
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 50 * 1000000;
		if (until.tv_nsec >= 1000000000) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000;
		}
		pthread_mutex_lock(&sp->lock);
		if (!sp->ended)
			pthread_cond_timedwait(&sp->ended_cond, &sp->lock, &until);
		ended = sp->ended;
		pthread_mutex_unlock(&sp->lock);
		if (ended)
			break;
	}
}

int tr_input_close(struct tr_input *in, char *err, size_t errlen)
{
	struct spool *sp = in->priv;
	int ret;

	if (sp)
		sp->live_stop = true;	/* a follower stopped early: the live client too */
	if (sp && in->spooling)
		stop_copy(sp);
	if (sp && in->spooling)
		pthread_join(sp->thread, NULL);
	if (sp && sp->fd != STDIN_FILENO)
		close(sp->fd);
	/* stopped by its follower: cut on purpose, not damaged */
	if (sp && in->spooling && sp->ret && !sp->stop) {
		snprintf(in->stream_err, sizeof(in->stream_err), "%s", sp->rep.err);
		in->stream_failed = true;
	}
	ret = in->stream_failed ? -EPIPE : 0;
	if (ret && err)
		rtr_errf(err, errlen, 0, "%s", in->stream_err);
	if (in->spool)
		remove_tree(in->spool, 0);
	if (sp)
		free(sp->url);
	free(sp);
	free_dirs(in);
	free(in->root);
	free(in->spool);
	memset(in, 0, sizeof(*in));
	return ret;
}
