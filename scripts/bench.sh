#!/bin/sh
# SPDX-License-Identifier: MIT
# The benchmark behind `make bench`:
#   scripts/bench.sh BUILD_DIR
# 1. BUILD_DIR/bin/ringtrace-bench: ns/event and throughput, floor vs ring,
#    and what thread records add (ring.tid.*: ns and bytes per event, 1 and 2
#    threads, 2 sharing a CPU, a thread record before every event), written
#    to BUILD_DIR/bench/results.json;
# 2. the same program under callgrind, counting only bench_cg_region(), for
#    instructions/event of the floor and of the ring's write in both modes,
#    with thread records (ring.tid.1t) and with one before every event;
# 3. BUILD_DIR/bin/ringtrace-events-bench: ns/call of the task model's calls
#    and of a typed event, tracing off and on, and the bytes/event of a task
#    mix on disk;
# 4. the same program under callgrind: instructions per call;
# 5. if `ringtrace dump` is built: dump and babeltrace2 reading the same trace
#    of a few million events (ringtrace-events-bench --make-trace), Mevents/s;
#    and the same on an LTTng-UST 2.13 trace of 3.2 M events recorded here
#    (tests/interop/lttng/record.sh, blocking mode: no event lost) of
#    rtr-lttng-app's request event (three integers and a string);
# 6. `ringtrace view` of a 1M-event trace (rtr-viewer-traces --events) in
#    headless Chromium: viewer.1m.open_s and viewer.1m.frame_ms (p95);
#    and what a turn of following a recording that size costs (viewer.live.turn_s);
# 6c. scripts/bench-index.sh: the index beside a ~100 M-event trace:
#    viewer.100m.index_s, reopen_s, index_bytes_per_event, slice_dump_s,
#    slice_view_s (a 10 ms slice read through it); the window on it under
#    Xvfb: gui.100m.open_s, frame_ms (p95), frame_max_ms, rss_bytes_per_event;
#    view --serve on it in headless Chromium: viewer.100m.serve_open_s,
#    frame_ms (p95), frame_max_ms, rss_bytes_per_event;
# 6b. scripts/bench-live.sh: a paced recording followed by view --serve --follow:
#    viewer.live.lag_ms / lag_p99_ms / lag_max_ms, from an event's write to the
#    server answering with it; then by gui --follow under Xvfb: gui.live.* (to
#    the window drawing it);
# 7. scripts/bench-consumer.sh: a user's program under `ringtrace record`:
#    record.* (ns/event beside the floor), consumer.{1writer,2writers}.* (MB/s
#    to disk, the fraction of the disk's, loss), the writers at LTTng-UST's
#    rate, a stalled output, blocking mode, snapshot.256kx4.events;
#    consumer.kill.recovered_percent (the recorder killed at full speed, then
#    recover);
#    scripts/bench-relayd.sh: the same writer at full speed into a stock
#    lttng-relayd on loopback (`record -o net://`): relayd.1writer.* (MB/s,
#    loss), relayd.live_lag_* (an event's time to its line in babeltrace2's
#    or `ringtrace dump`'s live output, p99, at 1 s and 100 ms flushes);
# 7b. ringtrace-view-bench: the viewer's window query (view/scene.h) on
#    server-like models of 1 M and 10 M requests made in memory:
#    view.{1m,10m}.{build_s,scene_bytes_per_task,query_us (p95),query_max_us,items_max};
# 8. scripts/bench-xen.sh: a Xen guest consumed from dom0 on the simulated
#    hypervisor: xen.sim.notifications_per_packet, dom0 MB/s (the guest's
#    xen.sim.ns is ringtrace-bench's, beside the unix figure); and
#    xen.real.events{,_lost} read from the traces the last `make check-xen`
#    left (no boot here).
# 9. scripts/bench-pthread.sh: a plain pthread program untraced and under
#    `ringtrace record --pthread`: pthread.uncontended.{,untraced.}ns and
#    pthread.handoff.{,untraced.}ns, and callgrind's instructions per pair.
# 10. scripts/bench-sample.sh: xz under `record --pthread` with and without
#    --sample=1000: sample.1khz.overhead_percent and the recorder's CPU.
# 11. scripts/bench-sched.sh: hand-offs under `record --pthread` with the
#    kernel's view and without: sched.overhead.ratio, sched.events_lost,
#    sched.switches_per_s, and stats.locks.mevents_per_s on that trace.
# 12. scripts/bench-trigger.sh: a program at 1 M events/s under `record --mode
#    overwrite` with three triggers and without: trigger.overhead_percent (the
#    recorder's CPU), trigger.ns_per_event, trigger.events_tested.
# Every figure is printed and merged into BUILD_DIR/bench/results.json.
# RTR_BENCH_CG_EVENTS sets the events measured under callgrind (200000);
# RTR_BENCH_TRACE_REQUESTS the requests in the dump's trace (300000, about
# 11 events each).
set -eu

