#include "vtac/passes/autoschedule/AutoSchedule.h"

#include "Rules.h"

namespace vtac::passes::autoschedule {

// In order: the first rule that recognises a function schedules it.
static const Rule kRules[] = {conv2dPacked, densePacked, elementwisePacked};

llvm::Expected<AutoSchedule> autoSchedule(const ir::IRModule &module, const std::set<std::string> &skip,
                                          const vta::Config &config) {
  AutoSchedule result;
  for (const ir::IRModule::Entry &entry : module.functions()) {
    const auto *func = entry.function.as<ir::PrimFunc>();
    const std::string &name = entry.name->name;
    if (!func || skip.count(name)) continue;
    std::string why, reasons;
    std::optional<std::string> chosen;
    for (Rule rule : kRules) {
      llvm::Expected<std::optional<std::string>> remark = rule(name, *func, config, result.trace, why);
      if (!remark) return remark.takeError();
      if ((chosen = *remark)) break;
      reasons += (reasons.empty() ? "" : "; ") + why;
    }
    result.remarks.push_back({func->loc(), chosen ? "'" + name + "' on VTA by " + *chosen
                                                  : "'" + name + "' stays on the CPU: " + reasons});
  }
  return result;
}

}  // namespace vtac::passes::autoschedule
