#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
#
# An outside program builds against an installed prdma with nothing but
# `pkg-config --cflags --libs libprdma`: install into a scratch DESTDIR,
# compile and link a program there, and run it.
set -euo pipefail
build=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

meson install -C "$build" --destdir "$tmp/root" --quiet >/dev/null
pc=$(find "$tmp/root" -name libprdma.pc | head -n 1)
if [ -z "$pc" ]; then
	echo "FAIL: libprdma.pc was not installed"
	exit 1
fi
for h in prdma.h prdma_fp.h prdma_counters.h; do
	if ! find "$tmp/root" -path "*/prdma/$h" | grep -q .; then
		echo "FAIL: $h was not installed"
		exit 1
	fi
done
# Point the installed .pc at the scratch root (what a packager's DESTDIR
# staging would leave at the real prefix).
prefix=$(sed -n 's/^prefix=//p' "$pc")
sed -i "s|^prefix=.*|prefix=$tmp/root$prefix|" "$pc"
export PKG_CONFIG_PATH=$(dirname "$pc")
flags=$(pkg-config --cflags --libs libprdma)
libdir=$(pkg-config --variable=libdir libprdma)
cc -Wall -Wextra -Werror -o "$tmp/outside" "$src" $flags
LD_LIBRARY_PATH="$libdir" "$tmp/outside"
echo "PASS: built and ran an outside program with pkg-config libprdma"
