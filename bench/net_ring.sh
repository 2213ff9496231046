#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
#
# RC WRITE and SEND latency and message rate on the embedded net_ring
# loopback, beside raw ethdev ping-pong and bursts of the same frames on
# the same kind of ports, in one run. Targets: latency <= 2x raw, message
# rate >= 40 % of raw (printed, never enforced).

. "$(dirname "$0")/lib.sh"
need_tools
ITERS=${ITERS:-20000}
SIZES=${SIZES:-"8 64 256 1024"}
MSGS=${MSGS:-200000}
md=$OUT/net_ring.md
dat=$OUT/net_ring.dat
: > "$dat"
{
	echo "## net_ring: RC latency and message rate vs raw ethdev"
	echo
	echo "Both sides in one process on two lcores (\`--loopback\`), two cross-connected net_ring"
	echo "ports. Latency is one way (half the round trip), p50 and p99 in us; the raw columns"
	echo "bounce or burst frames of exactly the length of the RoCEv2 WRITE Only frame of that"
	echo "payload. Message rate: WRITE and SEND with 128 in flight and one signaled in 100."
	echo
	echo "| bytes | raw p50 | WRITE p50 | ratio | SEND p50 | ratio | raw p99 | WRITE p99 | SEND p99 | raw Mpps | WRITE Mpps | % raw | SEND Mpps | % raw | WRITE peak Mpps |"
	echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
} > "$md"
for s in $SIZES; do
	perf raw_lat_$s raw_lat --loopback -n "$ITERS" -s "$s"
	perf write_lat_$s write_lat --loopback -n "$ITERS" -s "$s"
	perf send_lat_$s send_lat --loopback -n "$ITERS" -s "$s"
	perf raw_bw_$s raw_bw --loopback -n "$MSGS" -s "$s"
	perf write_bw_$s write_bw --loopback -n "$MSGS" -s "$s"
	perf send_bw_$s send_bw --loopback -n "$MSGS" -s "$s"
	rl=$(jget raw_lat_$s p50_us); wl=$(jget write_lat_$s p50_us); sl=$(jget send_lat_$s p50_us)
	r9=$(jget raw_lat_$s p99_us); w9=$(jget write_lat_$s p99_us); s9=$(jget send_lat_$s p99_us)
	rr=$(jget raw_bw_$s msg_rate_mpps); wr=$(jget write_bw_$s msg_rate_mpps)
	sr=$(jget send_bw_$s msg_rate_mpps)
	# The peak: the best 100 us window of the run, in messages per second.
	wp=$(jget write_bw_$s bw_peak)
	echo "| $s | $(calc "$rl") | $(calc "$wl") | $(calc "$wl/$rl")x | $(calc "$sl") | $(calc "$sl/$rl")x | $(calc "$r9") | $(calc "$w9") | $(calc "$s9") | $(calc "$rr") | $(calc "$wr") | $(calc "100*$wr/$rr") | $(calc "$sr") | $(calc "100*$sr/$rr") | $(calc "$wp*1048576/$s/1e6") |" >> "$md"
	echo "$s $rl $wl $sl $rr $wr $sr" >> "$dat"
done
gnuplot <<GP
set terminal png size 900,420
set output "$IMG/net_ring.png"
set multiplot layout 1,2 title "net_ring loopback: prdma RC vs raw ethdev (same frames)"
set logscale x 2
set xlabel "payload bytes"
set ylabel "one-way p50 latency (us)"
set key top left
plot "$dat" using 1:2 with linespoints title "raw ping-pong", \
     "$dat" using 1:3 with linespoints title "RC WRITE", \
     "$dat" using 1:4 with linespoints title "RC SEND"
set ylabel "message rate (Mpps)"
plot "$dat" using 1:5 with linespoints title "raw burst", \
     "$dat" using 1:6 with linespoints title "RC WRITE", \
     "$dat" using 1:7 with linespoints title "RC SEND"
unset multiplot
GP
{
	echo
	echo "![net_ring](img/net_ring.png)"
	echo
	echo "Targets: latency <= 2x raw, message rate >= 40 % of raw (the ratio columns)."
	echo
	machine
	echo "- commands (per size s): \`prdma-perf <EAL> -- raw_lat|write_lat|send_lat --loopback -n $ITERS -s s\`,"
	echo "  \`prdma-perf <EAL> -- raw_bw|write_bw|send_bw --loopback -n $MSGS -s s\`; script: \`bench/net_ring.sh\`"
} >> "$md"
cat "$md"
section net_ring "$md"
