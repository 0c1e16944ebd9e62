#!/bin/sh
# SPDX-License-Identifier: MIT
# The header matrix (make check): in every mode below, gcc's and clang's C
# and C++ standards with -Wall -Wextra -Werror (and -pedantic where the
# standard is strict), one test each for
#   - each public header (include/ringtrace/*.h) compiled alone;
#   - all of them together;
#   - tests/headers/use_api.c, which calls the API (tasks, counters, typed
#     events with fields out of order), compiled -O2, linked with
#     BUILD_DIR/lib/libringtrace.a, run under RINGTRACE_PATH, its trace
#     converted and dumped: the events must be use_api.expected's;
#   - the same with -DRINGTRACE_DISABLE, linked without the library (it
#     must reference none of it), untraced.
#   tests/headers/run.sh BUILD_DIR      V=1 names every passing test too
# Prints a Criterion-style synthesis, which scripts/run-tests.sh tallies.
set -u
build=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
here=$src/tests/headers
rt=$build/bin/ringtrace
work=$(mktemp -d /tmp/rtr-headers-XXXXXX)
trap 'rm -rf "$work"' EXIT
pass=0 fail=0

# MODE CC LANG __STDC_VERSION__/__cplusplus FLAGS
modes="c99       gcc     c   199901 -std=c99 -pedantic
c11       gcc     c   201112 -std=c11 -pedantic
gnu11     gcc     c   201112 -std=gnu11
c++11     g++     c++ 201103 -std=c++11 -pedantic
c++17     g++     c++ 201703 -std=c++17 -pedantic
c++20     g++     c++ 202002 -std=c++20 -pedantic
clang-c99 clang   c   199901 -std=c99 -pedantic
clang-c11 clang   c   201112 -std=c11 -pedantic
clang-gnu11 clang c   201112 -std=gnu11
clang-c++11 clang++ c++ 201103 -std=c++11 -pedantic
clang-c++17 clang++ c++ 201703 -std=c++17 -pedantic
clang-c++20 clang++ c++ 202002 -std=c++20 -pedantic"
warn="-Wall -Wextra -Werror"
libs="-lurcu-bp -lpthread -ldl"

# check NAME CMD...: one test, passed when CMD exits 0; its output shown if not.
check() {
	name=$1
	shift
	if "$@" >"$work/out" 2>&1; then
		pass=$((pass + 1))
		[ "${V:-0}" = 1 ] && echo "[PASS] headers::$name"
	else
		fail=$((fail + 1))
		echo "[FAIL] headers::$name"
		head -n 40 "$work/out" | sed 's/^/    /'
	fi
	return 0
}

# compile_stdin CC LANG FLAGS: the text on stdin, syntax only.
compile_stdin() {
	# shellcheck disable=SC2086
	$1 -x "$2" $3 $warn -I"$src/include" -fsyntax-only -
}

# traced MODE CC LANG STD FLAGS: build use_api, run it traced, compare its events.
traced() {
	exe=$work/$1.exe
	# shellcheck disable=SC2086
	$2 -x "$3" $5 $warn -O2 -I"$src/include" "$here/use_api.c" -x none \
		"$build/lib/libringtrace.a" $libs -o "$exe" || return 1
	rm -rf "$work/$1.region" "$work/$1.trace"
	out=$(RINGTRACE_PATH=$work/$1.region "$exe" "$1" </dev/null) || return 1
	[ "$out" = "traced 1" ] || { echo "use_api printed '$out', not 'traced 1'"; return 1; }
	"$rt" convert "$work/$1.region" -o "$work/$1.trace" </dev/null >/dev/null || return 1
	"$rt" dump "$work/$1.trace" </dev/null 2>/dev/null |
		sed 's/^\[[^]]*\] ([^)]*) [^ ]* cpu [0-9]* //' >"$work/$1.raw" || return 1
	# One thread wrote it all: every event is its pid's and tid's (the ring's
	# thread records say whose), and they are the program's own event classes.
	awk '$1 != "pid" || $3 != "tid" || $2 != $4 || (NR > 1 && $2 != p) { bad = 1 } { p = $2 }
	     END { exit bad || NR == 0 }' "$work/$1.raw" ||
		{ echo "events not all attributed to the one thread of use_api:"; head -n 3 "$work/$1.raw"
		  return 1; }
	sed 's/^pid [0-9]* tid [0-9]* //' "$work/$1.raw" | grep -v '^thread: ' >"$work/$1.got"
	sed -e "s/@MODE@/$1/g" -e "s/@LANG@/$3/g" -e "s/@STD@/$4/g" "$here/use_api.expected" \
		>"$work/$1.want"
	diff -u "$work/$1.want" "$work/$1.got"
}

# disabled MODE CC LANG FLAGS: with -DRINGTRACE_DISABLE, no library, untraced.
disabled() {
	exe=$work/$1.off
	# shellcheck disable=SC2086
	$2 -x "$3" $4 $warn -O2 -DRINGTRACE_DISABLE -I"$src/include" "$here/use_api.c" \
		-o "$exe" || return 1
	out=$(RINGTRACE_PATH=$work/$1.off-region "$exe" "$1" </dev/null) || return 1
	[ "$out" = "traced 0" ] || { echo "use_api printed '$out', not 'traced 0'"; return 1; }
}

for f in "$build/lib/libringtrace.a" "$rt"; do
	[ -e "$f" ] || { echo "headers: $f is missing (make all first)" >&2; exit 1; }
done
headers=$(cd "$src/include" && ls ringtrace/*.h)
all=$(for h in $headers; do echo "#include <$h>"; done)

echo "$modes" | while read -r mode cc lang std flags; do
	if ! command -v "$cc" >/dev/null 2>&1; then
		echo "[FAIL] headers::$mode: $cc is not installed (scripts/deps.sh check, as root)"
		echo "0 1" >>"$work/tally"
		continue
	fi
	for h in $headers; do
		echo "#include <$h>" >"$work/one.h"
		check "$mode: $h alone" compile_stdin "$cc" "$lang" "$flags" <"$work/one.h"
	done
	echo "$all" >"$work/all.h"
	check "$mode: all headers" compile_stdin "$cc" "$lang" "$flags" <"$work/all.h"
	check "$mode: use_api traced" traced "$mode" "$cc" "$lang" "$std" "$flags"
	check "$mode: use_api with RINGTRACE_DISABLE" disabled "$mode" "$cc" "$lang" "$flags"
	echo "$pass $fail" >>"$work/tally"
	pass=0 fail=0
done
# The loop ran in a subshell (a pipe): add up what it wrote.
pass=$(awk '{p += $1} END {print p + 0}' "$work/tally")
fail=$(awk '{f += $2} END {print f + 0}' "$work/tally")
echo "[====] Synthesis: Tested: $((pass + fail)) | Passing: $pass | Failing: $fail | Crashing: 0"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
