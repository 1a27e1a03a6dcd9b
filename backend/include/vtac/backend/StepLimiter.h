// The RunLimits of one run, kept the same way by both engines of `vtac run`: the interpreter's
// loops and the JIT's compiled loops (LLVMEmitOptions::countSteps) count their iterations, and
// when the count reaches nextCheck() they call check(), which reads the clock, draws the
// progress line and says whether the run must stop, in the same words for both engines.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "vtac/backend/RunLimits.h"

namespace vtac::backend {

class StepLimiter {
public:
  explicit StepLimiter(const RunLimits &limits);

  // The step count at which check() must be called next (UINT64_MAX: never).
  uint64_t nextCheck() const { return nextCheck_; }

  // After `steps` loop iterations: the message of the limit that stops the run here, or none
  // (then the next check is scheduled, and the progress line redrawn once a second).
  std::optional<std::string> check(uint64_t steps);

  // Ends the progress line, if one was drawn.
  void finish();

  // Whether a run under `limits` has to count its steps at all (the JIT leaves the progress
  // line out rather than count for it alone).
  static bool counts(const RunLimits &limits) { return limits.maxSteps || limits.timeoutSeconds > 0 || limits.progress; }

private:
  void schedule(uint64_t steps);

  RunLimits limits_;
  std::chrono::steady_clock::time_point start_;
  uint64_t nextCheck_ = 0;
  double nextProgressSecond_ = 1;
};

}  // namespace vtac::backend
