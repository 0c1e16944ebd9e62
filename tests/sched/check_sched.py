#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Check the kernel's streams of `ringtrace record --sched`, read with
babeltrace2 (python3-bt2), against what rtr-sched-prog knows.

    check_sched.py sleep TRACE N        rtr-sched-prog sleep N: each blocked
                                        switch out, and the switch back in,
                                        lie between the notes around the sleep
                                        (the clocks agree)
    check_sched.py spin TRACE OUTPUT    rtr-sched-prog spin: on-CPU time per
                                        thread within 1 % of its own
                                        CLOCK_THREAD_CPUTIME_ID and schedstat;
                                        preemption, migration, forks, exits and
                                        the rename seen; no thread on two CPUs
                                        at once
    check_sched.py stats TRACE OUTPUT JSON   the same program recorded with --pthread,
                                        `ringtrace stats --json` of it: the model's
                                        runs by thread, names and blocking
    check_sched.py locks TRACE OUTPUT JSON [holds]  rtr-sched-prog contend: `ringtrace
                                        stats --locks --json` against the waits the
                                        program measured; with holds (record
                                        --hold-times), the holds too

Prints the figures; exits 0 when every check passes, else prints the
failures and exits 1.
"""
import re
import sys

import bt2

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


packets = {}


def load(path):
    """Events in time order: (ns, cpu_id, name, fields); the packets of each kernel stream
    counted in packets."""
    out = []
    for msg in bt2.TraceCollectionMessageIterator(path):
        if type(msg) is bt2._PacketBeginningMessageConst:
            sid = int(msg.packet.stream.id)
            packets[sid] = packets.get(sid, 0) + 1
            continue
        if type(msg) is not bt2._EventMessageConst:
            continue
        ev = msg.event
        fields = {}
        for k in ev.payload_field:
            v = ev.payload_field[k]
            if isinstance(v, bt2._StringFieldConst):
                fields[k] = str(v)
            elif hasattr(v, "labels"):
                fields[k] = v.labels[0] if v.labels else int(v)
            else:
                fields[k] = int(v)
        cpu = int(ev.packet.context_field["cpu_id"])
        out.append((msg.default_clock_snapshot.ns_from_origin, cpu, ev.name, fields))
    return out


def program_facts(output):
    """rtr-sched-prog's lines "thread TID cputime NS schedstat NS": {tid: (cputime, schedstat)}."""
    facts = {}
    with open(output) as f:
        for line in f:
            m = re.match(r"thread (\d+) cputime (\d+) schedstat (\d+)", line)
            if m:
                facts[int(m[1])] = (int(m[2]), int(m[3]))
    return facts


def runs(events):
    """Per tid: [(in_ns, out_ns, cpu, why)], and the ins that came while it ran."""
    open_ = {}
    done = {}
    overlaps = []
    for ts, cpu, name, f in events:
        if name == "kernel:exit" and f["tid"] in open_:
            # no switch out follows a thread's exit: its last run ends there
            t0, c0 = open_.pop(f["tid"])
            done.setdefault(f["tid"], []).append((t0, ts, c0, "exit"))
        if name != "kernel:switch":
            continue
        tid = f["tid"]
        if f["what"] == "in":
            if tid in open_:
                overlaps.append((tid, ts))
            open_[tid] = (ts, cpu)
        elif tid in open_:
            t0, c0 = open_.pop(tid)
            check(c0 == cpu, f"tid {tid} came in on cpu {c0} and left from cpu {cpu} at {ts}")
            done.setdefault(tid, []).append((t0, ts, cpu, f["what"]))
    return done, overlaps


