#!/bin/sh
# SPDX-License-Identifier: MIT
# make demo: the README's tutorial, end to end, in under a minute.
#   scripts/demo.sh BUILD_DIR
# 1. ringtrace-server (examples/server) under 1000 requests of
#    ringtrace-loadgen, recorded with --pthread: its threads and locks, and
#    the tasks of its own promise layer, in one trace;
# 2. the seeds' bug hunt: ringtrace-arp (examples/arp) in the usual order,
#    in the racy order (it hangs; it gives up after 50 ms, so that the three runs share the page) and fixed;
# 3. the pages: the server's, and the three ARP runs aligned in one page;
#    the server's trace exported for Perfetto;
# 4. a report: events recorded and lost, what an event costs here, where
#    the pages are, and which task of the bad run never resolved and what
#    it waited for, as `ringtrace stats --hangs` reads it from the trace;
#    its critical path (`ringtrace why`) and the good and bad runs compared
#    (`ringtrace diff`), which names the lost wake-up.
# Everything stays in BUILD_DIR/demo/.  The ring's stress figures are in
# `make bench` and `make stress`.
set -eu
build=$1
bin=$build/bin
out=$build/demo
t_begin=$(date +%s%N)

for p in ringtrace ringtrace-server ringtrace-loadgen ringtrace-arp ringtrace-bench; do
	if [ ! -x "$bin/$p" ]; then
		echo "demo: $bin/$p is not built (make all)" >&2
		exit 1
	fi
done
rm -rf "$out"
mkdir -p "$out"
here=$(cd "$out" && pwd)
ringtrace=$bin/ringtrace

say() {
	printf '\n== %s\n' "$*"
}
show() {
	printf '$ %s\n' "$*" | sed "s|$bin/||g; s|$here|demo|g"
}

# ---- 1. the server ---------------------------------------------------------------------
say "1. A server under load, recorded with its threads (--pthread) and its own tasks"
show "ringtrace record --pthread -o $here/server -- ringtrace-server --port-file $here/port &"
timeout -s KILL 60 "$ringtrace" record --pthread -o "$out/server" -- \
	"$bin/ringtrace-server" --port-file "$out/port" >"$out/server.log" 2>&1 &
recorder=$!
i=0
while [ ! -s "$out/port" ]; do
	i=$((i + 1))
	if [ "$i" -gt 400 ] || ! kill -0 "$recorder" 2>/dev/null; then
		echo "demo: the server did not start:" >&2
		cat "$out/server.log" >&2
		kill "$recorder" 2>/dev/null || true
		exit 1
	fi
	sleep 0.05
done
port=$(cat "$out/port")
show "ringtrace-loadgen --port $port --requests 1000 --connections 4 --quit"
timeout -s KILL 60 "$bin/ringtrace-loadgen" --port "$port" --requests 1000 --connections 4 \
	--rounds 2000-20000 --quit
if ! wait "$recorder"; then
	echo "demo: recording the server failed:" >&2
	cat "$out/server.log" >&2
	exit 1
fi
grep -v '^ \|^ringtrace record: .* -> ' "$out/server.log" | sed "s|$bin/||g; s|$here|demo|g"

# ---- 2. the bug hunt -----------------------------------------------------------------
say "2. The bug hunt (the seeds' ARP race): the usual order, the race, the fix"
arp() {
	name=$1
	shift
	show "ringtrace record -q -o $here/$name -- ringtrace-arp $*"
	status=0
	timeout -s KILL 30 "$ringtrace" record -q -o "$out/$name" -- "$bin/ringtrace-arp" "$@" ||
		status=$?
	return "$status"
}
arp good
if arp bad --race --timeout 50; then
	echo "demo: ringtrace-arp --race did not hang" >&2
	exit 1
fi
arp fixed --race --fixed

