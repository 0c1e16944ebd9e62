#!/bin/sh
# SPDX-License-Identifier: MIT
# How record's default geometry was chosen (Documentation/consumer.rst,
# "Sizing the buffers"): for each packet size and count per CPU, a program
# of the user's kind (ringtrace-bench-user, its own typed event of two u64)
# under `ringtrace record` with otherwise default options:
#   ns   10 M events, 1 thread: ns/event, the best of RUNS, and its floor
#   lost 1 writer at full speed for SECONDS on core 1, the recorder on core
#        0, into the build directory's disk: events lost, and MB/s written
# Not part of `make bench` (it takes minutes); run it by hand:
#   scripts/bench-geometry.sh BUILD_DIR [RUNS [SECONDS]]
set -eu

build=$1
runs=${2:-3}
seconds=${3:-5}
ringtrace=$build/bin/ringtrace
user=$build/bin/ringtrace-bench-user
work=$build/bench/geometry
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT

echo "dd oflag=direct: $(dd if=/dev/zero of="$work/dd" bs=1M count=2048 oflag=direct 2>&1 |
	tail -n 1)"
rm -f "$work/dd"
printf '%-8s %-6s %10s %10s %8s %10s %10s\n' packet count "ns/event" "x floor" "MiB/CPU" \
	"lost %" "MB/s"
for geom in 64k:16 256k:4 256k:16 256k:64 1M:4 1M:16 1M:64 4M:4 4M:16; do
	p=${geom%:*}
	n=${geom#*:}
	best= bfloor=
	for _ in $(seq "$runs"); do
		rm -rf "$work/t"
		"$ringtrace" record -q -o "$work/t" --packet-size "$p" --packets "$n" -- "$user" \
			--threads 1 --events 10000000 >"$work/out" 2>/dev/null
		ns=$(awk '$1 == "ns" { print $2 }' "$work/out")
		if [ -z "$best" ] || awk -v a="$ns" -v b="$best" 'BEGIN { exit !(a < b) }'; then
			best=$ns
			bfloor=$(awk '$1 == "floor_ns" { print $2 }' "$work/out")
		fi
	done
	rm -rf "$work/t"
	sync
	t0=$(date +%s.%N)
	taskset -c 0 "$ringtrace" record -q -o "$work/t" --packet-size "$p" --packets "$n" -- \
		taskset -c 1 "$user" --threads 1 --seconds "$seconds" >"$work/out" 2>/dev/null
	t1=$(date +%s.%N)
	attempted=$(awk '$1 == "attempted" { print $2 }' "$work/out")
	lost=$("$ringtrace" check "$work/t" | tail -n 2 | head -n 1 | awk '{ print $5 }')
	bytes=$(du -sb "$work/t" | cut -f1)
	mib=$(awk -v p="$p" -v n="$n" 'BEGIN { m = p + 0; if (p ~ /k$/) m /= 1024;
		printf "%g", m * n }')
	awk -v p="$p" -v n="$n" -v ns="$best" -v f="$bfloor" -v mib="$mib" -v l="$lost" \
		-v a="$attempted" -v b="$bytes" -v t0="$t0" -v t1="$t1" 'BEGIN {
		printf "%-8s %-6s %10.3f %10.3f %8s %10.3f %10.0f\n", p, n, ns, ns / f, mib,
		100 * l / a, b / 1e6 / (t1 - t0) }'
done
