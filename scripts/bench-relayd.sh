#!/bin/sh
# SPDX-License-Identifier: MIT
# The relayd part of `make bench`: `ringtrace record -o net://` into a stock
# lttng-relayd on loopback (Documentation/network.rst).
#   scripts/bench-relayd.sh BUILD_DIR ROWS_FILE
# ringtrace-bench-user, one writer at full speed (core 1, the recorder on
# core 0, the relayd where the kernel puts it) for S s, 5 runs, the median:
#   relayd.1writer.mb_per_s       the trace's bytes the relayd wrote over the
#                                 time from the program's first traced event
#                                 to the relayd's last write
#   relayd.1writer.lost_percent   events lost, of those the writer attempted
#                                 (and the worst run's)
#   relayd.live_lag_{bt2,dump}_{1s,100ms}.p99_ms  below
# Each run is checked: events in the relayd's copy + events counted lost =
# events attempted.  Without lttng-relayd (Debian's lttng-tools), says so and
# measures nothing.  RTR_BENCH_CONSUMER_SECONDS sets S (5).
#   lttng.relayd.{mb_per_s,events_per_s,lost_percent}  LTTng-UST's own
#                                 consumer daemon streaming a live session
#                                 into the same relayd (tests/interop/lttng/
#                                 record.sh --live), one thread of
#                                 rtr-lttng-app --bench at its full speed
#                                 (core 1) for 9 M events per S s; MB/s
#                                 counted as ours, 5 runs alternated with
#                                 ours, the median; and
#                                 relayd.1writer.ratio_to_lttng
#   relayd.at_lttng_rate.lost_percent  ours, one writer paced at the events/s
#                                 LTTng-UST's program reached in this run, 3
#                                 runs, the worst (the issue's goal: 0)
set -eu

build=$1
rows=$2
seconds=${RTR_BENCH_CONSUMER_SECONDS:-5}
ringtrace=$build/bin/ringtrace
user=$build/bin/ringtrace-bench-user
work=$(realpath -m "$build/bench/relayd")	# the relayd wants an absolute -o
relayd=/usr/bin/lttng-relayd

if [ ! -x "$relayd" ]; then
	echo "bench-relayd.sh: lttng-relayd is not installed (lttng-tools): no relayd figures"
	exit 0
fi
rm -rf "$work"
mkdir -p "$work/out"
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT

row() {
	printf '  %-40s %14.3f  %s\n' "$1" "$2" "$3"
	printf '%s %s %s\n' "$1" "$2" "$3" >>"$rows"
}

calc() {
	awk "BEGIN { printf \"%.4f\", $1 }"
}

# one_run NAME [bench-user options]: one recording into the relayd, checked;
# sets $trace, $attempted, $events, $lost and $t0, $t1 (the recording's start
# and end; exits on a failure).
one_run() {
	name=$1
	shift
	rm -rf "$work/out"/*
	sync
	t0=$(date +%s.%N)
	taskset -c 0 "$ringtrace" record -q -o "net://127.0.0.1:$ctl:$data" -- taskset -c 1 \
		"$user" --threads 1 --seconds "$seconds" "$@" >"$work/run.out" 2>"$work/run.log" || {
		echo "bench-relayd.sh: $name failed:" >&2
		cat "$work/run.log" >&2
		exit 1
	}
	t1=$(date +%s.%N)
	trace=$(ls -d "$work"/out/*/*/ringtrace)
	attempted=$(awk '$1 == "attempted" { print $2 }' "$work/run.out")
	summary=$("$ringtrace" check "$trace" | tail -n 2 | head -n 1)
	events=$(echo "$summary" | awk '{ print $3 }')
	lost=$(echo "$summary" | awk '{ print $5 }')
	if [ $((events + lost)) -ne "$attempted" ]; then
		echo "bench-relayd.sh: $name: $events events + $lost lost != $attempted attempted" >&2
		exit 1
	fi
}

