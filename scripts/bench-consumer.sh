#!/bin/sh
# SPDX-License-Identifier: MIT
# The streaming part of `make bench`: what a user sees.
#   scripts/bench-consumer.sh BUILD_DIR ROWS_FILE
# A program of the user's kind, ringtrace-bench-user (bench/user_prog.c: its
# own typed event of two u64, its floor measured in the same process), run
# under `ringtrace record` with the default options, into a trace directory
# on the build directory's disk, whose own O_DIRECT bandwidth is measured in
# the same run:
#   disk.direct_mb_per_s             dd oflag=direct, 1 MiB blocks, 2 GiB
#   record.{discard,overwrite}.1t.ns 10 M events, 1 thread, the best of 3;
#   record.discard.2t.ns             and the ratio to the floor
#   consumer.1writer.*               1 writer at full speed for S s: MB/s to
#                                    disk, its fraction of the disk's, loss
#   consumer.engine.{threads,uring}  the same, each queue engine, alternated
#   consumer.2writers_lttng_rate.*   2 writers at 9.17 M events/s each (LTTng-
#                                    UST's full speed here) for 10 s, 5 runs:
#                                    the worst run's loss
#   consumer.stalled.lost_percent    the same into -o -, its reader pausing
#                                    0.5 s every 2 s
#   consumer.blocking.*              2 writers at full speed, blocking mode
#   snapshot.256kx4.events           overwrite mode, 256 KiB x 4 per CPU, 10 M
#                                    events: the events in the final snapshot
# Each run is checked: events in the trace + events counted lost = events
# the program attempted.  Figures are printed and appended to ROWS_FILE as
# "name value unit".  RTR_BENCH_CONSUMER_SECONDS sets S (5);
# RTR_BENCH_LTTNG_RUNS the runs at LTTng's rate (5).
set -eu

build=$1
rows=$2
seconds=${RTR_BENCH_CONSUMER_SECONDS:-5}
lttng_runs=${RTR_BENCH_LTTNG_RUNS:-5}
ringtrace=$build/bin/ringtrace
user=$build/bin/ringtrace-bench-user
work=$build/bench/stream
status=0

for prog in "$ringtrace" "$user"; do
	if [ ! -x "$prog" ]; then
		echo "bench-consumer.sh: $prog not found: run make first" >&2
		exit 1
	fi
done
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT

row() {
	case $3 in
	events) printf '  %-40s %14.0f  %s\n' "$1" "$2" "$3" ;;
	*) printf '  %-40s %14.3f  %s\n' "$1" "$2" "$3" ;;
	esac
	printf '%s %s %s\n' "$1" "$2" "$3" >>"$rows"
}

calc() {
	awk "BEGIN { printf \"%.4f\", $1 }"
}

# quiet_disk: each run starts from a quiet disk: the previous one wrote gigabytes.
quiet_disk() {
	rm -rf "$work/trace" "$work/dd"
	sync
	sleep 1
}

# record NAME [RECORD OPTIONS] -- USER OPTIONS: one recording into $work/trace;
# sets $ns, $floor, $attempted, $events, $lost, $bytes, $secs; fails if the
# trace and the losses do not account for every event attempted.
record() {
	name=$1
	shift
	log=$work/$name.log
	out=$work/$name.out
	t0=$(date +%s.%N)
	if ! "$ringtrace" record -q -o "$work/trace" "$@" >"$out" 2>"$log"; then
		echo "bench-consumer.sh: the $name recording failed:" >&2
		cat "$log" >&2
		return 1
	fi
	t1=$(date +%s.%N)
	secs=$(calc "$t1 - $t0")
	ns=$(awk '$1 == "ns" { print $2 }' "$out")
	floor=$(awk '$1 == "floor_ns" { print $2 }' "$out")
	attempted=$(awk '$1 == "attempted" { print $2 }' "$out")
	if [ -d "$work/trace/snapshot-000000" ]; then
		dir=$(ls -d "$work"/trace/snapshot-* | tail -n 1)
	else
		dir=$work/trace
	fi
	summary=$("$ringtrace" check "$dir" | tail -n 2 | head -n 1)
	# "P packets, E events, L events lost, K packets lost ..."
	events=$(echo "$summary" | awk '{ print $3 }')
	lost=$(echo "$summary" | awk '{ print $5 }')
	bytes=$(du -sb "$work/trace" | cut -f1)
	if [ ! -d "$work/trace/snapshot-000000" ] && [ $((events + lost)) -ne "$attempted" ]; then
		echo "bench-consumer.sh: $name: $events events + $lost lost != $attempted attempted" >&2
		return 1
	fi
	return 0
}

