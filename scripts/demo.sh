#!/bin/sh
# SPDX-License-Identifier: MIT
# make demo: the ring under stress, then programs recorded end to end.
#   scripts/demo.sh BUILD_DIR
# The traces and the viewer's page stay in BUILD_DIR/demo/.
set -eu
build=$1
bin=$build/bin
secs=${RTR_DEMO_SECONDS:-5}
out=$build/demo
mkdir -p "$out"

echo "== 1. The ring: writers flat out against a consumer in another process"
"$bin/ringtrace-stress" --seconds "$secs"

echo
echo "== 2. ringtrace record: a multi-threaded program (examples/threads/threads.c),"
echo "      4 threads at 2 million events/s each, 3 s, streamed to disk"
echo "\$ ringtrace record -o $out/threads --force -- ringtrace-threads --threads 4 --seconds 3 --rate 2000000"
"$bin/ringtrace" record -o "$out/threads" --force -- \
	"$bin/ringtrace-threads" --threads 4 --seconds 3 --rate 2000000 >"$out/threads.log"
cat "$out/threads.log"
attempted=$(awk '$1 == "attempted" { print $2 }' "$out/threads.log")
echo "\$ ringtrace check $out/threads | tail -n 2"
"$bin/ringtrace" check "$out/threads" | tail -n 2
summary=$("$bin/ringtrace" check "$out/threads" | tail -n 2 | head -n 1)
events=$(echo "$summary" | awk '{ print $3 }')
lost=$(echo "$summary" | awk '{ print $5 }')
# The ticks, and each thread's create, label, switch, resolve, and two counter values.
expected=$((attempted + 4 * 4 + 2))
echo "events in the trace + events counted lost = $events + $lost = $((events + lost));" \
	"the program emitted $expected"
[ $((events + lost)) -eq "$expected" ]

echo
echo "== 3. A task-model program (examples/tasks/tasks.c), recorded, read back, viewed"
echo "\$ ringtrace record -o $out/tasks --force -- ringtrace-tasks"
"$bin/ringtrace" record -o "$out/tasks" --force -- "$bin/ringtrace-tasks" >/dev/null
echo "\$ ringtrace dump $out/tasks | head -n 12"
"$bin/ringtrace" dump "$out/tasks" 2>/dev/null | head -n 12
n_dump=$("$bin/ringtrace" dump "$out/tasks" 2>/dev/null | grep -c ' cpu ')
n_bt=$(babeltrace2 "$out/tasks" | wc -l)
echo "... $n_dump events; babeltrace2 reads the same trace: $n_bt events"
[ "$n_dump" -eq "$n_bt" ]
echo "\$ ringtrace stats $out/tasks"
"$bin/ringtrace" stats "$out/tasks"
echo "\$ ringtrace view -o $out/tasks.html --force $out/tasks"
"$bin/ringtrace" view -o "$out/tasks.html" --force "$out/tasks"
echo
echo "Open the timeline: file://$(cd "$out" && pwd)/tasks.html"
