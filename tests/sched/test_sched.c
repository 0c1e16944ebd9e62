// SPDX-License-Identifier: MIT
/*
 * tests/sched/test_sched.c - `ringtrace record --sched`: the kernel's view
 * of the traced threads.  rtr-sched-prog makes threads block, preempt each
 * other, migrate and rename themselves at moments it knows;
 * tests/sched/check_sched.py reads the trace with babeltrace2 and checks
 * the kernel's records against what the program measured (the clocks
 * agree, on-CPU time within 1 %).  Refused perf events (a seccomp filter,
 * rtr-no-perf) are said once and the rest of the trace is whole.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <ringtrace/ringtrace.h>
#include "reader/model.h"
#include "reader/symbols.h"
#include "view/render.h"
#include "view/scene.h"
#include "tests/helpers.h"

TestSuite(sched, .timeout = 300);

static char dir[64];
/* where record() runs ringtrace from: the build's, or a copy (an unprivileged user's) */
static const char *rec_bindir;

static void setup(void)
{
	t_mkdtemp(dir, sizeof(dir), "sched");
}

static void teardown(void)
{
	t_rm_rf(dir);
}

/* `[@wrap] ringtrace record @opts -o DIR/@name -- @prog`: its exit status; output in DIR/@name.{out,err}. */
static int record(const char *wrap, const char *opts, const char *name, const char *prog)
{
	char cmd[2048];
	int st;
	char *out;

	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && " T_PRELOAD_ENV "timeout -s KILL 120 %s '%s/ringtrace' record %s -o '%s/%s' "
		 "-- %s >'%s/%s.out' 2>'%s/%s.err'; echo $?",
		 dir, wrap, rec_bindir ? rec_bindir : t_bindir(), opts, dir, name, prog, dir, name,
		 dir, name);
	out = t_sh(cmd, &st);
	cr_assert_eq(st, 0, "%s", cmd);
	st = atoi(out);
	free(out);
	return st;
}

static char *sh(const char *fmt, const char *a, const char *b, int *st)
{
	char cmd[2048];

	snprintf(cmd, sizeof(cmd), fmt, a, b, a, b);
	return t_sh(cmd, st);
}

/* check_sched.py MODE TRACE ARG: must pass; its figures go to the log. */
static void checker(const char *mode, const char *name, const char *arg)
{
	char cmd[1024];
	int st;
	char *out;

	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 '%s/tests/sched/check_sched.py' %s '%s/%s' %s 2>&1",
		 t_srcdir(), mode, dir, name, arg);
	out = t_sh(cmd, &st);
	cr_log_info("%s", out);
	cr_assert_eq(st, 0, "%s:\n%s", cmd, out);
	free(out);
}

/* `ringtrace check` calls the trace ok, and it has @want kernel streams (or none). */
static void check_ok(const char *name, bool kernel)
{
	char path[256];
	int st;
	char *out;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	out = sh("'%s/ringtrace' check '%s' 2>&1", t_bindir(), path, &st);
	cr_assert_eq(st, 0, "%s", out);
	cr_assert_not_null(strstr(out, "check: ok"), "%s", out);
	/* the kernel's streams are stream_(32768 + cpu): the CPUs the program ran on, any */
	if (kernel)
		cr_assert_not_null(strstr(out, "stream_327"), "no kernel stream:\n%s", out);
	else
		cr_assert_null(strstr(out, "stream_327"), "kernel streams:\n%s", out);
	free(out);
}

Test(sched, kernel_switches_lie_between_the_notes_around_each_sleep, .init = setup,
     .fini = teardown)
{
	char prog[512];

	snprintf(prog, sizeof(prog), "'%s/rtr-sched-prog' sleep 200", t_bindir());
	cr_assert_eq(record("", "--sched", "sleep", prog), 0);
	check_ok("sleep", true);
	checker("sleep", "sleep", "200");
}

