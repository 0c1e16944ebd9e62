#!/bin/sh
# SPDX-License-Identifier: MIT
# make demo: the ring under stress, then a traced program end to end.
#   scripts/demo.sh BUILD_DIR
set -eu
bin=$1/bin
secs=${RTR_DEMO_SECONDS:-5}

echo "== 1. The ring: writers flat out against a consumer in another process"
"$bin/ringtrace-stress" --seconds "$secs"

dir=$(mktemp -d /dev/shm/ringtrace-demo.XXXXXX)
trap 'rm -rf "$dir"' EXIT
echo
echo "== 2. A traced program: ringtrace-tasks (examples/tasks/tasks.c), started by RINGTRACE_PATH"
RINGTRACE_PATH="$dir/region" "$bin/ringtrace-tasks"
echo "\$ ringtrace convert $dir/region -o $dir/trace"
"$bin/ringtrace" convert "$dir/region" -o "$dir/trace"
echo "\$ ringtrace check $dir/trace"
"$bin/ringtrace" check "$dir/trace"
echo "\$ ringtrace dump $dir/trace | head -n 16"
"$bin/ringtrace" dump "$dir/trace" 2>/dev/null | head -n 16
n_dump=$("$bin/ringtrace" dump "$dir/trace" 2>/dev/null | grep -c ' cpu ')
n_bt=$(babeltrace2 "$dir/trace" | wc -l)
echo "... $n_dump events; babeltrace2 reads the same trace: $n_bt events"
[ "$n_dump" -eq "$n_bt" ]
