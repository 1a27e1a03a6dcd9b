// Helpers for tests that drive the VTA runtime and simulator through their C APIs: selecting a
// configuration in both libraries, device buffers, and kernel closures with plain-data
// signatures (as generated code passes them).
#ifndef VTA_TEST_SUPPORT_H_
#define VTA_TEST_SUPPORT_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "vta/config.h"
#include "vta/runtime.h"
#include "vta/sim.h"

namespace vta::test {

// Selects a configuration in the simulator and the runtime (each reads it on its own) for the
// lifetime of the guard, then restores the default.
class ConfigGuard {
public:
  explicit ConfigGuard(const std::string& json);
  ~ConfigGuard();
  const Config& config() const { return config_; }

private:
  Config config_;
};

// A VTABufferAlloc buffer of `bytes`.
class DeviceBuffer {
public:
  explicit DeviceBuffer(size_t bytes) : bytes_(bytes), handle_(VTABufferAlloc(bytes)) {}
  ~DeviceBuffer() { VTABufferFree(handle_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* handle() const { return handle_; }
  template <typename T>
  void upload(const std::vector<T>& values) {
    VTABufferCopy(values.data(), 0, handle_, 0, values.size() * sizeof(T), VTA_MEMCPY_H2D);
  }
  template <typename T>
  std::vector<T> download() const {
    std::vector<T> values(bytes_ / sizeof(T));
    VTABufferCopy(handle_, 0, values.data(), 0, values.size() * sizeof(T), VTA_MEMCPY_D2H);
    return values;
  }

private:
  size_t bytes_;
  void* handle_;
};

// An ALU micro-kernel: `tiles` iterations of one micro-op (dst += 1, src += 1 per iteration).
struct AluKernel {
  uint32_t tiles, dst, src, opcode, useImm;
  int32_t imm;
};
// Queues the ALU kernel.
int pushAlu(const AluKernel& kernel);

// TVM's runtime (and vtac's) keys a micro-kernel by one int below 99, its closure: a test
// kernel's parameters live in this table, and the closure is their index. Equal parameters get
// the same key, so the runtime's cache of recorded kernels works as with any closure.
template <typename Params>
class KernelParams {
public:
  int keyOf(const Params& params) {
    for (size_t i = 0; i < table_.size(); ++i)
      if (std::memcmp(&table_[i], &params, sizeof params) == 0) return int(i);
    table_.push_back(params);
    return int(table_.size() - 1);
  }
  const Params& of(void* closure) const { return table_.at(size_t(*static_cast<const int*>(closure))); }

private:
  std::vector<Params> table_;
};

// ALU opcodes of hw_spec.h.
enum : uint32_t { kAluMin = 0, kAluMax = 1, kAluAdd = 2, kAluShr = 3, kAluMul = 4 };
// Memory types of hw_spec.h.
enum : uint32_t { kMemUop = 0, kMemWgt = 1, kMemInp = 2, kMemAcc = 3, kMemOut = 4, kMemAcc8Bit = 5 };
// Dependency queues of the runtime API.
enum : int { kLoadQueue = 1, kComputeQueue = 2, kStoreQueue = 3 };

// The GEMM kernel VTA_SIM_GEMM_KERNEL names ("auto" if unset): tests that switch kernels hand
// this one back, so that ctest's per-kernel variants keep testing their kernel afterwards.
std::string requestedGemmKernel();
void restoreRequestedGemmKernel();

// One simulator counter of VTASimStatsJSON().
uint64_t simStat(const char* name);

// The configurations the instruction tests run in: TVM's default and two others.
std::vector<std::string> testConfigs();

}  // namespace vta::test

#endif  // VTA_TEST_SUPPORT_H_
