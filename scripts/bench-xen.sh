#!/bin/sh
# SPDX-License-Identifier: MIT
# The Xen part of `make bench`, on the simulated hypervisor:
#   scripts/bench-xen.sh BUILD_DIR ROWS_FILE
# A guest domain runs ringtrace-test-emit with RINGTRACE_XEN=1 (default
# buffers, discard mode), which starts writing once `ringtrace consume
# --xen-domain` has attached in dom0 and drains it into a trace directory on
# the build directory's disk:
#   1 writer paced (100 events, then 100 us), dom0 keeping up: notifications
#     per packet (at most 1: the guest notifies only when dom0 sleeps and
#     asked to be woken);
#   1 writer at full speed, RTR_BENCH_XEN_EVENTS (100 M) events, the buffers
#     `ringtrace record` uses (1 MiB packets, 16 per CPU: a guest needs
#     gntalloc's limit raised for that): dom0's MB/s (trace bytes over the
#     time from the first event to the end of the drain) and events lost.
# (The guest's ns/event, xen.sim.ns, is ringtrace-bench's.)  Each run is
# checked: events in the trace + counted lost == events emitted.
# Real Xen costs a boot of 3-4 minutes under QEMU, so the bench does not
# boot it: it reads the traces the last `make check-xen` left in
# BUILD_DIR/xen/run/out/trace (tests/xen/real/trace.sh: 4 threads in a PV
# domU, consumed by dom0's `ringtrace consume --xen-domain`), and reports
#   xen.real.events, xen.real.events_lost       the discard run's
#   xen.real.overwrite.{events,events_lost}     the overwrite run's
# with the run's date, or says that there is none.
# Figures are printed and appended to ROWS_FILE as "name value unit".
set -eu

build=$1
rows=$2
full_events=${RTR_BENCH_XEN_EVENTS:-100000000}
ringtrace=$build/bin/ringtrace
emit=$build/bin/ringtrace-test-emit
xensim=$build/bin/ringtrace-xensim
dir=$build/bench/xen-trace
status=0

for prog in "$ringtrace" "$emit" "$xensim"; do
	if [ ! -x "$prog" ]; then
		echo "bench-xen.sh: $prog not found: run make first" >&2
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

sim=$(mktemp -d /dev/shm/ringtrace-bench-xen.XXXXXX)
trap 'rm -rf "$sim" "$dir"' EXIT
"$xensim" init "$sim"
export RINGTRACE_XENSIM="$sim"

# run NAME EVENTS [ARGS...]: a new domain NAME runs ringtrace-test-emit with
# one thread and EVENTS events (ARGS added), which waits for dom0 to attach;
# sets $events, $lost, $packets, $bytes, $secs and $sent (the guest's
# notifications).
run() {
	name=$1
	n=$2
	shift 2
	rm -rf "$dir"
	dom=$("$xensim" create "$sim" "$name")
	log=$build/bench/xen.$name.log
	clog=$build/bench/xen.$name.consume.log
	sync=$sim/sync.$name
	mkdir "$sync"
	# shellcheck disable=SC2086
	env RINGTRACE_XENSIM_DOMID="$dom" RINGTRACE_XEN=1 $guest_env \
		"$emit" --threads 1 --events "$n" --sync "$sync" "$@" >"$log" 2>&1 &
	guest=$!
	i=0
	until "$xensim" read "$sim" "/local/domain/$dom/data/ringtrace/ring-ref" >/dev/null 2>&1; do
		i=$((i + 1))
		if [ $i -gt 1000 ]; then
			echo "bench-xen.sh: $name: the guest never published its region" >&2
			kill "$guest" 2>/dev/null
			return 1
		fi
		sleep 0.01
	done
	"$ringtrace" consume --xen-domain "$name" -o "$dir" >"$clog" 2>&1 &
	consumer=$!
	i=0
	until grep -q 'stop with Ctrl-C' "$clog"; do
		i=$((i + 1))
		if [ $i -gt 1000 ] || ! kill -0 "$consumer" 2>/dev/null; then
			echo "bench-xen.sh: $name: consume did not attach:" >&2
			cat "$clog" >&2
			kill "$guest" "$consumer" 2>/dev/null
			return 1
		fi
		sleep 0.01
	done
	t0=$(date +%s.%N)
	: >"$sync/go.0"
	if ! wait "$guest"; then
		echo "bench-xen.sh: $name: the guest failed:" >&2
		cat "$log" >&2
		return 1
	fi
	if ! wait "$consumer"; then
		echo "bench-xen.sh: $name: consume failed:" >&2
		cat "$clog" >&2
		return 1
	fi
	t1=$(date +%s.%N)
	summary=$("$ringtrace" check "$dir" | tail -n 2 | head -n 1)
	# "P packets, E events, L events lost, ..."
	packets=$(echo "$summary" | awk '{ print $1 }')
	events=$(echo "$summary" | awk '{ print $3 }')
	lost=$(echo "$summary" | awk '{ print $5 }')
	bytes=$(du -sb "$dir" | cut -f1)
	secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
	sent=$("$xensim" stats "$sim" "$dom" | awk '{ print $1 }')
	if [ "$((events + lost))" -ne "$n" ]; then
		echo "bench-xen.sh: $name: $events events + $lost lost != $n emitted" >&2
		return 1
	fi
}

