// The GEMM arithmetic of the simulator: acc[b][o] += sum_i inp[b][i] * wgt[o][i] (int8 x int8
// -> int32, wrapping) for a list of tiles, in a portable version and in AVX2 and AVX-512 VNNI
// versions chosen at run time. All versions give bit-identical results (integer arithmetic,
// no saturation), which the unit tests check on random data.
#ifndef VTA_SIM_GEMM_KERNEL_H_
#define VTA_SIM_GEMM_KERNEL_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace vta::sim {

struct GemmShape {
  uint32_t batch, blockIn, blockOut;
};

// The three SRAMs as the kernels see them, plus derived copies that loads keep up to date
// (a kernel's prepareInputs / prepareWeights) for the VNNI kernel, whose vpdpbusd multiplies
// unsigned by signed bytes:
//  - inpBiased: every input byte x stored as x + 128 (= x ^ 0x80) in unsigned form;
//  - wgtInterleaved: each weight tile regrouped as [i / 4][o][i % 4], so that one 32-bit lane
//    per output row o holds four consecutive weights of that row;
//  - wgtRowSum[w * blockOut + o]: the sum of row o of weight tile w, to subtract
//    128 * rowSum and get back the signed product.
struct GemmMemories {
  int32_t* acc;
  const int8_t* inp;
  const int8_t* wgt;
  const uint8_t* inpBiased;
  const int8_t* wgtInterleaved;
  const int32_t* wgtRowSum;
};

// Refreshes the derived copies of `count` input (weight) tiles starting at `first`, after a load.
void prepareInputTiles(const GemmShape& shape, const int8_t* inp, uint8_t* inpBiased,
                       uint32_t first, uint32_t count);
// `srcTiles` holds the `count` weight tiles themselves (the SRAM from tile `first` on, or the
// DRAM rows a LOAD reads, so that loaded weights go straight into the kernel's layout).
void prepareWeightTiles(const GemmShape& shape, const int8_t* srcTiles, int8_t* wgtInterleaved,
                        int32_t* wgtRowSum, uint32_t first, uint32_t count);
// The inverse of prepareWeightTiles: rewrites weight tiles [first, first + count) of the SRAM
// from the interleaved copy (when a kernel without derived copies takes over from one that
// loaded weights straight into them).
void restoreWeightTiles(const GemmShape& shape, const int8_t* wgtInterleaved, int8_t* wgt,
                        uint32_t first, uint32_t count);

// Tile indices of one micro-op: accumulator, input and weight.
struct GemmTile {
  uint32_t acc, inp, wgt;
};

// Every micro-op execution of one GEMM instruction, grouped into blocks (see gemm_plan.h).
// A block is `accCount` accumulator tiles that add products with the same `stepCount` weight
// tiles in the same order; its tiles are stored step by step: tiles[firstTile + s * accCount
// + a] is step s of accumulator a, and all accumulators of a step share its weight tile.
// Kernels may run the tiles in any order (the additions wrap modulo 2^32).
constexpr uint32_t kMaxBlockAccs = 16;
// Blocks that share their inputs with another block (pairedWithNext) hold at most this many
// accumulators, so that a kernel can keep both blocks' accumulators in registers.
constexpr uint32_t kMaxPairedBlockAccs = 8;
struct GemmPlan {
  struct Block {
    uint32_t accCount, stepCount;
    size_t firstTile;
    // Accumulator a of every step reads input tile (that step's tile of accumulator 0) + a,
    // as a convolution's neighbouring outputs do: kernels may skip the per-tile indices.
    bool consecutiveInputs;
    // The next block has the same accCount and stepCount and reads the same input tile at
    // every (step, accumulator), with other weights (the next output channel block of a
    // convolution): a kernel may run both blocks from one read of each input.
    bool pairedWithNext;
  };
  std::vector<GemmTile> tiles;
  std::vector<Block> blocks;
};

// Runs a plan; the caller has checked that every index is inside its SRAM.
using GemmKernelFn = void (*)(const GemmShape& shape, const GemmMemories& memories,
                              const GemmPlan& plan);

// Refreshes the derived copies of `count` input (weight) tiles starting at `first`.
using PrepareInputsFn = void (*)(const GemmShape& shape, const int8_t* inp, uint8_t* inpBiased,
                                 uint32_t first, uint32_t count);
using PrepareWeightsFn = void (*)(const GemmShape& shape, const int8_t* srcTiles,
                                  int8_t* wgtInterleaved, int32_t* wgtRowSum, uint32_t first,
                                  uint32_t count);

struct GemmKernel {
  const char* name;
  GemmKernelFn run;
  // nullptr for kernels that read only the SRAMs themselves (no derived copies to keep).
  PrepareInputsFn prepareInputs;
  PrepareWeightsFn prepareWeights;
  bool (*cpuSupports)();
  bool (*shapeSupported)(const GemmShape& shape);
};

// The vectorised kernels are x86's; elsewhere (the PYNQ board's ARM) only the portable one is.
#if defined(__x86_64__) || defined(__i386__)
#define VTA_SIM_X86_KERNELS 1
#else
#define VTA_SIM_X86_KERNELS 0
#endif

const GemmKernel& portableGemmKernel();
#if VTA_SIM_X86_KERNELS
const GemmKernel& avx2GemmKernel();
const GemmKernel& avx512VnniGemmKernel();

// The vectorised bodies, each in a file compiled for its instruction set (only called after
// the CPU check); they handle the shapes their GemmKernel entry accepts.
void runAvx2Gemm(const GemmShape& shape, const GemmMemories& memories, const GemmPlan& plan);
void runAvx512VnniGemm(const GemmShape& shape, const GemmMemories& memories,
                       const GemmPlan& plan);
// prepareWeightTiles with AVX-512 for 16x16 weight tiles (a dword transpose by permutes, row
// sums by vpdpbusd with ones); other shapes go to prepareWeightTiles.
void prepareAvx512VnniWeightTiles(const GemmShape& shape, const int8_t* srcTiles,
                                  int8_t* wgtInterleaved, int32_t* wgtRowSum, uint32_t first,
                                  uint32_t count);
#endif

// The kernel named `name` ("auto" = fastest usable) for `shape`; falls back to the portable
// kernel when the named one cannot handle the shape. nullptr if the name is unknown or the CPU
// lacks the instructions.
const GemmKernel* selectGemmKernel(const char* name, const GemmShape& shape);

}  // namespace vta::sim

#endif  // VTA_SIM_GEMM_KERNEL_H_
