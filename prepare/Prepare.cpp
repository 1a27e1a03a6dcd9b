#include "vtac/prepare/Prepare.h"

#include <algorithm>
#include <set>

#include <llvm/Support/raw_os_ostream.h>

#include "vtac/frontend/ModuleFile.h"
#include "vtac/frontend/TraceReader.h"
#include "vtac/ir/DisplayText.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Verifier.h"
#include "vtac/ir/Visitor.h"
#include "vtac/passes/PassRegistry.h"
#include "vtac/passes/Vta.h"
#include "vtac/passes/autoschedule/AutoSchedule.h"
#include "vtac/passes/schedule/ApplyTrace.h"
#include "vtac/support/Command.h"
#include "vta/config.h"

namespace vtac::prepare {

namespace {

constexpr const char *kBuiltinIntrinsicsName = "<vta-intrinsics>";

// --vta-config (a path or JSON text), else VTA_CONFIG, else TVM's default.
llvm::Expected<vta::Config> resolveVtaConfig(const std::string &vtaConfig) {
  llvm::Expected<vta::Config> config =
      vtaConfig.empty() ? vta::Config::fromEnvironment() : vta::Config::fromPathOrJSON(vtaConfig);
  if (config) return config;
  return llvm::make_error<RecipeError>((vtaConfig.empty() ? "VTA_CONFIG" : "--vta-config " + vtaConfig) + ": " +
                                           llvm::toString(config.takeError()),
                                       support::kExitInputError);
}

llvm::Expected<frontend::ParsedModule> parseText(const std::string &name, std::string text) {
  frontend::SourceFile file(name, std::move(text));
  frontend::DiagnosticEngine diagnostics;
  std::optional<frontend::ParsedModule> parsed = frontend::parseModule(file, diagnostics);
  if (diagnostics.hasErrors() || !parsed) return diagnostics.toError();
  return std::move(*parsed);
}

// Reads `path` as a module file for its schedule def or its intrinsics.
llvm::Expected<frontend::ParsedModule> readSideFile(const std::string &path) {
  std::string text, reason;
  if (!frontend::readSourceFile(path, text, reason))
    return ir::fileError(path, "cannot read file: " + reason);
  return parseText(path, std::move(text));
}

// Moves the registered intrinsics of `parsed` into `table` (and their prim_funcs out of the
// module). A name already in the table (a built-in one, or registered twice) is an error.
llvm::Error collectIntrinsics(frontend::ParsedModule &parsed, passes::schedule::TensorIntrinTable &table) {
  std::set<std::string> used;
  for (const frontend::TensorIntrinRegistration &registration : parsed.intrinsics) {
    auto desc = parsed.module.lookup(registration.desc).as<ir::PrimFunc>();
    auto impl = parsed.module.lookup(registration.impl).as<ir::PrimFunc>();
    if (!desc || !impl)
      return ir::diagnosticError(registration.loc,
                                 "no prim_func '" + (desc ? registration.impl : registration.desc) + "' in this file");
    if (table.count(registration.name))
      return ir::diagnosticError(registration.loc, "tensor intrinsic '" + registration.name +
                                                       "' is already registered (vta_gemm and vta_gemm_reset are "
                                                       "built in: `vtac intrinsics` prints them)");
    table[registration.name] = {ir::PrimFuncRef(desc), ir::PrimFuncRef(impl)};
    used.insert(registration.desc);
    used.insert(registration.impl);
  }
  if (used.empty()) return llvm::Error::success();
  ir::IRModule program;
  program.loc = parsed.module.loc;
  program.attrs = parsed.module.attrs;
  for (const ir::IRModule::Entry &entry : parsed.module.functions())
    if (!used.count(entry.name->name)) program.add(entry.name->name, entry.function);
  parsed.module = std::move(program);
  return llvm::Error::success();
}

}  // namespace

char RecipeError::ID = 0;

llvm::Expected<std::string> builtinIntrinsicsText(const std::string &vtaConfig) {
  llvm::Expected<vta::Config> config = resolveVtaConfig(vtaConfig);
  if (!config) return config.takeError();
  return passes::gemmTensorIntrinsics(*config);
}

llvm::Expected<Preparer> Preparer::create(const Recipe &recipe, passes::Instrumentation instrumentation) {
  auto pipeline = recipe.passes.empty()
                      ? llvm::Expected<std::vector<passes::PipelineStep>>(std::vector<passes::PipelineStep>{})
                      : passes::parsePipeline(recipe.passes, passes::PassRegistry::builtin());
  if (!pipeline) return llvm::make_error<RecipeError>(llvm::toString(pipeline.takeError()), support::kExitUsageError);
  const std::vector<std::string> known = passes::PassRegistry::builtin().optionNames();
  for (const auto &[name, value] : recipe.passOptions)
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      std::string list;
      for (const std::string &option : known) list += (list.empty() ? "" : ", ") + option;
      return llvm::make_error<RecipeError>(
          "--pass-option: no pass reads an option '" + name + "' (options: " + list + ")", support::kExitUsageError);
    }
  llvm::Expected<vta::Config> config = resolveVtaConfig(recipe.vtaConfig);
  if (!config) return config.takeError();
  Preparer preparer(recipe, passes::PassManager(std::move(*pipeline), std::move(instrumentation)));
  passes::setVtaTarget(preparer.context_, *config);
  for (const auto &[name, value] : recipe.passOptions) preparer.context_.options[name] = value;
  return preparer;
}

