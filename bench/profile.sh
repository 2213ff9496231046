#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
#
# Where the instructions go, counted by callgrind: per 64 B RC WRITE round
# trip beside a raw ethdev round trip of the same frame length, per 64 B
# WRITE message in a stream beside a raw burst frame, and per byte of a
# 64 KiB WRITE. prdma-perf runs on one lcore (-l 0), driving both sides in
# turn, so a count does not depend on how the two lcores interleave. Each
# figure is the difference of two runs (N and 2N iterations) divided by N:
# EAL start-up, set-up and teardown cancel out. Writes the table and the
# top functions of each into doc/performance.md (section "profile").
#
# usage: PRDMA_BUILD=build bench/profile.sh   (N=2000 by default)

. "$(dirname "$0")/lib.sh"
need_tools
command -v valgrind >/dev/null || { echo "profile: valgrind not installed" >&2; exit 2; }
N=${N:-2000}
TOP=${TOP:-12}
PEAL="--no-huge -m 1024 --no-shconf --no-pci -l 0 --log-level=lib.eal:error"
md=$OUT/profile.md

# cg <name> <iterations> <perf args...>: one callgrind run -> $OUT/prof_<name>_<n>.cg
cg() {
	local name=$1 n=$2
	shift 2
	# shellcheck disable=SC2086
	valgrind --tool=callgrind --callgrind-out-file="$OUT/prof_${name}_$n.cg" \
		"$PERF" $PEAL -- "$@" -n "$n" > "$OUT/prof_${name}_$n.log" 2>&1 || {
		echo "profile: prdma-perf $* -n $n failed under callgrind:" >&2
		tail -5 "$OUT/prof_${name}_$n.log" >&2
		return 1
	}
}

# Both runs of one measurement.
measure() {
	local name=$1
	shift
	cg "$name" "$N" "$@" && cg "$name" $((2 * N)) "$@"
}

# delta <name> <divisor> [top]: instructions per unit (total), and with a
# third argument the top functions (exclusive) as "count function" lines.
delta() {
	python3 - "$OUT/prof_$1_$N.cg" "$OUT/prof_$1_$((2 * N)).cg" "$2" "${3:-0}" <<'PY'
import re, subprocess, sys
def funcs(path):
    out = subprocess.run(["callgrind_annotate", "--threshold=100", "--inclusive=no", path],
                         capture_output=True, text=True).stdout
    total, per = 0, {}
    for line in out.splitlines():
        m = re.match(r"^\s*([\d,]+)\s+(?:\(\s*[\d.]+%\)\s+)?(.*?)\s+\[", line) or \
            re.match(r"^\s*([\d,]+)\s+(?:\(\s*[\d.]+%\)\s+)?(\S.*)$", line)
        if not m:
            continue
        v = int(m.group(1).replace(",", ""))
        name = m.group(2).strip()
        if "PROGRAM TOTALS" in name:
            total = v
            continue
        fn = name.split(":")[-1].strip()
        if fn and not fn.startswith("("):
            per[fn] = per.get(fn, 0) + v
    return total, per
t1, f1 = funcs(sys.argv[1])
t2, f2 = funcs(sys.argv[2])
div = float(sys.argv[3])
top = int(sys.argv[4])
print("%.0f" % ((t2 - t1) / div) if div >= 1 else "%.3g" % ((t2 - t1) / div))
if top:
    d = {k: (f2.get(k, 0) - f1.get(k, 0)) / div for k in set(f1) | set(f2)}
    for k, v in sorted(d.items(), key=lambda kv: -kv[1])[:top]:
        if v > 0.5:
            print("%.0f %s" % (v, k))
PY
}

measure raw_lat raw_lat --loopback -s 64 || exit 1
measure write_lat write_lat --loopback -s 64 || exit 1
measure raw_bw raw_bw --loopback -s 64 || exit 1
measure write_bw write_bw --loopback -s 64 || exit 1
measure write_bw64k write_bw --loopback -s 65536 || exit 1

raw_rt=$(delta raw_lat "$N" | head -1)
wr_rt=$(delta write_lat "$N" | head -1)
raw_msg=$(delta raw_bw "$N" | head -1)
wr_msg=$(delta write_bw "$N" | head -1)
wr_64k=$(delta write_bw64k "$N" | head -1)
per_byte=$(calc "($wr_64k - $wr_msg) / (65536 - 64)")

{
	echo "## profile: instructions per round trip, per message, per byte (callgrind)"
	echo
	echo "prdma-perf on one lcore driving both sides in turn (\`-l 0\`), under callgrind; each"
	echo "figure is (count at $((2 * N)) iterations - count at $N) / $N, so set-up cancels out. The"
	echo "raw rows move prebuilt frames of the same length through the same net_ring ports."
	echo
	echo "| what | raw ethdev | prdma RC WRITE | ratio |"
	echo "|---|---:|---:|---:|"
	echo "| instructions per 64 B round trip (both sides) | $raw_rt | $wr_rt | $(calc "$wr_rt/$raw_rt")x |"
	echo "| instructions per 64 B message, streamed (both sides) | $raw_msg | $wr_msg | $(calc "$wr_msg/$raw_msg")x |"
	echo "| instructions per 64 KiB message, streamed | | $wr_64k | |"
	echo "| instructions per payload byte (64 KiB - 64 B messages) | | $per_byte | |"
	echo
	echo "Top functions (exclusive instructions per round trip / per message):"
	echo
	echo "| 64 B round trip, raw | | 64 B round trip, RC WRITE | | 64 B message, RC WRITE stream | | 64 KiB message, RC WRITE stream | |"
	echo "|---|---:|---|---:|---|---:|---|---:|"
	paste -d'|' <(delta raw_lat "$N" "$TOP" | tail -n +2 | awk '{ print $2 " | " $1 }') \
		<(delta write_lat "$N" "$TOP" | tail -n +2 | awk '{ print $2 " | " $1 }') \
		<(delta write_bw "$N" "$TOP" | tail -n +2 | awk '{ print $2 " | " $1 }') \
		<(delta write_bw64k "$N" "$TOP" | tail -n +2 | awk '{ print $2 " | " $1 }') |
		sed 's/^/| /; s/$/ |/'
	echo
	echo "- machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), kernel $(uname -r); valgrind $(valgrind --version | sed 's/valgrind-//') (instruction counts do not depend on load)"
	echo "- EAL: \`$PEAL\`; build: \`$(basename "$BUILD")\` ($(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)); date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "- command: \`PRDMA_BUILD=$(basename "$BUILD") N=$N bench/profile.sh\` (valgrind --tool=callgrind prdma-perf <EAL> -- raw_lat|write_lat|raw_bw|write_bw --loopback -s 64|65536 -n N|2N)"
} > "$md"
cat "$md"
section profile "$md"
