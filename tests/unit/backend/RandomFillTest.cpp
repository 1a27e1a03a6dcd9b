// The documented input generator: SplitMix64 stream per (seed, parameter name), integers over
// the whole range of their type, floats on a grid of [-1, 1).
#include <catch2/catch.hpp>

#include "vtac/backend/RandomFill.h"

using namespace vtac::backend;
using vtac::ir::DataType;

TEST_CASE("SplitMix64 and FNV-1a are the published algorithms", "[random]") {
  SplitMix64 generator(0);
  CHECK(generator.next() == 0xe220a8397b1dcdafull);
  CHECK(generator.next() == 0x6e789e6aa1b965f4ull);
  CHECK(generator.next() == 0x06c45d188009454full);
  CHECK(fnv1a64("") == 0xcbf29ce484222325ull);
  CHECK(fnv1a64("a") == 0xaf63dc4c8601ec8cull);
}

TEST_CASE("integer elements are the low bits of the parameter's stream", "[random]") {
  Tensor tensor(DataType::int32(), {3});
  fillRandom(tensor, 7, "A");
  SplitMix64 stream(7 ^ fnv1a64("A"));
  for (int64_t i = 0; i < 3; ++i) CHECK(tensor.intAt(i) == int64_t(int32_t(uint32_t(stream.next()))));
}

TEST_CASE("generated data depends on seed and name only, and covers the type's range", "[random]") {
  Tensor a(DataType::intTy(8), {4096}), b(DataType::intTy(8), {4096}), c(DataType::intTy(8), {4096});
  fillRandom(a, 1, "data");
  fillRandom(b, 1, "data");
  fillRandom(c, 1, "kernel");
  CHECK(std::equal(a.data(), a.data() + a.byteSize(), b.data()));
  CHECK_FALSE(std::equal(a.data(), a.data() + a.byteSize(), c.data()));
  int64_t low = 0, high = 0;
  for (int64_t i = 0; i < a.numElements(); ++i) {
    low = std::min(low, a.intAt(i));
    high = std::max(high, a.intAt(i));
  }
  CHECK(low == -128);
  CHECK(high == 127);
}

TEST_CASE("floats are uniform on a grid of [-1, 1)", "[random]") {
  for (int bits : {16, 32, 64}) {
    Tensor tensor(DataType::floatTy(bits), {10000});
    fillRandom(tensor, 3, "x");
    double low = 1, high = -1, sum = 0;
    for (int64_t i = 0; i < tensor.numElements(); ++i) {
      double value = tensor.doubleAt(i);
      low = std::min(low, value);
      high = std::max(high, value);
      sum += value;
    }
    CHECK(low >= -1.0);
    CHECK(high < 1.0);
    CHECK(low < -0.99);
    CHECK(high > 0.99);
    CHECK(std::abs(sum / tensor.numElements()) < 0.05);
  }
  Tensor one(DataType::float32(), {1});
  fillRandom(one, 5, "w");
  SplitMix64 stream(5 ^ fnv1a64("w"));
  uint64_t k = stream.next() >> 40;
  CHECK(one.doubleAt(0) == (2.0 * double(k) - 16777216.0) / 16777216.0);
}