llvm::Error Preparer::prepare(frontend::ParsedModule &parsed, std::ostream &remarks, std::string *trace) {
  if (trace) trace->clear();
  context_.remark = [&](ir::SourceLoc loc, const std::string &message) {
    remarks << ir::formatDiagnostic(loc, ir::Severity::Warning, message);
  };
  // The Relax graph passes first: they make the prim_funcs the schedule works on.
  llvm::Error error = scheduleAndRunPasses(parsed, remarks, trace);
  context_.remark = nullptr;
  return error;
}

llvm::Error Preparer::scheduleAndRunPasses(frontend::ParsedModule &parsed, std::ostream &remarks, std::string *trace) {
  if (llvm::Error error = manager_.runLeadingModulePasses(parsed.module, context_)) return error;
  passes::schedule::TensorIntrinTable intrinsics;
  std::optional<ir::Trace> schedule = parsed.schedule;
  if (!recipe_.schedule.empty()) {
    llvm::Expected<frontend::ParsedModule> side = readSideFile(recipe_.schedule);
    if (!side) return side.takeError();
    schedule = side->schedule;
    if (!schedule)
      return ir::diagnosticError(recipe_.schedule + " holds no schedule def (a top-level `def` taking `sch`)");
  }
  // The built-in intrinsics are parsed once, and only for a schedule: a plain pipeline never
  // needs them.
  if (schedule || recipe_.autoSchedule) {
    if (!builtinIntrinsics_) {
      llvm::Expected<frontend::ParsedModule> builtins =
          parseText(kBuiltinIntrinsicsName, passes::gemmTensorIntrinsics(context_.vta));
      if (!builtins) return builtins.takeError();
      passes::schedule::TensorIntrinTable table;
      if (llvm::Error error = collectIntrinsics(*builtins, table)) return error;
      builtinIntrinsics_ = std::move(table);
    }
    intrinsics = *builtinIntrinsics_;
  }
  if (llvm::Error error = collectIntrinsics(parsed, intrinsics)) return error;
  if (!recipe_.intrinsics.empty()) {
    llvm::Expected<frontend::ParsedModule> side = readSideFile(recipe_.intrinsics);
    if (!side) return side.takeError();
    if (llvm::Error error = collectIntrinsics(*side, intrinsics)) return error;
  }
  if (recipe_.autoSchedule)
    if (llvm::Error error = addAutoSchedule(parsed.module, intrinsics, schedule, remarks)) return error;
  if (schedule) {
    ir::IRModule scheduled = parsed.module;
    llvm::Expected<ir::Trace> applied = passes::schedule::applyTrace(scheduled, *schedule, intrinsics, recipe_.scheduleSeed);
    if (!applied) {
      if (trace) *trace = ir::printTrace(*schedule);  // --print-trace shows the steps that failed
      return applied.takeError();
    }
    // Verified as a pipeline's result is (Instrumentation::verifyResult): a step that left a
    // malformed function is an error here, not a program `vtac check` rejects.
    if (llvm::Error malformed = ir::verify(scheduled))
      return ir::diagnosticError("the function is malformed after the schedule:\n" + llvm::toString(std::move(malformed)));
    parsed.module = std::move(scheduled);
    if (trace) *trace = ir::printTrace(*applied);
  }
  return manager_.runAfterLeadingModulePasses(parsed.module, context_, recipe_.function);
}

