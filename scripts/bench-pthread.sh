#!/bin/sh
# SPDX-License-Identifier: MIT
# The pthread preload's part of `make bench`:
#   scripts/bench-pthread.sh BUILD_DIR ROWS_FILE
# ringtrace-pthread-bench (bench/bench_pthread.c, a plain pthread program)
# run untraced and under `ringtrace record --pthread` (default options), in
# turns, RTR_BENCH_PTHREAD_TURNS (3) of each; each run prints the best of its
# own reps, and the best run of each kind is kept:
#   pthread.uncontended.ns                  a lock/unlock pair nobody else wants,
#                                           traced (through the wrapper)
#   pthread.uncontended.untraced.ns         the same pair through glibc's own entry
#                                           points, in the same traced process, in
#                                           turns with the other: the same machine,
#                                           the same moment
#   pthread.uncontended.plain.ns            the pair in the untraced runs (every
#                                           run starts a thread first: glibc skips
#                                           the lock prefix while a process has
#                                           one thread, a third of the cost)
#   pthread.uncontended.hold.ns             the pair under record --pthread
#                                           --hold-times (a TSC read at each lock)
#   pthread.handoff.ns / .untraced.ns       a token passed between two threads
#                                           (a contended lock, a condition wait,
#                                           a signal, a wake-up), traced runs
#                                           against untraced ones
# and the ratios.  Then callgrind's count of instructions per uncontended
# pair, traced (tracing on, no consumer: the fast path writes nothing) and
# not: a figure the shared machine's noise cannot move.
# Figures are printed and appended to ROWS_FILE as "name value unit".
set -eu

build=$1
rows=$2
turns=${RTR_BENCH_PTHREAD_TURNS:-3}
ringtrace=$build/bin/ringtrace
prog=$build/bin/ringtrace-pthread-bench
lib=$build/lib/libringtrace-pthread.so
dir=$build/bench/pthread-trace
mkdir -p "$build/bench"

for f in "$ringtrace" "$prog" "$lib"; do
	if [ ! -e "$f" ]; then
		echo "bench-pthread.sh: $f not found: run make first" >&2
		exit 1
	fi
done

. "$(dirname "$0")/bench-lib.sh"


field() {
	echo "$1" | awk -v n="$2" '$1 == n { print $2 }'
}

u0= u1= up= h0= h1= uh=
i=0
while [ "$i" -lt "$turns" ]; do
	plain=$("$prog")
	traced=$("$ringtrace" record -q --pthread -o "$dir" --force -- "$prog")
	up=$(min "$up" "$(field "$plain" pthread.uncontended.ns)")
	h0=$(min "$h0" "$(field "$plain" pthread.handoff.ns)")
	u0=$(min "$u0" "$(field "$traced" pthread.uncontended.direct.ns)")
	u1=$(min "$u1" "$(field "$traced" pthread.uncontended.ns)")
	h1=$(min "$h1" "$(field "$traced" pthread.handoff.ns)")
	held=$("$ringtrace" record -q --pthread --hold-times -o "$dir.hold" --force -- "$prog" \
		--handoffs 2000)
	uh=$(min "$uh" "$(field "$held" pthread.uncontended.ns)")
	i=$((i + 1))
done
[ -n "$u0" ] || u0=$up	# not glibc: the untraced runs' figure
events=$("$ringtrace" check "$dir" | tail -n 2 | head -n 1 | awk '{ print $3 }')
rm -rf "$dir" "$dir.hold"

echo
echo "pthread: ringtrace-pthread-bench untraced and under record --pthread, best of $turns runs each"
echo "  (the last traced run recorded $events events: the hand-offs' waits, signals and wake-ups)"
printf '  %-36s %14s  %s\n' name value unit
row pthread.uncontended.untraced.ns "$u0" ns/pair
row pthread.uncontended.ns "$u1" ns/pair
row pthread.uncontended.plain.ns "$up" ns/pair
row pthread.uncontended.ratio "$(awk -v a="$u1" -v b="$u0" 'BEGIN { printf "%.3f", a / b }')" "x untraced"
row pthread.uncontended.hold.ns "$uh" ns/pair
row pthread.uncontended.hold.ratio "$(awk -v a="$uh" -v b="$u0" 'BEGIN { printf "%.3f", a / b }')" "x untraced"
row pthread.handoff.untraced.ns "$h0" ns/handoff
row pthread.handoff.ns "$h1" ns/handoff
row pthread.handoff.ratio "$(awk -v a="$h1" -v b="$h0" 'BEGIN { printf "%.3f", a / b }')" "x untraced"

if command -v valgrind >/dev/null 2>&1; then
	pairs=200000
	# The program also warms up with pairs/10 before its measured run.
	n=$((pairs + pairs / 10))
	cg() {
		out=$build/bench/callgrind.pthread.$1.out
		rm -f "$out"
		shift
		"$@" valgrind --tool=callgrind --callgrind-out-file="$out" --collect-atstart=no \
			--toggle-collect=uncontended "$prog" --pairs "$pairs" --handoffs 1 --reps 1 \
			>/dev/null 2>&1 || return 1
		awk -v n="$n" '/^totals:/ { t = $2 } /^summary:/ { s = $2 }
			END { printf "%.3f", (t != "" ? t : s) / n }' "$out"
	}
	region=$(mktemp -u /dev/shm/ringtrace-bench-pthread.XXXXXX)
	ci0=$(cg untraced env)
	ci1=$(cg traced env RINGTRACE_PATH="$region" LD_PRELOAD="$lib")
	rm -f "$region"
	row pthread.uncontended.untraced.instructions "$ci0" instructions/pair
	row pthread.uncontended.instructions "$ci1" instructions/pair
fi
