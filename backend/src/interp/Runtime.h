// Run-time state of the interpreter: variable slots, storage, and the trap that carries the
// first error out of compiled code.
//
// Compiled nodes read and write variables in a flat slot array (every variable was resolved
// to a slot index when the function was compiled). Errors inside an evaluation set the
// frame's trap and return a harmless value; loops and sequences stop as soon as a trap is set,
// so the first error ends the run and is reported with its source location.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <llvm/Support/Error.h>

#include "vtac/backend/ExternRegistry.h"
#include "vtac/backend/RunLimits.h"
#include "vtac/backend/StepLimiter.h"
#include "vtac/ir/SourceLoc.h"

namespace vtac::backend::interp {

union Slot {
  int64_t i;
  double f;
  void *p;
};

// One allocation: a parameter's data, a T.allocate or a block's alloc_buffer. Buffer data
// variables hold a Storage* in their slot.
struct Storage {
  uint8_t *data = nullptr;  // CPU address
  int64_t byteSize = 0;
  void *deviceHandle = nullptr;  // the device buffer handle when the bytes are device memory
  const DeviceMemory *device = nullptr;

  Storage() = default;
  Storage(const Storage &) = delete;
  Storage &operator=(const Storage &) = delete;
  ~Storage();

  // What an extern receives for this buffer: the device handle, else the CPU address.
  void *externPointer() const { return deviceHandle ? deviceHandle : data; }
};

// Zero-filled storage of `bytes` bytes, in device memory when `device` is given.
llvm::Expected<std::unique_ptr<Storage>> allocateStorage(int64_t bytes, const DeviceMemory *device);

class Frame {
public:
  Frame(size_t numSlots, const DeviceMemory *device, const RunLimits &limits = {})
      : slots(numSlots, Slot{0}), device(device), limiter(limits), nextLimitCheck(limiter.nextCheck()) {}

  std::vector<Slot> slots;
  const DeviceMemory *device;  // where allocations go (null: host memory)
  uint64_t statements = 0;     // executed stores, evaluates and lets (for throughput numbers)
  bool trapped = false;

  // Loop iterations so far; loops call withinLimits(loc) when `steps` reaches `nextLimitCheck`.
  uint64_t steps = 0;
  StepLimiter limiter;
  uint64_t nextLimitCheck;

  // Checks the RunLimits (and draws the progress line); false after trapping at `loc`.
  [[gnu::cold]] bool withinLimits(const ir::SourceLoc &loc);

  // Records the first error; later ones are consequences of the first and are dropped.
  [[gnu::cold]] void trap(const ir::SourceLoc &loc, std::string message) {
    if (trapped) return;
    trapped = true;
    trapLoc = loc;
    trapMessage = std::move(message);
  }

  ir::SourceLoc trapLoc;
  std::string trapMessage;
};

}  // namespace vtac::backend::interp
