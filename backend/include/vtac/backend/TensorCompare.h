// Element-wise comparison of a result against a reference, as `vtac run --reference` does it.
//
// Integers and bools must be equal. Floats match when |a - b| <= 1e-5 * max(|a|, |b|)
// (relative tolerance 1e-5), when both are equal (including infinities of the same sign) or
// when both are NaN. Shapes and element types must agree exactly.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vtac/backend/Tensor.h"

namespace vtac::backend {

constexpr double kFloatRelativeTolerance = 1e-5;

struct Mismatch {
  std::vector<int64_t> index;  // multi-index into the tensor
  std::string expected, actual;
};

struct TensorComparison {
  // Non-empty when the tensors cannot be compared element-wise (shape or dtype differ).
  std::string incompatibility;
  int64_t numElements = 0;
  int64_t numMismatches = 0;
  std::vector<Mismatch> firstMismatches;  // at most the requested number, in C order

  bool equal() const { return incompatibility.empty() && numMismatches == 0; }
};

TensorComparison compareTensors(const Tensor &expected, const Tensor &actual,
                                size_t maxReported = 10);

}  // namespace vtac::backend