def do_sleep(path, n):
    ev = load(path)
    notes = {f["text"]: ts for ts, _, name, f in ev if name == "note"}
    execs = [f for _, _, name, f in ev if name == "kernel:comm" and f["how"] == "exec"]
    check(len(execs) == 1, f"one exec name expected, {len(execs)} found")
    if not execs:
        return
    pid = execs[0]["pid"]
    check(execs[0]["comm"] == "rtr-sched-prog", f"exec's name: {execs[0]['comm']!r}")
    sw = [(ts, f["what"]) for ts, _, name, f in ev if name == "kernel:switch" and f["tid"] == pid]
    gaps_out, gaps_in = [], []
    for i in range(n):
        b, a = notes.get(f"before {i}"), notes.get(f"after {i}")
        check(b is not None and a is not None, f"notes of sleep {i} missing")
        if b is None or a is None:
            continue
        inside = [(ts, w) for ts, w in sw if b < ts < a]
        outs = [ts for ts, w in inside if w == "blocked"]
        ins = [ts for ts, w in inside if w == "in"]
        check(outs and ins and outs[0] < ins[-1],
              f"sleep {i}: no blocked switch out then in between its notes "
              f"({b}..{a}: {inside}; the main thread's switches near: "
              f"{[(ts - b, w) for ts, w in sw if b - 100000 < ts < a + 100000]})")
        if outs and ins:
            gaps_out.append(outs[0] - b)
            gaps_in.append(a - ins[-1])
    # a kernel stream's packet is written when full or a second old (--flush-interval), so a
    # run of about a second has a few at most per CPU
    span = (max(ts for ts, *_ in ev) - min(ts for ts, *_ in ev)) / 1e9
    for sid, n in packets.items():
        if sid >= 32768:
            check(n <= 2 + 2 * span, f"stream {sid}: {n} packets in {span:.2f} s")
    print(f"packets per stream: {packets} in {span:.2f} s")
    if gaps_out:
        print(f"note before -> switch out: min {min(gaps_out)} ns, median "
              f"{sorted(gaps_out)[len(gaps_out) // 2]} ns; switch in -> note after: min "
              f"{min(gaps_in)} ns, median {sorted(gaps_in)[len(gaps_in) // 2]} ns")


def do_spin(path, output):
    ev = load(path)
    facts = program_facts(output)
    check(len(facts) == 4, f"4 threads' figures expected, {len(facts)}")
    done, overlaps = runs(ev)
    check(not overlaps, f"threads on a CPU again before they left it: {overlaps[:5]}")
    execs = [f for _, _, name, f in ev if name == "kernel:comm" and f["how"] == "exec"]
    pid = execs[0]["pid"] if execs else 0
    forks = [f for _, _, name, f in ev if name == "kernel:fork"]
    threads = [f["tid"] for f in forks if f["pid"] == pid and f["parent_tid"] == pid]
    for f in forks:
        if f["tid"] in facts:
            check(f["comm"] == "rtr-sched-prog", f"thread {f['tid']} forked as {f['comm']!r}")
    exits = {f["tid"] for _, _, name, f in ev if name == "kernel:exit"}
    renames = [f for _, _, name, f in ev if name == "kernel:comm" and f["how"] == "rename"]
    check(any(r["comm"] == "renamed-t3" for r in renames), f"no rename to renamed-t3: {renames}")
    spinners = 0
    for tid, (cputime, sched) in sorted(facts.items()):
        if tid == pid:
            # perf reports no exit of the task its events were opened on: the trace's end is its
            continue
        check(tid in threads, f"thread {tid}: no fork record from {pid} ({threads})")
        check(tid in exits, f"thread {tid}: no exit record")
        r = done.get(tid, [])
        total = sum(b - a for a, b, _, _ in r)
        cpus = sorted({c for _, _, c, _ in r})
        pre = sum(1 for *_, w in r if w == "preempted")
        print(f"thread {tid}: on-CPU {total} ns in {len(r)} runs on cpus {cpus}, "
              f"{pre} preempted; cputime {cputime}, schedstat {sched}; schedstat - on-CPU "
              f"{(sched - total) / max(len(r), 1) / 1000:.1f} us a run")
        if cputime < 50000000:
            continue
        spinners += 1
        # The kernel counts a run from when the scheduler picks the thread, perf's switch in
        # comes at the end of the switch: each run is that much shorter in the trace (5 to 63
        # us a run on this project's loaded VMs: the host may take the virtual CPU away in the
        # middle of a switch).  And the trace goes on past the thread's own reading (its
        # printf, its exit).  So: within 1 %, plus 100 us a run.
        slack = 100000 * len(r)
        for what, v in (("schedstat", sched), ("cputime", cputime)):
            check(v - slack - 0.01 * v <= total <= v * 1.01 + 200000,
                  f"thread {tid}: on-CPU {total} ns, {what} {v} ns: not within 1 % + 100 us a run")
        check(pre > 0, f"thread {tid}: pinned with another spinner, never preempted")
    check(spinners == 2, f"2 spinning threads expected, {spinners}")
    migrated = [t for t, r in done.items() if len({c for _, _, c, _ in r}) > 1 and t in facts]
    import os
    if os.cpu_count() > 1:
        check(len(migrated) >= 1, "no thread seen on two CPUs (the second spinner moves)")