# ---- the disk's own bandwidth ------------------------------------------------------
echo
quiet_disk
mkdir -p "$work/trace"
dd_out=$(dd if=/dev/zero of="$work/dd" bs=1M count=2048 oflag=direct 2>&1 | tail -n 1)
disk=$(echo "$dd_out" | awk '{ for (i = 1; i < NF; i++) if ($(i + 1) ~ /^[GMk]B\/s$/) {
	v = $i; u = $(i + 1) } } END { if (u == "GB/s") v *= 1000; else if (u == "kB/s") v /= 1000;
	print v }')
rm -f "$work/dd"
echo "streaming: ringtrace record with default options, the trace on" \
	"$(df -P "$build" | awk 'NR == 2 { print $1 }'); dd oflag=direct: $dd_out"
row disk.direct_mb_per_s "$disk" MB/s

# ---- what a user's program pays, beside its floor ------------------------------
best() {
	# best NAME RUNS [RECORD OPTIONS] -- USER OPTIONS: the lowest ns of RUNS
	# runs, and the lowest floor of the same runs (each run measures its
	# floor before its traced loop: on a loaded machine one of the two
	# can be slowed alone, and a run's own ratio then falls below 1).
	bname=$1
	runs=$2
	shift 2
	bns=
	bfloor=
	for _ in $(seq "$runs"); do
		quiet_disk
		record "$bname" "$@" || return 1
		if [ -z "$bns" ] || awk -v a="$ns" -v b="$bns" 'BEGIN { exit !(a < b) }'; then
			bns=$ns
			blost=$lost
			battempted=$attempted
		fi
		if [ -z "$bfloor" ] || awk -v a="$floor" -v b="$bfloor" 'BEGIN { exit !(a < b) }'; then
			bfloor=$floor
		fi
	done
}

if best discard.1t 3 -- "$user" --threads 1 --events 10000000; then
	row record.floor.ns "$bfloor" ns/event
	row record.discard.1t.ns "$bns" ns/event
	row record.discard.1t.ratio_to_floor "$(calc "$bns / $bfloor")" "x floor"
	row record.discard.1t.lost_percent "$(calc "100 * $blost / $battempted")" "%"
else
	status=1
fi
if best overwrite.1t 3 --mode overwrite -- "$user" --threads 1 --events 10000000; then
	row record.overwrite.1t.ns "$bns" ns/event
	row record.overwrite.1t.ratio_to_floor "$(calc "$bns / $bfloor")" "x floor"
else
	status=1
fi
if best discard.2t 3 -- "$user" --threads 2 --pin --events 10000000; then
	row record.discard.2t.ns "$bns" ns/event
	row record.discard.2t.ratio_to_floor "$(calc "$bns / $bfloor")" "x floor"
	row record.discard.2t.lost_percent "$(calc "100 * $blost / $battempted")" "%"
else
	status=1
fi

# ---- the consumer at full speed: one writer, each engine, alternated ------------
# The writer on core 1, the recorder on core 0.
full_speed() {
	# full_speed NAME [ENV]: sets $mbs and $lost_pct.
	quiet_disk
	env ${2:-} taskset -c 0 "$ringtrace" record -q -o "$work/trace" -- taskset -c 1 \
		"$user" --threads 1 --seconds "$seconds" >"$work/$1.out" 2>"$work/$1.log" || return 1
	record_check "$1"
}

record_check() {
	attempted=$(awk '$1 == "attempted" { print $2 }' "$work/$1.out")
	summary=$("$ringtrace" check "$work/trace" | tail -n 2 | head -n 1)
	events=$(echo "$summary" | awk '{ print $3 }')
	lost=$(echo "$summary" | awk '{ print $5 }')
	bytes=$(du -sb "$work/trace" | cut -f1)
	if [ $((events + lost)) -ne "$attempted" ]; then
		echo "bench-consumer.sh: $1: $events events + $lost lost != $attempted attempted" >&2
		return 1
	fi
	lost_pct=$(calc "100 * $lost / $attempted")
}

