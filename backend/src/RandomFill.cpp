#include "vtac/backend/RandomFill.h"

namespace vtac::backend {

uint64_t fnv1a64(llvm::StringRef bytes) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char byte : bytes) {
    hash ^= byte;
    hash *= 0x100000001b3ull;
  }
  return hash;
}

void fillRandom(Tensor &tensor, uint64_t seed, llvm::StringRef name) {
  SplitMix64 generator(seed ^ fnv1a64(name));
  ir::DataType dtype = tensor.dtype();
  int64_t count = tensor.numElements();
  if (dtype.isFloat()) {
    int significantBits = dtype.bits() == 16 ? 11 : dtype.bits() == 32 ? 24 : 53;
    double scale = 1.0 / double(uint64_t(1) << significantBits);
    for (int64_t i = 0; i < count; ++i) {
      uint64_t k = generator.next() >> (64 - significantBits);
      tensor.setDouble(i, (2.0 * double(k) - double(uint64_t(1) << significantBits)) * scale);
    }
    return;
  }
  // setInt keeps the low bits (bool: tests != 0, so take the lowest bit first).
  for (int64_t i = 0; i < count; ++i) {
    uint64_t bits = generator.next();
    tensor.setInt(i, dtype.isBool() ? int64_t(bits & 1) : int64_t(bits));
  }
}

}  // namespace vtac::backend
