// Helpers for the schedule tests: parse a module and a trace from strings, apply, compare.
#pragma once

#include <optional>
#include <string>

#include "vtac/ir/Function.h"
#include "vtac/ir/Trace.h"

namespace vtac::passes::schedule::testing {

// The module of `text`; fails the test on a parse error.
ir::IRModule parseModuleText(const std::string &text);

// The text of samples/<name> (tests run in the source tree).
std::string sampleText(const std::string &name);

// The trace of `text` (a file holding one schedule def); fails the test on a read error.
ir::Trace readTraceText(const std::string &text, const std::string &name = "schedule.py");

struct Applied {
  std::optional<ir::IRModule> module;  // empty after an error
  std::string printedTrace;            // TVM's text of the applied trace
  std::string error;                   // rendered `file:line:col: error: ...`
};
Applied applyText(const std::string &moduleText, const std::string &traceText);

// Applies the schedule, checks the result is structurally equal to `expectedText` and that the
// printed trace, read back and applied to the original module, gives the same module and prints
// the same trace again.
void checkSchedule(const std::string &moduleText, const std::string &traceText, const std::string &expectedText);

// Applies the schedule and checks it fails with an error whose rendering contains `message`.
void checkScheduleError(const std::string &moduleText, const std::string &traceText, const std::string &message);

}  // namespace vtac::passes::schedule::testing
