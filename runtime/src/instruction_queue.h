// The instruction stream of one synchronisation, with the dependency-flag bookkeeping of TVM's
// runtime: a pop requested by VTADepPop is attached to the next instruction of the popping
// stage; a push requested by VTADepPush is set on the last instruction if that instruction
// belongs to the pushing stage, and otherwise carried by a no-op (a LOAD or STORE with
// x_size 0) of that stage. The flags are therefore bit-identical to TVM's for the same calls.
#ifndef VTA_RUNTIME_INSTRUCTION_QUEUE_H_
#define VTA_RUNTIME_INSTRUCTION_QUEUE_H_

#include <cstdint>
#include <vector>

#include "vta/isa.h"

namespace vta::runtime {

// Pipeline stages, numbered as the queue ids of VTADepPush / VTADepPop.
enum Stage : int { kNoStage = 0, kLoadStage = 1, kComputeStage = 2, kStoreStage = 3 };

// The stage whose queue executes loads into `memoryType` (TVM's convention).
Stage stageOfLoad(uint32_t memoryType);

class InstructionQueue {
public:
  explicit InstructionQueue(const isa::Layout& layout) : layout_(layout) {}

  // Takes the pops pending for `stage`: the flags of the next instruction of that stage.
  isa::DepFlags takePendingPops(Stage stage) {
    isa::DepFlags deps;
    deps.popPrev = pendingPopPrev_[stage];
    deps.popNext = pendingPopNext_[stage];
    pendingPopPrev_[stage] = pendingPopNext_[stage] = false;
    return deps;
  }
  void append(const isa::Insn& insn) { insns_.push_back(insn); }
  // A new zero instruction at the end, to encode into; dropLast() takes it back.
  isa::Insn& appendSlot() { return insns_.emplace_back(); }
  void dropLast() { insns_.pop_back(); }

  void depPop(Stage from, Stage to);
  void depPush(Stage from, Stage to);
  // Materialises pending pops of `stage` on a no-op.
  void commitPendingPop(Stage stage);
  bool hasPendingPops() const;
  // VTA_DEBUG_FORCE_SERIAL: rewrites every dependency flag so that each instruction waits for
  // the one before it whenever they run in neighbouring stages (TVM's serial debug mode), then
  // closes the program as the normal end of a synchronisation does.
  void serializeAll();

  const std::vector<isa::Insn>& insns() const { return insns_; }
  size_t size() const { return insns_.size(); }
  void reset();

private:
  // The stage an instruction runs in; kNoStage for a LOAD no-op (TVM never merges into those).
  Stage stageOf(const isa::Insn& insn) const;
  // The stage of any instruction, a LOAD no-op counting in the stage of its memory type.
  Stage queueOf(const isa::Insn& insn) const;
  void pushNoop(Stage stage, const isa::DepFlags& deps);

  const isa::Layout& layout_;
  std::vector<isa::Insn> insns_;
  bool pendingPopPrev_[4] = {false, false, false, false};
  bool pendingPopNext_[4] = {false, false, false, false};
};

}  // namespace vta::runtime

#endif  // VTA_RUNTIME_INSTRUCTION_QUEUE_H_
