# SPDX-License-Identifier: MIT
# Shell helpers of the real-Xen test bed, sourced by /init in dom0 and in the
# domU (busybox sh).  A test is /tests/NAME.sh defining dom0_main and
# guest_main; both report through step/fail.  Every wait here is bounded.

RTR_FAILED=0
RTR_WHO=dom0

# Seconds since boot, to one decimal (the figures of the timings).
now() { cut -d' ' -f1 /proc/uptime; }

# step TEXT: progress, with the time since this kernel booted.
step() { echo "rtr-xen: [$(now)] $RTR_WHO: $*"; }

# fail TEXT: the test fails (the run goes on to its end and reports).
fail() {
	echo "rtr-xen: [$(now)] $RTR_WHO: FAIL: $*"
	RTR_FAILED=1
}

# cmdline_arg NAME: the value of NAME= on the kernel command line.
cmdline_arg() { tr ' ' '\n' </proc/cmdline | sed -n "s/^$1=//p" | tail -n 1; }

# load_modules: the drivers images.sh put in /lib/modules, in order.
load_modules() {
	for m in $(cat /lib/modules/load); do
		insmod "/lib/modules/$m" 2>/tmp/insmod.err || fail "insmod $m: $(cat /tmp/insmod.err)"
	done
}

# wait_until SECONDS COMMAND...: run COMMAND every 0.1 s until it succeeds;
# 1 if it has not after SECONDS.
wait_until() {
	_n=$(($1 * 10))
	shift
	while ! "$@" >/dev/null 2>&1; do
		_n=$((_n - 1))
		[ "$_n" -gt 0 ] || return 1
		sleep 0.1
	done
}

# ---- dom0 only ------------------------------------------------------------

# The one domU of a boot, which runs the guest_main of every test in turn.
GUEST=rtr-guest

# start_guest TESTS: the PV domU $GUEST (2 vCPUs, 256 MB) booting the bed's
# kernel and domU.cpio, whose /init runs the guest_main of each of TESTS
# (A+B+...).  It is preserved (not destroyed) if it crashes, as the dom0 of
# a traced guest would want.
start_guest() {
	cat >"/tmp/$GUEST.cfg" <<-CFG
	name = "$GUEST"
	type = "pv"
	kernel = "/boot/vmlinux.gz"
	ramdisk = "/boot/domU.cpio"
	extra = "console=hvc0 ${RTR_GUEST_ARGS:-quiet} rtr_test=$1"
	vcpus = 2
	memory = 128
	on_poweroff = "destroy"
	on_crash = "preserve"
	CFG
	timeout 120 xl create "/tmp/$GUEST.cfg" >/tmp/xl-create.log 2>&1 || {
		fail "xl create $GUEST: $(cat /tmp/xl-create.log)"
		return 1
	}
	step "guest $GUEST created (domain $(xl domid "$GUEST" 2>/dev/null))"
}

# guest_log: what the guest printed on its console so far.
guest_log() { cat "/var/log/xen/console/guest-$GUEST.log" 2>/dev/null; }

# show_guest_log [TEST]: the guest's console (from TEST's start), into dom0's.
show_guest_log() {
	guest_log | tr -d '\r' | sed -n "${1:+/rtr-guest: START $1\$/,}\$p" | sed "s/^/  [guest] /"
}

# guest_done TEST: the guest has finished its part of TEST.
guest_done() { guest_log | grep -q "rtr-guest: DONE $1 "; }

# wait_guest_done TEST SECONDS: wait for the guest to finish its part of
# TEST; fail unless it passed.  Its console goes to dom0's on failure.
wait_guest_done() {
	if ! wait_until "$2" guest_done "$1"; then
		fail "the guest did not finish $1 within $2 s"
		show_guest_log "$1"
		return 1
	fi
	if ! guest_log | grep -q "rtr-guest: DONE $1 PASS"; then
		fail "the guest's part of $1 failed"
		show_guest_log "$1"
		return 1
	fi
}

# guest_started TEST: the guest has begun its part of TEST.
guest_started() { guest_log | grep -q "rtr-guest: START $1"; }

# guest_alive: the domain $GUEST exists and has neither crashed nor shut
# down (xl list's state column: r b p s c d).
guest_alive() { xl list "$GUEST" 2>/dev/null | awk 'NR == 2 { ok = $5 !~ /[scd]/ } END { exit !ok }'; }

# guest_gone: no domain $GUEST any more.
guest_gone() { ! xl domid "$GUEST" >/dev/null 2>&1; }

# xs_exists PATH: the xenstore node exists.
xs_exists() { xenstore-exists "$1"; }
