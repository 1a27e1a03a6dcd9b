#include "data_buffer.h"

#include <atomic>
#include <mutex>
#include <spdlog/fmt/fmt.h>
#include <unordered_set>

#include "runtime_state.h"

namespace vta::runtime {

namespace {
std::mutex registryMutex;
std::atomic<uint64_t> releases{0};
std::unordered_set<const void*>& liveBuffers() {
  static auto* buffers = new std::unordered_set<const void*>();
  return *buffers;
}
}  // namespace

DataBuffer* DataBuffer::allocate(size_t bytes) {
  void* host = VTAMemAlloc(bytes, VTA_CACHED);
  if (!host) {
    reportError(fmt::format("VTABufferAlloc: the device cannot allocate {} bytes", bytes));
    return nullptr;
  }
  auto* buffer = new DataBuffer{host, VTAMemGetPhyAddr(host), bytes};
  std::lock_guard<std::mutex> lock(registryMutex);
  liveBuffers().insert(buffer);
  return buffer;
}

bool DataBuffer::release(void* handle) {
  {
    std::lock_guard<std::mutex> lock(registryMutex);
    if (!liveBuffers().erase(handle)) return false;
    releases.fetch_add(1, std::memory_order_release);
  }
  auto* buffer = static_cast<DataBuffer*>(handle);
  VTAMemFree(buffer->host);
  delete buffer;
  return true;
}

DataBuffer* DataBuffer::fromHandle(const void* handle) {
  std::lock_guard<std::mutex> lock(registryMutex);
  if (!liveBuffers().count(handle)) return nullptr;
  return const_cast<DataBuffer*>(static_cast<const DataBuffer*>(handle));
}

uint64_t DataBuffer::releaseCount() { return releases.load(std::memory_order_acquire); }

}  // namespace vta::runtime
