// The portable GEMM kernel (the reference for the vectorised ones) and kernel selection.
#include <cstring>

#include "gemm_kernel.h"

namespace vta::sim {

namespace {

// Shapes and pointers are copied into locals: the accumulator stores could otherwise alias
// them (int32 vs uint32) and force reloads in the inner loop. Non-zero template arguments fix
// the tile shape at compile time (TVM's default shape), which lets the compiler unroll.
template <uint32_t kBatch, uint32_t kBlockIn, uint32_t kBlockOut>
void runPortableTiles(const GemmShape& shapeRef, const GemmMemories& memRef,
                      const GemmPlan& plan) {
  const uint32_t batch = kBatch ? kBatch : shapeRef.batch;
  const uint32_t blockIn = kBlockIn ? kBlockIn : shapeRef.blockIn;
  const uint32_t blockOut = kBlockOut ? kBlockOut : shapeRef.blockOut;
  const GemmMemories mem = memRef;
  const GemmTile* const uops = plan.tiles.data();
  const size_t count = plan.tiles.size();
  for (size_t t = 0; t < count; ++t) {
    int32_t* acc = mem.acc + size_t{uops[t].acc} * batch * blockOut;
    const int8_t* inp = mem.inp + size_t{uops[t].inp} * batch * blockIn;
    const int8_t* wgt = mem.wgt + size_t{uops[t].wgt} * blockOut * blockIn;
    for (uint32_t b = 0; b < batch; ++b)
      for (uint32_t o = 0; o < blockOut; ++o) {
        // At most 256 int8 products: the dot product fits int32.
        int32_t dot = 0;
        for (uint32_t i = 0; i < blockIn; ++i)
          dot += int32_t{inp[b * blockIn + i]} * int32_t{wgt[o * blockIn + i]};
        // The accumulator wraps like the hardware's 32-bit adder (hence unsigned).
        int32_t& out = acc[b * blockOut + o];
        out = static_cast<int32_t>(static_cast<uint32_t>(out) + static_cast<uint32_t>(dot));
      }
  }
}

void runPortable(const GemmShape& shape, const GemmMemories& mem, const GemmPlan& plan) {
  if (shape.batch == 1 && shape.blockIn == 16 && shape.blockOut == 16)
    return runPortableTiles<1, 16, 16>(shape, mem, plan);
  return runPortableTiles<0, 0, 0>(shape, mem, plan);
}

bool always() { return true; }
bool anyShape(const GemmShape&) { return true; }

#if VTA_SIM_X86_KERNELS
// The CPU checks and shape tests live here, compiled for the baseline instruction set.
bool cpuHasAvx2() { return __builtin_cpu_supports("avx2"); }
bool cpuHasAvx512Vnni() {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vnni");
}
// AVX2: 16 input channels per step, 8 output rows per reduction.
bool avx2Shape(const GemmShape& s) { return s.blockIn % 16 == 0 && s.blockOut % 8 == 0; }
// VNNI: 4 input channels per step, 16 output rows per register.
bool avx512VnniShape(const GemmShape& s) { return s.blockIn % 4 == 0 && s.blockOut % 16 == 0; }
#endif

}  // namespace

void prepareInputTiles(const GemmShape& shape, const int8_t* inp, uint8_t* inpBiased,
                       uint32_t first, uint32_t count) {
  const size_t tileBytes = size_t{shape.batch} * shape.blockIn;
  for (size_t i = first * tileBytes; i < (size_t{first} + count) * tileBytes; ++i)
    inpBiased[i] = static_cast<uint8_t>(inp[i] ^ 0x80);
}

void prepareWeightTiles(const GemmShape& shape, const int8_t* srcTiles, int8_t* wgtInterleaved,
                        int32_t* wgtRowSum, uint32_t first, uint32_t count) {
  const size_t tileBytes = size_t{shape.blockOut} * shape.blockIn;
  for (uint32_t t = first; t < first + count; ++t) {
    const int8_t* tile = srcTiles + (t - first) * tileBytes;
    int8_t* interleaved = wgtInterleaved + t * tileBytes;
    for (uint32_t o = 0; o < shape.blockOut; ++o) {
      const int8_t* row = tile + o * shape.blockIn;
      int32_t sum = 0;
      for (uint32_t i = 0; i < shape.blockIn; ++i) sum += row[i];
      wgtRowSum[size_t{t} * shape.blockOut + o] = sum;
      // Groups of 4 channels move together (blockIn is a power of two: a multiple of 4 or
      // smaller than 4, and the VNNI kernel only runs for multiples of 4).
      for (uint32_t i = 0; i + 4 <= shape.blockIn; i += 4)
        std::memcpy(interleaved + ((i / 4) * shape.blockOut + o) * 4, row + i, 4);
    }
  }
}

void restoreWeightTiles(const GemmShape& shape, const int8_t* wgtInterleaved, int8_t* wgt,
                        uint32_t first, uint32_t count) {
  const size_t tileBytes = size_t{shape.blockOut} * shape.blockIn;
  for (uint32_t t = first; t < first + count; ++t)
    for (uint32_t o = 0; o < shape.blockOut; ++o)
      for (uint32_t i = 0; i + 4 <= shape.blockIn; i += 4)
        std::memcpy(wgt + t * tileBytes + o * shape.blockIn + i,
                    wgtInterleaved + t * tileBytes + ((i / 4) * shape.blockOut + o) * 4, 4);
}

const GemmKernel& portableGemmKernel() {
  static const GemmKernel kernel{"portable", runPortable, nullptr, nullptr, always, anyShape};
  return kernel;
}

#if VTA_SIM_X86_KERNELS
const GemmKernel& avx2GemmKernel() {
  static const GemmKernel kernel{"avx2", runAvx2Gemm, nullptr, nullptr, cpuHasAvx2, avx2Shape};
  return kernel;
}

const GemmKernel& avx512VnniGemmKernel() {
  static const GemmKernel kernel{"avx512vnni", runAvx512VnniGemm, prepareInputTiles,
                                 prepareAvx512VnniWeightTiles, cpuHasAvx512Vnni,
                                 avx512VnniShape};
  return kernel;
}
#endif

const GemmKernel* selectGemmKernel(const char* name, const GemmShape& shape) {
  const GemmKernel* byPreference[] = {
#if VTA_SIM_X86_KERNELS
      &avx512VnniGemmKernel(), &avx2GemmKernel(),
#endif
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
