# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
#
# Shared by the two-namespace tests and bench/roce-afxdp.sh: two network
# namespaces joined by one veth pair, TEST-NET-1 addresses (192.0.2.0/24,
# never routed), each end ready for net_af_xdp. Source it, then call
# ns_setup; ns_cleanup runs on exit.

NS_A="prdma-a-$$"
NS_B="prdma-b-$$"
IF_A="pva$$"
IF_B="pvb$$"
IP_A=192.0.2.1
IP_B=192.0.2.2

ns_skip_unless_able() {
	if [ "$(id -u)" -ne 0 ]; then
		echo "SKIP: needs root (network namespaces, veth, XDP)"
		exit 77
	fi
	if ! ip netns list > /dev/null 2>&1; then
		echo "SKIP: 'ip netns' is not available"
		exit 77
	fi
	ns_check_hugepages
}

# ns_kill <ns>: end every process in the namespace (TERM, then KILL after
# up to 2 s). A background job's $! is the subshell that runs it, not the
# program, so killing that pid leaves the program running.
ns_kill() {
	pids=$(ip netns pids "$1" 2> /dev/null) || return 0
	[ -n "$pids" ] || return 0
	# shellcheck disable=SC2086
	kill -TERM $pids 2> /dev/null
	for _ in $(seq 1 20); do
		[ -n "$(ip netns pids "$1" 2> /dev/null)" ] || return 0
		sleep 0.1
	done
	# shellcheck disable=SC2046
	kill -KILL $(ip netns pids "$1" 2> /dev/null) 2> /dev/null
	return 0
}

ns_cleanup() {
	ns_kill "$NS_A"
	ns_kill "$NS_B"
	ip netns del "$NS_A" 2> /dev/null || true
	ip netns del "$NS_B" 2> /dev/null || true
}

ns_setup() {
	trap ns_cleanup EXIT INT TERM
	ip netns add "$NS_A"
	ip netns add "$NS_B"
	# One queue each way by default: with more, frames land on a receive
	# queue that has no AF_XDP socket (net_af_xdp binds queue 0) and go
	# to the kernel. NS_QUEUES=N (before ns_setup) for multi-queue tests.
	ip link add "$IF_A" numtxqueues "${NS_QUEUES:-1}" numrxqueues "${NS_QUEUES:-1}" type veth \
		peer name "$IF_B" numtxqueues "${NS_QUEUES:-1}" numrxqueues "${NS_QUEUES:-1}"
	ip link set "$IF_A" netns "$NS_A"
	ip link set "$IF_B" netns "$NS_B"
	ip -n "$NS_A" addr add "$IP_A/24" dev "$IF_A"
	ip -n "$NS_B" addr add "$IP_B/24" dev "$IF_B"
	ip -n "$NS_A" link set lo up
	ip -n "$NS_B" link set lo up
	ip -n "$NS_A" link set "$IF_A" up
	ip -n "$NS_B" link set "$IF_B" up
	MAC_A=$(ip netns exec "$NS_A" cat "/sys/class/net/$IF_A/address")
	MAC_B=$(ip netns exec "$NS_B" cat "/sys/class/net/$IF_B/address")
}

# Memory for each end: 64 x 2 MiB hugepages per process when the machine
# has them, else 4 KiB pages (--no-huge; net_af_xdp works on both here).
NS_MEM_MB=128
NS_MEM="--in-memory -m $NS_MEM_MB"
ns_check_hugepages() {
	free=$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)
	size=$(awk '/Hugepagesize/ {print $2}' /proc/meminfo)
	need=$((2 * NS_MEM_MB * 1024 / ${size:-2048}))
	if [ "${free:-0}" -lt "$need" ]; then
		echo "note: $need free hugepages of ${size:-?} kB wanted, ${free:-0} free" \
			"(echo $need > /proc/sys/vm/nr_hugepages); running with --no-huge"
		NS_MEM="--no-huge -m 512 --no-shconf"
	fi
}

# ns_eal <ns> <iface> <prefix> [xdp object] [lcore]: EAL arguments for one
# end. Give the two ends different lcores: two busy-polling processes on one
# CPU stall each other for whole scheduler slices.
ns_eal() {
	prog=""
	if [ -n "${4:-}" ]; then
		prog=",xdp_prog=$4"
	fi
	echo "$NS_MEM --no-pci --file-prefix $3 -l ${5:-0} \
--vdev net_af_xdp0,iface=$2,start_queue=0,queue_count=1,busy_budget=0$prog \
--log-level=pmd.net.af_xdp:warning"
}

# ns_eal_packet <ns> <iface> <prefix> [lcore]: the net_af_packet fallback
# (where XDP cannot attach; the kernel sees every frame too).
ns_eal_packet() {
	echo "$NS_MEM --no-pci --file-prefix $3 -l ${4:-0} \
--vdev net_af_packet0,iface=$2,qpairs=1"
}

# ns_run <ns> <command...>: run inside the namespace with bpffs mounted
# (ip netns exec gives the command its own /sys, where libbpf/libxdp want
# /sys/fs/bpf).
ns_run() {
	ns=$1
	shift
	ip netns exec "$ns" sh -c 'mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf; exec "$@"' sh "$@"
}
