#include "vtac/passes/autoschedule/AutoSchedule.h"

#include "Rules.h"

namespace vtac::passes::autoschedule {

namespace {

// In order: the first rule that recognises a function schedules it.
const Rule kRules[] = {conv2dPacked, densePacked, elementwisePacked};

// The space of the first rule that recognises `func`, or nullopt with every rule's reason in `why`.
RuleResult firstRecognising(const std::string &name, const ir::PrimFunc &func, const vta::Config &config,
                            std::string &why) {
  why.clear();
  for (Rule rule : kRules) {
    std::string reason;
    RuleResult choices = rule(name, func, config, reason);
    if (!choices || *choices) return choices;
    why += (why.empty() ? "" : "; ") + reason;
  }
  return std::nullopt;
}

}  // namespace

llvm::Expected<std::vector<FunctionSpace>> scheduleSpaces(const ir::IRModule &module, const vta::Config &config) {
  std::vector<FunctionSpace> spaces;
  for (const ir::IRModule::Entry &entry : module.functions()) {
    const auto *func = entry.function.as<ir::PrimFunc>();
    if (!func) continue;
    std::string why;
    RuleResult choices = firstRecognising(entry.name->name, *func, config, why);
    if (!choices) return choices.takeError();
    if (*choices) spaces.push_back({entry.name->name, func->loc(), std::move(**choices)});
  }
  return spaces;
}

llvm::Expected<AutoSchedule> autoSchedule(const ir::IRModule &module, const std::set<std::string> &skip,
                                          const vta::Config &config) {
  AutoSchedule result;
  for (const ir::IRModule::Entry &entry : module.functions()) {
    const auto *func = entry.function.as<ir::PrimFunc>();
    const std::string &name = entry.name->name;
    if (!func || skip.count(name)) continue;
    std::string why;
    RuleResult choices = firstRecognising(name, *func, config, why);
    if (!choices) return choices.takeError();
    if (!*choices) {
      result.remarks.push_back({func->loc(), "'" + name + "' stays on the CPU: " + why});
      continue;
    }
    const ScheduleChoice &chosen = (**choices).front();
    chosen.write(result.trace);
    result.remarks.push_back({func->loc(), "'" + name + "' on VTA by " + chosen.remark});
  }
  return result;
}

}  // namespace vtac::passes::autoschedule