if [ $# -ne 1 ]; then
	echo "usage: scripts/bench.sh BUILD_DIR" >&2
	exit 2
fi
build=$1
bench=$build/bin/ringtrace-bench
events=$build/bin/ringtrace-events-bench
ringtrace=$build/bin/ringtrace
out=$build/bench
json=$out/results.json
events_json=$out/events.json
rows=$out/bench.rows
cg_events=${RTR_BENCH_CG_EVENTS:-200000}
trace_requests=${RTR_BENCH_TRACE_REQUESTS:-300000}
status=0

for prog in "$bench" "$events"; do
	if [ ! -x "$prog" ]; then
		echo "bench.sh: $prog not found: run make first" >&2
		exit 1
	fi
done
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
: >"$rows"

# cg_count PROG MODE: PROG --callgrind MODE under callgrind; prints the
# instructions per event counted in bench_cg_region().
cg_count() {
	case $(basename "$1") in
	ringtrace-bench) tag=$2 ;;
	*) tag=events.$2 ;;
	esac
	cg_out=$out/callgrind.$tag.out
	log=$out/callgrind.$tag.log
	rm -f "$cg_out"
	if ! valgrind --tool=callgrind --callgrind-out-file="$cg_out" \
		--collect-atstart=no --toggle-collect=bench_cg_region \
		"$1" --callgrind "$2" --events "$cg_events" >"$log" 2>&1; then
		echo "bench.sh: callgrind run of $(basename "$1") '$2' failed:" >&2
		cat "$log" >&2
		return 1
	fi
	# "totals:" (or the older "summary:") is the sum of the collected Ir.
	total=$(awk '/^totals:/ { t = $2 } /^summary:/ { s = $2 }
		END { print (t != "" ? t : s) }' "$cg_out")
	case "$total" in
	'' | *[!0-9]*)
		echo "bench.sh: no instruction total in $cg_out" >&2
		return 1 ;;
	esac
	awk -v t="$total" -v n="$cg_events" 'BEGIN { printf "%.3f", t / n }'
}

# row NAME VALUE UNIT [RATIO]: print a table line and keep the figure.
row() {
	case $3 in
	events) printf '  %-36s %14.0f  %-14s%s\n' "$1" "$2" "$3" "${4:-}" ;;
	*) printf '  %-36s %14.3f  %-14s%s\n' "$1" "$2" "$3" "${4:-}" ;;
	esac
	printf '%s %s %s\n' "$1" "$2" "$3" >>"$rows"
}

# vs_floor VALUE: " RATIO" to the floor's instructions.
vs_floor() {
	awk -v a="$1" -v b="$floor_ir" 'BEGIN { printf " %.2f", a / b }'
}

header() {
	printf '  %-36s %14s  %-14s %s\n' name value unit "x floor"
}

# ---- 1, 2: the ring ----------------------------------------------------------
"$bench" --json "$json"

echo
echo "callgrind: $cg_events events per mode, instructions counted in bench_cg_region()"
header
floor_ir=
for mode in floor discard overwrite tid turns xen-discard; do
	per=$(cg_count "$bench" "$mode")
	case $mode in
	floor)
		floor_ir=$per
		row floor.instructions "$per" instructions/event ;;
	tid)
		# Thread records (what rtr_start() rings write), one thread.
		row ring.tid.1t.instructions "$per" instructions/event "$(vs_floor "$per")" ;;
	turns)
		# The worst case: a thread record before every event.
		row ring.tid.turns.instructions "$per" instructions/event "$(vs_floor "$per")" ;;
	xen-discard)
		# The same fast path, in a Xen guest's granted pages (simulated).
		row xen.sim.instructions "$per" instructions/event "$(vs_floor "$per")" ;;
	*)
		row "ring.$mode.1t.instructions" "$per" instructions/event "$(vs_floor "$per")" ;;
	esac
