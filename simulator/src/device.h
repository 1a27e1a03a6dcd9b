// A simulated VTA device: the four on-chip SRAMs of a configuration, the load / compute /
// store instruction queues with their four dependency-token queues, and the execution of
// LOAD, STORE, GEMM, ALU and FINISH with TVM's simulator statistics.
//
// Every instruction is checked before it touches memory: unknown opcodes or memory types,
// SRAM indices and DRAM ranges out of bounds, loads that overflow a buffer and dependency pops
// that can never be satisfied (deadlock) end the run with an error naming the instruction
// index and its fields; nothing is read or written out of bounds.
#ifndef VTA_SIM_DEVICE_H_
#define VTA_SIM_DEVICE_H_

#include <array>
#include <cstdint>
#include <list>
#include <optional>
#include <string>
#include <vector>

#include "device_memory.h"
#include "gemm_kernel.h"
#include "gemm_plan.h"
#include "timing_model.h"
#include "vta/config.h"
#include "vta/isa.h"

namespace vta::sim {

struct Statistics;
struct RunLimits;
struct Trace;
struct Timeline;

// Result of running a program: a VTA_SIM_* status and, on failure, the message.
struct RunResult {
  int status;
  std::string message;
};

class Device {
public:
  Device(const Config& config, const isa::Layout& layout);

  // Runs a program whose GEMMs use `gemmKernel` (any kernel gives the same results).
  RunResult run(uint64_t insnPhysicalAddress, uint32_t insnCount, const GemmKernel& gemmKernel,
                Statistics& statistics);

  const Config& config() const { return config_; }

private:
  enum Core { kLoadCore = 0, kComputeCore = 1, kStoreCore = 2, kNumCores = 3 };

  // An instruction decoded once: its opcode, flags and fields (mems_, gemms_ or alus_[operand]).
  struct DecodedInsn {
    uint32_t opcode;
    isa::DepFlags deps;
    uint32_t operand;
    Core core = kComputeCore;
    // A STORE heading a run of STOREs (see mergeStoreRuns): the run's length (1 for any other
    // instruction), the run as one STORE (mems_[runOperand]) and the tokens the run pushes.
    uint32_t runLength = 1;
    uint32_t runOperand = 0;
    uint32_t runPushPrev = 0;
  };
  // A validated program: its instructions (the cache key, with their hash), each decoded once
  // (opcode, flags and fields in mems, gemms or alus[operand]) and assigned to the core that
  // executes it (queues), and its timing (which depends on nothing else).
  struct Program {
    std::vector<isa::Insn> insns;
    size_t hash = 0;
    std::vector<DecodedInsn> decoded;
    std::vector<uint32_t> queues[kNumCores];
    std::vector<isa::MemInsn> mems;
    std::vector<isa::GemmInsn> gemms;
    std::vector<isa::AluInsn> alus;
    ProgramTiming timing;
    size_t bytes() const;
  };
  // Makes program_ the validated form of the program: a cached one equal to it byte for byte,
  // or a new one, decoded and checked, that enters the cache (programs_). The runtime sends the
  // same programs on every call of the same operators (a model: one or more per layer).
  RunResult validate(const isa::Insn* insns, uint32_t count);
  // Decodes and checks `program.insns` into `program`.
  RunResult decode(Program& program);
  // The timing model's view of a decoded instruction: its module and costs.
  TimedInsn timedInsn(const Program& program, uint32_t index) const;
  // Finds runs of one-row STOREs in the store queue that continue each other in the
  // accumulator and in DRAM, none but the first popping a token (the conv2d seed stores 98
  // one-tile STOREs in a row). The store core runs such a run without interruption anyway, so
  // it may execute as one STORE: one range check and one DRAM lookup instead of one each.
  void mergeStoreRuns(Program& program);
  // Executes the run headed by `decoded` as one STORE; false, with nothing written or counted,
  // if that STORE fails a check (its instructions then run one by one and report the error).
  bool executeStoreRun(const DecodedInsn& decoded, uint32_t index, const isa::Insn& insn,
                       Statistics& statistics);
  // One trace line: the instruction's index, fields and start cycle.
  void traceInstruction(const Trace& trace, uint32_t index, const isa::Insn& insn) const;
  // The timing of the program just run, its cycles counted from `firstCycle`: by module, each
  // module's instructions in program order.
  void reportTimeline(const Timeline& timeline, uint64_t firstCycle) const;
  RunResult execute(const DecodedInsn& decoded, const isa::Insn& insn, uint32_t index,
                    Statistics& statistics);
  RunResult executeLoad(const isa::MemInsn& mem, uint32_t index, const isa::Insn& insn,
                        Statistics& statistics);
  RunResult executeStore(const isa::MemInsn& mem, uint32_t index, const isa::Insn& insn,
                         Statistics& statistics);
  RunResult executeGemm(const isa::GemmInsn& gemm, uint32_t index, const isa::Insn& insn,
                        Statistics& statistics);
  RunResult executeAlu(const isa::AluInsn& alu, uint32_t index, const isa::Insn& insn,
                       Statistics& statistics);
  // The host address of the DRAM rows of a LOAD or STORE (nullptr when y_size is 0), or a
  // failure if they are not all inside one device buffer.
  RunResult mapDramRows(const isa::MemInsn& mem, uint64_t elemBytes, uint32_t index,
                        const isa::Insn& insn, char*& host);
  // Which SRAMs the micro-op indices of an instruction address.
  enum class UopUse { kGemm, kGemmReset, kAluTensor, kAluImmediate };
  // Decodes the micro-op range into decodedUops_ and checks that every index the loop nest
  // forms stays inside its SRAM.
  RunResult checkUopLoops(const isa::UopLoops& loops, uint32_t wgtFactorOut,
                          uint32_t wgtFactorIn, UopUse use, uint32_t index,
                          const isa::Insn& insn);
  // Remembers the device allocation holding physical byte `phy` as one the running program is
  // read from (`what`: its instructions or micro-ops), for checkStoreTarget.
  void protectProgramMemory(uint64_t phy, const char* what);
  // Fails if a STORE would write into an allocation the running program is read from (the
  // runtime's own instruction and micro-op buffers): the program must not rewrite itself.
  RunResult checkStoreTarget(const isa::MemInsn& mem, uint32_t index, const isa::Insn& insn) const;
  struct ProgramMemory {
    DeviceMemory::Region region;
    const char* what;
  };
  std::vector<ProgramMemory> programMemory_;  // of the current run; a few entries
  // The device allocation the last LOAD or STORE addressed (see DeviceMemory::regionOf).
  std::optional<DeviceMemory::Region> lastRegion_;
  uint64_t lastRegionReleases_ = 0;
  RunResult failure(int status, uint32_t index, const isa::Insn& insn, const std::string& why) const;
  // Counts one more executed instruction against the thread's run limits (VTASimSetRunLimits):
  // false once one is reached. Reads the clock only every 256 instructions (run() reads it once
  // at the start, a GEMM or ALU loop nest every 2^16 micro-ops, TimeLimitPoll).
  static bool countInstruction(RunLimits& limits);
  // The failure of the instruction at which a limit was reached.
  RunResult runLimitFailure(const RunLimits& limits, uint32_t index, const isa::Insn& insn) const;

