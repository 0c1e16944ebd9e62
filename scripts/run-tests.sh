#!/bin/sh
# SPDX-License-Identifier: MIT
# Run the Criterion test runner with a label, so the three passes of
# 'make check' (plain, ASan+UBSan, TSan) are told apart in the log.
#   scripts/run-tests.sh RUNNER LABEL [criterion args...]
set -eu
runner=$1; label=$2; shift 2
echo "  TEST    $label"
jobs=$(nproc 2>/dev/null || echo 2)
[ "${V:-0}" = 1 ] && set -- --verbose "$@"
# Criterion runs each test in its own process; two at a time fits this
# project's 2-core machines without starving the stress tests.
exec "$runner" --jobs="$jobs" "$@"
