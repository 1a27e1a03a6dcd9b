#include "vtac/passes/autoschedule/AutoSchedule.h"

#include "Rules.h"

#include <llvm/ADT/STLExtras.h>

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
    RuleResult space = firstRecognising(entry.name->name, *func, config, why);
    if (!space) return space.takeError();
    if (*space) spaces.push_back({entry.name->name, func->loc(), (*space)->workload, std::move((*space)->choices)});
  }
  return spaces;
}

llvm::Expected<AutoSchedule> autoSchedule(const ir::IRModule &module, const std::set<std::string> &skip,
                                          const vta::Config &config, const TuningDatabase *database) {
  AutoSchedule result;
  for (const ir::IRModule::Entry &entry : module.functions()) {
    const auto *func = entry.function.as<ir::PrimFunc>();
    const std::string &name = entry.name->name;
    if (!func || skip.count(name)) continue;
    std::string why;
    RuleResult space = firstRecognising(name, *func, config, why);
    if (!space) return space.takeError();
    if (!*space) {
      result.remarks.push_back({func->loc(), "'" + name + "' stays on the CPU: " + why});
      continue;
    }
    const std::vector<ScheduleChoice> &choices = (*space)->choices;
    const ScheduleChoice *chosen = &choices.front();
    std::string source;
    if (const TuningRecord *record = database ? database->find((*space)->workload, vtaModelName(config)) : nullptr) {
      auto tuned = llvm::find_if(choices, [&](const ScheduleChoice &c) { return c.remark == record->schedule; });
      if (tuned != choices.end()) chosen = &*tuned, source = " (tuning database: " + std::to_string(record->cycles) + " cycles)";
      else source = " (the tuning database's schedule is not in the rule's space: " + record->schedule + ")";
    }
    chosen->write(result.trace);
    result.remarks.push_back({func->loc(), "'" + name + "' on VTA by " + chosen->remark + source});
  }
  return result;
}

}  // namespace vtac::passes::autoschedule
