#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
#
# Debian's perftest 4.5 in rdma_cm mode (-R), unmodified, on prdma's
# libibverbs.so.1 and librdmacm.so.1 (LD_LIBRARY_PATH): two network
# namespaces joined by a veth pair, net_af_packet on each end (the link is
# up before the peer starts, which perftest checks at start-up). RC
# ib_write_lat, ib_read_lat, ib_send_lat, ib_send_bw, ib_write_bw,
# ib_read_bw and ib_atomic_lat between two Debian binaries, and each
# against prdma-perf -R (write_lat on either side), and UD through SIDR:
# ib_send_lat -R -c UD and ib_send_bw -R -c UD, Debian against Debian and
# against prdma-perf on either side. Output is line buffered (stdbuf) so
# the client starts once the server waits for it. perftest 4.5-0.17 has a
# race of its own: its server calls rdma_listen for the data connection
# only after a handshake over the control connection, and a client that
# comes first is refused and then crashes in perftest's retry (see
# early_client); such a case runs again, whole, up to five times (a loaded machine can lose the race several times in a row).
# Usage: rdmacm_perftest.sh <prdma verbs dir> <prdma rdmacm dir> <prdma-perf>
#        [<t_slow_listen.so>]
set -u
verbs=$1
rdmacm=$2
perf=$3
slow_listen=${4:-}
extra_env=()
here=$(dirname "$0")
. "$here/../netns/netns_lib.sh"
ns_skip_unless_able
NS_MEM="--no-huge -m 512 --no-shconf"
ns_setup
out=$(mktemp -d)
trap 'ns_cleanup; rm -rf "$out"' EXIT INT TERM
libs="$verbs:$rdmacm"
fails=0
# prdma's CM says at DEBUG when an id listens and when it refuses a REQ
# that no listener takes (wait_listen, early_client).
cm_log="--log-level=prdma.cm:debug"

# drop_in <ns> <iface> <ip> <mac> <prefix> <lcore> <program...>
drop_in() {
	ns=$1 iface=$2 ip=$3 mac=$4 prefix=$5 lcore=$6
	shift 6
	ip netns exec "$ns" env LD_LIBRARY_PATH="$libs" "${extra_env[@]}" \
		PRDMA_VERBS_EAL="$(ns_eal_packet "$ns" "$iface" "$prefix" "$lcore") $cm_log" \
		PRDMA_VERBS_DEVARGS="roce:port=0,ip=$ip,mac=$mac" timeout 60 stdbuf -oL "$@"
}

# prdma_perf <ns> <iface> <ip> <mac> <prefix> <lcore> <test args...>
prdma_perf() {
	ns=$1 iface=$2 ip=$3 mac=$4 prefix=$5 lcore=$6
	shift 6
	# shellcheck disable=SC2046
	ip netns exec "$ns" timeout 60 "$perf" $(ns_eal_packet "$ns" "$iface" "$prefix" "$lcore") $cm_log \
		-- "$1" --devargs "roce:port=0,ip=$ip,mac=$mac" --timeout 20 "${@:2}"
}

# wait_listen <log> <pid>: the server's first rdma_listen (prdma's CM
# logs it). perftest prints "Waiting for client to connect" before it binds
# and listens, so the banner alone is too early on a loaded machine. Fails
# if the server exits first or does not listen within 30 s.
wait_listen() {
	for _ in $(seq 1 300); do
		grep -qs "prdma_cm: .*listening on service ID" "$1" && return 0
		kill -0 "$2" 2> /dev/null || return 1
		sleep 0.1
	done
	return 1
}

# early_client <server log>: the server's CM refused a REQ that no
# listener took. The control listener is up before the client starts
# (wait_listen), so this is perftest 4.5-0.17's own race: its server calls
# rdma_listen for the data connection only after a handshake over the
# control connection, whose last message the server sends and whose
# completion (the client's ACK) it waits for, while the client goes
# straight on to connect; a descheduled server is then late. The client,
# refused (RDMA_CM_EVENT_REJECTED, reason 8: invalid service ID, as the
# kernel's CM answers; a UD client's SIDR_REQ gets a SIDR_REP with status
# 1, service ID not supported, and the event REJECTED too), retries through rdma_cm_client_connection(), whose
# clean-up frees the node array and whose next attempt reads the freed
# array's rdma_cm_id pointer (fixed upstream after 4.5-0.17: "Fix crashes
# and logical flaws in RDMA CM connection retry"), and dies of SIGSEGV in
# rdma_resolve_addr(). The server still holds the dead client's control
# connection: the whole case must run again.
early_client() {
	grep -qs "prdma_cm: .*no listener, \(REJ\|SIDR_REP\)" "$1"
}

