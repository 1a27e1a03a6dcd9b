// Instruction tests through the runtime API, modelled on TVM's test_vta_insn.py: save/load of
// outputs, padded loads (all 16 combinations of the four paddings), 8-bit accumulator loads,
// GEMM, every ALU operation with and without an immediate, relu, shift-and-scale. Random data,
// scalar C++ references, run in TVM's default configuration and two others (BATCH = 2,
// BLOCK = 32).
#include <catch2/catch.hpp>
#include <optional>
#include <utility>
#include <algorithm>
#include <random>

#include "vta_test_support.h"

using namespace vta::test;

namespace {

std::vector<int32_t> randomInt32(size_t count, int32_t low, int32_t high, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int32_t> value(low, high);
  std::vector<int32_t> values(count);
  for (auto& v : values) v = value(rng);
  return values;
}

std::vector<int8_t> randomInt8(size_t count, uint32_t seed) {
  std::vector<int8_t> values;
  for (int32_t v : randomInt32(count, -128, 127, seed)) values.push_back(static_cast<int8_t>(v));
  return values;
}

std::vector<int8_t> truncateToInt8(const std::vector<int32_t>& values) {
  std::vector<int8_t> out;
  for (int32_t v : values) out.push_back(static_cast<int8_t>(v));
  return out;
}

// The ALU's semantics, written independently of the simulator.
int32_t referenceAlu(uint32_t opcode, int32_t a, int32_t b) {
  const int64_t wide = opcode == kAluAdd ? int64_t{a} + b : int64_t{a} * b;
  switch (opcode) {
    case kAluMin: return a < b ? a : b;
    case kAluMax: return a > b ? a : b;
    case kAluShr:
      if (b >= 0) return a >> (b % 32);
      return static_cast<int32_t>(static_cast<uint32_t>(a) << ((-int64_t{b}) % 32));
    default: return static_cast<int32_t>(static_cast<uint32_t>(wide & 0xffffffff));  // ADD, MUL
  }
}

void synchronize() { VTASynchronize(VTATLSCommandHandle(), 1u << 31); }

void expectNoErrors() {
  CHECK(std::string(VTARuntimeLastError()).empty());
  CHECK(std::string(VTASimLastError()).empty());
}

}  // namespace

TEST_CASE("save and load of outputs", "[vta][insn]") {
  for (const std::string& json : testConfigs()) {
    CAPTURE(json);
    ConfigGuard guard(json);
    const vta::Config& c = guard.config();
    const uint32_t rows = 3, cols = 5, lanes = c.batch * c.blockOut;
    const auto input = randomInt32(rows * cols * lanes, INT32_MIN, INT32_MAX, 11);
    DeviceBuffer in(input.size() * 4), out(rows * cols * 2 * c.outElemBytes);
    in.upload(input);
    VTACommandHandle cmd = VTATLSCommandHandle();
    VTALoadBuffer2D(cmd, in.handle(), 0, cols, rows, cols, 0, 0, 0, 0, 0, kMemAcc);
    REQUIRE(pushAlu({rows * cols, 0, 0, kAluShr, 1, 0}) == 0);  // >> 0, as TVM's test
    VTADepPush(cmd, kComputeQueue, kStoreQueue);
    VTADepPop(cmd, kComputeQueue, kStoreQueue);
    // A strided store: each row of `cols` tiles lands `2 * cols` tiles apart.
    VTAStoreBuffer2D(cmd, 0, kMemOut, out.handle(), 0, cols, rows, 2 * cols);
    synchronize();
    expectNoErrors();
    const auto result = out.download<int8_t>();
    const auto expected = truncateToInt8(input);
    for (uint32_t r = 0; r < rows; ++r)
      for (uint32_t i = 0; i < cols * lanes; ++i)
        REQUIRE(result[r * 2 * cols * lanes + i] == expected[r * cols * lanes + i]);
    CHECK(simStat("acc_load_nbytes") == rows * cols * c.accElemBytes);
    CHECK(simStat("out_store_nbytes") == rows * cols * c.outElemBytes);
    CHECK(simStat("alu_counter") == rows * cols);
  }
}

