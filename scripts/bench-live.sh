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
python3 - "$url" "$rows" "$rate" <<'PY'
import json, sys, time, urllib.request

url, rows, rate = sys.argv[1], sys.argv[2], int(sys.argv[3])
lags, turn = [], -1
while True:
    m = json.load(urllib.request.urlopen(url + 'api/meta', timeout=30))
    now = time.time_ns()
    if m['turn'] != turn and m['events']:
        turn = m['turn']
        lags.append((now - (m['origin_ns'] + m['end'])) / 1e6)
    if m['done']:
        break
    time.sleep(0.02)
lags = lags[:-1] or lags   # the last turn comes after the program ended: no lag to speak of
lags.sort()
def pct(p):
    return lags[min(len(lags) - 1, int(p * len(lags)))]
print(f"following a recording of 2 threads x {rate} events/s, served by view --serve --follow "
      f"({m['events']} events, {len(lags)} turns)")
with open(rows, 'a') as f:
    for name, v, unit in (('viewer.live.lag_ms', pct(0.5), 'ms (median)'),
                          ('viewer.live.lag_p99_ms', pct(0.99), 'ms'),
                          ('viewer.live.lag_max_ms', lags[-1], 'ms'),
                          ('viewer.live.turns', len(lags), 'turns')):
        print(f"  {name:<36} {v:14.3f}  {unit}")
        f.write(f"{name} {v:.6f} {unit.split()[0]}\n")
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
python3 - "$tmp/lag.log" "$rows" "$rate" "$tmp/gui.log" <<'PY'
import sys

log, rows, rate, guilog = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
try:
    lines = [l.split() for l in open(log)]
except OSError:
    lines = []
if len(lines) < 2:
    print("bench-live.sh: the window drew no followed scene:", file=sys.stderr)
    print(open(guilog).read(), file=sys.stderr)
    sys.exit(1)
# the last scene comes after the program ended: no lag to speak of
lags = sorted((int(w) - int(e)) / 1e6 for w, e, _ in lines[:-1])
def pct(p):
    return lags[min(len(lags) - 1, int(p * len(lags)))]
print(f"following a recording of 2 threads x {rate} events/s in the window, gui --follow under "
      f"Xvfb ({lines[-1][2]} events, {len(lags)} scenes drawn)")
with open(rows, 'a') as f:
    for name, v, unit in (('gui.live.lag_ms', pct(0.5), 'ms (median)'),
                          ('gui.live.lag_p99_ms', pct(0.99), 'ms'),
                          ('gui.live.lag_max_ms', lags[-1], 'ms'),
                          ('gui.live.turns', len(lags), 'turns')):
        print(f"  {name:<36} {v:14.3f}  {unit}")
        f.write(f"{name} {v:.6f} {unit.split()[0]}\n")
PY
