// `vtac run --expect [NAME=]PATH.npy`: a result compared with data computed elsewhere (a numpy
// model, an earlier run's --output), reported as `--reference` reports its comparison.
#pragma once

#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <llvm/Support/Error.h>

#include "vtac/backend/Tensor.h"
#include "vtac/backend/TensorCompare.h"

namespace vtac::driver {

struct ExpectedOutput {
  std::string name;  // a parameter, or a graph's result ("": its only one)
  std::string path;
  backend::Tensor tensor;
};

// Reads every --expect file before anything runs, so that a missing or malformed one costs no work.
llvm::Expected<std::vector<ExpectedOutput>> readExpectedOutputs(
    const std::vector<std::pair<std::string, std::string>> &expectations);

// Prints `NAME: all N elements match AGAINST`, else how many differ and the first ten; true when
// all match.
bool reportComparison(const std::string &name, const backend::Tensor &expected, const backend::Tensor &actual,
                      const std::string &against, backend::FloatTolerance tolerance, std::ostream &out);

}  // namespace vtac::driver