TEST_CASE("padded loads, every combination of the four paddings", "[vta][insn]") {
  for (const std::string& json : testConfigs()) {
    CAPTURE(json);
    ConfigGuard guard(json);
    const vta::Config& c = guard.config();
    const uint32_t rows = 3, cols = 4, lanes = c.batch * c.blockOut;
    const auto input = randomInt32(rows * cols * lanes, -1000, 1000, 23);
    DeviceBuffer in(input.size() * 4);
    in.upload(input);
    // Distinct amounts per side, so that swapped sides would show.
    const uint32_t amount[4] = {1, 2, 3, 1};  // y before, y after, x before, x after
    for (uint32_t mask = 0; mask < 16; ++mask) {
      const uint32_t yPad0 = mask & 1 ? amount[0] : 0, yPad1 = mask & 2 ? amount[1] : 0;
      const uint32_t xPad0 = mask & 4 ? amount[2] : 0, xPad1 = mask & 8 ? amount[3] : 0;
      CAPTURE(yPad0, yPad1, xPad0, xPad1);
      const uint32_t totalRows = rows + yPad0 + yPad1, totalCols = cols + xPad0 + xPad1;
      DeviceBuffer garbage(totalRows * totalCols * c.accElemBytes);
      garbage.upload(std::vector<int32_t>(totalRows * totalCols * lanes, 0x55));
      DeviceBuffer out(totalRows * totalCols * c.outElemBytes);
      VTASimClearStats();
      VTACommandHandle cmd = VTATLSCommandHandle();
      // Non-zero content first, so the padding must really be written as zeros.
      VTALoadBuffer2D(cmd, garbage.handle(), 0, totalCols * totalRows, 1, totalCols * totalRows, 0, 0, 0, 0, 0, kMemAcc);
      VTALoadBuffer2D(cmd, in.handle(), 0, cols, rows, cols, xPad0, yPad0, xPad1, yPad1, 0, kMemAcc);
      VTADepPush(cmd, kComputeQueue, kStoreQueue);
      VTADepPop(cmd, kComputeQueue, kStoreQueue);
      VTAStoreBuffer2D(cmd, 0, kMemOut, out.handle(), 0, totalCols, totalRows, totalCols);
      synchronize();
      expectNoErrors();
      std::vector<int8_t> expected(totalRows * totalCols * lanes, 0);
      for (uint32_t r = 0; r < rows; ++r)
        for (uint32_t i = 0; i < cols * lanes; ++i)
          expected[((r + yPad0) * totalCols + xPad0) * lanes + i] =
              static_cast<int8_t>(input[r * cols * lanes + i]);
      REQUIRE(out.download<int8_t>() == expected);
      // Padding is not counted as loaded bytes.
      CHECK(simStat("acc_load_nbytes") == (totalRows * totalCols + rows * cols) * c.accElemBytes);
    }
  }
}

TEST_CASE("8-bit accumulator loads sign-extend", "[vta][insn]") {
  for (const std::string& json : testConfigs()) {
    CAPTURE(json);
    ConfigGuard guard(json);
    const vta::Config& c = guard.config();
    const uint32_t tiles = 6, lanes = c.batch * c.blockOut;
    const auto input = randomInt8(tiles * lanes, 31);
    DeviceBuffer in(input.size()), out(tiles * c.outElemBytes);
    in.upload(input);
    VTACommandHandle cmd = VTATLSCommandHandle();
    VTALoadBuffer2D(cmd, in.handle(), 0, tiles, 1, tiles, 0, 0, 0, 0, 0, kMemAcc8Bit);
    REQUIRE(pushAlu({tiles, 0, 0, kAluShr, 1, 1}) == 0);  // arithmetic: needs the sign
    VTADepPush(cmd, kComputeQueue, kStoreQueue);
    VTADepPop(cmd, kComputeQueue, kStoreQueue);
    VTAStoreBuffer2D(cmd, 0, kMemOut, out.handle(), 0, tiles, 1, tiles);
    synchronize();
    expectNoErrors();
    std::vector<int8_t> expected;
    for (int8_t v : input) expected.push_back(static_cast<int8_t>(v >> 1));
    CHECK(out.download<int8_t>() == expected);
  }
}

