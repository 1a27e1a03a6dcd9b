// The vectorised GEMM kernels of the simulator (AVX2, AVX-512 VNNI) against the portable one,
// and the portable one against a direct int64 computation, on random int8 data for several
// tile shapes, including accumulators near the int32 limits (wrap-around must agree).
#include <catch2/catch.hpp>
#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "gemm_kernel.h"
#include "gemm_plan.h"

using namespace vta::sim;

namespace {

struct GemmCase {
  GemmShape shape;
  std::vector<int8_t> inp, wgt, wgtInterleaved;
  std::vector<uint8_t> inpBiased;
  std::vector<int32_t> acc, rowSum;
  std::vector<GemmTile> tiles;  // the micro-ops, run twice: as they are and shifted by `shift`
  GemmTile shift;
};

enum class Uops {
  kRandom,
  // A 1-D convolution of 6 outputs with a filter of 3 taps (filter tap outer, output inner, as
  // TVM emits them), the second run for the next output channel block: blocks of several
  // accumulators sharing weights.
  kConvolution,
  // The same, the second run reading the same inputs as the first (as seed 001's conv2d does):
  // paired blocks.
  kConvolutionSharedInputs,
  // The same with the outputs reading their inputs in reverse order: paired blocks whose
  // inputs are not consecutive tiles.
  kConvolutionSharedReversedInputs,
};

// Random micro-ops, or those of a convolution (see Uops).
GemmCase randomCase(const GemmShape& shape, uint32_t seed, Uops uops = Uops::kRandom) {
  // Tile indices stay below kTilesPerMemory - 3 so that the shifted run (+1, +2, +3) fits.
  constexpr uint32_t kTilesPerMemory = 16, kTileCount = 200;
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> byte(-128, 127);
  std::uniform_int_distribution<int32_t> word(INT32_MIN, INT32_MAX);
  std::uniform_int_distribution<uint32_t> tile(0, kTilesPerMemory - 4);
  GemmCase c{shape, {}, {}, {}, {}, {}, {}, {}, {1, 2, 3}};
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
  if (uops != Uops::kRandom) {
    c.shift = {6, uops == Uops::kConvolution ? 8u : 0u, 3};
    const bool reversed = uops == Uops::kConvolutionSharedReversedInputs;
    for (uint32_t tap = 0; tap < 3; ++tap)
      for (uint32_t out = 0; out < 6; ++out)
        c.tiles.push_back({out, (reversed ? 5 - out : out) + tap, tap});
    return c;
  }
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
  // The tiles as micro-ops of a loop of two iterations, the second shifted.
  const GemmMemories memories{acc.data(),         c.inp.data(),           c.wgt.data(),
                              c.inpBiased.data(), c.wgtInterleaved.data(), c.rowSum.data()};
  kernel.run(c.shape, memories, buildGemmPlan(c.tiles, 2, 1, c.shift, {0, 0, 0}));
  return acc;
}

// acc += inp . wgt^T tile by tile, in int64 reduced modulo 2^32.
std::vector<int32_t> directGemm(const GemmCase& c) {
  const GemmShape& s = c.shape;
  std::vector<int64_t> acc(c.acc.begin(), c.acc.end());
  std::vector<GemmTile> tiles = c.tiles;
  for (const GemmTile& t : c.tiles)
    tiles.push_back({t.acc + c.shift.acc, t.inp + c.shift.inp, t.wgt + c.shift.wgt});
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
  for (const GemmShape& shape : shapes)
  for (const Uops uops : {Uops::kRandom, Uops::kConvolution, Uops::kConvolutionSharedInputs,
                          Uops::kConvolutionSharedReversedInputs}) {
    CAPTURE(shape.batch, shape.blockIn, shape.blockOut, static_cast<int>(uops));
    const GemmCase c = randomCase(shape, seed++, uops);
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

TEST_CASE("a GEMM plan runs every micro-op once, grouping accumulators by weights", "[vta][sim][gemm]") {
  // The convolution of randomCase: 12 accumulators, each with 3 products; the 6 of one output
  // channel block share their weights (0, 1, 2 or 3, 4, 5) and form one block.
  const GemmCase c = randomCase({1, 16, 16}, 7, Uops::kConvolution);
  const GemmPlan plan = buildGemmPlan(c.tiles, 2, 1, c.shift, {0, 0, 0});
  REQUIRE(plan.blocks.size() == 2);
  CHECK(plan.tiles.size() == 36);
  for (size_t b = 0; b < 2; ++b) {
    const GemmPlan::Block& block = plan.blocks[b];
    CHECK(block.accCount == 6);
    CHECK(block.stepCount == 3);
    CHECK(block.consecutiveInputs);
    CHECK_FALSE(block.pairedWithNext);  // the blocks read different inputs
    for (uint32_t s = 0; s < 3; ++s)
      for (uint32_t a = 0; a < 6; ++a) {
        const GemmTile& t = plan.tiles[block.firstTile + s * 6 + a];
        CHECK(t.acc == a + 6 * b);
        CHECK(t.wgt == s + 3 * b);
        CHECK(t.inp == a + s + 8 * b);
      }
  }
  // More accumulators than kMaxBlockAccs with one weight sequence: even blocks (20 -> 10 + 10).
  std::vector<GemmTile> wide;
  for (uint32_t out = 0; out < 20; ++out) wide.push_back({out, out, 0});
  const GemmPlan split = buildGemmPlan(wide, 1, 1, {0, 0, 0}, {0, 0, 0});
  REQUIRE(split.blocks.size() == 2);
  CHECK(split.blocks[0].consecutiveInputs);
  // Inputs in another order: the block keeps the per-tile indices.
  std::swap(wide[0].inp, wide[1].inp);
  CHECK_FALSE(buildGemmPlan(wide, 1, 1, {0, 0, 0}, {0, 0, 0}).blocks[0].consecutiveInputs);
  CHECK(split.blocks[0].accCount == 10);
  CHECK(split.blocks[1].accCount == 10);
  CHECK(split.blocks[1].firstTile == 10);
}

TEST_CASE("a GEMM plan pairs blocks that read the same inputs", "[vta][sim][gemm]") {
  // Two output channel blocks reading the same inputs: block 0 (accumulators 0-5, weights
  // 0-2) paired with block 1 (accumulators 6-11, weights 3-5).
  const GemmCase c = randomCase({1, 16, 16}, 7, Uops::kConvolutionSharedInputs);
  const GemmPlan plan = buildGemmPlan(c.tiles, 2, 1, c.shift, {0, 0, 0});
  REQUIRE(plan.blocks.size() == 2);
  CHECK(plan.blocks[0].pairedWithNext);
  CHECK_FALSE(plan.blocks[1].pairedWithNext);
  for (size_t b = 0; b < 2; ++b) {
    CHECK(plan.blocks[b].accCount == 6);
    CHECK(plan.blocks[b].stepCount == 3);
  }
  for (uint32_t s = 0; s < 3; ++s)
    for (uint32_t a = 0; a < 6; ++a) {
      const GemmTile& first = plan.tiles[plan.blocks[0].firstTile + s * 6 + a];
      const GemmTile& second = plan.tiles[plan.blocks[1].firstTile + s * 6 + a];
      CHECK(first.inp == second.inp);
      CHECK(first.acc == a);
      CHECK(second.acc == a + 6);
      CHECK(first.wgt == s);
      CHECK(second.wgt == s + 3);
    }
  CHECK(plan.blocks[0].consecutiveInputs);
  const GemmCase reversed = randomCase({1, 16, 16}, 7, Uops::kConvolutionSharedReversedInputs);
  const GemmPlan reversedPlan = buildGemmPlan(reversed.tiles, 2, 1, reversed.shift, {0, 0, 0});
  REQUIRE(reversedPlan.blocks.size() == 2);
  CHECK(reversedPlan.blocks[0].pairedWithNext);
  CHECK_FALSE(reversedPlan.blocks[0].consecutiveInputs);
  // Three groups with the same inputs: one pair, the third alone. 20 accumulators per group:
  // paired blocks of at most kMaxPairedBlockAccs (20 -> 6 + 7 + 7), alternating between the
  // two groups; the lone group in blocks of at most kMaxBlockAccs (20 -> 10 + 10).
  std::vector<GemmTile> row;
  for (uint32_t out = 0; out < 20; ++out) row.push_back({out, out, 0});
  const GemmPlan three = buildGemmPlan(row, 3, 1, {20, 0, 1}, {0, 0, 0});
  REQUIRE(three.blocks.size() == 8);
  const uint32_t expectedAccs[] = {6, 6, 7, 7, 7, 7, 10, 10};
  for (size_t b = 0; b < 8; ++b) {
    CAPTURE(b);
    CHECK(three.blocks[b].accCount == expectedAccs[b]);
    CHECK(three.blocks[b].pairedWithNext == (b < 6 && b % 2 == 0));
    CHECK(three.tiles[three.blocks[b].firstTile].wgt == (b < 6 ? b % 2 : 2));
  }
  CHECK(three.tiles.size() == 60);
}

TEST_CASE("the AVX-512 weight preparation equals the portable one", "[vta][sim][gemm]") {
  if (!avx512VnniGemmKernel().cpuSupports()) {
    // Nothing to compare on this CPU; what it must do instead is refuse the kernel by name.
    WARN("avx512vnni not supported by this CPU: not compared");
    CHECK(selectGemmKernel("avx512vnni", GemmShape{1, 16, 16}) == nullptr);
    return;
  }
  for (const GemmShape& shape : {GemmShape{1, 16, 16}, GemmShape{1, 32, 16}}) {
    CAPTURE(shape.blockIn, shape.blockOut);
    const GemmCase c = randomCase(shape, 11);
    const size_t tiles = c.wgt.size() / (shape.blockIn * shape.blockOut);
    std::vector<int8_t> interleaved(c.wgt.size(), 0);
    std::vector<int32_t> rowSum(c.rowSum.size(), 0);
    // Tiles 1.. only: tile 0 must stay untouched.
    prepareAvx512VnniWeightTiles(shape, c.wgt.data() + shape.blockIn * shape.blockOut,
                                 interleaved.data(), rowSum.data(), 1,
                                 static_cast<uint32_t>(tiles - 1));
    const size_t tileBytes = shape.blockIn * shape.blockOut;
    CHECK(std::vector<int8_t>(interleaved.begin(), interleaved.begin() + tileBytes) ==
          std::vector<int8_t>(tileBytes, 0));
    CHECK(std::equal(interleaved.begin() + tileBytes, interleaved.end(),
                     c.wgtInterleaved.begin() + tileBytes));
    CHECK(std::equal(rowSum.begin() + shape.blockOut, rowSum.end(),
                     c.rowSum.begin() + shape.blockOut));
  }
}

TEST_CASE("restoreWeightTiles inverts the interleaving", "[vta][sim][gemm]") {
  for (const GemmShape& shape : {GemmShape{1, 16, 16}, GemmShape{2, 8, 32}, GemmShape{1, 4, 16}}) {
    CAPTURE(shape.blockIn, shape.blockOut);
    const GemmCase c = randomCase(shape, 13);
    const uint32_t tiles = static_cast<uint32_t>(c.wgt.size() / (shape.blockIn * shape.blockOut));
    std::vector<int8_t> restored(c.wgt.size(), 0);
    restoreWeightTiles(shape, c.wgtInterleaved.data(), restored.data(), 0, tiles);
    CHECK(restored == c.wgt);
  }
}
