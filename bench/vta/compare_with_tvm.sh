#!/bin/sh
# Seed 001's conv2d on vtac's runtime + simulator against TVM's (built outside the repository,
# see bench/RESULTS.md), in alternating rounds of one invocation, and vtac's time as a fraction
# of this core's int8 peak.
#
# Usage: bench/vta/compare_with_tvm.sh BUILD_DIR TVM_BENCH [ROUNDS] [RUNS] [KERNEL]
#   TVM_BENCH: bench/vta/conv2d_bench.c linked against TVM's runtime and simulator.
#   Defaults: 7 rounds of 20 runs each, GEMM kernel avx512vnni.
#
# Peak (per core) = clock x (vector bits / 8) int8 lanes x VNNI instructions per cycle
# (VTA_PEAK_VNNI_PER_CYCLE, default 2: two 512-bit vpdpbusd per cycle, as vta_vnni_peak
# measures on the machine of bench/RESULTS.md); the clock is /proc/cpuinfo's "cpu MHz".
set -eu
build=$1
tvm_bench=$2
rounds=${3:-7}
runs=${4:-20}
kernel=${5:-avx512vnni}
vtac_bench=$build/bin/vta_conv2d_bench
macs_per_run=115605504 # 451,584 GEMM micro-ops x 16 x 16

field() { sed -n "s/.*$1=\([0-9a-f.e+]*\).*/\1/p" | head -1; }

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
best_vtac=
for round in $(seq "$rounds"); do
  tvm_out=$("$tvm_bench" "$runs")
  vtac_out=$("$vtac_bench" "$runs" "$kernel")
  tvm_ms=$(echo "$tvm_out" | field cpu_ms_per_run)
  vtac_ms=$(echo "$vtac_out" | field cpu_ms_per_run)
  tvm_sum=$(echo "$tvm_out" | field output_checksum)
  vtac_sum=$(echo "$vtac_out" | field output_checksum)
  if [ "$tvm_sum" != "$vtac_sum" ]; then
    echo "error: output checksums differ (TVM $tvm_sum, vtac $vtac_sum)" >&2
    exit 1
  fi
  echo "round $round: TVM $tvm_ms ms, vtac $vtac_ms ms CPU per run: $(echo "$tvm_ms $vtac_ms" | awk '{printf "%.1f", $1 / $2}')x (checksum $vtac_sum)"
  best_vtac=$(echo "${best_vtac:-$vtac_ms} $vtac_ms" | awk '{print ($2 < $1) ? $2 : $1}')
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"

mhz=$(sed -n 's/^cpu MHz[^:]*: *//p' /proc/cpuinfo | head -1)
bits=256
grep -qw avx512_vnni /proc/cpuinfo && bits=512
per_cycle=${VTA_PEAK_VNNI_PER_CYCLE:-2}
echo "$mhz $bits $per_cycle $best_vtac $macs_per_run" | awk '{
  peak = $1 * 1e6 * ($2 / 8) * $3
  printf "peak = %.0f MHz x %d lanes x %d per cycle = %.3e int8 MAC/s: a run needs at least %.3f ms\n", $1, $2 / 8, $3, peak, $5 / peak * 1e3
  printf "vtac best round %.3f ms = %.3e MAC/s = %.0f%% of that peak\n", $4, $5 / ($4 * 1e-3), 100 * $5 / ($4 * 1e-3) / peak
}'
if [ -x "$build/bin/vta_vnni_peak" ]; then
  measured=$("$build/bin/vta_vnni_peak" | field int8_macs_per_s)
  echo "$measured $best_vtac $macs_per_run" | awk '{
    printf "measured peak (vta_vnni_peak) %.3e MAC/s: a run needs at least %.3f ms; vtac at %.0f%% of it\n", $1, $3 / $1 * 1e3, 100 * $3 / ($2 * 1e-3) / $1 }'
fi
