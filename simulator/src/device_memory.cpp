#include "device_memory.h"

#include <cstdlib>

#include "vta/driver.h"

namespace vta::sim {

namespace {
constexpr uint64_t kPageBytes = VTA_PAGE_BYTES;
// Physical address 0 stays unmapped so that a zero address is always an error.
constexpr uint64_t kFirstPhysical = kPageBytes;
constexpr uint64_t kPhysicalLimit = uint64_t{1} << (8 * sizeof(vta_phy_addr_t));

// Host memory kept after a free, at most: a graph allocates the same buffers every inference,
// and fresh memory costs a page fault per page (ResNet-18's 11 MB of weights copied in per
// inference spent more time in page faults than in simulation).
constexpr uint64_t kSpareLimit = uint64_t{64} << 20;
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kKeepSpares = false;  // AddressSanitizer must see every free
#elif defined(__has_feature)
constexpr bool kKeepSpares = !__has_feature(address_sanitizer);
#else
constexpr bool kKeepSpares = true;
#endif

uint64_t roundUpToPage(uint64_t bytes) {
  return (bytes + kPageBytes - 1) / kPageBytes * kPageBytes;
}
}  // namespace

DeviceMemory& DeviceMemory::global() {
  static DeviceMemory* memory = [] {
    auto* m = new DeviceMemory();  // never destroyed: buffers may be freed during exit
    m->nextPhysical_ = kFirstPhysical;
    return m;
  }();
  return *memory;
}

std::optional<uint64_t> DeviceMemory::reservePhysical(uint64_t bytes) {
  for (auto it = freePhysical_.begin(); it != freePhysical_.end(); ++it) {
    if (it->second < bytes) continue;
    uint64_t phy = it->first, left = it->second - bytes;
    freePhysical_.erase(it);
    if (left) freePhysical_[phy + bytes] = left;
    return phy;
  }
  if (nextPhysical_ + bytes > kPhysicalLimit) return std::nullopt;
  uint64_t phy = nextPhysical_;
  nextPhysical_ += bytes;
  return phy;
}

void DeviceMemory::releasePhysical(uint64_t phy, uint64_t bytes) {
  auto next = freePhysical_.find(phy + bytes);
  if (next != freePhysical_.end()) {
    bytes += next->second;
    freePhysical_.erase(next);
  }
  auto it = freePhysical_.lower_bound(phy);
  if (it != freePhysical_.begin()) {
    auto prev = std::prev(it);
    if (prev->first + prev->second == phy) {
      prev->second += bytes;
      return;
    }
  }
  freePhysical_[phy] = bytes;
}

char* DeviceMemory::takeSpare(uint64_t bytes) {
  auto it = spare_.find(bytes);
  if (it == spare_.end()) return nullptr;
  char* host = it->second;
  spare_.erase(it);
  spareBytes_ -= bytes;
  return host;
}

void DeviceMemory::keepSpare(char* host, uint64_t bytes) {
  if (!kKeepSpares || spareBytes_ + bytes > kSpareLimit) {
    std::free(host);
    return;
  }
  try {
    spare_.emplace(bytes, host);
    spareBytes_ += bytes;
  } catch (...) {  // no memory for the map node: let the block go instead
    std::free(host);
  }
}

void* DeviceMemory::alloc(size_t requested) {
  uint64_t bytes = roundUpToPage(requested ? requested : 1);
  std::lock_guard<std::mutex> lock(mutex_);
  auto phy = reservePhysical(bytes);
  if (!phy) return nullptr;
  char* host = takeSpare(bytes);
  if (!host) host = static_cast<char*>(std::aligned_alloc(kPageBytes, bytes));
  if (!host) {
    releasePhysical(*phy, bytes);
    return nullptr;
  }
  try {
    byPhy_[*phy] = Region{host, *phy, bytes};
    byHost_[host] = *phy;
  } catch (...) {  // out of memory for a map node: undo, so that nothing leaks
    byPhy_.erase(*phy);
    std::free(host);
    releasePhysical(*phy, bytes);
    throw;
  }
  return host;
}

bool DeviceMemory::free(void* hostPtr) {
  const char* host = static_cast<const char*>(hostPtr);
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = byHost_.find(host);
  if (it == byHost_.end()) return false;
  auto region = byPhy_.find(it->second);
  keepSpare(region->second.host, region->second.bytes);
  releasePhysical(region->second.phy, region->second.bytes);
  byPhy_.erase(region);
  byHost_.erase(it);
  releases_.fetch_add(1, std::memory_order_release);
  return true;
}

std::optional<uint64_t> DeviceMemory::physicalAddress(const void* hostPtr) const {
  const char* host = static_cast<const char*>(hostPtr);
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = byHost_.upper_bound(host);
  if (it == byHost_.begin()) return std::nullopt;
  --it;
  const Region& region = byPhy_.at(it->second);
  if (host >= region.host + region.bytes) return std::nullopt;
  return region.phy + static_cast<uint64_t>(host - region.host);
}

char* DeviceMemory::translate(uint64_t phy, uint64_t bytes) const {
  uint64_t releases = 0;
  const std::optional<Region> region = regionOf(phy, releases);
  if (!region) return nullptr;
  const uint64_t offset = phy - region->phy;
  if (offset > region->bytes || bytes > region->bytes - offset) return nullptr;
  return region->host + offset;
}

std::optional<DeviceMemory::Region> DeviceMemory::regionOf(uint64_t phy, uint64_t& releases) const {
  std::lock_guard<std::mutex> lock(mutex_);
  releases = releaseCount();
  auto it = byPhy_.upper_bound(phy);
  if (it == byPhy_.begin()) return std::nullopt;
  return std::prev(it)->second;
}

}  // namespace vta::sim
