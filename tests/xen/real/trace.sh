# SPDX-License-Identifier: MIT
# ringtrace on real Xen.  A PV domU (2 vCPUs) runs ringtrace-test-emit
# (tests/consumer/emit.c: 4 threads, pinned, every event numbered and
# checksummed) tracing into pages granted to dom0 (RINGTRACE_XEN=1), while
# dom0's `ringtrace consume --xen-domain GUEST` drains them:
#   discard    the threads flat out, in discard mode: losses counted exactly;
#   overwrite  the same in overwrite mode;
#   crash      paced, in two phases: dom0 consumes the first, then stops;
#              the program emits the second and holds (its packets still
#              open, its session not ended) when the guest's kernel crashes
#              (on_crash = "preserve"), and `ringtrace recover --xen-domain`
#              salvages from the crashed domain's pages what was not consumed.
# The traces go to /out/trace/; the host reads them with babeltrace2 and
# checks every event (tests/xen/real/trace.host, check_trace.py).  No check
# depends on timing: in each run the events present plus those the trace
# counts lost are exactly the events emitted, whatever the machine's load.
#
# Guest and dom0 take turns through xenstore, under the guest's data/rtr-test:
# the guest writes "state" (RUN ready, RUN done, crash phase0) and each
# run's "report-RUN" (what its program attempted), dom0 "go".

TRACE_THREADS=4
TRACE_EVENTS=20000	# per thread, in the discard and overwrite runs
TRACE_PHASE=2500	# per thread and phase, in the crash run
# 16 packets of 64 KiB per CPU (2 MiB, 512 grants of the guest's 1024).
export RINGTRACE_PACKETS=16 RINGTRACE_PACKET_SIZE=64k

# ---- the guest ------------------------------------------------------------------

xs_state() { xenstore-write data/rtr-test/state "$1"; }
go_is() { [ "$(xenstore-read data/rtr-test/go 2>/dev/null)" = "$1" ]; }

# guest_emit RUN MODE [EMIT OPTIONS]: start emit for RUN, tracing for dom0;
# it begins once dom0 says go.  Sets $emit (its pid) and $s (its sync dir).
guest_emit() {
	run=$1 mode=$2
	shift 2
	s=/tmp/sync-$run
	mkdir -p "$s"
	RINGTRACE_XEN=1 RINGTRACE_MODE=$mode ringtrace-test-emit --threads $TRACE_THREADS --pin \
		--sync "$s" "$@" >"/tmp/emit-$run.log" 2>&1 &
	emit=$!
	if ! wait_until 60 test -f "$s/pid"; then
		fail "$run: emit did not start"
		cat "/tmp/emit-$run.log"
		return 1
	fi
	xs_state "$run ready"
	if ! wait_until 120 go_is "$run"; then
		fail "$run: no go from dom0 within 120 s"
		kill $emit
		return 1
	fi
	touch "$s/go.0"
}

guest_main() {
	for mode in discard overwrite; do
		guest_emit $mode $mode --events $TRACE_EVENTS || return
		if ! wait_until 300 test -f "$s/report"; then
			fail "$mode: emit did not finish within 300 s"
			kill $emit
			return
		fi
		wait $emit || fail "$mode: emit exited $?"
		# A key of its own: the state moves on to the next run's "ready" at
		# once, and a slow dom0 would miss "done" (it did, under a busy QEMU).
		xenstore-write data/rtr-test/report-$mode "$(cat "$s/report")"
		xs_state "$mode done"
		step "$mode: $(cat "$s/report")"
	done
	# Smaller packets for the paced run: more of them for dom0 to sleep
	# through (its wake-ups are counted), and still room in the ring for
	# the whole second phase.
	export RINGTRACE_PACKET_SIZE=16k
	guest_emit crash discard --phases 2 --events $((2 * TRACE_PHASE)) --pace 10:1000 --hold || return
	wait_until 300 test -f "$s/done.0" || { fail "crash: phase 0 did not end within 300 s"; return; }
	xs_state "crash phase0"
	wait_until 120 go_is crash-1 || { fail "crash: no go for phase 1 from dom0"; return; }
	touch "$s/go.1"
	wait_until 300 test -f "$s/done.1" || { fail "crash: phase 1 did not end within 300 s"; return; }
	step "crash: phase 1 emitted, the program holds; the kernel crashes"
	echo c >/proc/sysrq-trigger
	sleep 60
	fail "crash: alive 60 s after the crash"
}

# ---- dom0 -------------------------------------------------------------------------

