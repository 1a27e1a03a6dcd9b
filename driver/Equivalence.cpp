#include "Equivalence.h"

#include <cstring>

#include <llvm/ADT/StringMap.h>

#include "vtac/backend/Interpreter.h"
#include "vtac/backend/RandomFill.h"
#include "vtac/backend/TensorCompare.h"
#include "vtac/backend/VtaExterns.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Relax.h"

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
    // Graphs are not run here: saying so keeps a silent pass from reading as a checked one.
    if (ir::asRelaxFunction(entry.function)) {
      report << "check-equivalence: note: the Relax function '" << name
             << "' is not compared (compare `vtac run --output` of the module before and after)\n";
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
      backend::TensorComparison comparison = backend::compareTensors(a, b, 1);
      std::string detail = comparison.incompatibility;
      if (detail.empty() && comparison.firstMismatches.empty())
        detail = "the bits differ, within the float tolerance of vtac run --reference";
      if (detail.empty()) {
        const backend::Mismatch &first = comparison.firstMismatches.front();
        detail = std::to_string(comparison.numMismatches) + " of " + std::to_string(comparison.numElements) +
                 " elements differ; the first at " + backend::formatIndex(first.index) + " is " +
                 first.expected + " before and " + first.actual + " after";
      }
      return ir::diagnosticError(param.buffer ? param.buffer->loc() : original->loc(),
                                 "--check-equivalence: '" + name + "' computes a different '" + param.name +
                                     "': " + detail);
    }
    report << "check-equivalence: '" << name << "' agrees bit for bit (seed " << seed << ")\n";
  }
  return llvm::Error::success();
}

}  // namespace vtac::driver
