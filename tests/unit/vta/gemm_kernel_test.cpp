// The vectorised GEMM kernels of the simulator (AVX2, AVX-512 VNNI) against the portable one,
// and the portable one against a direct int64 computation, on random int8 data for several
// tile shapes, including accumulators near the int32 limits (wrap-around must agree).
#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <vector>

#include "gemm_kernel.h"

using namespace vta::sim;

namespace {

struct GemmCase {
  GemmShape shape;
  std::vector<int8_t> inp, wgt, wgtInterleaved;
  std::vector<uint8_t> inpBiased;
  std::vector<int32_t> acc, rowSum;
  std::vector<GemmTile> tiles;
};

GemmCase randomCase(const GemmShape& shape, uint32_t seed) {
  // Tile indices stay below kTilesPerMemory - 3 so that the shifted run (+1, +2, +3) fits.
  constexpr uint32_t kTilesPerMemory = 16, kTileCount = 200;
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> byte(-128, 127);
  std::uniform_int_distribution<int32_t> word(INT32_MIN, INT32_MAX);
  std::uniform_int_distribution<uint32_t> tile(0, kTilesPerMemory - 4);
  GemmCase c{shape, {}, {}, {}, {}, {}, {}, {}};
  c.inp.resize(kTilesPerMemory * shape.batch * shape.blockIn);
  c.wgt.resize(kTilesPerMemory * shape.blockOut * shape.blockIn);
  c.acc.resize(kTilesPerMemory * shape.batch * shape.blockOut);
  for (auto& v : c.inp) v = static_cast<int8_t>(byte(rng));
  for (auto& v : c.wgt) v = static_cast<int8_t>(byte(rng));
  for (auto& v : c.acc) v = word(rng);
  // The derived copies the simulator keeps for the VNNI kernel, as a load would refresh them.
  c.inpBiased.resize(c.inp.size());
  c.wgtInterleaved.resize(c.wgt.size());
  c.rowSum.resize(kTilesPerMemory * shape.blockOut);
  prepareInputTiles(shape, c.inp.data(), c.inpBiased.data(), 0, kTilesPerMemory);
  prepareWeightTiles(shape, c.wgt.data(), c.wgtInterleaved.data(), c.rowSum.data(), 0, kTilesPerMemory);
  // Runs of micro-ops sharing a weight tile, as in a convolution (kernels may keep it loaded).
  std::bernoulli_distribution sameWeight(0.6);
  for (uint32_t n = 0; n < kTileCount; ++n) {
    const uint32_t wgt = n > 0 && sameWeight(rng) ? c.tiles.back().wgt : tile(rng);
    c.tiles.push_back({tile(rng), tile(rng), wgt});
  }
  return c;
}

std::vector<int32_t> runKernel(const GemmKernel& kernel, const GemmCase& c) {
  std::vector<int32_t> acc = c.acc;
  // The tiles as micro-ops of one loop iteration (offset 0) plus a shifted second iteration.
  const GemmMemories memories{acc.data(),         c.inp.data(),           c.wgt.data(),
                              c.inpBiased.data(), c.wgtInterleaved.data(), c.rowSum.data()};
  kernel.run(c.shape, memories, c.tiles.data(), c.tiles.size(), GemmTile{0, 0, 0});
  kernel.run(c.shape, memories, c.tiles.data(), c.tiles.size(), GemmTile{1, 2, 3});
  return acc;
}

// acc += inp . wgt^T tile by tile, in int64 reduced modulo 2^32.
std::vector<int32_t> directGemm(const GemmCase& c) {
  const GemmShape& s = c.shape;
  std::vector<int64_t> acc(c.acc.begin(), c.acc.end());
  std::vector<GemmTile> tiles = c.tiles;
  for (const GemmTile& t : c.tiles) tiles.push_back({t.acc + 1, t.inp + 2, t.wgt + 3});
  for (const GemmTile& t : tiles)
    for (uint32_t b = 0; b < s.batch; ++b)
      for (uint32_t o = 0; o < s.blockOut; ++o)
        for (uint32_t i = 0; i < s.blockIn; ++i)
          acc[(t.acc * s.batch + b) * s.blockOut + o] +=
              int64_t{c.inp[(t.inp * s.batch + b) * s.blockIn + i]} *
              c.wgt[(t.wgt * s.blockOut + o) * s.blockIn + i];
  std::vector<int32_t> wrapped;
  for (int64_t v : acc) wrapped.push_back(static_cast<int32_t>(static_cast<uint32_t>(v)));
  return wrapped;
}

}  // namespace

TEST_CASE("every GEMM kernel gives the portable kernel's results", "[vta][sim][gemm]") {
  const GemmShape shapes[] = {{1, 16, 16}, {2, 16, 16}, {1, 32, 32}, {4, 64, 64},
                              {1, 8, 8},   {2, 16, 8},  {1, 4, 16},  {2, 8, 32}};
  uint32_t seed = 1;
  for (const GemmShape& shape : shapes) {
    CAPTURE(shape.batch, shape.blockIn, shape.blockOut);
    const GemmCase c = randomCase(shape, seed++);
    const std::vector<int32_t> reference = runKernel(portableGemmKernel(), c);
    REQUIRE(reference == directGemm(c));
    for (const GemmKernel* kernel : {&avx2GemmKernel(), &avx512VnniGemmKernel()}) {
      CAPTURE(kernel->name);
      if (!kernel->cpuSupports()) {
        WARN(kernel->name << " not supported by this CPU: not compared");
        continue;
      }
      if (!kernel->shapeSupported(shape)) continue;  // the simulator uses the portable kernel
      CHECK(runKernel(*kernel, c) == reference);
    }
  }
}

TEST_CASE("kernel selection honours the CPU and the shape", "[vta][sim][gemm]") {
  const GemmShape tvmDefault{1, 16, 16}, narrow{1, 8, 8};
  CHECK(selectGemmKernel("portable", tvmDefault) == &portableGemmKernel());
  CHECK(selectGemmKernel("no-such-kernel", tvmDefault) == nullptr);
  // A shape the vector kernels cannot handle falls back to the portable kernel.
  CHECK(selectGemmKernel("auto", narrow) == &portableGemmKernel());
  if (avx512VnniGemmKernel().cpuSupports())
    CHECK(selectGemmKernel("auto", tvmDefault) == &avx512VnniGemmKernel());
  else if (avx2GemmKernel().cpuSupports())
    CHECK(selectGemmKernel("auto", tvmDefault) == &avx2GemmKernel());
}
