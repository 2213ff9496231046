#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
#
# Builds the Linux Soft-RoCE peer the interop suite boots: Debian's own
# kernel (the package linux-image-amd64 depends on, downloaded and unpacked
# into the cache, never installed on this host) and a small initramfs with
# busybox, rdma-core's tools, perftest and the rdma_rxe modules.
#
# Usage: build_guest.sh CACHE_DIR
# Leaves CACHE_DIR/guest/{vmlinuz,initrd.gz,versions}; a rerun with the
# same packages and the same guest files reuses them. Installs the host
# packages it needs when run as root; otherwise says which are missing.
set -euo pipefail

cache=$1
# meson runs the interop tests with the build's library directories first
# in LD_LIBRARY_PATH (they depend on prdma's drop-in libibverbs.so.1 and
# librdmacm.so.1): ldd would then name prdma's libraries for the guest's
# Debian binaries, and the guest would have neither.
unset LD_LIBRARY_PATH
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)

INTEROP_PACKAGES="qemu-system-x86 busybox-static rdma-core ibverbs-utils \
ibverbs-providers rdmacm-utils perftest cpio kmod iproute2 tshark"

missing=""
for p in $INTEROP_PACKAGES; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "error: the interop suite needs these Debian packages:$missing" \
			"(run as root to install them)" >&2
		exit 1
	fi
	echo "interop: installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

# One builder at a time per cache (parallel runs share it).
exec 9> "$cache/.lock"
flock 9

kernel_pkg() {
	apt-cache depends linux-image-amd64 2>/dev/null |
		awk '/Depends: linux-image-[0-9]/ {print $2; exit}'
}
kpkg=$(kernel_pkg)
if [ -z "$kpkg" ] && [ "$(id -u)" -eq 0 ]; then
	apt-get update -qq
	kpkg=$(kernel_pkg)
fi
if [ -z "$kpkg" ]; then
	echo "error: apt-cache does not know linux-image-amd64 (apt-get update?)" >&2
	exit 1
fi
kver_pkg=$(apt-cache show "$kpkg" 2>/dev/null | awk '/^Version:/ {print $2; exit}')

# The modules the guest loads, in this order with their dependencies.
MODULES="virtio_pci virtio_net crc32_generic crc32c_generic udp_tunnel \
ip6_udp_tunnel ib_core ib_uverbs rdma_rxe rdma_ucm ib_umad"

