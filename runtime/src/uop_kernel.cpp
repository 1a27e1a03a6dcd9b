#include "uop_kernel.h"

#include <algorithm>
#include <spdlog/fmt/fmt.h>

namespace vta::runtime {

namespace {
std::string signatureKey(const void* signature, int nbytes) {
  if (nbytes <= 0 || !signature) return {};
  return std::string(static_cast<const char*>(signature), static_cast<size_t>(nbytes));
}
}  // namespace

void UopKernel::fail(const std::string& message) {
  if (error_.empty()) error_ = message;
}

void UopKernel::loopBegin(uint32_t extent, uint32_t dstFactor, uint32_t srcFactor,
                          uint32_t wgtFactor) {
  if (!uops_.empty()) return fail("VTAUopLoopBegin after a micro-op: loops must enclose all micro-ops");
  if (loops_.size() == 2) return fail("VTAUopLoopBegin: a micro-kernel has at most two loops");
  loops_.push_back({extent, dstFactor, srcFactor, wgtFactor});
  ++openLoops_;
}

void UopKernel::loopEnd() {
  if (openLoops_ == 0) return fail("VTAUopLoopEnd without VTAUopLoopBegin");
  --openLoops_;
}

void UopKernel::finish() {
  if (abandoned_) fail("a micro-op call failed during recording (out of memory)");
  if (openLoops_ != 0) fail(fmt::format("{} VTAUopLoopBegin without VTAUopLoopEnd", openLoops_));
}

void UopKernel::push(const isa::Layout& layout, uint32_t mode, uint32_t resetOut, uint32_t dst,
                     uint32_t src, uint32_t wgt, uint32_t aluOpcode, uint32_t useImm,
                     int32_t imm) {
  if (mode > 1) return fail(fmt::format("VTAUopPush: mode {} is neither 0 (GEMM) nor 1 (ALU)", mode));
  const Mode uopMode = mode == 0 ? Mode::kGemm : Mode::kAlu;
  if (mode_ != Mode::kUnset && mode_ != uopMode)
    return fail("VTAUopPush: GEMM and ALU micro-ops mixed in one micro-kernel");
  mode_ = uopMode;
  if (resetOut_ != ~0u && resetOut_ != resetOut)
    return fail("VTAUopPush: reset_out differs between micro-ops of one micro-kernel");
  resetOut_ = resetOut;
  if (uopMode == Mode::kAlu) {
    if (aluOpcode_ != ~0u && (aluOpcode_ != aluOpcode || useImm_ != useImm || imm_ != imm))
      return fail("VTAUopPush: ALU opcode or immediate differs between micro-ops of one kernel");
    aluOpcode_ = aluOpcode, useImm_ = useImm, imm_ = imm;
  }
  // The hardware pipeline cannot write the same accumulator tile twice within two micro-ops.
  const size_t recent = std::min<size_t>(2, uops_.size());
  for (size_t i = uops_.size() - recent; i < uops_.size(); ++i)
    if (uops_[i].dst == dst)
      return fail(fmt::format("VTAUopPush: micro-op {} writes accumulator index {} like one of "
                              "the two micro-ops before it (pipeline hazard)",
                              uops_.size(), dst));
  const isa::Uop uop{dst, src, wgt};
  auto word = layout.encode(uop);
  if (!word) return fail("VTAUopPush: " + llvm::toString(word.takeError()));
  uops_.push_back(uop);
  encoded_.push_back(*word);
}

std::string UopKernel::dump() const {
  std::string text = fmt::format("micro-kernel of {} micro-ops, {} loops\n", uops_.size(), loops_.size());
  for (size_t i = 0; i < loops_.size(); ++i)
    text += fmt::format("  loop {}: extent={} dst_factor={} src_factor={} wgt_factor={}\n", i,
                        loops_[i].extent, loops_[i].dstFactor, loops_[i].srcFactor, loops_[i].wgtFactor);
  for (size_t i = 0; i < uops_.size(); ++i)
    text += fmt::format("  [{:04}] acc={} inp={} wgt={}\n", i, uops_[i].dst, uops_[i].src, uops_[i].wgt);
  return text;
}

UopKernel* UopKernelMap::find(const void* signature, int nbytes, uint64_t generation) {
  if (generation != generation_) {
    for (auto& entry : kernels_) retired_.push_back(std::move(entry.second));
    kernels_.clear();
    generation_ = generation;
    return nullptr;
  }
  auto it = kernels_.find(signatureKey(signature, nbytes));
  return it == kernels_.end() ? nullptr : it->second.get();
}

UopKernel* UopKernelMap::insert(std::unique_ptr<UopKernel> kernel, const void* signature,
                                int nbytes) {
  auto& slot = kernels_[signatureKey(signature, nbytes)];
  slot = std::move(kernel);
  return slot.get();
}

}  // namespace vta::runtime
