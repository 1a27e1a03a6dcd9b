#include "vtac/backend/RunArguments.h"

#include <optional>

#include <llvm/ADT/StringExtras.h>

#include "vtac/backend/Diagnostic.h"
#include "vtac/backend/Npy.h"
#include "vtac/backend/RandomFill.h"

namespace vtac::backend {

std::string parameterList(const FunctionSignature &function) {
  std::vector<std::string> names;
  for (const ParamInfo &param : function.params()) names.push_back(param.name);
  return llvm::join(names, ", ");
}

llvm::Expected<std::vector<Tensor>> prepareArguments(const FunctionSignature &function, const ArgumentSources &sources) {
  size_t count = function.params().size();
  std::vector<std::optional<Tensor>> given(count);
  std::vector<const Tensor *> givenPointers(count, nullptr);
  llvm::StringMap<int64_t> namedSizes;
  for (const auto &[name, value] : sources.sizes) namedSizes[name] = value;
  for (const auto &[name, path] : sources.inputs) {
    int index = function.paramIndex(name);
    if (index < 0)
      return diagnosticError("--input " + name + "=" + path + ": '" + function.name() + "' has no parameter '" + name +
                             "' (parameters: " + parameterList(function) + ")");
    if (given[index]) return diagnosticError("--input: parameter '" + name + "' is given twice");
    auto tensor = readNpy(path);
    if (!tensor) return tensor.takeError();
    given[index] = std::move(*tensor);
    // Each file on its own first, so that a mismatch names the file.
    std::vector<const Tensor *> alone(count, nullptr);
    alone[index] = &*given[index];
    auto sizes = function.bindSizes(alone, namedSizes);
    if (!sizes) return diagnosticError(path + ": " + errorMessage(sizes.takeError()));
    givenPointers[index] = &*given[index];
  }
  auto sizes = function.bindSizes(givenPointers, namedSizes);
  if (!sizes) return sizes.takeError();
  std::vector<Tensor> arguments;
  for (size_t i = 0; i < count; ++i) {
    if (given[i]) {
      arguments.push_back(std::move(*given[i]));
      continue;
    }
    auto tensor = function.allocateArgument(i, *sizes);
    if (!tensor) return tensor.takeError();
    if (sources.randomInputs) fillRandom(*tensor, sources.seed, function.params()[i].name);
    arguments.push_back(std::move(*tensor));
  }
  return arguments;
}

}  // namespace vtac::backend
