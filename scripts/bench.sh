#!/bin/sh
# SPDX-License-Identifier: MIT
# The benchmark behind `make bench`:
#   scripts/bench.sh BUILD_DIR
# 1. BUILD_DIR/bin/ringtrace-bench: ns/event and throughput, floor vs ring,
#    written to BUILD_DIR/bench/results.json;
# 2. the same program under callgrind, counting only bench_cg_region(), for
#    instructions/event of the floor and of the ring's write in both modes,
#    printed and merged into results.json.
# RTR_BENCH_CG_EVENTS sets the events measured under callgrind (200000).
set -eu

if [ $# -ne 1 ]; then
	echo "usage: scripts/bench.sh BUILD_DIR" >&2
	exit 2
fi
build=$1
bench=$build/bin/ringtrace-bench
out=$build/bench
json=$out/results.json
cg_events=${RTR_BENCH_CG_EVENTS:-200000}

if [ ! -x "$bench" ]; then
	echo "bench.sh: $bench not found: run make first" >&2
	exit 1
fi
if ! command -v valgrind >/dev/null 2>&1; then
	echo "bench.sh: valgrind is not installed; it counts the instructions per event." >&2
	echo "bench.sh: run scripts/deps.sh bench as root (apt-get install valgrind)." >&2
	exit 1
fi
if ! command -v python3 >/dev/null 2>&1; then
	echo "bench.sh: python3 is not installed; it merges the figures into $json." >&2
	exit 1
fi
mkdir -p "$out"

"$bench" --json "$json"

echo
echo "callgrind: $cg_events events per mode, instructions counted in bench_cg_region()"
printf '  %-36s %14s  %-14s %s\n' name value unit "x floor"
rows=$out/callgrind.rows
: >"$rows"
floor_ir=
for mode in floor discard overwrite; do
	cg_out=$out/callgrind.$mode.out
	log=$out/callgrind.$mode.log
	rm -f "$cg_out"
	if ! valgrind --tool=callgrind --callgrind-out-file="$cg_out" \
		--collect-atstart=no --toggle-collect=bench_cg_region \
		"$bench" --callgrind "$mode" --events "$cg_events" >"$log" 2>&1; then
		echo "bench.sh: callgrind run of '$mode' failed:" >&2
		cat "$log" >&2
		exit 1
	fi
	# "totals:" (or the older "summary:") is the sum of the collected Ir.
	total=$(awk '/^totals:/ { t = $2 } /^summary:/ { s = $2 }
		END { print (t != "" ? t : s) }' "$cg_out")
	case "$total" in
	'' | *[!0-9]*)
		echo "bench.sh: no instruction total in $cg_out" >&2
		exit 1 ;;
	esac
	per=$(awk -v t="$total" -v n="$cg_events" 'BEGIN { printf "%.3f", t / n }')
	case $mode in
	floor)
		name=floor.instructions
		floor_ir=$per
		ratio= ;;
	*)
		name=ring.$mode.1t.instructions
		ratio=$(awk -v a="$per" -v b="$floor_ir" 'BEGIN { printf " %.2f", a / b }') ;;
	esac
	printf '  %-36s %14.3f  %-14s%s\n' "$name" "$per" "instr/event" "$ratio"
	printf '%s %s\n' "$name" "$per" >>"$rows"
done

python3 - "$json" "$rows" <<'EOF'
import json
import sys

path, rows = sys.argv[1], sys.argv[2]
with open(path) as f:
    results = json.load(f)
with open(rows) as f:
    for line in f:
        name, value = line.split()
        results = [r for r in results if r["name"] != name]
        results.append({"name": name, "value": float(value), "unit": "instructions/event"})
with open(path + ".tmp", "w") as f:
    json.dump(results, f, indent=2)
    f.write("\n")
EOF
mv "$json.tmp" "$json"
rm -f "$rows"
echo
echo "results: $json"
