// AVX-512 VNNI GEMM kernel. One 512-bit register holds the 16 int32 accumulators of 16 output
// rows; vpdpbusd adds, per row, the products of 4 input bytes (broadcast to every lane) with
// the 4 weights of that row for the same input channels (the interleaved weight copy), so no
// horizontal reduction is needed. vpdpbusd multiplies unsigned by signed bytes: the inputs are
// read biased by 128 and 128 * (row sum of the weights) is subtracted, which modulo 2^32 is
// exactly the signed product.
//
// The dot product is formed from zero and only then added to the accumulator, so that the
// chain of vpdpbusd latencies is not on the path through memory: micro-ops that revisit an
// accumulator tile (a convolution's do, every 14 micro-ops in the seed program) then overlap.
// Compiled with -mavx512f -mavx512vnni; called only when the CPU has both.
#include <immintrin.h>

#include <cstring>

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
void runTiles(const GemmShape& shapeRef, const GemmMemories& memRef, const GemmTile* uops,
              size_t count, const GemmTile& offsetRef) {
  const GemmShape shape = shapeRef;
  const GemmTile offset = offsetRef;
  int32_t* const accBase = memRef.acc;
  const uint8_t* const inpBase = memRef.inpBiased;
  const int8_t* const wgtBase = memRef.wgtInterleaved;
  const int32_t* const rowSumBase = memRef.wgtRowSum;
  const uint32_t inpTile = shape.batch * shape.blockIn;
  const uint32_t wgtTile = shape.blockOut * shape.blockIn;
  const uint32_t accTile = shape.batch * shape.blockOut;
  const uint32_t groupStride = shape.blockOut * 4;  // bytes between groups of 4 channels
  for (size_t t = 0; t < count; ++t) {
    const GemmTile uop = uops[t];
    int32_t* acc = accBase + size_t{uop.acc + offset.acc} * accTile;
    const uint8_t* inp = inpBase + size_t{uop.inp + offset.inp} * inpTile;
    const int8_t* wgt = wgtBase + size_t{uop.wgt + offset.wgt} * wgtTile;
    const int32_t* rowSum = rowSumBase + size_t{uop.wgt + offset.wgt} * shape.blockOut;
    for (uint32_t b = 0; b < shape.batch; ++b)
      for (uint32_t o0 = 0; o0 < shape.blockOut; o0 += 16)
        accumulateRow16<kGroups>(inp + b * shape.blockIn, wgt + o0 * 4, groupStride,
                                 rowSum + o0, acc + b * shape.blockOut + o0);
  }
}

// TVM's default shape (BATCH 1, BLOCK 16): one register of accumulators per micro-op. The
// weight tile (four registers) and its correction stay in registers while consecutive
// micro-ops use the same weight tile (a convolution's 14 output columns in the seed program).
void runTiles1x16x16(const GemmMemories& memRef, const GemmTile* uops, size_t count,
                     const GemmTile& offsetRef) {
  const GemmTile offset = offsetRef;
  int32_t* const accBase = memRef.acc;
  const uint8_t* const inpBase = memRef.inpBiased;
  const int8_t* const wgtBase = memRef.wgtInterleaved;
  const int32_t* const rowSumBase = memRef.wgtRowSum;
  size_t t = 0;
  while (t < count) {
    const uint32_t wgtIndex = uops[t].wgt;
    const int8_t* wgt = wgtBase + size_t{wgtIndex + offset.wgt} * 256;
    const __m512i w0 = _mm512_loadu_si512(wgt), w1 = _mm512_loadu_si512(wgt + 64);
    const __m512i w2 = _mm512_loadu_si512(wgt + 128), w3 = _mm512_loadu_si512(wgt + 192);
    const __m512i correction =
        _mm512_slli_epi32(_mm512_loadu_si512(rowSumBase + size_t{wgtIndex + offset.wgt} * 16), 7);
    do {
      const uint8_t* x = inpBase + size_t{uops[t].inp + offset.inp} * 16;
      int32_t* out = accBase + size_t{uops[t].acc + offset.acc} * 16;
      const __m512i even = _mm512_dpbusd_epi32(
          _mm512_dpbusd_epi32(_mm512_setzero_si512(), broadcastFourInputs(x), w0),
          broadcastFourInputs(x + 8), w2);
      const __m512i odd = _mm512_dpbusd_epi32(
          _mm512_dpbusd_epi32(_mm512_setzero_si512(), broadcastFourInputs(x + 4), w1),
          broadcastFourInputs(x + 12), w3);
      const __m512i dot = _mm512_sub_epi32(_mm512_add_epi32(even, odd), correction);
      _mm512_storeu_si512(out, _mm512_add_epi32(_mm512_loadu_si512(out), dot));
      ++t;
    } while (t < count && uops[t].wgt == wgtIndex);
  }
}

}  // namespace

void runAvx512VnniGemm(const GemmShape& shape, const GemmMemories& mem, const GemmTile* uops,
                       size_t count, const GemmTile& offset) {
  if (shape.batch == 1 && shape.blockIn == 16 && shape.blockOut == 16)
    return runTiles1x16x16(mem, uops, count, offset);
  switch (shape.blockIn) {
    case 16: return runTiles<4>(shape, mem, uops, count, offset);
    case 32: return runTiles<8>(shape, mem, uops, count, offset);
    case 64: return runTiles<16>(shape, mem, uops, count, offset);
    default: break;
  }
  // Other multiples of 4: one group of 4 channels at a time.
  const uint32_t inpTile = shape.batch * shape.blockIn;
  const uint32_t wgtTile = shape.blockOut * shape.blockIn;
  const uint32_t accTile = shape.batch * shape.blockOut;
  const uint32_t groupStride = shape.blockOut * 4;
  for (size_t t = 0; t < count; ++t) {
    int32_t* acc = mem.acc + size_t{uops[t].acc + offset.acc} * accTile;
    const uint8_t* inp = mem.inpBiased + size_t{uops[t].inp + offset.inp} * inpTile;
    const int8_t* wgt = mem.wgtInterleaved + size_t{uops[t].wgt + offset.wgt} * wgtTile;
    const int32_t* rowSum = mem.wgtRowSum + size_t{uops[t].wgt + offset.wgt} * shape.blockOut;
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

}  // namespace vta::sim