Test(sched, on_cpu_time_preemption_migration_forks_and_names, .init = setup, .fini = teardown)
{
	char prog[512], out[256], cmd[2048], *res;
	int st;

	snprintf(prog, sizeof(prog), "'%s/rtr-sched-prog' spin 300", t_bindir());
	cr_assert_eq(record("", "--pthread", "spin", prog), 0);
	check_ok("spin", true);
	snprintf(out, sizeof(out), "'%s/spin.out'", dir);
	checker("spin", "spin", out);
	/* the model: thread lanes from the kernel's runs, by thread */
	snprintf(cmd, sizeof(cmd), "'%s/ringtrace' stats --json '%s/spin' > '%s/spin.json'",
		 t_bindir(), dir, dir);
	res = t_sh(cmd, &st);
	free(res);
	cr_assert_eq(st, 0);
	snprintf(out, sizeof(out), "'%s/spin.out' '%s/spin.json'", dir, dir);
	checker("stats", "spin", out);
	/* the SQLite export's thread states: the same times, span by span */
	snprintf(cmd, sizeof(cmd), "cd '%s' && '%s/ringtrace' export --format sqlite -o spin.db spin && "
		 "/usr/bin/python3 '%s/tests/tools/check_sqlite.py' spin.db spin.json "
		 "'%s/Documentation/analysis.rst' 2>&1", dir, t_bindir(), t_srcdir(), t_srcdir());
	res = t_sh(cmd, &st);
	cr_assert_eq(st, 0, "%s", res);
	cr_assert_not_null(strstr(res, "ok ("), "%s", res);
	cr_assert_null(strstr(res, "ok (0 threads"), "no thread's states checked: %s", res);
	free(res);
	/* the exports' runs say how each ended: as many preempted as stats counts */
	snprintf(cmd, sizeof(cmd), "cd '%s' && R='%s/ringtrace' && "
		 "$R export --format chrome -o - spin | grep -o '\"ended\":\"preempted\"' | wc -l "
		 "&& $R export --format perfetto -o - spin | protoc --proto_path='%s/tools' "
		 "--decode=perfetto.protos.Trace perfetto_trace.proto | "
		 "grep -c 'string_value: \"preempted\"' && /usr/bin/python3 -c 'import json; "
		 "print(sum(t.get(\"preempted\", 0) for t in json.load(open(\"spin.json\"))"
		 "[\"threads\"]))'", dir, t_bindir(), t_srcdir());
	res = t_sh(cmd, &st);
	cr_assert_eq(st, 0, "%s", res);
	long chrome = 0, perfetto = 0, stats = 0;

	cr_assert_eq(sscanf(res, "%ld %ld %ld", &chrome, &perfetto, &stats), 3, "%s", res);
	cr_expect(stats > 0, "no run ended preempted: %s", res);
	cr_expect_eq(chrome, stats, "%s", res);
	cr_expect_eq(perfetto, stats, "%s", res);
	free(res);
}

Test(sched, refused_perf_events_are_said_once_and_the_rest_recorded, .init = setup,
     .fini = teardown)
{
	char prog[512], wrap[512], path[256];
	int st;
	char *err;

	snprintf(prog, sizeof(prog), "'%s/rtr-sched-prog' sleep 5", t_bindir());
	snprintf(wrap, sizeof(wrap), "'%s/rtr-no-perf'", t_bindir());
	cr_assert_eq(record(wrap, "--sched", "refused", prog), 0);
	snprintf(path, sizeof(path), "%s/refused.err", dir);
	err = sh("cat '%s' '%s'", path, "/dev/null", &st);
	cr_assert_not_null(strstr(err, "ringtrace record: --sched: the kernel refused perf events"),
			   "%s", err);
	cr_assert_not_null(strstr(err, "recording without the kernel's view"), "%s", err);
	/* once */
	cr_assert_null(strstr(strstr(err, "--sched:") + 1, "--sched:"), "%s", err);
	free(err);
	check_ok("refused", false);
	/* the program's own events are all there */
	snprintf(path, sizeof(path), "%s/refused", dir);
	err = sh("'%s/ringtrace' dump '%s' | grep -c 'note: { text = \"after'", t_bindir(), path,
		 &st);
	cr_assert_eq(atoi(err), 5, "%s", err);
	free(err);
}

/*
 * stats --locks: a mutex held 30 ms while another thread waits for it, 8
 * times; the waits as the program measured them, who waited, who released.
 */
