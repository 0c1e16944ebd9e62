#!/bin/sh
# SPDX-License-Identifier: MIT
# scripts/bench-export.sh BUILD ROWS TRACE: `ringtrace export` of TRACE (make
# bench's 1 M-event viewer trace) as Trace Event JSON, as Perfetto's protobuf
# and as that protobuf gzipped; the bytes per event of the trace (its events
# as `ringtrace stats` counts them) and the time (best of 3, output in
# /dev/shm, the model's load included).  Rows appended to ROWS:
#   export.chrome.bytes_per_event, export.chrome.s,
#   perfetto.bytes_per_event, perfetto.s, perfetto.gzip.bytes_per_event,
#   perfetto.gzip.s, sqlite.mevents_per_s (the trace's events over the time
#   of `export --format sqlite`, best of 3)
# and, with a viewer trace generator (BUILD/bin/rtr-viewer-traces): diff.10m.s,
# `ringtrace diff` of two 10 M-event recordings of that event loop (once).
set -eu
build=$1 rows=$2 trace=$3
ringtrace=$build/bin/ringtrace
out=$(mktemp -d /dev/shm/ringtrace-bench-export.XXXXXX)
trap 'rm -rf "$out"' EXIT

events=$("$ringtrace" stats --json "$trace" |
	python3 -c 'import json, sys; print(sum(t["events"] for t in json.load(sys.stdin)["traces"]))')
echo
echo "export: the viewer's trace ($events events), best of 3 runs each, to /dev/shm"
printf '  %-36s %14s  %-14s\n' name value unit
row() {
	printf '  %-36s %14.3f  %-14s\n' "$1" "$2" "$3"
	printf '%s %s %s\n' "$1" "$2" "$3" >>"$rows"
}
# one NAME FILE ARGS...: the export's size per event and its best time
one() {
	name=$1 file=$2
	shift 2
	best=
	for _ in 1 2 3; do
		t0=$(date +%s%N)
		"$ringtrace" export "$@" --force -o "$out/$file" "$trace"
		t1=$(date +%s%N)
		if [ -z "$best" ] || [ $((t1 - t0)) -lt "$best" ]; then
			best=$((t1 - t0))
		fi
	done
	size=$(stat -c %s "$out/$file")
	row "$name.bytes_per_event" "$(awk -v s="$size" -v n="$events" 'BEGIN { printf "%.3f", s / n }')" bytes/event
	row "$name.s" "$(awk -v t="$best" 'BEGIN { printf "%.3f", t / 1e9 }')" s
}
one export.chrome t.json --format chrome
one perfetto t.pftrace --format perfetto
one perfetto.gzip t.pftrace.gz --format perfetto --gzip
one sqlite t.db --format sqlite
row sqlite.mevents_per_s "$(awk -v n="$events" -v t="$best" 'BEGIN { printf "%.3f", n * 1e3 / t }')" Mevents/s
rm -f "$out"/t.*

gen=$build/bin/rtr-viewer-traces
[ -x "$gen" ] || exit 0
"$gen" --events 10000000 "$out/a" >/dev/null
"$gen" --events 10000000 "$out/b" >/dev/null
t0=$(date +%s%N)
"$ringtrace" diff "$out/a" "$out/b" >/dev/null
t1=$(date +%s%N)
echo "diff: two recordings of 10 M events of the event loop above"
row diff.10m.s "$(awk -v t=$((t1 - t0)) 'BEGIN { printf "%.3f", t / 1e9 }')" s
