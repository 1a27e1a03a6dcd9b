#include "instruction_queue.h"

namespace vta::runtime {

using namespace isa;

Stage stageOfLoad(uint32_t memoryType) {
  if (memoryType == kMemAcc || memoryType == kMemAcc8Bit || memoryType == kMemUop)
    return kComputeStage;
  return kLoadStage;
}

Stage InstructionQueue::stageOf(const Insn& insn) const {
  switch (layout_.opcodeOf(insn)) {
    case kOpGemm:
    case kOpAlu:
      return kComputeStage;
    case kOpStore:
      return kStoreStage;
    case kOpLoad: {
      const MemInsn mem = layout_.decodeMem(insn);
      return mem.xSize == 0 ? kNoStage : stageOfLoad(mem.memoryType);
    }
    default:
      return kNoStage;
  }
}

Stage InstructionQueue::queueOf(const Insn& insn) const {
  const Stage stage = stageOf(insn);
  return stage != kNoStage ? stage : stageOfLoad(layout_.decodeMem(insn).memoryType);
}

void InstructionQueue::serializeAll() {
  size_t lastStore = 0;
  bool endsWithStore = false;
  for (size_t i = 1; i < insns_.size(); ++i) {
    const Stage before = queueOf(insns_[i - 1]), now = queueOf(insns_[i]);
    DepFlags first = layout_.depsOf(insns_[i - 1]), second = layout_.depsOf(insns_[i]);
    first.pushPrev = first.pushNext = second.popPrev = second.popNext = false;
    // The earlier instruction pushes towards the later one's stage, which pops it.
    if (before + 1 == now && (now == kComputeStage || now == kStoreStage))
      first.pushNext = second.popPrev = true;
    else if (before == now + 1 && (before == kComputeStage || before == kStoreStage))
      first.pushPrev = second.popNext = true;
    layout_.setDeps(insns_[i - 1], first);
    layout_.setDeps(insns_[i], second);
    if (now == kStoreStage) lastStore = i;
    endsWithStore = now == kStoreStage;
  }
  if (endsWithStore) {
    DepFlags deps = layout_.depsOf(insns_[lastStore]);
    deps.pushPrev = true;
    layout_.setDeps(insns_[lastStore], deps);
    if (!pendingPopNext_[kComputeStage]) depPop(kStoreStage, kComputeStage);
    commitPendingPop(kComputeStage);
  } else {
    pendingPopNext_[kComputeStage] = false;
  }
  depPush(kComputeStage, kLoadStage);
  depPop(kLoadStage, kComputeStage);
  if (!pendingPopNext_[kLoadStage]) depPop(kComputeStage, kLoadStage);
  commitPendingPop(kLoadStage);
  depPush(kLoadStage, kComputeStage);
  commitPendingPop(kComputeStage);
}

void InstructionQueue::pushNoop(Stage stage, const DepFlags& deps) {
  MemInsn noop;
  noop.opcode = stage == kStoreStage ? kOpStore : kOpLoad;
  noop.deps = deps;
  noop.memoryType = stage == kLoadStage ? kMemInp : kMemUop;
  insns_.push_back(llvm::cantFail(layout_.encode(noop)));  // all fields zero: always fits
}

void InstructionQueue::depPop(Stage from, Stage to) {
  // Two pops of the same queue cannot share one instruction: commit the first on a no-op.
  bool* pending = from < to ? pendingPopPrev_ : pendingPopNext_;
  if (pending[to]) commitPendingPop(to);
  pending[to] = true;
}

void InstructionQueue::depPush(Stage from, Stage to) {
  commitPendingPop(from);
  if (!insns_.empty() && stageOf(insns_.back()) == from) {
    Insn& last = insns_.back();
    DepFlags deps = layout_.depsOf(last);
    bool& flag = from < to ? deps.pushNext : deps.pushPrev;
    if (!flag) {
      flag = true;
      layout_.setDeps(last, deps);
      return;
    }
  }
  DepFlags deps;
  (from < to ? deps.pushNext : deps.pushPrev) = true;
  pushNoop(from, deps);
}

void InstructionQueue::commitPendingPop(Stage stage) {
  if (!pendingPopPrev_[stage] && !pendingPopNext_[stage]) return;
  pushNoop(stage, takePendingPops(stage));
}

bool InstructionQueue::hasPendingPops() const {
  for (int stage = kLoadStage; stage <= kStoreStage; ++stage)
    if (pendingPopPrev_[stage] || pendingPopNext_[stage]) return true;
  return false;
}

void InstructionQueue::reset() {
  insns_.clear();
  for (int stage = 0; stage < 4; ++stage) pendingPopPrev_[stage] = pendingPopNext_[stage] = false;
}

}  // namespace vta::runtime
