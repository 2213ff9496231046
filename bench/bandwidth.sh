#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
#
# 64 KiB RDMA WRITE bandwidth on the loopback beside one core's memcpy
# bandwidth of the same 64 KiB, in one run. Target: WRITE >= 50 % of
# memcpy (printed, never enforced).

. "$(dirname "$0")/lib.sh"
need_tools
MSGS=${MSGS:-20000}
SIZES=${SIZES:-"4096 16384 65536 262144"}
md=$OUT/bandwidth.md
dat=$OUT/bandwidth.dat
: > "$dat"
{
	echo "## bandwidth: RC WRITE vs single-core memcpy"
	echo
	echo "Both sides in one process on two lcores (\`--loopback\`, the embedded ring link); the"
	echo "WRITE rows keep 128 requests in flight on one QP. memcpy is one core copying the same"
	echo "size with rte_memcpy between two DPDK buffers. Gb/s (10^9 bits). The WRITE and READ"
	echo "columns run zero-copy (\`zc=auto\`, the default: payloads of 1 KiB and more leave from the MR);"
	echo "the copy column forces every payload to be copied into its frame (\`zc=0\`), the"
	echo "transmit path before zero-copy, in the same run."
	echo
	echo "| bytes | memcpy Gb/s | WRITE Gb/s (avg) | WRITE Gb/s (peak) | WRITE copy path Gb/s (avg) | WRITE copy path Gb/s (peak) | READ Gb/s (avg) | WRITE % of memcpy | copy path % of memcpy | retransmits |"
	echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
} > "$md"
for s in $SIZES; do
	# a failed run leaves no figure of an earlier one behind
	rm -f "$OUT/memcpy_$s.json" "$OUT/wbw_$s.json" "$OUT/wbwc_$s.json" "$OUT/rbw_$s.json"
	perf memcpy_$s memcpy_bw --loopback -n "$MSGS" -s "$s" --report_gbits
	perf wbw_$s write_bw --loopback -n "$MSGS" -s "$s" --report_gbits \
		--devargs "roce:ring=bwz$$,side=0,ip=192.0.2.1,zc=auto" \
		--devargs "roce:ring=bwz$$,side=1,ip=192.0.2.2,zc=auto"
	perf wbwc_$s write_bw --loopback -n "$MSGS" -s "$s" --report_gbits \
		--devargs "roce:ring=bwc$$,side=0,ip=192.0.2.1,zc=0" \
		--devargs "roce:ring=bwc$$,side=1,ip=192.0.2.2,zc=0"
	perf rbw_$s read_bw --loopback -n "$MSGS" -s "$s" --report_gbits \
		--devargs "roce:ring=brz$$,side=0,ip=192.0.2.1,zc=auto" \
		--devargs "roce:ring=brz$$,side=1,ip=192.0.2.2,zc=auto"
	m=$(jget memcpy_$s gbps); w=$(jget wbw_$s gbps); wp=$(jget wbw_$s bw_peak)
	r=$(jget rbw_$s gbps); wc=$(jget wbwc_$s gbps); wcp=$(jget wbwc_$s bw_peak)
	echo "| $s | $(calc "$m") | $(calc "$w") | $(calc "$wp") | $(calc "$wc") | $(calc "$wcp") | $(calc "$r") | $(calc "100*$w/$m") | $(calc "100*$wc/$m") | $(jget wbw_$s retransmits) |" >> "$md"
	echo "$s $m $w $r $wc" >> "$dat"
done
gnuplot <<GP
set terminal png size 800,420
set output "$IMG/bandwidth.png"
set title "RC WRITE/READ bandwidth vs one core's memcpy"
set logscale x 2
set logscale y
set xlabel "message bytes"
set ylabel "Gb/s"
set key top left
plot "$dat" using 1:2 with linespoints title "memcpy (1 core)", \
     "$dat" using 1:3 with linespoints title "RC WRITE", \
     "$dat" using 1:4 with linespoints title "RC READ", \
     "$dat" using 1:5 with linespoints title "RC WRITE, copy path (zc=0)"
GP
{
	echo
	echo "![bandwidth](img/bandwidth.png)"
	echo
	echo "Target: 64 KiB WRITE >= 50 % of memcpy (the \"% of memcpy\" column)."
	echo
	machine
	echo "- commands (per size s): \`prdma-perf <EAL> -- memcpy_bw|write_bw|read_bw --loopback -n $MSGS -s s --report_gbits\`;"
	echo "  copy path: the same write_bw with \`--devargs roce:ring=R,side=0,ip=192.0.2.1,zc=0 --devargs roce:ring=R,side=1,ip=192.0.2.2,zc=0\`;"
	echo "  script: \`bench/bandwidth.sh\`"
} >> "$md"
cat "$md"
section bandwidth "$md"