namespace {

// GEMM of test_vta_insn.py: y[o][m] = relu-clip((sum_n x[o][n] . w[m][n]^T) >> 8), with x
// as o x n input tiles and w as m x n weight tiles.
struct GemmKernelShape {
  uint32_t o, m, n;
};

KernelParams<GemmKernelShape> gemmShapes;

int gemmResetClosure(void* closure) {
  const GemmKernelShape& s = gemmShapes.of(closure);
  VTAUopLoopBegin(s.o, s.m, 0, 0);
  for (uint32_t j = 0; j < s.m; ++j) VTAUopPush(0, 1, j, 0, 0, 0, 0, 0);
  VTAUopLoopEnd();
  return 0;
}

int gemmClosure(void* closure) {
  const GemmKernelShape& s = gemmShapes.of(closure);
  // Outer loop over the o rows of tiles; micro-ops over (k, j) with j innermost, so that no
  // two neighbouring micro-ops write the same accumulator tile.
  VTAUopLoopBegin(s.o, s.m, s.n, 0);
  for (uint32_t k = 0; k < s.n; ++k)
    for (uint32_t j = 0; j < s.m; ++j) VTAUopPush(0, 0, j, k, j * s.n + k, 0, 0, 0);
  VTAUopLoopEnd();
  return 0;
}

}  // namespace

namespace {
// The GEMM kernels a test may switch between (first loads, second computes), if the CPU has both.
std::vector<std::pair<const char*, const char*>> kernelSwitches() {
  std::vector<std::pair<const char*, const char*>> switches;
  for (const auto& pair : {std::pair{"portable", "avx512vnni"}, std::pair{"avx512vnni", "portable"},
                           std::pair{"avx2", "avx512vnni"}})
    if (VTASimSetGemmKernel(pair.first) == 0 && VTASimSetGemmKernel(pair.second) == 0)
      switches.push_back(pair);
  restoreRequestedGemmKernel();
  return switches;
}
}  // namespace

TEST_CASE("GEMM with shift and clip", "[vta][insn]") {
  // Also with the inputs and weights loaded in one program under one GEMM kernel and the GEMM
  // run in the next program under another (the VNNI kernel's derived copies must follow).
  std::vector<std::optional<std::pair<const char*, const char*>>> switches{std::nullopt};
  for (const auto& pair : kernelSwitches()) switches.emplace_back(pair);
  for (const auto& switchKernel : switches)
  for (const std::string& json : testConfigs()) {
    CAPTURE(json, switchKernel ? switchKernel->first : "none");
    ConfigGuard guard(json);
    if (switchKernel) REQUIRE(VTASimSetGemmKernel(switchKernel->first) == 0);
    const vta::Config& c = guard.config();
    const GemmKernelShape shape{2, 4, 3};
    const uint32_t B = c.batch, BI = c.blockIn, BO = c.blockOut;
    const auto x = randomInt8(shape.o * shape.n * B * BI, 41);
    const auto w = randomInt8(shape.m * shape.n * BO * BI, 43);
    DeviceBuffer xBuffer(x.size()), wBuffer(w.size()), yBuffer(shape.o * shape.m * c.outElemBytes);
    xBuffer.upload(x);
    wBuffer.upload(w);
    VTACommandHandle cmd = VTATLSCommandHandle();
    static void* resetHandle = nullptr;
    static void* gemmHandle = nullptr;
    int key = gemmShapes.keyOf(shape);
    REQUIRE(VTAPushGEMMOp(&resetHandle, gemmResetClosure, &key, sizeof key) == 0);
    VTADepPush(cmd, kComputeQueue, kLoadQueue);
    VTADepPop(cmd, kComputeQueue, kLoadQueue);
    VTALoadBuffer2D(cmd, xBuffer.handle(), 0, shape.n, shape.o, shape.n, 0, 0, 0, 0, 0, kMemInp);
    VTALoadBuffer2D(cmd, wBuffer.handle(), 0, shape.n * shape.m, 1, shape.n * shape.m, 0, 0, 0, 0, 0, kMemWgt);
    if (switchKernel) {
      // The SRAMs keep their contents across programs; the next kernel reads them.
      synchronize();
      REQUIRE(VTASimSetGemmKernel(switchKernel->second) == 0);
    } else {
      VTADepPush(cmd, kLoadQueue, kComputeQueue);
      VTADepPop(cmd, kLoadQueue, kComputeQueue);
    }
    REQUIRE(VTAPushGEMMOp(&gemmHandle, gemmClosure, &key, sizeof key) == 0);
    const uint32_t tiles = shape.o * shape.m;
    REQUIRE(pushAlu({tiles, 0, 0, kAluShr, 1, 8}) == 0);
    REQUIRE(pushAlu({tiles, 0, 0, kAluMax, 1, 0}) == 0);
    REQUIRE(pushAlu({tiles, 0, 0, kAluMin, 1, 127}) == 0);
    VTADepPush(cmd, kComputeQueue, kStoreQueue);
    VTADepPop(cmd, kComputeQueue, kStoreQueue);
    VTAStoreBuffer2D(cmd, 0, kMemOut, yBuffer.handle(), 0, tiles, 1, tiles);
    synchronize();
    expectNoErrors();

    std::vector<int8_t> expected(tiles * B * BO);
    for (uint32_t i = 0; i < shape.o; ++i)
      for (uint32_t j = 0; j < shape.m; ++j)
        for (uint32_t b = 0; b < B; ++b)
          for (uint32_t oc = 0; oc < BO; ++oc) {
            int32_t sum = 0;
            for (uint32_t k = 0; k < shape.n; ++k)
              for (uint32_t ic = 0; ic < BI; ++ic)
                sum += x[((i * shape.n + k) * B + b) * BI + ic] * w[((j * shape.n + k) * BO + oc) * BI + ic];
            expected[((i * shape.m + j) * B + b) * BO + oc] =
                static_cast<int8_t>(std::clamp(sum >> 8, 0, 127));
          }
    CHECK(yBuffer.download<int8_t>() == expected);
    CHECK(simStat("gemm_counter") == shape.o * shape.n * shape.m);
    CHECK(simStat("inp_load_nbytes") == shape.o * shape.n * c.inpElemBytes);
    CHECK(simStat("wgt_load_nbytes") == shape.m * shape.n * c.wgtElemBytes);
    restoreRequestedGemmKernel();
  }
}

