// Limits of one interpreter run (`vtac run --max-steps N --timeout S`): a program that loops
// for ever, or far longer than meant, stops with an error located at the loop it was in,
// instead of running on. A step is one loop iteration (for and while), counted as
// ir/LoopSteps.h says; the clock is read every few thousand steps, so the checks cost next to
// nothing.
#pragma once

#include <cstdint>

#include "vtac/support/ProgressLine.h"

namespace vtac::backend {

struct RunLimits {
  uint64_t maxSteps = 0;      // 0: no limit
  double timeoutSeconds = 0;  // 0: no limit
  // Where to draw the progress line (once a second after the first second); null: none.
  support::ProgressLine *progress = nullptr;
  // The steps the whole run counts, when known before it starts (ir::staticLoopSteps): the
  // progress line's percentage; 0: unknown.
  uint64_t totalSteps = 0;
};

}  // namespace vtac::backend
