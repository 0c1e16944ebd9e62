#!/bin/sh
# SPDX-License-Identifier: MIT
# Run a test pass of 'make check' and tally it.
#   scripts/run-tests.sh TALLY LABEL RUNNER [args...]
# Criterion runners print their own synthesis (the other suites' scripts
# print one like it); their counts are added to TALLY, which 'make check'
# prints as its closing line.  A plain program or script counts 1 passed or
# 1 failed: passed on the stress harness's "verified every event", or on a
# script's exit 0 with a line "ok: ..." and no sanitizer's report.
set -u
tally=$1; label=$2; shift 2
echo "  TEST    $label"
here=$(cd "$(dirname "$0")/.." && pwd)
# Tests find their helper scripts (tests/interop/*.py) from here.
export RTR_SRCDIR="$here"
# Leaks are errors, except the one allocation Criterion's runner keeps.
export LSAN_OPTIONS="suppressions=$here/tests/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export ASAN_OPTIONS="abort_on_error=0:detect_leaks=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1${TSAN_OPTIONS:+:$TSAN_OPTIONS}"
out=$(mktemp)
trap 'rm -f "$out" "$out.rc"' EXIT
case "$1" in
*run_tests)
	# Criterion runs each test in its own process; one job per core.
	jobs=$(nproc 2>/dev/null || echo 2)
	if [ "${V:-0}" = 1 ]; then
		"$@" --jobs="$jobs" --verbose
	else
		"$@" --jobs="$jobs"
	fi 2>&1 | tee "$out"
	;;
*)
	{ "$@"; echo $? >"$out.rc"; } 2>&1 | tee "$out"
	;;
esac
# POSIX sh has no pipefail: take the runner's status from a second look.
syn=$(grep -a 'Synthesis:' "$out" | tail -n 1)
if [ -n "$syn" ]; then
	p=$(echo "$syn" | sed -n 's/.*Passing: \([0-9]*\).*/\1/p')
	f=$(echo "$syn" | sed -n 's/.*Failing: \([0-9]*\).*/\1/p')
	c=$(echo "$syn" | sed -n 's/.*Crashing: \([0-9]*\).*/\1/p')
	f=$((f + c))
elif grep -aq 'verified        every event' "$out" && ! grep -aq 'FAILED\|ThreadSanitizer\|ERROR:' "$out"; then
	p=1 f=0
elif [ "$(cat "$out.rc" 2>/dev/null)" = 0 ] && grep -aq '^ok: ' "$out" &&
	! grep -aq 'WARNING: ThreadSanitizer\|ERROR: ' "$out"; then
	# a script of checks: exit 0, a closing "ok: ..." line, no sanitizer's report
	p=1 f=0
else
	p=0 f=1
fi
[ -n "$tally" ] && echo "$p $f" >> "$tally"
[ "$f" -eq 0 ] && [ "$p" -gt 0 ]
