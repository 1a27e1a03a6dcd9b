// AVX-512 VNNI GEMM kernel. vpdpbusd multiplies unsigned by signed bytes, so the input is
// biased by 128 (x ^ 0x80 = x + 128 as unsigned) and 128 * (row sum of the weights) is
// subtracted afterwards; modulo 2^32 this is exactly the signed product. Four weight rows
// share one 512-bit register, 16 output rows are reduced at once.
// Compiled with -mavx512f -mavx512vnni; called only when the CPU has both.
#include <immintrin.h>

#include "gemm_kernel.h"

namespace vta::sim {

namespace {

// 16 input channels of rows o..o+3 of a weight tile, one row per 128-bit lane.
__m512i loadFourRows(const int8_t* wgt, uint32_t blockIn, uint32_t o, uint32_t chunk) {
  const int8_t* first = wgt + o * blockIn + 16 * chunk;
  if (blockIn == 16) return _mm512_loadu_si512(first);
  __m512i rows = _mm512_castsi128_si512(_mm_loadu_si128(reinterpret_cast<const __m128i*>(first)));
  for (int r = 1; r < 4; ++r) {
    const __m128i row = _mm_loadu_si128(reinterpret_cast<const __m128i*>(first + r * blockIn));
    switch (r) {
      case 1: rows = _mm512_inserti32x4(rows, row, 1); break;
      case 2: rows = _mm512_inserti32x4(rows, row, 2); break;
      default: rows = _mm512_inserti32x4(rows, row, 3); break;
    }
  }
  return rows;
}

// p[g] lane 4j+q holds a partial sum of row 4g+j; returns the 16 row sums in row order.
__m512i reduceRows16(const __m512i p[4]) {
  const __m512i s01 = _mm512_add_epi32(_mm512_unpacklo_epi32(p[0], p[1]),
                                       _mm512_unpackhi_epi32(p[0], p[1]));
  const __m512i s23 = _mm512_add_epi32(_mm512_unpacklo_epi32(p[2], p[3]),
                                       _mm512_unpackhi_epi32(p[2], p[3]));
  // Lane 4j+g now holds the sum of row 4g+j.
  const __m512i sums = _mm512_add_epi32(_mm512_unpacklo_epi64(s01, s23),
                                        _mm512_unpackhi_epi64(s01, s23));
  const __m512i rowOrder =
      _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  return _mm512_permutexvar_epi32(rowOrder, sums);
}

}  // namespace

void runAvx512VnniGemm(const GemmShape& shape, const GemmMemories& mem, const GemmTile* tiles,
                       size_t count) {
  const uint32_t inpTile = shape.batch * shape.blockIn;
  const uint32_t wgtTile = shape.blockOut * shape.blockIn;
  const uint32_t accTile = shape.batch * shape.blockOut;
  const uint32_t chunks = shape.blockIn / 16;
  const __m128i bias = _mm_set1_epi8(static_cast<char>(0x80));
  for (size_t t = 0; t < count; ++t) {
    int32_t* acc = mem.acc + size_t{tiles[t].acc} * accTile;
    const int8_t* inp = mem.inp + size_t{tiles[t].inp} * inpTile;
    const int8_t* wgt = mem.wgt + size_t{tiles[t].wgt} * wgtTile;
    const int32_t* rowSum = mem.wgtRowSum + size_t{tiles[t].wgt} * shape.blockOut;
    for (uint32_t b = 0; b < shape.batch; ++b) {
      const int8_t* x = inp + b * shape.blockIn;
      int32_t* out = acc + b * shape.blockOut;
      for (uint32_t o0 = 0; o0 < shape.blockOut; o0 += 16) {
        __m512i partial[4] = {_mm512_setzero_si512(), _mm512_setzero_si512(),
                              _mm512_setzero_si512(), _mm512_setzero_si512()};
        for (uint32_t c = 0; c < chunks; ++c) {
          const __m128i xu = _mm_xor_si128(
              _mm_loadu_si128(reinterpret_cast<const __m128i*>(x + 16 * c)), bias);
          const __m512i xb = _mm512_broadcast_i32x4(xu);
          for (uint32_t g = 0; g < 4; ++g)
            partial[g] = _mm512_dpbusd_epi32(partial[g], xb,
                                             loadFourRows(wgt, shape.blockIn, o0 + 4 * g, c));
        }
        const __m512i correction = _mm512_slli_epi32(_mm512_loadu_si512(rowSum + o0), 7);
        const __m512i sums = _mm512_sub_epi32(reduceRows16(partial), correction);
        _mm512_storeu_si512(out + o0, _mm512_add_epi32(_mm512_loadu_si512(out + o0), sums));
      }
    }
  }
}

}  // namespace vta::sim
