#include "insn_cycles.h"

#include <algorithm>

namespace vta::sim {

namespace {
uint64_t ceilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
}  // namespace

uint64_t dmaCycles(uint64_t rows, uint64_t rowBytes, const TimingParameters& timing) {
  if (rows == 0 || rowBytes == 0) return 0;
  const uint64_t beats = ceilDiv(rowBytes, timing.memBusBytes);
  const uint64_t requests = ceilDiv(beats, timing.maxBurstBeats);
  return rows * (requests * timing.dramLatency + beats);
}

uint64_t memCycles(const isa::MemInsn& mem, const Config& config) {
  if (mem.xSize == 0) return kDispatchCycles;
  if (mem.opcode == isa::kOpStore)
    return dmaCycles(mem.ySize, uint64_t{mem.xSize} * config.outElemBytes, config.timing);
  // Padding is written element by element: whole rows above and below, columns beside each row.
  const uint64_t rowElems = uint64_t{mem.xPad0} + mem.xSize + mem.xPad1;
  const uint64_t padElems = (uint64_t{mem.yPad0} + mem.yPad1) * rowElems +
                            uint64_t{mem.ySize} * (mem.xPad0 + mem.xPad1);
  return dmaCycles(mem.ySize, uint64_t{mem.xSize} * config.dramElemBytes(mem.memoryType),
                   config.timing) +
         padElems;
}

uint64_t uopLoopCycles(const isa::UopLoops& loops, uint32_t initiationInterval,
                       uint32_t pipelineDepth) {
  const uint64_t uops = loops.uopEnd > loops.uopBgn ? loops.uopEnd - loops.uopBgn : 0;
  return uint64_t{loops.iterOut} * loops.iterIn * uops * initiationInterval + pipelineDepth;
}

uint64_t fetchCycles(uint64_t programIndex, const Config& config) {
  const TimingParameters& timing = config.timing;
  const uint64_t beats = ceilDiv(config.insnElemBytes, timing.memBusBytes);
  const uint64_t perBurst =
      std::max<uint64_t>(1, uint64_t{timing.maxBurstBeats} * timing.memBusBytes / config.insnElemBytes);
  return beats + (programIndex % perBurst == 0 ? timing.dramLatency : 0);
}

}  // namespace vta::sim
