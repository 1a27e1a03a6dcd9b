// AVX-512 VNNI GEMM kernel. One 512-bit register holds the 16 int32 accumulators of 16 output
// rows; vpdpbusd adds, per row, the products of 4 input bytes (broadcast to every lane) with
// the 4 weights of that row for the same input channels (the interleaved weight copy), so no
// horizontal reduction is needed. vpdpbusd multiplies unsigned by signed bytes: the inputs are
// read biased by 128 and 128 * (row sum of the weights) is subtracted, which modulo 2^32 is
// exactly the signed product.
//
// TVM's default shape (1x16x16) runs the plan block by block (gemm_plan.h): the block's
// accumulator tiles stay in registers over all its steps, each step's weight tile is loaded
// once for the block, and the row-sum correction, equal for every accumulator of a block, is
// summed once per step; each accumulator tile is read and written once per block instead of
// once per micro-op. Paired blocks run together: each broadcast input feeds both weight
// tiles, half the broadcasts per vpdpbusd. Other shapes form each micro-op's dot product from zero and then add it.
// Compiled with -mavx512f -mavx512vnni; called only when the CPU has both.
#include <immintrin.h>

#include <array>
#include <cstring>
#include <utility>

#include "gemm_kernel.h"

namespace vta::sim {

namespace {

__m512i broadcastFourInputs(const uint8_t* x) {
  int32_t four;
  std::memcpy(&four, x, sizeof four);
  return _mm512_set1_epi32(four);
}

// Adds the dot products of one input row x (groups of 4 biased bytes) with 16 weight rows.
template <uint32_t kGroups>
void accumulateRow16(const uint8_t* x, const int8_t* wgt, uint32_t groupStride,
                     const int32_t* rowSum, int32_t* out) {
  __m512i even = _mm512_setzero_si512(), odd = _mm512_setzero_si512();
  for (uint32_t g = 0; g < kGroups; g += 2) {
    even = _mm512_dpbusd_epi32(even, broadcastFourInputs(x + 4 * g),
                               _mm512_loadu_si512(wgt + g * groupStride));
    if (g + 1 < kGroups)
      odd = _mm512_dpbusd_epi32(odd, broadcastFourInputs(x + 4 * (g + 1)),
                                _mm512_loadu_si512(wgt + (g + 1) * groupStride));
  }
  const __m512i dot = _mm512_sub_epi32(_mm512_add_epi32(even, odd),
                                       _mm512_slli_epi32(_mm512_loadu_si512(rowSum), 7));
  _mm512_storeu_si512(out, _mm512_add_epi32(_mm512_loadu_si512(out), dot));
}

// Any batch, blockOut a multiple of 16; kGroups = blockIn / 4 when known at compile time.
// Shapes and base pointers are copied into locals: the accumulator stores could otherwise
// alias them (int32 vs uint32) and force reloads in the inner loop.
template <uint32_t kGroups>
void runTiles(const GemmShape& shapeRef, const GemmMemories& memRef, const GemmPlan& plan) {
  const GemmShape shape = shapeRef;
  int32_t* const accBase = memRef.acc;
  const uint8_t* const inpBase = memRef.inpBiased;
  const int8_t* const wgtBase = memRef.wgtInterleaved;
  const int32_t* const rowSumBase = memRef.wgtRowSum;
  const uint32_t inpTile = shape.batch * shape.blockIn;
  const uint32_t wgtTile = shape.blockOut * shape.blockIn;
  const uint32_t accTile = shape.batch * shape.blockOut;
  const uint32_t groupStride = shape.blockOut * 4;  // bytes between groups of 4 channels
  for (const GemmTile& uop : plan.tiles) {
    int32_t* acc = accBase + size_t{uop.acc} * accTile;
    const uint8_t* inp = inpBase + size_t{uop.inp} * inpTile;
    const int8_t* wgt = wgtBase + size_t{uop.wgt} * wgtTile;
    const int32_t* rowSum = rowSumBase + size_t{uop.wgt} * shape.blockOut;
    for (uint32_t b = 0; b < shape.batch; ++b)
      for (uint32_t o0 = 0; o0 < shape.blockOut; o0 += 16)
        accumulateRow16<kGroups>(inp + b * shape.blockIn, wgt + o0 * 4, groupStride,
                                 rowSum + o0, acc + b * shape.blockOut + o0);
  }
}

// kOuts blocks (1, or 2 paired ones: GemmPlan::Block::pairedWithNext) of kAccs accumulator
// tiles of shape 1x16x16 that read the same inputs: kOuts x kAccs registers of 16 int32 sums,
// four registers per block for the step's weight tile (4 groups of 4 channels x 16 rows); each
// broadcast input group feeds kOuts vpdpbusd. blockTiles[o] are block o's tiles.
// kConsecutive: the inputs are consecutive tiles (GemmPlan::Block::consecutiveInputs), so the
// input addresses are constant offsets from one per step.
template <uint32_t kOuts, uint32_t kAccs, bool kConsecutive>
void runBlocks1x16x16(const GemmMemories& mem, const GemmTile* const* blockTiles, uint32_t steps) {
  // The sums start from the accumulator tiles themselves: with sums from zero, added to the
  // tiles after the loop, GCC 12 kept copies of the sums on the stack in every step.
  __m512i sum[kOuts][kAccs];
  __m512i rowSums[kOuts];
#pragma GCC unroll 2
  for (uint32_t o = 0; o < kOuts; ++o) {
    rowSums[o] = _mm512_setzero_si512();
#pragma GCC unroll 16
    for (uint32_t a = 0; a < kAccs; ++a)
      sum[o][a] = _mm512_loadu_si512(mem.acc + size_t{blockTiles[o][a].acc} * 16);
  }
  for (uint32_t s = 0; s < steps; ++s) {
    __m512i w[kOuts][4];
#pragma GCC unroll 2
    for (uint32_t o = 0; o < kOuts; ++o) {
      const GemmTile& first = blockTiles[o][size_t{s} * kAccs];
      const int8_t* wgt = mem.wgtInterleaved + size_t{first.wgt} * 256;
#pragma GCC unroll 4
      for (uint32_t g = 0; g < 4; ++g) w[o][g] = _mm512_loadu_si512(wgt + 64 * g);
      rowSums[o] = _mm512_add_epi32(rowSums[o],
                                    _mm512_loadu_si512(mem.wgtRowSum + size_t{first.wgt} * 16));
    }
    const GemmTile* step = blockTiles[0] + size_t{s} * kAccs;
#pragma GCC unroll 16
    for (uint32_t a = 0; a < kAccs; ++a) {
      const uint8_t* x = mem.inpBiased + (kConsecutive ? size_t{step[0].inp} + a : size_t{step[a].inp}) * 16;
#pragma GCC unroll 4
      for (uint32_t g = 0; g < 4; ++g) {
        const __m512i inputs = broadcastFourInputs(x + 4 * g);
#pragma GCC unroll 2
        for (uint32_t o = 0; o < kOuts; ++o) sum[o][a] = _mm512_dpbusd_epi32(sum[o][a], inputs, w[o][g]);
      }
    }
  }
#pragma GCC unroll 2
  for (uint32_t o = 0; o < kOuts; ++o) {
    const __m512i correction = _mm512_slli_epi32(rowSums[o], 7);
#pragma GCC unroll 16
    for (uint32_t a = 0; a < kAccs; ++a) {
      _mm512_storeu_si512(mem.acc + size_t{blockTiles[o][a].acc} * 16,
                          _mm512_sub_epi32(sum[o][a], correction));
    }
  }
}

using BlockFn = void (*)(const GemmMemories&, const GemmTile* const*, uint32_t);

// runBlocks1x16x16<kOuts, 1 .. kSizes + 1, kConsecutive>, indexed by accCount - 1.
template <uint32_t kOuts, bool kConsecutive, size_t... kSizes>
constexpr std::array<BlockFn, sizeof...(kSizes)> blockFunctions(std::index_sequence<kSizes...>) {
  return {&runBlocks1x16x16<kOuts, kSizes + 1, kConsecutive>...};
}

void runPlan1x16x16(const GemmMemories& memRef, const GemmPlan& plan) {
  static constexpr auto kSingle = std::make_index_sequence<kMaxBlockAccs>();
  static constexpr auto kPaired = std::make_index_sequence<kMaxPairedBlockAccs>();
  static constexpr std::array<BlockFn, kMaxBlockAccs> kSingleFns[2] = {
      blockFunctions<1, false>(kSingle), blockFunctions<1, true>(kSingle)};
  static constexpr std::array<BlockFn, kMaxPairedBlockAccs> kPairedFns[2] = {
      blockFunctions<2, false>(kPaired), blockFunctions<2, true>(kPaired)};
  const GemmMemories mem = memRef;
  const std::vector<GemmPlan::Block>& blocks = plan.blocks;
  for (size_t b = 0; b < blocks.size(); ++b) {
    const GemmPlan::Block& block = blocks[b];
    const GemmTile* const blockTiles[2] = {
        plan.tiles.data() + block.firstTile,
        block.pairedWithNext ? plan.tiles.data() + blocks[b + 1].firstTile : nullptr};
    const BlockFn* fns = block.pairedWithNext ? kPairedFns[block.consecutiveInputs].data()
                                              : kSingleFns[block.consecutiveInputs].data();
    fns[block.accCount - 1](mem, blockTiles, block.stepCount);
    b += block.pairedWithNext;
  }
}

}  // namespace

void runAvx512VnniGemm(const GemmShape& shape, const GemmMemories& mem, const GemmPlan& plan) {
  if (shape.batch == 1 && shape.blockIn == 16 && shape.blockOut == 16)
    return runPlan1x16x16(mem, plan);
  switch (shape.blockIn) {
    case 16: return runTiles<4>(shape, mem, plan);
    case 32: return runTiles<8>(shape, mem, plan);
    case 64: return runTiles<16>(shape, mem, plan);
    default: break;
  }
  // Other multiples of 4: one group of 4 channels at a time.
  const uint32_t inpTile = shape.batch * shape.blockIn;
  const uint32_t wgtTile = shape.blockOut * shape.blockIn;
  const uint32_t accTile = shape.batch * shape.blockOut;
  const uint32_t groupStride = shape.blockOut * 4;
  for (const GemmTile& uop : plan.tiles) {
    int32_t* acc = mem.acc + size_t{uop.acc} * accTile;
    const uint8_t* inp = mem.inpBiased + size_t{uop.inp} * inpTile;
    const int8_t* wgt = mem.wgtInterleaved + size_t{uop.wgt} * wgtTile;
    const int32_t* rowSum = mem.wgtRowSum + size_t{uop.wgt} * shape.blockOut;
    for (uint32_t b = 0; b < shape.batch; ++b)
      for (uint32_t o0 = 0; o0 < shape.blockOut; o0 += 16) {
        __m512i dot = _mm512_setzero_si512();
        for (uint32_t g = 0; g < shape.blockIn / 4; ++g)
          dot = _mm512_dpbusd_epi32(dot, broadcastFourInputs(inp + b * shape.blockIn + 4 * g),
                                    _mm512_loadu_si512(wgt + g * groupStride + o0 * 4));
        dot = _mm512_sub_epi32(dot, _mm512_slli_epi32(_mm512_loadu_si512(rowSum + o0), 7));
        int32_t* out = acc + b * shape.blockOut + o0;
        _mm512_storeu_si512(out, _mm512_add_epi32(_mm512_loadu_si512(out), dot));
      }
  }
}

void prepareAvx512VnniWeightTiles(const GemmShape& shape, const int8_t* srcTiles,
                                  int8_t* wgtInterleaved, int32_t* wgtRowSum, uint32_t first,
                                  uint32_t count) {
  if (shape.blockIn != 16 || shape.blockOut != 16)
    return prepareWeightTiles(shape, srcTiles, wgtInterleaved, wgtRowSum, first, count);
  // A tile is 64 dwords d = 4 * row + group (4 rows per register); the interleaved tile holds
  // in register g the 16 dwords 4 * row + g. First pair registers (rows 0-7, 8-15) into
  // [group g of rows r..r+7 | group g + 1 of the same rows], then join the halves.
  const __m512i pairLow = _mm512_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28, 1, 5, 9, 13, 17, 21, 25, 29);
  const __m512i pairHigh = _mm512_add_epi32(pairLow, _mm512_set1_epi32(2));
  const __m512i joinLow = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23);
  const __m512i joinHigh = _mm512_add_epi32(joinLow, _mm512_set1_epi32(8));
  const __m512i ones = _mm512_set1_epi8(1);
  for (uint32_t t = first; t < first + count; ++t) {
    const int8_t* tile = srcTiles + size_t{t - first} * 256;
    const __m512i r0 = _mm512_loadu_si512(tile), r1 = _mm512_loadu_si512(tile + 64);
    const __m512i r2 = _mm512_loadu_si512(tile + 128), r3 = _mm512_loadu_si512(tile + 192);
    const __m512i g01Top = _mm512_permutex2var_epi32(r0, pairLow, r1);
    const __m512i g23Top = _mm512_permutex2var_epi32(r0, pairHigh, r1);
    const __m512i g01Bottom = _mm512_permutex2var_epi32(r2, pairLow, r3);
    const __m512i g23Bottom = _mm512_permutex2var_epi32(r2, pairHigh, r3);
    const __m512i groups[4] = {_mm512_permutex2var_epi32(g01Top, joinLow, g01Bottom),
                               _mm512_permutex2var_epi32(g01Top, joinHigh, g01Bottom),
                               _mm512_permutex2var_epi32(g23Top, joinLow, g23Bottom),
                               _mm512_permutex2var_epi32(g23Top, joinHigh, g23Bottom)};
    int8_t* out = wgtInterleaved + size_t{t} * 256;
    __m512i rowSum = _mm512_setzero_si512();
    for (int g = 0; g < 4; ++g) {
      _mm512_storeu_si512(out + 64 * g, groups[g]);
      rowSum = _mm512_dpbusd_epi32(rowSum, ones, groups[g]);
    }
    _mm512_storeu_si512(wgtRowSum + size_t{t} * 16, rowSum);
  }
}

}  // namespace vta::sim
