#!/bin/sh
# SPDX-License-Identifier: MIT
# The kernel's view's part of `make bench` (record --sched, on with --pthread):
#   scripts/bench-sched.sh BUILD_DIR ROWS_FILE
# ringtrace-pthread-bench's hand-offs (two threads passing a token under a
# mutex and a condition: two context switches each) under `ringtrace record
# --pthread` with the kernel's view (the default) and with --no-sched, in
# turns, RTR_BENCH_SCHED_TURNS (3) of each, the best of each kind kept:
#   sched.handoff.ns / .nosched.ns   ns per hand-off, with and without
#   sched.overhead.ratio             the first over the second (goal <= 1.10)
#   sched.switches_per_s             the kernel's switch records a second of
#                                    the last run with the kernel's view (over
#                                    the whole `record`, its start included: a
#                                    rate at least that high)
#   sched.events_lost                the records the kernel dropped in it (its
#                                    buffer full: goal 0 at 100 k switches/s)
#   stats.locks.mevents_per_s        `ringtrace stats --locks` on that trace:
#                                    its events over the command's seconds
# Figures are printed and appended to ROWS_FILE as "name value unit".
set -eu

build=$1
rows=$2
turns=${RTR_BENCH_SCHED_TURNS:-3}
ringtrace=$build/bin/ringtrace
prog=$build/bin/ringtrace-pthread-bench
dir=$build/bench/sched-trace
mkdir -p "$build/bench"

for f in "$ringtrace" "$prog"; do
	if [ ! -e "$f" ]; then
		echo "bench-sched.sh: $f not found: run make first" >&2
		exit 1
	fi
done

. "$(dirname "$0")/bench-lib.sh"


now() {
	date +%s.%N
}

# run OPTS: the recording of 100,000 hand-offs; its figure on stdout, the
# recorder's report in $dir.err, the seconds it took in $dir.s
run() {
	t0=$(now)
	# shellcheck disable=SC2086
	"$ringtrace" record $1 -o "$dir" --force -- "$prog" --pairs 1000 --handoffs 100000 --reps 1 \
		2>"$dir.err" | awk '$1 == "pthread.handoff.ns" { print $2 }'
	awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.3f\n", b - a }' >"$dir.s"
}

h1= h0= i=0
while [ "$i" -lt "$turns" ]; do
	h0=$(min "$h0" "$(run "--pthread --no-sched")")
	h1=$(min "$h1" "$(run --pthread)")
	i=$((i + 1))
done
# the last run had the kernel's view: its report line
line=$(grep "the kernel's view" "$dir.err" || true)
switches=$(echo "$line" | sed -n 's/.*CPUs: \([0-9]*\) switches.*/\1/p')
lost=$(echo "$line" | sed -n 's/.*; \([0-9]*\) records lost.*/\1/p')
secs=$(cat "$dir.s")
events=$("$ringtrace" check "$dir" | tail -n 2 | head -n 1 | awk '{ print $3 }')
t0=$(now)
"$ringtrace" stats --locks "$dir" >/dev/null
st=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }')

echo
echo "sched: 100,000 hand-offs under record --pthread, with the kernel's view and without, best of $turns"
printf '  %-36s %14s  %s\n' name value unit
row sched.handoff.ns "$h1" ns/handoff
row sched.handoff.nosched.ns "$h0" ns/handoff
row sched.overhead.ratio "$(awk -v a="$h1" -v b="$h0" 'BEGIN { printf "%.3f", a / b }')" "x without (goal <= 1.10)"
row sched.switches_per_s "$(awk -v a="${switches:-0}" -v b="$secs" 'BEGIN { printf "%.0f", a / b }')" "switch records/s"
row sched.events_lost "${lost:-0}" "records (goal 0)"
row stats.locks.mevents_per_s "$(awk -v a="${events:-0}" -v b="$st" 'BEGIN { printf "%.3f", a / b / 1e6 }')" "M events/s"
echo "  ($switches switch records in $secs s; stats --locks read $events events in $st s)"
rm -rf "$dir" "$dir.err" "$dir.s"
