#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
#
# Install, build and run every test suite: the release build with all suites,
# then an ASan+UBSan build with the unit, conformance and protection suites, then a
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
	# What a failed test said of itself (its own FAIL lines, cmocka's
	# failures and assertions), so that a CI log shows why, not only which.
	if grep -qE '^ *[0-9]+/[0-9]+ .* (FAIL|TIMEOUT) ' "$log/$name.out"; then
		grep -E '^FAIL: |\[  FAILED  \]|^not ok|[Aa]ssert|error:' "$log/$name.out" |
			sort | uniq -c | sort -rn | head -40 | sed 's/^/  | /' || true
		# and the end of each failed test's own output: a script that
		# fails without a FAIL line still says where it stopped
		python3 - "$dir/meson-logs/testlog.json" <<'PY' || true
import json, sys
for line in open(sys.argv[1]):
    t = json.loads(line)
    if t.get("result") in ("FAIL", "TIMEOUT"):
        out = (t.get("stdout") or "").splitlines()
        print("  | --- %s: last %d lines" % (t["name"], min(25, len(out))))
        for l in out[-25:]:
            print("  | " + l)
PY
	fi
	# Later suites run meson test in the same build directory: keep this
	# suite's log under its own name.
	cp "$dir/meson-logs/testlog.txt" "$dir/meson-logs/testlog-$name.txt" 2>/dev/null || true
}

prdma_build "$PRDMA_BUILD"
run_suite release "$PRDMA_BUILD" --num-processes 1 --no-suite interop

# Interop: prdma against Linux Soft-RoCE (rdma_rxe) and perftest in a qemu
# guest (tests/interop, doc/interop.md), one meson test per group of cases.
# Root only: it installs the peer's Debian packages, makes a namespace and
# boots a guest (skipped with a reason otherwise). PRDMA_INTEROP=0 leaves
# it out.
if [ "${PRDMA_INTEROP:-1}" != 0 ]; then
	run_suite interop "$PRDMA_BUILD" --num-processes 1 --suite interop
fi

prdma_build "$PRDMA_TOP/build-asan" -Dsanitize_address_undefined=true -Db_lundef=false
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	run_suite asan "$PRDMA_TOP/build-asan" --num-processes 1 --suite unit --suite conformance \
		--suite protection

say "clang build (warnings as errors)"
if CC=clang prdma_build "$PRDMA_TOP/build-clang" -Dtests=true; then
	echo "clang build: ok"
else
	echo "clang build: FAILED"
	status=1
fi

# ---------------------------------------------------------------------------
# Fuzzing: the libFuzzer harnesses (tests/fuzz) built with clang, ASan and
# UBSan, each run for a bounded time from its seed corpus (devtools/fuzz.sh,
# doc/fuzzing.md), then a short soak (QP churn, traffic under fault
# injection) in the same sanitizer build with LeakSanitizer on. Only these
# targets are built here. Counted in the summary as one test per fuzzer
# plus one for the soak (a failed build counts as one failure).
say "fuzz build (clang, libFuzzer, ASan+UBSan) and ${FUZZ_SECONDS:-20} s per fuzzer"
fuzz_dir="$PRDMA_TOP/build-fuzz"
fuzz_targets="tests/fuzz/fuzz_roce_rx tests/fuzz/fuzz_roce_flow tests/fuzz/fuzz_cm_mad tests/fuzz/fuzz_devargs \
tests/fuzz/fuzz_hermon_cmd tests/fuzz/fuzz_hermon_wqe tests/fuzz/fuzz_testpmd_cmd tests/soak/test_soak"
if ! dpkg-query -W -f='${Status}' libclang-rt-14-dev 2>/dev/null | grep -q "ok installed" &&
   [ "$(id -u)" -eq 0 ]; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		libclang-rt-14-dev >/dev/null 2>&1 || true
fi
if { [ -f "$fuzz_dir/build.ninja" ] ||
     CC=clang meson setup "$fuzz_dir" "$PRDMA_TOP" -Dfuzz=true \
	-Dsanitize_address_undefined=true -Db_lundef=false >/dev/null; } &&
   ninja -C "$fuzz_dir" -j "$(nproc)" $fuzz_targets >/dev/null; then
	"$PRDMA_TOP/devtools/fuzz.sh" "$fuzz_dir" "${FUZZ_SECONDS:-20}" > "$log/fuzz.txt" 2>&1 ||
		status=1
	grep -E '^(==>|fuzz |stat::)|ERROR: |SUMMARY: ' "$log/fuzz.txt" || true
	fz=$(tail -n 1 "$log/fuzz.txt")
	fz_pass=$(echo "$fz" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
	fz_fail=$(echo "$fz" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
	fz_pass=${fz_pass:-0}
	fz_fail=${fz_fail:-1}
	if ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
	   UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	   PRDMA_SOAK_SECONDS=${PRDMA_SOAK_SECONDS:-10} PRDMA_SOAK_CYCLES=2000 \
	   "$fuzz_dir/tests/soak/test_soak" > "$log/soak-asan.txt" 2>&1; then
		echo "soak under ASan/LSan: ok"
		fz_pass=$((fz_pass + 1))
	else
		echo "soak under ASan/LSan: FAILED"
		grep -E 'ERROR|SUMMARY|FAILED|LINE' "$log/soak-asan.txt" | head -10 || true
		fz_fail=$((fz_fail + 1))
		status=1
	fi
	printf 'Ok: %s\nFail: %s\n' "$fz_pass" "$fz_fail" > "$log/fuzz.out"
else
	echo "fuzz build: FAILED"
	printf 'Ok: 0\nFail: 1\n' > "$log/fuzz.out"
	status=1
fi
# ---------------------------------------------------------------------------

# The summary: meson's own counts from each run.
count() { awk -v k="$1:" 'index($0, k) == 1 {s += $NF} END {print s + 0}' "$log"/*.out; }
passed=$(count Ok)
failed=$(( $(count Fail) + $(count Timeout) + $(count "Unexpected Pass") ))
skipped=$(count Skipped)
[ "$failed" -eq 0 ] || status=1
echo "$passed passed, $failed failed, $skipped skipped"
exit $status
