// The deterministic generator behind `vtac run --random-inputs --seed N`.
//
// Any tool can reproduce the data from this description alone:
//
//   stream seed   s0 = N XOR fnv1a64(parameter name)
//                 fnv1a64: h = 0xcbf29ce484222325; for each byte b: h = (h XOR b) * 0x100000001b3
//   generator     SplitMix64: state = s0; next() { state += 0x9e3779b97f4a7c15;
//                   z = state; z = (z XOR (z >> 30)) * 0xbf58476d1ce4e5b9;
//                   z = (z XOR (z >> 27)) * 0x94d049bb133111eb; return z XOR (z >> 31); }
//   elements      one next() per element, in C (row-major) order:
//                 - intN / uintN: the low N bits of next(), as two's complement for intN
//                   (uniform over the type's whole range); bool: the lowest bit
//                 - floatN with M = 11, 24, 53 significant bits for N = 16, 32, 64:
//                   k = next() >> (64 - M); value = (2k - 2^M) / 2^M, which is exactly
//                   representable and uniform on the grid of [-1, 1) with step 2^(1-M)
//
// In NumPy: the int32 parameter "A" with --seed 7 is
//   [next() & 0xffffffff reinterpreted as int32 for each element], s0 = 7 ^ fnv1a64(b"A").
#pragma once

#include <cstdint>

#include <llvm/ADT/StringRef.h>

#include "vtac/backend/Tensor.h"

namespace vtac::backend {

class SplitMix64 {
public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    state_ += 0x9e3779b97f4a7c15ull;
    uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }

private:
  uint64_t state_;
};

uint64_t fnv1a64(llvm::StringRef bytes);

// Fills every element of `tensor` as described above, for parameter `name` and `seed`.
void fillRandom(Tensor &tensor, uint64_t seed, llvm::StringRef name);

}  // namespace vtac::backend
