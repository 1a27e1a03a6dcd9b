// Preparing a program: the one path from a parsed module file to the program a command works
// on, shared by `vtac opt`, `vtac run`, `vtac compile` and `vtac tune`'s trials so that they
// never disagree.
// In this order:
//  1. tensor intrinsics: the built-in VTA ones (`vta_gemm`, `vta_gemm_reset`, derived from the
//     active VTA configuration), then the module file's `tir.TensorIntrin.register(...)` lines and
//     the --intrinsics file's (their desc/impl prim_funcs leave the module: they describe
//     hardware, they are not part of the program);
//  2. the schedule: the def of the --schedule file, else the module file's own schedule def
//     (ParsedModule::schedule), else none;
//  3. the pass pipeline (--passes), with a pass context for the VTA configuration (--vta-config,
//     else VTA_CONFIG, else TVM's default) and the --pass-option values;
// and, for the commands that generate code, the pipeline from there to the emitters' input
// (codegenPipeline, below), which the driver runs on each prim_func it compiles.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <llvm/Support/Error.h>

#include "vtac/frontend/Frontend.h"
#include "vtac/passes/PassManager.h"
#include "vtac/passes/schedule/Schedule.h"

namespace vtac::prepare {

struct Recipe {
  std::string schedule;    // a file with a schedule def; empty: the module file's own, if any
  std::string intrinsics;  // a file registering tensor intrinsics
  std::string passes;      // a pipeline such as "vta-lower" (see --list-passes); empty: none
  std::string function;    // only this prim_func goes through the passes; empty: every one
  std::string vtaConfig;   // vta_config.json path or JSON text; empty: VTA_CONFIG or the default
  std::vector<std::pair<std::string, std::string>> passOptions;
  uint64_t scheduleSeed = 0;  // seeds the schedule's sample_* steps that have no decision
  bool autoSchedule = false;  // built-in VTA schedules for the functions the schedule leaves
  std::string tuningDb;       // with autoSchedule: a tuning database's schedules first (vtac tune)
};

// Why a recipe cannot be prepared, found before any input is read: a malformed pipeline or an
// unknown --pass-option (a usage error, exit status 2) or an unusable VTA configuration (an
// input error, exit status 1). The message names the flag at fault; the command that prints it
// puts its own name first.
class RecipeError : public llvm::ErrorInfo<RecipeError> {
public:
  static char ID;
  RecipeError(std::string message, int exitStatus) : message_(std::move(message)), exitStatus_(exitStatus) {}
  void log(llvm::raw_ostream &os) const override { os << message_; }
  std::error_code convertToErrorCode() const override { return llvm::inconvertibleErrorCode(); }
  int exitStatus() const { return exitStatus_; }

private:
  std::string message_;
  int exitStatus_;
};

class Preparer {
public:
  // Checks what does not depend on the input: the pipeline, the --pass-option names and the VTA
  // configuration; a RecipeError when one is unusable.
  static llvm::Expected<Preparer> create(const Recipe &recipe, passes::Instrumentation instrumentation = {});

  // Applies the recipe to `parsed`: the pipeline's leading Relax graph passes (legalize-ops,
  // vta-graph-pack, ...: they make the prim_funcs a schedule works on), the schedule (given or
  // automatic), then the rest of the pipeline. The passes' warnings and the auto-scheduler's
  // remarks go to `remarks` as they come. `trace`, when not null, receives the applied schedule in TVM's trace
  // text ("" without one; on a failed schedule, its steps).
  llvm::Error prepare(frontend::ParsedModule &parsed, std::ostream &remarks, std::string *trace = nullptr);

  const passes::PassContext &context() const { return context_; }
  const passes::PassTimings &timings() const { return manager_.timings(); }

private:
  llvm::Error scheduleAndRunPasses(frontend::ParsedModule &parsed, std::ostream &remarks, std::string *trace);
  // Appends to `schedule` (made if absent) the automatic schedules of the functions it does not
  // schedule, and reports the rules' remarks.
  llvm::Error addAutoSchedule(const ir::IRModule &module, const passes::schedule::TensorIntrinTable &intrinsics,
                              std::optional<ir::Trace> &schedule, std::ostream &remarks);

  Preparer(Recipe recipe, passes::PassManager manager) : recipe_(std::move(recipe)), manager_(std::move(manager)) {}

  Recipe recipe_;
  passes::PassManager manager_;
  passes::PassContext context_;
  std::optional<passes::schedule::TensorIntrinTable> builtinIntrinsics_;  // parsed on first use
};

// The pipeline that takes a prepared prim_func to what the emitters take, the same in every
// backend (`vtac compile`, `vtac run --engine=jit` and the graphs it runs, tune's trials):
// tir-lower when blocks remain (TensorIR is lowered by default, as TVM's build lowers it), then
// host-lower. A program scheduled for VTA still needs --passes=vta-lower first.
std::string codegenPipeline(const ir::PrimFunc &func);

// `func` (called `name`) through codegenPipeline(func), with a pass context of its own (no
// pass reads --pass-option or the VTA configuration) and `instrumentation`'s dumps. The function
// is first given its global_symbol, `symbol` (`name` when empty): the name of the compiled entry,
// which bind-entry-parameters' checks report (a pass is given no name).
llvm::Expected<ir::PrimFuncRef> lowerForCodegen(ir::PrimFuncRef func, llvm::StringRef name,
                                                passes::Instrumentation instrumentation = {},
                                                llvm::StringRef symbol = {});

// The built-in tensor intrinsics for the VTA configuration `vtaConfig` (as Recipe::vtaConfig),
// as TVMScript text; a RecipeError when the configuration is unusable.
llvm::Expected<std::string> builtinIntrinsicsText(const std::string &vtaConfig);

}  // namespace vtac::prepare
