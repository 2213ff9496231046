# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
#
# Shared by demo.sh, test.sh and .ci/run: install what is missing, reserve
# hugepages (or fall back to DPDK's in-memory no-hugepage mode), build.

set -euo pipefail

PRDMA_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PRDMA_BUILD=${PRDMA_BUILD:-$PRDMA_TOP/build}
PRDMA_HUGEPAGES=${PRDMA_HUGEPAGES:-512}   # 2 MiB pages: 1 GiB

PRDMA_PACKAGES="gcc clang llvm meson ninja-build pkg-config python3 \
libdpdk-dev dpdk libcmocka-dev libbpf-dev libxdp-dev libpcap-dev \
iproute2 tshark gnuplot-nox valgrind libibverbs-dev ibverbs-utils perftest"
# prdma's librdmacm.so.1 builds against Debian's headers; its tests run
# Debian's rdmacm-utils binaries on it (doc/guides/verbs-rdmacm.md).
PRDMA_PACKAGES="$PRDMA_PACKAGES librdmacm-dev rdmacm-utils"

say() { printf '==> %s\n' "$*"; }

prdma_install() {
	local missing="" p
	for p in $PRDMA_PACKAGES; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
			missing="$missing $p"
	done
	if [ -z "$missing" ]; then
		say "packages: all present"
		return 0
	fi
	if [ "$(id -u)" -ne 0 ]; then
		echo "error: missing packages:$missing (run as root to install them)" >&2
		return 1
	fi
	say "installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
}

# Sets PRDMA_EAL_ARGS: hugepage-backed when pages can be reserved, else
# --no-huge with a printed note. Tests always run without hugepages.
prdma_hugepages() {
	local nr=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages have=0
	if [ -w "$nr" ]; then
		have=$(cat "$nr")
		if [ "$have" -lt "$PRDMA_HUGEPAGES" ]; then
			echo "$PRDMA_HUGEPAGES" > "$nr" 2>/dev/null || true
			have=$(cat "$nr")
		fi
		if ! grep -qs ' hugetlbfs ' /proc/mounts; then
			mkdir -p /dev/hugepages
			mount -t hugetlbfs nodev /dev/hugepages 2>/dev/null || true
		fi
	fi
	if [ "$have" -ge 256 ] && grep -qs ' hugetlbfs ' /proc/mounts; then
		say "hugepages: $have x 2 MiB reserved"
		PRDMA_EAL_ARGS="--in-memory --no-pci"
	else
		say "note: no hugepages could be reserved ($have); running in DPDK's" \
		    "in-memory mode without hugepages (--no-huge)"
		PRDMA_EAL_ARGS="--no-huge -m 1024 --no-shconf --no-pci"
	fi
	if [ "$(nproc)" -ge 2 ]; then
		PRDMA_EAL_ARGS="$PRDMA_EAL_ARGS -l 0-1"
	else
		PRDMA_EAL_ARGS="$PRDMA_EAL_ARGS -l 0"
	fi
	export PRDMA_EAL_ARGS
}

# prdma_build <builddir> [meson options...]
prdma_build() {
	local dir=$1
	shift
	if [ ! -f "$dir/build.ninja" ]; then
		meson setup "$dir" "$PRDMA_TOP" "$@" >/dev/null
	else
		meson configure "$dir" "$@" >/dev/null
	fi
	ninja -C "$dir" -j "$(nproc)" >/dev/null
	say "built $dir"
}
