#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
#
# Run an example and check its output: it must exit 0, print
# "result: PASS", and print a line matching every extended regular
# expression given before "--".
#
#   run_example.sh EXAMPLE REGEX... -- EXAMPLE-ARGS...

set -u
exe=$1
shift
patterns=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
	patterns="$patterns
$1"
	shift
done
[ $# -gt 0 ] && shift

out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$exe" "$@" >"$out" 2>&1
rc=$?
cat "$out"
if [ $rc -ne 0 ]; then
	echo "FAIL: $exe exited with $rc"
	exit 1
fi
if ! grep -q '^result: PASS$' "$out"; then
	echo "FAIL: no 'result: PASS' line"
	exit 1
fi
echo "$patterns" | while IFS= read -r re; do
	[ -z "$re" ] && continue
	if ! grep -Eq -- "$re" "$out"; then
		echo "FAIL: no line matches /$re/"
		exit 1
	fi
done || exit 1
echo "PASS: $(basename "$exe") output checked"