Test(sched, stats_locks_gives_each_wait_as_the_program_measured_it, .init = setup,
     .fini = teardown)
{
	char prog[512], cmd[1024], *res;
	int st;

	snprintf(prog, sizeof(prog), "'%s/rtr-sched-prog' contend 8", t_bindir());
	cr_assert_eq(record("", "--pthread --hold-times", "locks", prog), 0);
	check_ok("locks", true);
	snprintf(cmd, sizeof(cmd), "'%s/ringtrace' stats --locks --json '%s/locks' > '%s/locks.json'",
		 t_bindir(), dir, dir);
	res = t_sh(cmd, &st);
	free(res);
	cr_assert_eq(st, 0);
	snprintf(cmd, sizeof(cmd), "'%s/locks.out' '%s/locks.json' holds", dir, dir);
	checker("locks", "locks", cmd);
	/* hold times are the pthread wrapper's */
	snprintf(cmd, sizeof(cmd), "'%s/ringtrace' record --hold-times -o '%s/x' -- true 2>&1",
		 t_bindir(), dir);
	res = t_sh(cmd, &st);
	cr_assert_eq(st, 2, "%s", res);
	cr_assert_not_null(strstr(res, "--hold-times times the locks of --pthread"), "%s", res);
	free(res);
}

/* Through a pipe (-o -, then consume -): the kernel's streams arrive whole. */
Test(sched, the_kernel_streams_go_through_a_pipe, .init = setup, .fini = teardown)
{
	char cmd[2048];
	int st;
	char *out;

	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && " T_PRELOAD_ENV "'%s/ringtrace' record -q --sched -o - -- "
		 "'%s/rtr-sched-prog' sleep 50 2>/dev/null | '%s/ringtrace' consume -q - -o pipe "
		 "2>&1", dir, t_bindir(), t_bindir(), t_bindir());
	out = t_sh(cmd, &st);
	cr_assert_eq(st, 0, "%s", out);
	cr_assert_eq(out[0], 0, "%s", out);
	free(out);
	check_ok("pipe", true);
	checker("sleep", "pipe", "50");
}

/*
 * Without privilege: what perf_event_paranoid 2 (and below) allows a user
 * is enough (Documentation/pthread.rst, "Who may").  As root, run as
 * nobody; else as ourselves.
 */
Test(sched, an_unprivileged_user_gets_the_kernel_view_at_paranoid_2, .init = setup,
     .fini = teardown)
{
	char prog[512], wrap[256], *out;
	int st, level = -9;
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");

	if (f) {
		if (fscanf(f, "%d", &level) != 1)
			level = -9;
		fclose(f);
	}
	if (level > 2 || level == -9)
		cr_skip_test("perf_event_paranoid is %d: users get no perf events", level);
	snprintf(wrap, sizeof(wrap), "%s", getuid() == 0 ?
		 "setpriv --reuid=nobody --regid=nogroup --clear-groups" : "");
	out = sh("chmod 777 '%s'%s", dir, "", &st);
	free(out);
	/*
	 * nobody runs copies in the test's own directory: the build's may lie
	 * under a directory only its owner may enter (a checkout in a
	 * `mktemp -d` directory, mode 0700).  Both programs need no library of
	 * the build's.
	 */
	snprintf(prog, sizeof(prog), "cp '%s/ringtrace' '%s/rtr-sched-prog' '%s/' && echo ok",
		 t_bindir(), t_bindir(), dir);
	out = t_sh(prog, &st);
	cr_assert(st == 0 && !strcmp(out, "ok\n"), "%s: %s", prog, out);
	free(out);
	rec_bindir = dir;
	snprintf(prog, sizeof(prog), "'%s/rtr-sched-prog' sleep 20", dir);
	st = record(wrap, "--sched", "user", prog);
	rec_bindir = NULL;
	cr_assert_eq(st, 0);
	check_ok("user", true);
	checker("sleep", "user", "20");
}

/*
 * The C++ queue program (examples/cpp) under --pthread: every thread
 * task's runs are the kernel's (on the kernel's CPU lanes), its workers
 * ran, and no sleeping region of the picture lies over a run: no thread is
 * drawn asleep while it ran (issue 22's example: the ring's switches by
 * CPU had it sleep for 2.3 s of 2.5).
 */
