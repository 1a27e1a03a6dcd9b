// The simulated DRAM: host allocations mapped to page-aligned 32-bit physical addresses.
//
// Instructions name DRAM only by physical address (in elements); the device translates an
// address range back to host memory here, and a range that is not inside one live allocation
// is an error rather than a wild read. One instance per process, shared by all devices.
#ifndef VTA_SIM_DEVICE_MEMORY_H_
#define VTA_SIM_DEVICE_MEMORY_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>

namespace vta::sim {

class DeviceMemory {
public:
  static DeviceMemory& global();

  // Page-aligned host memory with a physical address; nullptr if the 32-bit space is full.
  void* alloc(size_t bytes);
  // False if `host` is not the start of a live allocation (e.g. freed twice).
  bool free(void* host);
  // Physical address of a host address inside a live allocation.
  std::optional<uint64_t> physicalAddress(const void* host) const;
  // Host address of [phy, phy + bytes) if the whole range lies inside one live allocation.
  char* translate(uint64_t phy, uint64_t bytes) const;

  struct Region {
    char* host;
    uint64_t phy;
    uint64_t bytes;  // rounded up to whole pages
  };
  // The live allocation holding physical address `phy`, if any, and the release count at the
  // time of the lookup: the region stays valid while releaseCount() returns the same value.
  std::optional<Region> regionOf(uint64_t phy, uint64_t& releases) const;
  uint64_t releaseCount() const { return releases_.load(std::memory_order_acquire); }

private:
  std::optional<uint64_t> reservePhysical(uint64_t bytes);
  void releasePhysical(uint64_t phy, uint64_t bytes);
  // Freed host memory kept for the next allocation of its size (see keepSpare).
  char* takeSpare(uint64_t bytes);
  void keepSpare(char* host, uint64_t bytes);

  mutable std::mutex mutex_;
  std::map<uint64_t, Region> byPhy_;             // keyed by physical base
  std::map<const char*, uint64_t> byHost_;       // host base -> physical base
  std::map<uint64_t, uint64_t> freePhysical_;    // physical base -> bytes, coalesced
  std::multimap<uint64_t, char*> spare_;         // bytes -> freed host memory of that size
  uint64_t spareBytes_ = 0;
  uint64_t nextPhysical_;
  std::atomic<uint64_t> releases_{0};
};

}  // namespace vta::sim

#endif  // VTA_SIM_DEVICE_MEMORY_H_
