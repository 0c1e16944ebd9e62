# SPDX-License-Identifier: MIT
# A hostile guest on real Xen: ringtrace-xen-hostile traces and meanwhile
# scribbles on everything dom0 reads (the control page, grant references,
# the ref pages, the region's header, the xenstore keys) and notifies for
# nothing, while dom0 consumes, recovers and snapshots it over and over.
# dom0 must survive it all: each command ends (bounded) with status 0 or 1,
# a failure says why, no signal; Linux and Xen in dom0 neither panic nor
# oops (the harness sees a panic; dom0's kernel log is checked for oopses);
# what consume wrote is a trace `ringtrace check` reads (damage reported,
# not a crash).  The same as tests/xen/test_xen.c's simulated test, on the
# real grant and event-channel drivers.

# The guest attacks until dom0 has done HOSTILE_RUNS recover/snapshot runs
# and says stop (SIGTERM ends the program cleanly), or HOSTILE_SECONDS.
HOSTILE_SECONDS=150
HOSTILE_RUNS=6
HOSTILE_MIN_MUTATIONS=20

hostile_told_stop() { [ "$(xenstore-read data/rtr-test/hostile 2>/dev/null)" = stop ]; }

guest_main() {
	ringtrace-xen-hostile --seconds $HOSTILE_SECONDS --mutations 1000000 --seed 7 \
		>/tmp/hostile.log 2>&1 &
	hpid=$!
	wait_until $((HOSTILE_SECONDS + 30)) hostile_told_stop
	kill -TERM $hpid 2>/dev/null
	# It ends within a mutation (a xenstore write: seconds at worst).
	wait_until 60 sh -c "! kill -0 $hpid" || { fail "ringtrace-xen-hostile did not end on SIGTERM"; kill -9 $hpid; }
	wait $hpid || fail "ringtrace-xen-hostile exited $?"
	cat /tmp/hostile.log
	n=$(sed -n 's/^mutations //p' /tmp/hostile.log)
	[ "${n:-0}" -ge $HOSTILE_MIN_MUTATIONS ] ||
		fail "the guest made ${n:-no} mutations, fewer than $HOSTILE_MIN_MUTATIONS"
}

# survived WHAT STATUS LOG: WHAT ended by itself, with 0 or a reason.
survived() {
	case $2 in
	0) ;;
	1) [ -s "$3" ] || fail "$1 failed without a word" ;;
	*) fail "$1 exited $2 (143: killed at its time limit)"; sed 's/^/  /' "$3" ;;
	esac
}

hostile_published() { xs_exists "/local/domain/$id/data/ringtrace/ring-ref"; }

dom0_main() {
	id=$(xl domid "$GUEST")
	dmesg >/tmp/dmesg.before
	# (Keys an earlier test's program left are not the hostile guest's.)
	if ! wait_until 120 guest_started hostile || ! wait_until 120 hostile_published; then
		fail "the hostile guest did not publish its region within 120 s"
		show_guest_log hostile
		return
	fi
	out=/out/hostile
	runs=0 consumes=0 cpid=
	deadline=$(($(cut -d. -f1 /proc/uptime) + HOSTILE_SECONDS))
	while [ "$runs" -lt $HOSTILE_RUNS ] && ! guest_done hostile; do
		if [ "$(cut -d. -f1 /proc/uptime)" -ge "$deadline" ]; then
			fail "dom0 made only $runs recover/snapshot runs in $HOSTILE_SECONDS s"
			break
		fi
		if [ -z "$cpid" ]; then
			rm -rf "$out/c"
			timeout 120 ringtrace consume --xen-domain "$GUEST" -o "$out/c" >"$out/consume.log" 2>&1 &
			cpid=$!
			consumes=$((consumes + 1))
		elif ! kill -0 "$cpid" 2>/dev/null; then
			wait "$cpid"
			survived consume $? "$out/consume.log"
			cpid=
		fi
		cmd=snapshot
		[ $((runs % 2)) = 1 ] && cmd=recover
		rm -rf "$out/s"
		timeout 30 ringtrace $cmd --xen-domain "$GUEST" -o "$out/s" >"$out/$cmd.log" 2>&1
		survived $cmd $? "$out/$cmd.log"
		runs=$((runs + 1))
		[ "$RTR_FAILED" = 0 ] || break
	done
	xenstore-write "/local/domain/$id/data/rtr-test/hostile" stop
	# consume ends once the guest's program has (its region stopped).
	if [ -n "$cpid" ]; then
		wait "$cpid"
		survived consume $? "$out/consume.log"
	fi
	wait_guest_done hostile 120
	if [ -d "$out/c" ]; then
		ringtrace check "$out/c" >"$out/check.log" 2>&1
		st=$?
		[ $st -le 1 ] || fail "ringtrace check exited $st on what consume wrote"
	fi
	dmesg | diff /tmp/dmesg.before - | grep -E -i 'oops|BUG:|WARNING:|general protection' &&
		fail "dom0's kernel complained (above)"
	step "hostile: $consumes consumes, $runs recover/snapshot runs, dom0 unharmed"
	[ "$runs" -ge $HOSTILE_RUNS ] || fail "only $runs recover/snapshot runs"
	[ "$consumes" -ge 1 ] || fail "no consume ran"
}
