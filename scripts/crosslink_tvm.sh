#!/bin/sh
# Cross-link check (not part of ctest: TVM is no dependency of vtac): seed 001's conv2d lowered
# by vtac (samples/conv2d_vta_phase1.tvm, --passes=vta-lower) and compiled into an object, linked once against vtac's runtime + simulator and once against TVM's
# own VTA runtime (src/runtime.cc) + functional simulator (tvm-vta src/sim), both running the
# same C main (tests/e2e/compile/Inputs/conv2d_main.c); the seven counters and the output check
# must agree. (The seed's verbatim program, samples/conv2d_vta_lowered.tvm, cannot run on TVM's
# runtime: its ALU kernels capture a CSE variable whose values reach 784, and TVM's runtime
# accepts only a closure of one int below 100, which is why TVM's tutorials build without CSE.
# vta-lower's kernels capture the virtual thread index only.)
#
# Usage: scripts/crosslink_tvm.sh BUILD_DIR TVM_SOURCES [WORK_DIR]
#   TVM_SOURCES: a directory holding TVM's VTA runtime and simulator as /work/tvm-sim-build
#   does (src/runtime.cc, vta/src/{sim,vmem}, include/ with the small shims for TVM's headers,
#   macros.txt with the VTA_* configuration macros).
#   WORK_DIR (default /work/tvm-xlink): where TVM's libraries and the programs are built.
# TVM's simulator keeps its counters in a thread-local profiler that only TVM's packed-function
# registry reaches; a small shim compiled with it here exports them as VTASimStatsJSON /
# VTASimClearStats (vtac's names), and VTARuntimeLastError, which TVM's runtime lacks.
set -eu
build=$(cd "$1" && pwd)
tvm=$2
work=${3:-/work/tvm-xlink}
src=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$work"
cd "$work"

cat > stats_shim.cc <<SHIM
#include "$tvm/vta/src/sim/sim_driver.cc"
extern "C" const char *VTASimStatsJSON() {
  static std::string json;
  json = vta::sim::Profiler::ThreadLocal()->AsJSON();
  return json.c_str();
}
extern "C" void VTASimClearStats() { vta::sim::Profiler::ThreadLocal()->Clear(); }
extern "C" const char *VTARuntimeLastError() { return "(TVM's runtime keeps no message)"; }
SHIM
flags="-O2 -std=c++17 -fPIC -I$tvm/include -I$tvm/vta/include $(cat "$tvm/macros.txt")"
g++ $flags -shared -o libtvm_vta_sim.so stats_shim.cc "$tvm/vta/src/sim/sim_tlpp.cc" \
  "$tvm/vta/src/vmem/virtual_memory.cc" -lpthread
g++ $flags -shared -o libtvm_vta_runtime.so "$tvm/src/runtime.cc" -L. -Wl,-rpath,"$work" -ltvm_vta_sim -lpthread

"$build/bin/vtac" compile "$src/samples/conv2d_vta_phase1.tvm" --passes=vta-lower --symbol conv2d -o conv2d.o
cflags="-std=c99 -O2 -DLAYER=conv2d -I$src/runtime/include -I$src/simulator/include -I$src/tests/e2e/compile/Inputs"
cc $cflags "$src/tests/e2e/compile/Inputs/conv2d_main.c" conv2d.o -o conv2d_tvm \
  -L. -Wl,-rpath,"$work" -ltvm_vta_runtime -ltvm_vta_sim -lstdc++ -lm -lpthread
cc $cflags "$src/tests/e2e/compile/Inputs/conv2d_main.c" conv2d.o -o conv2d_vtac \
  -L"$build/lib" -Wl,-rpath,"$build/lib" -lvta_runtime -lvta_sim -lm

# The first call's status, counters and output check (the main then tries a wrong shape, whose
# message only vtac's runtime can give).
summary() {
  sed -n '1,/^mismatches/p' | tr -d ' ,' |
    grep -E 'returned|(inp|wgt|acc|uop)_load_nbytes|out_store_nbytes|gemm_counter|alu_counter|^mismatches'
}
./conv2d_tvm | summary > tvm.txt
./conv2d_vtac | summary > vtac.txt
echo "against TVM's runtime + simulator:"
cat tvm.txt
if cmp -s tvm.txt vtac.txt; then
  echo "same status, counters and output check as vtac's runtime + simulator"
else
  echo "error: the runs differ:" >&2
  diff tvm.txt vtac.txt >&2
  exit 1
fi
