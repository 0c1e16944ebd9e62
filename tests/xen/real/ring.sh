# SPDX-License-Identifier: MIT
# ringtrace's ring on its unix back-end inside a PV domU (2 vCPUs): the
# stress harness's writers against its consumer process, every event checked,
# in both modes.  Tells whether the ring itself (the clock, futexes, shared
# files) works in a Xen PV guest, apart from the Xen back-end.  The ring takes
# its portable (locked) path here: QEMU's TCG offers no invariant TSC
# (constant_tsc, nonstop_tsc), which the rseq path requires.

guest_main() {
	timeout 120 ringtrace-stress --seconds 1 --writers 3 --packets 4 >/tmp/stress.log 2>&1 ||
		fail "ringtrace-stress exited $?"
	cat /tmp/stress.log
	[ "$(grep -c 'verified        every event' /tmp/stress.log)" = 2 ] ||
		fail "not every event verified"
}

dom0_main() {
	wait_guest_done ring 300 && show_guest_log ring | grep -E 'mode|events|delivered|lost|verified'
}
