#include "Runtime.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "vtac/backend/Diagnostic.h"
#include "vtac/backend/Tensor.h"

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
  auto rounded = size_t(paddedAllocationBytes(bytes));
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

bool Frame::withinLimits(const ir::SourceLoc &loc) {
  if (std::optional<std::string> stop = limiter.check(steps)) {
    trap(loc, std::move(*stop));
    return false;
  }
  nextLimitCheck = limiter.nextCheck();
  return true;
}

}  // namespace vtac::backend::interp
