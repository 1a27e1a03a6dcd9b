// The arguments of one run of a prim_func, as `vtac run` makes them: the .npy files given for
// some parameters (--input), then zeros or, with `randomInputs`, RandomFill.h's data for the
// rest, their symbolic sizes bound from the files' shapes and `sizes` (--size). `vtac tune`
// makes its trials' arguments the same way.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <llvm/Support/Error.h>

#include "vtac/backend/FunctionSignature.h"
#include "vtac/backend/Tensor.h"

namespace vtac::backend {

struct ArgumentSources {
  std::vector<std::pair<std::string, std::string>> inputs;  // parameter name, .npy path
  std::vector<std::pair<std::string, int64_t>> sizes;       // size variable name, value
  bool randomInputs = false;
  uint64_t seed = 0;  // of randomInputs
};

// One tensor per parameter of `function`; an error names the --input at fault.
llvm::Expected<std::vector<Tensor>> prepareArguments(const FunctionSignature &function, const ArgumentSources &sources);

// "a, b, c": the parameter names, for messages that list them.
std::string parameterList(const FunctionSignature &function);

}  // namespace vtac::backend
