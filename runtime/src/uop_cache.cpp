#include "uop_cache.h"

#include "uop_kernel.h"

namespace vta::runtime {

UopCache::Placement UopCache::place(const UopKernel& kernel) {
  const auto& uops = kernel.encodedUops();
  const uint32_t size = static_cast<uint32_t>(uops.size());
  if (auto it = resident_.find(&kernel); it != resident_.end())
    return {it->second.begin, it->second.end, false, 0};
  if (size == 0) return {0, 0, false, 0};  // nothing to load; an empty range executes nothing
  if (cursor_ + size > sramDepth_) cursor_ = 0;
  const Range range{cursor_, cursor_ + size};
  for (auto it = resident_.begin(); it != resident_.end();) {
    const bool overlaps = it->second.begin < range.end && range.begin < it->second.end;
    it = overlaps ? resident_.erase(it) : std::next(it);
  }
  resident_[&kernel] = range;
  cursor_ = range.end;
  const size_t imageIndex = dramImage_.size();
  dramImage_.insert(dramImage_.end(), uops.begin(), uops.end());
  return {range.begin, range.end, true, imageIndex};
}

void UopCache::reset() {
  cursor_ = 0;
  resident_.clear();
  dramImage_.clear();
}

}  // namespace vta::runtime
