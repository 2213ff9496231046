#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
#
# Audit every Linux Soft-RoCE capture in tests/data/pcaps (copied from
# real rxe traffic) and compare the verdicts with what its README.md says
# the files hold: all clean
# except host_rc_peer, whose first frame has a corrupted ICRC and whose
# second skips 5 PSNs (answered by a PSN sequence error NAK).
# Usage: capaudit_pcaps.sh <prdma-capaudit> <pcap dir>

audit=$1
dir=$2
if [ ! -d "$dir" ]; then
	echo "FAIL: $dir not found (the captures ship in tests/data/pcaps)"
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
n=0
for f in "$dir"/*.pcap; do
	[ -e "$f" ] || continue
	n=$((n + 1))
	name=$(basename "$f")
	"$audit" --json "$tmp/out.json" "$f" > "$tmp/out.txt" 2>&1
	rc=$?
	case $name in
	host_rc_peer*) want=1 ;;
	*) want=0 ;;
	esac
	if [ "$rc" -ne "$want" ]; then
		echo "FAIL: $name: exit $rc, expected $want"
		cat "$tmp/out.txt"
		fail=1
		continue
	fi
	case $name in
	host_rc_peer*)
		# Exactly the corrupted frame, the skipped PSNs and the NAK
		# (frames 1-3 of the RoCE-only file, 21/24/25 of the whole one).
		case $name in
		*-roce.pcap) f1=1 f2=2 f3=3 ;;
		*) f1=21 f2=24 f3=25 ;;
		esac
		for want_line in \
			"frame $f1: bad ICRC" \
			"frame $f2: PSN gap" \
			"frame $f3: NAK: PSN sequence error" \
			'anomalies: 3'; do
			if ! grep -q "$want_line" "$tmp/out.txt"; then
				echo "FAIL: $name: no \"$want_line\" in the report"
				cat "$tmp/out.txt"
				fail=1
			fi
		done
		;;
	write_bw-roce.pcap)
		# Snap length 128: only the 200 whole ACKs can be checked.
		if ! grep -q '^ICRC: 200 ok, 0 bad, 12800 not checked' "$tmp/out.txt"; then
			echo "FAIL: $name: unexpected ICRC counts"
			head -3 "$tmp/out.txt"
			fail=1
		fi
		;;
	*)
		if ! grep -q ', 0 bad, 0 not checked' "$tmp/out.txt"; then
			echo "FAIL: $name: not every ICRC was verified"
			head -3 "$tmp/out.txt"
			fail=1
		fi
		;;
	esac
	if ! python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/out.json"; then
		echo "FAIL: $name: --json output is not valid JSON"
		fail=1
	fi
	echo "ok: $name (exit $rc)"
done
if [ "$n" -eq 0 ]; then
	echo "SKIP: no captures in $dir"
	exit 77
fi
# Unreadable input is exit status 2.
printf 'not a capture' > "$tmp/junk.pcap"
"$audit" -q "$tmp/junk.pcap" 2>/dev/null
rc=$?
if [ "$rc" -ne 2 ]; then
	echo "FAIL: a non-capture file gave exit $rc, expected 2"
	fail=1
fi
head -c 100 "$dir/send_lat-roce.pcap" > "$tmp/cut.pcap"
"$audit" -q "$tmp/cut.pcap" 2>/dev/null
rc=$?
if [ "$rc" -ne 2 ]; then
	echo "FAIL: a capture cut mid-record gave exit $rc, expected 2"
	fail=1
fi
exit $fail
