// The cycle-approximate timing of a VTA program: the fetch, load, compute and store modules
// run concurrently, each through its own instructions in program order, synchronised only by
// the four dependency-token queues and by fetch's bounded command queues.
//
// A module takes its next instruction from its command queue once the instruction is fetched
// and the module is free (issue), waits there for the tokens the instruction pops (stalled),
// runs it for its cost (busy) and pushes its tokens at the end. The k-th pop of a token queue
// takes the k-th push. Fetch reads the program in order and stalls while the command queue of
// the instruction's module is full. Costs come from insn_cycles.h; the model is a pure function
// of the instruction stream, so a validated program is timed once (docs/timing-model.md).
#ifndef VTA_SIM_TIMING_MODEL_H_
#define VTA_SIM_TIMING_MODEL_H_

#include <cstdint>
#include <vector>

#include "llvm/ADT/STLFunctionalExtras.h"
#include "vta/isa.h"

namespace vta::sim {

// The modules in the order of VTA's pipeline; kLoad..kStore are the executing ones, in the
// order of Device's cores.
enum TimingModule { kFetchModule = 0, kLoadModule = 1, kComputeModule = 2, kStoreModule = 3 };
inline constexpr int kNumTimingModules = 4;
const char* timingModuleName(int module);

// What the model needs of one instruction: which module executes it, its dependency flags,
// and its costs in cycles to fetch and to execute.
struct TimedInsn {
  int module;  // kLoadModule, kComputeModule or kStoreModule
  isa::DepFlags deps;
  uint64_t fetchCycles;
  uint64_t executeCycles;
};
// The instruction at a program index, asked for when needed (a few times each) rather than
// listed: a program's first run pays for every fresh page of memory the model touches.
using TimedInsnSource = llvm::function_ref<TimedInsn(uint32_t index)>;

struct ModuleCycles {
  uint64_t busy = 0;     // cycles spent fetching or executing instructions
  uint64_t stalled = 0;  // cycles an instruction in hand waited (tokens; fetch: a full queue)
};

struct ProgramTiming {
  // False if the modules cannot all reach their end (a deadlock, which the functional run
  // reports): only the instructions that could run then have their times below.
  bool complete = false;
  uint64_t cycles = 0;  // the last module's end
  ModuleCycles modules[kNumTimingModules];
  // Per instruction, in program order: the cycles its module ran it.
  struct Insn {
    uint64_t start, end;
  };
  std::vector<Insn> insns;
};

// The timing of the `count` instructions `insnAt` gives; `queueDepth`: the instructions each
// module's command queue holds.
ProgramTiming timeProgram(uint32_t count, TimedInsnSource insnAt, uint32_t queueDepth);
// The same for a listed program (tests).
ProgramTiming timeProgram(const std::vector<TimedInsn>& insns, uint32_t queueDepth);

}  // namespace vta::sim

#endif  // VTA_SIM_TIMING_MODEL_H_
