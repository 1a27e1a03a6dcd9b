#include "device.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <string_view>
#include <spdlog/fmt/fmt.h>

#include "device_memory.h"
#include "insn_cycles.h"
#include "sim_state.h"
#include "vta/sim.h"

namespace vta::sim {

using namespace isa;

namespace {
const RunResult kOk{VTA_SIM_OK, {}};

// The DRAM bytes [first, first + bytes) of a LOAD's or STORE's rows (bytes is 0 without rows).
struct DramSpan {
  uint64_t first, bytes;
};
DramSpan dramSpan(const MemInsn& mem, uint64_t elemBytes) {
  if (mem.ySize == 0) return {uint64_t{mem.dramBase} * elemBytes, 0};
  return {uint64_t{mem.dramBase} * elemBytes,
          (uint64_t{mem.ySize - 1} * mem.xStride + mem.xSize) * elemBytes};
}

const char* queueName(int from, int to) {
  static const char* names[3][3] = {{"", "load->compute", ""},
                                    {"compute->load", "", "compute->store"},
                                    {"", "store->compute", ""}};
  return names[from][to];
}
}  // namespace

Device::Device(const Config& config, const Layout& layout)
    : config_(config),
      layout_(layout),
      shape_{config.batch, config.blockIn, config.blockOut},
      inp_(size_t{config.inpDepth} * config.inpElemBytes),
      wgt_(size_t{config.wgtDepth} * config.wgtElemBytes),
      acc_(size_t{config.accDepth} * config.batch * config.blockOut),
      inpBiased_(inp_.size()),
      wgtInterleaved_(wgt_.size()),
      wgtRowSum_(size_t{config.wgtDepth} * config.blockOut),
      uop_(config.uopDepth) {}

RunResult Device::failure(int status, uint32_t index, const Insn& insn,
                          const std::string& why) const {
  return {status, fmt::format("VTA instruction {}: {}: {}", index, why, layout_.describe(insn))};
}

size_t Device::Program::bytes() const {
  size_t total = sizeof(Program) + insns.capacity() * sizeof(Insn) +
                 decoded.capacity() * sizeof(DecodedInsn) + mems.capacity() * sizeof(MemInsn) +
                 gemms.capacity() * sizeof(GemmInsn) + alus.capacity() * sizeof(AluInsn);
  for (const std::vector<uint32_t>& queue : queues) total += queue.capacity() * sizeof(uint32_t);
  total += timing.insns.capacity() * sizeof(ProgramTiming::Insn);
  return total;
}

RunResult Device::validate(const Insn* insns, uint32_t count) {
  const size_t bytes = size_t{count} * sizeof(Insn);
  // (The data of an empty program may be null: no memcmp or hash over it.)
  const size_t hash =
      count == 0 ? 0 : std::hash<std::string_view>{}({reinterpret_cast<const char*>(insns), bytes});
  for (auto it = programs_.begin(); it != programs_.end(); ++it) {
    if (it->hash != hash || it->insns.size() != count ||
        (count != 0 && std::memcmp(it->insns.data(), insns, bytes) != 0))
      continue;
    programs_.splice(programs_.begin(), programs_, it);
    program_ = &programs_.front();
    return kOk;
  }
  Program program;
  program.insns.assign(insns, insns + count);
  program.hash = hash;
  ++threadProgramValidations();
  if (RunResult decoded = decode(program); decoded.status != VTA_SIM_OK) return decoded;
  programBytes_ += program.bytes();
  programs_.push_front(std::move(program));
  program_ = &programs_.front();
  while (programBytes_ > kProgramCacheBytes && programs_.size() > 1) {
    programBytes_ -= programs_.back().bytes();
    programs_.pop_back();
  }
  return kOk;
}

// Assigns each instruction to the core that executes it (as TVM's simulator does) and rejects
// what no core can execute, before anything runs.
RunResult Device::decode(Program& program) {
  const uint32_t count = static_cast<uint32_t>(program.insns.size());
  for (uint32_t i = 0; i < count; ++i) {
    const Insn& insn = program.insns[i];
    DecodedInsn decoded{layout_.opcodeOf(insn), layout_.depsOf(insn), 0};
    Core& core = decoded.core;
    switch (decoded.opcode) {
      case kOpLoad: {
        const MemInsn& mem = program.mems.emplace_back(layout_.decodeMem(insn));
        if (mem.memoryType == kMemInp || mem.memoryType == kMemWgt)
          core = kLoadCore;
        else if (mem.memoryType != kMemUop && mem.memoryType != kMemAcc &&
                 mem.memoryType != kMemAcc8Bit)
          return failure(VTA_SIM_ERR_BAD_INSTRUCTION, i, insn, "LOAD of an unknown memory type");
        decoded.operand = static_cast<uint32_t>(program.mems.size() - 1);
        break;
      }
      case kOpStore: {
        const MemInsn& mem = program.mems.emplace_back(layout_.decodeMem(insn));
        // A STORE with x_size 0 is a no-op carrying dependency flags; its type is irrelevant.
        if (mem.xSize != 0 && mem.memoryType != kMemOut)
          return failure(VTA_SIM_ERR_BAD_INSTRUCTION, i, insn,
                         "STORE supports only memory type OUT");
        decoded.operand = static_cast<uint32_t>(program.mems.size() - 1);
        core = kStoreCore;
        break;
      }
      case kOpGemm:
        program.gemms.push_back(layout_.decodeGemm(insn));
        decoded.operand = static_cast<uint32_t>(program.gemms.size() - 1);
        break;
      case kOpFinish:
        break;
      case kOpAlu:
        if (program.alus.emplace_back(layout_.decodeAlu(insn)).aluOpcode > kAluMul)
          return failure(VTA_SIM_ERR_BAD_INSTRUCTION, i, insn, "unknown ALU opcode");
        decoded.operand = static_cast<uint32_t>(program.alus.size() - 1);
        break;
      default:
        return failure(VTA_SIM_ERR_BAD_INSTRUCTION, i, insn, "unknown opcode");
    }
    const DepFlags& deps = decoded.deps;
    if (core == kLoadCore && (deps.popPrev || deps.pushPrev))
      return failure(VTA_SIM_ERR_BAD_INSTRUCTION, i, insn,
                     "a load-queue instruction has no previous stage to pop from or push to");
    if (core == kStoreCore && (deps.popNext || deps.pushNext))
      return failure(VTA_SIM_ERR_BAD_INSTRUCTION, i, insn,
                     "a store-queue instruction has no next stage to pop from or push to");
    program.decoded.push_back(decoded);
    program.queues[core].push_back(i);
  }
  mergeStoreRuns(program);
  program.timing =
      timeProgram(count, [&](uint32_t index) { return timedInsn(program, index); },
                  config_.timing.insnQueueDepth);
  return kOk;
}

TimedInsn Device::timedInsn(const Program& program, uint32_t index) const {
  static_assert(kLoadModule == kLoadCore + 1 && kStoreModule == kStoreCore + 1,
                "the timing model's executing modules are the cores, in order");
  const DecodedInsn& decoded = program.decoded[index];
  const TimingParameters& timing = config_.timing;
  uint64_t cycles = kDispatchCycles;  // FINISH
  switch (decoded.opcode) {
    case kOpLoad:
    case kOpStore: cycles = memCycles(program.mems[decoded.operand], config_); break;
    case kOpGemm:
      cycles = uopLoopCycles(program.gemms[decoded.operand].loops, timing.gemmII,
                             timing.gemmPipelineDepth);
      break;
    case kOpAlu:
      cycles = uopLoopCycles(program.alus[decoded.operand].loops, timing.aluII,
                             timing.aluPipelineDepth);
      break;
  }
  return {decoded.core + 1, decoded.deps, fetchCycles(index, config_), cycles};
}

void Device::mergeStoreRuns(Program& program) {
  const std::vector<uint32_t>& storeQueue = program.queues[kStoreCore];
  const auto oneRow = [](const MemInsn& mem) {
    return mem.memoryType == kMemOut && mem.xSize != 0 && mem.ySize == 1 && !mem.yPad0 &&
           !mem.yPad1 && !mem.xPad0 && !mem.xPad1;
  };
  for (size_t head = 0; head < storeQueue.size();) {
    DecodedInsn& first = program.decoded[storeQueue[head]];
    MemInsn run = program.mems[first.operand];
    uint32_t pushes = first.deps.pushPrev;
    size_t end = head + 1;
    for (; oneRow(run) && end < storeQueue.size(); ++end) {
      const DecodedInsn& next = program.decoded[storeQueue[end]];
      const MemInsn& mem = program.mems[next.operand];
      // Stay inside the accumulator, so that a run fails only where one of its STOREs would.
      if (next.deps.popPrev || next.deps.popNext || !oneRow(mem) ||
          uint64_t{run.sramBase} + run.xSize != mem.sramBase ||
          uint64_t{run.dramBase} + run.xSize != mem.dramBase ||
          uint64_t{mem.sramBase} + mem.xSize > config_.accDepth)
        break;
      run.xSize += mem.xSize;
      pushes += next.deps.pushPrev;
    }
    if (end - head > 1) {
      run.xStride = run.xSize;
      program.mems.push_back(run);
      first.runLength = static_cast<uint32_t>(end - head);
      first.runOperand = static_cast<uint32_t>(program.mems.size() - 1);
      first.runPushPrev = pushes;
    }
    head = end;
  }
}

bool Device::executeStoreRun(const DecodedInsn& decoded, uint32_t index, const Insn& insn,
                             Statistics& statistics) {
  if (executeStore(program_->mems[decoded.runOperand], index, insn, statistics).status != VTA_SIM_OK)
    return false;
  statistics.insnCounter += decoded.runLength;
  return true;
}

RunResult Device::run(uint64_t insnPhysicalAddress, uint32_t insnCount,
                      const GemmKernel& gemmKernel, Statistics& statistics) {
  gemmKernel_ = &gemmKernel;
  if (preparedFor_ != gemmKernel_) {
    if (!plainWeightsCurrent_) {
      restoreWeightTiles(shape_, wgtInterleaved_.data(), wgt_.data(), 0, config_.wgtDepth);
      plainWeightsCurrent_ = true;
    }
    if (gemmKernel.prepareInputs)
      gemmKernel.prepareInputs(shape_, inp_.data(), inpBiased_.data(), 0, config_.inpDepth);
    if (gemmKernel.prepareWeights)
      gemmKernel.prepareWeights(shape_, wgt_.data(), wgtInterleaved_.data(), wgtRowSum_.data(),
                                0, config_.wgtDepth);
    preparedFor_ = gemmKernel_;
  }
  const Insn* insns = reinterpret_cast<const Insn*>(
      DeviceMemory::global().translate(insnPhysicalAddress, uint64_t{insnCount} * sizeof(Insn)));
  if (!insns)
    return {VTA_SIM_ERR_OUT_OF_RANGE,
            fmt::format("VTADeviceRun: {} instructions at physical address {:#x} are not inside "
                        "one device allocation",
                        insnCount, insnPhysicalAddress)};
  if (RunResult checked = validate(insns, insnCount); checked.status != VTA_SIM_OK)
    return checked;
  // The memory the program is read from, noted per run: the same program may come from another
  // buffer.
  programMemory_.clear();
  protectProgramMemory(insnPhysicalAddress, "instructions");
  for (const MemInsn& mem : program_->mems)
    if (mem.memoryType == kMemUop && mem.xSize != 0 && mem.ySize != 0)
      protectProgramMemory(uint64_t{mem.dramBase} * config_.uopElemBytes, "micro-ops");
  const std::vector<uint32_t>(&queues)[kNumCores] = program_->queues;

  RunLimits& limits = threadRunLimits();
  if (limits.timeUp())
    return {VTA_SIM_ERR_LIMIT, fmt::format("VTADeviceRun: the time limit of {} s is reached",
                                           limits.timeoutSeconds)};
  // Dependency tokens: tokens[from][to] for the four queues between neighbouring stages.
  uint64_t tokens[kNumCores][kNumCores] = {};
  size_t next[kNumCores] = {0, 0, 0};
  bool finished = false;
  bool progress = true;
  const Trace trace = threadTrace();
  while (progress) {
    progress = false;
    for (int core = kLoadCore; core < kNumCores; ++core) {
      while (next[core] < queues[core].size()) {
        const uint32_t index = queues[core][next[core]];
        const DecodedInsn& decoded = program_->decoded[index];
        const DepFlags deps = decoded.deps;
        // prev is the stage before this one in load -> compute -> store, next the one after.
        if ((deps.popPrev && tokens[core - 1][core] == 0) ||
            (deps.popNext && tokens[core + 1][core] == 0))
          break;
        if (!countInstruction(limits)) return runLimitFailure(limits, index, insns[index]);
        if (deps.popPrev) --tokens[core - 1][core];
        if (deps.popNext) --tokens[core + 1][core];
        // A traced run executes instruction by instruction, one trace line each.
        if (decoded.runLength > 1 && !trace.callback &&
            executeStoreRun(decoded, index, insns[index], statistics)) {
          tokens[kStoreCore][kComputeCore] += decoded.runPushPrev;
          next[core] += decoded.runLength;
          progress = true;
          continue;
        }
        if (trace.callback) traceInstruction(trace, index, insns[index]);
        if (RunResult result = execute(decoded, insns[index], index, statistics);
            result.status != VTA_SIM_OK)
          return result;
        if (deps.pushPrev) ++tokens[core][core - 1];
        if (deps.pushNext) ++tokens[core][core + 1];
        ++next[core];
        progress = true;
        finished |= decoded.opcode == kOpFinish;
      }
    }
  }
  // Every queue runs to its end (a FINISH does not cut short the other queues); if no core can
  // advance before that, report where each queue is stuck.
  std::string stuck;
  for (int core = kLoadCore; core < kNumCores; ++core) {
    if (next[core] == queues[core].size()) continue;
    const uint32_t index = queues[core][next[core]];
    const DepFlags deps = program_->decoded[index].deps;
    const int from = deps.popPrev && tokens[core - 1][core] == 0 ? core - 1 : core + 1;
    stuck += fmt::format("; instruction {} waits for a {} token that is never pushed: {}", index,
                         queueName(from, core), layout_.describe(insns[index]));
  }
  if (!stuck.empty()) return {VTA_SIM_ERR_DEADLOCK, "VTA deadlock" + stuck};
  // A token left over would let an instruction of the next run start before what it waits for
  // (on hardware the token queues outlive a run): a push without its pop is an error.
  std::string leftover;
  for (int from = kLoadCore; from < kNumCores; ++from)
    for (int to = kLoadCore; to < kNumCores; ++to)
      if (tokens[from][to] != 0)
        leftover += fmt::format("{}{} {} token(s)", leftover.empty() ? "" : ", ", tokens[from][to],
                                queueName(from, to));
  if (!leftover.empty())
    return {VTA_SIM_ERR_UNBALANCED,
            fmt::format("VTADeviceRun: unbalanced dependency tokens: {} pushed and never popped "
                        "by the end of the run",
                        leftover)};
  if (!finished)
    return {VTA_SIM_ERR_BAD_INSTRUCTION,
            fmt::format("VTADeviceRun: the {} instructions end without FINISH", insnCount)};
  if (program_->timing.complete) {
    if (const Timeline timeline = threadTimeline(); timeline.callback)
      reportTimeline(timeline, statistics.cycles);
    statistics.addTiming(program_->timing);
  }
  return kOk;
}

void Device::reportTimeline(const Timeline& timeline, uint64_t firstCycle) const {
  const ProgramTiming& timing = program_->timing;
  for (int core = kLoadCore; core < kNumCores; ++core)
    for (uint32_t index : program_->queues[core]) {
      const VTASimTimelineEntry entry{index, timingModuleName(core + 1),
                                      opcodeName(program_->decoded[index].opcode),
                                      firstCycle + timing.insns[index].start,
                                      firstCycle + timing.insns[index].end};
      timeline.callback(&entry, timeline.context);
    }
}

void Device::traceInstruction(const Trace& trace, uint32_t index, const Insn& insn) const {
  const ProgramTiming& timing = program_->timing;
  // (A program that deadlocks has no complete timing: its lines go without cycles.)
  const std::string cycle =
      timing.complete ? fmt::format(" start_cycle={}", timing.insns[index].start) : std::string();
  trace.callback(fmt::format("[{}] {}{}", index, layout_.describe(insn), cycle).c_str(),
                 trace.context);
}

bool Device::countInstruction(RunLimits& limits) {
  ++limits.executed;
  if (limits.maxInstructions && limits.executed > limits.maxInstructions) return false;
  return limits.executed % 256 != 0 || !limits.timeUp();
}

RunResult Device::runLimitFailure(const RunLimits& limits, uint32_t index, const Insn& insn) const {
  if (limits.maxInstructions && limits.executed > limits.maxInstructions)
    return failure(VTA_SIM_ERR_LIMIT, index, insn,
                   fmt::format("the run stopped here: its limit of {} executed instructions is "
                               "reached",
                               limits.maxInstructions));
  return failure(VTA_SIM_ERR_LIMIT, index, insn,
                 fmt::format("the run stopped here: its time limit of {} s is reached",
                             limits.timeoutSeconds));
}

RunResult Device::execute(const DecodedInsn& decoded, const Insn& insn, uint32_t index,
                          Statistics& statistics) {
  ++statistics.insnCounter;
  switch (decoded.opcode) {
    case kOpLoad: return executeLoad(program_->mems[decoded.operand], index, insn, statistics);
    case kOpStore: return executeStore(program_->mems[decoded.operand], index, insn, statistics);
    case kOpGemm: return executeGemm(program_->gemms[decoded.operand], index, insn, statistics);
    case kOpAlu: return executeAlu(program_->alus[decoded.operand], index, insn, statistics);
    default: ++statistics.finishCounter; return kOk;  // FINISH (validate() rejected the rest)
  }
}

void Device::protectProgramMemory(uint64_t phy, const char* what) {
  for (const ProgramMemory& known : programMemory_)
    if (phy - known.region.phy < known.region.bytes) return;
  uint64_t releases = 0;
  const std::optional<DeviceMemory::Region> region = DeviceMemory::global().regionOf(phy, releases);
  if (region && phy - region->phy < region->bytes) programMemory_.push_back({*region, what});
}

RunResult Device::checkStoreTarget(const MemInsn& mem, uint32_t index, const Insn& insn) const {
  const DramSpan span = dramSpan(mem, config_.outElemBytes);
  for (const ProgramMemory& known : programMemory_)
    if (span.first < known.region.phy + known.region.bytes &&
        known.region.phy < span.first + span.bytes)
      return failure(VTA_SIM_ERR_OUT_OF_RANGE, index, insn,
                     fmt::format("STORE writes DRAM bytes [{:#x}, {:#x}) into the device buffer "
                                 "[{:#x}, {:#x}) that holds this program's {}",
                                 span.first, span.first + span.bytes, known.region.phy,
                                 known.region.phy + known.region.bytes, known.what));
  return kOk;
}

RunResult Device::mapDramRows(const MemInsn& mem, uint64_t elemBytes, uint32_t index,
                              const Insn& insn, char*& host) {
  host = nullptr;
  if (mem.ySize == 0) return kOk;  // no row is read or written (padding may still be)
  const DramSpan span = dramSpan(mem, elemBytes);
  const uint64_t first = span.first, bytes = span.bytes;
  // Thousands of loads and stores address a few buffers: keep the last one's region while no
  // device buffer has been freed, instead of a locked lookup per instruction.
  const DeviceMemory& memory = DeviceMemory::global();
  const auto inside = [&](const DeviceMemory::Region& region) {
    return first >= region.phy && first - region.phy <= region.bytes &&
           bytes <= region.bytes - (first - region.phy);
  };
  if (!lastRegion_ || lastRegionReleases_ != memory.releaseCount() || !inside(*lastRegion_))
    lastRegion_ = memory.regionOf(first, lastRegionReleases_);
  if (lastRegion_ && inside(*lastRegion_)) host = lastRegion_->host + (first - lastRegion_->phy);
  if (!host)
    return failure(VTA_SIM_ERR_OUT_OF_RANGE, index, insn,
                   fmt::format("{} DRAM bytes [{:#x}, {:#x}) outside any device buffer",
                               mem.opcode == kOpLoad ? "LOAD reads" : "STORE writes", first,
                               first + bytes));
  return kOk;
}

RunResult Device::executeLoad(const MemInsn& mem, uint32_t index, const Insn& insn,
                              Statistics& statistics) {
  if (mem.xSize == 0) return kOk;  // a no-op carrying dependency flags
  char* sram = nullptr;
  uint32_t depth = 0, sramElemBytes = 0;
  uint64_t* counter = nullptr;
  switch (mem.memoryType) {
    case kMemInp:
      sram = reinterpret_cast<char*>(inp_.data()), depth = config_.inpDepth;
      sramElemBytes = config_.inpElemBytes, counter = &statistics.inpLoadBytes;
      break;
    case kMemWgt:
      sram = reinterpret_cast<char*>(wgt_.data()), depth = config_.wgtDepth;
      sramElemBytes = config_.wgtElemBytes, counter = &statistics.wgtLoadBytes;
      break;
    case kMemUop:
      sram = reinterpret_cast<char*>(uop_.data()), depth = config_.uopDepth;
      sramElemBytes = config_.uopElemBytes, counter = &statistics.uopLoadBytes;
      break;
    default:  // ACC and ACC_8BIT (validate() rejected other types)
      sram = reinterpret_cast<char*>(acc_.data()), depth = config_.accDepth;
      sramElemBytes = config_.accElemBytes, counter = &statistics.accLoadBytes;
      break;
  }
  const uint64_t rowElems = uint64_t{mem.xPad0} + mem.xSize + mem.xPad1;
  const uint64_t rows = uint64_t{mem.yPad0} + mem.ySize + mem.yPad1;
  if (mem.sramBase + rowElems * rows > depth)
    return failure(VTA_SIM_ERR_OUT_OF_RANGE, index, insn,
                   fmt::format("LOAD of {}x{} elements (with padding) at SRAM index {} overflows "
                               "the {} buffer of {} elements",
                               rows, rowElems, mem.sramBase, memoryTypeName(mem.memoryType),
                               depth));
  const uint64_t dramElemBytes = config_.dramElemBytes(mem.memoryType);
  char* dram = nullptr;
  if (RunResult mapped = mapDramRows(mem, dramElemBytes, index, insn, dram);
      mapped.status != VTA_SIM_OK)
    return mapped;
  *counter += uint64_t{mem.xSize} * mem.ySize * sramElemBytes;

  const bool padded = mem.xPad0 || mem.xPad1 || mem.yPad0 || mem.yPad1;
  if (mem.memoryType == kMemWgt && gemmKernel_->prepareWeights && !padded) {
    // Straight from DRAM into the kernel's layout: the plain weight SRAM is not written.
    for (uint32_t y = 0; y < mem.ySize; ++y)
      gemmKernel_->prepareWeights(shape_,
                                  reinterpret_cast<const int8_t*>(dram) + uint64_t{y} * mem.xStride * dramElemBytes,
                                  wgtInterleaved_.data(), wgtRowSum_.data(),
                                  mem.sramBase + y * mem.xSize, mem.xSize);
    plainWeightsCurrent_ = false;
    return kOk;
  }
  char* out = sram + uint64_t{mem.sramBase} * sramElemBytes;
  const uint64_t rowBytes = rowElems * sramElemBytes;
  std::memset(out, 0, mem.yPad0 * rowBytes);
  out += mem.yPad0 * rowBytes;
  for (uint32_t y = 0; y < mem.ySize; ++y) {
    const char* in = dram + uint64_t{y} * mem.xStride * dramElemBytes;
    std::memset(out, 0, uint64_t{mem.xPad0} * sramElemBytes);
    char* data = out + uint64_t{mem.xPad0} * sramElemBytes;
    if (mem.memoryType == kMemAcc8Bit) {
      // Sign-extend 8-bit values into 32-bit accumulator lanes.
      const uint64_t lanes = uint64_t{mem.xSize} * config_.batch * config_.blockOut;
      int32_t* lane = reinterpret_cast<int32_t*>(data);
      for (uint64_t l = 0; l < lanes; ++l) lane[l] = static_cast<int8_t>(in[l]);
    } else {
      std::memcpy(data, in, uint64_t{mem.xSize} * sramElemBytes);
    }
    std::memset(data + uint64_t{mem.xSize} * sramElemBytes, 0, uint64_t{mem.xPad1} * sramElemBytes);
    out += rowBytes;
  }
  std::memset(out, 0, mem.yPad1 * rowBytes);
  const uint32_t loadedTiles = static_cast<uint32_t>(rowElems * rows);
  if (mem.memoryType == kMemInp && gemmKernel_->prepareInputs)
    gemmKernel_->prepareInputs(shape_, inp_.data(), inpBiased_.data(), mem.sramBase, loadedTiles);
  if (mem.memoryType == kMemWgt && gemmKernel_->prepareWeights)
    gemmKernel_->prepareWeights(shape_, wgt_.data() + uint64_t{mem.sramBase} * sramElemBytes,
                                wgtInterleaved_.data(), wgtRowSum_.data(), mem.sramBase,
                                loadedTiles);
  return kOk;
}

RunResult Device::executeStore(const MemInsn& mem, uint32_t index, const Insn& insn,
                               Statistics& statistics) {
  if (mem.xSize == 0) return kOk;
  if (mem.yPad0 || mem.yPad1 || mem.xPad0 || mem.xPad1)
    return failure(VTA_SIM_ERR_BAD_INSTRUCTION, index, insn, "STORE with padding");
  const uint64_t tiles = uint64_t{mem.xSize} * mem.ySize;
  if (mem.sramBase + tiles > config_.accDepth)
    return failure(VTA_SIM_ERR_OUT_OF_RANGE, index, insn,
                   fmt::format("STORE of {} elements from SRAM index {} overruns the accumulator "
                               "buffer of {} elements",
                               tiles, mem.sramBase, config_.accDepth));
  const uint64_t outElemBytes = config_.outElemBytes;
  char* dram = nullptr;
  if (RunResult mapped = mapDramRows(mem, outElemBytes, index, insn, dram);
      mapped.status != VTA_SIM_OK)
    return mapped;
  if (RunResult checked = checkStoreTarget(mem, index, insn); checked.status != VTA_SIM_OK)
    return checked;
  const uint32_t lanes = config_.batch * config_.blockOut;
  statistics.outStoreBytes += tiles * lanes * config_.outWidth / 8;
  // A row's tiles are consecutive in the accumulator and in DRAM (an output element is one
  // int8 per lane): one truncating loop per row.
  const uint64_t rowLanes = uint64_t{mem.xSize} * lanes;
  for (uint32_t y = 0; y < mem.ySize; ++y) {
    const int32_t* src = acc_.data() + (uint64_t{mem.sramBase} + uint64_t{y} * mem.xSize) * lanes;
    int8_t* dst = reinterpret_cast<int8_t*>(dram) + uint64_t{y} * mem.xStride * outElemBytes;
    for (uint64_t l = 0; l < rowLanes; ++l) dst[l] = static_cast<int8_t>(src[l]);
  }
  return kOk;
}

RunResult Device::checkUopLoops(const UopLoops& loops, uint32_t wgtFactorOut,
                                uint32_t wgtFactorIn, UopUse use, uint32_t index,
                                const Insn& insn) {
  if (loops.uopBgn > loops.uopEnd || loops.uopEnd > config_.uopDepth)
    return failure(VTA_SIM_ERR_OUT_OF_RANGE, index, insn,
                   fmt::format("micro-op range [{}, {}) outside the micro-op buffer of {} entries",
                               loops.uopBgn, loops.uopEnd, config_.uopDepth));
  decodedUops_.clear();
  for (uint32_t u = loops.uopBgn; u < loops.uopEnd; ++u)
    decodedUops_.push_back(layout_.decodeUop(uop_[u]));
  if (loops.iterOut == 0 || loops.iterIn == 0) return kOk;
  // Indices grow with the loop counters, so the last iteration holds the largest ones.
  const uint64_t outLast = loops.iterOut - 1, inLast = loops.iterIn - 1;
  const uint64_t dstReach = outLast * loops.dstFactorOut + inLast * loops.dstFactorIn;
  const uint64_t srcReach = outLast * loops.srcFactorOut + inLast * loops.srcFactorIn;
  const uint64_t wgtReach = outLast * wgtFactorOut + inLast * wgtFactorIn;
  const bool readsSrc = use == UopUse::kGemm || use == UopUse::kAluTensor;
  const uint64_t srcDepth = use == UopUse::kGemm ? config_.inpDepth : config_.accDepth;
  for (size_t k = 0; k < decodedUops_.size(); ++k) {
    const Uop& u = decodedUops_[k];
    const char* what = nullptr;
    uint64_t value = 0, depth = 0;
    if (u.dst + dstReach >= config_.accDepth)
      what = "accumulator (dst)", value = u.dst + dstReach, depth = config_.accDepth;
    else if (readsSrc && u.src + srcReach >= srcDepth)
      what = use == UopUse::kGemm ? "input (src)" : "accumulator (src)",
      value = u.src + srcReach, depth = srcDepth;
    else if (use == UopUse::kGemm && u.wgt + wgtReach >= config_.wgtDepth)
      what = "weight", value = u.wgt + wgtReach, depth = config_.wgtDepth;
    if (what)
      return failure(VTA_SIM_ERR_OUT_OF_RANGE, index, insn,
                     fmt::format("micro-op {} (dst={} src={} wgt={}) reaches {} index {} of a "
                                 "buffer of {} elements",
                                 loops.uopBgn + k, u.dst, u.src, u.wgt, what, value, depth));
  }
  return kOk;
}

const GemmPlan* Device::cachedGemmPlan(const std::array<uint32_t, 10>& loopFields,
                                       const UopLoops& loops) const {
  const size_t uopCount = loops.uopEnd - loops.uopBgn;
  for (const CachedGemmPlan& cached : gemmPlans_)
    if (cached.loopFields == loopFields &&
        std::equal(cached.uopWords.begin(), cached.uopWords.end(), uop_.begin() + loops.uopBgn,
                   uop_.begin() + loops.uopBgn + uopCount))
      return &cached.plan;
  return nullptr;
}

RunResult Device::executeGemm(const GemmInsn& gemm, uint32_t index, const Insn& insn,
                              Statistics& statistics) {
  const UopLoops& loops = gemm.loops;
  const uint32_t lanes = config_.batch * config_.blockOut;
  if (loops.reset) {
    if (RunResult checked = checkUopLoops(loops, 0, 0, UopUse::kGemmReset, index, insn);
        checked.status != VTA_SIM_OK)
      return checked;
    TimeLimitPoll poll(threadRunLimits(), decodedUops_.size());
    for (uint32_t y = 0; y < loops.iterOut; ++y)
      for (uint32_t x = 0; x < loops.iterIn; ++x) {
        for (const Uop& u : decodedUops_) {
          const uint64_t dst = u.dst + uint64_t{y} * loops.dstFactorOut + uint64_t{x} * loops.dstFactorIn;
          std::fill_n(acc_.data() + dst * lanes, lanes, 0);
        }
        if (poll.timeUp()) return runLimitFailure(threadRunLimits(), index, insn);
      }
    return kOk;
  }
  const std::array<uint32_t, 10> loopFields{
      loops.uopBgn,       loops.uopEnd,       loops.iterOut,      loops.iterIn,
      loops.dstFactorOut, loops.dstFactorIn,  loops.srcFactorOut, loops.srcFactorIn,
      gemm.wgtFactorOut,  gemm.wgtFactorIn};
  // A cached plan was built from the same fields and micro-ops, so its indices were checked.
  const GemmPlan* plan = loops.uopBgn <= loops.uopEnd && loops.uopEnd <= config_.uopDepth
                             ? cachedGemmPlan(loopFields, loops)
                             : nullptr;
  const GemmMemories memories{acc_.data(),       inp_.data(),            wgt_.data(),
                              inpBiased_.data(), wgtInterleaved_.data(), wgtRowSum_.data()};
  if (!plan) {
    if (RunResult checked = checkUopLoops(loops, gemm.wgtFactorOut, gemm.wgtFactorIn,
                                          UopUse::kGemm, index, insn);
        checked.status != VTA_SIM_OK)
      return checked;
    std::vector<GemmTile> uops;
    for (const Uop& u : decodedUops_) uops.push_back({u.dst, u.src, u.wgt});
    statistics.gemmCounter += uint64_t{loops.iterOut} * loops.iterIn * uops.size();
    if (uint64_t{loops.iterOut} * loops.iterIn * uops.size() > kMaxGemmPlanTiles) {
      // Too many executions to list (up to 2^14 x 2^14 x the micro-op SRAM): one small plan
      // per iteration of the loop nest, not kept.
      std::vector<GemmTile> shifted(uops.size());
      TimeLimitPoll poll(threadRunLimits(), uops.size());
      for (uint32_t y = 0; y < loops.iterOut; ++y)
        for (uint32_t x = 0; x < loops.iterIn; ++x) {
          if (poll.timeUp()) return runLimitFailure(threadRunLimits(), index, insn);
          for (size_t k = 0; k < uops.size(); ++k)
            shifted[k] = {uops[k].acc + y * loops.dstFactorOut + x * loops.dstFactorIn,
                          uops[k].inp + y * loops.srcFactorOut + x * loops.srcFactorIn,
                          uops[k].wgt + y * gemm.wgtFactorOut + x * gemm.wgtFactorIn};
          gemmKernel_->run(shape_, memories, buildGemmPlan(shifted, 1, 1, {}, {}));
        }
      return kOk;
    }
    if (gemmPlans_.size() == kMaxGemmPlans) gemmPlans_.clear();
    gemmPlans_.push_back(
        {loopFields,
         std::vector<uint32_t>(uop_.begin() + loops.uopBgn, uop_.begin() + loops.uopEnd),
         buildGemmPlan(uops, loops.iterOut, loops.iterIn,
                       {loops.dstFactorOut, loops.srcFactorOut, gemm.wgtFactorOut},
                       {loops.dstFactorIn, loops.srcFactorIn, gemm.wgtFactorIn})});
    plan = &gemmPlans_.back().plan;
  } else {
    statistics.gemmCounter += uint64_t{loops.iterOut} * loops.iterIn * (loops.uopEnd - loops.uopBgn);
  }
  gemmKernel_->run(shape_, memories, *plan);
  return kOk;
}

namespace {
// The ALU operations on int32 lanes; wrapping where C++ would overflow.
struct AluMin { int32_t operator()(int32_t a, int32_t b) const { return std::min(a, b); } };
struct AluMax { int32_t operator()(int32_t a, int32_t b) const { return std::max(a, b); } };
struct AluAdd {
  int32_t operator()(int32_t a, int32_t b) const {
    return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
  }
};
struct AluMul {
  int32_t operator()(int32_t a, int32_t b) const {
    return static_cast<int32_t>(static_cast<uint32_t>(a) * static_cast<uint32_t>(b));
  }
};
// Arithmetic shift right; a negative amount shifts left. Amounts are taken modulo 32, as the
// shifter of a 32-bit accumulator (and x86's shift instructions) do. Both shifts, then a
// select: without a branch the lane loops vectorise (the conv2d shifts 12,544 lanes a run).
struct AluShr {
  int32_t operator()(int32_t a, int32_t b) const {
    const int32_t right = a >> (b & 31);
    const uint32_t leftAmount = (0u - static_cast<uint32_t>(b)) & 31u;
    const int32_t left = static_cast<int32_t>(static_cast<uint32_t>(a) << leftAmount);
    return b >= 0 ? right : left;
  }
};

// One micro-op whose inner loop walks consecutive tiles (dst and, for a tensor operation, src
// factor 1), as TVM's lowering emits for element-wise ALU stages (the conv2d's shift and
// clip run 784 tiles this way): the inner loop is one run of iterIn x lanes consecutive lanes.
// The run keeps the sequential order, so a src overlapping dst reads what the loop nest would.
// False if the time limit stopped it.
template <typename Op>
bool runAluRows(Op op, const AluInsn& alu, const Uop& u, int32_t* acc, uint32_t lanes) {
  const UopLoops& loops = alu.loops;
  const uint64_t count = uint64_t{loops.iterIn} * lanes;
  const int32_t imm = alu.imm;
  TimeLimitPoll poll(threadRunLimits(), loops.iterIn);
  for (uint32_t y = 0; y < loops.iterOut; ++y) {
    if (poll.timeUp()) return false;
    int32_t* dst = acc + (u.dst + uint64_t{y} * loops.dstFactorOut) * lanes;
    if (alu.useImm) {
      for (uint64_t l = 0; l < count; ++l) dst[l] = op(dst[l], imm);
    } else {
      const int32_t* src = acc + (u.src + uint64_t{y} * loops.srcFactorOut) * lanes;
      for (uint64_t l = 0; l < count; ++l) dst[l] = op(dst[l], src[l]);
    }
  }
  return true;
}

// kLanes fixes the lanes per tile at compile time (16 in TVM's default shape) so that the
// lane loops vectorise; 0 takes `lanesArg`. False if the time limit stopped it.
template <uint32_t kLanes, typename Op>
bool runAluLoops(Op op, const AluInsn& alu, const std::vector<Uop>& uops, int32_t* acc,
                 uint32_t lanesArg) {
  const uint32_t lanes = kLanes ? kLanes : lanesArg;
  const UopLoops& loops = alu.loops;
  if (uops.size() == 1 && loops.dstFactorIn == 1 && (alu.useImm || loops.srcFactorIn == 1))
    return runAluRows(op, alu, uops[0], acc, lanes);
  const int32_t imm = alu.imm;
  TimeLimitPoll poll(threadRunLimits(), uops.size());
  for (uint32_t y = 0; y < loops.iterOut; ++y)
    for (uint32_t x = 0; x < loops.iterIn; ++x) {
      if (poll.timeUp()) return false;
      for (const Uop& u : uops) {
        int32_t* dst = acc + (u.dst + uint64_t{y} * loops.dstFactorOut + uint64_t{x} * loops.dstFactorIn) * lanes;
        if (alu.useImm) {
          for (uint32_t l = 0; l < lanes; ++l) dst[l] = op(dst[l], imm);
        } else {
          const int32_t* src = acc + (u.src + uint64_t{y} * loops.srcFactorOut + uint64_t{x} * loops.srcFactorIn) * lanes;
          for (uint32_t l = 0; l < lanes; ++l) dst[l] = op(dst[l], src[l]);
        }
      }
    }
  return true;
}

template <typename Op>
bool runAlu(Op op, const AluInsn& alu, const std::vector<Uop>& uops, int32_t* acc, uint32_t lanes) {
  if (lanes == 16) return runAluLoops<16>(op, alu, uops, acc, lanes);
  return runAluLoops<0>(op, alu, uops, acc, lanes);
}
}  // namespace

RunResult Device::executeAlu(const AluInsn& alu, uint32_t index, const Insn& insn,
                             Statistics& statistics) {
  if (RunResult checked = checkUopLoops(
          alu.loops, 0, 0, alu.useImm ? UopUse::kAluImmediate : UopUse::kAluTensor, index, insn);
      checked.status != VTA_SIM_OK)
    return checked;
  statistics.aluCounter += uint64_t{alu.loops.iterOut} * alu.loops.iterIn * decodedUops_.size();
  const uint32_t lanes = config_.batch * config_.blockOut;
  bool completed = false;
  switch (alu.aluOpcode) {
    case kAluMin: completed = runAlu(AluMin{}, alu, decodedUops_, acc_.data(), lanes); break;
    case kAluMax: completed = runAlu(AluMax{}, alu, decodedUops_, acc_.data(), lanes); break;
    case kAluAdd: completed = runAlu(AluAdd{}, alu, decodedUops_, acc_.data(), lanes); break;
    case kAluShr: completed = runAlu(AluShr{}, alu, decodedUops_, acc_.data(), lanes); break;
    default: completed = runAlu(AluMul{}, alu, decodedUops_, acc_.data(), lanes); break;
  }
  return completed ? kOk : runLimitFailure(threadRunLimits(), index, insn);
}

}  // namespace vta::sim
