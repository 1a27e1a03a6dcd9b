#include "vtac/driver/Equivalence.h"

#include <cstring>
#include <sstream>

#include <llvm/ADT/StringMap.h>

#include "vtac/backend/Interpreter.h"
#include "vtac/backend/RandomFill.h"
#include "vtac/backend/TensorCompare.h"
#include "vtac/backend/VtaExterns.h"
#include "vtac/driver/GraphRunCommand.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Relax.h"
#include "vtac/ir/RelaxOperators.h"
#include "vtac/prepare/Prepare.h"

namespace vtac::driver {

namespace {

using backend::CompiledFunction;
using backend::Tensor;

struct Run {
  std::vector<backend::ParamInfo> params;
  std::vector<Tensor> arguments;  // after the call
};

llvm::Expected<Run> runOnSeededInputs(const ir::PrimFuncRef &func,
                                                      llvm::StringRef name,
                                                      const backend::ExternRegistry &registry,
                                                      uint64_t seed,
                                                      const llvm::StringMap<int64_t> &sizes) {
  auto compiled = CompiledFunction::compile(func, name, registry);
  if (!compiled) return compiled.takeError();
  CompiledFunction &function = **compiled;
  auto bound = function.bindSizes(std::vector<const Tensor *>(function.params().size(), nullptr), sizes);
  if (!bound) return bound.takeError();
  std::vector<Tensor> arguments;
  for (size_t i = 0; i < function.params().size(); ++i) {
    auto tensor = function.allocateArgument(i, *bound);
    if (!tensor) return tensor.takeError();
    backend::fillRandom(*tensor, seed, function.params()[i].name);
    arguments.push_back(std::move(*tensor));
  }
  if (llvm::Error error = function.run(arguments)) return error;
  return Run{function.params(), std::move(arguments)};
}

bool sameBits(const Tensor &a, const Tensor &b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
         std::memcmp(a.data(), b.data(), a.byteSize()) == 0;
}

// How `after` differs from `before`, which do not have the same bits.
std::string difference(const Tensor &before, const Tensor &after) {
  backend::TensorComparison comparison = backend::compareTensors(before, after, 1);
  if (!comparison.incompatibility.empty()) return comparison.incompatibility;
  if (comparison.firstMismatches.empty()) return "the bits differ, within the float tolerance of vtac run --reference";
  const backend::Mismatch &first = comparison.firstMismatches.front();
  return std::to_string(comparison.numMismatches) + " of " + std::to_string(comparison.numElements) +
         " elements differ; the first at " + backend::formatIndex(first.index) + " is " + first.expected +
         " before and " + first.actual + " after";
}

// The module as `vtac run` runs its graphs: high-level operators legalized first.
llvm::Expected<ir::IRModule> runnable(const ir::IRModule &module) {
  if (!ir::relax::hasOperatorCalls(module)) return module;
  prepare::Recipe recipe;
  recipe.passes = "legalize-ops";
  llvm::Expected<prepare::Preparer> preparer = prepare::Preparer::create(recipe);
  if (!preparer) return preparer.takeError();
  frontend::ParsedModule parsed;
  parsed.module = module;
  std::ostringstream remarks;
  if (llvm::Error error = preparer->prepare(parsed, remarks)) return error;
  return parsed.module;
}

// Runs graph `name` of both modules on the same seeded random inputs and compares the results.
llvm::Error checkGraph(const ir::IRModule &before, const ir::IRModule &after, const std::string &name,
                       const backend::ArgumentSources &arguments, std::ostream &report) {
  const ir::Node &original = *before.lookup(name);
  if (!ir::asRelaxFunction(after.lookup(name)))
    return ir::diagnosticError(original.loc(), "'" + name + "' is missing after the pipeline");
  auto run = [&](const ir::IRModule &module, const char *when) -> llvm::Expected<graph::NamedTensors> {
    llvm::Expected<ir::IRModule> legalized = runnable(module);
    llvm::Expected<graph::NamedTensors> results =
        legalized ? runGraph(*legalized, name, arguments) : legalized.takeError();
    if (!results)
      return ir::diagnosticError(original.loc(), std::string("--check-equivalence: running graph '") + name + "' " +
                                                     when + " the pipeline failed: " +
                                                     ir::errorMessage(results.takeError()));
    return results;
  };
  llvm::Expected<graph::NamedTensors> expected = run(before, "before");
  if (!expected) return expected.takeError();
  llvm::Expected<graph::NamedTensors> actual = run(after, "after");
  if (!actual) return actual.takeError();
  if (expected->size() != actual->size())
    return ir::diagnosticError(original.loc(), "--check-equivalence: graph '" + name + "' returns " +
                                                   std::to_string(expected->size()) + " results before the pipeline and " +
                                                   std::to_string(actual->size()) + " after");
  for (size_t i = 0; i < expected->size(); ++i) {
    const auto &[result, tensor] = (*expected)[i];
    if (sameBits(tensor, (*actual)[i].second)) continue;
    return ir::diagnosticError(original.loc(), "--check-equivalence: graph '" + name + "' computes a different '" +
                                                   result + "': " + difference(tensor, (*actual)[i].second));
  }
  report << "check-equivalence: graph '" << name << "' agrees bit for bit (seed " << arguments.seed << ")\n";
  return llvm::Error::success();
}

}  // namespace

llvm::Error checkEquivalence(const ir::IRModule &before, const ir::IRModule &after, uint64_t seed,
                             const std::vector<std::pair<std::string, int64_t>> &sizes,
                             std::ostream &report, llvm::StringRef onlyFunction) {
  backend::ExternRegistry registry;
  backend::registerVtaExterns(registry);
  llvm::StringMap<int64_t> namedSizes;
  for (const auto &[name, value] : sizes) namedSizes[name] = value;
  for (const auto &entry : before.functions()) {
    const std::string &name = entry.name->name;
    if (!onlyFunction.empty() && name != onlyFunction) continue;
    if (ir::asRelaxFunction(entry.function)) {
      backend::ArgumentSources arguments;
      arguments.sizes = sizes;
      arguments.randomInputs = true;
      arguments.seed = seed;
      if (llvm::Error error = checkGraph(before, after, name, arguments, report)) return error;
      continue;
    }
    auto *original = entry.function->as<ir::PrimFunc>();
    if (!original) continue;
    auto *transformed = after.lookup(name) ? after.lookup(name)->as<ir::PrimFunc>() : nullptr;
    // A Relax pass (fuse-ops) removes the prim_funcs its graphs no longer call.
    if (!transformed && ir::moduleHasRelaxFunction(before)) {
      report << "check-equivalence: note: '" << name << "' is gone after the pipeline (no graph calls it): not compared\n";
      continue;
    }
    if (!transformed) return ir::diagnosticError(original->loc(), "'" + name + "' is missing after the pipeline");
    auto expected = runOnSeededInputs(ir::PrimFuncRef(original), name, registry, seed, namedSizes);
    if (!expected)
      return ir::diagnosticError(original->loc(), "--check-equivalence: running '" + name +
                                                      "' before the pipeline failed: " +
                                                      ir::errorMessage(expected.takeError()));
    auto actual = runOnSeededInputs(ir::PrimFuncRef(transformed), name, registry, seed, namedSizes);
    if (!actual)
      return ir::diagnosticError(original->loc(), "--check-equivalence: running '" + name +
                                                      "' after the pipeline failed: " +
                                                      ir::errorMessage(actual.takeError()));
    for (size_t i = 0; i < expected->arguments.size(); ++i) {
      const Tensor &a = expected->arguments[i], &b = actual->arguments[i];
      if (sameBits(a, b)) continue;
      const backend::ParamInfo &param = expected->params[i];
      return ir::diagnosticError(param.buffer ? param.buffer->loc() : original->loc(),
                                 "--check-equivalence: '" + name + "' computes a different '" + param.name +
                                     "': " + difference(a, b));
    }
    report << "check-equivalence: '" << name << "' agrees bit for bit (seed " << seed << ")\n";
  }
  return llvm::Error::success();
}

}  // namespace vtac::driver
