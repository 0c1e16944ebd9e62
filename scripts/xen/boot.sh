#!/bin/sh
# SPDX-License-Identifier: MIT
# Boot the real-Xen test bed under QEMU and run tests in it, in one boot.
#   scripts/xen/boot.sh BUILD_DIR "TEST..." [TIMEOUT_S]
# Each TEST is tests/xen/real/TEST.sh: its dom0_main runs in dom0, its
# guest_main in the one PV domU dom0 starts for them all (the tests run in
# the order given, in both); TEST.host, where there is one, then checks on
# the host what dom0 wrote.  The images come from scripts/xen/images.sh.  QEMU runs Xen 4.17 under TCG (-cpu qemu64: with
# -cpu max dom0 faults at boot), one CPU, the serial console on stdout,
# logged to BUILD_DIR/xen/run/console.log; dom0 writes its /out to a raw
# virtio disk as a tar archive, unpacked into BUILD_DIR/xen/run/out (TEST/
# in it for each test).
#
# Prints a Criterion-style synthesis line (scripts/run-tests.sh tallies it)
# and exits 0 only if every test passed.  A failure, a panic of Xen or
# Linux, or no end within TIMEOUT_S (default 600) seconds: QEMU is killed,
# the end of the console is shown, and the exit status is 1.
# QEMU is killed on every path out of here, and `timeout` kills it should this
# script itself be killed.
#   V=1: the whole console as it comes.  XEN_QEMU_ARGS: more QEMU options.
set -eu

build=$1
tests=$2
limit=${3:-600}
here=$(cd "$(dirname "$0")/../.." && pwd)
top=$build/xen
run=$top/run
log=$run/console.log
ntests=$(echo $tests | wc -w)

die() { echo "xen-real: $*" >&2; exit 1; }

for f in xen.elf vmlinux dom0.cpio; do
	[ -f "$top/$f" ] || die "no $top/$f: run 'make xen-images' first"
done
command -v qemu-system-x86_64 >/dev/null 2>&1 ||
	die "qemu-system-x86_64 is missing (scripts/deps.sh xen installs qemu-system-x86)"

rm -rf "$run"
mkdir -p "$run/out"
# The results disk: sparse, so its size costs nothing.
truncate -s 512M "$run/out.img"
: >"$log"

# Xen: its console on the serial port; dom0 gets one vCPU and a fixed
# memory size (no ballooning); the rest of the 1 GB is the domUs'.
xen_args="console=com1 com1=115200,8n1 dom0_mem=384M,max:384M dom0_max_vcpus=1 loglvl=warning guest_loglvl=warning"
# dom0's Linux: console through Xen (hvc0), quiet, the test's name for /init.
#   XEN_DOM0_ARGS, XEN_GUEST_ARGS (A,B,...): more kernel arguments, for a look
#   at the boot (e.g. XEN_DOM0_ARGS=loglevel=7).
dom0_args="console=hvc0 earlyprintk=xen loglevel=4 rtr_test=$(echo $tests | tr ' ' +)"
dom0_args="$dom0_args${XEN_GUEST_ARGS:+ rtr_guest_args=$XEN_GUEST_ARGS}${XEN_DOM0_ARGS:+ $XEN_DOM0_ARGS}"

start=$(date +%s.%N)
# shellcheck disable=SC2086
timeout -k 5 $((limit + 10)) qemu-system-x86_64 \
	-machine pc,accel=tcg -cpu qemu64 -smp 1 -m 1024 \
	-nographic -no-reboot -nic none \
	-kernel "$top/xen.elf" -append "$xen_args" \
	-initrd "$top/vmlinux $dom0_args,$top/dom0.cpio" \
	-drive "file=$run/out.img,format=raw,if=virtio" -pidfile "$run/qemu.pid" \
	${XEN_QEMU_ARGS:-} </dev/null >"$log" 2>&1 &
qpid=$!
# QEMU removes its pid file when it exits.
stop_qemu() {
	kill "$qpid" 2>/dev/null || return 0	# timeout passes it on to QEMU
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		kill -0 "$qpid" 2>/dev/null || return 0
		sleep 0.2
	done
	qemu=$(cat "$run/qemu.pid" 2>/dev/null) && kill -9 "$qemu" 2>/dev/null
	kill -9 "$qpid" 2>/dev/null || true
}
trap 'stop_qemu' EXIT
trap 'stop_qemu; exit 130' INT TERM

