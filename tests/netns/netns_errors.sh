#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
#
# Clear errors, not hangs: net_af_xdp on an interface that does not exist,
# and a peer address nobody answers ARP for (the provider's resolution
# gives up after 1 s with -EHOSTUNREACH and names the address).
# Usage: netns_errors.sh <prdma-nsdemo> <roce_xdp.o | anything>
set -eu
demo=$1
xdp=$2
here=$(dirname "$0")
. "$here/netns_lib.sh"
ns_skip_unless_able
ns_setup
out=$(mktemp -d)
trap 'ns_cleanup; rm -rf "$out"' EXIT INT TERM
[ -f "$xdp" ] || xdp=""
rc=0

# shellcheck disable=SC2046
if ns_run "$NS_A" "$demo" $(ns_eal "$NS_A" "nosuchif0" "ea$$" "$xdp" 0) -- \
	--mode cm --server --timeout 3 > "$out/missing.log" 2>&1; then
	echo "FAIL: a missing interface was accepted"; rc=1
fi
grep -E -i "no such ethdev port|nosuchif0|EAL init failed|probe" "$out/missing.log" | head -3
grep -q -E "no such ethdev port|EAL init failed" "$out/missing.log" ||
	{ echo "FAIL: no clear error for a missing interface"; cat "$out/missing.log"; rc=1; }

# 192.0.2.99 is on the link but nobody has it: ARP goes unanswered.
# shellcheck disable=SC2046
if ns_run "$NS_B" "$demo" $(ns_eal "$NS_B" "$IF_B" "eb$$" "$xdp" 1) -- \
	--mode cm --connect 192.0.2.99 --timeout 10 > "$out/noarp.log" 2>&1; then
	echo "FAIL: connecting to an absent peer succeeded"; rc=1
fi
grep -E "does not answer|UNREACHABLE|unexpected CM event|connect to" "$out/noarp.log" | head -3
grep -q "192.0.2.99 does not answer ARP" "$out/noarp.log" ||
	{ echo "FAIL: no clear error for an unresolvable peer"; tail -5 "$out/noarp.log"; rc=1; }
exit $rc