namespace {

// Loads `acc` into accumulator tiles [0, ...), runs `kernel`, stores tiles [0, outTiles).
std::vector<int8_t> runAluKernel(const vta::Config& c, const std::vector<int32_t>& acc,
                                 const AluKernel& kernel, uint32_t outTiles) {
  const uint32_t accTiles = static_cast<uint32_t>(acc.size() / (c.batch * c.blockOut));
  DeviceBuffer accBuffer(acc.size() * 4), out(outTiles * c.outElemBytes);
  accBuffer.upload(acc);
  VTACommandHandle cmd = VTATLSCommandHandle();
  VTALoadBuffer2D(cmd, accBuffer.handle(), 0, accTiles, 1, accTiles, 0, 0, 0, 0, 0, kMemAcc);
  REQUIRE(pushAlu(kernel) == 0);
  VTADepPush(cmd, kComputeQueue, kStoreQueue);
  VTADepPop(cmd, kComputeQueue, kStoreQueue);
  VTAStoreBuffer2D(cmd, 0, kMemOut, out.handle(), 0, outTiles, 1, outTiles);
  synchronize();
  expectNoErrors();
  return out.download<int8_t>();
}

// Applies `opcode` to a (with b or with `imm`): a and b in the accumulator, a's tiles stored.
std::vector<int8_t> runAlu(const vta::Config& c, uint32_t opcode, bool useImm, int32_t imm,
                           const std::vector<int32_t>& a, const std::vector<int32_t>& b) {
  const uint32_t tiles = static_cast<uint32_t>(a.size() / (c.batch * c.blockOut));
  std::vector<int32_t> acc = a;
  if (!useImm) acc.insert(acc.end(), b.begin(), b.end());
  return runAluKernel(c, acc, {tiles, 0, useImm ? 0 : tiles, opcode, useImm ? 1u : 0u, imm},
                      tiles);
}

}  // namespace