elapsed() { echo "$(date +%s.%N) $start" | awk '{ printf "%.1f", $1 - $2 }'; }
# QEMU's CPU time so far (user + system): unlike the elapsed time, a figure
# the host's load does not inflate.
qemu_cpu() {
	awk -v hz="$(getconf CLK_TCK)" '{ printf "%.1f", ($14 + $15) / hz }' \
		"/proc/$(cat "$run/qemu.pid" 2>/dev/null)/stat" 2>/dev/null || echo "?"
}

# Follow the console: show the bed's lines (all with V=1), watch for the end.
seen=0
result=
t_dom0=
while :; do
	alive=1
	kill -0 "$qpid" 2>/dev/null || alive=0
	lines=$(wc -l <"$log")
	if [ "$lines" -gt "$seen" ]; then
		new=$(sed -n "$((seen + 1)),${lines}p" "$log" | tr -d '\r')
		seen=$lines
		if [ "${V:-0}" = 1 ]; then
			printf '%s\n' "$new"
		else
			printf '%s\n' "$new" | sed -n -e 's/^rtr-xen: \(\[[0-9.]*\] \)\{0,1\}//p' \
				-e 's/^.*(XEN) Xen version \([^ ]*\) .*/Xen \1 booting/p' \
				-e 's/^\[ *[0-9.]*\] Linux version \([^ ]*\) .*/dom0: Linux \1 booting/p' |
				sed "s/^/  XEN     $(elapsed) s, cpu $(qemu_cpu) s  /"
		fi
		[ -n "$t_dom0" ] || ! printf '%s\n' "$new" | grep -q '^rtr-xen: ' || t_dom0=$(elapsed)
		case $new in
		*"rtr-xen: END"*) result=END ;;
		*"Kernel panic"* | *"(XEN) Panic on CPU"* | *"(XEN) Assertion"*) result=PANIC ;;
		esac
	fi
	[ -z "$result" ] || break
	[ "$alive" = 1 ] || { result=EXITED; break; }
	if [ "$(elapsed | cut -d. -f1)" -ge "$limit" ]; then
		result=TIMEOUT
		break
	fi
	sleep 0.2
done
t_end=$(elapsed)

# After END, dom0 powers off; give QEMU a moment to exit on its own.
if [ "$result" = END ]; then
	for _ in $(seq 50); do kill -0 "$qpid" 2>/dev/null || break; sleep 0.2; done
fi
stop_qemu
wait "$qpid" 2>/dev/null || true
trap - EXIT INT TERM
# QEMU's CPU time (this shell's children's): a figure the host's load does not
# inflate as it does the wall-clock times above.
times >"$run/times"
cpu=$(tail -n 1 "$run/times" | awk '{ gsub(/[ms]/, " "); printf "%.0f s user, %.0f s system", $1 * 60 + $2, $3 * 60 + $4 }')

# The results dom0 left on the disk.
out_ok=0
if [ "$result" = END ]; then
	if tar -xf "$run/out.img" -C "$run/out" 2>/dev/null; then
		out_ok=1
	else
		echo "xen-real: the results disk holds no readable tar archive ($run/out.img)" >&2
	fi
fi
rm -f "$run/out.img"
# Each test's verdict: dom0's, then the host's checks of what it wrote
# (tests/xen/real/TEST.host OUT_DIR/TEST, where there is one).
passed=0
for t in $tests; do
	grep -aq "^rtr-xen: RESULT $t PASS" "$log" && [ "$out_ok" = 1 ] || continue
	host=$here/tests/xen/real/$t.host
	if [ -x "$host" ] && ! "$host" "$run/out/$t"; then
		echo "xen-real: $t: the host's checks failed ($host $run/out/$t)" >&2
		continue
	fi
	passed=$((passed + 1))
done
failed=$((ntests - passed))
echo "[====] Synthesis: Tested: $ntests | Passing: $passed | Failing: $failed | Crashing: 0"
if [ "$result" = END ] && [ "$failed" = 0 ]; then
	echo "  XEN     all passed in ${t_end} s (dom0's /init at ${t_dom0} s; QEMU's CPU: $cpu)"
	exit 0
fi
case $result in
END) why="$failed of $ntests failed" ;;
PANIC) why="a panic (Xen or Linux)" ;;
EXITED) why="QEMU exited before the tests ended" ;;
TIMEOUT) why="no end after $limit s (hard timeout; QEMU killed)" ;;
esac
echo "xen-real: FAIL: $why, at ${t_end} s; the console's last lines ($log):" >&2
tail -n 60 "$log" | tr -d '\r' | sed 's/^/  | /' >&2
exit 1
