#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Check what libringtrace-pthread recorded, read with babeltrace2 (python3-bt2).

    check_pthread.py sync TRACE FACTS   rtr-pthread-prog sync: FACTS is its output
    check_pthread.py threads TRACE N    any program: at least N thread tasks, every
                                        event well formed (see well_formed())
    check_pthread.py forks TRACE N      the same for a program whose forked children
                                        write into the same trace: their objects' ids
                                        (addresses the fork copied) may repeat the
                                        parent's, their task ids never do
    check_pthread.py own TRACE          rtr-pthread-own: its worker's note, and no
                                        wait for a mutex (urcu-bp's, inside libringtrace)

Exits 0 when every check passes, else prints the failures and exits 1.
"""
import re
import sys

import bt2

OBJ_BIT = 1 << 52
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


# (pid, tid) of every thread record: the OS threads that wrote the events
thread_ids = set()
# record --sched's records (on with --pthread): (name, fields, ns, cpu)
kernel_evs = []


def load(path):
    """Every event in time order: (name without a 64 suffix, fields dict); the
    ring's thread records go to thread_ids instead."""
    out = []
    for msg in bt2.TraceCollectionMessageIterator(path):
        if type(msg) is not bt2._EventMessageConst:
            continue
        ev = msg.event
        if ev.name == "thread":
            thread_ids.add((int(ev.payload_field["pid"]), int(ev.payload_field["tid"])))
            continue
        if ev.name.startswith("kernel:"):
            if ev.name in ("kernel:switch", "kernel:fork", "kernel:comm", "kernel:exit"):
                f = ev.payload_field
                kernel_evs.append((ev.name[7:], {k: (str(f[k]) if isinstance(f[k], bt2._StringFieldConst)
                                                     else f[k].labels[0] if hasattr(f[k], "labels") and f[k].labels
                                                     else int(f[k])) for k in f},
                                   msg.default_clock_snapshot.ns_from_origin,
                                   int(ev.packet.context_field["cpu_id"])))
            continue
        name = ev.name[:-2] if ev.name.endswith("64") else ev.name
        fields = {}
        for k in ev.payload_field:
            v = ev.payload_field[k]
            if isinstance(v, bt2._StringFieldConst):
                fields[k] = str(v)
            elif hasattr(v, "labels"):
                fields[k] = v.labels[0] if v.labels else int(v)
            else:
                fields[k] = int(v)
        out.append((name, fields))
    return out


def obj_id(addr):
    return (addr & (OBJ_BIT - 1)) | OBJ_BIT


def tasks_by_label(evs):
    """Label text -> task id (the first task with it)."""
    m = {}
    for name, f in evs:
        if name == "label":
            m.setdefault(f["text"], f["task"])
    return m


def find(evs, name, start=0, **want):
    """Index of the first event @name with fields @want at or after @start, or -1."""
    for i in range(start, len(evs)):
        n, f = evs[i]
        if n == name and all(f.get(k) == v for k, v in want.items()):
            return i
    return -1


def in_order(evs, steps, what):
    """Each (name, fields) of @steps found after the one before."""
    at = 0
    for name, want in steps:
        i = find(evs, name, at, **want)
        if i < 0:
            failures.append("%s: no %s %s after event %d" % (what, name, want, at))
            return
        at = i + 1


def well_formed(evs, unique=True):
    """Kinds, creates once, objects created before use, every thread resolved at most once.

    Without @unique, objects may be created and resolved more than once (forked
    processes share their addresses); tasks never."""
    created = {}
    resolved = set()
    for name, f in evs:
        if name == "create":
            check((not unique and f["child"] >= OBJ_BIT) or f["child"] not in created,
                  "task %d created twice" % f["child"])
            created[f["child"]] = f["kind"]
            obj = f["child"] >= OBJ_BIT
            check(obj == (f["kind"] in ("mutex", "condition", "semaphore", "barrier", "rwlock")),
                  "task %d of kind %s has the wrong id range" % (f["child"], f["kind"]))
        elif name in ("resolve", "fail"):
            check((not unique and f["task"] >= OBJ_BIT) or f["task"] not in resolved,
                  "task %d resolved twice" % f["task"])
            resolved.add(f["task"])
        elif name in ("try_read", "read"):
            if f["input"] >= OBJ_BIT:
                check(f["input"] in created, "object %#x used before it was created" % f["input"])
    return created, resolved


def sync(path, facts_path):
    facts = {}
    with open(facts_path) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 2 and parts[1].startswith("0x"):
                facts[parts[0]] = int(parts[1], 16)
    evs = load(path)
    created, resolved = well_formed(evs)
    labels = tasks_by_label(evs)
    main = evs[0][1].get("child")
    check(evs[0][0] == "create" and evs[0][1]["kind"] == "thread" and evs[0][1]["parent"] == 0,
          "the first event creates the main thread: %s" % (evs[0],))
    check(main in resolved, "the main thread is resolved at exit")
    orphans(evs)

    def thread(name):
        t = labels.get(name)
        check(t is not None, "a thread labelled %s" % name)
        return t

    for what in ("contended", "cond", "lost", "sem", "rwlock", "barrier"):
        label = {"contended": "mutex", "cond": "cond", "lost": "cond", "sem": "semaphore",
                 "rwlock": "rwlock", "barrier": "barrier"}[what]
        # "mutex 0xADDR at 0xSITE 0xCALLER...": the address, where the program called the
        # wrapper, and its callers (one at least: every call has, up to main's or the thread's
        # start in libc; five at most)
        want = "%s %#x at 0x" % (label, facts[what])
        got = [t for text, t in labels.items()
               if text.startswith(want) and
               re.fullmatch(r"[0-9a-f]+( 0x[0-9a-f]+){1,5}", text[len(want):])]
        check(got == [obj_id(facts[what])], "%s is labelled '%s...': %s" % (what, want, got))
    for what in ("quiet", "recursive"):
        oid = obj_id(facts[what])
        check(not any(oid in f.values() for _, f in evs),
              "%s: a mutex never waited for leaves no event" % what)

    m, c, s, rw, b, lost = (obj_id(facts[k]) for k in
                            ("contended", "cond", "sem", "rwlock", "barrier", "lost"))
    t = thread("contender")
    in_order(evs, [("create", {"parent": main, "child": t, "kind": "thread"}),
                   ("try_read", {"reader": t, "input": m}),
                   ("signal", {"sender": main, "receiver": m}),
                   ("read", {"reader": t, "input": m}),
                   ("resolve", {"resolver": t, "task": t}),
                   ("read", {"reader": main, "input": t})], "contended mutex")
    t = thread("cond-waiter")
    in_order(evs, [("signal", {"sender": main, "receiver": lost}),
                   ("try_read", {"reader": t, "input": c}),
                   ("signal", {"sender": main, "receiver": c}),
                   ("read", {"reader": t, "input": c})], "condition")
    check(find(evs, "try_read", 0, input=lost) < 0, "nobody waited on the lost signal's condition")
    t = thread("sem-waiter")
    in_order(evs, [("try_read", {"reader": t, "input": s}),
                   ("signal", {"sender": main, "receiver": s}),
                   ("read", {"reader": t, "input": s})], "semaphore")
    t = thread("rw-writer")
    in_order(evs, [("try_read", {"reader": t, "input": rw}),
                   ("read", {"reader": t, "input": rw})], "rwlock")
    for p in ("party-1", "party-2"):
        t = thread(p)
        in_order(evs, [("try_read", {"reader": t, "input": b}),
                       ("read", {"reader": t, "input": b}),
                       ("resolve", {"resolver": t, "task": t}),
                       ("read", {"reader": main, "input": t})], "barrier " + p)
    t = thread("exiter")
    in_order(evs, [("resolve", {"resolver": t, "task": t}),
                   ("read", {"reader": main, "input": t})], "pthread_exit")
    t = thread("cancelled")
    in_order(evs, [("fail", {"resolver": t, "task": t, "reason": "cancelled"}),
                   ("read", {"reader": main, "input": t})], "cancellation")
    t = thread("detached")
    in_order(evs, [("create", {"parent": main, "child": t}),
                   ("resolve", {"resolver": t, "task": t})], "detached thread")
    check(find(evs, "read", 0, input=t) < 0, "nobody joins the detached thread")
    # Threads switch to idle when they block and back when they wake.
    for i, (name, f) in enumerate(evs):
        if name == "try_read" and f["input"] >= OBJ_BIT:
            check(i + 1 < len(evs) and evs[i + 1] == ("switch", {"task": 0}),
                  "a wait is followed by a switch to idle (event %d)" % i)


def orphans(evs):
    """Only the main thread has no parent: the tracer's own thread (its flusher) is no thread of
    the program, even when it waits for a lock the preload wraps (urcu-bp's registry lock)."""
    roots = [f["child"] for name, f in evs if name == "create" and f["kind"] == "thread"
             and f["parent"] == 0]
    check(len(roots) == 1, "one thread without a parent, the main one: %s" % roots)


def threads(path, n, unique=True):
    evs = load(path)
    created, resolved = well_formed(evs, unique)
    nthreads = sum(1 for k in created.values() if k == "thread")
    check(nthreads >= n, "at least %d threads (found %d)" % (n, nthreads))
    # the thread tasks are OS threads, and the thread records name them
    ntids = len({tid for _, tid in thread_ids})
    check(ntids >= n, "thread records name at least %d threads (found %d)" % (n, ntids))
    main = evs[0][1].get("child") if evs and evs[0][0] == "create" else None
    check(main is not None and created.get(main) == "thread", "the first event creates the main thread")
    check(main in resolved, "the main thread is resolved at exit")
    if unique:
        orphans(evs)
    kernel_threads()
    print("%d events, %d threads, %d objects" % (len(evs), nthreads,
                                                 sum(1 for t in created if t >= OBJ_BIT)))


def kernel_threads():
    """The kernel's view: every thread that ran is named (its fork's or exec's comm, or
    a rename; a fork with none, its parent's), and no thread ran on two CPUs at once (its runs, from each switch in to
    the switch out on the same CPU or its exit, never overlap; 10 us allowed for the
    clocks).  A run is paired by CPU: paired by thread alone, a switch in on a second CPU
    would replace the open run on the first and no overlap could ever be seen."""
    if not kernel_evs:
        check(False, "no kernel records (record --pthread has --sched on)")
        return
    names, runs, open_ = {}, {}, {}    # open_: (tid, cpu) -> the run's start
    for name, f, ns, cpu in sorted(kernel_evs, key=lambda e: e[2]):
        tid = f["tid"]
        if name == "fork" or name == "comm":
            # a fork written before the recorder read its parent's (another CPU's
            # buffer) has no comm: the thread starts with its parent's name
            names[tid] = f["comm"] or (names.get(f["parent_tid"], "") if name == "fork" else "")
        elif name == "switch":
            if f["what"] == "in":
                open_[(tid, cpu)] = ns
            elif (tid, cpu) in open_:
                runs.setdefault(tid, []).append((open_.pop((tid, cpu)), ns))
        elif name == "exit":
            for key in [k for k in open_ if k[0] == tid]:
                runs.setdefault(tid, []).append((open_.pop(key), ns))
    for (tid, _), start in open_.items():    # on a CPU when the trace ends
        runs.setdefault(tid, []).append((start, float("inf")))
    for tid in runs:
        check(names.get(tid), "thread %d ran and has no name" % tid)
        rs = sorted(runs[tid])
        over = [(a, b) for a, b in zip(rs, rs[1:]) if b[0] < a[1] - 10000]
        check(not over, "thread %d ran on two CPUs at once: %s" % (tid, over[:3]))
    print("the kernel's view: %d threads ran, %d runs, names %s" % (
        len(runs), sum(len(r) for r in runs.values()), sorted(set(names[t] for t in runs if t in names))))


def own(path):
    evs = load(path)
    well_formed(evs)
    check(any(n == "note" and f.get("text") == "own event" for n, f in evs),
          "the worker's own note is in the trace")
    waits = [(n, f) for n, f in evs if n in ("try_read", "read") and f["input"] >= OBJ_BIT]
    check(not waits, "nobody waits for a mutex (libringtrace's own locks are not traced): %s"
          % waits[:3])
    print("%d events" % len(evs))


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "sync":
        sync(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "threads":
        threads(sys.argv[2], int(sys.argv[3]))
    elif len(sys.argv) == 3 and sys.argv[1] == "own":
        own(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "forks":
        threads(sys.argv[2], int(sys.argv[3]), unique=False)
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    for f in failures:
        print("FAIL:", f)
    sys.exit(1 if failures else 0)


main()
