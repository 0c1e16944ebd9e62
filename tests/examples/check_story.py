#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Check the traces of the tutorial's programs, read with babeltrace2 (python3-bt2).

    check_story.py server TRACE N     ringtrace-server under record --pthread, after
                                      ringtrace-loadgen sent N requests and QUIT
    check_story.py arp TRACE good|bad|fixed
                                      ringtrace-arp, plain, --race, --race --fixed

Exits 0 when every check passes, else prints the failures and exits 1.
"""
import sys

import bt2

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def load(path):
    evs = []
    counters = {}
    for msg in bt2.TraceCollectionMessageIterator(path):
        if type(msg) is not bt2._EventMessageConst:
            continue
        ev = msg.event
        name = ev.name[:-2] if ev.name.endswith("64") else ev.name
        f = {}
        for k in ev.payload_field:
            v = ev.payload_field[k]
            if isinstance(v, bt2._StringFieldConst):
                f[k] = str(v)
            elif hasattr(v, "labels"):
                f[k] = v.labels[0] if v.labels else int(v)
            else:
                f[k] = int(v)
        if name == "counter":
            counters.setdefault(f["counter"], []).append(f["value"])
        evs.append((name, f))
    return evs, counters


def model(evs):
    tasks = {}
    for name, f in evs:
        if name == "create":
            tasks[f["child"]] = {"kind": f["kind"], "parent": f["parent"], "labels": [],
                                 "resolved": False, "failed": False, "reads": [],
                                 "try_reads": [], "should": False, "became": None}
        t = None
        if name == "label":
            t = tasks.get(f["task"])
            if t is not None:
                t["labels"].append(f["text"])
        elif name in ("resolve", "fail"):
            t = tasks.get(f["task"])
            if t is not None:
                t["resolved"] = True
                t["failed"] = name == "fail"
        elif name == "read":
            t = tasks.get(f["reader"])
            if t is not None:
                t["reads"].append(f["input"])
        elif name == "try_read":
            t = tasks.get(f["reader"])
            if t is not None:
                t["try_reads"].append(f["input"])
        elif name == "should_resolve":
            tasks[f["task"]]["should"] = True
        elif name == "becomes":
            tasks[f["input"]]["became"] = f["main"]
    return tasks


def named(tasks, label):
    return [i for i, t in tasks.items() if t["labels"] and t["labels"][0] == label]


def server(path, n):
    evs, counters = load(path)
    tasks = model(evs)
    reqs = [i for i, t in tasks.items() if t["kind"] == "request"]
    check(len(reqs) == n, "%d request tasks (found %d)" % (n, len(reqs)))
    check(all(tasks[r]["resolved"] and not tasks[r]["failed"] for r in reqs),
          "every request resolved")
    for r in reqs:
        label = tasks[r]["labels"][0] if tasks[r]["labels"] else ""
        check(label.startswith("GET "), "request %d labelled GET N: %r" % (r, label))
    replies = named(tasks, "reply")
    check(len(replies) == n, "a reply bind per request (found %d)" % len(replies))
    readers = set()
    for b in replies:
        readers.update(tasks[b]["reads"])
    check(set(reqs) <= readers, "each request is read by its reply")
    conns = [i for i, t in tasks.items() if t["labels"] and t["labels"][0].startswith("conn ")]
    check(len(conns) >= 2, "connections are tasks (found %d)" % len(conns))
    check(all(tasks[c]["resolved"] for c in conns), "every connection closed")
    names = {t["labels"][0] for t in tasks.values() if t["kind"] == "thread" and t["labels"]}
    for want in ("worker-1", "worker-2", "acceptor"):
        check(want in names, "a thread labelled %s (threads: %s)" % (want, sorted(names)))
    kinds = {t["kind"] for t in tasks.values()}
    check({"mutex", "condition"} <= kinds, "the queue's mutex and condition are tasks")
    queue = counters.get("queue length", [])
    check(queue and queue[-1] == 0 and max(queue) >= 1, "the queue fills and drains: %s" % queue[-5:])
    # "OK N HASH\n": N as asked, the hash in 16 hex digits.
    want = sum(len("OK %s %016x\n" % (tasks[r]["labels"][0][4:], 0)) for r in reqs)
    sent = counters.get("bytes sent", [])
    check(sent and sent[-1] == want, "bytes sent counts every reply: %s, want %d" % (sent[-1:], want))
    conn = counters.get("connections", [])
    check(conn and conn[-1] == 0 and max(conn) >= 2, "connections open and close: %s" % conn[-3:])
    print("%d events, %d tasks, %d requests" % (len(evs), len(tasks), len(reqs)))


def arp(path, mode):
    evs, _ = load(path)
    tasks = model(evs)
    conn = named(tasks, "TCP connect")
    check(len(conn) == 1 and tasks[conn[0]]["should"], "one TCP connect, marked should_resolve")
    if not conn:
        return
    c = tasks[conn[0]]
    if mode == "bad":
        check(not c["resolved"], "TCP connect never resolves")
        check(c["became"] is None, "TCP connect never ran")
        # It waits on the ARP query, which became a wait on the condition that
        # was signalled before that wait began.
        q = c["try_reads"][-1] if c["try_reads"] else None
        check(q is not None and tasks[q]["labels"] == ["ARP query"], "TCP connect waits on ARP query")
        w = tasks[q]["became"] if q else None
        check(w is not None and tasks[w]["labels"] == ["ARP response"] and not tasks[w]["resolved"],
              "ARP query became an ARP response wait that never resolved")
        cond = [i for i, t in tasks.items() if t["kind"] == "condition"]
        check(len(cond) == 1 and w and tasks[w]["try_reads"] == cond,
              "the wait is on the ARP response condition")
        order = [(n, f) for n, f in evs if (n == "signal" and f["receiver"] in cond) or
                 (n == "create" and f["child"] == w)]
        check([n for n, _ in order] == ["signal", "create"],
              "the condition was signalled before the wait was made: %s" % order)
    else:
        end = conn[0]
        while tasks[end]["became"] is not None:
            end = tasks[end]["became"]
        check(end != conn[0] and tasks[end]["resolved"],
              "TCP connect became the SYN's send, which resolved (%s run)" % mode)
        kinds = {t["kind"] for t in tasks.values()}
        check(("condition" in kinds) == (mode == "good"),
              "the fixed program waits with a one-shot wait, not a condition")
    print("%d events, %d tasks" % (len(evs), len(tasks)))


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "server":
        server(sys.argv[2], int(sys.argv[3]))
    elif len(sys.argv) == 4 and sys.argv[1] == "arp" and sys.argv[3] in ("good", "bad", "fixed"):
        arp(sys.argv[2], sys.argv[3])
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    for f in failures:
        print("FAIL:", f)
    sys.exit(1 if failures else 0)


main()
