// AVX2 GEMM kernel: int8 operands widened to int16, multiplied and pair-summed into int32
// (vpmaddwd, exact: AVX2's byte multiply, vpmaddubsw, saturates its int16 sums).
//
// TVM's default shape (1x16x16) runs the plan block by block (gemm_plan.h), as the VNNI kernel
// does: each step's weight tile is widened once for the block into groups of 4 input channels
// x 4 output rows (one register: 2 channel pairs of 4 rows), each input tile once per
// accumulator, its 4-channel groups broadcast by a permute; a register's lanes are (row, channel
// pair) sums, accumulated over all groups and steps in registers and reduced to one sum per row
// once per block. Other shapes reduce each micro-op's 8 output rows with horizontal adds.
// Compiled with -mavx2; called only when the CPU has AVX2 (see gemm_portable.cpp).
#include <immintrin.h>

#include <vector>

#include "gemm_kernel.h"

namespace vta::sim {

namespace {

__m128i load16(const int8_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }

// Sums each of 8 vectors of 8 int32 lanes: result lane r = sum of the lanes of p[r].
__m256i reduceRows8(const __m256i p[8]) {
  __m256i h01 = _mm256_hadd_epi32(p[0], p[1]);
  __m256i h23 = _mm256_hadd_epi32(p[2], p[3]);
  __m256i h45 = _mm256_hadd_epi32(p[4], p[5]);
  __m256i h67 = _mm256_hadd_epi32(p[6], p[7]);
  __m256i h0123 = _mm256_hadd_epi32(h01, h23);
  __m256i h4567 = _mm256_hadd_epi32(h45, h67);
  __m256i low = _mm256_permute2x128_si256(h0123, h4567, 0x20);
  __m256i high = _mm256_permute2x128_si256(h0123, h4567, 0x31);
  return _mm256_add_epi32(low, high);
}

// One 16x16 weight tile widened: group[g][q] holds rows 4q..4q+3 of input channels 4g..4g+3 as
// int16, each row's four in a row (a 4x4 transpose of the rows' 32-bit groups).
struct WideWeights {
  __m256i group[4][4];
};

void widenWeightTile(const int8_t* wgt, WideWeights& wide) {
  for (uint32_t q = 0; q < 4; ++q) {
    const __m128i r0 = load16(wgt + 64 * q), r1 = load16(wgt + 64 * q + 16);
    const __m128i r2 = load16(wgt + 64 * q + 32), r3 = load16(wgt + 64 * q + 48);
    const __m128i t0 = _mm_unpacklo_epi32(r0, r1), t1 = _mm_unpackhi_epi32(r0, r1);
    const __m128i t2 = _mm_unpacklo_epi32(r2, r3), t3 = _mm_unpackhi_epi32(r2, r3);
    wide.group[0][q] = _mm256_cvtepi8_epi16(_mm_unpacklo_epi64(t0, t2));
    wide.group[1][q] = _mm256_cvtepi8_epi16(_mm_unpackhi_epi64(t0, t2));
    wide.group[2][q] = _mm256_cvtepi8_epi16(_mm_unpacklo_epi64(t1, t3));
    wide.group[3][q] = _mm256_cvtepi8_epi16(_mm_unpackhi_epi64(t1, t3));
  }
}

// Accumulators a0 .. a0 + kAccs - 1 of a block over all its steps: sum[a][q] lanes are (row
// 4q + r, channel pair h) at 2r + h.
template <uint32_t kAccs>
void runAccumulators(const GemmMemories& mem, const GemmTile* tiles, uint32_t accCount, uint32_t a0,
                     const std::vector<WideWeights>& steps) {
  __m256i sum[kAccs][4];
  for (auto& row : sum)
    for (__m256i& v : row) v = _mm256_setzero_si256();
  for (size_t s = 0; s < steps.size(); ++s) {
    const WideWeights& w = steps[s];
    const GemmTile* step = tiles + s * accCount + a0;
    for (uint32_t a = 0; a < kAccs; ++a) {
      const __m256i x = _mm256_cvtepi8_epi16(load16(mem.inp + size_t{step[a].inp} * 16));
      // group g's four channels in every 64-bit lane
      const __m256i xg[4] = {_mm256_permute4x64_epi64(x, 0x00), _mm256_permute4x64_epi64(x, 0x55),
                             _mm256_permute4x64_epi64(x, 0xaa), _mm256_permute4x64_epi64(x, 0xff)};
      for (uint32_t g = 0; g < 4; ++g)
        for (uint32_t q = 0; q < 4; ++q) sum[a][q] = _mm256_add_epi32(sum[a][q], _mm256_madd_epi16(xg[g], w.group[g][q]));
    }
  }
  for (uint32_t a = 0; a < kAccs; ++a) {
    // hadd pairs (row, 0) + (row, 1): rows 0 1 4 5 | 2 3 6 7, put in order by the permute
    const __m256i low = _mm256_permute4x64_epi64(_mm256_hadd_epi32(sum[a][0], sum[a][1]), 0xd8);
    const __m256i high = _mm256_permute4x64_epi64(_mm256_hadd_epi32(sum[a][2], sum[a][3]), 0xd8);
    __m256i* out = reinterpret_cast<__m256i*>(mem.acc + size_t{tiles[a0 + a].acc} * 16);
    _mm256_storeu_si256(out, _mm256_add_epi32(_mm256_loadu_si256(out), low));
    _mm256_storeu_si256(out + 1, _mm256_add_epi32(_mm256_loadu_si256(out + 1), high));
  }
}

void runPlan1x16x16(const GemmMemories& mem, const GemmPlan& plan) {
  // Three accumulator tiles at a time keep their 12 sums in registers.
  constexpr uint32_t kChunk = 3;
  thread_local std::vector<WideWeights> steps;
  for (const GemmPlan::Block& block : plan.blocks) {
    const GemmTile* tiles = plan.tiles.data() + block.firstTile;
    steps.resize(block.stepCount);
    for (uint32_t s = 0; s < block.stepCount; ++s)
      widenWeightTile(mem.wgt + size_t{tiles[size_t{s} * block.accCount].wgt} * 256, steps[s]);
    uint32_t a0 = 0;
    for (; a0 + kChunk <= block.accCount; a0 += kChunk) runAccumulators<kChunk>(mem, tiles, block.accCount, a0, steps);
    if (block.accCount - a0 == 2) runAccumulators<2>(mem, tiles, block.accCount, a0, steps);
    if (block.accCount - a0 == 1) runAccumulators<1>(mem, tiles, block.accCount, a0, steps);
  }
}

}  // namespace

void runAvx2Gemm(const GemmShape& shapeRef, const GemmMemories& memRef, const GemmPlan& plan) {
  if (shapeRef.batch == 1 && shapeRef.blockIn == 16 && shapeRef.blockOut == 16) return runPlan1x16x16(memRef, plan);
  // Locals: the accumulator stores could otherwise alias the arguments and force reloads.
  const GemmShape shape = shapeRef;
  const GemmMemories mem = memRef;
  const GemmTile* const uops = plan.tiles.data();
  const size_t count = plan.tiles.size();
  const uint32_t inpTile = shape.batch * shape.blockIn;
  const uint32_t wgtTile = shape.blockOut * shape.blockIn;
  const uint32_t accTile = shape.batch * shape.blockOut;
  const uint32_t chunks = shape.blockIn / 16;
  for (size_t t = 0; t < count; ++t) {
    int32_t* acc = mem.acc + size_t{uops[t].acc} * accTile;
    const int8_t* inp = mem.inp + size_t{uops[t].inp} * inpTile;
    const int8_t* wgt = mem.wgt + size_t{uops[t].wgt} * wgtTile;
    for (uint32_t b = 0; b < shape.batch; ++b) {
      const int8_t* x = inp + b * shape.blockIn;
      int32_t* out = acc + b * shape.blockOut;
      for (uint32_t o0 = 0; o0 < shape.blockOut; o0 += 8) {
        __m256i partial[8];
        for (__m256i& p : partial) p = _mm256_setzero_si256();
        for (uint32_t c = 0; c < chunks; ++c) {
          const __m256i xv = _mm256_cvtepi8_epi16(load16(x + 16 * c));
          for (uint32_t r = 0; r < 8; ++r) {
            const __m256i wv = _mm256_cvtepi8_epi16(load16(wgt + (o0 + r) * shape.blockIn + 16 * c));
            partial[r] = _mm256_add_epi32(partial[r], _mm256_madd_epi16(xv, wv));
          }
        }
        __m256i* dst = reinterpret_cast<__m256i*>(out + o0);
        _mm256_storeu_si256(dst, _mm256_add_epi32(_mm256_loadu_si256(dst), reduceRows8(partial)));
      }
    }
  }
}

}  // namespace vta::sim
