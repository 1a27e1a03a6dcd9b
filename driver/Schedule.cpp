#include "vtac/driver/Schedule.h"

#include <set>

#include "vtac/frontend/TraceReader.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/passes/schedule/ApplyTrace.h"

namespace vtac::driver {

namespace {

// Moves the registered intrinsics of `parsed` into `table` (and their prim_funcs out of the module).
bool collectIntrinsics(frontend::ParsedModule &parsed, passes::schedule::TensorIntrinTable &table, std::ostream &errors) {
  std::set<std::string> used;
  for (const frontend::TensorIntrinRegistration &registration : parsed.intrinsics) {
    auto desc = parsed.module.lookup(registration.desc).as<ir::PrimFunc>();
    auto impl = parsed.module.lookup(registration.impl).as<ir::PrimFunc>();
    if (!desc || !impl) {
      errors << ir::formatDiagnostic(registration.loc, ir::Severity::Error,
                                     "no prim_func '" + (desc ? registration.impl : registration.desc) + "' in this file");
      return false;
    }
    table[registration.name] = {ir::PrimFuncRef(desc), ir::PrimFuncRef(impl)};
    used.insert(registration.desc);
    used.insert(registration.impl);
  }
  if (used.empty()) return true;
  ir::IRModule program;
  program.loc = parsed.module.loc;
  for (const ir::IRModule::Entry &entry : parsed.module.functions())
    if (!used.count(entry.name->name)) program.add(entry.name->name, entry.function);
  parsed.module = std::move(program);
  return true;
}

// Reads `path` as a module file for its schedule def or its intrinsics.
std::optional<frontend::ParsedModule> readSideFile(const std::string &path, std::ostream &errors) {
  std::string text, reason;
  if (!frontend::readSourceFile(path, text, reason)) {
    errors << path << ": error: cannot read file: " << reason << "\n";
    return std::nullopt;
  }
  frontend::SourceFile file(path, std::move(text));
  frontend::DiagnosticEngine diagnostics;
  std::optional<frontend::ParsedModule> parsed = frontend::parseModule(file, diagnostics);
  errors << diagnostics.render();
  if (diagnostics.hasErrors()) return std::nullopt;
  return parsed;
}

}  // namespace

bool applyModuleSchedule(frontend::ParsedModule &parsed, const std::string &schedulePath,
                         const std::string &intrinsicsPath, std::string *printedTrace, std::ostream &errors,
                         uint64_t seed) {
  passes::schedule::TensorIntrinTable intrinsics;
  if (!collectIntrinsics(parsed, intrinsics, errors)) return false;
  if (!intrinsicsPath.empty()) {
    std::optional<frontend::ParsedModule> side = readSideFile(intrinsicsPath, errors);
    if (!side || !collectIntrinsics(*side, intrinsics, errors)) return false;
  }
  std::optional<ir::Trace> trace = parsed.schedule;
  if (!schedulePath.empty()) {
    std::optional<frontend::ParsedModule> side = readSideFile(schedulePath, errors);
    if (!side) return false;
    trace = side->schedule;
    if (!trace) {
      errors << ir::formatDiagnostic(ir::SourceLoc{}, ir::Severity::Error,
                                     schedulePath + " holds no schedule def (a top-level `def` taking `sch`)");
      return false;
    }
  }
  if (printedTrace) printedTrace->clear();
  if (!trace) return true;
  ir::IRModule scheduled = parsed.module;
  llvm::Expected<ir::Trace> applied = passes::schedule::applyTrace(scheduled, *trace, intrinsics, seed);
  if (!applied) {
    errors << ir::renderError(applied.takeError());
    return false;
  }
  parsed.module = std::move(scheduled);
  if (printedTrace) *printedTrace = ir::printTrace(*applied);
  return true;
}

}  // namespace vtac::driver
