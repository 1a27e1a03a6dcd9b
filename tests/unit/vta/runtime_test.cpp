// Runtime behaviour beyond single instructions: the micro-kernel cache (per call site and
// signature, re-recorded after a configuration change), residency and eviction in a small
// micro-op SRAM, and TVM's serial debug mode on the seed program.
#include <catch2/catch.hpp>
#include <random>

#include "seed_conv2d.h"
#include "vta_test_support.h"

using namespace vta::test;

namespace {

int recordings = 0;

// Adds `imm` to `tiles` accumulator tiles starting at `dst`: 5 micro-ops, one loop.
struct AddKernel {
  uint32_t dst, tiles;
  int32_t imm;
};

KernelParams<AddKernel> addKernels;

int addKernelClosure(void* closure) {
  ++recordings;
  const AddKernel& k = addKernels.of(closure);
  VTAUopLoopBegin(k.tiles / 5, 5, 5, 0);
  for (uint32_t u = 0; u < 5; ++u) VTAUopPush(1, 0, k.dst + u, k.dst + u, 0, kAluAdd, 1, k.imm);
  VTAUopLoopEnd();
  return 0;
}

void* addKernelHandle = nullptr;

int pushAdd(const AddKernel& kernel) {
  int key = addKernels.keyOf(kernel);
  return VTAPushALUOp(&addKernelHandle, addKernelClosure, &key, sizeof key);
}

}  // namespace

TEST_CASE("micro-kernels are recorded once per call site and signature", "[vta][runtime]") {
  {
    ConfigGuard guard(R"({"TARGET": "sim"})");
    recordings = 0;
    for (int repeat = 0; repeat < 3; ++repeat)
      for (int32_t imm = 1; imm <= 4; ++imm) REQUIRE(pushAdd({0, 10, imm}) == 0);
    VTASynchronize(VTATLSCommandHandle(), 1u << 31);
    CHECK(recordings == 4);  // four signatures
    // Every synchronisation reloads its kernels, but does not record them again.
    REQUIRE(pushAdd({0, 10, 1}) == 0);
    VTASynchronize(VTATLSCommandHandle(), 1u << 31);
    CHECK(recordings == 4);
    CHECK(VTARuntimeErrorCount() == 0);
    // Within one synchronisation a resident kernel is loaded once: 4 + 1 kernels of 5 uops.
    CHECK(simStat("uop_load_nbytes") == (4 + 1) * 5 * 4);
  }
  // A new configuration changes the encoding: the kernels are recorded again.
  ConfigGuard guard(R"({"TARGET": "sim", "LOG_BLOCK": 5})");
  REQUIRE(pushAdd({0, 10, 1}) == 0);
  VTASynchronize(VTATLSCommandHandle(), 1u << 31);
  CHECK(recordings == 5);
}

TEST_CASE("kernels are evicted from a full micro-op SRAM and reloaded", "[vta][runtime]") {
  // 2^7 bytes of micro-op SRAM: 32 micro-ops, room for six 5-micro-op kernels.
  ConfigGuard guard(R"({"TARGET": "sim", "LOG_UOP_BUFF_SIZE": 7})");
  const vta::Config& c = guard.config();
  const uint32_t lanes = c.batch * c.blockOut, kernels = 10, tilesPerKernel = 10;
  std::vector<int32_t> zeros(kernels * tilesPerKernel * lanes, 0);
  DeviceBuffer buffer(zeros.size() * 4), out(kernels * tilesPerKernel * c.outElemBytes);
  buffer.upload(zeros);
  VTACommandHandle cmd = VTATLSCommandHandle();
  VTALoadBuffer2D(cmd, buffer.handle(), 0, kernels * tilesPerKernel, 1, kernels * tilesPerKernel,
                  0, 0, 0, 0, 0, kMemAcc);
  // Ten kernels, twice round: more than the SRAM holds, so kernels are evicted and reloaded.
  for (int round = 0; round < 2; ++round)
    for (uint32_t k = 0; k < kernels; ++k)
      REQUIRE(pushAdd({k * tilesPerKernel, tilesPerKernel, static_cast<int32_t>(k + 1)}) == 0);
  VTADepPush(cmd, kComputeQueue, kStoreQueue);
  VTADepPop(cmd, kComputeQueue, kStoreQueue);
  VTAStoreBuffer2D(cmd, 0, kMemOut, out.handle(), 0, kernels * tilesPerKernel, 1,
                   kernels * tilesPerKernel);
  VTASynchronize(cmd, 1u << 31);
  CHECK(VTARuntimeErrorCount() == 0);
  CHECK(std::string(VTASimLastError()).empty());
  const auto result = out.download<int8_t>();
  for (uint32_t k = 0; k < kernels; ++k)
    for (uint32_t i = 0; i < tilesPerKernel * lanes; ++i)
      REQUIRE(result[k * tilesPerKernel * lanes + i] == static_cast<int8_t>(2 * (k + 1)));
  // Every kernel is loaded at least once per round (none survives ten others in 32 entries).
  CHECK(simStat("uop_load_nbytes") == 2 * kernels * 5 * 4);
}

TEST_CASE("serial debug mode runs the seed program to the same result", "[vta][runtime]") {
  ConfigGuard guard(R"({"TARGET": "sim"})");
  const size_t dataBytes = 16 * 14 * 14 * 16, kernelBytes = 16 * 16 * 3 * 3 * 16 * 16;
  std::mt19937 rng(3);
  std::vector<int8_t> data(dataBytes), kernel(kernelBytes);
  for (auto& v : data) v = static_cast<int8_t>(rng());
  for (auto& v : kernel) v = static_cast<int8_t>(rng());
  DeviceBuffer dataBuffer(dataBytes), kernelBuffer(kernelBytes), res(dataBytes);
  dataBuffer.upload(data);
  kernelBuffer.upload(kernel);

  REQUIRE(vta_seed_conv2d(dataBuffer.handle(), kernelBuffer.handle(), res.handle()) == 0);
  const auto pipelined = res.download<int8_t>();
  const uint64_t pipelinedGemm = simStat("gemm_counter");
  res.upload(std::vector<int8_t>(dataBytes, 0));
  VTASimClearStats();

  VTASetDebugMode(VTATLSCommandHandle(), VTA_DEBUG_FORCE_SERIAL);
  REQUIRE(vta_seed_conv2d(dataBuffer.handle(), kernelBuffer.handle(), res.handle()) == 0);
  VTASetDebugMode(VTATLSCommandHandle(), 0);
  CHECK(VTARuntimeErrorCount() == 0);
  CHECK(std::string(VTASimLastError()).empty());
  CHECK(res.download<int8_t>() == pipelined);
  CHECK(simStat("gemm_counter") == pipelinedGemm);
  CHECK(simStat("uop_load_nbytes") == 1144);
}