  Config config_;
  isa::Layout layout_;
  const GemmKernel* gemmKernel_ = nullptr;
  // The kernel whose derived copies of the SRAMs are up to date (refreshed in full on a switch).
  const GemmKernel* preparedFor_ = nullptr;
  // False once a LOAD has written weights only into the derived copies (restored on a switch).
  bool plainWeightsCurrent_ = true;
  GemmShape shape_;
  std::vector<int8_t> inp_, wgt_;
  std::vector<int32_t> acc_;
  // Derived copies of the input and weight SRAMs for the VNNI kernel (see GemmMemories).
  std::vector<uint8_t> inpBiased_;
  std::vector<int8_t> wgtInterleaved_;
  std::vector<int32_t> wgtRowSum_;
  std::vector<uint32_t> uop_;
  // Validated programs, the most recently run first, kept while they hold at most
  // kProgramCacheBytes in all (the most recent one whatever its size). ResNet-18's VTA part
  // runs 19 layers' programs per inference, which took ~10% of its time to validate again.
  static constexpr size_t kProgramCacheBytes = size_t{64} << 20;
  std::list<Program> programs_;
  size_t programBytes_ = 0;
  const Program* program_ = nullptr;  // the program being run, in programs_
  std::vector<isa::Uop> decodedUops_;  // scratch: the micro-ops of one instruction
  // Plans of the GEMM instructions seen so far, keyed by their loop fields and the micro-op
  // words they run (checked once, when the plan was built); at most kMaxGemmPlans.
  struct CachedGemmPlan {
    std::array<uint32_t, 10> loopFields;
    std::vector<uint32_t> uopWords;
    GemmPlan plan;
  };
  static constexpr size_t kMaxGemmPlans = 64;
  // Larger loop nests run without a kept plan (bounded memory).
  static constexpr uint64_t kMaxGemmPlanTiles = uint64_t{1} << 20;
  std::vector<CachedGemmPlan> gemmPlans_;
  const GemmPlan* cachedGemmPlan(const std::array<uint32_t, 10>& loopFields,
                                 const isa::UopLoops& loops) const;
};

}  // namespace vta::sim

#endif  // VTA_SIM_DEVICE_H_