TEST_CASE("every ALU operation, with and without an immediate", "[vta][insn]") {
  const struct {
    uint32_t opcode;
    const char* name;
    int32_t low, high;    // range of the first operand
    int32_t bLow, bHigh;  // range of the second operand (tensor or immediate)
  } ops[] = {
      {kAluMin, "MIN", -100000, 100000, -32768, 32767},
      {kAluMax, "MAX", -100000, 100000, -32768, 32767},
      {kAluAdd, "ADD", INT32_MIN, INT32_MAX, -32768, 32767},
      {kAluShr, "SHR", INT32_MIN, INT32_MAX, -12, 12},  // negative amounts shift left
      {kAluMul, "MUL", -70000, 70000, -300, 300},
  };
  uint32_t seed = 100;
  for (const std::string& json : testConfigs()) {
    CAPTURE(json);
    ConfigGuard guard(json);
    const vta::Config& c = guard.config();
    const uint32_t tiles = 8, lanes = c.batch * c.blockOut;
    for (const auto& op : ops) {
      for (bool useImm : {false, true}) {
        CAPTURE(op.name, useImm);
        const auto a = randomInt32(tiles * lanes, op.low, op.high, seed++);
        const auto b = randomInt32(tiles * lanes, op.bLow, op.bHigh, seed++);
        const int32_t imm = randomInt32(1, op.bLow, op.bHigh, seed++)[0];
        VTASimClearStats();
        const auto result = runAlu(c, op.opcode, useImm, imm, a, b);
        std::vector<int32_t> expected;
        for (size_t i = 0; i < a.size(); ++i)
          expected.push_back(referenceAlu(op.opcode, a[i], useImm ? imm : b[i]));
        CHECK(result == truncateToInt8(expected));
        CHECK(simStat("alu_counter") == tiles);
      }
    }
  }
}

TEST_CASE("an ALU whose source overlaps its destination runs tile after tile", "[vta][insn]") {
  // acc[t] += acc[t - 1] for t = 1, 2, ... in order: each tile adds the already updated one
  // before it, so the tiles end as prefix sums (a reordered or vectorised-ahead loop would not).
  for (const std::string& json : testConfigs()) {
    CAPTURE(json);
    ConfigGuard guard(json);
    const vta::Config& c = guard.config();
    const uint32_t tiles = 12, lanes = c.batch * c.blockOut;
    const auto a = randomInt32(tiles * lanes, -5, 5, 7);
    const auto result = runAluKernel(c, a, {tiles - 1, 1, 0, kAluAdd, 0, 0}, tiles);
    std::vector<int32_t> expected = a;
    for (uint32_t t = 1; t < tiles; ++t)
      for (uint32_t l = 0; l < lanes; ++l) expected[t * lanes + l] += expected[(t - 1) * lanes + l];
    CHECK(result == truncateToInt8(expected));
  }
}

TEST_CASE("relu and shift-and-scale", "[vta][insn]") {
  for (const std::string& json : testConfigs()) {
    CAPTURE(json);
    ConfigGuard guard(json);
    const vta::Config& c = guard.config();
    const uint32_t tiles = 10, lanes = c.batch * c.blockOut;
    const auto a = randomInt32(tiles * lanes, -1000, 1000, 77);
    DeviceBuffer in(a.size() * 4), relu(tiles * c.outElemBytes), scaled(tiles * c.outElemBytes);
    in.upload(a);
    const int32_t shift = 5, scale = 3;
    VTACommandHandle cmd = VTATLSCommandHandle();
    // relu (test_relu): max(a, 0) then min(., 127), in accumulator tiles [0, tiles).
    VTALoadBuffer2D(cmd, in.handle(), 0, tiles, 1, tiles, 0, 0, 0, 0, 0, kMemAcc);
    REQUIRE(pushAlu({tiles, 0, 0, kAluMax, 1, 0}) == 0);
    REQUIRE(pushAlu({tiles, 0, 0, kAluMin, 1, 127}) == 0);
    // shift and scale (test_shift_and_scale): (a + shift) >> scale, in tiles [tiles, 2 tiles).
    VTALoadBuffer2D(cmd, in.handle(), 0, tiles, 1, tiles, 0, 0, 0, 0, tiles, kMemAcc);
    REQUIRE(pushAlu({tiles, tiles, tiles, kAluAdd, 1, shift}) == 0);
    REQUIRE(pushAlu({tiles, tiles, tiles, kAluShr, 1, scale}) == 0);
    VTADepPush(cmd, kComputeQueue, kStoreQueue);
    VTADepPop(cmd, kComputeQueue, kStoreQueue);
    VTAStoreBuffer2D(cmd, 0, kMemOut, relu.handle(), 0, tiles, 1, tiles);
    VTAStoreBuffer2D(cmd, tiles, kMemOut, scaled.handle(), 0, tiles, 1, tiles);
    synchronize();
    expectNoErrors();
    std::vector<int8_t> expectedRelu, expectedScaled;
    for (int32_t v : a) {
      expectedRelu.push_back(static_cast<int8_t>(std::clamp(v, 0, 127)));
      expectedScaled.push_back(static_cast<int8_t>((v + shift) >> scale));
    }
    CHECK(relu.download<int8_t>() == expectedRelu);
    CHECK(scaled.download<int8_t>() == expectedScaled);
  }
}