Test(sched, the_queue_programs_threads_are_never_drawn_asleep_while_they_ran, .init = setup,
     .fini = teardown)
{
	char prog[512], path[256], err[512];
	char *dirs[1] = { path };
	struct rtr_model m;
	struct rtr_scene sc;
	uint32_t workers = 0, kruns = 0, hidden = 0, shown = 0;

	snprintf(prog, sizeof(prog), "'%s/ringtrace-cpp-pool' --workers 4 --jobs 64", t_bindir());
	cr_assert_eq(record("", "--pthread", "pool", prog), 0);
	check_ok("pool", true);
	snprintf(path, sizeof(path), "%s/pool", dir);
	cr_assert_eq(rtr_model_load(&m, dirs, 1, err, sizeof(err)), 0, "%s", err);
	cr_assert(m.traces[0].kernel);
	cr_assert_eq(rtr_scene_build(&sc, &m, 0), 0);
	for (uint32_t i = 0; i < m.ntasks; i++) {
		const struct rtr_model_task *t = &m.tasks[i];
		int64_t on = 0;

		if (t->kind != RTR_KIND_THREAD)
			continue;
		for (uint32_t j = 0; j < t->nruns; j++) {
			const struct rtr_model_run *r = &m.runs[t->run_first + j];

			cr_assert(m.cpus[r->cpu].kernel, "thread task %s: a run on a ring lane",
				  rtr_model_str(&m, t->name));
			cr_assert(r->why == RTR_RUN_BLOCKED || r->why == RTR_RUN_PREEMPTED ||
				  r->why == RTR_RUN_SWITCH);
			on += r->end - r->start;
			kruns++;
			for (uint32_t k = sc.sleep_off[0]; k < sc.sleep_off[1]; k++) {
				int64_t a = sc.sleep[2 * k], b = sc.sleep[2 * k + 1];

				cr_assert(!(a < r->end && r->start < b),
					  "thread %s ran %" PRId64 "..%" PRId64 " and is drawn asleep "
					  "%" PRId64 "..%" PRId64, rtr_model_str(&m, t->name), r->start,
					  r->end, a, b);
			}
		}
		/* a wrapper's thread task (its id small) that the pool made: a worker */
		if (!(t->id & RTR_MODEL_KTHREAD) && (t->flags & RTR_TASK_CREATED) &&
		    t->parent != RTR_MODEL_NONE) {
			workers++;
			cr_assert_gt(on, 0, "worker %" PRIu64 " never ran", t->id);
		}
	}
	cr_assert_eq(workers, 4, "%u workers", workers);
	cr_assert_gt(kruns, 8);
	/*
	 * The queue's mutex and condition live in a JobQueue on main's stack:
	 * named by the call that first named them, demangled, at the line of
	 * pool.cc (not of the inlined <mutex> or <condition_variable>).
	 */
	for (uint32_t i = 0; i < m.ntasks; i++) {
		const struct rtr_model_task *t = &m.tasks[i];
		const char *name = rtr_model_str(&m, t->name);

		if (t->kind != RTR_KIND_MUTEX && t->kind != RTR_KIND_CONDITION)
			continue;
		shown++;
		cr_expect(strstr(name, " at ") && strstr(name, "(pool.cc:") && !strstr(name, "_Z"),
			  "object %" PRIu64 " named '%s'", t->id, name);
	}
	cr_assert_gt(shown, 0, "the pool's objects");
	shown = 0;
	/*
	 * Signals to the queue's condition and mutex: drawn only where a wait
	 * on the object ended before the next signal to it.
	 */
	for (uint32_t i = 0; i < m.narrows; i++) {
		const struct rtr_model_arrow *a = &m.arrows[i];
		uint32_t k = m.tasks[a->to].kind;
		bool ended = false;

		if (a->kind != RTR_ARROW_SIGNAL || (k != RTR_KIND_MUTEX && k != RTR_KIND_CONDITION))
			continue;
		for (uint32_t j = i + 1; j < m.narrows; j++) {
			const struct rtr_model_arrow *b = &m.arrows[j];

			if (b->kind == RTR_ARROW_SIGNAL && b->to == a->to)
				break;
			if (b->kind == RTR_ARROW_READ && b->from == a->to) {
				ended = true;
				break;
			}
		}
		cr_assert_eq(!(a->flags & RTR_ARROW_HIDDEN), ended, "signal %u at %" PRId64, i,
			     a->ts);
		hidden += !ended;
		shown += ended;
	}
	cr_assert_gt(hidden, 0, "no signal without a wait: the pool signals every push");
	cr_assert_gt(shown, 0);
	rtr_scene_free(&sc);
	rtr_model_free(&m);
}