done

# ---- 3, 4: the task model's calls ------------------------------------------------
echo
"$events" --json "$events_json" || status=$?
if [ ! -s "$events_json" ]; then
	echo "bench.sh: $events wrote no figures" >&2
	exit 1
fi

echo
echo "callgrind: $cg_events calls per figure, instructions counted in bench_cg_region()"
echo "  (tracing on: overwrite mode, the rseq path emulated on CPU 0)"
header
for call in empty_loop disabled switch create read read64 try_read resolve becomes signal \
	should_resolve counter_set label note pause fail typed2x64; do
	per=$(cg_count "$events" "$call")
	row "events.$call.instructions" "$per" instructions/event "$(vs_floor "$per")"
done

# ---- 5: reading a trace: ringtrace dump and babeltrace2 ----------------------------
# best_ns CMD...: the fastest of 3 runs of CMD, output discarded, in ns.
best_ns() {
	best=
	for _ in 1 2 3; do
		t0=$(date +%s%N)
		"$@" >/dev/null || return 1
		t1=$(date +%s%N)
		ns=$((t1 - t0))
		if [ -z "$best" ] || [ "$ns" -lt "$best" ]; then
			best=$ns
		fi
	done
	echo "$best"
}

echo
if ! "$ringtrace" --help 2>/dev/null | grep -qw dump; then
	echo "dump: skipped: ringtrace dump not built"
elif ! command -v babeltrace2 >/dev/null 2>&1; then
	echo "dump: skipped: babeltrace2 is not installed (scripts/deps.sh bench)"
else
	tmp=$(mktemp -d /dev/shm/ringtrace-bench-dump.XXXXXX)
	trap 'rm -rf "$tmp"' EXIT
	trace=$tmp/trace
	trace_ok=0
	if ! made=$("$events" --make-trace "$trace" --events "$trace_requests"); then
		echo "bench.sh: the trace for the readers is not whole: no dump figures" >&2
		trace_ok=1
	else
		echo "dump: $made"
		made=$(echo "$made" | awk '{ print $2 }')
		# babeltrace2 prints the ring's thread records too (one a packet here):
		# the program's events are the others.
		read -r count threads <<-EOF
		$(babeltrace2 "$trace" | awk '/ thread: / { t++ } END { print NR, t + 0 }')
		EOF
		if [ "$((count - threads))" -ne "$made" ]; then
			echo "bench.sh: babeltrace2 reads $((count - threads)) events (and $threads" \
				"thread records), the bench wrote $made: no dump figures" >&2
			trace_ok=1
		fi
		lines=$("$ringtrace" dump "$trace" | wc -l)
		echo "dump: babeltrace2 prints $count lines, ringtrace dump $lines;" \
			"best of 3 runs each, output to /dev/null"
		header
	fi
	if [ "$trace_ok" -ne 0 ]; then
		status=1
	elif bt_ns=$(best_ns babeltrace2 "$trace") &&
		dump_ns=$(best_ns "$ringtrace" dump "$trace"); then
		bt=$(awk -v n="$count" -v t="$bt_ns" 'BEGIN { printf "%.3f", n * 1e3 / t }')
		dump=$(awk -v n="$count" -v t="$dump_ns" 'BEGIN { printf "%.3f", n * 1e3 / t }')
		row dump.events "$count" events
		row babeltrace2.mevents_per_s "$bt" Mevents/s
		row dump.mevents_per_s "$dump" Mevents/s
		row dump.ratio_to_babeltrace2 \
			"$(awk -v a="$dump" -v b="$bt" 'BEGIN { printf "%.3f", a / b }')" \
			"x babeltrace2"
	else
		echo "bench.sh: a reader failed on $trace: no dump figures" >&2
		status=1
	fi
fi

