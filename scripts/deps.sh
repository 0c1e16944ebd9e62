#!/bin/sh
# SPDX-License-Identifier: MIT
# Install (as root, with apt-get) or name the Debian packages a job needs.
#   scripts/deps.sh build|check|bench|docs|man|viewer|xen
# man (make man, make install): Sphinx, whose man builder writes the pages
# from Documentation/; check installs with them (tests/install/).
# viewer (make check's render tests; make bench too): Debian's chromium and
# node; npm as well unless the installed nodejs brings its own.
# build: cairo (the renderer, view/render.c) and GTK 4 (`ringtrace gui`).
# build: protobuf-c and its compiler, zlib (`export --format perfetto`); check: protoc, which
# decodes the exported file (tests/tools/check_perfetto.py).
# check: xvfb and xdotool (the window's tests, real input), poppler-utils and libxml2-utils (the
# exported PDF and SVG checked).
# check and bench: LTTng (lttng-tools, liblttng-ust-dev), whose traces the
# interop tests and the benchmark record and read; check: clang, for the
# header matrix (tests/headers/run.sh compiles each header with gcc and clang); zstd, a
# Debian program tests/pthread traces (xz-utils, which build has, is another).
# xen (make check's real-Xen test bed, scripts/xen/): QEMU, cpio, and the Xen
# libraries' headers; Xen and the kernel themselves are downloaded into the
# build tree, never installed.
set -eu
job=${1:-build}
pkgs="gcc g++ make pkg-config liburcu-dev liburing-dev libcriterion-dev libmicrohttpd-dev libsqlite3-dev libprotobuf-c-dev protobuf-c-compiler zlib1g-dev libdw-dev libcairo2-dev libgtk-4-dev babeltrace2 python3-bt2 libxen-dev xz-utils"
case "$job" in
build) ;;
check) pkgs="$pkgs protobuf-compiler lttng-tools liblttng-ust-dev python3-sphinx clang xvfb xauth xdotool poppler-utils libxml2-utils zstd" ;;
bench) pkgs="$pkgs valgrind chromium nodejs lttng-tools liblttng-ust-dev time" ;;
docs | man) pkgs="$pkgs python3-sphinx" ;;
viewer) pkgs="$pkgs chromium nodejs" ;;
xen) pkgs="$pkgs qemu-system-x86 cpio libxen-dev binutils" ;;
*) echo "deps.sh: unknown job '$job' (build, check, bench, docs, man, viewer or xen)" >&2; exit 2 ;;
esac
case "$job" in
bench | viewer) command -v npm >/dev/null 2>&1 || pkgs="$pkgs npm" ;;
esac

missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "  DEPS    installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >/dev/null ||
		{ echo "deps.sh: apt-get update failed" >&2; exit 1; }
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null ||
		{ echo "deps.sh: apt-get install failed for:$missing" >&2; exit 1; }
	exit 0
fi
echo "ringtrace needs these Debian packages, which are not installed:$missing" >&2
echo "run as root:  apt-get install$missing" >&2
exit 1
