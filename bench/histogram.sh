#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
#
# The latency histogram of a 64-byte RC WRITE ping-pong on the loopback,
# beside the raw ethdev ping-pong's percentiles from the same run.

. "$(dirname "$0")/lib.sh"
need_tools
ITERS=${ITERS:-100000}
md=$OUT/histogram.md
samples=$OUT/write_lat_64.samples
perf hist_write write_lat --loopback -n "$ITERS" -s 64 --samples "$samples"
perf hist_raw raw_lat --loopback -n "$ITERS" -s 64
python3 - "$samples" "$OUT/histogram.dat" <<'PY'
import sys
v = sorted(float(x) for x in open(sys.argv[1]))
cut = v[int(len(v) * 0.999) - 1] if v else 1
step = max(cut / 60, 0.01)
bins = {}
for x in v:
    if x <= cut:
        b = int(x / step)
        bins[b] = bins.get(b, 0) + 1
with open(sys.argv[2], "w") as f:
    for b in sorted(bins):
        f.write("%.4f %d\n" % ((b + 0.5) * step, bins[b]))
PY
gnuplot <<GP
set terminal png size 800,420
set output "$IMG/latency_histogram.png"
set title "64 B RC WRITE ping-pong on the loopback: one-way latency (up to p99.9)"
set xlabel "one-way latency (us)"
set ylabel "samples"
set logscale y
set style fill solid 0.6
set boxwidth 0.9 relative
plot "$OUT/histogram.dat" using 1:2 with boxes title "RC WRITE"
GP
{
	echo "## latency histogram: 64 B RC WRITE on the loopback"
	echo
	echo "| | samples | min | p50 | p99 | p99.9 | max |"
	echo "|---|---:|---:|---:|---:|---:|---:|"
	for t in hist_write hist_raw; do
		echo "| $([ $t = hist_write ] && echo 'RC WRITE' || echo 'raw ethdev') | $(jget $t samples) | $(calc "$(jget $t t_min_us)") | $(calc "$(jget $t p50_us)") | $(calc "$(jget $t p99_us)") | $(calc "$(jget $t p999_us)") | $(calc "$(jget $t max_us)") |"
	done
	echo
	echo "![latency histogram](img/latency_histogram.png)"
	echo
	machine
	echo "- commands: \`prdma-perf <EAL> -- write_lat --loopback -n $ITERS -s 64 --samples FILE\`,"
	echo "  \`prdma-perf <EAL> -- raw_lat --loopback -n $ITERS -s 64\`; script: \`bench/histogram.sh\`"
} > "$md"
cat "$md"
section histogram "$md"