/*
 * A std::mutex waited for through std::lock_guard, built at -O0
 * (tests/sched/cxx_lock.cc): the wrapper's caller is __gthread_mutex_lock
 * in libstdc++'s gthr-default.h, three calls below the program's line; the
 * wrapper records the callers too and the mutex is named by the line of
 * the program's own, not a header's.
 */
Test(sched, a_lock_taken_in_a_headers_code_is_named_by_the_programs_line, .init = setup,
     .fini = teardown)
{
	char prog[512], path[256], err[512], *out;
	char *dirs[1] = { path };
	struct rtr_model m;
	int line = 0, st, named = 0;

	snprintf(prog, sizeof(prog), "'%s/rtr-cxx-lock'", t_bindir());
	cr_assert_eq(record("", "--pthread", "cxx", prog), 0);
	out = sh("cat '%s/%s.out'", dir, "cxx", &st);
	cr_assert(sscanf(out, "site %d", &line) == 1 && line > 0, "%s", out);
	free(out);
	snprintf(path, sizeof(path), "%s/cxx", dir);
	cr_assert_eq(rtr_model_load(&m, dirs, 1, err, sizeof(err)), 0, "%s", err);
	for (uint32_t i = 0; i < m.ntasks; i++) {
		const char *name = rtr_model_str(&m, m.tasks[i].name), *at;
		char file[64];

		if (m.tasks[i].kind != RTR_KIND_MUTEX)
			continue;
		named++;
		snprintf(file, sizeof(file), "(cxx_lock.cc:%d)", line);
		at = strstr(name, " at main+0x");
		cr_expect(at && strstr(at, file) && !strstr(name, ".h:"),
			  "mutex named '%s', not at main's line %d", name, line);
	}
	cr_assert_eq(named, 1, "%d mutexes", named);
	rtr_model_free(&m);
}

/*
 * The symbols of a process, from its executable mappings (reader/symbols.c):
 * this test program's own, read from /proc/self/maps as kernel:mmap gives
 * them.  A static object is named, a member inside it with its offset; a
 * wrong build id, a FIFO in the file's place or no mapping names nothing
 * (and nothing waits on the FIFO).
 */
static pthread_mutex_t sym_probe_lock[2];

static struct tr_syms *self_syms(const char *build_id, const char *path)
{
	struct tr_syms *s = tr_syms_new();
	char line[4096], file[4096], exe[4096];
	FILE *f = fopen("/proc/self/maps", "r");
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	uint64_t start, end, pgoff;
	char perms[8];

	cr_assert_not_null(s);
	cr_assert_not_null(f);
	cr_assert_gt(n, 0);
	exe[n] = 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %4095s", &start, &end,
			   perms, &pgoff, file) == 5 && perms[2] == 'x' && !strcmp(file, exe))
			cr_assert_eq(tr_syms_map(s, 7, start, end - start, pgoff, build_id,
						 path ? path : file), 0);
	}
	fclose(f);
	return s;
}

