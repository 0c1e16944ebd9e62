#!/bin/sh
# SPDX-License-Identifier: MIT
# Following a recording: part of `make bench`.
#   scripts/bench-live.sh BUILD_DIR ROWS_FILE
# ringtrace-test-emit (2 threads, RTR_BENCH_LIVE_RATE events a second each,
# default 5000, for RTR_BENCH_LIVE_S seconds, default 10) recorded with
# record's default options (a 1 s flush interval, 100 ms while a follower
# marks the trace: format/state.h), followed by `ringtrace view --serve
# --follow`; a
# poller asks api/meta every 20 ms and, at each new turn, takes the lag: the
# wall clock now minus the newest time the served scene holds (its origin
# plus its end), i.e. from an event's write to the server answering with it.
#   viewer.live.lag_ms / lag_p99_ms / lag_max_ms   median, p99, max over the turns
#   viewer.live.turns                              the scenes served
# Then, where xvfb-run is (Debian's xvfb), the same recording followed by the
# window, `ringtrace gui --follow`, under Xvfb: at each scene it draws the
# window writes the wall clock and the scene's newest time
# (RINGTRACE_GUI_LAG_LOG), i.e. from an event's write to its drawing:
#   gui.live.lag_ms / lag_p99_ms / lag_max_ms, gui.live.turns
# Figures are printed and appended to ROWS_FILE as "name value unit".
set -eu

build=$1
rows=$2
rate=${RTR_BENCH_LIVE_RATE:-5000}
secs=${RTR_BENCH_LIVE_S:-10}
ringtrace=$build/bin/ringtrace
emit=$build/bin/ringtrace-test-emit
for f in "$ringtrace" "$emit"; do
	if [ ! -x "$f" ]; then
		echo "bench-live.sh: $f not found: run make first" >&2
		exit 1
	fi
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ringtrace-bench-live.XXXXXX")
rpid=
spid=
cleanup() {
	[ -n "$spid" ] && kill "$spid" 2>/dev/null && wait "$spid" 2>/dev/null
	[ -n "$rpid" ] && kill "$rpid" 2>/dev/null && wait "$rpid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

# lag_rows PREFIX "WHAT": the lags (ms, one a line, the last scene's left out:
# it comes after the program ended) on standard input, as PREFIX.lag_ms,
# lag_p99_ms, lag_max_ms and turns; printed and appended to the rows
lag_rows() {
	python3 -c '
import sys
prefix, rows, what = sys.argv[1:4]
lags = [float(l) for l in sys.stdin if l.strip()]
lags = sorted(lags[:-1] or lags)
if not lags:
    sys.exit("bench-live.sh: no lag measured for " + prefix)
def pct(p):
    return lags[min(len(lags) - 1, int(p * len(lags)))]
print(f"{what} ({len(lags)} scenes)")
with open(rows, "a") as f:
    for name, v, unit in ((prefix + ".lag_ms", pct(0.5), "ms (median)"),
                          (prefix + ".lag_p99_ms", pct(0.99), "ms"),
                          (prefix + ".lag_max_ms", lags[-1], "ms"),
                          (prefix + ".turns", len(lags), "turns")):
        print(f"  {name:<36} {v:14.3f}  {unit}")
        f.write(f"{name} {v:.6f} {unit.split()[0]}\n")
' "$1" "$rows" "$2"
}

# 10 events, then a pause: RATE events a second a thread
pause=$((10 * 1000000 / rate))
"$ringtrace" record -q -o "$tmp/live" -- \
	"$emit" --threads 2 --events $((rate * secs)) --pace "10:$pause" >"$tmp/rec.log" 2>&1 &
rpid=$!
for _ in $(seq 400); do [ -e "$tmp/live/.ringtrace-state" ] && break; sleep 0.05; done
"$ringtrace" view --serve --follow "$tmp/live" >"$tmp/url" 2>"$tmp/serve.log" &
spid=$!
for _ in $(seq 600); do [ -s "$tmp/url" ] && break; sleep 0.05; done
url=$(head -n 1 "$tmp/url")
if [ -z "$url" ]; then
	echo "bench-live.sh: the server printed no URL" >&2
	cat "$tmp/serve.log" >&2
	exit 1
fi
python3 - "$url" <<'PY' | lag_rows viewer.live \
	"following a recording of 2 threads x $rate events/s, served by view --serve --follow"
import json, sys, time, urllib.request

url, turn = sys.argv[1], -1
while True:
    m = json.load(urllib.request.urlopen(url + 'api/meta', timeout=30))
    now = time.time_ns()
    if m['turn'] != turn and m['events']:
        turn = m['turn']
        print((now - (m['origin_ns'] + m['end'])) / 1e6, flush=True)
    if m['done']:
        break
    time.sleep(0.02)
PY
wait "$rpid"
rpid=

# ---- the window (gui --follow) under Xvfb ------------------------------------------
if ! command -v xvfb-run >/dev/null 2>&1; then
	echo "bench-live.sh: xvfb-run missing (Debian's xvfb): gui.live.* not measured" >&2
	exit 0
fi
rm -rf "$tmp/live"
"$ringtrace" record -q -o "$tmp/live" -- \
	"$emit" --threads 2 --events $((rate * secs)) --pace "10:$pause" >"$tmp/rec.log" 2>&1 &
rpid=$!
for _ in $(seq 400); do [ -e "$tmp/live/.ringtrace-state" ] && break; sleep 0.05; done
# the window's own pid, so that it is the one stopped (xvfb-run then stops Xvfb)
RINGTRACE_GUI_LAG_LOG=$tmp/lag.log xvfb-run -a sh -c 'echo $$ >"$1"; shift; exec "$@"' sh \
	"$tmp/gui.pid" "$ringtrace" gui --follow "$tmp/live" >"$tmp/gui.log" 2>&1 &
spid=$!
wait "$rpid"
rpid=
sleep 1	# the last scene drawn
[ -s "$tmp/gui.pid" ] && kill "$(cat "$tmp/gui.pid")" 2>/dev/null || true
wait "$spid" 2>/dev/null || true
spid=
if [ "$(wc -l <"$tmp/lag.log" 2>/dev/null || echo 0)" -lt 2 ]; then
	echo "bench-live.sh: the window drew no followed scene:" >&2
	cat "$tmp/gui.log" >&2
	exit 1
fi
awk '{ print ($1 - $2) / 1e6 }' "$tmp/lag.log" | lag_rows gui.live \
	"following a recording of 2 threads x $rate events/s in the window, gui --follow under Xvfb"
