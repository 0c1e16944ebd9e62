#!/bin/sh
# SPDX-License-Identifier: MIT
# The streaming part of `make bench`: what a user sees.
#   scripts/bench-consumer.sh BUILD_DIR ROWS_FILE
# A program of the user's kind, ringtrace-bench-user (bench/user_prog.c: its
# own typed event of two u64, its floor measured in the same process), run
# under `ringtrace record` with the default options, into a trace directory
# on the build directory's disk, whose own O_DIRECT bandwidth is measured in
# the same run:
#   disk.direct_mb_per_s             dd oflag=direct, 1 MiB blocks, 2 GiB,
#                                    four dd at once (the consumer has four
#                                    writes in flight); _1stream: one dd
#   record.{discard,overwrite}.1t.ns 10 M events, 1 thread, the best of 3;
#   record.discard.2t.ns             and the ratio to the floor
#   consumer.engine.{threads,uring}  1 writer at full speed for S s, each
#                                    queue engine, alternated: MB/s, loss
#   consumer.{1writer,2writers}.*    1 and 2 writers at full speed for S s,
#                                    3 runs, the median one: MB/s to disk
#                                    (the recording's bytes over its time,
#                                    start to last byte), MB/s the writers
#                                    offered (losses included), the fraction
#                                    of the disk's, the fraction of the lesser
#                                    of the two, loss (and the worst run's)
#   consumer.2writers_lttng_rate.*   2 writers at 9.17 M events/s each (LTTng-
#                                    UST's full speed here) for 10 s, 5 runs:
#                                    the worst run's loss
#   consumer.stalled.lost_percent    the same into -o -, its reader pausing
#                                    0.5 s every 2 s
#   consumer.blocking.*              2 writers at full speed, blocking mode
#   consumer.kill.recovered_percent  1 writer at full speed, the recorder
#                                    SIGKILLed after 2 s, then `recover`:
#                                    the events the program committed (its
#                                    attempts less the ring's drops) found in
#                                    the recorder's trace and the recovered
#                                    one; and the packets its queue held
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
	rm -rf "$work/trace" "$work"/dd*
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
# With four 1 MiB O_DIRECT writes in flight, as the consumer writes (one dd
# at a time, the figure of earlier runs, is printed beside it: a virtual
# disk may take half as much that way).
mbps() {
	awk -v b="$1" -v t0="$2" -v t1="$3" 'BEGIN { printf "%.1f", b / 1e6 / (t1 - t0) }'
}
echo
quiet_disk
mkdir -p "$work/trace"
t0=$(date +%s.%N)
dd if=/dev/zero of="$work/dd" bs=1M count=2048 oflag=direct 2>/dev/null
t1=$(date +%s.%N)
disk1=$(mbps 2147483648 "$t0" "$t1")
quiet_disk
mkdir -p "$work/trace"
t0=$(date +%s.%N)
for i in 1 2 3 4; do
	dd if=/dev/zero of="$work/dd$i" bs=1M count=512 oflag=direct 2>/dev/null &
done
wait
t1=$(date +%s.%N)
disk=$(mbps 2147483648 "$t0" "$t1")
rm -f "$work"/dd*
echo "streaming: ringtrace record with default options, the trace on" \
	"$(df -P "$build" | awk 'NR == 2 { print $1 }'); 2 GiB with dd oflag=direct, 1 MiB" \
	"blocks: $disk MB/s four at a time, $disk1 MB/s one"
row disk.direct_mb_per_s "$disk" MB/s
row disk.direct_1stream_mb_per_s "$disk1" MB/s

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

