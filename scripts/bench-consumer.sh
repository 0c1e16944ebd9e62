#!/bin/sh
# SPDX-License-Identifier: MIT
# The consumer's part of `make bench`:
#   scripts/bench-consumer.sh BUILD_DIR ROWS_FILE
# `ringtrace record` (default buffers, discard mode) of ringtrace-threads
# emitting at full speed for RTR_BENCH_CONSUMER_SECONDS (5), into a trace
# directory on the build directory's disk:
#   1 writer pinned to one core, the recorder to the other: events lost (the
#     goal is 0) and MB/s written;
#   2 writers, one per core, the recorder sharing them: events lost out of
#     events attempted (LTTng-UST lost a median 0.17% here);
#   2 writers at LTTng-UST's own full speed (109 ns/event, 9.17 M events/s
#     each): the same comparison at the same event rate.  Ours at full speed
#     make four times the events, and more bytes than this disk takes.
# Each run is checked: events in the trace + events counted lost must equal
# the events the program attempted (plus its few task-model events).
# Figures are printed and appended to ROWS_FILE as "name value unit".
set -eu

build=$1
rows=$2
seconds=${RTR_BENCH_CONSUMER_SECONDS:-5}
ringtrace=$build/bin/ringtrace
threads=$build/bin/ringtrace-threads
dir=$build/bench/consumer-trace
status=0

for prog in "$ringtrace" "$threads"; do
	if [ ! -x "$prog" ]; then
		echo "bench-consumer.sh: $prog not found: run make first" >&2
		exit 1
	fi
done

row() {
	case $3 in
	events) printf '  %-36s %14.0f  %s\n' "$1" "$2" "$3" ;;
	*) printf '  %-36s %14.3f  %s\n' "$1" "$2" "$3" ;;
	esac
	printf '%s %s %s\n' "$1" "$2" "$3" >>"$rows"
}

# run NAME NTHREADS CONSUMER_CPUS WRITER_CPUS [RATE]: record, check, and set
# $attempted, $events, $lost, $bytes, $secs.
run() {
	rate=
	[ -n "${5:-}" ] && rate="--rate $5"
	# Each run starts from a quiet disk: the previous one wrote gigabytes.
	rm -rf "$dir"
	sync
	sleep 2
	log=$build/bench/consumer.$1.log
	t0=$(date +%s.%N)
	if ! taskset -c "$3" "$ringtrace" record -q -o "$dir" -- \
		taskset -c "$4" "$threads" --threads "$2" --seconds "$seconds" $rate >"$log" 2>&1; then
		echo "bench-consumer.sh: the $1 recording failed:" >&2
		cat "$log" >&2
		return 1
	fi
	t1=$(date +%s.%N)
	attempted=$(awk '$1 == "attempted" { print $2 }' "$log")
	summary=$("$ringtrace" check "$dir" | tail -n 2 | head -n 1)
	# "P packets, E events, L events lost, ..."
	events=$(echo "$summary" | awk '{ print $3 }')
	lost=$(echo "$summary" | awk '{ print $5 }')
	bytes=$(du -sb "$dir" | cut -f1)
	secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
	extra=$((events + lost - attempted))
	# Each thread's create, label, switch, resolve; two counter values.
	if [ "$extra" -lt 0 ] || [ "$extra" -gt $((4 * $2 + 2)) ]; then
		echo "bench-consumer.sh: $1: $events events + $lost lost != $attempted attempted" >&2
		return 1
	fi
	rm -rf "$dir"
}

echo
echo "consumer: ringtrace record, default buffers, discard mode, ${seconds} s at full speed," \
	"trace on $(df -P "$build" | awk 'NR == 2 { print $1 }')"
if run 1writer 1 0 1; then
	echo "  1 writer (core 1), recorder on core 0: $attempted events attempted," \
		"$(awk -v b="$bytes" 'BEGIN { printf "%.0f", b / 1048576 }') MiB in ${secs} s"
	row consumer.1writer.events_lost "$lost" events
	row consumer.1writer.events_total "$attempted" events
	row consumer.1writer.mb_per_s "$(awk -v b="$bytes" -v s="$secs" \
		'BEGIN { printf "%.1f", b / 1e6 / s }')" MB/s
else
	status=1
fi
if run 2writers 2 0,1 0,1; then
	echo "  2 writers, recorder sharing both cores: $attempted events attempted," \
		"$(awk -v b="$bytes" 'BEGIN { printf "%.0f", b / 1048576 }') MiB in ${secs} s"
	row consumer.2writers.events_lost "$lost" events
	row consumer.2writers.events_total "$attempted" events
	row consumer.2writers.lost_percent "$(awk -v l="$lost" -v a="$attempted" \
		'BEGIN { printf "%.4f", 100 * l / a }')" "%"
	row consumer.2writers.mb_per_s "$(awk -v b="$bytes" -v s="$secs" \
		'BEGIN { printf "%.1f", b / 1e6 / s }')" MB/s
else
	status=1
fi
if run 2writers_lttng_rate 2 0,1 0,1 9174311; then
	echo "  2 writers at 9.17 M events/s each (LTTng-UST's full speed here): $attempted" \
		"events attempted, $(awk -v b="$bytes" 'BEGIN { printf "%.0f", b / 1048576 }') MiB"
	row consumer.2writers_lttng_rate.events_lost "$lost" events
	row consumer.2writers_lttng_rate.events_total "$attempted" events
	row consumer.2writers_lttng_rate.lost_percent "$(awk -v l="$lost" -v a="$attempted" \
		'BEGIN { printf "%.4f", 100 * l / a }')" "%"
else
	status=1
fi
exit "$status"
