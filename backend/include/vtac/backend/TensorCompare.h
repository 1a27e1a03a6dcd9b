// Element-wise comparison of a result against a reference, as `vtac run --reference` does it.
//
// Integers and bools must be equal. Floats match when |a - b| <= atol + rtol * max(|a|, |b|)
// (by default rtol 1e-5, atol 0: `vtac run --rtol/--atol` choose others), when both are equal
// (including infinities of the same sign) or when both are NaN. Shapes and element types must
// agree exactly.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vtac/backend/Tensor.h"

namespace vtac::backend {

struct FloatTolerance {
  double rtol = 1e-5;
  double atol = 0;
};

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
                                size_t maxReported = 10, FloatTolerance tolerance = {});

}  // namespace vtac::backend
