// The auto-schedule rules, one per file. A rule looks at one prim_func: if it does not recognise
// it, it returns nullopt and says why in `why`; if it does, it returns its schedule space for the
// function (vtac/passes/autoschedule/AutoSchedule.h: choice 0 the rule's own, the others what
// `vtac tune` measures), each choice writing get_block with func_name = `name`; a function it
// recognises but cannot schedule (no tile fits) is an error at the function.
#pragma once

#include <optional>
#include <string>

#include <llvm/Support/Error.h>

#include "vta/config.h"
#include "vtac/ir/Function.h"
#include "vtac/passes/autoschedule/AutoSchedule.h"

namespace vtac::passes::autoschedule {

// What a rule recognised: the workload (what a tuning database keys its schedule by) and the space.
struct RuleSpace {
  std::string workload;
  std::vector<ScheduleChoice> choices;
};
using RuleResult = llvm::Expected<std::optional<RuleSpace>>;
using Rule = RuleResult (*)(const std::string &name, const ir::PrimFunc &func, const vta::Config &config,
                            std::string &why);

RuleResult conv2dPacked(const std::string &name, const ir::PrimFunc &func, const vta::Config &config,
                        std::string &why);
RuleResult densePacked(const std::string &name, const ir::PrimFunc &func, const vta::Config &config,
                       std::string &why);
RuleResult elementwisePacked(const std::string &name, const ir::PrimFunc &func, const vta::Config &config,
                             std::string &why);

}  // namespace vtac::passes::autoschedule