// The functions a schedule works on: the func_name of each block it looks up.
static std::set<std::string> scheduledFunctions(const ir::Trace &applied) {
  std::set<std::string> functions;
  for (const ir::TraceStep &step : applied.steps)
    for (const ir::TraceArgument &argument : step.arguments)
      if (step.primitive == "get_block" && argument.keyword == "func_name") functions.insert(argument.value.text);
  return functions;
}

llvm::Error Preparer::addAutoSchedule(const ir::IRModule &module, const passes::schedule::TensorIntrinTable &intrinsics,
                                      std::optional<ir::Trace> &schedule, std::ostream &remarks) {
  std::set<std::string> skip;
  if (schedule) {
    ir::IRModule scratch = module;
    llvm::Expected<ir::Trace> applied =
        passes::schedule::applyTrace(scratch, *schedule, intrinsics, recipe_.scheduleSeed);
    if (!applied) return applied.takeError();
    skip = scheduledFunctions(*applied);
    // A schedule the reader paused in is read to its end only as it is applied: the steps that
    // follow go after the trace it applied, which gives the same program.
    if (schedule->pause) schedule = std::move(*applied);
  }
  std::optional<passes::autoschedule::TuningDatabase> database;
  if (!recipe_.tuningDb.empty()) {
    llvm::Expected<passes::autoschedule::TuningDatabase> read =
        passes::autoschedule::TuningDatabase::read(recipe_.tuningDb, /*missingIsEmpty=*/false);
    if (!read) return read.takeError();
    database = std::move(*read);
  }
  llvm::Expected<passes::autoschedule::AutoSchedule> automatic =
      passes::autoschedule::autoSchedule(module, skip, context_.vta, database ? &*database : nullptr);
  if (!automatic) return automatic.takeError();
  for (const passes::autoschedule::Remark &remark : automatic->remarks)
    remarks << ir::formatDiagnostic(remark.loc, ir::Severity::Remark, "[auto-schedule] " + remark.message);
  if (automatic->trace.steps.empty()) return llvm::Error::success();
  if (!schedule) schedule = ir::Trace{};
  schedule->steps.insert(schedule->steps.end(), automatic->trace.steps.begin(), automatic->trace.steps.end());
  return llvm::Error::success();
}

std::string codegenPipeline(const ir::PrimFunc &func) {
  bool hasBlocks = false;
  ir::preOrderVisit(func.body, [&](const ir::Node &node) { hasBlocks |= node.isa<ir::BlockRealize>(); });
  return hasBlocks ? "tir-lower,host-lower" : "host-lower";
}

llvm::Expected<ir::PrimFuncRef> lowerForCodegen(ir::PrimFuncRef func, llvm::StringRef name,
                                                passes::Instrumentation instrumentation, llvm::StringRef symbol) {
  ir::PrimFunc *named = ir::copyNode(*func);
  named->attrs.set("global_symbol", (symbol.empty() ? name : symbol).str());
  func = ir::PrimFuncRef(named);
  auto pipeline = passes::parsePipeline(codegenPipeline(*func), passes::PassRegistry::builtin());
  if (!pipeline) return pipeline.takeError();
  passes::PassContext context;
  return passes::PassManager(std::move(*pipeline), std::move(instrumentation)).run(func, name, context);
}

}  // namespace vtac::prepare