Test(sched, symbols_name_static_objects_and_refuse_what_is_not_the_mapped_file,
     .init = setup, .fini = teardown)
{
	struct tr_syms *s;
	char buf[256], fifo[600], member[64];
	uint64_t a = (uint64_t)(uintptr_t)&sym_probe_lock[0];

	s = self_syms("", NULL);
	cr_assert(tr_syms_name(s, 7, a, buf, sizeof(buf)));
	cr_expect_str_eq(buf, "sym_probe_lock");
	cr_assert(tr_syms_name(s, 7, a + sizeof(pthread_mutex_t), buf, sizeof(buf)));
	snprintf(member, sizeof(member), "sym_probe_lock+0x%zx", sizeof(pthread_mutex_t));
	cr_expect_str_eq(buf, member);
	/* a forked child (no mappings of its own) is looked up in its parent's */
	cr_expect(tr_syms_name(s, 8, a, buf, sizeof(buf)));
	/* the heap is no object's */
	cr_expect_not(tr_syms_name(s, 7, (uint64_t)(uintptr_t)s, buf, sizeof(buf)));
	tr_syms_free(s);

	s = self_syms("00112233445566778899aabbccddeeff00112233", NULL);
	cr_expect_not(tr_syms_name(s, 7, a, buf, sizeof(buf)), "another build's file named %s", buf);
	tr_syms_free(s);

	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	s = self_syms("", fifo);
	cr_expect_not(tr_syms_name(s, 7, a, buf, sizeof(buf)));
	tr_syms_free(s);
}

/* The samples under a frame named @fn (on the path from each sample's innermost frame up). */
/*
 * The window and the exports' picture (view/render.c): thread task @t drawn
 * whole from @t0 to @t1 has a tick under its line (#c2185b) at each pixel
 * where it was sampled, and only there (give or take a pixel): counted
 * against the samples' own pixels.  Return: the pixels sampled.
 */
static uint32_t drawn_samples(struct rtr_model *m, uint32_t t, int64_t t0, int64_t t1)
{
	const uint32_t W = 1000, H = 400;
	cairo_surface_t *sf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, W, H);
	cairo_t *cr = cairo_create(sf);
	struct rtr_frame f = { 0 };
	struct rtr_render_layout l;
	struct rtr_scene s;
	struct rtr_render_view v = { .t0 = t0, .t1 = t1, .width = W, .height = H,
				     .selected = RTR_MODEL_NONE };
	uint32_t want = 0, got = 0, stray = 0, in_view = 0, counted = 0;
	char *seen = calloc(W, 1);
	double y;

	cr_assert(seen);
	cr_assert_eq(rtr_scene_build(&s, m, 0), 0);
	cr_assert_eq(rtr_render(cr, &s, &v, &f), 0);
	cairo_surface_flush(sf);
	rtr_render_layout(&s, &v, &l);
	y = l.rows_y + ((double)s.task_row[t] - l.row0 + 0.5) * l.row_h;
	for (uint32_t i = 0; i < m->ncpu_samples; i++) {
		const struct rtr_model_cpu_sample *c = &m->cpu_samples[i];
		int64_t x = (int64_t)((double)(c->ts - v.t0) * W / (double)(v.t1 - v.t0));

		if (c->task == t && c->ts >= v.t0 && c->ts < v.t1 && x >= 0 && x < W) {
			seen[x] = 1;
			in_view++;
		}
	}
	/* the frame's ticks: the thread's, each counting the samples of its pixel, all of them */
	for (uint32_t i = 0; i < f.nticks; i++) {
		uint32_t x = (uint32_t)f.ticks[i].x0;	/* give or take a pixel: doubles above */

		cr_assert(f.ticks[i].index != t || seen[x] || (x && seen[x - 1]) ||
			  (x + 1 < W && seen[x + 1]), "a tick at x %u, where no sample is", x);
		counted += f.ticks[i].index == t ? f.ticks[i].count : 0;
	}
	cr_expect_eq(counted, in_view, "the ticks count %u samples of %u", counted, in_view);
	/* from x 50 on: the thread's kind is written over its first ticks */
	for (uint32_t x = 50; x < W; x++) {
		const uint8_t *row = cairo_image_surface_get_data(sf) +
				     (size_t)(y + 4) * (size_t)cairo_image_surface_get_stride(sf);
		bool pink = (((const uint32_t *)row)[x] & 0xffffff) == 0xc2185b;

		want += seen[x];
		got += pink && seen[x];
		stray += pink && !seen[x] && !(x && seen[x - 1]) && !(x + 1 < W && seen[x + 1]);
	}
	cr_log_info("%" PRId64 " ns: %u pixels sampled, %u ticked, %u ticks elsewhere", t1 - t0,
		    want, got, stray);
	cr_expect_geq(got, want * 99 / 100, "%u of %u sampled pixels ticked", got, want);
	cr_expect_eq(stray, 0, "%u ticks where no sample is", stray);
	free(seen);
	rtr_frame_free(&f);
	rtr_scene_free(&s);
	cairo_destroy(cr);
	cairo_surface_destroy(sf);
	return want;
}