state_is() { [ "$(xenstore-read "$xsdir/state" 2>/dev/null)" = "$1" ]; }
reported() { xenstore-read "$xsdir/report-$1" >/dev/null 2>&1; }
consumer_gone() { ! kill -0 "$cpid" 2>/dev/null; }
# xl list's state column: r b p s c d (running ... crashed, dying).
guest_crashed() { xl list "$GUEST" 2>/dev/null | awk 'NR == 2 { exit $5 !~ /c/ }'; }

# dom0_consume RUN: once the guest is ready, consume its region into
# /out/trace/RUN and tell it to go.
dom0_consume() {
	if ! wait_until 180 state_is "$1 ready"; then
		fail "$1: the guest is not ready after 180 s"
		show_guest_log trace
		return 1
	fi
	# No periodic flush (--flush-interval 0): every event on the port is a
	# packet's notification, but for four (check_trace.py --wakeups).
	ringtrace consume --xen-domain "$GUEST" --flush-interval 0 -o "/out/trace/$1" \
		>"/out/trace/$1.log" 2>&1 &
	cpid=$!
	# The guest goes once the consumer has attached (it says so).
	if ! wait_until 60 grep -q 'stop with Ctrl-C' "/out/trace/$1.log"; then
		fail "$1: ringtrace consume did not attach within 60 s"
		sed "s/^/  /" "/out/trace/$1.log"
		kill -9 "$cpid"
		return 1
	fi
	xenstore-write "$xsdir/go" "$1"
	step "$1: consuming"
	# The events dom0's kernel delivered on consume's port (the guest's
	# notifications, less those that merged): its line of /proc/interrupts,
	# "evtchn:ringtrace", as long as it is bound.
	(while kill -0 "$cpid" 2>/dev/null; do
		grep 'evtchn:ringtrace' /proc/interrupts >"/tmp/irq.$1.new" && mv "/tmp/irq.$1.new" "/tmp/irq.$1"
		sleep 0.2
	done) &
}

# dom0_wait_consumer RUN SECONDS: the consumer's end, and its status.
dom0_wait_consumer() {
	if ! wait_until "$2" consumer_gone; then
		fail "$1: ringtrace consume did not end within $2 s"
		kill -9 "$cpid"
	fi
	wait "$cpid" || fail "$1: ringtrace consume exited $?"
	sed "s/^/  /" "/out/trace/$1.log"
	wakeups=$(awk '{ print $2 }' "/tmp/irq.$1" 2>/dev/null)
	case $wakeups in
	'' | *[!0-9]*)
		fail "$1: no evtchn:ringtrace line in /proc/interrupts while consume ran"
		wakeups=0
		;;
	esac
	step "$1: dom0 woken $wakeups times"
}

dom0_main() {
	mkdir -p /out/trace
	xsdir=/local/domain/$(xl domid "$GUEST")/data/rtr-test
	for mode in discard overwrite; do
		dom0_consume $mode || return
		# It ends by itself once the guest's program has exited.
		dom0_wait_consumer $mode 360
		wait_until 30 reported "$mode" || fail "$mode: the guest did not report"
		report=$(xenstore-read "$xsdir/report-$mode")
		step "$mode: guest's emit: $report"
		echo "--threads $TRACE_THREADS --attempted ${report#attempted } --mode $mode" \
			"--wakeups $wakeups $mode $mode" >"/out/trace/$mode.check"
	done

	dom0_consume crash || return
	wait_until 300 state_is "crash phase0" || { fail "crash: phase 0 not over after 300 s"; return; }
	kill -INT "$cpid"
	dom0_wait_consumer crash 60
	crash_wakeups=$wakeups
	xenstore-write "$xsdir/go" crash-1
	if ! wait_until 120 guest_crashed; then
		fail "crash: the guest did not crash"
		show_guest_log trace
		return
	fi
	step "crash: the guest crashed and is preserved ($(xl list "$GUEST" | awk 'NR == 2 { print $5 }'))"
	if timeout 120 ringtrace recover --xen-domain "$GUEST" -o /out/trace/crash-recovered \
		>/out/trace/crash-recovered.log 2>&1; then
		step "crash: recovered"
	else
		fail "crash: ringtrace recover exited $?"
	fi
	sed "s/^/  /" /out/trace/crash-recovered.log
	# Every event emitted is in what was consumed or recovered, or counted lost.
	# dom0 sleeps through the paced phase: the bind-time event, the answer
	# to its last flush, and at least one packet's notification.
	echo "--threads $TRACE_THREADS --attempted $((2 * TRACE_PHASE * TRACE_THREADS))" \
		"--wakeups $crash_wakeups --min-wakeups 3 crash crash crash-recovered" >/out/trace/crash.check
}
