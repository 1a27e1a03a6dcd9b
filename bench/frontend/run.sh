#!/bin/bash
# Frontend benchmark: parse + verify + print a module of 200 renamed copies of
# seed 001's lowered conv2d (about 16k lines), reporting MB/s, lines/s and peak
# memory. The module is generated next to the build, never committed.
#
# usage: bench/frontend/run.sh [BUILD_DIR] [COPIES]   (default: build, 200)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
copies=${2:-200}
module="$build/bench/frontend/conv2d_x${copies}.tvm"
mkdir -p "$(dirname "$module")"
python3 "$here/make_large_module.py" "$root/samples/conv2d_vta_lowered.tvm" "$module" "$copies"

bytes=$(stat -c %s "$module")
lines=$(wc -l < "$module")
"$build/bin/vtac" print "$module" > /dev/null  # warm the page cache
report=$(mktemp)
/usr/bin/time -v "$build/bin/vtac" print "$module" 2> "$report" > /dev/null
seconds=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s}' "$report")
cpu=$(awk -F': ' '/User time|System time/ {s += $2} END {print s}' "$report")
peak_kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$report")
rm -f "$report"
awk -v b="$bytes" -v l="$lines" -v s="$seconds" -v c="$cpu" -v m="$peak_kb" 'BEGIN {
  printf "input: %d lines, %.2f MB\n", l, b / 1e6
  printf "wall:  %.3f s   (%.2f MB/s, %.0f lines/s)\n", s, b / 1e6 / s, l / s
  printf "cpu:   %.3f s   (%.2f MB/s, %.0f lines/s)\n", c, b / 1e6 / c, l / c
  printf "peak:  %.1f MB  (%.1fx the input)\n", m / 1024, m * 1024 / b
}'
