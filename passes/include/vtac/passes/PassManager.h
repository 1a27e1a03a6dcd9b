// The pass manager: parses a textual pipeline (`--passes=lower-init-block,simplify,tir-lower`)
// and runs it on the prim_funcs of a module, with LLVM-style instrumentation.
//
// A pipeline is a tree: named pipelines expand into their steps when parsed, and each step is
// instrumented (printed, verified, timed) as a pass of its own; `--print-after=tir-lower`
// prints once the whole named pipeline has run. Dumps go to the instrumentation's stream in
// canonical TVMScript, each after a header line
//   # *** IR Dump After simplify on main ***
// (LLVM's form, as a TVMScript comment so a dump can be cut out and parsed back).
#pragma once

#include <chrono>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <llvm/Support/Error.h>
#include <llvm/Support/raw_ostream.h>

#include "vtac/passes/Pass.h"
#include "vtac/passes/PassRegistry.h"

namespace vtac::passes {

// One step of a pipeline: a pass, or a named pipeline with its expanded steps.
struct PipelineStep {
  const PassInfo *pass = nullptr;
  std::vector<PipelineStep> steps;  // of a named pipeline
};

// Builds the steps of a named pipeline (PassInfo::build) by name, so that a pipeline reads top
// to bottom as the list of what it runs. Unknown names are collected as errors.
class PipelineBuilder {
public:
  explicit PipelineBuilder(const PassRegistry &registry) : registry_(registry) {}
  PipelineBuilder &add(llvm::StringRef passName);
  std::vector<PipelineStep> takeSteps() { return std::move(steps_); }
  const std::vector<std::string> &unknownNames() const { return unknown_; }

private:
  const PassRegistry &registry_;
  std::vector<PipelineStep> steps_;
  std::vector<std::string> unknown_;
};

// A usage error in a pipeline text (unknown pass, bad syntax): the message lists the closest
// names. The driver turns it into exit status 2.
class PipelineSyntaxError : public llvm::ErrorInfo<PipelineSyntaxError> {
public:
  static char ID;
  explicit PipelineSyntaxError(std::string message) : message_(std::move(message)) {}
  void log(llvm::raw_ostream &os) const override { os << message_; }
  std::error_code convertToErrorCode() const override { return llvm::inconvertibleErrorCode(); }

private:
  std::string message_;
};

// "p1,p2,..." (spaces around names allowed) -> steps; a PipelineSyntaxError when a name is
// unknown or empty.
llvm::Expected<std::vector<PipelineStep>> parsePipeline(llvm::StringRef text,
                                                        const PassRegistry &registry);

struct Instrumentation {
  bool printAfterAll = false;
  bool printChanged = false;         // dump after a pass only when it changed the function
  std::set<std::string> printAfter;  // pass or pipeline names
  std::set<std::string> printBefore;
  bool verifyEach = false;           // run the IR verifier after every pass
  // Run it once on the pipeline's result (as LLVM's opt does by default; --verify-each covers it).
  bool verifyResult = true;
  bool timePasses = false;
  // A pass's error starts with `[pass]`; off where passes run on the user's behalf (the JIT's
  // tir-lower), whose errors read as the interpreter's for the same program.
  bool namePassInErrors = true;
  llvm::raw_ostream *dumpStream = &llvm::errs();
};

// Wall time per pass name, summed over functions, in order of first run.
struct PassTimings {
  std::vector<std::pair<std::string, std::chrono::nanoseconds>> entries;
  void add(const std::string &pass, std::chrono::nanoseconds elapsed);
  // A table as LLVM's -time-passes prints it: time, share, name; total last.
  void print(llvm::raw_ostream &os) const;
};

class PassManager {
public:
  PassManager(std::vector<PipelineStep> pipeline, Instrumentation instrumentation = {})
      : pipeline_(std::move(pipeline)), instrumentation_(std::move(instrumentation)) {}

  // Runs the pipeline on one function called `name`.
  llvm::Expected<ir::PrimFuncRef> run(ir::PrimFuncRef func, llvm::StringRef name,
                                      PassContext &context);
  // Runs it on every prim_func of the module (only `onlyFunction` when not empty; an error
  // when the module has no such prim_func), replacing each in the module; a module pass
  // (legalize-ops) runs once on the module where it stands in the pipeline and is dumped as
  //   # *** IR Dump After legalize-ops on module ***
  llvm::Error run(ir::IRModule &module, PassContext &context, llvm::StringRef onlyFunction = "");
  // The pipeline's leading module passes (the Relax graph passes: vta-graph-pack, legalize-ops,
  // ...), which make the prim_funcs a schedule works on, and the rest: `vtac run`, `compile`
  // and `opt` schedule between the two (run() is the two in a row).
  llvm::Error runLeadingModulePasses(ir::IRModule &module, PassContext &context);
  llvm::Error runAfterLeadingModulePasses(ir::IRModule &module, PassContext &context,
                                          llvm::StringRef onlyFunction = "");

  const PassTimings &timings() const { return timings_; }

private:
  llvm::Expected<ir::PrimFuncRef> runSteps(const std::vector<PipelineStep> &steps,
                                           ir::PrimFuncRef func, llvm::StringRef name,
                                           PassContext &context);
  llvm::Expected<ir::PrimFuncRef> runPass(const PassInfo &pass, ir::PrimFuncRef func,
                                          llvm::StringRef name, PassContext &context);
  void dump(llvm::StringRef when, llvm::StringRef pass, const ir::PrimFunc &func,
            llvm::StringRef name);
  void dump(llvm::StringRef when, llvm::StringRef pass, const ir::IRModule &module);
  llvm::Error runModulePass(const PassInfo &pass, ir::IRModule &module, PassContext &context);
  // Steps [first, pipeline end) of the pipeline on the module.
  llvm::Error runFrom(size_t first, ir::IRModule &module, PassContext &context, llvm::StringRef onlyFunction);
  size_t leadingModulePasses() const;
  // The verifier on the pipeline's result, unless --verify-each has run it or nothing ran.
  llvm::Error verifyResult(const ir::PrimFunc &func) const;

  std::vector<PipelineStep> pipeline_;
  Instrumentation instrumentation_;
  PassTimings timings_;
};

}  // namespace vtac::passes