timed() {
	# timed NAME [ENV]: full_speed, with the wall time from start to the last byte.
	t0=$(date +%s.%N)
	full_speed "$@" || return 1
	t1=$(date +%s.%N)
	mbs=$(calc "$bytes / 1e6 / ($t1 - $t0)")
}

eng_t=0 eng_u=0 eng_tl=0 eng_ul=0
for i in 1 2; do
	timed engine.threads RINGTRACE_QUEUE_ENGINE=threads || status=1
	eng_t=$(calc "$eng_t + $mbs / 2")
	eng_tl=$(calc "$eng_tl + $lost_pct / 2")
	timed engine.uring RINGTRACE_QUEUE_ENGINE=uring || status=1
	eng_u=$(calc "$eng_u + $mbs / 2")
	eng_ul=$(calc "$eng_ul + $lost_pct / 2")
done
row consumer.engine.threads.mb_per_s "$eng_t" MB/s
row consumer.engine.threads.lost_percent "$eng_tl" "%"
row consumer.engine.uring.mb_per_s "$eng_u" MB/s
row consumer.engine.uring.lost_percent "$eng_ul" "%"
if timed 1writer; then
	row consumer.1writer.mb_per_s "$mbs" MB/s
	row consumer.1writer.fraction_of_disk "$(calc "$mbs / $disk")" "x disk"
	row consumer.1writer.lost_percent "$lost_pct" "%"
else
	status=1
fi

# ---- two writers at LTTng-UST's full speed, 10 s, 5 runs -------------------------
worst=0
for i in $(seq "$lttng_runs"); do
	quiet_disk
	if "$ringtrace" record -q -o "$work/trace" -- "$user" --threads 2 --pin --seconds 10 \
		--rate 9174311 >"$work/lttng.out" 2>"$work/lttng.log" && record_check lttng; then
		echo "  run $i: $attempted events, $lost lost ($lost_pct %)"
		worst=$(awk -v a="$lost_pct" -v b="$worst" 'BEGIN { print (a > b ? a : b) }')
	else
		cat "$work/lttng.log" >&2
		status=1
	fi
done
row consumer.2writers_lttng_rate.lost_percent "$worst" "%"

# ---- the same into a reader that pauses 0.5 s every 2 s ------------------------
quiet_disk
relay='
import os, sys, time
t = time.monotonic() + 2
while True:
    b = os.read(0, 1 << 20)
    if not b:
        break
    if time.monotonic() >= t:
        time.sleep(0.5)
        t = time.monotonic() + 2
'
# With -o -, the program's standard output goes to the recorder's standard error.
if ("$ringtrace" record -o - -- "$user" --threads 2 --pin --seconds 10 --rate 9174311 \
	2>"$work/stalled.log"; echo "rec=$?" >>"$work/stalled.log") | python3 -c "$relay" &&
	grep -q 'rec=0' "$work/stalled.log"; then
	# The stream went to the relay: the recorder's report is the trace's own count.
	attempted=$(awk '$1 == "attempted" { print $2 }' "$work/stalled.log")
	lost=$(sed -n 's/.*; lost: \([0-9]*\) events.*/\1/p' "$work/stalled.log" | head -n 1)
	echo "  stalled reader: $attempted events, $lost lost;" \
		"$(grep 'write-behind queue' "$work/stalled.log" || true)"
	row consumer.stalled.lost_percent "$(calc "100 * $lost / $attempted")" "%"
else
	cat "$work/stalled.log" >&2
	status=1
fi

# ---- blocking mode at full speed -------------------------------------------------
quiet_disk
if "$ringtrace" record -q -o "$work/trace" --blocking-timeout inf -- "$user" --threads 2 \
	--pin --seconds "$seconds" >"$work/blocking.out" 2>"$work/blocking.log" &&
	record_check blocking; then
	row consumer.blocking.events_lost "$lost" events
	row consumer.blocking.ns "$(awk '$1 == "ns" { print $2 }' "$work/blocking.out")" ns/event
else
	cat "$work/blocking.log" >&2
	status=1
fi

# ---- the flight recorder: 256 KiB x 4 per CPU, 10 M events ------------------------
# The writer pinned to one CPU: a thread that migrates fills both CPUs' rings
# and the snapshot holds twice the memory's worth (94,888 events in one run).
quiet_disk
if record snapshot --mode overwrite --packet-size 256k --packets 4 -- "$user" --threads 1 \
	--pin --events 10000000; then
	row snapshot.256kx4.events "$events" events
else
	status=1
fi
exit "$status"