# ---- 5b: reading an LTTng-UST trace: ringtrace dump and babeltrace2 ---------------
echo
lapp=$build/bin/rtr-lttng-app
if ! command -v lttng-sessiond >/dev/null 2>&1 || [ ! -x "$lapp" ] ||
	! command -v babeltrace2 >/dev/null 2>&1; then
	echo "dump.lttng: skipped: lttng-tools, babeltrace2 or rtr-lttng-app missing" \
		"(scripts/deps.sh bench)"
else
	ltmp=$(mktemp -d /dev/shm/ringtrace-bench-lttng.XXXXXX)
	trap 'rm -rf "${tmp:-}" "$ltmp"' EXIT
	if ! ltrace=$(tests/interop/lttng/record.sh "$ltmp" --blocking --subbuf 4M \
		--subbufs 8 -- "$lapp" --bench --events 1600000 --threads 2); then
		echo "bench.sh: recording the LTTng trace failed: no dump.lttng figures" >&2
		status=1
	else
		lcount=$(babeltrace2 "$ltrace" | wc -l)
		lmade=$("$ringtrace" check "$ltrace" | awk '/ packets, .* events, / { print $3 }')
		echo "dump.lttng: LTTng-UST 2.13, $lcount events of rtrtest:request" \
			"(u64, u32, u64, string); best of 3 runs each, output to /dev/null"
		if [ "$lcount" -lt 3000000 ] || [ "$lcount" != "$lmade" ]; then
			echo "bench.sh: babeltrace2 reads $lcount events, ringtrace check $lmade:" \
				"no dump.lttng figures" >&2
			status=1
		elif lbt_ns=$(best_ns babeltrace2 "$ltrace") &&
			ldump_ns=$(best_ns "$ringtrace" dump "$ltrace"); then
			lbt=$(awk -v n="$lcount" -v t="$lbt_ns" 'BEGIN { printf "%.3f", n * 1e3 / t }')
			ldump=$(awk -v n="$lcount" -v t="$ldump_ns" 'BEGIN { printf "%.3f", n * 1e3 / t }')
			header
			row dump.lttng.events "$lcount" events
			row babeltrace2.lttng.mevents_per_s "$lbt" Mevents/s
			row dump.lttng.mevents_per_s "$ldump" Mevents/s
			row dump.lttng.ratio_to_babeltrace2 \
				"$(awk -v a="$ldump" -v b="$lbt" 'BEGIN { printf "%.3f", a / b }')" \
				"x babeltrace2"
		else
			echo "bench.sh: a reader failed on $ltrace: no dump.lttng figures" >&2
			status=1
		fi
	fi
	rm -rf "$ltmp"
fi

# ---- 6: the viewer: a 1M-event trace in headless Chromium --------------------------
echo
views=$build/bin/rtr-viewer-traces
if [ ! -x "$views" ] || ! "$ringtrace" --help 2>/dev/null | grep -qw view; then
	echo "viewer: skipped: ringtrace view or rtr-viewer-traces not built"
else
	vtmp=$(mktemp -d /dev/shm/ringtrace-bench-view.XXXXXX)
	if "$views" --events 1000000 "$vtmp/trace" >/dev/null &&
		"$ringtrace" view -o "$out/viewer.1m.html" --force "$vtmp/trace" >/dev/null &&
		vrows=$(tests/viewer/run.sh "$build" bench "$out/viewer.1m.html"); then
		echo "viewer: $(echo "$vrows" | awk '$1 == "events" { print $2 }') events," \
			"$(echo "$vrows" | awk '$1 == "tasks" { print $2 }') tasks, page of" \
			"$(du -m "$out/viewer.1m.html" | cut -f1) MiB; frames: a scripted zoom and pan, drawn" \
			"and read back"
		header
		row viewer.1m.open_s "$(echo "$vrows" | awk '$1 == "open_s" { print $2 }')" s
		row viewer.1m.frame_ms "$(echo "$vrows" | awk '$1 == "frame_ms" { print $2 }')" "ms (p95)"
		row viewer.1m.frame_max_ms "$(echo "$vrows" | awk '$1 == "frame_max_ms" { print $2 }')" ms
	else
		echo "bench.sh: the viewer benchmark failed" >&2
		status=1
	fi
	# ---- 6a: export: that trace as Trace Event JSON and as Perfetto's protobuf
	if ! scripts/bench-export.sh "$build" "$rows" "$vtmp/trace"; then
		echo "bench.sh: the export benchmark failed" >&2
		status=1
	fi
	# a turn of following a recording of that size (view --serve --follow, gui --follow)
	if ! "$build/bin/ringtrace-view-bench" --trace "$vtmp/trace" --rows "$rows"; then
		echo "bench.sh: the follow-turn benchmark failed" >&2
		status=1
	fi
	rm -rf "$vtmp"
