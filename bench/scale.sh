#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
#
# 1 to 16384 RC QPs on the loopback: the per-operation cost of a 64-byte
# WRITE spread over every QP, and the heap memory each QP takes. Target:
# cost <= 1.2x the one-QP cost (printed, never enforced). Counts above the
# provider's max_qp are reported as the limit, not run.

. "$(dirname "$0")/lib.sh"
need_tools
COUNTS=${COUNTS:-"1 4 16 64 256 1024 4096 16384"}
PER_QP=${PER_QP:-200}
MIN_MSGS=${MIN_MSGS:-20000}
md=$OUT/scale.md
dat=$OUT/scale.dat
: > "$dat"
{
	echo "## scale: 1 to 16,384 RC QPs"
	echo
	echo "64-byte WRITEs spread round robin over N connected RC QP pairs (\`write_bw -q N\`,"
	echo "16 in flight per QP, one signaled in 16), both sides in one process. Cost = 1 / message"
	echo "rate; memory = heap bytes the library and provider took per QP (the QP's own buffer"
	echo "excluded)."
	echo
	echo "| QPs | messages | Mpps | ns/op | x 1-QP cost | heap bytes/QP | retransmits |"
	echo "|---:|---:|---:|---:|---:|---:|---:|"
} > "$md"
base=nan
for n in $COUNTS; do
	iters=$(( (MIN_MSGS + n - 1) / n ))
	[ "$iters" -lt "$PER_QP" ] && [ "$n" -gt 1 ] && iters=$PER_QP
	[ "$iters" -lt 5 ] && iters=5
	if ! perf scale_$n write_bw --loopback -q "$n" -n "$iters" -s 64 -t 16 -Q 16 --timeout 120; then
		why=$(grep -o 'the device holds [0-9]* QPs at most' "$OUT/scale_$n.txt" | head -1)
		echo "| $n | - | - | - | - | - | not run: ${why:-see $OUT/scale_$n.txt} |" >> "$md"
		continue
	fi
	r=$(jget scale_$n msg_rate_mpps)
	[ "$base" = nan ] && base=$r
	echo "| $n | $((n * iters)) | $(calc "$r") | $(calc "1000/$r") | $(calc "$base/$r") | $(jget scale_$n mem_per_qp_bytes) | $(jget scale_$n retransmits) |" >> "$md"
	echo "$n $(calc "1000/$r") $(jget scale_$n mem_per_qp_bytes)" >> "$dat"
done
gnuplot <<GP
set terminal png size 800,420
set output "$IMG/scale.png"
set title "64 B WRITE cost and memory vs number of RC QPs"
set logscale x 2
set xlabel "QPs"
set ylabel "ns per operation"
set y2label "heap bytes per QP"
set y2tics
set key top left
plot "$dat" using 1:2 with linespoints title "ns/op", \
     "$dat" using 1:3 axes x1y2 with linespoints title "bytes/QP"
GP
{
	echo
	echo "![scale](img/scale.png)"
	echo
	echo "Target: cost <= 1.2x the one-QP cost. The soft provider holds \`max_qp\` = 32,766 QPs by"
	echo "default (devarg \`max_qp=\`, doc/guides/roce.md): the low 15 bits of a QPN index a table"
	echo "allocated at probe, and an engine step runs only the QPs with work, so idle QPs cost"
	echo "nothing per operation. A count above the device's \`max_qp\` is listed as not run."
	echo "Above 16K requests in flight (N x 16) prdma-perf sets the ACK timeout to 1 s (exponent"
	echo "18, perftest's 14 is 67 ms): answering 262,144 requests takes a soft device longer than"
	echo "67 ms, and the resends of a timeout that only waited would be counted as retransmits."
	echo
	machine
	echo "- commands: \`prdma-perf <EAL> -- write_bw --loopback -q N -n max(20000/N, $PER_QP) -s 64 -t 16 -Q 16\`;"
	echo "  script: \`bench/scale.sh\`"
} >> "$md"
cat "$md"
section scale "$md"
