// Device buffers handed out by VTABufferAlloc. As in TVM's runtime, the handle is not the CPU
// address: it is a registered DataBuffer, so that a load or store can find the physical
// address and a stale or doubly freed handle is recognised instead of corrupting memory.
#ifndef VTA_RUNTIME_DATA_BUFFER_H_
#define VTA_RUNTIME_DATA_BUFFER_H_

#include <cstddef>
#include <cstdint>

#include "vta/driver.h"

namespace vta::runtime {

struct DataBuffer {
  void* host;
  vta_phy_addr_t phy;
  size_t bytes;

  // nullptr (error reported) if the device cannot allocate.
  static DataBuffer* allocate(size_t bytes);
  // False if `handle` is not a live buffer (never allocated or already freed).
  static bool release(void* handle);
  // The live buffer behind a handle, or nullptr.
  static DataBuffer* fromHandle(const void* handle);
  // How many buffers have been released so far: a handle found live stays live while this
  // count is unchanged (lets a caller skip the locked lookup for the handle it used last).
  static uint64_t releaseCount();
};

}  // namespace vta::runtime

#endif  // VTA_RUNTIME_DATA_BUFFER_H_
