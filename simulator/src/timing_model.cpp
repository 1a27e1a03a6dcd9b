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

ProgramTiming timeProgram(uint32_t count, TimedInsnSource insnAt, uint32_t queueDepth) {
  ProgramTiming timing;
  // Until its module runs an instruction, its start holds when fetch delivered it.
  timing.insns.assign(count, {});
  std::vector<ProgramTiming::Insn>& times = timing.insns;
  std::vector<uint32_t> queues[kNumTimingModules];  // program indices, per executing module
  for (uint32_t i = 0; i < count; ++i) queues[insnAt(i).module].push_back(i);
  // When the last queueDepth instructions of each module left its command queue (issue), by
  // queue position modulo queueDepth: the room fetch waits for.
  std::vector<uint64_t> issued[kNumTimingModules];
  for (int module = kLoadModule; module <= kStoreModule; ++module)
    issued[module].resize(std::min<size_t>(queueDepth, queues[module].size()));
  TokenQueue tokens[kQueueIndices][kQueueIndices];
  uint64_t freeAt[kNumTimingModules] = {};
  size_t next[kNumTimingModules] = {};  // fetch: program index; the others: queue position
  size_t fetched[kNumTimingModules] = {};
  ModuleCycles* modules = timing.modules;

  // Each module advances as far as its inputs are known; the times are a function of the
  // program alone, so the order in which the modules advance does not change them.
  for (bool progress = true; progress;) {
    progress = false;
    for (size_t& i = next[kFetchModule]; i < count; ++i, progress = true) {
      const TimedInsn insn = insnAt(static_cast<uint32_t>(i));
      const size_t position = fetched[insn.module];
      uint64_t ready = freeAt[kFetchModule];
      if (position >= queueDepth) {
        if (next[insn.module] <= position - queueDepth) break;  // full until that one issues
        ready = std::max(ready, issued[insn.module][position % queueDepth]);
      }
      modules[kFetchModule].stalled += ready - freeAt[kFetchModule];
      modules[kFetchModule].busy += insn.fetchCycles;
      freeAt[kFetchModule] = ready + insn.fetchCycles;
      times[i].start = freeAt[kFetchModule];
      ++fetched[insn.module];
    }
    for (int module = kLoadModule; module <= kStoreModule; ++module) {
      for (size_t& position = next[module]; position < queues[module].size(); ++position, progress = true) {
        const uint32_t i = queues[module][position];
        if (i >= next[kFetchModule]) break;
        const TimedInsn insn = insnAt(i);
        TokenQueue& fromPrev = tokens[module - 1][module];
        TokenQueue& fromNext = tokens[module + 1][module];
        if ((insn.deps.popPrev && !fromPrev.ready()) || (insn.deps.popNext && !fromNext.ready()))
          break;
        const uint64_t issue = std::max(freeAt[module], times[i].start);
        if (!issued[module].empty()) issued[module][position % issued[module].size()] = issue;
        uint64_t begin = issue;
        if (insn.deps.popPrev) begin = std::max(begin, fromPrev.pop());
        if (insn.deps.popNext) begin = std::max(begin, fromNext.pop());
        const uint64_t end = begin + insn.executeCycles;
        modules[module].stalled += begin - issue;
        modules[module].busy += insn.executeCycles;
        times[i] = {begin, end};
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

ProgramTiming timeProgram(const std::vector<TimedInsn>& insns, uint32_t queueDepth) {
  return timeProgram(static_cast<uint32_t>(insns.size()),
                     [&](uint32_t index) { return insns[index]; }, queueDepth);
}

}  // namespace vta::sim