echo
echo "xen (simulated hypervisor): a guest's ringtrace-test-emit, default buffers, discard" \
	"mode, consumed in dom0 with --xen-domain, trace on" \
	"$(df -P "$build" | awk 'NR == 2 { print $1 }')"
guest_env=
if run paced 500000 --pace 100:100; then
	echo "  1 writer, 100 events then 100 us: $events events in ${secs} s, $packets packets," \
		"$sent notifications"
	row xen.sim.notifications_per_packet "$(awk -v n="$sent" -v p="$packets" \
		'BEGIN { printf "%.3f", p ? n / p : 0 }')" notifications/packet
	row xen.sim.paced.events_lost "$lost" events
else
	status=1
fi
guest_env="RINGTRACE_PACKET_SIZE=1M RINGTRACE_PACKETS=16"
if run full "$full_events"; then
	echo "  1 writer at full speed, 1 MiB packets, 16 per CPU: $full_events events emitted," \
		"$(awk -v b="$bytes" 'BEGIN { printf "%.0f", b / 1048576 }') MiB in ${secs} s"
	row xen.sim.dom0.mb_per_s "$(awk -v b="$bytes" -v s="$secs" \
		'BEGIN { printf "%.1f", b / 1e6 / s }')" MB/s
	row xen.sim.dom0.events_lost "$lost" events
	row xen.sim.dom0.events_total "$full_events" events
else
	status=1
fi

# real_run RUN: the trace of RUN that the last make check-xen left; sets
# $events and $lost, and checks them against the events the guest emitted.
real=$build/xen/run/out/trace
real_run() {
	attempted=$(awk '{ for (i = 1; i < NF; i++) if ($i == "--attempted") print $(i + 1) }' \
		"$real/$1.check")
	summary=$("$ringtrace" check "$real/$1" | tail -n 2 | head -n 1)
	events=$(echo "$summary" | awk '{ print $3 }')
	lost=$(echo "$summary" | awk '{ print $5 }')
	case "$attempted.$events.$lost" in
	*[!0-9.]* | .* | *..* | *.)
		echo "bench-xen.sh: real Xen, $1: no counts to read ($real/$1, $real/$1.check)" >&2
		return 1 ;;
	esac
	if [ "$((events + lost))" -ne "$attempted" ]; then
		echo "bench-xen.sh: real Xen, $1: $events events + $lost lost != ${attempted:-?}" \
			"emitted ($real/$1)" >&2
		return 1
	fi
}

echo
if [ ! -f "$real/discard.check" ] || [ ! -f "$real/overwrite.check" ]; then
	echo "xen.real: skipped: no real-Xen run to read (make check-xen leaves its traces in $real)"
else
	echo "xen.real: the traces of the last make check-xen ($(date -u -r "$real/discard.check" \
		'+%Y-%m-%d %H:%M UTC')): Xen 4.17 under QEMU, a PV domU's 4 threads, 64 KiB x 16" \
		"per CPU, consumed by dom0 with --xen-domain"
	if real_run discard; then
		row xen.real.events "$events" events
		row xen.real.events_lost "$lost" events
	else
		status=1
	fi
	if real_run overwrite; then
		row xen.real.overwrite.events "$events" events
		row xen.real.overwrite.events_lost "$lost" events
	else
		status=1
	fi
fi
exit "$status"
