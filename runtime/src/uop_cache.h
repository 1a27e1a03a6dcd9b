// Residency of micro-kernels in the micro-op SRAM during one synchronisation, and the DRAM
// image the LOAD UOP instructions read from.
//
// Kernels are placed one after another; when the next one does not fit, placement wraps to
// index 0 and every resident kernel it overlaps is evicted (TVM's policy). A kernel already
// resident costs nothing. Unlike TVM's runtime, each load gets its own copy of the micro-ops in
// the DRAM image, so an eviction never changes what an earlier LOAD UOP reads.
#ifndef VTA_RUNTIME_UOP_CACHE_H_
#define VTA_RUNTIME_UOP_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace vta::runtime {

class UopKernel;

class UopCache {
public:
  explicit UopCache(uint32_t sramDepth) : sramDepth_(sramDepth) {}

  struct Placement {
    uint32_t sramBegin;
    uint32_t sramEnd;
    bool needsLoad;         // the kernel was not resident
    size_t dramImageIndex;  // where its micro-ops start in dramImage() (if needsLoad)
  };
  // Precondition: the kernel has at most sramDepth micro-ops.
  Placement place(const UopKernel& kernel);

  const std::vector<uint32_t>& dramImage() const { return dramImage_; }
  // Forgets all residency (the device's SRAM content is not trusted across runs).
  void reset();

private:
  struct Range {
    uint32_t begin, end;
  };
  uint32_t sramDepth_;
  uint32_t cursor_ = 0;
  std::unordered_map<const UopKernel*, Range> resident_;
  std::vector<uint32_t> dramImage_;
};

}  // namespace vta::runtime

#endif  // VTA_RUNTIME_UOP_CACHE_H_
