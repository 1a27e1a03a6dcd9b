#include "Runtime.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include <llvm/Support/Format.h>
#include <llvm/Support/raw_ostream.h>

#include "vtac/backend/Diagnostic.h"

namespace vtac::backend::interp {

Storage::~Storage() {
  if (deviceHandle)
    device->release(deviceHandle);
  else
    std::free(data);
}

llvm::Expected<std::unique_ptr<Storage>> allocateStorage(int64_t bytes, const DeviceMemory *device) {
  if (bytes < 0) return diagnosticError("negative allocation size " + llvm::Twine(bytes));
  auto storage = std::make_unique<Storage>();
  storage->byteSize = bytes;
  // Never a zero-byte request: every storage gets a distinct, valid address.
  size_t rounded = (size_t(bytes) + 63) / 64 * 64 + 64;
  if (device) {
    auto handle = device->allocate(rounded);
    if (!handle) return handle.takeError();
    storage->device = device;
    storage->deviceHandle = *handle;
    storage->data = device->cpuAddress(*handle);
  } else {
    storage->data = static_cast<uint8_t *>(std::aligned_alloc(64, rounded));
    if (!storage->data)
      return diagnosticError("out of memory allocating " + llvm::Twine(bytes) + " bytes");
  }
  std::memset(storage->data, 0, rounded);
  return storage;
}

namespace {
// Loop iterations between two readings of the clock (a few hundred microseconds at most).
constexpr uint64_t kStepsBetweenClockChecks = 1 << 14;
}  // namespace

void Frame::scheduleLimitCheck() {
  const bool clocked = limits.timeoutSeconds > 0 || limits.progress;
  nextLimitCheck = clocked ? steps + kStepsBetweenClockChecks : UINT64_MAX;
  if (limits.maxSteps) nextLimitCheck = std::min(nextLimitCheck, limits.maxSteps + 1);
}

bool Frame::withinLimits(const ir::SourceLoc &loc) {
  if (limits.maxSteps && steps > limits.maxSteps) {
    trap(loc, "the run stopped here after " + std::to_string(limits.maxSteps) +
                  " loop iterations (the limit of --max-steps)");
    return false;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (limits.timeoutSeconds > 0 && seconds > limits.timeoutSeconds) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "the run stopped here after " << llvm::format("%.1f", seconds) << " s and " << steps
       << " loop iterations (the limit of --timeout is " << llvm::format("%g", limits.timeoutSeconds) << " s)";
    trap(loc, os.str());
    return false;
  }
  if (limits.progress && seconds >= nextProgressSecond) {
    *limits.progress << "\rvtac: running for " << int(seconds) << " s, " << steps << " loop iterations"
                     << std::flush;
    progressShown = true;
    nextProgressSecond = int(seconds) + 1;
  }
  scheduleLimitCheck();
  return true;
}

}  // namespace vtac::backend::interp
