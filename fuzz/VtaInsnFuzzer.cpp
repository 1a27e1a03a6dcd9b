// libFuzzer target for the VTA instruction stream: arbitrary instruction words run on the
// simulator through the driver API (the runtime's own path to a device), which must reject or
// execute them — never crash, read or write outside device memory, or hang. See fuzz/README.md.
//
// Input: byte 0 = number of instructions n (at most what follows / 16), then n 128-bit
// instructions, then the initial contents of a 64 KiB device buffer (micro-ops, tensors).
// The buffer is allocated first, so its physical address is fixed (page 1: DRAM element
// addresses 0x1000 / element bytes) and the fuzzer can learn to hit it.
#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <cstring>

#include <spdlog/spdlog.h>

#include "vta/driver.h"
#include "vta/sim.h"

namespace {

constexpr size_t kInsnBytes = 16;
constexpr size_t kDataBytes = 64 * 1024;

struct Device {
  void *data = VTAMemAlloc(kDataBytes, VTA_CACHED);
  void *insns = VTAMemAlloc(256 * kInsnBytes, VTA_CACHED);
  VTADeviceHandle handle = VTADeviceAlloc();
};

}  // namespace

// The simulator logs every error it reports; here they are expected by the million.
extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  spdlog::set_level(spdlog::level::off);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size) {
  static Device device;
  if (size == 0) return 0;
  const size_t count = std::min<size_t>(bytes[0], (size - 1) / kInsnBytes);
  const uint8_t *insns = bytes + 1;
  const uint8_t *contents = insns + count * kInsnBytes;
  const size_t contentBytes = std::min(kDataBytes, size - 1 - count * kInsnBytes);
  std::memset(device.data, 0, kDataBytes);
  std::memcpy(device.data, contents, contentBytes);
  std::memcpy(device.insns, insns, count * kInsnBytes);
  // A legal GEMM of 2^28 iterations runs for minutes: a time limit, not a finding (short, so
  // that such inputs do not eat the campaign).
  VTASimSetRunLimits(0, 0.05);
  VTADeviceRun(device.handle, VTAMemGetPhyAddr(device.insns), static_cast<uint32_t>(count), 1000);
  VTASimClearError();
  return 0;
}
