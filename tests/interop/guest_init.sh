#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
#
# /init of the interop suite's Linux Soft-RoCE guest (busybox sh). Brings up
# rdma_rxe on the virtio NIC, then serves the host on the serial console:
# one command per line, answers on lines starting with "@@".
#   S ID SECS tcp|cm PORT CMD...  start CMD in the background (at most SECS s),
#                                 answer "@@READY ID" once PORT listens
#   C ID SECS CMD...              start CMD in the background, "@@STARTED ID"
#   (both: when CMD ends, its output as "@@O ID line" and "@@RC ID status")
#   K ID                          kill CMD of case ID
#   T ID                          rxe's counters: "@@STATS ID name value ..."
#   M MTU                         set eth0's MTU, "@@MTU active_mtu"
#   Q                             power off
PATH=/usr/bin:/usr/sbin:/bin:/sbin
export PATH
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /dev/shm
exec < /dev/ttyS0 > /dev/ttyS0 2>&1
stty -echo 2> /dev/null

for m in $(cat /modules/order); do
	insmod "/modules/$m" || echo "@@ERROR insmod $m"
done

ip=10.99.0.2
mtu=1500
for a in $(cat /proc/cmdline); do
	case "$a" in
	prdma.ip=*) ip=${a#prdma.ip=} ;;
	prdma.mtu=*) mtu=${a#prdma.mtu=} ;;
	esac
done

i=0
while [ ! -e /sys/class/net/eth0 ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
# No IPv6: keeps the captures to what the cases send.
sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
sysctl -qw net.ipv6.conf.eth0.disable_ipv6=1 2> /dev/null
ip link set lo up
ip link set eth0 mtu "$mtu" up
ip addr add "$ip/24" dev eth0
rdma link add rxe0 type rxe netdev eth0 || echo "@@ERROR rdma link add"
i=0
while [ $i -lt 400 ]; do
	g=$(cat /sys/class/infiniband/rxe0/ports/1/gids/1 2> /dev/null)
	s=$(cat /sys/class/infiniband/rxe0/ports/1/state 2> /dev/null)
	case "$g:$s" in
	0000:0000:0000:0000:0000:ffff:*ACTIVE*) break ;;
	esac
	sleep 0.05
	i=$((i + 1))
done
echo "@@BOOTED gid1=$g state=$s $(uname -r)"

listening() { # kind port
	if [ "$1" = cm ]; then
		rdma res show cm_id 2> /dev/null | grep LISTEN | grep -q "src-addr [^ ]*:$2 "
	else
		netstat -ltn 2> /dev/null | grep -q ":$2 "
	fi
}

start() { # id secs cmd...
	id=$1 secs=$2
	shift 2
	(
		timeout "$secs" "$@" < /dev/null > "/tmp/$id.out" 2>&1 &
		echo $! > "/tmp/$id.pid"
		wait $!
		rc=$?
		sed "s/^/@@O $id /" "/tmp/$id.out"
		echo "@@RC $id $rc"
		rm -f "/tmp/$id.out" "/tmp/$id.pid"
	) &
	n=0
	while [ ! -f "/tmp/$id.pid" ] && [ $n -lt 100 ]; do sleep 0.02; n=$((n + 1)); done
}

set -f
while read -r line; do
	# shellcheck disable=SC2086
	set -- $line
	cmd=${1:-}
	[ $# -gt 0 ] && shift
	case "$cmd" in
	S)
		id=$1 secs=$2 kind=$3 port=$4
		shift 4
		start "$id" "$secs" "$@"
		n=0
		while ! listening "$kind" "$port" && [ -f "/tmp/$id.pid" ] && [ $n -lt 300 ]; do
			sleep 0.1
			n=$((n + 1))
		done
		echo "@@READY $id"
		;;
	C)
		id=$1 secs=$2
		shift 2
		start "$id" "$secs" "$@"
		echo "@@STARTED $id"
		;;
	K)
		[ -f "/tmp/$1.pid" ] && kill "$(cat "/tmp/$1.pid")" 2> /dev/null
		echo "@@KILLED $1"
		;;
	T)
		echo "@@STATS $1 $(rdma statistic show link rxe0/1 | tr '\n' ' ')"
		;;
	M)
		ip link set eth0 mtu "$1"
		sleep 0.5
		echo "@@MTU $(ibv_devinfo -d rxe0 | awk '/active_mtu/ {print $2}')"
		;;
	Q)
		break
		;;
	"")
		;;
	*)
		echo "@@ERROR unknown command $cmd"
		;;
	esac
done
echo "@@POWEROFF"
poweroff -f