static uint64_t samples_under(const struct rtr_model *m, const char *fn, const char *thread)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < m->ncpu_samples; i++) {
		const struct rtr_model_cpu_sample *s = &m->cpu_samples[i];

		for (uint32_t f = s->frame; f != RTR_MODEL_NONE; f = m->frames[f].parent) {
			cr_assert_lt(f, m->nframes);
			if (strcmp(rtr_model_str(m, m->frames[f].name), fn))
				continue;
			if (thread)
				cr_assert_str_eq(rtr_model_str(m, m->tasks[s->task].name), thread,
						 "a sample in %s on another thread", fn);
			n++;
			break;
		}
	}
	return n;
}

/*
 * record --sample: a thread spends three quarters of its CPU time in one
 * function and a quarter in another (measured by itself); the samples
 * under each say the same within 3 points, with their callers (the
 * program has frame pointers), on the thread that ran them; `stats
 * --samples` and `export --format folded` count the same samples, and
 * babeltrace2 reads every one.
 */
Test(sched, cpu_samples_find_where_the_program_spent_its_time, .init = setup, .fini = teardown)
{
	char prog[512], path[256], err[512], cmd[1024], *out, *p;
	char *dirs[1] = { path };
	unsigned long long three = 0, one = 0, folded = 0, line;
	struct rtr_model m;
	uint64_t s3, s1, spin, loop;
	double want, got;
	int st;

	snprintf(prog, sizeof(prog), "'%s/rtr-sched-prog' burn 1500", t_bindir());
	cr_assert_eq(record("", "--sample=1999", "burn", prog), 0);
	check_ok("burn", true);
	out = sh("cat '%s/%s.out'", dir, "burn", &st);
	cr_assert_not_null(p = strstr(out, "burn burn_three "), "%s", out);
	cr_assert_eq(sscanf(p, "burn burn_three %llu burn_one %llu", &three, &one), 2, "%s", out);
	free(out);
	out = sh("cat '%s/%s.err'", dir, "burn", &st);
	cr_assert_not_null(strstr(out, " CPU samples (1999 Hz)"), "%s", out);
	free(out);

	snprintf(path, sizeof(path), "%s/burn", dir);
	cr_assert_eq(rtr_model_load(&m, dirs, 1, err, sizeof(err)), 0, "%s", err);
	s3 = samples_under(&m, "burn_three", "burner");
	s1 = samples_under(&m, "burn_one", "burner");
	spin = samples_under(&m, "spin_for", "burner");
	loop = samples_under(&m, "burn_loop", NULL) + samples_under(&m, "burn_loop.constprop.0", NULL);
	/* 1.5 s of CPU at 1999 Hz: 3000 samples, fewer for the time in system calls */
	cr_assert_gt(s3 + s1, 1500, "%" PRIu64 " + %" PRIu64 " samples", s3, s1);
	/*
	 * Under burn_loop, all but the few taken in a prologue or an epilogue
	 * (there the frame pointer is still the caller's: its caller is missed).
	 */
	cr_assert_geq(loop, (s3 + s1) * 99 / 100, "%" PRIu64 " of the %" PRIu64 " samples of "
		      "burn_three and burn_one under burn_loop", loop, s3 + s1);
	cr_assert_gt(spin, (s3 + s1) * 9 / 10, "spin_for: %" PRIu64, spin);
	want = (double)three / (double)(three + one);
	got = (double)s3 / (double)(s3 + s1);
	cr_log_info("burn_three: %.1f %% of the CPU time measured, %.1f %% of %" PRIu64 " samples",
		    100 * want, 100 * got, s3 + s1);
	cr_assert(got > want - 0.03 && got < want + 0.03, "burn_three: %.3f of the samples, %.3f "
		  "of the CPU time", got, want);
	for (uint32_t f = 0; f < m.nframes; f++)
		cr_assert(m.frames[f].parent == RTR_MODEL_NONE || m.frames[f].parent < f);

	/* the same samples through the commands */
	snprintf(cmd, sizeof(cmd), "babeltrace2 '%s' | grep -c 'kernel:sample:'", path);
	out = t_sh(cmd, &st);
	cr_assert_eq(strtoull(out, NULL, 10), m.ncpu_samples, "babeltrace2: %s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), "'%s/ringtrace' export --format folded '%s'", t_bindir(), path);
	out = t_sh(cmd, &st);
	cr_assert_eq(st, 0, "%s", out);
	for (p = out; *p; p = strchr(p, '\n') + 1) {
		char *end = strchr(p, '\n');

		cr_assert_not_null(end);
		*end = 0;
		cr_assert_eq(sscanf(strrchr(p, ' '), " %llu", &line), 1, "%s", p);
		folded += line;
		if (!strncmp(p, "burner;", 7) && strstr(p, ";burn_three;spin_for "))
			cr_assert_not_null(strstr(p, ";burn_loop"), "%s", p);
		*end = '\n';
	}
	cr_assert_eq(folded, m.ncpu_samples);
	cr_assert_not_null(strstr(out, ";burn_three;spin_for "), "%s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), "'%s/ringtrace' stats --samples --json '%s'", t_bindir(), path);
	out = t_sh(cmd, &st);
	cr_assert_eq(st, 0, "%s", out);
	snprintf(err, sizeof(err), "{\"samples\": %u, \"functions\": [", m.ncpu_samples);
	cr_assert_eq(strncmp(out, err, strlen(err)), 0, "%s", out);
	/*
	 * burn_three's total is the model's count; its self, the samples that
	 * hit its own few instructions around the call to spin_for, is at
	 * most a hundredth of it (0 or 1 in practice).
	 */
	{
		const char *b3 = strstr(out, "{\"name\": \"burn_three\", \"self\": ");
		unsigned long long self = 0, total = 0;

		cr_assert_not_null(b3, "%s", out);
		cr_assert_eq(sscanf(b3,
				    "{\"name\": \"burn_three\", \"self\": %llu, \"total\": %llu}",
				    &self, &total),
			     2, "%s", b3);
		cr_assert_eq(total, s3, "%s", out);
		cr_assert_leq(self * 100, total, "%s", out);
	}
	free(out);
	/* drawn: the burner's whole life (a tick a pixel), then 4 ms of it (a few) */
	{
		uint32_t burner = RTR_MODEL_NONE;
		int64_t mid;

		for (uint32_t k = 0; k < m.ntasks; k++)
			if (!strcmp(rtr_model_str(&m, m.tasks[k].name), "burner"))
				burner = k;
		cr_assert_neq(burner, RTR_MODEL_NONE);
		cr_expect_gt(drawn_samples(&m, burner, m.tasks[burner].created, m.tasks[burner].end),
			     500, "the burner sampled in fewer than half the pixels");
		/*
		 * 4 ms around the burner's middle sample: at least that one
		 * (not any 4 ms: on a loaded host the burner may not run for
		 * that long, and have no sample there)
		 */
		{
			uint32_t n = 0, k = 0;

			for (uint32_t i = 0; i < m.ncpu_samples; i++)
				n += m.cpu_samples[i].task == burner;
			cr_assert_gt(n, 0);
			mid = 0;
			for (uint32_t i = 0; i < m.ncpu_samples; i++)
				if (m.cpu_samples[i].task == burner && k++ == n / 2)
					mid = m.cpu_samples[i].ts;
		}
		cr_expect_gt(drawn_samples(&m, burner, mid - 2000000, mid + 2000000), 0,
			     "no sample in the 4 ms around one");
	}
	rtr_model_free(&m);

	/* the options */
	snprintf(cmd, sizeof(cmd), "'%s/ringtrace' record --sample --no-sched -o '%s/x' -- true 2>&1; "
		 "'%s/ringtrace' record --sample=0 -o '%s/y' -- true 2>&1", t_bindir(), dir,
		 t_bindir(), dir);
	out = t_sh(cmd, &st);
	cr_assert_eq(st, 2, "%s", out);
	cr_assert_not_null(strstr(out, "--sample is part of the kernel's view"), "%s", out);
	cr_assert_not_null(strstr(out, "--sample=0: a rate from 1 to 100000"), "%s", out);
	free(out);
}
