# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
#
# Shared by the bench/ scripts: where the tools are, the EAL arguments,
# JSON field extraction, and writing a section of doc/performance.md.
# Benchmarks print figures; they never fail on a target.

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)
BUILD=${PRDMA_BUILD:-$ROOT/build-tools}
PERF=$BUILD/apps/prdma-perf/prdma-perf
DEMO=$BUILD/apps/prdma-demo/prdma-demo
DOC=$ROOT/doc/performance.md
IMG=$ROOT/doc/img
OUT=${PRDMA_BENCH_OUT:-$BUILD/bench}
# Without hugepages by default, so the scripts run anywhere; give
# PRDMA_BENCH_EAL="--in-memory --no-pci -l 0-1" where 2 MiB pages exist.
EAL=${PRDMA_BENCH_EAL:---no-huge -m 2048 --no-shconf --no-pci -l 0-1 --log-level=lib.eal:error}

mkdir -p "$OUT" "$IMG"

need_tools() {
	if [ ! -x "$PERF" ]; then
		echo "bench: $PERF not built (ninja -C $BUILD)" >&2
		exit 2
	fi
}

# perf <json> <args...>: run prdma-perf, keep its report in $OUT/<json>.txt
perf() {
	local json=$1
	shift
	# shellcheck disable=SC2086
	"$PERF" $EAL -- "$@" --json "$OUT/$json.json" > "$OUT/$json.txt" 2>&1
	local rc=$?
	if [ $rc -ne 0 ]; then
		echo "bench: prdma-perf $* failed (rc $rc), see $OUT/$json.txt" >&2
		tail -3 "$OUT/$json.txt" >&2
	fi
	return $rc
}

# jget <json> <field> [row]: a field of results[row] (or of the top level).
jget() {
	python3 - "$OUT/$1.json" "$2" "${3:-0}" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception:
    print("nan"); sys.exit(0)
f, row = sys.argv[2], int(sys.argv[3])
if f in d:
    print(d[f])
elif d.get("results") and len(d["results"]) > row and f in d["results"][row]:
    print(d["results"][row][f])
else:
    print("nan")
PY
}

# calc <python expression>: arithmetic with 'nan' passing through.
calc() {
	python3 -c "
nan = float('nan')
try:
    v = $1
    print('n/a' if v != v else (('%.3g' if abs(v) < 1000 else '%.0f') % v if isinstance(v, float) else v))
except Exception:
    print('n/a')"
}

machine() {
	echo "- machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), kernel $(uname -r)"
	echo "- load average when the section ran: $(cut -d' ' -f1-3 /proc/loadavg) (the machine is shared: figures move from run to run; compare the ratios of one run)"
	echo "- EAL: \`$EAL\`; build: \`$(basename "$BUILD")\` ($(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null))"
	echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
}

# section <name> <file>: put <file> between the section's markers in
# doc/performance.md, replacing what a previous run wrote there; other
# sections (and text outside the markers) are left alone.
section() {
	python3 - "$DOC" "$1" "$2" <<'PY'
import os, sys
doc, name, body = sys.argv[1], sys.argv[2], open(sys.argv[3]).read().rstrip("\n")
begin, end = "<!-- bench:%s -->" % name, "<!-- /bench:%s -->" % name
text = open(doc).read() if os.path.exists(doc) else "# prdma performance\n"
block = "%s\n%s\n%s" % (begin, body, end)
if begin in text and end in text:
    a = text.index(begin)
    b = text.index(end) + len(end)
    text = text[:a] + block + text[b:]
elif name == "intro" and "<!-- bench:" in text:
    # The introduction heads the benchmark sections.
    a = text.index("<!-- bench:")
    text = text[:a] + block + "\n\n" + text[a:]
else:
    text = text.rstrip("\n") + "\n\n" + block + "\n"
open(doc, "w").write(text if text.endswith("\n") else text + "\n")
PY
	echo "bench: doc/performance.md section '$1' written"
}
