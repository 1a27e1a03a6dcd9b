// What one instruction costs in the timing model (timing_model.h), in cycles, from its fields
// and the configuration's timing parameters; docs/timing-model.md derives each formula from
// VTA's hardware design.
#ifndef VTA_SIM_INSN_CYCLES_H_
#define VTA_SIM_INSN_CYCLES_H_

#include <cstdint>

#include "vta/config.h"
#include "vta/isa.h"

namespace vta::sim {

// A DMA of `rows` rows of `rowBytes` bytes each: per row, one request per burst and one beat
// per bus width.
uint64_t dmaCycles(uint64_t rows, uint64_t rowBytes, const TimingParameters& timing);

// A LOAD (its rows, plus one SRAM write per padding element) or a STORE (its rows).
uint64_t memCycles(const isa::MemInsn& mem, const Config& config);

// A GEMM or ALU: one issue per micro-op iteration, then the pipeline drains.
uint64_t uopLoopCycles(const isa::UopLoops& loops, uint32_t initiationInterval,
                       uint32_t pipelineDepth);

// What neither moves data nor loops (FINISH, a no-op LOAD or STORE): its dispatch.
inline constexpr uint64_t kDispatchCycles = 1;

// Fetching the instruction at `programIndex`: its beats, plus a request latency at the start
// of each burst of instructions.
uint64_t fetchCycles(uint64_t programIndex, const Config& config);

}  // namespace vta::sim

#endif  // VTA_SIM_INSN_CYCLES_H_
