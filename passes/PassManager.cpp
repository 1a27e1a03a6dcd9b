#include "vtac/passes/PassManager.h"

#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/Format.h>

#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Printer.h"
#include "vtac/ir/StructuralEqual.h"
#include "vtac/ir/Verifier.h"
#include "vtac/ir/Visitor.h"

namespace vtac::passes {

char PipelineSyntaxError::ID = 0;

namespace {

std::string unknownPassMessage(llvm::StringRef name, const PassRegistry &registry) {
  std::string message = "unknown pass '" + name.str() + "'";
  std::vector<std::string> closest = registry.closestNames(name);
  if (!closest.empty()) message += "; did you mean " + llvm::join(closest, ", ") + "?";
  return message + " (vtac opt --list-passes lists them all)";
}

// The step for `pass`, with a named pipeline's steps expanded (recursively).
llvm::Expected<PipelineStep> expand(const PassInfo &pass, const PassRegistry &registry) {
  PipelineStep step;
  step.pass = &pass;
  if (!pass.isPipeline()) return step;
  PipelineBuilder builder(registry);
  pass.build(builder);
  if (!builder.unknownNames().empty())
    return llvm::make_error<PipelineSyntaxError>(
        "pipeline '" + pass.name + "' names " +
        unknownPassMessage(builder.unknownNames().front(), registry));
  step.steps = builder.takeSteps();
  return step;
}

// Rewrites a pass's error as `[pass] message`, keeping its location.
llvm::Error attributeToPass(llvm::Error error, llvm::StringRef pass) {
  std::vector<std::unique_ptr<ir::DiagnosticError>> located;
  llvm::Error rest = llvm::handleErrors(
      std::move(error), [&](const ir::DiagnosticError &diagnostic) {
        return ir::diagnosticError(diagnostic.loc(), "[" + pass + "] " + diagnostic.text());
      },
      [&](const llvm::ErrorInfoBase &other) {
        return ir::diagnosticError("[" + pass + "] " + other.message());
      });
  return rest;
}

// The first TensorIR block of `func` that is not the root block (the root when it is the only
// one); null for lowered TIR.
const ir::Block *firstBlock(const ir::PrimFunc &func) {
  const ir::Block *found = nullptr;
  ir::preOrderVisit(func.body, [&](const ir::Node &node) {
    const auto *block = node.as<ir::Block>();
    if (block && (!found || (found->name == "root" && block->name != "root"))) found = block;
  });
  return found;
}

// A lowered-TIR pass given TensorIR: an error at its first block.
llvm::Error checkInput(const PassInfo &pass, const ir::PrimFunc &func) {
  if (pass.input != PassInput::LoweredTir) return llvm::Error::success();
  const ir::Block *block = firstBlock(func);
  if (!block) return llvm::Error::success();
  return ir::diagnosticError(block->loc(), "this pass needs lowered TIR, but the function holds the TensorIR block '" +
                                               block->name + "': run tir-lower first (vta-lower does)");
}

}  // namespace

PipelineBuilder &PipelineBuilder::add(llvm::StringRef passName) {
  const PassInfo *pass = registry_.lookup(passName);
  if (!pass) {
    unknown_.push_back(passName.str());
    return *this;
  }
  auto step = expand(*pass, registry_);
  if (!step) {
    unknown_.push_back(llvm::toString(step.takeError()));
    return *this;
  }
  steps_.push_back(std::move(*step));
  return *this;
}

llvm::Expected<std::vector<PipelineStep>> parsePipeline(llvm::StringRef text,
                                                        const PassRegistry &registry) {
  std::vector<PipelineStep> steps;
  if (text.trim().empty())
    return llvm::make_error<PipelineSyntaxError>("empty pass pipeline");
  llvm::SmallVector<llvm::StringRef, 16> names;
  text.split(names, ',');
  for (size_t i = 0; i < names.size(); ++i) {
    llvm::StringRef name = names[i].trim();
    if (name.empty())
      return llvm::make_error<PipelineSyntaxError>(
          "empty pass name at position " + std::to_string(i + 1) + " of the pipeline '" +
          text.str() + "'");
    const PassInfo *pass = registry.lookup(name);
    if (!pass) return llvm::make_error<PipelineSyntaxError>(unknownPassMessage(name, registry));
    auto step = expand(*pass, registry);
    if (!step) return step.takeError();
    steps.push_back(std::move(*step));
  }
  return steps;
}

void PassTimings::add(const std::string &pass, std::chrono::nanoseconds elapsed) {
  for (auto &entry : entries)
    if (entry.first == pass) {
      entry.second += elapsed;
      return;
    }
  entries.emplace_back(pass, elapsed);
}

void PassTimings::print(llvm::raw_ostream &os) const {
  std::chrono::nanoseconds total{0};
  for (const auto &entry : entries) total += entry.second;
  os << "===-------------------------------------------------------------------------===\n"
     << "                          vtac pass execution timing report\n"
     << "===-------------------------------------------------------------------------===\n"
     << "  Total Execution Time: " << llvm::format("%.4f", total.count() / 1e9) << " seconds\n\n"
     << "   ---Wall Time---  --- Name ---\n";
  auto row = [&](std::chrono::nanoseconds time, llvm::StringRef name) {
    double share = total.count() ? 100.0 * time.count() / total.count() : 0.0;
    os << llvm::format("   %.4f (%5.1f%%)  ", time.count() / 1e9, share) << name << "\n";
  };
  for (const auto &entry : entries) row(entry.second, entry.first);
  row(total, "Total");
}

void PassManager::dump(llvm::StringRef when, llvm::StringRef pass, const ir::PrimFunc &func,
                       llvm::StringRef name) {
  llvm::raw_ostream &os = *instrumentation_.dumpStream;
  os << "# *** IR Dump " << when;
  if (!pass.empty()) os << " " << pass;
  os << " on " << name << " ***\n";
  ir::PrintOptions options;
  options.headerComments = false;
  ir::printPrimFunc(func, name, os, options);
  os.flush();
}

llvm::Expected<ir::PrimFuncRef> PassManager::runPass(const PassInfo &pass, ir::PrimFuncRef func,
                                                     llvm::StringRef name,
                                                     PassContext &context) {
  if (pass.isModulePass())
    return attributeToPass(ir::diagnosticError("a module pass cannot run on the prim_func '" + name +
                                               "' alone; run it first in --passes"),
                           pass.name);
  if (llvm::Error error = checkInput(pass, *func))
    return instrumentation_.namePassInErrors ? attributeToPass(std::move(error), pass.name) : std::move(error);
  auto start = std::chrono::steady_clock::now();
  auto result = pass.transform(func, context);
  if (instrumentation_.timePasses)
    timings_.add(pass.name, std::chrono::steady_clock::now() - start);
  if (!result)
    return instrumentation_.namePassInErrors ? attributeToPass(result.takeError(), pass.name) : result.takeError();
  if (instrumentation_.verifyEach)
    if (llvm::Error error = ir::verify(**result))
      return attributeToPass(
          ir::diagnosticError("the function is malformed after this pass:\n" +
                              llvm::toString(std::move(error))),
          pass.name);
  return result;
}

llvm::Error PassManager::verifyResult(const ir::PrimFunc &func) const {
  if (!instrumentation_.verifyResult || instrumentation_.verifyEach || pipeline_.empty()) return llvm::Error::success();
  if (llvm::Error error = ir::verify(func))
    return ir::diagnosticError("the function is malformed after the pipeline (--verify-each names the pass):\n" +
                               llvm::toString(std::move(error)));
  return llvm::Error::success();
}

llvm::Expected<ir::PrimFuncRef> PassManager::runSteps(const std::vector<PipelineStep> &steps,
                                                      ir::PrimFuncRef func,
                                                      llvm::StringRef name,
                                                      PassContext &context) {
  const Instrumentation &inst = instrumentation_;
  for (const PipelineStep &step : steps) {
    const std::string &passName = step.pass->name;
    if (inst.printBefore.count(passName)) dump("Before", passName, *func, name);
    ir::PrimFuncRef before = func;
    auto result = step.pass->isPipeline() ? runSteps(step.steps, func, name, context)
                                          : runPass(*step.pass, func, name, context);
    if (!result) return result.takeError();
    func = std::move(*result);
    // Leaves are dumped by --print-after-all; a named pipeline only when asked for by name.
    bool changed = func != before && !ir::structuralEqual(*func, *before);
    bool wanted = inst.printAfter.count(passName) ||
                  (!step.pass->isPipeline() && (inst.printAfterAll || inst.printChanged));
    if (wanted && (!inst.printChanged || changed)) dump("After", passName, *func, name);
  }
  return func;
}

llvm::Expected<ir::PrimFuncRef> PassManager::run(ir::PrimFuncRef func, llvm::StringRef name,
                                                 PassContext &context) {
  if (instrumentation_.printChanged) dump("At Start:", "", *func, name);
  auto result = runSteps(pipeline_, std::move(func), name, context);
  if (result)
    if (llvm::Error error = verifyResult(**result)) return error;
  return result;
}

void PassManager::dump(llvm::StringRef when, llvm::StringRef pass, const ir::IRModule &module) {
  llvm::raw_ostream &os = *instrumentation_.dumpStream;
  os << "# *** IR Dump " << when << " " << pass << " on module ***\n";
  ir::PrintOptions options;
  options.headerComments = false;
  ir::printModule(module, os, options);
  os.flush();
}

llvm::Error PassManager::runModulePass(const PassInfo &pass, ir::IRModule &module, PassContext &context) {
  const Instrumentation &inst = instrumentation_;
  if (inst.printBefore.count(pass.name)) dump("Before", pass.name, module);
  ir::IRModule before = module;
  auto start = std::chrono::steady_clock::now();
  llvm::Error error = pass.moduleTransform(module, context);
  if (inst.timePasses) timings_.add(pass.name, std::chrono::steady_clock::now() - start);
  if (error) return inst.namePassInErrors ? attributeToPass(std::move(error), pass.name) : std::move(error);
  if (inst.verifyEach || inst.verifyResult)
    for (const ir::IRModule::Entry &entry : module.functions())
      if (const auto *prim = entry.function->as<ir::PrimFunc>())
        if (llvm::Error malformed = ir::verify(*prim))
          return attributeToPass(ir::diagnosticError("'" + entry.name->name + "' is malformed after this pass:\n" +
                                                     llvm::toString(std::move(malformed))),
                                 pass.name);
  bool wanted = inst.printAfter.count(pass.name) || inst.printAfterAll || inst.printChanged;
  if (wanted && (!inst.printChanged || !ir::structuralEqual(module, before))) dump("After", pass.name, module);
  return llvm::Error::success();
}

llvm::Error PassManager::run(ir::IRModule &module, PassContext &context,
                             llvm::StringRef onlyFunction) {
  return runFrom(0, module, context, onlyFunction);
}

size_t PassManager::leadingModulePasses() const {
  return size_t(std::find_if(pipeline_.begin(), pipeline_.end(), [](const PipelineStep &step) { return !step.pass->isModulePass(); }) -
                pipeline_.begin());
}

llvm::Error PassManager::runLeadingModulePasses(ir::IRModule &module, PassContext &context) {
  for (size_t i = 0, count = leadingModulePasses(); i < count; ++i)
    if (llvm::Error error = runModulePass(*pipeline_[i].pass, module, context)) return error;
  return llvm::Error::success();
}

llvm::Error PassManager::runAfterLeadingModulePasses(ir::IRModule &module, PassContext &context,
                                                     llvm::StringRef onlyFunction) {
  return runFrom(leadingModulePasses(), module, context, onlyFunction);
}

llvm::Error PassManager::runFrom(size_t firstStep, ir::IRModule &module, PassContext &context,
                                 llvm::StringRef onlyFunction) {
  // Module passes run on the module where they stand in the pipeline; the function passes
  // between them run on each prim_func in turn.
  bool found = false, functionPasses = false;
  std::vector<PipelineStep> all = std::move(pipeline_);
  llvm::Error failure = llvm::Error::success();
  auto first = all.begin() + ptrdiff_t(firstStep);
  do {  // at least once: an empty pipeline still looks for `onlyFunction`
    if (first != all.end() && first->pass->isModulePass()) {
      failure = runModulePass(*first->pass, module, context);
      ++first;
      continue;
    }
    auto last = std::find_if(first, all.end(), [](const PipelineStep &step) { return step.pass->isModulePass(); });
    pipeline_.assign(first, last);
    first = last;
    functionPasses = true;
    // Entries are copied first: replacing a function updates the module in place.
    std::vector<ir::IRModule::Entry> entries = module.functions();
    for (const auto &entry : entries) {
      auto *prim = entry.function->as<ir::PrimFunc>();
      if (!prim || (!onlyFunction.empty() && entry.name->name != onlyFunction)) continue;
      found = true;
      auto result = run(ir::PrimFuncRef(prim), entry.name->name, context);
      if (!result) {
        failure = result.takeError();
        break;
      }
      module.add(entry.name->name, *result);
    }
  } while (first != all.end() && !failure);
  pipeline_ = std::move(all);
  if (failure) return failure;
  if (!onlyFunction.empty() && functionPasses && !found)
    return ir::diagnosticError(module.loc, "the module has no prim_func called '" +
                                               onlyFunction + "'");
  return llvm::Error::success();
}

}  // namespace vtac::passes