# ---- 3. the pages, and Perfetto's file -----------------------------------------------------
say "3. The pages"
show "ringtrace view -o $here/server.html $here/server"
"$ringtrace" view -o "$out/server.html" "$out/server" >/dev/null
show "ringtrace view --align start -o $here/arp.html $here/good $here/bad $here/fixed"
"$ringtrace" view --align start -o "$out/arp.html" "$out/good" "$out/bad" "$out/fixed" >/dev/null
show "ringtrace view --format png -o $here/bad.png $here/bad"
"$ringtrace" view --format png -o "$out/bad.png" "$out/bad" >/dev/null
show "ringtrace export --format chrome -o $here/server.json $here/server"
"$ringtrace" export --format chrome -o "$out/server.json" "$out/server"
show "ringtrace export --format perfetto -o $here/server.pftrace.gz $here/server"
"$ringtrace" export --format perfetto -o "$out/server.pftrace.gz" "$out/server"

# ---- 4. the report ----------------------------------------------------------------------
say "4. What the traces say"
show "ringtrace stats --hangs $here/bad"
"$ringtrace" stats --hangs "$out/bad" | tee "$out/hangs.txt"
show "ringtrace why --depth 2 $here/bad 'TCP connect'"
"$ringtrace" why --depth 2 "$out/bad" 'TCP connect' | tee "$out/why.txt"
show "ringtrace diff $here/good $here/bad"
"$ringtrace" diff "$out/good" "$out/bad" | sed -n '/^the group that changed most/,$p' | tee "$out/diff.txt"

# events and losses of every trace, from `ringtrace check`
events=0 lost=0
for t in server good bad fixed; do
	line=$("$ringtrace" check "$out/$t" | grep ' events lost, ')
	e=$(echo "$line" | sed -n 's/.*packets, \([0-9]*\) events, .*/\1/p')
	l=$(echo "$line" | sed -n 's/.* \([0-9]*\) events lost, .*/\1/p')
	events=$((events + e))
	lost=$((lost + l))
done
server_events=$("$ringtrace" check "$out/server" | sed -n 's/.*packets, \([0-9]*\) events, .*/\1/p')

# what an event costs here: the ring's write against the floor (a clock read
# and a store), best of 3 runs of 2 million events, in this process
cost=$("$bin/ringtrace-bench" -n 2000000 -r 3 2>/dev/null)
ns=$(echo "$cost" | awk '$1 == "ring.discard.1t.ns" { print $2 }')
floor=$(echo "$cost" | awk '$1 == "floor.ns" { print $2 }')
t_end=$(date +%s%N)

say "Report"
echo "  events recorded: $events in 4 traces ($server_events of the server's 1000 requests), lost: $lost"
echo "  an event costs ${ns:-?} ns here, as record writes it (discard mode); the floor, a clock"
echo "    read and a store, ${floor:-?} ns on this machine now ($(echo "$cost" | awk '$1 == "ring.discard.1t.ratio_to_floor" { print $2 }') x)"
echo "  the server's page:        file://$here/server.html"
echo "  the bug hunt, aligned:    file://$here/arp.html   (good, bad, fixed, one above the other)"
echo "  for Perfetto:             $here/server.pftrace.gz   (ui.perfetto.dev, Open trace file;"
echo "                            server.json beside it is the same as Trace Event JSON)"
echo "  the bad run, a picture:   $here/bad.png   (ringtrace view --format png|svg|pdf: no display needed)"
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
	echo "  in a window:              $(cd "$bin" && pwd)/ringtrace gui --align start $here/good $here/bad $here/fixed"
else
	echo "  in a window, on a display: ringtrace gui --align start $here/good $here/bad $here/fixed"
fi
sed -n 's/^  "\(.*\)" (task \([0-9]*\), \(.*\)), created at .*/  the bad run: "\1" (task \2) never resolved;/p' "$out/hangs.txt"
sed -n 's/^    which waits for "\(.*\)" (task \([0-9]*\), \(.*\)) since \(.*\)/    it waited, through the chain above, for "\1" (task \2, a \3) since \4;/p' "$out/hangs.txt" | tail -n 1
if grep -q 'a lost wake-up' "$out/hangs.txt"; then
	sed -n 's/^    the last signal: at \(.*\), by "\(.*\)" (task .*/    its one signal came at \1 from "\2", before that wait began: a lost wake-up/p' \
		"$out/hangs.txt"
fi
echo "  demo took $(( (t_end - t_begin) / 1000000 )) ms"
