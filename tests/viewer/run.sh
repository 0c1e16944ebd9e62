#!/bin/sh
# SPDX-License-Identifier: MIT
# The viewer's render tests in headless Chromium (make check), or its
# frame-time benchmark (make bench):
#   tests/viewer/run.sh BUILD_DIR            tests; artefacts in BUILD_DIR/viewer-tests/
#   tests/viewer/run.sh BUILD_DIR bench DIR  open_s and frame_ms of the trace DIR
#   tests/viewer/run.sh BUILD_DIR serve-bench TRACE  the same through view --serve
# playwright-core comes from npm (package-lock.json) into tests/viewer/node_modules;
# the browser is Debian's /usr/bin/chromium (scripts/deps.sh).
set -eu
build=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -x /usr/bin/chromium ]; then
	echo "viewer tests: /usr/bin/chromium is missing (scripts/deps.sh viewer, as root)" >&2
	exit 1
fi
if [ ! -f "$here/node_modules/playwright-core/package.json" ] ||
	[ "$here/package-lock.json" -nt "$here/node_modules/.package-lock.json" ]; then
	(cd "$here" && npm ci --no-audit --no-fund --loglevel=error) >&2
fi
if [ "${1:-}" = bench ]; then
	exec node "$here/bench.mjs" "$build" "$2"
fi
if [ "${1:-}" = serve-bench ]; then
	exec node "$here/serve_bench.mjs" "$build" "$2"
fi
exec node "$here/run.mjs" "$build"
