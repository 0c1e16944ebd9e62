#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Read a ringtrace CTF directory with babeltrace2's Python bindings.

    bt2_read.py summary DIR   totals (the thread records apart), and the stress
                              events' checksums checked
    bt2_read.py events DIR    one JSON line per event: name, clock cycles, ns from
                              the epoch, cpu, fields (strings as "hex:<bytes>",
                              enums as {"value": N, "labels": [...]}), then pid and
                              tid (from the thread records, null before a packet's
                              first);
                              the thread records themselves are not listed
    bt2_read.py threads DIR   the same, the thread records listed too

Run with Debian's /usr/bin/python3, where python3-bt2 lives.
"""
import json
import sys

import bt2

MASK = (1 << 64) - 1


def checksum(writer, seq):
    x = ((writer << 40) ^ seq ^ 0x9E3779B97F4A7C15) & MASK
    x ^= x >> 31
    x = (x * 0xBF58476D1CE4E5B9) & MASK
    x ^= x >> 27
    return x


def messages(path):
    return bt2.TraceCollectionMessageIterator(path)


def summary(path):
    out = {"events": 0, "bad_checksums": 0, "discarded_events": 0,
           "discarded_events_unknown": 0, "discarded_packets": 0,
           "packets": 0}
    for msg in messages(path):
        if type(msg) is bt2._EventMessageConst:
            ev = msg.event
            if ev.name == "thread":
                out["thread_records"] = out.get("thread_records", 0) + 1
                continue  # the ring's, not the program's events
            out["events"] += 1
            if ev.name == "stress_event":
                p = ev.payload_field
                if int(p["check"]) != checksum(int(p["writer"]), int(p["seq"])):
                    out["bad_checksums"] += 1
        elif type(msg) is bt2._PacketBeginningMessageConst:
            out["packets"] += 1
        elif type(msg) is bt2._DiscardedEventsMessageConst:
            if msg.count is None:
                out["discarded_events_unknown"] += 1
            else:
                out["discarded_events"] += msg.count
        elif type(msg) is bt2._DiscardedPacketsMessageConst:
            out["discarded_packets"] += msg.count or 0
    print(json.dumps(out))


def events(path, threads=False):
    # ringtrace's thread records: the thread of the records after them in
    # their packet; a packet starts with no thread known
    thread = {}
    for msg in messages(path):
        if type(msg) is bt2._PacketBeginningMessageConst:
            thread[msg.packet.stream.addr] = (None, None)
            continue
        if type(msg) is not bt2._EventMessageConst:
            continue
        ev = msg.event
        key = ev.packet.stream.addr
        if ev.name == "thread" and [f for f in ev.payload_field] == ["pid", "tid"]:
            thread[key] = (int(ev.payload_field["pid"]), int(ev.payload_field["tid"]))
            if not threads:
                continue
        pid, tid = thread.get(key, (None, None))
        fields = {}
        for name, value in ev.payload_field.items():
            if isinstance(value, bt2._StringFieldConst):
                raw = str(value).encode("utf-8", "surrogateescape")
                fields[name] = "hex:" + raw.hex()
            elif isinstance(value, bt2._RealFieldConst):
                fields[name] = float(value)
            elif isinstance(value, bt2._EnumerationFieldConst):
                fields[name] = int(value)
                try:
                    fields[name + "@labels"] = list(value.labels)
                except AssertionError:  # bt2 2.0 asserts on a value with no label
                    fields[name + "@labels"] = []
            elif isinstance(value, bt2._ArrayFieldConst):
                fields[name] = "hex:" + bytes(int(b) for b in value).hex()
            else:
                fields[name] = int(value)
        cs = msg.default_clock_snapshot
        print(json.dumps({"name": ev.name,
                          "cycles": cs.value,
                          "ns": cs.ns_from_origin,
                          "cpu": int(ev.packet.context_field["cpu_id"]),
                          "fields": fields,
                          "pid": pid, "tid": tid}))


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("summary", "events", "threads"):
        sys.stderr.write(__doc__)
        sys.exit(2)
    if sys.argv[1] == "threads":
        events(sys.argv[2], threads=True)
    else:
        {"summary": summary, "events": events}[sys.argv[1]](sys.argv[2])