# ---- the consumer at full speed: what it delivers to the disk ---------------
full_speed() {
	# full_speed NAME THREADS [ENV]: the writers at full speed for S s from
	# a quiet disk: one writer on core 1 and the recorder on core 0; two
	# writers one per core, the recorder where the kernel puts it.  Sets
	# $mbs (the trace's bytes per second of the recording, from its start
	# to the last byte written), $offered (what the writers made per
	# second, the events lost included) and $lost_pct.
	fname=$1
	fenv=${3:-}
	quiet_disk
	if [ "$2" = 1 ]; then
		set -- taskset -c 0 "$ringtrace" record -q -o "$work/trace" -- taskset -c 1 \
			"$user" --threads 1
	else
		set -- "$ringtrace" record -q -o "$work/trace" -- "$user" --threads "$2" --pin
	fi
	t0=$(date +%s.%N)
	env $fenv "$@" --seconds "$seconds" >"$work/$fname.out" 2>"$work/$fname.log" || return 1
	t1=$(date +%s.%N)
	record_check "$fname" || return 1
	mbs=$(calc "$bytes / 1e6 / ($t1 - $t0)")
	offered=$(calc "$mbs * $attempted / ($events > 0 ? $events : 1)")
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

# Each queue engine, one writer, alternated.
eng_t=0 eng_u=0 eng_tl=0 eng_ul=0
for i in 1 2; do
	full_speed engine.threads 1 RINGTRACE_QUEUE_ENGINE=threads || status=1
	eng_t=$(calc "$eng_t + $mbs / 2")
	eng_tl=$(calc "$eng_tl + $lost_pct / 2")
	full_speed engine.uring 1 RINGTRACE_QUEUE_ENGINE=uring || status=1
	eng_u=$(calc "$eng_u + $mbs / 2")
	eng_ul=$(calc "$eng_ul + $lost_pct / 2")
done
row consumer.engine.threads.mb_per_s "$eng_t" MB/s
row consumer.engine.threads.lost_percent "$eng_tl" "%"
row consumer.engine.uring.mb_per_s "$eng_u" MB/s
row consumer.engine.uring.lost_percent "$eng_ul" "%"
# One writer makes less than a fast disk takes: its fraction of the disk is
# bounded by what it offers, so the fraction of the lesser is printed too.
# Two writers offer more than the disk takes: theirs is the consumer's own.
# Three runs each, each printed; the figures are the median run's (by
# events lost), with the worst run's loss beside them.
for w in 1 2; do
	name=${w}writer
	[ "$w" = 1 ] || name=${w}writers
	runs=
	for i in 1 2 3; do
		if full_speed "$name" "$w"; then
			echo "  $name run $i: $mbs MB/s to disk, $offered MB/s offered, $lost_pct % lost"
			runs="$runs$lost_pct $mbs $offered
"
		else
			cat "$work/$name.log" >&2
			status=1
		fi
	done
	[ -n "$runs" ] || continue
	# "lost mbs offered" of the median run, then of the worst.
	set -- $(printf '%s' "$runs" | sort -n |
		awk '{ r[NR] = $0 } END { print r[int((NR + 1) / 2)], r[NR] }')
	row consumer.$name.mb_per_s "$2" MB/s
	row consumer.$name.offered_mb_per_s "$3" MB/s
	row consumer.$name.fraction_of_disk "$(calc "$2 / $disk")" "x disk"
	row consumer.$name.fraction_of_reachable "$(calc "$2 / ($3 < $disk ? $3 : $disk)")" \
		"x min(offered, disk)"
	row consumer.$name.lost_percent "$1" "%"
	row consumer.$name.lost_percent_worst "$4" "%"
done

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
# Into one buffer, read again and again: os.read() of 1 MiB allocates a new one
# each time, which keeps Python at 130 MB/s on these machines (the stall was
# then the reader's speed, not its pauses); readv() into one takes 1.5 GB/s.
relay='
import os, time
buf = bytearray(1 << 20)
t = time.monotonic() + 2
while os.readv(0, [buf]):
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

# ---- the recorder killed at full speed ------------------------------------------
# Its program runs on (its writers drop once the ring is full) and ends; then
# recover.  Every committed event must be in one of the two traces.
quiet_disk
rm -rf "$work/rec"
"$ringtrace" record -o "$work/trace" -- taskset -c 1 "$user" --threads 1 --seconds 4 \
	>"$work/kill.out" 2>"$work/kill.log" &
rpid=$!
sleep 2
kill -9 "$rpid"
wait "$rpid" 2>/dev/null || true
region=$(sed -n 's/.*, region \(\/[^ ]*\)$/\1/p' "$work/kill.log" | head -n 1)
ppid=$(sed -n 's/.*(pid \([0-9]*\)).*/\1/p' "$work/kill.log" | head -n 1)
while [ -n "$ppid" ] && kill -0 "$ppid" 2>/dev/null; do sleep 0.1; done
if [ -n "$region" ] && "$ringtrace" recover "$region" -o "$work/rec" >"$work/rec.log" 2>&1; then
	attempted=$(awk '$1 == "attempted" { print $2 }' "$work/kill.out")
	dropped=$("$ringtrace" info "$region" | sed -n 's/^events lost in all: //p')
	in_trace=$("$ringtrace" check "$work/trace" | tail -n 2 | head -n 1 | awk '{ print $3 }')
	in_rec=$("$ringtrace" check "$work/rec" | tail -n 2 | head -n 1 | awk '{ print $3 }')
	queued=$(sed -n 's/^from the write-behind queue [^:]*: \([0-9]*\) packets.*/\1/p' \
		"$work/rec.log")
	echo "  killed recorder: $attempted attempted, $dropped dropped by the ring;" \
		"$in_trace events in its trace, $in_rec recovered (${queued:-0} packets from its queue)"
	row consumer.kill.recovered_percent \
		"$(calc "100 * ($in_trace + $in_rec) / ($attempted - $dropped)")" "%"
	row consumer.kill.queue_packets "${queued:-0}" packets
else
	cat "$work/kill.log" "$work/rec.log" >&2
	status=1
fi
[ -n "$region" ] && rm -f "$region" "$region.queue"
rm -rf "$work/rec"

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
