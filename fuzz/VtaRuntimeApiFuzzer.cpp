// libFuzzer target for the VTA runtime's C API as a program calls it: random sequences of
// VTABufferAlloc/Free/Copy, VTALoadBuffer2D/StoreBuffer2D, read/write barriers, dependency
// pushes and pops, GEMM/ALU micro-kernels (whose closures record random micro-ops and loops, and
// may re-enter the API), stray VTAUop* calls, VTASynchronize and VTARuntimeShutdown, with random
// arguments, on the simulator. Must hold: no crash, no sanitizer report, no hang; and each misuse
// the fuzzer can tell for itself (a transfer or copy past the end of its buffer, a barrier
// outside its buffer, freeing a handle that is not live, a micro-op outside a closure, a
// dependency between queues that are not neighbours) is reported as an error by that very call,
// else abort(). See fuzz/README.md.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <algorithm>
#include <set>
#include <vector>

#include <fuzzer/FuzzedDataProvider.h>
#include <spdlog/spdlog.h>

#include "vta/config.h"
#include "vta/runtime.h"
#include "vta/sim.h"

namespace {

enum class Call : uint8_t {
  kAlloc, kFree, kCopy, kLoad, kStore, kBarrier, kDepPush, kDepPop, kGemm, kAlu, kStrayUop,
  kSynchronize, kShutdown, kMaxValue = kShutdown
};

// Buffers of one input: the live handles and every handle ever freed (a stale one may be
// passed again, or reused by a later allocation).
struct Buffers {
  std::vector<void *> live;
  std::vector<size_t> bytes;
  std::vector<void *> freed;
};

// Micro-kernel call sites of generated code are statics that live for the process.
void *callSites[4];

// Aborts unless the call made since `before` errors were counted reported one.
void expectError(int before, const char *misuse) {
  if (VTARuntimeErrorCount() == before) {
    spdlog::set_level(spdlog::level::err);
    spdlog::error("misuse not reported: {}", misuse);
    std::abort();
  }
}

// A handle to pass: usually a live buffer, sometimes a freed one, null, or a wild pointer.
void *pickHandle(FuzzedDataProvider &data, const Buffers &buffers, size_t *bytes) {
  *bytes = 0;
  switch (data.ConsumeIntegralInRange<int>(0, 7)) {
  case 0:
    return nullptr;
  case 1:
    return buffers.freed.empty() ? nullptr
                                 : buffers.freed[data.ConsumeIntegralInRange<size_t>(0, buffers.freed.size() - 1)];
  case 2:
    return reinterpret_cast<void *>(data.ConsumeIntegral<uintptr_t>());
  default:
    if (buffers.live.empty()) return nullptr;
    size_t index = data.ConsumeIntegralInRange<size_t>(0, buffers.live.size() - 1);
    *bytes = buffers.bytes[index];
    return buffers.live[index];
  }
}

bool isLive(const Buffers &buffers, const void *handle) {
  return std::find(buffers.live.begin(), buffers.live.end(), handle) != buffers.live.end();
}

// Small values most of the time (they reach the interesting checks), any 32-bit value else.
uint32_t smallOrAny(FuzzedDataProvider &data, uint32_t small) {
  return data.ConsumeBool() ? data.ConsumeIntegralInRange<uint32_t>(0, small) : data.ConsumeIntegral<uint32_t>();
}

// Rows [offset, offset + (y - 1) * stride + x) of `elemBytes`-byte elements reach past `bytes`.
bool pastEnd(uint32_t offset, uint32_t x, uint32_t y, uint32_t stride, uint32_t elemBytes, size_t bytes) {
  if (x == 0 || y == 0 || elemBytes == 0) return false;
  const uint64_t end = offset + uint64_t{y - 1} * stride + x;
  return end * elemBytes > bytes;
}

// The closure of a micro-kernel: its signature bytes say what it records.
int recordKernel(void *signature) {
  const auto *bytes = static_cast<const uint8_t *>(signature);
  FuzzedDataProvider data(bytes + 1, bytes[0]);
  while (data.remaining_bytes() > 0) {
    switch (data.ConsumeIntegralInRange<int>(0, 5)) {
    case 0:
    case 1:
      VTAUopPush(data.ConsumeIntegralInRange<uint32_t>(0, 2), data.ConsumeBool(), smallOrAny(data, 2048),
                 smallOrAny(data, 2048), smallOrAny(data, 1024), data.ConsumeIntegralInRange<uint32_t>(0, 8),
                 data.ConsumeBool(), data.ConsumeIntegral<int32_t>());
      break;
    case 2:
      VTAUopLoopBegin(smallOrAny(data, 64), smallOrAny(data, 64), smallOrAny(data, 64), smallOrAny(data, 64));
      break;
    case 3:
      VTAUopLoopEnd();
      break;
    case 4: {  // re-entering the runtime from a closure
      static void *nested;
      uint8_t none = 0;
      VTAPushALUOp(&nested, recordKernel, &none, 1);
      VTASynchronize(VTATLSCommandHandle(), 1000);
      break;
    }
    default:
      return data.ConsumeIntegralInRange<int>(-1, 1);
    }
  }
  return 0;
}

void pushKernel(FuzzedDataProvider &data, bool gemm) {
  void **site = &callSites[data.ConsumeIntegralInRange<size_t>(0, 3)];
  std::vector<uint8_t> signature = data.ConsumeBytes<uint8_t>(data.ConsumeIntegralInRange<size_t>(0, 48));
  signature.insert(signature.begin(), uint8_t(signature.size()));
  (gemm ? VTAPushGEMMOp : VTAPushALUOp)(site, recordKernel, signature.data(), int(signature.size()));
}

void runOne(FuzzedDataProvider &data, Buffers &buffers, const vta::Config &config) {
  VTACommandHandle cmd = data.ConsumeIntegralInRange<int>(0, 15) == 0 ? nullptr : VTATLSCommandHandle();
  const int before = VTARuntimeErrorCount();
  const Call call = data.ConsumeEnum<Call>();
  switch (call) {
  case Call::kAlloc:
    if (buffers.live.size() < 8) {
      size_t bytes = data.ConsumeIntegralInRange<size_t>(0, 1 << 16);
      if (void *handle = VTABufferAlloc(bytes)) {
        buffers.live.push_back(handle);
        buffers.bytes.push_back(bytes);
        buffers.freed.erase(std::remove(buffers.freed.begin(), buffers.freed.end(), handle), buffers.freed.end());
      }
    }
    break;
  case Call::kFree: {
    size_t bytes;
    void *handle = pickHandle(data, buffers, &bytes);
    const bool live = isLive(buffers, handle);
    VTABufferFree(handle);
    if (!live) {
      expectError(before, "VTABufferFree of a handle that is not live");
      break;
    }
    auto at = std::find(buffers.live.begin(), buffers.live.end(), handle) - buffers.live.begin();
    buffers.live.erase(buffers.live.begin() + at);
    buffers.bytes.erase(buffers.bytes.begin() + at);
    buffers.freed.push_back(handle);
    break;
  }
  case Call::kCopy: {
    size_t fromBytes, toBytes;
    void *from = pickHandle(data, buffers, &fromBytes);
    void *to = pickHandle(data, buffers, &toBytes);
    size_t fromOffset = smallOrAny(data, 1 << 16), toOffset = smallOrAny(data, 1 << 16);
    size_t size = smallOrAny(data, 1 << 16);
    if (!isLive(buffers, from) || !isLive(buffers, to)) break;  // CPU pointers cannot be checked
    VTABufferCopy(from, fromOffset, to, toOffset, size, VTA_MEMCPY_D2D);
    if (fromOffset + size > fromBytes || toOffset + size > toBytes)
      expectError(before, "VTABufferCopy past the end of a buffer");
    break;
  }
  case Call::kLoad:
  case Call::kStore: {
    const bool load = call == Call::kLoad;
    size_t bytes;
    void *handle = pickHandle(data, buffers, &bytes);
    uint32_t memoryType = data.ConsumeIntegralInRange<uint32_t>(0, 5);
    uint32_t offset = smallOrAny(data, 4096), x = smallOrAny(data, 64), y = smallOrAny(data, 64);
    uint32_t stride = smallOrAny(data, 128), sram = smallOrAny(data, 4096);
    if (load)
      VTALoadBuffer2D(cmd, handle, offset, x, y, stride, smallOrAny(data, 4), smallOrAny(data, 4),
                      smallOrAny(data, 4), smallOrAny(data, 4), sram, memoryType);
    else
      VTAStoreBuffer2D(cmd, sram, memoryType, handle, offset, x, y, stride);
    if (isLive(buffers, handle) && pastEnd(offset, x, y, stride, config.dramElemBytes(memoryType), bytes))
      expectError(before, "a 2D transfer past the end of its buffer");
    break;
  }
  case Call::kBarrier: {
    size_t bytes;
    void *handle = pickHandle(data, buffers, &bytes);
    uint32_t elemBits = data.ConsumeIntegralInRange<uint32_t>(0, 64);
    uint32_t start = smallOrAny(data, 1 << 12), extent = smallOrAny(data, 1 << 12);
    (data.ConsumeBool() ? VTAReadBarrier : VTAWriteBarrier)(cmd, handle, elemBits, start, extent);
    if (cmd && isLive(buffers, handle) && (uint64_t{start} + extent) * ((elemBits + 7) / 8) > bytes)
      expectError(before, "a barrier outside its buffer");
    break;
  }
  case Call::kDepPush:
  case Call::kDepPop: {
    int from = data.ConsumeIntegralInRange<int>(-1, 4), to = data.ConsumeIntegralInRange<int>(-1, 4);
    const int status = (call == Call::kDepPush ? VTADepPush : VTADepPop)(cmd, from, to);
    if (std::abs(from - to) != 1 || std::min(from, to) < 1 || std::max(from, to) > 3) {
      if (status == 0) std::abort();
      expectError(before, "a dependency between queues that are not neighbours");
    }
    break;
  }
  case Call::kGemm:
  case Call::kAlu:
    pushKernel(data, call == Call::kGemm);
    break;
  case Call::kStrayUop:
    VTAUopPush(0, 0, 0, 0, 0, 0, 0, 0);
    expectError(before, "VTAUopPush outside a micro-kernel closure");
    break;
  case Call::kSynchronize:
    VTASynchronize(cmd, smallOrAny(data, 1 << 20));
    break;
  case Call::kShutdown:
    VTARuntimeShutdown();
    break;
  }
}

}  // namespace

// The runtime logs every error it reports; here they are expected by the thousand.
extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  spdlog::set_level(spdlog::level::off);
  VTARuntimeSetConfig(nullptr);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size) {
  static const vta::Config config = vta::Config::tvmDefault();
  FuzzedDataProvider data(bytes, size);
  Buffers buffers;
  // A legal GEMM of 2^28 iterations runs for minutes: a time limit, not a finding.
  VTASimSetRunLimits(0, 0.05);
  for (int calls = 0; calls < 64 && data.remaining_bytes() > 0; ++calls) runOne(data, buffers, config);
  // Run (or discard) what is queued rather than shut the queue down: a new queue allocates its
  // device and buffers again, which would make most of each input's time.
  VTASynchronize(VTATLSCommandHandle(), 1000);
  for (void *handle : buffers.live) VTABufferFree(handle);
  VTARuntimeClearError();
  VTASimClearError();
  return 0;
}
