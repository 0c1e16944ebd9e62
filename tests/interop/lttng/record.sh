#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/interop/lttng/record.sh - record an LTTng-UST trace of a program, in
# a session daemon of its own that nothing else shares:
#   record.sh DIR [--subbuf SIZE] [--subbufs N] [--overwrite | --snapshot |
#             --blocking] [--context] [--live URL] -- PROGRAM [ARGS]
# writes the session into DIR/session and prints the CTF trace directory
# (the one holding "metadata").  --live URL: a live session (a 100 ms live
# timer) streamed to the lttng-relayd at URL (net://HOST:CTRL:DATA), named
# "rec" under the host's name; nothing is written locally, nothing printed.  --snapshot: a flight recorder's session
# (overwrite mode), whose trace is the snapshot taken when PROGRAM ends.
# --blocking: the program waits for room instead of discarding (every event
# recorded: the benchmark's trace).  The daemon runs with LTTNG_HOME=DIR, as
# the user "nobody" when we are root (root's daemon would be the machine's),
# and is stopped by its PID at the end, whatever happens; every step has a
# hard timeout.  Exit status: 0, or 1 with the reason on stderr.
set -eu
if [ $# -lt 3 ]; then
	echo "usage: record.sh DIR [OPTIONS] -- PROGRAM [ARGS]" >&2
	exit 2
fi
dir=$(cd "$1" && pwd)
shift
subbuf=1M
nsubbuf=4
mode=--discard
context=
snapshot=
blocking=
live=
while [ $# -gt 0 ]; do
	case "$1" in
	--subbuf) subbuf=$2; shift 2 ;;
	--subbufs) nsubbuf=$2; shift 2 ;;
	--overwrite) mode=--overwrite; shift ;;
	--snapshot) mode=--overwrite; snapshot=--snapshot; shift ;;
	--blocking) blocking=--blocking-timeout=inf; shift ;;
	--context) context=1; shift ;;
	--live) live=$2; shift 2 ;;
	--) shift; break ;;
	*) echo "record.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
for t in lttng lttng-sessiond; do
	command -v $t >/dev/null 2>&1 || {
		echo "record.sh: $t is not installed (Debian: lttng-tools)" >&2
		exit 1
	}
done

# As whom: ourselves, or nobody when we are root.
as=
if [ "$(id -u)" -eq 0 ]; then
	as="setpriv --reuid=nobody --regid=nogroup --clear-groups"
	chmod 0777 "$dir"
fi
run() {
	# shellcheck disable=SC2086
	timeout -k 5 "$@"
}
export LTTNG_HOME="$dir"
pidfile=$dir/.lttng/lttng-sessiond.pid
cleanup() {
	if [ -f "$pidfile" ]; then
		pid=$(cat "$pidfile" 2>/dev/null || true)
		if [ -n "$pid" ]; then
			kill "$pid" 2>/dev/null || true
			for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
				kill -0 "$pid" 2>/dev/null || break
				sleep 0.25
			done
			kill -9 "$pid" 2>/dev/null || true
		fi
	fi
}
trap cleanup EXIT
# shellcheck disable=SC2086
run 30 $as lttng-sessiond --daemonize --no-kernel >"$dir/sessiond.log" 2>&1 || {
	echo "record.sh: lttng-sessiond did not start:" >&2
	cat "$dir/sessiond.log" >&2
	exit 1
}
lt() {
	# shellcheck disable=SC2086
	run 30 $as lttng "$@" >>"$dir/lttng.log" 2>&1 || {
		echo "record.sh: lttng $*: failed:" >&2
		tail -5 "$dir/lttng.log" >&2
		exit 1
	}
}
if [ -n "$live" ]; then
	lt create rec --live=100000 --set-url="$live"
else
	lt create rec $snapshot --output="$dir/session"
fi
lt enable-channel -u chan --subbuf-size="$subbuf" --num-subbuf="$nsubbuf" $mode $blocking
lt enable-event -u -c chan 'rtrtest:*'
if [ -n "$context" ]; then
	lt add-context -u -c chan -t vpid -t vtid -t procname
fi
lt start
# shellcheck disable=SC2086
[ -n "$blocking" ] && export LTTNG_UST_ALLOW_BLOCKING=1
run 120 $as "$@" >"$dir/app.log" 2>&1 || {
	echo "record.sh: $*: failed:" >&2
	tail -5 "$dir/app.log" >&2
	exit 1
}
if [ -n "$snapshot" ]; then
	lt snapshot record
fi
lt stop
lt destroy
[ -z "$live" ] || exit 0
trace=$(find "$dir/session" -name metadata -type f | head -1)
[ -n "$trace" ] || { echo "record.sh: no trace was written" >&2; exit 1; }
dirname "$trace"