def do_stats(path, output, stats_json):
    """`ringtrace stats --json` of a --pthread recording of rtr-sched-prog spin: the model's
    runs by thread (the kernel's) agree with the program's figures, the renamed thread is
    named, the main thread was blocked on the joins while the spinners ran."""
    import json
    facts = program_facts(output)
    with open(stats_json) as f:
        st = json.load(f)
    threads = {t["tid"]: t for t in st["threads"] if "on_cpu_ns" in t}
    check(set(facts) <= set(threads), f"threads without times: {set(facts) - set(threads)}")
    main_tid = min(facts) if facts else 0
    for tid, (cputime, sched) in facts.items():
        t = threads.get(tid)
        if not t:
            continue
        if tid == main_tid:
            # its schedstat counts the recorder's fork before the exec, which perf does not see
            continue
        print(f"thread {tid} {t['task']!r}: on-CPU {t['on_cpu_ns']} ns, runnable "
              f"{t['runnable_ns']} ns, blocked {t['blocked_ns']} ns {t['blocked_on']}, "
              f"{t['runs']} runs, {t['preempted']} preempted, {t['migrations']} migrations; "
              f"schedstat {sched}")
        if cputime >= 50000000:
            slack = 100000 * t["runs"]
            check(sched - slack - 0.01 * sched <= t["on_cpu_ns"] <= sched * 1.01 + 200000,
                  f"thread {tid}: model on-CPU {t['on_cpu_ns']} against schedstat {sched}")
            check(t["preempted"] > 0, f"thread {tid}: never preempted in the model")
            check(t["runnable_ns"] > 0, f"thread {tid}: never runnable in the model")
    named = [t for t in threads.values() if t["task"] == "renamed-t3"]
    check(len(named) == 1, f"the renamed thread's task is not named renamed-t3: "
          f"{[t['task'] for t in threads.values()]}")
    check(any(t["name"] == "renamed-t3" for t in threads.values()),
          "no thread named renamed-t3 in the thread list")
    m = threads.get(main_tid)
    if m:
        check(m["blocked_on"].get("thread", 0) >= 200000000,
              f"the main thread was not seen blocked on the joins for 200 ms: {m['blocked_on']}")
    check(any(t["migrations"] > 0 for tid, t in threads.items() if tid in facts),
          "no migration in the model")


