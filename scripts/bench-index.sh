#!/bin/sh
# SPDX-License-Identifier: MIT
# scripts/bench-index.sh BUILD ROWS: the index beside a trace (reader/index.h)
# on a trace of about 100 M events of the task mix (ringtrace-events-bench
# --make-trace; RTR_BENCH_INDEX_REQUESTS requests, 9.1 M by default: ~11
# events each, ~1.2 GB in /dev/shm).  Rows appended to ROWS:
#   viewer.100m.index_s (the first `ringtrace index`: every packet read),
#   viewer.100m.reopen_s (again: the index checked and reused),
#   viewer.100m.index_bytes_per_event, viewer.100m.index_mevents_per_s,
#   viewer.100m.slice_dump_s (`dump --slice` of 10 ms in the middle),
#   viewer.100m.slice_view_s (`view --slice` of 10 ms: a page of that range).
#   viewer.100m.follow_turn_s (a turn of following it, gui --follow's and
#   view --serve --follow's: the tail of its last ~1 M events, loaded and laid out).
# Then, where xvfb-run is (Debian's xvfb), the window on the whole trace,
# under Xvfb with software rendering (GSK_RENDERER=cairo): its overview
# first, slices loaded as the view narrows (Documentation/viewer.rst):
#   gui.100m.open_s (gui --screenshot: started, first frame drawn, saved, exited),
#   gui.100m.frame_ms / frame_max_ms (p95 and max of the drawing of each frame
#   of a scripted zoom from the whole trace to 1 us, four pans a level:
#   RINGTRACE_GUI_BENCH), gui.100m.overview_frames (frames drawn from the
#   index), gui.100m.rss_bytes_per_event (the window's private memory then).
# Then `ringtrace stats` on the whole trace: stats.100m.s,
# stats.100m.mevents_per_s and stats.100m.rss_mb (its peak resident memory,
# /usr/bin/time's %M): the task model held whole, about 70 bytes an event.
# And `view --serve` on it, its page in headless Chromium (tests/viewer/
# serve_bench.mjs: the same scripted zoom, each step the page's window set,
# answered and drawn): viewer.100m.serve_open_s, viewer.100m.frame_ms (p95),
# viewer.100m.frame_max_ms, viewer.100m.rss_bytes_per_event (the server's),
# and the floor under a step, in the same run: viewer.100m.fetch_floor_ms
# (p95) and fetch_floor_p50_ms, the page's round trip for api/meta (~1 kB).
set -eu
build=$1 rows=$2
ringtrace=$build/bin/ringtrace
events_bench=$build/bin/ringtrace-events-bench
requests=${RTR_BENCH_INDEX_REQUESTS:-9100000}
out=$(mktemp -d /dev/shm/ringtrace-bench-index.XXXXXX)
trap 'rm -rf "$out"' EXIT

row() {
	printf '  %-36s %14.3f  %-14s\n' "$1" "$2" "$3"
	printf '%s %s %s\n' "$1" "$2" "$3" >>"$rows"
}
secs() {
	t0=$(date +%s%N)
	"$@" >/dev/null 2>&1
	t1=$(date +%s%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }'
}

"$events_bench" --make-trace "$out/t" --events "$requests" >/dev/null
first=$(secs "$ringtrace" index "$out/t")
again=$(secs "$ringtrace" index "$out/t")
summary=$("$ringtrace" index "$out/t")
events=$(echo "$summary" | awk '/ events/ { for (i = 1; i < NF; i++) if ($(i + 1) ~ /^events/) print $i }')
size=$(stat -c %s "$out/t/.ringtrace-index")
span=$(echo "$summary" | awk '/of the trace.s clock/ { for (i = 1; i < NF; i++) if ($(i + 1) == "s") print $i }')
mid=$(awk -v s="$span" 'BEGIN { printf "%.0f", s * 500 }')
dump=$(secs "$ringtrace" dump --slice "${mid}ms..$((mid + 10))ms" "$out/t")
view=$(secs "$ringtrace" view --force -o "$out/slice.html" --slice "${mid}ms..$((mid + 10))ms" "$out/t")
echo
echo "index: a trace of $events events ($(du -m "$out/t" | cut -f1) MiB, one stream), in /dev/shm"
printf '  %-36s %14s  %-14s\n' name value unit
row viewer.100m.index_s "$first" s
row viewer.100m.index_mevents_per_s "$(awk -v n="$events" -v t="$first" 'BEGIN { printf "%.3f", n / t / 1e6 }')" Mevents/s
row viewer.100m.reopen_s "$again" s
row viewer.100m.index_bytes_per_event "$(awk -v s="$size" -v n="$events" 'BEGIN { printf "%.4f", s / n }')" bytes/event
row viewer.100m.slice_dump_s "$dump" s
row viewer.100m.slice_view_s "$view" s
# a turn of following it (view/live.h): its tail, not the whole of it
"$build/bin/ringtrace-view-bench" --tail "$out/t" --rows "$rows" | tail -n 2
# `ringtrace stats` on the whole of it: the model in memory (not yet streaming)
st=$(/usr/bin/time -f 'rtr-time %x %e %M' "$ringtrace" stats "$out/t" 2>&1 >/dev/null |
	awk '$1 == "rtr-time" && $2 == 0 { print $3, $4 }') || st=
