#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
#
# Line coverage the fuzz corpora reach, per source file (gcov).
#
#   devtools/coverage.sh [covdir] [harness...]
#
# covdir defaults to build-cov: a gcc debug build with -Db_coverage=true
# -Dapps=false, configured here when missing. Harnesses default to the
# RoCE ones (roce_flow roce_rx, replayed together) and the Hermon ones
# (hermon_cmd hermon_wqe). Each harness's replay binary runs once over its
# seed corpus (tests/fuzz/corpus/<name>), its findings (tests/fuzz/regress/
# <name>) and what fuzz runs generated, if present ($FUZZ_OUT/corpus-<name>,
# FUZZ_OUT defaulting to build-fuzz/fuzz-out). Prints "file  lines  %" per
# file of interest, the RoCE files summed over both RoCE harnesses.

set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cov=${1:-$top/build-cov}
shift || true
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=(roce_flow roce_rx hermon_cmd hermon_wqe)
fuzz_out=${FUZZ_OUT:-$top/build-fuzz/fuzz-out}

[ -f "$cov/build.ninja" ] || meson setup "$cov" "$top" -Dbuildtype=debug \
	-Db_coverage=true -Dapps=false >/dev/null
targets=()
for h in "${harnesses[@]}"; do
	targets+=("tests/fuzz/fuzz_replay_$h")
done
nice ninja -C "$cov" "${targets[@]}" >/dev/null

export PRDMA_TEST_EAL_ARGS=${PRDMA_TEST_EAL_ARGS:-"--no-huge -m 1024 --no-shconf --no-pci -l 0 --log-level=*:crit"}

# one group of harnesses at a time: the counters add up within a group
report() {
	local objdir=$1
	shift
	local f line
	for f in "$@"; do
		line=$(cd "$cov" && gcov -n "$objdir/$f.gcda" 2>/dev/null |
			grep -A1 "^File '.*/$f'" | sed -n 's/^Lines executed:\([0-9.]*\)% of \([0-9]*\)/\1 \2/p')
		printf '%-24s %6s %% of %s lines\n' "$f" "${line% *}" "${line#* }"
	done
}

replay() {
	local h=$1 dirs=()
	dirs+=("$top/tests/fuzz/corpus/$h" "$top/tests/fuzz/regress/$h")
	[ -d "$fuzz_out/corpus-$h" ] && dirs+=("$fuzz_out/corpus-$h")
	echo "replay $h: $("$cov/tests/fuzz/fuzz_replay_$h" "${dirs[@]}" 2>/dev/null | tail -n 1)"
}

roce=() hermon=()
for h in "${harnesses[@]}"; do
	case $h in
	roce_*) roce+=("$h") ;;
	hermon_*) hermon+=("$h") ;;
	*) echo "coverage.sh: no file list for $h, skipped" ;;
	esac
done
if [ ${#roce[@]} -gt 0 ]; then
	find "$cov" -name '*.gcda' -delete
	for h in "${roce[@]}"; do replay "$h"; done
	report drivers/net/roce/libprdma_roce.a.p roce_wire.c roce_engine.c roce_resp.c \
		roce_req.c roce_mr.c
fi
if [ ${#hermon[@]} -gt 0 ]; then
	find "$cov" -name '*.gcda' -delete
	for h in "${hermon[@]}"; do replay "$h"; done
	report drivers/net/hermon/model/libhermon_model.a.p hermon_model_cmd.c \
		hermon_model_obj.c hermon_model_exec.c
	report drivers/net/hermon/libprdma_hermon.a.p hermon_cmd.c hermon_qp.c hermon_cq.c \
		hermon_fp_post.c hermon_fp_poll.c
fi