def do_locks(output, locks_json, holds_expected=False):
    """rtr-sched-prog contend N, `ringtrace stats --locks --json`: the mutex's waits, their
    total and max against what the waiter measured around its pthread_mutex_lock(), who
    waited and who released it."""
    import json
    waits = []
    holds = []
    preempted = []  # the waits during which the waiter was preempted
    held_preempted = []  # the holds during which the holder was
    heap_site = None
    heap_hold = None
    with open(output) as f:
        for line in f:
            m = re.match(r"wait (\d+) preempted (\d+)", line)
            if m:
                waits.append(int(m[1]))
                if int(m[2]):
                    preempted.append(int(m[1]))
            m = re.match(r"hold (\d+) preempted (\d+)", line)
            if m:
                holds.append(int(m[1]))
                if int(m[2]):
                    held_preempted.append(int(m[1]))
            m = re.match(r"heap_hold (\d+)", line)
            if m:
                heap_hold = int(m[1])
            m = re.match(r"heap_site (\d+)", line)
            if m:
                heap_site = int(m[1])
    with open(locks_json) as f:
        locks = json.load(f)["locks"]
    # the heap mutex, waited for once: named by the call that waited (function, file, line)
    site = re.compile(r"mutex 0x[0-9a-f]+ at heap_waiter\+0x[0-9a-f]+ \(sched_prog\.c:%d\)"
                      % heap_site)
    heap = [lk for lk in locks if lk["kind"] == "mutex" and site.fullmatch(lk["name"])]
    check(len(heap) == 1 and heap[0]["waits"] == 1,
          f"the heap mutex named by its call site (line {heap_site}): {locks}")
    mutexes = [lk for lk in locks if lk["kind"] == "mutex" and lk not in heap]
    check(len(mutexes) == 1, f"one mutex waited for expected: {locks}")
    if not mutexes or not waits:
        check(False, f"no waits: {waits}")
        return
    lk = mutexes[0]
    total = sum(waits)
    print(f"the program: {len(waits)} waits, {total} ns, max {max(waits)} ns; stats --locks: "
          f"{lk['waits']} waits, {lk['wait_ns_total']} ns, max {lk['wait_ns_max']} ns, "
          f"p50 {lk['wait_ns_p50']} ns; waiters {lk['waiters']!r}, released by "
          f"{lk['released_by']!r}")
    check(lk["waits"] == len(waits), f"{lk['waits']} waits in the trace, {len(waits)} made")
    # The program's clock reads are around the wrapper's events: a wait in the trace is
    # never longer (0.1 % for the clocks' reads), and shorter by a few us a wait (some 50 us
    # under ASan), so within 1 %; by more only where the waiter was preempted between its
    # clock read and the wrapper's event (a loaded machine): the waits that were are
    # allowed whole.
    slack = 0.01 * total + sum(preempted)
    if preempted:
        print(f"the waiter was preempted in {len(preempted)} of its waits: "
              f"{sum(preempted)} ns allowed more")
    check(lk["wait_ns_total"] <= total * 1.001,
          f"wait total {lk['wait_ns_total']} ns, more than the program's {total} ns")
    check(total - lk["wait_ns_total"] <= slack,
          f"wait total {lk['wait_ns_total']} ns, the program's {total} ns: not within 1 % "
          f"(the waits preempted: {preempted})")
    check(lk["wait_ns_max"] <= max(waits) * 1.001,
          f"wait max {lk['wait_ns_max']} ns, more than the program's {max(waits)} ns")
    check(max(waits) - lk["wait_ns_max"] <= 0.01 * max(waits) + max(preempted, default=0),
          f"wait max {lk['wait_ns_max']} ns, the program's {max(waits)} ns: not within 1 % "
          f"(the waits preempted: {preempted})")
    # a static mutex: named by its symbol, from the recording's mappings (kernel:mmap)
    check(lk["name"] == "mutex queue_lock", f"name: {lk['name']!r}, not 'mutex queue_lock'")
    check(lk["waiters"] == "waiter", f"waiters: {lk['waiters']!r}")
    check(lk["released_by"] == "holder", f"released by: {lk['released_by']!r}")
    # record --hold-times: how long the holder held it, each release that ended a wait once;
    # the wrapper's clock reads are around the program's (its lock's return, its unlock's
    # call), so a hold in the trace is longer by a few us, within 1 % (and the TSC's ticks
    # become ns at a rate measured since the program started: 0.1 % allowed under); by more
    # only where the holder was preempted between them: those holds' length allowed more
    if "holds" in lk or holds_expected:
        holds.sort()
        print(f"the program: holds {holds}; stats --locks: {lk.get('holds')} holds, p50 "
              f"{lk.get('hold_ns_p50')} ns, max {lk.get('hold_ns_max')} ns")
        check(lk.get("holds") == lk["waits"], f"holds {lk.get('holds')}, waits {lk['waits']}")
        if holds and "hold_ns_max" in lk:
            p50 = holds[(len(holds) + 1) // 2 - 1]
            for what, want in (("hold_ns_p50", p50), ("hold_ns_max", holds[-1])):
                check(want * 0.999 <= lk[what] <= want * 1.01 + max(held_preempted, default=0),
                      f"{what} {lk[what]} ns, the program's {want} ns: not within 1 % (the "
                      f"holds preempted: {held_preempted})")
        for h in heap:
            check(heap_hold is not None and h.get("holds") == 1 and
                  heap_hold * 0.999 <= h.get("hold_ns_max", 0) <= heap_hold * 1.01,
                  f"the heap mutex held {heap_hold} ns (the program's measure): {h}")


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "sleep":
        do_sleep(sys.argv[2], int(sys.argv[3]))
    elif len(sys.argv) == 4 and sys.argv[1] == "spin":
        do_spin(sys.argv[2], sys.argv[3])
    elif len(sys.argv) in (5, 6) and sys.argv[1] == "locks":
        do_locks(sys.argv[3], sys.argv[4], sys.argv[5:] == ["holds"])
    elif len(sys.argv) == 5 and sys.argv[1] == "stats":
        do_stats(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