kdir=$cache/kernel-$kpkg-$kver_pkg
if [ ! -f "$kdir/done" ]; then
	echo "interop: fetching $kpkg $kver_pkg (unpacked in the cache, not installed)"
	rm -rf "$kdir" "$cache/dl"
	mkdir -p "$cache/dl" "$kdir/modules"
	chmod 777 "$cache/dl"
	(cd "$cache/dl" && apt-get download "$kpkg=$kver_pkg" >/dev/null 2>&1) || {
		echo "error: apt-get download $kpkg=$kver_pkg failed" >&2
		exit 1
	}
	tree=$cache/dl/tree
	dpkg-deb -x "$cache"/dl/*.deb "$tree"
	kver=$(ls "$tree/lib/modules")
	depmod -b "$tree" "$kver"
	cp "$tree/boot/vmlinuz-$kver" "$kdir/vmlinuz"
	: > "$kdir/modules/order"
	for m in $MODULES; do
		modprobe -d "$tree" -S "$kver" --show-depends "$m" | awk '$1 == "insmod" {print $2}'
	done | awk '!seen[$0]++' | while read -r ko; do
		base=$(basename "$ko")
		case "$base" in
		*.xz) xz -dc "$ko" > "$kdir/modules/${base%.xz}"; base=${base%.xz} ;;
		*.zst) zstd -qdc "$ko" > "$kdir/modules/${base%.zst}"; base=${base%.zst} ;;
		*) cp "$ko" "$kdir/modules/$base" ;;
		esac
		echo "$base" >> "$kdir/modules/order"
	done
	echo "$kver" > "$kdir/kver"
	rm -rf "$cache/dl"
	touch "$kdir/done"
fi
kver=$(cat "$kdir/kver")

# What the initramfs depends on: the package versions and the guest files.
pkgv() { dpkg-query -W -f='${Version}' "$1"; }
versions="kernel $kpkg $kver_pkg ($kver)
rdma-core $(pkgv rdma-core)
ibverbs-providers $(pkgv ibverbs-providers)
perftest $(pkgv perftest)
rdmacm-utils $(pkgv rdmacm-utils)
busybox-static $(pkgv busybox-static)
qemu-system-x86 $(pkgv qemu-system-x86)"
key=$( { echo "$versions"; cat "$here/guest_init.sh" "$0"; } | sha256sum | cut -c1-16)
gdir=$cache/guest
if [ -f "$gdir/key" ] && [ "$(cat "$gdir/key")" = "$key" ] &&
   [ -f "$gdir/initrd.gz" ] && [ -f "$gdir/vmlinuz" ]; then
	exit 0
fi

echo "interop: building the guest initramfs"
stage=$(mktemp -d "$cache/stage.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,sbin,etc,proc,sys,dev,tmp,run,root,modules} \
	"$stage"/usr/{bin,sbin} "$stage/usr/lib/x86_64-linux-gnu" "$stage/lib64"
ln -s usr/lib "$stage/lib"
cp /bin/busybox "$stage/bin/busybox"
for a in $(/bin/busybox --list); do
	[ "$a" = busybox ] || ln -s busybox "$stage/bin/$a"
done

BINARIES="rdma ibv_devices ibv_devinfo ibv_rc_pingpong ibv_uc_pingpong \
ibv_ud_pingpong ibv_srq_pingpong ib_write_lat ib_read_lat ib_send_lat \
ib_atomic_lat ib_write_bw ib_read_bw ib_send_bw ib_atomic_bw rping udaddy \
rdma_server rdma_client"
copy_lib() {
	local f=$1 real
	real=$(readlink -f "$f")
	mkdir -p "$stage$(dirname "$f")"
	[ -e "$stage$f" ] || cp "$real" "$stage$f"
}
for b in $BINARIES; do
	p=$(command -v "$b")
	cp "$p" "$stage/usr/bin/$b"
	for l in $(ldd "$p" | awk '/=>/ {print $3} /^\t\/lib/ {print $1}'); do
		case $l in
		/lib/*|/lib64/*|/usr/lib/*) copy_lib "$l" ;;
		*) echo "error: $b needs $l, not a Debian library" >&2; exit 1 ;;
		esac
	done
done
for l in /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav*.so \
	/usr/lib/x86_64-linux-gnu/libgcc_s.so.1; do
	copy_lib "$l"
	for d in $(ldd "$l" | awk '/=>/ {print $3}'); do copy_lib "$d"; done
done
cp /lib64/ld-linux-x86-64.so.2 "$stage/lib64/" 2>/dev/null ||
	cp "$(readlink -f /lib64/ld-linux-x86-64.so.2)" "$stage/lib64/ld-linux-x86-64.so.2"
mkdir -p "$stage/etc/libibverbs.d"
cp /etc/libibverbs.d/rxe.driver "$stage/etc/libibverbs.d/"
echo "root:x:0:0:root:/root:/bin/sh" > "$stage/etc/passwd"
echo "root:x:0:" > "$stage/etc/group"
printf '127.0.0.1 localhost\n' > "$stage/etc/hosts"
cp "$kdir"/modules/*.ko "$kdir/modules/order" "$stage/modules/"
cp "$here/guest_init.sh" "$stage/init"
chmod 755 "$stage/init"

rm -rf "$gdir.new"
mkdir -p "$gdir.new"
(cd "$stage" && find . | cpio -o -H newc --quiet | gzip -1) > "$gdir.new/initrd.gz"
cp "$kdir/vmlinuz" "$gdir.new/vmlinuz"
echo "$versions" > "$gdir.new/versions"
echo "$key" > "$gdir.new/key"
rm -rf "$gdir"
mv "$gdir.new" "$gdir"
echo "interop: guest ready ($(du -h "$gdir/initrd.gz" | cut -f1) initramfs)"
