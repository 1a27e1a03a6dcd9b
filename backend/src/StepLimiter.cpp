#include "vtac/backend/StepLimiter.h"

#include <llvm/Support/Format.h>
#include <llvm/Support/raw_ostream.h>

namespace vtac::backend {

namespace {
// Loop iterations between two readings of the clock (a few hundred microseconds at most).
constexpr uint64_t kStepsBetweenClockChecks = 1 << 14;
}  // namespace

StepLimiter::StepLimiter(const RunLimits &limits) : limits_(limits), start_(std::chrono::steady_clock::now()) {
  schedule(0);
}

void StepLimiter::schedule(uint64_t steps) {
  const bool clocked = limits_.timeoutSeconds > 0 || limits_.progress;
  nextCheck_ = clocked ? steps + kStepsBetweenClockChecks : UINT64_MAX;
  if (limits_.maxSteps) nextCheck_ = std::min(nextCheck_, limits_.maxSteps + 1);
}

std::optional<std::string> StepLimiter::check(uint64_t steps) {
  if (limits_.maxSteps && steps > limits_.maxSteps)
    return "the run stopped here after " + std::to_string(limits_.maxSteps) + " loop iterations (the limit of --max-steps)";
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (limits_.timeoutSeconds > 0 && seconds > limits_.timeoutSeconds) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "the run stopped here after " << llvm::format("%.1f", seconds) << " s and " << steps
       << " loop iterations (the limit of --timeout is " << llvm::format("%g", limits_.timeoutSeconds) << " s)";
    return os.str();
  }
  if (limits_.progress && seconds >= nextProgressSecond_) {
    limits_.progress->update("vtac: running for " + std::to_string(int(seconds)) + " s, " + std::to_string(steps) +
                             " loop iterations" + support::ProgressLine::percent(steps, limits_.totalSteps));
    nextProgressSecond_ = int(seconds) + 1;
  }
  schedule(steps);
  return std::nullopt;
}

void StepLimiter::finish() {
  if (limits_.progress) limits_.progress->finish();
}

}  // namespace vtac::backend
