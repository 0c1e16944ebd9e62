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

# start_guest NAME TEST [VCPUS [MEMORY_MB]]: a PV domU booting the bed's
# kernel and domU.cpio, whose /init runs TEST's guest_main.  It is preserved
# (not destroyed) if it crashes, as a traced guest's dom0 would want.
start_guest() {
	cat >"/tmp/$1.cfg" <<-CFG
	name = "$1"
	type = "pv"
	kernel = "/boot/vmlinux.gz"
	ramdisk = "/boot/domU.cpio"
	extra = "console=hvc0 quiet rtr_test=$2"
	vcpus = ${3:-1}
	memory = ${4:-128}
	on_poweroff = "destroy"
	on_crash = "preserve"
	CFG
	timeout 60 xl create "/tmp/$1.cfg" >/tmp/xl-create.log 2>&1 || {
		fail "xl create $1: $(cat /tmp/xl-create.log)"
		return 1
	}
	step "guest $1 created (domain $(xl domid "$1" 2>/dev/null))"
}

# guest_log NAME: what the guest printed on its console so far.
guest_log() { cat "/var/log/xen/console/guest-$1.log" 2>/dev/null; }

# show_guest_log NAME: the guest's console, prefixed, into dom0's console.
show_guest_log() { guest_log "$1" | tr -d '\r' | sed "s/^/  [$1] /"; }

# guest_ended NAME: the guest printed its END line.
guest_ended() { guest_log "$1" | grep -q 'rtr-guest: END'; }

# wait_guest_end NAME SECONDS: wait for the guest's END line; fail unless it
# says PASS.  The guest's console goes to dom0's on failure.
wait_guest_end() {
	if ! wait_until "$2" guest_ended "$1"; then
		fail "guest $1 did not finish within $2 s"
		show_guest_log "$1"
		return 1
	fi
	if ! guest_log "$1" | grep -q 'rtr-guest: END PASS'; then
		fail "guest $1 failed"
		show_guest_log "$1"
		return 1
	fi
	step "guest $1 finished"
}

# guest_gone NAME: no domain NAME any more.
guest_gone() { ! xl domid "$1" >/dev/null 2>&1; }

# xs_exists PATH: the xenstore node exists.
xs_exists() { xenstore-exists "$1"; }
