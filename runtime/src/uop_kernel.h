// Micro-kernels: the micro-ops and (at most two) loops a `finit` closure records through
// VTAUopLoopBegin / VTAUopPush / VTAUopLoopEnd, and the per-call-site cache that maps the
// closure's signature bytes to the kernel recorded for them.
//
// TVM's runtime keys its cache by an empty signature or one int below 100; here any signature
// length is accepted (the bytes are the key). Recording errors (a loop opened after a micro-op,
// a third loop, mixed GEMM/ALU micro-ops, a value too wide for its field, ...) are collected
// in the kernel and reported when the kernel is pushed.
#ifndef VTA_RUNTIME_UOP_KERNEL_H_
#define VTA_RUNTIME_UOP_KERNEL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "vta/isa.h"

namespace vta::runtime {

class UopKernel {
public:
  enum class Mode { kUnset, kGemm, kAlu };
  struct Loop {
    uint32_t extent, dstFactor, srcFactor, wgtFactor;
  };

  void loopBegin(uint32_t extent, uint32_t dstFactor, uint32_t srcFactor, uint32_t wgtFactor);
  void loopEnd();
  // Records a micro-op, encoded with `layout` (the recording queue's configuration).
  void push(const isa::Layout& layout, uint32_t mode, uint32_t resetOut, uint32_t dst,
            uint32_t src, uint32_t wgt, uint32_t aluOpcode, uint32_t useImm, int32_t imm);

  // A recording call threw (out of memory) and left the kernel incomplete: finish() makes that
  // an error, so the kernel is never cached.
  void abandon() noexcept { abandoned_ = true; }

  // Ends recording: loops left open and an abandoned recording are errors.
  void finish();

  // The first recording error, empty if the kernel is well formed.
  const std::string& error() const { return error_; }
  const std::vector<uint32_t>& encodedUops() const { return encoded_; }
  uint32_t size() const { return static_cast<uint32_t>(encoded_.size()); }
  const std::vector<Loop>& loops() const { return loops_; }
  Mode mode() const { return mode_; }
  bool resetOut() const { return resetOut_ == 1; }
  uint32_t aluOpcode() const { return aluOpcode_; }
  bool useImm() const { return useImm_ == 1; }
  int32_t imm() const { return imm_; }
  std::string dump() const;

private:
  void fail(const std::string& message);

  std::vector<isa::Uop> uops_;
  std::vector<uint32_t> encoded_;
  std::vector<Loop> loops_;
  int openLoops_ = 0;
  Mode mode_ = Mode::kUnset;
  uint32_t resetOut_ = ~0u, aluOpcode_ = ~0u, useImm_ = ~0u;
  int32_t imm_ = 0;
  bool abandoned_ = false;
  std::string error_;
};

// The kernels of one call site (one `void** uop_handle`), keyed by signature bytes. Recorded
// under one configuration generation; a newer configuration retires them (kept, never freed,
// so that no later kernel can take the address of one a command queue still knows).
class UopKernelMap {
public:
  explicit UopKernelMap(uint64_t generation) : generation_(generation) {}

  UopKernel* find(const void* signature, int nbytes, uint64_t generation);
  UopKernel* insert(std::unique_ptr<UopKernel> kernel, const void* signature, int nbytes);

private:
  uint64_t generation_;
  std::unordered_map<std::string, std::unique_ptr<UopKernel>> kernels_;
  std::vector<std::unique_ptr<UopKernel>> retired_;
};

}  // namespace vta::runtime

#endif  // VTA_RUNTIME_UOP_KERNEL_H_
