#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
#
# Healthy-QP throughput with and without a garbage flood on the same port
# (soft provider, in one process): prints both figures and the ratio.
#
#   bench/flood.sh [builddir] [seconds per run] [garbage frames per step]

set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
[ -f "$build/build.ninja" ] || meson setup "$build" "$top" >/dev/null
ninja -C "$build" tests/exhaustion/prdma-flood-bench >/dev/null
PRDMA_TEST_EAL_ARGS=${PRDMA_TEST_EAL_ARGS:-"--no-huge -m 1024 --no-shconf --no-pci -l 0 --log-level=*:error"} \
	"$build/tests/exhaustion/prdma-flood-bench" "${2:-3}" "${3:-32}"
# Without a third argument, also show how the ratio falls once the garbage
# outruns one receive burst per engine step (the CPU pays an ICRC per frame).
if [ -z "${3:-}" ]; then
	PRDMA_TEST_EAL_ARGS=${PRDMA_TEST_EAL_ARGS:-"--no-huge -m 1024 --no-shconf --no-pci -l 0 --log-level=*:error"} \
		"$build/tests/exhaustion/prdma-flood-bench" "${2:-3}" 128 | tail -n 1 |
		sed 's/^/4 bursts of garbage per step: /'
fi
