# SPDX-License-Identifier: MIT
# A viewer following a guest from dom0, on real Xen: the pipeline of
# `ringtrace gui --xen-domain` and `ringtrace view --serve --follow
# --xen-domain` (tools/xen_follow.c runs `ringtrace consume --xen-domain D
# -o -`; the viewer reads its stream as it comes, view/live.c), through the
# server, whose answers a test can read without a display (the window draws
# the same scene; tests/view/test_render.c checks it on the simulated Xen).
#
# The guest's ringtrace-test-emit writes FOLLOW_PHASE events a thread, then
# waits (its program running, its packets open); dom0's server must show
# them then, while the program runs: the guest's flusher closes its packets
# when consume asks.  Then a second phase, the same; then the program
# exits, consume ends its stream, and the server says the recording is
# done and still answers.  SIGINT stops the server, and consume with it,
# both with status 0.
#
# Guest and dom0 take turns through xenstore, under the guest's
# data/rtr-follow: the guest writes "state" (ready, phase0, phase1), dom0
# "go" (phase0, phase1, end); the guest's end is its console's "DONE
# follow" (a guest whose last test this is powers off at once).

FOLLOW_THREADS=2
FOLLOW_PHASE=1500	# events per thread and phase

# ---- the guest ------------------------------------------------------------------

follow_go_is() { [ "$(xenstore-read data/rtr-follow/go 2>/dev/null)" = "$1" ]; }

# follow_step GO FILE: once dom0 says GO, let the program go on (FILE in its
# sync dir); 1 if dom0 did not within 180 s.
follow_step() {
	if ! wait_until 180 follow_go_is "$1"; then
		fail "no go $1 from dom0 within 180 s"
		kill "$emit"
		return 1
	fi
	touch "$s/$2"
}

guest_main() {
	s=/tmp/sync-follow
	mkdir -p "$s"
	# Small packets: each phase fills some, and leaves one open per CPU.
	RINGTRACE_XEN=1 RINGTRACE_PACKETS=16 RINGTRACE_PACKET_SIZE=16k ringtrace-test-emit \
		--threads $FOLLOW_THREADS --pin --sync "$s" --phases 2 \
		--events $((2 * FOLLOW_PHASE)) --pace 10:1000 --hold >/tmp/emit-follow.log 2>&1 &
	emit=$!
	if ! wait_until 60 test -f "$s/pid"; then
		fail "emit did not start"
		cat /tmp/emit-follow.log
		return
	fi
	xenstore-write data/rtr-follow/state ready
	for p in 0 1; do
		follow_step phase$p go.$p || return
		wait_until 300 test -f "$s/done.$p" || { fail "phase $p did not end within 300 s"; kill $emit; return; }
		xenstore-write data/rtr-follow/state phase$p
		step "phase $p emitted; the program waits"
	done
	follow_step end go.2 || return
	wait $emit || fail "emit exited $?"
	step "emit: $(cat "$s/report")"
}

# ---- dom0 -------------------------------------------------------------------------

follow_state_is() { [ "$(xenstore-read "$xsdir/state" 2>/dev/null)" = "$1" ]; }

# meta: the server's api/meta into /tmp/meta.json.
# (rtr-xen-http-get: the image's static busybox wget crashes)
meta() { rtr-xen-http-get "${url}api/meta" /tmp/meta.json 2>/tmp/get.err; }
# meta_num KEY: a number of /tmp/meta.json ("events", "turn").
meta_num() { sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p" /tmp/meta.json; }
# meta_lost: the events the streams say were lost (each CPU's "events_lost").
meta_lost() {
	tr ',' '\n' </tmp/meta.json | sed -n 's/.*"events_lost":\([0-9]*\).*/\1/p' |
		awk '{ n += $1 } END { print n + 0 }'
}
# events_at_least N: the served scene holds N events or more, with those
# the trace says were lost (the guest's portable path may lose a few while
# its flusher holds a CPU's buffer; they are counted, and shown).
events_at_least() { meta && [ $(($(meta_num events) + $(meta_lost))) -ge "$1" ]; }
# recording_done: the server says the recording has ended.
recording_done() { meta && grep -q '"done":true' /tmp/meta.json; }
server_gone() { ! kill -0 "$spid" 2>/dev/null; }

# follow_phase P: after dom0's go, the guest's program has emitted phase P
# and waits; the server must show its events then (the program running).
follow_phase() {
	xenstore-write "$xsdir/go" "phase$1"
	step "phase $1: go"
	if ! wait_until 300 follow_state_is "phase$1"; then
		fail "phase $1: the guest did not emit it within 300 s"
		show_guest_log follow
		return 1
	fi
	want=$(((1 + $1) * FOLLOW_THREADS * FOLLOW_PHASE))
	if ! wait_until 60 events_at_least "$want"; then
		fail "phase $1: the server shows $(meta_num events) events of $want, 60 s after the guest emitted them"
		sed "s/^/  /" /tmp/get.err
		return 1
	fi
	if grep -q '"done":true' /tmp/meta.json; then
		fail "phase $1: the server says the recording ended while the program runs"
		return 1
	fi
	step "phase $1: the server shows $(meta_num events) events and $(meta_lost) lost (turn $(meta_num turn)), the program running"
}

dom0_main() {
	out=/out/follow
	xsdir=/local/domain/$(xl domid "$GUEST")/data/rtr-follow
	if ! wait_until 180 follow_state_is ready; then
		fail "the guest is not ready after 180 s"
		show_guest_log follow
		return
	fi
	ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up || fail "no loopback interface"
	ringtrace view --serve --follow --xen-domain "$GUEST" >/tmp/serve.out 2>"$out/serve.log" &
	spid=$!
	# Its first line, once it answers: its URL (with the token).
	if ! wait_until 60 grep -q '^http://127\.0\.0\.1:' /tmp/serve.out; then
		fail "the server printed no URL within 60 s"
		sed "s/^/  /" "$out/serve.log"
		kill -9 "$spid"
		return
	fi
	url=$(head -n 1 /tmp/serve.out)
	step "serving at ${url%%/[0-9a-f]*}/..."
	if follow_phase 0 && follow_phase 1; then
		xenstore-write "$xsdir/go" end
		wait_guest_done follow 120
		if wait_until 60 recording_done; then
			step "done: the server shows $(meta_num events) events and $(meta_lost) lost, the recording ended"
		else
			fail "the server does not say the recording ended, 60 s after the program did"
		fi
		# Its window, whole, after the end: an answer with its columns.
		end=$(sed -n 's/.*"end":\([0-9]*\).*/\1/p' /tmp/meta.json)
		if rtr-xen-http-get "${url}api/window?t0=0&t1=${end:-1}&width=800" "$out/window.json" &&
			grep -q '"tasks_in_view"' "$out/window.json"; then
			step "api/window: $(wc -c <"$out/window.json") bytes"
		else
			fail "api/window did not answer after the recording ended"
		fi
		cp /tmp/meta.json "$out/meta.json"
	fi
	kill -INT "$spid"
	if ! wait_until 30 server_gone; then
		fail "the server did not stop within 30 s of SIGINT"
		kill -9 "$spid"
	fi
	wait "$spid" || fail "the server exited $?"
	sed "s/^/  /" "$out/serve.log"
	guest_done follow || wait_guest_done follow 200
}
