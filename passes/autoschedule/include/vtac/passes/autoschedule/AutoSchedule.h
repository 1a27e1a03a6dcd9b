// Automatic VTA schedules (`--auto-schedule`): TVM's relay.build-time topi schedules
// (schedule_conv2d_packed, ...) as TensorIR traces.
//
// Every prim_func not in `skip` is offered to the rules in order; the first that recognises its
// block structure (never its names) writes a schedule for it, with tiles chosen for the active VTA
// configuration. A function no rule recognises stays as it is (it runs on the CPU) and gets a
// remark saying so; a function a rule recognises but cannot fit into the on-chip memories is an
// error at the function. The result is one trace for all functions (get_block with func_name),
// which the schedule library applies like any other.
#pragma once

#include <set>
#include <string>
#include <vector>

#include <llvm/Support/Error.h>

#include "vta/config.h"
#include "vtac/ir/Function.h"
#include "vtac/ir/Trace.h"

namespace vtac::passes::autoschedule {

struct Remark {
  ir::SourceLoc loc;
  std::string message;
};

struct AutoSchedule {
  ir::Trace trace;
  std::vector<Remark> remarks;  // one per function: the rule and tiles chosen, or why none
};

llvm::Expected<AutoSchedule> autoSchedule(const ir::IRModule &module, const std::set<std::string> &skip,
                                          const vta::Config &config);

}  // namespace vtac::passes::autoschedule