# server_reports <test>: whether perftest's server prints a result row.
server_reports() {
	case $1 in
	send_*|write_lat) return 0 ;;
	*) return 1 ;;
	esac
}

# client <name> <kind> <test> <args...>: one client run, its rc in crc.
client() {
	cname=$1 ckind=$2 ctest=$3
	shift 3
	crc=0
	if [ "$ckind" = debian ]; then
		drop_in "$NS_B" "$IF_B" "$IP_B" "$MAC_B" "ptb$$" 1 "ib_$ctest" -R "$@" "$IP_A" \
			> "$out/$cname.cli" 2>&1 || crc=$?
	else
		prdma_perf "$NS_B" "$IF_B" "$IP_B" "$MAC_B" "ptb$$" 1 "$ctest" -R "$@" "$IP_A" \
			> "$out/$cname.cli" 2>&1 || crc=$?
	fi
}

# run_once <name> <server kind> <client kind> <test> <args...>; kind:
# debian|prdma; sets result: ok, fail, or again (the environment or
# perftest's own race, not prdma: the server printed nothing that says it
# listens within 30 s, or the client came before the server's data
# connection's rdma_listen, see early_client).
run_once() {
	name=$1 skind=$2 ckind=$3 test=$4
	shift 4
	result=fail
	if [ "$skind" = debian ]; then
		drop_in "$NS_A" "$IF_A" "$IP_A" "$MAC_A" "pta$$" 0 "ib_$test" -R "$@" \
			> "$out/$name.srv" 2>&1 &
	else
		prdma_perf "$NS_A" "$IF_A" "$IP_A" "$MAC_A" "pta$$" 0 "$test" -R "$@" \
			> "$out/$name.srv" 2>&1 &
	fi
	srv=$!
	if ! wait_listen "$out/$name.srv" "$srv"; then
		ns_kill "$NS_A"
		ns_kill "$NS_B"
		wait "$srv"
		echo "FAIL: $name: the server never listened"
		echo "--- server"; cat "$out/$name.srv"
		result=again
		return
	fi
	client "$name" "$ckind" "$test" "$@"
	if [ "$crc" -ne 0 ] && early_client "$out/$name.srv"; then
		echo "note: $name: the client came before the server's data rdma_listen (client rc $crc; perftest 4.5-0.17's race); the case again"
		grep -h "REJECTED\|no listener" "$out/$name.cli" "$out/$name.srv"
		ns_kill "$NS_A"
		ns_kill "$NS_B"
		wait "$srv"
		result=again
		return
	fi
	src=0
	wait "$srv" || src=$?
	# The client reports the measurement, a line starting with the size;
	# so does the server of a SEND test and of write_lat (both sides
	# run); the passive side of the other WRITE, READ and atomic tests
	# reports nothing (perftest's own behaviour).
	size=$(echo "$@" | sed -n 's/.*-s \([0-9]*\).*/\1/p')
	if [ "$src" -ne 0 ] || [ "$crc" -ne 0 ] ||
	   ! grep -Eq "^ *$size +[0-9]+ " "$out/$name.cli" ||
	   { server_reports "$test" && ! grep -Eq "^ *$size +[0-9]+ " "$out/$name.srv"; }; then
		echo "FAIL: $name: server rc $src, client rc $crc"
		echo "--- server"; cat "$out/$name.srv"
		echo "--- client"; cat "$out/$name.cli"
		return
	fi
	echo "ok: $name ($test -R $*): both ends ran and reported"
	result=ok
}

# run <name> <server kind> <client kind> <test> <args...>: a case, run once
# more when the first run failed for the environment (run_once).
run() {
	run_once "$@"
	for attempt in 2 3 4 5; do
		[ "$result" = again ] || break
		echo "note: $1: the server was not ready for the client; the case again (attempt $attempt of 5)"
		sleep 2
		run_once "$@"
	done
	if [ "$result" = again ]; then
		echo "FAIL: $1: no clean run in 5 attempts (the server was late or not listening each time)"
	fi
	[ "$result" = ok ] || fails=$((fails + 1))
}

