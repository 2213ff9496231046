#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
#
# Run every libFuzzer binary of a fuzz build for a bounded time each.
#
#   devtools/fuzz.sh [builddir] [seconds per fuzzer] [name...]
#
# Names (roce_flow, cm_mad, ...) pick fuzzers; none means all. A long run
# of one fuzzer on a shared machine:
#   nice -n 10 devtools/fuzz.sh build-fuzz 1800 roce_flow
# builddir defaults to build-fuzz (configure it with CC=clang and
# -Dfuzz=true -Dsanitize_address_undefined=true -Db_lundef=false; see
# doc/fuzzing.md), seconds to $FUZZ_SECONDS or 20. Each fuzzer starts from
# its seed corpus (tests/fuzz/corpus/<name>, never modified) and its past
# findings (tests/fuzz/regress/<name>); new coverage goes to a scratch
# corpus. A crash, leak, sanitizer report or timeout fails the run; the
# input is kept under $FUZZ_OUT (default build dir/fuzz-out) and its path
# printed: copy it into tests/fuzz/regress/<name>/ with the fix.
# Ends with "N passed, N failed" (one per fuzzer).

set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build-fuzz}
secs=${2:-${FUZZ_SECONDS:-20}}
shift 2 2>/dev/null || shift $#
only=" $* "
out=${FUZZ_OUT:-$build/fuzz-out}

declare -A max_len=([roce_rx]=4400 [roce_flow]=2048 [cm_mad]=2100 [devargs]=512 [hermon_cmd]=4400 [hermon_wqe]=1100
	[testpmd_cmd]=4200)

passed=0
failed=0
mkdir -p "$out"
shopt -s nullglob
bins=("$build"/tests/fuzz/fuzz_*)
found=0
for bin in "${bins[@]}"; do
	name=$(basename "$bin")
	name=${name#fuzz_}
	case $name in replay_*) continue ;; esac
	[ "$only" = "  " ] || [[ $only == *" $name "* ]] || continue
	[ -f "$bin" ] && [ -x "$bin" ] || continue
	found=1
	work="$out/corpus-$name"
	mkdir -p "$work" "$out/crash-$name"
	echo "==> fuzz $name for ${secs}s"
	ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1} \
	UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
	"$bin" -max_total_time="$secs" -timeout=20 -rss_limit_mb=6144 \
		-max_len="${max_len[$name]:-4096}" -print_final_stats=1 \
		-artifact_prefix="$out/crash-$name/" \
		"$work" "$top/tests/fuzz/corpus/$name" "$top/tests/fuzz/regress/$name" \
		> "$out/$name.log" 2>&1
	rc=$?
	grep -E '^stat::(number_of_executed_units|peak_rss_mb|new_units_added)' "$out/$name.log" |
		tr '\n' ' '
	echo
	if [ $rc -eq 0 ]; then
		echo "fuzz $name: ok"
		passed=$((passed + 1))
	else
		echo "fuzz $name: FAILED (exit $rc); log $out/$name.log"
		grep -E 'ERROR: |SUMMARY: |fuzz invariant|Test unit written' "$out/$name.log" | head -8
		failed=$((failed + 1))
	fi
done
if [ $found -eq 0 ]; then
	echo "no fuzzers in $build/tests/fuzz (configure with CC=clang -Dfuzz=true)"
	failed=1
fi
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
