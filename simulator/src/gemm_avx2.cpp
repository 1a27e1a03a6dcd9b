// AVX2 GEMM kernel: int8 operands widened to int16, multiplied and pair-summed into int32
// (vpmaddwd, exact), partial sums of 8 output rows reduced with horizontal adds.
// Compiled with -mavx2; called only when the CPU has AVX2 (see gemm_portable.cpp).
#include <immintrin.h>

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

}  // namespace

void runAvx2Gemm(const GemmShape& shapeRef, const GemmMemories& memRef, const GemmPlan& plan) {
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
