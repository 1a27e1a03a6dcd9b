// The portable GEMM kernel (the reference for the vectorised ones) and kernel selection.
#include <cstring>

#include "gemm_kernel.h"

namespace vta::sim {

namespace {

void runPortable(const GemmShape& shape, const GemmMemories& mem, const GemmTile* tiles,
                 size_t count) {
  const uint32_t inpTile = shape.batch * shape.blockIn;
  const uint32_t wgtTile = shape.blockOut * shape.blockIn;
  const uint32_t accTile = shape.batch * shape.blockOut;
  for (size_t t = 0; t < count; ++t) {
    int32_t* acc = mem.acc + size_t{tiles[t].acc} * accTile;
    const int8_t* inp = mem.inp + size_t{tiles[t].inp} * inpTile;
    const int8_t* wgt = mem.wgt + size_t{tiles[t].wgt} * wgtTile;
    for (uint32_t b = 0; b < shape.batch; ++b) {
      for (uint32_t o = 0; o < shape.blockOut; ++o) {
        // Unsigned arithmetic: int32 accumulation wraps like the hardware's adder.
        uint32_t sum = static_cast<uint32_t>(acc[b * shape.blockOut + o]);
        for (uint32_t i = 0; i < shape.blockIn; ++i)
          sum += static_cast<uint32_t>(int32_t{inp[b * shape.blockIn + i]} *
                                       int32_t{wgt[o * shape.blockIn + i]});
        acc[b * shape.blockOut + o] = static_cast<int32_t>(sum);
      }
    }
  }
}

bool always() { return true; }
bool anyShape(const GemmShape&) { return true; }

// The CPU checks and shape tests live here, compiled for the baseline instruction set.
bool cpuHasAvx2() { return __builtin_cpu_supports("avx2"); }
bool cpuHasAvx512Vnni() {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vnni");
}
// AVX2: 16 input channels per step, 8 output rows per reduction.
bool avx2Shape(const GemmShape& s) { return s.blockIn % 16 == 0 && s.blockOut % 8 == 0; }
// VNNI: 16 input channels per step, 16 output rows per reduction.
bool avx512VnniShape(const GemmShape& s) { return s.blockIn % 16 == 0 && s.blockOut % 16 == 0; }

}  // namespace

const GemmKernel& portableGemmKernel() {
  static const GemmKernel kernel{"portable", runPortable, always, anyShape};
  return kernel;
}

const GemmKernel& avx2GemmKernel() {
  static const GemmKernel kernel{"avx2", runAvx2Gemm, cpuHasAvx2, avx2Shape};
  return kernel;
}

const GemmKernel& avx512VnniGemmKernel() {
  static const GemmKernel kernel{"avx512vnni", runAvx512VnniGemm, cpuHasAvx512Vnni,
                                 avx512VnniShape};
  return kernel;
}

const GemmKernel* selectGemmKernel(const char* name, const GemmShape& shape) {
  const GemmKernel* byPreference[] = {&avx512VnniGemmKernel(), &avx2GemmKernel(),
                                      &portableGemmKernel()};
  const bool automatic = !name || std::strcmp(name, "auto") == 0;
  for (const GemmKernel* kernel : byPreference) {
    if (!automatic && std::strcmp(name, kernel->name) != 0) continue;
    if (!kernel->cpuSupports()) {
      if (automatic) continue;
      return nullptr;
    }
    return kernel->shapeSupported(shape) ? kernel : &portableGemmKernel();
  }
  return nullptr;
}

}  // namespace vta::sim
