#!/bin/sh
# SPDX-License-Identifier: MIT
# record --trigger's part of `make bench`:
#   scripts/bench-trigger.sh BUILD_DIR ROWS_FILE
# ringtrace-bench-user (a typed event of two u64 through the public API) at
# RTR_BENCH_TRIGGER_RATE (1,000,000) events a second for
# RTR_BENCH_TRIGGER_SECONDS (5) under `ringtrace record --mode overwrite`
# (default options otherwise), without triggers and with three (a slow
# task, a counter crossing, and a typed event's field tested on every
# record, none met), in turns, RTR_BENCH_TRIGGER_TURNS (3) of each, the
# least CPU of each kind kept.  The program times itself (bash's `time`
# inside the recording, whose standard error also gets the recorder's
# summary); the recorder's CPU is the recording's less the program's, over
# the recording's run time:
#   trigger.none.recorder_cpu_percent   without triggers, % of one CPU
#   trigger.three.recorder_cpu_percent  with the three
#   trigger.overhead_percent            the difference: what the three cost,
#                                       in % of one CPU (goal <= 5)
#   trigger.ns_per_event                that cost per event the program wrote
#   trigger.events_tested               the watch's count in the last run
#                                       (every event: none missed)
# Figures are printed and appended to ROWS_FILE as "name value unit".
set -eu

build=$1
rows=$2
turns=${RTR_BENCH_TRIGGER_TURNS:-3}
rate=${RTR_BENCH_TRIGGER_RATE:-1000000}
seconds=${RTR_BENCH_TRIGGER_SECONDS:-5}
ringtrace=$build/bin/ringtrace
prog=$build/bin/ringtrace-bench-user
dir=$build/bench/trigger
mkdir -p "$dir"

for p in "$ringtrace" "$prog"; do
	if [ ! -x "$p" ]; then
		echo "bench-trigger.sh: $p not found: run make first" >&2
		exit 1
	fi
done
if ! command -v bash >/dev/null; then
	echo "bench-trigger.sh: bash is needed" >&2
	exit 1
fi

. "$(dirname "$0")/bench-lib.sh"

# run [--trigger EXPR]...: "recorder_cpu real attempted" of one recording, seconds.
run() {
	rm -rf "$dir/trace"
	# shellcheck disable=SC2016
	TIMEFORMAT='%R %U %S' bash -c 'd=$1; r=$2; p=$3; n=$4; s=$5; shift 5; time "$r" record -o "$d/trace" --mode overwrite "$@" -- bash -c '"'"'TIMEFORMAT="%R %U %S"; time "$0" --rate "$1" --seconds "$2" >"$3/prog.out"'"'"' "$p" "$n" "$s" "$d" 2>"$d/prog.time"' \
		_ "$dir" "$ringtrace" "$prog" "$rate" "$seconds" "$@" 2>"$dir/all.time" >/dev/null
	tail -n 1 "$dir/all.time" >"$dir/all.last"
	# prog.time has the recorder's summary too: the program's is the line of three numbers
	awk 'NR == FNR { if (NF == 3 && $1 ~ /^[0-9.]+$/ && $3 ~ /^[0-9.]+$/) pc = $2 + $3; next }
	     { printf "%s %s\n", $2 + $3 - pc, $1 }' "$dir/prog.time" "$dir/all.last" | tr '\n' ' '
	sed -n 's/^attempted \([0-9]*\)/\1/p' "$dir/prog.out"
}

none= three= real3= att= tested=
i=0
while [ "$i" -lt "$turns" ]; do
	r=$(run)
	none=$(min "$none" "$(echo "$r" | awk '{ print $1 / $2 * 100 }')")
	r=$(run --trigger 'slow(GET *) > 10ms' --trigger 'counter(queue length) > 100' \
		--trigger 'event(app:pair).a > 1e30')
	c=$(echo "$r" | awk '{ print $1 / $2 * 100 }')
	if [ -z "$three" ] || awk -v a="$c" -v b="$three" 'BEGIN { exit !(a < b) }'; then
		three=$c
		real3=$(echo "$r" | awk '{ print $2 }')
		att=$(echo "$r" | awk '{ print $3 }')
	fi
	i=$((i + 1))
done
# the watch's own count, from the last recording's summary
tested=$(sed -n 's/.*the triggers tested \([0-9]*\) events.*/\1/p' "$dir/prog.time" | tail -n 1)
echo "record --mode overwrite, with 3 triggers and without, $turns turns each," \
	"ringtrace-bench-user at $rate events/s for $seconds s:"
row trigger.none.recorder_cpu_percent "$none" "% of a CPU"
row trigger.three.recorder_cpu_percent "$three" "% of a CPU"
row trigger.overhead_percent "$(awk -v a="$three" -v b="$none" 'BEGIN { printf "%.2f", a - b }')" \
	"% of a CPU (goal <= 5)"
row trigger.ns_per_event "$(awk -v a="$three" -v b="$none" -v r="$real3" -v n="$att" \
	'BEGIN { printf "%.2f", n ? (a - b) / 100 * r * 1e9 / n : 0 }')" ns
row trigger.events_tested "${tested:-0}" events
[ -n "${RTR_BENCH_KEEP:-}" ] || rm -rf "$dir"
