#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
#
# asan_expect.sh <program> <mode> report|clean|blind
# report: the program must fail with an AddressSanitizer report whose top
# frame is main (where the bad access is); clean: it must exit 0 with no
# report; blind: the same as clean with the allocation wrappers turned off
# (PRDMA_ASAN_ALLOC=off), i.e. what ASan sees of DPDK's heap without them.
prog=$1 mode=$2 want=$3
[ "$want" = blind ] && export PRDMA_ASAN_ALLOC=off
out=$(ASAN_OPTIONS=detect_leaks=0:abort_on_error=0:halt_on_error=1 "$prog" "$mode" 2>&1)
rc=$?
printf '%s\n' "$out"
if [ "$want" != report ]; then
	if [ $rc -eq 0 ] && ! printf '%s' "$out" | grep -q AddressSanitizer; then
		echo "asan_expect: $mode ran clean ($want)"
		exit 0
	fi
	echo "asan_expect: $mode should run clean ($want, exit $rc)"
	exit 1
fi
if [ $rc -ne 0 ] && printf '%s' "$out" | grep -q 'ERROR: AddressSanitizer: use-after-poison' &&
   printf '%s' "$out" | grep -qE '#0 0x[0-9a-f]+ in main'; then
	echo "asan_expect: $mode caught (exit $rc)"
	exit 0
fi
echo "asan_expect: $mode NOT caught by ASan (exit $rc)"
exit 1
