#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The live lag of a reader of an lttng-relayd session (scripts/bench-relayd.sh).

    relayd_lag.py COMMAND...

Runs COMMAND (a live reader printing one line per event that starts with
[SECONDS.NANOSECONDS], the event's time since the epoch: babeltrace2 with
clock-seconds, ringtrace dump --clock-seconds), and for each line with
"rtrtest:ev" takes the wall time it came minus the event's time, for the
events written 1 s or more after COMMAND started (a reader that starts at
the session's first packet prints the earlier ones as a backlog; babeltrace2
skips them).  Prints one JSON line: events, p50_ms, p99_ms, max_ms.  Runs
on the same host as the traced program: one clock.
"""
import json
import subprocess
import sys
import time


def main(cmd):
    lags = []
    steady = time.time() + 1.0
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                          bufsize=0) as p:
        for line in p.stdout:
            now = time.time()
            if b"rtrtest:ev" not in line or not line.startswith(b"["):
                continue
            ts = float(line[1:line.index(b"]")])
            if ts >= steady:
                lags.append(now - ts)
    lags.sort()
    if not lags:
        print(json.dumps({"events": 0}))
        return 1

    def pct(q):
        return 1000 * lags[min(len(lags) - 1, int(q * len(lags)))]

    print(json.dumps({"events": len(lags), "p50_ms": pct(0.5), "p99_ms": pct(0.99),
                      "max_ms": 1000 * lags[-1]}))
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.stderr.write(__doc__)
        sys.exit(2)
    sys.exit(main(sys.argv[1:]))