fi

# ---- 6c: the index beside a trace of 100 M events, and slices read through it -----
if ! scripts/bench-index.sh "$build" "$rows"; then
	echo "bench.sh: the index benchmark failed" >&2
	status=1
fi

# ---- 6b: following a recording: the lag of view --serve --follow ---------------------
echo
if ! scripts/bench-live.sh "$build" "$rows"; then
	echo "bench.sh: the live-follow benchmark failed" >&2
	status=1
fi

# ---- 7: the consumer: ringtrace record at full speed ----------------------------
if ! scripts/bench-consumer.sh "$build" "$rows"; then
	echo "bench.sh: the consumer benchmark failed" >&2
	status=1
fi
if ! scripts/bench-relayd.sh "$build" "$rows"; then
	echo "bench.sh: the relayd benchmark failed" >&2
	status=1
fi

# ---- 7b: the viewer's scene: the window query on a model made in memory ----------
# ringtrace-view-bench (bench/bench_view.c): 1 M and 10 M server-like requests.
echo
echo "the viewer's window query (view/scene.h), 1920 px x 64 rows, zoom from the whole trace to 1 us"
for n in 1000000 10000000; do
	if ! "$build/bin/ringtrace-view-bench" --requests "$n" --rows "$rows"; then
		echo "bench.sh: the window query benchmark failed ($n requests)" >&2
		status=1
	fi
done

# ---- 7c: the critical path (`ringtrace why`) on a model made in memory ----------
# ringtrace-why-bench (bench/bench_why.c): 1 M and 10 M server-like requests.
echo
echo "the critical path (reader/critpath.h): the index, the slowest request, 1000 paths"
for n in 1000000 10000000; do
	if ! "$build/bin/ringtrace-why-bench" --requests "$n" --rows "$rows"; then
		echo "bench.sh: the critical path benchmark failed ($n requests)" >&2
		status=1
	fi
done

# ---- 8: a Xen guest and its dom0 consumer (simulated hypervisor) ----------------
if ! scripts/bench-xen.sh "$build" "$rows"; then
	echo "bench.sh: the Xen benchmark failed" >&2
	status=1
fi

# ---- 9: the pthread preload: a plain program's locks, untraced and traced ---------
if ! scripts/bench-pthread.sh "$build" "$rows"; then
	echo "bench.sh: the pthread benchmark failed" >&2
	status=1
fi

# ---- 10: record --sample: a CPU-bound program's cost of 1 kHz samples ------------
if ! scripts/bench-sample.sh "$build" "$rows"; then
	echo "bench.sh: the sampling benchmark failed" >&2
	status=1
fi

# ---- 11: the kernel's view: its cost to a switch-heavy program, its losses ---------
if ! scripts/bench-sched.sh "$build" "$rows"; then
	echo "bench.sh: the sched benchmark failed" >&2
	status=1
fi

# ---- 12: record --trigger: what watching the ring costs the recorder ---------------
if ! scripts/bench-trigger.sh "$build" "$rows"; then
	echo "bench.sh: the trigger benchmark failed" >&2
	status=1
fi

python3 - "$json" "$events_json" "$rows" <<'EOF'
import json
import sys

path, events, rows = sys.argv[1], sys.argv[2], sys.argv[3]
with open(path) as f:
    results = json.load(f)


def put(name, value, unit):
    global results
    results = [r for r in results if r["name"] != name]
    results.append({"name": name, "value": value, "unit": unit})


with open(events) as f:
    for r in json.load(f):
        put(r["name"], r["value"], r["unit"])
with open(rows) as f:
    for line in f:
        name, value, unit = line.split(maxsplit=2)
        put(name, float(value), unit.strip())
with open(path + ".tmp", "w") as f:
    json.dump(results, f, indent=2)
    f.write("\n")
EOF
mv "$json.tmp" "$json"
rm -f "$rows" "$events_json"
echo
echo "results: $json"
exit "$status"