if [ -n "$st" ]; then
	row stats.100m.s "$(echo "$st" | awk '{ printf "%.3f", $1 }')" s
	row stats.100m.mevents_per_s "$(echo "$st" | awk -v n="$events" '{ printf "%.3f", n / $1 / 1e6 }')" Mevents/s
	row stats.100m.rss_mb "$(echo "$st" | awk '{ printf "%.1f", $2 / 1024 }')" MiB
else
	echo "bench-index.sh: ringtrace stats on the trace failed, or /usr/bin/time is missing" \
		"(Debian's time): stats.100m.* not measured" >&2
fi

if [ -x /usr/bin/chromium ] && srows=$(tests/viewer/run.sh "$build" serve-bench "$out/t"); then
	sfig() { echo "$srows" | awk -v k="$1" '$1 == k { print $2 }'; }
	echo
	echo "view --serve: its page in headless Chromium, $(sfig frames) steps of a scripted" \
		"zoom from the whole trace to 1 us, $(sfig overview_frames) of them the overview," \
		"$(sfig slices) slice(s) loaded"
	printf '  %-36s %14s  %-14s\n' name value unit
	row viewer.100m.serve_open_s "$(sfig open_s)" s
	row viewer.100m.frame_ms "$(sfig frame_ms)" "ms (p95)"
	row viewer.100m.frame_max_ms "$(sfig frame_max_ms)" ms
	row viewer.100m.fetch_floor_ms "$(sfig fetch_p95_ms)" "ms (p95)"
	row viewer.100m.fetch_floor_p50_ms "$(sfig fetch_p50_ms)" ms
	row viewer.100m.rss_bytes_per_event "$(awk -v r="$(sfig rss_anon_bytes)" \
		-v n="$(sfig events)" 'BEGIN { printf "%.3f", r / n }')" bytes/event
else
	echo "bench-index.sh: view --serve in Chromium not measured (/usr/bin/chromium missing, or it failed)" >&2
fi

if ! command -v xvfb-run >/dev/null 2>&1; then
	echo "bench-index.sh: xvfb-run missing (Debian's xvfb): gui.100m.* not measured" >&2
	exit 0
fi
# the time inside Xvfb's session: the window's own, not the X server's start
open=$(xvfb-run -a sh -c 't0=$(date +%s%N); GSK_RENDERER=cairo "$0" gui --screenshot "$1" \
	"$2" >/dev/null 2>&1 || exit 1; t1=$(date +%s%N); echo $((t1 - t0))' \
	"$ringtrace" "$out/shot.png" "$out/t" 2>/dev/null | tail -n 1)
RINGTRACE_GUI_BENCH=$out/gui.txt xvfb-run -a env GSK_RENDERER=cairo "$ringtrace" gui "$out/t" \
	>/dev/null 2>&1 || true
if [ -z "$open" ] || ! grep -q '^frame_p95_ms ' "$out/gui.txt" 2>/dev/null; then
	echo "bench-index.sh: the window could not be measured under Xvfb (gui failed)" >&2
	exit 1
fi
fig() { awk -v k="$1" '$1 == k { print $2 }' "$out/gui.txt"; }
echo
echo "gui: the window on that trace under Xvfb (software rendering): $(fig frames) frames" \
	"of a scripted zoom from the whole trace to 1 us, $(fig overview_frames) of them" \
	"the overview, $(fig slices) slice(s) loaded"
printf '  %-36s %14s  %-14s\n' name value unit
row gui.100m.open_s "$(awk -v n="$open" 'BEGIN { printf "%.3f", n / 1e9 }')" s
row gui.100m.frame_ms "$(fig frame_p95_ms)" ms
row gui.100m.frame_max_ms "$(fig frame_max_ms)" ms
row gui.100m.frame_p50_ms "$(fig frame_p50_ms)" ms
row gui.100m.overview_frames "$(fig overview_frames)" frames
row gui.100m.rss_bytes_per_event "$(awk -v r="$(fig rss_anon_bytes)" -v n="$(fig events)" \
	'BEGIN { printf "%.3f", r / n }')" bytes/event
