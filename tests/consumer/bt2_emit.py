#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Read a trace of ringtrace-test-emit with babeltrace2's Python bindings.

    bt2_emit.py DIR   one JSON line: events (all classes), emit_events
                      (rtrtest:ev), bad_checksums, digest (sum of the check
                      fields mod 2^64), discarded events and packets, packets

Run with Debian's /usr/bin/python3, where python3-bt2 lives.
"""
import json
import os
import sys

import bt2

# The checksum, and MASK, as the stress harness's (tests/interop/bt2_read.py).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "interop"))
from bt2_read import MASK, checksum  # noqa: E402


def main(path):
    out = {"events": 0, "emit_events": 0, "bad_checksums": 0, "digest": 0,
           "discarded_events": 0, "discarded_events_unknown": 0,
           "discarded_packets": 0, "packets": 0}
    for msg in bt2.TraceCollectionMessageIterator(path):
        if type(msg) is bt2._EventMessageConst:
            ev = msg.event
            out["events"] += 1
            if ev.name == "rtrtest:ev":
                p = ev.payload_field
                out["emit_events"] += 1
                check = int(p["check"])
                if check != checksum(int(p["thread"]), int(p["seq"])):
                    out["bad_checksums"] += 1
                out["digest"] = (out["digest"] + check) & MASK
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


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.stderr.write(__doc__)
        sys.exit(2)
    main(sys.argv[1])
