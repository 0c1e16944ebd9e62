# SPDX-License-Identifier: MIT
# The test bed's smoke test (tests/xen/real/smoke.h): grants, an event channel
# and xenstore between a domU's userspace and dom0, without ringtrace.

guest_main() {
	echo "devices: $(ls /dev/xen | tr '\n' ' ')"
	echo "gntalloc limit: $(cat /sys/module/xen_gntalloc/parameters/limit) grants"
	timeout 90 rtr-xen-smoke-guest 60 || fail "rtr-xen-smoke-guest exited $?"
}

dom0_main() {
	step "devices: $(ls /dev/xen | tr '\n' ' '); gntdev limit: $(cat /sys/module/xen_gntdev/parameters/limit 2>/dev/null || echo none)"
	id=$(xl domid "$GUEST")
	dir=/local/domain/$id/data/rtr-smoke
	if ! wait_until 120 xs_exists "$dir/ready"; then
		fail "the guest did not publish $dir/ready within 120 s"
		show_guest_log smoke
		return
	fi
	step "guest published $(xenstore-read "$dir/ring-ref") / $(xenstore-read "$dir/event-channel")"
	# What a domU's userspace may write, and with which permissions.
	xenstore-ls -p "/local/domain/$id" | grep -E '^ ?[a-z]' | sed 's/^/  /'
	timeout 60 rtr-xen-smoke-dom0 "$id" 45 || fail "rtr-xen-smoke-dom0 exited $?"
	wait_guest_done smoke 60 && show_guest_log smoke
}
