// Helpers shared by the relax unit tests: parsing a file into a module that holds its prim_funcs
// and its Relax functions, and the seed-004 MLP computed directly (the reference the graph
// runs are compared with).
#pragma once

#include <optional>
#include <string>

#include "vtac/backend/Tensor.h"
#include "vtac/graph/Npz.h"
#include "vtac/ir/Function.h"

namespace vtac::relax_test {

struct ParsedFile {
  ir::IRModule module;
  std::string diagnostics;  // rendered errors; empty on success
};

// Parses `text` (named `name` in diagnostics) with the frontend.
ParsedFile parseText(const std::string &name, const std::string &text);
ParsedFile parseSample(const std::string &sampleName);
std::string readSample(const std::string &sampleName);
// A file relative to the repository root (the tests' working directory).
std::string readFile(const std::string &path);

// Seeded float32 data in [-1, 1).
backend::Tensor randomTensor(std::vector<int64_t> shape, uint64_t seed);

// The 784-128-10 MLP's input x and parameters w0, b0, w1, b1.
graph::NamedTensors mlpInputs(uint64_t seed);
// The reference MLP (tests/e2e/relax/ReferenceMlp.h) of the inputs named x, w0, b0, w1, b1.
backend::Tensor referenceMlp(const graph::NamedTensors &inputs);

// Largest |a - b| over all elements (shapes must match).
double maxAbsDifference(const backend::Tensor &a, const backend::Tensor &b);

}  // namespace vtac::relax_test