# Three free loopback ports, then the relayd on them.
set -- $(python3 -c 'import socket
s = [socket.socket() for _ in range(3)]
for x in s: x.bind(("127.0.0.1", 0))
print(" ".join(str(x.getsockname()[1]) for x in s))')
ctl=$1 data=$2 live=$3
LTTNG_HOME=$work "$relayd" -o "$work/out" -C "tcp://127.0.0.1:$ctl" \
	-D "tcp://127.0.0.1:$data" -L "tcp://127.0.0.1:$live" >"$work/relayd.log" 2>&1 &
pid=$!
up=0
for _ in $(seq 100); do
	if python3 -c "import socket; socket.create_connection(('127.0.0.1', $ctl), 1)" 2>/dev/null
	then
		up=1
		break
	fi
	sleep 0.1
done
if [ $up = 0 ]; then
	echo "bench-relayd.sh: lttng-relayd did not start:" >&2
	cat "$work/relayd.log" >&2
	exit 1
fi

# lttng_run I: LTTng-UST's consumer daemon into the relayd, one run; prints
# "MB/s events/s lost%" (nothing if it failed: its session daemon?).
app=$build/bin/rtr-lttng-app
lttng_run() {
	rm -rf "$work"/out/*
	ldir=$(mktemp -d /tmp/rtr-bench-lttng-XXXXXX)
	sync
	if ! "$(dirname "$0")/../tests/interop/lttng/record.sh" "$ldir" --subbuf 1M \
		--subbufs 32 --live "net://127.0.0.1:$ctl:$data" -- taskset -c 1 "$app" \
		--bench --events $((9000000 * seconds)) >"$work/lttng.log" 2>&1; then
		echo "  LTTng run $1 failed (its session daemon?):" >&2
		tail -n 5 "$work/lttng.log" >&2
		rm -rf "$ldir"
		return
	fi
	start=$(awk '$1 == "start_ns" { print $2 }' "$ldir/app.log")
	rm -rf "$ldir"
	trace=$(dirname "$(find "$work/out" -name metadata -type f | head -n 1)")
	last=$(find "$trace" -type f -printf '%T@\n' | sort -n | tail -n 1)
	summary=$("$ringtrace" check "$trace" | tail -n 2 | head -n 1)
	events=$(echo "$summary" | awk '{ print $3 }')
	lost=$(echo "$summary" | awk '{ print $5 }')
	bytes=$(du -sb "$trace" | cut -f1)
	secs=$(calc "$last - $start / 1e9")
	echo "  LTTng run $1: $(calc "$bytes / 1e6 / $secs") MB/s, $events events, $lost lost" \
		"($(calc "100 * $lost / ($events + $lost)") %), $secs s" >&2
	echo "$(calc "$bytes / 1e6 / $secs") $(calc "($events + $lost) / $secs")" \
		"$(calc "100 * $lost / ($events + $lost)")"
}

lttng=0
if [ -x "$app" ] && command -v lttng-sessiond >/dev/null 2>&1; then
	lttng=1
fi
# Ours and LTTng's alternated, five of each, so that the host's load, which
# drifts over a minute, weighs on both alike.  Both counted the same way:
# the relayd's copy over the time from the program's first traced event to
# the copy's last write.
echo "ringtrace record -o net:// into lttng-relayd on loopback, 1 writer at full speed, ${seconds} s;"
[ $lttng = 1 ] && echo "alternated with LTTng-UST's consumer daemon into the same relayd," \
	"rtr-lttng-app --bench, 1 thread:"
# A first recording of 1 s, not counted: a relayd's first session ran
# slower than the next ones in most runs of this script (25-50 %).
seconds_was=$seconds
seconds=1
one_run "the warm-up"
seconds=$seconds_was
runs= lruns=
for i in 1 2 3 4 5; do
	one_run "run $i"
	bytes=$(du -sb "$trace" | cut -f1)
	start=$(awk '$1 == "start_ns" { print $2 }' "$work/run.out")
	last=$(find "$trace" -type f -printf '%T@\n' | sort -n | tail -n 1)
	secs=$(calc "$last - $start / 1e9")
	mbs=$(calc "$bytes / 1e6 / $secs")
	pct=$(calc "100 * $lost / $attempted")
	echo "  run $i: $mbs MB/s, $events events, $lost lost ($pct %), $secs s"
	runs="$runs$mbs $pct
"
	if [ $lttng = 1 ]; then
		l=$(lttng_run "$i")
		if [ -z "$l" ]; then
			lttng=0
			lruns=
		else
			lruns="$lruns$l
"
		fi
	fi
done
median=$(printf '%s' "$runs" | sort -n | sed -n 3p)
worst=$(printf '%s' "$runs" | sort -n -k2 | tail -n 1 | awk '{ print $2 }')
row relayd.1writer.mb_per_s "$(echo "$median" | awk '{ print $1 }')" "MB/s (median of 5)"
row relayd.1writer.lost_percent "$(echo "$median" | awk '{ print $2 }')" "% (median run)"
row relayd.1writer.lost_percent_worst "$worst" "% (worst run)"

# ---- LTTng-UST's own consumer into the same relayd ---------------------------
if [ -n "$lruns" ]; then
	lmedian=$(printf '%s' "$lruns" | sort -n | sed -n 3p)
	row lttng.relayd.mb_per_s "$(echo "$lmedian" | awk '{ print $1 }')" "MB/s (median of 5)"
	row lttng.relayd.events_per_s "$(echo "$lmedian" | awk '{ print $2 }')" "events/s"
	row lttng.relayd.lost_percent "$(echo "$lmedian" | awk '{ print $3 }')" \
		"% (median run)"
	row relayd.1writer.ratio_to_lttng "$(calc "$(echo "$median" | awk '{ print $1 }') / \
		$(echo "$lmedian" | awk '{ print $1 }')")" "x LTTng's MB/s (goal >= 1)"
	# Each of ours beside the LTTng run that followed it, under the same load.
	won=$(printf '%s\n%s' "$runs" "$lruns" | awk 'NF == 2 { o[++i] = $1 } NF == 3 { if (o[++j] >= $1) n++ } END { print n + 0 }')
	row relayd.1writer.pairs_at_least_lttng "$won" "of 5 alternated pairs: ours >= LTTng's MB/s"
	# Ours at the rate LTTng-UST's program reached in this run.
	rate=$(echo "$lmedian" | awk '{ printf "%d", $2 }')
	echo "ringtrace record -o net:// at LTTng-UST's rate here, $rate events/s, 1 writer:"
	aworst=0
	for i in 1 2 3; do
		one_run "run $i at LTTng's rate" --rate "$rate"
		pct=$(calc "100 * $lost / $attempted")
		echo "  run $i: $events events, $lost lost ($pct %)"
		aworst=$(awk -v a="$pct" -v b="$aworst" 'BEGIN { print (a > b ? a : b) }')
	done
	row relayd.at_lttng_rate.lost_percent "$aworst" "% (worst of 3; goal 0)"
else
	echo "LTTng-UST's consumer not measured: lttng-sessiond or rtr-lttng-app missing, or it failed"
fi

# ---- the live lag: from an event's time to its line in a live reader ----------
# ringtrace-test-emit, 1 thread, 5 events every 10 ms for 5 s, recorded with
# --flush-interval F (the live timer); the reader attached as soon as the
# session is named, the events of its first second left out (relayd_lag.py): babeltrace2 (src.ctf.lttng-live, clock-seconds), or
# `ringtrace dump --clock-seconds net://...` (ours).  One reader a session:
# the relayd takes one viewer at a time.
emit=$build/bin/ringtrace-test-emit
lag() {
	# lag NAME FLUSH READER: sets $p99 and $p50 (ms)
	name=$1
	log=$work/lag.log
	: >"$log"
	"$ringtrace" record --flush-interval "$2" -o "net://127.0.0.1:$ctl:$data" -- "$emit" \
		--threads 1 --events 2500 --pace 5:10000 >/dev/null 2>"$log" &
	rpid=$!
	s=
	for _ in $(seq 400); do
		s=$(sed -n 's/.*, session \([^,]*\),.*/\1/p' "$log")
		[ -n "$s" ] && break
		sleep 0.01
	done
	if [ "$3" = bt2 ]; then
		set -- babeltrace2 --component=src.ctf.lttng-live --params \
			"inputs=[\"net://127.0.0.1:$live/host/$s\"],session-not-found-action=\"end\"" \
			--component=sink.text.pretty --params clock-seconds=true
	else
		set -- "$ringtrace" dump --clock-seconds "net://127.0.0.1:$live/host/$s"
	fi
	json=$(python3 "$(dirname "$0")/relayd_lag.py" "$@")
	wait "$rpid"
	p50=$(echo "$json" | python3 -c 'import json,sys; print("%.0f" % json.load(sys.stdin).get("p50_ms", -1))')
	p99=$(echo "$json" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("p99_ms", -1))')
	echo "  $name: $json"
}
echo "the live lag (1 writer, 500 events/s, 5 s):"
for flush in 1s 100ms; do
	lag "babeltrace2, flush $flush" "$flush" bt2
	row "relayd.live_lag_bt2_${flush}.p99_ms" "$p99" "ms (p50 $p50)"
	lag "ringtrace dump, flush $flush" "$flush" ours
	row "relayd.live_lag_dump_${flush}.p99_ms" "$p99" "ms (p50 $p50)"
done
