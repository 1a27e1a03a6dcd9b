#!/bin/sh
# Interleaved A/B of two builds of libvta_runtime + libvta_sim on seed 001's conv2d: the same
# benchmark binary runs with LD_LIBRARY_PATH set to each directory in turn (A then B in odd
# rounds, B then A in even ones), so that both sides see the same load. On a shared machine the
# per-round spread is often larger than the difference; the B/A ratio of each round, and how
# many rounds B wins, say more than either median.
#
# Usage: bench/vta/ab_libraries.sh BUILD_DIR DIR_A DIR_B [ROUNDS] [RUNS] [KERNEL]
#   DIR_A, DIR_B: directories holding libvta_runtime.so and libvta_sim.so (e.g. copies of
#   BUILD_DIR/lib taken before and after a change). Defaults: 20 rounds of 100 runs, avx512vnni.
set -eu
build=$1
dir_a=$2
dir_b=$3
rounds=${4:-20}
runs=${5:-100}
kernel=${6:-avx512vnni}
bench=$build/bin/vta_conv2d_bench
for dir in "$dir_a" "$dir_b"; do
  for lib in libvta_runtime.so libvta_sim.so; do
    [ -f "$dir/$lib" ] || { echo "error: $dir/$lib not found" >&2; exit 1; }
  done
done

# CPU ms per run of one side; fails unless the output checksum is seed 001's.
side() {
  out=$(LD_LIBRARY_PATH=$1 "$bench" "$runs" "$kernel")
  echo "$out" | grep -q 'output_checksum=458e5344' || { echo "error: wrong checksum with $1" >&2; exit 1; }
  echo "$out" | sed -n 's/.*cpu_ms_per_run=\([0-9.]*\).*/\1/p'
}
median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
results=$(for round in $(seq "$rounds"); do
  if [ $((round % 2)) -eq 1 ]; then a=$(side "$dir_a"); b=$(side "$dir_b")
  else b=$(side "$dir_b"); a=$(side "$dir_a"); fi
  echo "$round $a $b"
done)
echo "$results" | awk '{printf "round %d: A %s ms, B %s ms, B/A %.3f\n", $1, $2, $3, $3 / $2}'
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "A median $(echo "$results" | awk '{print $2}' | median) ms, B median $(echo "$results" | awk '{print $3}' | median) ms (CPU per run)"
echo "B/A median $(echo "$results" | awk '{printf "%.4f\n", $3 / $2}' | median); B faster in $(echo "$results" | awk '$3 < $2 {n++} END {print n + 0}') of $rounds rounds"
