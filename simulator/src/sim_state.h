// Per-thread state of the simulator's C API: statistics (TVM's counters) and the last error,
// plus the active configuration and GEMM kernel choice for devices allocated afterwards.
#ifndef VTA_SIM_SIM_STATE_H_
#define VTA_SIM_SIM_STATE_H_

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>

#include "timing_model.h"
#include "vta/config.h"
#include "vta/sim.h"

namespace vta::sim {

struct Statistics {
  uint64_t inpLoadBytes = 0;
  uint64_t wgtLoadBytes = 0;
  uint64_t accLoadBytes = 0;
  uint64_t uopLoadBytes = 0;
  uint64_t outStoreBytes = 0;
  uint64_t gemmCounter = 0;
  uint64_t aluCounter = 0;
  uint64_t insnCounter = 0;
  uint64_t finishCounter = 0;
  // The timing model's totals over the runs (each run starts at cycle 0 when the last ended).
  uint64_t cycles = 0;
  ModuleCycles modules[kNumTimingModules];

  void addTiming(const ProgramTiming& timing);
  std::string toJSON() const;
};

// Statistics of the calling thread (TVM's simulator keeps them per thread, too).
Statistics& threadStatistics();

// How many programs this thread's VTADeviceRun calls decoded and validated (VTASimProgramValidations).
uint64_t& threadProgramValidations();

// The calling thread's instruction trace (VTASimSetTrace): one call per executed instruction.
struct Trace {
  void (*callback)(const char* line, void* context) = nullptr;
  void* context = nullptr;
};
Trace& threadTrace();

// The calling thread's timeline (VTASimSetTimeline).
struct Timeline {
  void (*callback)(const VTASimTimelineEntry* entry, void* context) = nullptr;
  void* context = nullptr;
};
Timeline& threadTimeline();

// The calling thread's run limits (VTASimSetRunLimits).
struct RunLimits {
  uint64_t maxInstructions = 0;  // 0: none
  uint64_t executed = 0;         // instructions executed since the limits were set
  double timeoutSeconds = 0;     // 0: none
  std::chrono::steady_clock::time_point deadline;

  bool timeUp() const {
    return timeoutSeconds > 0 && std::chrono::steady_clock::now() >= deadline;
  }
};
RunLimits& threadRunLimits();

// The time limit inside one instruction's loop nest (up to 2^28 iterations): timeUp() is called
// once per iteration and reads the clock about every 2^16 micro-op executions, and never
// without a time limit.
class TimeLimitPoll {
public:
  TimeLimitPoll(const RunLimits& limits, size_t uopsPerIteration)
      : limits_(limits),
        every_(std::max<uint64_t>(1, (uint64_t{1} << 16) / std::max<size_t>(1, uopsPerIteration))),
        left_(every_) {}
  bool timeUp() {
    if (limits_.timeoutSeconds <= 0 || --left_ != 0) return false;
    left_ = every_;
    return limits_.timeUp();
  }

private:
  const RunLimits& limits_;
  uint64_t every_, left_;
};

// Logs through spdlog and records as the calling thread's last error.
void reportError(const std::string& message);
const std::string& lastError();
void clearError();

// The configuration devices are created with (VTA_CONFIG or the default until set).
Config activeConfig();
llvm::Error setActiveConfig(const char* pathOrJSON);

}  // namespace vta::sim

#endif  // VTA_SIM_SIM_STATE_H_
