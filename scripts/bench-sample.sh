#!/bin/sh
# SPDX-License-Identifier: MIT
# record --sample's part of `make bench`:
#   scripts/bench-sample.sh BUILD_DIR ROWS_FILE
# A CPU-bound program with a fixed amount of work (xz -1 -T1 compressing
# RTR_BENCH_SAMPLE_LINES (12,000,000) lines of seq's output, about 100 MB)
# run under `ringtrace record --pthread` (the way to trace a program not
# linked with libringtrace; the kernel's view is on) with and without
# --sample=1000 (default options otherwise), in turns, RTR_BENCH_SAMPLE_TURNS (3) of each;
# the program times itself (bash's `time`, inside the recording), and the
# best run of each kind is kept:
#   sample.1khz.program_s            the program's run time with samples
#   sample.1khz.nosample_program_s   ... without
#   sample.1khz.overhead_percent     the first against the second (goal <= 2)
#   sample.1khz.perf_overhead_percent  the floor, in the same turns: the same
#                                    program under `perf record -e task-clock
#                                    -c 1000000 -g` (1 kHz of CPU time, call
#                                    graphs: what --sample asks of the kernel)
#                                    against it alone (when perf is installed)
#   sample.1khz.samples              samples in the last trace
#   sample.1khz.recorder_cpu_percent the CPU time of the recording besides
#                                    the program's (the recorder, and the two
#                                    shells that time it) over the run, with
#                                    samples
# Figures are printed and appended to ROWS_FILE as "name value unit".
set -eu

build=$1
rows=$2
turns=${RTR_BENCH_SAMPLE_TURNS:-3}
lines=${RTR_BENCH_SAMPLE_LINES:-12000000}
ringtrace=$build/bin/ringtrace
dir=$build/bench/sample
mkdir -p "$dir"

if [ ! -x "$ringtrace" ]; then
	echo "bench-sample.sh: $ringtrace not found: run make first" >&2
	exit 1
fi
if ! command -v xz >/dev/null || ! command -v bash >/dev/null; then
	echo "bench-sample.sh: xz and bash are needed" >&2
	exit 1
fi
seq 1 "$lines" >"$dir/in.txt"

. "$(dirname "$0")/bench-lib.sh"


# run OPTS: "program_real program_cpu all_cpu real" of one recording, seconds.
run() {
	rm -rf "$dir/trace"
	# shellcheck disable=SC2016
	TIMEFORMAT='%R %U %S' bash -c 'time "$0" record -q '"$1"' -o "$1/trace" -- bash -c '"'"'TIMEFORMAT="%R %U %S" ; time xz -1 -T1 -c "$0" >/dev/null'"'"' "$1/in.txt" 2>"$1/prog.time"' \
		"$ringtrace" "$dir" 2>"$dir/all.time"
	awk 'NR == FNR { pr = $1; pc = $2 + $3; next } END { }
	     { printf "%s %s %s %s\n", pr, pc, $2 + $3, $1 }' "$dir/prog.time" "$dir/all.time"
}

# perf OPTS...: the program's own time under perf record OPTS, or alone without OPTS.
perf_run() {
	if [ $# -eq 0 ]; then
		TIMEFORMAT='%R' bash -c 'time xz -1 -T1 -c "$0" >/dev/null' "$dir/in.txt" 2>&1
	else
		perf record -q "$@" -o "$dir/perf.data" -- bash -c 'TIMEFORMAT=%R; time xz -1 -T1 -c "$0" >/dev/null' \
			"$dir/in.txt" 2>&1 | tail -n 1
	fi
}

s= n= cpu= real= all= pf= p0=
i=0
while [ "$i" -lt "$turns" ]; do
	if command -v perf >/dev/null; then
		p0=$(min "$p0" "$(perf_run)")
		pf=$(min "$pf" "$(perf_run -e task-clock -c 1000000 -g)")
	fi
	r=$(run --pthread)
	n=$(min "$n" "$(echo "$r" | awk '{ print $1 }')")
	r=$(run "--pthread --sample=1000")
	p=$(echo "$r" | awk '{ print $1 }')
	if [ -z "$s" ] || awk -v a="$p" -v b="$s" 'BEGIN { exit !(a < b) }'; then
		s=$p
		cpu=$(echo "$r" | awk '{ print $2 }')
		all=$(echo "$r" | awk '{ print $3 }')
		real=$(echo "$r" | awk '{ print $4 }')
	fi
	i=$((i + 1))
done
samples=$("$ringtrace" stats --samples --json "$dir/trace" | sed -n 's/^{"samples": \([0-9]*\),.*/\1/p')
echo "record --pthread --sample=1000 against without, $turns turns each, xz -1 -T1 on $lines lines:"
row sample.1khz.program_s "$s" s
row sample.1khz.nosample_program_s "$n" s
row sample.1khz.overhead_percent "$(awk -v a="$s" -v b="$n" 'BEGIN { printf "%.2f", (a / b - 1) * 100 }')" "% (goal <= 2)"
if [ -n "$pf" ] && [ -n "$p0" ]; then
	row sample.1khz.perf_overhead_percent "$(awk -v a="$pf" -v b="$p0" 'BEGIN { printf "%.2f", (a / b - 1) * 100 }')" "% (perf record itself)"
fi
row sample.1khz.samples "${samples:-0}" samples
row sample.1khz.recorder_cpu_percent "$(awk -v a="$all" -v p="$cpu" -v r="$real" 'BEGIN { printf "%.2f", (a - p) / r * 100 }')" "% of a CPU"
rm -rf "$dir"
