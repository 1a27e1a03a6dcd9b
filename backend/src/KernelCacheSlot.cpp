#include "vtac/backend/KernelCacheSlot.h"

#include <deque>
#include <mutex>

namespace vtac::backend {

void **newKernelCacheSlot() {
  static std::mutex mutex;
  static auto *slots = new std::deque<void *>();  // never destroyed; references stay valid
  std::lock_guard<std::mutex> lock(mutex);
  slots->push_back(nullptr);
  return &slots->back();
}

}  // namespace vtac::backend
