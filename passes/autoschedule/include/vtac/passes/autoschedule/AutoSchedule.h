// Automatic VTA schedules (`--auto-schedule`): TVM's relay.build-time topi schedules
// (schedule_conv2d_packed, ...) as TensorIR traces.
//
// Every prim_func not in `skip` is offered to the rules in order; the first that recognises its
// block structure (never its names) writes a schedule for it, with tiles chosen for the active VTA
// configuration. A function no rule recognises stays as it is (it runs on the CPU) and gets a
// remark saying so; a function a rule recognises but cannot fit into the on-chip memories is an
// error at the function. The result is one trace for all functions (get_block with func_name),
// which the schedule library applies like any other.
//
// A rule offers more than its choice: every tiling it considers legal for the function (its
// schedule space, `scheduleSpaces`), which `vtac tune` measures on the simulator.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <vector>

#include <llvm/Support/Error.h>

#include "vta/config.h"
#include "vtac/ir/Function.h"
#include "vtac/ir/Trace.h"
#include "vtac/passes/autoschedule/TuningDatabase.h"

namespace vtac::passes::autoschedule {

struct Remark {
  ir::SourceLoc loc;
  std::string message;
};

struct AutoSchedule {
  ir::Trace trace;
  std::vector<Remark> remarks;  // one per function: the rule and tiles chosen, or why none
};

// One schedule of a function's space: what it is, and the steps that apply it (appended to a
// trace, located at the function).
struct ScheduleChoice {
  std::string remark;  // "conv2d-packed: 3x3 stride 1; tiles oc 2 x rows 14 ..."
  std::function<void(ir::Trace &)> write;
  // The rule's knobs for this choice (conv2d: oc, rows, columns, ic, thread axis), the same
  // number for every choice of a space: choices that differ in one knob are neighbours, which
  // `vtac tune` searches around its best trials.
  std::vector<int64_t> knobs;
};

struct FunctionSpace {
  std::string function;
  ir::SourceLoc loc;
  std::string workload;  // what the rule recognised (TuningDatabase's key)
  std::vector<ScheduleChoice> choices;  // choices[0]: the rule's own, what autoSchedule applies
};

// The spaces of the prim_funcs of `module` a rule recognises, in module order (the module must
// outlive them: the choices refer to its blocks).
llvm::Expected<std::vector<FunctionSpace>> scheduleSpaces(const ir::IRModule &module, const vta::Config &config);

// With `database`, a function whose workload it holds for `config` gets the recorded schedule
// (a recorded schedule the rule no longer offers: the rule's own, and a remark saying so).
llvm::Expected<AutoSchedule> autoSchedule(const ir::IRModule &module, const std::set<std::string> &skip,
                                          const vta::Config &config, const TuningDatabase *database = nullptr);

}  // namespace vtac::passes::autoschedule
