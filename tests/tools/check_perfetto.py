#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Check a Perfetto protobuf trace as `ringtrace export --format perfetto`
writes it, decoded by `protoc --decode` with tools/perfetto_trace.proto.

usage: check_perfetto.py PROTO FILE [--summary]

FILE may be gzip-compressed (--gzip); it is decoded whole by protoc, which
must succeed.  Then, replaying the packets as trace_processor does:
- the first packet on sequence 1 clears its state and gives the clock
  snapshot (clock 64 incremental) and the defaults (timestamp_clock_id 64);
  no event comes before it; every event is on sequence 1;
- timestamps, deltas on clock 64, never go back;
- every track an event names has a TrackDescriptor, written before it, and
  no uuid is described twice; counters go to counter tracks only, slices and
  instants never to one; each parent_uuid is a described track;
- an interned name (event name, category, argument name) is defined once,
  before its first use;
- on each track, slice ends match begins (a stack: nothing left open at
  the end) and an instant is never before the slice it is in began;
- each flow id has exactly one source (flow_ids) and one target
  (terminating_flow_ids), the source not after the target.

Exit status 0 if every rule holds; 1 with the broken rules on stderr.
With --summary, print a JSON object of counts on stdout: packets, each
type's events, slices per kind of track (tasks, cpus, pauses), flows,
counter values per counter name and the values in order, tasks per category, the names of the
slices on task tracks and the times (on clock 64, the model's) at which the
first slice of each name began and ended.
"""
import codecs
import gzip
import json
import re
import subprocess
import sys
from collections import Counter, defaultdict

TOKEN = re.compile(r'\s*(?:([A-Za-z_][A-Za-z0-9_]*)\s*(\{|:\s*("(?:[^"\\]|\\.)*"|[^\s]+))|(\}))')


def parse(text):
    """protoc's text format as nested dicts of lists."""
    root = defaultdict(list)
    stack = [root]
    pos = 0
    while True:
        m = TOKEN.match(text, pos)
        if not m:
            if text[pos:].strip():
                raise ValueError("unparsed text at %d: %r" % (pos, text[pos:pos + 60]))
            break
        pos = m.end()
        if m.group(4):
            stack.pop()
            continue
        key = m.group(1)
        if m.group(2) == "{":
            child = defaultdict(list)
            stack[-1][key].append(child)
            stack.append(child)
            continue
        v = m.group(3)
        if v.startswith('"'):
            v = codecs.escape_decode(v[1:-1].encode("latin-1"))[0].decode("utf-8")
        elif re.fullmatch(r"-?\d+", v):
            v = int(v)
        elif v in ("true", "false"):
            v = v == "true"
        stack[-1][key].append(v)
    return root


def one(d, key, default=None):
    v = d.get(key)
    return v[0] if v else default


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    proto, path = args
    raw = open(path, "rb").read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    d = subprocess.run(["protoc", "--proto_path=" + proto.rsplit("/", 1)[0],
                        "--decode=perfetto.protos.Trace", proto.rsplit("/", 1)[1]],
                       input=raw, capture_output=True)
    if d.returncode != 0:
        print("protoc --decode failed: %s" % d.stderr.decode(errors="replace")[:2000],
              file=sys.stderr)
        return 1
    trace = parse(d.stdout.decode("utf-8"))
    errors = []

    def bad(msg):
        if len(errors) < 50:
            errors.append(msg)

    tracks = {}          # uuid -> descriptor
    kind_of = {}         # uuid -> "tasks" | "cpus" | "threads" | "pauses" | "counter" | "process"
    names, cats, argnames = {}, {}, {}
    ts = None
    open_slices = defaultdict(list)
    flows_out, flows_in = {}, {}
    count = Counter()
    slices = Counter()
    counter_values = Counter()
    categories = Counter()
    task_names = Counter()
    task_times = {}      # a task slice's name -> [begin, end] (the first of that name)
    values = defaultdict(list)
    packets = trace.get("packet", [])
    for i, p in enumerate(packets):
        count["packets"] += 1
        td = one(p, "track_descriptor")
        if td is not None:
            u = one(td, "uuid")
            if u in tracks:
                bad("packet %d: track %s described twice" % (i, u))
            tracks[u] = td
            if one(td, "counter") is not None:
                kind_of[u] = "counter"
            elif one(td, "process") is not None:
                kind_of[u] = "process"
            elif one(td, "thread") is not None:
                name = one(one(td, "thread"), "thread_name", "")
                kind_of[u] = "cpus" if name.startswith("cpu ") or "stream" in name else "threads"
            elif one(td, "name", "").startswith("pauses"):
                kind_of[u] = "pauses"
            else:
                kind_of[u] = "tasks"
            par = one(td, "parent_uuid")
            if par is not None and par not in tracks:
                bad("packet %d: track %s's parent %s is not described before it" % (i, u, par))
            continue
        if one(p, "trusted_packet_sequence_id") != 1:
            bad("packet %d: not on sequence 1" % i)
            continue
        cs = one(p, "clock_snapshot")
        if cs is not None:
            if one(p, "sequence_flags") != 1 or ts is not None:
                bad("packet %d: a clock snapshot that does not start the sequence" % i)
            clocks = {one(c, "clock_id"): c for c in cs["clocks"]}
            if 64 not in clocks or not one(clocks[64], "is_incremental") or 6 not in clocks:
                bad("packet %d: no incremental clock 64 mapped to BOOTTIME" % i)
            if one(one(p, "trace_packet_defaults", {}), "timestamp_clock_id") != 64:
                bad("packet %d: the defaults' clock is not 64" % i)
            ts = one(clocks.get(64, {}), "timestamp", 0)
            continue
        ev = one(p, "track_event")
        if ev is None:
            bad("packet %d: neither descriptor, snapshot nor event" % i)
            continue
        if ts is None:
            bad("packet %d: an event before the clock snapshot" % i)
            ts = 0
        delta = one(p, "timestamp")
        if delta is None or delta < 0:
            bad("packet %d: no timestamp" % i)
            delta = 0
        ts += delta
        inter = one(p, "interned_data", {})
        for table, key in ((names, "event_names"), (cats, "event_categories"),
                           (argnames, "debug_annotation_names")):
            for e in inter.get(key, []):
                if one(e, "iid") in table:
                    bad("packet %d: %s iid %s defined twice" % (i, key, one(e, "iid")))
                table[one(e, "iid")] = one(e, "name")
        typ = one(ev, "type")
        count[typ] += 1
        u = one(ev, "track_uuid")
        if u not in tracks:
            bad("packet %d: track %s has no descriptor" % (i, u))
            continue
        k = kind_of[u]
        if (typ == "TYPE_COUNTER") != (k == "counter"):
            bad("packet %d: a %s on a %s track" % (i, typ, k))
            continue
        name = None
        if one(ev, "name_iid") is not None:
            name = names.get(one(ev, "name_iid"))
            if name is None:
                bad("packet %d: event name iid %s not defined" % (i, one(ev, "name_iid")))
        else:
            name = one(ev, "name")
        for c in ev.get("category_iids", []):
            if c not in cats:
                bad("packet %d: category iid %s not defined" % (i, c))
        for a in ev.get("debug_annotations", []):
            if one(a, "name_iid") not in argnames:
                bad("packet %d: argument name iid %s not defined" % (i, one(a, "name_iid")))
        if typ == "TYPE_SLICE_BEGIN":
            open_slices[u].append((ts, name))
            slices[k] += 1
            if k == "tasks":
                task_names[name] += 1
                for c in ev.get("category_iids", []):
                    categories[cats.get(c)] += 1
        elif typ == "TYPE_SLICE_END":
            if not open_slices[u]:
                bad("packet %d: a slice end on track %s with none open" % (i, u))
            else:
                begin, bname = open_slices[u].pop()
                if k == "tasks":
                    task_times.setdefault(bname, [begin, ts])
        elif typ == "TYPE_INSTANT":
            if k in ("cpus", "pauses") and one(ev, "correlation_id") is not None or \
                    k == "pauses":
                slices[k] += 1     # a run (or pause) of 0 ns
        elif typ == "TYPE_COUNTER":
            counter_values[one(tracks[u], "name")] += 1
            values[one(tracks[u], "name")].append(one(ev, "counter_value"))
        for f in ev.get("flow_ids", []):
            if f in flows_out:
                bad("packet %d: flow %s has two sources" % (i, f))
            flows_out[f] = ts
        for f in ev.get("terminating_flow_ids", []):
            if f in flows_in:
                bad("packet %d: flow %s has two targets" % (i, f))
            flows_in[f] = ts
    for u, st in open_slices.items():
        if st:
            bad("track %s: %d slices never end (the first: %r)" % (u, len(st), st[0][1]))
    for f in set(flows_out) | set(flows_in):
        if f not in flows_out or f not in flows_in:
            bad("flow %s has %s" % (f, "no target" if f in flows_out else "no source"))
        elif flows_out[f] > flows_in[f]:
            bad("flow %s: its source is after its target" % f)
    if ts is None:
        bad("no clock snapshot: no events")
    if errors:
        print("\n".join(errors), file=sys.stderr)
        return 1
    if "--summary" in sys.argv:
        out = dict(count)
        out.update({"slices_" + k: v for k, v in slices.items()})
        out["flows"] = len(flows_out)
        out["tracks"] = dict(Counter(kind_of.values()))
        out["counters"] = dict(counter_values)
        out["categories"] = dict(categories)
        out["task_names"] = dict(task_names)
        out["task_times"] = task_times
        out["counter_values"] = dict(values)
        print(json.dumps(out, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
