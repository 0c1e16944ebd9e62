#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/tools/tsan_diff.sh O: `ringtrace diff` under ThreadSanitizer
# (O/tsan/bin/ringtrace), which loads its two traces in two threads: two
# recordings of the viewer benchmark's event loop (counters, arrows, runs),
# then, where perf events are allowed, two of a --pthread program (the
# kernel's records, thread names, lock waits).  Passes when every diff exits
# 0, prints its comparison and TSan finds nothing (halt_on_error: any
# report makes the status non-zero).
set -eu
o=$1
tsan=$o/tsan/bin/ringtrace
d=$(mktemp -d /tmp/ringtrace-tsan-diff.XXXXXX)
trap 'rm -rf "$d"' EXIT
export TSAN_OPTIONS="halt_on_error=1${TSAN_OPTIONS:+:$TSAN_OPTIONS}"

# one A B: diff --json of A and B under TSan; the JSON names kinds on both sides
one() {
	"$tsan" diff --json "$1" "$2" >"$d/out.json"
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["kinds"], "no kinds compared"
print("  %d kinds, %d groups compared" % (len(d["kinds"]), len(d["groups"])))' "$d/out.json"
}

"$o/bin/rtr-viewer-traces" --events 300000 "$d/a" >/dev/null
"$o/bin/rtr-viewer-traces" --events 200000 "$d/b" >/dev/null
one "$d/a" "$d/b"
if "$o/bin/ringtrace" record -q --pthread -o "$d/s1" -- "$o/bin/rtr-sched-prog" contend 4 \
	>/dev/null 2>"$d/err" &&
	"$o/bin/ringtrace" record -q --pthread -o "$d/s2" -- "$o/bin/rtr-sched-prog" contend 6 \
	>/dev/null 2>>"$d/err"; then
	one "$d/s1" "$d/s2"
	what="the viewer's event loop and a --pthread program"
else
	echo "  --pthread recordings failed, compared the viewer's only:"
	cat "$d/err"
	what="the viewer's event loop"
fi
echo "ok: ringtrace diff under TSan ($what)"
