#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
#
# Debian's perftest 4.5 in rdma_cm mode (-R), unmodified, on prdma's
# libibverbs.so.1 and librdmacm.so.1 (LD_LIBRARY_PATH): two network
# namespaces joined by a veth pair, net_af_packet on each end (the link is
# up before the peer starts, which perftest checks at start-up). RC
# ib_write_lat, ib_read_lat and ib_send_bw between two Debian binaries, and
# ib_write_lat against prdma-perf -R on either side, and the UD
# ib_send_lat -R -c UD client against a prdma-perf server. Output is line
# buffered (stdbuf) so the client starts once the server waits for it.
# Usage: rdmacm_perftest.sh <prdma verbs dir> <prdma rdmacm dir> <prdma-perf>
set -u
verbs=$1
rdmacm=$2
perf=$3
here=$(dirname "$0")
. "$here/../netns/netns_lib.sh"
ns_skip_unless_able
NS_MEM="--no-huge -m 512 --no-shconf"
ns_setup
out=$(mktemp -d)
trap 'ns_cleanup; rm -rf "$out"' EXIT INT TERM
libs="$verbs:$rdmacm"
fails=0

# drop_in <ns> <iface> <ip> <mac> <prefix> <lcore> <program...>
drop_in() {
	ns=$1 iface=$2 ip=$3 mac=$4 prefix=$5 lcore=$6
	shift 6
	ip netns exec "$ns" env LD_LIBRARY_PATH="$libs" \
		PRDMA_VERBS_EAL="$(ns_eal_packet "$ns" "$iface" "$prefix" "$lcore")" \
		PRDMA_VERBS_DEVARGS="roce:port=0,ip=$ip,mac=$mac" timeout 60 stdbuf -oL "$@"
}

# prdma_perf <ns> <iface> <ip> <mac> <prefix> <lcore> <test args...>
prdma_perf() {
	ns=$1 iface=$2 ip=$3 mac=$4 prefix=$5 lcore=$6
	shift 6
	# shellcheck disable=SC2046
	ip netns exec "$ns" timeout 60 "$perf" $(ns_eal_packet "$ns" "$iface" "$prefix" "$lcore") \
		-- "$1" --devargs "roce:port=0,ip=$ip,mac=$mac" --timeout 20 "${@:2}"
}

# wait_listen <log>: the server prints this once it listens.
wait_listen() {
	for _ in $(seq 1 200); do
		grep -qs "Waiting for client\|listening\|Waiting for" "$1" && return 0
		sleep 0.1
	done
	return 1
}

# run <name> <server kind> <client kind> <test> <args...>; kind: debian|prdma
run() {
	name=$1 skind=$2 ckind=$3 test=$4
	shift 4
	if [ "$skind" = debian ]; then
		drop_in "$NS_A" "$IF_A" "$IP_A" "$MAC_A" "pta$$" 0 "ib_$test" -R "$@" \
			> "$out/$name.srv" 2>&1 &
	else
		prdma_perf "$NS_A" "$IF_A" "$IP_A" "$MAC_A" "pta$$" 0 "$test" -R "$@" \
			> "$out/$name.srv" 2>&1 &
	fi
	srv=$!
	wait_listen "$out/$name.srv" || sleep 3
	# perftest prints its wait before its listener is up; under load the
	# gap grows, and an early client is rejected (see the doc).
	sleep 2
	crc=0
	if [ "$ckind" = debian ]; then
		drop_in "$NS_B" "$IF_B" "$IP_B" "$MAC_B" "ptb$$" 1 "ib_$test" -R "$@" "$IP_A" \
			> "$out/$name.cli" 2>&1 || crc=$?
	else
		prdma_perf "$NS_B" "$IF_B" "$IP_B" "$MAC_B" "ptb$$" 1 "$test" -R "$@" "$IP_A" \
			> "$out/$name.cli" 2>&1 || crc=$?
	fi
	src=0
	wait "$srv" || src=$?
	# Both ends report the measurement, a line starting with the size (a
	# READ test's server reports nothing).
	size=$(echo "$@" | sed -n 's/.*-s \([0-9]*\).*/\1/p')
	if [ "$src" -ne 0 ] || [ "$crc" -ne 0 ] ||
	   ! grep -Eq "^ *$size +[0-9]+ " "$out/$name.cli" ||
	   { [ "$test" != read_lat ] && ! grep -Eq "^ *$size +[0-9]+ " "$out/$name.srv"; }; then
		echo "FAIL: $name: server rc $src, client rc $crc"
		echo "--- server"; cat "$out/$name.srv"
		echo "--- client"; cat "$out/$name.cli"
		fails=$((fails + 1))
		return
	fi
	echo "ok: $name ($test -R $*): both ends ran and reported"
}

# RUN_ONLY="<name> <server kind> <client kind> <test> <args...>": one case.
if [ -n "${RUN_ONLY:-}" ]; then
	# shellcheck disable=SC2086
	run $RUN_ONLY
	[ "$fails" -eq 0 ]
	exit
fi
# Debian against Debian: passes on an idle machine, but under load the
# server sometimes has no listener yet when the client comes (REJECTED,
# then perftest's client dies of SIGSEGV): not yet reliable enough for CI,
# so only with RDMACM_PERFTEST_PAIRS=1.
if [ "${RDMACM_PERFTEST_PAIRS:-0}" = 1 ]; then
	run write_lat debian debian write_lat -n 200 -s 64
	run read_lat debian debian read_lat -n 200 -s 64
	run send_bw debian debian send_bw -n 200 -s 4096
fi
run write_lat_vs_prdma_server prdma debian write_lat -n 200 -s 64
run write_lat_vs_prdma_client debian prdma write_lat -n 200 -s 64
# UD through SIDR: Debian's client resolves prdma-perf's QP and sends.
run ud_send_lat_vs_prdma_server prdma debian send_lat -c UD -n 100 -s 64
[ "$fails" -eq 0 ]
