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
