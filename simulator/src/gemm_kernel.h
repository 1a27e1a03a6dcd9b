// The GEMM arithmetic of the simulator: acc[b][o] += sum_i inp[b][i] * wgt[o][i] (int8 x int8
// -> int32, wrapping) for a list of tiles, in a portable version and in AVX2 and AVX-512 VNNI
// versions chosen at run time. All versions give bit-identical results (integer arithmetic,
// no saturation), which the unit tests check on random data.
#ifndef VTA_SIM_GEMM_KERNEL_H_
#define VTA_SIM_GEMM_KERNEL_H_

#include <cstddef>
#include <cstdint>

namespace vta::sim {

struct GemmShape {
  uint32_t batch, blockIn, blockOut;
};

// The three SRAMs as the kernels see them. `wgtRowSum[w * blockOut + o]` is the sum of row o
// of weight tile w, maintained by weight loads (the VNNI kernel needs it to turn its
// unsigned-by-signed products back into signed-by-signed ones).
struct GemmMemories {
  int32_t* acc;
  const int8_t* inp;
  const int8_t* wgt;
  const int32_t* wgtRowSum;
};

// One micro-op instance: tile indices (already offset by the loop nest, already checked).
struct GemmTile {
  uint32_t acc, inp, wgt;
};

using GemmKernelFn = void (*)(const GemmShape& shape, const GemmMemories& memories,
                              const GemmTile* tiles, size_t count);

struct GemmKernel {
  const char* name;
  GemmKernelFn run;
  bool (*cpuSupports)();
  bool (*shapeSupported)(const GemmShape& shape);
};

const GemmKernel& portableGemmKernel();
const GemmKernel& avx2GemmKernel();
const GemmKernel& avx512VnniGemmKernel();

// The vectorised bodies, each in a file compiled for its instruction set (only called after
// the CPU check); they handle the shapes their GemmKernel entry accepts.
void runAvx2Gemm(const GemmShape& shape, const GemmMemories& memories, const GemmTile* tiles,
                 size_t count);
void runAvx512VnniGemm(const GemmShape& shape, const GemmMemories& memories,
                       const GemmTile* tiles, size_t count);

// The kernel named `name` ("auto" = fastest usable) for `shape`; falls back to the portable
// kernel when the named one cannot handle the shape. nullptr if the name is unknown or the CPU
// lacks the instructions.
const GemmKernel* selectGemmKernel(const char* name, const GemmShape& shape);

}  // namespace vta::sim

#endif  // VTA_SIM_GEMM_KERNEL_H_