namespace {
// 1025 x 1025 iterations of a micro-op that adds inp[0] . wgt[0] to acc[0]: more executions
// (1,050,625) than the simulator lists in a plan (2^20).
constexpr uint32_t kHugeExtent = 1025;
int hugeGemmClosure(void*) {
  VTAUopLoopBegin(kHugeExtent, 0, 0, 0);
  VTAUopLoopBegin(kHugeExtent, 0, 0, 0);
  VTAUopPush(0, 0, 0, 0, 0, 0, 0, 0);
  VTAUopLoopEnd();
  VTAUopLoopEnd();
  return 0;
}
}  // namespace

TEST_CASE("a GEMM loop nest too large to plan runs iteration by iteration", "[vta][insn]") {
  const vta::Config c = vta::Config::tvmDefault();
  const uint32_t BI = c.blockIn, BO = c.blockOut;
  const auto x = randomInt8(BI, 51);
  const auto w = randomInt8(BO * BI, 53);
  const std::vector<int32_t> zero(BO, 0);
  DeviceBuffer xBuffer(x.size()), wBuffer(w.size()), accBuffer(zero.size() * 4), yBuffer(BO);
  xBuffer.upload(x);
  wBuffer.upload(w);
  accBuffer.upload(zero);
  VTACommandHandle cmd = VTATLSCommandHandle();
  VTADepPush(cmd, kComputeQueue, kLoadQueue);
  VTADepPop(cmd, kComputeQueue, kLoadQueue);
  VTALoadBuffer2D(cmd, xBuffer.handle(), 0, 1, 1, 1, 0, 0, 0, 0, 0, kMemInp);
  VTALoadBuffer2D(cmd, wBuffer.handle(), 0, 1, 1, 1, 0, 0, 0, 0, 0, kMemWgt);
  VTADepPush(cmd, kLoadQueue, kComputeQueue);
  VTADepPop(cmd, kLoadQueue, kComputeQueue);
  VTALoadBuffer2D(cmd, accBuffer.handle(), 0, 1, 1, 1, 0, 0, 0, 0, 0, kMemAcc);
  static void* handle = nullptr;
  REQUIRE(VTAPushGEMMOp(&handle, hugeGemmClosure, nullptr, 0) == 0);
  VTADepPush(cmd, kComputeQueue, kStoreQueue);
  VTADepPop(cmd, kComputeQueue, kStoreQueue);
  VTAStoreBuffer2D(cmd, 0, kMemOut, yBuffer.handle(), 0, 1, 1, 1);
  VTASimClearStats();
  synchronize();
  expectNoErrors();
  // acc = 1025^2 * dot modulo 2^32; the store keeps its low 8 bits.
  const uint32_t executions = kHugeExtent * kHugeExtent;
  std::vector<int8_t> expected(BO);
  for (uint32_t o = 0; o < BO; ++o) {
    int32_t dot = 0;
    for (uint32_t i = 0; i < BI; ++i) dot += x[i] * w[o * BI + i];
    expected[o] = static_cast<int8_t>(static_cast<uint32_t>(dot) * executions);
  }
  CHECK(yBuffer.download<int8_t>() == expected);
  CHECK(simStat("gemm_counter") == executions);
}

// Declared last, so that it runs after every other test case of this file (Catch2's default
// order): none of them may leave another GEMM kernel in place than the one VTA_SIM_GEMM_KERNEL
// requests, or ctest's vta_insn_tests_<kernel> variants would run the rest on the automatic one.
TEST_CASE("the requested GEMM kernel is still in use after the kernel switches", "[vta][insn]") {
  const std::string inUse = VTASimGemmKernel();
  restoreRequestedGemmKernel();
  CAPTURE(requestedGemmKernel());
  CHECK(inUse == VTASimGemmKernel());
}