# RUN_ONLY="<name> <server kind> <client kind> <test> <args...>": one case.
if [ -n "${RUN_ONLY:-}" ]; then
	# shellcheck disable=SC2086
	run $RUN_ONLY
	[ "$fails" -eq 0 ]
	exit
fi
# Debian against Debian (an early client runs again, above).
run write_lat debian debian write_lat -n 200 -s 64
run read_lat debian debian read_lat -n 200 -s 64
run send_bw debian debian send_bw -n 200 -s 4096
run send_lat debian debian send_lat -n 200 -s 64
run write_bw debian debian write_bw -n 200 -s 4096
run read_bw debian debian read_bw -n 200 -s 4096
run atomic_lat debian debian atomic_lat -n 200 -s 8
# perftest's own race, made on purpose: the server is 1.5 s late to its
# data connection's rdma_listen. prdma's CM must refuse the early data REQ
# as the kernel's does (REJ, reason 8: invalid service ID), the client then
# crashes in perftest's retry, and the case must pass when run again.
if [ -n "$slow_listen" ]; then
	touch "$out/slow"
	extra_env=(LD_PRELOAD="$slow_listen" PRDMA_SLOW_LISTEN_MS=1500 PRDMA_SLOW_LISTEN_FLAG="$out/slow")
	fails_before=$fails
	run late_listen debian debian write_bw -n 200 -s 4096 > "$out/late_listen.log"
	extra_env=()
	cat "$out/late_listen.log"
	if [ "$fails" -eq "$fails_before" ] && { [ -e "$out/slow" ] ||
	   ! grep -q "no listener, REJ" "$out/late_listen.log" ||
	   ! grep -q "RDMA_CM_EVENT_REJECTED; error: 8" "$out/late_listen.log"; }; then
		echo "FAIL: late_listen: the late listener did not provoke a refused data connection"
		fails=$((fails + 1))
	fi
fi
# perftest's atomic_lat server returns from main with its data connection
# up (no rdma_disconnect): the kernel would send its DREQ as the process's
# rdma_cm file closes, and answer the client's DREQ after the process is
# gone. The client here disconnects 500 ms late, after the server's exit:
# the drop-in's exit hook (prdma_cm_exit) must have disconnected it, else
# the client resends its DREQ to nobody until its timeout.
if [ -n "$slow_listen" ]; then
	extra_env=(LD_PRELOAD="$slow_listen" PRDMA_SLOW_DISCONNECT_MS=500)
	run late_disconnect debian debian atomic_lat -n 50 -s 8
	extra_env=()
fi
# Each test also against prdma-perf -R, on one side or the other.
run write_lat_vs_prdma_server prdma debian write_lat -n 200 -s 64
run write_lat_vs_prdma_client debian prdma write_lat -n 200 -s 64
run read_lat_vs_prdma_server prdma debian read_lat -n 200 -s 64
run send_lat_vs_prdma_client debian prdma send_lat -n 200 -s 64
run send_bw_vs_prdma_server prdma debian send_bw -n 200 -s 4096
run write_bw_vs_prdma_client debian prdma write_bw -n 200 -s 4096
run read_bw_vs_prdma_server prdma debian read_bw -n 200 -s 4096
run atomic_lat_vs_prdma_client debian prdma atomic_lat -n 200 -s 8
# UD through SIDR: the client resolves the server's QP and sends it its
# own QPN; the server makes its reply AH from that datagram's completion
# and GRH area (ibv_create_ah_from_wc on an IPv4 RoCEv2 datagram) and
# sends back. perftest does not check that AH for NULL: a wrong GRH
# reading showed as "Couldn't post send: scnt=1" on Debian's server.
run ud_send_lat debian debian send_lat -c UD -n 100 -s 64
run ud_send_lat_vs_prdma_server prdma debian send_lat -c UD -n 100 -s 64
run ud_send_lat_vs_prdma_client debian prdma send_lat -c UD -n 100 -s 64
run ud_send_bw debian debian send_bw -c UD -n 200 -s 1024
run ud_send_bw_vs_prdma_server prdma debian send_bw -c UD -n 200 -s 1024
run ud_send_bw_vs_prdma_client debian prdma send_bw -c UD -n 200 -s 1024
[ "$fails" -eq 0 ]
