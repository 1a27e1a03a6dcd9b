#include "vta_test_support.h"

#include <cstdlib>

#include <catch2/catch.hpp>

#include "llvm/Support/JSON.h"

namespace vta::test {

ConfigGuard::ConfigGuard(const std::string& json) {
  auto parsed = Config::fromJSON(json);
  REQUIRE(static_cast<bool>(parsed));
  config_ = *parsed;
  REQUIRE(VTASimSetConfig(json.c_str()) == 0);
  REQUIRE(VTARuntimeSetConfig(json.c_str()) == 0);
  VTASimClearStats();
  VTASimClearError();
  VTARuntimeClearError();
}

ConfigGuard::~ConfigGuard() {
  VTASimSetConfig(nullptr);
  VTARuntimeSetConfig(nullptr);
}

namespace {
KernelParams<AluKernel> aluKernels;

int aluKernelClosure(void* closure) {
  const AluKernel& kernel = aluKernels.of(closure);
  VTAUopLoopBegin(kernel.tiles, 1, 1, 0);
  VTAUopPush(1, 0, kernel.dst, kernel.src, 0, kernel.opcode, kernel.useImm, kernel.imm);
  VTAUopLoopEnd();
  return 0;
}
}  // namespace

int pushAlu(const AluKernel& kernel) {
  static void* handle = nullptr;
  int key = aluKernels.keyOf(kernel);
  return VTAPushALUOp(&handle, aluKernelClosure, &key, sizeof key);
}

std::string requestedGemmKernel() {
  const char* name = std::getenv("VTA_SIM_GEMM_KERNEL");
  return name && *name ? name : "auto";
}

void restoreRequestedGemmKernel() {
  // (A kernel this CPU lacks was already replaced by "auto", with an error, at the first run.)
  if (VTASimSetGemmKernel(requestedGemmKernel().c_str()) != 0) VTASimSetGemmKernel("auto");
  VTASimClearError();
}

uint64_t simStat(const char* name) {
  auto parsed = llvm::json::parse(VTASimStatsJSON());
  REQUIRE(static_cast<bool>(parsed));
  auto value = parsed->getAsObject()->getInteger(name);
  REQUIRE(value.has_value());
  return static_cast<uint64_t>(*value);
}

std::vector<std::string> testConfigs() {
  return {R"({"TARGET": "sim"})", R"({"TARGET": "sim", "LOG_BATCH": 1})",
          R"({"TARGET": "sim", "LOG_BLOCK": 5})"};
}

}  // namespace vta::test
