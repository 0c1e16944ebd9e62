#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Check a Trace Event Format JSON file against the rules Perfetto UI and
chrome://tracing rely on, as `ringtrace export --format chrome` writes it.

usage: check_trace_events.py FILE [--summary]

Rules: the bytes are valid UTF-8 and valid JSON (no raw control characters
in strings); the top level is an object with a "traceEvents" array; every
event has a known "ph", a string "name", integer "pid" (and "tid" where the
phase needs one), a numeric "ts" >= 0 (not for "M"); "X" has a "dur" >= 0;
every async begin "b" has its end "e" on the same track (pid, cat, id), in
order, with the same name, and nothing is left open; async instants "n" carry
cat and id; flows (v2: "bind_id" with "flow_out" / "flow_in") pair up: each
id has exactly one source and one target, the source not after the target;
timestamps never go back on a track (an async track (pid, cat, id), a thread
(pid, tid), a counter (pid, name)); complete events "X" on a thread never
overlap in part: each one, its end being ts + dur added as a viewer adds
them (doubles), ends by the time the next one begins, or lies within the
one it begins in; counter "C" args are all numbers.

Exit status 0 if every rule holds; 1 with the broken rules on stderr.
With --summary, print a JSON object of counts on stdout.
"""
import json
import sys
from collections import defaultdict

KNOWN = set("BEXbenMCisfI")


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    raw = open(sys.argv[1], "rb").read()
    errors = []

    def bad(msg):
        if len(errors) < 50:
            errors.append(msg)

    try:
        text = raw.decode("utf-8", errors="strict")
    except UnicodeDecodeError as e:
        print("not valid UTF-8: %s" % e, file=sys.stderr)
        return 1
    try:
        doc = json.loads(text)  # strict: raw control characters in strings fail
    except ValueError as e:
        print("not valid JSON: %s" % e, file=sys.stderr)
        return 1
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        print("the top level is not an object with a traceEvents array", file=sys.stderr)
        return 1

    last_ts = {}
    open_slices = defaultdict(list)  # per thread: ends of the "X" that contain the last one
    open_async = {}
    flows_out = {}
    flows_in = {}
    counts = defaultdict(int)
    names = defaultdict(list)
    for i, ev in enumerate(doc["traceEvents"]):
        where = "event %d" % i
        if not isinstance(ev, dict):
            bad("%s: not an object" % where)
            continue
        ph = ev.get("ph")
        if ph not in KNOWN:
            bad("%s: unknown ph %r" % (where, ph))
            continue
        counts[ph] += 1
        if not isinstance(ev.get("name"), str):
            bad("%s: no string name" % where)
        if not isinstance(ev.get("pid"), int):
            bad("%s: no integer pid" % where)
        if ph == "M":
            names[ev.get("name")].append(ev.get("args", {}).get("name"))
            continue
        ts = ev.get("ts")
        if not isinstance(ts, (int, float)) or isinstance(ts, bool) or ts < 0:
            bad("%s: bad ts %r" % (where, ts))
            continue
        if ph in "ben":
            if "cat" not in ev or "id" not in ev:
                bad("%s: async event without cat and id" % where)
                continue
            track = ("async", ev["pid"], ev["cat"], str(ev["id"]))
        elif ph == "C":
            track = ("counter", ev["pid"], ev["name"])
            args = ev.get("args")
            if not isinstance(args, dict) or not args:
                bad("%s: counter without args" % where)
            else:
                for k, v in args.items():
                    if not isinstance(v, (int, float)) or isinstance(v, bool):
                        bad("%s: counter arg %r is not a number: %r" % (where, k, v))
        else:
            if not isinstance(ev.get("tid"), int):
                bad("%s: no integer tid" % where)
            track = ("thread", ev["pid"], ev.get("tid"))
        if ph == "X":
            d = ev.get("dur")
            if not isinstance(d, (int, float)) or isinstance(d, bool) or d < 0:
                bad("%s: X with bad dur %r" % (where, d))
            else:
                stack = open_slices[track]
                while stack and stack[-1] <= ts:
                    stack.pop()
                end = ts + d  # as JavaScript adds them
                if stack and end > stack[-1]:
                    bad("%s: X [%r, %r] overlaps the one before on track %r, which ends at %r"
                        % (where, ts, end, track, stack[-1]))
                stack.append(end)
        if track in last_ts and ts < last_ts[track]:
            bad("%s: ts %r goes back on track %r (after %r)" % (where, ts, track, last_ts[track]))
        last_ts[track] = ts
        if ph == "b":
            if track in open_async:
                bad("%s: second b on track %r before its e" % (where, track))
            open_async[track] = (ev["name"], ts)
        elif ph == "e":
            if track not in open_async:
                bad("%s: e without b on track %r" % (where, track))
            else:
                name, _ = open_async.pop(track)
                if name != ev["name"]:
                    bad("%s: e named %r ends b named %r" % (where, ev["name"], name))
        if "bind_id" in ev:
            fid = ev["bind_id"]
            fo, fi = ev.get("flow_out") is True, ev.get("flow_in") is True
            if not fo and not fi:
                bad("%s: bind_id without flow_out or flow_in" % where)
            if fo:
                if fid in flows_out:
                    bad("%s: flow %r has two sources" % (where, fid))
                flows_out[fid] = ts
            if fi:
                if fid in flows_in:
                    bad("%s: flow %r has two targets" % (where, fid))
                if fid not in flows_out:
                    bad("%s: flow %r target before its source" % (where, fid))
                elif flows_out[fid] > ts:
                    bad("%s: flow %r goes back in time" % (where, fid))
                flows_in[fid] = ts
    for track in open_async:
        bad("track %r: b without e" % (track,))
    for fid in flows_out:
        if fid not in flows_in:
            bad("flow %r has no target" % (fid,))
    if errors:
        for e in errors:
            print(e, file=sys.stderr)
        return 1
    if "--summary" in sys.argv:
        out = dict(counts)
        out["flows"] = len(flows_in)
        out["async_tracks"] = len({t for t in last_ts if t[0] == "async"})
        out["thread_names"] = sorted(n for n in names.get("thread_name", []) if n)
        out["process_names"] = sorted(n for n in names.get("process_name", []) if n)
        print(json.dumps(out, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
