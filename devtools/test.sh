#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
#
# Install, build and run every test suite: the release build with all suites,
# then an ASan+UBSan build with the unit and conformance suites, then a
# clang build (warnings as errors). Ends with the summary line
# "N passed, N failed" summed from meson test's own summaries.

. "$(dirname "$0")/common.sh"

prdma_install
prdma_hugepages

log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT
status=0

# run_suite <name> <builddir> [meson test args...]
run_suite() {
	local name=$1 dir=$2
	shift 2
	say "meson test ($name)"
	if meson test -C "$dir" --print-errorlogs "$@" > "$log/$name.out" 2>&1; then
		:
	else
		status=1
	fi
	sed -n '/^Summary of Failures/,$p;/^Ok:/,/^Timeout:/p' "$log/$name.out" | sort -u |
		grep -v '^$' || true
	grep -E '^ *[0-9]+/[0-9]+ ' "$log/$name.out" | grep -vE ' OK | SKIP ' || true
}

prdma_build "$PRDMA_BUILD"
run_suite release "$PRDMA_BUILD" --num-processes 1

prdma_build "$PRDMA_TOP/build-asan" -Dsanitize_address_undefined=true -Db_lundef=false
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	run_suite asan "$PRDMA_TOP/build-asan" --num-processes 1 --suite unit --suite conformance

say "clang build (warnings as errors)"
if CC=clang prdma_build "$PRDMA_TOP/build-clang" -Dtests=true; then
	echo "clang build: ok"
else
	echo "clang build: FAILED"
	status=1
fi

# The summary: meson's own counts from each run.
count() { awk -v k="$1:" 'index($0, k) == 1 {s += $NF} END {print s + 0}' "$log"/*.out; }
passed=$(count Ok)
failed=$(( $(count Fail) + $(count Timeout) + $(count "Unexpected Pass") ))
skipped=$(count Skipped)
[ "$failed" -eq 0 ] || status=1
echo "$passed passed, $failed failed, $skipped skipped"
exit $status
