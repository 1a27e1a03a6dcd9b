#include "timing_model.h"

#include <algorithm>

namespace vta::sim {

const char* timingModuleName(int module) {
  static const char* names[kNumTimingModules] = {"fetch", "load", "compute", "store"};
  return module >= 0 && module < kNumTimingModules ? names[module] : "?";
}

namespace {
// Token queues between modules a and b are tokens[a][b]; one more row and column than modules,
// so that the flags of a module at either end of the pipeline index a queue nobody pushes to
// (the decoder rejects such flags before a program runs; here they would only stall).
constexpr int kQueueIndices = kNumTimingModules + 1;

struct TokenQueue {
  std::vector<uint64_t> pushTimes;
  size_t popped = 0;
  bool ready() const { return popped < pushTimes.size(); }
  uint64_t pop() { return pushTimes[popped++]; }
};
}  // namespace

ProgramTiming timeProgram(const std::vector<TimedInsn>& insns, uint32_t queueDepth) {
  const size_t count = insns.size();
  ProgramTiming timing;
  timing.fetchStart.assign(count, 0);
  timing.start.assign(count, 0);
  timing.end.assign(count, 0);
  // When each instruction left its command queue: the room fetch waits for.
  std::vector<uint64_t> issue(count, 0);
  std::vector<uint32_t> queues[kNumTimingModules];
  std::vector<size_t> queuePosition(count);
  for (size_t i = 0; i < count; ++i) {
    queuePosition[i] = queues[insns[i].module].size();
    queues[insns[i].module].push_back(static_cast<uint32_t>(i));
  }
  TokenQueue tokens[kQueueIndices][kQueueIndices];
  uint64_t freeAt[kNumTimingModules] = {};
  size_t next[kNumTimingModules] = {};  // fetch: program index; the others: queue position
  ModuleCycles* modules = timing.modules;

  // Each module advances as far as its inputs are known; the times are a function of the
  // program alone, so the order in which the modules advance does not change them.
  for (bool progress = true; progress;) {
    progress = false;
    for (size_t& i = next[kFetchModule]; i < count; ++i, progress = true) {
      const TimedInsn& insn = insns[i];
      uint64_t ready = freeAt[kFetchModule];
      if (queuePosition[i] >= queueDepth) {
        const size_t leaving = queuePosition[i] - queueDepth;
        if (next[insn.module] <= leaving) break;  // its queue is full until that one issues
        ready = std::max(ready, issue[queues[insn.module][leaving]]);
      }
      modules[kFetchModule].stalled += ready - freeAt[kFetchModule];
      modules[kFetchModule].busy += insn.fetchCycles;
      timing.fetchStart[i] = ready;
      freeAt[kFetchModule] = ready + insn.fetchCycles;
    }
    for (int module = kLoadModule; module <= kStoreModule; ++module) {
      for (size_t& position = next[module]; position < queues[module].size(); ++position, progress = true) {
        const uint32_t i = queues[module][position];
        const TimedInsn& insn = insns[i];
        TokenQueue& fromPrev = tokens[module - 1][module];
        TokenQueue& fromNext = tokens[module + 1][module];
        if (i >= next[kFetchModule] || (insn.deps.popPrev && !fromPrev.ready()) ||
            (insn.deps.popNext && !fromNext.ready()))
          break;
        issue[i] = std::max(freeAt[module], timing.fetchStart[i] + insn.fetchCycles);
        uint64_t begin = issue[i];
        if (insn.deps.popPrev) begin = std::max(begin, fromPrev.pop());
        if (insn.deps.popNext) begin = std::max(begin, fromNext.pop());
        const uint64_t end = begin + insn.executeCycles;
        modules[module].stalled += begin - issue[i];
        modules[module].busy += insn.executeCycles;
        timing.start[i] = begin;
        timing.end[i] = end;
        freeAt[module] = end;
        if (insn.deps.pushPrev) tokens[module][module - 1].pushTimes.push_back(end);
        if (insn.deps.pushNext) tokens[module][module + 1].pushTimes.push_back(end);
      }
    }
  }
  timing.complete = true;
  for (int module = kFetchModule; module < kNumTimingModules; ++module) {
    const size_t total = module == kFetchModule ? count : queues[module].size();
    timing.complete &= next[module] == total;
    timing.cycles = std::max(timing.cycles, freeAt[module]);
  }
  return timing;
}

}  // namespace vta::sim
