#!/bin/sh
# SPDX-License-Identifier: MIT
# The ABI test (make check): what the shared libraries export is the
# documented API, and nothing else.
#   tests/install/abi.sh BUILD_DIR
# For libringtrace.so (headers ringtrace.h, event.h) and
# libringtrace-consumer.so (consumer.h):
#   - every symbol it exports (nm -D --defined-only) is declared by those
#     headers: a C file that takes its address compiles against include/
#     alone (a private function, rtr_ring_* or a bench hook, does not);
#   - every function those headers declare (not inline; gcc -aux-info) is
#     exported: one added to a header and not to the version script is not;
#   - its version script names each symbol, without wildcards, and every
#     name it lists is exported;
# and every function the API's pages document (.. c:function:: in the
# Documentation/ pages that make man turns into section 3, conf.py's
# man_pages: events.rst, consumer.rst) is exported by one of them, or
# defined inline in a public header.  The other pages document internals
# too (ringbuf.rst: ring.h, not installed).
# Prints one line per check and a Criterion-like synthesis for the tally.
set -u
build=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
cc=${CC:-gcc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

ok() { pass=$((pass + 1)); echo "  ok    $*"; }
bad() { fail=$((fail + 1)); echo "  FAIL  $*"; }

# exports LIB: the names LIB exports (version nodes, type A, left out).
exports() {
	nm -D --defined-only "$1" | awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }' | sort -u
}

# declared NAME HEADER...: the headers declare NAME (a function or a variable).
declared() {
	name=$1
	shift
	{
		for h in "$@"; do
			echo "#include <ringtrace/$h>"
		done
		echo "void *rtr_abi_test(void);"
		echo "void *rtr_abi_test(void) { return (void *)&$name; }"
	} > "$tmp/decl.c"
	$cc -std=gnu11 -Wall -Werror -I"$src/include" -c -o "$tmp/decl.o" "$tmp/decl.c" 2> "$tmp/decl.err"
}

# header_functions HEADER...: the functions the headers declare extern (not
# the inline ones), as gcc sees them.
header_functions() {
	{
		for h in "$@"; do
			echo "#include <ringtrace/$h>"
		done
	} > "$tmp/aux.c"
	$cc -std=gnu11 -I"$src/include" -aux-info "$tmp/aux.txt" -c -o "$tmp/aux.o" "$tmp/aux.c" ||
		return 1
	for h in "$@"; do
		sed -n "s,^/\* .*/ringtrace/$h:[0-9]*:[A-Z]* \*/ extern .*[ *]\([A-Za-z_][A-Za-z_0-9]*\) (.*,\1,p" \
			"$tmp/aux.txt"
	done | sort -u
}

# map_names MAP: the global names of a version script.
map_names() {
	sed -e 's,/\*.*\*/,,' "$1" | awk '/global:/ { g = 1; next } /local:/ { g = 0 }
		g { gsub(/[ \t;]/, ""); if ($0 != "") print }'
}

# check_lib LIB MAP HEADER...
check_lib() {
	lib=$1 map=$2
	shift 2
	libname=$(basename "$lib")
	if [ ! -f "$lib" ]; then
		bad "$libname: not built"
		return
	fi
	exports "$lib" > "$tmp/exports"
	if [ ! -s "$tmp/exports" ]; then
		bad "$libname: exports nothing"
		return
	fi
	while read -r sym; do
		if declared "$sym" "$@"; then
			ok "$libname exports $sym, declared in $*"
		else
			bad "$libname exports $sym, which $* do not declare (private? drop it from $(basename "$map"))"
		fi
	done < "$tmp/exports"
	if ! header_functions "$@" > "$tmp/functions" || [ ! -s "$tmp/functions" ]; then
		bad "$*: no function declarations found (gcc -aux-info)"
	fi
	while read -r fn; do
		if grep -qx "$fn" "$tmp/exports"; then
			ok "$* declare $fn, which $libname exports"
		else
			bad "$* declare $fn, which $libname does not export (add it to $(basename "$map"))"
		fi
	done < "$tmp/functions"
	if map_names "$map" | grep -q '[*?]'; then
		bad "$(basename "$map") has a wildcard: $(map_names "$map" | grep '[*?]' | tr '\n' ' ')"
	else
		ok "$(basename "$map") names every symbol, no wildcard"
	fi
	for n in $(map_names "$map"); do
		grep -qx "$n" "$tmp/exports" || bad "$(basename "$map") lists $n, which $libname does not export"
	done
	cat "$tmp/exports" >> "$tmp/all-exports"
}

: > "$tmp/all-exports"
check_lib "$build/lib/libringtrace.so" "$src/libringtrace.map" ringtrace.h event.h
check_lib "$build/lib/libringtrace-consumer.so" "$src/libringtrace-consumer.map" consumer.h

# The check itself finds an undeclared symbol: the ring's own create is private.
if declared rtr_ring_create ringtrace.h event.h consumer.h; then
	bad "the declaration check passes rtr_ring_create, which no public header declares"
else
	ok "the declaration check rejects rtr_ring_create (private)"
fi

# Each function the section-3 pages document is exported, or inline in a public header.
pages=$(cd "$src/Documentation" && python3 -c \
	'exec(open("conf.py").read()); print(" ".join(p[0] + ".rst" for p in man_pages if p[4] == 3))')
[ -n "$pages" ] || bad "Documentation/conf.py names no section-3 man page"
ndoc=0
# shellcheck disable=SC2086 # $pages: one word per page
for fn in $(cd "$src/Documentation" && sed -n 's/^\.\. c:function:: \(.*\)$/\1/p' $pages |
	    sed 's/(.*//; s/.*[ *]//' | sort -u); do
	ndoc=$((ndoc + 1))
	if grep -qx "$fn" "$tmp/all-exports"; then
		ok "documented $fn is exported"
	elif grep -Eq "static inline .*[ *]$fn\(" "$src"/include/ringtrace/*.h; then
		ok "documented $fn is inline in a public header"
	else
		bad "documented $fn is neither exported nor inline in a public header"
	fi
done
[ "$ndoc" -gt 0 ] || bad "no .. c:function:: found in Documentation/: $pages"

echo "[====] Synthesis: Tested: $((pass + fail)) | Passing: $pass | Failing: $fail | Crashing: 0"
[ "$fail" -eq 0 ]
