#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
#
# Line coverage of the connection manager (lib/rdma/cm/*.c) that the
# cm_mad fuzz corpus reaches, measured by replaying it through
# fuzz_replay_cm_mad in a gcov build (gcc, -Db_coverage=true).
#
#   devtools/coverage-cm.sh [-f] [corpus dir...]
#
# Without directories it replays tests/fuzz/corpus/cm_mad and
# tests/fuzz/regress/cm_mad; give a libFuzzer work directory (e.g.
# build-fuzz/fuzz-out/corpus-cm_mad) to measure what a run found. -f adds
# the per-function figures. The build goes to $PRDMA_COV_BUILD
# (default build-cov-cm); only the replay target is built.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cov=${PRDMA_COV_BUILD:-$top/build-cov-cm}
funcs=0
if [ "${1:-}" = "-f" ]; then
	funcs=1
	shift
fi
if [ $# -eq 0 ]; then
	set -- "$top/tests/fuzz/corpus/cm_mad" "$top/tests/fuzz/regress/cm_mad"
fi
command -v gcov >/dev/null || { echo "coverage-cm: gcov not found" >&2; exit 1; }
if [ ! -f "$cov/build.ninja" ]; then
	CC=gcc meson setup "$cov" "$top" -Dbuildtype=debug -Db_coverage=true >/dev/null
fi
ninja -C "$cov" tests/fuzz/fuzz_replay_cm_mad >/dev/null
find "$cov" -name '*.gcda' -delete
PRDMA_TEST_EAL_ARGS="--no-huge -m 1024 --no-shconf --no-pci -l 0 --log-level=*:crit" \
	"$cov/tests/fuzz/fuzz_replay_cm_mad" "$@" | tail -1
obj=$cov/lib/rdma/cm/libprdma_cm.a.p
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
total_run=0
total_lines=0
printf '%-14s %8s %7s\n' file lines covered
for src in "$top"/lib/rdma/cm/*.c; do
	f=$(basename "$src")
	[ -f "$obj/$f.gcno" ] || continue
	if [ ! -f "$obj/$f.gcda" ]; then
		n=$(gcov -n "$obj/$f.gcno" 2>/dev/null | grep -A1 "^File '.*/$f'" |
			sed -n 's/.*of \([0-9]*\)$/\1/p')
		printf '%-14s %8s %7s\n' "$f" "${n:-?}" "0.00%"
		total_lines=$((total_lines + ${n:-0}))
		continue
	fi
	line=$(gcov -n "$obj/$f.gcda" 2>/dev/null | grep -A1 "^File '.*/$f'" | sed -n 2p)
	pct=$(sed -n 's/Lines executed:\([0-9.]*\)% of .*/\1/p' <<<"$line")
	n=$(sed -n 's/.* of \([0-9]*\)$/\1/p' <<<"$line")
	printf '%-14s %8s %6s%%\n' "$f" "$n" "$pct"
	total_lines=$((total_lines + n))
	total_run=$(awk -v a="$total_run" -v p="$pct" -v n="$n" 'BEGIN { printf "%d", a + p * n / 100 + 0.5 }')
done
awk -v r="$total_run" -v n="$total_lines" \
	'BEGIN { printf "%-14s %8d %6.2f%%\n", "total", n, n ? 100 * r / n : 0 }'
if [ $funcs -eq 1 ]; then
	echo
	for src in "$top"/lib/rdma/cm/*.c; do
		f=$(basename "$src")
		[ -f "$obj/$f.gcda" ] || continue
		gcov -n -f "$obj/$f.gcda" 2>/dev/null | grep -A1 "^Function '" |
			grep -v '^--' | paste - - |
			sed "s/^Function '\([^']*\)'.*Lines executed:\([0-9.]*%\) of \([0-9]*\)/$f \1 \2 \3/"
	done | grep -v -E ' (rte_|__)' | column -t
fi
