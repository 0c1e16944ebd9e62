#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/tools/check_sqlite.py DB STATS_JSON ANALYSIS_RST: the database of
`ringtrace export --format sqlite` against `ringtrace stats --json` of the
same traces (row counts and sums, percentiles exactly), and every SQL block
of Documentation/analysis.rst run on it.  Prints what differs; exit 1 then."""
import json
import re
import sqlite3
import sys

db = sqlite3.connect(sys.argv[1])
stats = json.load(open(sys.argv[2]))
rst = open(sys.argv[3]).read()
bad = []


def one(sql, *args):
    return db.execute(sql, args).fetchone()


def check(what, got, want):
    if got != want:
        bad.append("%s: %r, stats says %r" % (what, got, want))


def nearest_rank(v, p):
    rank = -(-len(v) * p // 100)  # ceil
    return v[max(rank, 1) - 1]


for k in stats["kinds"]:
    name = k["kind"]
    tasks, resolved, failed, never = one(
        "SELECT count(*), sum(resolved), sum(failed), sum(never_resolved) FROM task WHERE kind_name = ?",
        name)
    check(name + " tasks", tasks, k["tasks"])
    check(name + " resolved", resolved, k["resolved"])
    check(name + " failed", failed, k["failed"])
    check(name + " unresolved", tasks - resolved, k["unresolved"])
    check(name + " never resolved", never, k["should_resolve_failures"])
    durs = [r[0] for r in db.execute(
        "SELECT dur_ns FROM task WHERE kind_name = ? AND dur_ns IS NOT NULL ORDER BY dur_ns", (name,))]
    check(name + " durations", len(durs), k["durations"])
    if durs:
        for p in (50, 90, 99):
            check("%s p%d" % (name, p), nearest_rank(durs, p), k["p%d_ns" % p])
        check(name + " max", durs[-1], k["max_ns"])
        check(name + " histogram total", sum(b["count"] for b in k["histogram"]), len(durs))
# optional columns are NULL exactly where the task has no such time (each row binds all of them)
check("tasks with resolved_ns but unresolved, or resolved without it",
      one("SELECT count(*) FROM task WHERE (resolved_ns IS NULL) != (resolved = 0)")[0], 0)
check("tasks with becomes_ns but no becomes, or the reverse",
      one("SELECT count(*) FROM task WHERE (becomes_ns IS NULL) != (becomes IS NULL)")[0], 0)
check("kinds", one("SELECT count(DISTINCT kind_name) FROM task")[0], len(stats["kinds"]))
check("traces", one("SELECT count(*) FROM trace")[0], len(stats["traces"]))
for i, t in enumerate(stats["traces"]):
    check("trace %d events" % i, one("SELECT events FROM trace WHERE id = ?", i)[0], t["events"])
    check("trace %d cpu events" % i,
          one("SELECT sum(events) FROM cpu WHERE trace_id = ?", i)[0], t["events"])
for i, c in enumerate(stats["cpus"]):
    check("cpu %d" % i, one("SELECT events, events_lost, packets_lost FROM cpu WHERE id = ?", i),
          (c["events"], c["events_lost"], c["packets_lost"]))
check("classes", [tuple(r) for r in db.execute(
    "SELECT trace_id, name, count FROM event_class WHERE count > 0 ORDER BY id")],
    [(c["trace"], c["class"], c["count"]) for c in stats["classes"]])
# stats also lists the threads the kernel saw that wrote no event (pid null): not thread rows
check("threads", one("SELECT count(*) FROM thread")[0],
      len([t for t in stats["threads"] if t["pid"] is not None]))

# the kernel's view (record --sched): each thread's spans add up to what stats says of it
kernel_threads = [t for t in stats["threads"] if "on_cpu_ns" in t]
for t in kernel_threads:
    who = "thread %d of trace %d" % (t["tid"], t["trace"])
    where = "FROM thread_state s JOIN task ON task.id = s.task WHERE task.trace_id = ? AND s.tid = ?"
    got = {r[0]: (r[1], r[2]) for r in db.execute(
        "SELECT s.state, count(*), sum(s.dur_ns) " + where + " GROUP BY s.state", (t["trace"], t["tid"]))}
    check(who + " on a CPU", got.get("running", (0, 0)), (t["runs"], t["on_cpu_ns"]))
    check(who + " runnable", got.get("runnable", (0, 0))[1], t["runnable_ns"])
    check(who + " blocked", got.get("blocked", (0, 0))[1], t["blocked_ns"])
    check(who + " preempted", one(
        "SELECT count(*) FROM run WHERE why = 'preempted' AND task IN (SELECT DISTINCT s.task "
        + where + ")", t["trace"], t["tid"])[0], t["preempted"])
    if "other" not in t["blocked_on"]:
        check(who + " blocked on", {r[0]: r[1] for r in db.execute(
            "SELECT s.blocked_on, sum(s.dur_ns) " + where + " AND s.state = 'blocked' GROUP BY s.blocked_on",
            (t["trace"], t["tid"]))}, t["blocked_on"])
# a run's span is the run; a gap lies between its run and the task's next one
check("running spans that are not their run", one(
    "SELECT count(*) FROM thread_state s JOIN run ON run.id = s.run WHERE s.state = 'running'"
    " AND (s.start_ns != run.start_ns OR s.end_ns != run.end_ns OR s.task != run.task"
    " OR s.cpu_id IS NOT run.cpu_id)")[0], 0)
check("gaps not between two runs of their task", one(
    "SELECT count(*) FROM thread_state s JOIN run a ON a.id = s.run LEFT JOIN run b ON b.id = s.run + 1"
    " WHERE s.state != 'running' AND (s.start_ns != a.end_ns OR b.task IS NOT s.task"
    " OR s.end_ns != b.start_ns OR s.start_ns >= s.end_ns"
    " OR (s.state = 'runnable') != (a.why = 'preempted'))")[0], 0)
check("thread states with no such thread in stats",
      one("SELECT count(DISTINCT task) FROM thread_state")[0], len(kernel_threads))
# every run and every edge names tasks that are rows
check("runs without a task", one("SELECT count(*) FROM run WHERE task NOT IN (SELECT id FROM task)")[0], 0)
check("edges without tasks", one(
    "SELECT count(*) FROM edge WHERE src NOT IN (SELECT id FROM task) OR dst NOT IN (SELECT id FROM task)")[0], 0)
check("edges", one("SELECT count(*) FROM edge")[0] > 0, True)
check("indexes", one("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'edge_dst'")[0], 1)

# the documentation's queries: each block runs; the first agrees with stats
blocks = re.findall(r"\.\. code-block:: sql\n\n((?:   .*\n|\n)+)", rst)
check("SQL blocks in the documentation", len(blocks) >= 4, True)
for i, b in enumerate(blocks):
    sql = "\n".join(l[3:] for l in b.splitlines())
    try:
        for stmt in [s for s in sql.split(";") if s.strip() and not all(
                l.strip().startswith("--") or not l.strip() for l in s.splitlines())]:
            rows = db.execute(stmt).fetchall()
            if i == 0:
                got = {r[0]: (r[1], r[2], r[3]) for r in rows}
                for k in stats["kinds"]:
                    check("documented query, " + k["kind"], got.get(k["kind"]),
                          (k["tasks"], k["resolved"], k.get("p50_ns")))
    except sqlite3.Error as e:
        bad.append("documented query %d: %s" % (i, e))

for b in bad:
    print(b)
print("%s: %d checks failed" % (sys.argv[1], len(bad)) if bad else
      "ok (%d threads' states checked)" % len(kernel_threads))
sys.exit(1 if bad else 0)
